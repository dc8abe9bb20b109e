// Data-movement and shape operators: Concat Split Slice Gather Reshape Flatten
// Transpose Squeeze Unsqueeze Identity Pad Shape Size Constant ConstantOfShape
// Expand Tile Range, in tensor_ops_slice.cc, tensor_ops_shape.cc and
// tensor_ops_pad.cc; here what they share and their registration.
//
// Ops that only move data work on bytes (element size as a compile-time
// constant where it matters), so every dtype shares one instantiation per
// element size.
#include <algorithm>
#include <cstring>

#include "kernels/kernel_util.h"
#include "kernels/op_families.h"
#include "kernels/tensor_ops_internal.h"

namespace acldump {
namespace tensor_ops {

// ---------------------------------------------------------------------------------------------
// Copy machinery.

void CopyAliasable(void* dst, const void* src, size_t bytes) {
  if (bytes == 0 || dst == src) return;
  std::memcpy(dst, src, bytes);
}

void CopyRaw(std::byte* dst, const std::byte* src, int64_t bytes) {
  if (bytes > 0) std::memcpy(dst, src, static_cast<size_t>(bytes));
}

bool IsElementSize(int64_t bytes) {
  return bytes == 1 || bytes == 2 || bytes == 4 || bytes == 8;
}

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

namespace {

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

// Tile edge, in elements, of a transposing copy.
constexpr int64_t kTile = 16;

}  // namespace

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

absl::Status CheckShapeValues(std::span<const int64_t> dims,
                              std::string_view what) {
  absl::StatusOr<int64_t> count = CheckedNumElements(dims);
  if (!count.ok())
    return InvalidArgument(what, " ", IntsToString(dims), ": ",
                           count.status().message());
  return absl::OkStatus();
}

}  // namespace tensor_ops

absl::Status RegisterTensorOps(OpRegistry& registry) {
  RETURN_IF_ERROR(tensor_ops::RegisterSliceOps(registry));
  RETURN_IF_ERROR(tensor_ops::RegisterShapeOps(registry));
  RETURN_IF_ERROR(tensor_ops::RegisterPadOps(registry));
  return absl::OkStatus();
}

}  // namespace acldump
