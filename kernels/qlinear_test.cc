// ONNX Runtime's quantized operators against ONNX Runtime itself: the
// expected values are what onnxruntime 1.30 (CPU, x86-64 with AVX2) computed
// for the same inputs with its com.microsoft kernels.
#include <cstdint>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kernels/testing/op_tester.h"

namespace acldump {
namespace {

using ::acldump::testing::OpTester;
using ::acldump::testing::Values;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

TEST(QLinearTest, AddMatchesOnnxRuntime) {
  // 37 values: whole vectors of 32 and a tail, zero points everywhere, and
  // sums that saturate at 255.
  const std::vector<uint8_t> a = {
      139, 74,  229, 241, 169, 65, 6,   160, 149, 106, 38,  175, 188,
      205, 175, 229, 98,  249, 10, 148, 95,  86,  147, 198, 66,  39,
      106, 213, 171, 45,  167, 57, 69,  81,  55,  14,  153};
  const std::vector<uint8_t> b = {
      52,  39, 250, 72,  215, 50,  161, 223, 112, 172, 161, 233, 38,
      17,  89, 1,   221, 6,   242, 127, 143, 6,   60,  210, 94,  25,
      166, 33, 249, 189, 12,  204, 33,  57,  124, 30,  199};
  OpTester t("QLinearAdd");
  t.Input<uint8_t>({37}, a)
      .Input<float>({}, {0.0371f})
      .Input<uint8_t>({}, {121})
      .Input<uint8_t>({37}, b)
      .Input<float>({}, {0.0913f})
      .Input<uint8_t>({}, {37})
      .Input<float>({}, {0.1187f})
      .Input<uint8_t>({}, {99});
  auto out = t.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(
      Values<uint8_t>((*out)[0]),
      ElementsAreArray<uint8_t>(
          {116, 86,  255, 163, 251, 91,  158, 254, 165, 198, 168, 255, 121,
           110, 156, 105, 233, 115, 222, 177, 172, 64,  125, 255, 126, 64,
           194, 125, 255, 192, 94,  207, 80,  102, 145, 60,  234}));
}

TEST(QLinearTest, AddOutOfInt32RangeGivesTheLowEndAsX86Converts) {
  // int8, 40 values (whole vectors and a tail): sums of 1e9 times 3 or
  // -3 are past int32 either way, and the x86 conversion gives INT32_MIN,
  // so -128; the small ones round half to even.
  std::vector<int8_t> a(40), b(40, 0);
  for (size_t i = 0; i < a.size(); ++i) a[i] = i % 2 == 0 ? 3 : -3;
  a[39] = 0;
  OpTester t("QLinearAdd");
  t.Input<int8_t>({40}, a)
      .Input<float>({}, {1e9f})
      .Input<int8_t>({}, {0})
      .Input<int8_t>({40}, b)
      .Input<float>({}, {2.5f})
      .Input<int8_t>({}, {-1})
      .Input<float>({}, {1.0f})
      .Input<int8_t>({}, {0});
  auto out = t.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  std::vector<int8_t> want(40, -128);
  // a 0: b's (0 - -1) * 2.5 = 2.5, half to even: 2.
  want[39] = 2;
  EXPECT_THAT(Values<int8_t>((*out)[0]), ElementsAreArray(want));
}

TEST(QLinearTest, AddOfOneValueMatchesOnnxRuntime) {
  OpTester t("QLinearAdd");
  t.Input<int8_t>({19}, {-56, 92, -125, 81, -6, 8, 19, -51, 5, -46, -13, -41,
                         34, 102, -58, -57, 112, -66, -81})
      .Input<float>({}, {0.02f})
      .Input<int8_t>({}, {-5})
      .Input<int8_t>({1}, {77})
      .Input<float>({}, {0.07f})
      .Input<int8_t>({}, {3})
      .Input<float>({}, {0.031f})
      .Input<int8_t>({}, {-20});
  auto out = t.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(
      Values<int8_t>((*out)[0]),
      ElementsAreArray<int8_t>({114, 127, 70, 127, 127, 127, 127, 117, 127, 121,
                                127, 124, 127, 127, 113, 114, 127, 108, 98}));
}

TEST(QLinearTest, AddRefusesOtherBroadcastsAndMixedTypes) {
  OpTester t("QLinearAdd");
  t.Input<uint8_t>({2, 3}, {1, 2, 3, 4, 5, 6})
      .Input<float>({}, {1.0f})
      .Input<uint8_t>({}, {0})
      .Input<uint8_t>({3}, {1, 2, 3})
      .Input<float>({}, {1.0f})
      .Input<uint8_t>({}, {0})
      .Input<float>({}, {1.0f})
      .Input<uint8_t>({}, {0});
  auto out = t.Run();
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(), HasSubstr("only equal shapes"));

