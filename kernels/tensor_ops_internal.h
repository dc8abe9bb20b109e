// What the data-movement operators (the tensor_ops family, one .cc per group
// of ops) share: byte copies, strided copy plans and attribute checks.
// Internal to that family.
#ifndef ACLDUMP_KERNELS_TENSOR_OPS_INTERNAL_H_
#define ACLDUMP_KERNELS_TENSOR_OPS_INTERNAL_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "kernels/op_registry.h"

namespace acldump::tensor_ops {

using Ints = std::vector<int64_t>;
using Params = std::vector<std::pair<std::string, std::string>>;

// Registration of each group: Concat Split Slice Gather; Reshape Flatten
// Transpose Squeeze Unsqueeze Identity Shape Size Constant ConstantOfShape
// Range; Pad Expand Tile.
absl::Status RegisterSliceOps(OpRegistry& registry);
absl::Status RegisterShapeOps(OpRegistry& registry);
absl::Status RegisterPadOps(OpRegistry& registry);

// ---------------------------------------------------------------------------------------------
// Copy machinery.

// The runtime may hand an aliasing op the same buffer as input and output.
void CopyAliasable(void* dst, const void* src, size_t bytes);

void CopyRaw(std::byte* dst, const std::byte* src, int64_t bytes);

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

bool IsElementSize(int64_t bytes);

// Copies `count` blocks of `block` bytes found `src_stride` bytes apart (0 =
// repeat one block) into consecutive blocks of dst.
void CopyBlocks(std::byte* dst, const std::byte* src, int64_t count,
                int64_t src_stride, int64_t block);

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
                      std::span<const int64_t> src_strides, int64_t block);

Params PlanParams(const CopyPlan& plan);

void RunCopyPlan(const CopyPlan& plan, const std::byte* src, std::byte* dst);

// ---------------------------------------------------------------------------------------------
// Shared validation.

int64_t Product(std::span<const int64_t> dims);

std::string IntsToString(std::span<const int64_t> values);

// An int list from the attribute when present (older opsets), else from input
// `index` (newer opsets), which must be known before execution. nullopt when
// neither is given.
absl::StatusOr<std::optional<Ints>> IntsFromAttrOrInput(
    const OpContext& context, std::string_view name, size_t index);

// Resolves axes against `rank`, rejecting out-of-range and repeated ones.
absl::StatusOr<Ints> NormalizeAxes(std::span<const int64_t> axes, int64_t rank,
                                   std::string_view what);

absl::Status RequireRankAtLeastOne(const TensorInfo& info,
                                   std::string_view what);

// The shape given by a shape-valued input: non-negative dims within the tensor
// size limit.
absl::Status CheckShapeValues(std::span<const int64_t> dims,
                              std::string_view what);

}  // namespace acldump::tensor_ops

#endif  // ACLDUMP_KERNELS_TENSOR_OPS_INTERNAL_H_
