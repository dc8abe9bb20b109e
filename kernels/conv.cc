// Conv (1-D/2-D/3-D, pads, strides, dilations, groups, auto_pad), with bias,
// the converter's fused residual (input 3, the Add after it) and an optional
// fused Relu, Clip (by compares after the sum, so NaN stays NaN) or
// HardSwish, each rounded as the separate node would round it. 1x1 convolutions
// with constant weights run as a GEMM on the NCHW planes and 2-D depthwise ones
// on their own NCHW kernel; the rest on oneDNN, whose fast kernels want blocked
// layouts: that path reorders the NCHW input into a blocked copy and the
// blocked result back, in its workspace, and packs constant weights once at
// prepare time.
#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <oneapi/dnnl/dnnl.hpp>
#include <optional>

#include "kernels/conv_internal.h"
#include "kernels/depthwise_conv.h"
#include "kernels/dnnl_engine.h"
#include "kernels/gemm.h"
#include "kernels/kernel_util.h"
#include "kernels/op_families.h"
#include "kernels/threading.h"

namespace acldump {
namespace conv {

absl::Status CheckLength(const std::vector<int64_t>& values, size_t expected,
                         std::string_view name) {
  if (values.size() != expected) {
    return InvalidArgument(name, " has ", values.size(), " values, expected ",
                           expected, " ([", StrJoin(values, ","), "])");
  }
  return absl::OkStatus();
}

absl::Status CheckConvOperands(const TensorInfo& x, const TensorInfo& w) {
  const DType kFloat32Only[] = {DType::kFloat32};
  RETURN_IF_ERROR(RequireDType(x, kFloat32Only, "input X"));
  RETURN_IF_ERROR(RequireDType(w, kFloat32Only, "weights W"));
  if (x.shape.rank() < 3 || x.shape.rank() > 5) {
    return InvalidArgument(
        "X must be [N, C, spatial...] with 1 to 3 spatial dimensions, got ",
        x.shape.ToString());
  }
  if (w.shape.rank() != x.shape.rank()) {
    return InvalidArgument("W ", w.shape.ToString(),
                           " must have the rank of X ", x.shape.ToString());
  }
  return absl::OkStatus();
}

absl::Status CheckConvBias(const OpContext& context, int64_t out_channels) {
  if (!context.has_input(2)) return absl::OkStatus();
  const DType kFloat32Only[] = {DType::kFloat32};
  RETURN_IF_ERROR(RequireDType(context.inputs[2], kFloat32Only, "bias B"));
  if (context.inputs[2].shape != Shape({out_channels})) {
    return InvalidArgument("bias B must have shape [", out_channels, "], got ",
                           context.inputs[2].shape.ToString());
  }
  return absl::OkStatus();
}

absl::StatusOr<ConvAttributes> ReadConvAttributes(const OpContext& context,
                                                  const TensorInfo& w) {
  const size_t spatial = w.shape.rank() - 2;
  const std::vector<int64_t> w_spatial(w.shape.dims().begin() + 2,
                                       w.shape.dims().end());
  const std::vector<int64_t> ones(spatial, 1);
  ConvAttributes attrs;
  ASSIGN_OR_RETURN(attrs.kernel,
                   context.attrs.GetInts("kernel_shape", w_spatial));
  RETURN_IF_ERROR(CheckLength(attrs.kernel, spatial, "kernel_shape"));
  if (attrs.kernel != w_spatial) {
    return InvalidArgument("kernel_shape [", StrJoin(attrs.kernel, ","),
                           "] differs from the weights' spatial shape [",
                           StrJoin(w_spatial, ","), "]");
  }
  ASSIGN_OR_RETURN(attrs.strides, context.attrs.GetInts("strides", ones));
  RETURN_IF_ERROR(CheckLength(attrs.strides, spatial, "strides"));
  ASSIGN_OR_RETURN(attrs.dilations, context.attrs.GetInts("dilations", ones));
  RETURN_IF_ERROR(CheckLength(attrs.dilations, spatial, "dilations"));
  ASSIGN_OR_RETURN(
      attrs.pads,
      context.attrs.GetInts("pads", std::vector<int64_t>(2 * spatial, 0)));
  RETURN_IF_ERROR(CheckLength(attrs.pads, 2 * spatial, "pads"));
  ASSIGN_OR_RETURN(attrs.auto_pad,
                   context.attrs.GetString("auto_pad", "NOTSET"));
  if (attrs.auto_pad != "NOTSET" && attrs.auto_pad != "VALID" &&
      attrs.auto_pad != "SAME_UPPER" && attrs.auto_pad != "SAME_LOWER") {
    return InvalidArgument(
        "auto_pad '", attrs.auto_pad,
        "' is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID");
  }
  return attrs;
}

absl::Status InferConvChannels(const OpContext& context, ConvGeometry& g) {
  const TensorInfo& x = context.inputs[0];
  const TensorInfo& w = context.inputs[1];
  g.batch = x.shape[0];
  g.in_channels = x.shape[1];
  g.out_channels = w.shape[0];
  ASSIGN_OR_RETURN(g.group, context.attrs.GetInt("group", 1));
  if (g.group <= 0 || g.in_channels % g.group != 0 ||
      g.out_channels % g.group != 0) {
    return InvalidArgument("group ", g.group,
                           " must divide the input channels (", g.in_channels,
                           ") and the output channels (", g.out_channels, ")");
  }
  if (w.shape[1] * g.group != g.in_channels) {
    return InvalidArgument("W ", w.shape.ToString(), " expects ",
                           w.shape[1] * g.group, " input channels (",
                           w.shape[1], " per group x ", g.group, " groups), X ",
                           x.shape.ToString(), " has ", g.in_channels);
  }
  return absl::OkStatus();
}

// Conv's output spatial dimensions and leading pads from the attributes (all
// values checked before any output is computed).
absl::Status InferConvSpatial(const ConvAttributes& attrs, ConvGeometry& g) {
  const size_t spatial = g.in_spatial.size();
  g.kernel = attrs.kernel;
  g.strides = attrs.strides;
  g.dilations = attrs.dilations;
  const std::vector<int64_t>& pads = attrs.pads;
  const std::string& auto_pad = attrs.auto_pad;
  for (size_t d = 0; d < spatial; ++d) {
    if (g.strides[d] <= 0 || g.dilations[d] <= 0 || g.kernel[d] <= 0 ||
        pads[d] < 0 || pads[d + spatial] < 0) {
      return InvalidArgument(
          "strides, dilations and kernel_shape must be positive and pads "
          "non-negative (axis ",
          d, ": stride ", g.strides[d], ", dilation ", g.dilations[d],
          ", kernel ", g.kernel[d], ", pads ", pads[d], "/", pads[d + spatial],
          ")");
    }
  }
  g.pads_begin.resize(spatial);
  for (size_t d = 0; d < spatial; ++d) {
    const int64_t extent = (g.kernel[d] - 1) * g.dilations[d] + 1;
    int64_t out;
    if (auto_pad == "NOTSET") {
      g.pads_begin[d] = pads[d];
      out = (g.in_spatial[d] + pads[d] + pads[d + spatial] - extent) /
                g.strides[d] +
            1;
      if (g.in_spatial[d] + pads[d] + pads[d + spatial] < extent) out = 0;
    } else if (auto_pad == "VALID") {
      g.pads_begin[d] = 0;
      out = g.in_spatial[d] < extent
                ? 0
                : (g.in_spatial[d] - extent) / g.strides[d] + 1;
    } else {  // SAME_UPPER or SAME_LOWER
      out = (g.in_spatial[d] + g.strides[d] - 1) / g.strides[d];
      const int64_t total = std::max<int64_t>(
          0, (out - 1) * g.strides[d] + extent - g.in_spatial[d]);
      g.pads_begin[d] =
          auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
    }
    if (out <= 0) {
      return InvalidArgument("output spatial dimension ", d, " would be ", out,
                             " (input ", g.in_spatial[d], ", kernel extent ",
                             extent, ", pads ", pads[d], "/", pads[d + spatial],
                             ")");
    }
    g.out_spatial.push_back(out);
  }
  return absl::OkStatus();
}

namespace {

using dnnl::memory;

memory::dims Dims(const std::vector<int64_t>& v) {
  return memory::dims(v.begin(), v.end());
}

memory::format_tag PlainTag(size_t rank) {
  return rank == 3   ? memory::format_tag::ncw
         : rank == 4 ? memory::format_tag::nchw
                     : memory::format_tag::ncdhw;
}

// A convolution primitive prepared for fixed shapes. Run() is not reentrant (it
// rebinds the memory objects); a compiled model serialises its executions.
class DnnlConvKernel final : public Kernel {
 public:
  absl::Status Init(const ConvGeometry& g, const Shape& x_shape,
                    const Shape& w_shape, bool has_bias,
                    const TensorView* constant_weights, const Shape& y_shape) {
    try {
      dnnl::engine& engine = DnnlEngine();
      const size_t rank = x_shape.rank();
      const memory::dims src_dims = Dims(x_shape.dims());
      const memory::dims dst_dims = Dims(y_shape.dims());
      memory::dims w_dims = Dims(w_shape.dims());
      if (g.group > 1) {
        w_dims[0] /= g.group;
        w_dims.insert(w_dims.begin(), g.group);
      }
      const memory::dims bias_dims = {g.out_channels};
      memory::dims strides(g.strides.begin(), g.strides.end());
      memory::dims dilations;
      for (int64_t d : g.dilations)
        dilations.push_back(d - 1);  // oneDNN counts the gaps
      memory::dims pad_l(g.pads_begin.begin(), g.pads_begin.end());
      memory::dims pad_r;
      for (size_t d = 0; d < g.kernel.size(); ++d) {
        // Whatever makes the output size come out: (out-1)*stride + extent - in
        // - pad_l.
        const int64_t extent = (g.kernel[d] - 1) * g.dilations[d] + 1;
        pad_r.push_back(std::max<int64_t>(
            0, (g.out_spatial[d] - 1) * g.strides[d] + extent -
                   g.in_spatial[d] - g.pads_begin[d]));
      }
      const auto f32 = memory::data_type::f32;
      user_src_md_ = memory::desc(src_dims, f32, PlainTag(rank));
      user_dst_md_ = memory::desc(dst_dims, f32, PlainTag(rank));
      const memory::format_tag plain_w =
          g.group > 1 ? (rank == 3   ? memory::format_tag::goiw
                         : rank == 4 ? memory::format_tag::goihw
                                     : memory::format_tag::goidhw)
                      : (rank == 3   ? memory::format_tag::oiw
                         : rank == 4 ? memory::format_tag::oihw
                                     : memory::format_tag::oidhw);
      user_w_md_ = memory::desc(w_dims, f32, plain_w);
      const memory::desc any_src(src_dims, f32, memory::format_tag::any);
      const memory::desc any_dst(dst_dims, f32, memory::format_tag::any);
      const memory::desc any_w(w_dims, f32, memory::format_tag::any);
      const memory::desc bias_md(bias_dims, f32, memory::format_tag::x);
      auto desc = has_bias
                      ? dnnl::convolution_forward::desc(
                            dnnl::prop_kind::forward_inference,
                            dnnl::algorithm::convolution_direct, any_src, any_w,
                            bias_md, any_dst, strides, dilations, pad_l, pad_r)
                      : dnnl::convolution_forward::desc(
                            dnnl::prop_kind::forward_inference,
                            dnnl::algorithm::convolution_direct, any_src, any_w,
                            any_dst, strides, dilations, pad_l, pad_r);
      dnnl::primitive_attr attr;
      attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
      // A fused residual, Relu, Clip or HardSwish is applied after the
      // convolution, not as a oneDNN post-op: oneDNN computes max(x, 0),
      // which turns NaN into 0, where ONNX's Relu and Clip keep NaN, and its
      // sum post-op adds before the bias.
      epilogue_ = g.Epilogue();
      residual_ = g.residual;
      dnnl::convolution_forward::primitive_desc pd(desc, attr, engine);
      conv_ = dnnl::convolution_forward(pd);
      src_md_ = pd.src_desc();
      dst_md_ = pd.dst_desc();
      w_md_ = pd.weights_desc();
      reorder_src_ = src_md_ != user_src_md_;
      reorder_dst_ = dst_md_ != user_dst_md_;
      reorder_w_ = w_md_ != user_w_md_;
      // Workspace: [blocked src][blocked dst][blocked weights unless
      // packed][scratchpad].
      auto align = [](size_t n) { return (n + 63) / 64 * 64; };
      src_offset_ = 0;
      dst_offset_ =
          src_offset_ + (reorder_src_ ? align(src_md_.get_size()) : 0);
      w_offset_ = dst_offset_ + (reorder_dst_ ? align(dst_md_.get_size()) : 0);
      if (reorder_w_ && constant_weights != nullptr) {
        packed_weights_ = AlignedBuffer(w_md_.get_size());
        memory user(user_w_md_, engine, constant_weights->data);
        memory packed(w_md_, engine, packed_weights_.data());
        dnnl::stream& stream = DnnlStream();
        dnnl::reorder(user, packed).execute(stream, user, packed);
        stream.wait();
      }
      const bool runtime_w = reorder_w_ && constant_weights == nullptr;
      scratch_offset_ = w_offset_ + (runtime_w ? align(w_md_.get_size()) : 0);
      workspace_bytes_ = scratch_offset_ + pd.scratchpad_desc().get_size();
      auto make_reorder = [&](const memory::desc& from,
                              const memory::desc& to) {
        return dnnl::reorder(
            dnnl::reorder::primitive_desc(engine, from, engine, to));
      };
      if (reorder_src_) src_reorder_ = make_reorder(user_src_md_, src_md_);
      if (reorder_dst_) dst_reorder_ = make_reorder(dst_md_, user_dst_md_);
      if (runtime_w) w_reorder_ = make_reorder(user_w_md_, w_md_);
      scratch_md_ = pd.scratchpad_desc();
      bias_md_ = bias_md;
      has_bias_ = has_bias;
      impl_ = pd.impl_info_str();
    } catch (const dnnl::error& e) {
      return Unimplemented("oneDNN cannot run this convolution: ", e.what());
    }
    return absl::OkStatus();
  }

