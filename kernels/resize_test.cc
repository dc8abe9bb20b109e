// Resize and Upsample against hand-computed values (the ONNX node tests in
// //runtime/conformance cover every mode against the ONNX reference).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "kernels/testing/op_tester.h"
#include "kernels/testing/test_values.h"

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
