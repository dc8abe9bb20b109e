#include "kernels/integer_gemm.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#include "kernels/threading.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/integer_gemm.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace acldump::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Bytes of A kept hot (in L2) while the panels of B stream past them.
constexpr int64_t kRowBlockBytes = 128 * 1024;

// Plain exact sums for targets without the tiles: C[i, j] = sum_p A[i, p] *
// B[p, j] (less offsets[i], if given), B's element (p, j) of the panels from
// panel_begin at b[index(p, j)].
template <typename TA, typename TB, class Index>
void PlainPanels(int64_t m, int64_t n, int64_t k, const TA* a, int64_t lda,
                 const int32_t* offsets, const TB* b, int32_t* c, int64_t ldc,
                 int64_t panel_begin, int64_t panel_end, Index index) {
  const int64_t j_begin = panel_begin * kIntegerPanel;
  const int64_t j_end = std::min(n, panel_end * kIntegerPanel);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = j_begin; j < j_end; ++j) {
      int32_t sum = offsets == nullptr ? 0 : -offsets[i];
      for (int64_t p = 0; p < k; ++p)
        sum += int32_t{a[i * lda + p]} * int32_t{b[index(p, j - j_begin)]};
      c[i * ldc + j] = sum;
    }
  }
}

#if HWY_TARGET == HWY_SCALAR

// One lane holds no pair: plain exact sums.
void PanelsImpl(int64_t m, int64_t n, int64_t k, const int16_t* a, int64_t lda,
                const int16_t* b_packed, int32_t* c, int64_t ldc,
                int64_t panel_begin, int64_t panel_end) {
  const int64_t depth = PackedDepth(k);
  PlainPanels(m, n, k, a, lda, nullptr, b_packed, c, ldc, panel_begin,
              panel_end, [depth](int64_t p, int64_t j) {
                return PackedIntegerIndex(depth, p, j);
              });
}

#else

// At most 8 int32 lanes: a panel of 16 columns is two vectors on AVX2 and
// AVX-512 (256-bit vectors), four on 128-bit targets.
using D32 = hn::CappedTag<int32_t, 8>;
using D16 = hn::Repartition<int16_t, D32>;
constexpr int64_t kLanes = static_cast<int64_t>(hn::MaxLanes(D32()));
constexpr int kVectors = static_cast<int>(kIntegerPanel / kLanes);
// Accumulators, the panel's vectors and one broadcast pair of A fit the 16
// vector registers: 6 x 2 + 2 + 1, or 3 x 4 + 4 + 1.
constexpr int kMaxRows = kVectors <= 2 ? 6 : 3;

// C[r, 0..cols) for kRows rows of A against one panel of B. Each int32 lane
// adds the products of one pair of rows of B; Highway's reordering contract
// keeps the even and odd products apart on targets without pmaddwd, and
// RearrangeToOddPlusEven joins them: exact sums either way.
template <int kRows>
HWY_INLINE void Tile(int64_t pairs, const int16_t* HWY_RESTRICT a, int64_t lda,
                     const int16_t* HWY_RESTRICT panel, int32_t* HWY_RESTRICT c,
                     int64_t ldc, int64_t cols) {
  const D32 d32;
  const D16 d16;
  using V32 = hn::Vec<D32>;
  using V16 = hn::Vec<D16>;
  V32 sum0[kRows][kVectors], sum1[kRows][kVectors];
#pragma GCC unroll 6
  for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 4
    for (int v = 0; v < kVectors; ++v) {
      sum0[r][v] = hn::Zero(d32);
      sum1[r][v] = hn::Zero(d32);
    }
  }
  for (int64_t p = 0; p < pairs; ++p) {
    const int16_t* b = panel + p * (2 * kIntegerPanel);
    V16 bv[kVectors];
#pragma GCC unroll 4
    for (int v = 0; v < kVectors; ++v)
      bv[v] = hn::LoadU(d16, b + v * 2 * kLanes);
#pragma GCC unroll 6
    for (int r = 0; r < kRows; ++r) {
      int32_t pair;
      std::memcpy(&pair, a + r * lda + 2 * p, sizeof(pair));
      const V16 av = hn::BitCast(d16, hn::Set(d32, pair));
#pragma GCC unroll 4
      for (int v = 0; v < kVectors; ++v) {
        sum0[r][v] = hn::ReorderWidenMulAccumulate(d32, av, bv[v], sum0[r][v],
                                                   sum1[r][v]);
      }
    }
  }
  HWY_ALIGN int32_t row[kIntegerPanel];