  OpTester mixed("QLinearAdd");
  mixed.Input<uint8_t>({1}, {1})
      .Input<float>({}, {1.0f})
      .Input<uint8_t>({}, {0})
      .Input<int8_t>({1}, {1})
      .Input<float>({}, {1.0f})
      .Input<int8_t>({}, {0})
      .Input<float>({}, {1.0f})
      .Input<uint8_t>({}, {0});
  out = mixed.Run();
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(), HasSubstr("must have A's type"));

  // One value of larger rank would widen the output's shape.
  OpTester wider("QLinearAdd");
  wider.Input<uint8_t>({3}, {1, 2, 3})
      .Input<float>({}, {1.0f})
      .Input<uint8_t>({}, {0})
      .Input<uint8_t>({1, 1}, {1})
      .Input<float>({}, {1.0f})
      .Input<uint8_t>({}, {0})
      .Input<float>({}, {1.0f})
      .Input<uint8_t>({}, {0});
  out = wider.Run();
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(), HasSubstr("only equal shapes"));
}

TEST(QLinearTest, GlobalAveragePoolMatchesOnnxRuntime) {
  const std::vector<uint8_t> x = {
      31,  34,  63,  65,  146, 197, 142, 253, 81,  133, 240, 113, 30,  247, 103,
      122, 31,  19,  42,  129, 141, 136, 33,  149, 161, 0,   178, 141, 107, 35,
      107, 130, 72,  27,  217, 254, 99,  13,  195, 206, 59,  228, 235, 202, 183,
      47,  69,  179, 82,  35,  71,  159, 110, 121, 77,  87,  3,   126, 44,  253,
      233, 225, 90,  119, 137, 120, 30,  55,  33,  165, 87,  216, 229, 167, 3,
      41,  109, 203, 129, 219, 63,  101, 207, 156, 27,  220, 93,  29,  143, 200,
      63,  11,  11,  180, 219, 113, 190, 87,  34,  9,   133, 29,  61,  36,  244,
      192, 207, 131, 254, 67,  99,  248, 47,  71,  89,  119, 137, 85,  246, 206,
      214, 129, 203, 234, 113, 121, 206, 210, 200, 248, 20,  161, 52,  114, 255,
      112, 206, 54,  157, 131, 133, 69,  42,  68,  243, 24,  51,  127, 8,   205,
      30,  97,  79,  35,  93,  63,  131, 188, 69,  254, 233, 238, 4,   3,   167,
      155, 225, 24,  84,  68,  65,  49,  124, 147, 17,  248, 94,  4,   41,  177,
      159, 126, 192, 225, 86,  246, 90,  51,  34,  231, 145, 184, 128, 238, 153,
      94,  63,  13,  48,  125, 47,  186, 244, 0,   105, 58,  23,  158, 13,  2};
  OpTester t("QLinearGlobalAveragePool");
  t.Input<uint8_t>({2, 3, 5, 7}, x)
      .Input<float>({}, {0.0517f})
      .Input<uint8_t>({}, {131})
      .Input<float>({}, {0.0123f})
      .Input<uint8_t>({}, {117})
      .Attr("channels_last", int64_t{0});
  auto out = t.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), Shape({2, 3, 1, 1}));
  EXPECT_THAT(Values<uint8_t>((*out)[0]),
              ElementsAreArray<uint8_t>({29, 88, 54, 207, 0, 50}));
}

TEST(QLinearTest, GlobalAveragePoolChannelsLastAgreesWithChannelsFirst) {
  // The same [1, 2, 2, 3] values laid out [N, H, W, C] give the same means.
  const std::vector<uint8_t> nchw = {10, 20, 30, 40,  50,  60,
                                     70, 80, 90, 100, 110, 120};
  std::vector<uint8_t> nhwc(12);
  for (int c = 0; c < 3; ++c)
    for (int p = 0; p < 4; ++p) nhwc[p * 3 + c] = nchw[c * 4 + p];
  auto run = [](const std::vector<int64_t>& dims, const std::vector<uint8_t>& x,
                int64_t last) {
    OpTester t("QLinearGlobalAveragePool");
    t.Input<uint8_t>(Shape(dims), x)
        .Input<float>({}, {0.5f})
        .Input<uint8_t>({}, {5})
        .Input<float>({}, {0.25f})
        .Input<uint8_t>({}, {1})
        .Attr("channels_last", last);
    return t.Run();
  };
  auto first = run({1, 3, 2, 2}, nchw, 0);
  auto last = run({1, 2, 2, 3}, nhwc, 1);
  ASSERT_TRUE(first.ok()) << first.status();
  ASSERT_TRUE(last.ok()) << last.status();
  // (mean - 5) * 0.5 / 0.25 + 1: means 25, 65, 105.
  EXPECT_THAT(Values<uint8_t>((*first)[0]),
              ElementsAreArray<uint8_t>({41, 121, 201}));
  EXPECT_THAT(Values<uint8_t>((*last)[0]),
              ElementsAreArray<uint8_t>({41, 121, 201}));
  EXPECT_EQ((*last)[0].shape(), Shape({1, 1, 1, 3}));
}

