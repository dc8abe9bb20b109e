// The headers of JPEG and PNG images: size, components and chroma subsampling,
// read without decoding (acldvppJpegGetImageInfo and friends). Input is
// untrusted: every read is bounds-checked, and bad data is an
// InvalidArgument status that says what is wrong and at which byte offset,
// never a read past the end.
#ifndef ACLDUMP_RUNTIME_MEDIA_IMAGE_HEADER_H_
#define ACLDUMP_RUNTIME_MEDIA_IMAGE_HEADER_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "absl/status/statusor.h"

namespace acldump::media {

// Chroma subsampling of a JPEG image, from the sampling factors of its
// components (the luma's against the chroma's, which must be equal).
enum class JpegSubsampling { k444, k422, k420, kGray, k440, k411, kUnknown };

// The color space a decoder would read the components in (libjpeg's rules:
// component count, JFIF and Adobe markers, component ids).
enum class JpegColorSpace { kGray, kYCbCr, kRgb, kCmyk, kYcck, kUnknown };

struct JpegComponent {
  uint8_t id = 0;
  uint8_t h_sampling = 0;  // 1..4
  uint8_t v_sampling = 0;  // 1..4
};

struct JpegInfo {
  // As stored in the frame header (SOFn).
  uint32_t coded_width = 0;
  uint32_t coded_height = 0;
  // As displayed: swapped when the Exif orientation is 5..8.
  uint32_t width = 0;
  uint32_t height = 0;
  // The Exif orientation (1..8); 1 without one, or with an unreadable one.
  int orientation = 1;
  uint8_t sof_marker = 0;  // 0xC0..0xCF: the coding process
  int precision = 0;       // bits per sample
  std::vector<JpegComponent> components;
  JpegSubsampling subsampling = JpegSubsampling::kUnknown;
  JpegColorSpace color_space = JpegColorSpace::kUnknown;
  // Bytes up to the end of the first scan's header (SOS): what was read.
  size_t header_size = 0;
};

// Reads a JPEG's markers from SOI through the first scan header (SOS): the
// frame header (any of SOF0..SOF15 but DHT, JPG and DAC), the JFIF, Exif
// (APP1, orientation tag 0x0112 of IFD0) and Adobe (APP14) segments.
absl::StatusOr<JpegInfo> ReadJpegHeader(std::span<const uint8_t> data);

struct PngInfo {
  uint32_t width = 0;   // 1..2^31-1
  uint32_t height = 0;  // 1..2^31-1
  int bit_depth = 0;    // 1, 2, 4, 8, 16 as the color type allows
  int color_type = 0;   // 0 gray, 2 RGB, 3 palette, 4 gray+alpha, 6 RGBA
  // What a decoder outputs: 1 gray, 2 gray+alpha, 3 RGB and palette, 4 RGBA.
  int components = 0;
  bool interlaced = false;
};

// Reads a PNG's signature and IHDR chunk (its CRC checked).
absl::StatusOr<PngInfo> ReadPngHeader(std::span<const uint8_t> data);

}  // namespace acldump::media

#endif  // ACLDUMP_RUNTIME_MEDIA_IMAGE_HEADER_H_
