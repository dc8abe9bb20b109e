// BatchNormalization (inference), LayerNormalization and InstanceNormalization.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "kernels/kernel_util.h"
#include "kernels/op_families.h"
#include "kernels/plane_sum.h"
#include "kernels/threading.h"

namespace acldump {
namespace {

// Copies a float tensor of any float dtype into doubles.
void LoadDoubles(const TensorView& view, double* out) {
  const int64_t n = view.NumElements();
  (void)VisitFloatDType(view.dtype, [&]<typename T>() -> absl::Status {
    const T* p = view.as<const T>();
    for (int64_t i = 0; i < n; ++i) out[i] = static_cast<double>(Load(p[i]));
    return absl::OkStatus();
  });
}

// Requires a 1-D per-channel parameter of length `channels`.
absl::Status CheckChannelParam(const TensorInfo& info, int64_t channels,
                               std::string_view name) {
  if (info.shape.rank() != 1 || info.shape[0] != channels) {
    return InvalidArgument("input '", name, "' must have shape [", channels,
                           "] (the channel count of X), got ",
                           info.shape.ToString());
  }
  return absl::OkStatus();
}

// Mean and 1/sqrt(var + epsilon) of one row, in double.
struct RowStats {
  double mean;
  double inv_std;
};

template <typename T>
RowStats ComputeStats(const T* x, int64_t n, double epsilon) {
  double sum = 0;
  for (int64_t i = 0; i < n; ++i) sum += static_cast<double>(Load(x[i]));
  const double mean = sum / static_cast<double>(n);
  double sq = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double d = static_cast<double>(Load(x[i])) - mean;
    sq += d * d;
  }
  const double var = sq / static_cast<double>(n);
  return {mean, 1.0 / std::sqrt(var + epsilon)};
}

// GCC at -O2 does not auto-vectorize loops of unknown length; vector extensions
// (GCC and Clang) give SIMD code regardless.
typedef float Float4 __attribute__((vector_size(16)));

// y[i] = (x[i] - center) * scale + shift, then with kRelu a Relu as its own
// node computes it on the stored value: y < 0 ? 0 : y (NaN and -0 kept).
template <bool kRelu = false, typename T, typename C>
void Affine(const T* x, T* y, int64_t n, C center, C scale, C shift) {
  int64_t i = 0;
  if constexpr (std::is_same_v<T, float>) {
    for (; i + 4 <= n; i += 4) {
      Float4 v;
      std::memcpy(&v, x + i, sizeof(v));
      v = (v - center) * scale + shift;
      if constexpr (kRelu) v = v < Float4{} ? Float4{} : v;
      std::memcpy(y + i, &v, sizeof(v));
    }
  }
  for (; i < n; ++i) {
    const T stored = Store<T>((Load(x[i]) - center) * scale + shift);
    y[i] = kRelu && Load(stored) < 0 ? Store<T>(C(0)) : stored;
  }
}

// ---------------------------------------------------------------------------------------------
// BatchNormalization: y = (x - mean) / sqrt(var + epsilon) * scale + B per
// channel (axis 1).

// BatchNormalization's attributes: inference only, with an optional fused
// Relu.
struct BatchNormAttributes {
  float epsilon = 1e-5f;
  bool relu = false;
};

absl::StatusOr<BatchNormAttributes> ParseBatchNormAttributes(
    const OpContext& context) {
  ASSIGN_OR_RETURN(int64_t training_mode,
                   context.attrs.GetInt("training_mode", 0));
  if (training_mode != 0) {
    return Unimplemented(
        "training_mode=", training_mode,
        " is not supported: only inference (training_mode=0) is implemented");
  }
  if (context.num_outputs > 1) {
    return Unimplemented(
        context.num_outputs,
        " outputs requested: only output Y (inference mode) is implemented; "
        "the "
        "running/saved mean and variance outputs are training-mode only");
  }
  BatchNormAttributes attrs;
  ASSIGN_OR_RETURN(attrs.epsilon, context.attrs.GetFloat("epsilon", 1e-5f));
  // The converter fuses a following Relu (its name stays in the node's).
  ASSIGN_OR_RETURN(std::string activation,
                   context.attrs.GetString("fused_activation", ""));
  if (!activation.empty() && activation != "Relu") {
    return InvalidArgument("fused_activation '", activation,
                           "' is not supported: BatchNormalization fuses "
                           "only Relu");
  }
  attrs.relu = activation == "Relu";
  return attrs;
}

// What a prepared BatchNormalization runs with.
struct BatchNormPlan {
  DType dtype;
  int64_t batch, channels, spatial;
  float epsilon;
  bool relu;
};

absl::Status RunBatchNorm(const BatchNormPlan& p,
                          std::span<const TensorView> in,
                          std::span<const TensorView> out,
                          std::span<std::byte> ws) {
  const int64_t channels = p.channels, spatial = p.spatial;
  // y = (x - mean) * a + B per channel. Subtracting the mean first (rather
  // than folding it into the bias) avoids cancellation when a is large (tiny
  // variance).
  double* a = reinterpret_cast<double*>(ws.data());
  double* b = a + channels;
  double* mean = b + channels;
  double* var = mean + channels;
  LoadDoubles(in[1], a);
  LoadDoubles(in[2], b);
  LoadDoubles(in[3], mean);
  LoadDoubles(in[4], var);
  for (int64_t c = 0; c < channels; ++c) {
    a[c] = a[c] / std::sqrt(var[c] + static_cast<double>(p.epsilon));
  }
  return VisitFloatDType(p.dtype, [&]<typename T>() -> absl::Status {
    using C = ComputeType<T>;
    const T* xs = in[0].as<const T>();
    T* ys = out[0].as<T>();
    ParallelFor(
        p.batch * channels,
        std::max<int64_t>(1, kElementwiseGrain / std::max<int64_t>(1, spatial)),
        [&](size_t begin, size_t end) {
          for (size_t plane = begin; plane < end; ++plane) {
            const int64_t c = static_cast<int64_t>(plane) % channels;
            const int64_t offset = plane * spatial;
            const C center = static_cast<C>(mean[c]);
            const C scale = static_cast<C>(a[c]);
            const C shift = static_cast<C>(b[c]);
            if (p.relu) {
              Affine<true>(xs + offset, ys + offset, spatial, center, scale,
                           shift);
            } else {
              Affine(xs + offset, ys + offset, spatial, center, scale, shift);
            }
          }
        });
    return absl::OkStatus();
  });
}

absl::StatusOr<PreparedKernel> PrepareBatchNorm(const OpContext& context) {
  const TensorInfo& x = context.inputs[0];
  RETURN_IF_ERROR(RequireDType(x, kFloatTypes, "input 'X'"));
  ASSIGN_OR_RETURN(BatchNormAttributes attrs,
                   ParseBatchNormAttributes(context));
  if (x.shape.rank() < 2) {
    return InvalidArgument(
        "input 'X' must have rank >= 2 (N x C x ...), got shape ",
        x.shape.ToString());
  }
  const int64_t channels = x.shape[1];
  const char* names[] = {"X", "scale", "B", "input_mean", "input_var"};
  for (size_t i = 1; i < 5; ++i) {
    RETURN_IF_ERROR(RequireDType(context.inputs[i], kFloatTypes,
                                 StrCat("input '", names[i], "'")));
    RETURN_IF_ERROR(CheckChannelParam(context.inputs[i], channels, names[i]));
  }
  const int64_t batch = x.shape[0];
  int64_t spatial = 1;
  for (size_t a = 2; a < x.shape.rank(); ++a) spatial *= x.shape[a];
  const size_t workspace = static_cast<size_t>(channels) * 4 * sizeof(double);
  std::vector<std::pair<std::string, std::string>> params = {
      {"N", StrCat(batch)},
      {"C", StrCat(channels)},
      {"spatial", StrCat(spatial)},
      {"fused_activation", attrs.relu ? "Relu" : "none"}};
  const BatchNormPlan plan{.dtype = x.dtype,
                           .batch = batch,
                           .channels = channels,
                           .spatial = spatial,
                           .epsilon = attrs.epsilon,
                           .relu = attrs.relu};
  auto run = [plan](std::span<const TensorView> in,
                    std::span<const TensorView> out,
                    std::span<std::byte> ws) -> absl::Status {
    return RunBatchNorm(plan, in, out, ws);
  };
  return Prepared({x},
                  MakeKernel(std::move(run), workspace, std::move(params)));
}

// ---------------------------------------------------------------------------------------------
// LayerNormalization: normalize over axes [axis, rank), then scale and bias.

// For a parameter unidirectionally broadcast to `dims`: the parameter's element
// index for each element of `dims`, or an empty vector when the parameter
// already has dims' element layout.
absl::StatusOr<std::vector<int64_t>> BroadcastIndex(
    const Shape& param, const std::vector<int64_t>& dims,
    std::string_view name) {
  const size_t rank = dims.size();
  const size_t prank = param.rank();
  auto error = [&] {
    return InvalidArgument("input '", name, "' of shape ", param.ToString(),
                           " does not broadcast to the normalized shape [",
                           StrJoin(dims, ","), "]");
  };
  for (size_t i = 0; i < prank; ++i) {
    const int64_t p = param[prank - 1 - i];
    if (i >= rank) {
      if (p != 1) return error();
      continue;
    }
    const int64_t d = dims[rank - 1 - i];
    if (p != d && p != 1) return error();
  }
  int64_t total = 1;
  for (int64_t d : dims) total *= d;
  if (param.NumElements() == total) return std::vector<int64_t>{};
  // Strides of the parameter aligned to dims; 0 where it broadcasts.
  std::vector<int64_t> strides(rank, 0);
  int64_t stride = 1;
  for (size_t i = 0; i < std::min(rank, prank); ++i) {
    const int64_t p = param[prank - 1 - i];
    if (p != 1) strides[rank - 1 - i] = stride;
    stride *= p;
  }
  std::vector<int64_t> index(total);
  std::vector<int64_t> counter(rank, 0);
  int64_t offset = 0;
  for (int64_t k = 0; k < total; ++k) {
    index[k] = offset;
    for (size_t axis = rank; axis-- > 0;) {
      offset += strides[axis];
      if (++counter[axis] < dims[axis]) break;
      offset -= strides[axis] * dims[axis];
      counter[axis] = 0;
    }
  }
  return index;
}

// One row of the converter's fusion of a LayerNorm as exporters write it
// (ReduceMean, Sub, Pow 2, ReduceMean, Add epsilon, Sqrt, Div, Mul Scale,
// Add B): each step in float32 as its node computes it, the means as
// ReduceMean sums (kernels/plane_sum.h), so the bits match the unfused graph.
void DecomposedLayerNormRow(const float* x, const float* scale,
                            const float* bias, float* y, int64_t n,
                            float epsilon) {
  const double count = static_cast<double>(n);
  const float mean = static_cast<float>(SumFloat32AsDouble(x, n) / count);
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] - mean;
  const float variance =
      static_cast<float>(SumSquaresFloat32AsDouble(y, n) / count);
  const float deviation = std::sqrt(variance + epsilon);
  for (int64_t i = 0; i < n; ++i) {
    const float scaled = (y[i] / deviation) * scale[i];
    y[i] = bias != nullptr ? scaled + bias[i] : scaled;
  }
}

