#include "kernels/gemm.h"

#include <algorithm>
#include <cstring>

#include "kernels/threading.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/gemm.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

// After highway.h, which it needs per target.
#include "kernels/activation-inl.h"

HWY_BEFORE_NAMESPACE();
namespace acldump::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
using D = hn::ScalableTag<float>;

// A tile of C is kMaxRows x (two vectors): 12 accumulators, two B vectors and
// one broadcast A value fit the 16 registers of AVX2.
constexpr int64_t kMaxRows = 6;
// Rows of A kept hot (in L2) while the panels of B stream past them.
constexpr int64_t kRowBlock = 16 * kMaxRows;

int64_t PanelWidthImpl() { return 2 * static_cast<int64_t>(hn::Lanes(D())); }

// kVectors (1 or 2) vectors of C per row of A, summed over `depth` steps:
// A(r, p) at a[r * a_row + p * a_step], row p of B at b + p * b_step.
template <int kRows, int kVectors = 2>
struct Accumulators {
  hn::Vec<D> lo[kRows];
  hn::Vec<D> hi[kVectors == 2 ? kRows : 1];
};

template <int kRows, int kVectors = 2>
HWY_INLINE Accumulators<kRows, kVectors> Accumulate(
    int64_t depth, const float* HWY_RESTRICT a, int64_t a_row, int64_t a_step,
    const float* HWY_RESTRICT b, int64_t b_step) {
  const D d;
  using V = hn::Vec<D>;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  Accumulators<kRows, kVectors> acc;
#pragma GCC unroll 6
  for (int r = 0; r < kRows; ++r) {
    acc.lo[r] = hn::Zero(d);
    if constexpr (kVectors == 2) acc.hi[r] = hn::Zero(d);
  }
  for (int64_t p = 0; p < depth; ++p) {
    const V b0 = hn::LoadU(d, b + p * b_step);
    const V b1 = kVectors == 2 ? hn::LoadU(d, b + p * b_step + lanes) : b0;
#pragma GCC unroll 6
    for (int r = 0; r < kRows; ++r) {
      const V av = hn::Set(d, a[r * a_row + p * a_step]);
      acc.lo[r] = hn::MulAdd(av, b0, acc.lo[r]);
      if constexpr (kVectors == 2) acc.hi[r] = hn::MulAdd(av, b1, acc.hi[r]);
    }
  }
  return acc;
}

// C tile (kRows x cols, cols <= panel width) from `depth` steps of A's rows
// against one panel of B. The first depth block applies beta * C; later blocks
// add to what the earlier ones stored; the last adds `bias` (the panel's
// columns) when not null, after the whole sum, as a separate Add would.
template <int kRows>
HWY_INLINE void Tile(int64_t depth, const float* HWY_RESTRICT a, int64_t lda,
                     const float* HWY_RESTRICT panel, float* HWY_RESTRICT c,
                     int64_t ldc, int64_t cols, float alpha, float beta,
                     bool first, const float* HWY_RESTRICT bias) {
  const D d;
  using V = hn::Vec<D>;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const Accumulators<kRows> acc =
      Accumulate<kRows>(depth, a, lda, 1, panel, 2 * lanes);
  const V va = hn::Set(d, alpha);
  const V vb = hn::Set(d, beta);
  HWY_ALIGN float partial[2 * HWY_MAX_BYTES / sizeof(float)];
#pragma GCC unroll 6
  for (int r = 0; r < kRows; ++r) {
    float* row = c + r * ldc;
    V out0 = hn::Mul(acc.lo[r], va);
    V out1 = hn::Mul(acc.hi[r], va);
    if (cols == 2 * lanes) {
      if (!first) {
        out0 = hn::Add(hn::LoadU(d, row), out0);
        out1 = hn::Add(hn::LoadU(d, row + lanes), out1);
      } else if (beta != 0.0f) {
        out0 = hn::MulAdd(vb, hn::LoadU(d, row), out0);
        out1 = hn::MulAdd(vb, hn::LoadU(d, row + lanes), out1);
      }
      if (bias != nullptr) {
        out0 = hn::Add(out0, hn::LoadU(d, bias));
        out1 = hn::Add(out1, hn::LoadU(d, bias + lanes));
      }
      hn::StoreU(out0, d, row);
      hn::StoreU(out1, d, row + lanes);
    } else {
      hn::Store(out0, d, partial);
      hn::Store(out1, d, partial + lanes);
      for (int64_t j = 0; j < cols; ++j) {
        const float sum = !first         ? row[j] + partial[j]
                          : beta != 0.0f ? beta * row[j] + partial[j]
                                         : partial[j];
        row[j] = bias != nullptr ? sum + bias[j] : sum;
      }
    }
  }
}

