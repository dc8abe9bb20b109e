#include "kernels/vector_math.h"

#include <algorithm>
#include <cstring>
#include <limits>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/vector_math.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

// After highway.h, which they need per target.
#include "hwy/contrib/math/math-inl.h"
#include "kernels/activation-inl.h"

HWY_BEFORE_NAMESPACE();
namespace acldump::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Highway's Exp is valid up to +104 (every float above log(FLT_MAX) = 88.72
// gives +inf there) and from -FLT_MAX; clamping to [-104, 104] keeps the
// infinities in range, and below -104 the float result is 0 anyway.
template <class D, class V>
HWY_INLINE V ExpClamped(D d, V x) {
  const V clamped =
      hn::Min(hn::Max(x, hn::Set(d, -104.0f)), hn::Set(d, 104.0f));
  return hn::Exp(d, clamped);
}

// NaN lanes of x pass through (Min/Max do not propagate NaN on x86).
template <class D, class V>
HWY_INLINE V KeepNaN(D d, V x, V result) {
  (void)d;
  return hn::IfThenElse(hn::IsNaN(x), x, result);
}

struct ExpOp {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V x) const {
    return KeepNaN(d, x, ExpClamped(d, x));
  }
};

// e^t for t in [-104, 0], the argument sigmoid needs: Highway's Exp
// reduction and polynomial (Cody-Waite with a two-part ln 2, then its degree-7
// polynomial) without what the full range needs there (a float-to-int
// conversion with overflow fix-ups, the sign-dependent rounding, the
// out-of-range select). n = round(t / ln 2) comes from adding 1.5 * 2^23,
// whose low mantissa bits then hold n.
template <class D, class V>
HWY_INLINE V ExpNonPositive(D d, V t) {
  const hn::RebindToSigned<D> di;
  const V magic = hn::Set(d, 12582912.0f);
  const V shifted =
      hn::MulAdd(t, hn::Set(d, 1.442695040888963407359924681f), magic);
  const V n = hn::Sub(shifted, magic);
  V r = hn::MulAdd(n, hn::Set(d, -0.693145751953125f), t);
  r = hn::MulAdd(n, hn::Set(d, -1.428606765330187045e-6f), r);
  const V r2 = hn::Mul(r, r);
  const V r4 = hn::Mul(r2, r2);
  // 0.5 + k1 r + ... + k5 r^5 (Highway's coefficients), by Estrin's scheme.
  const V p01 =
      hn::MulAdd(hn::Set(d, 0.166666671633720397949219f), r, hn::Set(d, 0.5f));
  const V p23 = hn::MulAdd(hn::Set(d, 0.00833336077630519866943359f), r,
                           hn::Set(d, 0.0416664853692054748535156f));
  const V p45 = hn::MulAdd(hn::Set(d, 0.000198527617612853646278381f), r,
                           hn::Set(d, 0.00139304355252534151077271f));
  const V poly = hn::MulAdd(p45, r4, hn::MulAdd(p23, r2, p01));
  const V e_r = hn::Add(hn::MulAdd(poly, r2, r), hn::Set(d, 1.0f));
  // 2^n as 2^(n + 64) * 2^-64: n reaches -150, below the smallest normal
  // exponent, and n + 64 does not. The first product is exact, so the result
  // is rounded once, as e_r * 2^n would be (checked on all 2^32 inputs
  // against two factors 2^(n/2) and 2^(n - n/2), four operations more).
  const auto ni = hn::Sub(hn::BitCast(di, shifted), hn::BitCast(di, magic));
  const V scale =
      hn::BitCast(d, hn::ShiftLeft<23>(hn::Add(ni, hn::Set(di, 127 + 64))));
  return hn::Mul(hn::Mul(e_r, scale), hn::Set(d, 0x1p-64f));
}

// 1 / (1 + e^-x) for x >= 0 and e^x / (1 + e^x) below: e^-|x| never
// overflows, so both halves keep full relative accuracy.
struct SigmoidOp {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V x) const {
    const V one = hn::Set(d, 1.0f);
    const V e =
        ExpNonPositive(d, hn::Max(hn::Neg(hn::Abs(x)), hn::Set(d, -104.0f)));
    const V positive = hn::Div(one, hn::Add(one, e));
    const V result =
        hn::IfThenElse(hn::Lt(x, hn::Zero(d)), hn::Mul(e, positive), positive);
    return KeepNaN(d, x, result);
  }
};

