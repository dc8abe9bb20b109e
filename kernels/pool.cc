// Pooling over the spatial dims of an N x C x D1 x ... x Dk tensor: MaxPool
// (with optional Indices), AveragePool, GlobalAveragePool, GlobalMaxPool.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "kernels/kernel_util.h"
#include "kernels/op_families.h"
#include "kernels/plane_sum.h"
#include "kernels/pool_2d.h"
#include "kernels/threading.h"

namespace acldump {
namespace {

// Bounds the fixed-size per-position arrays in Run.
constexpr size_t kMaxSpatialRank = 8;

using Params = std::vector<std::pair<std::string, std::string>>;

int64_t CeilDiv(int64_t a, int64_t b) {
  return a >= 0 ? (a + b - 1) / b : -((-a) / b);
}

struct PoolGeometry {
  size_t rank = 0;     // spatial rank
  int64_t planes = 0;  // N * C
  std::vector<int64_t> in, out, kernel, strides, dilations, pad_begin, pad_end;
  std::vector<int64_t> in_strides;  // within a plane
  int64_t in_plane = 1;
  int64_t out_plane = 1;
  // Per spatial dim, per output coordinate: the taps [lo, hi) that land inside
  // the input, and the number of leading taps inside the padded extent
  // (AveragePool's count_include_pad).
  std::vector<std::vector<int64_t>> tap_lo, tap_hi, padded_taps;
};

// Reads an ints attribute of `count` values in [min_value, kMaxTensorElements];
// the upper bound keeps the geometry arithmetic far from overflow.
absl::StatusOr<std::vector<int64_t>> GetSpatialInts(const Attributes& attrs,
                                                    std::string_view name,
                                                    size_t count,
                                                    int64_t default_value,
                                                    int64_t min_value) {
  ASSIGN_OR_RETURN(
      std::vector<int64_t> values,
      attrs.GetInts(name, std::vector<int64_t>(count, default_value)));
  if (values.size() != count) {
    return InvalidArgument(
        "attribute '", name, "' has ", values.size(), " values [",
        StrJoin(values, ","), "], expected ", count,
        name == "pads" ? " (begin and end per spatial dimension)"
                       : " (one per spatial dimension)");
  }
  for (int64_t v : values) {
    if (v < min_value) {
      return InvalidArgument("attribute '", name, "' = [", StrJoin(values, ","),
                             "] has a value below ", min_value);
    }
    if (v > kMaxTensorElements) {
      return InvalidArgument("attribute '", name, "' = [", StrJoin(values, ","),
                             "] has a value above ", kMaxTensorElements);
    }
  }
  return values;
}

absl::StatusOr<PoolGeometry> MakeGeometry(const OpContext& context,
                                          bool allow_dilations) {
  const TensorInfo& x = context.inputs[0];
  if (x.shape.rank() < 3) {
    return InvalidArgument(
        "input 'X' must have rank >= 3 (N x C x D1 ...), got shape ",
        x.shape.ToString());
  }
  PoolGeometry g;
  g.rank = x.shape.rank() - 2;
  if (g.rank > kMaxSpatialRank) {
    return Unimplemented("pooling over ", g.rank,
                         " spatial dimensions (at most ", kMaxSpatialRank,
                         " are supported)");
  }
  const size_t rank = g.rank;
  g.planes = x.shape[0] * x.shape[1];
  g.in.assign(x.shape.dims().begin() + 2, x.shape.dims().end());
  if (!context.attrs.Has("kernel_shape")) {
    return InvalidArgument("attribute 'kernel_shape' is required");
  }
  ASSIGN_OR_RETURN(g.kernel, context.attrs.GetInts("kernel_shape"));
  if (g.kernel.size() != rank) {
    return InvalidArgument(
        "attribute 'kernel_shape' = [", StrJoin(g.kernel, ","), "] has ",
        g.kernel.size(), " values, expected ", rank,
        " (one per spatial dimension of input shape ", x.shape.ToString(), ")");
  }
  for (int64_t k : g.kernel) {
    if (k < 1 || k > kMaxTensorElements) {
      return InvalidArgument(
          "attribute 'kernel_shape' = [", StrJoin(g.kernel, ","),
          "] must be positive and at most ", kMaxTensorElements);
    }
  }
  ASSIGN_OR_RETURN(g.strides,
                   GetSpatialInts(context.attrs, "strides", rank, 1, 1));
  ASSIGN_OR_RETURN(g.dilations,
                   GetSpatialInts(context.attrs, "dilations", rank, 1, 1));
  if (!allow_dilations) {
    for (int64_t d : g.dilations) {
      if (d != 1) return Unimplemented("dilations other than 1");
    }
  }
  ASSIGN_OR_RETURN(std::vector<int64_t> pads,
                   GetSpatialInts(context.attrs, "pads", 2 * rank, 0, 0));
  ASSIGN_OR_RETURN(std::string auto_pad,
                   context.attrs.GetString("auto_pad", "NOTSET"));
  ASSIGN_OR_RETURN(bool ceil_mode, context.attrs.GetFlag("ceil_mode", false));
  if (auto_pad != "NOTSET" && auto_pad != "VALID" && auto_pad != "SAME_UPPER" &&
      auto_pad != "SAME_LOWER") {
    return InvalidArgument(
        "attribute 'auto_pad' = \"", auto_pad,
        "\" is not one of NOTSET, VALID, SAME_UPPER, SAME_LOWER");
  }
  g.out.resize(rank);
  g.pad_begin.resize(rank);
  g.pad_end.resize(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t in = g.in[i];
    const int64_t s = g.strides[i];
    if (g.kernel[i] - 1 > kMaxTensorElements / g.dilations[i]) {
      return InvalidArgument("the dilated kernel of spatial dimension ", i,
                             " (kernel ", g.kernel[i], ", dilation ",
                             g.dilations[i], ") is too large");
    }
    const int64_t extent =
        (g.kernel[i] - 1) * g.dilations[i] + 1;  // dilated kernel size
    int64_t out = 0;
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      out = CeilDiv(in, s);
      const int64_t total = std::max<int64_t>(0, (out - 1) * s + extent - in);
      const int64_t small = total / 2;
      g.pad_begin[i] = auto_pad == "SAME_UPPER" ? small : total - small;
      g.pad_end[i] = total - g.pad_begin[i];
    } else {
      // Explicit pads apply only with NOTSET; VALID means none.
      if (auto_pad == "NOTSET") {
        g.pad_begin[i] = pads[i];
        g.pad_end[i] = pads[i + rank];
        if (g.pad_begin[i] >= extent || g.pad_end[i] >= extent) {
          return InvalidArgument(
              "attribute 'pads' = [", StrJoin(pads, ","),
              "]: pads of spatial dimension ", i,
              " must be smaller than the (dilated) kernel size ", extent);
        }
      }
      const int64_t span = in + g.pad_begin[i] + g.pad_end[i] - extent;
      if (span < 0) {
        return InvalidArgument("kernel size ", extent, " of spatial dimension ",
                               i, " exceeds the padded input size ",
                               in + g.pad_begin[i] + g.pad_end[i],
                               " (input shape ", x.shape.ToString(), ")");
      }
      if (ceil_mode && auto_pad == "NOTSET") {
        out = CeilDiv(span, s) + 1;
        // A last window starting in the end padding is dropped (as PyTorch and
        // ORT do).
        if ((out - 1) * s >= in + g.pad_begin[i]) --out;
      } else {
        out = span / s + 1;
      }
    }
    if (out < 1 && in > 0) {
      return InvalidArgument("output spatial dimension ", i,
                             " would be empty (input shape ",
                             x.shape.ToString(), ")");
    }
    g.out[i] = std::max<int64_t>(out, 0);
  }
  g.in_strides.assign(rank, 1);
  for (size_t i = rank; i-- > 1;)
    g.in_strides[i - 1] = g.in_strides[i] * g.in[i];
  for (size_t i = 0; i < rank; ++i) {
    g.in_plane *= g.in[i];
    g.out_plane *= g.out[i];
  }
  g.tap_lo.resize(rank);
  g.tap_hi.resize(rank);
  g.padded_taps.resize(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t d = g.dilations[i];
    for (int64_t o = 0; o < g.out[i]; ++o) {
      const int64_t start = o * g.strides[i] - g.pad_begin[i];
      const int64_t lo = start >= 0 ? 0 : CeilDiv(-start, d);
      const int64_t hi =
          g.in[i] - 1 - start < 0
              ? 0
              : std::min(g.kernel[i], (g.in[i] - 1 - start) / d + 1);
      const int64_t padded = std::clamp<int64_t>(
          CeilDiv(g.in[i] + g.pad_end[i] - start, d), 0, g.kernel[i]);
      g.tap_lo[i].push_back(lo);
      g.tap_hi[i].push_back(std::max(lo, hi));
      g.padded_taps[i].push_back(padded);
    }
  }
  return g;
}

Params GeometryParams(const PoolGeometry& g, bool fast_path) {
  return {
      {"kernel_shape", StrJoin(g.kernel, ",")},
      {"strides", StrJoin(g.strides, ",")},
      {"dilations", StrJoin(g.dilations, ",")},
      {"pads", StrCat(StrJoin(g.pad_begin, ","), ",", StrJoin(g.pad_end, ","))},
      {"output_spatial", StrJoin(g.out, ",")},
      {"planes", StrCat(g.planes)},
      {"fast_path", StrCat(fast_path)}};
}

// Calls f(offset_in_plane) for every tap of the window at output position `pos`
// that lands in the input.
template <typename F>
void ForEachTap(const PoolGeometry& g, const int64_t* pos, size_t dim,
                int64_t offset, F& f) {
  const int64_t o = pos[dim];
  const int64_t start = o * g.strides[dim] - g.pad_begin[dim];
  const int64_t step = g.dilations[dim] * g.in_strides[dim];
  int64_t at = offset + (start + g.tap_lo[dim][o] * g.dilations[dim]) *
                            g.in_strides[dim];
  for (int64_t j = g.tap_lo[dim][o]; j < g.tap_hi[dim][o]; ++j, at += step) {
    if (dim + 1 == g.rank) {
      f(at);
    } else {
      ForEachTap(g, pos, dim + 1, at, f);
    }
  }
}

// Calls f(pos, out_index_in_plane) for every output position of a plane, in
// row-major order.
template <typename F>
void ForEachOutput(const PoolGeometry& g, F&& f) {
  std::array<int64_t, kMaxSpatialRank> pos{};
  for (int64_t k = 0; k < g.out_plane; ++k) {
    f(pos.data(), k);
    for (size_t axis = g.rank; axis-- > 0;) {
      if (++pos[axis] < g.out[axis]) break;
      pos[axis] = 0;
    }
  }
}

// 2-D float32 without dilation runs on the SIMD kernels of pool_2d.h.
Pool2DGeometry Fast2DGeometry(const PoolGeometry& g) {
  Pool2DGeometry f;
  f.planes = g.planes;
  f.in_h = g.in[0];
  f.in_w = g.in[1];
  f.out_h = g.out[0];
  f.out_w = g.out[1];
  f.kernel_h = g.kernel[0];
  f.kernel_w = g.kernel[1];
  f.stride_h = g.strides[0];
  f.stride_w = g.strides[1];
  f.pad_top = g.pad_begin[0];
  f.pad_left = g.pad_begin[1];
  f.pad_bottom = g.pad_end[0];
  f.pad_right = g.pad_end[1];
  return f;
}

// Average pooling takes float32 there; max pooling 8-bit values too.
bool UseFast2D(const PoolGeometry& g, DType dtype, bool max = false) {
  const bool typed = dtype == DType::kFloat32 ||
                     (max && (dtype == DType::kUInt8 || dtype == DType::kInt8));
  return typed && g.rank == 2 && g.dilations[0] == 1 && g.dilations[1] == 1;
}

// ---------------------------------------------------------------------------------------------
// MaxPool.

// The ONNX index of a tap: flattened over (N, C, spatial), spatial row-major
// or, with storage_order=1, column-major.
int64_t TapIndex(const PoolGeometry& g, int64_t plane, int64_t offset,
                 bool column_major) {
  if (!column_major) return plane * g.in_plane + offset;
  int64_t index = 0;
  int64_t scale = 1;
  for (size_t i = 0; i < g.rank; ++i) {
    index += (offset / g.in_strides[i]) % g.in[i] * scale;
    scale *= g.in[i];
  }
  return plane * g.in_plane + index;
}

template <typename T>
void MaxPoolGeneric(const PoolGeometry& g, const T* x, T* y, int64_t* indices,
                    bool column_major) {
  using C = ComputeType<T>;
  for (int64_t p = 0; p < g.planes; ++p) {
    const T* xp = x + p * g.in_plane;
    T* yp = y + p * g.out_plane;
    ForEachOutput(g, [&](const int64_t* pos, int64_t k) {
      C best = std::numeric_limits<C>::lowest();
      int64_t best_offset = -1;
      auto visit = [&](int64_t offset) {
        const C v = Load(xp[offset]);
        // The first maximum wins; a NaN wins and then stays.
        bool better = best_offset < 0 || v > best;
        if constexpr (std::is_floating_point_v<C>)
          better = better || (v != v && best == best);
        if (better) {
          best = v;
          best_offset = offset;
        }
      };
      ForEachTap(g, pos, 0, 0, visit);
      yp[k] = Store<T>(best);
      if (indices != nullptr) {
        indices[p * g.out_plane + k] =
            best_offset < 0 ? -1 : TapIndex(g, p, best_offset, column_major);
      }
    });
  }
}

absl::StatusOr<PreparedKernel> PrepareMaxPool(const OpContext& context) {
  const TensorInfo& x = context.inputs[0];
  RETURN_IF_ERROR(RequireDType(x, kNumericTypes, "input 'X'"));
  ASSIGN_OR_RETURN(PoolGeometry g,
                   MakeGeometry(context, /*allow_dilations=*/true));
  ASSIGN_OR_RETURN(int64_t storage_order,
                   context.attrs.GetInt("storage_order", 0));
  if (storage_order != 0 && storage_order != 1) {
    return InvalidArgument(
        "attribute 'storage_order' must be 0 (row major) or 1 (column major), "
        "got ",
        storage_order);
  }
  std::vector<int64_t> out_dims = {x.shape[0], x.shape[1]};
  out_dims.insert(out_dims.end(), g.out.begin(), g.out.end());
  std::vector<TensorInfo> outputs = {TensorInfo{x.dtype, Shape(out_dims)}};
  const bool with_indices = context.num_outputs > 1;
  if (with_indices)
    outputs.push_back(TensorInfo{DType::kInt64, Shape(out_dims)});
  const bool fast = !with_indices && UseFast2D(g, x.dtype, /*max=*/true);
  Params params = GeometryParams(g, fast);
  auto run = [g = std::move(g), dtype = x.dtype, fast,
              column_major = storage_order == 1](
                 std::span<const TensorView> in,
                 std::span<const TensorView> out,
                 std::span<std::byte>) -> absl::Status {
    if (fast && dtype == DType::kUInt8) {
      MaxPool2DUint8(Fast2DGeometry(g), in[0].as<const uint8_t>(),
                     out[0].as<uint8_t>());
      return absl::OkStatus();
    }
    if (fast && dtype == DType::kInt8) {
      MaxPool2DInt8(Fast2DGeometry(g), in[0].as<const int8_t>(),
                    out[0].as<int8_t>());
      return absl::OkStatus();
    }
    if (fast) {
      MaxPool2DFloat32(Fast2DGeometry(g), in[0].as<const float>(),
                       out[0].as<float>());
      return absl::OkStatus();
    }
    int64_t* indices = out.size() > 1 ? out[1].as<int64_t>() : nullptr;
    return VisitDType(dtype, [&]<typename T>() -> absl::Status {
      if constexpr (std::is_same_v<T, bool>) {
        return Unimplemented("bool input");
      } else {
        MaxPoolGeneric(g, in[0].as<const T>(), out[0].as<T>(), indices,
                       column_major);
        return absl::OkStatus();
      }
    });
  };
  return Prepared(std::move(outputs),
                  MakeKernel(std::move(run), 0, std::move(params)));
}

// ---------------------------------------------------------------------------------------------
// AveragePool.

template <typename T>
void AveragePoolGeneric(const PoolGeometry& g, bool count_include_pad,
                        const T* x, T* y) {
  using C = ComputeType<T>;
  for (int64_t p = 0; p < g.planes; ++p) {
    const T* xp = x + p * g.in_plane;
    T* yp = y + p * g.out_plane;
    ForEachOutput(g, [&](const int64_t* pos, int64_t k) {
      C sum = 0;
      auto visit = [&](int64_t offset) { sum += Load(xp[offset]); };
      ForEachTap(g, pos, 0, 0, visit);
      int64_t count = 1;
      for (size_t i = 0; i < g.rank; ++i) {
        count *= count_include_pad ? g.padded_taps[i][pos[i]]
                                   : g.tap_hi[i][pos[i]] - g.tap_lo[i][pos[i]];
      }
      yp[k] =
          Store<T>(sum / static_cast<C>(count));  // an empty window gives NaN
    });
  }
}

absl::StatusOr<PreparedKernel> PrepareAveragePool(const OpContext& context) {
  const TensorInfo& x = context.inputs[0];
  RETURN_IF_ERROR(RequireDType(x, kFloatTypes, "input 'X'"));
  ASSIGN_OR_RETURN(PoolGeometry g,
                   MakeGeometry(context, /*allow_dilations=*/true));
  ASSIGN_OR_RETURN(bool count_include_pad,
                   context.attrs.GetFlag("count_include_pad", false));
  std::vector<int64_t> out_dims = {x.shape[0], x.shape[1]};
  out_dims.insert(out_dims.end(), g.out.begin(), g.out.end());
  const bool fast = UseFast2D(g, x.dtype);
  Params params = GeometryParams(g, fast);
  params.emplace_back("count_include_pad", StrCat(count_include_pad));
  auto run = [g = std::move(g), dtype = x.dtype, fast, count_include_pad](
                 std::span<const TensorView> in,
                 std::span<const TensorView> out,
                 std::span<std::byte>) -> absl::Status {
    if (fast) {
      AveragePool2DFloat32(Fast2DGeometry(g), count_include_pad,
                           in[0].as<const float>(), out[0].as<float>());
      return absl::OkStatus();
    }
    return VisitFloatDType(dtype, [&]<typename T>() -> absl::Status {
      AveragePoolGeneric(g, count_include_pad, in[0].as<const T>(),
                         out[0].as<T>());
      return absl::OkStatus();
    });
  };
  return Prepared({TensorInfo{x.dtype, Shape(std::move(out_dims))}},
                  MakeKernel(std::move(run), 0, std::move(params)));
}

// ---------------------------------------------------------------------------------------------
// GlobalAveragePool / GlobalMaxPool: one value per (n, c) plane.

// The sum in double over eight interleaved partial sums (element i goes to
// sum i % 8), which the compiler keeps in vector registers; the order is fixed,
// so the result does not depend on threads. SumFloat32AsDouble adds float32
// planes in the same order on SIMD registers.
template <typename T>
double SumAsDouble(const T* x, int64_t n) {
  constexpr int kLanes = 8;
  double partial[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int j = 0; j < kLanes; ++j) {
      partial[j] += static_cast<double>(Load(x[i + j]));
    }
  }
  for (int j = 0; i < n; ++i, ++j)
    partial[j] += static_cast<double>(Load(x[i]));
  double sum = 0;
  for (double p : partial) sum += p;
  return sum;
}

