// ReverseSequence and MaxUnpool on hand-written cases (the ONNX node tests
// cover their default forms).
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

TEST(ReorderTest, ReverseSequenceBatchMajorWithRowsOfTwo) {
  // [batch 2, time 3, 2]: the first 2 steps of entry 0 and all 3 of entry 1
  // reversed.
  OpTester t("ReverseSequence");
  t.Input<int32_t>({2, 3, 2}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
      .Input<int64_t>({2}, {2, 3})
      .Attr("batch_axis", int64_t{0})
      .Attr("time_axis", int64_t{1});
  auto out = t.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Values<int32_t>((*out)[0]),
              ElementsAre(3, 4, 1, 2, 5, 6, 11, 12, 9, 10, 7, 8));
}

TEST(ReorderTest, MaxUnpoolPlacesValuesAtTheirIndices) {
  OpTester t("MaxUnpool");
  t.Input<float>({1, 1, 1, 2}, {7, 9})
      .Input<int64_t>({1, 1, 1, 2}, {1, 2})
      .Attr("kernel_shape", std::vector<int64_t>{1, 2})
      .Attr("strides", std::vector<int64_t>{1, 2});
  auto out = t.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Values<float>((*out)[0]), ElementsAre(0, 7, 9, 0));
}

TEST(ReorderTest, CenterCropPadCropsAndPadsAroundTheCentre) {
  auto run = [](std::vector<int64_t> shape) {
    OpTester t("CenterCropPad");
    t.Input<float>({5}, {1, 2, 3, 4, 5}).Input<int64_t>({1}, shape);
    auto out = t.Run();
    EXPECT_TRUE(out.ok()) << out.status();
    return Values<float>((*out)[0]);
  };
  EXPECT_THAT(run({3}), ElementsAre(2, 3, 4));
  EXPECT_THAT(run({8}), ElementsAre(0, 1, 2, 3, 4, 5, 0, 0));
  OpTester axes("CenterCropPad");
  axes.Input<int32_t>({2, 3}, {1, 2, 3, 4, 5, 6})
      .Input<int64_t>({1}, {1})
      .Attr("axes", std::vector<int64_t>{-1});
  auto out = axes.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT((*out)[0].shape().dims(), ElementsAre(2, 1));
  EXPECT_THAT(Values<int32_t>((*out)[0]), ElementsAre(2, 5));
}

// The ONNX operator documentation's example: blocks of one row of five.
TEST(ReorderTest, Col2ImRebuildsTheImage) {
  OpTester t("Col2Im");
  t.Input<float>({1, 5, 5}, {1,  6,  11, 16, 21, 2,  7,  12, 17, 22, 3,  8, 13,
                             18, 23, 4,  9,  14, 19, 24, 5,  0,  15, 20, 25})
      .Input<int64_t>({2}, {5, 5})
      .Input<int64_t>({2}, {1, 5});
  auto out = t.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT((*out)[0].shape().dims(), ElementsAre(1, 1, 5, 5));
  EXPECT_THAT(Values<float>((*out)[0]),
              ElementsAre(1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 11, 12, 13, 14, 15, 16,
                          17, 18, 19, 20, 21, 22, 23, 24, 25));
  // Overlapping 2x2 blocks of a 3x3 image sum where they overlap.
  OpTester overlap("Col2Im");
  overlap.Input<float>({1, 4, 4}, std::vector<float>(16, 1.0f))
      .Input<int64_t>({2}, {3, 3})
      .Input<int64_t>({2}, {2, 2});
  out = overlap.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Values<float>((*out)[0]), ElementsAre(1, 2, 1, 2, 4, 2, 1, 2, 1));
}

TEST(ReorderTest, BadIndicesAndLengthsAreNamed) {
  OpTester unpool("MaxUnpool");
  unpool.Input<float>({1, 1, 1, 2}, {7, 9})
      .RuntimeInput<int64_t>({1, 1, 1, 2}, {1, 4})
      .Attr("kernel_shape", std::vector<int64_t>{1, 2})
      .Attr("strides", std::vector<int64_t>{1, 2});
  auto out = unpool.Run();
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("index 4 at position 1 of I is outside the unpooled "
                        "tensor (4 elements)"));
  OpTester reverse("ReverseSequence");
  reverse.Input<float>({2, 2}, {1, 2, 3, 4}).RuntimeInput<int64_t>({2}, {3, 1});
  out = reverse.Run();
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("sequence_lens[0] is 3; expected 0..2"));
}

}  // namespace
}  // namespace acldump
