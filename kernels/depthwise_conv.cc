#include "kernels/depthwise_conv.h"

#include <algorithm>
#include <vector>

#include "kernels/threading.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/depthwise_conv.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

// After highway.h, which it needs per target.
#include "kernels/activation-inl.h"

HWY_BEFORE_NAMESPACE();
namespace acldump::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
using D = hn::ScalableTag<float>;

// Output rows interleaved per vector of columns: kRows independent
// multiply-add chains instead of one, which would wait on each FMA's latency.
constexpr int kRowBlock = 4;

// The zero-padded copy of one plane that the row kernels read: every output
// column is a full vector of taps, so there are no border cases, and padding
// taps multiply zeros exactly as ONNX's zero padding does. For stride 2 each
// padded row is stored as its even columns, then its odd ones, so the taps of
// a vector of outputs are contiguous loads instead of de-interleaving loads.
struct PaddedLayout {
  int64_t row_floats = 0;  // one padded row (both halves for stride 2)
  int64_t half = 0;        // stride 2: the floats of each half
  int64_t rows = 0;
  int64_t out_w_v = 0;  // out_w rounded up to whole vectors

  PaddedLayout(const DepthwiseGeometry& g, int64_t lanes) {
    out_w_v = (g.out_w + lanes - 1) / lanes * lanes;
    rows = (g.out_h - 1) * g.stride_h + g.kernel_h;
    if (g.stride_w == 1) {
      row_floats = half = out_w_v + g.kernel_w - 1;
    } else {
      // Column c = 2 * ox + kx is at (c % 2) * half + c / 2.
      half = out_w_v + g.kernel_w / 2;
      row_floats = 2 * half;
    }
  }
  // Where padded column c of a row lives; tap kx of output column ox is
  // column stride_w * ox + kx.
  template <typename T>
  T* Column(T* row, int64_t stride_w, int64_t c) const {
    return stride_w == 1 ? row + c : row + (c % 2) * half + c / 2;
  }
};

// The end of the half (stride 2) of a padded row that p lies in.
inline const float* HalfEnd(const PaddedLayout& layout, const float* row,
                            const float* p) {
  return p < row + layout.half ? row + layout.half : row + 2 * layout.half;
}

// Copies plane x into the padded layout. Only the input's own columns are
// written (and zeros where a last vector reaches past them), the same ones
// for every plane of a node, so the zeros around them are written once per
// run, not once per plane.
void CopyPlane(const DepthwiseGeometry& g, const PaddedLayout& layout,
               const float* HWY_RESTRICT x, float* HWY_RESTRICT padded) {
  const float* x_end = x + g.in_h * g.in_w;
  const float* padded_end = padded + layout.rows * layout.row_floats;
  const D d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const int64_t width = g.stride_w == 1 ? layout.row_floats : 2 * layout.half;
  const int64_t copied = std::clamp<int64_t>(width - g.pad_left, 0, g.in_w);
  const int64_t first_row = std::max<int64_t>(0, g.pad_top);
  const int64_t last_row = std::min(layout.rows, g.pad_top + g.in_h);
  for (int64_t r = first_row; r < last_row; ++r) {
    const float* src = x + (r - g.pad_top) * g.in_w;
    float* row = padded + r * layout.row_floats;
    if (g.stride_w == 1) {
      float* dst = row + g.pad_left;
      int64_t i = 0;
      for (; i + lanes <= copied; i += lanes)
        hn::StoreU(hn::LoadU(d, src + i), d, dst + i);
      // The last columns as one vector when it can be read: lanes past the
      // row become zeros, which is what the padding to their right (and any
      // next row's left) holds; a next row's columns are copied later.
      if (i < copied && src + i + lanes <= x_end &&
          dst + i + lanes <= padded_end) {
        hn::StoreU(
            hn::IfThenElseZero(hn::FirstN(d, static_cast<size_t>(copied - i)),
                               hn::LoadU(d, src + i)),
            d, dst + i);
        continue;
      }
      for (; i < copied; ++i) dst[i] = src[i];
      continue;
    }
    // Input columns 2j and 2j + 1 land in opposite halves.
    float* even_dst = layout.Column(row, 2, g.pad_left);
    float* odd_dst = layout.Column(row, 2, g.pad_left + 1);
    int64_t j = 0;
    for (; 2 * (j + lanes) <= copied; j += lanes) {
      hn::Vec<D> even, odd;
      hn::LoadInterleaved2(d, src + 2 * j, even, odd);
      hn::StoreU(even, d, even_dst + j);
      hn::StoreU(odd, d, odd_dst + j);
    }
    // The last pairs as two vectors when they can be read and each stays in
    // its half of the row (the lanes past the input become its padding).
    const int64_t left = copied - 2 * j;
    if (left > 0 && src + 2 * (j + lanes) <= x_end &&
        even_dst + j + lanes <= HalfEnd(layout, row, even_dst) &&
        odd_dst + j + lanes <= HalfEnd(layout, row, odd_dst)) {
      hn::Vec<D> even, odd;
      hn::LoadInterleaved2(d, src + 2 * j, even, odd);
      hn::StoreU(hn::IfThenElseZero(
                     hn::FirstN(d, static_cast<size_t>((left + 1) / 2)), even),
                 d, even_dst + j);
      hn::StoreU(
          hn::IfThenElseZero(hn::FirstN(d, static_cast<size_t>(left / 2)), odd),
          d, odd_dst + j);
      continue;
    }
    for (; 2 * j + 1 < copied; ++j) {
      even_dst[j] = src[2 * j];
      odd_dst[j] = src[2 * j + 1];
    }
    if (2 * j < copied) even_dst[j] = src[2 * j];
  }
}

