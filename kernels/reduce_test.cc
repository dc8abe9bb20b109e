#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kernels/testing/op_tester.h"
#include "kernels/testing/test_values.h"
#include "kernels/threading.h"

namespace acldump {
namespace {

using ::acldump::testing::AsDoubles;
using ::acldump::testing::Convert;
using ::acldump::testing::Count;
using ::acldump::testing::Message;
using ::acldump::testing::OpTester;
using ::acldump::testing::RandomInts;
using ::acldump::testing::RandomValues;
using ::acldump::testing::RoundTrip;
using ::acldump::testing::Values;
using ::testing::HasSubstr;

constexpr double kInf = std::numeric_limits<double>::infinity();

// Small integers (exact in every type) so sums are exact and ties happen.
std::vector<double> RandomSmallInts(int64_t n, uint32_t seed, int lo = -4,
                                    int hi = 4) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> dist(lo, hi);
  std::vector<double> out(n);
  for (double& v : out) v = dist(rng);
  return out;
}

// Reference: reduce `x` of `dims` over `axes` (normalized, empty = all), in
// double.
std::vector<double> ReferenceReduce(const std::string& op,
                                    const std::vector<double>& x,
                                    const std::vector<int64_t>& dims,
                                    const std::vector<int64_t>& axes) {
  const size_t rank = dims.size();
  std::vector<bool> reduced(rank, axes.empty());
  for (int64_t a : axes) reduced[a] = true;
  std::vector<int64_t> out_dims;
  int64_t reduce_count = 1;
  for (size_t i = 0; i < rank; ++i) {
    if (reduced[i]) {
      reduce_count *= dims[i];
    } else {
      out_dims.push_back(dims[i]);
    }
  }
  const int64_t out_count = Count(out_dims);
  std::vector<std::vector<double>> groups(out_count);
  std::vector<int64_t> index(rank, 0);
  for (int64_t k = 0; k < Count(dims); ++k) {
    int64_t o = 0;
    for (size_t i = 0; i < rank; ++i) {
      if (!reduced[i]) o = o * dims[i] + index[i];
    }
    groups[o].push_back(x[k]);
    for (size_t i = rank; i-- > 0;) {
      if (++index[i] < dims[i]) break;
      index[i] = 0;
    }
  }
  std::vector<double> out;
  for (const auto& g : groups) {
    double r = 0;
    if (op == "ReduceSum" || op == "ReduceMean" || op == "ReduceLogSum") {
      for (double v : g) r += v;
      if (op == "ReduceMean") r /= static_cast<double>(g.size());
      if (op == "ReduceLogSum") r = std::log(r);
    } else if (op == "ReduceMax") {
      r = -kInf;
      for (double v : g) r = std::max(r, v);
    } else if (op == "ReduceMin") {
      r = kInf;
      for (double v : g) r = std::min(r, v);
    } else if (op == "ReduceProd") {
      r = 1;
      for (double v : g) r *= v;
    } else if (op == "ReduceSumSquare" || op == "ReduceL2") {
      for (double v : g) r += v * v;
      if (op == "ReduceL2") r = std::sqrt(r);
    } else if (op == "ReduceL1") {
      for (double v : g) r += std::abs(v);
    } else if (op == "ReduceLogSumExp") {
      for (double v : g) r += std::exp(v);
      r = std::log(r);
    }
    out.push_back(r);
  }
  (void)reduce_count;
  return out;
}

std::vector<int64_t> ReducedShape(const std::vector<int64_t>& dims,
                                  const std::vector<int64_t>& axes,
                                  bool keepdims) {
  std::vector<int64_t> out;
  for (size_t i = 0; i < dims.size(); ++i) {
    const bool r =
        axes.empty() || std::find(axes.begin(), axes.end(), i) != axes.end();
    if (!r) {
      out.push_back(dims[i]);
    } else if (keepdims) {
      out.push_back(1);
    }
  }
  return out;
}

const char* const kReduceOps[] = {
    "ReduceSum",    "ReduceMean",      "ReduceMax", "ReduceMin",
    "ReduceProd",   "ReduceSumSquare", "ReduceL1",  "ReduceL2",
    "ReduceLogSum", "ReduceLogSumExp"};

// Input values that keep each op's result finite and meaningful.
std::vector<double> InputFor(const std::string& op, int64_t n, uint32_t seed) {
  if (op == "ReduceLogSum") return RandomSmallInts(n, seed, 1, 4);
  // Products stay within float16 range.
  if (op == "ReduceProd") return RandomSmallInts(n, seed, -1, 1);
  return RandomSmallInts(n, seed);
}

template <typename T>
void SweepReduce(double tolerance, bool axes_as_input) {
  const std::vector<std::vector<int64_t>> shapes = {
      {}, {5}, {3, 4}, {2, 3, 4}, {2, 1, 3, 5}, {4, 1}, {2, 0, 3}};
  uint32_t seed = 1;
  for (const char* op : kReduceOps) {
    for (const auto& dims : shapes) {
      const int64_t rank = static_cast<int64_t>(dims.size());
      // Every subset of axes (bitmask), spelled with negative axes for odd
      // masks.
      for (int64_t mask = 0; mask < (int64_t{1} << rank); ++mask) {
        std::vector<int64_t> axes;
        std::vector<int64_t> spelled;
        for (int64_t a = 0; a < rank; ++a) {
          if (mask & (int64_t{1} << a)) {
            axes.push_back(a);
            spelled.push_back(mask % 2 == 1 ? a - rank : a);
          }
        }
        for (int keepdims = 0; keepdims < 2; ++keepdims) {
          SCOPED_TRACE(::testing::Message()
                       << op << " dims=" << ::testing::PrintToString(dims)
                       << " axes=" << ::testing::PrintToString(spelled)
                       << " keepdims=" << keepdims);
          const std::vector<double> x = InputFor(op, Count(dims), seed++);
          OpTester tester(op);
          tester.Input<T>(Shape(dims), Convert<T>(x))
              .Attr("keepdims", int64_t{keepdims});
          if (!spelled.empty()) {
            if (axes_as_input) {
              tester.Input<int64_t>(Shape{static_cast<int64_t>(spelled.size())},
                                    spelled);
            } else {
              tester.Attr("axes", spelled);
            }
          }
          auto outputs = tester.Run();
          ASSERT_TRUE(outputs.ok()) << outputs.status();
          const Tensor& y = (*outputs)[0];
          EXPECT_EQ(y.dtype(), testing::DTypeOf<T>());
          EXPECT_EQ(y.shape(), Shape(ReducedShape(dims, axes, keepdims)));
          const std::vector<double> expected =
              ReferenceReduce(op, x, dims, axes);
          const std::vector<double> actual = AsDoubles<T>(y);
          ASSERT_EQ(actual.size(), expected.size());
          for (size_t i = 0; i < expected.size(); ++i) {
            if (std::isnan(expected[i])) {
              EXPECT_TRUE(std::isnan(actual[i])) << "element " << i;
            } else if (std::isinf(expected[i])) {
              EXPECT_EQ(actual[i], expected[i]) << "element " << i;
            } else {
              EXPECT_NEAR(actual[i], expected[i],
                          tolerance * (1 + std::abs(expected[i])))
                  << "element " << i;
            }
          }
        }
      }
    }
  }
}

TEST(ReduceTest, SweepFloat32AxesAttribute) { SweepReduce<float>(1e-6, false); }
TEST(ReduceTest, SweepFloat32AxesInput) { SweepReduce<float>(1e-6, true); }
TEST(ReduceTest, SweepFloat64) { SweepReduce<double>(1e-12, false); }
TEST(ReduceTest, SweepFloat16) { SweepReduce<Float16>(2e-3, true); }
TEST(ReduceTest, SweepBFloat16) { SweepReduce<BFloat16>(1e-2, false); }

template <typename T>
void SweepIntegerReduce() {
  const std::vector<std::vector<int64_t>> shapes = {{6}, {3, 4}, {2, 3, 4}};
  const char* const ops[] = {"ReduceSum",  "ReduceMax",       "ReduceMin",
                             "ReduceProd", "ReduceSumSquare", "ReduceL1"};
  uint32_t seed = 100;
  for (const char* op : ops) {
    for (const auto& dims : shapes) {
      for (int64_t axis = 0; axis < static_cast<int64_t>(dims.size()); ++axis) {
        SCOPED_TRACE(::testing::Message()
                     << op << " dims=" << ::testing::PrintToString(dims)
                     << " axis=" << axis);
        const std::vector<double> x = InputFor(op, Count(dims), seed++);
        OpTester tester(op);
        tester.Input<T>(Shape(dims), Convert<T>(x));
        tester.Input<int64_t>(Shape{1}, {axis}).Attr("keepdims", int64_t{0});
        auto outputs = tester.Run();
        ASSERT_TRUE(outputs.ok()) << outputs.status();
        EXPECT_EQ(AsDoubles<T>((*outputs)[0]),
                  ReferenceReduce(op, x, dims, {axis}));
      }
    }
  }
}

TEST(ReduceTest, SweepInt32) { SweepIntegerReduce<int32_t>(); }
TEST(ReduceTest, SweepInt64) { SweepIntegerReduce<int64_t>(); }

// Float32 ReduceSum and ReduceMean add each contiguous run of the input in
// double as eight partial sums (element i into partial i % 8, the partials
// added in order), runs in input order; the bits do not depend on the path
// (trailing axes only, or runs spread over the output) or the thread count.
TEST(ReduceTest, Float32SumsEightPartialsInDoubleInOrder) {
  const int64_t a = 40, b = 5, n = 197;  // three chunks of outputs
  std::vector<float> x(a * b * n);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = static_cast<float>(std::sin(0.37 * i) * 1e3 + 1e-3 * i);
  auto run_sum = [](const float* p, int64_t count) {
    return testing::EightPartialSum(p, count);
  };
  for (int threads : {1, 2}) {
    ScopedIntraOpThreads scope(threads);
    // Trailing axis: one run per output.
    auto mean = OpTester("ReduceMean")
                    .Input<float>(Shape{a, b, n}, x)
                    .Attr("axes", std::vector<int64_t>{-1})
                    .Run();
    ASSERT_TRUE(mean.ok()) << mean.status();
    const std::vector<float> m = Values<float>((*mean)[0]);
    ASSERT_EQ(m.size(), static_cast<size_t>(a * b));
    for (int64_t o = 0; o < a * b; ++o) {
      EXPECT_EQ(m[o], static_cast<float>(run_sum(x.data() + o * n, n) /
                                         static_cast<double>(n)))
          << "output " << o << " on " << threads << " threads";
    }
    // Axes 0 and 2: each output adds a runs of n, in input order.
    auto sum = OpTester("ReduceSum")
                   .Input<float>(Shape{a, b, n}, x)
                   .Input<int64_t>(Shape{2}, {0, 2})
                   .Run();
    ASSERT_TRUE(sum.ok()) << sum.status();
    const std::vector<float> s = Values<float>((*sum)[0]);
    for (int64_t j = 0; j < b; ++j) {
      double expected = 0;
      for (int64_t i = 0; i < a; ++i)
        expected += run_sum(x.data() + (i * b + j) * n, n);
      EXPECT_EQ(s[j], static_cast<float>(expected))
          << "output " << j << " on " << threads << " threads";
    }
  }
}

TEST(ReduceTest, IntegerMeanTruncatesAndL2) {
  auto mean = OpTester("ReduceMean")
                  .Input<int32_t>(Shape{2, 2}, {1, 2, 3, 5})
                  .Attr("axes", std::vector<int64_t>{1})
                  .Run();
  ASSERT_TRUE(mean.ok()) << mean.status();
  EXPECT_EQ(Values<int32_t>((*mean)[0]), (std::vector<int32_t>{1, 4}));
  auto l2 = OpTester("ReduceL2").Input<int64_t>(Shape{2}, {3, 4}).Run();
  ASSERT_TRUE(l2.ok()) << l2.status();
  EXPECT_EQ(Values<int64_t>((*l2)[0]), (std::vector<int64_t>{5}));
}

// uint64 values of 2^63 and above order and add as unsigned.
TEST(ReduceTest, UnsignedValuesAboveTheSignedRange) {
  const uint64_t big = (uint64_t{1} << 63) + 1;
  auto run = [&](const std::string& op) {
    return OpTester(op)
        .Input<uint64_t>(Shape{2, 2}, {big, 2, 3, big + 4})
        .Attr("axes", std::vector<int64_t>{1})
        .Run();
  };
  auto max = run("ReduceMax");
  ASSERT_TRUE(max.ok()) << max.status();
  EXPECT_EQ((*max)[0].dtype(), DType::kUInt64);
  EXPECT_EQ(Values<uint64_t>((*max)[0]), (std::vector<uint64_t>{big, big + 4}));
  auto min = run("ReduceMin");
  ASSERT_TRUE(min.ok()) << min.status();
  EXPECT_EQ(Values<uint64_t>((*min)[0]), (std::vector<uint64_t>{2, 3}));
  auto sum = run("ReduceSum");
  ASSERT_TRUE(sum.ok()) << sum.status();
  EXPECT_EQ(Values<uint64_t>((*sum)[0]),
            (std::vector<uint64_t>{big + 2, big + 7}));
  auto u16 = OpTester("ReduceMin")
                 .Input<uint16_t>(Shape{0, 2}, {})
                 .Attr("axes", std::vector<int64_t>{0})
                 .Run();
  ASSERT_TRUE(u16.ok()) << u16.status();
  EXPECT_EQ(Values<uint16_t>((*u16)[0]), (std::vector<uint16_t>{65535, 65535}));
}

TEST(ReduceTest, IntegerMaxOfEmptyIsLowest) {
  auto max = OpTester("ReduceMax")
                 .Input<int32_t>(Shape{0, 2}, {})
                 .Attr("axes", std::vector<int64_t>{0})
                 .Run();
  ASSERT_TRUE(max.ok()) << max.status();
  EXPECT_EQ(Values<int32_t>((*max)[0]),
            (std::vector<int32_t>(2, std::numeric_limits<int32_t>::lowest())));
}

// ONNX defines reductions over empty sets: sum 0, prod 1, max -inf, min +inf,
// log-sums -inf.
TEST(ReduceTest, EmptySetValues) {
  const std::vector<std::pair<std::string, double>> cases = {
      {"ReduceSum", 0},    {"ReduceProd", 1},       {"ReduceMax", -kInf},
      {"ReduceMin", kInf}, {"ReduceSumSquare", 0},  {"ReduceL1", 0},
      {"ReduceL2", 0},     {"ReduceLogSum", -kInf}, {"ReduceLogSumExp", -kInf}};
  for (const auto& [op, expected] : cases) {
    SCOPED_TRACE(op);
    auto outputs = OpTester(op)
                       .Input<float>(Shape{2, 0, 4}, {})
                       .Attr("axes", std::vector<int64_t>{1})
                       .Attr("keepdims", int64_t{1})
                       .Run();
    ASSERT_TRUE(outputs.ok()) << outputs.status();
    EXPECT_EQ((*outputs)[0].shape(), (Shape{2, 1, 4}));
    EXPECT_THAT(Values<float>((*outputs)[0]),
                ::testing::Each(static_cast<float>(expected)));
  }
  auto mean = OpTester("ReduceMean").Input<float>(Shape{0, 3}, {}).Run();
  ASSERT_TRUE(mean.ok()) << mean.status();
  EXPECT_EQ((*mean)[0].shape(), (Shape{1, 1}));
  EXPECT_TRUE(std::isnan(Values<float>((*mean)[0])[0]));
}

TEST(ReduceTest, EmptyOutput) {
  auto outputs = OpTester("ReduceSum")
                     .Input<float>(Shape{0, 3}, {})
                     .Input<int64_t>(Shape{1}, {1})
                     .Attr("keepdims", int64_t{0})
                     .Run();
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  EXPECT_EQ((*outputs)[0].shape(), (Shape{0}));
}

TEST(ReduceTest, NoopWithEmptyAxes) {
  const std::vector<float> x = {1, 2, 3, 4, 5, 6};
  // Empty axes input with noop_with_empty_axes=1: identity (ONNX
  // test_reduce_sum_empty_axes_input_noop_example).
  auto noop = OpTester("ReduceSum")
                  .Input<float>(Shape{3, 2}, x)
                  .Input<int64_t>(Shape{0}, {})
                  .Attr("noop_with_empty_axes", int64_t{1})
                  .Run();
  ASSERT_TRUE(noop.ok()) << noop.status();
  EXPECT_EQ((*noop)[0].shape(), (Shape{3, 2}));
  EXPECT_EQ(Values<float>((*noop)[0]), x);
  // Without the flag, empty axes reduce everything.
  auto all = OpTester("ReduceSum")
                 .Input<float>(Shape{3, 2}, x)
                 .Input<int64_t>(Shape{0}, {})
                 .Run();
  ASSERT_TRUE(all.ok()) << all.status();
  EXPECT_EQ((*all)[0].shape(), (Shape{1, 1}));
  EXPECT_EQ(Values<float>((*all)[0]), (std::vector<float>{21}));
  // Absent axes input (opset 13 ReduceSum with an empty optional input name).
  auto absent = OpTester("ReduceMax")
                    .Input<float>(Shape{3, 2}, x)
                    .AbsentInput()
                    .Attr("keepdims", int64_t{0})
                    .Run();
  ASSERT_TRUE(absent.ok()) << absent.status();
  EXPECT_EQ((*absent)[0].shape(), (Shape{}));
  EXPECT_EQ(Values<float>((*absent)[0]), (std::vector<float>{6}));
}

TEST(ReduceTest, LogSumExpIsStable) {
  auto outputs = OpTester("ReduceLogSumExp")
                     .Input<float>(Shape{2, 2}, {1000, 1000, -1000, -1000})
                     .Attr("axes", std::vector<int64_t>{1})
                     .Attr("keepdims", int64_t{0})
                     .Run();
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  const std::vector<float> y = Values<float>((*outputs)[0]);
  EXPECT_NEAR(y[0], 1000 + std::log(2.0), 1e-3);
  EXPECT_NEAR(y[1], -1000 + std::log(2.0), 1e-3);
  auto inf =
      OpTester("ReduceLogSumExp")
          .Input<float>(Shape{2}, {std::numeric_limits<float>::infinity(), 1})
          .Run();
  ASSERT_TRUE(inf.ok()) << inf.status();
  EXPECT_EQ(Values<float>((*inf)[0])[0],
            std::numeric_limits<float>::infinity());
}

TEST(ReduceTest, MaxPropagatesNaN) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto outputs = OpTester("ReduceMax")
                     .Input<float>(Shape{2, 3}, {1, nan, 2, 4, 5, 6})
                     .Attr("axes", std::vector<int64_t>{1})
                     .Run();
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  const std::vector<float> y = Values<float>((*outputs)[0]);
  EXPECT_TRUE(std::isnan(y[0]));
  EXPECT_EQ(y[1], 6);
}