void GemmPackedBImpl(int64_t m, const float* a, int64_t lda,
                     const PackedMatrixB& b, float* c, int64_t ldc, float alpha,
                     float beta, const float* bias) {
  const int64_t width = b.panel_width();
  const int64_t n = b.n();
  const int64_t k = b.k();
  const int64_t panels = (n + width - 1) / width;
  // At least ~256k multiply-adds per thread: waking a thread costs
  // microseconds.
  const int64_t per_panel = std::max<int64_t>(1, m * k * width);
  const size_t grain =
      static_cast<size_t>(std::max<int64_t>(1, (int64_t{1} << 18) / per_panel));
  ParallelFor(panels, grain, [&](size_t first_panel, size_t end_panel) {
    for (int64_t k0 = 0; k0 < k; k0 += PackedMatrixB::kDepthBlock) {
      const int64_t depth = std::min(PackedMatrixB::kDepthBlock, k - k0);
      const bool first = k0 == 0;
      for (int64_t i0 = 0; i0 < m; i0 += kRowBlock) {
        const int64_t rows_end = std::min(m, i0 + kRowBlock);
        for (int64_t panel = static_cast<int64_t>(first_panel);
             panel < static_cast<int64_t>(end_panel); ++panel) {
          const float* bp = b.Panel(k0, panel);
          const int64_t cols = std::min(width, n - panel * width);
          const float* panel_bias = bias != nullptr && k0 + depth == k
                                        ? bias + panel * width
                                        : nullptr;
          for (int64_t i = i0; i < rows_end; i += kMaxRows) {
            const float* ap = a + i * lda + k0;
            float* cp = c + i * ldc + panel * width;
            switch (std::min(kMaxRows, rows_end - i)) {
#define ACLDUMP_GEMM_TILE(ROWS)                                       \
  case ROWS:                                                          \
    Tile<ROWS>(depth, ap, lda, bp, cp, ldc, cols, alpha, beta, first, \
               panel_bias);                                           \
    break;
              ACLDUMP_GEMM_TILE(1)
              ACLDUMP_GEMM_TILE(2)
              ACLDUMP_GEMM_TILE(3)
              ACLDUMP_GEMM_TILE(4)
              ACLDUMP_GEMM_TILE(5)
              ACLDUMP_GEMM_TILE(6)
#undef ACLDUMP_GEMM_TILE
            }
          }
        }
      }
    }
  });
}

// The epilogue's activations, in the operations of the Clip and HardSwish
// kernels (kernels/activation-inl.h).
HWY_INLINE hn::Vec<D> Activate(D d, hn::Vec<D> x, const GemmEpilogue& e) {
  if (e.clamp) x = ClampByCompares(d, x, e.lo, e.hi);
  if (e.hard_swish) x = HardSwishOf(d, x);
  return x;
}

void FinishImpl(float* y, const float* residual, int64_t n,
                const GemmEpilogue& e) {
  const D d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    auto v = hn::LoadU(d, y + i);
    if (residual != nullptr) v = hn::Add(v, hn::LoadU(d, residual + i));
    hn::StoreU(Activate(d, v, e), d, y + i);
  }
  if (i < n) {
    HWY_ALIGN float buffer[HWY_MAX_BYTES / sizeof(float)] = {};
    HWY_ALIGN float res[HWY_MAX_BYTES / sizeof(float)] = {};
    std::memcpy(buffer, y + i, (n - i) * sizeof(float));
    if (residual != nullptr)
      std::memcpy(res, residual + i, (n - i) * sizeof(float));
    auto v = hn::Load(d, buffer);
    if (residual != nullptr) v = hn::Add(v, hn::Load(d, res));
    hn::Store(Activate(d, v, e), d, buffer);
    std::memcpy(y + i, buffer, (n - i) * sizeof(float));
  }
}

