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
#include "kernels/gemm.h"
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

// The shape of one convolution, from its operands and attributes.
struct ConvGeometry {
  int64_t batch = 0;
  int64_t in_channels = 0;
  int64_t out_channels = 0;
  int64_t group = 1;
  std::vector<int64_t> in_spatial;
  std::vector<int64_t> out_spatial;
  std::vector<int64_t> kernel;
  std::vector<int64_t> strides;
  std::vector<int64_t> dilations;
  std::vector<int64_t> pads_begin;
  // A fused activation: Relu (clamp to [0, +inf]) or Clip, by compares so
  // NaN stays NaN.
  std::string activation;
  bool clamp = false;
  bool hard_swish = false;
  float lo = 0.0f, hi = 0.0f;
  // The converter's Conv + Add: input 3, added before the activation.
  bool residual = false;

  GemmEpilogue Epilogue() const {
    GemmEpilogue e;
    e.clamp = clamp;
    e.lo = lo;
    e.hi = hi;
    e.hard_swish = hard_swish;
    return e;
  }

  int64_t InSpatialSize() const { return Product(in_spatial); }
  int64_t OutSpatialSize() const { return Product(out_spatial); }
  int64_t KernelSize() const { return Product(kernel); }
  static int64_t Product(const std::vector<int64_t>& v) {
    int64_t p = 1;
    for (int64_t x : v) p *= x;
    return p;
  }
};

// Batch, channels and group from X (input 0), W (input 1) and "group".
absl::Status InferConvChannels(const OpContext& context, ConvGeometry& g);
// Output spatial dimensions and leading pads (g.in_spatial set first).
absl::Status InferConvSpatial(const ConvAttributes& attrs, ConvGeometry& g);

// ConvInteger and QLinearConv (conv_integer.cc).
absl::Status RegisterConvIntegerOps(OpRegistry& registry);

}  // namespace acldump::conv

#endif  // ACLDUMP_KERNELS_CONV_INTERNAL_H_