// ONNX test_reduce_log_sum_exp_keepdims_example.
TEST(ReduceTest, OnnxLogSumExpExample) {
  auto outputs = OpTester("ReduceLogSumExp")
                     .Input<double>(Shape{3, 2, 2},
                                    {5, 1, 20, 2, 30, 1, 40, 2, 55, 1, 60, 2})
                     .Attr("axes", std::vector<int64_t>{1})
                     .Attr("keepdims", int64_t{1})
                     .Run();
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  EXPECT_EQ((*outputs)[0].shape(), (Shape{3, 1, 2}));
  const std::vector<double> expected = {20.,        2.31326169,  40.00004539,
                                        2.31326169, 60.00671535, 2.31326169};
  const std::vector<double> y = Values<double>((*outputs)[0]);
  for (size_t i = 0; i < y.size(); ++i) EXPECT_NEAR(y[i], expected[i], 1e-6);
}

TEST(ReduceTest, Errors) {
  auto bad_axis = OpTester("ReduceSum")
                      .Input<float>(Shape{2, 3}, std::vector<float>(6))
                      .Attr("axes", std::vector<int64_t>{2})
                      .Run();
  EXPECT_EQ(bad_axis.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(bad_axis.status()),
              HasSubstr("axes value 2 is out of range for rank 2"));

  auto duplicate = OpTester("ReduceMean")
                       .Input<float>(Shape{2, 3}, std::vector<float>(6))
                       .Attr("axes", std::vector<int64_t>{1, -1})
                       .Run();
  EXPECT_EQ(duplicate.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(duplicate.status()), HasSubstr("name axis 1 twice"));

  auto both = OpTester("ReduceMax")
                  .Input<float>(Shape{2, 3}, std::vector<float>(6))
                  .Input<int64_t>(Shape{1}, {0})
                  .Attr("axes", std::vector<int64_t>{0})
                  .Run();
  EXPECT_THAT(Message(both.status()),
              HasSubstr("both as an attribute and as input 1"));

  auto dynamic = OpTester("ReduceSum")
                     .Input<float>(Shape{2, 3}, std::vector<float>(6))
                     .RuntimeInput<int64_t>(Shape{1}, {0})
                     .Run();
  EXPECT_EQ(dynamic.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(Message(dynamic.status()),
              HasSubstr("'axes' must be known before execution"));

  auto float_axes = OpTester("ReduceSum")
                        .Input<float>(Shape{2, 3}, std::vector<float>(6))
                        .Input<float>(Shape{1}, {0})
                        .Run();
  EXPECT_THAT(Message(float_axes.status()),
              HasSubstr("input 'axes' has unsupported type float32"));

  auto keepdims = OpTester("ReduceL1")
                      .Input<float>(Shape{2, 3}, std::vector<float>(6))
                      .Attr("keepdims", int64_t{2})
                      .Run();
  EXPECT_THAT(Message(keepdims.status()),
              HasSubstr("'keepdims' must be 0 or 1, got 2"));

  auto bool_input =
      OpTester("ReduceSum").Input<bool>(Shape{2}, {true, false}).Run();
  EXPECT_THAT(Message(bool_input.status()), HasSubstr("unsupported type bool"));

  auto too_many = OpTester("ReduceSum")
                      .Input<float>(Shape{2}, {1, 2})
                      .Input<int64_t>(Shape{1}, {0})
                      .Input<int64_t>(Shape{1}, {0})
                      .Run();
  EXPECT_THAT(Message(too_many.status()),
              HasSubstr("takes 1..2 inputs, got 3"));
}

// ---------------------------------------------------------------------------------------------
// ArgMax / ArgMin.

std::vector<int64_t> ReferenceArg(bool is_max, bool last,
                                  const std::vector<double>& x,
                                  const std::vector<int64_t>& dims,
                                  int64_t axis) {
  int64_t outer = 1, inner = 1;
  for (int64_t a = 0; a < static_cast<int64_t>(dims.size()); ++a) {
    if (a < axis) outer *= dims[a];
    if (a > axis) inner *= dims[a];
  }
  const int64_t count = dims[axis];
  std::vector<int64_t> out;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t j = 0; j < inner; ++j) {
      int64_t best = 0;
      for (int64_t r = 1; r < count; ++r) {
        const double v = x[(o * count + r) * inner + j];
        const double b = x[(o * count + best) * inner + j];
        const bool better =
            is_max ? (last ? v >= b : v > b) : (last ? v <= b : v < b);
        if (better) best = r;
      }
      out.push_back(best);
    }
  }
  return out;
}

