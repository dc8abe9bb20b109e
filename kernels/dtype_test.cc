#include "kernels/dtype.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <random>

#include "kernels/half.h"

namespace acldump {
namespace {

TEST(DTypeTest, SizesNamesAndOnnxNumbers) {
  EXPECT_EQ(DTypeSize(DType::kFloat32), 4u);
  EXPECT_EQ(DTypeSize(DType::kFloat16), 2u);
  EXPECT_EQ(DTypeSize(DType::kBFloat16), 2u);
  EXPECT_EQ(DTypeSize(DType::kFloat64), 8u);
  EXPECT_EQ(DTypeSize(DType::kInt64), 8u);
  EXPECT_EQ(DTypeSize(DType::kBool), 1u);
  EXPECT_EQ(DTypeSize(DType::kUndefined), 0u);
  for (DType dtype : kAllDTypes) {
    EXPECT_EQ(FromOnnxDataType(ToOnnxDataType(dtype)), dtype);
    EXPECT_EQ(DTypeFromName(DTypeName(dtype)), dtype);
  }
  EXPECT_FALSE(FromOnnxDataType(8).has_value());  // ONNX STRING
  EXPECT_EQ(ToOnnxDataType(DType::kFloat16), 10);
  EXPECT_EQ(ToOnnxDataType(DType::kBFloat16), 16);
}

// The compiler's _Float16 conversions (IEEE round to nearest even) are the
// reference. clang before 15 has no _Float16 on x86 (the sanitizer build's
// compiler); gcc's build runs these.
#if defined(__clang__) && __clang_major__ < 15
#define ACLDUMP_NO_FLOAT16 1
#endif

TEST(HalfTest, EveryHalfRoundTripsAndMatchesCompiler) {
#ifdef ACLDUMP_NO_FLOAT16
  GTEST_SKIP() << "this compiler has no _Float16 reference";
#else
  for (uint32_t bits = 0; bits <= 0xFFFF; ++bits) {
    const float f = HalfBitsToFloat(static_cast<uint16_t>(bits));
    _Float16 reference;
    std::memcpy(&reference, &bits, 2);
    const float expected = static_cast<float>(reference);
    if (std::isnan(expected)) {
      ASSERT_TRUE(std::isnan(f)) << bits;
      // Quiet NaN with the payload kept.
      ASSERT_EQ(FloatToHalfBits(f), bits | 0x200u) << bits;
      continue;
    }
    ASSERT_EQ(std::bit_cast<uint32_t>(f), std::bit_cast<uint32_t>(expected))
        << bits;
    ASSERT_EQ(FloatToHalfBits(f), bits) << bits;
  }
#endif
}

TEST(HalfTest, FloatToHalfMatchesCompilerOnRandomAndEdgeFloats) {
#ifdef ACLDUMP_NO_FLOAT16
  GTEST_SKIP() << "this compiler has no _Float16 reference";
#else
  std::mt19937 rng(7);
  std::uniform_int_distribution<uint32_t> any_bits;
  std::vector<uint32_t> samples = {0x00000000u,
                                   0x80000000u,
                                   0x7F800000u,
                                   0xFF800000u,
                                   0x477FE000u /*65504*/,
                                   0x477FEFFFu,
                                   0x477FF000u /*65520 -> inf*/,
                                   0x33000000u /*2^-25: tie to 0*/,
                                   0x33000001u,
                                   0x337FFFFFu,
                                   0x38800000u,
                                   0x387FFFFFu,
                                   0x3F800000u};
  for (int i = 0; i < 2000000; ++i) samples.push_back(any_bits(rng));
  // Dense sweep around the half range, where rounding matters most.
  for (uint32_t bits = 0x33000000u; bits < 0x47800000u; bits += 0x1F3u)
    samples.push_back(bits);
  for (uint32_t bits : samples) {
    const float f = std::bit_cast<float>(bits);
    if (std::isnan(f)) continue;
    const _Float16 reference = static_cast<_Float16>(f);
    uint16_t expected;
    std::memcpy(&expected, &reference, 2);
    ASSERT_EQ(FloatToHalfBits(f), expected) << std::hex << bits;
  }
#endif
}

TEST(BFloat16Test, RoundsToNearestEvenAndKeepsSpecials) {
  EXPECT_EQ(FloatToBFloat16Bits(1.0f), 0x3F80);
  // 1 + 2^-8 is exactly halfway between bf16 1.0 and 1.0078125: ties to even
  // (1.0).
  EXPECT_EQ(FloatToBFloat16Bits(std::bit_cast<float>(0x3F808000u)), 0x3F80);
  // 1.0078125 + half ulp: ties to even (1.015625 = 0x3F82).
  EXPECT_EQ(FloatToBFloat16Bits(std::bit_cast<float>(0x3F818000u)), 0x3F82);
  EXPECT_EQ(FloatToBFloat16Bits(std::bit_cast<float>(0x3F808001u)), 0x3F81);
  EXPECT_EQ(FloatToBFloat16Bits(INFINITY), 0x7F80);
  EXPECT_EQ(FloatToBFloat16Bits(-INFINITY), 0xFF80);
  EXPECT_TRUE(std::isnan(BFloat16BitsToFloat(FloatToBFloat16Bits(NAN))));
  // The largest float rounds up to Inf.
  EXPECT_EQ(FloatToBFloat16Bits(std::bit_cast<float>(0x7F7FFFFFu)), 0x7F80);
  for (uint32_t bits = 0; bits <= 0xFFFF; ++bits) {
    const float f = BFloat16BitsToFloat(static_cast<uint16_t>(bits));
    if (std::isnan(f)) continue;
    ASSERT_EQ(FloatToBFloat16Bits(f), bits);
  }
}

}  // namespace
}  // namespace acldump