#pragma GCC unroll 6
  for (int r = 0; r < kRows; ++r) {
    int32_t* out = cols == kIntegerPanel ? c + r * ldc : row;
#pragma GCC unroll 4
    for (int v = 0; v < kVectors; ++v) {
      hn::StoreU(hn::RearrangeToOddPlusEven(sum0[r][v], sum1[r][v]), d32,
                 out + v * kLanes);
    }
    if (out == row) std::memcpy(c + r * ldc, row, cols * sizeof(int32_t));
  }
}

// tile(rows, i, panel) for one tile of `rows` rows (a
// std::integral_constant) from row i against one panel; rows below kRows.
template <int kRows, class TileFn>
HWY_INLINE void SmallerTile(int64_t rows, int64_t i, int64_t panel,
                            const TileFn& tile) {
  if constexpr (kRows > 0) {
    if (rows == kRows)
      return tile(std::integral_constant<int, kRows>(), i, panel);
    SmallerTile<kRows - 1>(rows, i, panel, tile);
  }
}

// Every tile of the rows [0, m) of A (row_bytes each) against panels
// [panel_begin, panel_end): rows in blocks of about kRowBlockBytes, each
// block against every panel, kMax rows per tile and the block's last rows in
// one smaller tile.
template <int kMax, class TileFn>
HWY_INLINE void ForEachTile(int64_t m, int64_t row_bytes, int64_t panel_begin,
                            int64_t panel_end, const TileFn& tile) {
  const int64_t row_block =
      std::max<int64_t>(
          1, kRowBlockBytes / std::max<int64_t>(1, row_bytes * kMax)) *
      kMax;
  for (int64_t i0 = 0; i0 < m; i0 += row_block) {
    const int64_t i1 = std::min(m, i0 + row_block);
    for (int64_t panel = panel_begin; panel < panel_end; ++panel) {
      int64_t i = i0;
      for (; i + kMax <= i1; i += kMax)
        tile(std::integral_constant<int, kMax>(), i, panel);
      SmallerTile<kMax - 1>(i1 - i, i, panel, tile);
    }
  }
}

void PanelsImpl(int64_t m, int64_t n, int64_t k, const int16_t* a, int64_t lda,
                const int16_t* b_packed, int32_t* c, int64_t ldc,
                int64_t panel_begin, int64_t panel_end) {
  const int64_t depth = PackedDepth(k);
  ForEachTile<kMaxRows>(
      m, depth * 2, panel_begin, panel_end,
      [&](auto rows, int64_t i, int64_t panel) {
        const int64_t j = panel * kIntegerPanel;
        Tile<decltype(rows)::value>(
            depth / 2, a + i * lda, lda,
            b_packed + (panel - panel_begin) * depth * kIntegerPanel,
            c + i * ldc + j, ldc, std::min(kIntegerPanel, n - j));
      });
}

#endif  // HWY_TARGET == HWY_SCALAR

// Every target: 16 columns of 16-bit lanes are one vector on AVX2 and
// AVX-512 (capped at 256 bits), two on 128-bit targets, 16 on scalar.
template <typename T>
void PackPanelImpl(const T* base, const int64_t* offsets, int64_t k,
                   int32_t zero_point, int16_t* panel) {
  const hn::CappedTag<int16_t, kIntegerPanel> d16;
  const hn::Rebind<T, decltype(d16)> d8;
  const auto lanes = static_cast<int64_t>(hn::Lanes(d16));
  const auto zero = hn::Set(d16, static_cast<int16_t>(zero_point));
  for (int64_t p = 0; p < k; p += 2) {
    const T* x0 = base + offsets[p];
    const T* x1 = p + 1 < k ? base + offsets[p + 1] : nullptr;
    int16_t* out = panel + p * kIntegerPanel;
    for (int64_t j = 0; j < kIntegerPanel; j += lanes) {
      const auto v0 = hn::Sub(hn::PromoteTo(d16, hn::LoadU(d8, x0 + j)), zero);
      const auto v1 =
          x1 == nullptr
              ? hn::Zero(d16)
              : hn::Sub(hn::PromoteTo(d16, hn::LoadU(d8, x1 + j)), zero);
      hn::StoreInterleaved2(v0, v1, d16, out + 2 * j);
    }
  }
}