template <typename T>
void SweepArg() {
  const std::vector<std::vector<int64_t>> shapes = {
      {7}, {3, 4}, {2, 3, 4}, {2, 1, 5}};
  uint32_t seed = 7;
  for (const char* op : {"ArgMax", "ArgMin"}) {
    for (const auto& dims : shapes) {
      const int64_t rank = static_cast<int64_t>(dims.size());
      for (int64_t axis = -rank; axis < rank; ++axis) {
        for (int keepdims = 0; keepdims < 2; ++keepdims) {
          for (int last = 0; last < 2; ++last) {
            SCOPED_TRACE(::testing::Message()
                         << op << " dims=" << ::testing::PrintToString(dims)
                         << " axis=" << axis << " keepdims=" << keepdims
                         << " last=" << last);
            const std::vector<double> x =
                RandomSmallInts(Count(dims), seed++, -2, 2);
            auto outputs = OpTester(op)
                               .Input<T>(Shape(dims), Convert<T>(x))
                               .Attr("axis", axis)
                               .Attr("keepdims", int64_t{keepdims})
                               .Attr("select_last_index", int64_t{last})
                               .Run();
            ASSERT_TRUE(outputs.ok()) << outputs.status();
            const int64_t a = axis < 0 ? axis + rank : axis;
            std::vector<int64_t> out_dims = dims;
            if (keepdims) {
              out_dims[a] = 1;
            } else {
              out_dims.erase(out_dims.begin() + a);
            }
            EXPECT_EQ((*outputs)[0].dtype(), DType::kInt64);
            EXPECT_EQ((*outputs)[0].shape(), Shape(out_dims));
            EXPECT_EQ(
                Values<int64_t>((*outputs)[0]),
                ReferenceArg(std::string(op) == "ArgMax", last, x, dims, a));
          }
        }
      }
    }
  }
}

