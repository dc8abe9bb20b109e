// Resize and Upsample against hand-computed values (the ONNX node tests in
// //runtime/conformance cover every mode against the ONNX reference).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "kernels/testing/op_tester.h"
#include "kernels/testing/test_values.h"
#include "kernels/threading.h"

namespace acldump {
namespace {

using ::acldump::testing::Message;
using ::acldump::testing::OpTester;
using ::acldump::testing::Values;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(ResizeTest, NearestAsymmetricFloorDoublesLikePaddleUpsampling) {
  OpTester t("Resize");
  t.Input<float>({1, 1, 2, 2}, {1, 2, 3, 4})
      .AbsentInput()
      .Input<float>({4}, {1, 1, 2, 2})
      .Attr("mode", std::string("nearest"))
      .Attr("coordinate_transformation_mode", std::string("asymmetric"))
      .Attr("nearest_mode", std::string("floor"));
  auto out = t.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), Shape({1, 1, 4, 4}));
  EXPECT_THAT(Values<float>((*out)[0]),
              ElementsAre(1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4));
}

TEST(ResizeTest, LinearHalfPixelClampsAtTheEdges) {
  OpTester t("Resize");
  t.Input<float>({1, 2}, {10, 20})
      .AbsentInput()
      .AbsentInput()
      .Input<int64_t>({2}, {1, 4})
      .Attr("mode", std::string("linear"));
  auto out = t.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Values<float>((*out)[0]), ElementsAre(10, 12.5, 17.5, 20));
}

TEST(ResizeTest, NanReachesOnlyTheOutputsItContributesTo) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  OpTester t("Resize");
  // Upsampling x2, asymmetric: even outputs sit exactly on an input (the
  // zero-weight neighbour is not read), odd ones lie between two.
  t.Input<float>({3}, {1, nan, 3})
      .AbsentInput()
      .Input<float>({1}, {2})
      .Attr("mode", std::string("linear"))
      .Attr("coordinate_transformation_mode", std::string("asymmetric"));
  auto out = t.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  const std::vector<float> y = Values<float>((*out)[0]);
  ASSERT_EQ(y.size(), 6u);
  // x_original = o / 2: 0, .5, 1, 1.5, 2, 2.5 (clamped to 2).
  EXPECT_EQ(y[0], 1);
  EXPECT_TRUE(std::isnan(y[1]) && std::isnan(y[2]) && std::isnan(y[3]));
  EXPECT_EQ(y[4], 3);
  EXPECT_EQ(y[5], 3);
}

TEST(ResizeTest, CropAndResizeExtrapolatesOutsideTheRoi) {
  OpTester t("Resize");
  t.Input<float>({1, 2}, {1, 2})
      .Input<float>({4}, {0, -1, 1, 1})
      .AbsentInput()
      .Input<int64_t>({2}, {1, 3})
      .Attr("mode", std::string("linear"))
      .Attr("coordinate_transformation_mode", std::string("tf_crop_and_resize"))
      .Attr("extrapolation_value", 9.0f);
  auto out = t.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  // x_original = -1, 0, 1 along the last axis.
  EXPECT_THAT(Values<float>((*out)[0]), ElementsAre(9, 1, 2));
}

