// The quantized operators against hand-computed values and naive integer
// references (the ONNX node tests cover the default forms).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hwy/targets.h"
#include "kernels/quantization.h"
#include "kernels/quantize_simd.h"
#include "kernels/testing/op_tester.h"
#include "kernels/threading.h"

namespace acldump {
namespace {

using ::acldump::testing::OpTester;
using ::acldump::testing::Values;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(QuantizeTest, QuantizeRoundsHalfToEvenAndSaturates) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  OpTester t("QuantizeLinear");
  t.Input<float>({8}, {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, 1000.0f, -1000.0f, nan})
      .Input<float>({}, {1.0f})
      .Input<int8_t>({}, {int8_t{1}});
  auto out = t.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  // 0.5 -> 0, 1.5 -> 2, 2.5 -> 2, -0.5 -> 0, -1.5 -> -2, each + 1; NaN -> the
  // zero point.
  EXPECT_THAT(Values<int8_t>((*out)[0]),
              ElementsAre(1, 3, 3, 1, -1, 127, -128, 1));
}

// The vectorised path (whole vectors, then a tail) against the scalar
// definition: halves, saturation both ways, NaN and infinities, both types.
TEST(QuantizeTest, QuantizeVectorsMatchTheScalarDefinition) {
  std::vector<float> x;
  for (int i = 0; i < 101; ++i) x.push_back((i - 50) * 0.75f + 0.5f);
  x[7] = std::numeric_limits<float>::quiet_NaN();
  x[20] = std::numeric_limits<float>::infinity();
  x[33] = -std::numeric_limits<float>::infinity();
  x[40] = 1e30f;
  for (int threads : {1, 2}) {
    ScopedIntraOpThreads scope(threads);
    auto u8 = OpTester("QuantizeLinear")
                  .Input<float>({101}, x)
                  .Input<float>({}, {0.25f})
                  .Input<uint8_t>({}, {uint8_t{100}})
                  .Run();
    auto s8 = OpTester("QuantizeLinear")
                  .Input<float>({101}, x)
                  .Input<float>({}, {0.25f})
                  .Input<int8_t>({}, {int8_t{-3}})
                  .Run();
    ASSERT_TRUE(u8.ok()) << u8.status();
    ASSERT_TRUE(s8.ok()) << s8.status();
    std::vector<uint8_t> want_u8;
    std::vector<int8_t> want_s8;
    for (float v : x) {
      want_u8.push_back(QuantizeValue<uint8_t>(v / 0.25f, 100));
      want_s8.push_back(QuantizeValue<int8_t>(v / 0.25f, -3));
    }
    EXPECT_EQ(Values<uint8_t>((*u8)[0]), want_u8);
    EXPECT_EQ(Values<int8_t>((*s8)[0]), want_s8);
  }
}

TEST(QuantizeTest, QuantizePerAxisAndDequantizeBack) {
  // [2, 3] along axis 1: one scale and zero point per column.
  OpTester q("QuantizeLinear");
  q.Input<float>({2, 3}, {0.0f, 1.0f, -2.0f, 4.0f, 0.25f, 2.0f})
      .Input<float>({3}, {0.5f, 0.25f, 1.0f})
      .Input<uint8_t>({3}, {10, 0, 128})
      .Attr("axis", int64_t{1});
  auto out = q.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Values<uint8_t>((*out)[0]), ElementsAre(10, 4, 126, 18, 1, 130));
  OpTester d("DequantizeLinear");
  d.AddInput(std::move((*out)[0]))
      .Input<float>({3}, {0.5f, 0.25f, 1.0f})
      .Input<uint8_t>({3}, {10, 0, 128})
      .Attr("axis", int64_t{-1});
  auto back = d.Run();
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_THAT(Values<float>((*back)[0]),
              ElementsAre(0.0f, 1.0f, -2.0f, 4.0f, 0.25f, 2.0f));
}

TEST(QuantizeTest, DynamicQuantizeOfZerosHasScaleOne) {
  OpTester t("DynamicQuantizeLinear", 3);
  t.Input<float>({3}, {0, 0, 0});
  auto out = t.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Values<uint8_t>((*out)[0]), ElementsAre(0, 0, 0));
  EXPECT_EQ(Values<float>((*out)[1])[0], 1.0f);
  EXPECT_EQ(Values<uint8_t>((*out)[2])[0], 0);
}