TEST(ArgTest, SweepFloat32) { SweepArg<float>(); }
TEST(ArgTest, SweepFloat16) { SweepArg<Float16>(); }
TEST(ArgTest, SweepInt32) { SweepArg<int32_t>(); }
TEST(ArgTest, UInt8Ties) {
  const std::vector<uint8_t> x = {3, 200, 200, 0, 7, 1};
  auto first = OpTester("ArgMax").Input<uint8_t>(Shape{6}, x).Run();
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(Values<int64_t>((*first)[0]), (std::vector<int64_t>{1}));
  auto last = OpTester("ArgMax")
                  .Input<uint8_t>(Shape{6}, x)
                  .Attr("select_last_index", int64_t{1})
                  .Run();
  ASSERT_TRUE(last.ok()) << last.status();
  EXPECT_EQ(Values<int64_t>((*last)[0]), (std::vector<int64_t>{2}));
}

// ONNX test_argmax_default_axis_example_select_last_index.
TEST(ArgTest, OnnxSelectLastIndexExample) {
  auto outputs = OpTester("ArgMax")
                     .Input<float>(Shape{2, 2}, {2, 2, 3, 10})
                     .Attr("keepdims", int64_t{1})
                     .Attr("select_last_index", int64_t{1})
                     .Run();
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  EXPECT_EQ((*outputs)[0].shape(), (Shape{1, 2}));
  EXPECT_EQ(Values<int64_t>((*outputs)[0]), (std::vector<int64_t>{1, 1}));
}

