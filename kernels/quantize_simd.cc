#include "kernels/quantize_simd.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <type_traits>

#include "kernels/quantization.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/quantize_simd.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace acldump::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

void RangeImpl(const float* x, int64_t n, float* lo_out, float* hi_out) {
  const hn::ScalableTag<float> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  float lo = 0.0f, hi = 0.0f;
  int64_t i = 0;
  if (n >= lanes) {
    // Per lane, the scalar loop's strict compares: a NaN never wins, and
    // a lane holds +0 or a value past it, so the lanes fold to the scalar
    // result in any order.
    auto vlo = hn::Zero(d), vhi = hn::Zero(d);
    for (; i + lanes <= n; i += lanes) {
      const auto v = hn::LoadU(d, x + i);
      vlo = hn::IfThenElse(hn::Lt(v, vlo), v, vlo);
      vhi = hn::IfThenElse(hn::Lt(vhi, v), v, vhi);
    }
    HWY_ALIGN float los[hn::MaxLanes(d)];
    HWY_ALIGN float his[hn::MaxLanes(d)];
    hn::Store(vlo, d, los);
    hn::Store(vhi, d, his);
    for (int64_t j = 0; j < lanes; ++j) {
      if (los[j] < lo) lo = los[j];
      if (hi < his[j]) hi = his[j];
    }
  }
  for (; i < n; ++i) {
    if (x[i] < lo) lo = x[i];
    if (hi < x[i]) hi = x[i];
  }
  *lo_out = lo;
  *hi_out = hi;
}

// QuantizeValue on a vector of floats: round half to even, add the zero
// point, saturate to Q; NaN to the zero point. Stores its lanes at y.
template <typename Q, class D>
HWY_INLINE void StoreQuantized(D d, hn::Vec<D> v, int32_t zero_point, Q* y) {
  const hn::Rebind<int32_t, D> di;
  const hn::Rebind<Q, D> dq;
  const auto zp = hn::Set(d, static_cast<float>(zero_point));
  const auto low =
      hn::Set(d, static_cast<float>(std::numeric_limits<Q>::min()));
  const auto high =
      hn::Set(d, static_cast<float>(std::numeric_limits<Q>::max()));
  const auto q = hn::Min(hn::Max(hn::Add(hn::Round(v), zp), low), high);
  const auto safe = hn::IfThenElse(hn::IsNaN(v), zp, q);
  hn::StoreU(hn::DemoteTo(dq, hn::ConvertTo(di, safe)), dq, y);
}

template <typename Q>
void QuantizeImpl(const float* x, int64_t n, float scale, int32_t zero_point,
                  Q* y) {
  const hn::ScalableTag<float> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const auto vscale = hn::Set(d, scale);
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    StoreQuantized(d, hn::Div(hn::LoadU(d, x + i), vscale), zero_point, y + i);
  }
  for (; i < n; ++i) y[i] = QuantizeValue<Q>(x[i] / scale, zero_point);
}

void QuantizeUint8Impl(const float* x, int64_t n, float scale,
                       int32_t zero_point, uint8_t* y) {
  QuantizeImpl(x, n, scale, zero_point, y);
}

void QuantizeInt8Impl(const float* x, int64_t n, float scale,
                      int32_t zero_point, int8_t* y) {
  QuantizeImpl(x, n, scale, zero_point, y);
}

// The requantized lanes as int32 in Q's range: acc + bias times the
// multiplier, clamped to the range that quantizes into Q before rounding
// (the bounds are integers, so rounding then clamping gives the same), half
// to even, plus the zero point.
template <class D, class DI>
HWY_INLINE hn::Vec<DI> RequantizeLanes(D d, DI di, hn::Vec<DI> acc,
                                       hn::Vec<DI> bias, hn::Vec<D> multiplier,
                                       hn::Vec<D> low, hn::Vec<D> high,
                                       hn::Vec<DI> zero_point) {
  const auto v = hn::Mul(hn::ConvertTo(d, hn::Add(acc, bias)), multiplier);
  return hn::Add(hn::ConvertTo(di, hn::Round(hn::Min(hn::Max(v, low), high))),
                 zero_point);
}