// The vector passes give the scalar definition's results: the range of
// std::min/std::max from 0 (NaNs skipped), x / scale rounded half to even,
// the zero point added, saturated; NaN to the zero point. Ties, signed
// zeros, infinities and every tail length around the vector width.
TEST(QuantizeTest, DynamicQuantizeMatchesTheScalarDefinition) {
  std::mt19937 rng(9);
  std::normal_distribution<float> dist(0.5f, 4.0f);
  for (int64_t n : {1, 7, 16, 17, 63, 1000}) {
    for (int variant = 0; variant < 3; ++variant) {
      std::vector<float> x(n);
      for (float& v : x) v = dist(rng);
      if (variant == 1) {
        for (int64_t i = 0; i < n; ++i) {
          x[i] = static_cast<float>(i % 9) * 0.5f - 2.0f;  // exact halves
        }
        x[0] = -0.0f;
      }
      if (variant == 2) {
        x[n / 2] = std::numeric_limits<float>::quiet_NaN();
        if (n > 2) x[n - 1] = std::numeric_limits<float>::infinity();
        if (n > 3) x[1] = -std::numeric_limits<float>::infinity();
      }
      SCOPED_TRACE(::testing::Message() << n << " " << variant);
      float lo = 0.0f, hi = 0.0f;
      for (float v : x) {
        lo = std::min(lo, v);
        hi = std::max(hi, v);
      }
      const float scale = hi == lo ? 1.0f : (hi - lo) / 255.0f;
      const auto zero_point = static_cast<uint8_t>(
          std::nearbyint(std::clamp(0.0f - lo / scale, 0.0f, 255.0f)));
      OpTester t("DynamicQuantizeLinear", 3);
      t.Input<float>({n}, x);
      auto out = t.Run();
      ASSERT_TRUE(out.ok()) << out.status();
      const float got_scale = Values<float>((*out)[1])[0];
      EXPECT_EQ(std::memcmp(&got_scale, &scale, 4), 0)
          << got_scale << " vs " << scale;
      EXPECT_EQ(Values<uint8_t>((*out)[2])[0], zero_point);
      const std::vector<uint8_t> y = Values<uint8_t>((*out)[0]);
      for (int64_t i = 0; i < n; ++i) {
        EXPECT_EQ(y[i], QuantizeValue<uint8_t>(x[i] / scale, zero_point))
            << i << ": " << x[i];
      }
    }
  }
}

TEST(QuantizeTest, MatMulIntegerWithRowAndColumnZeroPointsAndBatches) {
  std::mt19937 rng(3);
  std::uniform_int_distribution<int> u8(0, 255), s8(-128, 127);
  const int64_t B = 2, M = 3, K = 5, N = 4;
  std::vector<uint8_t> a(B * M * K);
  std::vector<int8_t> b(K * N);
  for (auto& v : a) v = static_cast<uint8_t>(u8(rng));
  for (auto& v : b) v = static_cast<int8_t>(s8(rng));
  const std::vector<uint8_t> a_zp = {3, 200, 128};
  const std::vector<int8_t> b_zp = {0, -5, 7, 127};
  // B known at load (prepared once) and given at run time.
  for (bool constant_b : {true, false}) {
    SCOPED_TRACE(constant_b ? "constant B" : "run-time B");
    OpTester t("MatMulInteger");
    t.RuntimeInput<uint8_t>({B, M, K}, a);
    if (constant_b) {
      t.Input<int8_t>({K, N}, b);
    } else {
      t.RuntimeInput<int8_t>({K, N}, b);
    }
    t.Input<uint8_t>({M}, a_zp).Input<int8_t>({N}, b_zp);
    auto out = t.Run();
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_THAT((*out)[0].shape().dims(), ElementsAre(B, M, N));
    const auto y = Values<int32_t>((*out)[0]);
    for (int64_t bi = 0; bi < B; ++bi)
      for (int64_t i = 0; i < M; ++i)
        for (int64_t j = 0; j < N; ++j) {
          int32_t sum = 0;
          for (int64_t p = 0; p < K; ++p)
            sum +=
                (a[(bi * M + i) * K + p] - a_zp[i]) * (b[p * N + j] - b_zp[j]);
          EXPECT_EQ(y[(bi * M + i) * N + j], sum);
        }
  }
}