// C tile (kRows x cols) += A panel * B columns, B rows `ldb` apart; cols is
// at most kVectors vectors (one for a narrow last panel, which would
// otherwise compute a second vector of padding). The first depth block starts
// from the bias, the last clamps. Each element of C sums over K in the same
// order whatever kVectors.
template <int kRows, int kVectors>
HWY_INLINE void TileA(int64_t depth, const float* HWY_RESTRICT a_panel,
                      const float* HWY_RESTRICT b, int64_t ldb,
                      float* HWY_RESTRICT c, int64_t ldc, int64_t cols,
                      bool first, bool last, const float* bias,
                      const float* residual, const GemmEpilogue& epilogue) {
  const D d;
  using V = hn::Vec<D>;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const Accumulators<kRows, kVectors> acc = Accumulate<kRows, kVectors>(
      depth, a_panel, 1, PackedMatrixA::kRowTile, b, ldb);
  HWY_ALIGN float partial[2 * HWY_MAX_BYTES / sizeof(float)];
  const bool full = cols == kVectors * lanes;
  // A residual or HardSwish follows on the stored tile (in L1): in this loop
  // they would keep it from unrolling, which costs the plain tiles 10 %.
  const bool finish_after =
      last && (residual != nullptr || epilogue.hard_swish);
#pragma GCC unroll 6
  for (int r = 0; r < kRows; ++r) {
    float* row = c + r * ldc;
    V out[kVectors];
    out[0] = acc.lo[r];
    if constexpr (kVectors == 2) out[1] = acc.hi[r];
    if (!first) {
      if (full) {
        for (int v = 0; v < kVectors; ++v)
          out[v] = hn::Add(hn::LoadU(d, row + v * lanes), out[v]);
      } else {
        for (int v = 0; v < kVectors; ++v)
          hn::Store(out[v], d, partial + v * lanes);
        for (int64_t j = 0; j < cols; ++j) partial[j] = row[j] + partial[j];
        for (int v = 0; v < kVectors; ++v)
          out[v] = hn::Load(d, partial + v * lanes);
      }
    } else if (bias != nullptr) {
      const V vb = hn::Set(d, bias[r]);
      for (int v = 0; v < kVectors; ++v) out[v] = hn::Add(out[v], vb);
    }
    if (last && epilogue.clamp && !finish_after) {
      for (int v = 0; v < kVectors; ++v) {
        out[v] = ClampByCompares(d, out[v], epilogue.lo, epilogue.hi);
      }
    }
    if (full) {
      for (int v = 0; v < kVectors; ++v) hn::StoreU(out[v], d, row + v * lanes);
    } else {
      for (int v = 0; v < kVectors; ++v)
        hn::Store(out[v], d, partial + v * lanes);
      for (int64_t j = 0; j < cols; ++j) row[j] = partial[j];
    }
  }
  if (finish_after) {
    for (int r = 0; r < kRows; ++r) {
      FinishImpl(c + r * ldc,
                 residual != nullptr ? residual + r * ldc : nullptr, cols,
                 epilogue);
    }
  }
}

