#include <cmath>
#include <cstdint>
#include <cstring>
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

void ExpectNear(const std::vector<double>& actual,
                const std::vector<double>& expected, double tolerance) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_NEAR(actual[i], expected[i], tolerance * (1 + std::abs(expected[i])))
        << "element " << i;
  }
}

// Mean and 1/sqrt(var + eps) of consecutive rows of `size`.
std::vector<std::pair<double, double>> RowStats(const std::vector<double>& x,
                                                int64_t size, double epsilon) {
  std::vector<std::pair<double, double>> stats;
  for (size_t start = 0; start + size <= x.size() && size > 0; start += size) {
    double mean = 0;
    for (int64_t i = 0; i < size; ++i) mean += x[start + i];
    mean /= size;
    double var = 0;
    for (int64_t i = 0; i < size; ++i)
      var += (x[start + i] - mean) * (x[start + i] - mean);
    var /= size;
    stats.emplace_back(mean, 1 / std::sqrt(var + epsilon));
  }
  return stats;
}

// ---------------------------------------------------------------------------------------------
// BatchNormalization.

template <typename T, typename P>
void SweepBatchNorm(double tolerance) {
  const std::vector<std::vector<int64_t>> shapes = {
      {2, 3}, {2, 3, 4}, {2, 3, 4, 5}, {1, 2, 1, 1, 3}, {0, 3, 2}};
  uint32_t seed = 1;
  for (const auto& dims : shapes) {
    for (float epsilon : {1e-5f, 0.5f}) {
      SCOPED_TRACE(::testing::Message()
                   << "dims=" << ::testing::PrintToString(dims)
                   << " epsilon=" << epsilon);
      const int64_t c = dims[1];
      const std::vector<double> x =
          RoundTrip<T>(RandomValues(Count(dims), seed++));
      const std::vector<double> scale = RoundTrip<P>(RandomValues(c, seed++));
      const std::vector<double> bias = RoundTrip<P>(RandomValues(c, seed++));
      const std::vector<double> mean = RoundTrip<P>(RandomValues(c, seed++));
      const std::vector<double> var =
          RoundTrip<P>(RandomValues(c, seed++, 0.1, 2));
      OpTester tester("BatchNormalization");
      tester.Input<T>(Shape(dims), Convert<T>(x));
      tester.Input<P>(Shape{c}, Convert<P>(scale));
      tester.Input<P>(Shape{c}, Convert<P>(bias));
      tester.Input<P>(Shape{c}, Convert<P>(mean));
      tester.RuntimeInput<P>(Shape{c}, Convert<P>(var));
      tester.Attr("epsilon", epsilon);
      auto outputs = tester.Run();
      ASSERT_TRUE(outputs.ok()) << outputs.status();
      EXPECT_EQ((*outputs)[0].shape(), Shape(dims));
      int64_t spatial = 1;
      for (size_t a = 2; a < dims.size(); ++a) spatial *= dims[a];
      std::vector<double> expected(x.size());
      for (size_t i = 0; i < x.size(); ++i) {
        const int64_t ch = (static_cast<int64_t>(i) / spatial) % c;
        expected[i] = (x[i] - mean[ch]) /
                          std::sqrt(var[ch] + static_cast<double>(epsilon)) *
                          scale[ch] +
                      bias[ch];
      }
      ExpectNear(AsDoubles<T>((*outputs)[0]), expected, tolerance);
    }
  }
}

TEST(BatchNormTest, SweepFloat32) { SweepBatchNorm<float, float>(1e-5); }
TEST(BatchNormTest, SweepFloat64) { SweepBatchNorm<double, double>(1e-12); }
TEST(BatchNormTest, SweepFloat16) { SweepBatchNorm<Float16, Float16>(5e-3); }
// Opset 15 lets the parameters have another float type than X.
TEST(BatchNormTest, SweepFloat16WithFloat32Params) {
  SweepBatchNorm<Float16, float>(5e-3);
}

