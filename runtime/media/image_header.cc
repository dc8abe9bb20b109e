#include "runtime/media/image_header.h"

#include <array>
#include <cstdio>
#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace acldump::media {
namespace {

// Bounds-checked big- or little-endian reads; Has() before every read.
class Bytes {
 public:
  explicit Bytes(std::span<const uint8_t> data, bool big_endian = true)
      : data_(data), big_endian_(big_endian) {}
  size_t size() const { return data_.size(); }
  bool Has(size_t at, size_t n) const {
    return at <= data_.size() && n <= data_.size() - at;
  }
  uint8_t U8(size_t at) const { return data_[at]; }
  uint16_t U16(size_t at) const {
    return big_endian_ ? static_cast<uint16_t>(data_[at] << 8 | data_[at + 1])
                       : static_cast<uint16_t>(data_[at + 1] << 8 | data_[at]);
  }
  uint32_t U32(size_t at) const {
    return big_endian_ ? uint32_t{U16(at)} << 16 | U16(at + 2)
                       : uint32_t{U16(at + 2)} << 16 | U16(at);
  }
  bool Starts(size_t at, std::string_view text) const {
    if (!Has(at, text.size())) return false;
    for (size_t i = 0; i < text.size(); ++i) {
      if (data_[at + i] != static_cast<uint8_t>(text[i])) return false;
    }
    return true;
  }
  std::span<const uint8_t> Sub(size_t at, size_t n) const {
    return data_.subspan(at, n);
  }

