// BitShift and the bitwise operators, including shifts past the width.
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

TEST(BitwiseTest, ShiftsBroadcastAndSaturateAtTheWidth) {
  OpTester left("BitShift");
  left.Input<uint8_t>({4}, {1, 3, 255, 7})
      .Input<uint8_t>({4}, {1, 2, 1, 8})
      .Attr("direction", std::string("LEFT"));
  auto out = left.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Values<uint8_t>((*out)[0]), ElementsAre(2, 12, 254, 0));
  OpTester right("BitShift");
  right.Input<uint8_t>({2, 2}, {16, 32, 64, 128})
      .Input<uint8_t>({1}, {4})
      .Attr("direction", std::string("RIGHT"));
  out = right.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Values<uint8_t>((*out)[0]), ElementsAre(1, 2, 4, 8));
}

TEST(BitwiseTest, ShiftsTheWiderUnsignedTypes) {
  OpTester left("BitShift");
  left.Input<uint64_t>({3}, {1, 3, 1})
      .Input<uint64_t>({3}, {63, 62, 64})
      .Attr("direction", std::string("LEFT"));
  auto out = left.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Values<uint64_t>((*out)[0]),
              ElementsAre(uint64_t{1} << 63, uint64_t{3} << 62, 0));
  OpTester right("BitShift");
  right.Input<uint16_t>({3}, {0x8000, 0xFFFF, 5})
      .Input<uint16_t>({1}, {15})
      .Attr("direction", std::string("RIGHT"));
  out = right.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Values<uint16_t>((*out)[0]), ElementsAre(1, 1, 0));
  OpTester word("BitShift");
  word.Input<uint32_t>({2}, {0xFFFFFFFFu, 1})
      .Input<uint32_t>({2}, {4, 32})
      .Attr("direction", std::string("LEFT"));
  out = word.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Values<uint32_t>((*out)[0]), ElementsAre(0xFFFFFFF0u, 0u));
  OpTester signed_shift("BitShift");
  signed_shift.Input<int32_t>({1}, {1}).Input<int32_t>({1}, {1}).Attr(
      "direction", std::string("LEFT"));
  EXPECT_FALSE(signed_shift.Run().ok());
}

TEST(BitwiseTest, AndOrXorNotOnSignedIntegers) {
  const std::vector<int32_t> a = {12, -1, 0x0f0f};
  const std::vector<int32_t> b = {10, 5, 0x00ff};
  auto run = [&](const std::string& op) {
    OpTester t(op);
    t.Input<int32_t>({3}, a).Input<int32_t>({3}, b);
    auto out = t.Run();
    EXPECT_TRUE(out.ok()) << out.status();
    return Values<int32_t>((*out)[0]);
  };
  EXPECT_THAT(run("BitwiseAnd"), ElementsAre(8, 5, 0x000f));
  EXPECT_THAT(run("BitwiseOr"), ElementsAre(14, -1, 0x0fff));
  EXPECT_THAT(run("BitwiseXor"), ElementsAre(6, -6, 0x0ff0));
  OpTester negate("BitwiseNot");
  negate.Input<int64_t>({2}, {0, -1});
  auto out = negate.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Values<int64_t>((*out)[0]), ElementsAre(-1, 0));
}

TEST(BitwiseTest, BadTypesAndDirectionsAreNamed) {
  OpTester mixed("BitwiseAnd");
  mixed.Input<int32_t>({1}, {1}).Input<int64_t>({1}, {1});
  auto out = mixed.Run();
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("the inputs are int32 and int64"));
  OpTester direction("BitShift");
  direction.Input<uint8_t>({1}, {1}).Input<uint8_t>({1}, {1});
  out = direction.Run();
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("expected LEFT or RIGHT"));
}

}  // namespace
}  // namespace acldump
