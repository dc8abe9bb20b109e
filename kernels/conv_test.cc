#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "kernels/testing/op_tester.h"
#include "kernels/threading.h"

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

struct Conv2DCase {
  int64_t n, c, h, w, m, kh, kw, group;
  int64_t sh, sw, dh, dw;
  int64_t pt, pl, pb, pr;
};

// Direct (no im2col) reference in double.
std::vector<float> ReferenceConv2D(const Conv2DCase& p,
                                   const std::vector<float>& x,
                                   const std::vector<float>& w,
                                   const std::vector<float>& bias, int64_t oh,
                                   int64_t ow) {
  std::vector<float> y(p.n * p.m * oh * ow);
  const int64_t cg = p.c / p.group, mg = p.m / p.group;
  for (int64_t b = 0; b < p.n; ++b)
    for (int64_t o = 0; o < p.m; ++o) {
      const int64_t g = o / mg;
      for (int64_t yy = 0; yy < oh; ++yy)
        for (int64_t xx = 0; xx < ow; ++xx) {
          double sum = bias.empty() ? 0 : bias[o];
          for (int64_t ci = 0; ci < cg; ++ci)
            for (int64_t ky = 0; ky < p.kh; ++ky)
              for (int64_t kx = 0; kx < p.kw; ++kx) {
                const int64_t iy = yy * p.sh + ky * p.dh - p.pt;
                const int64_t ix = xx * p.sw + kx * p.dw - p.pl;
                if (iy < 0 || iy >= p.h || ix < 0 || ix >= p.w) continue;
                sum +=
                    double(x[((b * p.c + g * cg + ci) * p.h + iy) * p.w + ix]) *
                    w[((o * cg + ci) * p.kh + ky) * p.kw + kx];
              }
          y[((b * p.m + o) * oh + yy) * ow + xx] = static_cast<float>(sum);
        }
    }
  return y;
}

TEST(ConvTest, SweepsPadsStridesDilationsGroups) {
  const Conv2DCase cases[] = {
      {1, 3, 7, 7, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},
      {2, 4, 9, 8, 6, 3, 3, 2, 2, 2, 1, 1, 1, 1, 1, 1},
      {1, 3, 10, 11, 2, 3, 2, 1, 2, 3, 2, 1, 0, 2, 1, 0},
      {1, 8, 6, 6, 8, 3, 3, 8, 1, 1, 1, 1, 1, 1, 1, 1},  // depthwise
      // Depthwise on NCHW: widths around the vector length, strides 1 and 2,
      // 3x3 and 5x5, asymmetric and no padding, batches.
      {2, 5, 19, 37, 5, 3, 3, 5, 1, 1, 1, 1, 1, 1, 1, 1},
      {1, 4, 20, 41, 4, 3, 3, 4, 2, 2, 1, 1, 0, 0, 1, 1},
      {1, 3, 23, 50, 3, 5, 5, 3, 2, 2, 1, 1, 2, 2, 2, 2},
      {1, 6, 9, 16, 6, 5, 5, 6, 1, 1, 1, 1, 2, 2, 2, 2},
      {1, 2, 7, 9, 2, 3, 3, 2, 1, 2, 1, 1, 0, 1, 0, 0},
      {1, 2, 3, 3, 2, 5, 5, 2, 1, 1, 1, 1, 2, 2, 2, 2},  // all border
      {1, 3, 12, 70, 3, 7, 3, 3, 3, 1, 1, 1, 3, 1, 3, 1},
      {1, 2, 8, 8, 2, 3, 3, 2, 1, 1, 2, 2, 2, 2, 2, 2},   // dilated: oneDNN
      {1, 16, 5, 5, 8, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0},  // pointwise fast path
      {2, 24, 9, 11, 40, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0},  // and batched
      {1, 4, 5, 5, 4, 1, 1, 1, 2, 2, 1, 1, 0, 0, 0, 0},     // 1x1 strided
      {1, 2, 4, 4, 3, 5, 5, 1, 1, 1, 1, 1, 2, 2, 2,
       2},  // kernel larger than image
  };
  for (const Conv2DCase& p : cases) {
    const auto x = Random(p.n * p.c * p.h * p.w, 1);
    const auto w = Random(p.m * (p.c / p.group) * p.kh * p.kw, 2);
    const auto bias = Random(p.m, 3);
    const int64_t oh = (p.h + p.pt + p.pb - ((p.kh - 1) * p.dh + 1)) / p.sh + 1;
    const int64_t ow = (p.w + p.pl + p.pr - ((p.kw - 1) * p.dw + 1)) / p.sw + 1;
    for (bool with_bias : {false, true}) {
      OpTester tester("Conv");
      tester.Input<float>({p.n, p.c, p.h, p.w}, x)
          .Input<float>({p.m, p.c / p.group, p.kh, p.kw}, w)
          .Attr("strides", std::vector<int64_t>{p.sh, p.sw})
          .Attr("dilations", std::vector<int64_t>{p.dh, p.dw})
          .Attr("pads", std::vector<int64_t>{p.pt, p.pl, p.pb, p.pr})
          .Attr("group", p.group);
      if (with_bias) tester.Input<float>({p.m}, bias);
      auto out = tester.Run();
      ASSERT_TRUE(out.ok()) << out.status();
      EXPECT_EQ((*out)[0].shape(), Shape({p.n, p.m, oh, ow}));
      const auto expected = ReferenceConv2D(
          p, x, w, with_bias ? bias : std::vector<float>{}, oh, ow);
      const auto got = Values<float>((*out)[0]);
      ASSERT_EQ(got.size(), expected.size());
      for (size_t i = 0; i < got.size(); ++i)
        ASSERT_NEAR(got[i], expected[i], 1e-5) << i;
    }
  }
}