template <typename T>
void DepthwiseRowImpl(const T* row, const int64_t* taps, const int32_t* weights,
                      int64_t tap_count, int32_t zero_point, int64_t width,
                      int32_t* out) {
  int64_t j = 0;
#if HWY_TARGET != HWY_SCALAR
  // Two window elements per multiply-add of int16 pairs (pmaddwd): lane j
  // of a pair of input rows interleaved, times the two weights. The zero
  // point comes off once as zero_point * sum(weights): exact integers.
  const hn::CappedTag<int16_t, kIntegerPanel> d16;
  const hn::Repartition<int32_t, decltype(d16)> d32;
  const hn::Rebind<T, decltype(d16)> d8;
  const auto lanes = static_cast<int64_t>(hn::Lanes(d16));
  int32_t weight_sum = 0;
  for (int64_t t = 0; t < tap_count; ++t) weight_sum += weights[t];
  const auto offset = hn::Set(d32, -zero_point * weight_sum);
  auto pair_of = [&](int64_t t) {
    const int32_t second = t + 1 < tap_count ? weights[t + 1] : 0;
    return hn::BitCast(
        d16, hn::Set(d32, static_cast<int32_t>(
                              (static_cast<uint32_t>(weights[t]) & 0xFFFFu) |
                              (static_cast<uint32_t>(second) << 16))));
  };
  HWY_ALIGN int32_t tail[kIntegerPanel];
  for (; j < width; j += lanes) {
    auto lo = offset, hi = offset;
    auto lo_odd = hn::Zero(d32), hi_odd = hn::Zero(d32);
    for (int64_t t = 0; t < tap_count; t += 2) {
      const auto a = hn::PromoteTo(d16, hn::LoadU(d8, row + taps[t] + j));
      const auto b =
          t + 1 < tap_count
              ? hn::PromoteTo(d16, hn::LoadU(d8, row + taps[t + 1] + j))
              : hn::Zero(d16);
      const auto w = pair_of(t);
      lo = hn::ReorderWidenMulAccumulate(d32, hn::InterleaveLower(d16, a, b), w,
                                         lo, lo_odd);
      hi = hn::ReorderWidenMulAccumulate(d32, hn::InterleaveUpper(d16, a, b), w,
                                         hi, hi_odd);
    }
    lo = hn::RearrangeToOddPlusEven(lo, lo_odd);
    hi = hn::RearrangeToOddPlusEven(hi, hi_odd);
    // Interleaving works within 128-bit blocks: lo holds the lower half of
    // each block's lanes, hi the upper.
    // The last, partial vector's sums go through `tail`.
    int32_t* to = j + lanes <= width ? out + j : tail;
    if constexpr (hn::MaxLanes(d16) == 16) {
      hn::StoreU(hn::ConcatLowerLower(d32, hi, lo), d32, to);
      hn::StoreU(hn::ConcatUpperUpper(d32, hi, lo), d32, to + 8);
    } else {
      hn::StoreU(lo, d32, to);
      hn::StoreU(hi, d32, to + lanes / 2);
    }
    if (to == tail) {
      std::memcpy(out + j, tail, (width - j) * sizeof(int32_t));
      j = width;
      break;
    }
  }
#endif
  for (; j < width; ++j) {
    int32_t sum = 0;
    for (int64_t t = 0; t < tap_count; ++t)
      sum += (int32_t{row[taps[t] + j]} - zero_point) * weights[t];
    out[j] = sum;
  }
}