TEST(QuantizeTest, QLinearMatMulRequantizesPerColumn) {
  // a = [[2, 4]] (zero point 0, scale 0.5) times b = I (per-column scales
  // 1 and 2): real result [1, 2] * [1, 2] = [1, 4]; y scale 0.5 -> [2, 8].
  OpTester t("QLinearMatMul");
  t.Input<int8_t>({1, 2}, {2, 4})
      .Input<float>({}, {0.5f})
      .Input<int8_t>({}, {0})
      .Input<int8_t>({2, 2}, {1, 0, 0, 1})
      .Input<float>({2}, {1.0f, 2.0f})
      .Input<int8_t>({2}, {0, 0})
      .Input<float>({}, {0.5f})
      .Input<int8_t>({}, {-3});
  auto out = t.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Values<int8_t>((*out)[0]), ElementsAre(-1, 5));
}

// Naive ConvInteger for 2-D x [N, C, H, W], w [M, C/g, KH, KW].
std::vector<int32_t> NaiveConvInteger(
    const std::vector<uint8_t>& x, const std::vector<int8_t>& w, int64_t n,
    int64_t c, int64_t h, int64_t wd, int64_t m, int64_t kh, int64_t kw,
    int64_t group, int64_t pad, int64_t stride, int64_t x_zp,
    const std::vector<int8_t>& w_zp, int64_t& oh, int64_t& ow) {
  oh = (h + 2 * pad - kh) / stride + 1;
  ow = (wd + 2 * pad - kw) / stride + 1;
  const int64_t cg = c / group, mg = m / group;
  std::vector<int32_t> y(n * m * oh * ow, 0);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t o = 0; o < m; ++o)
      for (int64_t i = 0; i < oh; ++i)
        for (int64_t j = 0; j < ow; ++j) {
          int32_t sum = 0;
          for (int64_t ch = 0; ch < cg; ++ch)
            for (int64_t p = 0; p < kh; ++p)
              for (int64_t q = 0; q < kw; ++q) {
                const int64_t ih = i * stride + p - pad,
                              iw = j * stride + q - pad;
                if (ih < 0 || ih >= h || iw < 0 || iw >= wd) continue;
                const int64_t in_ch = (o / mg) * cg + ch;
                sum += (x[((b * c + in_ch) * h + ih) * wd + iw] - x_zp) *
                       (w[((o * cg + ch) * kh + p) * kw + q] - w_zp[o]);
              }
          y[((b * m + o) * oh + i) * ow + j] = sum;
        }
  return y;
}

TEST(QuantizeTest, ConvIntegerWithGroupsPaddingAndChannelZeroPoints) {
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> u8(0, 255), s8(-128, 127);
  const int64_t N = 2, C = 4, H = 5, W = 6, M = 6, KH = 3, KW = 3, G = 2;
  std::vector<uint8_t> x(N * C * H * W);
  std::vector<int8_t> w(M * (C / G) * KH * KW);
  for (auto& v : x) v = static_cast<uint8_t>(u8(rng));
  for (auto& v : w) v = static_cast<int8_t>(s8(rng));
  const std::vector<int8_t> w_zp = {0, 1, -1, 5, -128, 127};
  int64_t oh = 0, ow = 0;
  const auto expected =
      NaiveConvInteger(x, w, N, C, H, W, M, KH, KW, G, 1, 2, 100, w_zp, oh, ow);
  // W known at load (prepared once) and given at run time; the groups on one
  // and on two threads.
  for (bool constant_w : {true, false}) {
    for (int threads : {1, 2}) {
      SCOPED_TRACE(::testing::Message()
                   << (constant_w ? "constant W" : "run-time W") << ", "
                   << threads << " threads");
      ScopedIntraOpThreads scope(threads);
      OpTester t("ConvInteger");
      t.RuntimeInput<uint8_t>({N, C, H, W}, x);
      if (constant_w) {
        t.Input<int8_t>({M, C / G, KH, KW}, w);
      } else {
        t.RuntimeInput<int8_t>({M, C / G, KH, KW}, w);
      }
      t.Input<uint8_t>({}, {100})
          .Input<int8_t>({M}, w_zp)
          .Attr("group", G)
          .Attr("pads", std::vector<int64_t>{1, 1, 1, 1})
          .Attr("strides", std::vector<int64_t>{2, 2});
      auto out = t.Run();
      ASSERT_TRUE(out.ok()) << out.status();
      EXPECT_THAT((*out)[0].shape().dims(), ElementsAre(N, M, oh, ow));
      EXPECT_EQ(Values<int32_t>((*out)[0]), expected);
    }
  }
}

