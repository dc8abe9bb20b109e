// The 8-bit floating-point types a device dump may hold, decoded to float32.
// Every value of each type is exactly a float32, so decoding loses nothing.
#ifndef ACLDUMP_DUMP_FORMAT_FLOAT8_H_
#define ACLDUMP_DUMP_FORMAT_FLOAT8_H_

#include <cstdint>

namespace acldump::dump {

// OCP 8-bit E4M3 "fn": bias 7, no infinities, S.1111.111 is NaN, largest 448.
float DecodeFloat8E4M3Fn(uint8_t bits);
// OCP 8-bit E5M2: bias 15, IEEE-style infinities and NaNs, largest 57344.
float DecodeFloat8E5M2(uint8_t bits);
// HiFloat8 (arXiv 2409.16626): sign, a prefix-coded "dot" field giving the
// exponent width (0 to 4 bits), a sign-magnitude exponent with an implicit
// leading 1, then the mantissa (1 to 3 bits). 0x00 is zero, 0x80 NaN, 0x6F and
// 0xEF are ±inf; dot 0000 holds the denormals 2^(m-23), m = 1..7.
float DecodeHiFloat8(uint8_t bits);

}  // namespace acldump::dump

#endif  // ACLDUMP_DUMP_FORMAT_FLOAT8_H_
