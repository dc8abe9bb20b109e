// ConvInteger (8-bit inputs, int32 output) and QLinearConv (8-bit in and out,
// with scales): 1 to 3 spatial dimensions, pads, strides, dilations, groups,
// auto_pad; zero points per tensor (X) and per output channel (W). Each group
// is an im2col of X less its zero point (padding is then exactly 0) times W
// less its zero point, summed exactly in int32; QLinearConv then adds its
// int32 bias and requantizes as ONNX Runtime does.
#include <algorithm>
#include <array>
#include <memory>
#include <vector>

#include "kernels/conv_internal.h"
#include "kernels/kernel_util.h"
#include "kernels/quantization.h"
#include "kernels/threading.h"

namespace acldump {
namespace conv {
namespace {

struct IntegerConv {
  ConvGeometry g;
  DType x_type = DType::kUInt8, w_type = DType::kUInt8;
  int64_t group_in = 0, group_out = 0, depth = 0, positions = 0;
  // Spatial sizes padded to 3 dimensions with leading ones.
  std::array<int64_t, 3> in{1, 1, 1}, out{1, 1, 1}, kernel{1, 1, 1},
      stride{1, 1, 1}, dilation{1, 1, 1}, pad{0, 0, 0};
  // W less its zero point [out_channels, depth], made once when both are
  // known at load; else each execution makes it.
  std::shared_ptr<const std::vector<int16_t>> weights_prepared;

