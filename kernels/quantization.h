// What the quantized operators share: 8-bit values with their zero points and
// scales (per tensor or per channel along an axis), rounding to a quantized
// value as ONNX Runtime does, and an exact integer GEMM.
#ifndef ACLDUMP_KERNELS_QUANTIZATION_H_
#define ACLDUMP_KERNELS_QUANTIZATION_H_

#include <cmath>
#include <cstdint>
#include <limits>
#include <string_view>

#include "absl/status/status.h"
#include "kernels/op_registry.h"
#include "kernels/tensor.h"

namespace acldump {

inline constexpr DType kQuantizedTypes[] = {DType::kUInt8, DType::kInt8};

// f.template operator()<Q>() with Q the C++ type of an 8-bit dtype.
template <typename F>
void VisitQuantized(DType dtype, F&& f) {
  if (dtype == DType::kInt8) {
    f.template operator()<int8_t>();
  } else {
    f.template operator()<uint8_t>();
  }
}

// round(v) half to even (the default rounding mode), plus the zero point,
// saturated to Q's range. NaN quantizes to the zero point: an 8-bit value has
// no NaN.
template <typename Q>
inline Q QuantizeValue(float v, int32_t zero_point) {
  constexpr float kLo = std::numeric_limits<Q>::min();
  constexpr float kHi = std::numeric_limits<Q>::max();
  if (v != v) return static_cast<Q>(zero_point);
  const float q = std::nearbyint(v) + static_cast<float>(zero_point);
  return static_cast<Q>(q < kLo ? kLo : q > kHi ? kHi : q);
}

// A scale or zero point input: one value (a scalar or shape [1]) for the
// whole tensor, or a 1-D tensor of one value per channel along an axis.
// Checks its shape against `channels` (0: only per tensor is allowed) and,
// for zero points, its type against the quantized data's.
absl::Status CheckQuantParam(const TensorInfo& param, std::string_view what,
                             int64_t channels);

// The optional zero point at input `slot`: the type of the data it belongs
// to, and the shape CheckQuantParam allows.
absl::Status CheckZeroPoint(const OpContext& context, size_t slot,
                            DType data_type, std::string_view what,
                            int64_t channels);

// Value `channel` of a scale or zero point (any numeric type) as float / int;
// a per-tensor one has the same value for every channel.
float ParamAsFloat(const TensorView& param, int64_t channel);
int32_t ParamAsInt(const TensorView& param, int64_t channel);
// 0 when the optional zero point is absent.
inline int32_t ZeroPointAt(const TensorView* zero_point, int64_t channel) {
  return zero_point == nullptr ? 0 : ParamAsInt(*zero_point, channel);
}

}  // namespace acldump

#endif  // ACLDUMP_KERNELS_QUANTIZATION_H_