void DepthwiseRowUint8Impl(const uint8_t* row, const int64_t* taps,
                           const int32_t* weights, int64_t tap_count,
                           int32_t zero_point, int64_t width, int32_t* out) {
  DepthwiseRowImpl(row, taps, weights, tap_count, zero_point, width, out);
}

void DepthwiseRowInt8Impl(const int8_t* row, const int64_t* taps,
                          const int32_t* weights, int64_t tap_count,
                          int32_t zero_point, int64_t width, int32_t* out) {
  DepthwiseRowImpl(row, taps, weights, tap_count, zero_point, width, out);
}

// Lane j of row p from the run holding j; see PackPanelRuns.
template <typename T>
void PackPanelRunsImpl(const T* base, const int64_t* offsets, int64_t k,
                       int32_t zero_point, const int64_t* run_lanes,
                       const int64_t* run_origins, int64_t runs, int64_t stride,
                       int64_t count, int16_t* panel) {
#if HWY_TARGET == HWY_SCALAR
  for (int64_t p = 0; p < k + (k & 1); ++p) {
    int64_t r = 0;
    for (int64_t j = 0; j < kIntegerPanel; ++j) {
      while (r + 1 < runs && run_lanes[r + 1] <= j) ++r;
      int16_t v = 0;
      if (p < k && j < count) {
        v = static_cast<int16_t>(
            int32_t{base[run_origins[r] + (j - run_lanes[r]) * stride +
                         offsets[p]]} -
            zero_point);
      }
      panel[PackedIntegerIndex(k + (k & 1), p, j)] = v;
    }
  }
#else
  const hn::CappedTag<int16_t, kIntegerPanel> d16;
  const hn::Rebind<T, decltype(d16)> d8;       // one byte per lane
  const hn::Repartition<T, decltype(d16)> dw;  // two bytes per lane
  const auto lanes = static_cast<int64_t>(hn::Lanes(d16));
  const auto zero = hn::Set(d16, static_cast<int16_t>(zero_point));
  // Lane j's value at stride 1 or 2, loaded from where lane 0 would be.
  auto load = [&](const T* from) {
    if (stride == 1) return hn::PromoteTo(d16, hn::LoadU(d8, from));
    const auto pairs = hn::BitCast(d16, hn::LoadU(dw, from));
    if constexpr (std::is_signed_v<T>) {
      return hn::ShiftRight<8>(hn::ShiftLeft<8>(pairs));
    } else {
      return hn::And(pairs, hn::Set(d16, 0xFF));
    }
  };
  for (int64_t j0 = 0; j0 < kIntegerPanel; j0 += lanes) {
    const auto lane = hn::Iota(d16, static_cast<int16_t>(j0));
    // Each run's lanes, and its source pointer for lane j0.
    hn::Mask<decltype(d16)> in_run[kIntegerPanel];
    const T* from[kIntegerPanel];
    for (int64_t r = 0; r < runs; ++r) {
      const int64_t end = r + 1 < runs ? run_lanes[r + 1] : count;
      in_run[r] =
          hn::And(hn::Not(hn::Lt(
                      lane, hn::Set(d16, static_cast<int16_t>(run_lanes[r])))),
                  hn::Lt(lane, hn::Set(d16, static_cast<int16_t>(end))));
      from[r] = base + run_origins[r] + (j0 - run_lanes[r]) * stride;
    }
    for (int64_t p = 0; p < k; p += 2) {
      auto v0 = hn::Zero(d16), v1 = hn::Zero(d16);
      for (int64_t r = 0; r < runs; ++r) {
        v0 = hn::IfThenElse(in_run[r],
                            hn::Sub(load(from[r] + offsets[p]), zero), v0);
        if (p + 1 < k) {
          v1 = hn::IfThenElse(
              in_run[r], hn::Sub(load(from[r] + offsets[p + 1]), zero), v1);
        }
      }
      hn::StoreInterleaved2(v0, v1, d16, panel + p * kIntegerPanel + 2 * j0);
    }
  }
#endif
}