// The depthwise kernel has compile-time paths (3x3 and 5x5 with equal
// strides: weights in registers, input rows shared between output rows) and
// a generic one; all must sum each output as bias, then the taps in (ky, kx)
// order, one float32 multiply-add at a time: the same bits whatever the path,
// the plane width or the thread count.
TEST(ConvTest, DepthwiseSumsTapsInOneOrderOnEveryPath) {
  struct Case {
    int64_t h, w, k, sh, sw, pad;
  };
  const Case cases[] = {
      {9, 14, 3, 1, 1, 1},
      {7, 7, 3, 1, 1, 1},
      {12, 33, 3, 2, 2, 1},
      {14, 14, 3, 2, 2, 0},
      {11, 17, 5, 1, 1, 2},
      {14, 28, 5, 2, 2, 2},
      {8, 9, 7, 1, 1, 3},
      {10, 20, 3, 2, 1, 1},
      {6, 40, 3, 1, 2, 1},
      {9, 30, 7, 2, 2, 3},
      {5, 17, 4, 2, 2, 1},
      // Rows narrower than a vector, whose stores and copies spill into the
      // next rows; the plane's last rows must not spill past it.
      {14, 14, 3, 2, 2, 1},
      {3, 3, 3, 1, 1, 1},
      {5, 5, 5, 1, 1, 2},
      {4, 6, 3, 2, 2, 1},
      {1, 1, 3, 1, 1, 1},
      {2, 13, 3, 1, 2, 1},
  };
  for (const Case& c : cases) {
    const int64_t channels = 3;
    const auto x = Random(channels * c.h * c.w, 4);
    const auto w = Random(channels * c.k * c.k, 5);
    const auto bias = Random(channels, 6);
    const int64_t oh = (c.h + 2 * c.pad - c.k) / c.sh + 1;
    const int64_t ow = (c.w + 2 * c.pad - c.k) / c.sw + 1;
    auto out =
        OpTester("Conv")
            .Input<float>({1, channels, c.h, c.w}, x)
            .Input<float>({channels, 1, c.k, c.k}, w)
            .Input<float>({channels}, bias)
            .Attr("strides", std::vector<int64_t>{c.sh, c.sw})
            .Attr("pads", std::vector<int64_t>{c.pad, c.pad, c.pad, c.pad})
            .Attr("group", channels)
            .Run();
    ASSERT_TRUE(out.ok()) << out.status();
    const auto got = Values<float>((*out)[0]);
    ASSERT_EQ(got.size(), static_cast<size_t>(channels * oh * ow));
    for (int64_t ch = 0; ch < channels; ++ch) {
      for (int64_t oy = 0; oy < oh; ++oy) {
        for (int64_t ox = 0; ox < ow; ++ox) {
          float sum = bias[ch];
          for (int64_t ky = 0; ky < c.k; ++ky) {
            for (int64_t kx = 0; kx < c.k; ++kx) {
              const int64_t iy = oy * c.sh + ky - c.pad;
              const int64_t ix = ox * c.sw + kx - c.pad;
              const bool inside = iy >= 0 && iy < c.h && ix >= 0 && ix < c.w;
              sum =
                  std::fma(w[(ch * c.k + ky) * c.k + kx],
                           inside ? x[(ch * c.h + iy) * c.w + ix] : 0.0f, sum);
            }
          }
          ASSERT_EQ(got[(ch * oh + oy) * ow + ox], sum)
              << c.k << "x" << c.k << " strides " << c.sh << "," << c.sw << " "
              << c.h << "x" << c.w << " at " << ch << "," << oy << "," << ox;
        }
      }
    }
  }
}

