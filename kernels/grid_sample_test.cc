// GridSample on hand-checked grids (the ONNX node tests cover the modes and
// paddings on random data), and coordinates no image has.
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
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// A 2x3 image, values 1..6.
const std::vector<float> kImage = {1, 2, 3, 4, 5, 6};

std::vector<float> Sample(const std::vector<float>& grid, int64_t points,
                          const std::string& mode, const std::string& padding,
                          bool align_corners) {
  OpTester t("GridSample");
  t.Input<float>({1, 1, 2, 3}, kImage)
      .Input<float>({1, 1, points, 2}, grid)
      .Attr("mode", mode)
      .Attr("padding_mode", padding)
      .Attr("align_corners", int64_t{align_corners});
  auto out = t.Run();
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? Values<float>((*out)[0]) : std::vector<float>{};
}

TEST(GridSampleTest, CornersAndCentreWithAlignedCorners) {
  // (-1,-1) is pixel (0,0); (1,1) pixel (1,2); (0,0) halfway: 3.5.
  EXPECT_THAT(Sample({-1, -1, 1, 1, 0, 0}, 3, "bilinear", "zeros", true),
              ElementsAre(1, 6, 3.5f));
}

TEST(GridSampleTest, PaddingModesOutsideTheImage) {
  // x = 3 (pixel column 4 with aligned corners), y = -1: row 0.
  const std::vector<float> outside = {3, -1};
  EXPECT_THAT(Sample(outside, 1, "nearest", "zeros", true), ElementsAre(0));
  EXPECT_THAT(Sample(outside, 1, "nearest", "border", true), ElementsAre(3));
  // Reflected about column 2: column 4 -> 0.
  EXPECT_THAT(Sample(outside, 1, "nearest", "reflection", true),
              ElementsAre(1));
}

TEST(GridSampleTest, NearestRoundsHalfToEven) {
  // x = -0.5 -> column 0.5 -> 0 (even); x = 0.5 -> column 1.5 -> 2.
  EXPECT_THAT(Sample({-0.5f, -1, 0.5f, -1}, 2, "nearest", "zeros", true),
              ElementsAre(1, 3));
}

TEST(GridSampleTest, NanAndInfiniteCoordinates) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const auto y =
      Sample({nan, 0, inf, -1, -inf, 1e30f}, 3, "bilinear", "border", false);
  ASSERT_EQ(y.size(), 3u);
  EXPECT_TRUE(std::isnan(y[0]));
  // Far right of row 0 is its last pixel; far left of row 1 its first.
  EXPECT_FLOAT_EQ(y[1], 3);
  EXPECT_FLOAT_EQ(y[2], 4);
  EXPECT_THAT(Sample({1e30f, 0}, 1, "bicubic", "zeros", false), ElementsAre(0));
  EXPECT_TRUE(
      std::isnan(Sample({0, nan}, 1, "bicubic", "reflection", true)[0]));
}

TEST(GridSampleTest, ReflectionOnAOnePixelWideImage) {
  OpTester t("GridSample");
  t.Input<float>({1, 1, 1, 1}, {7})
      .Input<float>({1, 1, 2, 2}, {5, -3, 0.25f, 100})
      .Attr("mode", std::string("bicubic"))
      .Attr("padding_mode", std::string("reflection"))
      .Attr("align_corners", int64_t{1});
  auto out = t.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  for (float v : Values<float>((*out)[0])) EXPECT_FLOAT_EQ(v, 7);
}

TEST(GridSampleTest, BadAttributesAndShapesAreNamed) {
  OpTester mode("GridSample");
  mode.Input<float>({1, 1, 2, 3}, kImage)
      .Input<float>({1, 1, 1, 2}, {0, 0})
      .Attr("mode", std::string("area"));
  auto out = mode.Run();
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("mode 'area' is not one of"));
  OpTester grid("GridSample");
  grid.Input<float>({1, 1, 2, 3}, kImage).Input<float>({1, 1, 2}, {0, 0});
  out = grid.Run();
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(
      std::string(out.status().message()),
      HasSubstr("grid has shape [1,1,2]; expected [1, H_out, W_out, 2]"));
}

}  // namespace
}  // namespace acldump