  size_t WorkspaceBytes() const override { return workspace_bytes_; }

  absl::Status Run(std::span<const TensorView> in,
                   std::span<const TensorView> out,
                   std::span<std::byte> workspace) const override {
    try {
      dnnl::engine& engine = DnnlEngine();
      dnnl::stream& stream = DnnlStream();
      std::byte* ws = workspace.data();
      memory user_src(user_src_md_, engine, in[0].data);
      memory user_dst(user_dst_md_, engine, out[0].data);
      memory src =
          reorder_src_ ? memory(src_md_, engine, ws + src_offset_) : user_src;
      memory dst =
          reorder_dst_ ? memory(dst_md_, engine, ws + dst_offset_) : user_dst;
      memory weights(w_md_, engine,
                     !reorder_w_ ? in[1].data
                     : packed_weights_.size() > 0
                         ? static_cast<void*>(packed_weights_.data())
                         : static_cast<void*>(ws + w_offset_));
      if (reorder_src_) src_reorder_.execute(stream, user_src, src);
      if (reorder_w_ && packed_weights_.size() == 0) {
        memory user_w(user_w_md_, engine, in[1].data);
        w_reorder_.execute(stream, user_w, weights);
      }
      memory scratch(scratch_md_, engine, ws + scratch_offset_);
      std::unordered_map<int, memory> args = {{DNNL_ARG_SRC, src},
                                              {DNNL_ARG_WEIGHTS, weights},
                                              {DNNL_ARG_DST, dst},
                                              {DNNL_ARG_SCRATCHPAD, scratch}};
      if (has_bias_)
        args.emplace(DNNL_ARG_BIAS, memory(bias_md_, engine, in[2].data));
      conv_.execute(stream, args);
      if (reorder_dst_) dst_reorder_.execute(stream, dst, user_dst);
      stream.wait();
      if (residual_ || epilogue_.clamp || epilogue_.hard_swish) {
        float* y = out[0].as<float>();
        const float* residual = residual_ ? in[3].as<const float>() : nullptr;
        ParallelFor(out[0].NumElements(), kElementwiseGrain,
                    [&](size_t begin, size_t end) {
                      FinishGemmOutput(
                          y + begin, residual ? residual + begin : nullptr,
                          static_cast<int64_t>(end - begin), epilogue_);
                    });
      }
    } catch (const dnnl::error& e) {
      return absl::InternalError(
          StrCat("oneDNN convolution failed: ", e.what()));
    }
    return absl::OkStatus();
  }