void PackPanelRunsUint8Impl(const uint8_t* base, const int64_t* offsets,
                            int64_t k, int32_t zero_point,
                            const int64_t* run_lanes,
                            const int64_t* run_origins, int64_t runs,
                            int64_t stride, int64_t count, int16_t* panel) {
  PackPanelRunsImpl(base, offsets, k, zero_point, run_lanes, run_origins, runs,
                    stride, count, panel);
}

void PackPanelRunsInt8Impl(const int8_t* base, const int64_t* offsets,
                           int64_t k, int32_t zero_point,
                           const int64_t* run_lanes, const int64_t* run_origins,
                           int64_t runs, int64_t stride, int64_t count,
                           int16_t* panel) {
  PackPanelRunsImpl(base, offsets, k, zero_point, run_lanes, run_origins, runs,
                    stride, count, panel);
}

void PackPanelUint8Impl(const uint8_t* base, const int64_t* offsets, int64_t k,
                        int32_t zero_point, int16_t* panel) {
  PackPanelImpl(base, offsets, k, zero_point, panel);
}

void PackPanelInt8Impl(const int8_t* base, const int64_t* offsets, int64_t k,
                       int32_t zero_point, int16_t* panel) {
  PackPanelImpl(base, offsets, k, zero_point, panel);
}

// The byte product's tile: pmaddubsw and pmaddwd exist on every x86 target
// Highway builds; elsewhere plain exact sums.
#if HWY_ARCH_X86 && HWY_TARGET != HWY_SCALAR && HWY_TARGET != HWY_EMU128

// Each int32 lane: the four products of its bytes of b (unsigned) and a
// (signed), pairs summed in int16 (saturating), then the pairs in int32.
template <class V>
HWY_INLINE V QuadProducts(V b, V a, V ones) {
  if constexpr (sizeof(b.raw) == 32) {
    return V{_mm256_madd_epi16(_mm256_maddubs_epi16(b.raw, a.raw), ones.raw)};
  } else {
    return V{_mm_madd_epi16(_mm_maddubs_epi16(b.raw, a.raw), ones.raw)};
  }
}

// Rows per byte tile: accumulators, the panel's vectors, the ones, the
// broadcast quad of A and a product fill the 16 vector registers.
constexpr int kMaxByteRows = kVectors <= 2 ? 5 : 2;

template <int kRows>
HWY_INLINE void ByteTile(int64_t quads, const int8_t* HWY_RESTRICT a,
                         int64_t lda, const int32_t* HWY_RESTRICT offsets,
                         const uint8_t* HWY_RESTRICT panel,
                         int32_t* HWY_RESTRICT c, int64_t ldc, int64_t cols) {
  const D32 d32;
  const hn::Repartition<uint8_t, D32> d8;
  using V32 = hn::Vec<D32>;
  const V32 ones = hn::BitCast(d32, hn::Set(D16(), int16_t{1}));
  V32 sum[kRows][kVectors];
#pragma GCC unroll 6
  for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 4
    for (int v = 0; v < kVectors; ++v) sum[r][v] = hn::Set(d32, -offsets[r]);
  }
  for (int64_t q = 0; q < quads; ++q) {
    const uint8_t* b = panel + q * (4 * kIntegerPanel);
    V32 bv[kVectors];
#pragma GCC unroll 4
    for (int v = 0; v < kVectors; ++v)
      bv[v] = hn::BitCast(d32, hn::LoadU(d8, b + v * 4 * kLanes));
#pragma GCC unroll 6
    for (int r = 0; r < kRows; ++r) {
      int32_t quad;
      std::memcpy(&quad, a + r * lda + 4 * q, sizeof(quad));
      const V32 av = hn::Set(d32, quad);
#pragma GCC unroll 4
      for (int v = 0; v < kVectors; ++v)
        sum[r][v] = hn::Add(sum[r][v], QuadProducts(bv[v], av, ones));
    }
  }
  HWY_ALIGN int32_t row[kIntegerPanel];
#pragma GCC unroll 6
  for (int r = 0; r < kRows; ++r) {
    int32_t* out = cols == kIntegerPanel ? c + r * ldc : row;
#pragma GCC unroll 4
    for (int v = 0; v < kVectors; ++v)
      hn::StoreU(sum[r][v], d32, out + v * kLanes);
    if (out == row) std::memcpy(c + r * ldc, row, cols * sizeof(int32_t));
  }
}

