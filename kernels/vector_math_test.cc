#include "kernels/vector_math.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace acldump {
namespace {

using ArrayFn = void (*)(const float*, float*, size_t);
using Reference = double (*)(double);

double Sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }
double Exp(double x) { return std::exp(x); }
double Tanh(double x) { return std::tanh(x); }
double Erf(double x) { return std::erf(x); }

// Distance in units in the last place between `got` and the exact result
// `want`, measured at want's binade (the float spacing around it).
double UlpError(float got, double want) {
  const float rounded = static_cast<float>(want);
  if (std::isinf(rounded)) return std::isinf(got) && got == rounded ? 0 : 1e9;
  const double magnitude =
      std::max<double>(std::fabs(rounded), std::numeric_limits<float>::min());
  int exponent;
  std::frexp(magnitude, &exponent);
  const double ulp = std::ldexp(1.0, exponent - 24);
  return std::fabs(static_cast<double>(got) - want) / ulp;
}

// Floats spread over [-range, range]: a dense uniform sweep plus every
// 1,024th float bit pattern of that range, so each binade is visited.
std::vector<float> Sweep(float range) {
  std::vector<float> xs;
  for (int i = -200000; i <= 200000; ++i) xs.push_back(range * i / 200000.0f);
  for (uint32_t bits = 0; bits < 0x7f800000u; bits += 1024) {
    float v;
    std::memcpy(&v, &bits, sizeof v);
    if (v > range) break;
    xs.push_back(v);
    xs.push_back(-v);
  }
  return xs;
}

struct Case {
  const char* name;
  ArrayFn fn;
  Reference reference;
  float range;     // inputs swept
  double max_ulp;  // the bound this implementation holds
};

class VectorMathTest : public ::testing::TestWithParam<Case> {};

TEST_P(VectorMathTest, WithinStatedUlpOfDoubleReference) {
  const Case& c = GetParam();
  const std::vector<float> xs = Sweep(c.range);
  std::vector<float> ys(xs.size());
  c.fn(xs.data(), ys.data(), xs.size());
  double worst = 0;
  float worst_x = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    const double want = c.reference(xs[i]);
    const double error = UlpError(ys[i], want);
    if (error > worst) {
      worst = error;
      worst_x = xs[i];
    }
  }
  EXPECT_LE(worst, c.max_ulp) << c.name << " at x = " << worst_x;
  std::printf("%s: max error %.2f ulp (at x = %.9g) over %zu inputs\n", c.name,
              worst, worst_x, xs.size());
}

TEST_P(VectorMathTest, SpecialValuesAsCmath) {
  const Case& c = GetParam();
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // Placed at every lane position of a vector and in the tail.
  for (size_t n : {1, 3, 8, 16, 17, 33}) {
    for (size_t at = 0; at < n; ++at) {
      for (float special : {nan, inf, -inf}) {
        std::vector<float> x(n, 0.5f), y(n);
        x[at] = special;
        c.fn(x.data(), y.data(), n);
        const double want = c.reference(special);
        if (std::isnan(want)) {
          EXPECT_TRUE(std::isnan(y[at])) << c.name << "(" << special << ")";
        } else {
          EXPECT_EQ(y[at], static_cast<float>(want))
              << c.name << "(" << special << ")";
        }
        for (size_t i = 0; i < n; ++i) {
          if (i != at) {
            EXPECT_NEAR(y[i], c.reference(0.5), 1e-6)
                << c.name << " lane " << i;
          }
        }
      }
    }
  }
}

TEST_P(VectorMathTest, InPlaceAndOddLengths) {
  const Case& c = GetParam();
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-c.range, c.range);
  for (size_t n = 0; n < 70; ++n) {
    std::vector<float> x(n);
    for (float& v : x) v = dist(rng);
    std::vector<float> separate(n), in_place = x;
    c.fn(x.data(), separate.data(), n);
    c.fn(in_place.data(), in_place.data(), n);
    EXPECT_EQ(separate, in_place) << c.name << " n = " << n;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Functions, VectorMathTest,
    ::testing::Values(
        // Outputs in the normal range: |x| <= 87 for exp and sigmoid.
        Case{"exp", ExpFloat32, Exp, 87.0f, 1.0},
        Case{"sigmoid", SigmoidFloat32, Sigmoid, 87.0f, 3.0},
        Case{"tanh", TanhFloat32, Tanh, 20.0f, 3.0},
        Case{"erf", ErfFloat32, Erf, 6.0f, 7.0}),
    [](const auto& info) { return std::string(info.param.name); });

// The piecewise-linear activations against their scalar definitions, bit
// for bit (HardSigmoid with its multiply-add fused, as documented), over a
// sweep with NaN, infinities and the kinks.
TEST(PiecewiseLinear, SameBitsAsScalarDefinitions) {
  std::vector<float> xs = Sweep(1e6f);
  const float inf = std::numeric_limits<float>::infinity();
  for (float v : {std::numeric_limits<float>::quiet_NaN(), inf, -inf, -3.0f,
                  3.0f, 0.0f, -0.0f, 2.5f, -2.5f, 6.0f, -6.0f}) {
    xs.push_back(v);
  }
  std::vector<float> y(xs.size());
  auto same = [](float got, float want) {
    return (std::isnan(got) && std::isnan(want)) ||
           std::memcmp(&got, &want, sizeof got) == 0;
  };
  HardSwishFloat32(xs.data(), y.data(), xs.size());
  for (size_t i = 0; i < xs.size(); ++i) {
    const float x = xs[i];
    const float want = x * std::clamp(x / 6.0f + 0.5f, 0.0f, 1.0f);
    ASSERT_TRUE(same(y[i], want)) << "HardSwish(" << x << ") = " << y[i];
  }
  HardSigmoidFloat32(xs.data(), y.data(), xs.size(), 0.2f, 0.5f);
  for (size_t i = 0; i < xs.size(); ++i) {
    const float x = xs[i];
    const float want = std::clamp(std::fma(0.2f, x, 0.5f), 0.0f, 1.0f);
    ASSERT_TRUE(same(y[i], want)) << "HardSigmoid(" << x << ") = " << y[i];
  }
  ClipFloat32(xs.data(), y.data(), xs.size(), 0.0f, 6.0f);
  for (size_t i = 0; i < xs.size(); ++i) {
    const float x = xs[i];
    const float want = x < 0.0f ? 0.0f : (x > 6.0f ? 6.0f : x);
    ASSERT_TRUE(same(y[i], want)) << "Clip(" << x << ") = " << y[i];
  }
}

// A fused Sigmoid + Mul gives the bits of the two run apart.
TEST(Swish, SameBitsAsSigmoidTimesX) {
  std::vector<float> xs = Sweep(100.0f);
  const float inf = std::numeric_limits<float>::infinity();
  xs.insert(xs.end(), {std::numeric_limits<float>::quiet_NaN(), inf, -inf});
  std::vector<float> swish(xs.size()), sigmoid(xs.size());
  SwishFloat32(xs.data(), swish.data(), xs.size());
  SigmoidFloat32(xs.data(), sigmoid.data(), xs.size());
  for (size_t i = 0; i < xs.size(); ++i) {
    const float want = xs[i] * sigmoid[i];
    if (std::isnan(want)) {
      ASSERT_TRUE(std::isnan(swish[i])) << xs[i];
    } else {
      ASSERT_EQ(swish[i], want) << xs[i];
    }
  }
}

}  // namespace
}  // namespace acldump
