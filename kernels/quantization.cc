#include "kernels/quantization.h"

#include <algorithm>

#include "kernels/kernel_util.h"
#include "kernels/threading.h"

namespace acldump {

absl::Status CheckQuantParam(const TensorInfo& param, std::string_view what,
                             int64_t channels) {
  const int64_t count = param.shape.NumElements();
  if (count == 1 && param.shape.rank() <= 1) return absl::OkStatus();
  if (channels > 0 && param.shape.rank() == 1 && count == channels) {
    return absl::OkStatus();
  }
  if (channels > 0) {
    return InvalidArgument(what, " has shape ", param.shape.ToString(),
                           "; expected one value (per tensor) or [", channels,
                           "] (one per channel along the axis)");
  }
  return InvalidArgument(what, " has shape ", param.shape.ToString(),
                         "; expected one value (per-tensor quantization)");
}

absl::Status CheckZeroPoint(const OpContext& context, size_t slot,
                            DType data_type, std::string_view what,
                            int64_t channels) {
  if (!context.has_input(slot)) return absl::OkStatus();
  const TensorInfo& zp = context.inputs[slot];
  if (zp.dtype != data_type) {
    return InvalidArgument(what, " is ", DTypeName(zp.dtype),
                           "; it must have its operand's type ",
                           DTypeName(data_type));
  }
  return CheckQuantParam(zp, what, channels);
}

float ParamAsFloat(const TensorView& param, int64_t channel) {
  const int64_t i = param.NumElements() == 1 ? 0 : channel;
  return VisitDType(param.dtype, [&]<typename T>() -> float {
    return static_cast<float>(Load(param.as<const T>()[i]));
  });
}

int32_t ParamAsInt(const TensorView& param, int64_t channel) {
  const int64_t i = param.NumElements() == 1 ? 0 : channel;
  return VisitDType(param.dtype, [&]<typename T>() -> int32_t {
    return static_cast<int32_t>(Load(param.as<const T>()[i]));
  });
}

namespace {

// int16 x int16 summed in int32: compilers turn this loop into the SIMD
// multiply-add of pairs (pmaddwd).
int32_t Dot(const int16_t* a, const int16_t* b, int64_t k) {
  int32_t sum = 0;
  for (int64_t p = 0; p < k; ++p) sum += int32_t{a[p]} * int32_t{b[p]};
  return sum;
}

}  // namespace

namespace {

// C[i, j..j+3] for two rows i, i+1: eight sums that share each load of A
// and Bt (one Dot per output loads two values per multiply-add).
void Dot2x4(const int16_t* a0, const int16_t* a1, const int16_t* b0,
            int64_t ldb, int64_t k, int32_t* c0, int32_t* c1) {
  const int16_t* b1 = b0 + ldb;
  const int16_t* b2 = b1 + ldb;
  const int16_t* b3 = b2 + ldb;
  int32_t s00 = 0, s01 = 0, s02 = 0, s03 = 0, s10 = 0, s11 = 0, s12 = 0,
          s13 = 0;
  for (int64_t p = 0; p < k; ++p) {
    const int32_t x0 = a0[p], x1 = a1[p];
    s00 += x0 * b0[p];
    s01 += x0 * b1[p];
    s02 += x0 * b2[p];
    s03 += x0 * b3[p];
    s10 += x1 * b0[p];
    s11 += x1 * b1[p];
    s12 += x1 * b2[p];
    s13 += x1 * b3[p];
  }
  c0[0] = s00, c0[1] = s01, c0[2] = s02, c0[3] = s03;
  c1[0] = s10, c1[1] = s11, c1[2] = s12, c1[3] = s13;
}

// Columns [begin, end) of C. Integer sums are exact: any blocking gives the
// same values.
void IntegerGemmColumns(int64_t m, int64_t k, const int16_t* a, int64_t lda,
                        const int16_t* bt, int64_t ldb, int32_t* c, int64_t ldc,
                        size_t begin, size_t end) {
  // Blocks of columns, so a block of Bt stays in cache across the rows.
  constexpr size_t kBlock = 16;
  for (size_t j0 = begin; j0 < end; j0 += kBlock) {
    const size_t j1 = std::min(end, j0 + kBlock);
    int64_t i = 0;
    for (; i + 2 <= m; i += 2) {
      const int16_t* row0 = a + i * lda;
      const int16_t* row1 = row0 + lda;
      int32_t* out0 = c + i * ldc;
      int32_t* out1 = out0 + ldc;
      size_t j = j0;
      for (; j + 4 <= j1; j += 4) {
        Dot2x4(row0, row1, bt + static_cast<int64_t>(j) * ldb, ldb, k, out0 + j,
               out1 + j);
      }
      for (; j < j1; ++j) {
        out0[j] = Dot(row0, bt + static_cast<int64_t>(j) * ldb, k);
        out1[j] = Dot(row1, bt + static_cast<int64_t>(j) * ldb, k);
      }
    }
    for (; i < m; ++i) {
      const int16_t* row = a + i * lda;
      int32_t* out = c + i * ldc;
      for (size_t j = j0; j < j1; ++j) {
        out[j] = Dot(row, bt + static_cast<int64_t>(j) * ldb, k);
      }
    }
  }
}

}  // namespace

void IntegerGemm(int64_t m, int64_t n, int64_t k, const int16_t* a, int64_t lda,
                 const int16_t* bt, int64_t ldb, int32_t* c, int64_t ldc) {
  if (m == 0 || n == 0) return;
  const size_t grain = static_cast<size_t>(
      std::max<int64_t>(1, 16384 / std::max<int64_t>(1, m * k)));
  ParallelFor(static_cast<size_t>(n), grain, [&](size_t begin, size_t end) {
    IntegerGemmColumns(m, k, a, lda, bt, ldb, c, ldc, begin, end);
  });
}

void IntegerGemmOnThisThread(int64_t m, int64_t n, int64_t k, const int16_t* a,
                             int64_t lda, const int16_t* bt, int64_t ldb,
                             int32_t* c, int64_t ldc) {
  if (m == 0 || n == 0) return;
  IntegerGemmColumns(m, k, a, lda, bt, ldb, c, ldc, 0, static_cast<size_t>(n));
}

}  // namespace acldump
