// The quantized operators' elementwise passes on the widest SIMD target the
// CPU has (Highway's dynamic dispatch), with the scalar definitions' results
// on every target: DynamicQuantizeLinear's range, QuantizeLinear from
// float32, the requantization of int32 sums (the quantized convolutions) and
// QLinearAdd.
#ifndef ACLDUMP_KERNELS_QUANTIZE_SIMD_H_
#define ACLDUMP_KERNELS_QUANTIZE_SIMD_H_

#include <cstdint>

namespace acldump {

// min(0, x...) and max(0, x...) as a loop of std::min(lo, x[i]) and
// std::max(hi, x[i]) from 0 gives them: NaNs skipped, a zero is +0.
void RangeWithZeroFloat32(const float* x, int64_t n, float* lo, float* hi);

// y[i] = QuantizeValue<Q>(x[i] / scale, zero_point) for Q uint8 or int8:
// round half to even, add the zero point, saturate; NaN to the zero point.
void QuantizeFloat32(const float* x, int64_t n, float scale, int32_t zero_point,
                     uint8_t* y);
void QuantizeFloat32(const float* x, int64_t n, float scale, int32_t zero_point,
                     int8_t* y);

// y[i] = QuantizeValue<Q>(float(acc[i] + bias) * multiplier, zero_point)
// for Q uint8 or int8. The caller makes sure acc[i] + bias fits in int32.
void RequantizeInt32(const int32_t* acc, int64_t n, int32_t bias,
                     float multiplier, int32_t zero_point, uint8_t* y);
void RequantizeInt32(const int32_t* acc, int64_t n, int32_t bias,
                     float multiplier, int32_t zero_point, int8_t* y);

// c[i] = the x86 float-to-int32 conversion (half to even; INT32_MIN out of
// range and for NaN) of fma(a[i], ratio_a, fma(b[i], ratio_b, fixed)),
// saturated to Q: ONNX Runtime's QLinearAdd, uint8 or int8.
void QLinearAddRow(const uint8_t* a, const uint8_t* b, int64_t n, float ratio_a,
                   float ratio_b, float fixed, uint8_t* c);
void QLinearAddRow(const int8_t* a, const int8_t* b, int64_t n, float ratio_a,
                   float ratio_b, float fixed, int8_t* c);

}  // namespace acldump

#endif  // ACLDUMP_KERNELS_QUANTIZE_SIMD_H_