// x * sigmoid(x): the product of x and SigmoidOp's result, so a fused
// Sigmoid + Mul gives the bits of the two nodes run apart.
struct SwishOp {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V x) const {
    return hn::Mul(x, SigmoidOp()(d, x));
  }
};

struct TanhOp {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V x) const {
    // tanh(x) rounds to +-1 in float beyond |x| = 9.01; the clamp keeps
    // infinities out of the polynomial.
    const V clamped =
        hn::Min(hn::Max(x, hn::Set(d, -10.0f)), hn::Set(d, 10.0f));
    return KeepNaN(d, x, hn::Tanh(d, clamped));
  }
};

// A rational approximation of erf on [-4, 4] (erf rounds to +-1 in float
// beyond), as Eigen's generic_fast_erf_float: odd numerator of degree 13 over
// an even denominator of degree 8.
struct ErfOp {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V x) const {
    const V c = hn::Min(hn::Max(x, hn::Set(d, -4.0f)), hn::Set(d, 4.0f));
    const V x2 = hn::Mul(c, c);
    V p = hn::Set(d, -2.72614225801306e-10f);
    p = hn::MulAdd(x2, p, hn::Set(d, 2.77068142495902e-08f));
    p = hn::MulAdd(x2, p, hn::Set(d, -2.10102402082508e-06f));
    p = hn::MulAdd(x2, p, hn::Set(d, -5.69250639462346e-05f));
    p = hn::MulAdd(x2, p, hn::Set(d, -7.34990630326855e-04f));
    p = hn::MulAdd(x2, p, hn::Set(d, -2.95459980854025e-03f));
    p = hn::MulAdd(x2, p, hn::Set(d, -1.60960333262415e-02f));
    V q = hn::Set(d, -1.45660718464996e-05f);
    q = hn::MulAdd(x2, q, hn::Set(d, -2.13374055278905e-04f));
    q = hn::MulAdd(x2, q, hn::Set(d, -1.68282697438203e-03f));
    q = hn::MulAdd(x2, q, hn::Set(d, -7.37332916720468e-03f));
    q = hn::MulAdd(x2, q, hn::Set(d, -1.42647390514189e-02f));
    // x * (p / q) rather than (x * p) / q: no denormal intermediate for tiny x.
    return KeepNaN(d, x, hn::Mul(c, hn::Div(p, q)));
  }
};

struct HardSwishOp {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V x) const {
    return HardSwishOf(d, x);
  }
};

struct HardSigmoidOp {
  float alpha, beta;
  template <class D, class V>
  HWY_INLINE V operator()(D d, V x) const {
    const V t = hn::MulAdd(hn::Set(d, alpha), x, hn::Set(d, beta));
    return KeepNaN(d, x, hn::Min(hn::Max(t, hn::Zero(d)), hn::Set(d, 1.0f)));
  }
};

struct ClipOp {
  float lo, hi;
  template <class D, class V>
  HWY_INLINE V operator()(D d, V x) const {
    return ClampByCompares(d, x, lo, hi);
  }
};

struct HardSwishChainOp {
  HardSwishChain c;
  template <class D, class V>
  HWY_INLINE V operator()(D d, V x) const {
    if (c.has_pre_scale) x = hn::Mul(x, hn::Set(d, c.pre_scale));
    if (c.has_pre_shift) x = hn::Add(x, hn::Set(d, c.pre_shift));
    const V clipped = ClipOp{c.lo, c.hi}(d, hn::Add(x, hn::Set(d, c.shift)));
    V y = hn::Div(hn::Mul(x, clipped), hn::Set(d, c.divisor));
    if (c.has_post_scale) y = hn::Mul(y, hn::Set(d, c.post_scale));
    if (c.has_post_shift) y = hn::Add(y, hn::Set(d, c.post_shift));
    return y;
  }
};

struct GeluChainOp {
  GeluChain c;
  template <class D, class V>
  HWY_INLINE V operator()(D d, V x) const {
    const V e = ErfOp()(d, hn::Div(x, hn::Set(d, c.divisor)));
    return hn::Mul(hn::Mul(x, hn::Add(e, hn::Set(d, c.shift))),
                   hn::Set(d, c.scale));
  }
};

