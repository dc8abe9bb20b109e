// Float32 transcendental functions over arrays, on the widest SIMD target the
// CPU has (Highway's dynamic dispatch). They keep the special values of their
// <cmath> counterparts (NaN in gives NaN out; exp(+inf) = +inf, exp(-inf) = 0,
// sigmoid(+-inf) = 1 / 0, tanh(+-inf) = +-1). Largest errors against the
// exact result, measured over 2.5 million inputs each (vector_math_test.cc
// holds them): exp 1 ulp, sigmoid 3, tanh 3, erf 7.
#ifndef ACLDUMP_KERNELS_VECTOR_MATH_H_
#define ACLDUMP_KERNELS_VECTOR_MATH_H_

#include <cstddef>

namespace acldump {

// y[i] = f(x[i]) for i < n; x and y may be the same array.
void ExpFloat32(const float* x, float* y, size_t n);
void SigmoidFloat32(const float* x, float* y, size_t n);
// x * SigmoidFloat32(x), bit for bit.
void SwishFloat32(const float* x, float* y, size_t n);
void TanhFloat32(const float* x, float* y, size_t n);
void ErfFloat32(const float* x, float* y, size_t n);
// The piecewise-linear activations: x * clamp(x / 6 + 1/2, 0, 1) and x
// clipped to [lo, hi] by compares, exactly as their scalar definitions; and
// clamp(alpha * x + beta, 0, 1) with alpha * x + beta as one fused
// multiply-add. NaN in gives NaN out.
void HardSwishFloat32(const float* x, float* y, size_t n);
void HardSigmoidFloat32(const float* x, float* y, size_t n, float alpha,
                        float beta);
void ClipFloat32(const float* x, float* y, size_t n, float lo, float hi);
// HardSwish as PaddlePaddle exports it, x * clip(x + 3, 0, 6) / 6, with the
// scalar multiply-adds PP-LCNet puts around it: v = x (* pre_scale)
// (+ pre_shift); y = v * clip(v + shift, lo, hi) / divisor (* post_scale)
// (+ post_shift). Each step is rounded to float32 as the Mul, Add, Clip and
// Div nodes it stands for, so a fused chain gives the bits of the nodes run
// apart; an absent step is skipped (adding 0 would turn -0 into +0).
struct HardSwishChain {
  float shift = 3.0f, lo = 0.0f, hi = 6.0f, divisor = 6.0f;
  bool has_pre_scale = false, has_pre_shift = false;
  bool has_post_scale = false, has_post_shift = false;
  float pre_scale = 1.0f, pre_shift = 0.0f;
  float post_scale = 1.0f, post_shift = 0.0f;
};
void HardSwishChainFloat32(const float* x, float* y, size_t n,
                           const HardSwishChain& chain);
// Gelu as exporters write it without the Gelu op: x * (erf(x / divisor) +
// shift) * scale (Div, Erf, Add, Mul, Mul nodes; sqrt(2), 1 and 1/2). Each
// step is rounded to float32 as its node, erf as ErfFloat32, so a fused chain
// gives the bits of the nodes run apart.
struct GeluChain {
  float divisor = 1.41421354f, shift = 1.0f, scale = 0.5f;
};
void GeluChainFloat32(const float* x, float* y, size_t n,
                      const GeluChain& chain);
// A Clip bound as float32 Clip applies it: bounds beyond float's range are
// float's range (the Clip kernel and the Conv+Clip fusion share this).
float ClipBoundFloat32(double bound);

}  // namespace acldump

#endif  // ACLDUMP_KERNELS_VECTOR_MATH_H_
