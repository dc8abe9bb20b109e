// Float32 transcendental functions over arrays, on the widest SIMD target the
// CPU has (Highway's dynamic dispatch). They keep the special values of their
// <cmath> counterparts (NaN in gives NaN out; exp(+inf) = +inf, exp(-inf) = 0,
// sigmoid(+-inf) = 1 / 0, tanh(+-inf) = +-1). Their largest errors against the
// exact result are measured in vector_math_test.cc.
#ifndef ACLDUMP_KERNELS_VECTOR_MATH_H_
#define ACLDUMP_KERNELS_VECTOR_MATH_H_

#include <cstddef>

namespace acldump {

// y[i] = f(x[i]) for i < n; x and y may be the same array.
void ExpFloat32(const float* x, float* y, size_t n);
void SigmoidFloat32(const float* x, float* y, size_t n);
void TanhFloat32(const float* x, float* y, size_t n);
void ErfFloat32(const float* x, float* y, size_t n);

}  // namespace acldump

#endif  // ACLDUMP_KERNELS_VECTOR_MATH_H_
