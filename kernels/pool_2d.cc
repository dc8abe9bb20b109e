#include "kernels/pool_2d.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "kernels/threading.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/pool_2d.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace acldump::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
template <class T>
using D = hn::ScalableTag<T>;
template <class T>
using V = hn::Vec<D<T>>;

// AVX2 and AVX-512 load under a mask without touching the lanes left out.
#if HWY_ARCH_X86 && (HWY_TARGET == HWY_AVX2 || HWY_TARGET <= HWY_AVX3)
constexpr bool kFaultFreeMaskedLoad = true;
#else
constexpr bool kFaultFreeMaskedLoad = false;
#endif

// max(acc, v), where for floats a NaN v wins; or acc + v (floats only).
template <bool kMax, class DT, class VT>
HWY_INLINE VT CombineVectors(DT d, VT acc, VT v) {
  (void)d;
  if constexpr (kMax && !std::is_floating_point_v<hn::TFromD<DT>>) {
    return hn::Max(acc, v);
  } else if constexpr (kMax) {
    return hn::IfThenElse(hn::Or(hn::Gt(v, acc), hn::IsNaN(v)), v, acc);
  } else {
    return hn::Add(acc, v);
  }
}

template <bool kMax, class T>
HWY_INLINE T CombineValues(T acc, T v) {
  if constexpr (kMax) {
    return ((v > acc) | (v != v)) ? v : acc;
  } else {
    return acc + v;
  }
}

// out[i] = Combine(a[i], b[i]) for i < n; out may alias a, and holds a
// vector's room past n, which keeps its values.
template <bool kMax, class T>
void CombineRows(const T* a, const T* b, T* out, int64_t n) {
  const D<T> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    hn::StoreU(
        CombineVectors<kMax>(d, hn::LoadU(d, a + i), hn::LoadU(d, b + i)), d,
        out + i);
  }
  if constexpr (!std::is_floating_point_v<T>) {
    if (i == n) return;
    // A maximum taken twice is the same maximum: the last vector ends at n,
    // overlapping the one before (out may alias a). Rows shorter than a
    // vector (a 14-wide plane's, in bytes) the same way in 16- or 8-lane
    // vectors; shorter still, one by one.
    const auto combine_at = [&](auto tag, int64_t at) {
      hn::StoreU(CombineVectors<kMax>(tag, hn::LoadU(tag, a + at),
                                      hn::LoadU(tag, b + at)),
                 tag, out + at);
    };
    const hn::CappedTag<T, 16> d16;
    const hn::CappedTag<T, 8> d8;
    const auto lanes16 = static_cast<int64_t>(hn::Lanes(d16));
    const auto lanes8 = static_cast<int64_t>(hn::Lanes(d8));
    if (n >= lanes) {
      combine_at(d, n - lanes);
    } else if (n >= lanes16) {
      combine_at(d16, 0);
      combine_at(d16, n - lanes16);
    } else if (n >= lanes8) {
      combine_at(d8, 0);
      combine_at(d8, n - lanes8);
    } else {
      for (; i < n; ++i) out[i] = CombineValues<kMax>(a[i], b[i]);
    }
  } else if (i < n) {
    // The last values as one vector (a scalar loop's compares would branch
    // on the data). a and b may end a tensor: masked loads where the target
    // has them, copies of the values where Highway emulates them with a load
    // of the whole vector.
    const size_t left = static_cast<size_t>(n - i);
    const auto mask = hn::FirstN(d, left);
    V<T> va, vb;
    if constexpr (kFaultFreeMaskedLoad) {
      va = hn::MaskedLoad(mask, d, a + i);
      vb = hn::MaskedLoad(mask, d, b + i);
    } else {
      HWY_ALIGN T tail_a[HWY_MAX_BYTES / sizeof(T)] = {};
      HWY_ALIGN T tail_b[HWY_MAX_BYTES / sizeof(T)] = {};
      std::memcpy(tail_a, a + i, left * sizeof(T));
      std::memcpy(tail_b, b + i, left * sizeof(T));
      va = hn::Load(d, tail_a);
      vb = hn::Load(d, tail_b);
    }
    hn::StoreU(hn::IfThenElse(mask, CombineVectors<kMax>(d, va, vb),
                              hn::LoadU(d, out + i)),
               d, out + i);
  }
}

// Values a padded row holds past its last window: a vector of windows
// starting at the last one reads up to two vectors from its last tap.
template <class T>
int64_t RowSlack() {
  return 2 * static_cast<int64_t>(hn::Lanes(D<T>())) + 1;
}