// One output vector: the epilogue's clamp, then a store that never writes
// past the plane. A vector past the row's end spills into the next rows,
// which are stored later (rows ascend, and a row's vectors are stored last
// to first), so only a plane's last vectors need the partial store.
HWY_INLINE void StoreOut(const DepthwiseGeometry& g, hn::Vec<D> out,
                         float* HWY_RESTRICT row, const GemmEpilogue& e,
                         int64_t ox, float* HWY_RESTRICT tail,
                         const float* plane_end) {
  const D d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  if (e.clamp) out = ClampByCompares(d, out, e.lo, e.hi);
  if (ox + lanes <= g.out_w || row + ox + lanes <= plane_end) {
    hn::StoreU(out, d, row + ox);
  } else {
    hn::StoreU(out, d, tail);
    for (int64_t i = 0; i < g.out_w - ox; ++i) row[ox + i] = tail[i];
  }
}

// Any kernel size up to 7x7 and stride: the taps' weights are broadcast as
// they are used. kKernelW 0 reads the width from g.
template <int kRows, int kKernelW>
HWY_INLINE void Rows(const DepthwiseGeometry& g, const PaddedLayout& layout,
                     const float* HWY_RESTRICT padded,
                     const float* HWY_RESTRICT w, float start,
                     float* HWY_RESTRICT y, const GemmEpilogue& e, int64_t oy,
                     float* HWY_RESTRICT tail) {
  const D d;
  using V = hn::Vec<D>;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const int64_t kernel_w = kKernelW > 0 ? kKernelW : g.kernel_w;
  const int64_t row_step = g.stride_h * layout.row_floats;
  for (int64_t ox = layout.out_w_v - lanes; ox >= 0; ox -= lanes) {
    V acc[kRows];
#pragma GCC unroll 4
    for (int r = 0; r < kRows; ++r) acc[r] = hn::Set(d, start);
    for (int64_t ky = 0; ky < g.kernel_h; ++ky) {
      const float* in = padded + (oy * g.stride_h + ky) * layout.row_floats;
      const float* wk = w + ky * kernel_w;
#pragma GCC unroll 7
      for (int64_t kx = 0; kx < kernel_w; ++kx) {
        const V wv = hn::Set(d, wk[kx]);
        const float* tap = layout.Column(in, g.stride_w, g.stride_w * ox + kx);
#pragma GCC unroll 4
        for (int r = 0; r < kRows; ++r) {
          acc[r] = hn::MulAdd(wv, hn::LoadU(d, tap + r * row_step), acc[r]);
        }
      }
    }
#pragma GCC unroll 4
    for (int r = 0; r < kRows; ++r) {
      StoreOut(g, acc[r], y + (oy + r) * g.out_w, e, ox, tail,
               y + g.out_h * g.out_w);
    }
  }
}

// Square kernels with equal strides, all compile-time: the weights stay in
// registers across the row, and each input row is loaded once per tap
// column for all kRows output rows that read it. Every output still sums its
// taps in the generic order (ky, then kx), so both paths give the same bits.
template <int kRows, int kStride, int kKernel>
HWY_INLINE void FixedRows(const DepthwiseGeometry& g,
                          const PaddedLayout& layout,
                          const float* HWY_RESTRICT padded,
                          const hn::Vec<D>* HWY_RESTRICT wv, float start,
                          float* HWY_RESTRICT y, const GemmEpilogue& e,
                          int64_t oy, float* HWY_RESTRICT tail) {
  const D d;
  using V = hn::Vec<D>;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  constexpr int kInputRows = (kRows - 1) * kStride + kKernel;
  const float* rows = padded + oy * kStride * layout.row_floats;
  for (int64_t ox = layout.out_w_v - lanes; ox >= 0; ox -= lanes) {
    V acc[kRows];
#pragma GCC unroll 8
    for (int r = 0; r < kRows; ++r) acc[r] = hn::Set(d, start);
#pragma GCC unroll 16
    for (int i = 0; i < kInputRows; ++i) {
      const float* in = rows + i * layout.row_floats;
#pragma GCC unroll 7
      for (int kx = 0; kx < kKernel; ++kx) {
        const float* tap = layout.Column(in, kStride, kStride * ox + kx);
        const V v = hn::LoadU(d, tap);
#pragma GCC unroll 8
        for (int r = 0; r < kRows; ++r) {
          const int ky = i - r * kStride;
          if (ky >= 0 && ky < kKernel) {
            acc[r] = hn::MulAdd(wv[ky * kKernel + kx], v, acc[r]);
          }
        }
      }
    }
#pragma GCC unroll 8
    for (int r = 0; r < kRows; ++r) {
      StoreOut(g, acc[r], y + (oy + r) * g.out_w, e, ox, tail,
               y + g.out_h * g.out_w);
    }
  }
}

