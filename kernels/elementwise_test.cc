#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <bit>
#include <cmath>
#include <limits>
#include <random>

#include "kernels/kernel_util.h"
#include "kernels/testing/op_tester.h"
#include "kernels/threading.h"

namespace acldump {
namespace {

using ::acldump::testing::OpTester;
using ::acldump::testing::Values;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::vector<float> Random(size_t n, int seed, float lo = -2, float hi = 2) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

// Reference broadcasting by explicit index arithmetic, independent of
// BroadcastLoop.
float At(const std::vector<float>& data, const Shape& shape,
         const std::vector<int64_t>& index) {
  const size_t offset = index.size() - shape.rank();
  int64_t flat = 0;
  for (size_t d = 0; d < shape.rank(); ++d) {
    flat = flat * shape[d] + (shape[d] == 1 ? 0 : index[d + offset]);
  }
  return data[flat];
}

TEST(BroadcastTest, ShapesFollowNumpy) {
  const Shape a[] = {{2, 1, 4}, {3, 1}};
  EXPECT_EQ(*BroadcastShapes(a), Shape({2, 3, 4}));
  const Shape b[] = {{}, {5}};
  EXPECT_EQ(*BroadcastShapes(b), Shape({5}));
  const Shape c[] = {{2, 3}, {4, 3}};
  EXPECT_THAT(
      BroadcastShapes(c).status().message(),
      HasSubstr(
          "shapes [2,3] and [4,3] cannot be broadcast (dimension 0: 2 vs 4)"));
  const Shape d[] = {{0, 3}, {1, 3}};
  EXPECT_EQ(*BroadcastShapes(d), Shape({0, 3}));
}

TEST(BinaryTest, AddSubMulDivMatchReferenceUnderBroadcasting) {
  const std::pair<Shape, Shape> shapes[] = {
      {{2, 3, 4}, {2, 3, 4}},
      {{2, 3, 4}, {4}},
      {{2, 3, 4}, {3, 1}},
      {{1, 3, 1}, {2, 1, 5}},
      {{}, {2, 2}},
      {{3, 1, 1, 2}, {1, 4, 1}},
      {{5}, {}},
      {{0, 3}, {3}},
  };
  const char* ops[] = {"Add", "Sub", "Mul", "Div"};
  for (const auto& [sa, sb] : shapes) {
    const auto a = Random(sa.NumElements(), 1);
    const auto b = Random(sb.NumElements(), 2, 0.5f, 2.0f);
    for (const char* op : ops) {
      auto out = OpTester(op).Input<float>(sa, a).Input<float>(sb, b).Run();
      ASSERT_TRUE(out.ok()) << out.status();
      const Tensor& y = (*out)[0];
      const Shape both[] = {sa, sb};
      ASSERT_EQ(y.shape(), *BroadcastShapes(both));
      std::vector<int64_t> index(y.shape().rank(), 0);
      for (int64_t i = 0; i < y.NumElements(); ++i) {
        int64_t rest = i;
        for (size_t d = index.size(); d-- > 0;) {
          index[d] = rest % y.shape()[d];
          rest /= y.shape()[d];
        }
        const float x1 = At(a, sa, index), x2 = At(b, sb, index);
        const float expected = op[0] == 'A'   ? x1 + x2
                               : op[0] == 'S' ? x1 - x2
                               : op[0] == 'M' ? x1 * x2
                                              : x1 / x2;
        ASSERT_FLOAT_EQ(y.as<float>()[i], expected)
            << op << " " << sa.ToString() << " " << sb.ToString() << " at "
            << i;
      }
    }
  }
}

TEST(BinaryTest, IntegerDivisionTruncatesAndRejectsZero) {
  auto out = OpTester("Div")
                 .Input<int32_t>({3}, {7, -7, 9})
                 .Input<int32_t>({3}, {2, 2, 3})
                 .Run();
  ASSERT_TRUE(out.ok());
  EXPECT_THAT(Values<int32_t>((*out)[0]), ElementsAre(3, -3, 3));
  out = OpTester("Div")
            .Input<int32_t>({2}, {1, 2})
            .RuntimeInput<int32_t>({2}, {1, 0})
            .Run();
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(),
              HasSubstr("integer division by zero: divisor element 1"));
}

TEST(BinaryTest, PowWithMixedTypesAndFloat16) {
  auto out = OpTester("Pow")
                 .Input<float>({3}, {2, 3, 4})
                 .Input<int64_t>({1}, {2})
                 .Run();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Values<float>((*out)[0]), ElementsAre(4, 9, 16));
  out = OpTester("Add")
            .Input<Float16>({2}, {Float16(1.5f), Float16(65504.0f)})
            .Input<Float16>({2}, {Float16(0.25f), Float16(65504.0f)})
            .Run();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(static_cast<float>((*out)[0].as<Float16>()[0]), 1.75f);
  EXPECT_TRUE(std::isinf(static_cast<float>((*out)[0].as<Float16>()[1])));
}

