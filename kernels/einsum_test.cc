// Einsum against a naive sum over every letter (explicit equations without
// "..."), hand-written loops for "..." broadcasting, and the errors.
#include <cmath>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kernels/testing/op_tester.h"

namespace acldump {
namespace {

using ::acldump::testing::OpTester;
using ::acldump::testing::Values;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::vector<double> Random(int64_t n, int seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(-1, 1);
  std::vector<double> v(n);
  for (double& x : v) x = dist(rng);
  return v;
}

// out[output letters] = sum over all other letters of the operands' product.
std::vector<double> NaiveEinsum(
    const std::vector<std::string>& operands, const std::string& output,
    const std::vector<std::vector<int64_t>>& shapes,
    const std::vector<std::vector<double>>& values) {
  std::map<char, int64_t> size;
  for (size_t i = 0; i < operands.size(); ++i)
    for (size_t a = 0; a < operands[i].size(); ++a)
      size[operands[i][a]] = shapes[i][a];
  std::vector<char> letters;
  for (const auto& [letter, n] : size) letters.push_back(letter);
  int64_t out_size = 1;
  for (char l : output) out_size *= size[l];
  std::vector<double> out(out_size, 0.0);
  std::map<char, int64_t> at;
  for (char l : letters) at[l] = 0;
  while (true) {
    double product = 1;
    for (size_t i = 0; i < operands.size(); ++i) {
      int64_t offset = 0;
      for (size_t a = 0; a < operands[i].size(); ++a)
        offset = offset * shapes[i][a] + at[operands[i][a]];
      product *= values[i][offset];
    }
    int64_t offset = 0;
    for (char l : output) offset = offset * size[l] + at[l];
    out[offset] += product;
    size_t k = letters.size();
    while (k-- > 0) {
      if (++at[letters[k]] < size[letters[k]]) break;
      at[letters[k]] = 0;
    }
    if (k == static_cast<size_t>(-1)) break;
  }
  return out;
}

// Runs the equation in float64 and float32 against the naive sum.
void Check(const std::string& equation, const std::vector<std::string>& ops,
           const std::string& output,
           const std::vector<std::vector<int64_t>>& shapes) {
  SCOPED_TRACE(equation);
  std::vector<std::vector<double>> values;
  for (size_t i = 0; i < shapes.size(); ++i) {
    int64_t n = 1;
    for (int64_t d : shapes[i]) n *= d;
    values.push_back(Random(n, static_cast<int>(i) + 1));
  }
  const std::vector<double> expected = NaiveEinsum(ops, output, shapes, values);
  OpTester f64("Einsum");
  OpTester f32("Einsum");
  for (size_t i = 0; i < shapes.size(); ++i) {
    f64.RuntimeInput<double>(Shape(shapes[i]), values[i]);
    f32.RuntimeInput<float>(
        Shape(shapes[i]),
        std::vector<float>(values[i].begin(), values[i].end()));
  }
  f64.Attr("equation", equation);
  f32.Attr("equation", equation);
  auto out64 = f64.Run();
  ASSERT_TRUE(out64.ok()) << out64.status();
  auto out32 = f32.Run();
  ASSERT_TRUE(out32.ok()) << out32.status();
  const auto got64 = Values<double>((*out64)[0]);
  const auto got32 = Values<float>((*out32)[0]);
  ASSERT_EQ(got64.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_NEAR(got64[i], expected[i], 1e-12) << i;
    EXPECT_NEAR(got32[i], expected[i], 1e-5) << i;
  }
}

TEST(EinsumTest, ContractionsAgreeWithTheNaiveSum) {
  Check("ij,jk->ik", {"ij", "jk"}, "ik", {{3, 4}, {4, 5}});
  Check("bhqd,bhkd->bhqk", {"bhqd", "bhkd"}, "bhqk",
        {{2, 3, 4, 5}, {2, 3, 6, 5}});
  Check("bhqk,bhkd->bqhd", {"bhqk", "bhkd"}, "bqhd",
        {{2, 3, 4, 6}, {2, 3, 6, 5}});
  Check("i,i->", {"i", "i"}, "", {{7}, {7}});
  Check("i,j->ij", {"i", "j"}, "ij", {{3}, {4}});
  Check("ij,jk,kl->il", {"ij", "jk", "kl"}, "il", {{2, 3}, {3, 4}, {4, 5}});
  Check("ij->", {"ij"}, "", {{3, 4}});
  Check("ij->ji", {"ij"}, "ji", {{3, 4}});
  Check("ijk->kj", {"ijk"}, "kj", {{2, 3, 4}});
  Check("bij,bjk->bik", {"bij", "bjk"}, "bik", {{3, 2, 4}, {3, 4, 2}});
  // Letters summed away inside one operand before the contraction.
  Check("abc,cd->d", {"abc", "cd"}, "d", {{2, 3, 4}, {4, 5}});
  Check("ik,jk->ij", {"ik", "jk"}, "ij", {{3, 5}, {4, 5}});
}

TEST(EinsumTest, RepeatedLettersTakeTheDiagonal) {
  OpTester t("Einsum");
  t.Input<float>({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9})
      .Attr("equation", std::string("ii->i"));
  auto out = t.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Values<float>((*out)[0]), ElementsAre(1, 5, 9));
  OpTester trace("Einsum");
  trace.Input<float>({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9})
      .Attr("equation", std::string("ii"));
  out = trace.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Values<float>((*out)[0]), ElementsAre(15));
  EXPECT_EQ((*out)[0].shape().rank(), 0u);
}

