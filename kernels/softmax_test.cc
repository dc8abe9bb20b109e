#include <algorithm>
#include <bit>
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

// Reference in double over (outer, count, inner) blocks.
std::vector<double> Reference(const std::string& op,
                              const std::vector<double>& x, int64_t outer,
                              int64_t count, int64_t inner) {
  std::vector<double> y(x.size());
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t j = 0; j < inner; ++j) {
      auto at = [&](int64_t r) { return (o * count + r) * inner + j; };
      double max = x[at(0)];
      int64_t arg = 0;
      for (int64_t r = 1; r < count; ++r) {
        if (x[at(r)] > max) {
          max = x[at(r)];
          arg = r;
        }
      }
      double sum = 0;
      for (int64_t r = 0; r < count; ++r) sum += std::exp(x[at(r)] - max);
      for (int64_t r = 0; r < count; ++r) {
        if (op == "Softmax") {
          y[at(r)] = std::exp(x[at(r)] - max) / sum;
        } else if (op == "LogSoftmax") {
          y[at(r)] = x[at(r)] - max - std::log(sum);
        } else {
          y[at(r)] = r == arg ? 1 : 0;
        }
      }
    }
  }
  return y;
}

template <typename T>
void Sweep(double tolerance, bool legacy) {
  const std::vector<std::vector<int64_t>> shapes = {
      {5}, {2, 3}, {2, 3, 4}, {1, 4, 1, 3}, {3, 1}, {2, 17}};
  uint32_t seed = 1;
  for (const char* op : {"Softmax", "LogSoftmax", "Hardmax"}) {
    for (const auto& dims : shapes) {
      const int64_t rank = static_cast<int64_t>(dims.size());
      // Also the default axis (no attribute), marked as rank.
      for (int64_t axis = -rank; axis <= rank; ++axis) {
        const bool default_axis = axis == rank;
        const int64_t normalized = default_axis
                                       ? (legacy ? 1 : rank - 1)
                                       : (axis < 0 ? axis + rank : axis);
        if (normalized >= rank)
          continue;  // legacy default axis 1 on a 1-D input
        SCOPED_TRACE(::testing::Message()
                     << op << " dims=" << ::testing::PrintToString(dims)
                     << " axis=" << (default_axis ? "default" : "")
                     << (default_axis ? 0 : axis) << " legacy=" << legacy);
        const std::vector<double> x =
            RoundTrip<T>(RandomValues(Count(dims), seed++));
        OpTester tester(op);
        tester.Input<T>(Shape(dims), Convert<T>(x));
        if (!default_axis) tester.Attr("axis", axis);
        if (legacy) tester.Attr("onnx_opset", int64_t{11});
        auto outputs = tester.Run();
        ASSERT_TRUE(outputs.ok()) << outputs.status();
        EXPECT_EQ((*outputs)[0].shape(), Shape(dims));
        int64_t outer = 1, count = 1, inner = 1;
        for (int64_t a = 0; a < rank; ++a) {
          if (a < normalized) {
            outer *= dims[a];
          } else if (a == normalized || legacy) {
            count *= dims[a];
          } else {
            inner *= dims[a];
          }
        }
        const std::vector<double> expected =
            Reference(op, x, outer, count, inner);
        const std::vector<double> actual = AsDoubles<T>((*outputs)[0]);
        ASSERT_EQ(actual.size(), expected.size());
        for (size_t i = 0; i < expected.size(); ++i) {
          EXPECT_NEAR(actual[i], expected[i],
                      tolerance * (1 + std::abs(expected[i])))
              << "element " << i;
        }
      }
    }
  }
}

TEST(SoftmaxTest, SweepFloat32) { Sweep<float>(1e-6, false); }
TEST(SoftmaxTest, SweepFloat64) { Sweep<double>(1e-12, false); }
TEST(SoftmaxTest, SweepFloat16) { Sweep<Float16>(2e-3, false); }
TEST(SoftmaxTest, SweepBFloat16) { Sweep<BFloat16>(1e-2, false); }
TEST(SoftmaxTest, SweepLegacyFloat32) { Sweep<float>(1e-6, true); }
TEST(SoftmaxTest, SweepLegacyFloat16) { Sweep<Float16>(2e-3, true); }

