#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <limits>
#include <random>

#include "kernels/testing/op_tester.h"

namespace acldump {
namespace {

using ::acldump::testing::OpTester;
using ::acldump::testing::Values;
using ::testing::HasSubstr;

std::vector<float> Random(size_t n, int seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

// Reference: batched C[b] = A[b % batches_a] * B[b % batches_b] in double.
std::vector<float> ReferenceMatMul(const std::vector<float>& a,
                                   const std::vector<float>& b, int64_t batch_a,
                                   int64_t batch_b, int64_t m, int64_t k,
                                   int64_t n) {
  const int64_t batches = std::max(batch_a, batch_b);
  std::vector<float> c(batches * m * n);
  for (int64_t bt = 0; bt < batches; ++bt) {
    const float* pa = a.data() + (batch_a == 1 ? 0 : bt) * m * k;
    const float* pb = b.data() + (batch_b == 1 ? 0 : bt) * k * n;
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0;
        for (int64_t p = 0; p < k; ++p)
          sum += double(pa[i * k + p]) * pb[p * n + j];
        c[(bt * m + i) * n + j] = static_cast<float>(sum);
      }
    }
  }
  return c;
}

TEST(MatMulTest, SweepsShapesAndBatchBroadcasting) {
  struct Case {
    Shape a, b, out;
    int64_t batch_a, batch_b, m, k, n;
  };
  const Case cases[] = {
      {{3, 4}, {4, 5}, {3, 5}, 1, 1, 3, 4, 5},
      {{1, 1}, {1, 1}, {1, 1}, 1, 1, 1, 1, 1},
      {{2, 3, 4}, {2, 4, 5}, {2, 3, 5}, 2, 2, 3, 4, 5},
      {{2, 3, 4}, {4, 5}, {2, 3, 5}, 2, 1, 3, 4, 5},
      {{3, 4}, {2, 4, 5}, {2, 3, 5}, 1, 2, 3, 4, 5},
      {{1, 7, 33}, {3, 33, 9}, {3, 7, 9}, 1, 3, 7, 33, 9},
  };
  for (const Case& c : cases) {
    const auto a = Random(c.a.NumElements(), 1);
    const auto b = Random(c.b.NumElements(), 2);
    auto out =
        OpTester("MatMul").Input<float>(c.a, a).Input<float>(c.b, b).Run();
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0].shape(), c.out);
    const auto expected =
        ReferenceMatMul(a, b, c.batch_a, c.batch_b, c.m, c.k, c.n);
    const auto got = Values<float>((*out)[0]);
    ASSERT_EQ(got.size(), expected.size());
    for (size_t i = 0; i < got.size(); ++i)
      EXPECT_NEAR(got[i], expected[i], 1e-5) << i;
  }
}

TEST(MatMulTest, VectorOperandsDropTheirAxis) {
  auto out = OpTester("MatMul")
                 .Input<float>({3}, {1, 2, 3})
                 .Input<float>({3, 2}, {1, 2, 3, 4, 5, 6})
                 .Run();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), Shape({2}));
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{22, 28}));
  out = OpTester("MatMul")
            .Input<float>({3}, {1, 2, 3})
            .Input<float>({3}, {4, 5, 6})
            .Run();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), Shape());
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{32}));
}

TEST(MatMulTest, IntegersAndEmptyK) {
  auto out = OpTester("MatMul")
                 .Input<int64_t>({2, 2}, {1, 2, 3, 4})
                 .Input<int64_t>({2, 1}, {5, 6})
                 .Run();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<int64_t>((*out)[0]), (std::vector<int64_t>{17, 39}));
  out = OpTester("MatMul")
            .Input<float>({2, 0}, {})
            .Input<float>({0, 3}, {})
            .Run();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<float>((*out)[0]), std::vector<float>(6, 0.0f));
}

TEST(MatMulTest, RejectsMismatchedInnerDimension) {
  auto out = OpTester("MatMul")
                 .Input<float>({2, 3}, Random(6, 1))
                 .Input<float>({4, 2}, Random(8, 2))
                 .Run();
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(), HasSubstr("inner dimensions differ"));
  EXPECT_THAT(out.status().message(), HasSubstr("[2,3]"));
}

