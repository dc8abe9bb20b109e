// Exact int32 products of int16 operands (8-bit values less their zero
// points), for the quantized convolutions and matrix products. The right-hand
// side is packed in panels of kIntegerPanel columns whose rows are interleaved
// in pairs, the layout of the SIMD multiply-add of int16 pairs into int32
// (pmaddwd): every target computes the same exact sums.
#ifndef ACLDUMP_KERNELS_INTEGER_GEMM_H_
#define ACLDUMP_KERNELS_INTEGER_GEMM_H_

#include <cstdint>

namespace acldump {

// Columns per panel of a packed right-hand side.
inline constexpr int64_t kIntegerPanel = 16;

// k rounded up to even: the packed depth (the pad row is zero).
inline int64_t PackedDepth(int64_t k) { return k + (k & 1); }

// Elements of a packed K x N right-hand side: whole panels of PackedDepth(k)
// rows (columns past n are zero).
inline int64_t PackedIntegerSize(int64_t k, int64_t n) {
  return (n + kIntegerPanel - 1) / kIntegerPanel * kIntegerPanel *
         PackedDepth(k);
}

// Where element (row p, column j) of a right-hand side of packed depth
// `depth` lives: panel j / 16, then row pair p / 2, column j % 16, p % 2.
inline int64_t PackedIntegerIndex(int64_t depth, int64_t p, int64_t j) {
  return (j / kIntegerPanel) * (depth * kIntegerPanel) +
         (p / 2) * (2 * kIntegerPanel) + (j % kIntegerPanel) * 2 + (p & 1);
}

// One whole panel of a packed right-hand side of k rows whose element
// (p, j) is base[offsets[p] + j] - zero_point: 16 consecutive positions of
// an im2col, say. The pad row of an odd k is written as zeros.
void PackPanelContiguous(const uint8_t* base, const int64_t* offsets, int64_t k,
                         int32_t zero_point, int16_t* panel);
void PackPanelContiguous(const int8_t* base, const int64_t* offsets, int64_t k,
                         int32_t zero_point, int16_t* panel);

// Bytes a PackPanelRuns source must be readable before its first and past
// its last element: whole vectors are loaded and the lanes outside a run
// dropped.
inline constexpr int64_t kPackSlack = 64;

// One panel of a packed right-hand side of k rows made of runs: lanes
// [run_lanes[r], run_lanes[r + 1]) (the last run ends at `count`) hold
// base[run_origins[r] + (lane - run_lanes[r]) * stride + offsets[p]] -
// zero_point in row p, for stride 1 or 2: 16 positions of an im2col that
// cross output rows. Lanes from `count` on are zero, as is the pad row of an
// odd k.
void PackPanelRuns(const uint8_t* base, const int64_t* offsets, int64_t k,
                   int32_t zero_point, const int64_t* run_lanes,
                   const int64_t* run_origins, int64_t runs, int64_t stride,
                   int64_t count, int16_t* panel);
void PackPanelRuns(const int8_t* base, const int64_t* offsets, int64_t k,
                   int32_t zero_point, const int64_t* run_lanes,
                   const int64_t* run_origins, int64_t runs, int64_t stride,
                   int64_t count, int16_t* panel);

// One output row of a depthwise window sum at unit stride:
// out[j] = sum_t (row[taps[t] + j] - zero_point) * weights[t], j < width,
// exact in int32. Whole vectors are loaded: row[taps[t] + j] must be
// readable up to j < width + kIntegerPanel (see kPackSlack).
void DepthwiseIntegerRow(const uint8_t* row, const int64_t* taps,
                         const int32_t* weights, int64_t tap_count,
                         int32_t zero_point, int64_t width, int32_t* out);
void DepthwiseIntegerRow(const int8_t* row, const int64_t* taps,
                         const int32_t* weights, int64_t tap_count,
                         int32_t zero_point, int64_t width, int32_t* out);

// C[i, j] = sum_p A[i, p] * B[p, j] for i < m and the columns of panels
// [panel_begin, panel_end) below n, on the calling thread. A is row-major
// with row stride lda >= PackedDepth(k) (A[i, k] is read when k is odd; the
// zero pad row of B cancels it); `b_panels` holds panels panel_begin,
// panel_begin + 1, ... of B packed as above; c points at C's column 0.
void IntegerGemmPanels(int64_t m, int64_t n, int64_t k, const int16_t* a,
                       int64_t lda, const int16_t* b_panels, int32_t* c,
                       int64_t ldc, int64_t panel_begin, int64_t panel_end);

// The whole product, its panels split over the intra-op threads: the same
// sums in the same order on any thread count. k may be 0 (C is then zero).
void IntegerGemm(int64_t m, int64_t n, int64_t k, const int16_t* a, int64_t lda,
                 const int16_t* b_packed, int32_t* c, int64_t ldc);

// Byte products: unsigned 8-bit B times signed 8-bit A, four rows of B per
// int32 lane (pmaddubsw, then pmaddwd by ones): half the bytes of the int16
// layout and a quarter fewer instructions per product. pmaddubsw saturates
// each sum of two adjacent products at int16, so the sums are exact only
// when every |A[i, p] * B[p, j] + A[i, p + 1] * B[p + 1, j]| (p even) is at
// most 32767: when (|A[i, p]| + |A[i, p + 1]|) * max(B) is, for every row
// and even p. The caller checks (ByteGemmFits).

// k rounded up to a multiple of 4: the depth of byte panels and weights
// (the pad rows are zero).
inline int64_t QuadDepth(int64_t k) { return (k + 3) / 4 * 4; }

// Bytes of a packed K x N right-hand side: whole panels of QuadDepth(k)
// rows.
inline int64_t PackedByteSize(int64_t k, int64_t n) {
  return (n + kIntegerPanel - 1) / kIntegerPanel * kIntegerPanel * QuadDepth(k);
}

// Where element (row p, column j) of a byte right-hand side of quad depth
// `depth` lives: panel j / 16, then row quad p / 4, column j % 16, p % 4.
inline int64_t PackedByteIndex(int64_t depth, int64_t p, int64_t j) {
  return (j / kIntegerPanel) * (depth * kIntegerPanel) +
         (p / 4) * (4 * kIntegerPanel) + (j % kIntegerPanel) * 4 + (p & 3);
}

// The largest |A[i, p]| + |A[i, p + 1]| over the rows of A (row-major,
// row stride lda) and even p < k.
int32_t LargestPairMagnitude(const int8_t* a, int64_t m, int64_t k,
                             int64_t lda);

// Whether the byte product of an A whose LargestPairMagnitude is
// `pair_magnitude` and a B with values at most b_max is exact (see above).
inline bool ByteGemmFits(int32_t pair_magnitude, int32_t b_max) {
  return int64_t{pair_magnitude} * b_max <= 32767;
}

// The byte form of PackPanelContiguous: element (p, j) is
// base[offsets[p] + j], as it is (no zero point); the pad rows are zero.
void PackBytePanelContiguous(const uint8_t* base, const int64_t* offsets,
                             int64_t k, uint8_t* panel);

// The byte form of PackPanelRuns (same runs, stride 1 or 2, and slack).
void PackBytePanelRuns(const uint8_t* base, const int64_t* offsets, int64_t k,
                       const int64_t* run_lanes, const int64_t* run_origins,
                       int64_t runs, int64_t stride, int64_t count,
                       uint8_t* panel);

// C[i, j] = sum_p A[i, p] * B[p, j] - row_offsets[i] for i < m and the
// columns of panels [panel_begin, panel_end) below n, on the calling
// thread. A is row-major int8 with row stride lda >= QuadDepth(k), zero
// from k to QuadDepth(k); `b_panels` holds panels panel_begin, ... of B in
// the byte layout. Exact when the operands fit (ByteGemmFits).
void ByteGemmPanels(int64_t m, int64_t n, int64_t k, const int8_t* a,
                    int64_t lda, const int32_t* row_offsets,
                    const uint8_t* b_panels, int32_t* c, int64_t ldc,
                    int64_t panel_begin, int64_t panel_end);

// The largest of x[0..n) (0 when n is 0).
uint8_t MaxByte(const uint8_t* x, int64_t n);

}  // namespace acldump

#endif  // ACLDUMP_KERNELS_INTEGER_GEMM_H_