absl::StatusOr<PreparedKernel> PrepareDecomposedLayerNorm(
    const OpContext& context) {
  const TensorInfo& x = context.inputs[0];
  if (x.dtype != DType::kFloat32) {
    return InvalidArgument("a fused LayerNorm chain takes float32, got ",
                           DTypeName(x.dtype));
  }
  const int64_t rank = static_cast<int64_t>(x.shape.rank());
  ASSIGN_OR_RETURN(int64_t axis_attr, context.attrs.GetInt("axis", -1));
  ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(axis_attr, rank, "axis"));
  if (axis != rank - 1) {
    return InvalidArgument(
        "a fused LayerNorm chain normalizes the last axis only, got axis ",
        axis_attr, " of rank ", rank);
  }
  if (context.num_outputs != 1) {
    return InvalidArgument(
        "a fused LayerNorm chain has one output (no mean or inverse "
        "deviation), got ",
        context.num_outputs);
  }
  ASSIGN_OR_RETURN(float epsilon, context.attrs.GetFloat("epsilon", 1e-5f));
  const int64_t size = x.shape[rank - 1];
  const bool has_bias = context.has_input(2);
  const char* names[] = {"X", "Scale", "B"};
  for (size_t i = 1; i < (has_bias ? 3u : 2u); ++i) {
    const TensorInfo& param = context.inputs[i];
    if (param.dtype != DType::kFloat32 || param.shape.NumElements() != size) {
      return InvalidArgument(
          "input '", names[i],
          "' of a fused LayerNorm "
          "chain must be float32 with ",
          size, " elements (the last axis of X ", x.shape.ToString(), "), got ",
          DTypeName(param.dtype), " ", param.shape.ToString());
    }
  }
  const int64_t rows = size > 0 ? x.shape.NumElements() / size : 0;
  auto run = [rows, size, epsilon, has_bias](
                 std::span<const TensorView> in,
                 std::span<const TensorView> out,
                 std::span<std::byte>) -> absl::Status {
    const float* xs = in[0].as<const float>();
    const float* scale = in[1].as<const float>();
    const float* bias = has_bias ? in[2].as<const float>() : nullptr;
    float* ys = out[0].as<float>();
    const size_t grain = static_cast<size_t>(std::max<int64_t>(
        1, int64_t{kElementwiseGrain} / std::max<int64_t>(1, size)));
    ParallelFor(rows, grain, [&](size_t begin, size_t end) {
      for (size_t r = begin; r < end; ++r) {
        DecomposedLayerNormRow(xs + r * size, scale, bias, ys + r * size, size,
                               epsilon);
      }
    });
    return absl::OkStatus();
  };
  std::vector<std::pair<std::string, std::string>> params = {
      {"rows", StrCat(rows)},
      {"size", StrCat(size)},
      {"fused_decomposed", "1"}};
  return Prepared({x}, MakeKernel(std::move(run), 0, std::move(params)));
}

