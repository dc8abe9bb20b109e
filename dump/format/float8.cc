#include "dump/format/float8.h"

#include <cmath>
#include <limits>

namespace acldump::dump {
namespace {

float Signed(uint8_t bits, float magnitude) {
  return (bits & 0x80) ? -magnitude : magnitude;
}

// An IEEE-style minifloat: `exponent_bits`, `mantissa_bits`, `bias`; the
// caller handles the special encodings.
float DecodeMinifloat(uint8_t bits, int exponent_bits, int mantissa_bits,
                      int bias) {
  const int mantissa = bits & ((1 << mantissa_bits) - 1);
  const int exponent = (bits >> mantissa_bits) & ((1 << exponent_bits) - 1);
  const float magnitude =
      exponent == 0
          ? std::ldexp(static_cast<float>(mantissa), 1 - bias - mantissa_bits)
          : std::ldexp(static_cast<float>(mantissa + (1 << mantissa_bits)),
                       exponent - bias - mantissa_bits);
  return Signed(bits, magnitude);
}

}  // namespace

float DecodeFloat8E4M3Fn(uint8_t bits) {
  if ((bits & 0x7F) == 0x7F) return std::numeric_limits<float>::quiet_NaN();
  return DecodeMinifloat(bits, 4, 3, 7);
}

float DecodeFloat8E5M2(uint8_t bits) {
  if ((bits & 0x7C) == 0x7C) {
    return (bits & 0x03) ? std::numeric_limits<float>::quiet_NaN()
                         : Signed(bits, std::numeric_limits<float>::infinity());
  }
  return DecodeMinifloat(bits, 5, 2, 15);
}

float DecodeHiFloat8(uint8_t bits) {
  const int body = bits & 0x7F;
  if (body == 0) {
    return bits == 0 ? 0.0f : std::numeric_limits<float>::quiet_NaN();
  }
  if (body == 0x6F) {
    return Signed(bits, std::numeric_limits<float>::infinity());
  }
  int exponent = 0, mantissa = 0, mantissa_bits = 3;
  if ((body & 0x78) == 0x00) {  // dot 0000: denormal, no mantissa
    return Signed(bits, std::ldexp(1.0f, (body & 0x07) - 23));
  }
  if ((body & 0x78) == 0x08) {  // dot 0001: exponent 0
    mantissa = body & 0x07;
  } else if ((body & 0x70) == 0x10) {  // dot 001: one exponent bit, ±1
    exponent = (body & 0x08) ? -1 : 1;
    mantissa = body & 0x07;
  } else {  // dot 01, 10, 11: 2, 3, 4 exponent bits
    const int exponent_bits = (body >> 5) + 1;
    mantissa_bits = 5 - exponent_bits;
    const int exponent_field =
        (body >> mantissa_bits) & ((1 << exponent_bits) - 1);
    const int magnitude = (1 << (exponent_bits - 1)) |
                          (exponent_field & ((1 << (exponent_bits - 1)) - 1));
    exponent = (exponent_field >> (exponent_bits - 1)) ? -magnitude : magnitude;
    mantissa = body & ((1 << mantissa_bits) - 1);
  }
  const float significand =
      1.0f + std::ldexp(static_cast<float>(mantissa), -mantissa_bits);
  return Signed(bits, std::ldexp(significand, exponent));
}

}  // namespace acldump::dump