// A convolution's geometry: 1 to 3 spatial dimensions.
struct ConvCase {
  std::vector<int64_t> x_dims, w_dims, strides, dilations, pads;
  int64_t group = 1;
  bool int8_x = false;
};

// Direct sums of (x - x_zp) * (w - w_zp[o]) over each window, pads skipped;
// x and w given as their integer values.
std::vector<int32_t> DirectConv(const ConvCase& c, const std::vector<int>& x,
                                int x_zp, const std::vector<int>& w,
                                const std::vector<int>& w_zp,
                                std::vector<int64_t>& out_dims) {
  const size_t rank = c.x_dims.size() - 2;
  // Spatial sizes padded to 3 dimensions with leading ones.
  int64_t in[3] = {1, 1, 1}, k[3] = {1, 1, 1}, st[3] = {1, 1, 1},
          dl[3] = {1, 1, 1}, pb[3] = {0, 0, 0}, out[3] = {1, 1, 1};
  out_dims = {c.x_dims[0], c.w_dims[0]};
  for (size_t d = 0; d < rank; ++d) {
    const size_t e = 3 - rank + d;
    in[e] = c.x_dims[2 + d];
    k[e] = c.w_dims[2 + d];
    st[e] = c.strides[d];
    dl[e] = c.dilations[d];
    pb[e] = c.pads[d];
    out[e] = (in[e] + c.pads[d] + c.pads[rank + d] - (k[e] - 1) * dl[e] - 1) /
                 st[e] +
             1;
    out_dims.push_back(out[e]);
  }
  const int64_t n = c.x_dims[0], ch_in = c.x_dims[1], m = c.w_dims[0];
  const int64_t cg = ch_in / c.group, mg = m / c.group;
  std::vector<int32_t> y;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t o = 0; o < m; ++o)
      for (int64_t od = 0; od < out[0]; ++od)
        for (int64_t oh = 0; oh < out[1]; ++oh)
          for (int64_t ow = 0; ow < out[2]; ++ow) {
            int32_t sum = 0;
            for (int64_t ch = 0; ch < cg; ++ch)
              for (int64_t kd = 0; kd < k[0]; ++kd)
                for (int64_t kh = 0; kh < k[1]; ++kh)
                  for (int64_t kw = 0; kw < k[2]; ++kw) {
                    const int64_t id = od * st[0] + kd * dl[0] - pb[0];
                    const int64_t ih = oh * st[1] + kh * dl[1] - pb[1];
                    const int64_t iw = ow * st[2] + kw * dl[2] - pb[2];
                    if (id < 0 || id >= in[0] || ih < 0 || ih >= in[1] ||
                        iw < 0 || iw >= in[2]) {
                      continue;
                    }
                    const int64_t in_ch = o / mg * cg + ch;
                    const int xv =
                        x[(((b * ch_in + in_ch) * in[0] + id) * in[1] + ih) *
                              in[2] +
                          iw];
                    const int wv =
                        w[(((o * cg + ch) * k[0] + kd) * k[1] + kh) * k[2] +
                          kw];
                    sum += (xv - x_zp) * (wv - w_zp[o]);
                  }
            y.push_back(sum);
          }
  return y;
}

template <typename T>
std::vector<T> Narrow(const std::vector<int>& v) {
  return std::vector<T>(v.begin(), v.end());
}

