// Pooling over the spatial dims of an N x C x D1 x ... x Dk tensor: MaxPool
// (with optional Indices), AveragePool, GlobalAveragePool, GlobalMaxPool.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "kernels/kernel_util.h"
#include "kernels/op_families.h"
#include "kernels/plane_sum.h"
#include "kernels/threading.h"

namespace acldump {
namespace {

// Bounds the fixed-size per-position arrays in Run.
constexpr size_t kMaxSpatialRank = 8;

using Params = std::vector<std::pair<std::string, std::string>>;

// GCC at -O2 does not auto-vectorize loops of unknown length; vector extensions
// (GCC and Clang) give SIMD code regardless.
typedef float Float4 __attribute__((vector_size(16)));

inline Float4 Load4(const float* p) {
  Float4 v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

inline void Store4(float* p, Float4 v) { std::memcpy(p, &v, sizeof(v)); }

// Lanes 0 and 2 of a, then lanes 0 and 2 of b.
inline Float4 Evens(Float4 a, Float4 b) {
#if defined(__clang__)
  return __builtin_shufflevector(a, b, 0, 2, 4, 6);
#else
  typedef int Int4 __attribute__((vector_size(16)));
  return __builtin_shuffle(a, b, Int4{0, 2, 4, 6});
#endif
}

// max(acc, v) (NaN-propagating) or acc + v, lane by lane.
template <bool kMax>
inline Float4 Combine4(Float4 acc, Float4 v) {
  if constexpr (kMax) {
    return ((v > acc) | (v != v)) ? v : acc;
  } else {
    return acc + v;
  }
}

// out[i] = max(a[i], b[i]) (NaN-propagating) or a[i] + b[i]; out may alias a.
template <bool kMax>
void CombineRows(const float* a, const float* b, float* out, int64_t n) {
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    Store4(out + i, Combine4<kMax>(Load4(a + i), Load4(b + i)));
  }
  for (; i < n; ++i)
    out[i] = kMax ? NanPropagatingMax(a[i], b[i]) : a[i] + b[i];
}

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

// ---------------------------------------------------------------------------------------------
// 2-D float32 without dilation. Each output row first combines its window's
// input rows into one padded row (vectorized), then slides the window along it;
// the padding (-inf for max, 0 for sums) makes every window full, so the
// sliding loop has no bounds checks.

// Floats of the padded row: begin padding, the input row, and enough after it
// for the last window (which ceil_mode may push past the end padding), plus
// the slack the stride-2 loop reads past it.
constexpr int64_t kRowSlack = 4;
int64_t PaddedRowWidth(const PoolGeometry& g) {
  return std::max(g.pad_begin[1] + g.in[1],
                  (g.out[1] - 1) * g.strides[1] + g.kernel[1]) +
         kRowSlack;
}

// Window maxima or sums along a padded row; kKw > 0 fixes the kernel width at
// compile time.
template <bool kMax, int kKw>
void SlideRow(const float* row, float* out, int64_t w_out, int64_t stride,
              int64_t kw) {
  const int64_t width = kKw > 0 ? kKw : kw;
  int64_t ow = 0;
  if (stride == 1 || stride == 2) {
    // Tap j of outputs ow..ow+3: four consecutive floats, or for stride 2
    // every other float from row[2 * ow + j], gathered from two loads (the
    // second reaches one float past the last window, into the row's slack).
    auto taps = [&](int64_t j) {
      const float* p = row + stride * ow + j;
      return stride == 1 ? Load4(p) : Evens(Load4(p), Load4(p + 4));
    };
    for (; ow + 4 <= w_out; ow += 4) {
      Float4 acc = taps(0);
      for (int64_t j = 1; j < width; ++j) acc = Combine4<kMax>(acc, taps(j));
      Store4(out + ow, acc);
    }
  }
  for (; ow < w_out; ++ow) {
    const float* window = row + ow * stride;
    float acc = window[0];
    for (int64_t j = 1; j < width; ++j)
      acc = kMax ? NanPropagatingMax(acc, window[j]) : acc + window[j];
    out[ow] = acc;
  }
}

template <bool kMax>
void Pool2DPlanes(const PoolGeometry& g, bool count_include_pad, const float* x,
                  float* y, float* buffer, int64_t first_plane,
                  int64_t end_plane) {
  const int64_t h_in = g.in[0], w_in = g.in[1];
  const int64_t h_out = g.out[0], w_out = g.out[1];
  const int64_t kh = g.kernel[0], kw = g.kernel[1];
  const int64_t sh = g.strides[0], sw = g.strides[1];
  const int64_t pt = g.pad_begin[0], pl = g.pad_begin[1];
  const int64_t h_limit = h_in + g.pad_end[0], w_limit = w_in + g.pad_end[1];
  float* row = buffer + pl;
  for (int64_t p = first_plane; p < end_plane; ++p) {
    const float* xp = x + p * h_in * w_in;
    float* yp = y + p * h_out * w_out;
    for (int64_t oh = 0; oh < h_out; ++oh) {
      float* yr = yp + oh * w_out;
      const int64_t hs = oh * sh - pt;
      const int64_t h0 = std::max<int64_t>(hs, 0);
      const int64_t h1 = std::min(hs + kh, h_in);
      if (h1 <=
          h0) {  // no input row: unreachable with the pads MakeGeometry allows
        for (int64_t ow = 0; ow < w_out; ++ow) {
          yr[ow] = kMax ? std::numeric_limits<float>::lowest()
                        : std::numeric_limits<float>::quiet_NaN();
        }
        continue;
      }
      const float* src = xp + h0 * w_in;
      if (h1 - h0 == 1) {
        std::memcpy(row, src, static_cast<size_t>(w_in) * sizeof(float));
      } else {
        CombineRows<kMax>(src, src + w_in, row, w_in);
        for (int64_t h = h0 + 2; h < h1; ++h)
          CombineRows<kMax>(row, xp + h * w_in, row, w_in);
      }
      if (kw == 3) {
        SlideRow<kMax, 3>(buffer, yr, w_out, sw, kw);
      } else if (kw == 2) {
        SlideRow<kMax, 2>(buffer, yr, w_out, sw, kw);
      } else {
        SlideRow<kMax, 0>(buffer, yr, w_out, sw, kw);
      }
      if constexpr (!kMax) {
        const int64_t rows =
            count_include_pad ? std::min(hs + kh, h_limit) - hs : h1 - h0;
        for (int64_t ow = 0; ow < w_out; ++ow) {
          const int64_t ws = ow * sw - pl;
          const int64_t cols =
              count_include_pad
                  ? std::min(ws + kw, w_limit) - ws
                  : std::min(ws + kw, w_in) - std::max<int64_t>(ws, 0);
          yr[ow] /= static_cast<float>(rows * cols);
        }
      }
    }
  }
}

// Splits the planes over the intra-op threads; each thread pads rows in a
// buffer of its own.
template <bool kMax>
void Pool2DFloat(const PoolGeometry& g, bool count_include_pad, const float* x,
                 float* y) {
  const int64_t per_plane = g.in[0] * g.in[1] * g.kernel[0];
  const size_t grain = static_cast<size_t>(
      std::max<int64_t>(1, static_cast<int64_t>(kElementwiseGrain) /
                               std::max<int64_t>(1, per_plane)));
  const float pad_value = kMax ? -std::numeric_limits<float>::infinity() : 0.0f;
  ParallelFor(g.planes, grain, [&](size_t begin, size_t end) {
    // Kept per thread: allocated by the first execution only.
    thread_local std::vector<float> padded;
    padded.assign(PaddedRowWidth(g), pad_value);
    Pool2DPlanes<kMax>(g, count_include_pad, x, y, padded.data(),
                       static_cast<int64_t>(begin), static_cast<int64_t>(end));
  });
}

bool UseFast2D(const PoolGeometry& g, DType dtype) {
  return dtype == DType::kFloat32 && g.rank == 2 && g.dilations[0] == 1 &&
         g.dilations[1] == 1;
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
  const bool fast = !with_indices && UseFast2D(g, x.dtype);
  Params params = GeometryParams(g, fast);
  auto run = [g = std::move(g), dtype = x.dtype, fast,
              column_major = storage_order == 1](
                 std::span<const TensorView> in,
                 std::span<const TensorView> out,
                 std::span<std::byte>) -> absl::Status {
    if (fast) {
      Pool2DFloat<true>(g, false, in[0].as<const float>(), out[0].as<float>());
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
      Pool2DFloat<false>(g, count_include_pad, in[0].as<const float>(),
                         out[0].as<float>());
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