// One plane: output rows kRowBlock at a time, then single rows.
void Plane(const DepthwiseGeometry& g, const PaddedLayout& layout,
           const float* HWY_RESTRICT padded, const float* HWY_RESTRICT w,
           float start, float* HWY_RESTRICT y, const GemmEpilogue& e,
           float* HWY_RESTRICT tail) {
  const D d;
  auto fixed = [&]<int kStride, int kKernel>() {
    hn::Vec<D> wv[kKernel * kKernel];
    for (int t = 0; t < kKernel * kKernel; ++t) wv[t] = hn::Set(d, w[t]);
    // A 7x7 plane (one vector per row) in one block of 7 chains.
    if (g.out_h == 7 && layout.out_w_v == static_cast<int64_t>(hn::Lanes(d))) {
      FixedRows<7, kStride, kKernel>(g, layout, padded, wv, start, y, e, 0,
                                     tail);
      return;
    }
    int64_t oy = 0;
    for (; oy + kRowBlock <= g.out_h; oy += kRowBlock) {
      FixedRows<kRowBlock, kStride, kKernel>(g, layout, padded, wv, start, y, e,
                                             oy, tail);
    }
    // The last rows as one block too: a 9-row plane is 4 + 4 + 1 chains, a
    // 6-row one 4 + 2, not single rows waiting on each FMA's latency.
    switch (g.out_h - oy) {
      case 3:
        FixedRows<3, kStride, kKernel>(g, layout, padded, wv, start, y, e, oy,
                                       tail);
        break;
      case 2:
        FixedRows<2, kStride, kKernel>(g, layout, padded, wv, start, y, e, oy,
                                       tail);
        break;
      case 1:
        FixedRows<1, kStride, kKernel>(g, layout, padded, wv, start, y, e, oy,
                                       tail);
        break;
    }
  };
  auto generic = [&]<int kKernelW>() {
    int64_t oy = 0;
    for (; oy + kRowBlock <= g.out_h; oy += kRowBlock) {
      Rows<kRowBlock, kKernelW>(g, layout, padded, w, start, y, e, oy, tail);
    }
    switch (g.out_h - oy) {
      case 3:
        Rows<3, kKernelW>(g, layout, padded, w, start, y, e, oy, tail);
        break;
      case 2:
        Rows<2, kKernelW>(g, layout, padded, w, start, y, e, oy, tail);
        break;
      case 1:
        Rows<1, kKernelW>(g, layout, padded, w, start, y, e, oy, tail);
        break;
    }
  };
  const bool square = g.kernel_h == g.kernel_w && g.stride_h == g.stride_w;
  if (square && g.kernel_w == 3 && g.stride_w == 1) {
    fixed.template operator()<1, 3>();
  } else if (square && g.kernel_w == 3 && g.stride_w == 2) {
    fixed.template operator()<2, 3>();
  } else if (square && g.kernel_w == 5 && g.stride_w == 1) {
    fixed.template operator()<1, 5>();
  } else if (square && g.kernel_w == 5 && g.stride_w == 2) {
    fixed.template operator()<2, 5>();
  } else if (g.kernel_w == 3) {
    generic.template operator()<3>();
  } else {
    generic.template operator()<0>();
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
  const PaddedLayout layout(g, static_cast<int64_t>(hn::Lanes(D())));
  const size_t padded_floats = layout.rows * layout.row_floats;
  // A residual and HardSwish follow each plane while it is in cache; the
  // clamp then waits for the residual.
  const bool finish = e.residual != nullptr || e.hard_swish;
  GemmEpilogue in_plane_epilogue = e;
  if (finish) in_plane_epilogue.clamp = false;
  ParallelFor(g.planes, grain, [&](size_t begin, size_t end) {
    // Kept per thread: allocated by the first execution only.
    thread_local std::vector<float> scratch;
    scratch.assign(padded_floats + layout.out_w_v, 0.0f);
    float* padded = scratch.data();
    float* tail = padded + padded_floats;
    for (size_t p = begin; p < end; ++p) {
      const int64_t c = static_cast<int64_t>(p) % g.channels;
      CopyPlane(g, layout, x + p * in_plane, padded);
      float* out = y + p * out_plane;
      Plane(g, layout, padded, w + c * taps, bias ? bias[c] : 0.0f, out,
            in_plane_epilogue, tail);
      if (finish) {
        FinishGemmOutput(
            out, e.residual != nullptr ? e.residual + p * out_plane : nullptr,
            out_plane, e);
      }
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
