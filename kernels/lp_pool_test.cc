// LpPool against windows summed by hand.
#include <cmath>
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
using ::testing::FloatNear;
using ::testing::HasSubstr;
using ::testing::Pointwise;

TEST(LpPoolTest, TwoNormOfEachWindowWithPadding) {
  // 1-D [3, -4, 12], windows of 2, stride 1, one pad at each end:
  // [0, 3] [3, -4] [-4, 12] [12, 0].
  OpTester t("LpPool");
  t.Input<float>({1, 1, 3}, {3, -4, 12})
      .Attr("kernel_shape", std::vector<int64_t>{2})
      .Attr("pads", std::vector<int64_t>{1, 1});
  auto out = t.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Values<float>((*out)[0]),
              Pointwise(FloatNear(1e-5),
                        std::vector<float>{3, 5, std::sqrt(160.0f), 12}));
}

TEST(LpPoolTest, OneNormOverA2DWindowWithStrides) {
  OpTester t("LpPool");
  t.Input<double>({1, 1, 2, 4}, {1, -2, 3, -4, 5, -6, 7, -8})
      .Attr("kernel_shape", std::vector<int64_t>{2, 2})
      .Attr("strides", std::vector<int64_t>{2, 2})
      .Attr("p", int64_t{1});
  auto out = t.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Values<double>((*out)[0]), ElementsAre(14, 22));
}

TEST(LpPoolTest, CeilModeKeepsAPartialLastWindow) {
  OpTester t("LpPool");
  t.Input<float>({1, 1, 5}, {1, 1, 1, 1, 2})
      .Attr("kernel_shape", std::vector<int64_t>{2})
      .Attr("strides", std::vector<int64_t>{2})
      .Attr("ceil_mode", int64_t{1})
      .Attr("p", int64_t{1});
  auto out = t.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Values<float>((*out)[0]), ElementsAre(2, 2, 2));
}

TEST(LpPoolTest, MissingKernelShapeIsNamed) {
  OpTester t("LpPool");
  t.Input<float>({1, 1, 3}, {1, 2, 3});
  auto out = t.Run();
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("kernel_shape is required"));
}

}  // namespace
}  // namespace acldump