void BytePanelsImpl(int64_t m, int64_t n, int64_t k, const int8_t* a,
                    int64_t lda, const int32_t* row_offsets,
                    const uint8_t* b_panels, int32_t* c, int64_t ldc,
                    int64_t panel_begin, int64_t panel_end) {
  const int64_t depth = QuadDepth(k);
  ForEachTile<kMaxByteRows>(
      m, depth, panel_begin, panel_end,
      [&](auto rows, int64_t i, int64_t panel) {
        const int64_t j = panel * kIntegerPanel;
        ByteTile<decltype(rows)::value>(
            depth / 4, a + i * lda, lda, row_offsets + i,
            b_panels + (panel - panel_begin) * depth * kIntegerPanel,
            c + i * ldc + j, ldc, std::min(kIntegerPanel, n - j));
      });
}

#else

void BytePanelsImpl(int64_t m, int64_t n, int64_t k, const int8_t* a,
                    int64_t lda, const int32_t* row_offsets,
                    const uint8_t* b_panels, int32_t* c, int64_t ldc,
                    int64_t panel_begin, int64_t panel_end) {
  const int64_t depth = QuadDepth(k);
  PlainPanels(
      m, n, k, a, lda, row_offsets, b_panels, c, ldc, panel_begin, panel_end,
      [depth](int64_t p, int64_t j) { return PackedByteIndex(depth, p, j); });
}

#endif

// 16 columns of bytes are one 128-bit vector (one lane on scalar): four rows
// stored interleaved are one quad of the panel.
void PackBytePanelImpl(const uint8_t* base, const int64_t* offsets, int64_t k,
                       uint8_t* panel) {
  const hn::CappedTag<uint8_t, kIntegerPanel> d8;
  const auto lanes = static_cast<int64_t>(hn::Lanes(d8));
  for (int64_t p = 0; p < k; p += 4) {
    uint8_t* out = panel + p * kIntegerPanel;
    for (int64_t j = 0; j < kIntegerPanel; j += lanes) {
      auto row = [&](int64_t r) {
        return p + r < k ? hn::LoadU(d8, base + offsets[p + r] + j)
                         : hn::Zero(d8);
      };
      hn::StoreInterleaved4(row(0), row(1), row(2), row(3), d8, out + 4 * j);
    }
  }
}

// Lane j of row p from the run holding j; see PackPanelRuns.
void PackBytePanelRunsImpl(const uint8_t* base, const int64_t* offsets,
                           int64_t k, const int64_t* run_lanes,
                           const int64_t* run_origins, int64_t runs,
                           int64_t stride, int64_t count, uint8_t* panel) {
  const int64_t depth = QuadDepth(k);
#if HWY_TARGET == HWY_SCALAR
  for (int64_t p = 0; p < depth; ++p) {
    int64_t r = 0;
    for (int64_t j = 0; j < kIntegerPanel; ++j) {
      while (r + 1 < runs && run_lanes[r + 1] <= j) ++r;
      panel[PackedByteIndex(depth, p, j)] =
          p < k && j < count
              ? base[run_origins[r] + (j - run_lanes[r]) * stride + offsets[p]]
              : uint8_t{0};
    }
  }
#else
  // One 128-bit vector of bytes holds the panel's 16 lanes.
  const hn::Full128<uint8_t> d8;
  const hn::Full128<uint16_t> d16;
  const auto lane = hn::Iota(d8, 0);
  hn::Mask<decltype(d8)> in_run[kIntegerPanel];
  const uint8_t* from[kIntegerPanel];
  for (int64_t r = 0; r < runs; ++r) {
    const int64_t end = r + 1 < runs ? run_lanes[r + 1] : count;
    in_run[r] = hn::And(
        hn::Not(hn::Lt(lane, hn::Set(d8, static_cast<uint8_t>(run_lanes[r])))),
        hn::Lt(lane, hn::Set(d8, static_cast<uint8_t>(end))));
    from[r] = base + run_origins[r] - run_lanes[r] * stride;
  }
  // Lane j's value at stride 1 or 2, loaded from where lane 0 would be.
  auto load = [&](const uint8_t* at) {
    if (stride == 1) return hn::LoadU(d8, at);
    const auto low = hn::Set(d16, uint16_t{0xFF});
    const auto lo = hn::And(hn::BitCast(d16, hn::LoadU(d8, at)), low);
    const auto hi = hn::And(hn::BitCast(d16, hn::LoadU(d8, at + 16)), low);
    return hn::ConcatEven(d8, hn::BitCast(d8, hi), hn::BitCast(d8, lo));
  };
  auto row = [&](int64_t p) {
    auto v = hn::Zero(d8);
    if (p >= k) return v;
    for (int64_t r = 0; r < runs; ++r)
      v = hn::IfThenElse(in_run[r], load(from[r] + offsets[p]), v);
    return v;
  };
  for (int64_t p = 0; p < k; p += 4) {
    hn::StoreInterleaved4(row(p), row(p + 1), row(p + 2), row(p + 3), d8,
                          panel + p * kIntegerPanel);
  }
#endif
}

