// Conv (1-D/2-D/3-D, pads, strides, dilations, groups, auto_pad) as im2col +
// OpenBLAS sgemm per group, with bias and an optional fused Relu applied in the
// same pass.
#include <cblas.h>

#include <cstring>

#include "kernels/blas.h"
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
  bool pointwise = false;  // 1x1, stride 1, no padding: the input already is
                           // the column matrix

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

// Writes the column matrix [C * prod(kernel), prod(out_spatial)] for one image
// and one group.
void Im2Col2D(const ConvGeometry& g, const float* image, int64_t channels,
              float* col) {
  const int64_t ih = g.in_spatial[0], iw = g.in_spatial[1];
  const int64_t oh = g.out_spatial[0], ow = g.out_spatial[1];
  const int64_t kh = g.kernel[0], kw = g.kernel[1];
  const int64_t sh = g.strides[0], sw = g.strides[1];
  const int64_t dh = g.dilations[0], dw = g.dilations[1];
  const int64_t ph = g.pads_begin[0], pw = g.pads_begin[1];
  for (int64_t c = 0; c < channels; ++c) {
    const float* plane = image + c * ih * iw;
    for (int64_t ky = 0; ky < kh; ++ky) {
      for (int64_t kx = 0; kx < kw; ++kx) {
        const int64_t x_offset = kx * dw - pw;
        // Output columns whose input x lies inside the image: [x_lo, x_hi).
        int64_t x_lo = x_offset >= 0 ? 0 : (-x_offset + sw - 1) / sw;
        int64_t x_hi = iw - x_offset <= 0 ? 0 : (iw - x_offset + sw - 1) / sw;
        x_lo = std::min(x_lo, ow);
        x_hi = std::clamp(x_hi, x_lo, ow);
        for (int64_t y = 0; y < oh; ++y) {
          const int64_t iy = y * sh + ky * dh - ph;
          float* row = col;
          col += ow;
          if (iy < 0 || iy >= ih) {
            std::memset(row, 0, ow * sizeof(float));
            continue;
          }
          const float* src = plane + iy * iw + x_offset;
          for (int64_t x = 0; x < x_lo; ++x) row[x] = 0.0f;
          if (sw == 1) {
            std::memcpy(row + x_lo, src + x_lo, (x_hi - x_lo) * sizeof(float));
          } else {
            for (int64_t x = x_lo; x < x_hi; ++x) row[x] = src[x * sw];
          }
          for (int64_t x = x_hi; x < ow; ++x) row[x] = 0.0f;
        }
      }
    }
  }
}

// Any spatial rank: one output position at a time (1-D and 3-D convs are rare).
void Im2ColGeneric(const ConvGeometry& g, const float* image, int64_t channels,
                   float* col) {
  const size_t rank = g.kernel.size();
  const int64_t in_size = g.InSpatialSize();
  const int64_t out_size = g.OutSpatialSize();
  const int64_t kernel_size = g.KernelSize();
  std::vector<int64_t> k_index(rank), o_index(rank);
  for (int64_t c = 0; c < channels; ++c) {
    const float* plane = image + c * in_size;
    for (int64_t kk = 0; kk < kernel_size; ++kk) {
      int64_t rest = kk;
      for (size_t d = rank; d-- > 0;) {
        k_index[d] = rest % g.kernel[d];
        rest /= g.kernel[d];
      }
      for (int64_t o = 0; o < out_size; ++o) {
        rest = o;
        for (size_t d = rank; d-- > 0;) {
          o_index[d] = rest % g.out_spatial[d];
          rest /= g.out_spatial[d];
        }
        int64_t offset = 0;
        bool inside = true;
        for (size_t d = 0; d < rank; ++d) {
          const int64_t i = o_index[d] * g.strides[d] +
                            k_index[d] * g.dilations[d] - g.pads_begin[d];
          if (i < 0 || i >= g.in_spatial[d]) {
            inside = false;
            break;
          }
          offset = offset * g.in_spatial[d] + i;
        }
        *col++ = inside ? plane[offset] : 0.0f;
      }
    }
  }
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
  g.pointwise = true;
  for (size_t d = 0; d < spatial; ++d) {
    g.pointwise &= g.kernel[d] == 1 && g.strides[d] == 1 &&
                   g.pads_begin[d] == 0 && g.out_spatial[d] == g.in_spatial[d];
  }
  std::vector<int64_t> out_dims = {g.batch, g.out_channels};
  out_dims.insert(out_dims.end(), g.out_spatial.begin(), g.out_spatial.end());
  const int64_t group_in = g.in_channels / g.group;
  const int64_t group_out = g.out_channels / g.group;
  const int64_t k = group_in * g.KernelSize();
  const int64_t n = g.OutSpatialSize();
  const size_t workspace =
      g.pointwise ? 0 : static_cast<size_t>(k * n) * sizeof(float);

  auto run = [g, group_in, group_out, k, n, has_bias](
                 std::span<const TensorView> in,
                 std::span<const TensorView> out,
                 std::span<std::byte> workspace) {
    const float* xdata = in[0].as<const float>();
    const float* wdata = in[1].as<const float>();
    const float* bias = has_bias ? in[2].as<const float>() : nullptr;
    float* ydata = out[0].as<float>();
    float* col = reinterpret_cast<float*>(workspace.data());
    const int64_t in_size = g.InSpatialSize();
    for (int64_t b = 0; b < g.batch; ++b) {
      for (int64_t grp = 0; grp < g.group; ++grp) {
        const float* image =
            xdata + (b * g.in_channels + grp * group_in) * in_size;
        const float* columns = image;
        if (!g.pointwise) {
          if (g.kernel.size() == 2) {
            Im2Col2D(g, image, group_in, col);
          } else {
            Im2ColGeneric(g, image, group_in, col);
          }
          columns = col;
        }
        float* y = ydata + (b * g.out_channels + grp * group_out) * n;
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, group_out, n, k,
                    1.0f, wdata + grp * group_out * k, k, columns, n, 0.0f, y,
                    n);
      }
      if (bias != nullptr || g.relu) {
        float* y = ydata + b * g.out_channels * n;
        for (int64_t c = 0; c < g.out_channels; ++c) {
          const float add = bias != nullptr ? bias[c] : 0.0f;
          float* row = y + c * n;
          if (g.relu) {
            for (int64_t i = 0; i < n; ++i)
              row[i] = std::max(row[i] + add, 0.0f);
          } else {
            for (int64_t i = 0; i < n; ++i) row[i] += add;
          }
        }
      }
    }
    return absl::OkStatus();
  };
  ConfigureBlasOnce();
  std::vector<std::pair<std::string, std::string>> params = {
      {"gemm_M", StrCat(group_out)},
      {"gemm_N", StrCat(n)},
      {"gemm_K", StrCat(k)},
      {"groups", StrCat(g.group)},
      {"batch", StrCat(g.batch)},
      {"im2col", g.pointwise ? "skipped (pointwise)" : "yes"},
      {"pads_begin", StrCat("[", StrJoin(g.pads_begin, ","), "]")},
      {"out_spatial", StrCat("[", StrJoin(g.out_spatial, ","), "]")},
      {"fused_relu", g.relu ? "1" : "0"}};
  return Prepared({TensorInfo{DType::kFloat32, Shape(std::move(out_dims))}},
                  MakeKernel(std::move(run), workspace, std::move(params)));
}

}  // namespace

absl::Status RegisterConvOps(OpRegistry& registry) {
  return registry.Register(OpDef{"Conv", 2, 3, 1, 1, PrepareConv});
}

}  // namespace acldump
