// LRN, LpNormalization and GroupNormalization against values computed here
// from their definitions (MeanVarianceNormalization and LRN also run in the
// ONNX node tests).
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
using ::testing::DoubleNear;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pointwise;

TEST(FeatureNormTest, LrnSumsSquaresOverTheChannelWindow) {
  OpTester t("LRN");
  t.Input<double>({1, 3, 1}, {1, 2, 3})
      .Attr("size", int64_t{3})
      .Attr("alpha", 0.3f)
      .Attr("beta", 0.5f)
      .Attr("bias", 2.0f);
  auto out = t.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  const double a = 0.3f / 3.0;
  const std::vector<double> expected = {1 / std::sqrt(2 + a * (1 + 4)),
                                        2 / std::sqrt(2 + a * (1 + 4 + 9)),
                                        3 / std::sqrt(2 + a * (4 + 9))};
  EXPECT_THAT(Values<double>((*out)[0]),
              Pointwise(DoubleNear(1e-12), expected));
}

TEST(FeatureNormTest, LpNormalizationOneTwoAndZero) {
  OpTester l2("LpNormalization");
  l2.Input<float>({2, 2}, {3, 4, 0, 0}).Attr("axis", int64_t{1});
  auto out = l2.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Values<float>((*out)[0]), ElementsAre(0.6f, 0.8f, 0, 0));
  OpTester l1("LpNormalization");
  l1.Input<float>({2, 2}, {1, -3, 2, 2})
      .Attr("axis", int64_t{0})
      .Attr("p", int64_t{1});
  out = l1.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Values<float>((*out)[0]),
              ElementsAre(1.0f / 3, -0.6f, 2.0f / 3, 0.4f));
}

TEST(FeatureNormTest, GroupNormalizationPerGroupAndPerChannel) {
  // [1, 4, 2]: groups {c0, c1} and {c2, c3}.
  const std::vector<double> x = {1, 2, 3, 4, 10, 10, 20, 40};
  auto expected = [&](const std::vector<double>& scale,
                      const std::vector<double>& bias, bool per_channel) {
    std::vector<double> y(8);
    for (int g = 0; g < 2; ++g) {
      double mean = 0, var = 0;
      for (int e = 0; e < 4; ++e) mean += x[g * 4 + e] / 4;
      for (int e = 0; e < 4; ++e)
        var += (x[g * 4 + e] - mean) * (x[g * 4 + e] - mean) / 4;
      for (int e = 0; e < 4; ++e) {
        const int c = g * 2 + e / 2;
        const int k = per_channel ? c : g;
        y[g * 4 + e] =
            (x[g * 4 + e] - mean) / std::sqrt(var + 1e-5) * scale[k] + bias[k];
      }
    }
    return y;
  };
  OpTester groups("GroupNormalization");
  groups.Input<double>({1, 4, 2}, x)
      .Input<double>({2}, {2, 3})
      .Input<double>({2}, {0.5, -1})
      .Attr("num_groups", int64_t{2});
  auto out = groups.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Values<double>((*out)[0]),
              Pointwise(DoubleNear(1e-6), expected({2, 3}, {0.5, -1}, false)));
  OpTester channels("GroupNormalization");
  channels.Input<double>({1, 4, 2}, x)
      .Input<double>({4}, {1, 2, 3, 4})
      .Input<double>({4}, {0, 1, 0, 1})
      .Attr("num_groups", int64_t{2});
  out = channels.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(
      Values<double>((*out)[0]),
      Pointwise(DoubleNear(1e-6), expected({1, 2, 3, 4}, {0, 1, 0, 1}, true)));
}

TEST(FeatureNormTest, MeanVarianceNormalizationOverChosenAxes) {
  // Rows normalised on their own; a constant row has no variance and gives 0.
  OpTester t("MeanVarianceNormalization");
  t.Input<double>({2, 3}, {1, 2, 3, 4, 4, 4})
      .Attr("axes", std::vector<int64_t>{-1});
  auto out = t.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  const double sd = std::sqrt(2.0 / 3) + 1e-9;
  EXPECT_THAT(Values<double>((*out)[0]),
              Pointwise(DoubleNear(1e-12),
                        std::vector<double>{-1 / sd, 0, 1 / sd, 0, 0, 0}));
}

TEST(FeatureNormTest, BadAttributesAreNamed) {
  OpTester groups("GroupNormalization");
  groups.Input<float>({1, 4, 2}, std::vector<float>(8))
      .Input<float>({3}, {1, 1, 1})
      .Input<float>({3}, {0, 0, 0})
      .Attr("num_groups", int64_t{3});
  auto out = groups.Run();
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("num_groups 3 must divide the channels (4)"));
  OpTester lrn("LRN");
  lrn.Input<float>({1, 2, 1}, {1, 2});
  out = lrn.Run();
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("attribute 'size' is required"));
}

TEST(FeatureNormTest, MishIsXTimesTanhOfSoftplus) {
  OpTester t("Mish");
  t.Input<float>({3}, {0.0f, 1.0f, 25.0f});
  auto out = t.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  const auto y = Values<float>((*out)[0]);
  EXPECT_EQ(y[0], 0.0f);
  EXPECT_NEAR(y[1], 0.8650983882673103, 1e-6);
  EXPECT_FLOAT_EQ(y[2], 25.0f);
}

}  // namespace
}  // namespace acldump