template <typename Q>
void RequantizeImpl(const int32_t* acc, int64_t n, int32_t bias,
                    float multiplier, int32_t zero_point, Q* y) {
  int64_t i = 0;
  // A finite multiplier times an integer is never NaN: StoreQuantized's NaN
  // lane is not needed. 8 lanes at most, so AVX2 and AVX-512 pack four
  // vectors into one store.
  const hn::CappedTag<float, 8> d;
  const hn::Rebind<int32_t, decltype(d)> di;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  if (std::isfinite(multiplier) && n >= lanes) {
    const auto vbias = hn::Set(di, bias);
    const auto vmul = hn::Set(d, multiplier);
    const auto vzero = hn::Set(di, zero_point);
    const auto low = hn::Set(
        d, static_cast<float>(std::numeric_limits<Q>::min() - zero_point));
    const auto high = hn::Set(
        d, static_cast<float>(std::numeric_limits<Q>::max() - zero_point));
    auto lanes_at = [&](int64_t at) {
      return RequantizeLanes(d, di, hn::LoadU(di, acc + at), vbias, vmul, low,
                             high, vzero);
    };
#if HWY_ARCH_X86 && (HWY_TARGET == HWY_AVX2 || HWY_TARGET <= HWY_AVX3)
    // Four vectors packed with saturation (the values are in range) into
    // 32 bytes; the packs work within 128-bit halves, the permute restores
    // the order.
    const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    for (; i + 4 * lanes <= n; i += 4 * lanes) {
      const __m256i q01 =
          _mm256_packs_epi32(lanes_at(i).raw, lanes_at(i + lanes).raw);
      const __m256i q23 = _mm256_packs_epi32(lanes_at(i + 2 * lanes).raw,
                                             lanes_at(i + 3 * lanes).raw);
      const __m256i bytes = std::is_signed_v<Q> ? _mm256_packs_epi16(q01, q23)
                                                : _mm256_packus_epi16(q01, q23);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(y + i),
                          _mm256_permutevar8x32_epi32(bytes, order));
    }
#endif
    const hn::Rebind<Q, decltype(d)> dq;
    for (; i + lanes <= n; i += lanes)
      hn::StoreU(hn::DemoteTo(dq, lanes_at(i)), dq, y + i);
  }
  for (; i < n; ++i) {
    y[i] = QuantizeValue<Q>(static_cast<float>(acc[i] + bias) * multiplier,
                            zero_point);
  }
}

template <typename Q>
void QLinearAddImpl(const Q* a, const Q* b, int64_t n, float ratio_a,
                    float ratio_b, float fixed, Q* c) {
  int64_t i = 0;
#if HWY_NATIVE_FMA
  // Only where a multiply-add rounds once, as std::fma does.
  const hn::ScalableTag<float> d;
  const hn::Rebind<int32_t, decltype(d)> di;
  const hn::Rebind<Q, decltype(d)> dq;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const auto va = hn::Set(d, ratio_a), vb = hn::Set(d, ratio_b);
  const auto vfixed = hn::Set(d, fixed);
  const auto limit = hn::Set(d, 2147483648.0f);
  const auto lo = hn::Set(di, std::numeric_limits<Q>::min());
  const auto hi = hn::Set(di, std::numeric_limits<Q>::max());
  for (; i + lanes <= n; i += lanes) {
    const auto fa = hn::ConvertTo(d, hn::PromoteTo(di, hn::LoadU(dq, a + i)));
    const auto fb = hn::ConvertTo(d, hn::PromoteTo(di, hn::LoadU(dq, b + i)));
    const auto v = hn::MulAdd(fa, va, hn::MulAdd(fb, vb, vfixed));
    // Out of int32's range (or NaN): the conversion's INT32_MIN, so the low
    // end.
    const auto in_range = hn::Lt(hn::Abs(v), limit);
    const auto q =
        hn::IfThenElse(hn::RebindMask(di, in_range),
                       hn::Min(hn::Max(hn::NearestInt(v), lo), hi), lo);
    hn::StoreU(hn::DemoteTo(dq, q), dq, c + i);
  }
#endif
  for (; i < n; ++i) {
    const float with_b = std::fma(static_cast<float>(b[i]), ratio_b, fixed);
    const float v = std::fma(static_cast<float>(a[i]), ratio_a, with_b);
    int32_t q = std::numeric_limits<int32_t>::min();
    if (v >= -2147483648.0f && v < 2147483648.0f) {
      q = static_cast<int32_t>(std::nearbyint(v));
    }
    c[i] = static_cast<Q>(std::clamp<int32_t>(q, std::numeric_limits<Q>::min(),
                                              std::numeric_limits<Q>::max()));
  }
}