// Small planes store whole vectors that spill into the plane's next rows; a
// plane's last rows must not spill into the next plane, which another thread
// may be writing: the same bits on one and three threads (two images, so the
// planes split across the threads sit side by side).
TEST(ConvTest, SmallDepthwisePlanesGiveTheSameBitsOnAnyThreadCount) {
  // Enough planes that even 3x3 ones are split over the threads.
  const int64_t channels = 1500;
  for (int64_t size : {7, 14, 3}) {
    for (int64_t stride : {1, 2}) {
      const auto x = Random(channels * size * size, 7);
      const auto w = Random(channels * 9, 8);
      const auto bias = Random(channels, 9);
      auto run = [&](int threads) {
        ScopedIntraOpThreads scope(threads);
        return OpTester("Conv")
            .Input<float>({2, channels, size, size},
                          [&] {
                            std::vector<float> two = x;
                            two.insert(two.end(), x.rbegin(), x.rend());
                            return two;
                          }())
            .Input<float>({channels, 1, 3, 3}, w)
            .Input<float>({channels}, bias)
            .Attr("strides", std::vector<int64_t>{stride, stride})
            .Attr("pads", std::vector<int64_t>{1, 1, 1, 1})
            .Attr("group", channels)
            .Attr("fused_activation", std::string("Clip"))
            .Attr("fused_clip_min", 0.0f)
            .Attr("fused_clip_max", 6.0f)
            .Run();
      };
      auto one = run(1);
      auto three = run(3);
      ASSERT_TRUE(one.ok()) << one.status();
      ASSERT_TRUE(three.ok()) << three.status();
      const std::vector<float> a = Values<float>((*one)[0]);
      const std::vector<float> b = Values<float>((*three)[0]);
      ASSERT_EQ(a.size(), b.size());
      EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)), 0)
          << size << "x" << size << " stride " << stride;
    }
  }
}

TEST(ConvTest, Conv1DAnd3DUseGenericIm2Col) {
  // 1-D: x = [1,2,3,4,5], w = [1,0,-1], pad 1 -> [-2,-2,-2,-2,4].
  auto out = OpTester("Conv")
                 .Input<float>({1, 1, 5}, {1, 2, 3, 4, 5})
                 .Input<float>({1, 1, 3}, {1, 0, -1})
                 .Attr("pads", std::vector<int64_t>{1, 1})
                 .Run();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{-2, -2, -2, -2, 4}));
  // 3-D 2x2x2 box filter over a 2x2x2 ones cube with no padding: one output, 8.
  out = OpTester("Conv")
            .Input<float>({1, 1, 2, 2, 2}, std::vector<float>(8, 1.0f))
            .Input<float>({1, 1, 2, 2, 2}, std::vector<float>(8, 1.0f))
            .Run();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), Shape({1, 1, 1, 1, 1}));
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{8}));
}

