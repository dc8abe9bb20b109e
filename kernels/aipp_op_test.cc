// Aipp: each step against values worked out by hand from the device kernel's
// formulas, and the dynamic parameter block against the static attributes.
#include <cstddef>
#include <cstring>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kernels/aipp.h"
#include "kernels/testing/op_tester.h"

namespace acldump {
namespace {

using ::acldump::testing::OpTester;
using ::acldump::testing::Values;
using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

aipp::Params Rgb(int width, int height) {
  aipp::Params p;
  p.input_format = aipp::kRgb888;
  p.src_width = width;
  p.src_height = height;
  return p;
}

OpTester& Static(OpTester& t, const aipp::Params& p,
                 std::vector<int64_t> out_dims) {
  Attributes attrs;
  aipp::ToAttributes(p, attrs);
  for (const auto& [name, value] : attrs.values()) t.Attr(name, value);
  t.Attr("output_dims", out_dims);
  return t;
}

TEST(AippTest, RgbToPlanarWithMeanMinAndVarReci) {
  aipp::Params p = Rgb(2, 1);
  p.batches[0].mean = {10, 20, 30, 0};
  p.batches[0].min = {0.5f, 0, 0, 0};
  p.batches[0].var_reci = {0.5f, 2, 1, 1};
  OpTester t("Aipp");
  // Two pixels, RGB each.
  t.Input<uint8_t>({1, 1, 2, 3}, {100, 50, 40, 200, 60, 30});
  Static(t, p, {1, 3, 1, 2});
  auto out = t.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  // R: (100-10-0.5)*0.5, (200-10-0.5)*0.5; G: (50-20)*2, (60-20)*2; B: 40-30,
  // 30-30.
  EXPECT_THAT(Values<float>((*out)[0]),
              ElementsAre(44.75f, 94.75f, 60, 80, 10, 0));
}

TEST(AippTest, Yuv420SpColorConversionRoundsAndClamps) {
  aipp::Params p;
  p.input_format = aipp::kYuv420Sp;
  p.src_width = 2;
  p.src_height = 2;
  p.csc = true;
  p.matrix = {256, 0, 359, 256, -88, -183, 256, 454, 0};
  p.input_bias = {0, 128, 128};
  OpTester t("Aipp");
  // Y plane 2x2 (all 128), then one U,V pair (U=228, V=128).
  t.Input<uint8_t>({1, 3, 2, 1}, {128, 128, 128, 128, 228, 128});
  Static(t, p, {1, 3, 2, 2});
  auto out = t.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  // t = (128, 100, 0): R = round((256*128*2 + 1) / 512) = 128;
  // G = round((65536 - 88*100*2 + 1) / 512) = round(93.63) = 94;
  // B = round((65536 + 454*100*2 + 1) / 512) = 305 -> 255.
  EXPECT_THAT(
      Values<float>((*out)[0]),
      ElementsAre(128, 128, 128, 128, 94, 94, 94, 94, 255, 255, 255, 255));
  // U and V swapped: t = (128, 0, 100).
  p.rbuv_swap = true;
  OpTester swapped("Aipp");
  swapped.Input<uint8_t>({1, 3, 2, 1}, {128, 128, 128, 128, 228, 128});
  Static(swapped, p, {1, 3, 2, 2});
  out = swapped.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  // R = round((65536 + 359*200 + 1) / 512) = 268 -> 255; G = round((65536 -
  // 183*200 + 1) / 512) = 56.52 -> 57; B = 128.
  EXPECT_THAT(
      Values<float>((*out)[0]),
      ElementsAre(255, 255, 255, 255, 57, 57, 57, 57, 128, 128, 128, 128));
}

TEST(AippTest, XrgbByteOrderAndSwaps) {
  aipp::Params p;
  p.input_format = aipp::kXrgb8888;
  p.src_width = 1;
  p.src_height = 1;
  const std::vector<uint8_t> pixel = {9, 1, 2, 3};
  const auto run = [&](const aipp::Params& params) {
    OpTester t("Aipp");
    t.Input<uint8_t>({1, 1, 1, 4}, pixel);
    Static(t, params, {1, 3, 1, 1});
    auto out = t.Run();
    EXPECT_TRUE(out.ok()) << out.status();
    return out.ok() ? Values<float>((*out)[0]) : std::vector<float>{};
  };
  EXPECT_THAT(run(p), ElementsAre(1, 2, 3));  // X R G B
  p.ax_swap = true;                           // R G B X
  EXPECT_THAT(run(p), ElementsAre(9, 1, 2));
  p.rbuv_swap = true;  // B G R X
  EXPECT_THAT(run(p), ElementsAre(2, 1, 9));
}

TEST(AippTest, CropThenPaddingWithItsValue) {
  // A 4x2 gray image, crop the 2x1 at (1,1), pad one column left and one row
  // below: a 3x2 input.
  aipp::Params p;
  p.input_format = aipp::kYuv400;
  p.src_width = 4;
  p.src_height = 2;
  p.padding_value = -1;
  p.batches[0].crop = true;
  p.batches[0].crop_x = 1;
  p.batches[0].crop_y = 1;
  p.batches[0].crop_width = 2;
  p.batches[0].crop_height = 1;
  p.batches[0].padding = true;
  p.batches[0].pad_left = 1;
  p.batches[0].pad_bottom = 1;
  OpTester t("Aipp");
  t.Input<uint8_t>({1, 2, 4, 1}, {0, 1, 2, 3, 10, 11, 12, 13});
  Static(t, p, {1, 1, 2, 3});
  auto out = t.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Values<float>((*out)[0]), ElementsAre(-1, 11, 12, -1, -1, -1));
}

TEST(AippTest, BadParametersAreNamed) {
  aipp::Params p = Rgb(4, 4);
  p.batches[0].crop = true;
  p.batches[0].crop_x = 2;
  p.batches[0].crop_width = 4;
  p.batches[0].crop_height = 2;
  EXPECT_THAT(std::string(aipp::Check(p, 1, 3, 2, 4).message()),
              HasSubstr("the crop 4x2 at (2,0) is not inside the 4x4 image"));
  p.batches[0].crop = false;
  EXPECT_THAT(std::string(aipp::Check(p, 1, 3, 2, 4).message()),
              HasSubstr("the image (4x4) is 4x4 (width x height); the model "
                        "input is 4x2"));
  EXPECT_THAT(std::string(aipp::Check(p, 1, 4, 4, 4).message()),
              HasSubstr("1 or 3 channels"));
  aipp::Params gray = Rgb(4, 2);
  gray.input_format = aipp::kYuv400;
  EXPECT_THAT(std::string(aipp::Check(gray, 1, 3, 2, 4).message()),
              HasSubstr("a YUV400_U8 (gray) image feeds a 1-channel input"));
  EXPECT_THAT(std::string(aipp::Check(Rgb(4, 2), 1, 1, 2, 4).message()),
              HasSubstr("turn color conversion on"));
  p.input_format = 9;  // YUV422SP
  EXPECT_THAT(std::string(aipp::Check(p, 1, 3, 4, 4).message()),
              HasSubstr("input format 9 is not one acldump preprocesses"));
  p.input_format = aipp::kYuv420Sp;
  p.src_width = 3;
  EXPECT_THAT(std::string(aipp::Check(p, 1, 3, 4, 3).message()),
              HasSubstr("positive and even"));
  // The images input must hold exactly the configured images.
  OpTester t("Aipp");
  t.Input<uint8_t>({1, 2, 2, 3}, std::vector<uint8_t>(12));
  Static(t, Rgb(4, 4), {1, 3, 4, 4});
  EXPECT_THAT(std::string(t.Run().status().message()),
              HasSubstr("holds 12 bytes per image; a RGB888_U8 4x4 image has "
                        "48"));
}

TEST(AippTest, DynamicBlockRoundTripsAndRunsPerImage) {
  aipp::Params p = Rgb(2, 1);
  p.csc = true;
  p.matrix = {256, 0, 0, 0, 256, 0, 0, 0, 256};
  p.batches = {aipp::BatchParams{}, aipp::BatchParams{}};
  p.batches[1].mean = {1, 2, 3, 0};
  p.batches[1].var_reci = {0.5f, 0.25f, 2, 1};
  p.batches[1].crop = true;
  p.batches[1].crop_x = 1;
  p.batches[1].crop_width = 1;
  p.batches[1].crop_height = 1;
  p.batches[1].padding = true;
  p.batches[1].pad_right = 1;
  std::vector<std::byte> block(aipp::DynamicDataBytes(2));
  ASSERT_EQ(block.size(), 64u + 2 * 96u);
  aipp::WriteDynamic(p, block);
  auto read = aipp::ReadDynamic(block, 2);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->input_format, aipp::kRgb888);
  EXPECT_EQ(read->matrix, p.matrix);
  EXPECT_EQ(read->batches[1].var_reci, p.batches[1].var_reci);
  EXPECT_EQ(read->batches[1].crop_x, 1);
  // Images of up to 4x1 RGB: the first image is 2x1 (12 bytes per slot).
  OpTester t("Aipp");
  t.Input<uint8_t>({2, 12}, {10, 20, 30, 40, 50, 60, 0, 0, 0, 0, 0, 0,  //
                             11, 21, 31, 41, 51, 61, 0, 0, 0, 0, 0, 0});
  std::vector<uint8_t> block_bytes(block.size());
  std::memcpy(block_bytes.data(), block.data(), block.size());
  t.Input<uint8_t>({static_cast<int64_t>(block.size())}, block_bytes);
  t.Attr("mode", std::string("dynamic"));
  t.Attr("output_dims", std::vector<int64_t>{2, 3, 1, 2});
  auto out = t.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  // Image 1 keeps its second pixel (41, 51, 61) and pads the right with 0.
  EXPECT_THAT(Values<float>((*out)[0]),
              ElementsAreArray(std::vector<float>{10, 40, 20, 50, 30, 60,  //
                                                  20, 0, 12.25f, 0, 116, 0}));
  // A block never set names the call to make.
  OpTester unset("Aipp");
  unset.Input<uint8_t>({2, 12}, std::vector<uint8_t>(24));
  unset.Input<uint8_t>({static_cast<int64_t>(block.size())},
                       std::vector<uint8_t>(block.size()));
  unset.Attr("mode", std::string("dynamic"));
  unset.Attr("output_dims", std::vector<int64_t>{2, 3, 1, 2});
  EXPECT_THAT(std::string(unset.Run().status().message()),
              HasSubstr("never set: call aclmdlSetInputAIPP"));
}

}  // namespace
}  // namespace acldump