TEST(QLinearTest, AveragePoolMatchesOnnxRuntime) {
  // 3x3 windows, stride 2, one value of padding: windows at the border hold
  // 4 or 6 values, counted with (count_include_pad) or without the padding.
  const std::vector<uint8_t> x = {
      78,  204, 64,  34,  16,  250, 233, 32,  103, 122, 13,  204,
      138, 172, 208, 127, 124, 100, 12,  151, 222, 203, 251, 153,
      211, 235, 80,  182, 176, 41,  88,  7,   141, 241, 73,  124,
      223, 123, 222, 37,  84,  55,  200, 102, 211, 60,  159, 237,
      53,  138, 57,  140, 55,  21,  7,   18,  118, 67,  241, 138};
  const std::vector<std::vector<uint8_t>> expected = {
      {170, 105, 125, 150, 188, 181, 193, 232, 216, 131, 158, 119, 175, 147,
       107, 47, 100, 131},
      {137, 107, 120, 137, 188, 181, 147, 192, 181, 120, 142, 116, 153, 147,
       107, 83, 104, 124}};
  for (int64_t include_pad : {0, 1}) {
    OpTester t("QLinearAveragePool");
    t.Input<uint8_t>({1, 2, 5, 6}, x)
        .Input<float>({}, {0.043f})
        .Input<uint8_t>({}, {97})
        .Input<float>({}, {0.029f})
        .Input<uint8_t>({}, {111})
        .Attr("kernel_shape", std::vector<int64_t>{3, 3})
        .Attr("strides", std::vector<int64_t>{2, 2})
        .Attr("pads", std::vector<int64_t>{1, 1, 1, 1})
        .Attr("count_include_pad", include_pad);
    auto out = t.Run();
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0].shape(), Shape({1, 2, 3, 3}));
    EXPECT_THAT(Values<uint8_t>((*out)[0]),
                ElementsAreArray(expected[include_pad]))
        << "count_include_pad " << include_pad;
  }
}

TEST(QLinearTest, AveragePoolOfPaddingOnlyGivesTheZeroPoint) {
  // A 0x0 image padded by one: the one window holds no value.
  OpTester t("QLinearAveragePool");
  t.Input<uint8_t>({1, 1, 0, 0}, std::vector<uint8_t>{})
      .Input<float>({}, {1.0f})
      .Input<uint8_t>({}, {3})
      .Input<float>({}, {1.0f})
      .Input<uint8_t>({}, {7})
      .Attr("kernel_shape", std::vector<int64_t>{2, 2})
      .Attr("pads", std::vector<int64_t>{1, 1, 1, 1});
  auto out = t.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Values<uint8_t>((*out)[0]), ElementsAreArray<uint8_t>({7}));
}

TEST(QLinearTest, AveragePoolRefusesWhatItDoesNotCompute) {
  OpTester t("QLinearAveragePool");
  t.Input<uint8_t>({1, 1, 4, 4}, std::vector<uint8_t>(16, 1))
      .Input<float>({}, {1.0f})
      .Input<uint8_t>({}, {0})
      .Input<float>({}, {1.0f})
      .Input<uint8_t>({}, {0})
      .Attr("kernel_shape", std::vector<int64_t>{2, 2})
      .Attr("ceil_mode", int64_t{1});
  auto out = t.Run();
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(), HasSubstr("no ceil_mode"));
}