void QLinearAddUint8Impl(const uint8_t* a, const uint8_t* b, int64_t n,
                         float ratio_a, float ratio_b, float fixed,
                         uint8_t* c) {
  QLinearAddImpl(a, b, n, ratio_a, ratio_b, fixed, c);
}

void QLinearAddInt8Impl(const int8_t* a, const int8_t* b, int64_t n,
                        float ratio_a, float ratio_b, float fixed, int8_t* c) {
  QLinearAddImpl(a, b, n, ratio_a, ratio_b, fixed, c);
}

void RequantizeUint8Impl(const int32_t* acc, int64_t n, int32_t bias,
                         float multiplier, int32_t zero_point, uint8_t* y) {
  RequantizeImpl(acc, n, bias, multiplier, zero_point, y);
}

void RequantizeInt8Impl(const int32_t* acc, int64_t n, int32_t bias,
                        float multiplier, int32_t zero_point, int8_t* y) {
  RequantizeImpl(acc, n, bias, multiplier, zero_point, y);
}

}  // namespace acldump::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace acldump {

HWY_EXPORT(RangeImpl);
HWY_EXPORT(QuantizeUint8Impl);
HWY_EXPORT(QuantizeInt8Impl);
HWY_EXPORT(RequantizeUint8Impl);
HWY_EXPORT(RequantizeInt8Impl);
HWY_EXPORT(QLinearAddUint8Impl);
HWY_EXPORT(QLinearAddInt8Impl);

void QLinearAddRow(const uint8_t* a, const uint8_t* b, int64_t n, float ratio_a,
                   float ratio_b, float fixed, uint8_t* c) {
  HWY_DYNAMIC_DISPATCH(QLinearAddUint8Impl)
  (a, b, n, ratio_a, ratio_b, fixed, c);
}

void QLinearAddRow(const int8_t* a, const int8_t* b, int64_t n, float ratio_a,
                   float ratio_b, float fixed, int8_t* c) {
  HWY_DYNAMIC_DISPATCH(QLinearAddInt8Impl)(a, b, n, ratio_a, ratio_b, fixed, c);
}

void RangeWithZeroFloat32(const float* x, int64_t n, float* lo, float* hi) {
  HWY_DYNAMIC_DISPATCH(RangeImpl)(x, n, lo, hi);
}

void QuantizeFloat32(const float* x, int64_t n, float scale, int32_t zero_point,
                     uint8_t* y) {
  HWY_DYNAMIC_DISPATCH(QuantizeUint8Impl)(x, n, scale, zero_point, y);
}

void QuantizeFloat32(const float* x, int64_t n, float scale, int32_t zero_point,
                     int8_t* y) {
  HWY_DYNAMIC_DISPATCH(QuantizeInt8Impl)(x, n, scale, zero_point, y);
}

void RequantizeInt32(const int32_t* acc, int64_t n, int32_t bias,
                     float multiplier, int32_t zero_point, uint8_t* y) {
  HWY_DYNAMIC_DISPATCH(RequantizeUint8Impl)
  (acc, n, bias, multiplier, zero_point, y);
}

void RequantizeInt32(const int32_t* acc, int64_t n, int32_t bias,
                     float multiplier, int32_t zero_point, int8_t* y) {
  HWY_DYNAMIC_DISPATCH(RequantizeInt8Impl)
  (acc, n, bias, multiplier, zero_point, y);
}

}  // namespace acldump
#endif  // HWY_ONCE