// Columns past the last whole panel of GemmPackedA, when there are only a few
// (a 7x7 plane is 49 columns: three panels and one): a column at a time with
// A's packed row tiles on the lanes, eight tiles at once so the FMA chains
// overlap, where a tile of B columns would compute a vector or two of
// padding. Each element sums over K in TileA's order and gets its epilogue.
// Columns [j_begin, j_end) of the row tiles [t_begin, t_end).
void TailColumns(const PackedMatrixA& a, int64_t k0, int64_t depth,
                 const float* b, int64_t ldb, int64_t j_begin, int64_t j_end,
                 int64_t t_begin, int64_t t_end, float* c, int64_t ldc,
                 bool first, bool last, const GemmEpilogue& epilogue) {
  const D d;
  using V = hn::Vec<D>;
  constexpr int64_t kTile = PackedMatrixA::kRowTile;
  constexpr int kGroup = 8;
  const int64_t m = a.m();
  const int64_t tiles = t_end;
  HWY_ALIGN float column[PackedMatrixB::kDepthBlock];
  static_assert(HWY_MAX_BYTES <= PackedMatrixA::kPaddingBytes,
                "a packed A's padding must cover this target's vector");
  // Only called with a tile on one vector's lanes; sized for any target.
  HWY_ALIGN float lane[std::max<size_t>(kTile, HWY_MAX_BYTES / sizeof(float))] =
      {};
  for (int64_t j = j_begin; j < j_end; ++j) {
    for (int64_t p = 0; p < depth; ++p) column[p] = b[(k0 + p) * ldb + j];
    for (int64_t t0 = t_begin; t0 < tiles; t0 += kGroup) {
      const int group = static_cast<int>(std::min<int64_t>(kGroup, tiles - t0));
      const float* panel[kGroup];
      V acc[kGroup];
      for (int q = 0; q < kGroup; ++q) {
        panel[q] = a.Panel(k0, t0 + std::min(q, group - 1));
        acc[q] = hn::Zero(d);
      }
      for (int64_t p = 0; p < depth; ++p) {
        const V x = hn::Set(d, column[p]);
#pragma GCC unroll 8
        for (int q = 0; q < kGroup; ++q) {
          acc[q] = hn::MulAdd(hn::LoadU(d, panel[q] + p * kTile), x, acc[q]);
        }
      }
      for (int q = 0; q < group; ++q) {
        const int64_t row0 = (t0 + q) * kTile;
        const int64_t rows = std::min<int64_t>(kTile, m - row0);
        V out = acc[q];
        if (!first) {
          for (int64_t r = 0; r < rows; ++r) lane[r] = c[(row0 + r) * ldc + j];
          out = hn::Add(hn::Load(d, lane), out);
        } else if (epilogue.bias != nullptr) {
          for (int64_t r = 0; r < rows; ++r) lane[r] = epilogue.bias[row0 + r];
          out = hn::Add(out, hn::Load(d, lane));
        }
        if (last) {
          if (epilogue.residual != nullptr) {
            for (int64_t r = 0; r < rows; ++r) {
              lane[r] = epilogue.residual[(row0 + r) * ldc + j];
            }
            out = hn::Add(out, hn::Load(d, lane));
          }
          out = Activate(d, out, epilogue);
        }
        hn::Store(out, d, lane);
        for (int64_t r = 0; r < rows; ++r) c[(row0 + r) * ldc + j] = lane[r];
      }
    }
  }
}