// Window maxima or sums along a padded row (column 0 is the first window's
// first tap), for windows of width kw, kKw > 0 fixing it at compile time.
// Sums (float only) are divided by rows * cols[ow].
template <bool kMax, int kKw, class T>
void SlideRow(const T* HWY_RESTRICT row, T* HWY_RESTRICT out, int64_t w_out,
              int64_t stride, int64_t kw, float rows,
              const float* HWY_RESTRICT cols) {
  const D<T> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const int64_t width = kKw > 0 ? kKw : kw;
  if (stride > 2) {
    for (int64_t ow = 0; ow < w_out; ++ow) {
      const T* window = row + ow * stride;
      T acc = window[0];
      for (int64_t j = 1; j < width; ++j)
        acc = CombineValues<kMax>(acc, window[j]);
      if constexpr (!kMax) acc /= rows * cols[ow];
      out[ow] = acc;
    }
    return;
  }
  for (int64_t group = 0; group < w_out; group += lanes) {
    // The last vector of windows ends at the last one, overlapping the one
    // before (the windows it repeats get the same values again).
    const int64_t ow =
        group + lanes <= w_out || w_out < lanes ? group : w_out - lanes;
    V<T> acc;
    if (stride == 1) {
      acc = hn::LoadU(d, row + ow);
      for (int64_t j = 1; j < width; ++j) {
        acc = CombineVectors<kMax>(d, acc, hn::LoadU(d, row + ow + j));
      }
    } else {
      // Tap j of windows ow.. is every other float from row[2 * ow + j]:
      // the even half of an interleaved load there, whose odd half is tap
      // j + 1.
      const T* p = row + 2 * ow;
      V<T> odd;
      hn::LoadInterleaved2(d, p, acc, odd);
      for (int64_t j = 1; j < width; ++j) {
        V<T> tap = odd;
        if (j % 2 == 0) hn::LoadInterleaved2(d, p + j, tap, odd);
        acc = CombineVectors<kMax>(d, acc, tap);
      }
    }
    if constexpr (!kMax) {
      acc = hn::Div(acc, hn::Mul(hn::Set(d, rows), hn::LoadU(d, cols + ow)));
    }
    if (ow + lanes <= w_out) {
      hn::StoreU(acc, d, out + ow);
    } else {
      HWY_ALIGN T last[HWY_MAX_BYTES / sizeof(T)];
      hn::Store(acc, d, last);
      std::memcpy(out + ow, last, (w_out - ow) * sizeof(T));
    }
  }
}

template <bool kMax, class T>
void Planes(const Pool2DGeometry& g, bool count_include_pad, const T* x, T* y,
            T* buffer, const float* cols, int64_t first_plane,
            int64_t end_plane) {
  const int64_t w_in = g.in_w;
  T* row = buffer + g.pad_left;
  for (int64_t p = first_plane; p < end_plane; ++p) {
    const T* xp = x + p * g.in_h * w_in;
    T* yp = y + p * g.out_h * g.out_w;
    for (int64_t oh = 0; oh < g.out_h; ++oh) {
      const int64_t hs = oh * g.stride_h - g.pad_top;
      const int64_t h0 = std::max<int64_t>(hs, 0);
      const int64_t h1 = std::min(hs + g.kernel_h, g.in_h);
      T* yr = yp + oh * g.out_w;
      if (h1 <= h0) {  // no input row: the callers' geometry never has one
        std::fill(yr, yr + g.out_w,
                  kMax ? std::numeric_limits<T>::lowest()
                       : std::numeric_limits<T>::quiet_NaN());
        continue;
      }
      const T* src = xp + h0 * w_in;
      if (h1 - h0 == 1) {
        std::memcpy(row, src, static_cast<size_t>(w_in) * sizeof(T));
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

template <bool kMax, class T>
void Pool2D(const Pool2DGeometry& g, bool count_include_pad, const T* x, T* y) {
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(D<float>()));
  const int64_t row_values =
      std::max(g.pad_left + g.in_w, (g.out_w - 1) * g.stride_w + g.kernel_w) +
      RowSlack<T>();
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
  // A value no window's maximum can be below (the lowest of an integer type
  // is, but then is the maximum only when it is one of the taps too).
  T pad_value = 0;
  if constexpr (kMax) {
    pad_value = std::numeric_limits<T>::has_infinity
                    ? -std::numeric_limits<T>::infinity()
                    : std::numeric_limits<T>::lowest();
  }
  ParallelFor(g.planes, grain, [&](size_t begin, size_t end) {
    // Kept per thread: allocated by the first execution only.
    thread_local std::vector<T> padded;
    padded.assign(static_cast<size_t>(row_values), pad_value);
    Planes<kMax>(g, count_include_pad, x, y, padded.data(),
                 kMax ? nullptr : cols.data(), static_cast<int64_t>(begin),
                 static_cast<int64_t>(end));
  });
}

void MaxPoolImpl(const Pool2DGeometry& g, const float* x, float* y) {
  Pool2D<true>(g, false, x, y);
}
void MaxPoolUint8Impl(const Pool2DGeometry& g, const uint8_t* x, uint8_t* y) {
  Pool2D<true>(g, false, x, y);
}
void MaxPoolInt8Impl(const Pool2DGeometry& g, const int8_t* x, int8_t* y) {
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
HWY_EXPORT(MaxPoolUint8Impl);
HWY_EXPORT(MaxPoolInt8Impl);
HWY_EXPORT(AveragePoolImpl);

void MaxPool2DFloat32(const Pool2DGeometry& g, const float* x, float* y) {
  HWY_DYNAMIC_DISPATCH(MaxPoolImpl)(g, x, y);
}
void MaxPool2DUint8(const Pool2DGeometry& g, const uint8_t* x, uint8_t* y) {
  HWY_DYNAMIC_DISPATCH(MaxPoolUint8Impl)(g, x, y);
}
void MaxPool2DInt8(const Pool2DGeometry& g, const int8_t* x, int8_t* y) {
  HWY_DYNAMIC_DISPATCH(MaxPoolInt8Impl)(g, x, y);
}

void AveragePool2DFloat32(const Pool2DGeometry& g, bool count_include_pad,
                          const float* x, float* y) {
  HWY_DYNAMIC_DISPATCH(AveragePoolImpl)(g, count_include_pad, x, y);
}

}  // namespace acldump
#endif  // HWY_ONCE
