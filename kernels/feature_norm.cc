// Normalizations over channels, groups or axes: LRN (across channels),
// MeanVarianceNormalization, LpNormalization and GroupNormalization (opset 18
// per-group and opset 21 per-channel scale/bias). Statistics in double, in a
// fixed order.
#include <algorithm>
#include <cmath>
#include <vector>

#include "kernels/kernel_util.h"
#include "kernels/op_families.h"
#include "kernels/threading.h"

namespace acldump {
namespace {

// [N, C, inner] of an input of rank >= 2.
struct ChannelBlocks {
  int64_t n = 1, c = 1, inner = 1;
};

absl::StatusOr<ChannelBlocks> ChannelsOf(const TensorInfo& x,
                                         std::string_view op) {
  if (x.shape.rank() < 2) {
    return InvalidArgument(op, " needs X of rank 2 or more ([N, C, ...]), got ",
                           x.shape.ToString());
  }
  ChannelBlocks b;
  b.n = x.shape[0];
  b.c = x.shape[1];
  for (size_t a = 2; a < x.shape.rank(); ++a) b.inner *= x.shape[a];
  return b;
}

// y = x / (bias + alpha / size * sum of x^2 over the channel window) ^ beta.
absl::StatusOr<PreparedKernel> PrepareLrn(const OpContext& context) {
  const TensorInfo& x = context.inputs[0];
  RETURN_IF_ERROR(RequireDType(x, kFloatTypes, "input X"));
  ASSIGN_OR_RETURN(ChannelBlocks b, ChannelsOf(x, "LRN"));
  if (!context.attrs.Has("size")) {
    return InvalidArgument("attribute 'size' is required");
  }
  ASSIGN_OR_RETURN(int64_t size, context.attrs.GetInt("size", 1));
  if (size <= 0) return InvalidArgument("size is ", size, "; expected > 0");
  ASSIGN_OR_RETURN(float alpha, context.attrs.GetFloat("alpha", 1e-4f));
  ASSIGN_OR_RETURN(float beta, context.attrs.GetFloat("beta", 0.75f));
  ASSIGN_OR_RETURN(float bias, context.attrs.GetFloat("bias", 1.0f));
  const int64_t before = (size - 1) / 2, after = size - 1 - before;
  const DType dtype = x.dtype;
  auto run = [=](std::span<const TensorView> in,
                 std::span<const TensorView> out,
                 std::span<std::byte>) -> absl::Status {
    return VisitFloatDType(dtype, [&]<typename T>() -> absl::Status {
      const T* xs = in[0].as<const T>();
      T* ys = out[0].as<T>();
      ParallelFor(static_cast<size_t>(b.n * b.c), 1, [&](size_t lo, size_t hi) {
        for (size_t nc = lo; nc < hi; ++nc) {
          const int64_t n = static_cast<int64_t>(nc) / b.c;
          const int64_t c = static_cast<int64_t>(nc) % b.c;
          const int64_t first = std::max<int64_t>(0, c - before);
          const int64_t last = std::min<int64_t>(b.c - 1, c + after);
          for (int64_t i = 0; i < b.inner; ++i) {
            double square_sum = 0;
            for (int64_t k = first; k <= last; ++k) {
              const double v = Load(xs[(n * b.c + k) * b.inner + i]);
              square_sum += v * v;
            }
            const int64_t at = static_cast<int64_t>(nc) * b.inner + i;
            const double scale =
                std::pow(bias + alpha / static_cast<double>(size) * square_sum,
                         static_cast<double>(beta));
            ys[at] =
                Store<T>(static_cast<ComputeType<T>>(Load(xs[at]) / scale));
          }
        }
      });
      return absl::OkStatus();
    });
  };
  return Prepared({x}, MakeKernel(std::move(run)));
}

// Y = (X - mean) / (sqrt(E[X^2] - mean^2) + 1e-9), as ONNX's function body
// computes it, over `axes` (default 0, 2, 3).
absl::StatusOr<PreparedKernel> PrepareMeanVarianceNormalization(
    const OpContext& context) {
  const TensorInfo& x = context.inputs[0];
  RETURN_IF_ERROR(RequireDType(x, kFloatTypes, "input X"));
  ASSIGN_OR_RETURN(std::vector<int64_t> axes,
                   context.attrs.GetInts("axes", {0, 2, 3}));
  // One statistic per kept-axes position: the statistics tensor has the
  // reduced axes at 1, and broadcasting it against X gives each element's.
  const int64_t rank = static_cast<int64_t>(x.shape.rank());
  std::vector<int64_t> stats_dims = x.shape.dims();
  for (int64_t axis : axes) {
    ASSIGN_OR_RETURN(int64_t a, NormalizeAxis(axis, rank, "axes"));
    stats_dims[a] = 1;
  }
  const Shape stats_shape(stats_dims);
  const int64_t groups = stats_shape.NumElements();
  const Shape shapes[] = {stats_shape};
  BroadcastLoop loop(x.shape, shapes);
  const DType dtype = x.dtype;
  const size_t workspace = static_cast<size_t>(groups) * 3 * sizeof(double);
  auto run = [loop = std::move(loop), groups, dtype](
                 std::span<const TensorView> in,
                 std::span<const TensorView> out,
                 std::span<std::byte> ws) -> absl::Status {
    return VisitFloatDType(dtype, [&]<typename T>() -> absl::Status {
      const T* xs = in[0].as<const T>();
      T* ys = out[0].as<T>();
      double* sum = reinterpret_cast<double*>(ws.data());
      double* squares = sum + groups;
      double* count = squares + groups;
      std::fill(sum, sum + 3 * groups, 0.0);
      loop.ForEachRun([&](int64_t o, const int64_t* offsets, int64_t n,
                          const int64_t* strides) {
        for (int64_t i = 0; i < n; ++i) {
          const int64_t k = offsets[0] + i * strides[0];
          const double v = Load(xs[o + i]);
          sum[k] += v;
          squares[k] += v * v;
          count[k] += 1;
        }
      });
      loop.ForEachRun([&](int64_t o, const int64_t* offsets, int64_t n,
                          const int64_t* strides) {
        for (int64_t i = 0; i < n; ++i) {
          const int64_t k = offsets[0] + i * strides[0];
          const double mean = sum[k] / count[k];
          const double variance = squares[k] / count[k] - mean * mean;
          ys[o + i] = Store<T>(static_cast<ComputeType<T>>(
              (Load(xs[o + i]) - mean) / (std::sqrt(variance) + 1e-9)));
        }
      });
      return absl::OkStatus();
    });
  };
  return Prepared({x}, MakeKernel(std::move(run), workspace));
}

// y = x / ||x||_p along `axis` (p = 1 or 2); a zero norm gives 0.
absl::StatusOr<PreparedKernel> PrepareLpNormalization(
    const OpContext& context) {
  const TensorInfo& x = context.inputs[0];
  RETURN_IF_ERROR(RequireDType(x, kFloatTypes, "input X"));
  ASSIGN_OR_RETURN(int64_t axis_attr, context.attrs.GetInt("axis", -1));
  ASSIGN_OR_RETURN(
      int64_t axis,
      NormalizeAxis(axis_attr, static_cast<int64_t>(x.shape.rank()), "axis"));
  ASSIGN_OR_RETURN(int64_t p, context.attrs.GetInt("p", 2));
  if (p != 1 && p != 2) return InvalidArgument("p is ", p, "; expected 1 or 2");
  int64_t outer = 1, count = x.shape[axis], inner = 1;
  for (int64_t a = 0; a < axis; ++a) outer *= x.shape[a];
  for (size_t a = axis + 1; a < x.shape.rank(); ++a) inner *= x.shape[a];
  const DType dtype = x.dtype;
  auto run = [=](std::span<const TensorView> in,
                 std::span<const TensorView> out,
                 std::span<std::byte>) -> absl::Status {
    return VisitFloatDType(dtype, [&]<typename T>() -> absl::Status {
      const T* xs = in[0].as<const T>();
      T* ys = out[0].as<T>();
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t i = 0; i < inner; ++i) {
          const int64_t base = o * count * inner + i;
          double norm = 0;
          for (int64_t k = 0; k < count; ++k) {
            const double v = Load(xs[base + k * inner]);
            norm += p == 1 ? std::fabs(v) : v * v;
          }
          if (p == 2) norm = std::sqrt(norm);
          for (int64_t k = 0; k < count; ++k) {
            const double v = Load(xs[base + k * inner]);
            ys[base + k * inner] = Store<T>(
                static_cast<ComputeType<T>>(norm == 0 ? 0.0 : v / norm));
          }
        }
      }
      return absl::OkStatus();
    });
  };
  return Prepared({x}, MakeKernel(std::move(run)));
}

