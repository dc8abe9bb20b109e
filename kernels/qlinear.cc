// ONNX Runtime's quantized operators that its graph optimizer makes from
// DequantizeLinear -> op -> QuantizeLinear groups, and that the converter
// makes from the same groups: QLinearAdd, QLinearGlobalAveragePool and
// QLinearAveragePool. The float operations and their order are ONNX
// Runtime's (its x86 kernels), so a quantized model gives the same 8-bit
// values in both.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "kernels/kernel_util.h"
#include "kernels/op_families.h"
#include "kernels/quantization.h"
#include "kernels/quantize_simd.h"
#include "kernels/threading.h"

namespace acldump {
namespace {

// A float rounded half to even to int32 as the x86 conversion does it (out of
// range and NaN give INT32_MIN), then saturated to Q.
template <typename Q>
Q RoundAndSaturate(float v) {
  constexpr float kTwo31 = 2147483648.0f;
  int32_t i = std::numeric_limits<int32_t>::min();
  if (v >= -kTwo31 && v < kTwo31) i = static_cast<int32_t>(std::nearbyint(v));
  constexpr int32_t kLo = std::numeric_limits<Q>::min();
  constexpr int32_t kHi = std::numeric_limits<Q>::max();
  return static_cast<Q>(i < kLo ? kLo : i > kHi ? kHi : i);
}

absl::Status CheckScalePoint(const OpContext& context, size_t scale_slot,
                             DType data_type, std::string_view scale_name,
                             std::string_view zero_point_name) {
  const DType kFloat32Only[] = {DType::kFloat32};
  RETURN_IF_ERROR(
      RequireDType(context.inputs[scale_slot], kFloat32Only, scale_name));
  RETURN_IF_ERROR(CheckQuantParam(context.inputs[scale_slot], scale_name, 0));
  if (!context.has_input(scale_slot + 1)) {
    return InvalidArgument(zero_point_name, " is required");
  }
  return CheckZeroPoint(context, scale_slot + 1, data_type, zero_point_name, 0);
}

// A quantized pool's X, x_scale, x_zero_point, y_scale, y_zero_point.
absl::Status CheckPoolInputs(const OpContext& context) {
  const TensorInfo& x = context.inputs[0];
  RETURN_IF_ERROR(RequireDType(x, kQuantizedTypes, "input X"));
  RETURN_IF_ERROR(
      CheckScalePoint(context, 1, x.dtype, "x_scale", "x_zero_point"));
  return CheckScalePoint(context, 3, x.dtype, "y_scale", "y_zero_point");
}

// QLinearAdd: A, A_scale, A_zero_point, B, B_scale, B_zero_point, C_scale,
// C_zero_point; A and B of one shape, or one of them a single value.
absl::StatusOr<PreparedKernel> PrepareQLinearAdd(const OpContext& context) {
  const TensorInfo& a = context.inputs[0];
  const TensorInfo& b = context.inputs[3];
  RETURN_IF_ERROR(RequireDType(a, kQuantizedTypes, "input A"));
  if (b.dtype != a.dtype) {
    return InvalidArgument("B is ", DTypeName(b.dtype),
                           "; it must have A's type ", DTypeName(a.dtype));
  }
  RETURN_IF_ERROR(
      CheckScalePoint(context, 1, a.dtype, "A_scale", "A_zero_point"));
  RETURN_IF_ERROR(
      CheckScalePoint(context, 4, a.dtype, "B_scale", "B_zero_point"));
  RETURN_IF_ERROR(
      CheckScalePoint(context, 6, a.dtype, "C_scale", "C_zero_point"));
  const bool a_single = a.NumElements() == 1 && b.NumElements() != 1;
  const bool b_single = b.NumElements() == 1 && !a_single;
  // A single value of larger rank would widen the output's shape.
  const bool wider = (a_single && a.shape.rank() > b.shape.rank()) ||
                     (b_single && b.shape.rank() > a.shape.rank());
  if ((!a_single && !b_single && a.shape != b.shape) || wider) {
    return Unimplemented("QLinearAdd of A ", a.shape.ToString(), " and B ",
                         b.shape.ToString(),
                         ": only equal shapes or a single value broadcast are "
                         "supported");
  }
  const TensorInfo out_info{a.dtype, a_single ? b.shape : a.shape};
  const DType type = a.dtype;
  auto run = [type, a_single, b_single](std::span<const TensorView> in,
                                        std::span<const TensorView> out,
                                        std::span<std::byte>) -> absl::Status {
    const float ratio_a = ParamAsFloat(in[1], 0) / ParamAsFloat(in[6], 0);
    const float ratio_b = ParamAsFloat(in[4], 0) / ParamAsFloat(in[6], 0);
    const int32_t zero_a = ZeroPointAt(&in[2], 0);
    const int32_t zero_b = ZeroPointAt(&in[5], 0);
    const int32_t zero_c = ZeroPointAt(&in[7], 0);
    // The output's zero point enters before rounding, with both inputs'
    // zero points, as one float.
    const float a_part = ratio_a * static_cast<float>(zero_a);
    const float b_part = ratio_b * static_cast<float>(zero_b);
    float fixed = static_cast<float>(zero_c) - (a_part + b_part);
    VisitQuantized(type, [&]<typename Q>() {
      const Q* as = in[0].as<const Q>();
      const Q* bs = in[3].as<const Q>();
      Q* cs = out[0].as<Q>();
      const int64_t n = out[0].NumElements();
      if (a_single) {
        fixed = fixed + static_cast<float>(as[0]) * ratio_a;
        for (int64_t i = 0; i < n; ++i) {
          cs[i] = RoundAndSaturate<Q>(
              std::fma(static_cast<float>(bs[i]), ratio_b, fixed));
        }
      } else if (b_single) {
        fixed = fixed + static_cast<float>(bs[0]) * ratio_b;
        for (int64_t i = 0; i < n; ++i) {
          cs[i] = RoundAndSaturate<Q>(
              std::fma(static_cast<float>(as[i]), ratio_a, fixed));
        }
      } else {
        // Blocks of the threads' size: the same values on any count.
        ParallelFor(static_cast<size_t>(n), kElementwiseGrain,
                    [&](size_t begin, size_t end) {
                      QLinearAddRow(as + begin, bs + begin,
                                    static_cast<int64_t>(end - begin), ratio_a,
                                    ratio_b, fixed, cs + begin);
                    });
      }
    });
    return absl::OkStatus();
  };
  return Prepared({out_info}, MakeKernel(std::move(run)));
}

// QLinearGlobalAveragePool: X [N, C, spatial...] (channels_last 0) or
// [N, spatial..., C] (channels_last 1), x_scale, x_zero_point, y_scale,
// y_zero_point. Each channel's sum less the zero points in int32, times
// x_scale / (y_scale * size), rounded and saturated.
absl::StatusOr<PreparedKernel> PrepareQLinearGlobalAveragePool(
    const OpContext& context) {
  const TensorInfo& x = context.inputs[0];
  RETURN_IF_ERROR(CheckPoolInputs(context));
  ASSIGN_OR_RETURN(int64_t channels_last,
                   context.attrs.GetInt("channels_last", 0));
  if (x.shape.rank() < 3) {
    return InvalidArgument(
        "X must have a batch, a channel and at least one "
        "spatial dimension; got ",
        x.shape.ToString());
  }
  const int64_t rank = static_cast<int64_t>(x.shape.rank());
  const int64_t channel_axis = channels_last != 0 ? rank - 1 : 1;
  const int64_t batch = x.shape[0], channels = x.shape[channel_axis];
  const int64_t image =
      x.NumElements() / std::max<int64_t>(1, batch * channels);
  // Sums of at most 2^23 8-bit values fit in int32.
  if (image > (int64_t{1} << 23)) {
    return InvalidArgument(
        "QLinearGlobalAveragePool over ", image,
        " values per channel; at most 8388608 are supported");
  }
  std::vector<int64_t> out_dims(x.shape.dims().begin(), x.shape.dims().end());
  for (int64_t axis = 1; axis < rank; ++axis) {
    if (axis != channel_axis) out_dims[axis] = 1;
  }
  const DType type = x.dtype;
  const bool last = channels_last != 0;
  auto run = [type, batch, channels, image, last](
                 std::span<const TensorView> in,
                 std::span<const TensorView> out,
                 std::span<std::byte>) -> absl::Status {
    const float scale = ParamAsFloat(in[1], 0) /
                        (ParamAsFloat(in[3], 0) * static_cast<float>(image));
    const int32_t zero_x = ZeroPointAt(&in[2], 0);
    const int32_t zero_y = ZeroPointAt(&in[4], 0);
    const int32_t bias = -zero_x * static_cast<int32_t>(image);
    VisitQuantized(type, [&]<typename Q>() {
      const Q* xs = in[0].as<const Q>();
      Q* ys = out[0].as<Q>();
      for (int64_t n = 0; n < batch; ++n) {
        for (int64_t c = 0; c < channels; ++c) {
          int32_t sum = bias;
          if (last) {
            const Q* p = xs + n * image * channels + c;
            for (int64_t i = 0; i < image; ++i) sum += p[i * channels];
          } else {
            const Q* p = xs + (n * channels + c) * image;
            for (int64_t i = 0; i < image; ++i) sum += p[i];
          }
          ys[n * channels + c] =
              QuantizeValue<Q>(static_cast<float>(sum) * scale, zero_y);
        }
      }
    });
    return absl::OkStatus();
  };
  return Prepared({TensorInfo{type, Shape(out_dims)}},
                  MakeKernel(std::move(run)));
}

// QLinearAveragePool (2-D, channels first): X, x_scale, x_zero_point,
// y_scale, y_zero_point; kernel_shape, strides, pads, count_include_pad.
// ONNX Runtime dequantizes each value, sums a window in float row by row,
// divides by the count, and quantizes with the zero point added before
// rounding.
absl::StatusOr<PreparedKernel> PrepareQLinearAveragePool(
    const OpContext& context) {
  const TensorInfo& x = context.inputs[0];
  RETURN_IF_ERROR(CheckPoolInputs(context));
  ASSIGN_OR_RETURN(std::vector<int64_t> kernel,
                   context.attrs.GetInts("kernel_shape", {}));
  ASSIGN_OR_RETURN(std::vector<int64_t> strides,
                   context.attrs.GetInts("strides", {1, 1}));
  ASSIGN_OR_RETURN(std::vector<int64_t> pads,
                   context.attrs.GetInts("pads", {0, 0, 0, 0}));
  ASSIGN_OR_RETURN(int64_t include_pad,
                   context.attrs.GetInt("count_include_pad", 0));
  ASSIGN_OR_RETURN(int64_t ceil_mode, context.attrs.GetInt("ceil_mode", 0));
  ASSIGN_OR_RETURN(int64_t channels_last,
                   context.attrs.GetInt("channels_last", 0));
  if (x.shape.rank() != 4 || kernel.size() != 2 || strides.size() != 2 ||
      pads.size() != 4 || ceil_mode != 0 || channels_last != 0 ||
      context.attrs.Has("auto_pad") || context.attrs.Has("dilations")) {
    return Unimplemented(
        "QLinearAveragePool is supported for 2-D channels-first input with "
        "explicit kernel_shape, strides and pads (no ceil_mode, auto_pad or "
        "dilations); got X ",
        x.shape.ToString());
  }
  // Sizes beyond 2^31 are no image's; the bound keeps the sums below exact.
  constexpr int64_t kMaxSize = int64_t{1} << 31;
  for (int64_t v : kernel) {
    if (v < 1 || v > kMaxSize) {
      return InvalidArgument("kernel_shape must be between 1 and 2^31");
    }
  }
  for (int64_t v : strides) {
    if (v < 1 || v > kMaxSize) {
      return InvalidArgument("strides must be between 1 and 2^31");
    }
  }
  for (size_t i = 0; i < pads.size(); ++i) {
    if (pads[i] < 0 || pads[i] >= kernel[i % 2]) {
      return InvalidArgument(
          "pads must be 0 or more and smaller than the kernel along their "
          "axis");
    }
  }
  const int64_t height = x.shape[2], width = x.shape[3];
  const int64_t span_h = height + pads[0] + pads[2] - kernel[0];
  const int64_t span_w = width + pads[1] + pads[3] - kernel[1];
  if (span_h < 0 || span_w < 0) {
    return InvalidArgument("the kernel is larger than the padded input ",
                           x.shape.ToString());
  }
  const int64_t out_h = span_h / strides[0] + 1;
  const int64_t out_w = span_w / strides[1] + 1;
  const int64_t planes = x.shape[0] * x.shape[1];
  const DType type = x.dtype;
  auto run = [=](std::span<const TensorView> in,
                 std::span<const TensorView> out,
                 std::span<std::byte>) -> absl::Status {
    const float x_scale = ParamAsFloat(in[1], 0);
    const float y_scale = ParamAsFloat(in[3], 0);
    const int32_t zero_x = ZeroPointAt(&in[2], 0);
    const float zero_y = static_cast<float>(ZeroPointAt(&in[4], 0));
    VisitQuantized(type, [&]<typename Q>() {
      constexpr float kLo = std::numeric_limits<Q>::min();
      constexpr float kHi = std::numeric_limits<Q>::max();
      for (int64_t p = 0; p < planes; ++p) {
        const Q* xs = in[0].as<const Q>() + p * height * width;
        Q* ys = out[0].as<Q>() + p * out_h * out_w;
        for (int64_t oh = 0; oh < out_h; ++oh) {
          const int64_t h0 = oh * strides[0] - pads[0];
          const int64_t h1 = std::min(h0 + kernel[0], height);
          const int64_t hs = std::max<int64_t>(h0, 0);
          for (int64_t ow = 0; ow < out_w; ++ow) {
            const int64_t w0 = ow * strides[1] - pads[1];
            const int64_t w1 = std::min(w0 + kernel[1], width);
            const int64_t ws = std::max<int64_t>(w0, 0);
            float sum = 0.0f;
            for (int64_t h = hs; h < h1; ++h) {
              for (int64_t w = ws; w < w1; ++w) {
                sum += x_scale * static_cast<float>(xs[h * width + w] - zero_x);
              }
            }
            const int64_t count = include_pad != 0 ? kernel[0] * kernel[1]
                                                   : (h1 - hs) * (w1 - ws);
            const float mean = sum / static_cast<float>(count);
            // A window of padding only (count 0) has no mean: the zero
            // point, as a NaN quantizes.
            const float q = count == 0 || mean != mean
                                ? zero_y
                                : std::nearbyint(mean / y_scale + zero_y);
            ys[oh * out_w + ow] = static_cast<Q>(q < kLo   ? kLo
                                                 : q > kHi ? kHi
                                                           : q);
          }
        }
      }
    });
    return absl::OkStatus();
  };
  return Prepared(
      {TensorInfo{type, Shape({x.shape[0], x.shape[1], out_h, out_w})}},
      MakeKernel(std::move(run)));
}

}  // namespace

absl::Status RegisterQLinearOps(OpRegistry& registry) {
  return registry.RegisterAll({
      {"QLinearAdd", 8, 8, 1, 1, PrepareQLinearAdd},
      {"QLinearGlobalAveragePool", 5, 5, 1, 1, PrepareQLinearGlobalAveragePool},
      {"QLinearAveragePool", 5, 5, 1, 1, PrepareQLinearAveragePool},
  });
}

}  // namespace acldump
