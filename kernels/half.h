// IEEE float16 and bfloat16 storage types with exact conversions (round to
// nearest even, Inf kept, NaN kept as a quiet NaN with its payload's top bits).
#ifndef ACLDUMP_KERNELS_HALF_H_
#define ACLDUMP_KERNELS_HALF_H_

#include <bit>
#include <cstdint>

namespace acldump {

inline uint16_t FloatToHalfBits(float value) {
  uint32_t bits = std::bit_cast<uint32_t>(value);
  const uint32_t sign = (bits >> 16) & 0x8000u;
  bits &= 0x7FFFFFFFu;
  uint32_t out;
  if (bits >= 0x47800000u) {  // >= 65536, Inf or NaN
    if (bits > 0x7F800000u) {
      out = 0x7E00u | ((bits >> 13) & 0x3FFu);
    } else {
      out = 0x7C00u;
    }
  } else if (bits < 0x38800000u) {  // below the smallest normal half: subnormal
                                    // or zero
    // Adding 0.5f lines the half's subnormal bits up at the bottom of the
    // mantissa and lets the FPU do the round-to-nearest-even.
    const float shifted = std::bit_cast<float>(bits) + 0.5f;
    out = std::bit_cast<uint32_t>(shifted) - 0x3F000000u;
  } else {
    const uint32_t mantissa_odd = (bits >> 13) & 1u;
    bits += 0xC8000FFFu;  // rebias the exponent (127 -> 15) and add the
                          // rounding bias
    bits += mantissa_odd;
    out = bits >> 13;  // an overflow carries into the exponent and yields Inf
  }
  return static_cast<uint16_t>(out | sign);
}

inline float HalfBitsToFloat(uint16_t half) {
  const uint32_t sign = static_cast<uint32_t>(half & 0x8000u) << 16;
  const uint32_t exponent = (half >> 10) & 0x1Fu;
  const uint32_t mantissa = half & 0x3FFu;
  if (exponent == 0) {
    const float magnitude = static_cast<float>(mantissa) * 0x1p-24f;
    return std::bit_cast<float>(sign | std::bit_cast<uint32_t>(magnitude));
  }
  if (exponent == 31) {
    return std::bit_cast<float>(sign | 0x7F800000u | (mantissa << 13));
  }
  return std::bit_cast<float>(sign | ((exponent + 112) << 23) |
                              (mantissa << 13));
}

inline uint16_t FloatToBFloat16Bits(float value) {
  uint32_t bits = std::bit_cast<uint32_t>(value);
  if ((bits & 0x7FFFFFFFu) > 0x7F800000u) {
    return static_cast<uint16_t>((bits >> 16) | 0x40u);
  }
  bits += 0x7FFFu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>(bits >> 16);
}

inline float BFloat16BitsToFloat(uint16_t bf16) {
  return std::bit_cast<float>(static_cast<uint32_t>(bf16) << 16);
}

// Storage types; arithmetic happens in float.
struct Float16 {
  uint16_t bits = 0;
  Float16() = default;
  explicit Float16(float value) : bits(FloatToHalfBits(value)) {}
  static Float16 FromBits(uint16_t raw) {
    Float16 h;
    h.bits = raw;
    return h;
  }
  explicit operator float() const { return HalfBitsToFloat(bits); }
};

struct BFloat16 {
  uint16_t bits = 0;
  BFloat16() = default;
  explicit BFloat16(float value) : bits(FloatToBFloat16Bits(value)) {}
  static BFloat16 FromBits(uint16_t raw) {
    BFloat16 b;
    b.bits = raw;
    return b;
  }
  explicit operator float() const { return BFloat16BitsToFloat(bits); }
};

static_assert(sizeof(Float16) == 2 && sizeof(BFloat16) == 2);

}  // namespace acldump

#endif  // ACLDUMP_KERNELS_HALF_H_
