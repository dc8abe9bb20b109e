// Depthwise 2-D convolution (one filter per channel) on NCHW data, the
// MobileNet/EfficientNet workhorse: it reads and writes the caller's layout,
// where oneDNN's depthwise kernel needs blocked copies made on every call.
// Planes are split over the intra-op threads; every output element sums its
// taps in the same order whatever the split.
#ifndef ACLDUMP_KERNELS_DEPTHWISE_CONV_H_
#define ACLDUMP_KERNELS_DEPTHWISE_CONV_H_

#include <cstdint>

#include "kernels/gemm.h"

namespace acldump {

struct DepthwiseGeometry {
  int64_t planes = 0;  // batch * channels
  int64_t channels = 0;
  int64_t in_h = 0, in_w = 0, out_h = 0, out_w = 0;
  int64_t kernel_h = 0, kernel_w = 0;
  int64_t stride_h = 1, stride_w = 1;  // stride_w 1 or 2
  int64_t pad_top = 0, pad_left = 0;
};

// Whether DepthwiseConv2D runs this geometry (stride_w 1 or 2, kernels up to
// 7x7).
bool DepthwiseSupported(const DepthwiseGeometry& g);

// y[p] = bias[c] + sum over taps of w[c] * x[p] for every plane p (channel
// c = p % channels), zero padding, then the epilogue's clamp. bias may be
// null.
void DepthwiseConv2D(const DepthwiseGeometry& g, const float* x, const float* w,
                     const float* bias, float* y, const GemmEpilogue& epilogue);

}  // namespace acldump

#endif  // ACLDUMP_KERNELS_DEPTHWISE_CONV_H_