uint8_t MaxByteImpl(const uint8_t* x, int64_t n) {
  const hn::ScalableTag<uint8_t> d;
  const auto lanes = static_cast<int64_t>(hn::Lanes(d));
  auto most = hn::Zero(d);
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes) most = hn::Max(most, hn::LoadU(d, x + i));
  HWY_ALIGN uint8_t lane_max[hn::MaxLanes(d)];
  hn::Store(most, d, lane_max);
  uint8_t result = 0;
  for (int64_t j = 0; j < lanes; ++j) result = std::max(result, lane_max[j]);
  for (; i < n; ++i) result = std::max(result, x[i]);
  return result;
}

}  // namespace acldump::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace acldump {

HWY_EXPORT(PanelsImpl);
HWY_EXPORT(PackPanelUint8Impl);
HWY_EXPORT(PackPanelInt8Impl);
HWY_EXPORT(PackPanelRunsUint8Impl);
HWY_EXPORT(PackPanelRunsInt8Impl);
HWY_EXPORT(DepthwiseRowUint8Impl);

void PackPanelRuns(const uint8_t* base, const int64_t* offsets, int64_t k,
                   int32_t zero_point, const int64_t* run_lanes,
                   const int64_t* run_origins, int64_t runs, int64_t stride,
                   int64_t count, int16_t* panel) {
  HWY_DYNAMIC_DISPATCH(PackPanelRunsUint8Impl)
  (base, offsets, k, zero_point, run_lanes, run_origins, runs, stride, count,
   panel);
}

void PackPanelRuns(const int8_t* base, const int64_t* offsets, int64_t k,
                   int32_t zero_point, const int64_t* run_lanes,
                   const int64_t* run_origins, int64_t runs, int64_t stride,
                   int64_t count, int16_t* panel) {
  HWY_DYNAMIC_DISPATCH(PackPanelRunsInt8Impl)
  (base, offsets, k, zero_point, run_lanes, run_origins, runs, stride, count,
   panel);
}
HWY_EXPORT(DepthwiseRowInt8Impl);

void DepthwiseIntegerRow(const uint8_t* row, const int64_t* taps,
                         const int32_t* weights, int64_t tap_count,
                         int32_t zero_point, int64_t width, int32_t* out) {
  HWY_DYNAMIC_DISPATCH(DepthwiseRowUint8Impl)
  (row, taps, weights, tap_count, zero_point, width, out);
}

void DepthwiseIntegerRow(const int8_t* row, const int64_t* taps,
                         const int32_t* weights, int64_t tap_count,
                         int32_t zero_point, int64_t width, int32_t* out) {
  HWY_DYNAMIC_DISPATCH(DepthwiseRowInt8Impl)
  (row, taps, weights, tap_count, zero_point, width, out);
}