  std::vector<std::pair<std::string, std::string>> LaunchParams()
      const override {
    return params_;
  }
  std::vector<std::pair<std::string, std::string>> params_;
  std::string impl_;

 private:
  dnnl::convolution_forward conv_;
  memory::desc user_src_md_, user_dst_md_, user_w_md_, src_md_, dst_md_, w_md_,
      bias_md_, scratch_md_;
  bool reorder_src_ = false, reorder_dst_ = false, reorder_w_ = false,
       has_bias_ = false, residual_ = false;
  GemmEpilogue epilogue_;
  dnnl::reorder src_reorder_, dst_reorder_, w_reorder_;
  AlignedBuffer packed_weights_;
  size_t src_offset_ = 0, dst_offset_ = 0, w_offset_ = 0, scratch_offset_ = 0,
         workspace_bytes_ = 0;
};

absl::StatusOr<PreparedKernel> MakeDnnlConv(
    const ConvGeometry& g, const Shape& x_shape, const Shape& w_shape,
    bool has_bias, const TensorView* constant_weights, const Shape& y_shape,
    const std::vector<int64_t>& pads, const std::string& auto_pad) {
  auto kernel = std::make_unique<DnnlConvKernel>();
  RETURN_IF_ERROR(
      kernel->Init(g, x_shape, w_shape, has_bias, constant_weights, y_shape));
  kernel->params_ = {
      {"implementation", kernel->impl_},
      {"groups", StrCat(g.group)},
      {"kernel", StrCat("[", StrJoin(g.kernel, ","), "]")},
      {"strides", StrCat("[", StrJoin(g.strides, ","), "]")},
      {"dilations", StrCat("[", StrJoin(g.dilations, ","), "]")},
      {"pads", StrCat("[", StrJoin(pads, ","), "]")},
      {"auto_pad", auto_pad},
      {"pads_begin", StrCat("[", StrJoin(g.pads_begin, ","), "]")},
      {"out_spatial", StrCat("[", StrJoin(g.out_spatial, ","), "]")},
      {"fused_activation", g.activation},
      {"fused_residual", g.residual ? "1" : "0"},
      {"workspace_bytes", StrCat(kernel->WorkspaceBytes())}};
  return Prepared({TensorInfo{DType::kFloat32, y_shape}}, std::move(kernel));
}

std::pair<std::string, std::string> ClampParam(const GemmEpilogue& e) {
  return {"fused_clamp",
          e.clamp ? StrCat("[", e.lo, ", ", e.hi, "]") : std::string("none")};
}

// A 1x1 convolution with stride 1 and no padding on NCHW data is a GEMM per
// image: Y [out, H*W] = W [out, in] * X [in, H*W], with the weights packed
// once. It reads and writes the caller's layout directly, where oneDNN's
// blocked kernels need both reordered on every call.
class PointwiseConvKernel final : public Kernel {
 public:
  PointwiseConvKernel(const TensorView& weights, int64_t batch,
                      int64_t in_channels, int64_t out_channels, int64_t size,
                      bool has_bias, bool residual,
                      const GemmEpilogue& activation)
      : weights_(PackedMatrixA::Pack(weights.as<const float>(), out_channels,
                                     in_channels, in_channels)),
        batch_(batch),
        in_channels_(in_channels),
        out_channels_(out_channels),
        size_(size),
        has_bias_(has_bias),
        residual_(residual),
        activation_(activation) {}