// Pow by a constant 2 squares: the same bits as the general path's pow in
// double, NaN and infinities included; an exponent of higher rank still
// broadcasts the output up, and a runtime exponent takes the general path.
TEST(BinaryTest, PowByConstantTwoSquaresExactly) {
  std::vector<float> x = Random(5000, 9, -1e19f, 1e19f);
  const float inf = std::numeric_limits<float>::infinity();
  x.insert(x.end(), {std::numeric_limits<float>::quiet_NaN(), inf, -inf, 0.0f,
                     -0.0f, 1e-30f, 3.4e38f});
  const int64_t n = static_cast<int64_t>(x.size());
  for (bool constant : {true, false}) {
    OpTester tester("Pow");
    tester.Input<float>({n}, x);
    if (constant) {
      tester.Input<float>({}, {2.0f});
    } else {
      tester.RuntimeInput<float>({}, {2.0f});
    }
    auto out = tester.Run();
    ASSERT_TRUE(out.ok()) << out.status();
    const std::vector<float> y = Values<float>((*out)[0]);
    for (int64_t i = 0; i < n; ++i) {
      const float want = static_cast<float>(std::pow(double{x[i]}, 2.0));
      if (std::isnan(want)) {
        ASSERT_TRUE(std::isnan(y[i])) << x[i];
      } else {
        ASSERT_EQ(y[i], want) << x[i] << (constant ? " constant" : " runtime");
      }
    }
  }
  auto out = OpTester("Pow")
                 .Input<float>({2}, {3, -4})
                 .Input<float>({1, 1}, {2.0f})
                 .Run();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), Shape({1, 2}));
  EXPECT_THAT(Values<float>((*out)[0]), ElementsAre(9, 16));
}

// Swish: x * sigmoid(alpha * x) on the vector path (float32, alpha 1) and
// the scalar one (another alpha, float64), against double references; NaN
// stays NaN and -inf gives NaN (-inf * 0), as Sigmoid then Mul do.
TEST(UnaryTest, SwishMatchesReferenceOnBothPaths) {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> x = Random(1000, 10, -30, 30);
  x.insert(x.end(), {0.0f, std::numeric_limits<float>::quiet_NaN(), inf, -inf});
  const int64_t n = static_cast<int64_t>(x.size());
  for (float alpha : {1.0f, 1.702f}) {
    auto out =
        OpTester("Swish").Input<float>({n}, x).Attr("alpha", alpha).Run();
    ASSERT_TRUE(out.ok()) << out.status();
    const std::vector<float> y = Values<float>((*out)[0]);
    for (int64_t i = 0; i < n; ++i) {
      const double v = x[i];
      // alpha * x is a float product, as in the tensor's type.
      const double z = static_cast<float>(alpha * x[i]);
      const double want = v / (1.0 + std::exp(-z));
      if (std::isnan(v) || v == -inf) {
        EXPECT_TRUE(std::isnan(y[i])) << "alpha " << alpha << ", x " << v;
      } else if (std::isinf(v)) {
        EXPECT_EQ(y[i], inf);
      } else {
        EXPECT_NEAR(y[i], want, 1e-6 * std::abs(want) + 1e-30)
            << "alpha " << alpha << ", x " << v;
      }
    }
  }
  std::vector<double> xd = {-3.0, 0.5, 2.0};
  auto out = OpTester("Swish").Input<double>({3}, xd).Attr("alpha", 2.0f).Run();
  ASSERT_TRUE(out.ok()) << out.status();
  const std::vector<double> yd = Values<double>((*out)[0]);
  for (size_t i = 0; i < xd.size(); ++i) {
    EXPECT_NEAR(yd[i], xd[i] / (1.0 + std::exp(-2.0 * xd[i])), 1e-12);
  }
}

