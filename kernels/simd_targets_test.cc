// The SIMD kernels whose code depends on the vector width (tails, spills past
// a row, a row tile on one vector's lanes) on every target Highway built and
// this CPU runs, against the default target: pooling, DynamicQuantizeLinear
// and the quantized convolutions and QLinearAdd bit for bit (integer sums;
// QLinearAdd's vector path only where a multiply-add rounds once), the
// depthwise convolution and the 1x1 GEMM within rounding (targets without FMA
// round each multiply-add twice).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "hwy/targets.h"
#include "kernels/gemm.h"
#include "kernels/testing/op_tester.h"

namespace acldump {
namespace {

using ::acldump::testing::OpTester;
using ::acldump::testing::Values;

std::vector<float> Wave(size_t n, float phase) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = std::sin(0.37f * i + phase) * 3.0f;
  return v;
}

std::vector<float> RunPool(const std::string& op, int64_t size, int64_t stride,
                           int64_t pad) {
  const std::vector<float> x = Wave(3 * size * size, 0.1f);
  auto out = OpTester(op)
                 .Input<float>(Shape{1, 3, size, size}, x)
                 .Attr("kernel_shape", std::vector<int64_t>{3, 3})
                 .Attr("strides", std::vector<int64_t>{stride, stride})
                 .Attr("pads", std::vector<int64_t>{pad, pad, pad, pad})
                 .Attr("ceil_mode", int64_t{1})
                 .Run();
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? Values<float>((*out)[0]) : std::vector<float>();
}

// Max pooling of bytes (a quantized model's), as floats for comparison.
std::vector<float> RunPoolBytes(int64_t size, int64_t stride) {
  std::vector<uint8_t> x(3 * size * size);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = static_cast<uint8_t>(i * 37 % 251);
  auto out = OpTester("MaxPool")
                 .Input<uint8_t>(Shape{1, 3, size, size}, x)
                 .Attr("kernel_shape", std::vector<int64_t>{3, 3})
                 .Attr("strides", std::vector<int64_t>{stride, stride})
                 .Attr("pads", std::vector<int64_t>{1, 1, 1, 1})
                 .Run();
  EXPECT_TRUE(out.ok()) << out.status();
  if (!out.ok()) return {};
  const std::vector<uint8_t> y = Values<uint8_t>((*out)[0]);
  return std::vector<float>(y.begin(), y.end());
}

std::vector<float> RunDepthwise(int64_t size, int64_t stride) {
  const int64_t channels = 5;
  auto out = OpTester("Conv")
                 .Input<float>({1, channels, size, size},
                               Wave(channels * size * size, 0.2f))
                 .Input<float>({channels, 1, 3, 3}, Wave(channels * 9, 0.3f))
                 .Input<float>({channels}, Wave(channels, 0.4f))
                 .Attr("strides", std::vector<int64_t>{stride, stride})
                 .Attr("pads", std::vector<int64_t>{1, 1, 1, 1})
                 .Attr("group", channels)
                 .Run();
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? Values<float>((*out)[0]) : std::vector<float>();
}

std::vector<float> RunGemm(int64_t n) {
  const int64_t m = 61, k = 300;
  const std::vector<float> a = Wave(m * k, 0.5f);
  const std::vector<float> b = Wave(k * n, 0.6f);
  const std::vector<float> bias = Wave(m, 0.7f);
  const PackedMatrixA packed = PackedMatrixA::Pack(a.data(), m, k, k);
  std::vector<float> c(m * n);
  GemmPackedA(packed, n, b.data(), n, c.data(), n,
              GemmEpilogue{bias.data(), true, 0.0f, 6.0f});
  return c;
}

// DynamicQuantizeLinear's outputs (values, then scale and zero point) as
// floats, NaN and infinity lanes included.
std::vector<float> RunDynamicQuantize(int64_t n) {
  std::vector<float> x = Wave(static_cast<size_t>(n), 0.8f);
  x[static_cast<size_t>(n / 2)] = NAN;
  x[static_cast<size_t>(n - 1)] = INFINITY;
  auto out = OpTester("DynamicQuantizeLinear", 3).Input<float>({n}, x).Run();
  EXPECT_TRUE(out.ok()) << out.status();
  if (!out.ok()) return {};
  std::vector<float> y;
  for (uint8_t q : Values<uint8_t>((*out)[0])) y.push_back(q);
  y.push_back(Values<float>((*out)[1])[0]);
  y.push_back(Values<uint8_t>((*out)[2])[0]);
  return y;
}

// An operator's uint8 output as floats (empty if it failed).
std::vector<float> Uint8AsFloats(
    const absl::StatusOr<std::vector<Tensor>>& out) {
  EXPECT_TRUE(out.ok()) << out.status();
  std::vector<float> y;
  if (out.ok()) {
    for (uint8_t v : Values<uint8_t>((*out)[0])) y.push_back(v);
  }
  return y;
}

// QLinearConv (the packed im2col, the integer GEMM or the depthwise rows,
// the requantization) as floats: exact on every target.
std::vector<float> RunQLinearConv(int64_t channels, int64_t group,
                                  int64_t kernel, int64_t stride) {
  const int64_t size = 19;
  std::vector<uint8_t> x(static_cast<size_t>(channels * size * size));
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<uint8_t>(i * 37);
  const int64_t out_channels = channels;
  std::vector<int8_t> w(
      static_cast<size_t>(out_channels * channels / group * kernel * kernel));
  for (size_t i = 0; i < w.size(); ++i)
    w[i] = static_cast<int8_t>(static_cast<int>(i * 53 % 255) - 127);
  const int64_t pad = kernel / 2;
  auto out =
      OpTester("QLinearConv")
          .Input<uint8_t>({1, channels, size, size}, x)
          .Input<float>({}, {0.02f})
          .Input<uint8_t>({}, {120})
          .Input<int8_t>({out_channels, channels / group, kernel, kernel}, w)
          .Input<float>({}, {0.01f})
          .Input<int8_t>({}, {0})
          .Input<float>({}, {0.3f})
          .Input<uint8_t>({}, {128})
          .Attr("group", group)
          .Attr("strides", std::vector<int64_t>{stride, stride})
          .Attr("pads", std::vector<int64_t>{pad, pad, pad, pad})
          .Run();
  return Uint8AsFloats(out);
}

std::vector<float> RunQLinearAdd(int64_t n) {
  std::vector<uint8_t> a(static_cast<size_t>(n)), b(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    a[i] = static_cast<uint8_t>(i * 91);
    b[i] = static_cast<uint8_t>(i * 13 + 7);
  }
  auto out = OpTester("QLinearAdd")
                 .Input<uint8_t>({n}, a)
                 .Input<float>({}, {0.0371f})
                 .Input<uint8_t>({}, {121})
                 .Input<uint8_t>({n}, b)
                 .Input<float>({}, {0.0913f})
                 .Input<uint8_t>({}, {37})
                 .Input<float>({}, {0.1187f})
                 .Input<uint8_t>({}, {99})
                 .Run();
  return Uint8AsFloats(out);
}

// Every output of one target's kernels, in a fixed order.
struct Outputs {
  std::vector<std::vector<float>> exact, rounded;
};

Outputs RunAll() {
  Outputs o;
  for (int64_t size : {3, 7, 14, 23, 40}) {
    for (int64_t stride : {1, 2}) {
      o.exact.push_back(RunPool("MaxPool", size, stride, stride == 1 ? 1 : 0));
      o.exact.push_back(RunPool("AveragePool", size, stride, 1));
      o.exact.push_back(RunPoolBytes(size * 3, stride));
      o.rounded.push_back(RunDepthwise(size, stride));
    }
  }
  for (int64_t n : {1, 3, 49, 52, 57, 64}) o.rounded.push_back(RunGemm(n));
  for (int64_t n : {5, 33, 1001}) o.exact.push_back(RunDynamicQuantize(n));
  for (int64_t stride : {1, 2}) {
    o.exact.push_back(RunQLinearConv(6, 1, 3, stride));  // im2col + GEMM
    o.exact.push_back(RunQLinearConv(5, 1, 1, stride));  // 1x1
    o.exact.push_back(RunQLinearConv(6, 6, 3, stride));  // depthwise
  }
  for (int64_t n : {7, 37, 1000}) o.exact.push_back(RunQLinearAdd(n));
  return o;
}

TEST(SimdTargetsTest, EveryTargetComputesWhatTheDefaultOneDoes) {
  const Outputs want = RunAll();
  const std::vector<int64_t> targets = hwy::SupportedAndGeneratedTargets();
  ASSERT_FALSE(targets.empty());
  for (int64_t target : targets) {
    SCOPED_TRACE(hwy::TargetName(target));
    hwy::SetSupportedTargetsForTest(target);
    const Outputs got = RunAll();
    hwy::SetSupportedTargetsForTest(0);
    ASSERT_EQ(got.exact.size(), want.exact.size());
    for (size_t i = 0; i < want.exact.size(); ++i) {
      ASSERT_EQ(got.exact[i].size(), want.exact[i].size()) << i;
      EXPECT_EQ(std::memcmp(got.exact[i].data(), want.exact[i].data(),
                            want.exact[i].size() * sizeof(float)),
                0)
          << "pooling or quantizing case " << i;
    }
    for (size_t i = 0; i < want.rounded.size(); ++i) {
      ASSERT_EQ(got.rounded[i].size(), want.rounded[i].size()) << i;
      for (size_t j = 0; j < want.rounded[i].size(); ++j) {
        ASSERT_NEAR(got.rounded[i][j], want.rounded[i][j],
                    1e-4f * (1.0f + std::abs(want.rounded[i][j])))
            << "case " << i << ", element " << j;
      }
    }
  }
}

}  // namespace
}  // namespace acldump
