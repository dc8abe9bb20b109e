#include "dump/format/float8.h"

#include <cmath>
#include <set>

#include "gtest/gtest.h"

namespace acldump::dump {
namespace {

TEST(Float8Test, E4M3FnMatchesTheOcpTable) {
  EXPECT_EQ(DecodeFloat8E4M3Fn(0x38), 1.0f);
  EXPECT_EQ(DecodeFloat8E4M3Fn(0x7E), 448.0f);                // largest
  EXPECT_EQ(DecodeFloat8E4M3Fn(0x08), std::ldexp(1.0f, -6));  // smallest normal
  EXPECT_EQ(DecodeFloat8E4M3Fn(0x01), std::ldexp(1.0f, -9));  // subnormal
  EXPECT_EQ(DecodeFloat8E4M3Fn(0x07), 7 * std::ldexp(1.0f, -9));
  EXPECT_EQ(DecodeFloat8E4M3Fn(0xC4), -3.0f);
  EXPECT_TRUE(std::isnan(DecodeFloat8E4M3Fn(0x7F)));
  EXPECT_TRUE(std::isnan(DecodeFloat8E4M3Fn(0xFF)));
  EXPECT_TRUE(std::signbit(DecodeFloat8E4M3Fn(0x80)));
  EXPECT_EQ(DecodeFloat8E4M3Fn(0x80), 0.0f);
  EXPECT_EQ(DecodeFloat8E4M3Fn(0x78), 256.0f);  // E=15 is finite here
}

TEST(Float8Test, E5M2MatchesTheOcpTable) {
  EXPECT_EQ(DecodeFloat8E5M2(0x3C), 1.0f);
  EXPECT_EQ(DecodeFloat8E5M2(0x7B), 57344.0f);
  EXPECT_EQ(DecodeFloat8E5M2(0x04), std::ldexp(1.0f, -14));
  EXPECT_EQ(DecodeFloat8E5M2(0x01), std::ldexp(1.0f, -16));
  EXPECT_EQ(DecodeFloat8E5M2(0xC2), -3.0f);
  EXPECT_EQ(DecodeFloat8E5M2(0x7C), INFINITY);
  EXPECT_EQ(DecodeFloat8E5M2(0xFC), -INFINITY);
  for (uint8_t nan : {0x7D, 0x7E, 0x7F, 0xFD, 0xFE, 0xFF}) {
    EXPECT_TRUE(std::isnan(DecodeFloat8E5M2(nan))) << int{nan};
  }
}

// Each positive E4M3/E5M2 code is a value of the form m·2^e the spec lists,
// strictly increasing with the code (the formats are sign-magnitude).
TEST(Float8Test, OcpTypesIncreaseWithTheirCodes) {
  for (int code = 1; code < 0x7E; ++code) {
    EXPECT_LT(DecodeFloat8E4M3Fn(code), DecodeFloat8E4M3Fn(code + 1)) << code;
    EXPECT_EQ(DecodeFloat8E4M3Fn(code | 0x80), -DecodeFloat8E4M3Fn(code));
  }
  for (int code = 1; code < 0x7C; ++code) {
    EXPECT_LT(DecodeFloat8E5M2(code), DecodeFloat8E5M2(code + 1)) << code;
    EXPECT_EQ(DecodeFloat8E5M2(code | 0x80), -DecodeFloat8E5M2(code));
  }
}

TEST(Float8Test, HiFloat8SpecialValuesAndEnds) {
  EXPECT_EQ(DecodeHiFloat8(0x00), 0.0f);
  EXPECT_TRUE(std::isnan(DecodeHiFloat8(0x80)));
  EXPECT_EQ(DecodeHiFloat8(0x6F), INFINITY);
  EXPECT_EQ(DecodeHiFloat8(0xEF), -INFINITY);
  EXPECT_EQ(DecodeHiFloat8(0x08), 1.0f);                   // dot 0001
  EXPECT_EQ(DecodeHiFloat8(0x0F), 1.875f);                 // 1.111b
  EXPECT_EQ(DecodeHiFloat8(0x10), 2.0f);                   // dot 001, +1
  EXPECT_EQ(DecodeHiFloat8(0x18), 0.5f);                   // dot 001, -1
  EXPECT_EQ(DecodeHiFloat8(0x20), 4.0f);                   // dot 01, +2
  EXPECT_EQ(DecodeHiFloat8(0x6E), 32768.0f);               // largest: 2^15
  EXPECT_EQ(DecodeHiFloat8(0x01), std::ldexp(1.0f, -22));  // smallest
  EXPECT_EQ(DecodeHiFloat8(0x07), std::ldexp(1.0f, -16));  // denormals
  EXPECT_EQ(DecodeHiFloat8(0x88), -1.0f);
}

// The paper's table: exponent 0 and ±1 carry 3 mantissa bits, |e| 2-3 three,
// |e| 4-7 two, |e| 8-15 one; dot 0000 adds 2^-22..2^-16; 1.5·2^15 is the
// infinity code. Every positive finite code is one of these values, each
// value once.
TEST(Float8Test, HiFloat8CoversExactlyThePapersValueSet) {
  std::set<float> expected;
  auto add = [&](int exponent, int mantissa_bits) {
    for (int m = 0; m < (1 << mantissa_bits); ++m) {
      expected.insert(
          std::ldexp(1.0f + std::ldexp(float(m), -mantissa_bits), exponent));
    }
  };
  add(0, 3);
  for (int sign : {-1, 1}) {
    add(sign * 1, 3);
    for (int e = 2; e <= 3; ++e) add(sign * e, 3);
    for (int e = 4; e <= 7; ++e) add(sign * e, 2);
    for (int e = 8; e <= 15; ++e) add(sign * e, 1);
  }
  expected.erase(std::ldexp(1.5f, 15));
  for (int e = -22; e <= -16; ++e) expected.insert(std::ldexp(1.0f, e));
  std::set<float> decoded;
  for (int code = 1; code < 0x80; ++code) {
    if (code == 0x6F) continue;
    const float value = DecodeHiFloat8(code);
    EXPECT_TRUE(decoded.insert(value).second) << "duplicate at " << code;
    EXPECT_EQ(DecodeHiFloat8(code | 0x80), -value) << code;
  }
  EXPECT_EQ(decoded, expected);
}

}  // namespace
}  // namespace acldump::dump
