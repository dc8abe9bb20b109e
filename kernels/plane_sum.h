// Sums and maxima of float32 rows and planes (global average pool, ReduceMean,
// Softmax) on the widest SIMD target the CPU has (Highway's dynamic dispatch).
// The order of the additions is fixed, so the result does not depend on the
// target or the thread count.
#ifndef ACLDUMP_KERNELS_PLANE_SUM_H_
#define ACLDUMP_KERNELS_PLANE_SUM_H_

#include <cstdint>

namespace acldump {

// The sum of x[0..n) in double: element i goes to partial sum i % 8, and the
// eight partials are added in order.
double SumFloat32AsDouble(const float* x, int64_t n);

// The same sum of the float32 squares x[i] * x[i].
double SumSquaresFloat32AsDouble(const float* x, int64_t n);

// The maximum of x[0..n), n >= 1; NaN when any element is NaN (then the last
// NaN, as a scalar loop that lets every NaN win would leave it).
float MaxFloat32(const float* x, int64_t n);

}  // namespace acldump

#endif  // ACLDUMP_KERNELS_PLANE_SUM_H_
