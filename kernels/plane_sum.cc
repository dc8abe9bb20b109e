#include "kernels/plane_sum.h"

#include <cstddef>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/plane_sum.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace acldump::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Element i (squared in float32 first when kSquares) goes to partial sum
// i % 8 in double; the partials are added in order.
template <bool kSquares>
double PartialSums(const float* x, int64_t n) {
  constexpr int64_t kPartials = 8;
  // At most eight double lanes, in kPartials / lanes vectors: partial sum j
  // is lane j % lanes of vector j / lanes on every target.
  const hn::CappedTag<double, kPartials> dd;
  const hn::Rebind<float, decltype(dd)> df;
  constexpr int64_t kLanes = static_cast<int64_t>(hn::MaxLanes(dd));
  constexpr int64_t kVectors = kPartials / kLanes;
  hn::Vec<decltype(dd)> acc[kVectors];
  for (int64_t v = 0; v < kVectors; ++v) acc[v] = hn::Zero(dd);
  int64_t i = 0;
  for (; i + kPartials <= n; i += kPartials) {
    for (int64_t v = 0; v < kVectors; ++v) {
      auto f = hn::LoadU(df, x + i + v * kLanes);
      if constexpr (kSquares) f = hn::Mul(f, f);
      acc[v] = hn::Add(acc[v], hn::PromoteTo(dd, f));
    }
  }
  HWY_ALIGN double partial[kPartials];
  for (int64_t v = 0; v < kVectors; ++v)
    hn::Store(acc[v], dd, partial + v * kLanes);
  for (int64_t j = 0; i < n; ++i, ++j) {
    const float f = kSquares ? x[i] * x[i] : x[i];
    partial[j] += static_cast<double>(f);
  }
  double sum = 0;
  for (double p : partial) sum += p;
  return sum;
}

double SumAsDoubleImpl(const float* x, int64_t n) {
  return PartialSums<false>(x, n);
}

double SumSquaresAsDoubleImpl(const float* x, int64_t n) {
  return PartialSums<true>(x, n);
}

float MaxImpl(const float* x, int64_t n) {
  const hn::ScalableTag<float> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  int64_t i = 0;
  float max = x[0];
  if (n >= 2 * lanes) {
    auto m0 = hn::LoadU(d, x);
    auto m1 = hn::LoadU(d, x + lanes);
    auto nan = hn::Or(hn::IsNaN(m0), hn::IsNaN(m1));
    for (i = 2 * lanes; i + 2 * lanes <= n; i += 2 * lanes) {
      const auto v0 = hn::LoadU(d, x + i);
      const auto v1 = hn::LoadU(d, x + i + lanes);
      nan = hn::Or(nan, hn::Or(hn::IsNaN(v0), hn::IsNaN(v1)));
      m0 = hn::Max(m0, v0);
      m1 = hn::Max(m1, v1);
    }
    if (!hn::AllFalse(d, nan))
      i = 0;  // the scalar loop finds the NaN
    else
      max = hn::GetLane(hn::MaxOfLanes(d, hn::Max(m0, m1)));
  }
  for (; i < n; ++i) {
    const float v = x[i];
    if (v > max || v != v) max = v;
  }
  return max;
}

}  // namespace acldump::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace acldump {

HWY_EXPORT(SumAsDoubleImpl);

double SumFloat32AsDouble(const float* x, int64_t n) {
  return HWY_DYNAMIC_DISPATCH(SumAsDoubleImpl)(x, n);
}

HWY_EXPORT(SumSquaresAsDoubleImpl);

double SumSquaresFloat32AsDouble(const float* x, int64_t n) {
  return HWY_DYNAMIC_DISPATCH(SumSquaresAsDoubleImpl)(x, n);
}

HWY_EXPORT(MaxImpl);

float MaxFloat32(const float* x, int64_t n) {
  return HWY_DYNAMIC_DISPATCH(MaxImpl)(x, n);
}

}  // namespace acldump
#endif  // HWY_ONCE