TEST(BinaryTest, RejectsMismatchedTypesAndShapes) {
  auto out = OpTester("Add")
                 .Input<float>({2}, {1, 2})
                 .Input<int32_t>({2}, {1, 2})
                 .Run();
  EXPECT_THAT(
      out.status().message(),
      HasSubstr("Add: inputs have different types (float32 and int32)"));
  out = OpTester("Mul")
            .Input<float>({2}, {1, 2})
            .Input<float>({3}, {1, 2, 3})
            .Run();
  EXPECT_THAT(out.status().message(), HasSubstr("cannot be broadcast"));
  out = OpTester("Add").Input<float>({2}, {1, 2}).Run();
  EXPECT_THAT(out.status().message(),
              HasSubstr("Add takes 2..2 inputs, got 1"));
}

TEST(VariadicTest, SumMeanMinMaxBroadcast) {
  auto run = [](const char* op) {
    return OpTester(op)
        .Input<float>({3}, {1, 5, 3})
        .Input<float>({1}, {2})
        .Input<float>({2, 1}, {0, 4})
        .Run();
  };
  auto sum = run("Sum");
  ASSERT_TRUE(sum.ok()) << sum.status();
  EXPECT_THAT(Values<float>((*sum)[0]), ElementsAre(3, 7, 5, 7, 11, 9));
  auto mean = run("Mean");
  EXPECT_THAT(Values<float>((*mean)[0]),
              ElementsAre(1, 7.f / 3, 5.f / 3, 7.f / 3, 11.f / 3, 3));
  auto mn = run("Min");
  EXPECT_THAT(Values<float>((*mn)[0]), ElementsAre(0, 0, 0, 1, 2, 2));
  auto mx = run("Max");
  EXPECT_THAT(Values<float>((*mx)[0]), ElementsAre(2, 5, 3, 4, 5, 4));
  auto nan = OpTester("Max")
                 .Input<float>({2}, {NAN, 1})
                 .Input<float>({2}, {0, 2})
                 .Run();
  EXPECT_TRUE(std::isnan((*nan)[0].as<float>()[0]));
}

TEST(CompareAndLogicTest, ProduceBool) {
  auto out = OpTester("Less")
                 .Input<int64_t>({3}, {1, 2, 3})
                 .Input<int64_t>({1}, {2})
                 .Run();
  ASSERT_TRUE(out.ok());
  EXPECT_EQ((*out)[0].dtype(), DType::kBool);
  EXPECT_THAT(Values<bool>((*out)[0]), ElementsAre(true, false, false));
  out = OpTester("Equal")
            .Input<float>({2}, {1, NAN})
            .Input<float>({2}, {1, NAN})
            .Run();
  EXPECT_THAT(Values<bool>((*out)[0]), ElementsAre(true, false));
  out = OpTester("Xor")
            .Input<bool>({2, 2}, {true, true, false, false})
            .Input<bool>({2}, {true, false})
            .Run();
  EXPECT_THAT(Values<bool>((*out)[0]), ElementsAre(false, true, true, false));
  out = OpTester("Not").Input<bool>({2}, {true, false}).Run();
  EXPECT_THAT(Values<bool>((*out)[0]), ElementsAre(false, true));
  out = OpTester("And").Input<float>({1}, {1}).Input<float>({1}, {1}).Run();
  EXPECT_THAT(out.status().message(),
              HasSubstr("input A has unsupported type float32"));
}