  absl::Status Run(std::span<const TensorView> in,
                   std::span<const TensorView> out,
                   std::span<std::byte>) const override {
    GemmEpilogue epilogue = activation_;
    epilogue.bias = has_bias_ ? in[2].as<const float>() : nullptr;
    for (int64_t n = 0; n < batch_; ++n) {
      if (residual_) {
        epilogue.residual = in[3].as<const float>() + n * out_channels_ * size_;
      }
      GemmPackedA(weights_, size_,
                  in[0].as<const float>() + n * in_channels_ * size_, size_,
                  out[0].as<float>() + n * out_channels_ * size_, size_,
                  epilogue);
    }
    return absl::OkStatus();
  }

  std::vector<std::pair<std::string, std::string>> LaunchParams()
      const override {
    return {{"implementation", "packed_gemm:nchw"},
            {"M", StrCat(out_channels_)},
            {"N", StrCat(size_)},
            {"K", StrCat(in_channels_)},
            {"batch", StrCat(batch_)},
            ClampParam(activation_),
            {"fused_residual", residual_ ? "1" : "0"},
            {"fused_hard_swish", activation_.hard_swish ? "1" : "0"}};
  }

 private:
  PackedMatrixA weights_;
  int64_t batch_, in_channels_, out_channels_, size_;
  bool has_bias_, residual_;
  GemmEpilogue activation_;
};

// Depthwise (one filter per channel) 2-D convolution on NCHW data.
class DepthwiseConvKernel final : public Kernel {
 public:
  DepthwiseConvKernel(const DepthwiseGeometry& geometry, bool has_bias,
                      bool residual, const GemmEpilogue& activation)
      : geometry_(geometry),
        has_bias_(has_bias),
        residual_(residual),
        activation_(activation) {}

