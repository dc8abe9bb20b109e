// NaN/Inf fidelity of every kernel family: each op runs with NaN, +Inf and
// -Inf injected at several positions of an input and must give NaN and
// infinities exactly where a double-precision reference of the ONNX semantics
// (numpy's: NaN propagates through max/min/sums, inf - inf is NaN) does,
// element by element. The fusions are checked the same way in
// //runtime:nan_inf_fidelity_test.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <set>

#include "base/strings.h"
#include "kernels/testing/op_tester.h"

namespace acldump {
namespace {

using ::acldump::testing::MakeTensor;
using ::acldump::testing::OpTester;
using Ref = std::function<std::vector<double>(const std::vector<float>&)>;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

std::vector<float> Random(size_t n, int seed, float lo = -1, float hi = 1) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

// One op: input 0 (`shape`) receives the injections; `extra` are the other
// inputs; `reference` maps input 0 to the expected output 0.
struct Case {
  std::string family;
  std::string op;
  Shape shape;
  std::vector<Tensor> extra;
  std::vector<std::pair<std::string, AttrValue>> attrs;
  Ref reference;
  size_t num_outputs = 1;
};

template <typename... T>
std::vector<Tensor> Tensors(T... tensors) {
  std::vector<Tensor> v;
  (v.push_back(std::move(tensors)), ...);
  return v;
}

std::vector<double> Map(const std::vector<float>& x,
                        const std::function<double(double)>& f) {
  std::vector<double> y;
  for (float v : x) y.push_back(f(v));
  return y;
}

double NanMax(double a, double b) {
  return std::isnan(a) || std::isnan(b) ? kNaN : std::max(a, b);
}
double NanMin(double a, double b) {
  return std::isnan(a) || std::isnan(b) ? kNaN : std::min(a, b);
}

Case Unary(std::string op, std::function<double(double)> f,
           std::vector<std::pair<std::string, AttrValue>> attrs = {}) {
  return Case{
      "elementwise",    op,
      Shape({2, 3, 4}), {},
      std::move(attrs), [f](const std::vector<float>& x) { return Map(x, f); }};
}

Case Binary(std::string op, std::function<double(double, double)> f) {
  const std::vector<float> b = Random(4, 7, 0.5f, 1.5f);
  return Case{"elementwise",
              op,
              Shape({2, 3, 4}),
              Tensors(MakeTensor<float>({4}, b)),
              {},
              [f, b](const std::vector<float>& x) {
                std::vector<double> y;
                for (size_t i = 0; i < x.size(); ++i)
                  y.push_back(f(x[i], b[i % 4]));
                return y;
              }};
}

// Rows of `n` elements along the last axis; f maps one row.
Case Rows(std::string family, std::string op, Shape shape,
          std::function<std::vector<double>(const std::vector<double>&)> f,
          std::vector<std::pair<std::string, AttrValue>> attrs = {}) {
  const int64_t n = shape[shape.rank() - 1];
  return Case{family,
              op,
              shape,
              {},
              std::move(attrs),
              [f, n](const std::vector<float>& x) {
                std::vector<double> y;
                for (size_t r = 0; r < x.size() / n; ++r) {
                  std::vector<double> row(x.begin() + r * n,
                                          x.begin() + (r + 1) * n);
                  for (double v : f(row)) y.push_back(v);
                }
                return y;
              }};
}

// Reduction of each row to one value.
Case Reduce(std::string op, std::function<double(const std::vector<double>&)> f,
            std::string family = "reduce") {
  return Rows(family, op, Shape({3, 5}),
              [f](const std::vector<double>& row) {
                return std::vector<double>{f(row)};
              },
              {{"axes", std::vector<int64_t>{1}}, {"keepdims", int64_t{0}}});
}

double Sum(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return s;
}

// 2-D windows over [1, C, H, W]: f(values of the window inside the input,
// window size including padding).
Case Pool(std::string op, int64_t k, int64_t s, int64_t p,
          std::function<double(const std::vector<double>&)> f) {
  const int64_t c = 2, h = 5, w = 6;
  return Case{"pool",
              op,
              Shape({1, c, h, w}),
              {},
              {{"kernel_shape", std::vector<int64_t>{k, k}},
               {"strides", std::vector<int64_t>{s, s}},
               {"pads", std::vector<int64_t>{p, p, p, p}}},
              [=](const std::vector<float>& x) {
                const int64_t oh = (h + 2 * p - k) / s + 1;
                const int64_t ow = (w + 2 * p - k) / s + 1;
                std::vector<double> y;
                for (int64_t ch = 0; ch < c; ++ch)
                  for (int64_t i = 0; i < oh; ++i)
                    for (int64_t j = 0; j < ow; ++j) {
                      std::vector<double> window;
                      for (int64_t a = 0; a < k; ++a)
                        for (int64_t b = 0; b < k; ++b) {
                          const int64_t r = i * s - p + a, q = j * s - p + b;
                          if (r >= 0 && r < h && q >= 0 && q < w)
                            window.push_back(x[(ch * h + r) * w + q]);
                        }
                      y.push_back(f(window));
                    }
                return y;
              }};
}

double NanMaxOf(const std::vector<double>& v) {
  double m = -std::numeric_limits<double>::infinity();
  for (double x : v) m = NanMax(m, x);
  return m;
}

std::vector<double> Softmax(const std::vector<double>& row, bool log) {
  const double m = NanMaxOf(row);
  double sum = 0;
  for (double x : row) sum += std::exp(x - m);
  std::vector<double> y;
  for (double x : row)
    y.push_back(log ? (x - m) - std::log(sum) : std::exp(x - m) / sum);
  return y;
}

std::vector<double> Normalize(const std::vector<double>& row, double scale,
                              double bias) {
  const double mean = Sum(row) / row.size();
  double var = 0;
  for (double x : row) var += (x - mean) * (x - mean);
  var /= row.size();
  std::vector<double> y;
  for (double x : row)
    y.push_back((x - mean) / std::sqrt(var + 1e-5) * scale + bias);
  return y;
}

std::vector<Case> Cases() {
  std::vector<Case> cases;
  cases.push_back(Unary("Relu", [](double x) { return x < 0 ? 0 : x; }));
  cases.push_back(Unary("LeakyRelu",
                        [](double x) { return x >= 0 ? x : 0.1 * x; },
                        {{"alpha", 0.1f}}));
  cases.push_back(
      Unary("Elu", [](double x) { return x >= 0 ? x : std::expm1(x); }));
  cases.push_back(
      Unary("Sigmoid", [](double x) { return 1 / (1 + std::exp(-x)); }));
  cases.push_back(Unary("HardSigmoid", [](double x) {
    const double v = 0.2 * x + 0.5;
    return std::isnan(v) ? v : std::clamp(v, 0.0, 1.0);
  }));
  cases.push_back(Unary("HardSwish", [](double x) {
    const double v = x / 6 + 0.5;
    return x * (std::isnan(v) ? v : std::clamp(v, 0.0, 1.0));
  }));
  cases.push_back(Unary("Tanh", [](double x) { return std::tanh(x); }));
  cases.push_back(Unary("Exp", [](double x) { return std::exp(x); }));
  cases.push_back(Unary("Abs", [](double x) { return std::abs(x); }));
  cases.push_back(
      Unary("Softplus", [](double x) { return std::log1p(std::exp(x)); }));
  cases.push_back(Unary("Sqrt", [](double x) { return std::sqrt(x); }));
  cases.push_back(Unary("Erf", [](double x) { return std::erf(x); }));
  cases.push_back(Unary("Celu", [](double x) {
    return NanMax(0, x) + NanMin(0, std::expm1(x));
  }));
  cases.push_back(Binary("Add", [](double a, double b) { return a + b; }));
  cases.push_back(Binary("Sub", [](double a, double b) { return a - b; }));
  cases.push_back(Binary("Mul", [](double a, double b) { return a * b; }));
  cases.push_back(Binary("Div", [](double a, double b) { return a / b; }));
  cases.push_back(Binary("Max", NanMax));
  cases.push_back(Binary("Min", NanMin));
  cases.push_back(
      Binary("PRelu", [](double a, double b) { return a < 0 ? a * b : a; }));
  cases.push_back(
      Binary("Pow", [](double a, double b) { return std::pow(a, b); }));
  // Clip with constant bounds.
  {
    Case c{
        "elementwise",
        "Clip",
        Shape({12}),
        Tensors(MakeTensor<float>({}, {-0.5f}), MakeTensor<float>({}, {0.5f})),
        {},
        [](const std::vector<float>& x) {
          return Map(x, [](double v) {
            return std::isnan(v) ? v : std::clamp(v, -0.5, 0.5);
          });
        }};
    cases.push_back(std::move(c));
  }
  // MatMul / Gemm: A [3, 4] (injected) x B [4, 5] (+ C [5]).
  {
    const std::vector<float> b = Random(20, 8), bias = Random(5, 9);
    auto gemm = [b, bias](const std::vector<float>& a, bool with_bias) {
      std::vector<double> y;
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 5; ++j) {
          double s = with_bias ? bias[j] : 0;
          for (int k = 0; k < 4; ++k) s += double(a[i * 4 + k]) * b[k * 5 + j];
          y.push_back(s);
        }
      return y;
    };
    cases.push_back(
        Case{"matmul",
             "MatMul",
             Shape({3, 4}),
             Tensors(MakeTensor<float>({4, 5}, b)),
             {},
             [gemm](const std::vector<float>& a) { return gemm(a, false); }});
    cases.push_back(Case{
        "matmul",
        "Gemm",
        Shape({3, 4}),
        Tensors(MakeTensor<float>({4, 5}, b), MakeTensor<float>({5}, bias)),
        {},
        [gemm](const std::vector<float>& a) { return gemm(a, true); }});
  }
  // Conv 3x3 pads 1 and ConvTranspose 2x2 stride 2 over [1, 2, 4, 5].
  {
    const std::vector<float> w = Random(3 * 2 * 9, 10), bias = Random(3, 11);
    cases.push_back(Case{"conv",
                         "Conv",
                         Shape({1, 2, 4, 5}),
                         Tensors(MakeTensor<float>({3, 2, 3, 3}, w),
                                 MakeTensor<float>({3}, bias)),
                         {{"pads", std::vector<int64_t>{1, 1, 1, 1}}},
                         [w, bias](const std::vector<float>& x) {
                           std::vector<double> y;
                           for (int o = 0; o < 3; ++o)
                             for (int i = 0; i < 4; ++i)
                               for (int j = 0; j < 5; ++j) {
                                 double s = bias[o];
                                 for (int c = 0; c < 2; ++c)
                                   for (int a = 0; a < 3; ++a)
                                     for (int b = 0; b < 3; ++b) {
                                       const int r = i + a - 1, q = j + b - 1;
                                       if (r < 0 || r >= 4 || q < 0 || q >= 5)
                                         continue;
                                       s += double(x[(c * 4 + r) * 5 + q]) *
                                            w[((o * 2 + c) * 3 + a) * 3 + b];
                                     }
                                 y.push_back(s);
                               }
                           return y;
                         }});
    const std::vector<float> wt = Random(2 * 3 * 4, 12);
    cases.push_back(
        Case{"conv",
             "ConvTranspose",
             Shape({1, 2, 4, 5}),
             Tensors(MakeTensor<float>({2, 3, 2, 2}, wt),
                     MakeTensor<float>({3}, bias)),
             {{"strides", std::vector<int64_t>{2, 2}}},
             [wt, bias](const std::vector<float>& x) {
               std::vector<double> y(3 * 8 * 10);
               for (int o = 0; o < 3; ++o)
                 for (int i = 0; i < 80; ++i) y[o * 80 + i] = bias[o];
               for (int c = 0; c < 2; ++c)
                 for (int i = 0; i < 4; ++i)
                   for (int j = 0; j < 5; ++j)
                     for (int o = 0; o < 3; ++o)
                       for (int a = 0; a < 2; ++a)
                         for (int b = 0; b < 2; ++b)
                           y[(o * 8 + 2 * i + a) * 10 + 2 * j + b] +=
                               double(x[(c * 4 + i) * 5 + j]) *
                               wt[((c * 3 + o) * 2 + a) * 2 + b];
               return y;
             }});
  }
  // Normalizations.
  {
    const std::vector<float> scale = Random(3, 13, 0.5f, 1.5f),
                             bias = Random(3, 14), mean = Random(3, 15),
                             var = Random(3, 16, 0.5f, 1.5f);
    cases.push_back(Case{
        "normalization",
        "BatchNormalization",
        Shape({2, 3, 4}),
        Tensors(MakeTensor<float>({3}, scale), MakeTensor<float>({3}, bias),
                MakeTensor<float>({3}, mean), MakeTensor<float>({3}, var)),
        {},
        [=](const std::vector<float>& x) {
          std::vector<double> y;
          for (size_t i = 0; i < x.size(); ++i) {
            const size_t c = (i / 4) % 3;
            y.push_back((x[i] - mean[c]) / std::sqrt(double(var[c]) + 1e-5) *
                            scale[c] +
                        bias[c]);
          }
          return y;
        }});
    cases.push_back(Case{
        "normalization",
        "InstanceNormalization",
        Shape({2, 3, 4}),
        Tensors(MakeTensor<float>({3}, scale), MakeTensor<float>({3}, bias)),
        {},
        [=](const std::vector<float>& x) {
          std::vector<double> y;
          for (size_t p = 0; p < 6; ++p) {
            std::vector<double> row(x.begin() + p * 4, x.begin() + p * 4 + 4);
            for (double v : Normalize(row, scale[p % 3], bias[p % 3]))
              y.push_back(v);
          }
          return y;
        }});
    cases.push_back(Rows(
        "normalization", "LayerNormalization", Shape({3, 4}),
        [](const std::vector<double>& row) { return Normalize(row, 1, 0); }));
    cases.back().extra = Tensors(MakeTensor<float>({4}, {1, 1, 1, 1}));
  }
  // Pooling.
  cases.push_back(Pool("MaxPool", 2, 2, 0, NanMaxOf));
  cases.push_back(Pool("MaxPool", 3, 1, 1, NanMaxOf));
  cases.push_back(
      Pool("AveragePool", 3, 1, 1,
           [](const std::vector<double>& v) { return Sum(v) / v.size(); }));
  cases.push_back(Case{"pool",
                       "GlobalMaxPool",
                       Shape({1, 2, 3, 4}),
                       {},
                       {},
                       [](const std::vector<float>& x) {
                         std::vector<double> y;
                         for (int c = 0; c < 2; ++c)
                           y.push_back(NanMaxOf(std::vector<double>(
                               x.begin() + c * 12, x.begin() + c * 12 + 12)));
                         return y;
                       }});
  cases.push_back(
      Case{"pool",
           "GlobalAveragePool",
           Shape({1, 2, 3, 4}),
           {},
           {},
           [](const std::vector<float>& x) {
             std::vector<double> y;
             for (int c = 0; c < 2; ++c)
               y.push_back(Sum(std::vector<double>(x.begin() + c * 12,
                                                   x.begin() + c * 12 + 12)) /
                           12);
             return y;
           }});
  // Reductions.
  cases.push_back(Reduce("ReduceMax", NanMaxOf));
  cases.push_back(Reduce("ReduceMin", [](const std::vector<double>& v) {
    double m = std::numeric_limits<double>::infinity();
    for (double x : v) m = NanMin(m, x);
    return m;
  }));
  cases.push_back(Reduce("ReduceSum", Sum));
  cases.push_back(Reduce("ReduceMean", [](const std::vector<double>& v) {
    return Sum(v) / v.size();
  }));
  cases.push_back(Reduce("ReduceProd", [](const std::vector<double>& v) {
    double p = 1;
    for (double x : v) p *= x;
    return p;
  }));
  cases.push_back(Reduce("ReduceL2", [](const std::vector<double>& v) {
    double s = 0;
    for (double x : v) s += x * x;
    return std::sqrt(s);
  }));
  cases.push_back(Reduce("ReduceLogSumExp", [](const std::vector<double>& v) {
    double s = 0;
    for (double x : v) s += std::exp(x);
    return std::log(s);
  }));
  // Softmax family along the last axis.
  cases.push_back(
      Rows("softmax", "Softmax", Shape({3, 5}),
           [](const std::vector<double>& r) { return Softmax(r, false); }));
  cases.push_back(
      Rows("softmax", "LogSoftmax", Shape({3, 5}),
           [](const std::vector<double>& r) { return Softmax(r, true); }));
  // Data movement keeps every value.
  cases.push_back(Case{"tensor_ops",
                       "Transpose",
                       Shape({3, 4}),
                       {},
                       {{"perm", std::vector<int64_t>{1, 0}}},
                       [](const std::vector<float>& x) {
                         std::vector<double> y;
                         for (int j = 0; j < 4; ++j)
                           for (int i = 0; i < 3; ++i)
                             y.push_back(x[i * 4 + j]);
                         return y;
                       }});
  cases.push_back(Case{"tensor_ops",
                       "Pad",
                       Shape({3, 4}),
                       Tensors(MakeTensor<int64_t>({4}, {0, 1, 0, 0})),
                       {},
                       [](const std::vector<float>& x) {
                         std::vector<double> y;
                         for (int i = 0; i < 3; ++i) {
                           y.push_back(0);
                           for (int j = 0; j < 4; ++j)
                             y.push_back(x[i * 4 + j]);
                         }
                         return y;
                       }});
  // Resize: linear x2 along the last axis (asymmetric), nearest x2.
  cases.push_back(Case{
      "resize",
      "Resize",
      Shape({2, 4}),
      Tensors(Tensor(), MakeTensor<float>({2}, {1, 2})),
      {{"mode", std::string("linear")},
       {"coordinate_transformation_mode", std::string("asymmetric")}},
      [](const std::vector<float>& x) {
        std::vector<double> y;
        for (int r = 0; r < 2; ++r)
          for (int o = 0; o < 8; ++o) {
            const int i = o / 2;
            // Odd outputs mix inputs i and i + 1 (clamped);
            // even ones are input i alone.
            y.push_back(o % 2 == 0 ? x[r * 4 + i]
                                   : 0.5 * x[r * 4 + i] +
                                         0.5 * x[r * 4 + std::min(i + 1, 3)]);
          }
        return y;
      }});
  cases.push_back(Case{"resize",
                       "Resize",
                       Shape({2, 4}),
                       Tensors(Tensor(), MakeTensor<float>({2}, {1, 2})),
                       {{"mode", std::string("nearest")}},
                       [](const std::vector<float>& x) {
                         std::vector<double> y;
                         for (int r = 0; r < 2; ++r)
                           for (int o = 0; o < 8; ++o)
                             y.push_back(x[r * 4 + o / 2]);
                         return y;
                       }});
  // CumSum along the last axis.
  cases.push_back(Case{"indexing",
                       "CumSum",
                       Shape({2, 6}),
                       Tensors(MakeTensor<int64_t>({}, {1})),
                       {},
                       [](const std::vector<float>& x) {
                         std::vector<double> y;
                         for (int r = 0; r < 2; ++r) {
                           double s = 0;
                           for (int j = 0; j < 6; ++j)
                             y.push_back(s += x[r * 6 + j]);
                         }
                         return y;
                       }});
  return cases;
}

void ExpectSameSpecials(const Tensor& got, const std::vector<double>& want,
                        const std::string& what) {
  ASSERT_EQ(got.NumElements(), static_cast<int64_t>(want.size())) << what;
  for (size_t i = 0; i < want.size(); ++i) {
    const double g = got.as<float>()[i], w = want[i];
    if (std::isnan(w)) {
      EXPECT_TRUE(std::isnan(g))
          << what << " element " << i << ": got " << g << ", expected NaN";
    } else if (std::isinf(w)) {
      EXPECT_EQ(g, w) << what << " element " << i;
    } else {
      EXPECT_NEAR(g, w, 1e-4 + 1e-4 * std::abs(w)) << what << " element " << i;
    }
  }
}

TEST(NanInfTest, EveryKernelFamilyPutsNanAndInfWhereTheReferenceDoes) {
  std::set<std::string> families;
  for (const Case& c : Cases()) {
    families.insert(c.family);
    const int64_t n = c.shape.NumElements();
    const std::vector<std::vector<std::pair<int64_t, float>>> injections = {
        {{0, NAN}},
        {{n / 2, NAN}},
        {{n - 1, NAN}},
        {{0, kInf}},
        {{n / 2, -kInf}},
        {{n - 1, kInf}},
        {{1, kInf}, {2, -kInf}},
        {{0, NAN}, {n / 2, kInf}, {n - 1, -kInf}},
    };
    for (size_t k = 0; k < injections.size(); ++k) {
      std::vector<float> x = Random(n, 200 + static_cast<int>(k));
      for (auto [at, value] : injections[k]) x[at] = value;
      OpTester tester(c.op, c.num_outputs);
      tester.AddInput(MakeTensor<float>(c.shape, x), /*constant=*/false);
      for (const Tensor& t : c.extra) {
        if (t.dtype() == DType::kUndefined) {
          tester.AbsentInput();
        } else {
          tester.AddInput(t.Clone());
        }
      }
      for (const auto& [name, value] : c.attrs) tester.Attr(name, value);
      const std::string what = StrCat(c.family, "/", c.op, " injection ", k);
      absl::StatusOr<std::vector<Tensor>> out = tester.Run();
      ASSERT_TRUE(out.ok()) << what << ": " << out.status();
      ExpectSameSpecials((*out)[0], c.reference(x), what);
    }
  }
  // Every family that computes on floats is covered.
  for (const char* family :
       {"conv", "elementwise", "indexing", "matmul", "normalization", "pool",
        "reduce", "resize", "softmax", "tensor_ops"}) {
    EXPECT_TRUE(families.count(family)) << family;
  }
}

}  // namespace
}  // namespace acldump