TEST(WhereTest, SelectsWithThreeWayBroadcast) {
  auto out = OpTester("Where")
                 .Input<bool>({2, 1}, {true, false})
                 .Input<int64_t>({3}, {1, 2, 3})
                 .Input<int64_t>({}, {-1})
                 .Run();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), Shape({2, 3}));
  EXPECT_THAT(Values<int64_t>((*out)[0]), ElementsAre(1, 2, 3, -1, -1, -1));
}

TEST(UnaryTest, MathFunctionsMatchLibm) {
  const auto x = Random(257, 9, 0.1f, 3.0f);
  struct Case {
    const char* op;
    double (*fn)(double);
  };
  const Case cases[] = {
      {"Exp", [](double v) { return std::exp(v); }},
      {"Log", [](double v) { return std::log(v); }},
      {"Sqrt", [](double v) { return std::sqrt(v); }},
      {"Tanh", [](double v) { return std::tanh(v); }},
      {"Erf", [](double v) { return std::erf(v); }},
      {"Sigmoid", [](double v) { return 1 / (1 + std::exp(-v)); }},
      {"Neg", [](double v) { return -v; }},
      {"Reciprocal", [](double v) { return 1 / v; }},
      {"Softplus", [](double v) { return std::log1p(std::exp(v)); }},
  };
  for (const Case& c : cases) {
    auto out = OpTester(c.op).Input<float>({257}, x).Run();
    ASSERT_TRUE(out.ok()) << c.op << ": " << out.status();
    for (size_t i = 0; i < x.size(); ++i) {
      EXPECT_NEAR((*out)[0].as<float>()[i], c.fn(x[i]),
                  1e-5 * std::max(1.0, std::abs(c.fn(x[i]))))
          << c.op;
    }
  }
}

TEST(UnaryTest, ActivationsWithAttributes) {
  auto out = OpTester("LeakyRelu")
                 .Input<float>({3}, {-2, 0, 3})
                 .Attr("alpha", 0.1f)
                 .Run();
  EXPECT_THAT(Values<float>((*out)[0]), ElementsAre(-0.2f, 0, 3));
  out = OpTester("Relu").Input<int32_t>({3}, {-2, 0, 3}).Run();
  ASSERT_TRUE(out.ok());
  EXPECT_THAT(Values<int32_t>((*out)[0]), ElementsAre(0, 0, 3));
  out = OpTester("HardSigmoid").Input<float>({3}, {-10, 0, 10}).Run();
  EXPECT_THAT(Values<float>((*out)[0]), ElementsAre(0, 0.5f, 1));
  out = OpTester("Sigmoid").Input<float>({2}, {-1000, 1000}).Run();
  EXPECT_THAT(Values<float>((*out)[0]), ElementsAre(0, 1));
  out = OpTester("Abs").Input<int8_t>({2}, {-5, 5}).Run();
  EXPECT_THAT(Values<int8_t>((*out)[0]), ElementsAre(5, 5));
  out = OpTester("Exp").Input<int32_t>({1}, {1}).Run();
  EXPECT_THAT(out.status().message(),
              HasSubstr("Exp: input X has unsupported type int32"));
}