// Float32 images (only the last two axes resized) take a path that
// interpolates each input row once per plane, on the intra-op threads: its
// values are the generic path's bits, which float64 inputs still take (their
// sums are the same doubles, only rounded once more at the end).
TEST(ResizeTest, PlanarFloat32PathGivesTheGenericPathsBits) {
  struct Case {
    const char* mode;
    const char* transform;
    std::vector<int64_t> sizes;
    int64_t exclude_outside;
  };
  const Case cases[] = {
      {"linear", "half_pixel", {2, 3, 40, 24}, 0},  // upsample, not integral
      {"linear", "align_corners", {2, 3, 13, 17}, 0},
      {"linear", "pytorch_half_pixel", {2, 3, 5, 1}, 0},  // down, one column
      {"linear", "asymmetric", {2, 3, 16, 32}, 0},        // exact x2 / x4
      {"cubic", "half_pixel", {2, 3, 21, 9}, 0},
      {"cubic", "half_pixel", {2, 3, 21, 9}, 1},
  };
  std::mt19937 rng(3);
  std::normal_distribution<float> dist(0, 3);
  std::vector<float> x(2 * 3 * 10 * 8);
  for (float& v : x) v = dist(rng);
  x[17] = std::numeric_limits<float>::quiet_NaN();
  x[200] = std::numeric_limits<float>::infinity();
  x[301] = -std::numeric_limits<float>::infinity();
  const std::vector<double> wide(x.begin(), x.end());
  for (const Case& c : cases) {
    SCOPED_TRACE(::testing::Message() << c.mode << " " << c.transform << " "
                                      << c.sizes[2] << "x" << c.sizes[3]);
    for (int threads : {1, 2}) {
      ScopedIntraOpThreads scope(threads);
      auto tester = [&](auto values) {
        using T = typename decltype(values)::value_type;
        OpTester t("Resize");
        t.Input<T>({2, 3, 10, 8}, values);
        t.AbsentInput()
            .AbsentInput()
            .Input<int64_t>({4}, c.sizes)
            .Attr("mode", std::string(c.mode))
            .Attr("coordinate_transformation_mode", std::string(c.transform))
            .Attr("exclude_outside", c.exclude_outside);
        return t;
      };
      // The comparison means something only if each took its own path.
      auto path = [](const OpTester& t) {
        auto params = t.LaunchParams();
        if (!params.ok()) return std::string(params.status().message());
        for (const auto& [key, value] : *params) {
          if (key == "path") return value;
        }
        return std::string("no path parameter");
      };
      EXPECT_EQ(path(tester(x)), "planar");
      EXPECT_EQ(path(tester(wide)), "interpolate");
      auto planar = tester(x).Run();
      auto generic = tester(wide).Run();
      ASSERT_TRUE(planar.ok()) << planar.status();
      ASSERT_TRUE(generic.ok()) << generic.status();
      const std::vector<float> got = Values<float>((*planar)[0]);
      const std::vector<double> want = Values<double>((*generic)[0]);
      ASSERT_EQ(got.size(), want.size());
      size_t nan = 0;
      for (size_t i = 0; i < got.size(); ++i) {
        const float expected = static_cast<float>(want[i]);
        nan += std::isnan(expected);
        ASSERT_EQ(std::memcmp(&got[i], &expected, 4), 0)
            << i << ": " << got[i] << " vs " << expected;
      }
      // Upsampled, the NaN reaches the outputs it feeds.
      if (c.sizes[2] >= 10) EXPECT_GT(nan, 0u);
    }
  }
}

TEST(ResizeTest, UpsampleNearestRepeats) {
  OpTester t("Upsample");
  t.Input<int32_t>({1, 2}, {5, 6}).Input<float>({2}, {2, 2});
  auto out = t.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), Shape({2, 4}));
  EXPECT_THAT(Values<int32_t>((*out)[0]), ElementsAre(5, 5, 6, 6, 5, 5, 6, 6));
}

TEST(ResizeTest, BadArgumentsAreErrors) {
  {
    OpTester t("Resize");
    t.Input<float>({1, 2}, {1, 2})
        .AbsentInput()
        .Input<float>({2}, {1, 2})
        .Input<int64_t>({2}, {1, 4});
    EXPECT_THAT(Message(t.Run().status()),
                HasSubstr("only one of 'scales' and 'sizes'"));
  }
  {
    OpTester t("Resize");
    t.Input<float>({1, 2}, {1, 2})
        .AbsentInput()
        .RuntimeInput<float>({2}, {1, 2});
    EXPECT_THAT(Message(t.Run().status()),
                HasSubstr("must be known before execution"));
  }
  {
    OpTester t("Resize");
    t.Input<float>({1, 2}, {1, 2}).AbsentInput().Input<float>({2}, {1, -2});
    EXPECT_THAT(Message(t.Run().status()), HasSubstr("must be positive"));
  }
  {
    OpTester t("Resize");
    t.Input<float>({1, 2}, {1, 2})
        .AbsentInput()
        .Input<float>({2}, {1, 2})
        .Attr("mode", std::string("area"));
    EXPECT_THAT(Message(t.Run().status()), HasSubstr("mode 'area'"));
  }
}

}  // namespace
}  // namespace acldump