void GemmPackedAImpl(const PackedMatrixA& a, int64_t n, const float* b,
                     int64_t ldb, float* c, int64_t ldc,
                     const GemmEpilogue& epilogue) {
  const D d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const int64_t width = 2 * lanes;
  const int64_t m = a.m();
  const int64_t k = a.k();
  constexpr int64_t kTile = PackedMatrixA::kRowTile;
  const int64_t panels = (n + width - 1) / width;
  // A last panel of at most kTailColumns columns goes to TailColumns (which
  // needs a row tile on one vector's lanes).
  constexpr int64_t kTailColumns = 4;
  const int64_t tail_columns = n % width;
  const bool tail =
      lanes >= kTile && tail_columns != 0 && tail_columns <= kTailColumns;
  const int64_t tiles = (m + kTile - 1) / kTile;
  // Panels [first_panel, end_panel) of the row tiles [t_begin, t_end).
  auto run = [&](size_t first_panel, size_t end_panel, int64_t t_begin,
                 int64_t t_end) {
    HWY_ALIGN float panel_copy[PackedMatrixB::kDepthBlock * 2 * HWY_MAX_BYTES /
                               sizeof(float)];
    const int64_t tiled_end = tail && static_cast<int64_t>(end_panel) == panels
                                  ? panels - 1
                                  : static_cast<int64_t>(end_panel);
    // Per depth block and panel of B (kept in L1), every row tile of A.
    for (int64_t k0 = 0; k0 < k; k0 += PackedMatrixB::kDepthBlock) {
      const int64_t depth = std::min(PackedMatrixB::kDepthBlock, k - k0);
      const bool first = k0 == 0;
      const bool last = k0 + depth == k;
      if (tiled_end < static_cast<int64_t>(end_panel)) {
        TailColumns(a, k0, depth, b, ldb, n - tail_columns, n, t_begin, t_end,
                    c, ldc, first, last, epilogue);
      }
      for (int64_t panel = static_cast<int64_t>(first_panel); panel < tiled_end;
           ++panel) {
        const int64_t j = panel * width;
        const int64_t cols = std::min(width, n - j);
        // The panel is copied together (zero-padded past n): its rows lie
        // an image plane apart, a page or more, and reading them in place
        // would miss the TLB on every step of K.
        const float* source = b + k0 * ldb + j;
        for (int64_t p = 0; p < depth; ++p) {
          if (cols == width) {
            // Two vectors, inline: a memcpy call per 64 bytes costs more.
            hn::Store(hn::LoadU(d, source + p * ldb), d,
                      panel_copy + p * width);
            hn::Store(hn::LoadU(d, source + p * ldb + lanes), d,
                      panel_copy + p * width + lanes);
          } else {
            for (int64_t q = 0; q < width; ++q) {
              panel_copy[p * width + q] = q < cols ? source[p * ldb + q] : 0.0f;
            }
          }
        }
        const float* bp = panel_copy;
        const int64_t bstride = width;
        for (int64_t i = t_begin * kTile; i < std::min(m, t_end * kTile);
             i += kTile) {
          const float* ap = a.Panel(k0, i / kTile);
          float* cp = c + i * ldc + j;
          const float* bias =
              epilogue.bias != nullptr ? epilogue.bias + i : nullptr;
          const float* residual = epilogue.residual != nullptr
                                      ? epilogue.residual + i * ldc + j
                                      : nullptr;
          const bool narrow = cols <= lanes;
          switch (std::min(kTile, m - i)) {
#define ACLDUMP_GEMM_TILE_A(ROWS)                                              \
  case ROWS:                                                                   \
    if (narrow) {                                                              \
      TileA<ROWS, 1>(depth, ap, bp, bstride, cp, ldc, cols, first, last, bias, \
                     residual, epilogue);                                      \
    } else {                                                                   \
      TileA<ROWS, 2>(depth, ap, bp, bstride, cp, ldc, cols, first, last, bias, \
                     residual, epilogue);                                      \
    }                                                                          \
    break;
            ACLDUMP_GEMM_TILE_A(1)
            ACLDUMP_GEMM_TILE_A(2)
            ACLDUMP_GEMM_TILE_A(3)
            ACLDUMP_GEMM_TILE_A(4)
            ACLDUMP_GEMM_TILE_A(5)
            ACLDUMP_GEMM_TILE_A(6)
#undef ACLDUMP_GEMM_TILE_A
          }
        }
      }
    }
  };
  // Each C element is summed over K in the same order whichever thread
  // computes it, so the split does not change a bit. By columns, every thread
  // streams all of A; with few column panels (a 7x7 or 14x14 image: 2 to 7)
  // that leaves threads idle or waiting on A, so the rows are split instead
  // and each thread streams its share of A.
  const int64_t threads = CurrentIntraOpThreads();
  if (threads > 1 && panels < 4 * threads && tiles >= 2 * threads) {
    const int64_t per_tile = std::max<int64_t>(1, kTile * k * n);
    const size_t grain = static_cast<size_t>(
        std::max<int64_t>(1, (int64_t{1} << 18) / per_tile));
    ParallelFor(
        static_cast<size_t>(tiles), grain, [&](size_t t_begin, size_t t_end) {
          run(0, static_cast<size_t>(panels), static_cast<int64_t>(t_begin),
              static_cast<int64_t>(t_end));
        });
    return;
  }
  const int64_t per_panel = std::max<int64_t>(1, m * k * width);
  const size_t grain =
      static_cast<size_t>(std::max<int64_t>(1, (int64_t{1} << 18) / per_panel));
  ParallelFor(panels, grain, [&](size_t first_panel, size_t end_panel) {
    run(first_panel, end_panel, 0, tiles);
  });
}

}  // namespace acldump::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace acldump {

HWY_EXPORT(PanelWidthImpl);
HWY_EXPORT(GemmPackedBImpl);
HWY_EXPORT(GemmPackedAImpl);
HWY_EXPORT(FinishImpl);

void FinishGemmOutput(float* y, const float* residual, int64_t n,
                      const GemmEpilogue& epilogue) {
  if (n > 0) HWY_DYNAMIC_DISPATCH(FinishImpl)(y, residual, n, epilogue);
}

