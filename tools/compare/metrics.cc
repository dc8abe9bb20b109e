#include "tools/compare/metrics.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>

#include "base/strings.h"
#include "kernels/half.h"

namespace acldump::tools {
namespace {

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kEpsilon = std::numeric_limits<double>::epsilon();

// Same non-finite value on both sides (left out of the metrics).
bool SameNonFinite(double x, double y) {
  if (std::isnan(x) || std::isnan(y)) return std::isnan(x) && std::isnan(y);
  return std::isinf(x) && x == y;
}

double RelativeError(double x, double y) {
  return std::fabs(y) > kEpsilon ? std::fabs(x / y - 1) : 0;
}

double PopulationStd(const std::vector<double>& v) {
  if (v.empty()) return 0;
  double mean = 0;
  for (double x : v) mean += x;
  mean /= v.size();
  double sum = 0;
  for (double x : v) sum += (x - mean) * (x - mean);
  return std::sqrt(sum / v.size());
}

// Min-max normalised to [0,1] (unchanged when constant), floored at float
// epsilon so no probability is 0, then scaled to sum 1.
std::vector<double> Distribution(const std::vector<double>& v) {
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  const double min = *lo, range = *hi - *lo;
  std::vector<double> p(v.size());
  double sum = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    const double scaled = range != 0 ? (v[i] - min) / range : v[i];
    p[i] = std::max(scaled, static_cast<double>(FLT_EPSILON));
    sum += p[i];
  }
  for (double& x : p) x /= sum;
  return p;
}

double KlDivergence(const std::vector<double>& a,
                    const std::vector<double>& b) {
  if (a.empty()) return 0;
  const std::vector<double> p = Distribution(a), q = Distribution(b);
  double kl = 0;
  for (size_t i = 0; i < p.size(); ++i) kl += p[i] * std::log(p[i] / q[i]);
  return std::max(kl, 0.0);  // rounding can dip below the true 0
}

template <typename T>
void Widen(const TensorView& view, std::vector<double>& out) {
  const T* data = view.as<T>();
  for (size_t i = 0; i < out.size(); ++i) {
    out[i] = static_cast<double>(static_cast<float>(data[i]));
  }
}

template <typename T>
void WidenExact(const TensorView& view, std::vector<double>& out) {
  const T* data = view.as<T>();
  for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<double>(data[i]);
}

}  // namespace

TensorMetrics ComputeMetrics(std::span<const double> a,
                             std::span<const double> b) {
  TensorMetrics m;
  m.count = a.size();
  std::vector<double> x, y;
  x.reserve(a.size());
  y.reserve(a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::isfinite(a[i]) && std::isfinite(b[i])) {
      x.push_back(a[i]);
      y.push_back(b[i]);
    } else if (SameNonFinite(a[i], b[i])) {
      ++m.ignored;
    } else {
      m.nonfinite_mismatch = true;
    }
  }
  if (m.nonfinite_mismatch) {
    m.cosine = m.max_abs = m.mean_abs = m.rmse = m.rel_euclidean = kNan;
    m.max_rel = m.mean_rel = m.acc_rel = m.kl = m.std_a = m.std_b = kNan;
    m.mean_a = m.mean_b = kNan;
    m.frac_rel_001 = m.frac_rel_005 = kNan;
    return m;
  }
  const size_t n = x.size();
  if (n == 0) return m;
  double xx = 0, yy = 0, sum_abs = 0, sum_sq = 0;
  uint64_t under_001 = 0, under_005 = 0;
  for (size_t i = 0; i < n; ++i) {
    const double d = x[i] - y[i];
    xx += x[i] * x[i];
    yy += y[i] * y[i];
    m.max_abs = std::max(m.max_abs, std::fabs(d));
    sum_abs += std::fabs(d);
    sum_sq += d * d;
    const double rel = RelativeError(x[i], y[i]);
    m.max_rel = std::max(m.max_rel, rel);
    m.acc_rel += rel;
    under_001 += rel < 0.001;
    under_005 += rel < 0.005;
  }
  const double norm_x = std::sqrt(xx), norm_y = std::sqrt(yy);
  if (norm_x <= kEpsilon && norm_y <= kEpsilon) {
    m.cosine = 1;
  } else if (norm_x <= kEpsilon || norm_y <= kEpsilon) {
    m.cosine = kNan;
  } else {
    double cosine = 0;
    for (size_t i = 0; i < n; ++i) cosine += (x[i] / norm_x) * (y[i] / norm_y);
    m.cosine = std::min(cosine, 1.0);
  }
  m.mean_abs = sum_abs / n;
  m.rmse = std::sqrt(sum_sq / n);
  m.rel_euclidean = yy <= kEpsilon ? 0 : std::sqrt(sum_sq / yy);
  m.mean_rel = m.acc_rel / n;
  m.kl = KlDivergence(x, y);
  m.std_a = PopulationStd(x);
  m.std_b = PopulationStd(y);
  for (size_t i = 0; i < n; ++i) {
    m.mean_a += x[i];
    m.mean_b += y[i];
  }
  m.mean_a /= n;
  m.mean_b /= n;
  m.frac_rel_001 = static_cast<double>(under_001) / n;
  m.frac_rel_005 = static_cast<double>(under_005) / n;
  return m;
}

ToleranceCheck CheckTolerance(std::span<const double> a,
                              std::span<const double> b, double atol,
                              double rtol) {
  ToleranceCheck check;
  double worst_excess = -1;
  for (size_t i = 0; i < a.size(); ++i) {
    double diff, excess;
    if (std::isfinite(a[i]) && std::isfinite(b[i])) {
      diff = std::fabs(a[i] - b[i]);
      excess = diff - (atol + rtol * std::fabs(b[i]));
      if (excess <= 0) continue;
    } else if (SameNonFinite(a[i], b[i])) {
      continue;
    } else {
      diff = excess = std::numeric_limits<double>::infinity();
    }
    ++check.violations;
    if (excess > worst_excess) {
      worst_excess = excess;
      check.worst_index = i;
      check.worst_abs = diff;
    }
  }
  check.within = check.violations == 0;
  return check;
}

