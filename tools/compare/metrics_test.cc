#include "tools/compare/metrics.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <limits>
#include <vector>

#include "kernels/half.h"

namespace acldump::tools {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// a = [1,2,3,4] against the reference b = [1,2,3,5]: one element off by 1.
TEST(ComputeMetricsTest, HandComputedValues) {
  const std::vector<double> a = {1, 2, 3, 4}, b = {1, 2, 3, 5};
  const TensorMetrics m = ComputeMetrics(a, b);
  EXPECT_EQ(m.count, 4u);
  EXPECT_FALSE(m.nonfinite_mismatch);
  // x·y = 34, ‖x‖² = 30, ‖y‖² = 39.
  EXPECT_NEAR(m.cosine, 34 / std::sqrt(30.0 * 39.0), 1e-15);
  EXPECT_DOUBLE_EQ(m.max_abs, 1);
  EXPECT_DOUBLE_EQ(m.mean_abs, 0.25);
  EXPECT_DOUBLE_EQ(m.rmse, 0.5);
  EXPECT_DOUBLE_EQ(m.rel_euclidean, std::sqrt(1 / 39.0));
  // Only the last element has a relative error: |4/5 - 1| = 0.2.
  EXPECT_NEAR(m.max_rel, 0.2, 1e-15);
  EXPECT_NEAR(m.mean_rel, 0.05, 1e-15);
  EXPECT_NEAR(m.acc_rel, 0.2, 1e-15);
  // Means 2.5 and 2.75; squared deviations sum to 5 and 8.75.
  EXPECT_DOUBLE_EQ(m.std_a, std::sqrt(1.25));
  EXPECT_DOUBLE_EQ(m.std_b, std::sqrt(2.1875));
  EXPECT_DOUBLE_EQ(m.frac_rel_001, 0.75);
  EXPECT_DOUBLE_EQ(m.frac_rel_005, 0.75);
  // Normalised: p ≈ [0, 1/6, 1/3, 1/2], q ≈ [0, 1/7, 2/7, 4/7] (the zeros
  // floored at float epsilon), so KL ≈ ½ln(7/6) + ½ln(7/8) = ½ln(49/48).
  EXPECT_NEAR(m.kl, 0.5 * std::log(49.0 / 48.0), 1e-6);
}

TEST(ComputeMetricsTest, IdenticalTensors) {
  const std::vector<double> a = {-3, 0.5, 7, 0};
  const TensorMetrics m = ComputeMetrics(a, a);
  EXPECT_DOUBLE_EQ(m.cosine, 1);
  EXPECT_EQ(m.max_abs, 0);
  EXPECT_EQ(m.rmse, 0);
  EXPECT_EQ(m.rel_euclidean, 0);
  EXPECT_EQ(m.max_rel, 0);
  EXPECT_EQ(m.kl, 0);
  EXPECT_EQ(m.frac_rel_001, 1);
}

TEST(ComputeMetricsTest, CosineOfZeroNorms) {
  const std::vector<double> zeros = {0, 0, 0}, ones = {1, 1, 1};
  EXPECT_EQ(ComputeMetrics(zeros, zeros).cosine, 1);
  EXPECT_TRUE(std::isnan(ComputeMetrics(zeros, ones).cosine));
  EXPECT_TRUE(std::isnan(ComputeMetrics(ones, zeros).cosine));
}

TEST(ComputeMetricsTest, CosineIsClippedAtOne) {
  const std::vector<double> a = {0.1, 0.2, 0.3};
  EXPECT_LE(ComputeMetrics(a, a).cosine, 1.0);
  // Opposite directions.
  const std::vector<double> b = {-0.1, -0.2, -0.3};
  EXPECT_NEAR(ComputeMetrics(a, b).cosine, -1, 1e-15);
}

TEST(ComputeMetricsTest, ReferenceOfZerosHasNoRelativeError) {
  const std::vector<double> a = {1, 2}, b = {0, 0};
  const TensorMetrics m = ComputeMetrics(a, b);
  EXPECT_EQ(m.rel_euclidean, 0);
  EXPECT_EQ(m.max_rel, 0);
  EXPECT_EQ(m.frac_rel_001, 1);
  EXPECT_DOUBLE_EQ(m.max_abs, 2);
}

TEST(ComputeMetricsTest, SameNonFinitePositionsAreIgnored) {
  const std::vector<double> a = {1, kNan, kInf, -kInf, 4};
  const std::vector<double> b = {1, kNan, kInf, -kInf, 5};
  const TensorMetrics m = ComputeMetrics(a, b);
  EXPECT_EQ(m.count, 5u);
  EXPECT_EQ(m.ignored, 3u);
  EXPECT_FALSE(m.nonfinite_mismatch);
  EXPECT_DOUBLE_EQ(m.max_abs, 1);
  EXPECT_DOUBLE_EQ(m.mean_abs, 0.5);  // over the 2 finite pairs
}

TEST(ComputeMetricsTest, DifferentNonFinitePositionsMakeEveryMetricNan) {
  for (const auto& [x, y] : std::vector<std::pair<double, double>>{
           {kNan, 1}, {1, kInf}, {kInf, -kInf}, {kNan, kInf}}) {
    const std::vector<double> a = {1, x}, b = {1, y};
    const TensorMetrics m = ComputeMetrics(a, b);
    EXPECT_TRUE(m.nonfinite_mismatch);
    for (Metric metric : kAllMetrics) {
      EXPECT_TRUE(std::isnan(MetricValue(m, metric))) << MetricName(metric);
    }
  }
}

TEST(ComputeMetricsTest, EmptyTensors) {
  const TensorMetrics m = ComputeMetrics({}, {});
  EXPECT_EQ(m.count, 0u);
  EXPECT_EQ(m.cosine, 1);
  EXPECT_EQ(m.max_abs, 0);
}

TEST(CheckToleranceTest, AllcloseRule) {
  const std::vector<double> a = {1, 1.0015, 10.02}, b = {1, 1, 10};
  // atol only: 0.0015 and 0.02 exceed 0.001.
  ToleranceCheck t = CheckTolerance(a, b, 1e-3, 0);
  EXPECT_FALSE(t.within);
  EXPECT_EQ(t.violations, 2u);
  EXPECT_EQ(t.worst_index, 2u);
  EXPECT_NEAR(t.worst_abs, 0.02, 1e-12);
  // rtol 1e-3 allows 0.002 at b=1 and 0.011 at b=10: only the last is out.
  t = CheckTolerance(a, b, 1e-3, 1e-3);
  EXPECT_EQ(t.violations, 1u);
  EXPECT_EQ(t.worst_index, 2u);
  t = CheckTolerance(a, b, 0.05, 0);
  EXPECT_TRUE(t.within);
}

TEST(CheckToleranceTest, NonFinite) {
  const std::vector<double> a = {kNan, kInf, 1}, b = {kNan, kInf, 1};
  EXPECT_TRUE(CheckTolerance(a, b, 0, 0).within);
  const std::vector<double> c = {kNan, 1, 1};
  const ToleranceCheck t = CheckTolerance(c, b, 1e9, 1e9);
  EXPECT_FALSE(t.within);
  EXPECT_EQ(t.violations, 1u);
  EXPECT_EQ(t.worst_index, 1u);
  EXPECT_TRUE(std::isinf(t.worst_abs));
}

TEST(ToDoublesTest, WidensEveryType) {
  Tensor half(DType::kFloat16, Shape{3});
  half.as<Float16>()[0] = Float16(1.5f);
  half.as<Float16>()[1] = Float16(-65504.0f);
  half.as<Float16>()[2] = Float16(0.099976f);
  const std::vector<double> h = ToDoubles(half.view());
  EXPECT_THAT(h, ElementsAre(1.5, -65504.0, HalfBitsToFloat(0x2E66)));

  Tensor bf(DType::kBFloat16, Shape{1});
  bf.as<BFloat16>()[0] = BFloat16(3.0f);
  EXPECT_THAT(ToDoubles(bf.view()), ElementsAre(3.0));

  Tensor i64(DType::kInt64, Shape{2});
  i64.as<int64_t>()[0] = -7;
  i64.as<int64_t>()[1] = 1 << 20;
  EXPECT_THAT(ToDoubles(i64.view()), ElementsAre(-7.0, 1048576.0));

  Tensor flags(DType::kBool, Shape{2});
  flags.as<uint8_t>()[0] = 0;
  flags.as<uint8_t>()[1] = 1;
  EXPECT_THAT(ToDoubles(flags.view()), ElementsAre(0.0, 1.0));
}

TEST(ParseMetricListTest, NamesAllAndErrors) {
  absl::StatusOr<std::vector<Metric>> m = ParseMetricList("max_abs,cosine");
  ASSERT_TRUE(m.ok());
  EXPECT_THAT(*m, ElementsAre(Metric::kMaxAbs, Metric::kCosine));
  EXPECT_EQ(ParseMetricList("all")->size(), std::size(kAllMetrics));
  EXPECT_EQ(ParseMetricList("default")->size(), std::size(kDefaultMetrics));
  m = ParseMetricList("cosine,cosinus");
  ASSERT_FALSE(m.ok());
  EXPECT_THAT(m.status().message(), HasSubstr("unknown metric 'cosinus'"));
  EXPECT_THAT(m.status().message(), HasSubstr("rel_lt_0.001"));
}

}  // namespace
}  // namespace acldump::tools