  // im2col [positions, depth] and the weights [out_channels, depth], int16.
  size_t WorkspaceBytes() const {
    return static_cast<size_t>(positions * depth + g.out_channels * depth) *
           sizeof(int16_t);
  }
};

// X at input 0 and W at input `w_slot`.
absl::StatusOr<IntegerConv> PlanIntegerConv(const OpContext& context,
                                            size_t w_slot) {
  const TensorInfo& x = context.inputs[0];
  const TensorInfo& w = context.inputs[w_slot];
  RETURN_IF_ERROR(RequireDType(x, kQuantizedTypes, "input x"));
  RETURN_IF_ERROR(RequireDType(w, kQuantizedTypes, "weights w"));
  if (x.shape.rank() < 3 || x.shape.rank() > 5 ||
      w.shape.rank() != x.shape.rank()) {
    return InvalidArgument(
        "x must be [N, C, spatial...] with 1 to 3 spatial dimensions and w "
        "of the same rank; got x ",
        x.shape.ToString(), ", w ", w.shape.ToString());
  }
  IntegerConv c;
  c.x_type = x.dtype;
  c.w_type = w.dtype;
  // InferConvChannels reads W from input 1: give it a context that has it
  // there.
  std::vector<TensorInfo> infos = {x, w};
  OpContext channels_context{context.op_type, context.attrs, infos, {}, 1};
  RETURN_IF_ERROR(InferConvChannels(channels_context, c.g));
  c.g.in_spatial.assign(x.shape.dims().begin() + 2, x.shape.dims().end());
  ASSIGN_OR_RETURN(ConvAttributes attrs, ReadConvAttributes(context, w));
  RETURN_IF_ERROR(InferConvSpatial(attrs, c.g));
  const size_t spatial = c.g.in_spatial.size();
  const size_t lead = 3 - spatial;
  for (size_t d = 0; d < spatial; ++d) {
    c.in[lead + d] = c.g.in_spatial[d];
    c.out[lead + d] = c.g.out_spatial[d];
    c.kernel[lead + d] = c.g.kernel[d];
    c.stride[lead + d] = c.g.strides[d];
    c.dilation[lead + d] = c.g.dilations[d];
    c.pad[lead + d] = c.g.pads_begin[d];
  }
  c.group_in = c.g.in_channels / c.g.group;
  c.group_out = c.g.out_channels / c.g.group;
  c.depth = c.group_in * c.g.KernelSize();
  c.positions = c.g.OutSpatialSize();
  return c;
}

std::vector<int64_t> OutputDims(const IntegerConv& c) {
  std::vector<int64_t> dims = {c.g.batch, c.g.out_channels};
  dims.insert(dims.end(), c.g.out_spatial.begin(), c.g.out_spatial.end());
  return dims;
}

// out [out_channels, depth] = w - its zero point per output channel.
void WeightsLessZeroPoint(const IntegerConv& c, const TensorView& w,
                          const TensorView* w_zp, int16_t* out) {
  VisitQuantized(c.w_type, [&]<typename TW>() {
    const TW* ws = w.as<const TW>();
    for (int64_t o = 0; o < c.g.out_channels; ++o) {
      const int32_t z = ZeroPointAt(w_zp, o);
      for (int64_t q = 0; q < c.depth; ++q)
        out[o * c.depth + q] = static_cast<int16_t>(ws[o * c.depth + q] - z);
    }
  });
}

// Sets c.weights_prepared when W (input `w_slot`) and its zero point (input
// `zp_slot`, if present) are constants.
void PrepareConstantWeights(const OpContext& context, size_t w_slot,
                            size_t zp_slot, IntegerConv& c) {
  const TensorView* w = context.constant(w_slot);
  const bool has_zp = context.has_input(zp_slot);
  const TensorView* zp = has_zp ? context.constant(zp_slot) : nullptr;
  if (w == nullptr || (has_zp && zp == nullptr)) return;
  auto prepared = std::make_shared<std::vector<int16_t>>(
      static_cast<size_t>(c.g.out_channels * c.depth));
  WeightsLessZeroPoint(c, *w, zp, prepared->data());
  c.weights_prepared = std::move(prepared);
}

// acc [N, out_channels, positions] = conv(x - x_zp, w - w_zp).
void RunIntegerConv(const IntegerConv& c, const TensorView& x,
                    const TensorView* x_zp, const TensorView& w,
                    const TensorView* w_zp, int32_t* acc,
                    std::span<std::byte> workspace) {
  int16_t* cols = reinterpret_cast<int16_t*>(workspace.data());
  const int16_t* weights = cols + c.positions * c.depth;
  if (c.weights_prepared != nullptr) {
    weights = c.weights_prepared->data();
  } else {
    WeightsLessZeroPoint(c, w, w_zp, cols + c.positions * c.depth);
  }
  const int32_t x_zero = ZeroPointAt(x_zp, 0);
  const int64_t plane = c.in[0] * c.in[1] * c.in[2];
  VisitQuantized(c.x_type, [&]<typename TX>() {
    // One image and group: its columns, then their product with the group's
    // weights; on this thread when the groups share the intra-op threads.
    auto image_group = [&](int64_t n, int64_t gi, int16_t* cols,
                           bool this_thread) {
      const TX* xs =
          x.as<const TX>() + (n * c.g.in_channels + gi * c.group_in) * plane;
      int16_t* col = cols;
      for (int64_t od = 0; od < c.out[0]; ++od)
        for (int64_t oh = 0; oh < c.out[1]; ++oh)
          for (int64_t ow = 0; ow < c.out[2]; ++ow)
            for (int64_t ch = 0; ch < c.group_in; ++ch)
              for (int64_t kd = 0; kd < c.kernel[0]; ++kd)
                for (int64_t kh = 0; kh < c.kernel[1]; ++kh)
                  for (int64_t kw = 0; kw < c.kernel[2]; ++kw) {
                    const int64_t id =
                        od * c.stride[0] + kd * c.dilation[0] - c.pad[0];
                    const int64_t ih =
                        oh * c.stride[1] + kh * c.dilation[1] - c.pad[1];
                    const int64_t iw =
                        ow * c.stride[2] + kw * c.dilation[2] - c.pad[2];
                    const bool inside = id >= 0 && id < c.in[0] && ih >= 0 &&
                                        ih < c.in[1] && iw >= 0 && iw < c.in[2];
                    *col++ = inside
                                 ? static_cast<int16_t>(
                                       xs[ch * plane +
                                          (id * c.in[1] + ih) * c.in[2] + iw] -
                                       x_zero)
                                 : int16_t{0};
                  }
      const int16_t* w = weights + gi * c.group_out * c.depth;
      int32_t* y =
          acc + (n * c.g.out_channels + gi * c.group_out) * c.positions;
      if (this_thread) {
        IntegerGemmOnThisThread(c.group_out, c.positions, c.depth, w, c.depth,
                                cols, c.depth, y, c.positions);
      } else {
        IntegerGemm(c.group_out, c.positions, c.depth, w, c.depth, cols,
                    c.depth, y, c.positions);
      }
    };
    const int64_t units = c.g.batch * c.g.group;
    if (c.g.group == 1) {
      for (int64_t n = 0; n < c.g.batch; ++n) image_group(n, 0, cols, false);
      return;
    }
    // Grouped (depthwise): each group is a small product, too small to split
    // (waking the threads per group cost more than the group on two cores),
    // so the groups themselves go to the intra-op threads. Integer sums are
    // exact: the same values on any thread count.
    ParallelFor(static_cast<size_t>(units), 1, [&](size_t begin, size_t end) {
      thread_local std::vector<int16_t> own;
      own.resize(static_cast<size_t>(c.positions * c.depth));
      for (size_t u = begin; u < end; ++u) {
        const auto unit = static_cast<int64_t>(u);
        image_group(unit / c.g.group, unit % c.g.group, own.data(), true);
      }
    });
  });
}

absl::StatusOr<PreparedKernel> PrepareConvInteger(const OpContext& context) {
  ASSIGN_OR_RETURN(IntegerConv c, PlanIntegerConv(context, 1));
  RETURN_IF_ERROR(CheckZeroPoint(context, 2, c.x_type, "x_zero_point", 0));
  RETURN_IF_ERROR(
      CheckZeroPoint(context, 3, c.w_type, "w_zero_point", c.g.out_channels));
  PrepareConstantWeights(context, 1, 3, c);
  const bool has_x_zp = context.has_input(2), has_w_zp = context.has_input(3);
  const std::vector<int64_t> out_dims = OutputDims(c);
  const size_t workspace = c.WorkspaceBytes();
  auto run = [c = std::move(c), has_x_zp, has_w_zp](
                 std::span<const TensorView> in,
                 std::span<const TensorView> out,
                 std::span<std::byte> ws) -> absl::Status {
    RunIntegerConv(c, in[0], has_x_zp ? &in[2] : nullptr, in[1],
                   has_w_zp ? &in[3] : nullptr, out[0].as<int32_t>(), ws);
    return absl::OkStatus();
  };
  return Prepared({TensorInfo{DType::kInt32, Shape(out_dims)}},
                  MakeKernel(std::move(run), workspace));
}

// x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale, y_zero_point,
// B (int32, optional).
absl::StatusOr<PreparedKernel> PrepareQLinearConv(const OpContext& context) {
  ASSIGN_OR_RETURN(IntegerConv c, PlanIntegerConv(context, 3));
  const DType kFloat32Only[] = {DType::kFloat32};
  for (auto [slot, name] : {std::pair<size_t, const char*>{1, "x_scale"},
                            {4, "w_scale"},
                            {6, "y_scale"}}) {
    RETURN_IF_ERROR(RequireDType(context.inputs[slot], kFloat32Only, name));
  }
  RETURN_IF_ERROR(CheckQuantParam(context.inputs[1], "x_scale", 0));
  RETURN_IF_ERROR(
      CheckQuantParam(context.inputs[4], "w_scale", c.g.out_channels));
  RETURN_IF_ERROR(CheckQuantParam(context.inputs[6], "y_scale", 0));
  RETURN_IF_ERROR(CheckZeroPoint(context, 2, c.x_type, "x_zero_point", 0));
  RETURN_IF_ERROR(
      CheckZeroPoint(context, 5, c.w_type, "w_zero_point", c.g.out_channels));
  PrepareConstantWeights(context, 3, 5, c);
  const TensorInfo& y_zp = context.inputs[7];
  RETURN_IF_ERROR(RequireDType(y_zp, kQuantizedTypes, "y_zero_point"));
  RETURN_IF_ERROR(CheckQuantParam(y_zp, "y_zero_point", 0));
  const bool has_bias = context.has_input(8);
  if (has_bias) {
    const DType kInt32Only[] = {DType::kInt32};
    RETURN_IF_ERROR(RequireDType(context.inputs[8], kInt32Only, "bias B"));
    if (context.inputs[8].shape != Shape({c.g.out_channels})) {
      return InvalidArgument("bias B has shape ",
                             context.inputs[8].shape.ToString(), "; expected [",
                             c.g.out_channels, "]");
    }
  }
  const DType out_type = y_zp.dtype;
  const std::vector<int64_t> out_dims = OutputDims(c);
  const size_t acc_bytes =
      static_cast<size_t>(c.g.batch * c.g.out_channels * c.positions) *
      sizeof(int32_t);
  const size_t workspace = acc_bytes + c.WorkspaceBytes();
  auto run = [c = std::move(c), has_bias, out_type, acc_bytes](
                 std::span<const TensorView> in,
                 std::span<const TensorView> out,
                 std::span<std::byte> ws) -> absl::Status {
    int32_t* acc = reinterpret_cast<int32_t*>(ws.data());
    RunIntegerConv(c, in[0], &in[2], in[3], &in[5], acc, ws.subspan(acc_bytes));
    const float x_scale = ParamAsFloat(in[1], 0);
    const float y_scale = ParamAsFloat(in[6], 0);
    const int32_t y_zero = ParamAsInt(in[7], 0);
    const int32_t* bias = has_bias ? in[8].as<const int32_t>() : nullptr;
    VisitQuantized(out_type, [&]<typename Q>() {
      Q* ys = out[0].as<Q>();
      for (int64_t n = 0; n < c.g.batch; ++n) {
        for (int64_t o = 0; o < c.g.out_channels; ++o) {
          const float multiplier = x_scale * ParamAsFloat(in[4], o) / y_scale;
          const int32_t b = bias == nullptr ? 0 : bias[o];
          const int64_t base = (n * c.g.out_channels + o) * c.positions;
          for (int64_t p = base; p < base + c.positions; ++p) {
            ys[p] = QuantizeValue<Q>(
                static_cast<float>(int64_t{acc[p]} + b) * multiplier, y_zero);
          }
        }
      }
    });
    return absl::OkStatus();
  };
  return Prepared({TensorInfo{out_type, Shape(out_dims)}},
                  MakeKernel(std::move(run), workspace));
}

}  // namespace

absl::Status RegisterConvIntegerOps(OpRegistry& registry) {
  return registry.RegisterAll({
      {"ConvInteger", 2, 4, 1, 1, PrepareConvInteger},
      {"QLinearConv", 8, 9, 1, 1, PrepareQLinearConv},
  });
}

}  // namespace conv
}  // namespace acldump