std::vector<double> ToDoubles(const TensorView& view) {
  std::vector<double> out(static_cast<size_t>(view.NumElements()));
  switch (view.dtype) {
    case DType::kFloat32:
      WidenExact<float>(view, out);
      break;
    case DType::kFloat16:
      Widen<Float16>(view, out);
      break;
    case DType::kBFloat16:
      Widen<BFloat16>(view, out);
      break;
    case DType::kFloat64:
      WidenExact<double>(view, out);
      break;
    case DType::kInt8:
      WidenExact<int8_t>(view, out);
      break;
    case DType::kInt16:
      WidenExact<int16_t>(view, out);
      break;
    case DType::kInt32:
      WidenExact<int32_t>(view, out);
      break;
    case DType::kInt64:
      WidenExact<int64_t>(view, out);
      break;
    case DType::kUInt8:
      WidenExact<uint8_t>(view, out);
      break;
    case DType::kUInt16:
      WidenExact<uint16_t>(view, out);
      break;
    case DType::kUInt32:
      WidenExact<uint32_t>(view, out);
      break;
    case DType::kUInt64:
      WidenExact<uint64_t>(view, out);
      break;
    case DType::kBool:
      for (size_t i = 0; i < out.size(); ++i) {
        out[i] = view.as<uint8_t>()[i] != 0;
      }
      break;
    case DType::kUndefined:
      out.clear();
      break;
  }
  return out;
}

std::string_view MetricName(Metric metric) {
  switch (metric) {
    case Metric::kCosine:
      return "cosine";
    case Metric::kMaxAbs:
      return "max_abs";
    case Metric::kMeanAbs:
      return "mean_abs";
    case Metric::kRmse:
      return "rmse";
    case Metric::kRelEuclidean:
      return "rel_euclidean";
    case Metric::kMaxRel:
      return "max_rel";
    case Metric::kMeanRel:
      return "mean_rel";
    case Metric::kAccRel:
      return "acc_rel";
    case Metric::kKl:
      return "kl";
    case Metric::kStdA:
      return "std_a";
    case Metric::kStdB:
      return "std_b";
    case Metric::kFracRel001:
      return "rel_lt_0.001";
    case Metric::kFracRel005:
      return "rel_lt_0.005";
  }
  return "";
}

std::string_view MetricDescription(Metric metric) {
  switch (metric) {
    case Metric::kCosine:
      return "cosine similarity (1 = same direction)";
    case Metric::kMaxAbs:
      return "max absolute error max|a-b|";
    case Metric::kMeanAbs:
      return "mean absolute error";
    case Metric::kRmse:
      return "root mean square error";
    case Metric::kRelEuclidean:
      return "relative Euclidean distance sqrt(sum (a-b)^2 / sum b^2)";
    case Metric::kMaxRel:
      return "max relative error |a/b - 1| where |b| > eps";
    case Metric::kMeanRel:
      return "mean relative error";
    case Metric::kAccRel:
      return "accumulated relative error";
    case Metric::kKl:
      return "KL divergence after min-max normalisation";
    case Metric::kStdA:
      return "standard deviation of A";
    case Metric::kStdB:
      return "standard deviation of B";
    case Metric::kFracRel001:
      return "fraction of elements with relative error < 0.001";
    case Metric::kFracRel005:
      return "fraction of elements with relative error < 0.005";
  }
  return "";
}

double MetricValue(const TensorMetrics& m, Metric metric) {
  switch (metric) {
    case Metric::kCosine:
      return m.cosine;
    case Metric::kMaxAbs:
      return m.max_abs;
    case Metric::kMeanAbs:
      return m.mean_abs;
    case Metric::kRmse:
      return m.rmse;
    case Metric::kRelEuclidean:
      return m.rel_euclidean;
    case Metric::kMaxRel:
      return m.max_rel;
    case Metric::kMeanRel:
      return m.mean_rel;
    case Metric::kAccRel:
      return m.acc_rel;
    case Metric::kKl:
      return m.kl;
    case Metric::kStdA:
      return m.std_a;
    case Metric::kStdB:
      return m.std_b;
    case Metric::kFracRel001:
      return m.frac_rel_001;
    case Metric::kFracRel005:
      return m.frac_rel_005;
  }
  return kNan;
}

absl::StatusOr<std::vector<Metric>> ParseMetricList(std::string_view text) {
  if (text == "all")
    return std::vector<Metric>(std::begin(kAllMetrics), std::end(kAllMetrics));
  if (text == "default") {
    return std::vector<Metric>(std::begin(kDefaultMetrics),
                               std::end(kDefaultMetrics));
  }
  std::vector<Metric> metrics;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(',', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view item = text.substr(start, end - start);
    bool found = false;
    for (Metric m : kAllMetrics) {
      if (MetricName(m) == item) {
        if (std::find(metrics.begin(), metrics.end(), m) == metrics.end()) {
          metrics.push_back(m);
        }
        found = true;
      }
    }
    if (!found) {
      std::vector<std::string_view> names;
      for (Metric m : kAllMetrics) names.push_back(MetricName(m));
      return absl::InvalidArgumentError(
          StrCat("unknown metric '", item, "'; known: ", StrJoin(names, ","),
                 " (or all, default)"));
    }
    start = end + 1;
  }
  return metrics;
}

}  // namespace acldump::tools