TEST(QLinearTest, QGemmMatchesOnnxRuntime) {
  // |B| <= 63: ONNX Runtime's AVX2 kernels (without VNNI) add pairs of
  // uint8 x int8 products in int16 with saturation, which larger weights
  // reach with these A values; below that its result is the exact one.
  OpTester t("QGemm");
  t.Input<uint8_t>({3, 11},
                   {229, 139, 231, 169, 235, 194, 138, 39,  29,  67,  167,
                    136, 85,  99,  129, 68,  235, 102, 3,   247, 178, 114,
                    93,  225, 31,  230, 172, 47,  136, 166, 129, 130, 134})
      .Input<float>({}, {0.043f})
      .Input<uint8_t>({}, {128})
      .Input<int8_t>(
          {5, 11},
          {21, 43,  47,  44,  -56, -9,  -35, 26,  -53, 0,  34,  17,  -6,  63,
           35, -59, -12, 25,  50,  30,  36,  -43, -36, -4, 3,   -32, -10, -53,
           54, 8,   11,  -33, 35,  -13, 4,   5,   26,  28, -57, 29,  -2,  -18,
           62, 0,   -55, -51, 53,  14,  55,  -52, -56, 47, 42,  -53, 15})
      .Input<float>({5}, {0.004876317922025919f, 0.004230363294482231f,
                          0.002501997398212552f, 0.009163380600512028f,
                          0.004794461652636528f})
      .Input<int8_t>({5}, {0, 0, 0, 0, 0})
      .Input<int32_t>({5}, {-833, 859, 589, -2351, -2645})
      .Input<float>({}, {0.37f})
      .Input<uint8_t>({}, {100})
      .Attr("transB", int64_t{1})
      .Attr("alpha", 1.0f);
  auto out = t.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), Shape({3, 5}));
  EXPECT_THAT(Values<uint8_t>((*out)[0]),
              ElementsAreArray<uint8_t>({103, 96, 98, 95, 97, 94, 100, 98, 89,
                                         92, 101, 99, 101, 107, 99}));
}

TEST(QLinearTest, QGemmWithoutTransposeAgreesWithTransposed) {
  // B [2, 3] given as is and as its transpose with transB: same result.
  const std::vector<int8_t> b = {1, -2, 3, 4, 5, -6};
  const std::vector<int8_t> bt = {1, 4, -2, 5, 3, -6};
  auto run = [](const std::vector<int64_t>& dims, const std::vector<int8_t>& w,
                int64_t trans_b) {
    OpTester t("QGemm");
    t.Input<uint8_t>({1, 2}, {130, 120})
        .Input<float>({}, {0.5f})
        .Input<uint8_t>({}, {128})
        .Input<int8_t>(Shape(dims), w)
        .Input<float>({}, {1.0f})
        .Input<int8_t>({}, {0})
        .AbsentInput()
        .Input<float>({}, {0.5f})
        .Input<int8_t>({}, {0})
        .Attr("transB", trans_b);
    return t.Run();
  };
  auto plain = run({2, 3}, b, 0);
  auto transposed = run({3, 2}, bt, 1);
  ASSERT_TRUE(plain.ok()) << plain.status();
  ASSERT_TRUE(transposed.ok()) << transposed.status();
  // (a - 128) B = [2, -8] B = [-30, -44, 54], times 0.5 * 1 / 0.5.
  EXPECT_THAT(Values<int8_t>((*plain)[0]),
              ElementsAreArray<int8_t>({-30, -44, 54}));
  EXPECT_THAT(Values<int8_t>((*transposed)[0]),
              ElementsAreArray<int8_t>({-30, -44, 54}));
}

TEST(QLinearTest, QGemmAndGlobalPoolRefuseWhatTheyDoNotCompute) {
  auto qgemm = [](int64_t trans_a, bool quantized_output) {
    OpTester t("QGemm");
    t.Input<uint8_t>({1, 2}, {1, 2})
        .Input<float>({}, {1.0f})
        .Input<uint8_t>({}, {0})
        .Input<int8_t>({2, 1}, {1, 1})
        .Input<float>({}, {1.0f})
        .Input<int8_t>({}, {0});
    if (quantized_output) {
      t.AbsentInput().Input<float>({}, {1.0f}).Input<uint8_t>({}, {0});
    }
    t.Attr("transA", trans_a);
    return t.Run();
  };
  auto out = qgemm(1, true);
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(), HasSubstr("transA is not supported"));
  out = qgemm(0, false);
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(), HasSubstr("a float output"));
  out = qgemm(0, true);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Values<uint8_t>((*out)[0]), ElementsAreArray<uint8_t>({3}));

  OpTester pool("QLinearGlobalAveragePool");
  pool.Input<uint8_t>({2, 3}, {1, 2, 3, 4, 5, 6})
      .Input<float>({}, {1.0f})
      .Input<uint8_t>({}, {0})
      .Input<float>({}, {1.0f})
      .Input<uint8_t>({}, {0});
  out = pool.Run();
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(), HasSubstr("at least one spatial"));
}

}  // namespace
}  // namespace acldump
