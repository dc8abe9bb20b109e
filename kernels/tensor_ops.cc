// Data-movement and shape operators: Concat Split Slice Gather Reshape Flatten
// Transpose Squeeze Unsqueeze Identity Pad Shape Size Constant ConstantOfShape
// Expand Tile Range.
//
// Ops that only move data work on bytes (element size as a compile-time
// constant where it matters), so every dtype shares one instantiation per
// element size.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>

#include "kernels/kernel_util.h"
#include "kernels/op_families.h"
#include "kernels/threading.h"

namespace acldump {
namespace {

using Ints = std::vector<int64_t>;
using Params = std::vector<std::pair<std::string, std::string>>;

// ---------------------------------------------------------------------------------------------
// Copy machinery.

// The runtime may hand an aliasing op the same buffer as input and output.
void CopyAliasable(void* dst, const void* src, size_t bytes) {
  if (bytes == 0 || dst == src) return;
  std::memcpy(dst, src, bytes);
}

void CopyRaw(std::byte* dst, const std::byte* src, int64_t bytes) {
  if (bytes > 0) std::memcpy(dst, src, static_cast<size_t>(bytes));
}

// Calls f.template operator()<N>() with the element size as a constant, so a
// per-element copy compiles to one move.
template <typename F>
decltype(auto) VisitElementSize(size_t size, F&& f) {
  switch (size) {
    case 1:
      return f.template operator()<1>();
    case 2:
      return f.template operator()<2>();
    case 4:
      return f.template operator()<4>();
    default:
      return f.template operator()<8>();
  }
}

bool IsElementSize(int64_t bytes) {
  return bytes == 1 || bytes == 2 || bytes == 4 || bytes == 8;
}

// Copies `count` blocks of `block` bytes found `src_stride` bytes apart (0 =
// repeat one block) into consecutive blocks of dst.
void CopyBlocks(std::byte* dst, const std::byte* src, int64_t count,
                int64_t src_stride, int64_t block) {
  if (src_stride == block) {
    CopyRaw(dst, src, count * block);
  } else if (IsElementSize(block)) {
    VisitElementSize(static_cast<size_t>(block), [&]<size_t N>() {
      for (int64_t i = 0; i < count; ++i)
        std::memcpy(dst + i * N, src + i * src_stride, N);
    });
  } else {
    for (int64_t i = 0; i < count; ++i)
      CopyRaw(dst + i * block, src + i * src_stride, block);
  }
}

// Calls f(src_offset, dst_offset) for every index over `dims`, the offsets
// advanced by the per-axis strides (no divisions).
template <typename F>
void ForEachIndex(std::span<const int64_t> dims,
                  std::span<const int64_t> src_strides,
                  std::span<const int64_t> dst_strides, F&& f) {
  for (int64_t dim : dims) {
    if (dim == 0) return;
  }
  const size_t rank = dims.size();
  std::vector<int64_t> counter(rank, 0);
  int64_t src = 0;
  int64_t dst = 0;
  while (true) {
    f(src, dst);
    size_t axis = rank;
    while (axis-- > 0) {
      src += src_strides[axis];
      dst += dst_strides[axis];
      if (++counter[axis] < dims[axis]) break;
      src -= src_strides[axis] * dims[axis];
      dst -= dst_strides[axis] * dims[axis];
      counter[axis] = 0;
    }
    if (axis == static_cast<size_t>(-1)) return;
  }
}

// A strided read of a source into a dense destination: for each index over
// `dims` in row-major order, `block` bytes at src + sum(index[k] *
// src_strides[k]) go to the next block of dst. Strides are in bytes and may be
// negative (Slice) or 0 (broadcast).
struct CopyPlan {
  Ints dims;
  Ints src_strides;
  int64_t block = 0;
  bool empty = false;
};

// Drops size-1 axes, merges neighbours that step through the source
// consistently and folds source-contiguous trailing axes into the block, so the
// loops run over few, long dimensions.
CopyPlan SimplifyCopy(std::span<const int64_t> dims,
                      std::span<const int64_t> src_strides, int64_t block) {
  CopyPlan plan;
  plan.block = block;
  for (size_t k = 0; k < dims.size(); ++k) {
    if (dims[k] == 0) plan.empty = true;
    if (dims[k] == 1) continue;
    if (!plan.dims.empty() &&
        plan.src_strides.back() == src_strides[k] * dims[k]) {
      plan.dims.back() *= dims[k];
      plan.src_strides.back() = src_strides[k];
    } else {
      plan.dims.push_back(dims[k]);
      plan.src_strides.push_back(src_strides[k]);
    }
  }
  while (!plan.dims.empty() && plan.src_strides.back() == plan.block) {
    plan.block *= plan.dims.back();
    plan.dims.pop_back();
    plan.src_strides.pop_back();
  }
  return plan;
}

Params PlanParams(const CopyPlan& plan) {
  return {{"dims", StrCat("[", StrJoin(plan.dims, ","), "]")},
          {"src_strides", StrCat("[", StrJoin(plan.src_strides, ","), "]")},
          {"block_bytes", StrCat(plan.block)}};
}

constexpr int64_t kTile = 16;

void RunCopyPlan(const CopyPlan& plan, const std::byte* src, std::byte* dst) {
  if (plan.empty) return;
  const size_t rank = plan.dims.size();
  if (rank == 0) {
    CopyRaw(dst, src, plan.block);
    return;
  }
  Ints dst_strides(rank);
  int64_t stride = plan.block;
  for (size_t k = rank; k-- > 0;) {
    dst_strides[k] = stride;
    stride *= plan.dims[k];
  }
  // When the source-contiguous axis is not innermost (a transpose), copy in
  // square tiles so reads and writes both stay within a few cache lines.
  size_t p = rank;
  if (rank >= 2 && IsElementSize(plan.block)) {
    for (size_t k = 0; k + 1 < rank; ++k) {
      if (plan.src_strides[k] == plan.block) p = k;
    }
  }
  if (p == rank) {
    const std::span<const int64_t> outer(plan.dims.data(), rank - 1);
    const int64_t inner = plan.dims.back();
    const int64_t inner_stride = plan.src_strides.back();
    ForEachIndex(
        outer, std::span(plan.src_strides.data(), rank - 1),
        std::span(dst_strides.data(), rank - 1), [&](int64_t s, int64_t d) {
          CopyBlocks(dst + d, src + s, inner, inner_stride, plan.block);
        });
    return;
  }
  const size_t q = rank - 1;
  Ints outer_dims, outer_src, outer_dst;
  for (size_t k = 0; k < q; ++k) {
    if (k == p) continue;
    outer_dims.push_back(plan.dims[k]);
    outer_src.push_back(plan.src_strides[k]);
    outer_dst.push_back(dst_strides[k]);
  }
  const int64_t rows = plan.dims[p];
  const int64_t cols = plan.dims[q];
  const int64_t dst_row = dst_strides[p];
  const int64_t src_col = plan.src_strides[q];
  VisitElementSize(static_cast<size_t>(plan.block), [&]<size_t N>() {
    ForEachIndex(outer_dims, outer_src, outer_dst, [&](int64_t s, int64_t d) {
      for (int64_t i0 = 0; i0 < rows; i0 += kTile) {
        const int64_t i1 = std::min(i0 + kTile, rows);
        for (int64_t j0 = 0; j0 < cols; j0 += kTile) {
          const int64_t j1 = std::min(j0 + kTile, cols);
          for (int64_t i = i0; i < i1; ++i) {
            const std::byte* sp = src + s + i * static_cast<int64_t>(N);
            std::byte* dp = dst + d + i * dst_row;
            for (int64_t j = j0; j < j1; ++j)
              std::memcpy(dp + j * N, sp + j * src_col, N);
          }
        }
      }
    });
  });
}

// ---------------------------------------------------------------------------------------------
// Shared validation.

int64_t Product(std::span<const int64_t> dims) {
  int64_t product = 1;
  for (int64_t dim : dims) product *= dim;
  return product;
}

std::string IntsToString(std::span<const int64_t> values) {
  return StrCat("[", StrJoin(values, ","), "]");
}

// An int list from the attribute when present (older opsets), else from input
// `index` (newer opsets), which must be known before execution. nullopt when
// neither is given.
absl::StatusOr<std::optional<Ints>> IntsFromAttrOrInput(
    const OpContext& context, std::string_view name, size_t index) {
  if (context.attrs.Has(name)) {
    ASSIGN_OR_RETURN(Ints values, context.attrs.GetInts(name));
    return std::optional<Ints>(std::move(values));
  }
  if (!context.has_input(index)) return std::optional<Ints>();
  ASSIGN_OR_RETURN(Ints values, ReadConstantInts(context, index, name));
  return std::optional<Ints>(std::move(values));
}

// Resolves axes against `rank`, rejecting out-of-range and repeated ones.
absl::StatusOr<Ints> NormalizeAxes(std::span<const int64_t> axes, int64_t rank,
                                   std::string_view what) {
  Ints normalized;
  std::vector<bool> seen(static_cast<size_t>(rank), false);
  for (int64_t axis : axes) {
    ASSIGN_OR_RETURN(int64_t n,
                     NormalizeAxis(axis, rank, StrCat(what, " entry")));
    if (seen[n]) {
      return InvalidArgument(what, " ", IntsToString(axes), " names axis ", n,
                             " twice");
    }
    seen[n] = true;
    normalized.push_back(n);
  }
  return normalized;
}

absl::Status RequireRankAtLeastOne(const TensorInfo& info,
                                   std::string_view what) {
  if (info.shape.rank() == 0)
    return InvalidArgument(what, " must have rank >= 1, got a scalar");
  return absl::OkStatus();
}

// The shape given by a shape-valued input: non-negative dims within the tensor
// size limit.
absl::Status CheckShapeValues(std::span<const int64_t> dims,
                              std::string_view what) {
  absl::StatusOr<int64_t> count = CheckedNumElements(dims);
  if (!count.ok())
    return InvalidArgument(what, " ", IntsToString(dims), ": ",
                           count.status().message());
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------------------------
// Concat / Split.

absl::StatusOr<PreparedKernel> PrepareConcat(const OpContext& context) {
  if (!context.attrs.Has("axis"))
    return InvalidArgument("attribute 'axis' is required");
  ASSIGN_OR_RETURN(int64_t axis_attr, context.attrs.GetInt("axis", 0));
  const TensorInfo& first = context.inputs[0];
  RETURN_IF_ERROR(RequireRankAtLeastOne(first, "input 0"));
  const int64_t rank = static_cast<int64_t>(first.shape.rank());
  ASSIGN_OR_RETURN(int64_t axis,
                   NormalizeAxis(axis_attr, rank, "attribute 'axis'"));
  const size_t esize = DTypeSize(first.dtype);
  const int64_t inner =
      Product(std::span(first.shape.dims()).subspan(axis + 1));
  const int64_t outer = Product(std::span(first.shape.dims()).first(axis));
  Shape out_shape = first.shape;
  out_shape[axis] = 0;
  Ints chunks;  // bytes per input per outer index
  for (size_t i = 0; i < context.inputs.size(); ++i) {
    const TensorInfo& in = context.inputs[i];
    if (!in.present()) return InvalidArgument("input ", i, " is missing");
    if (in.dtype != first.dtype) {
      return InvalidArgument("input ", i, " has type ", DTypeName(in.dtype),
                             ", input 0 has ", DTypeName(first.dtype));
    }
    bool compatible = static_cast<int64_t>(in.shape.rank()) == rank;
    for (int64_t k = 0; compatible && k < rank; ++k) {
      compatible = k == axis || in.shape[k] == first.shape[k];
    }
    if (!compatible) {
      return InvalidArgument("input ", i, " has shape ", in.shape.ToString(),
                             ", which differs from input 0's ",
                             first.shape.ToString(), " outside axis ", axis);
    }
    out_shape[axis] += in.shape[axis];
    chunks.push_back(in.shape[axis] * inner * static_cast<int64_t>(esize));
  }
  int64_t row_bytes = 0;
  for (int64_t chunk : chunks) row_bytes += chunk;
  auto run = [outer, chunks, row_bytes](std::span<const TensorView> in,
                                        std::span<const TensorView> out,
                                        std::span<std::byte>) -> absl::Status {
    std::byte* dst = out[0].as<std::byte>();
    // Rows (one per outer index) on the intra-op threads; a single row (the
    // channel concatenation of one image) by its inputs.
    auto copy_row = [&](int64_t o, size_t first, size_t end) {
      std::byte* at = dst + o * row_bytes;
      for (size_t i = 0; i < first; ++i) at += chunks[i];
      for (size_t i = first; i < end; ++i) {
        CopyRaw(at, in[i].as<const std::byte>() + o * chunks[i], chunks[i]);
        at += chunks[i];
      }
    };
    constexpr size_t kGrainBytes = size_t{1} << 18;
    if (outer == 1) {
      const size_t grain = row_bytes >= static_cast<int64_t>(2 * kGrainBytes)
                               ? 1
                               : chunks.size();
      ParallelFor(chunks.size(), grain,
                  [&](size_t begin, size_t end) { copy_row(0, begin, end); });
    } else {
      ParallelFor(
          outer,
          std::max<size_t>(1, kGrainBytes / std::max<int64_t>(1, row_bytes)),
          [&](size_t begin, size_t end) {
            for (size_t o = begin; o < end; ++o) {
              copy_row(static_cast<int64_t>(o), 0, chunks.size());
            }
          });
    }
    return absl::OkStatus();
  };
  return Prepared(
      {TensorInfo{first.dtype, std::move(out_shape)}},
      MakeKernel(std::move(run), 0,
                 {{"axis", StrCat(axis)}, {"outer", StrCat(outer)}}));
}

// The size of each output along `axis`: from 'split' (attribute or input 1),
// else num_outputs chunks (opset 18), else equal parts.
absl::StatusOr<Ints> InferSplitSizes(const OpContext& context, int64_t axis,
                                     int64_t dim) {
  const int64_t n = static_cast<int64_t>(context.num_outputs);
  ASSIGN_OR_RETURN(std::optional<Ints> split,
                   IntsFromAttrOrInput(context, "split", 1));
  Ints sizes;
  // An empty list means an equal split, as when it is absent.
  if (split && !split->empty()) {
    if (static_cast<int64_t>(split->size()) != n) {
      return InvalidArgument("'split' ", IntsToString(*split), " has ",
                             split->size(), " entries for ", n, " outputs");
    }
    int64_t sum = 0;
    for (int64_t size : *split) {
      if (size < 0 || size > dim) {
        return InvalidArgument("'split' ", IntsToString(*split),
                               " has invalid size ", size, " for axis ", axis,
                               " of size ", dim);
      }
      sum += size;
    }
    if (sum != dim) {
      return InvalidArgument("'split' ", IntsToString(*split), " sums to ", sum,
                             ", but axis ", axis, " has size ", dim);
    }
    sizes = *split;
  } else if (context.attrs.Has("num_outputs")) {
    // Opset 18: chunks of ceil(dim / n), the last one smaller.
    ASSIGN_OR_RETURN(int64_t num_outputs,
                     context.attrs.GetInt("num_outputs", 0));
    if (num_outputs != n) {
      return InvalidArgument("attribute 'num_outputs' is ", num_outputs,
                             ", but the node has ", n, " outputs");
    }
    const int64_t chunk = (dim + n - 1) / n;
    const int64_t last = dim - chunk * (n - 1);
    if (last < 0) {
      return InvalidArgument("axis ", axis, " of size ", dim,
                             " cannot be split into ", n, " chunks of ", chunk);
    }
    sizes.assign(n - 1, chunk);
    sizes.push_back(last);
  } else {
    if (dim % n != 0) {
      return InvalidArgument(
          "axis ", axis, " of size ", dim, " cannot be split into ", n,
          " equal parts (give 'split' sizes or 'num_outputs')");
    }
    sizes.assign(n, dim / n);
  }
  return sizes;
}

absl::StatusOr<PreparedKernel> PrepareSplit(const OpContext& context) {
  const TensorInfo& input = context.inputs[0];
  RETURN_IF_ERROR(RequireRankAtLeastOne(input, "input"));
  const int64_t rank = static_cast<int64_t>(input.shape.rank());
  ASSIGN_OR_RETURN(int64_t axis_attr, context.attrs.GetInt("axis", 0));
  ASSIGN_OR_RETURN(int64_t axis,
                   NormalizeAxis(axis_attr, rank, "attribute 'axis'"));
  ASSIGN_OR_RETURN(Ints sizes,
                   InferSplitSizes(context, axis, input.shape[axis]));
  const size_t esize = DTypeSize(input.dtype);
  const int64_t inner =
      Product(std::span(input.shape.dims()).subspan(axis + 1));
  const int64_t outer = Product(std::span(input.shape.dims()).first(axis));
  std::vector<TensorInfo> outputs;
  Ints chunks;
  for (int64_t size : sizes) {
    Shape shape = input.shape;
    shape[axis] = size;
    outputs.push_back(TensorInfo{input.dtype, std::move(shape)});
    chunks.push_back(size * inner * static_cast<int64_t>(esize));
  }
  auto run = [outer, chunks](std::span<const TensorView> in,
                             std::span<const TensorView> out,
                             std::span<std::byte>) -> absl::Status {
    const std::byte* src = in[0].as<const std::byte>();
    for (int64_t o = 0; o < outer; ++o) {
      for (size_t i = 0; i < chunks.size(); ++i) {
        CopyRaw(out[i].as<std::byte>() + o * chunks[i], src, chunks[i]);
        src += chunks[i];
      }
    }
    return absl::OkStatus();
  };
  return Prepared(std::move(outputs), MakeKernel(std::move(run)));
}

// ---------------------------------------------------------------------------------------------
// Slice.

// Slice's starts, ends and steps (attributes or inputs 1, 2, 4), lengths
// checked, with the axes they apply to resolved (input 3, else the leading
// ones).
struct SliceArgs {
  Ints starts, ends, axes;
  std::optional<Ints> steps;
};

absl::StatusOr<SliceArgs> ParseSliceArgs(const OpContext& context,
                                         int64_t rank) {
  ASSIGN_OR_RETURN(std::optional<Ints> starts,
                   IntsFromAttrOrInput(context, "starts", 1));
  ASSIGN_OR_RETURN(std::optional<Ints> ends,
                   IntsFromAttrOrInput(context, "ends", 2));
  ASSIGN_OR_RETURN(std::optional<Ints> axes_given,
                   IntsFromAttrOrInput(context, "axes", 3));
  ASSIGN_OR_RETURN(std::optional<Ints> steps,
                   IntsFromAttrOrInput(context, "steps", 4));
  if (!starts) return InvalidArgument("'starts' is required");
  if (!ends) return InvalidArgument("'ends' is required");
  const size_t count = starts->size();
  if (ends->size() != count) {
    return InvalidArgument("'ends' ", IntsToString(*ends), " and 'starts' ",
                           IntsToString(*starts), " differ in length");
  }
  if (axes_given && axes_given->size() != count) {
    return InvalidArgument("'axes' ", IntsToString(*axes_given),
                           " and 'starts' ", IntsToString(*starts),
                           " differ in length");
  }
  if (steps && steps->size() != count) {
    return InvalidArgument("'steps' ", IntsToString(*steps), " and 'starts' ",
                           IntsToString(*starts), " differ in length");
  }
  SliceArgs args{std::move(*starts), std::move(*ends), {}, std::move(steps)};
  if (axes_given) {
    ASSIGN_OR_RETURN(args.axes, NormalizeAxes(*axes_given, rank, "'axes'"));
  } else {
    if (static_cast<int64_t>(count) > rank) {
      return InvalidArgument("'starts' has ", count,
                             " entries for input of rank ", rank);
    }
    for (size_t i = 0; i < count; ++i)
      args.axes.push_back(static_cast<int64_t>(i));
  }
  return args;
}

absl::StatusOr<PreparedKernel> PrepareSlice(const OpContext& context) {
  const TensorInfo& data = context.inputs[0];
  const int64_t rank = static_cast<int64_t>(data.shape.rank());
  ASSIGN_OR_RETURN(SliceArgs args, ParseSliceArgs(context, rank));
  const std::optional<Ints>& steps = args.steps;
  Ints start_of(rank, 0), step_of(rank, 1), out_dims = data.shape.dims();
  for (size_t i = 0; i < args.starts.size(); ++i) {
    const int64_t axis = args.axes[i];
    const int64_t dim = data.shape[axis];
    int64_t step = steps ? (*steps)[i] : 1;
    if (step == 0)
      return InvalidArgument("'steps' entry ", i, " (axis ", axis, ") is 0");
    // Steps beyond the dimension pick at most one element; clamping keeps
    // strides from overflowing.
    step =
        std::clamp(step, -std::max<int64_t>(dim, 1), std::max<int64_t>(dim, 1));
    int64_t start = args.starts[i];
    int64_t end = args.ends[i];
    if (start < 0) start += dim;
    if (end < 0) end += dim;
    int64_t n;
    if (step > 0) {
      start = std::min(std::max<int64_t>(start, 0), dim);
      end = std::min(std::max<int64_t>(end, 0), dim);
      n = end > start ? (end - start - 1) / step + 1 : 0;
    } else {
      start = std::min(std::max<int64_t>(start, 0), dim - 1);
      end = std::min(std::max<int64_t>(end, -1), dim - 1);
      n = start > end ? (start - end - 1) / -step + 1 : 0;
    }
    start_of[axis] = start;
    step_of[axis] = step;
    out_dims[axis] = n;
  }
  const int64_t esize = static_cast<int64_t>(DTypeSize(data.dtype));
  const Ints strides = DenseStrides(data.shape);
  Ints src_strides(rank);
  int64_t base = 0;
  for (int64_t k = 0; k < rank; ++k) {
    src_strides[k] = step_of[k] * strides[k] * esize;
    base += start_of[k] * strides[k] * esize;
  }
  CopyPlan plan = SimplifyCopy(out_dims, src_strides, esize);
  Params params = PlanParams(plan);
  auto run = [plan = std::move(plan), base](
                 std::span<const TensorView> in,
                 std::span<const TensorView> out,
                 std::span<std::byte>) -> absl::Status {
    if (plan.empty) return absl::OkStatus();
    RunCopyPlan(plan, in[0].as<const std::byte>() + base,
                out[0].as<std::byte>());
    return absl::OkStatus();
  };
  return Prepared({TensorInfo{data.dtype, Shape(std::move(out_dims))}},
                  MakeKernel(std::move(run), 0, std::move(params)));
}

// ---------------------------------------------------------------------------------------------
// Gather.

std::string IndexPosition(int64_t flat, const Shape& shape) {
  Ints position(shape.rank());
  for (size_t k = shape.rank(); k-- > 0;) {
    position[k] = flat % shape[k];
    flat /= shape[k];
  }
  return IntsToString(position);
}

absl::StatusOr<PreparedKernel> PrepareGather(const OpContext& context) {
  const TensorInfo& data = context.inputs[0];
  const TensorInfo& indices = context.inputs[1];
  RETURN_IF_ERROR(RequireDType(indices, kIndexTypes, "input 'indices'"));
  RETURN_IF_ERROR(RequireRankAtLeastOne(data, "input 'data'"));
  const int64_t rank = static_cast<int64_t>(data.shape.rank());
  ASSIGN_OR_RETURN(int64_t axis_attr, context.attrs.GetInt("axis", 0));
  ASSIGN_OR_RETURN(int64_t axis,
                   NormalizeAxis(axis_attr, rank, "attribute 'axis'"));
  const std::span<const int64_t> dims(data.shape.dims());
  Ints out_dims(dims.begin(), dims.begin() + axis);
  out_dims.insert(out_dims.end(), indices.shape.dims().begin(),
                  indices.shape.dims().end());
  out_dims.insert(out_dims.end(), dims.begin() + axis + 1, dims.end());
  const int64_t outer = Product(dims.first(axis));
  const int64_t axis_dim = dims[axis];
  const int64_t block = Product(dims.subspan(axis + 1)) *
                        static_cast<int64_t>(DTypeSize(data.dtype));
  auto run = [outer, axis, axis_dim, block, index_type = indices.dtype](
                 std::span<const TensorView> in,
                 std::span<const TensorView> out,
                 std::span<std::byte>) -> absl::Status {
    auto gather = [&]<typename I>() -> absl::Status {
      const I* idx = in[1].as<const I>();
      const int64_t n = in[1].NumElements();
      // Every index is checked before any copy so a bad one never reads out of
      // bounds.
      for (int64_t k = 0; k < n; ++k) {
        const int64_t v = idx[k];
        if (v < -axis_dim || v >= axis_dim) {
          return InvalidArgument("Gather: index ", v, " at position ",
                                 IndexPosition(k, in[1].shape),
                                 " of 'indices' is out of range", " for axis ",
                                 axis, " of size ", axis_dim, " (valid range ",
                                 -axis_dim, "..", axis_dim - 1, ")");
        }
      }
      const std::byte* src = in[0].as<const std::byte>();
      std::byte* dst = out[0].as<std::byte>();
      auto copy_all = [&](auto copy_block) {
        for (int64_t o = 0; o < outer; ++o) {
          const std::byte* base = src + o * axis_dim * block;
          for (int64_t k = 0; k < n; ++k) {
            const int64_t v = idx[k] < 0 ? idx[k] + axis_dim : idx[k];
            copy_block(dst, base + v * block);
            dst += block;
          }
        }
      };
      if (IsElementSize(block)) {
        VisitElementSize(static_cast<size_t>(block), [&]<size_t N>() {
          copy_all(
              [](std::byte* d, const std::byte* s) { std::memcpy(d, s, N); });
        });
      } else {
        copy_all([block](std::byte* d, const std::byte* s) {
          CopyRaw(d, s, block);
        });
      }
      return absl::OkStatus();
    };
    return index_type == DType::kInt64 ? gather.template operator()<int64_t>()
                                       : gather.template operator()<int32_t>();
  };
  Params params = {{"outer", StrCat(outer)},
                   {"axis_dim", StrCat(axis_dim)},
                   {"block_bytes", StrCat(block)}};
  return Prepared({TensorInfo{data.dtype, Shape(std::move(out_dims))}},
                  MakeKernel(std::move(run), 0, std::move(params)));
}

// ---------------------------------------------------------------------------------------------
// Ops whose output is the input's bytes under another shape.

std::unique_ptr<Kernel> AliasCopyKernel() {
  return MakeKernel([](std::span<const TensorView> in,
                       std::span<const TensorView> out,
                       std::span<std::byte>) -> absl::Status {
    CopyAliasable(out[0].data, in[0].data, in[0].ByteSize());
    return absl::OkStatus();
  });
}

absl::StatusOr<PreparedKernel> PrepareReshape(const OpContext& context) {
  const TensorInfo& data = context.inputs[0];
  ASSIGN_OR_RETURN(std::optional<Ints> shape,
                   IntsFromAttrOrInput(context, "shape", 1));
  if (!shape) return InvalidArgument("'shape' is required");
  ASSIGN_OR_RETURN(int64_t allowzero, context.attrs.GetInt("allowzero", 0));
  const std::string requested = IntsToString(*shape);
  Ints dims = *shape;
  std::optional<size_t> infer;
  bool has_zero = false;
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t v = dims[i];
    if (v == -1) {
      if (infer)
        return InvalidArgument("'shape' ", requested, " has more than one -1");
      infer = i;
    } else if (v == 0) {
      has_zero = true;
      if (allowzero == 0) {
        if (i >= data.shape.rank()) {
          return InvalidArgument(
              "'shape' ", requested, " copies input dimension ", i,
              " (0 at that position), but the input has rank ",
              data.shape.rank());
        }
        dims[i] = data.shape[i];
      }
    } else if (v < -1) {
      return InvalidArgument("'shape' ", requested, " has invalid dimension ",
                             v);
    }
  }
  if (allowzero != 0 && has_zero && infer) {
    return InvalidArgument("'shape' ", requested,
                           " has both 0 and -1 with allowzero=1");
  }
  const int64_t total = data.NumElements();
  if (infer) {
    Ints known = dims;
    known.erase(known.begin() + static_cast<int64_t>(*infer));
    absl::StatusOr<int64_t> known_count = CheckedNumElements(known);
    if (!known_count.ok() || *known_count == 0 || total % *known_count != 0) {
      return InvalidArgument("cannot reshape input ", data.ToString(), " to ",
                             requested,
                             ": the -1 dimension cannot be inferred");
    }
    dims[*infer] = total / *known_count;
  }
  absl::StatusOr<int64_t> count = CheckedNumElements(dims);
  if (!count.ok() || *count != total) {
    return InvalidArgument("cannot reshape input ", data.ToString(), " (",
                           total, " elements) to ", requested, " (resolved ",
                           IntsToString(dims), ")");
  }
  return Prepared({TensorInfo{data.dtype, Shape(std::move(dims))}},
                  AliasCopyKernel());
}

absl::StatusOr<PreparedKernel> PrepareFlatten(const OpContext& context) {
  const TensorInfo& input = context.inputs[0];
  const int64_t rank = static_cast<int64_t>(input.shape.rank());
  ASSIGN_OR_RETURN(int64_t axis_attr, context.attrs.GetInt("axis", 1));
  const int64_t axis = axis_attr < 0 ? axis_attr + rank : axis_attr;
  if (axis < 0 || axis > rank) {
    return InvalidArgument("attribute 'axis' ", axis_attr,
                           " is out of range for rank ", rank, " (expected ",
                           -rank, "..", rank, ")");
  }
  const std::span<const int64_t> dims(input.shape.dims());
  Shape out_shape{Product(dims.first(axis)), Product(dims.subspan(axis))};
  return Prepared({TensorInfo{input.dtype, std::move(out_shape)}},
                  AliasCopyKernel());
}

absl::StatusOr<PreparedKernel> PrepareIdentity(const OpContext& context) {
  return Prepared({context.inputs[0]}, AliasCopyKernel());
}

absl::StatusOr<PreparedKernel> PrepareSqueeze(const OpContext& context) {
  const TensorInfo& input = context.inputs[0];
  const int64_t rank = static_cast<int64_t>(input.shape.rank());
  ASSIGN_OR_RETURN(std::optional<Ints> axes_given,
                   IntsFromAttrOrInput(context, "axes", 1));
  std::vector<bool> drop(rank, false);
  // An empty axes list squeezes every size-1 axis, as when it is absent.
  if (axes_given && !axes_given->empty()) {
    ASSIGN_OR_RETURN(Ints axes, NormalizeAxes(*axes_given, rank, "'axes'"));
    for (int64_t axis : axes) {
      if (input.shape[axis] != 1) {
        return InvalidArgument("cannot squeeze axis ", axis, " of input ",
                               input.ToString(), ": its size is ",
                               input.shape[axis], ", not 1");
      }
      drop[axis] = true;
    }
  } else {
    for (int64_t k = 0; k < rank; ++k) drop[k] = input.shape[k] == 1;
  }
  Ints dims;
  for (int64_t k = 0; k < rank; ++k) {
    if (!drop[k]) dims.push_back(input.shape[k]);
  }
  return Prepared({TensorInfo{input.dtype, Shape(std::move(dims))}},
                  AliasCopyKernel());
}

absl::StatusOr<PreparedKernel> PrepareUnsqueeze(const OpContext& context) {
  const TensorInfo& input = context.inputs[0];
  ASSIGN_OR_RETURN(std::optional<Ints> axes_given,
                   IntsFromAttrOrInput(context, "axes", 1));
  if (!axes_given) return InvalidArgument("'axes' is required");
  const int64_t out_rank =
      static_cast<int64_t>(input.shape.rank() + axes_given->size());
  ASSIGN_OR_RETURN(Ints axes, NormalizeAxes(*axes_given, out_rank, "'axes'"));
  std::vector<bool> inserted(out_rank, false);
  for (int64_t axis : axes) inserted[axis] = true;
  Ints dims;
  size_t next = 0;
  for (int64_t k = 0; k < out_rank; ++k)
    dims.push_back(inserted[k] ? 1 : input.shape[next++]);
  return Prepared({TensorInfo{input.dtype, Shape(std::move(dims))}},
                  AliasCopyKernel());
}

// ---------------------------------------------------------------------------------------------
// Transpose.

absl::StatusOr<PreparedKernel> PrepareTranspose(const OpContext& context) {
  const TensorInfo& input = context.inputs[0];
  const int64_t rank = static_cast<int64_t>(input.shape.rank());
  Ints perm;
  if (context.attrs.Has("perm")) {
    ASSIGN_OR_RETURN(perm, context.attrs.GetInts("perm"));
    if (static_cast<int64_t>(perm.size()) != rank) {
      return InvalidArgument("attribute 'perm' ", IntsToString(perm), " has ",
                             perm.size(), " entries for input of rank ", rank);
    }
    std::vector<bool> seen(rank, false);
    for (int64_t axis : perm) {
      if (axis < 0 || axis >= rank || seen[axis]) {
        return InvalidArgument("attribute 'perm' ", IntsToString(perm),
                               " is not a permutation of 0..", rank - 1);
      }
      seen[axis] = true;
    }
  } else {
    for (int64_t k = rank; k-- > 0;) perm.push_back(k);
  }
  const int64_t esize = static_cast<int64_t>(DTypeSize(input.dtype));
  const Ints strides = DenseStrides(input.shape);
  Ints out_dims(rank), src_strides(rank);
  for (int64_t k = 0; k < rank; ++k) {
    out_dims[k] = input.shape[perm[k]];
    src_strides[k] = strides[perm[k]] * esize;
  }
  CopyPlan plan = SimplifyCopy(out_dims, src_strides, esize);
  Params params = PlanParams(plan);
  auto run = [plan = std::move(plan)](std::span<const TensorView> in,
                                      std::span<const TensorView> out,
                                      std::span<std::byte>) -> absl::Status {
    RunCopyPlan(plan, in[0].as<const std::byte>(), out[0].as<std::byte>());
    return absl::OkStatus();
  };
  return Prepared({TensorInfo{input.dtype, Shape(std::move(out_dims))}},
                  MakeKernel(std::move(run), 0, std::move(params)));
}

// ---------------------------------------------------------------------------------------------
// Pad.

enum class PadMode { kConstant, kReflect, kEdge, kWrap };

// Position in an axis of length n (> 0) that padding position `rel` (any
// integer) reads.
int64_t PadSource(PadMode mode, int64_t rel, int64_t n) {
  if (rel >= 0 && rel < n) return rel;
  switch (mode) {
    case PadMode::kConstant:
      return -1;
    case PadMode::kEdge:
      return rel < 0 ? 0 : n - 1;
    case PadMode::kWrap: {
      const int64_t r = rel % n;
      return r < 0 ? r + n : r;
    }
    case PadMode::kReflect: {
      if (n == 1) return 0;
      const int64_t period = 2 * (n - 1);
      int64_t r = rel % period;
      if (r < 0) r += period;
      return r >= n ? period - r : r;
    }
  }
  return -1;
}

// Bytes of a scalar of `dtype` holding `value`.
std::array<std::byte, 8> ScalarBytes(DType dtype, double value) {
  std::array<std::byte, 8> bytes{};
  VisitDType(dtype, [&]<typename T>() {
    T typed;
    if constexpr (std::is_same_v<T, bool>) {
      typed = value != 0.0;
    } else {
      typed = Store<T>(static_cast<ComputeType<T>>(value));
    }
    std::memcpy(bytes.data(), &typed, sizeof(T));
  });
  return bytes;
}

// What a prepared Pad copies where: per output axis the source position (or
// -1 for the constant), and the innermost stretch copied verbatim.
struct PadPlan {
  int64_t rank = 0, esize = 0;
  Ints out_dims, strides;
  std::vector<Ints> maps;
  int64_t mid_begin = 0, mid_end = 0, mid_src = 0;
  std::array<std::byte, 8> constant_bytes{};
  bool constant_from_input = false;  // input 2, read at run time
};

absl::Status RunPad(const PadPlan& p, std::span<const TensorView> in,
                    std::span<const TensorView> out) {
  std::array<std::byte, 8> value = p.constant_bytes;
  if (p.constant_from_input) std::memcpy(value.data(), in[2].data, p.esize);
  const std::byte* src = in[0].as<const std::byte>();
  std::byte* dst = out[0].as<std::byte>();
  if (out[0].NumElements() == 0) return absl::OkStatus();
  if (p.rank == 0) {
    CopyRaw(dst, src, p.esize);
    return absl::OkStatus();
  }
  VisitElementSize(static_cast<size_t>(p.esize), [&]<size_t N>() {
    constexpr int64_t kN = N;
    const size_t last = static_cast<size_t>(p.rank - 1);
    const Ints& row_map = p.maps[last];
    const int64_t row = p.out_dims[last];
    std::vector<int64_t> counter(last, 0);
    // partial[k]: byte offset selected by axes < k, or -1 once one of them
    // reads the constant.
    std::vector<int64_t> partial(last + 1, 0);
    auto refresh = [&](size_t from) {
      for (size_t k = from; k < last; ++k) {
        const int64_t m = p.maps[k][counter[k]];
        partial[k + 1] =
            partial[k] < 0 || m < 0 ? -1 : partial[k] + m * p.strides[k] * kN;
      }
    };
    refresh(0);
    while (true) {
      if (partial[last] < 0) {
        for (int64_t j = 0; j < row; ++j)
          std::memcpy(dst + j * N, value.data(), N);
      } else {
        const std::byte* base = src + partial[last];
        auto element = [&](int64_t j) {
          const int64_t m = row_map[j];
          std::memcpy(dst + j * N, m < 0 ? value.data() : base + m * N, N);
        };
        for (int64_t j = 0; j < p.mid_begin && j < row; ++j) element(j);
        CopyRaw(dst + p.mid_begin * N, base + p.mid_src,
                (p.mid_end - p.mid_begin) * N);
        for (int64_t j = p.mid_end; j < row; ++j) element(j);
      }
      dst += row * N;
      size_t axis = last;
      while (axis-- > 0) {
        if (++counter[axis] < p.out_dims[axis]) break;
        counter[axis] = 0;
      }
      if (axis == static_cast<size_t>(-1)) return;
      refresh(axis);
    }
  });
  return absl::OkStatus();
}

absl::StatusOr<PadMode> ParsePadMode(std::string_view name) {
  if (name == "constant") return PadMode::kConstant;
  if (name == "reflect") return PadMode::kReflect;
  if (name == "edge") return PadMode::kEdge;
  if (name == "wrap") return PadMode::kWrap;
  return InvalidArgument(
      "attribute 'mode' must be constant, reflect, edge or wrap, got \"", name,
      "\"");
}

// Pad amounts per axis of the data, from the 'pads' attribute (opset <= 10)
// or inputs 1 and 3 (pads, axes).
struct PadAmounts {
  Ints pads;        // as given, for messages
  Ints begin, end;  // per data axis; negative values crop
};

absl::StatusOr<PadAmounts> ReadPadAmounts(const OpContext& context,
                                          int64_t rank) {
  ASSIGN_OR_RETURN(std::optional<Ints> pads,
                   IntsFromAttrOrInput(context, "pads", 1));
  if (!pads) return InvalidArgument("'pads' is required");
  Ints axes;
  if (!context.attrs.Has("pads") && context.has_input(3)) {
    ASSIGN_OR_RETURN(Ints given, ReadConstantInts(context, 3, "axes"));
    ASSIGN_OR_RETURN(axes, NormalizeAxes(given, rank, "'axes'"));
  } else {
    for (int64_t k = 0; k < rank; ++k) axes.push_back(k);
  }
  if (pads->size() != 2 * axes.size()) {
    return InvalidArgument("'pads' ", IntsToString(*pads), " has ",
                           pads->size(), " entries; expected ", 2 * axes.size(),
                           " (begin and end for ", axes.size(), " axes)");
  }
  PadAmounts amounts{*pads, Ints(rank, 0), Ints(rank, 0)};
  for (size_t i = 0; i < axes.size(); ++i) {
    amounts.begin[axes[i]] = (*pads)[i];
    amounts.end[axes[i]] = (*pads)[i + axes.size()];
  }
  return amounts;
}

// Pad's constant: from the 'value' attribute (opset <= 10) or input 2, which
// is read at run time (it need not be known before execution).
struct PadConstant {
  std::array<std::byte, 8> bytes{};
  bool from_input = false;
};

absl::StatusOr<PadConstant> ReadPadConstant(const OpContext& context) {
  const TensorInfo& data = context.inputs[0];
  PadConstant constant;
  if (context.attrs.Has("value")) {
    ASSIGN_OR_RETURN(float value, context.attrs.GetFloat("value", 0));
    constant.bytes = ScalarBytes(data.dtype, value);
  } else if (context.has_input(2) && !context.attrs.Has("pads")) {
    const TensorInfo& value = context.inputs[2];
    if (value.dtype != data.dtype) {
      return InvalidArgument("input 'constant_value' has type ",
                             DTypeName(value.dtype), ", data has ",
                             DTypeName(data.dtype));
    }
    if (value.NumElements() != 1) {
      return InvalidArgument(
          "input 'constant_value' must hold one value, got shape ",
          value.shape.ToString());
    }
    constant.from_input = true;
  }
  return constant;
}

// Per axis: the output size, and the part of the input left after cropping
// (its first position and length).
struct PadShape {
  Ints out_dims, lo, len;
};

// Negative pads crop the input first; positive ones then pad what is left.
absl::StatusOr<PadShape> InferPadShape(const Shape& shape,
                                       const PadAmounts& amounts, PadMode mode,
                                       std::string_view mode_name) {
  const int64_t rank = static_cast<int64_t>(shape.rank());
  const Ints& begin = amounts.begin;
  const Ints& end = amounts.end;
  const Ints* pads = &amounts.pads;
  PadShape s{Ints(rank), Ints(rank), Ints(rank)};
  for (int64_t k = 0; k < rank; ++k) {
    const int64_t dim = shape[k];
    for (int64_t pad : {begin[k], end[k]}) {
      if (pad > kMaxTensorElements || pad < -kMaxTensorElements) {
        return InvalidArgument("'pads' ", IntsToString(*pads),
                               " has out-of-range value ", pad);
      }
    }
    s.lo[k] = std::max<int64_t>(0, -begin[k]);
    s.len[k] = dim - s.lo[k] - std::max<int64_t>(0, -end[k]);
    s.out_dims[k] = dim + begin[k] + end[k];
    if (s.out_dims[k] < 0) {
      return InvalidArgument("'pads' ", IntsToString(*pads), " crop axis ", k,
                             " of size ", dim, " to a negative size ",
                             s.out_dims[k]);
    }
    if (s.len[k] < 0) s.len[k] = 0;
    if (mode != PadMode::kConstant && s.len[k] == 0 && s.out_dims[k] > 0) {
      return InvalidArgument("mode '", mode_name, "' cannot pad axis ", k,
                             ", which is empty after cropping");
    }
  }
  RETURN_IF_ERROR(CheckShapeValues(s.out_dims, "output shape"));
  return s;
}

absl::StatusOr<PreparedKernel> PreparePad(const OpContext& context) {
  const TensorInfo& data = context.inputs[0];
  const int64_t rank = static_cast<int64_t>(data.shape.rank());
  ASSIGN_OR_RETURN(std::string mode_name,
                   context.attrs.GetString("mode", "constant"));
  ASSIGN_OR_RETURN(PadMode mode, ParsePadMode(mode_name));
  ASSIGN_OR_RETURN(PadAmounts amounts, ReadPadAmounts(context, rank));
  ASSIGN_OR_RETURN(PadConstant constant, ReadPadConstant(context));
  ASSIGN_OR_RETURN(PadShape shape,
                   InferPadShape(data.shape, amounts, mode, mode_name));
  const Ints& begin = amounts.begin;
  const Ints& out_dims = shape.out_dims;
  const Ints& lo = shape.lo;
  const Ints& len = shape.len;
  const int64_t esize = static_cast<int64_t>(DTypeSize(data.dtype));
  const Ints strides = DenseStrides(data.shape);
  // Per axis: output position -> input position, or -1 for the constant.
  std::vector<Ints> maps(rank);
  for (int64_t k = 0; k < rank; ++k) {
    const int64_t pad_begin = std::max<int64_t>(0, begin[k]);
    maps[k].resize(out_dims[k]);
    for (int64_t o = 0; o < out_dims[k]; ++o) {
      const int64_t s = PadSource(mode, o - pad_begin, len[k]);
      maps[k][o] = s < 0 ? -1 : lo[k] + s;
    }
  }
  // Innermost axis: the stretch copied verbatim from the input.
  const int64_t mid_begin =
      rank > 0 ? std::max<int64_t>(0, begin[rank - 1]) : 0;
  const int64_t mid_end = rank > 0 ? mid_begin + len[rank - 1] : 0;
  const int64_t mid_src = rank > 0 ? lo[rank - 1] * esize : 0;
  PadPlan plan{
      rank,      esize,   out_dims, strides,        std::move(maps),
      mid_begin, mid_end, mid_src,  constant.bytes, constant.from_input};
  auto run = [plan = std::move(plan)](std::span<const TensorView> in,
                                      std::span<const TensorView> out,
                                      std::span<std::byte>) {
    return RunPad(plan, in, out);
  };
  return Prepared({TensorInfo{data.dtype, Shape(out_dims)}},
                  MakeKernel(std::move(run)));
}

// ---------------------------------------------------------------------------------------------
// Shape, Size, Constant, ConstantOfShape, Range: outputs known at prepare time.

// A kernel that writes fixed bytes.
std::unique_ptr<Kernel> ConstantKernel(std::shared_ptr<const Tensor> value) {
  return MakeKernel(
      [value = std::move(value)](std::span<const TensorView>,
                                 std::span<const TensorView> out,
                                 std::span<std::byte>) -> absl::Status {
        CopyRaw(out[0].as<std::byte>(),
                static_cast<const std::byte*>(value->data()),
                static_cast<int64_t>(value->ByteSize()));
        return absl::OkStatus();
      });
}

std::shared_ptr<const Tensor> Int64Tensor(Shape shape,
                                          std::span<const int64_t> values) {
  auto tensor = std::make_shared<Tensor>(DType::kInt64, std::move(shape));
  if (!values.empty())
    std::memcpy(tensor->data(), values.data(), values.size_bytes());
  return tensor;
}

absl::StatusOr<PreparedKernel> PrepareShape(const OpContext& context) {
  const Shape& shape = context.inputs[0].shape;
  const int64_t rank = static_cast<int64_t>(shape.rank());
  ASSIGN_OR_RETURN(int64_t start, context.attrs.GetInt("start", 0));
  ASSIGN_OR_RETURN(int64_t end, context.attrs.GetInt("end", rank));
  if (start < 0) start += rank;
  if (end < 0) end += rank;
  start = std::clamp<int64_t>(start, 0, rank);
  end = std::clamp<int64_t>(end, 0, rank);
  const std::span<const int64_t> dims(shape.dims());
  const std::span<const int64_t> selected =
      end > start ? dims.subspan(start, end - start)
                  : std::span<const int64_t>();
  std::shared_ptr<const Tensor> value =
      Int64Tensor(Shape{static_cast<int64_t>(selected.size())}, selected);
  return Prepared({value->info()}, ConstantKernel(value));
}

absl::StatusOr<PreparedKernel> PrepareSize(const OpContext& context) {
  const int64_t count = context.inputs[0].NumElements();
  std::shared_ptr<const Tensor> value =
      Int64Tensor(Shape{}, std::span(&count, 1));
  return Prepared({value->info()}, ConstantKernel(value));
}

absl::StatusOr<PreparedKernel> PrepareConstant(const OpContext& context) {
  static constexpr std::string_view kSupported[] = {
      "value", "value_float", "value_floats", "value_int", "value_ints"};
  static constexpr std::string_view kUnsupported[] = {
      "sparse_value", "value_string", "value_strings"};
  for (std::string_view name : kUnsupported) {
    if (context.attrs.Has(name)) {
      return Unimplemented("attribute '", name,
                           "' is not supported (no sparse or string tensors)");
    }
  }
  std::vector<std::string_view> given;
  for (std::string_view name : kSupported) {
    if (context.attrs.Has(name)) given.push_back(name);
  }
  if (given.size() != 1) {
    return InvalidArgument(
        "exactly one of value, value_float, value_floats, value_int, "
        "value_ints must be set, got ",
        given.empty() ? "none" : StrJoin(given, ", "));
  }
  std::shared_ptr<const Tensor> value;
  if (given[0] == "value") {
    ASSIGN_OR_RETURN(value, context.attrs.GetTensor("value"));
    if (value == nullptr)
      return InvalidArgument("attribute 'value' holds no tensor");
  } else if (given[0] == "value_float" || given[0] == "value_floats") {
    std::vector<float> floats;
    Shape shape;
    if (given[0] == "value_float") {
      ASSIGN_OR_RETURN(float f, context.attrs.GetFloat("value_float", 0));
      floats.push_back(f);
    } else {
      ASSIGN_OR_RETURN(floats, context.attrs.GetFloats("value_floats"));
      shape = Shape{static_cast<int64_t>(floats.size())};
    }
    auto tensor = std::make_shared<Tensor>(DType::kFloat32, std::move(shape));
    if (!floats.empty())
      std::memcpy(tensor->data(), floats.data(), floats.size() * sizeof(float));
    value = std::move(tensor);
  } else if (given[0] == "value_int") {
    ASSIGN_OR_RETURN(int64_t i, context.attrs.GetInt("value_int", 0));
    value = Int64Tensor(Shape{}, std::span(&i, 1));
  } else {
    ASSIGN_OR_RETURN(Ints ints, context.attrs.GetInts("value_ints"));
    value = Int64Tensor(Shape{static_cast<int64_t>(ints.size())}, ints);
  }
  return Prepared({value->info()}, ConstantKernel(value));
}

absl::StatusOr<PreparedKernel> PrepareConstantOfShape(
    const OpContext& context) {
  ASSIGN_OR_RETURN(Ints dims, ReadConstantInts(context, 0, "input"));
  RETURN_IF_ERROR(CheckShapeValues(dims, "input 'input' (the output shape)"));
  ASSIGN_OR_RETURN(std::shared_ptr<const Tensor> value,
                   context.attrs.GetTensor("value"));
  DType dtype = DType::kFloat32;
  std::array<std::byte, 8> pattern{};
  if (value != nullptr) {
    if (value->NumElements() != 1) {
      return InvalidArgument("attribute 'value' must hold one value, got ",
                             value->info().ToString());
    }
    dtype = value->dtype();
    std::memcpy(pattern.data(), value->data(), DTypeSize(dtype));
  }
  const size_t esize = DTypeSize(dtype);
  auto run = [pattern, esize](std::span<const TensorView>,
                              std::span<const TensorView> out,
                              std::span<std::byte>) -> absl::Status {
    CopyBlocks(out[0].as<std::byte>(), pattern.data(), out[0].NumElements(), 0,
               static_cast<int64_t>(esize));
    return absl::OkStatus();
  };
  return Prepared({TensorInfo{dtype, Shape(std::move(dims))}},
                  MakeKernel(std::move(run)));
}

absl::StatusOr<PreparedKernel> PrepareRange(const OpContext& context) {
  const DType dtype = context.inputs[0].dtype;
  RETURN_IF_ERROR(
      RequireDType(context.inputs[0], kNumericTypes, "input 'start'"));
  static constexpr std::string_view kNames[] = {"start", "limit", "delta"};
  for (size_t i = 0; i < 3; ++i) {
    const TensorInfo& info = context.inputs[i];
    if (info.dtype != dtype) {
      return InvalidArgument("input '", kNames[i], "' has type ",
                             DTypeName(info.dtype), ", 'start' has ",
                             DTypeName(dtype));
    }
    if (info.NumElements() != 1) {
      return InvalidArgument("input '", kNames[i],
                             "' must be a scalar, got shape ",
                             info.shape.ToString());
    }
    if (context.constant(i) == nullptr) {
      return Unimplemented(
          "input '", kNames[i],
          "' must be known before execution (an initializer or constant); "
          "dynamic shapes are not supported");
    }
  }
  return VisitDType(dtype, [&]<typename T>() -> absl::StatusOr<PreparedKernel> {
    if constexpr (std::is_same_v<T, bool>) {
      return InvalidArgument("bool is not supported");
    } else {
      using C = ComputeType<T>;
      const C start = Load(*context.constant(0)->template as<const T>());
      const C limit = Load(*context.constant(1)->template as<const T>());
      const C delta = Load(*context.constant(2)->template as<const T>());
      if (delta == C(0)) return InvalidArgument("input 'delta' is 0");
      int64_t count = 0;
      if constexpr (std::is_floating_point_v<C>) {
        const double n = std::ceil(
            (static_cast<double>(limit) - static_cast<double>(start)) /
            static_cast<double>(delta));
        if (std::isnan(n) || n > static_cast<double>(kMaxTensorElements)) {
          return InvalidArgument("range (", start, ", ", limit, ", ", delta,
                                 ") has too many elements");
        }
        count = n > 0 ? static_cast<int64_t>(n) : 0;
      } else {
        const __int128 span = static_cast<__int128>(limit) - start;
        const __int128 step = delta;
        __int128 n = 0;
        if ((span > 0 && step > 0) || (span < 0 && step < 0)) {
          n = (span + step + (step > 0 ? -1 : 1)) / step;
        }
        if (n > kMaxTensorElements) {
          return InvalidArgument("range (", static_cast<int64_t>(start), ", ",
                                 static_cast<int64_t>(limit), ", ",
                                 static_cast<int64_t>(delta),
                                 ") has too many elements");
        }
        count = static_cast<int64_t>(n);
      }
      auto run = [start, delta](std::span<const TensorView>,
                                std::span<const TensorView> out,
                                std::span<std::byte>) -> absl::Status {
        T* y = out[0].as<T>();
        const int64_t n = out[0].NumElements();
        for (int64_t i = 0; i < n; ++i) {
          y[i] = Store<T>(static_cast<C>(start + static_cast<C>(i) * delta));
        }
        return absl::OkStatus();
      };
      return Prepared({TensorInfo{dtype, Shape{count}}},
                      MakeKernel(std::move(run)));
    }
  });
}

// ---------------------------------------------------------------------------------------------
// Expand, Tile: strided copies with broadcast (stride 0) source axes.

std::unique_ptr<Kernel> CopyPlanKernel(CopyPlan plan) {
  Params params = PlanParams(plan);
  return MakeKernel(
      [plan = std::move(plan)](std::span<const TensorView> in,
                               std::span<const TensorView> out,
                               std::span<std::byte>) -> absl::Status {
        RunCopyPlan(plan, in[0].as<const std::byte>(), out[0].as<std::byte>());
        return absl::OkStatus();
      },
      0, std::move(params));
}

absl::StatusOr<PreparedKernel> PrepareExpand(const OpContext& context) {
  const TensorInfo& input = context.inputs[0];
  ASSIGN_OR_RETURN(Ints shape, ReadConstantInts(context, 1, "shape"));
  RETURN_IF_ERROR(CheckShapeValues(shape, "input 'shape'"));
  const Shape shapes[] = {input.shape, Shape(shape)};
  ASSIGN_OR_RETURN(Shape out_shape, BroadcastShapes(shapes));
  RETURN_IF_ERROR(CheckShapeValues(out_shape.dims(), "output shape"));
  const size_t rank = out_shape.rank();
  const size_t offset = rank - input.shape.rank();
  const int64_t esize = static_cast<int64_t>(DTypeSize(input.dtype));
  const Ints strides = DenseStrides(input.shape);
  Ints src_strides(rank, 0);
  for (size_t k = offset; k < rank; ++k) {
    if (input.shape[k - offset] != 1)
      src_strides[k] = strides[k - offset] * esize;
  }
  CopyPlan plan = SimplifyCopy(out_shape.dims(), src_strides, esize);
  return Prepared({TensorInfo{input.dtype, std::move(out_shape)}},
                  CopyPlanKernel(std::move(plan)));
}

absl::StatusOr<PreparedKernel> PrepareTile(const OpContext& context) {
  const TensorInfo& input = context.inputs[0];
  const size_t rank = input.shape.rank();
  ASSIGN_OR_RETURN(Ints repeats, ReadConstantInts(context, 1, "repeats"));
  if (repeats.size() != rank) {
    return InvalidArgument("input 'repeats' ", IntsToString(repeats), " has ",
                           repeats.size(), " entries for input of rank ", rank);
  }
  // Tiling axis k is broadcasting [1, d] to [r, d]: the output row-major over
  // (r, d) is the tiled axis of length r * d.
  Ints dims, src_strides;
  const int64_t esize = static_cast<int64_t>(DTypeSize(input.dtype));
  const Ints strides = DenseStrides(input.shape);
  Ints out_dims(rank);
  for (size_t k = 0; k < rank; ++k) {
    if (repeats[k] < 0) {
      return InvalidArgument("input 'repeats' ", IntsToString(repeats),
                             " has negative entry ", repeats[k]);
    }
    dims.push_back(repeats[k]);
    dims.push_back(input.shape[k]);
    src_strides.push_back(0);
    src_strides.push_back(strides[k] * esize);
  }
  RETURN_IF_ERROR(CheckShapeValues(dims, "tiled shape"));
  for (size_t k = 0; k < rank; ++k) out_dims[k] = repeats[k] * input.shape[k];
  CopyPlan plan = SimplifyCopy(dims, src_strides, esize);
  return Prepared({TensorInfo{input.dtype, Shape(std::move(out_dims))}},
                  CopyPlanKernel(std::move(plan)));
}

}  // namespace

absl::Status RegisterTensorOps(OpRegistry& registry) {
  constexpr int kMany = 1 << 16;
  return registry.RegisterAll({
      {"Concat", 1, kMany, 1, 1, PrepareConcat},
      {"Split", 1, 2, 1, kMany, PrepareSplit},
      {"Slice", 1, 5, 1, 1, PrepareSlice},
      {"Gather", 2, 2, 1, 1, PrepareGather},
      {"Reshape", 1, 2, 1, 1, PrepareReshape, true},
      {"Flatten", 1, 1, 1, 1, PrepareFlatten, true},
      {"Transpose", 1, 1, 1, 1, PrepareTranspose},
      {"Squeeze", 1, 2, 1, 1, PrepareSqueeze, true},
      {"Unsqueeze", 1, 2, 1, 1, PrepareUnsqueeze, true},
      {"Identity", 1, 1, 1, 1, PrepareIdentity, true},
      {"Pad", 1, 4, 1, 1, PreparePad},
      {"Shape", 1, 1, 1, 1, PrepareShape},
      {"Size", 1, 1, 1, 1, PrepareSize},
      {"Constant", 0, 0, 1, 1, PrepareConstant},
      {"ConstantOfShape", 1, 1, 1, 1, PrepareConstantOfShape},
      {"Expand", 2, 2, 1, 1, PrepareExpand},
      {"Tile", 2, 2, 1, 1, PrepareTile},
      {"Range", 3, 3, 1, 1, PrepareRange},
  });
}

}  // namespace acldump
