// ConvTranspose (1-D/2-D/3-D), float32, with groups, pads or auto_pad,
// output_padding and output_shape. For each image and group, one GEMM computes
// every (output channel, kernel tap) contribution of every input position, and
// a col2im pass adds them into the output (which starts as the bias). Spatial
// ranks 1 and 2 run as 3-D with unit leading dimensions.
#include <algorithm>
#include <array>

#include "kernels/conv_internal.h"
#include "kernels/kernel_util.h"
#include "kernels/threading.h"
#include "oneapi/dnnl/dnnl.h"

namespace acldump::conv {
namespace {

struct DeconvGeometry {
  int64_t batch = 0, in_channels = 0, out_channels = 0, group = 1;
  // Always 3 entries (leading unit dimensions for 1-D/2-D).
  std::array<int64_t, 3> in{}, out{}, kernel{}, strides{}, dilations{},
      pad_begin{};
  int64_t InSize() const { return in[0] * in[1] * in[2]; }
  int64_t OutSize() const { return out[0] * out[1] * out[2]; }
  int64_t KernelSize() const { return kernel[0] * kernel[1] * kernel[2]; }
};

absl::Status RunDeconv(const DeconvGeometry& g, const float* x, const float* w,
                       const float* bias, float* y, float* cols) {
  const int64_t ic_g = g.in_channels / g.group;
  const int64_t oc_g = g.out_channels / g.group;
  const int64_t taps = g.KernelSize();
  const int64_t in_size = g.InSize();
  const int64_t out_size = g.OutSize();
  const int64_t rows = oc_g * taps;
  for (int64_t n = 0; n < g.batch; ++n) {
    for (int64_t grp = 0; grp < g.group; ++grp) {
      const float* xg = x + (n * g.in_channels + grp * ic_g) * in_size;
      const float* wg = w + grp * ic_g * rows;
      float* yg = y + (n * g.out_channels + grp * oc_g) * out_size;
      // cols [oc_g * taps, in_size] = W_g^T [oc_g * taps, ic_g] x X_g, on
      // one thread (a K split over threads would change the bits).
      if (ic_g > 0 && in_size > 0) {
        ScopedIntraOpThreads one_thread(1);
        if (dnnl_sgemm('T', 'N', rows, in_size, ic_g, 1.0f, wg, rows, xg,
                       in_size, 0.0f, cols, in_size) != dnnl_success) {
          return absl::ResourceExhaustedError(
              StrCat("the ConvTranspose GEMM (", rows, "x", in_size, "x", ic_g,
                     ") failed: out of memory"));
        }
      } else {
        std::fill(cols, cols + rows * in_size, 0.0f);
      }
      for (int64_t m = 0; m < oc_g; ++m) {
        float* ym = yg + m * out_size;
        const float b = bias != nullptr ? bias[grp * oc_g + m] : 0.0f;
        std::fill(ym, ym + out_size, b);
        for (int64_t k0 = 0; k0 < g.kernel[0]; ++k0)
          for (int64_t k1 = 0; k1 < g.kernel[1]; ++k1)
            for (int64_t k2 = 0; k2 < g.kernel[2]; ++k2) {
              const int64_t tap = (k0 * g.kernel[1] + k1) * g.kernel[2] + k2;
              const float* c = cols + (m * taps + tap) * in_size;
              for (int64_t i0 = 0; i0 < g.in[0]; ++i0) {
                const int64_t o0 =
                    i0 * g.strides[0] - g.pad_begin[0] + k0 * g.dilations[0];
                if (o0 < 0 || o0 >= g.out[0]) continue;
                for (int64_t i1 = 0; i1 < g.in[1]; ++i1) {
                  const int64_t o1 =
                      i1 * g.strides[1] - g.pad_begin[1] + k1 * g.dilations[1];
                  if (o1 < 0 || o1 >= g.out[1]) continue;
                  const float* crow = c + (i0 * g.in[1] + i1) * g.in[2];
                  float* yrow = ym + (o0 * g.out[1] + o1) * g.out[2];
                  const int64_t off = k2 * g.dilations[2] - g.pad_begin[2];
                  // Input columns i2 whose output column o2 = i2*s + off lands
                  // in [0, out[2]).
                  const int64_t s = g.strides[2];
                  const int64_t lo = off >= 0 ? 0 : (-off + s - 1) / s;
                  const int64_t hi = std::min(
                      g.in[2],
                      g.out[2] - off <= 0 ? 0 : (g.out[2] - off + s - 1) / s);
                  if (s == 1) {
                    for (int64_t i2 = lo; i2 < hi; ++i2)
                      yrow[i2 + off] += crow[i2];
                  } else {
                    for (int64_t i2 = lo; i2 < hi; ++i2)
                      yrow[i2 * s + off] += crow[i2];
                  }
                }
              }
            }
      }
    }
  }
  return absl::OkStatus();
}

// ConvTranspose's output attributes: output_padding, and output_shape (its
// spatial dimensions; nullopt when absent).
struct DeconvOutputAttributes {
  std::vector<int64_t> output_padding;
  std::optional<std::vector<int64_t>> output_shape;
};

absl::StatusOr<DeconvOutputAttributes> ReadDeconvOutputAttributes(
    const OpContext& context, size_t spatial) {
  DeconvOutputAttributes attrs;
  ASSIGN_OR_RETURN(attrs.output_padding,
                   context.attrs.GetInts("output_padding",
                                         std::vector<int64_t>(spatial, 0)));
  RETURN_IF_ERROR(CheckLength(attrs.output_padding, spatial, "output_padding"));
  const bool has_output_shape = context.attrs.Has("output_shape");
  ASSIGN_OR_RETURN(std::vector<int64_t> output_shape,
                   context.attrs.GetInts("output_shape"));
  if (has_output_shape && output_shape.size() == spatial + 2) {
    output_shape.erase(output_shape.begin(), output_shape.begin() + 2);
  }
  if (has_output_shape) {
    RETURN_IF_ERROR(CheckLength(output_shape, spatial, "output_shape"));
    attrs.output_shape = std::move(output_shape);
  }
  return attrs;
}

// ConvTranspose's output spatial dimensions and leading pads, into the 3-D
// geometry (leading unit dimensions for 1-D/2-D).
absl::Status InferDeconvSpatial(const Shape& x_shape,
                                const ConvAttributes& attrs,
                                const DeconvOutputAttributes& output,
                                DeconvGeometry& g) {
  const size_t spatial = x_shape.rank() - 2;
  const std::vector<int64_t>& kernel = attrs.kernel;
  const std::vector<int64_t>& strides = attrs.strides;
  const std::vector<int64_t>& dilations = attrs.dilations;
  const std::vector<int64_t>& pads = attrs.pads;
  const std::string& auto_pad = attrs.auto_pad;
  const std::vector<int64_t>& output_padding = output.output_padding;
  const bool has_output_shape = output.output_shape.has_value();
  const size_t lead = 3 - spatial;
  g.in.fill(1);
  g.out.fill(1);
  g.kernel.fill(1);
  g.strides.fill(1);
  g.dilations.fill(1);
  g.pad_begin.fill(0);
  for (size_t d = 0; d < spatial; ++d) {
    const int64_t in = x_shape[2 + d];
    if (strides[d] <= 0 || dilations[d] <= 0 || kernel[d] <= 0 ||
        output_padding[d] < 0 || strides[d] > kMaxTensorElements ||
        dilations[d] > kMaxTensorElements || kernel[d] > kMaxTensorElements ||
        output_padding[d] > kMaxTensorElements) {
      return InvalidArgument(
          "strides, dilations and kernel_shape must be positive and "
          "output_padding non-negative (axis ",
          d, ": stride ", strides[d], ", dilation ", dilations[d], ", kernel ",
          kernel[d], ", output_padding ", output_padding[d], ")");
    }
    const int64_t extent = (kernel[d] - 1) * dilations[d] + 1;
    const int64_t full = strides[d] * (in - 1) + output_padding[d] + extent;
    int64_t begin = 0, out = 0;
    if (has_output_shape || auto_pad == "SAME_UPPER" ||
        auto_pad == "SAME_LOWER") {
      out = has_output_shape ? (*output.output_shape)[d] : in * strides[d];
      const int64_t total = full - out;
      // SAME_UPPER puts the smaller half first; otherwise the larger. Halves
      // round down (as the ONNX reference's //): a negative total (an
      // output_shape beyond the full extent) pads at the end.
      const int64_t half = total >= 0 ? total / 2 : -((-total + 1) / 2);
      begin = auto_pad == "SAME_UPPER" ? half : total - half;
    } else {
      begin = auto_pad == "VALID" ? 0 : pads[d];
      const int64_t end = auto_pad == "VALID" ? 0 : pads[d + spatial];
      if (begin < 0 || end < 0) {
        return InvalidArgument("pads [", StrJoin(pads, ","),
                               "] must be non-negative");
      }
      out = full - begin - end;
    }
    if (out <= 0 || in <= 0) {
      return InvalidArgument("output spatial dimension ", d, " would be ", out,
                             " (input ", in, ", kernel extent ", extent, ")");
    }
    g.in[lead + d] = in;
    g.out[lead + d] = out;
    g.kernel[lead + d] = kernel[d];
    g.strides[lead + d] = strides[d];
    g.dilations[lead + d] = dilations[d];
    g.pad_begin[lead + d] = begin;
  }
  return absl::OkStatus();
}

absl::StatusOr<PreparedKernel> PrepareConvTranspose(const OpContext& context) {
  const TensorInfo& x = context.inputs[0];
  const TensorInfo& w = context.inputs[1];
  RETURN_IF_ERROR(CheckConvOperands(x, w));
  const size_t spatial = x.shape.rank() - 2;
  DeconvGeometry g;
  g.batch = x.shape[0];
  g.in_channels = x.shape[1];
  ASSIGN_OR_RETURN(g.group, context.attrs.GetInt("group", 1));
  if (g.group <= 0 || g.in_channels % g.group != 0 ||
      w.shape[0] != g.in_channels) {
    return InvalidArgument(
        "W ", w.shape.ToString(), " must be [C=", g.in_channels,
        ", M/group, k...] and group ", g.group, " must divide C");
  }
  g.out_channels = w.shape[1] * g.group;
  ASSIGN_OR_RETURN(ConvAttributes attrs, ReadConvAttributes(context, w));
  ASSIGN_OR_RETURN(DeconvOutputAttributes output,
                   ReadDeconvOutputAttributes(context, spatial));
  RETURN_IF_ERROR(InferDeconvSpatial(x.shape, attrs, output, g));
  const bool has_bias = context.has_input(2);
  RETURN_IF_ERROR(CheckConvBias(context, g.out_channels));
  std::vector<int64_t> out_dims = {g.batch, g.out_channels};
  const size_t lead = 3 - spatial;
  for (size_t d = 0; d < spatial; ++d) out_dims.push_back(g.out[lead + d]);
  RETURN_IF_ERROR(CheckedNumElements(out_dims).status());
  absl::StatusOr<int64_t> cols = CheckedNumElements(std::vector<int64_t>{
      g.out_channels / g.group, g.KernelSize(), g.InSize()});
  if (!cols.ok()) return InvalidArgument("the column buffer is too large");
  const size_t workspace = static_cast<size_t>(*cols) * sizeof(float);
  std::vector<std::pair<std::string, std::string>> params = {
      {"groups", StrCat(g.group)},
      {"kernel", StrCat("[", StrJoin(attrs.kernel, ","), "]")},
      {"strides", StrCat("[", StrJoin(attrs.strides, ","), "]")},
      {"dilations", StrCat("[", StrJoin(attrs.dilations, ","), "]")},
      {"pads_begin", StrCat("[", StrJoin(g.pad_begin, ","), "]")},
      {"output", StrCat("[", StrJoin(out_dims, ","), "]")},
      {"workspace_bytes", StrCat(workspace)}};

  auto run = [g, has_bias](std::span<const TensorView> in,
                           std::span<const TensorView> out,
                           std::span<std::byte> ws) -> absl::Status {
    return RunDeconv(g, in[0].as<const float>(), in[1].as<const float>(),
                     has_bias ? in[2].as<const float>() : nullptr,
                     out[0].as<float>(), reinterpret_cast<float*>(ws.data()));
  };
  return Prepared({TensorInfo{DType::kFloat32, Shape(std::move(out_dims))}},
                  MakeKernel(std::move(run), workspace, std::move(params)));
}

}  // namespace

absl::Status RegisterConvTransposeOps(OpRegistry& registry) {
  return registry.RegisterAll({
      {"ConvTranspose", 2, 3, 1, 1, PrepareConvTranspose},
  });
}

}  // namespace acldump::conv
