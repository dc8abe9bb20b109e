// Index-driven operators: values and the errors for bad indices (the ONNX node
// tests in //runtime/conformance check every op against the reference).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "kernels/testing/op_tester.h"
#include "kernels/testing/test_values.h"

namespace acldump {
namespace {

using ::acldump::testing::Message;
using ::acldump::testing::OpTester;
using ::acldump::testing::Values;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(IndexingTest, GatherElementsRejectsAnOutOfRangeIndex) {
  OpTester t("GatherElements");
  t.Input<float>({2, 2}, {1, 2, 3, 4})
      .RuntimeInput<int64_t>({2, 2}, {0, 1, 2, 0})
      .Attr("axis", int64_t{0});
  EXPECT_THAT(Message(t.Run().status()),
              HasSubstr("index 2 at position [1,0] of 'indices' is out of "
                        "range for axis 0 of size 2"));
}

TEST(IndexingTest, ScatterNDAddsUpdates) {
  OpTester t("ScatterND");
  t.Input<float>({4}, {1, 2, 3, 4})
      .Input<int64_t>({2, 1}, {1, -1})
      .Input<float>({2}, {10, 20})
      .Attr("reduction", std::string("add"));
  auto out = t.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Values<float>((*out)[0]), ElementsAre(1, 12, 3, 24));
}

TEST(IndexingTest, TopKPutsNanFirstWhenLargest) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  OpTester t("TopK", 2);
  t.Input<float>({4}, {1, nan, 3, 3}).Input<int64_t>({1}, {3});
  auto out = t.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  const auto values = Values<float>((*out)[0]);
  EXPECT_TRUE(std::isnan(values[0]));
  EXPECT_EQ(values[1], 3);
  EXPECT_THAT(Values<int64_t>((*out)[1]), ElementsAre(1, 2, 3));
}

TEST(IndexingTest, DropoutInInferenceIsTheIdentity) {
  OpTester t("Dropout", 2);
  t.Input<float>({3}, {1, 2, 3});
  auto out = t.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Values<float>((*out)[0]), ElementsAre(1, 2, 3));
  EXPECT_THAT(Values<bool>((*out)[1]), ElementsAre(true, true, true));
}

TEST(IndexingTest, DropoutInTrainingModeWithRatioZeroIsTheIdentity) {
  OpTester t("Dropout", 2);
  t.Input<float>({3}, {1, -2, 3})
      .Input<float>({}, {0.0f})
      .Input<bool>({}, {true});
  auto out = t.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Values<float>((*out)[0]), ElementsAre(1, -2, 3));
  EXPECT_THAT(Values<bool>((*out)[1]), ElementsAre(true, true, true));
}

TEST(IndexingTest, DropoutInTrainingModeWithARatioIsRefused) {
  OpTester t("Dropout");
  t.Input<float>({3}, {1, 2, 3})
      .Input<float>({}, {0.5f})
      .Input<bool>({}, {true});
  auto out = t.Run();
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("ratio 0.5 (random dropout) is not supported"));
  OpTester unknown_ratio("Dropout");
  unknown_ratio.Input<float>({3}, {1, 2, 3})
      .RuntimeInput<float>({}, {0.0f})
      .Input<bool>({}, {true});
  out = unknown_ratio.Run();
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("needs a 'ratio' input known before execution"));
}

}  // namespace
}  // namespace acldump