TEST(ClipTest, BoundsFromInputsOrAttributes) {
  auto out = OpTester("Clip")
                 .Input<float>({4}, {-3, -1, 1, 3})
                 .Input<float>({}, {-2})
                 .Input<float>({}, {2})
                 .Run();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Values<float>((*out)[0]), ElementsAre(-2, -1, 1, 2));
  out = OpTester("Clip")
            .Input<float>({2}, {-3, 3})
            .AbsentInput()
            .Input<float>({}, {0})
            .Run();
  EXPECT_THAT(Values<float>((*out)[0]), ElementsAre(-3, 0));
  out = OpTester("Clip")
            .Input<float>({2}, {-3, 3})
            .Attr("min", -1.0f)
            .Attr("max", 1.0f)
            .Run();
  EXPECT_THAT(Values<float>((*out)[0]), ElementsAre(-1, 1));
  out = OpTester("Clip")
            .Input<int8_t>({2}, {-100, 100})
            .Input<int8_t>({}, {-5})
            .Run();
  EXPECT_THAT(Values<int8_t>((*out)[0]), ElementsAre(-5, 100));
  out = OpTester("Clip")
            .Input<float>({1}, {0})
            .RuntimeInput<float>({}, {0})
            .Run();
  EXPECT_THAT(out.status().message(),
              HasSubstr("'min' must be known before execution"));
}

TEST(CastTest, ConvertsBetweenTypes) {
  auto out = OpTester("Cast")
                 .Input<float>({4}, {1.5f, -2.7f, 65520.0f, 3.0e9f})
                 .Attr("to", int64_t{7})
                 .Run();
  ASSERT_TRUE(out.ok());
  EXPECT_EQ((*out)[0].dtype(), DType::kInt64);
  EXPECT_THAT(Values<int64_t>((*out)[0]),
              ElementsAre(1, -2, 65520, 3000000000));
  out = OpTester("Cast")
            .Input<float>({3}, {1.0f, 65520.0f, 1e-8f})
            .Attr("to", int64_t{10})
            .Run();
  ASSERT_TRUE(out.ok());
  EXPECT_EQ((*out)[0].as<Float16>()[0].bits, 0x3C00);
  EXPECT_EQ((*out)[0].as<Float16>()[1].bits, 0x7C00);  // rounds to +Inf
  EXPECT_EQ((*out)[0].as<Float16>()[2].bits, 0x0000);
  out = OpTester("Cast")
            .Input<int32_t>({3}, {0, 2, -1})
            .Attr("to", int64_t{9})
            .Run();
  EXPECT_THAT(Values<bool>((*out)[0]), ElementsAre(false, true, true));
  out = OpTester("Cast").Input<float>({1}, {1}).Attr("to", int64_t{8}).Run();
  EXPECT_THAT(out.status().message(),
              HasSubstr("cast to ONNX data type 8 is not supported"));
}

TEST(CastTest, ToAndFromTheUnsignedTypes) {
  auto out = OpTester("Cast")
                 .Input<float>({4}, {1.9f, -3.0f, 70000.0f, NAN})
                 .Attr("to", int64_t{4})  // UINT16
                 .Run();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].dtype(), DType::kUInt16);
  // Toward zero; out of range saturates, NaN gives 0.
  EXPECT_THAT(Values<uint16_t>((*out)[0]), ElementsAre(1, 0, 65535, 0));
  out = OpTester("Cast")
            .Input<double>({2}, {4e9, 1e30})
            .Attr("to", int64_t{12})  // UINT32
            .Run();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].dtype(), DType::kUInt32);
  EXPECT_THAT(Values<uint32_t>((*out)[0]),
              ElementsAre(4000000000u, 0xFFFFFFFFu));
  out = OpTester("Cast")
            .Input<int64_t>({2}, {-1, 5})
            .Attr("to", int64_t{13})  // UINT64
            .Run();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].dtype(), DType::kUInt64);
  // Integer to integer wraps, as numpy's astype does.
  EXPECT_THAT(Values<uint64_t>((*out)[0]), ElementsAre(~uint64_t{0}, 5u));
  out = OpTester("Cast")
            .Input<uint64_t>({2}, {uint64_t{1} << 63, 3})
            .Attr("to", int64_t{1})
            .Run();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Values<float>((*out)[0]), ElementsAre(9223372036854775808.0f, 3));
  out = OpTester("Cast")
            .Input<uint32_t>({2}, {0, 7})
            .Attr("to", int64_t{9})
            .Run();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Values<bool>((*out)[0]), ElementsAre(false, true));
}