 private:
  std::span<const uint8_t> data_;
  bool big_endian_;
};

std::string Hex(uint32_t value, int digits) {
  char text[16];
  std::snprintf(text, sizeof(text), "%0*X", digits, value);
  return text;
}

std::string Marker(uint8_t marker) { return "FF " + Hex(marker, 2); }

absl::Status JpegError(size_t offset, const std::string& what) {
  return absl::InvalidArgumentError("JPEG at byte " + std::to_string(offset) +
                                    ": " + what);
}

absl::Status PngError(size_t offset, const std::string& what) {
  return absl::InvalidArgumentError("PNG at byte " + std::to_string(offset) +
                                    ": " + what);
}

// Start-of-frame markers: C0..CF but DHT (C4), JPG (C8) and DAC (CC).
bool IsSof(uint8_t marker) {
  return marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 &&
         marker != 0xCC;
}

// The Exif orientation of a TIFF block (the APP1 payload after "Exif\0\0"),
// IFD0's tag 0x0112; 1 when absent or unreadable (as a decoder that cannot
// read it would not turn the image).
int ExifOrientation(std::span<const uint8_t> tiff) {
  const Bytes probe(tiff);
  if (!probe.Has(0, 8)) return 1;
  bool big_endian;
  if (probe.Starts(0, "MM")) {
    big_endian = true;
  } else if (probe.Starts(0, "II")) {
    big_endian = false;
  } else {
    return 1;
  }
  const Bytes t(tiff, big_endian);
  if (t.U16(2) != 42) return 1;
  const size_t ifd = t.U32(4);
  if (!t.Has(ifd, 2)) return 1;
  const size_t entries = t.U16(ifd);
  for (size_t i = 0; i < entries; ++i) {
    const size_t entry = ifd + 2 + 12 * i;
    if (!t.Has(entry, 12)) return 1;
    if (t.U16(entry) != 0x0112) continue;
    // SHORT (3), one value, stored in the first two bytes of the value field.
    if (t.U16(entry + 2) != 3 || t.U32(entry + 4) < 1) return 1;
    const int value = t.U16(entry + 8);
    return value >= 1 && value <= 8 ? value : 1;
  }
  return 1;
}

JpegSubsampling Subsampling(const std::vector<JpegComponent>& c) {
  if (c.size() == 1) return JpegSubsampling::kGray;
  if (c.size() != 3) return JpegSubsampling::kUnknown;
  const JpegComponent& y = c[0];
  const JpegComponent& u = c[1];
  const JpegComponent& v = c[2];
  if (u.h_sampling != v.h_sampling || u.v_sampling != v.v_sampling ||
      y.h_sampling % u.h_sampling != 0 || y.v_sampling % u.v_sampling != 0) {
    return JpegSubsampling::kUnknown;
  }
  const int h = y.h_sampling / u.h_sampling;
  const int w = y.v_sampling / u.v_sampling;
  if (h == 1 && w == 1) return JpegSubsampling::k444;
  if (h == 2 && w == 1) return JpegSubsampling::k422;
  if (h == 2 && w == 2) return JpegSubsampling::k420;
  if (h == 1 && w == 2) return JpegSubsampling::k440;
  if (h == 4 && w == 1) return JpegSubsampling::k411;
  return JpegSubsampling::kUnknown;
}

// libjpeg's choice: JFIF means YCbCr, Adobe's transform flag decides next,
// then the component ids ('R', 'G', 'B' for RGB).
JpegColorSpace ColorSpace(const std::vector<JpegComponent>& c, bool jfif,
                          int adobe_transform) {
  if (c.size() == 1) return JpegColorSpace::kGray;
  if (c.size() == 3) {
    if (jfif) return JpegColorSpace::kYCbCr;
    if (adobe_transform >= 0) {
      return adobe_transform == 0 ? JpegColorSpace::kRgb
                                  : JpegColorSpace::kYCbCr;
    }
    if (c[0].id == 'R' && c[1].id == 'G' && c[2].id == 'B') {
      return JpegColorSpace::kRgb;
    }
    return JpegColorSpace::kYCbCr;
  }
  if (c.size() == 4) {
    if (adobe_transform < 0 || adobe_transform == 0) {
      return JpegColorSpace::kCmyk;
    }
    return JpegColorSpace::kYcck;
  }
  return JpegColorSpace::kUnknown;
}

absl::Status ReadFrameHeader(const Bytes& d, size_t marker_at, size_t length,
                             JpegInfo* info) {
  const size_t at = marker_at + 4;  // after the marker and the length
  if (length < 8) {
    return JpegError(
        marker_at, "the frame header " + Marker(d.U8(marker_at + 1)) + " is " +
                       std::to_string(length) + " bytes long, less than 8");
  }
  info->sof_marker = d.U8(marker_at + 1);
  info->precision = d.U8(at);
  info->coded_height = d.U16(at + 1);
  info->coded_width = d.U16(at + 3);
  const size_t count = d.U8(at + 5);
  if (info->precision < 2 || info->precision > 16) {
    return JpegError(at, "sample precision " + std::to_string(info->precision) +
                             " bits is not 2..16");
  }
  if (info->coded_height == 0) {
    return JpegError(at + 1,
                     "height 0 (an image whose height a DNL marker gives "
                     "later is not supported)");
  }
  if (info->coded_width == 0) return JpegError(at + 3, "width 0");
  constexpr uint32_t kMaxDimension = 65500;  // libjpeg's limit
  if (info->coded_height > kMaxDimension || info->coded_width > kMaxDimension) {
    return JpegError(at + 1, std::to_string(info->coded_width) + "x" +
                                 std::to_string(info->coded_height) +
                                 " is larger than 65500 pixels a side");
  }
  if (count < 1 || count > 10) {
    return JpegError(at + 5,
                     std::to_string(count) + " components; a frame has 1..10");
  }
  if (length != 8 + 3 * count) {
    return JpegError(marker_at,
                     "the frame header is " + std::to_string(length) +
                         " bytes long, " + std::to_string(count) +
                         " components need " + std::to_string(8 + 3 * count));
  }
  for (size_t i = 0; i < count; ++i) {
    const size_t c = at + 6 + 3 * i;
    JpegComponent component;
    component.id = d.U8(c);
    component.h_sampling = d.U8(c + 1) >> 4;
    component.v_sampling = d.U8(c + 1) & 0x0F;
    if (component.h_sampling < 1 || component.h_sampling > 4 ||
        component.v_sampling < 1 || component.v_sampling > 4) {
      return JpegError(c + 1, "component " + std::to_string(i) +
                                  " has sampling factors " +
                                  std::to_string(component.h_sampling) + "x" +
                                  std::to_string(component.v_sampling) +
                                  "; each must be 1..4");
    }
    info->components.push_back(component);
  }
  return absl::OkStatus();
}

absl::Status ReadScanHeader(const Bytes& d, size_t marker_at, size_t length,
                            const JpegInfo& info) {
  const size_t at = marker_at + 4;
  const size_t count = length >= 3 ? d.U8(at) : 0;
  if (count < 1 || count > 4 || length != 6 + 2 * count) {
    return JpegError(marker_at, "the scan header is " + std::to_string(length) +
                                    " bytes long with " +
                                    std::to_string(count) +
                                    " components (1..4 components, 6 + 2 "
                                    "bytes each)");
  }
  for (size_t i = 0; i < count; ++i) {
    const uint8_t id = d.U8(at + 1 + 2 * i);
    bool found = false;
    for (const JpegComponent& c : info.components) found |= c.id == id;
    if (!found) {
      return JpegError(at + 1 + 2 * i,
                       "the scan names component id " + std::to_string(id) +
                           ", which the frame header does not have");
    }
  }
  return absl::OkStatus();
}

uint32_t Crc32(std::span<const uint8_t> bytes) {
  static const std::array<uint32_t, 256> table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t n = 0; n < 256; ++n) {
      uint32_t c = n;
      for (int k = 0; k < 8; ++k) c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[n] = c;
    }
    return t;
  }();
  uint32_t crc = 0xFFFFFFFFu;
  for (uint8_t b : bytes) crc = table[(crc ^ b) & 0xFF] ^ (crc >> 8);
  return crc ^ 0xFFFFFFFFu;
}

}  // namespace