  absl::Status Run(std::span<const TensorView> in,
                   std::span<const TensorView> out,
                   std::span<std::byte>) const override {
    GemmEpilogue epilogue = activation_;
    if (residual_) epilogue.residual = in[3].as<const float>();
    DepthwiseConv2D(geometry_, in[0].as<const float>(), in[1].as<const float>(),
                    has_bias_ ? in[2].as<const float>() : nullptr,
                    out[0].as<float>(), epilogue);
    return absl::OkStatus();
  }

  std::vector<std::pair<std::string, std::string>> LaunchParams()
      const override {
    const DepthwiseGeometry& g = geometry_;
    return {{"implementation", "depthwise:nchw"},
            {"kernel", StrCat("[", g.kernel_h, ",", g.kernel_w, "]")},
            {"strides", StrCat("[", g.stride_h, ",", g.stride_w, "]")},
            {"pads_begin", StrCat("[", g.pad_top, ",", g.pad_left, "]")},
            {"out_spatial", StrCat("[", g.out_h, ",", g.out_w, "]")},
            ClampParam(activation_),
            {"fused_residual", residual_ ? "1" : "0"},
            {"fused_hard_swish", activation_.hard_swish ? "1" : "0"}};
  }

 private:
  DepthwiseGeometry geometry_;
  bool has_bias_, residual_;
  GemmEpilogue activation_;
};

// The depthwise geometry when this convolution is one DepthwiseConv2D runs:
// 2-D, one filter per channel, no dilation.
std::optional<DepthwiseGeometry> AsDepthwise(const ConvGeometry& g) {
  if (g.kernel.size() != 2 || g.group != g.in_channels ||
      g.group != g.out_channels || g.dilations != std::vector<int64_t>{1, 1}) {
    return std::nullopt;
  }
  DepthwiseGeometry d;
  d.planes = g.batch * g.in_channels;
  d.channels = g.in_channels;
  d.in_h = g.in_spatial[0];
  d.in_w = g.in_spatial[1];
  d.out_h = g.out_spatial[0];
  d.out_w = g.out_spatial[1];
  d.kernel_h = g.kernel[0];
  d.kernel_w = g.kernel[1];
  d.stride_h = g.strides[0];
  d.stride_w = g.strides[1];
  d.pad_top = g.pads_begin[0];
  d.pad_left = g.pads_begin[1];
  if (!DepthwiseSupported(d)) return std::nullopt;
  return d;
}

bool IsPointwise(const ConvGeometry& g) {
  if (g.group != 1 || g.KernelSize() != 1 || g.in_spatial != g.out_spatial) {
    return false;
  }
  for (size_t d = 0; d < g.kernel.size(); ++d) {
    if (g.strides[d] != 1 || g.pads_begin[d] != 0) return false;
  }
  return true;
}

// Conv's channels and groups: X [N, C, ...], W [M, C/group, k...].
// The converter's fused activation after a Conv: Relu, Clip or HardSwish.
absl::Status ParseConvActivation(const OpContext& context, ConvGeometry& g) {
  ASSIGN_OR_RETURN(g.activation,
                   context.attrs.GetString("fused_activation", ""));
  if (g.activation == "Relu") {
    g.clamp = true;
    g.lo = 0.0f;
    g.hi = std::numeric_limits<float>::infinity();
  } else if (g.activation == "Clip") {
    g.clamp = true;
    ASSIGN_OR_RETURN(g.lo, context.attrs.GetFloat("fused_clip_min", 0.0f));
    ASSIGN_OR_RETURN(g.hi, context.attrs.GetFloat("fused_clip_max", 0.0f));
  } else if (g.activation == "HardSwish") {
    g.hard_swish = true;
  } else if (!g.activation.empty()) {
    return InvalidArgument("fused_activation '", g.activation,
                           "' is not supported (Relu, Clip or HardSwish)");
  }
  return absl::OkStatus();
}

// The converter's fused residual (input 3): float32 of the output's shape.
absl::Status CheckConvResidual(const OpContext& context,
                               const std::vector<int64_t>& out_dims) {
  if (!context.has_input(3)) return absl::OkStatus();
  const TensorInfo& r = context.inputs[3];
  if (r.dtype != DType::kFloat32 || r.shape != Shape(out_dims)) {
    return InvalidArgument(
        "the fused residual (input 3) must be float32 of the output's "
        "shape ",
        Shape(out_dims).ToString(), ", got ", DTypeName(r.dtype), " ",
        r.shape.ToString());
  }
  return absl::OkStatus();
}

// The fastest kernel for this convolution: depthwise, pointwise GEMM, or
// oneDNN for the rest.
absl::StatusOr<PreparedKernel> ChooseConvKernel(
    const OpContext& context, const ConvGeometry& g,
    const std::vector<int64_t>& out_dims, const ConvAttributes& attrs) {
  const bool has_bias = context.has_input(2);
  if (std::optional<DepthwiseGeometry> depthwise = AsDepthwise(g)) {
    return Prepared({TensorInfo{DType::kFloat32, Shape(out_dims)}},
                    std::make_unique<DepthwiseConvKernel>(
                        *depthwise, has_bias, g.residual, g.Epilogue()));
  }
  if (IsPointwise(g) && context.constant(1) != nullptr) {
    return Prepared(
        {TensorInfo{DType::kFloat32, Shape(out_dims)}},
        std::make_unique<PointwiseConvKernel>(
            *context.constant(1), g.batch, g.in_channels, g.out_channels,
            g.InSpatialSize(), has_bias, g.residual, g.Epilogue()));
  }

  return MakeDnnlConv(g, context.inputs[0].shape, context.inputs[1].shape,
                      has_bias, context.constant(1), Shape(out_dims),
                      attrs.pads, attrs.auto_pad);
}

absl::StatusOr<PreparedKernel> PrepareConv(const OpContext& context) {
  const TensorInfo& x = context.inputs[0];
  const TensorInfo& w = context.inputs[1];
  RETURN_IF_ERROR(CheckConvOperands(x, w));
  ConvGeometry g;
  RETURN_IF_ERROR(InferConvChannels(context, g));
  g.in_spatial.assign(x.shape.dims().begin() + 2, x.shape.dims().end());
  ASSIGN_OR_RETURN(ConvAttributes attrs, ReadConvAttributes(context, w));
  RETURN_IF_ERROR(InferConvSpatial(attrs, g));
  RETURN_IF_ERROR(CheckConvBias(context, g.out_channels));
  RETURN_IF_ERROR(ParseConvActivation(context, g));
  std::vector<int64_t> out_dims = {g.batch, g.out_channels};
  out_dims.insert(out_dims.end(), g.out_spatial.begin(), g.out_spatial.end());
  g.residual = context.has_input(3);
  RETURN_IF_ERROR(CheckConvResidual(context, out_dims));
  return ChooseConvKernel(context, g, out_dims, attrs);
}

}  // namespace
}  // namespace conv

absl::Status RegisterConvOps(OpRegistry& registry) {
  RETURN_IF_ERROR(conv::RegisterConvTransposeOps(registry));
  RETURN_IF_ERROR(conv::RegisterConvIntegerOps(registry));
  return registry.RegisterAll({
      {"Conv", 2, 4, 1, 1, conv::PrepareConv},
  });
}

}  // namespace acldump
