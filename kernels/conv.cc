// Conv (1-D/2-D/3-D, pads, strides, dilations, groups, auto_pad) on oneDNN,
// with bias and an optional fused Relu as a post-op. oneDNN's fast kernels want
// blocked layouts, so the kernel reorders the NCHW input into a blocked copy
// and the blocked result back, in its workspace; constant weights are packed
// once at prepare time.
#include <cstring>
#include <oneapi/dnnl/dnnl.hpp>

#include "kernels/blas.h"
#include "kernels/dnnl_engine.h"
#include "kernels/kernel_util.h"
#include "kernels/op_families.h"

namespace acldump {
namespace {

struct ConvGeometry {
  int64_t batch = 0;
  int64_t in_channels = 0;
  int64_t out_channels = 0;
  int64_t group = 1;
  std::vector<int64_t> in_spatial;
  std::vector<int64_t> out_spatial;
  std::vector<int64_t> kernel;
  std::vector<int64_t> strides;
  std::vector<int64_t> dilations;
  std::vector<int64_t> pads_begin;
  bool relu = false;

  int64_t InSpatialSize() const { return Product(in_spatial); }
  int64_t OutSpatialSize() const { return Product(out_spatial); }
  int64_t KernelSize() const { return Product(kernel); }
  static int64_t Product(const std::vector<int64_t>& v) {
    int64_t p = 1;
    for (int64_t x : v) p *= x;
    return p;
  }
};

absl::Status CheckLength(const std::vector<int64_t>& values, size_t expected,
                         std::string_view name) {
  if (values.size() != expected) {
    return InvalidArgument(name, " has ", values.size(), " values, expected ",
                           expected, " ([", StrJoin(values, ","), "])");
  }
  return absl::OkStatus();
}

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
      if (g.relu) {
        dnnl::post_ops post;
        post.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
        attr.set_post_ops(post);
      }
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
       has_bias_ = false;
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
      {"fused_relu", g.relu ? "1" : "0"},
      {"workspace_bytes", StrCat(kernel->WorkspaceBytes())}};
  return Prepared({TensorInfo{DType::kFloat32, y_shape}}, std::move(kernel));
}

absl::StatusOr<PreparedKernel> PrepareConv(const OpContext& context) {
  const TensorInfo& x = context.inputs[0];
  const TensorInfo& w = context.inputs[1];
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
  const size_t spatial = x.shape.rank() - 2;
  ConvGeometry g;
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
  g.in_spatial.assign(x.shape.dims().begin() + 2, x.shape.dims().end());
  std::vector<int64_t> w_spatial(w.shape.dims().begin() + 2,
                                 w.shape.dims().end());
  ASSIGN_OR_RETURN(g.kernel, context.attrs.GetInts("kernel_shape", w_spatial));
  RETURN_IF_ERROR(CheckLength(g.kernel, spatial, "kernel_shape"));
  if (g.kernel != w_spatial) {
    return InvalidArgument("kernel_shape [", StrJoin(g.kernel, ","),
                           "] differs from the weights' spatial shape [",
                           StrJoin(w_spatial, ","), "]");
  }
  ASSIGN_OR_RETURN(g.strides, context.attrs.GetInts(
                                  "strides", std::vector<int64_t>(spatial, 1)));
  RETURN_IF_ERROR(CheckLength(g.strides, spatial, "strides"));
  ASSIGN_OR_RETURN(
      g.dilations,
      context.attrs.GetInts("dilations", std::vector<int64_t>(spatial, 1)));
  RETURN_IF_ERROR(CheckLength(g.dilations, spatial, "dilations"));
  ASSIGN_OR_RETURN(
      std::vector<int64_t> pads,
      context.attrs.GetInts("pads", std::vector<int64_t>(2 * spatial, 0)));
  RETURN_IF_ERROR(CheckLength(pads, 2 * spatial, "pads"));
  ASSIGN_OR_RETURN(std::string auto_pad,
                   context.attrs.GetString("auto_pad", "NOTSET"));
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
    } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      out = (g.in_spatial[d] + g.strides[d] - 1) / g.strides[d];
      const int64_t total = std::max<int64_t>(
          0, (out - 1) * g.strides[d] + extent - g.in_spatial[d]);
      g.pads_begin[d] =
          auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
    } else {
      return InvalidArgument(
          "auto_pad '", auto_pad,
          "' is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID");
    }
    if (out <= 0) {
      return InvalidArgument("output spatial dimension ", d, " would be ", out,
                             " (input ", g.in_spatial[d], ", kernel extent ",
                             extent, ", pads ", pads[d], "/", pads[d + spatial],
                             ")");
    }
    g.out_spatial.push_back(out);
  }
  const bool has_bias = context.has_input(2);
  if (has_bias) {
    RETURN_IF_ERROR(RequireDType(context.inputs[2], kFloat32Only, "bias B"));
    if (context.inputs[2].shape != Shape({g.out_channels})) {
      return InvalidArgument("bias B must have shape [", g.out_channels,
                             "], got ", context.inputs[2].shape.ToString());
    }
  }
  ASSIGN_OR_RETURN(std::string activation,
                   context.attrs.GetString("fused_activation", ""));
  if (!activation.empty() && activation != "Relu") {
    return InvalidArgument("fused_activation '", activation,
                           "' is not supported (only Relu)");
  }
  g.relu = activation == "Relu";
  std::vector<int64_t> out_dims = {g.batch, g.out_channels};
  out_dims.insert(out_dims.end(), g.out_spatial.begin(), g.out_spatial.end());
  ConfigureBlasOnce();
  return MakeDnnlConv(g, x.shape, w.shape, has_bias, context.constant(1),
                      Shape(out_dims), pads, auto_pad);
}

}  // namespace

absl::Status RegisterConvOps(OpRegistry& registry) {
  return registry.Register(OpDef{"Conv", 2, 3, 1, 1, PrepareConv});
}

}  // namespace acldump