absl::StatusOr<JpegInfo> ReadJpegHeader(std::span<const uint8_t> data) {
  const Bytes d(data);
  if (!d.Has(0, 2)) {
    return JpegError(d.size(), "the data ends before the SOI marker (FF D8)");
  }
  if (d.U8(0) != 0xFF || d.U8(1) != 0xD8) {
    return JpegError(0, "not a JPEG: it starts with " + Hex(d.U8(0), 2) + " " +
                            Hex(d.U8(1), 2) + ", not the SOI marker FF D8");
  }
  JpegInfo info;
  bool have_frame = false;
  bool jfif = false;
  bool have_exif = false;
  int adobe_transform = -1;
  size_t pos = 2;
  while (true) {
    // As libjpeg: bytes before a marker are skipped, as are fill bytes (FF)
    // and stuffed zeros (FF 00).
    uint8_t marker = 0;
    size_t marker_at = pos;
    while (marker == 0) {
      while (pos < d.size() && d.U8(pos) != 0xFF) ++pos;
      while (pos < d.size() && d.U8(pos) == 0xFF) ++pos;
      if (pos >= d.size()) {
        return JpegError(d.size(),
                         std::string("the data ends before the first scan "
                                     "header (SOS)") +
                             (have_frame ? "" : " and the frame header (SOF)"));
      }
      marker = d.U8(pos);
      marker_at = pos - 1;
      ++pos;
    }
    if (marker == 0xD8) {
      return JpegError(marker_at, "a second SOI marker (FF D8)");
    }
    if (marker == 0xD9) {
      return JpegError(marker_at,
                       "the EOI marker (FF D9) before any scan: no image");
    }
    if ((marker >= 0xD0 && marker <= 0xD7) || marker == 0x01) {
      continue;  // RSTn and TEM stand alone
    }
    if (!d.Has(pos, 2)) {
      return JpegError(d.size(), "the data ends inside the length of marker " +
                                     Marker(marker) + " at byte " +
                                     std::to_string(marker_at));
    }
    const size_t length = d.U16(pos);
    if (length < 2) {
      return JpegError(marker_at, "marker " + Marker(marker) + " has length " +
                                      std::to_string(length) +
                                      ", less than its own 2 bytes");
    }
    if (!d.Has(pos, length)) {
      return JpegError(marker_at, "segment " + Marker(marker) + " of " +
                                      std::to_string(length) +
                                      " bytes runs past the end of the data (" +
                                      std::to_string(d.size()) + " bytes)");
    }
    const size_t payload = pos + 2;
    const size_t payload_size = length - 2;
    if (IsSof(marker)) {
      if (have_frame) {
        return JpegError(marker_at, "a second frame header " + Marker(marker));
      }
      absl::Status frame = ReadFrameHeader(d, marker_at, length, &info);
      if (!frame.ok()) return frame;
      have_frame = true;
    } else if (marker == 0xDA) {
      if (!have_frame) {
        return JpegError(marker_at,
                         "a scan (SOS) before the frame header (SOF)");
      }
      absl::Status scan = ReadScanHeader(d, marker_at, length, info);
      if (!scan.ok()) return scan;
      info.header_size = pos + length;
      break;
    } else if (marker == 0xE0 &&
               d.Starts(payload, std::string_view("JFIF\0", 5))) {
      jfif = true;
    } else if (marker == 0xE1 && !have_exif && payload_size >= 6 &&
               d.Starts(payload, std::string_view("Exif\0\0", 6))) {
      have_exif = true;
      info.orientation = ExifOrientation(d.Sub(payload + 6, payload_size - 6));
    } else if (marker == 0xEE && payload_size >= 12 &&
               d.Starts(payload, "Adobe")) {
      adobe_transform = d.U8(payload + 11);
    }
    pos += length;
  }
  const bool turned = info.orientation >= 5;
  info.width = turned ? info.coded_height : info.coded_width;
  info.height = turned ? info.coded_width : info.coded_height;
  info.subsampling = Subsampling(info.components);
  info.color_space = ColorSpace(info.components, jfif, adobe_transform);
  return info;
}