TEST(GemmTest, TransposesAlphaBetaAndBroadcastBias) {
  const int64_t m = 4, k = 6, n = 5;
  const auto a = Random(m * k, 3);
  const auto b = Random(k * n, 4);
  const auto c = Random(n, 5);
  // A given transposed ([k, m]) and B transposed ([n, k]).
  std::vector<float> at(k * m), bt(n * k);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t p = 0; p < k; ++p) at[p * m + i] = a[i * k + p];
  for (int64_t p = 0; p < k; ++p)
    for (int64_t j = 0; j < n; ++j) bt[j * k + p] = b[p * n + j];
  auto out = OpTester("Gemm")
                 .Input<float>({k, m}, at)
                 .Input<float>({n, k}, bt)
                 .Input<float>({n}, c)
                 .Attr("transA", int64_t{1})
                 .Attr("transB", int64_t{1})
                 .Attr("alpha", 0.5f)
                 .Attr("beta", 2.0f)
                 .Run();
  ASSERT_TRUE(out.ok()) << out.status();
  const auto ab = ReferenceMatMul(a, b, 1, 1, m, k, n);
  const auto got = Values<float>((*out)[0]);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      EXPECT_NEAR(got[i * n + j], 0.5f * ab[i * n + j] + 2.0f * c[j], 1e-5);
}

TEST(GemmTest, FusedReluClampsNegatives) {
  auto out = OpTester("Gemm")
                 .Input<float>({1, 2}, {1, -1})
                 .Input<float>({2, 2}, {1, 2, 3, -4})
                 .Attr("fused_activation", std::string("Relu"))
                 .Run();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{0, 6}));
}

TEST(GemmTest, RejectsBadShapes) {
  auto out = OpTester("Gemm")
                 .Input<float>({2, 3, 1}, Random(6, 1))
                 .Input<float>({3, 2}, Random(6, 1))
                 .Run();
  EXPECT_THAT(out.status().message(), HasSubstr("must be 2-D"));
  out = OpTester("Gemm")
            .Input<float>({2, 3}, Random(6, 1))
            .Input<float>({3, 2}, Random(6, 1))
            .Input<float>({3}, Random(3, 1))
            .Run();
  EXPECT_THAT(out.status().message(),
              HasSubstr("does not broadcast to the output shape [2,2]"));
  out = OpTester("Gemm")
            .Input<float>({2, 3}, Random(6, 1))
            .Input<float>({3, 2}, Random(6, 1))
            .Attr("fused_activation", std::string("Gelu"))
            .Run();
  EXPECT_THAT(out.status().message(),
              HasSubstr("fused_activation 'Gelu' is not supported"));
}

// The converter's MatMul + Add of a bias: the bias is added to the finished
// product, so the bits are those of MatMul then Add, on the packed GEMM
// (K over two depth blocks) and on the few-rows path.
TEST(MatMulTest, FusedBiasGivesTheBitsOfMatMulThenAdd) {
  const int64_t k = 300, n = 37;
  const std::vector<float> b = Random(k * n, 2);
  std::vector<float> bias = Random(n, 3);
  bias[5] = std::numeric_limits<float>::infinity();
  for (int64_t rows : {2, 13}) {
    std::vector<float> a = Random(rows * k, 4);
    a[7] = std::numeric_limits<float>::quiet_NaN();
    auto fused = OpTester("MatMul")
                     .RuntimeInput<float>({1, rows, k}, a)
                     .Input<float>({k, n}, b)
                     .Input<float>({1, 1, n}, bias)
                     .Run();
    ASSERT_TRUE(fused.ok()) << fused.status();
    auto product = OpTester("MatMul")
                       .RuntimeInput<float>({1, rows, k}, a)
                       .Input<float>({k, n}, b)
                       .Run();
    ASSERT_TRUE(product.ok()) << product.status();
    auto sum =
        OpTester("Add")
            .RuntimeInput<float>({1, rows, n}, Values<float>((*product)[0]))
            .Input<float>({n}, bias)
            .Run();
    ASSERT_TRUE(sum.ok()) << sum.status();
    const std::vector<float> y = Values<float>((*fused)[0]);
    const std::vector<float> expected = Values<float>((*sum)[0]);
    ASSERT_EQ(y.size(), expected.size());
    for (size_t i = 0; i < y.size(); ++i) {
      ASSERT_EQ(std::bit_cast<uint32_t>(y[i]),
                std::bit_cast<uint32_t>(expected[i]))
          << rows << " rows, element " << i;
    }
  }
}

TEST(MatMulTest, FusedBiasMustRunAlongTheLastAxis) {
  auto out = OpTester("MatMul")
                 .RuntimeInput<float>({1, 4, 3}, Random(12, 1))
                 .Input<float>({3, 2}, Random(6, 1))
                 .Input<float>({4, 1}, Random(4, 1))
                 .Run();
  EXPECT_THAT(out.status().message(),
              HasSubstr("a MatMul with a fused bias needs float32 A, constant "
                        "2-D B and a float32 bias of N=2 elements"));
  out = OpTester("MatMul")
            .RuntimeInput<float>({1, 4, 3}, Random(12, 1))
            .RuntimeInput<float>({3, 2}, Random(6, 1))
            .Input<float>({2}, Random(2, 1))
            .Run();
  EXPECT_THAT(out.status().message(), HasSubstr("(not constant)"));
}

}  // namespace
}  // namespace acldump