template <class Op>
HWY_INLINE void Apply(const float* HWY_RESTRICT x, float* y, size_t n,
                      const Op op = Op()) {
  const hn::ScalableTag<float> d;
  const size_t lanes = hn::Lanes(d);
  size_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    hn::StoreU(op(d, hn::LoadU(d, x + i)), d, y + i);
  }
  if (i < n) {
    // The tail through a full vector: no lane reads or writes past n.
    HWY_ALIGN float buffer[HWY_MAX_BYTES / sizeof(float)] = {};
    std::memcpy(buffer, x + i, (n - i) * sizeof(float));
    hn::Store(op(d, hn::Load(d, buffer)), d, buffer);
    std::memcpy(y + i, buffer, (n - i) * sizeof(float));
  }
}

void ExpImpl(const float* x, float* y, size_t n) { Apply<ExpOp>(x, y, n); }
void SigmoidImpl(const float* x, float* y, size_t n) {
  Apply<SigmoidOp>(x, y, n);
}
void SwishImpl(const float* x, float* y, size_t n) { Apply<SwishOp>(x, y, n); }
void TanhImpl(const float* x, float* y, size_t n) { Apply<TanhOp>(x, y, n); }
void ErfImpl(const float* x, float* y, size_t n) { Apply<ErfOp>(x, y, n); }
void HardSwishImpl(const float* x, float* y, size_t n) {
  Apply<HardSwishOp>(x, y, n);
}
void HardSigmoidImpl(const float* x, float* y, size_t n, float alpha,
                     float beta) {
  Apply(x, y, n, HardSigmoidOp{alpha, beta});
}
void ClipImpl(const float* x, float* y, size_t n, float lo, float hi) {
  Apply(x, y, n, ClipOp{lo, hi});
}

void HardSwishChainImpl(const float* x, float* y, size_t n,
                        const HardSwishChain& chain) {
  Apply(x, y, n, HardSwishChainOp{chain});
}

void GeluChainImpl(const float* x, float* y, size_t n, const GeluChain& chain) {
  Apply(x, y, n, GeluChainOp{chain});
}

}  // namespace acldump::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace acldump {

HWY_EXPORT(ExpImpl);
HWY_EXPORT(SigmoidImpl);
HWY_EXPORT(SwishImpl);
HWY_EXPORT(TanhImpl);
HWY_EXPORT(ErfImpl);
HWY_EXPORT(HardSwishImpl);
HWY_EXPORT(HardSigmoidImpl);
HWY_EXPORT(ClipImpl);
HWY_EXPORT(HardSwishChainImpl);

void ExpFloat32(const float* x, float* y, size_t n) {
  HWY_DYNAMIC_DISPATCH(ExpImpl)(x, y, n);
}
void SigmoidFloat32(const float* x, float* y, size_t n) {
  HWY_DYNAMIC_DISPATCH(SigmoidImpl)(x, y, n);
}
void SwishFloat32(const float* x, float* y, size_t n) {
  HWY_DYNAMIC_DISPATCH(SwishImpl)(x, y, n);
}
void TanhFloat32(const float* x, float* y, size_t n) {
  HWY_DYNAMIC_DISPATCH(TanhImpl)(x, y, n);
}
void ErfFloat32(const float* x, float* y, size_t n) {
  HWY_DYNAMIC_DISPATCH(ErfImpl)(x, y, n);
}
void HardSwishFloat32(const float* x, float* y, size_t n) {
  HWY_DYNAMIC_DISPATCH(HardSwishImpl)(x, y, n);
}
void HardSigmoidFloat32(const float* x, float* y, size_t n, float alpha,
                        float beta) {
  HWY_DYNAMIC_DISPATCH(HardSigmoidImpl)(x, y, n, alpha, beta);
}
void ClipFloat32(const float* x, float* y, size_t n, float lo, float hi) {
  HWY_DYNAMIC_DISPATCH(ClipImpl)(x, y, n, lo, hi);
}

void HardSwishChainFloat32(const float* x, float* y, size_t n,
                           const HardSwishChain& chain) {
  HWY_DYNAMIC_DISPATCH(HardSwishChainImpl)(x, y, n, chain);
}

HWY_EXPORT(GeluChainImpl);

void GeluChainFloat32(const float* x, float* y, size_t n,
                      const GeluChain& chain) {
  HWY_DYNAMIC_DISPATCH(GeluChainImpl)(x, y, n, chain);
}

float ClipBoundFloat32(double bound) {
  const double limit = std::numeric_limits<float>::max();
  return static_cast<float>(std::clamp(bound, -limit, limit));
}

}  // namespace acldump
#endif  // HWY_ONCE