TEST(ConvTest, AutoPadSameUpperKeepsSpatialSize) {
  auto out = OpTester("Conv")
                 .Input<float>({1, 1, 5, 5}, std::vector<float>(25, 1.0f))
                 .Input<float>({1, 1, 3, 3}, std::vector<float>(9, 1.0f))
                 .Attr("auto_pad", std::string("SAME_UPPER"))
                 .Run();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), Shape({1, 1, 5, 5}));
  const auto y = Values<float>((*out)[0]);
  EXPECT_EQ(y[0], 4.0f);   // corner sees 2x2
  EXPECT_EQ(y[1], 6.0f);   // edge sees 2x3
  EXPECT_EQ(y[12], 9.0f);  // centre sees 3x3
}

TEST(ConvTest, FusedReluAppliesAfterBias) {
  auto out = OpTester("Conv")
                 .Input<float>({1, 1, 1, 2}, {1, -1})
                 .Input<float>({2, 1, 1, 1}, {1, -1})
                 .Input<float>({2}, {0.5f, 0.25f})
                 .Attr("fused_activation", std::string("Relu"))
                 .Run();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<float>((*out)[0]),
            (std::vector<float>{1.5f, 0.0f, 0.0f, 1.25f}));
}

// Every implementation (1x1 GEMM, depthwise, oneDNN) clamps after the bias
// and keeps NaN; padding taps multiply an infinite weight by zero, as ONNX's
// zero padding does.
TEST(ConvTest, FusedClipAndNanInEveryImplementation) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  struct Case {
    const char* name;
    int64_t group, k;
    std::vector<float> w;
  };
  for (const Case& c :
       {Case{"1x1", 1, 1, {1.0f, -1.0f}},
        Case{"depthwise", 2, 3, std::vector<float>(18, 0.5f)},
        Case{"depthwise, inf weight",
             2,
             3,
             {inf, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0}}}) {
    const int64_t in_c = c.group == 1 ? 1 : 2;
    std::vector<float> x(in_c * 3 * 3);
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i) - 4.0f;
    x[4] = nan;
    auto out = OpTester("Conv")
                   .Input<float>({1, in_c, 3, 3}, x)
                   .Input<float>({2, 1, c.k, c.k}, c.w)
                   .Input<float>({2}, {0.5f, -0.5f})
                   .Attr("group", c.group)
                   .Attr("pads", std::vector<int64_t>(4, c.k / 2))
                   .Attr("fused_activation", std::string("Clip"))
                   .Attr("fused_clip_min", -1.0f)
                   .Attr("fused_clip_max", 2.0f)
                   .Run();
    ASSERT_TRUE(out.ok()) << c.name << ": " << out.status();
    const std::vector<float> y = Values<float>((*out)[0]);
    for (size_t i = 0; i < y.size(); ++i) {
      if (std::isnan(y[i])) continue;
      EXPECT_GE(y[i], -1.0f) << c.name << " " << i;
      EXPECT_LE(y[i], 2.0f) << c.name << " " << i;
    }
    // The NaN pixel (channel 0, centre) reaches channel 0's centre output.
    EXPECT_TRUE(std::isnan(y[4])) << c.name;
    if (std::string(c.name) == "depthwise, inf weight") {
      // inf * 0 at the padded top-left tap of output (0, 0): NaN, as ONNX.
      EXPECT_TRUE(std::isnan(y[0])) << c.name;
    }
  }
}

