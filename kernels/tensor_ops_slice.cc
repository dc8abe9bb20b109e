// Concat, Split, Slice and Gather.
#include <algorithm>
#include <cstring>
#include <optional>

#include "kernels/kernel_util.h"
#include "kernels/tensor_ops_internal.h"

namespace acldump::tensor_ops {
namespace {

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

}  // namespace

absl::Status RegisterSliceOps(OpRegistry& registry) {
  constexpr int kMany = 1 << 16;
  return registry.RegisterAll({
      {"Concat", 1, kMany, 1, 1, PrepareConcat},
      {"Split", 1, 2, 1, kMany, PrepareSplit},
      {"Slice", 1, 5, 1, 1, PrepareSlice},
      {"Gather", 2, 2, 1, 1, PrepareGather},
  });
}

}  // namespace acldump::tensor_ops
