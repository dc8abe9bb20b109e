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

// The byte product against plain int32 sums on every target, for operands
// at the edge of what ByteGemmFits allows: B up to 127 with A over all of
// int8 (pairs of -128 reach 32512), and B up to 255 with A in -64..64.
struct ByteCase {
  int64_t m, n, k;
  int b_max, a_low, a_high;
};

void CheckByteCase(const ByteCase& c, std::mt19937& rng) {
  SCOPED_TRACE(testing::Message() << "m " << c.m << " n " << c.n << " k " << c.k
                                  << " b_max " << c.b_max);
  const int64_t depth = QuadDepth(c.k);
  const int64_t lda = depth + 8;  // a stride past the depth
  std::uniform_int_distribution<int> a_value(c.a_low, c.a_high);
  std::uniform_int_distribution<int> b_value(0, c.b_max);
  std::vector<int8_t> a(static_cast<size_t>(c.m * lda), 0);
  for (int64_t i = 0; i < c.m; ++i)
    for (int64_t p = 0; p < c.k; ++p)
      a[i * lda + p] = static_cast<int8_t>(a_value(rng));
  std::vector<uint8_t> b(static_cast<size_t>(c.k * c.n));
  for (auto& v : b) v = static_cast<uint8_t>(b_value(rng));
  // The largest pair in row 0 against the largest B values in column 0.
  if (c.k >= 2 && c.n >= 1) {
    a[0] = a[1] = static_cast<int8_t>(c.a_low);
    b[0] = b[c.n] = static_cast<uint8_t>(c.b_max);
  }
  ASSERT_TRUE(
      ByteGemmFits(LargestPairMagnitude(a.data(), c.m, c.k, lda), c.b_max));
  std::vector<uint8_t> packed(static_cast<size_t>(PackedByteSize(c.k, c.n)), 0);
  for (int64_t p = 0; p < c.k; ++p)
    for (int64_t j = 0; j < c.n; ++j)
      packed[PackedByteIndex(depth, p, j)] = b[p * c.n + j];
  std::vector<int32_t> offsets(static_cast<size_t>(c.m));
  for (int64_t i = 0; i < c.m; ++i)
    offsets[i] = static_cast<int32_t>(i * 37 - 500);
  std::vector<int32_t> want(static_cast<size_t>(c.m * c.n));
  for (int64_t i = 0; i < c.m; ++i)
    for (int64_t j = 0; j < c.n; ++j) {
      int32_t sum = -offsets[i];
      for (int64_t p = 0; p < c.k; ++p)
        sum += int32_t{a[i * lda + p]} * int32_t{b[p * c.n + j]};
      want[i * c.n + j] = sum;
    }
  const int64_t ldc = c.n + 3;
  const int64_t panels = (c.n + kIntegerPanel - 1) / kIntegerPanel;
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    SCOPED_TRACE(hwy::TargetName(target));
    hwy::SetSupportedTargetsForTest(target);
    std::vector<int32_t> got(static_cast<size_t>(c.m * ldc), -7);
    ByteGemmPanels(c.m, c.n, c.k, a.data(), lda, offsets.data(), packed.data(),
                   got.data(), ldc, 0, panels);
    hwy::SetSupportedTargetsForTest(0);
    for (int64_t i = 0; i < c.m; ++i) {
      for (int64_t j = 0; j < c.n; ++j)
        ASSERT_EQ(got[i * ldc + j], want[i * c.n + j])
            << "C[" << i << ", " << j << "]";
      for (int64_t j = c.n; j < ldc; ++j) ASSERT_EQ(got[i * ldc + j], -7);
    }
  }
}

TEST(IntegerGemmTest, ByteProductIsExactWhereItFits) {
  std::mt19937 rng(11);
  const ByteCase cases[] = {
      {1, 1, 1, 127, -128, 127},      {1, 16, 2, 127, -128, 127},
      {5, 17, 3, 127, -128, 127},     {6, 32, 64, 127, -128, 127},
      {7, 15, 9, 255, -64, 64},       {13, 33, 27, 127, -128, 127},
      {64, 49, 576, 127, -128, 127},  {3, 100, 511, 255, -64, 64},
      {11, 20, 4609, 127, -128, 127}, {9, 64, 147, 255, -64, 64},
  };
  for (const ByteCase& c : cases) CheckByteCase(c, rng);
}