// The converter's residual (input 3) is added to the finished output, then
// the activation: channel 0 is x + 0.5, channel 1 is -x + 0.25, plus the
// residual, under Relu and HardSwish.
TEST(ConvTest, FusedResidualComesBeforeTheActivation) {
  for (const char* activation : {"Relu", "HardSwish"}) {
    auto out = OpTester("Conv")
                   .Input<float>({1, 1, 1, 2}, {1, -1})
                   .Input<float>({2, 1, 1, 1}, {1, -1})
                   .Input<float>({2}, {0.5f, 0.25f})
                   .RuntimeInput<float>({1, 2, 1, 2}, {2, -4, 1, 8})
                   .Attr("fused_activation", std::string(activation))
                   .Run();
    ASSERT_TRUE(out.ok()) << out.status();
    const std::vector<float> sums = {3.5f, -4.5f, 0.25f, 9.25f};
    std::vector<float> expected;
    for (float v : sums) {
      expected.push_back(std::string(activation) == "Relu"
                             ? std::max(v, 0.0f)
                             : v * std::clamp(v / 6 + 0.5f, 0.0f, 1.0f));
    }
    EXPECT_EQ(Values<float>((*out)[0]), expected) << activation;
  }
  auto wrong = OpTester("Conv")
                   .Input<float>({1, 1, 1, 2}, {1, -1})
                   .Input<float>({2, 1, 1, 1}, {1, -1})
                   .AbsentInput()
                   .RuntimeInput<float>({1, 2, 2, 1}, {2, -4, 1, 8})
                   .Run();
  EXPECT_THAT(std::string(wrong.status().message()),
              HasSubstr("the fused residual (input 3) must be float32 of the "
                        "output's shape [1,2,1,2], got float32 [1,2,2,1]"));
}

TEST(ConvTest, ReportsBadGeometry) {
  auto out = OpTester("Conv")
                 .Input<float>({1, 3, 5, 5}, Random(75, 1))
                 .Input<float>({4, 2, 3, 3}, Random(72, 1))
                 .Run();
  EXPECT_THAT(out.status().message(), HasSubstr("expects 2 input channels"));
  out = OpTester("Conv")
            .Input<float>({1, 4, 5, 5}, Random(100, 1))
            .Input<float>({4, 2, 3, 3}, Random(72, 1))
            .Attr("group", int64_t{3})
            .Run();
  EXPECT_THAT(out.status().message(), HasSubstr("group 3 must divide"));
  out = OpTester("Conv")
            .Input<float>({1, 1, 2, 2}, Random(4, 1))
            .Input<float>({1, 1, 3, 3}, Random(9, 1))
            .Run();
  EXPECT_THAT(out.status().message(),
              HasSubstr("output spatial dimension 0 would be 0"));
  out = OpTester("Conv")
            .Input<float>({1, 1, 5, 5}, Random(25, 1))
            .Input<float>({1, 1, 3, 3}, Random(9, 1))
            .Attr("strides", std::vector<int64_t>{1})
            .Run();
  EXPECT_THAT(out.status().message(),
              HasSubstr("strides has 1 values, expected 2"));
  out = OpTester("Conv")
            .Input<float>({1, 1, 5, 5}, Random(25, 1))
            .Input<float>({1, 1, 3, 3}, Random(9, 1))
            .Input<float>({2}, {0, 0})
            .Run();
  EXPECT_THAT(out.status().message(), HasSubstr("bias B must have shape [1]"));
}

// Scatter reference in double: every input pixel adds W * x to the outputs
// its kernel taps reach.
std::vector<double> ReferenceConvTranspose2D(
    int64_t n, int64_t c, int64_t h, int64_t w, int64_t m, int64_t group,
    int64_t kh, int64_t kw, int64_t s, int64_t d, int64_t pad, int64_t oh,
    int64_t ow, const std::vector<float>& x, const std::vector<float>& wt,
    const std::vector<float>& bias) {
  std::vector<double> y(n * m * oh * ow);
  const int64_t cg = c / group, mg = m / group;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t o = 0; o < m; ++o)
      for (int64_t i = 0; i < oh * ow; ++i)
        y[(b * m + o) * oh * ow + i] = bias.empty() ? 0 : bias[o];
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ci = 0; ci < c; ++ci) {
      const int64_t g = ci / cg;
      for (int64_t iy = 0; iy < h; ++iy)
        for (int64_t ix = 0; ix < w; ++ix)
          for (int64_t mo = 0; mo < mg; ++mo)
            for (int64_t ky = 0; ky < kh; ++ky)
              for (int64_t kx = 0; kx < kw; ++kx) {
                const int64_t yy = iy * s - pad + ky * d;
                const int64_t xx = ix * s - pad + kx * d;
                if (yy < 0 || yy >= oh || xx < 0 || xx >= ow) continue;
                y[((b * m + g * mg + mo) * oh + yy) * ow + xx] +=
                    double(x[((b * c + ci) * h + iy) * w + ix]) *
                    wt[((ci * mg + mo) * kh + ky) * kw + kx];
              }
    }
  return y;
}