template <bool kMax>
absl::StatusOr<PreparedKernel> PrepareGlobalPool(const OpContext& context) {
  const TensorInfo& x = context.inputs[0];
  RETURN_IF_ERROR(RequireDType(x, kFloatTypes, "input 'X'"));
  if (x.shape.rank() < 2) {
    return InvalidArgument(
        "input 'X' must have rank >= 2 (N x C x D1 ...), got shape ",
        x.shape.ToString());
  }
  const int64_t planes = x.shape[0] * x.shape[1];
  int64_t size = 1;
  std::vector<int64_t> out_dims = {x.shape[0], x.shape[1]};
  for (size_t a = 2; a < x.shape.rank(); ++a) {
    size *= x.shape[a];
    out_dims.push_back(1);
  }
  Params params = {{"planes", StrCat(planes)}, {"size", StrCat(size)}};
  auto run = [dtype = x.dtype, planes, size](
                 std::span<const TensorView> in,
                 std::span<const TensorView> out,
                 std::span<std::byte>) -> absl::Status {
    return VisitFloatDType(dtype, [&]<typename T>() -> absl::Status {
      using C = ComputeType<T>;
      const T* xs = in[0].as<const T>();
      T* ys = out[0].as<T>();
      ParallelFor(planes, std::max<int64_t>(1, kElementwiseGrain / size),
                  [&](size_t begin, size_t end) {
                    for (size_t p = begin; p < end; ++p) {
                      const T* xp = xs + p * size;
                      if constexpr (kMax) {
                        C m = -std::numeric_limits<C>::infinity();
                        for (int64_t i = 0; i < size; ++i)
                          m = NanPropagatingMax(m, Load(xp[i]));
                        ys[p] = Store<T>(m);
                      } else {
                        double sum;
                        if constexpr (std::is_same_v<T, float>) {
                          sum = SumFloat32AsDouble(xp, size);
                        } else {
                          sum = SumAsDouble(xp, size);
                        }
                        ys[p] = Store<T>(sum / static_cast<double>(size));
                      }
                    }
                  });
      return absl::OkStatus();
    });
  };
  return Prepared({TensorInfo{x.dtype, Shape(std::move(out_dims))}},
                  MakeKernel(std::move(run), 0, std::move(params)));
}

}  // namespace

absl::Status RegisterPoolOps(OpRegistry& registry) {
  return registry.RegisterAll({
      {"MaxPool", 1, 1, 1, 2, PrepareMaxPool},
      {"AveragePool", 1, 1, 1, 1, PrepareAveragePool},
      {"GlobalAveragePool", 1, 1, 1, 1, PrepareGlobalPool<false>},
      {"GlobalMaxPool", 1, 1, 1, 1, PrepareGlobalPool<true>},
  });
}

}  // namespace acldump