void PackPanelContiguous(const uint8_t* base, const int64_t* offsets, int64_t k,
                         int32_t zero_point, int16_t* panel) {
  HWY_DYNAMIC_DISPATCH(PackPanelUint8Impl)(base, offsets, k, zero_point, panel);
}

void PackPanelContiguous(const int8_t* base, const int64_t* offsets, int64_t k,
                         int32_t zero_point, int16_t* panel) {
  HWY_DYNAMIC_DISPATCH(PackPanelInt8Impl)(base, offsets, k, zero_point, panel);
}

HWY_EXPORT(BytePanelsImpl);
HWY_EXPORT(PackBytePanelImpl);
HWY_EXPORT(PackBytePanelRunsImpl);
HWY_EXPORT(MaxByteImpl);

void PackBytePanelContiguous(const uint8_t* base, const int64_t* offsets,
                             int64_t k, uint8_t* panel) {
  HWY_DYNAMIC_DISPATCH(PackBytePanelImpl)(base, offsets, k, panel);
}

void PackBytePanelRuns(const uint8_t* base, const int64_t* offsets, int64_t k,
                       const int64_t* run_lanes, const int64_t* run_origins,
                       int64_t runs, int64_t stride, int64_t count,
                       uint8_t* panel) {
  HWY_DYNAMIC_DISPATCH(PackBytePanelRunsImpl)
  (base, offsets, k, run_lanes, run_origins, runs, stride, count, panel);
}

void ByteGemmPanels(int64_t m, int64_t n, int64_t k, const int8_t* a,
                    int64_t lda, const int32_t* row_offsets,
                    const uint8_t* b_panels, int32_t* c, int64_t ldc,
                    int64_t panel_begin, int64_t panel_end) {
  if (m <= 0 || n <= 0 || panel_begin >= panel_end) return;
  HWY_DYNAMIC_DISPATCH(BytePanelsImpl)
  (m, n, k, a, lda, row_offsets, b_panels, c, ldc, panel_begin, panel_end);
}

int32_t LargestPairMagnitude(const int8_t* a, int64_t m, int64_t k,
                             int64_t lda) {
  int32_t largest = 0;
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t p = 0; p < k; p += 2) {
      const int32_t second =
          p + 1 < k ? std::abs(int32_t{a[i * lda + p + 1]}) : 0;
      largest = std::max(largest, std::abs(int32_t{a[i * lda + p]}) + second);
    }
  }
  return largest;
}

uint8_t MaxByte(const uint8_t* x, int64_t n) {
  return HWY_DYNAMIC_DISPATCH(MaxByteImpl)(x, n);
}

void IntegerGemmPanels(int64_t m, int64_t n, int64_t k, const int16_t* a,
                       int64_t lda, const int16_t* b_packed, int32_t* c,
                       int64_t ldc, int64_t panel_begin, int64_t panel_end) {
  if (m <= 0 || n <= 0 || panel_begin >= panel_end) return;
  HWY_DYNAMIC_DISPATCH(PanelsImpl)
  (m, n, k, a, lda, b_packed, c, ldc, panel_begin, panel_end);
}

void IntegerGemm(int64_t m, int64_t n, int64_t k, const int16_t* a, int64_t lda,
                 const int16_t* b_packed, int32_t* c, int64_t ldc) {
  if (m <= 0 || n <= 0) return;
  const int64_t panels = (n + kIntegerPanel - 1) / kIntegerPanel;
  // A panel of every row is m * depth * 16 multiply-adds; a range below
  // about 2^18 of them costs more to hand to another thread than it saves.
  const int64_t per_panel =
      std::max<int64_t>(1, m * PackedDepth(k) * kIntegerPanel);
  const auto grain =
      static_cast<size_t>(std::max<int64_t>(1, (int64_t{1} << 18) / per_panel));
  ParallelFor(
      static_cast<size_t>(panels), grain, [&](size_t begin, size_t end) {
        const auto first = static_cast<int64_t>(begin);
        IntegerGemmPanels(m, n, k, a, lda,
                          b_packed + first * PackedDepth(k) * kIntegerPanel, c,
                          ldc, first, static_cast<int64_t>(end));
      });
}

}  // namespace acldump
#endif  // HWY_ONCE