// The geometries the packed im2col treats apart: rows of 16 positions at unit
// stride, rows that do not split into 16s, strides, dilations, uneven pads,
// 1x1 windows read as one run, odd window sizes, 1-D and 3-D, groups and
// depthwise, batches.
const std::vector<ConvCase>& ConvGeometries() {
  static const auto* cases = new std::vector<ConvCase>{
      {{1, 3, 37}, {5, 3, 4}, {3}, {2}, {2, 1}, 1, true},
      {{2, 6, 9, 20}, {4, 3, 3, 5}, {1, 1}, {2, 1}, {1, 2, 0, 3}, 2, false},
      {{1, 7, 8, 9}, {9, 7, 1, 1}, {1, 1}, {1, 1}, {0, 0, 0, 0}, 1, false},
      {{1, 5, 6, 33}, {3, 5, 1, 1}, {2, 2}, {1, 1}, {0, 0, 0, 0}, 1, true},
      {{1, 2, 3, 40}, {3, 2, 3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, 1, false},
      {{1, 8, 10, 10}, {8, 1, 3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, 8, false},
      {{1, 4, 11, 13}, {4, 1, 5, 5}, {2, 2}, {1, 1}, {2, 2, 2, 2}, 4, true},
      {{1, 2, 4, 5, 6},
       {3, 2, 2, 3, 2},
       {1, 2, 1},
       {1, 1, 2},
       {1, 1, 1, 0, 1, 1},
       1,
       false},
      {{1, 64, 7, 7}, {13, 64, 3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, 1, false},
      {{1, 3, 5, 23}, {4, 3, 3, 3}, {1, 1}, {1, 2}, {0, 2, 1, 0}, 1, true},
      // Depthwise rows of 16 and more (whole vectors): odd and even windows.
      {{1, 5, 6, 37}, {5, 1, 3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, 5, false},
      {{2, 3, 7, 40}, {3, 1, 3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}, 3, true},
      {{1, 4, 5, 35}, {4, 1, 2, 2}, {1, 1}, {1, 2}, {0, 1, 1, 0}, 4, false},
      {{1, 6, 4, 20}, {6, 1, 1, 1}, {1, 1}, {1, 1}, {0, 0, 0, 0}, 6, true},
      // Strides past 2 (single values): an odd window, two images.
      {{2, 3, 5, 20}, {4, 3, 1, 3}, {1, 3}, {1, 1}, {0, 1, 0, 2}, 1, false},
      {{1, 3, 9, 31}, {5, 3, 2, 3}, {2, 2}, {1, 1}, {1, 1, 0, 0}, 1, true},
      // A 1x1 window over 50 positions: three contiguous panels and a
      // partial one read as single values.
      {{1, 6, 5, 10}, {7, 6, 1, 1}, {1, 1}, {1, 1}, {0, 0, 0, 0}, 1, false},
  };
  return *cases;
}

// Values drawn from these ranges: uint8 X up to x_max (int8 X over all of
// int8), W and its zero points in [w_low, w_high] (zero points 0 if
// zero_w_zp).
struct ConvValues {
  int x_max = 255, x_zp = 131;
  int w_low = -128, w_high = 127;
  bool zero_w_zp = false;
};

// ConvInteger on every geometry against direct sums, on one and two
// threads.
void ExpectConvIntegerMatchesDirectSums(const ConvValues& values,
                                        unsigned seed) {
  std::mt19937 rng(seed);
  const std::vector<ConvCase>& cases = ConvGeometries();
  for (size_t i = 0; i < cases.size(); ++i) {
    const ConvCase& c = cases[i];
    SCOPED_TRACE(::testing::Message() << "case " << i);
    std::uniform_int_distribution<int> xs(c.int8_x ? -128 : 0,
                                          c.int8_x ? 127 : values.x_max);
    std::uniform_int_distribution<int> ws(values.w_low, values.w_high);
    int64_t x_count = 1, w_count = 1;
    for (int64_t d : c.x_dims) x_count *= d;
    for (int64_t d : c.w_dims) w_count *= d;
    std::vector<int> x(x_count), w(w_count), w_zp(c.w_dims[0], 0);
    for (int& v : x) v = xs(rng);
    for (int& v : w) v = ws(rng);
    if (!values.zero_w_zp) {
      for (int& v : w_zp) v = ws(rng);
    }
    // The extremes in the first window: the largest inputs against the
    // largest pair of weights.
    if (!c.int8_x) x[0] = x[1] = values.x_max;
    w[0] = w[1] = values.w_low;
    const int x_zp = c.int8_x ? -3 : values.x_zp;
    std::vector<int64_t> out_dims;
    const std::vector<int32_t> want = DirectConv(c, x, x_zp, w, w_zp, out_dims);
    for (int threads : {1, 2}) {
      SCOPED_TRACE(::testing::Message() << threads << " thread(s)");
      ScopedIntraOpThreads scope(threads);
      OpTester t("ConvInteger");
      if (c.int8_x) {
        t.RuntimeInput<int8_t>(Shape(c.x_dims), Narrow<int8_t>(x));
      } else {
        t.RuntimeInput<uint8_t>(Shape(c.x_dims), Narrow<uint8_t>(x));
      }
      t.Input<int8_t>(Shape(c.w_dims), Narrow<int8_t>(w));
      if (c.int8_x) {
        t.Input<int8_t>({}, {static_cast<int8_t>(x_zp)});
      } else {
        t.Input<uint8_t>({}, {static_cast<uint8_t>(x_zp)});
      }
      t.Input<int8_t>({c.w_dims[0]}, Narrow<int8_t>(w_zp))
          .Attr("group", c.group)
          .Attr("strides", c.strides)
          .Attr("dilations", c.dilations)
          .Attr("pads", c.pads);
      auto out = t.Run();
      ASSERT_TRUE(out.ok()) << out.status();
      EXPECT_EQ((*out)[0].shape().dims(), out_dims);
      EXPECT_EQ(Values<int32_t>((*out)[0]), want);
    }
  }
}

// Weights less their zero points over -255..255: the int16 product.
TEST(QuantizeTest, ConvIntegerMatchesDirectSumsOverGeometries) {
  ExpectConvIntegerMatchesDirectSums(ConvValues{}, 5);
}

// Int8 weights with zero point 0 take the byte product (unsigned inputs by
// signed weights) when no pair of products can pass int16: inputs up to 127
// with any weights, as PyTorch's x86 models have them, and any inputs with
// weights in -64..64. Inputs past 127 with weights down to -128 cannot: the
// int16 product, the same sums.
TEST(QuantizeTest, ConvIntegerByteProductMatchesDirectSums) {
  SCOPED_TRACE("inputs up to 127");
  ExpectConvIntegerMatchesDirectSums(
      ConvValues{.x_max = 127, .x_zp = 64, .zero_w_zp = true}, 6);
  SCOPED_TRACE("weights in -64..64");
  ExpectConvIntegerMatchesDirectSums(ConvValues{.x_max = 255,
                                                .x_zp = 200,
                                                .w_low = -64,
                                                .w_high = 64,
                                                .zero_w_zp = true},
                                     7);
  SCOPED_TRACE("inputs past 127, weights down to -128");
  ExpectConvIntegerMatchesDirectSums(
      ConvValues{.x_max = 255, .x_zp = 131, .zero_w_zp = true}, 8);
}

// The requantization of int32 sums on every SIMD target against the scalar
// definition: exact halves (half to even), both saturation ends, products
// past int32 and float range, a NaN multiplier (the zero point), every
// length up to past four vectors.
template <typename Q>
void ExpectRequantizeIsTheScalarDefinition() {
  std::mt19937 rng(13);
  std::uniform_int_distribution<int32_t> sums(-3000, 3000);
  std::vector<int32_t> acc(80);
  for (auto& v : acc) v = sums(rng);
  acc[3] = std::numeric_limits<int32_t>::max() - 10;
  acc[9] = std::numeric_limits<int32_t>::min() + 10;
  // With the bias 5, odd sums: halves at the multiplier 0.5.
  for (int i = 20; i < 40; ++i) acc[i] = 2 * i;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (float multiplier : {0.5f, 0.0371f, -1.25f, 3e38f, nan}) {
    for (int32_t zero_point :
         {int32_t{std::numeric_limits<Q>::min()} + 3, int32_t{0},
          int32_t{std::numeric_limits<Q>::max()}}) {
      for (int64_t n : {1, 7, 8, 9, 31, 32, 33, 65, 80}) {
        std::vector<Q> want(static_cast<size_t>(n));
        for (int64_t i = 0; i < n; ++i) {
          want[i] = QuantizeValue<Q>(
              static_cast<float>(acc[i] + 5) * multiplier, zero_point);
        }
        for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
          hwy::SetSupportedTargetsForTest(target);
          std::vector<Q> got(static_cast<size_t>(n) + 1, Q{42});
          RequantizeInt32(acc.data(), n, 5, multiplier, zero_point, got.data());
          hwy::SetSupportedTargetsForTest(0);
          ASSERT_EQ(got.back(), Q{42}) << "wrote past n";
          got.pop_back();
          ASSERT_EQ(got, want)
              << hwy::TargetName(target) << " multiplier " << multiplier
              << " zero point " << zero_point << " n " << n;
        }
      }
    }
  }
}

TEST(QuantizeTest, RequantizeIsTheScalarDefinitionOnEveryTarget) {
  ExpectRequantizeIsTheScalarDefinition<uint8_t>();
  ExpectRequantizeIsTheScalarDefinition<int8_t>();
}

// QLinearConv's requantization (vectorised) against the scalar definition on
// sums that reach both saturation ends and exact halves.
TEST(QuantizeTest, QLinearConvRequantizesEverySumAsTheScalarDefinition) {
  const ConvCase c = {
      {1, 6, 9, 21}, {10, 6, 3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, 1, false};
  std::mt19937 rng(9);
  std::uniform_int_distribution<int> xs(0, 255), ws(-128, 127);
  std::vector<int> x(6 * 9 * 21), w(10 * 6 * 9), w_zp(10, 0);
  for (int& v : x) v = xs(rng);
  for (int& v : w) v = ws(rng);
  std::vector<int64_t> out_dims;
  const std::vector<int32_t> sums = DirectConv(c, x, 128, w, w_zp, out_dims);
  std::vector<float> w_scale(10);
  std::vector<int32_t> bias(10);
  for (int o = 0; o < 10; ++o) {
    w_scale[o] = 0.0005f * static_cast<float>(o + 1);
    bias[o] = (o - 5) * 977;
  }
  const float x_scale = 0.25f, y_scale = 0.75f;
  for (bool int8_y : {false, true}) {
    SCOPED_TRACE(int8_y ? "int8 y" : "uint8 y");
    const int y_zp = int8_y ? -7 : 120;
    OpTester t("QLinearConv");
    t.RuntimeInput<uint8_t>(Shape(c.x_dims), Narrow<uint8_t>(x))
        .Input<float>({}, {x_scale})
        .Input<uint8_t>({}, {128})
        .Input<int8_t>(Shape(c.w_dims), Narrow<int8_t>(w))
        .Input<float>({10}, w_scale)
        .Input<int8_t>({10}, Narrow<int8_t>(w_zp))
        .Input<float>({}, {y_scale});
    if (int8_y) {
      t.Input<int8_t>({}, {static_cast<int8_t>(y_zp)});
    } else {
      t.Input<uint8_t>({}, {static_cast<uint8_t>(y_zp)});
    }
    t.Input<int32_t>({10}, bias).Attr("pads", c.pads);
    auto out = t.Run();
    ASSERT_TRUE(out.ok()) << out.status();
    const int64_t positions = out_dims[2] * out_dims[3];
    std::vector<int> got, want;
    int saturated_low = 0, saturated_high = 0;
    for (size_t i = 0; i < sums.size(); ++i) {
      const int64_t o = static_cast<int64_t>(i) / positions;
      const float multiplier = x_scale * w_scale[o] / y_scale;
      const float v = static_cast<float>(sums[i] + bias[o]) * multiplier;
      const int q = int8_y ? int{QuantizeValue<int8_t>(v, y_zp)}
                           : int{QuantizeValue<uint8_t>(v, y_zp)};
      want.push_back(q);
      saturated_low += q == (int8_y ? -128 : 0);
      saturated_high += q == (int8_y ? 127 : 255);
    }
    if (int8_y) {
      for (int8_t v : Values<int8_t>((*out)[0])) got.push_back(v);
    } else {
      for (uint8_t v : Values<uint8_t>((*out)[0])) got.push_back(v);
    }
    EXPECT_EQ(got, want);
    // The case reaches both ends, so the clamps are exercised.
    EXPECT_GT(saturated_low, 0);
    EXPECT_GT(saturated_high, 0);
  }
}

TEST(QuantizeTest, QLinearConvAddsBiasAndRequantizes) {
  // 1x1 convolution, one channel: y = (x - 2) * 3 (w = 3) + bias 4, scale
  // x 0.5 * w 1 / y 1 -> y_q = round(0.5 * acc).
  OpTester t("QLinearConv");
  t.Input<uint8_t>({1, 1, 1, 3}, {2, 3, 5})
      .Input<float>({}, {0.5f})
      .Input<uint8_t>({}, {2})
      .Input<int8_t>({1, 1, 1, 1}, {3})
      .Input<float>({1}, {1.0f})
      .Input<int8_t>({1}, {0})
      .Input<float>({}, {1.0f})
      .Input<uint8_t>({}, {10})
      .Input<int32_t>({1}, {4});
  auto out = t.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  // acc + bias: 4, 7, 13 -> * 0.5: 2, 3.5, 6.5 -> 2, 4, 6 (half to even)
  // + 10.
  EXPECT_THAT(Values<uint8_t>((*out)[0]), ElementsAre(12, 14, 16));
}

TEST(QuantizeTest, QLinearConvSumsPastInt32WithTheBiasStayExact) {
  // 255 * 127 + a bias near INT32_MAX passes int32: the sum is taken in
  // int64, so the value is 215 + 10, not a wrapped negative number.
  const int32_t bias = 2147483000;
  OpTester t("QLinearConv");
  t.Input<uint8_t>({1, 1, 1, 2}, {255, 0})
      .Input<float>({}, {1.0f})
      .Input<uint8_t>({}, {0})
      .Input<int8_t>({1, 1, 1, 1}, {127})
      .Input<float>({1}, {1e-7f})
      .Input<int8_t>({1}, {0})
      .Input<float>({}, {1.0f})
      .Input<uint8_t>({}, {10})
      .Input<int32_t>({1}, {bias});
  auto out = t.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  const float multiplier = 1.0f * 1e-7f / 1.0f;
  EXPECT_THAT(
      Values<uint8_t>((*out)[0]),
      ElementsAre(
          QuantizeValue<uint8_t>(
              static_cast<float>(int64_t{255} * 127 + bias) * multiplier, 10),
          QuantizeValue<uint8_t>(static_cast<float>(bias) * multiplier, 10)));
  EXPECT_THAT(Values<uint8_t>((*out)[0]), ElementsAre(225, 225));
}

TEST(QuantizeTest, BadParametersAreNamed) {
  OpTester scale("QuantizeLinear");
  scale.Input<float>({2, 3}, std::vector<float>(6))
      .Input<float>({2}, {1, 1})
      .Attr("axis", int64_t{1});
  auto out = scale.Run();
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("y_scale has shape [2]; expected one value (per "
                        "tensor) or [3]"));
  OpTester zp_type("DequantizeLinear");
  zp_type.Input<uint8_t>({2}, {1, 2})
      .Input<float>({}, {1})
      .Input<int8_t>({}, {0});
  out = zp_type.Run();
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("x_zero_point is int8; it must have x's type uint8"));
  OpTester blocked("QuantizeLinear");
  blocked.Input<float>({4}, std::vector<float>(4))
      .Input<float>({2}, {1, 1})
      .Attr("block_size", int64_t{2});
  out = blocked.Run();
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(
      std::string(out.status().message()),
      HasSubstr("blocked quantization (block_size 2) is not supported"));
  OpTester zp("MatMulInteger");
  zp.Input<uint8_t>({1, 1}, {1})
      .Input<uint8_t>({1, 1}, {1})
      .Input<int8_t>({}, {0});
  out = zp.Run();
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("a_zero_point is int8; it must have its operand's "
                        "type uint8"));
  OpTester k("MatMulInteger");
  k.Input<uint8_t>({2, 3}, std::vector<uint8_t>(6))
      .Input<uint8_t>({4, 2}, std::vector<uint8_t>(8));
  out = k.Run();
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("has K = 3 but B [4,2] has K = 4"));
}

}  // namespace
}  // namespace acldump