// Opset < 13 coerces to 2-D at axis 1: the whole [3,4] block of each batch item
// sums to 1.
TEST(SoftmaxTest, LegacyCoercesTo2D) {
  std::vector<float> x(24, 0.0f);
  auto legacy = OpTester("Softmax")
                    .Input<float>(Shape{2, 3, 4}, x)
                    .Attr("onnx_opset", int64_t{12})
                    .Run();
  ASSERT_TRUE(legacy.ok()) << legacy.status();
  EXPECT_THAT(Values<float>((*legacy)[0]),
              ::testing::Each(::testing::FloatEq(1.0f / 12)));
  auto current = OpTester("Softmax")
                     .Input<float>(Shape{2, 3, 4}, x)
                     .Attr("onnx_opset", int64_t{13})
                     .Run();
  ASSERT_TRUE(current.ok()) << current.status();
  EXPECT_THAT(Values<float>((*current)[0]),
              ::testing::Each(::testing::FloatEq(0.25f)));
}

// ONNX test_softmax_large_number / test_logsoftmax_large_number.
TEST(SoftmaxTest, LargeNumbers) {
  const std::vector<float> x = {0, 1, 2, 3, 10000, 10001, 10002, 10003};
  const std::vector<float> row = {0.032058604f, 0.08714432f, 0.23688284f,
                                  0.6439143f};
  auto softmax = OpTester("Softmax").Input<float>(Shape{2, 4}, x).Run();
  ASSERT_TRUE(softmax.ok()) << softmax.status();
  const std::vector<float> y = Values<float>((*softmax)[0]);
  for (size_t i = 0; i < y.size(); ++i)
    EXPECT_NEAR(y[i], row[i % 4], 1e-6) << i;
  auto log_softmax = OpTester("LogSoftmax").Input<float>(Shape{2, 4}, x).Run();
  ASSERT_TRUE(log_softmax.ok()) << log_softmax.status();
  const std::vector<float> logs = {-3.4401896f, -2.4401896f, -1.4401897f,
                                   -0.44018975f};
  const std::vector<float> z = Values<float>((*log_softmax)[0]);
  for (size_t i = 0; i < z.size(); ++i)
    EXPECT_NEAR(z[i], logs[i % 4], 1e-5) << i;
}

// ONNX test_hardmax_one_hot: the first maximum wins.
TEST(SoftmaxTest, HardmaxFirstMaximum) {
  auto outputs =
      OpTester("Hardmax").Input<float>(Shape{1, 4}, {3, 3, 3, 1}).Run();
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  EXPECT_EQ(Values<float>((*outputs)[0]), (std::vector<float>{1, 0, 0, 0}));
  auto columns = OpTester("Hardmax")
                     .Input<float>(Shape{3, 2}, {1, 5, 4, 5, 4, 0})
                     .Attr("axis", int64_t{0})
                     .Run();
  ASSERT_TRUE(columns.ok()) << columns.status();
  EXPECT_EQ(Values<float>((*columns)[0]),
            (std::vector<float>{0, 1, 1, 0, 0, 0}));
}

TEST(SoftmaxTest, NaNRowStaysNaN) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto outputs =
      OpTester("Softmax").Input<float>(Shape{2, 2}, {1, nan, 1, 1}).Run();
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  const std::vector<float> y = Values<float>((*outputs)[0]);
  EXPECT_TRUE(std::isnan(y[0]) && std::isnan(y[1]));
  EXPECT_FLOAT_EQ(y[2], 0.5f);
  EXPECT_FLOAT_EQ(y[3], 0.5f);
}