absl::StatusOr<PngInfo> ReadPngHeader(std::span<const uint8_t> data) {
  static constexpr uint8_t kSignature[8] = {0x89, 'P',  'N',  'G',
                                            0x0D, 0x0A, 0x1A, 0x0A};
  const Bytes d(data);
  for (size_t i = 0; i < 8; ++i) {
    if (!d.Has(i, 1)) {
      return PngError(d.size(), "the data ends inside the 8-byte signature");
    }
    if (d.U8(i) != kSignature[i]) {
      return PngError(i, "not a PNG: the signature's byte is " +
                             Hex(kSignature[i], 2) + ", the data's " +
                             Hex(d.U8(i), 2));
    }
  }
  if (!d.Has(8, 8)) {
    return PngError(d.size(),
                    "the data ends before the first chunk's length and type");
  }
  if (!d.Starts(12, "IHDR")) {
    return PngError(12, "the first chunk is " + Hex(d.U32(12), 8) +
                            ", not IHDR (49484452)");
  }
  if (d.U32(8) != 13) {
    return PngError(8, "the IHDR chunk is " + std::to_string(d.U32(8)) +
                           " bytes long, not 13");
  }
  if (!d.Has(16, 13 + 4)) {
    return PngError(d.size(),
                    "the data ends inside the IHDR chunk (bytes 8..32)");
  }
  PngInfo info;
  info.width = d.U32(16);
  info.height = d.U32(20);
  info.bit_depth = d.U8(24);
  info.color_type = d.U8(25);
  constexpr uint32_t kMaxDimension = 0x7FFFFFFF;  // PNG's limit: 2^31 - 1
  auto check_dimension = [](size_t at, uint32_t value, const char* name) {
    return value == 0 || value > kMaxDimension
               ? PngError(at, std::string(name) + " " + std::to_string(value) +
                                  " is not 1..2147483647")
               : absl::OkStatus();
  };
  if (absl::Status s = check_dimension(16, info.width, "width"); !s.ok()) {
    return s;
  }
  if (absl::Status s = check_dimension(20, info.height, "height"); !s.ok()) {
    return s;
  }
  const int depth = info.bit_depth;
  bool depth_ok = false;
  switch (info.color_type) {
    case 0:  // gray
      depth_ok =
          depth == 1 || depth == 2 || depth == 4 || depth == 8 || depth == 16;
      info.components = 1;
      break;
    case 2:  // RGB
      depth_ok = depth == 8 || depth == 16;
      info.components = 3;
      break;
    case 3:  // palette: decoded to RGB
      depth_ok = depth == 1 || depth == 2 || depth == 4 || depth == 8;
      info.components = 3;
      break;
    case 4:  // gray + alpha
      depth_ok = depth == 8 || depth == 16;
      info.components = 2;
      break;
    case 6:  // RGBA
      depth_ok = depth == 8 || depth == 16;
      info.components = 4;
      break;
    default:
      return PngError(25, "color type " + std::to_string(info.color_type) +
                              " is not 0, 2, 3, 4 or 6");
  }
  if (!depth_ok) {
    return PngError(24, "bit depth " + std::to_string(depth) +
                            " is not allowed for color type " +
                            std::to_string(info.color_type));
  }
  if (d.U8(26) != 0) {
    return PngError(
        26, "compression method " + std::to_string(d.U8(26)) + " is not 0");
  }
  if (d.U8(27) != 0) {
    return PngError(27,
                    "filter method " + std::to_string(d.U8(27)) + " is not 0");
  }
  if (d.U8(28) > 1) {
    return PngError(
        28, "interlace method " + std::to_string(d.U8(28)) + " is not 0 or 1");
  }
  info.interlaced = d.U8(28) == 1;
  const uint32_t stored = d.U32(29);
  const uint32_t computed = Crc32(d.Sub(12, 4 + 13));
  if (stored != computed) {
    return PngError(29, "the IHDR checksum is " + Hex(stored, 8) +
                            ", its bytes give " + Hex(computed, 8));
  }
  return info;
}

}  // namespace acldump::media
