#include "kernels/gemm.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "kernels/threading.h"

namespace acldump {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

std::vector<float> Random(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

// C = alpha * A * B + beta * C in double, B [k, n] (or [n, k] transposed).
std::vector<double> Reference(int64_t m, int64_t n, int64_t k,
                              const std::vector<float>& a,
                              const std::vector<float>& b, bool transposed,
                              const std::vector<float>& c, float alpha,
                              float beta) {
  std::vector<double> out(m * n);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0;
      for (int64_t p = 0; p < k; ++p) {
        sum +=
            double{a[i * k + p]} * (transposed ? b[j * k + p] : b[p * n + j]);
      }
      out[i * n + j] = alpha * sum + (beta != 0 ? beta * c[i * n + j] : 0.0);
    }
  }
  return out;
}

struct Case {
  int64_t m, n, k;
  bool transposed;
  float alpha, beta;
};

class GemmPackedBTest : public ::testing::TestWithParam<Case> {};

// Edges of every blocking: rows not a multiple of the 6-row tile or of the
// row block, columns not a multiple of the panel, depth over several blocks.
TEST_P(GemmPackedBTest, MatchesDoubleReference) {
  const Case c = GetParam();
  const std::vector<float> a = Random(c.m * c.k, 1);
  const std::vector<float> b = Random(c.k * c.n, 2);
  const std::vector<float> c0 = Random(c.m * c.n, 3);
  const PackedMatrixB packed = PackedMatrixB::Pack(
      b.data(), c.k, c.n, c.transposed ? c.k : c.n, c.transposed);
  std::vector<float> out = c0;
  GemmPackedB(c.m, a.data(), c.k, packed, out.data(), c.n, c.alpha, c.beta);
  const std::vector<double> ref =
      Reference(c.m, c.n, c.k, a, b, c.transposed, c0, c.alpha, c.beta);
  for (size_t i = 0; i < ref.size(); ++i) {
    // float accumulation over k terms of magnitude <= 1.
    ASSERT_NEAR(out[i], ref[i], 1e-6 * (c.k + 1) + 1e-6) << "element " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, GemmPackedBTest,
                         ::testing::Values(Case{1, 1, 1, false, 1, 0},
                                           Case{1, 1000, 512, false, 1, 0},
                                           Case{7, 17, 3, false, 1, 0},
                                           Case{197, 130, 600, false, 1, 0},
                                           Case{13, 33, 257, true, 1, 1},
                                           Case{100, 16, 40, true, 0.5f, 2},
                                           Case{5, 9, 0, false, 1, 1},
                                           Case{96, 48, 256, false, 1, 0}));

TEST(GemmPackedB, BetaZeroNeverReadsC) {
  const std::vector<float> a = Random(4 * 8, 4);
  const std::vector<float> b = Random(8 * 5, 5);
  const PackedMatrixB packed = PackedMatrixB::Pack(b.data(), 8, 5, 5, false);
  std::vector<float> out(4 * 5, std::numeric_limits<float>::quiet_NaN());
  GemmPackedB(4, a.data(), 8, packed, out.data(), 5, 1.0f, 0.0f);
  for (float x : out) EXPECT_FALSE(std::isnan(x));
}

TEST(GemmPackedB, NanAndInfReachTheirRowsOnly) {
  std::vector<float> a = Random(3 * 4, 6);
  a[1 * 4 + 2] = std::numeric_limits<float>::quiet_NaN();
  a[2 * 4 + 0] = std::numeric_limits<float>::infinity();
  std::vector<float> b(4 * 3, 1.0f);
  const PackedMatrixB packed = PackedMatrixB::Pack(b.data(), 4, 3, 3, false);
  std::vector<float> out(3 * 3);
  GemmPackedB(3, a.data(), 4, packed, out.data(), 3, 1.0f, 0.0f);
  for (int j = 0; j < 3; ++j) {
    EXPECT_TRUE(std::isfinite(out[j]));
    EXPECT_TRUE(std::isnan(out[3 + j]));
    EXPECT_EQ(out[6 + j], std::numeric_limits<float>::infinity());
  }
}

TEST(GemmPackedB, SameBitsOnOneAndFourThreads) {
  const int64_t m = 61, n = 300, k = 700;
  const std::vector<float> a = Random(m * k, 7);
  const std::vector<float> b = Random(k * n, 8);
  const PackedMatrixB packed = PackedMatrixB::Pack(b.data(), k, n, n, false);
  std::vector<float> one(m * n), four(m * n);
  {
    ScopedIntraOpThreads threads(1);
    GemmPackedB(m, a.data(), k, packed, one.data(), n, 1.0f, 0.0f);
  }
  {
    ScopedIntraOpThreads threads(4);
    GemmPackedB(m, a.data(), k, packed, four.data(), n, 1.0f, 0.0f);
  }
  EXPECT_EQ(std::memcmp(one.data(), four.data(), one.size() * sizeof(float)),
            0);
}

// A [m, k] packed, B [k, n] in place with a wider row stride, bias and Relu:
// the 1x1 convolution form.
TEST(GemmPackedA, MatchesDoubleReferenceWithBiasAndRelu) {
  struct Shape3 {
    int64_t m, n, k;
  };
  for (const Shape3& s :
       {Shape3{1, 1, 1}, Shape3{7, 17, 3}, Shape3{32, 49, 96},
        Shape3{100, 300, 600}, Shape3{6, 16, 256}, Shape3{13, 5, 257}}) {
    const int64_t ldb = s.n + 3;
    const std::vector<float> a = Random(s.m * s.k, 11);
    const std::vector<float> b = Random(s.k * ldb, 12);
    const std::vector<float> bias = Random(s.m, 13);
    const PackedMatrixA packed = PackedMatrixA::Pack(a.data(), s.m, s.k, s.k);
    for (bool relu : {false, true}) {
      std::vector<float> c(s.m * s.n, -7.0f);
      GemmPackedA(packed, s.n, b.data(), ldb, c.data(), s.n,
                  GemmEpilogue{bias.data(), relu, 0.0f, kInf});
      for (int64_t i = 0; i < s.m; ++i) {
        for (int64_t j = 0; j < s.n; ++j) {
          double want = bias[i];
          for (int64_t p = 0; p < s.k; ++p) {
            want += double{a[i * s.k + p]} * b[p * ldb + j];
          }
          if (relu && want < 0) want = 0;
          ASSERT_NEAR(c[i * s.n + j], want, 1e-6 * (s.k + 1) + 1e-6)
              << s.m << "x" << s.n << "x" << s.k << " at " << i << "," << j;
        }
      }
    }
  }
}

TEST(GemmPackedA, ReluKeepsNanAndSameBitsOnAnyThreadCount) {
  const int64_t m = 40, n = 333, k = 300;
  std::vector<float> a = Random(m * k, 14);
  std::vector<float> b = Random(k * n, 15);
  b[5 * n + 7] = std::numeric_limits<float>::quiet_NaN();
  const PackedMatrixA packed = PackedMatrixA::Pack(a.data(), m, k, k);
  std::vector<float> one(m * n), three(m * n);
  {
    ScopedIntraOpThreads threads(1);
    GemmPackedA(packed, n, b.data(), n, one.data(), n,
                GemmEpilogue{nullptr, true, 0.0f, kInf});
  }
  {
    ScopedIntraOpThreads threads(3);
    GemmPackedA(packed, n, b.data(), n, three.data(), n,
                GemmEpilogue{nullptr, true, 0.0f, kInf});
  }
  for (int64_t i = 0; i < m; ++i) EXPECT_TRUE(std::isnan(one[i * n + 7]));
  EXPECT_EQ(std::memcmp(one.data(), three.data(), one.size() * sizeof(float)),
            0);
}

// A 7x7 or 14x14 plane is 2 to 7 column panels: the threads split A's rows
// there instead of the columns (each element still summed in one order).
TEST(GemmPackedA, FewColumnPanelsSplitByRowsWithTheSameBits) {
  const int64_t m = 250, k = 520;
  const std::vector<float> a = Random(m * k, 20);
  const std::vector<float> bias = Random(m, 21);
  const PackedMatrixA packed = PackedMatrixA::Pack(a.data(), m, k, k);
  for (int64_t n : {49, 196, 17}) {
    const std::vector<float> b = Random(k * n, 22);
    std::vector<float> one(m * n);
    {
      ScopedIntraOpThreads threads(1);
      GemmPackedA(packed, n, b.data(), n, one.data(), n,
                  GemmEpilogue{bias.data(), true, 0.0f, kInf});
    }
    for (int threads : {2, 3, 4}) {
      ScopedIntraOpThreads scope(threads);
      std::vector<float> many(m * n);
      GemmPackedA(packed, n, b.data(), n, many.data(), n,
                  GemmEpilogue{bias.data(), true, 0.0f, kInf});
      EXPECT_EQ(
          std::memcmp(one.data(), many.data(), one.size() * sizeof(float)), 0)
          << "n = " << n << ", " << threads << " threads";
    }
    for (int64_t j : {int64_t{0}, n - 1}) {
      double want = bias[m - 1];
      for (int64_t p = 0; p < k; ++p) {
        want += double{a[(m - 1) * k + p]} * b[p * n + j];
      }
      EXPECT_NEAR(one[(m - 1) * n + j], std::max(want, 0.0), 1e-3);
    }
  }
}

// A narrow last panel (at most one vector of columns) runs a one-vector tile,
// and a last panel of up to four columns (a 7x7 plane's 49th) runs a column at
// a time with A's rows on the lanes; each element of C must still get the bits
// the two-vector tile gives it, whatever the epilogue and the thread count.
TEST(GemmPackedA, NarrowLastPanelGivesTheBitsOfAFullOne) {
  // 11 row tiles (the last of one row): more than one group of eight.
  const int64_t m = 61, k = 300, wide = 64;
  const std::vector<float> a = Random(m * k, 16);
  std::vector<float> b = Random(k * wide, 17);
  b[7 * wide + 48] = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> bias = Random(m, 18);
  const std::vector<float> residual = Random(m * wide, 19);
  const PackedMatrixA packed = PackedMatrixA::Pack(a.data(), m, k, k);
  struct Case {
    const char* name;
    GemmEpilogue epilogue;
  };
  GemmEpilogue relu{bias.data(), true, 0.0f, kInf};
  GemmEpilogue residual_hard_swish{bias.data()};
  residual_hard_swish.residual = residual.data();
  residual_hard_swish.hard_swish = true;
  GemmEpilogue clamp_no_bias{nullptr, true, -0.5f, 0.5f};
  clamp_no_bias.residual = residual.data();
  for (const Case& c : {Case{"bias, relu", relu},
                        Case{"bias, residual, hard swish", residual_hard_swish},
                        Case{"residual, clamp", clamp_no_bias}}) {
    std::vector<float> full(m * wide);
    GemmPackedA(packed, wide, b.data(), wide, full.data(), wide, c.epilogue);
    // 49, 50 and 52 columns end in panels of 1, 2 and 4 columns; 53 and 57
    // in ones of 5 and 9 (the one-vector tile); 1 and 3 are all tail.
    for (int64_t n : {49, 50, 52, 53, 57, 1, 3}) {
      for (int threads : {1, 3}) {
        ScopedIntraOpThreads scope(threads);
        std::vector<float> part_residual(m * n);
        for (int64_t i = 0; i < m; ++i) {
          std::copy_n(&residual[i * wide], n, &part_residual[i * n]);
        }
        GemmEpilogue epilogue = c.epilogue;
        if (epilogue.residual != nullptr) {
          epilogue.residual = part_residual.data();
        }
        std::vector<float> part(m * n);
        GemmPackedA(packed, n, b.data(), wide, part.data(), n, epilogue);
        for (int64_t i = 0; i < m; ++i) {
          ASSERT_EQ(
              std::memcmp(&part[i * n], &full[i * wide], n * sizeof(float)), 0)
              << c.name << ", n = " << n << ", " << threads << " threads, row "
              << i;
        }
      }
    }
    // The NaN in B's column 48 reaches every row, through the tail too.
    for (int64_t i = 0; i < m; ++i)
      EXPECT_TRUE(std::isnan(full[i * wide + 48]));
  }
}

}  // namespace
}  // namespace acldump
