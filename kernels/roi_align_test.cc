// RoiAlign on an image that is its own x coordinate (bilinear samples of it
// are exact, so each bin's average is the mean of its sample positions); the
// ONNX node tests cover both coordinate modes on real data.
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

// f(y, x) = x on a 4x4 image.
std::vector<float> XRamp() {
  std::vector<float> image(16);
  for (int i = 0; i < 16; ++i) image[i] = static_cast<float>(i % 4);
  return image;
}

std::vector<float> Align(const std::string& mode) {
  OpTester t("RoiAlign");
  t.Input<float>({1, 1, 4, 4}, XRamp())
      .Input<float>({1, 4}, {0, 0, 4, 4})
      .Input<int64_t>({1}, {0})
      .Attr("output_height", int64_t{1})
      .Attr("output_width", int64_t{2})
      .Attr("sampling_ratio", int64_t{2})
      .Attr("mode", mode);
  auto out = t.Run();
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? Values<float>((*out)[0]) : std::vector<float>{};
}

TEST(RoiAlignTest, AverageOfTheSamplesOfEachBin) {
  // half_pixel: the region starts at -0.5, bins 2 wide; samples at x = 0, 1
  // and x = 2, 3.
  EXPECT_THAT(Align("avg"), ElementsAre(0.5f, 2.5f));
}

TEST(RoiAlignTest, MaxIsTheLargestWeightedTap) {
  // The samples sit at y = 0.5 and 2.5, halfway between rows: every tap
  // weighs 0.5, so ONNX Runtime's max is half the largest value.
  EXPECT_THAT(Align("max"), ElementsAre(0.5f, 1.5f));
}

TEST(RoiAlignTest, BadRegionsAreNamed) {
  OpTester index("RoiAlign");
  index.Input<float>({1, 1, 4, 4}, XRamp())
      .Input<float>({1, 4}, {0, 0, 4, 4})
      .RuntimeInput<int64_t>({1}, {1});
  auto out = index.Run();
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("batch_indices[0] is 1; X has 1 images"));
  OpTester rois("RoiAlign");
  rois.Input<float>({1, 1, 4, 4}, XRamp())
      .Input<float>({1, 3}, {0, 0, 4})
      .Input<int64_t>({1}, {0});
  out = rois.Run();
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("rois have shape [1,3]; expected [num_rois, 4]"));
}

}  // namespace
}  // namespace acldump