// LayerNormalization's stash_type: the type of the mean and inverse deviation
// outputs.
absl::StatusOr<DType> ParseLayerNormStashType(const OpContext& context) {
  ASSIGN_OR_RETURN(int64_t stash_type, context.attrs.GetInt("stash_type", 1));
  const std::optional<DType> stash =
      FromOnnxDataType(static_cast<int32_t>(stash_type));
  if (!stash || (*stash != DType::kFloat32 && *stash != DType::kFloat64)) {
    return Unimplemented(
        "stash_type ", stash_type,
        " is not supported (supported: 1 = float32, 11 = float64)");
  }
  return *stash;
}

// What a prepared LayerNormalization runs with.
struct LayerNormPlan {
  DType dtype, stash_dtype;
  int64_t rows, size;
  float epsilon;
  bool has_bias;
  // BroadcastIndex of Scale and B; empty when dense.
  std::vector<int64_t> scale_index, bias_index;
};

absl::Status RunLayerNorm(const LayerNormPlan& p,
                          std::span<const TensorView> in,
                          std::span<const TensorView> out) {
  const int64_t size = p.size;
  return VisitFloatDType(p.dtype, [&]<typename T>() -> absl::Status {
    using C = ComputeType<T>;
    const T* xs = in[0].as<const T>();
    const T* scale = in[1].as<const T>();
    const T* bias = p.has_bias ? in[2].as<const T>() : nullptr;
    T* ys = out[0].as<T>();
    const int64_t* si = p.scale_index.empty() ? nullptr : p.scale_index.data();
    const int64_t* bi = p.bias_index.empty() ? nullptr : p.bias_index.data();
    for (int64_t r = 0; r < p.rows; ++r) {
      const T* xp = xs + r * size;
      T* yp = ys + r * size;
      const RowStats stats = ComputeStats(xp, size, p.epsilon);
      const C mean = static_cast<C>(stats.mean);
      const C inv_std = static_cast<C>(stats.inv_std);
      for (int64_t i = 0; i < size; ++i) {
        C v = (Load(xp[i]) - mean) * inv_std * Load(scale[si ? si[i] : i]);
        if (bias != nullptr) v += Load(bias[bi ? bi[i] : i]);
        yp[i] = Store<T>(v);
      }
      for (size_t k = 1; k < out.size() && k < 3; ++k) {
        const double value = k == 1 ? stats.mean : stats.inv_std;
        if (out[k].data == nullptr) continue;
        if (p.stash_dtype == DType::kFloat64) {
          out[k].as<double>()[r] = value;
        } else {
          out[k].as<float>()[r] = static_cast<float>(value);
        }
      }
    }
    return absl::OkStatus();
  });
}

