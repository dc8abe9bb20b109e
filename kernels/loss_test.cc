// The losses against hand-computed values; the ONNX node tests cover the
// reductions, weights and ignore_index on random data.
#include <cmath>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kernels/testing/op_tester.h"

namespace acldump {
namespace {

using ::acldump::testing::OpTester;
using ::acldump::testing::Values;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(LossTest, NllMeanDividesByTheWeightsOfTheCountedElements) {
  // log-probabilities [2, 3]; targets 2 and 0 (ignored); weights [1, 2, 4].
  OpTester t("NegativeLogLikelihoodLoss");
  t.Input<float>({2, 3}, {-1, -2, -3, -4, -5, -6})
      .Input<int64_t>({2}, {2, 0})
      .Input<float>({3}, {1, 2, 4})
      .Attr("ignore_index", int64_t{0});
  auto out = t.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  // Only the first element counts: -(-3) * 4 / 4.
  EXPECT_THAT(Values<float>((*out)[0]), ElementsAre(3.0f));
}

TEST(LossTest, NllNoneKeepsTheTargetShape) {
  OpTester t("NegativeLogLikelihoodLoss");
  t.Input<double>({1, 2, 2}, {-1, -2, -3, -4})
      .Input<int32_t>({1, 2}, {1, 0})
      .Attr("reduction", std::string("none"));
  auto out = t.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT((*out)[0].shape().dims(), ElementsAre(1, 2));
  EXPECT_THAT(Values<double>((*out)[0]), ElementsAre(3.0, 2.0));
}

TEST(LossTest, SoftmaxCrossEntropyReturnsTheLogProbabilities) {
  OpTester t("SoftmaxCrossEntropyLoss", 2);
  t.Input<float>({1, 2}, {0.0f, 0.0f}).Input<int64_t>({1}, {1});
  auto out = t.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_NEAR(Values<float>((*out)[0])[0], std::log(2.0f), 1e-7);
  EXPECT_THAT(Values<float>((*out)[1]),
              ElementsAre(-std::log(2.0f), -std::log(2.0f)));
}

TEST(LossTest, EveryElementIgnoredGivesNaNForTheMean) {
  OpTester t("NegativeLogLikelihoodLoss");
  t.Input<float>({1, 2}, {-1, -2})
      .Input<int64_t>({1}, {-1})
      .Attr("ignore_index", int64_t{-1});
  auto out = t.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(std::isnan(Values<float>((*out)[0])[0]));
}

TEST(LossTest, BadTargetsAreNamed) {
  OpTester range("NegativeLogLikelihoodLoss");
  range.Input<float>({1, 2}, {-1, -2}).RuntimeInput<int64_t>({1}, {2});
  auto out = range.Run();
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("target value 2 at position 0 is not a class index "
                        "in [0, 2) nor ignore_index"));
  OpTester shape("SoftmaxCrossEntropyLoss");
  shape.Input<float>({2, 3, 4}, std::vector<float>(24))
      .Input<int64_t>({2, 3}, std::vector<int64_t>(6));
  out = shape.Run();
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("labels has shape [2,3]; expected [2,4]"));
}

}  // namespace
}  // namespace acldump