// A float32 row: the maximum (NaN if any element is), e^(x - max) through
// the vector exponential, the exponentials summed in double as eight partial
// sums (element i into partial i % 8, the partials added in order), then
// scaled by the float32 reciprocal of the sum. Rows go to the threads whole,
// so every thread count gives these bits.
TEST(SoftmaxTest, RowsSumEightPartialsInDoubleOnAnyThreadCount) {
  const int64_t rows = 200, n = 197;  // three chunks of rows
  std::vector<float> x(rows * n);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = static_cast<float>(std::sin(0.61 * i) * 9.0 + 1e-3 * (i % 13));
  x[5 * n + 131] = std::numeric_limits<float>::quiet_NaN();
  x[7 * n + 3] = std::numeric_limits<float>::infinity();
  x[9 * n + 195] = std::numeric_limits<float>::quiet_NaN();  // in the tail
  std::vector<std::vector<float>> by_threads;
  for (int threads : {1, 2, 3}) {
    ScopedIntraOpThreads scope(threads);
    auto outputs = OpTester("Softmax").Input<float>(Shape{rows, n}, x).Run();
    ASSERT_TRUE(outputs.ok()) << outputs.status();
    by_threads.push_back(Values<float>((*outputs)[0]));
  }
  const std::vector<float>& y = by_threads[0];
  for (size_t t = 1; t < by_threads.size(); ++t) {
    for (size_t i = 0; i < y.size(); ++i) {
      ASSERT_EQ(std::bit_cast<uint32_t>(by_threads[t][i]),
                std::bit_cast<uint32_t>(y[i]))
          << "element " << i << ", thread count #" << t;
    }
  }
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = y.data() + r * n;
    if (r == 5 || r == 7 || r == 9) {
      // NaN anywhere in the row, or +inf (inf - inf), makes the row NaN.
      for (int64_t i = 0; i < n; ++i) EXPECT_TRUE(std::isnan(row[i])) << r;
      continue;
    }
    float max = x[r * n];
    for (int64_t i = 1; i < n; ++i) max = std::max(max, x[r * n + i]);
    // The exponentials as the kernel computes them: y * sum recovers them to
    // within the float32 scaling; the sum's order is what is checked exactly.
    std::vector<float> e(n);
    for (int64_t i = 0; i < n; ++i) e[i] = x[r * n + i] - max;
    auto exps = OpTester("Exp").Input<float>(Shape{n}, e).Run();
    ASSERT_TRUE(exps.ok()) << exps.status();
    const std::vector<float> ev = Values<float>((*exps)[0]);
    const float scale =
        static_cast<float>(1.0 / testing::EightPartialSum(ev.data(), n));
    for (int64_t i = 0; i < n; ++i) {
      ASSERT_EQ(std::bit_cast<uint32_t>(row[i]),
                std::bit_cast<uint32_t>(ev[i] * scale))
          << "row " << r << ", element " << i;
    }
  }
}

TEST(SoftmaxTest, EmptyTensors) {
  for (const char* op : {"Softmax", "LogSoftmax", "Hardmax"}) {
    for (const Shape& shape : {Shape{0, 3}, Shape{2, 0}, Shape{2, 0, 3}}) {
      auto outputs =
          OpTester(op).Input<float>(shape, {}).Attr("axis", int64_t{1}).Run();
      ASSERT_TRUE(outputs.ok()) << op << " " << outputs.status();
      EXPECT_EQ((*outputs)[0].shape(), shape);
    }
  }
}

TEST(SoftmaxTest, Errors) {
  auto bad_axis = OpTester("Softmax")
                      .Input<float>(Shape{2, 3}, std::vector<float>(6))
                      .Attr("axis", int64_t{2})
                      .Run();
  EXPECT_EQ(bad_axis.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(bad_axis.status()),
              HasSubstr("axis 2 is out of range for rank 2"));

  auto legacy_1d = OpTester("LogSoftmax")
                       .Input<float>(Shape{3}, {1, 2, 3})
                       .Attr("onnx_opset", int64_t{11})
                       .Run();
  EXPECT_THAT(Message(legacy_1d.status()),
              HasSubstr("axis 1 is out of range for rank 1"));

  auto scalar = OpTester("Softmax").Input<float>(Shape{}, {1}).Run();
  EXPECT_THAT(Message(scalar.status()),
              HasSubstr("axis -1 is out of range for rank 0"));

  auto ints = OpTester("Hardmax").Input<int32_t>(Shape{2}, {1, 2}).Run();
  EXPECT_EQ(ints.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(ints.status()),
              HasSubstr("input has unsupported type int32"));
}

}  // namespace
}  // namespace acldump