absl::StatusOr<PreparedKernel> PrepareLayerNorm(const OpContext& context) {
  ASSIGN_OR_RETURN(bool decomposed,
                   context.attrs.GetFlag("fused_decomposed", false));
  if (decomposed) return PrepareDecomposedLayerNorm(context);
  const TensorInfo& x = context.inputs[0];
  RETURN_IF_ERROR(RequireDType(x, kFloatTypes, "input 'X'"));
  const int64_t rank = static_cast<int64_t>(x.shape.rank());
  ASSIGN_OR_RETURN(int64_t axis_attr, context.attrs.GetInt("axis", -1));
  ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(axis_attr, rank, "axis"));
  LayerNormPlan p;
  ASSIGN_OR_RETURN(p.epsilon, context.attrs.GetFloat("epsilon", 1e-5f));
  ASSIGN_OR_RETURN(p.stash_dtype, ParseLayerNormStashType(context));
  p.has_bias = context.has_input(2);
  std::vector<int64_t> norm_dims(x.shape.dims().begin() + axis,
                                 x.shape.dims().end());
  ASSIGN_OR_RETURN(p.scale_index,
                   BroadcastIndex(context.inputs[1].shape, norm_dims, "Scale"));
  const char* names[] = {"X", "Scale", "B"};
  for (size_t i = 1; i < (p.has_bias ? 3u : 2u); ++i) {
    if (context.inputs[i].dtype != x.dtype) {
      return InvalidArgument("input '", names[i], "' has type ",
                             DTypeName(context.inputs[i].dtype), ", X has ",
                             DTypeName(x.dtype));
    }
  }
  if (p.has_bias) {
    ASSIGN_OR_RETURN(p.bias_index,
                     BroadcastIndex(context.inputs[2].shape, norm_dims, "B"));
  }
  p.rows = 1;
  p.size = 1;
  std::vector<int64_t> stat_dims;
  for (int64_t a = 0; a < rank; ++a) {
    (a < axis ? p.rows : p.size) *= x.shape[a];
    stat_dims.push_back(a < axis ? x.shape[a] : 1);
  }
  std::vector<TensorInfo> outputs = {x};
  for (size_t i = 1; i < context.num_outputs; ++i) {
    outputs.push_back(TensorInfo{p.stash_dtype, Shape(stat_dims)});
  }
  p.dtype = x.dtype;
  std::vector<std::pair<std::string, std::string>> params = {
      {"rows", StrCat(p.rows)}, {"size", StrCat(p.size)}};
  auto run = [p = std::move(p)](std::span<const TensorView> in,
                                std::span<const TensorView> out,
                                std::span<std::byte>) -> absl::Status {
    return RunLayerNorm(p, in, out);
  };
  return Prepared(std::move(outputs),
                  MakeKernel(std::move(run), 0, std::move(params)));
}