TEST(EinsumTest, ImplicitOutputIsTheSingleLettersInOrder) {
  // "ba" alone is a transpose: the output is "ab".
  OpTester t("Einsum");
  t.Input<int64_t>({2, 3}, {1, 2, 3, 4, 5, 6})
      .Attr("equation", std::string("ba"));
  auto out = t.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT((*out)[0].shape().dims(), ElementsAre(3, 2));
  EXPECT_THAT(Values<int64_t>((*out)[0]), ElementsAre(1, 4, 2, 5, 3, 6));
}

TEST(EinsumTest, EllipsisBroadcastsLikeNumpy) {
  // A [2, 1, 2, 3] x B [4, 3, 2] -> [2, 4, 2, 2].
  const auto a = Random(2 * 1 * 2 * 3, 5);
  const auto b = Random(4 * 3 * 2, 6);
  OpTester t("Einsum");
  t.Input<double>({2, 1, 2, 3}, a)
      .Input<double>({4, 3, 2}, b)
      .Attr("equation", std::string("...ij,...jk->...ik"));
  auto out = t.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT((*out)[0].shape().dims(), ElementsAre(2, 4, 2, 2));
  const auto got = Values<double>((*out)[0]);
  for (int p = 0; p < 2; ++p)
    for (int q = 0; q < 4; ++q)
      for (int i = 0; i < 2; ++i)
        for (int k = 0; k < 2; ++k) {
          double sum = 0;
          for (int j = 0; j < 3; ++j)
            sum += a[(p * 2 + i) * 3 + j] * b[(q * 3 + j) * 2 + k];
          EXPECT_NEAR(got[((p * 4 + q) * 2 + i) * 2 + k], sum, 1e-12);
        }
  // "...ii->...i": a batch of diagonals.
  OpTester diag("Einsum");
  diag.Input<float>({2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8})
      .Attr("equation", std::string("...ii->...i"));
  out = diag.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Values<float>((*out)[0]), ElementsAre(1, 4, 5, 8));
}

TEST(EinsumTest, HalfPrecisionComputesInFloat) {
  OpTester t("Einsum");
  t.Input<Float16>({2, 2},
                   {Float16(1.0f), Float16(2.0f), Float16(3.0f), Float16(4.0f)})
      .Input<Float16>({2}, {Float16(0.5f), Float16(0.25f)})
      .Attr("equation", std::string("ij,j->i"));
  auto out = t.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  const auto y = Values<Float16>((*out)[0]);
  EXPECT_EQ(static_cast<float>(y[0]), 1.0f);
  EXPECT_EQ(static_cast<float>(y[1]), 2.5f);
}

TEST(EinsumTest, NanReachesOnlyTheOutputsItFeeds) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  OpTester t("Einsum");
  t.Input<float>({2, 2}, {1, nan, 3, 4})
      .Input<float>({2, 2}, {1, 0, 0, 1})
      .Attr("equation", std::string("ij,jk->ik"));
  auto out = t.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  const auto y = Values<float>((*out)[0]);
  EXPECT_TRUE(std::isnan(y[0]));
  EXPECT_TRUE(std::isnan(y[1]));
  EXPECT_EQ(y[2], 3);
  EXPECT_EQ(y[3], 4);
}

TEST(EinsumTest, BadEquationsAreExplained) {
  struct Bad {
    std::string equation;
    std::vector<std::vector<int64_t>> shapes;
    std::string reason;
  };
  const Bad cases[] = {
      {"ij,jk->ik", {{2, 3}}, "has 2 operand(s); the node has 1 input(s)"},
      {"ij,jk->ik", {{2, 3}, {4, 5}}, "subscript 'j' is 3 in one place and 4"},
      {"ij->ix", {{2, 3}}, "output subscript 'x' appears in no operand"},
      {"ij->ii", {{2, 3}}, "output subscript 'i' appears twice"},
      {"i1->i", {{2, 3}}, "has the character '1'"},
      {"ijk->i", {{2, 3}}, "names 3 axes; input 0 has 2"},
      {"...i...->i", {{2, 3}}, "has '...' twice"},
      {"", {{2}}, "attribute 'equation' is missing or empty"},
  };
  for (const Bad& c : cases) {
    OpTester t("Einsum");
    for (const auto& shape : c.shapes) {
      int64_t n = 1;
      for (int64_t d : shape) n *= d;
      t.Input<float>(Shape(shape), std::vector<float>(n, 1.0f));
    }
    t.Attr("equation", c.equation);
    auto out = t.Run();
    ASSERT_FALSE(out.ok()) << c.equation;
    EXPECT_THAT(std::string(out.status().message()), HasSubstr(c.reason))
        << c.equation;
  }
}

}  // namespace
}  // namespace acldump
