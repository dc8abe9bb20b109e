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
