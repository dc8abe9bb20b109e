#include "kernels/depthwise_conv.h"

#include <algorithm>
#include <vector>

#include "kernels/threading.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/depthwise_conv.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace acldump::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
using D = hn::ScalableTag<float>;

// Output rows interleaved per vector of columns: kRows independent
// multiply-add chains instead of one, which would wait on each FMA's latency.
constexpr int kRowBlock = 4;

// kStride and kKernelW are compile-time so the tap loop unrolls; kKernelW 0
// reads the width from g.
template <int kRows, int kStride, int kKernelW>
HWY_INLINE void Rows(const DepthwiseGeometry& g,
                     const float* HWY_RESTRICT padded, int64_t padded_w,
                     const float* HWY_RESTRICT w, float start,
                     float* HWY_RESTRICT y, const GemmEpilogue& e, int64_t oy,
                     int64_t out_w_v, float* HWY_RESTRICT tail) {
  const D d;
  using V = hn::Vec<D>;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  constexpr int64_t sw = kStride;
  const int64_t kernel_w = kKernelW > 0 ? kKernelW : g.kernel_w;
  const int64_t row_step = g.stride_h * padded_w;
  for (int64_t ox = 0; ox < out_w_v; ox += lanes) {
    V acc[kRows];
#pragma GCC unroll 4
    for (int r = 0; r < kRows; ++r) acc[r] = hn::Set(d, start);
    for (int64_t ky = 0; ky < g.kernel_h; ++ky) {
      const float* in = padded + (oy * g.stride_h + ky) * padded_w + ox * sw;
      const float* wk = w + ky * kernel_w;
#pragma GCC unroll 7
      for (int64_t kx = 0; kx < kernel_w; ++kx) {
        const V wv = hn::Set(d, wk[kx]);
#pragma GCC unroll 4
        for (int r = 0; r < kRows; ++r) {
          V v;
          if constexpr (sw == 1) {
            v = hn::LoadU(d, in + r * row_step + kx);
          } else {
            V odd;
            hn::LoadInterleaved2(d, in + r * row_step + kx, v, odd);
          }
          acc[r] = hn::MulAdd(wv, v, acc[r]);
        }
      }
    }
#pragma GCC unroll 4
    for (int r = 0; r < kRows; ++r) {
      V out = acc[r];
      if (e.clamp) {
        // Compares, not Min/Max: NaN fails them and stays NaN.
        const V lo = hn::Set(d, e.lo);
        const V hi = hn::Set(d, e.hi);
        out = hn::IfThenElse(hn::Lt(out, lo), lo, out);
        out = hn::IfThenElse(hn::Gt(out, hi), hi, out);
      }
      float* row = y + (oy + r) * g.out_w;
      if (ox + lanes <= g.out_w) {
        hn::StoreU(out, d, row + ox);
      } else {
        hn::StoreU(out, d, tail);
        std::copy(tail, tail + (g.out_w - ox), row + ox);
      }
    }
  }
}

// One plane through a zero-padded copy of the input rows it reads, wide
// enough that every output column is a full vector of taps: no border cases,
// and padding taps multiply zeros exactly as ONNX's zero padding does.
void Plane(const DepthwiseGeometry& g, const float* HWY_RESTRICT x,
           const float* HWY_RESTRICT w, float start, float* HWY_RESTRICT y,
           const GemmEpilogue& e, std::vector<float>& scratch) {
  const D d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const int64_t sw = g.stride_w;
  const int64_t out_w_v = (g.out_w + lanes - 1) / lanes * lanes;
  // A stride-2 vector reads 2 * lanes inputs from each tap.
  const int64_t padded_w = sw * out_w_v + g.kernel_w - 1 + (sw == 2 ? 1 : 0);
  const int64_t padded_h = (g.out_h - 1) * g.stride_h + g.kernel_h;
  scratch.resize(padded_h * padded_w + out_w_v);
  float* padded = scratch.data();
  float* tail = padded + padded_h * padded_w;
  for (int64_t r = 0; r < padded_h; ++r) {
    float* dst = padded + r * padded_w;
    const int64_t iy = r - g.pad_top;
    if (iy < 0 || iy >= g.in_h) {
      std::fill(dst, dst + padded_w, 0.0f);
      continue;
    }
    const int64_t left = std::min(g.pad_left, padded_w);
    const int64_t copied = std::clamp<int64_t>(padded_w - left, 0, g.in_w);
    std::fill(dst, dst + left, 0.0f);
    std::copy(x + iy * g.in_w, x + iy * g.in_w + copied, dst + left);
    std::fill(dst + left + copied, dst + padded_w, 0.0f);
  }
  // Four rows at a time, then single rows: two instantiations per stride and
  // width keep the per-target code (and its compile time) small.
  auto rows = [&]<int kStride, int kKernelW>() {
    int64_t oy = 0;
    for (; oy + kRowBlock <= g.out_h; oy += kRowBlock) {
      Rows<kRowBlock, kStride, kKernelW>(g, padded, padded_w, w, start, y, e,
                                         oy, out_w_v, tail);
    }
    for (; oy < g.out_h; ++oy) {
      Rows<1, kStride, kKernelW>(g, padded, padded_w, w, start, y, e, oy,
                                 out_w_v, tail);
    }
  };
  auto by_width = [&]<int kStride>() {
    switch (g.kernel_w) {
      case 3:
        rows.template operator()<kStride, 3>();
        break;
      case 5:
        rows.template operator()<kStride, 5>();
        break;
      default:
        rows.template operator()<kStride, 0>();
        break;
    }
  };
  if (sw == 1) {
    by_width.template operator()<1>();
  } else {
    by_width.template operator()<2>();
  }
}

void DepthwiseImpl(const DepthwiseGeometry& g, const float* x, const float* w,
                   const float* bias, float* y, const GemmEpilogue& e) {
  const int64_t in_plane = g.in_h * g.in_w;
  const int64_t out_plane = g.out_h * g.out_w;
  const int64_t taps = g.kernel_h * g.kernel_w;
  const size_t grain = static_cast<size_t>(
      std::max<int64_t>(1, static_cast<int64_t>(kElementwiseGrain) /
                               std::max<int64_t>(1, out_plane * taps / 4)));
  ParallelFor(g.planes, grain, [&](size_t begin, size_t end) {
    // Kept per thread: allocated by the first execution only.
    thread_local std::vector<float> scratch;
    for (size_t p = begin; p < end; ++p) {
      const int64_t c = static_cast<int64_t>(p) % g.channels;
      Plane(g, x + p * in_plane, w + c * taps, bias ? bias[c] : 0.0f,
            y + p * out_plane, e, scratch);
    }
  });
}

}  // namespace acldump::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace acldump {

HWY_EXPORT(DepthwiseImpl);

bool DepthwiseSupported(const DepthwiseGeometry& g) {
  return g.planes > 0 && g.channels > 0 && g.out_h > 0 && g.out_w > 0 &&
         (g.stride_w == 1 || g.stride_w == 2) && g.stride_h >= 1 &&
         g.kernel_h >= 1 && g.kernel_h <= 7 && g.kernel_w >= 1 &&
         g.kernel_w <= 7 && g.pad_top >= 0 && g.pad_left >= 0;
}

void DepthwiseConv2D(const DepthwiseGeometry& g, const float* x, const float* w,
                     const float* bias, float* y,
                     const GemmEpilogue& epilogue) {
  HWY_DYNAMIC_DISPATCH(DepthwiseImpl)(g, x, w, bias, y, epilogue);
}

}  // namespace acldump
#endif  // HWY_ONCE