// ONNX test_batchnorm_example.
TEST(BatchNormTest, OnnxExample) {
  auto outputs = OpTester("BatchNormalization")
                     .Input<float>(Shape{1, 2, 1, 3}, {-1, 0, 1, 2, 3, 4})
                     .Input<float>(Shape{2}, {1.0f, 1.5f})
                     .Input<float>(Shape{2}, {0, 1})
                     .Input<float>(Shape{2}, {0, 3})
                     .Input<float>(Shape{2}, {1, 1.5f})
                     .Run();
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  const std::vector<float> y = Values<float>((*outputs)[0]);
  const std::vector<float> expected = {-0.999995f,   0, 0.999995f,
                                       -0.22474074f, 1, 2.2247407f};
  for (size_t i = 0; i < y.size(); ++i)
    EXPECT_NEAR(y[i], expected[i], 1e-6) << i;
}

// The converter's fused Relu: the bits of BatchNormalization then Relu, NaN
// and -0 kept, for float32 (vector lanes and tail) and float16 (where Relu
// reads the rounded value).
template <typename T>
void ExpectFusedReluMatchesRelu() {
  const int64_t c = 3, spatial = 11;
  std::vector<double> xs(c * spatial);
  for (size_t i = 0; i < xs.size(); ++i) xs[i] = std::sin(0.9 * i) * 4.0;
  xs[2] = std::nan("");
  xs[17] = std::nan("");
  // Channel 1 maps 0 to -0 (mean 0, scale -1, bias -0).
  xs[spatial + 3] = 0.0;
  auto run = [&](const char* activation) {
    OpTester tester("BatchNormalization");
    tester.Input<T>(Shape{1, c, spatial}, Convert<T>(xs))
        .template Input<T>(Shape{c}, Convert<T>({1.5, -1.0, 0.25}))
        .template Input<T>(Shape{c}, Convert<T>({0.5, -0.0, -0.75}))
        .template Input<T>(Shape{c}, Convert<T>({0.2, 0.0, -1.0}))
        .template Input<T>(Shape{c}, Convert<T>({2.0, 1.0 - 1e-5, 0.5}));
    if (activation != nullptr) {
      tester.Attr("fused_activation", std::string(activation));
    }
    return tester.Run();
  };
  auto fused = run("Relu");
  auto plain = run(nullptr);
  ASSERT_TRUE(fused.ok()) << fused.status();
  ASSERT_TRUE(plain.ok()) << plain.status();
  auto relu = OpTester("Relu")
                  .Input<T>(Shape{1, c, spatial}, Values<T>((*plain)[0]))
                  .Run();
  ASSERT_TRUE(relu.ok()) << relu.status();
  const std::vector<T> want = Values<T>((*relu)[0]);
  const std::vector<T> got = Values<T>((*fused)[0]);
  ASSERT_EQ(got.size(), want.size());
  EXPECT_EQ(std::memcmp(got.data(), want.data(), got.size() * sizeof(T)), 0);
  EXPECT_TRUE(std::isnan(static_cast<double>(AsDoubles<T>((*fused)[0])[2])));
  EXPECT_TRUE(std::signbit(AsDoubles<T>((*fused)[0])[spatial + 3]));
}

TEST(BatchNormTest, FusedReluGivesTheBitsOfBatchNormThenRelu) {
  ExpectFusedReluMatchesRelu<float>();
  ExpectFusedReluMatchesRelu<Float16>();
}