// Values of 2^63 and above must order as unsigned, not wrap negative.
TEST(UnsignedTest, MaxMinCompareAndArithmetic) {
  const uint64_t big = (uint64_t{1} << 63) + 5;
  auto run = [&](const std::string& op) {
    return OpTester(op)
        .Input<uint64_t>({3}, {big, 1, 7})
        .Input<uint64_t>({1}, {6})
        .Run();
  };
  auto mx = run("Max");
  ASSERT_TRUE(mx.ok()) << mx.status();
  EXPECT_EQ((*mx)[0].dtype(), DType::kUInt64);
  EXPECT_THAT(Values<uint64_t>((*mx)[0]), ElementsAre(big, 6, 7));
  auto mn = run("Min");
  ASSERT_TRUE(mn.ok()) << mn.status();
  EXPECT_THAT(Values<uint64_t>((*mn)[0]), ElementsAre(6, 1, 6));
  auto less = run("Less");
  ASSERT_TRUE(less.ok()) << less.status();
  EXPECT_THAT(Values<bool>((*less)[0]), ElementsAre(false, true, false));
  auto mod = run("Mod");
  ASSERT_TRUE(mod.ok()) << mod.status();
  EXPECT_THAT(Values<uint64_t>((*mod)[0]), ElementsAre(big % 6, 1, 1));
  auto sub = run("Sub");
  ASSERT_TRUE(sub.ok()) << sub.status();
  EXPECT_THAT(Values<uint64_t>((*sub)[0]),
              ElementsAre(big - 6, uint64_t{1} - 6, 1));  // wraps
  auto u16 = OpTester("Max")
                 .Input<uint16_t>({2}, {65535, 2})
                 .Input<uint16_t>({2}, {1, 40000})
                 .Input<uint16_t>({1}, {3})
                 .Run();
  ASSERT_TRUE(u16.ok()) << u16.status();
  EXPECT_THAT(Values<uint16_t>((*u16)[0]), ElementsAre(65535, 40000));
  auto div = OpTester("Div")
                 .Input<uint32_t>({2}, {4000000000u, 9})
                 .Input<uint32_t>({2}, {2, 0})
                 .Run();
  EXPECT_THAT(div.status().message(), HasSubstr("integer division by zero"));
}

TEST(UnsignedTest, PowWithAnUnsignedExponent) {
  auto out = OpTester("Pow")
                 .Input<float>({3}, {2, -3, 0.5f})
                 .Input<uint64_t>({3}, {10, 3, 2})
                 .Run();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].dtype(), DType::kFloat32);
  EXPECT_THAT(Values<float>((*out)[0]), ElementsAre(1024, -27, 0.25f));
}

