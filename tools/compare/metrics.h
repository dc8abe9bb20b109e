// Tensor comparison metrics of the dump format and the tolerance rule of
// `dump compare`. `a` is the side under test, `b` the reference (ground
// truth): relative errors and the KL divergence are taken against `b`.
//
// NaN/Inf: a position where both sides hold the same non-finite value (NaN
// and NaN, +Inf and +Inf, -Inf and -Inf) is left out of every metric. Any
// other non-finite position (finite vs NaN, +Inf vs -Inf, ...) makes every
// metric NaN and the pair fails the tolerance check.
#ifndef ACLDUMP_TOOLS_COMPARE_METRICS_H_
#define ACLDUMP_TOOLS_COMPARE_METRICS_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "kernels/tensor.h"

namespace acldump::tools {

struct TensorMetrics {
  uint64_t count = 0;    // elements in each tensor
  uint64_t ignored = 0;  // same-position NaN/Inf left out
  bool nonfinite_mismatch = false;
  double cosine = 1;         // Σ(x/‖x‖)(y/‖y‖), at most 1
  double max_abs = 0;        // max |x−y|
  double mean_abs = 0;       // mean |x−y|
  double rmse = 0;           // √mean((x−y)²)
  double rel_euclidean = 0;  // √(Σ(x−y)² / Σy²); 0 when Σy² ≈ 0
  double max_rel = 0;        // max |x/y − 1| over |y| > ε, 0 elsewhere
  double mean_rel = 0;
  double acc_rel = 0;  // Σ of the same
  double kl = 0;       // KL(x‖y) after min-max normalising each side
  double std_a = 0;    // population standard deviations
  double std_b = 0;
  double mean_a = 0;  // means (the SDK's StandardDeviation column shows both)
  double mean_b = 0;
  double frac_rel_001 = 1;  // fraction with relative error < 0.001
  double frac_rel_005 = 1;  // fraction with relative error < 0.005
};

// Both spans have the same length (the caller checks shapes).
TensorMetrics ComputeMetrics(std::span<const double> a,
                             std::span<const double> b);

// numpy.allclose's rule, element by element: |a−b| <= atol + rtol·|b|.
struct ToleranceCheck {
  bool within = true;
  uint64_t violations = 0;  // elements outside (mismatched NaN/Inf included)
  uint64_t worst_index = 0;
  double worst_abs = 0;  // |a−b| at worst_index (inf for a NaN/Inf mismatch)
};
ToleranceCheck CheckTolerance(std::span<const double> a,
                              std::span<const double> b, double atol,
                              double rtol);

// The elements of a tensor as doubles (every DType; bool as 0/1).
std::vector<double> ToDoubles(const TensorView& view);

// The metrics a user can pick with `--metrics`, in report order.
enum class Metric {
  kCosine,
  kMaxAbs,
  kMeanAbs,
  kRmse,
  kRelEuclidean,
  kMaxRel,
  kMeanRel,
  kAccRel,
  kKl,
  kStdA,
  kStdB,
  kFracRel001,
  kFracRel005,
};
inline constexpr Metric kAllMetrics[] = {
    Metric::kCosine,    Metric::kMaxAbs,       Metric::kMeanAbs,
    Metric::kRmse,      Metric::kRelEuclidean, Metric::kMaxRel,
    Metric::kMeanRel,   Metric::kAccRel,       Metric::kKl,
    Metric::kStdA,      Metric::kStdB,         Metric::kFracRel001,
    Metric::kFracRel005};
inline constexpr Metric kDefaultMetrics[] = {Metric::kCosine, Metric::kMaxAbs,
                                             Metric::kMeanAbs, Metric::kRmse,
                                             Metric::kMaxRel};

// Command-line name ("cosine", "max_abs", ...).
std::string_view MetricName(Metric metric);
// One-line meaning, for --help and the HTML report.
std::string_view MetricDescription(Metric metric);
double MetricValue(const TensorMetrics& metrics, Metric metric);
// "cosine,max_abs" (or "all" / "default"); errors name the unknown item and
// list the known names.
absl::StatusOr<std::vector<Metric>> ParseMetricList(std::string_view text);

}  // namespace acldump::tools

#endif  // ACLDUMP_TOOLS_COMPARE_METRICS_H_