TEST(ArgTest, NaNIsTheExtreme) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (const char* op : {"ArgMax", "ArgMin"}) {
    auto outputs = OpTester(op).Input<float>(Shape{4}, {1, nan, 5, nan}).Run();
    ASSERT_TRUE(outputs.ok()) << outputs.status();
    EXPECT_EQ(Values<int64_t>((*outputs)[0]), (std::vector<int64_t>{1})) << op;
  }
}

TEST(ArgTest, EmptyTensors) {
  auto empty_outer = OpTester("ArgMin")
                         .Input<float>(Shape{0, 3}, {})
                         .Attr("axis", int64_t{1})
                         .Run();
  ASSERT_TRUE(empty_outer.ok()) << empty_outer.status();
  EXPECT_EQ((*empty_outer)[0].shape(), (Shape{0, 1}));

  auto empty_axis = OpTester("ArgMax")
                        .Input<float>(Shape{2, 0}, {})
                        .Attr("axis", int64_t{1})
                        .Run();
  EXPECT_EQ(empty_axis.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(
      Message(empty_axis.status()),
      HasSubstr(
          "cannot take the index of an empty axis 1 of input shape [2,0]"));
}

TEST(ArgTest, Errors) {
  auto bad_axis = OpTester("ArgMax")
                      .Input<float>(Shape{2, 3}, std::vector<float>(6))
                      .Attr("axis", int64_t{-3})
                      .Run();
  EXPECT_EQ(bad_axis.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(bad_axis.status()),
              HasSubstr("axis -3 is out of range for rank 2"));
  auto scalar = OpTester("ArgMin").Input<float>(Shape{}, {1}).Run();
  EXPECT_THAT(Message(scalar.status()),
              HasSubstr("axis 0 is out of range for rank 0"));
  auto flag = OpTester("ArgMin")
                  .Input<float>(Shape{2}, {1, 2})
                  .Attr("select_last_index", int64_t{5})
                  .Run();
  EXPECT_THAT(Message(flag.status()),
              HasSubstr("'select_last_index' must be 0 or 1, got 5"));
}

}  // namespace
}  // namespace acldump