// The converter's fused PaddlePaddle HardSwish chain: every step rounded as
// the Add, Clip, Mul and Div nodes would, in every lane and the tail.
TEST(HardSwishTest, FusedChainGivesTheBitsOfItsSteps) {
  std::vector<float> x(37);
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(0.9f * i) * 7.0f;
  x[3] = std::numeric_limits<float>::quiet_NaN();
  x[9] = -std::numeric_limits<float>::infinity();
  x[17] = -3.0f;
  auto out = OpTester("HardSwish")
                 .Input<float>({37}, x)
                 .Attr("fused_shift", 3.0f)
                 .Attr("fused_clip_min", 0.0f)
                 .Attr("fused_clip_max", 6.0f)
                 .Attr("fused_divisor", 6.0f)
                 .Run();
  ASSERT_TRUE(out.ok()) << out.status();
  const std::vector<float> y = Values<float>((*out)[0]);
  for (size_t i = 0; i < x.size(); ++i) {
    float clipped = x[i] + 3.0f;
    clipped = clipped < 0.0f ? 0.0f : clipped;
    clipped = clipped > 6.0f ? 6.0f : clipped;
    const float want = (x[i] * clipped) / 6.0f;
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(y[i])) << i;
    } else {
      EXPECT_EQ(y[i], want) << i;
    }
  }
  auto missing = OpTester("HardSwish")
                     .Input<float>({2}, {1, 2})
                     .Attr("fused_divisor", 6.0f)
                     .Run();
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(std::string(missing.status().message()),
              ::testing::HasSubstr("needs attribute 'fused_shift'"));
  auto float64 = OpTester("HardSwish")
                     .Input<double>({2}, {1, 2})
                     .Attr("fused_shift", 3.0f)
                     .Attr("fused_clip_min", 0.0f)
                     .Attr("fused_clip_max", 6.0f)
                     .Attr("fused_divisor", 6.0f)
                     .Run();
  ASSERT_FALSE(float64.ok());
  EXPECT_THAT(std::string(float64.status().message()),
              ::testing::HasSubstr("takes float32, got float64"));
}

}  // namespace
}  // namespace acldump

