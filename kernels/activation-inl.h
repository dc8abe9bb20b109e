// The piecewise-linear activations on Highway vectors, shared by the
// elementwise kernels (vector_math.cc) and the GEMM epilogues (gemm.cc), so
// a fused activation runs the very operations of its separate node.
// Included once per SIMD target (Highway's -inl.h pattern).
#if defined(ACLDUMP_KERNELS_ACTIVATION_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ACLDUMP_KERNELS_ACTIVATION_INL_H_
#undef ACLDUMP_KERNELS_ACTIVATION_INL_H_
#else
#define ACLDUMP_KERNELS_ACTIVATION_INL_H_
#endif

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace acldump::HWY_NAMESPACE {

// x clipped to [lo, hi] by compares and selects: NaN fails both compares and
// stays NaN (Min/Max would not keep it on x86).
template <class D, class V>
HWY_INLINE V ClampByCompares(D d, V x, float lo, float hi) {
  namespace hn = hwy::HWY_NAMESPACE;
  const V l = hn::Set(d, lo);
  const V h = hn::Set(d, hi);
  const V v = hn::IfThenElse(hn::Lt(x, l), l, x);
  return hn::IfThenElse(hn::Gt(v, h), h, v);
}

// x * clamp(x / 6 + 1/2, 0, 1), in the operations of the scalar definition
// (a division, not a multiplication by 1/6), so the bits match it. NaN and
// -inf give NaN through the product, as in the scalar form.
template <class D, class V>
HWY_INLINE V HardSwishOf(D d, V x) {
  namespace hn = hwy::HWY_NAMESPACE;
  const V t = hn::Add(hn::Div(x, hn::Set(d, 6.0f)), hn::Set(d, 0.5f));
  return hn::Mul(x, hn::Min(hn::Max(t, hn::Zero(d)), hn::Set(d, 1.0f)));
}

}  // namespace acldump::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // ACLDUMP_KERNELS_ACTIVATION_INL_H_