TEST(ConvTransposeTest, SweepsStridesDilationsPadsGroupsAgainstScatter) {
  struct Case {
    int64_t n, c, h, w, m, group, kh, kw, s, d, pad;
  };
  for (const Case& p : {Case{1, 3, 4, 5, 2, 1, 3, 3, 1, 1, 0},
                        Case{2, 4, 3, 3, 6, 2, 2, 2, 2, 1, 0},  // Paddle 2x up
                        Case{1, 2, 5, 4, 2, 1, 3, 2, 2, 2, 1},
                        Case{1, 4, 3, 3, 4, 4, 3, 3, 3, 1, 1}}) {
    const int64_t oh = p.s * (p.h - 1) + (p.kh - 1) * p.d + 1 - 2 * p.pad;
    const int64_t ow = p.s * (p.w - 1) + (p.kw - 1) * p.d + 1 - 2 * p.pad;
    const auto x = Random(p.n * p.c * p.h * p.w, 4);
    const auto wt = Random(p.c * (p.m / p.group) * p.kh * p.kw, 5);
    const auto bias = Random(p.m, 6);
    OpTester tester("ConvTranspose");
    tester.Input<float>({p.n, p.c, p.h, p.w}, x)
        .Input<float>({p.c, p.m / p.group, p.kh, p.kw}, wt)
        .Input<float>({p.m}, bias)
        .Attr("group", p.group)
        .Attr("strides", std::vector<int64_t>{p.s, p.s})
        .Attr("dilations", std::vector<int64_t>{p.d, p.d})
        .Attr("pads", std::vector<int64_t>{p.pad, p.pad, p.pad, p.pad});
    auto out = tester.Run();
    ASSERT_TRUE(out.ok()) << out.status();
    ASSERT_EQ((*out)[0].shape(), Shape({p.n, p.m, oh, ow}));
    const auto want =
        ReferenceConvTranspose2D(p.n, p.c, p.h, p.w, p.m, p.group, p.kh, p.kw,
                                 p.s, p.d, p.pad, oh, ow, x, wt, bias);
    const std::vector<float> got = Values<float>((*out)[0]);
    for (size_t i = 0; i < want.size(); ++i)
      EXPECT_NEAR(got[i], want[i], 1e-5) << i;
  }
}

TEST(ConvTransposeTest, OutputShapeAndOutputPaddingAndErrors) {
  auto out = OpTester("ConvTranspose")
                 .Input<float>({1, 1, 3, 3}, Random(9, 1))
                 .Input<float>({1, 2, 3, 3}, Random(18, 2))
                 .Attr("strides", std::vector<int64_t>{3, 2})
                 .Attr("output_padding", std::vector<int64_t>{1, 1})
                 .InferOutputs();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape, Shape({1, 2, 10, 8}));
  out = OpTester("ConvTranspose")
            .Input<float>({1, 1, 3, 3}, Random(9, 1))
            .Input<float>({1, 2, 3, 3}, Random(18, 2))
            .Attr("strides", std::vector<int64_t>{3, 2})
            .Attr("output_shape", std::vector<int64_t>{10, 8})
            .InferOutputs();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape, Shape({1, 2, 10, 8}));
  out = OpTester("ConvTranspose")
            .Input<float>({1, 2, 3, 3}, Random(18, 1))
            .Input<float>({1, 2, 3, 3}, Random(18, 2))
            .InferOutputs();
  EXPECT_THAT(out.status().message(), HasSubstr("must be [C=2"));
  out = OpTester("ConvTranspose")
            .Input<float>({1, 1, 3, 3}, Random(9, 1))
            .Input<float>({1, 1, 3, 3}, Random(9, 2))
            .Attr("pads", std::vector<int64_t>{3, 3, 3, 3})
            .InferOutputs();
  EXPECT_THAT(out.status().message(),
              HasSubstr("output spatial dimension 0 would be -1"));
}

}  // namespace
}  // namespace acldump
