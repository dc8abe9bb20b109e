#include "kernels/quantization.h"

#include "kernels/kernel_util.h"

namespace acldump {

absl::Status CheckQuantParam(const TensorInfo& param, std::string_view what,
                             int64_t channels) {
  const int64_t count = param.shape.NumElements();
  if (count == 1 && param.shape.rank() <= 1) return absl::OkStatus();
  if (channels > 0 && param.shape.rank() == 1 && count == channels) {
    return absl::OkStatus();
  }
  if (channels > 0) {
    return InvalidArgument(what, " has shape ", param.shape.ToString(),
                           "; expected one value (per tensor) or [", channels,
                           "] (one per channel along the axis)");
  }
  return InvalidArgument(what, " has shape ", param.shape.ToString(),
                         "; expected one value (per-tensor quantization)");
}

absl::Status CheckZeroPoint(const OpContext& context, size_t slot,
                            DType data_type, std::string_view what,
                            int64_t channels) {
  if (!context.has_input(slot)) return absl::OkStatus();
  const TensorInfo& zp = context.inputs[slot];
  if (zp.dtype != data_type) {
    return InvalidArgument(what, " is ", DTypeName(zp.dtype),
                           "; it must have its operand's type ",
                           DTypeName(data_type));
  }
  return CheckQuantParam(zp, what, channels);
}

float ParamAsFloat(const TensorView& param, int64_t channel) {
  const int64_t i = param.NumElements() == 1 ? 0 : channel;
  return VisitDType(param.dtype, [&]<typename T>() -> float {
    return static_cast<float>(Load(param.as<const T>()[i]));
  });
}

int32_t ParamAsInt(const TensorView& param, int64_t channel) {
  const int64_t i = param.NumElements() == 1 ? 0 : channel;
  return VisitDType(param.dtype, [&]<typename T>() -> int32_t {
    return static_cast<int32_t>(Load(param.as<const T>()[i]));
  });
}

}  // namespace acldump
