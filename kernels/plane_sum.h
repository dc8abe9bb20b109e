// The sum of a float32 plane in double, as the global average pool takes it,
// on the widest SIMD target the CPU has (Highway's dynamic dispatch). The
// order of the additions is fixed, so the result does not depend on the
// target or the thread count.
#ifndef ACLDUMP_KERNELS_PLANE_SUM_H_
#define ACLDUMP_KERNELS_PLANE_SUM_H_

#include <cstdint>

namespace acldump {

// The sum of x[0..n) in double: element i goes to partial sum i % 8, and the
// eight partials are added in order.
double SumFloat32AsDouble(const float* x, int64_t n);

}  // namespace acldump

#endif  // ACLDUMP_KERNELS_PLANE_SUM_H_