PackedMatrixA PackedMatrixA::Pack(const float* a, int64_t m, int64_t k,
                                  int64_t lda) {
  PackedMatrixA packed;
  packed.m_ = m;
  packed.k_ = k;
  packed.padded_m_ = (m + kRowTile - 1) / kRowTile * kRowTile;
  // A vector's load past the last row tile stays inside (TailColumns).
  packed.data_ =
      AlignedBuffer(k * packed.padded_m_ * sizeof(float) + kPaddingBytes);
  float* out = reinterpret_cast<float*>(packed.data_.data());
  for (int64_t k0 = 0; k0 < k; k0 += PackedMatrixB::kDepthBlock) {
    const int64_t depth = std::min(PackedMatrixB::kDepthBlock, k - k0);
    for (int64_t panel = 0; panel * kRowTile < m; ++panel) {
      float* dst = out + k0 * packed.padded_m_ + panel * depth * kRowTile;
      for (int64_t p = 0; p < depth; ++p) {
        for (int64_t r = 0; r < kRowTile; ++r) {
          const int64_t row = panel * kRowTile + r;
          dst[p * kRowTile + r] = row < m ? a[row * lda + k0 + p] : 0.0f;
        }
      }
    }
  }
  return packed;
}

void GemmPackedA(const PackedMatrixA& a, int64_t n, const float* b, int64_t ldb,
                 float* c, int64_t ldc, const GemmEpilogue& epilogue) {
  if (a.m() <= 0 || n <= 0) return;
  if (a.k() == 0) {
    for (int64_t i = 0; i < a.m(); ++i) {
      float* row = c + i * ldc;
      std::fill(row, row + n,
                epilogue.bias != nullptr ? epilogue.bias[i] : 0.0f);
      FinishGemmOutput(
          row,
          epilogue.residual != nullptr ? epilogue.residual + i * ldc : nullptr,
          n, epilogue);
    }
    return;
  }
  HWY_DYNAMIC_DISPATCH(GemmPackedAImpl)(a, n, b, ldb, c, ldc, epilogue);
}

PackedMatrixB PackedMatrixB::Pack(const float* b, int64_t k, int64_t n,
                                  int64_t ldb, bool transposed) {
  PackedMatrixB packed;
  const int64_t width = HWY_DYNAMIC_DISPATCH(PanelWidthImpl)();
  packed.k_ = k;
  packed.n_ = n;
  packed.panel_width_ = width;
  packed.padded_n_ = (n + width - 1) / width * width;
  packed.data_ =
      AlignedBuffer(std::max<size_t>(1, k * packed.padded_n_ * sizeof(float)));
  float* out = reinterpret_cast<float*>(packed.data_.data());
  for (int64_t k0 = 0; k0 < k; k0 += kDepthBlock) {
    const int64_t depth = std::min(kDepthBlock, k - k0);
    for (int64_t panel = 0; panel * width < n; ++panel) {
      float* dst = out + k0 * packed.padded_n_ + panel * depth * width;
      const int64_t cols = std::min(width, n - panel * width);
      for (int64_t p = 0; p < depth; ++p) {
        for (int64_t j = 0; j < cols; ++j) {
          const int64_t col = panel * width + j;
          dst[p * width + j] =
              transposed ? b[col * ldb + k0 + p] : b[(k0 + p) * ldb + col];
        }
        // Padding columns stay 0 (the buffer starts zeroed).
      }
    }
  }
  return packed;
}

void GemmPackedB(int64_t m, const float* a, int64_t lda, const PackedMatrixB& b,
                 float* c, int64_t ldc, float alpha, float beta,
                 const float* bias) {
  if (m <= 0 || b.n() <= 0) return;
  if (b.k() == 0) {
    for (int64_t i = 0; i < m; ++i) {
      float* row = c + i * ldc;
      for (int64_t j = 0; j < b.n(); ++j) {
        const float product = beta != 0.0f ? beta * row[j] : 0.0f;
        row[j] = bias != nullptr ? product + bias[j] : product;
      }
    }
    return;
  }
  HWY_DYNAMIC_DISPATCH(GemmPackedBImpl)
  (m, a, lda, b, c, ldc, alpha, beta, bias);
}

}  // namespace acldump
#endif  // HWY_ONCE