// (x - mean) / sqrt(var + epsilon) over each group of channels, then scale
// and bias: one value per group (opset 18) or per channel (opset 21).
absl::StatusOr<PreparedKernel> PrepareGroupNormalization(
    const OpContext& context) {
  const TensorInfo& x = context.inputs[0];
  RETURN_IF_ERROR(RequireDType(x, kFloatTypes, "input X"));
  ASSIGN_OR_RETURN(ChannelBlocks b, ChannelsOf(x, "GroupNormalization"));
  if (!context.attrs.Has("num_groups")) {
    return InvalidArgument("attribute 'num_groups' is required");
  }
  ASSIGN_OR_RETURN(int64_t groups, context.attrs.GetInt("num_groups", 1));
  if (groups <= 0 || b.c % groups != 0) {
    return InvalidArgument("num_groups ", groups, " must divide the channels (",
                           b.c, ")");
  }
  ASSIGN_OR_RETURN(float epsilon, context.attrs.GetFloat("epsilon", 1e-5f));
  for (size_t slot : {size_t{1}, size_t{2}}) {
    const TensorInfo& param = context.inputs[slot];
    if (param.dtype != x.dtype ||
        (param.shape != Shape({groups}) && param.shape != Shape({b.c}))) {
      return InvalidArgument(slot == 1 ? "scale" : "bias", " is ",
                             DTypeName(param.dtype), param.shape.ToString(),
                             "; expected ", DTypeName(x.dtype), "[", b.c,
                             "] (per channel) or [", groups, "] (per group)");
    }
  }
  const bool per_channel_scale = context.inputs[1].shape == Shape({b.c});
  const bool per_channel_bias = context.inputs[2].shape == Shape({b.c});
  const DType dtype = x.dtype;
  const int64_t per_group = b.c / groups;
  auto run = [=](std::span<const TensorView> in,
                 std::span<const TensorView> out,
                 std::span<std::byte>) -> absl::Status {
    return VisitFloatDType(dtype, [&]<typename T>() -> absl::Status {
      const T* xs = in[0].as<const T>();
      const T* scale = in[1].as<const T>();
      const T* bias = in[2].as<const T>();
      T* ys = out[0].as<T>();
      ParallelFor(
          static_cast<size_t>(b.n * groups), 1, [&](size_t lo, size_t hi) {
            for (size_t ng = lo; ng < hi; ++ng) {
              const int64_t g = static_cast<int64_t>(ng) % groups;
              const int64_t begin =
                  static_cast<int64_t>(ng) * per_group * b.inner;
              const int64_t count = per_group * b.inner;
              double sum = 0;
              for (int64_t e = 0; e < count; ++e) sum += Load(xs[begin + e]);
              const double mean = sum / static_cast<double>(count);
              double squares = 0;
              for (int64_t e = 0; e < count; ++e) {
                const double d = Load(xs[begin + e]) - mean;
                squares += d * d;
              }
              const double inv_std =
                  1.0 /
                  std::sqrt(squares / static_cast<double>(count) + epsilon);
              for (int64_t ch = 0; ch < per_group; ++ch) {
                const int64_t c = g * per_group + ch;
                const double s = Load(scale[per_channel_scale ? c : g]);
                const double t = Load(bias[per_channel_bias ? c : g]);
                for (int64_t i = 0; i < b.inner; ++i) {
                  const int64_t at = begin + ch * b.inner + i;
                  ys[at] = Store<T>(static_cast<ComputeType<T>>(
                      (Load(xs[at]) - mean) * inv_std * s + t));
                }
              }
            }
          });
      return absl::OkStatus();
    });
  };
  return Prepared({x}, MakeKernel(std::move(run)));
}

}  // namespace

absl::Status RegisterFeatureNormOps(OpRegistry& registry) {
  return registry.RegisterAll({
      {"LRN", 1, 1, 1, 1, PrepareLrn},
      {"MeanVarianceNormalization", 1, 1, 1, 1,
       PrepareMeanVarianceNormalization},
      {"LpNormalization", 1, 1, 1, 1, PrepareLpNormalization},
      {"GroupNormalization", 3, 3, 1, 1, PrepareGroupNormalization},
  });
}

}  // namespace acldump
