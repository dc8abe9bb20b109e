#include "kernels/pool_2d.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <vector>

#include "kernels/threading.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/pool_2d.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace acldump::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
using D = hn::ScalableTag<float>;
using V = hn::Vec<D>;

// AVX2 and AVX-512 load under a mask without touching the lanes left out.
#if HWY_ARCH_X86 && (HWY_TARGET == HWY_AVX2 || HWY_TARGET <= HWY_AVX3)
constexpr bool kFaultFreeMaskedLoad = true;
#else
constexpr bool kFaultFreeMaskedLoad = false;
#endif

// max(acc, v) where a NaN v wins, or acc + v.
template <bool kMax>
HWY_INLINE V Combine(D d, V acc, V v) {
  (void)d;
  if constexpr (kMax) {
    return hn::IfThenElse(hn::Or(hn::Gt(v, acc), hn::IsNaN(v)), v, acc);
  } else {
    return hn::Add(acc, v);
  }
}

template <bool kMax>
HWY_INLINE float Combine(float acc, float v) {
  if constexpr (kMax) {
    return ((v > acc) | (v != v)) ? v : acc;
  } else {
    return acc + v;
  }
}

// out[i] = Combine(a[i], b[i]) for i < n; out may alias a, and holds a
// vector's room past n, which keeps its values.
template <bool kMax>
void CombineRows(const float* a, const float* b, float* out, int64_t n) {
  const D d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    hn::StoreU(Combine<kMax>(d, hn::LoadU(d, a + i), hn::LoadU(d, b + i)), d,
               out + i);
  }
  if (i < n) {
    // The last values as one vector (a scalar loop's compares would branch
    // on the data). a and b may end a tensor: masked loads where the target
    // has them, copies of the values where Highway emulates them with a load
    // of the whole vector.
    const size_t left = static_cast<size_t>(n - i);
    const auto mask = hn::FirstN(d, left);
    V va, vb;
    if constexpr (kFaultFreeMaskedLoad) {
      va = hn::MaskedLoad(mask, d, a + i);
      vb = hn::MaskedLoad(mask, d, b + i);
    } else {
      HWY_ALIGN float tail_a[HWY_MAX_BYTES / sizeof(float)] = {};
      HWY_ALIGN float tail_b[HWY_MAX_BYTES / sizeof(float)] = {};
      std::memcpy(tail_a, a + i, left * sizeof(float));
      std::memcpy(tail_b, b + i, left * sizeof(float));
      va = hn::Load(d, tail_a);
      vb = hn::Load(d, tail_b);
    }
    hn::StoreU(
        hn::IfThenElse(mask, Combine<kMax>(d, va, vb), hn::LoadU(d, out + i)),
        d, out + i);
  }
}

// Floats a padded row holds past its last window: a vector of windows
// starting at the last one reads up to two vectors from its last tap.
int64_t RowSlack() { return 2 * static_cast<int64_t>(hn::Lanes(D())) + 1; }

// Window maxima or sums along a padded row (column 0 is the first window's
// first tap), for windows of width kw, kKw > 0 fixing it at compile time.
// Sums are divided by rows * cols[ow] when cols is not null.
template <bool kMax, int kKw>
void SlideRow(const float* HWY_RESTRICT row, float* HWY_RESTRICT out,
              int64_t w_out, int64_t stride, int64_t kw, float rows,
              const float* HWY_RESTRICT cols) {
  const D d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const int64_t width = kKw > 0 ? kKw : kw;
  if (stride > 2) {
    for (int64_t ow = 0; ow < w_out; ++ow) {
      const float* window = row + ow * stride;
      float acc = window[0];
      for (int64_t j = 1; j < width; ++j) acc = Combine<kMax>(acc, window[j]);
      out[ow] = cols != nullptr ? acc / (rows * cols[ow]) : acc;
    }
    return;
  }
  for (int64_t group = 0; group < w_out; group += lanes) {
    // The last vector of windows ends at the last one, overlapping the one
    // before (the windows it repeats get the same values again).
    const int64_t ow =
        group + lanes <= w_out || w_out < lanes ? group : w_out - lanes;
    V acc;
    if (stride == 1) {
      acc = hn::LoadU(d, row + ow);
      for (int64_t j = 1; j < width; ++j) {
        acc = Combine<kMax>(d, acc, hn::LoadU(d, row + ow + j));
      }
    } else {
      // Tap j of windows ow.. is every other float from row[2 * ow + j]:
      // the even half of an interleaved load there, whose odd half is tap
      // j + 1.
      const float* p = row + 2 * ow;
      V odd;
      hn::LoadInterleaved2(d, p, acc, odd);
      for (int64_t j = 1; j < width; ++j) {
        V tap = odd;
        if (j % 2 == 0) hn::LoadInterleaved2(d, p + j, tap, odd);
        acc = Combine<kMax>(d, acc, tap);
      }
    }
    if (cols != nullptr) {
      acc = hn::Div(acc, hn::Mul(hn::Set(d, rows), hn::LoadU(d, cols + ow)));
    }
    if (ow + lanes <= w_out) {
      hn::StoreU(acc, d, out + ow);
    } else {
      HWY_ALIGN float last[HWY_MAX_BYTES / sizeof(float)];
      hn::Store(acc, d, last);
      std::memcpy(out + ow, last, (w_out - ow) * sizeof(float));
    }
  }
}

