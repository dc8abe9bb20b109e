// The packed int16 GEMM against plain int32 sums, on every SIMD target
// Highway built and this CPU runs: the sums are exact, so every target must
// give them bit for bit, whatever the row and column tails and odd depths.
#include "kernels/integer_gemm.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "hwy/targets.h"
#include "kernels/threading.h"

namespace acldump {
namespace {

struct Case {
  int64_t m, n, k;
};

// B [k, n] packed, with the values -255..255 that 8-bit operands less
// their zero points reach.
std::vector<int16_t> Pack(const std::vector<int16_t>& b, int64_t k, int64_t n) {
  std::vector<int16_t> packed(static_cast<size_t>(PackedIntegerSize(k, n)), 0);
  for (int64_t p = 0; p < k; ++p)
    for (int64_t j = 0; j < n; ++j)
      packed[PackedIntegerIndex(PackedDepth(k), p, j)] = b[p * n + j];
  return packed;
}

void CheckCase(const Case& c, std::mt19937& rng) {
  SCOPED_TRACE(testing::Message()
               << "m " << c.m << " n " << c.n << " k " << c.k);
  std::uniform_int_distribution<int> value(-255, 255);
  const int64_t lda = PackedDepth(c.k) + 3;  // a stride past the depth
  std::vector<int16_t> a(static_cast<size_t>(c.m * lda));
  // Everything past k in A's rows is noise: the zero pad row of B cancels
  // what the last pair reads.
  for (auto& v : a) v = static_cast<int16_t>(value(rng));
  std::vector<int16_t> b(static_cast<size_t>(c.k * c.n));
  for (auto& v : b) v = static_cast<int16_t>(value(rng));
  // The extremes: -255 * -255 pairs, the largest products.
  if (!a.empty() && !b.empty()) a[0] = b[0] = -255;
  const std::vector<int16_t> packed = Pack(b, c.k, c.n);
  std::vector<int32_t> want(static_cast<size_t>(c.m * c.n));
  for (int64_t i = 0; i < c.m; ++i)
    for (int64_t j = 0; j < c.n; ++j) {
      int32_t sum = 0;
      for (int64_t p = 0; p < c.k; ++p)
        sum += int32_t{a[i * lda + p]} * int32_t{b[p * c.n + j]};
      want[i * c.n + j] = sum;
    }
  const int64_t ldc = c.n + 5;
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    SCOPED_TRACE(hwy::TargetName(target));
    hwy::SetSupportedTargetsForTest(target);
    for (int threads : {1, 2}) {
      SetIntraOpThreads(threads);
      std::vector<int32_t> got(static_cast<size_t>(c.m * ldc), -7);
      IntegerGemm(c.m, c.n, c.k, a.data(), lda, packed.data(), got.data(), ldc);
      for (int64_t i = 0; i < c.m; ++i) {
        for (int64_t j = 0; j < c.n; ++j) {
          ASSERT_EQ(got[i * ldc + j], want[i * c.n + j])
              << "C[" << i << ", " << j << "], " << threads << " thread(s)";
        }
        // The columns between n and ldc are not written.
        for (int64_t j = c.n; j < ldc; ++j) ASSERT_EQ(got[i * ldc + j], -7);
      }
    }
    hwy::SetSupportedTargetsForTest(0);
  }
  SetIntraOpThreads(0);
}

TEST(IntegerGemmTest, EmptyDepthGivesZeros) {
  std::vector<int32_t> c(3 * 5, 7);
  IntegerGemm(3, 5, 0, nullptr, 0, nullptr, c.data(), 5);
  EXPECT_EQ(c, std::vector<int32_t>(3 * 5, 0));
}

TEST(IntegerGemmTest, ExactSumsOnEveryTargetForEveryTail) {
  std::mt19937 rng(7);
  const Case cases[] = {{1, 1, 1},     {1, 16, 2},     {5, 17, 3},
                        {6, 32, 64},   {7, 15, 9},     {13, 33, 27},
                        {64, 49, 576}, {3, 1000, 512}, {100, 20, 4609}};
  for (const Case& c : cases) CheckCase(c, rng);
}

// A panel range starting past panel 0, as the convolution calls it with
// its own scratch: columns outside the range stay untouched.
TEST(IntegerGemmTest, PanelRangeWritesOnlyItsColumns) {
  const int64_t m = 7, n = 50, k = 11;
  std::vector<int16_t> a(static_cast<size_t>(m * PackedDepth(k)));
  for (size_t i = 0; i < a.size(); ++i)
    a[i] = static_cast<int16_t>(i % 37 - 18);
  std::vector<int16_t> b(static_cast<size_t>(k * n));
  for (size_t i = 0; i < b.size(); ++i)
    b[i] = static_cast<int16_t>(i % 29 - 14);
  const std::vector<int16_t> packed = Pack(b, k, n);
  std::vector<int32_t> got(static_cast<size_t>(m * n), 99);
  // Panels 1 and 2: columns 16 to 47.
  const int64_t panel_elements = PackedDepth(k) * kIntegerPanel;
  IntegerGemmPanels(m, n, k, a.data(), PackedDepth(k),
                    packed.data() + panel_elements, got.data(), n, 1, 3);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      int32_t want = 99;
      if (j >= 16 && j < 48) {
        want = 0;
        for (int64_t p = 0; p < k; ++p)
          want += int32_t{a[i * PackedDepth(k) + p]} * int32_t{b[p * n + j]};
      }
      ASSERT_EQ(got[i * n + j], want) << "C[" << i << ", " << j << "]";
    }
  }
}

}  // namespace
}  // namespace acldump
