// DFT, STFT and the windows on values known in closed form (the ONNX node
// tests compare them with numpy.fft on ramps).
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kernels/testing/op_tester.h"

namespace acldump {
namespace {

using ::acldump::testing::OpTester;
using ::acldump::testing::Values;
using ::testing::DoubleNear;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pointwise;

TEST(SignalTest, DftOfThreeSamplesAndItsInverse) {
  // [1, 2, 3]: X0 = 6, X1 = -1.5 + (sqrt(3)/2) i, X2 = its conjugate.
  OpTester t("DFT");
  t.Input<double>({1, 3, 1}, {1, 2, 3});
  auto out = t.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  const double h = std::sqrt(3.0) / 2;
  const std::vector<double> spectrum = {6, 0, -1.5, h, -1.5, -h};
  EXPECT_THAT(Values<double>((*out)[0]),
              Pointwise(DoubleNear(1e-12), spectrum));
  OpTester back("DFT");
  back.Input<double>({1, 3, 2}, spectrum).Attr("inverse", int64_t{1});
  out = back.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(
      Values<double>((*out)[0]),
      Pointwise(DoubleNear(1e-12), std::vector<double>{1, 0, 2, 0, 3, 0}));
}

TEST(SignalTest, DftPadsToDftLengthAndKeepsOneSide) {
  // An impulse padded to 8 samples: every bin is 1; one-sided keeps 5.
  OpTester t("DFT");
  t.Input<float>({1, 2, 1}, {1, 0})
      .Input<int64_t>({}, {8})
      .Attr("onesided", int64_t{1});
  auto out = t.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT((*out)[0].shape().dims(), ElementsAre(1, 5, 2));
  EXPECT_THAT(Values<float>((*out)[0]),
              ElementsAre(1, 0, 1, 0, 1, 0, 1, 0, 1, 0));
}

TEST(SignalTest, NanSpreadsToEveryBin) {
  OpTester t("DFT");
  t.Input<float>({1, 4, 1}, {1, std::numeric_limits<float>::quiet_NaN(), 0, 0});
  auto out = t.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  for (float v : Values<float>((*out)[0])) EXPECT_TRUE(std::isnan(v));
}

TEST(SignalTest, StftFramesTheSignal) {
  // Frames of 2 every 2 samples of [1, 1, 2, 2]: DC bins 2 and 4, the
  // Nyquist bins 0.
  OpTester t("STFT");
  t.Input<float>({1, 4, 1}, {1, 1, 2, 2})
      .Input<int64_t>({}, {2})
      .AbsentInput()
      .Input<int64_t>({}, {2});
  auto out = t.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT((*out)[0].shape().dims(), ElementsAre(1, 2, 2, 2));
  EXPECT_THAT(Values<float>((*out)[0]), ElementsAre(2, 0, 0, 0, 4, 0, 0, 0));
}

TEST(SignalTest, WindowsPeriodicAndSymmetric) {
  OpTester hann("HannWindow");
  hann.Input<int64_t>({}, {4});
  auto out = hann.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Values<float>((*out)[0]),
              Pointwise(DoubleNear(1e-7), std::vector<double>{0, 0.5, 1, 0.5}));
  OpTester symmetric("BlackmanWindow");
  symmetric.Input<int64_t>({}, {3}).Attr("periodic", int64_t{0});
  out = symmetric.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Values<float>((*out)[0]),
              Pointwise(DoubleNear(1e-7), std::vector<double>{0, 1, 0}));
}

TEST(SignalTest, BadFramesAreNamed) {
  OpTester t("STFT");
  t.Input<float>({1, 4, 1}, {1, 1, 2, 2})
      .Input<int64_t>({}, {2})
      .Input<float>({3}, {1, 1, 1})
      .Input<int64_t>({}, {2});
  auto out = t.Run();
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("frame_length is 2 but the window has 3 values"));
  OpTester mel("MelWeightMatrix");
  mel.Input<int32_t>({}, {8})
      .Input<int32_t>({}, {16})
      .Input<int32_t>({}, {8192})
      .Input<float>({}, {0})
      .Input<float>({}, {8192});
  out = mel.Run();
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("upper_edge_hertz is above sample_rate / 2"));
}

}  // namespace
}  // namespace acldump
