// What Conv (conv.cc) and ConvTranspose (conv_transpose.cc) share: operand
// and attribute checks. Internal to the conv family.
#ifndef ACLDUMP_KERNELS_CONV_INTERNAL_H_
#define ACLDUMP_KERNELS_CONV_INTERNAL_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "kernels/op_registry.h"

namespace acldump::conv {

absl::Status RegisterConvTransposeOps(OpRegistry& registry);

// An attribute list of `expected` values.
absl::Status CheckLength(const std::vector<int64_t>& values, size_t expected,
                         std::string_view name);

// Conv and ConvTranspose: float32 X [N, C, spatial...] with 1 to 3 spatial
// dimensions and W of the same rank.
absl::Status CheckConvOperands(const TensorInfo& x, const TensorInfo& w);

// The optional bias B (input 2): float32 [out_channels].
absl::Status CheckConvBias(const OpContext& context, int64_t out_channels);

// The attributes Conv and ConvTranspose share, with their lengths checked
// (values are checked by each op: their rules differ).
struct ConvAttributes {
  std::vector<int64_t> kernel, strides, dilations, pads;
  std::string auto_pad;
};

absl::StatusOr<ConvAttributes> ReadConvAttributes(const OpContext& context,
                                                  const TensorInfo& w);

}  // namespace acldump::conv

#endif  // ACLDUMP_KERNELS_CONV_INTERNAL_H_