template <bool kMax>
void Planes(const Pool2DGeometry& g, bool count_include_pad, const float* x,
            float* y, float* buffer, const float* cols, int64_t first_plane,
            int64_t end_plane) {
  const int64_t w_in = g.in_w;
  float* row = buffer + g.pad_left;
  for (int64_t p = first_plane; p < end_plane; ++p) {
    const float* xp = x + p * g.in_h * w_in;
    float* yp = y + p * g.out_h * g.out_w;
    for (int64_t oh = 0; oh < g.out_h; ++oh) {
      const int64_t hs = oh * g.stride_h - g.pad_top;
      const int64_t h0 = std::max<int64_t>(hs, 0);
      const int64_t h1 = std::min(hs + g.kernel_h, g.in_h);
      float* yr = yp + oh * g.out_w;
      if (h1 <= h0) {  // no input row: the callers' geometry never has one
        std::fill(yr, yr + g.out_w,
                  kMax ? std::numeric_limits<float>::lowest()
                       : std::numeric_limits<float>::quiet_NaN());
        continue;
      }
      const float* src = xp + h0 * w_in;
      if (h1 - h0 == 1) {
        std::memcpy(row, src, static_cast<size_t>(w_in) * sizeof(float));
      } else {
        CombineRows<kMax>(src, src + w_in, row, w_in);
        for (int64_t h = h0 + 2; h < h1; ++h) {
          CombineRows<kMax>(row, xp + h * w_in, row, w_in);
        }
      }
      const float rows = static_cast<float>(
          count_include_pad
              ? std::min(hs + g.kernel_h, g.in_h + g.pad_bottom) - hs
              : h1 - h0);
      if (g.kernel_w == 3) {
        SlideRow<kMax, 3>(buffer, yr, g.out_w, g.stride_w, 3, rows, cols);
      } else if (g.kernel_w == 2) {
        SlideRow<kMax, 2>(buffer, yr, g.out_w, g.stride_w, 2, rows, cols);
      } else {
        SlideRow<kMax, 0>(buffer, yr, g.out_w, g.stride_w, g.kernel_w, rows,
                          cols);
      }
    }
  }
}

template <bool kMax>
void Pool2D(const Pool2DGeometry& g, bool count_include_pad, const float* x,
            float* y) {
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(D()));
  const int64_t row_floats =
      std::max(g.pad_left + g.in_w, (g.out_w - 1) * g.stride_w + g.kernel_w) +
      RowSlack();
  // An average's column counts, per output column (then padded with ones).
  std::vector<float> cols;
  if (!kMax) {
    cols.assign(static_cast<size_t>(g.out_w + lanes), 1.0f);
    for (int64_t ow = 0; ow < g.out_w; ++ow) {
      const int64_t ws = ow * g.stride_w - g.pad_left;
      cols[ow] = static_cast<float>(
          count_include_pad
              ? std::min(ws + g.kernel_w, g.in_w + g.pad_right) - ws
              : std::min(ws + g.kernel_w, g.in_w) - std::max<int64_t>(ws, 0));
    }
  }
  const int64_t per_plane = g.in_h * g.in_w * g.kernel_h;
  const size_t grain = static_cast<size_t>(
      std::max<int64_t>(1, static_cast<int64_t>(kElementwiseGrain) /
                               std::max<int64_t>(1, per_plane)));
  const float pad_value = kMax ? -std::numeric_limits<float>::infinity() : 0.0f;
  ParallelFor(g.planes, grain, [&](size_t begin, size_t end) {
    // Kept per thread: allocated by the first execution only.
    thread_local std::vector<float> padded;
    padded.assign(static_cast<size_t>(row_floats), pad_value);
    Planes<kMax>(g, count_include_pad, x, y, padded.data(),
                 kMax ? nullptr : cols.data(), static_cast<int64_t>(begin),
                 static_cast<int64_t>(end));
  });
}

void MaxPoolImpl(const Pool2DGeometry& g, const float* x, float* y) {
  Pool2D<true>(g, false, x, y);
}

void AveragePoolImpl(const Pool2DGeometry& g, bool count_include_pad,
                     const float* x, float* y) {
  Pool2D<false>(g, count_include_pad, x, y);
}

}  // namespace acldump::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace acldump {

HWY_EXPORT(MaxPoolImpl);
HWY_EXPORT(AveragePoolImpl);

void MaxPool2DFloat32(const Pool2DGeometry& g, const float* x, float* y) {
  HWY_DYNAMIC_DISPATCH(MaxPoolImpl)(g, x, y);
}

void AveragePool2DFloat32(const Pool2DGeometry& g, bool count_include_pad,
                          const float* x, float* y) {
  HWY_DYNAMIC_DISPATCH(AveragePoolImpl)(g, count_include_pad, x, y);
}

}  // namespace acldump
#endif  // HWY_ONCE