TEST(BatchNormTest, Errors) {
  auto make = [](std::vector<int64_t> x_dims, int64_t c) {
    OpTester tester("BatchNormalization");
    tester.Input<float>(Shape(x_dims), std::vector<float>(Count(x_dims)));
    for (int i = 0; i < 4; ++i)
      tester.Input<float>(Shape{c}, std::vector<float>(c, 1));
    return tester;
  };
  auto training = make({2, 3}, 3).Attr("training_mode", int64_t{1}).Run();
  EXPECT_EQ(training.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(Message(training.status()),
              HasSubstr("training_mode=1 is not supported"));

  OpTester three_outputs("BatchNormalization", 3);
  three_outputs.Input<float>(Shape{2, 3}, std::vector<float>(6));
  for (int i = 0; i < 4; ++i)
    three_outputs.Input<float>(Shape{3}, std::vector<float>(3, 1));
  auto outputs = three_outputs.Run();
  EXPECT_EQ(outputs.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(Message(outputs.status()),
              HasSubstr("3 outputs requested: only output Y"));

  auto wrong_channels = make({2, 4, 5}, 3).Run();
  EXPECT_EQ(wrong_channels.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(wrong_channels.status()),
              HasSubstr("input 'scale' must have shape [4] (the channel count "
                        "of X), got [3]"));

  auto sigmoid =
      make({2, 3}, 3).Attr("fused_activation", std::string("Sigmoid")).Run();
  EXPECT_EQ(sigmoid.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(sigmoid.status()),
              HasSubstr("fused_activation 'Sigmoid' is not supported: "
                        "BatchNormalization fuses only Relu"));

  auto rank1 = make({3}, 3).Run();
  EXPECT_THAT(Message(rank1.status()),
              HasSubstr("input 'X' must have rank >= 2"));

  auto missing = OpTester("BatchNormalization")
                     .Input<float>(Shape{2, 3}, std::vector<float>(6))
                     .Run();
  EXPECT_THAT(Message(missing.status()), HasSubstr("takes 5..5 inputs, got 1"));

  OpTester ints("BatchNormalization");
  ints.Input<int32_t>(Shape{1, 1}, {1});
  for (int i = 0; i < 4; ++i) ints.Input<float>(Shape{1}, {1});
  EXPECT_THAT(Message(ints.Run().status()),
              HasSubstr("input 'X' has unsupported type int32"));
}

// ---------------------------------------------------------------------------------------------
// LayerNormalization.

// Reference with Scale/B given over the full normalized shape.
template <typename T>
void CheckLayerNorm(const std::vector<int64_t>& dims, int64_t axis,
                    bool with_bias, const std::vector<int64_t>& scale_dims,
                    size_t num_outputs, uint32_t seed, double tolerance) {
  const int64_t rank = static_cast<int64_t>(dims.size());
  const int64_t a = axis < 0 ? axis + rank : axis;
  std::vector<int64_t> norm_dims(dims.begin() + a, dims.end());
  const int64_t size = Count(norm_dims);
  const std::vector<double> x = RoundTrip<T>(RandomValues(Count(dims), seed));
  const std::vector<double> scale =
      RoundTrip<T>(RandomValues(Count(scale_dims), seed + 1));
  const std::vector<double> bias =
      RoundTrip<T>(RandomValues(Count(scale_dims), seed + 2));
  const float epsilon = 1e-3f;
  OpTester tester("LayerNormalization", num_outputs);
  tester.Input<T>(Shape(dims), Convert<T>(x));
  tester.Input<T>(Shape(scale_dims), Convert<T>(scale));
  tester.Attr("axis", axis).Attr("epsilon", epsilon);
  if (with_bias) tester.Input<T>(Shape(scale_dims), Convert<T>(bias));
  auto outputs = tester.Run();
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  ASSERT_EQ(outputs->size(), num_outputs);
  // Index of the broadcast parameter for element i of the normalized block.
  auto param_index = [&](int64_t i) {
    int64_t index = 0, stride = 1;
    const size_t prank = scale_dims.size();
    for (size_t k = 0; k < norm_dims.size(); ++k) {
      const size_t axis_k = norm_dims.size() - 1 - k;
      const int64_t coord = i % norm_dims[axis_k];
      i /= norm_dims[axis_k];
      if (k < prank) {
        const int64_t p = scale_dims[prank - 1 - k];
        if (p != 1) index += coord * stride;
        stride *= p;
      }
    }
    return index;
  };
  const auto stats = RowStats(x, size, epsilon);
  std::vector<double> expected(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const auto& [mean, inv] = stats[i / size];
    const int64_t p = param_index(static_cast<int64_t>(i % size));
    expected[i] = (x[i] - mean) * inv * scale[p] + (with_bias ? bias[p] : 0);
  }
  EXPECT_EQ((*outputs)[0].shape(), Shape(dims));
  ExpectNear(AsDoubles<T>((*outputs)[0]), expected, tolerance);
  std::vector<int64_t> stat_dims = dims;
  for (int64_t k = a; k < rank; ++k) stat_dims[k] = 1;
  for (size_t k = 1; k < num_outputs; ++k) {
    EXPECT_EQ((*outputs)[k].dtype(), DType::kFloat32);
    EXPECT_EQ((*outputs)[k].shape(), Shape(stat_dims));
    std::vector<double> want;
    for (const auto& [mean, inv] : stats) want.push_back(k == 1 ? mean : inv);
    ExpectNear(AsDoubles<float>((*outputs)[k]), want, 1e-5);
  }
}

TEST(LayerNormTest, SweepAxes) {
  const std::vector<std::vector<int64_t>> shapes = {
      {6}, {3, 4}, {2, 3, 5}, {2, 3, 4, 5}};
  uint32_t seed = 1;
  for (const auto& dims : shapes) {
    const int64_t rank = static_cast<int64_t>(dims.size());
    for (int64_t axis = -rank; axis < rank; ++axis) {
      for (int bias = 0; bias < 2; ++bias) {
        for (size_t outputs = 1; outputs <= 3; ++outputs) {
          SCOPED_TRACE(::testing::Message()
                       << "dims=" << ::testing::PrintToString(dims) << " axis="
                       << axis << " bias=" << bias << " outputs=" << outputs);
          const int64_t a = axis < 0 ? axis + rank : axis;
          std::vector<int64_t> norm(dims.begin() + a, dims.end());
          CheckLayerNorm<float>(dims, axis, bias, norm, outputs, seed += 3,
                                1e-5);
        }
      }
    }
  }
}

TEST(LayerNormTest, Float16AndDouble) {
  CheckLayerNorm<Float16>({2, 3, 8}, -1, true, {8}, 3, 11, 5e-3);
  CheckLayerNorm<BFloat16>({2, 3, 8}, 1, false, {3, 8}, 1, 12, 3e-2);
  CheckLayerNorm<double>({4, 5}, -1, true, {5}, 2, 13, 1e-12);
}

TEST(LayerNormTest, BroadcastScale) {
  CheckLayerNorm<float>({2, 4, 5}, 1, true, {1, 5}, 1, 21, 1e-5);
  CheckLayerNorm<float>({2, 4, 5}, 1, true, {4, 1}, 1, 22, 1e-5);
  CheckLayerNorm<float>({2, 4, 5}, 1, false, {1}, 1, 23, 1e-5);
  CheckLayerNorm<float>({2, 4, 5}, -1, true, {1, 5}, 1, 24, 1e-5);
}

TEST(LayerNormTest, EmptyBatch) {
  auto outputs = OpTester("LayerNormalization", 3)
                     .Input<float>(Shape{0, 4}, {})
                     .Input<float>(Shape{4}, {1, 1, 1, 1})
                     .Run();
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  EXPECT_EQ((*outputs)[0].shape(), (Shape{0, 4}));
  EXPECT_EQ((*outputs)[1].shape(), (Shape{0, 1}));
}

TEST(LayerNormTest, Errors) {
  auto bad_scale = OpTester("LayerNormalization")
                       .Input<float>(Shape{2, 3}, std::vector<float>(6))
                       .Input<float>(Shape{2}, {1, 1})
                       .Run();
  EXPECT_EQ(bad_scale.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(bad_scale.status()),
              HasSubstr("input 'Scale' of shape [2] does not broadcast to the "
                        "normalized shape [3]"));

  auto bad_bias = OpTester("LayerNormalization")
                      .Input<float>(Shape{2, 3}, std::vector<float>(6))
                      .Input<float>(Shape{3}, {1, 1, 1})
                      .Input<float>(Shape{2, 3}, std::vector<float>(6))
                      .Run();
  EXPECT_THAT(Message(bad_bias.status()),
              HasSubstr("input 'B' of shape [2,3] does not broadcast to the "
                        "normalized shape [3]"));

  auto mixed = OpTester("LayerNormalization")
                   .Input<float>(Shape{2, 3}, std::vector<float>(6))
                   .Input<double>(Shape{3}, {1, 1, 1})
                   .Run();
  EXPECT_THAT(Message(mixed.status()),
              HasSubstr("input 'Scale' has type float64, X has float32"));

  auto axis = OpTester("LayerNormalization")
                  .Input<float>(Shape{2, 3}, std::vector<float>(6))
                  .Input<float>(Shape{3}, {1, 1, 1})
                  .Attr("axis", int64_t{-3})
                  .Run();
  EXPECT_THAT(Message(axis.status()),
              HasSubstr("axis -3 is out of range for rank 2"));

  auto stash = OpTester("LayerNormalization")
                   .Input<float>(Shape{2, 3}, std::vector<float>(6))
                   .Input<float>(Shape{3}, {1, 1, 1})
                   .Attr("stash_type", int64_t{10})
                   .Run();
  EXPECT_EQ(stash.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(Message(stash.status()),
              HasSubstr("stash_type 10 is not supported"));
}

// ---------------------------------------------------------------------------------------------
// InstanceNormalization.

template <typename T>
void SweepInstanceNorm(double tolerance) {
  const std::vector<std::vector<int64_t>> shapes = {
      {2, 3, 4}, {1, 2, 3, 5}, {2, 2, 1, 2, 3}, {0, 2, 3}, {2, 3}};
  uint32_t seed = 1;
  for (const auto& dims : shapes) {
    SCOPED_TRACE(::testing::Message()
                 << "dims=" << ::testing::PrintToString(dims));
    const int64_t c = dims[1];
    const std::vector<double> x =
        RoundTrip<T>(RandomValues(Count(dims), seed++));
    const std::vector<double> scale = RoundTrip<T>(RandomValues(c, seed++));
    const std::vector<double> bias = RoundTrip<T>(RandomValues(c, seed++));
    OpTester tester("InstanceNormalization");
    tester.Input<T>(Shape(dims), Convert<T>(x));
    tester.Input<T>(Shape{c}, Convert<T>(scale));
    tester.Input<T>(Shape{c}, Convert<T>(bias));
    auto outputs = tester.Attr("epsilon", 1e-4f).Run();
    ASSERT_TRUE(outputs.ok()) << outputs.status();
    int64_t spatial = 1;
    for (size_t a = 2; a < dims.size(); ++a) spatial *= dims[a];
    const auto stats = RowStats(x, spatial, 1e-4f);
    std::vector<double> expected(x.size());
    for (size_t i = 0; i < x.size(); ++i) {
      const int64_t plane = static_cast<int64_t>(i) / spatial;
      const auto& [mean, inv] = stats[plane];
      expected[i] = (x[i] - mean) * inv * scale[plane % c] + bias[plane % c];
    }
    EXPECT_EQ((*outputs)[0].shape(), Shape(dims));
    ExpectNear(AsDoubles<T>((*outputs)[0]), expected, tolerance);
  }
}

// The converter's fusion of an exported LayerNorm: the steps of its nodes in
// float32, the means as ReduceMean takes them (eight double partial sums).
TEST(LayerNormTest, FusedDecomposedChainComputesEachStepInFloat32) {
  const int64_t rows = 300, size = 67;  // rows over three thread chunks
  std::vector<float> x(rows * size), scale(size), bias(size);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = std::sin(0.37f * i) * 4.0f + (i / size) * 10.0f;
  for (int64_t i = 0; i < size; ++i) {
    scale[i] = 0.5f + 0.01f * i;
    bias[i] = -0.25f + 0.003f * i;
  }
  auto sum8 = [](const std::vector<float>& v) {
    return testing::EightPartialSum(v.data(), static_cast<int64_t>(v.size()));
  };
  for (int threads : {1, 2}) {
    ScopedIntraOpThreads scope(threads);
    auto outputs = OpTester("LayerNormalization")
                       .Input<float>(Shape{rows, size}, x)
                       .Input<float>(Shape{size}, scale)
                       .Input<float>(Shape{size}, bias)
                       .Attr("epsilon", 1e-5f)
                       .Attr("fused_decomposed", int64_t{1})
                       .Run();
    ASSERT_TRUE(outputs.ok()) << outputs.status();
    const std::vector<float> y = Values<float>((*outputs)[0]);
    for (int64_t r = 0; r < rows; ++r) {
      std::vector<float> row(x.begin() + r * size, x.begin() + (r + 1) * size);
      const float mean = static_cast<float>(sum8(row) / size);
      std::vector<float> d(size), squares(size);
      for (int64_t i = 0; i < size; ++i) {
        d[i] = row[i] - mean;
        squares[i] = d[i] * d[i];
      }
      const float variance = static_cast<float>(sum8(squares) / size);
      const float deviation = std::sqrt(variance + 1e-5f);
      for (int64_t i = 0; i < size; ++i) {
        const float expected = (d[i] / deviation) * scale[i] + bias[i];
        ASSERT_EQ(y[r * size + i], expected)
            << "row " << r << ", element " << i << " on " << threads;
      }
    }
  }
}

TEST(LayerNormTest, FusedDecomposedChainErrors) {
  auto run = [](DType type, const Shape& scale_shape, int64_t axis) {
    OpTester tester("LayerNormalization");
    if (type == DType::kFloat64) {
      tester.Input<double>(Shape{2, 4}, std::vector<double>(8, 1.0))
          .Input<double>(Shape{4}, std::vector<double>(4, 1.0));
    } else {
      tester.Input<float>(Shape{2, 4}, std::vector<float>(8, 1.0f))
          .Input<float>(scale_shape,
                        std::vector<float>(scale_shape.NumElements(), 1.0f));
    }
    return tester.Attr("axis", axis)
        .Attr("fused_decomposed", int64_t{1})
        .Run()
        .status();
  };
  EXPECT_THAT(Message(run(DType::kFloat64, Shape{4}, -1)),
              HasSubstr("a fused LayerNorm chain takes float32, got float64"));
  EXPECT_THAT(Message(run(DType::kFloat32, Shape{3}, -1)),
              HasSubstr("input 'Scale' of a fused LayerNorm chain must be "
                        "float32 with 4 elements"));
  EXPECT_THAT(Message(run(DType::kFloat32, Shape{4}, 0)),
              HasSubstr("normalizes the last axis only, got axis 0"));
}

TEST(InstanceNormTest, SweepFloat32) { SweepInstanceNorm<float>(1e-5); }
TEST(InstanceNormTest, SweepFloat64) { SweepInstanceNorm<double>(1e-12); }
TEST(InstanceNormTest, SweepFloat16) { SweepInstanceNorm<Float16>(5e-3); }

// ONNX test_instancenorm_example.
TEST(InstanceNormTest, OnnxExample) {
  auto outputs = OpTester("InstanceNormalization")
                     .Input<float>(Shape{1, 2, 1, 3}, {-1, 0, 1, 2, 3, 4})
                     .Input<float>(Shape{2}, {1.0f, 1.5f})
                     .Input<float>(Shape{2}, {0, 1})
                     .Run();
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  const std::vector<float> y = Values<float>((*outputs)[0]);
  const std::vector<float> expected = {-1.2247356f, 0, 1.2247356f,
                                       -0.8371035f, 1, 2.8371034f};
  for (size_t i = 0; i < y.size(); ++i)
    EXPECT_NEAR(y[i], expected[i], 1e-5) << i;
}

TEST(InstanceNormTest, Errors) {
  auto bad_scale = OpTester("InstanceNormalization")
                       .Input<float>(Shape{1, 2, 3}, std::vector<float>(6))
                       .Input<float>(Shape{3}, {1, 1, 1})
                       .Input<float>(Shape{2}, {0, 0})
                       .Run();
  EXPECT_EQ(bad_scale.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(bad_scale.status()),
              HasSubstr("input 'scale' must have shape [2] (the channel count "
                        "of X), got [3]"));
  auto mixed = OpTester("InstanceNormalization")
                   .Input<float>(Shape{1, 2, 3}, std::vector<float>(6))
                   .Input<float>(Shape{2}, {1, 1})
                   .Input<double>(Shape{2}, {0, 0})
                   .Run();
  EXPECT_THAT(Message(mixed.status()),
              HasSubstr("input 'B' has type float64, input has float32"));
  auto rank1 = OpTester("InstanceNormalization")
                   .Input<float>(Shape{2}, {1, 2})
                   .Input<float>(Shape{2}, {1, 1})
                   .Input<float>(Shape{2}, {0, 0})
                   .Run();
  EXPECT_THAT(Message(rank1.status()), HasSubstr("input must have rank >= 2"));
}

}  // namespace
}  // namespace acldump