// ---------------------------------------------------------------------------------------------
// InstanceNormalization: per (n, c), normalize over the spatial dims, then
// scale and bias.

absl::StatusOr<PreparedKernel> PrepareInstanceNorm(const OpContext& context) {
  const TensorInfo& x = context.inputs[0];
  RETURN_IF_ERROR(RequireDType(x, kFloatTypes, "input"));
  ASSIGN_OR_RETURN(float epsilon, context.attrs.GetFloat("epsilon", 1e-5f));
  if (x.shape.rank() < 2) {
    return InvalidArgument(
        "input must have rank >= 2 (N x C x ...), got shape ",
        x.shape.ToString());
  }
  const int64_t channels = x.shape[1];
  const char* names[] = {"input", "scale", "B"};
  for (size_t i = 1; i < 3; ++i) {
    if (context.inputs[i].dtype != x.dtype) {
      return InvalidArgument("input '", names[i], "' has type ",
                             DTypeName(context.inputs[i].dtype), ", input has ",
                             DTypeName(x.dtype));
    }
    RETURN_IF_ERROR(CheckChannelParam(context.inputs[i], channels, names[i]));
  }
  const int64_t batch = x.shape[0];
  int64_t spatial = 1;
  for (size_t a = 2; a < x.shape.rank(); ++a) spatial *= x.shape[a];
  const DType dtype = x.dtype;
  std::vector<std::pair<std::string, std::string>> params = {
      {"N", StrCat(batch)},
      {"C", StrCat(channels)},
      {"spatial", StrCat(spatial)}};
  auto run = [dtype, batch, channels, spatial, epsilon](
                 std::span<const TensorView> in,
                 std::span<const TensorView> out,
                 std::span<std::byte>) -> absl::Status {
    if (spatial == 0) return absl::OkStatus();
    return VisitFloatDType(dtype, [&]<typename T>() -> absl::Status {
      using C = ComputeType<T>;
      const T* xs = in[0].as<const T>();
      const T* scale = in[1].as<const T>();
      const T* bias = in[2].as<const T>();
      T* ys = out[0].as<T>();
      for (int64_t n = 0; n < batch; ++n) {
        for (int64_t c = 0; c < channels; ++c) {
          const int64_t offset = (n * channels + c) * spatial;
          const RowStats stats = ComputeStats(xs + offset, spatial, epsilon);
          // As in BatchNormalization, the mean is subtracted first to avoid
          // cancellation.
          const C center = static_cast<C>(stats.mean);
          const C ca = static_cast<C>(stats.inv_std *
                                      static_cast<double>(Load(scale[c])));
          const C cb = Load(bias[c]);
          const T* xp = xs + offset;
          T* yp = ys + offset;
          Affine(xp, yp, spatial, center, ca, cb);
        }
      }
      return absl::OkStatus();
    });
  };
  return Prepared({x}, MakeKernel(std::move(run), 0, std::move(params)));
}

}  // namespace

absl::Status RegisterNormalizationOps(OpRegistry& registry) {
  // BatchNormalization declares its training outputs (up to 5 before opset 14)
  // so that asking for them reaches prepare and gets a clear Unimplemented.
  return registry.RegisterAll({
      {"BatchNormalization", 5, 5, 1, 5, PrepareBatchNorm},
      {"LayerNormalization", 2, 3, 1, 3, PrepareLayerNorm},
      {"InstanceNormalization", 3, 3, 1, 1, PrepareInstanceNorm},
  });
}

}  // namespace acldump
