// 2-D float32 max and average pooling (and 8-bit max pooling) on NCHW planes
// (no dilation), on the widest SIMD target the CPU has (Highway's dynamic
// dispatch). Each output row first combines its window's input rows into one
// padded row, then slides the window along it; the padding (-inf for max, 0 for
// sums) makes every window full. Planes are split over the intra-op threads.
// Every output combines its taps in one order (rows top to bottom, then columns
// left to right), so the bits do not depend on the target or the thread count.
#ifndef ACLDUMP_KERNELS_POOL_2D_H_
#define ACLDUMP_KERNELS_POOL_2D_H_

#include <cstdint>

namespace acldump {

struct Pool2DGeometry {
  int64_t planes = 0;  // batch * channels
  int64_t in_h = 0, in_w = 0, out_h = 0, out_w = 0;
  int64_t kernel_h = 1, kernel_w = 1;
  int64_t stride_h = 1, stride_w = 1;
  // Window (ow, oh) starts at input column ow * stride_w - pad_left, row
  // oh * stride_h - pad_top; pad_bottom and pad_right bound the windows that
  // count_include_pad counts. Every window must hold an input row and column.
  int64_t pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
};

// The maximum of each window; a NaN in the window wins.
void MaxPool2DFloat32(const Pool2DGeometry& g, const float* x, float* y);
// The same on 8-bit values (quantized models pool their bytes).
void MaxPool2DUint8(const Pool2DGeometry& g, const uint8_t* x, uint8_t* y);
void MaxPool2DInt8(const Pool2DGeometry& g, const int8_t* x, int8_t* y);

// The sum of each window's input taps divided by their count, or, with
// count_include_pad, by the count of its taps inside the padded extent.
void AveragePool2DFloat32(const Pool2DGeometry& g, bool count_include_pad,
                          const float* x, float* y);

}  // namespace acldump

#endif  // ACLDUMP_KERNELS_POOL_2D_H_