TEST(IntegerGemmTest, ByteGemmFitsBoundsEveryPairOfProducts) {
  // 2 * 128 * 127 = 32512 and 2 * 64 * 255 = 32640 fit; one more does not.
  EXPECT_TRUE(ByteGemmFits(256, 127));
  EXPECT_FALSE(ByteGemmFits(256, 128));
  EXPECT_TRUE(ByteGemmFits(128, 255));
  EXPECT_FALSE(ByteGemmFits(129, 255));
  const int8_t a[] = {
      -128, 127, 3,   -4, 100, -100,  // row 0: pairs 255, 7, 200
      1,    2,   -90, 90, 5,   0};    // row 1: 3, 180, 5
  EXPECT_EQ(LargestPairMagnitude(a, 2, 6, 6), 255);
  // An odd depth pairs the last value (100) with nothing; rows past m are
  // not read.
  EXPECT_EQ(LargestPairMagnitude(a + 2, 1, 3, 6), 100);
}

TEST(IntegerGemmTest, MaxByteSeesEveryPosition) {
  std::vector<uint8_t> x(200, 3);
  EXPECT_EQ(MaxByte(x.data(), 0), 0);
  for (size_t at : {0, 31, 32, 150, 199}) {
    std::vector<uint8_t> y = x;
    y[at] = 201;
    for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
      hwy::SetSupportedTargetsForTest(target);
      EXPECT_EQ(MaxByte(y.data(), static_cast<int64_t>(y.size())), 201)
          << hwy::TargetName(target) << " at " << at;
      hwy::SetSupportedTargetsForTest(0);
    }
  }
}

// Byte panels packed from rows of a source: contiguous, and in runs at
// stride 1 and 2 (positions that cross output rows), against the layout's
// index, on every target; lanes past `count` and pad rows are zero.
TEST(IntegerGemmTest, BytePanelsHoldTheirWindowsInTheByteLayout) {
  std::vector<uint8_t> source(4096);
  for (size_t i = 0; i < source.size(); ++i)
    source[i] = static_cast<uint8_t>((i * 7 + i / 251) % 256);
  const uint8_t* base = source.data() + kPackSlack;
  for (int64_t k : {1, 3, 4, 9, 30}) {
    std::vector<int64_t> offsets(static_cast<size_t>(k));
    for (int64_t p = 0; p < k; ++p) offsets[p] = p * 53 % 400;
    const int64_t depth = QuadDepth(k);
    for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
      SCOPED_TRACE(testing::Message() << hwy::TargetName(target) << " k " << k);
      hwy::SetSupportedTargetsForTest(target);
      std::vector<uint8_t> panel(static_cast<size_t>(depth * kIntegerPanel),
                                 99);
      PackBytePanelContiguous(base + 10, offsets.data(), k, panel.data());
      for (int64_t p = 0; p < depth; ++p)
        for (int64_t j = 0; j < kIntegerPanel; ++j)
          ASSERT_EQ(panel[PackedByteIndex(depth, p, j)],
                    p < k ? base[10 + offsets[p] + j] : 0)
              << "contiguous p " << p << " j " << j;
      // Three runs: lanes 0-4, 5-11, 12-13 of 14.
      const int64_t run_lanes[] = {0, 5, 12}, run_origins[] = {300, 20, 777};
      for (int64_t stride : {1, 2}) {
        std::fill(panel.begin(), panel.end(), 99);
        PackBytePanelRuns(base, offsets.data(), k, run_lanes, run_origins, 3,
                          stride, 14, panel.data());
        for (int64_t p = 0; p < depth; ++p)
          for (int64_t j = 0; j < kIntegerPanel; ++j) {
            const int64_t r = j < 5 ? 0 : j < 12 ? 1 : 2;
            const int want =
                p < k && j < 14 ? base[run_origins[r] +
                                       (j - run_lanes[r]) * stride + offsets[p]]
                                : 0;
            ASSERT_EQ(panel[PackedByteIndex(depth, p, j)], want)
                << "stride " << stride << " p " << p << " j " << j;
          }
      }
      hwy::SetSupportedTargetsForTest(0);
    }
  }
}

}  // namespace
}  // namespace acldump