namespace acldump {
namespace {

// The parallel walk makes the serial walk's calls, split: every output element
// once, with the input offsets the serial walk gives it.
TEST(BroadcastLoopTest, ParallelRunsMatchTheSerialWalk) {
  struct Case {
    Shape out, a, b;
  };
  const Case cases[] = {
      {Shape({1, 96, 56, 56}), Shape({1, 96, 56, 56}), Shape({1, 96, 1, 1})},
      {Shape({4, 3, 5000}), Shape({4, 3, 5000}), Shape({4, 3, 5000})},
      {Shape({7, 1, 9, 1000}), Shape({7, 1, 1, 1000}), Shape({9, 1})},
      {Shape({}), Shape({}), Shape({})},
      {Shape({0, 4}), Shape({0, 4}), Shape({4})}};
  for (const Case& c : cases) {
    const Shape inputs[] = {c.a, c.b};
    const BroadcastLoop loop(c.out, inputs);
    const int64_t n = c.out.NumElements();
    std::vector<int64_t> serial_a(n, -1), serial_b(n, -1);
    loop.ForEachRun(
        [&](int64_t o, const int64_t* off, int64_t count, const int64_t* st) {
          for (int64_t i = 0; i < count; ++i) {
            serial_a[o + i] = off[0] + i * st[0];
            serial_b[o + i] = off[1] + i * st[1];
          }
        });
    for (int threads : {1, 2, 3}) {
      ScopedIntraOpThreads scope(threads);
      std::vector<int64_t> a(n, -1), b(n, -1);
      std::vector<std::atomic<int>> visits(n);
      loop.ParallelForEachRun(100, [&](int64_t o, const int64_t* off,
                                       int64_t count, const int64_t* st) {
        for (int64_t i = 0; i < count; ++i) {
          a[o + i] = off[0] + i * st[0];
          b[o + i] = off[1] + i * st[1];
          visits[o + i]++;
        }
      });
      for (int64_t i = 0; i < n; ++i) ASSERT_EQ(visits[i].load(), 1) << i;
      EXPECT_EQ(a, serial_a) << c.out.ToString() << " on " << threads;
      EXPECT_EQ(b, serial_b) << c.out.ToString() << " on " << threads;
    }
  }
}
TEST(GeluTest, ErfAndTanhFormsAgainstDouble) {
  std::vector<float> x;
  for (int i = -400; i <= 400; ++i) x.push_back(0.025f * i);
  x.push_back(std::numeric_limits<float>::infinity());
  x.push_back(-std::numeric_limits<float>::infinity());
  x.push_back(std::numeric_limits<float>::quiet_NaN());
  const int64_t n = static_cast<int64_t>(x.size());
  for (const char* approximate : {"none", "tanh"}) {
    auto outputs = OpTester("Gelu")
                       .Input<float>(Shape{n}, x)
                       .Attr("approximate", std::string(approximate))
                       .Run();
    ASSERT_TRUE(outputs.ok()) << outputs.status();
    const std::vector<float> y = Values<float>((*outputs)[0]);
    for (int64_t i = 0; i < n - 3; ++i) {
      const double v = x[i];
      const double expected =
          std::string(approximate) == "none"
              ? 0.5 * v * (1 + std::erf(v / std::sqrt(2.0)))
              : 0.5 * v *
                    (1 + std::tanh(std::sqrt(2 / M_PI) *
                                   (v + 0.044715 * v * v * v)));
      EXPECT_NEAR(y[i], expected, 2e-6 + 2e-6 * std::abs(expected))
          << approximate << " at " << v;
    }
    EXPECT_EQ(y[n - 3], std::numeric_limits<float>::infinity()) << approximate;
    EXPECT_TRUE(std::isnan(y[n - 1])) << approximate;
  }
}

TEST(GeluTest, FusedChainAttributesAndErrors) {
  // x * (erf(x / 2) + 1) * 0.25, each step rounded to float32 and erf the
  // Erf kernel's: the bits of the five nodes.
  std::vector<float> x;
  for (int i = -60; i <= 60; ++i) x.push_back(0.13f * i);
  x.push_back(std::numeric_limits<float>::infinity());
  x.push_back(-0.0f);
  const int64_t n = static_cast<int64_t>(x.size());
  auto fused = OpTester("Gelu")
                   .Input<float>(Shape{n}, x)
                   .Attr("fused_divisor", 2.0f)
                   .Attr("fused_shift", 1.0f)
                   .Attr("fused_scale", 0.25f)
                   .Run();
  ASSERT_TRUE(fused.ok()) << fused.status();
  std::vector<float> halves(x.size());
  for (size_t i = 0; i < x.size(); ++i) halves[i] = x[i] / 2.0f;
  auto erf = OpTester("Erf").Input<float>(Shape{n}, halves).Run();
  ASSERT_TRUE(erf.ok()) << erf.status();
  const std::vector<float> e = Values<float>((*erf)[0]);
  const std::vector<float> y = Values<float>((*fused)[0]);
  for (size_t i = 0; i < x.size(); ++i) {
    const float expected = (x[i] * (e[i] + 1.0f)) * 0.25f;
    EXPECT_EQ(std::bit_cast<uint32_t>(y[i]), std::bit_cast<uint32_t>(expected))
        << "x = " << x[i];
  }
  auto missing = OpTester("Gelu")
                     .Input<float>(Shape{1}, {1.0f})
                     .Attr("fused_divisor", 2.0f)
                     .Attr("fused_shift", 1.0f)
                     .Run();
  EXPECT_THAT(std::string(missing.status().message()),
              HasSubstr("a fused Gelu chain needs attribute 'fused_scale'"));
  auto wide = OpTester("Gelu")
                  .Input<double>(Shape{1}, {1.0})
                  .Attr("fused_divisor", 2.0f)
                  .Run();
  EXPECT_THAT(std::string(wide.status().message()),
              HasSubstr("a fused Gelu chain takes float32, got float64"));
  auto bad = OpTester("Gelu")
                 .Input<float>(Shape{1}, {1.0f})
                 .Attr("approximate", std::string("sigmoid"))
                 .Run();
  EXPECT_THAT(std::string(bad.status().message()),
              HasSubstr("approximate 'sigmoid' is not supported"));
  // Float64 takes the scalar formula.
  auto precise = OpTester("Gelu").Input<double>(Shape{1}, {1.5}).Run();
  ASSERT_TRUE(precise.ok()) << precise.status();
  EXPECT_DOUBLE_EQ(Values<double>((*precise)[0])[0],
                   0.5 * 1.5 * (1 + std::erf(1.5 / std::sqrt(2.0))));
}

}  // namespace
}  // namespace acldump
