// The GEMMs shared by MatMul, Gemm and Einsum: one GEMM on one thread (oneDNN
// for float32, a plain loop in the compute type for the others), and a batch
// of GEMMs split over the intra-op threads.
#ifndef ACLDUMP_KERNELS_MATMUL_INTERNAL_H_
#define ACLDUMP_KERNELS_MATMUL_INTERNAL_H_

#include <algorithm>
#include <mutex>

#include "kernels/kernel_util.h"
#include "kernels/threading.h"
#include "oneapi/dnnl/dnnl.h"

namespace acldump {

// Element types MatMul and Gemm compute in (the narrow integers and bool have
// no kernel).
template <typename T>
inline constexpr bool kHasMatMulKernel =
    !(std::is_same_v<T, bool> || std::is_same_v<T, int8_t> ||
      std::is_same_v<T, int16_t> || std::is_same_v<T, uint8_t>);

// C[m,n] (+)= A[m,k] * B[k,n] for row-major dense matrices with leading
// dimensions.
template <typename T>
inline absl::Status Gemm(bool trans_a, bool trans_b, int64_t m, int64_t n,
                         int64_t k, T alpha, const T* a, int64_t lda,
                         const T* b, int64_t ldb, T beta, T* c, int64_t ldc) {
  if constexpr (std::is_same_v<T, float>) {
    // One thread: oneDNN may split K over threads, and a split sum would
    // change the bits with the thread count. Callers split whole GEMMs.
    ScopedIntraOpThreads one_thread(1);
    const dnnl_status_t status =
        dnnl_sgemm(trans_a ? 'T' : 'N', trans_b ? 'T' : 'N', m, n, k, alpha, a,
                   lda, b, ldb, beta, c, ldc);
    if (status == dnnl_success) return absl::OkStatus();
    if (status == dnnl_out_of_memory) {
      return absl::ResourceExhaustedError(StrCat(
          "out of memory in the GEMM (M=", m, ", N=", n, ", K=", k, ")"));
    }
    return absl::InternalError(StrCat("the GEMM (M=", m, ", N=", n, ", K=", k,
                                      ") failed with oneDNN status ",
                                      static_cast<int>(status)));
  } else {
    // Other types: a plain loop in the compute type (float64 accumulates in
    // double; rare, not a hot path).
    using C = ComputeType<T>;
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        C sum = 0;
        for (int64_t p = 0; p < k; ++p) {
          const C av = Load(trans_a ? a[p * lda + i] : a[i * lda + p]);
          const C bv = Load(trans_b ? b[j * ldb + p] : b[p * ldb + j]);
          sum += av * bv;
        }
        C result = Load(alpha) * sum;
        if (Load(beta) != C(0)) result += Load(beta) * Load(c[i * ldc + j]);
        c[i * ldc + j] = Store<T>(result);
      }
    }
    return absl::OkStatus();
  }
}

// C_i[m, n] = A_i[m, k] * B_i[k, n] for i < count, each matrix dense and
// row-major, A_i = a_of(i), B_i = b_of(i), C_i at c + i * m * n. Batches on
// the intra-op threads, each GEMM on one, so the bits do not depend on the
// thread count. Reports the first failure in batch order.
template <typename T, typename AOf, typename BOf>
absl::Status BatchedGemm(size_t count, int64_t m, int64_t n, int64_t k,
                         AOf a_of, BOf b_of, T* c) {
  std::mutex failure_mutex;
  size_t failed_batch = count;
  absl::Status failure;
  const size_t grain = static_cast<size_t>(std::max<int64_t>(
      1, (int64_t{1} << 18) / std::max<int64_t>(1, m * n * k)));
  ParallelFor(count, grain, [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) {
      T* ci = c + static_cast<int64_t>(i) * m * n;
      if (k == 0) {
        std::fill(ci, ci + m * n, Store<T>(0.0f));
        continue;
      }
      absl::Status status =
          Gemm<T>(false, false, m, n, k, Store<T>(1.0f), a_of(i), k, b_of(i), n,
                  Store<T>(0.0f), ci, n);
      if (!status.ok()) {
        std::lock_guard<std::mutex> lock(failure_mutex);
        if (i < failed_batch) {
          failed_batch = i;
          failure = std::move(status);
        }
      }
    }
  });
  return failure;
}

}  // namespace acldump

#endif  // ACLDUMP_KERNELS_MATMUL_INTERNAL_H_
