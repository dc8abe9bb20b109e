// Float32 GEMM against a right-hand matrix packed once: the weights of MatMul
// and Gemm nodes are constant, so their packing (the part of a GEMM call that
// is pure data movement) moves from every execution to model load.
//
// The kernel is a register-blocked outer-product loop on the widest SIMD
// target the CPU has (Highway's dynamic dispatch). Each element of C is summed
// over K in the same order whatever the thread count, so results are
// bit-identical on 1 or N threads.
#ifndef ACLDUMP_KERNELS_GEMM_H_
#define ACLDUMP_KERNELS_GEMM_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "kernels/tensor.h"

namespace acldump {

// B [K, N] in panels: for each block of kGemmDepthBlock rows of K, the columns
// in panels of panel_width(), each panel's rows contiguous and the last panel
// zero-padded.
class PackedMatrixB {
 public:
  PackedMatrixB() = default;
  // b is [k, n] with row stride ldb, or, transposed, [n, k] with row stride
  // ldb.
  static PackedMatrixB Pack(const float* b, int64_t k, int64_t n, int64_t ldb,
                            bool transposed);

  int64_t k() const { return k_; }
  int64_t n() const { return n_; }
  int64_t panel_width() const { return panel_width_; }
  size_t bytes() const { return data_.size(); }
  // The panel holding columns [panel * panel_width(), ...) of the depth
  // block starting at row `k_begin`.
  const float* Panel(int64_t k_begin, int64_t panel) const {
    const int64_t depth = std::min<int64_t>(kDepthBlock, k_ - k_begin);
    return reinterpret_cast<const float*>(data_.data()) + k_begin * padded_n_ +
           panel * depth * panel_width_;
  }

  static constexpr int64_t kDepthBlock = 256;

 private:
  int64_t k_ = 0, n_ = 0, padded_n_ = 0, panel_width_ = 0;
  AlignedBuffer data_;
};

// A [M, K] in panels of kGemmRowTile rows: for each block of
// PackedMatrixB::kDepthBlock columns of K, the panels in order, each panel
// column by column (kGemmRowTile values per step of K), the last panel
// zero-padded. For a 1x1 convolution A is the weights [out, in].
class PackedMatrixA {
 public:
  PackedMatrixA() = default;
  static PackedMatrixA Pack(const float* a, int64_t m, int64_t k, int64_t lda);

  int64_t m() const { return m_; }
  int64_t k() const { return k_; }
  size_t bytes() const { return data_.size(); }
  const float* Panel(int64_t k_begin, int64_t panel) const {
    const int64_t depth =
        std::min<int64_t>(PackedMatrixB::kDepthBlock, k_ - k_begin);
    return reinterpret_cast<const float*>(data_.data()) + k_begin * padded_m_ +
           panel * depth * kRowTile;
  }

  static constexpr int64_t kRowTile = 6;
  // Bytes after the last row tile that a vector load of a tile may read
  // (TailColumns loads a whole vector at a tile): the widest vector of any
  // target built here, AVX-512's. HWY_MAX_BYTES cannot say it outside the
  // per-target code, where it is the baseline target's width.
  static constexpr size_t kPaddingBytes = 64;

 private:
  int64_t m_ = 0, k_ = 0, padded_m_ = 0;
  AlignedBuffer data_;
};

// What to do with C after the GEMM, row by row: add bias[row] (when not
// null) to the first partial sum, add `residual` (laid out as C, when not
// null) to the finished sum, then clamp to [lo, hi] by compares (NaN kept;
// Relu is lo = 0, hi = +inf) and/or apply HardSwish as HardSwishFloat32
// does. Each step is rounded as the separate Add, Relu/Clip and HardSwish
// nodes would round it.
struct GemmEpilogue {
  const float* bias = nullptr;
  bool clamp = false;
  float lo = 0.0f;
  float hi = 0.0f;
  const float* residual = nullptr;
  bool hard_swish = false;
};

// The epilogue's last steps on n finished values y (bias already in): add
// residual[0..n) when not null, then the activations. For kernels that
// write their sums without it (depthwise, oneDNN).
void FinishGemmOutput(float* y, const float* residual, int64_t n,
                      const GemmEpilogue& epilogue);

// C[m, n] = A * B[k, n] (+ epilogue) for A packed once and B read in place,
// rows of B with stride ldb, rows of C with stride ldc: a 1x1 convolution of
// an NCHW image, W [out, in] times X [in, H*W]. Split over the columns on the
// intra-op threads; each element sums over K in the same order whatever the
// split.
void GemmPackedA(const PackedMatrixA& a, int64_t n, const float* b, int64_t ldb,
                 float* c, int64_t ldc, const GemmEpilogue& epilogue);

// C[m, n] = alpha * A[m, k] * B + beta * C (+ bias[n]), A row-major with row
// stride lda, C with row stride ldc. beta == 0 never reads C (it may hold
// anything). A bias is added to the finished sum, as a separate Add would.
// Runs on the intra-op threads of the calling thread (kernels/threading.h).
void GemmPackedB(int64_t m, const float* a, int64_t lda, const PackedMatrixB& b,
                 float* c, int64_t ldc, float alpha, float beta,
                 const float* bias = nullptr);

}  // namespace acldump

#endif  // ACLDUMP_KERNELS_GEMM_H_
