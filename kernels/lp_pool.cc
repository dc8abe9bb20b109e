// LpPool (1 to 3 spatial dimensions): (sum of |x|^p over each window)^(1/p),
// padding counting as 0; strides, pads, auto_pad, dilations and ceil_mode
// (opset 18). Sums in double.
#include <array>
#include <cmath>
#include <vector>

#include "kernels/kernel_util.h"
#include "kernels/op_families.h"
#include "kernels/threading.h"

namespace acldump {
namespace {

struct LpGeometry {
  std::array<int64_t, 3> in{1, 1, 1}, out{1, 1, 1}, kernel{1, 1, 1},
      stride{1, 1, 1}, dilation{1, 1, 1}, pad{0, 0, 0};
};

absl::StatusOr<LpGeometry> ReadLpGeometry(const OpContext& context,
                                          const TensorInfo& x) {
  const size_t spatial = x.shape.rank() - 2;
  const std::vector<int64_t> ones(spatial, 1);
  ASSIGN_OR_RETURN(std::vector<int64_t> kernel,
                   context.attrs.GetInts("kernel_shape", {}));
  ASSIGN_OR_RETURN(std::vector<int64_t> strides,
                   context.attrs.GetInts("strides", ones));
  ASSIGN_OR_RETURN(std::vector<int64_t> dilations,
                   context.attrs.GetInts("dilations", ones));
  ASSIGN_OR_RETURN(
      std::vector<int64_t> pads,
      context.attrs.GetInts("pads", std::vector<int64_t>(2 * spatial, 0)));
  ASSIGN_OR_RETURN(std::string auto_pad,
                   context.attrs.GetString("auto_pad", "NOTSET"));
  ASSIGN_OR_RETURN(bool ceil_mode, context.attrs.GetFlag("ceil_mode", false));
  if (kernel.size() != spatial || strides.size() != spatial ||
      dilations.size() != spatial || pads.size() != 2 * spatial) {
    return InvalidArgument("kernel_shape, strides, dilations and pads need ",
                           spatial, ", ", spatial, ", ", spatial, " and ",
                           2 * spatial, " values (kernel_shape is required)");
  }
  if (auto_pad != "NOTSET" && auto_pad != "VALID" && auto_pad != "SAME_UPPER" &&
      auto_pad != "SAME_LOWER") {
    return InvalidArgument("auto_pad '", auto_pad,
                           "' is not one of NOTSET, SAME_UPPER, SAME_LOWER, "
                           "VALID");
  }
  LpGeometry g;
  const size_t lead = 3 - spatial;
  for (size_t d = 0; d < spatial; ++d) {
    const int64_t in = x.shape[2 + d], k = kernel[d], s = strides[d],
                  dil = dilations[d];
    if (k <= 0 || s <= 0 || dil <= 0 || pads[d] < 0 || pads[spatial + d] < 0) {
      return InvalidArgument(
          "kernel_shape, strides and dilations must be "
          "positive and pads not negative (axis ",
          d, ")");
    }
    const int64_t extent = (k - 1) * dil + 1;
    int64_t pad_begin = pads[d], out;
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      out = (in + s - 1) / s;
      const int64_t total = std::max<int64_t>(0, (out - 1) * s + extent - in);
      pad_begin = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
    } else {
      if (auto_pad == "VALID") pad_begin = 0;
      const int64_t span =
          in + (auto_pad == "VALID" ? 0 : pads[d] + pads[spatial + d]) - extent;
      if (span < 0) {
        return InvalidArgument("the window (extent ", extent,
                               ") is larger than the padded input on axis ", d);
      }
      out = (ceil_mode ? (span + s - 1) / s : span / s) + 1;
      // A last window starting in the end padding is dropped.
      if (ceil_mode && (out - 1) * s >= in + pad_begin) --out;
    }
    g.in[lead + d] = in;
    g.out[lead + d] = out;
    g.kernel[lead + d] = k;
    g.stride[lead + d] = s;
    g.dilation[lead + d] = dil;
    g.pad[lead + d] = pad_begin;
  }
  return g;
}

absl::StatusOr<PreparedKernel> PrepareLpPool(const OpContext& context) {
  const TensorInfo& x = context.inputs[0];
  RETURN_IF_ERROR(RequireDType(x, kFloatTypes, "input X"));
  if (x.shape.rank() < 3 || x.shape.rank() > 5) {
    return InvalidArgument("X has shape ", x.shape.ToString(),
                           "; expected [N, C, spatial...] with 1 to 3 "
                           "spatial dimensions");
  }
  ASSIGN_OR_RETURN(LpGeometry g, ReadLpGeometry(context, x));
  ASSIGN_OR_RETURN(int64_t p_attr, context.attrs.GetInt("p", 2));
  if (p_attr <= 0) return InvalidArgument("p is ", p_attr, "; expected > 0");
  const double p = static_cast<double>(p_attr);
  std::vector<int64_t> out_dims = {x.shape[0], x.shape[1]};
  for (size_t d = 3 - (x.shape.rank() - 2); d < 3; ++d)
    out_dims.push_back(g.out[d]);
  const int64_t planes = x.shape[0] * x.shape[1];
  const DType dtype = x.dtype;
  auto run = [=](std::span<const TensorView> in,
                 std::span<const TensorView> out,
                 std::span<std::byte>) -> absl::Status {
    return VisitFloatDType(dtype, [&]<typename T>() -> absl::Status {
      const T* xs = in[0].as<const T>();
      T* ys = out[0].as<T>();
      const int64_t in_plane = g.in[0] * g.in[1] * g.in[2];
      const int64_t out_plane = g.out[0] * g.out[1] * g.out[2];
      ParallelFor(static_cast<size_t>(planes), 1, [&](size_t lo, size_t hi) {
        for (size_t plane = lo; plane < hi; ++plane) {
          const T* src = xs + static_cast<int64_t>(plane) * in_plane;
          T* dst = ys + static_cast<int64_t>(plane) * out_plane;
          int64_t o = 0;
          for (int64_t od = 0; od < g.out[0]; ++od)
            for (int64_t oh = 0; oh < g.out[1]; ++oh)
              for (int64_t ow = 0; ow < g.out[2]; ++ow) {
                double sum = 0;
                for (int64_t kd = 0; kd < g.kernel[0]; ++kd) {
                  const int64_t id =
                      od * g.stride[0] - g.pad[0] + kd * g.dilation[0];
                  if (id < 0 || id >= g.in[0]) continue;
                  for (int64_t kh = 0; kh < g.kernel[1]; ++kh) {
                    const int64_t ih =
                        oh * g.stride[1] - g.pad[1] + kh * g.dilation[1];
                    if (ih < 0 || ih >= g.in[1]) continue;
                    for (int64_t kw = 0; kw < g.kernel[2]; ++kw) {
                      const int64_t iw =
                          ow * g.stride[2] - g.pad[2] + kw * g.dilation[2];
                      if (iw < 0 || iw >= g.in[2]) continue;
                      const double v = std::fabs(static_cast<double>(
                          Load(src[(id * g.in[1] + ih) * g.in[2] + iw])));
                      sum += p == 2 ? v * v : std::pow(v, p);
                    }
                  }
                }
                dst[o++] = Store<T>(static_cast<ComputeType<T>>(
                    p == 2 ? std::sqrt(sum) : std::pow(sum, 1.0 / p)));
              }
        }
      });
      return absl::OkStatus();
    });
  };
  return Prepared({TensorInfo{dtype, Shape(out_dims)}},
                  MakeKernel(std::move(run)));
}

}  // namespace

absl::Status RegisterLpPoolOps(OpRegistry& registry) {
  return registry.RegisterAll({
      {"LpPool", 1, 1, 1, 1, PrepareLpPool},
  });
}

}  // namespace acldump
