#include "runtime/media/image_header.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <random>
#include <string>
#include <vector>

namespace acldump::media {
namespace {

using ::testing::HasSubstr;
using Bytes = std::vector<uint8_t>;

Bytes ReadFile(const std::string& name) {
  std::ifstream in("testdata/images/" + name, std::ios::binary);
  EXPECT_TRUE(in.good()) << name;
  return Bytes(std::istreambuf_iterator<char>(in), {});
}

std::string Message(const absl::Status& status) {
  return std::string(status.message());
}

// ---- The committed images (testdata/images/README) ----

struct JpegCase {
  const char* file;
  uint32_t width, height;  // as displayed
  uint32_t coded_width, coded_height;
  int components;
  JpegSubsampling subsampling;
  uint8_t sof;
  int orientation;
};

const JpegCase kJpegs[] = {
    {"baseline_420.jpg", 33, 17, 33, 17, 3, JpegSubsampling::k420, 0xC0, 1},
    {"baseline_444.jpg", 16, 8, 16, 8, 3, JpegSubsampling::k444, 0xC0, 1},
    {"baseline_422.jpg", 24, 10, 24, 10, 3, JpegSubsampling::k422, 0xC0, 1},
    {"baseline_440.jpg", 16, 16, 16, 16, 3, JpegSubsampling::k440, 0xC0, 1},
    {"baseline_411.jpg", 32, 8, 32, 8, 3, JpegSubsampling::k411, 0xC0, 1},
    {"gray.jpg", 20, 12, 20, 12, 1, JpegSubsampling::kGray, 0xC0, 1},
    {"progressive_420.jpg", 40, 24, 40, 24, 3, JpegSubsampling::k420, 0xC2, 1},
    {"exif_orientation_6.jpg", 16, 48, 48, 16, 3, JpegSubsampling::k420, 0xC0,
     6},
};

TEST(JpegHeaderTest, ReadsTheCommittedImages) {
  for (const JpegCase& c : kJpegs) {
    SCOPED_TRACE(c.file);
    const Bytes data = ReadFile(c.file);
    absl::StatusOr<JpegInfo> info = ReadJpegHeader(data);
    ASSERT_TRUE(info.ok()) << info.status();
    EXPECT_EQ(info->width, c.width);
    EXPECT_EQ(info->height, c.height);
    EXPECT_EQ(info->coded_width, c.coded_width);
    EXPECT_EQ(info->coded_height, c.coded_height);
    EXPECT_EQ(info->components.size(), static_cast<size_t>(c.components));
    EXPECT_EQ(info->subsampling, c.subsampling);
    EXPECT_EQ(info->sof_marker, c.sof);
    EXPECT_EQ(info->orientation, c.orientation);
    EXPECT_EQ(info->precision, 8);
    EXPECT_EQ(info->color_space, c.components == 1 ? JpegColorSpace::kGray
                                                   : JpegColorSpace::kYCbCr);
    EXPECT_GT(info->header_size, 100u);
    EXPECT_LT(info->header_size, data.size());
  }
}

// A prefix that ends before the first scan header is an error; a longer one
// (entropy-coded data cut short) reads as the whole image does.
TEST(JpegHeaderTest, EveryTruncationBeforeTheScanIsAnError) {
  for (const JpegCase& c : kJpegs) {
    SCOPED_TRACE(c.file);
    const Bytes data = ReadFile(c.file);
    absl::StatusOr<JpegInfo> whole = ReadJpegHeader(data);
    ASSERT_TRUE(whole.ok());
    for (size_t n = 0; n <= data.size(); ++n) {
      absl::StatusOr<JpegInfo> info =
          ReadJpegHeader(std::span<const uint8_t>(data.data(), n));
      if (n < whole->header_size) {
        ASSERT_FALSE(info.ok()) << n;
        EXPECT_THAT(Message(info.status()), HasSubstr("JPEG at byte ")) << n;
      } else {
        ASSERT_TRUE(info.ok()) << n << ": " << info.status();
        EXPECT_EQ(info->width, c.width);
        EXPECT_EQ(info->height, c.height);
      }
    }
  }
}

struct PngCase {
  const char* file;
  uint32_t width, height;
  int components, bit_depth, color_type;
};

const PngCase kPngs[] = {
    {"rgb.png", 7, 5, 3, 8, 2},     {"rgba.png", 6, 4, 4, 8, 6},
    {"gray.png", 5, 3, 1, 8, 0},    {"gray_alpha.png", 3, 3, 2, 8, 4},
    {"gray16.png", 4, 2, 1, 16, 0}, {"palette.png", 4, 4, 3, 8, 3},
};

TEST(PngHeaderTest, ReadsTheCommittedImages) {
  for (const PngCase& c : kPngs) {
    SCOPED_TRACE(c.file);
    absl::StatusOr<PngInfo> info = ReadPngHeader(ReadFile(c.file));
    ASSERT_TRUE(info.ok()) << info.status();
    EXPECT_EQ(info->width, c.width);
    EXPECT_EQ(info->height, c.height);
    EXPECT_EQ(info->components, c.components);
    EXPECT_EQ(info->bit_depth, c.bit_depth);
    EXPECT_EQ(info->color_type, c.color_type);
    EXPECT_FALSE(info->interlaced);
  }
}

// The header is the signature and IHDR: bytes 0..32.
TEST(PngHeaderTest, EveryTruncationOfTheHeaderIsAnError) {
  for (const PngCase& c : kPngs) {
    SCOPED_TRACE(c.file);
    const Bytes data = ReadFile(c.file);
    for (size_t n = 0; n <= data.size(); ++n) {
      absl::StatusOr<PngInfo> info =
          ReadPngHeader(std::span<const uint8_t>(data.data(), n));
      if (n < 33) {
        ASSERT_FALSE(info.ok()) << n;
        EXPECT_THAT(Message(info.status()), HasSubstr("PNG at byte ")) << n;
      } else {
        ASSERT_TRUE(info.ok()) << n << ": " << info.status();
        EXPECT_EQ(info->width, c.width);
      }
    }
  }
}

TEST(ImageHeaderTest, OneFormatIsNotTheOther) {
  EXPECT_THAT(Message(ReadJpegHeader(ReadFile("rgb.png")).status()),
              HasSubstr("JPEG at byte 0: not a JPEG: it starts with 89 50"));
  EXPECT_THAT(
      Message(ReadPngHeader(ReadFile("gray.jpg")).status()),
      HasSubstr("PNG at byte 0: not a PNG: the signature's byte is 89, the "
                "data's FF"));
}

// Flipping any byte of a committed image, or random data, gives an image or
// an error, never a read out of bounds (the sanitizer builds check).
TEST(ImageHeaderTest, DamagedAndRandomDataNeverCrash) {
  for (const char* file :
       {"baseline_420.jpg", "progressive_420.jpg", "exif_orientation_6.jpg",
        "rgba.png", "palette.png"}) {
    Bytes data = ReadFile(file);
    for (size_t i = 0; i < data.size(); ++i) {
      for (uint8_t mask : {0x01, 0x80, 0xFF}) {
        data[i] ^= mask;
        (void)ReadJpegHeader(data);
        (void)ReadPngHeader(data);
        data[i] ^= mask;
      }
    }
  }
  std::mt19937 random(7);
  for (int round = 0; round < 2000; ++round) {
    Bytes data(random() % 64);
    for (uint8_t& b : data) b = static_cast<uint8_t>(random());
    if (round % 2 == 0 && data.size() >= 2) data[0] = 0xFF, data[1] = 0xD8;
    (void)ReadJpegHeader(data);
    (void)ReadPngHeader(data);
  }
}

// ---- Hand-made JPEG headers ----

Bytes Segment(uint8_t marker, const Bytes& payload) {
  Bytes out = {0xFF, marker, static_cast<uint8_t>((payload.size() + 2) >> 8),
               static_cast<uint8_t>(payload.size() + 2)};
  out.insert(out.end(), payload.begin(), payload.end());
  return out;
}

// A frame header of 8-bit components {id, h, v}.
Bytes Sof(uint16_t width, uint16_t height,
          std::initializer_list<std::array<uint8_t, 3>> components,
          uint8_t marker = 0xC0, uint8_t precision = 8) {
  Bytes payload = {precision,
                   static_cast<uint8_t>(height >> 8),
                   static_cast<uint8_t>(height),
                   static_cast<uint8_t>(width >> 8),
                   static_cast<uint8_t>(width),
                   static_cast<uint8_t>(components.size())};
  for (const auto& c : components) {
    payload.insert(payload.end(),
                   {c[0], static_cast<uint8_t>(c[1] << 4 | c[2]), 0});
  }
  return Segment(marker, payload);
}

Bytes Sos(std::initializer_list<uint8_t> ids) {
  Bytes payload = {static_cast<uint8_t>(ids.size())};
  for (uint8_t id : ids) payload.insert(payload.end(), {id, 0});
  payload.insert(payload.end(), {0, 63, 0});
  return Segment(0xDA, payload);
}

Bytes Jpeg(std::initializer_list<Bytes> parts) {
  Bytes out = {0xFF, 0xD8};
  for (const Bytes& part : parts)
    out.insert(out.end(), part.begin(), part.end());
  return out;
}

const Bytes kYcc420 = Sof(64, 32, {{1, 2, 2}, {2, 1, 1}, {3, 1, 1}});
const Bytes kScan = Sos({1, 2, 3});

// An APP1 Exif segment whose IFD0 holds `entries` (tag, type, count, value).
Bytes Exif(bool big_endian,
           std::initializer_list<std::array<uint32_t, 4>> entries,
           uint32_t ifd_offset = 8) {
  Bytes tiff;
  auto put16 = [&](uint32_t v) {
    if (big_endian) {
      tiff.insert(tiff.end(), {uint8_t(v >> 8), uint8_t(v)});
    } else {
      tiff.insert(tiff.end(), {uint8_t(v), uint8_t(v >> 8)});
    }
  };
  auto put32 = [&](uint32_t v) {
    if (big_endian) {
      put16(v >> 16);
      put16(v & 0xFFFF);
    } else {
      put16(v & 0xFFFF);
      put16(v >> 16);
    }
  };
  const uint8_t order = big_endian ? 'M' : 'I';
  tiff.insert(tiff.end(), {order, order});
  put16(42);
  put32(ifd_offset);
  put16(static_cast<uint32_t>(entries.size()));
  for (const auto& e : entries) {
    put16(e[0]);
    put16(e[1]);
    put32(e[2]);
    put16(e[3]);
    put16(0);
  }
  put32(0);
  Bytes payload = {'E', 'x', 'i', 'f', 0, 0};
  payload.insert(payload.end(), tiff.begin(), tiff.end());
  return Segment(0xE1, payload);
}

absl::Status JpegStatus(const Bytes& data) {
  return ReadJpegHeader(data).status();
}

TEST(JpegHeaderTest, ReadsEveryFrameKindButTheTableMarkers) {
  for (uint8_t sof : {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA,
                      0xCB, 0xCD, 0xCE, 0xCF}) {
    absl::StatusOr<JpegInfo> info = ReadJpegHeader(
        Jpeg({Sof(64, 32, {{1, 2, 2}, {2, 1, 1}, {3, 1, 1}}, sof), kScan}));
    ASSERT_TRUE(info.ok()) << int{sof} << info.status();
    EXPECT_EQ(info->sof_marker, sof);
    EXPECT_EQ(info->width, 64u);
    EXPECT_EQ(info->height, 32u);
  }
  // DHT, JPG and DAC are skipped as segments (here with frame-like bytes).
  for (uint8_t table : {0xC4, 0xC8, 0xCC}) {
    Bytes fake = Sof(1, 1, {{9, 1, 1}}, table);
    absl::StatusOr<JpegInfo> info =
        ReadJpegHeader(Jpeg({fake, kYcc420, kScan}));
    ASSERT_TRUE(info.ok()) << info.status();
    EXPECT_EQ(info->width, 64u);
  }
  // 12-bit and lossless 16-bit precision.
  EXPECT_EQ(ReadJpegHeader(Jpeg({Sof(8, 8, {{1, 1, 1}}, 0xC1, 12), Sos({1})}))
                ->precision,
            12);
  EXPECT_TRUE(
      ReadJpegHeader(Jpeg({Sof(8, 8, {{1, 1, 1}}, 0xC3, 16), Sos({1})})).ok());
}

TEST(JpegHeaderTest, SubsamplingFromTheSamplingFactors) {
  struct {
    std::array<uint8_t, 3> y, cb, cr;
    JpegSubsampling expected;
  } cases[] = {
      {{1, 2, 2}, {2, 1, 1}, {3, 1, 1}, JpegSubsampling::k420},
      {{1, 2, 2}, {2, 2, 2}, {3, 2, 2}, JpegSubsampling::k444},
      {{1, 4, 2}, {2, 2, 2}, {3, 2, 2}, JpegSubsampling::k422},
      {{1, 2, 4}, {2, 2, 2}, {3, 2, 2}, JpegSubsampling::k440},
      {{1, 4, 1}, {2, 1, 1}, {3, 1, 1}, JpegSubsampling::k411},
      {{1, 4, 4}, {2, 1, 1}, {3, 1, 1}, JpegSubsampling::kUnknown},  // 4:2:0/2
      {{1, 2, 2}, {2, 1, 1}, {3, 2, 1}, JpegSubsampling::kUnknown},  // Cb != Cr
      {{1, 3, 1}, {2, 2, 1}, {3, 2, 1}, JpegSubsampling::kUnknown},  // 3/2
      {{1, 1, 1},
       {2, 2, 2},
       {3, 2, 2},
       JpegSubsampling::kUnknown},  // chroma up
  };
  for (const auto& c : cases) {
    absl::StatusOr<JpegInfo> info = ReadJpegHeader(
        Jpeg({Segment(0xC0, {8, 0, 16, 0, 16, 3, c.y[0],
                             uint8_t(c.y[1] << 4 | c.y[2]), 0, c.cb[0],
                             uint8_t(c.cb[1] << 4 | c.cb[2]), 0, c.cr[0],
                             uint8_t(c.cr[1] << 4 | c.cr[2]), 0}),
              kScan}));
    ASSERT_TRUE(info.ok()) << info.status();
    EXPECT_EQ(info->subsampling, c.expected)
        << int{c.y[1]} << "x" << int{c.y[2]} << " " << int{c.cb[1]} << "x"
        << int{c.cb[2]};
  }
  // Two or four components have no subsampling of the enum.
  EXPECT_EQ(
      ReadJpegHeader(Jpeg({Sof(8, 8, {{1, 1, 1}, {2, 1, 1}}), Sos({1, 2})}))
          ->subsampling,
      JpegSubsampling::kUnknown);
}

TEST(JpegHeaderTest, ColorSpaceAsLibjpegChoosesIt) {
  const Bytes rgb_ids = Sof(8, 8, {{'R', 1, 1}, {'G', 1, 1}, {'B', 1, 1}});
  const Bytes rgb_scan = Sos({'R', 'G', 'B'});
  const Bytes jfif =
      Segment(0xE0, {'J', 'F', 'I', 'F', 0, 1, 1, 0, 0, 1, 0, 1, 0, 0});
  auto adobe = [](uint8_t transform) {
    return Segment(0xEE,
                   {'A', 'd', 'o', 'b', 'e', 0, 100, 0, 0, 0, 0, transform});
  };
  const Bytes cmyk = Sof(8, 8, {{1, 1, 1}, {2, 1, 1}, {3, 1, 1}, {4, 1, 1}});
  const Bytes cmyk_scan = Sos({1, 2, 3, 4});
  EXPECT_EQ(ReadJpegHeader(Jpeg({rgb_ids, rgb_scan}))->color_space,
            JpegColorSpace::kRgb);
  EXPECT_EQ(ReadJpegHeader(Jpeg({jfif, rgb_ids, rgb_scan}))->color_space,
            JpegColorSpace::kYCbCr);
  EXPECT_EQ(ReadJpegHeader(Jpeg({adobe(0), kYcc420, kScan}))->color_space,
            JpegColorSpace::kRgb);
  EXPECT_EQ(ReadJpegHeader(Jpeg({adobe(1), rgb_ids, rgb_scan}))->color_space,
            JpegColorSpace::kYCbCr);
  EXPECT_EQ(ReadJpegHeader(Jpeg({cmyk, cmyk_scan}))->color_space,
            JpegColorSpace::kCmyk);
  EXPECT_EQ(ReadJpegHeader(Jpeg({adobe(2), cmyk, cmyk_scan}))->color_space,
            JpegColorSpace::kYcck);
}

TEST(JpegHeaderTest, ExifOrientationFiveToEightSwapsWidthAndHeight) {
  for (bool big_endian : {true, false}) {
    for (uint32_t orientation = 1; orientation <= 8; ++orientation) {
      absl::StatusOr<JpegInfo> info = ReadJpegHeader(Jpeg(
          {Exif(big_endian, {{0x010F, 2, 4, 0}, {0x0112, 3, 1, orientation}}),
           kYcc420, kScan}));
      ASSERT_TRUE(info.ok()) << info.status();
      EXPECT_EQ(info->orientation, static_cast<int>(orientation));
      const bool turned = orientation >= 5;
      EXPECT_EQ(info->width, turned ? 32u : 64u);
      EXPECT_EQ(info->height, turned ? 64u : 32u);
      EXPECT_EQ(info->coded_width, 64u);
    }
  }
  // The Exif segment may follow the frame header.
  EXPECT_EQ(
      ReadJpegHeader(Jpeg({kYcc420, Exif(true, {{0x0112, 3, 1, 6}}), kScan}))
          ->width,
      32u);
}

TEST(JpegHeaderTest, UnreadableExifLeavesTheImageUnturned) {
  const Bytes cases[] = {
      Exif(true, {{0x0112, 3, 1, 9}}),        // not an orientation
      Exif(true, {{0x0112, 3, 1, 0}}),        // not an orientation
      Exif(true, {{0x0112, 4, 1, 6}}),        // LONG, not SHORT
      Exif(true, {{0x0112, 3, 0, 6}}),        // no value
      Exif(true, {{0x0112, 3, 1, 6}}, 4000),  // IFD past the end
      Exif(true, {{0x0112, 3, 1, 6}}, 22),    // IFD at the last bytes
      Segment(0xE1, {'E', 'x', 'i', 'f', 0, 0, 'X', 'X', 0, 42, 0, 0, 0, 8}),
      Segment(0xE1, {'E', 'x', 'i', 'f', 0, 0, 'M', 'M', 0, 43, 0, 0, 0, 8}),
      Segment(0xE1, {'E', 'x', 'i', 'f', 0, 0, 'M', 'M', 0}),
      // 65535 entries announced, one present.
      Segment(0xE1,
              {'E',  'x',  'i',  'f',  0, 0, 'M', 'M', 0, 42, 0, 0, 0, 8,
               0xFF, 0xFF, 0x01, 0x0F, 0, 3, 0,   0,   0, 1,  0, 6, 0, 0}),
      // Not Exif: another APP1 (XMP).
      Segment(0xE1, {'h', 't', 't', 'p', ':', '/', '/'}),
  };
  for (const Bytes& exif : cases) {
    absl::StatusOr<JpegInfo> info =
        ReadJpegHeader(Jpeg({exif, kYcc420, kScan}));
    ASSERT_TRUE(info.ok()) << info.status();
    EXPECT_EQ(info->orientation, 1);
    EXPECT_EQ(info->width, 64u);
  }
  // The first Exif segment counts.
  EXPECT_EQ(
      ReadJpegHeader(Jpeg({Exif(true, {{0x0112, 3, 1, 1}}),
                           Exif(true, {{0x0112, 3, 1, 6}}), kYcc420, kScan}))
          ->orientation,
      1);
}

TEST(JpegHeaderTest, SkipsFillBytesAndStrayDataAsLibjpegDoes) {
  Bytes data = Jpeg({Segment(0xFE, {'h', 'i'})});
  data.insert(data.end(), {0x12, 0x34, 0xFF, 0x00, 0xFF, 0xFF, 0xFF});
  data.insert(data.end(), kYcc420.begin() + 1, kYcc420.end());  // after FF
  data.insert(data.end(), {0xFF, 0xD0, 0xFF, 0x01});            // RST0, TEM
  data.insert(data.end(), kScan.begin(), kScan.end());
  absl::StatusOr<JpegInfo> info = ReadJpegHeader(data);
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->width, 64u);
  EXPECT_EQ(info->header_size, data.size());
}

TEST(JpegHeaderTest, BadHeadersSayWhatAndWhere) {
  struct {
    Bytes data;
    const char* message;
  } cases[] = {
      {{}, "JPEG at byte 0: the data ends before the SOI marker (FF D8)"},
      {{0xFF}, "JPEG at byte 1: the data ends before the SOI marker"},
      {{'G', 'I', 'F', '8'},
       "JPEG at byte 0: not a JPEG: it starts with 47 49, not the SOI marker"},
      {Jpeg({}),
       "JPEG at byte 2: the data ends before the first scan header (SOS) and "
       "the frame header (SOF)"},
      {Jpeg({kYcc420}),
       "JPEG at byte 21: the data ends before the first scan header (SOS)"},
      {Jpeg({{0xFF, 0xE0, 0x00}}),
       "JPEG at byte 5: the data ends inside the length of marker FF E0 at "
       "byte 2"},
      {Jpeg({{0xFF, 0xE0, 0x00, 0x01}}),
       "JPEG at byte 2: marker FF E0 has length 1, less than its own 2 bytes"},
      {Jpeg({{0xFF, 0xE1, 0x01, 0x00, 'E', 'x'}}),
       "JPEG at byte 2: segment FF E1 of 256 bytes runs past the end of the "
       "data (8 bytes)"},
      {Jpeg({{0xFF, 0xD8}}), "JPEG at byte 2: a second SOI marker (FF D8)"},
      {Jpeg({{0xFF, 0xD9}, kYcc420, kScan}),
       "JPEG at byte 2: the EOI marker (FF D9) before any scan: no image"},
      {Jpeg({kScan, kYcc420}),
       "JPEG at byte 2: a scan (SOS) before the frame header (SOF)"},
      {Jpeg({kYcc420, kYcc420, kScan}),
       "JPEG at byte 21: a second frame header FF C0"},
      {Jpeg({Sof(0, 8, {{1, 1, 1}}), Sos({1})}), "JPEG at byte 9: width 0"},
      {Jpeg({Sof(8, 0, {{1, 1, 1}}), Sos({1})}),
       "JPEG at byte 7: height 0 (an image whose height a DNL marker gives "
       "later is not supported)"},
      {Jpeg({Sof(65501, 8, {{1, 1, 1}}), Sos({1})}),
       "JPEG at byte 7: 65501x8 is larger than 65500 pixels a side"},
      {Jpeg({Sof(8, 8, {{1, 1, 1}}, 0xC0, 1), Sos({1})}),
       "JPEG at byte 6: sample precision 1 bits is not 2..16"},
      {Jpeg({Sof(8, 8, {}), Sos({1})}),
       "JPEG at byte 11: 0 components; a frame has 1..10"},
      {Jpeg({Segment(0xC0, {8, 0, 8, 0, 8, 11}), Sos({1})}),
       "JPEG at byte 11: 11 components; a frame has 1..10"},
      {Jpeg({Segment(0xC0, {8, 0, 8, 0, 8, 2, 1, 0x11, 0}), Sos({1})}),
       "JPEG at byte 2: the frame header is 11 bytes long, 2 components need "
       "14"},
      {Jpeg({Segment(0xC0, {8, 0, 8}), Sos({1})}),
       "JPEG at byte 2: the frame header FF C0 is 5 bytes long, less than 8"},
      {Jpeg({Sof(8, 8, {{1, 1, 1}, {2, 0, 1}}), Sos({1})}),
       "JPEG at byte 16: component 1 has sampling factors 0x1; each must be "
       "1..4"},
      {Jpeg({Sof(8, 8, {{1, 5, 1}}), Sos({1})}),
       "JPEG at byte 13: component 0 has sampling factors 5x1"},
      {Jpeg({kYcc420, Sos({1, 7})}),
       "JPEG at byte 28: the scan names component id 7, which the frame "
       "header does not have"},
      {Jpeg({kYcc420, Segment(0xDA, {0, 0, 63, 0})}),
       "JPEG at byte 21: the scan header is 6 bytes long with 0 components"},
      {Jpeg({kYcc420, Segment(0xDA, {2, 1, 0, 0, 63, 0})}),
       "JPEG at byte 21: the scan header is 8 bytes long with 2 components"},
  };
  for (const auto& c : cases) {
    EXPECT_THAT(Message(JpegStatus(c.data)), HasSubstr(c.message));
  }
}

// ---- Hand-made PNG headers ----

uint32_t Crc(const Bytes& bytes, size_t from, size_t n) {
  uint32_t crc = 0xFFFFFFFFu;
  for (size_t i = from; i < from + n; ++i) {
    crc ^= bytes[i];
    for (int k = 0; k < 8; ++k)
      crc = crc & 1 ? 0xEDB88320u ^ (crc >> 1) : crc >> 1;
  }
  return crc ^ 0xFFFFFFFFu;
}

void Put32(Bytes* bytes, size_t at, uint32_t value) {
  for (int i = 0; i < 4; ++i) (*bytes)[at + i] = uint8_t(value >> (24 - 8 * i));
}

// Signature and IHDR (with its CRC) of the given fields.
Bytes Png(uint32_t width, uint32_t height, uint8_t depth, uint8_t color,
          uint8_t compression = 0, uint8_t filter = 0, uint8_t interlace = 0) {
  Bytes out = {0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A,
               0,    0,   0,   13,  'I',  'H',  'D',  'R'};
  out.resize(33);
  Put32(&out, 16, width);
  Put32(&out, 20, height);
  out[24] = depth;
  out[25] = color;
  out[26] = compression;
  out[27] = filter;
  out[28] = interlace;
  Put32(&out, 29, Crc(out, 12, 17));
  return out;
}

TEST(PngHeaderTest, EveryColorTypeAndDepthThePngStandardAllows) {
  struct {
    uint8_t color;
    std::initializer_list<uint8_t> depths;
    int components;
  } allowed[] = {{0, {1, 2, 4, 8, 16}, 1},
                 {2, {8, 16}, 3},
                 {3, {1, 2, 4, 8}, 3},
                 {4, {8, 16}, 2},
                 {6, {8, 16}, 4}};
  for (const auto& a : allowed) {
    for (uint8_t depth = 0; depth <= 32; ++depth) {
      absl::StatusOr<PngInfo> info = ReadPngHeader(Png(3, 2, depth, a.color));
      const bool ok =
          std::find(a.depths.begin(), a.depths.end(), depth) != a.depths.end();
      ASSERT_EQ(info.ok(), ok) << int{a.color} << " " << int{depth};
      if (ok) {
        EXPECT_EQ(info->components, a.components);
        EXPECT_EQ(info->bit_depth, depth);
      } else {
        EXPECT_THAT(
            Message(info.status()),
            HasSubstr("PNG at byte 24: bit depth " + std::to_string(depth) +
                      " is not allowed for color type " +
                      std::to_string(a.color)));
      }
    }
  }
  EXPECT_TRUE(ReadPngHeader(Png(0x7FFFFFFF, 0x7FFFFFFF, 8, 6)).ok());
  EXPECT_TRUE(ReadPngHeader(Png(1, 1, 8, 2, 0, 0, 1))->interlaced);
}

TEST(PngHeaderTest, BadHeadersSayWhatAndWhere) {
  Bytes bad_crc = Png(4, 4, 8, 2);
  bad_crc[32] ^= 1;
  Bytes not_ihdr = Png(4, 4, 8, 2);
  not_ihdr[12] = 'i';
  Bytes long_ihdr = Png(4, 4, 8, 2);
  long_ihdr[11] = 14;
  const Bytes good = Png(4, 4, 8, 2);
  const Bytes cut(good.begin(), good.begin() + 30);
  struct {
    Bytes data;
    const char* message;
  } cases[] = {
      {{}, "PNG at byte 0: the data ends inside the 8-byte signature"},
      {{0x89, 'P', 'N'}, "PNG at byte 3: the data ends inside the 8-byte"},
      {{0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x0A, 0x0A},
       "PNG at byte 6: not a PNG: the signature's byte is 1A, the data's 0A"},
      {{0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A, 0, 0},
       "PNG at byte 10: the data ends before the first chunk's length and "
       "type"},
      {not_ihdr, "PNG at byte 12: the first chunk is 69484452, not IHDR"},
      {long_ihdr, "PNG at byte 8: the IHDR chunk is 14 bytes long, not 13"},
      {cut,
       "PNG at byte 30: the data ends inside the IHDR chunk (bytes 8..32)"},
      {Png(0, 4, 8, 2), "PNG at byte 16: width 0 is not 1..2147483647"},
      {Png(4, 0, 8, 2), "PNG at byte 20: height 0 is not 1..2147483647"},
      {Png(0x80000000u, 4, 8, 2),
       "PNG at byte 16: width 2147483648 is not 1..2147483647"},
      {Png(4, 0xFFFFFFFFu, 8, 2),
       "PNG at byte 20: height 4294967295 is not 1..2147483647"},
      {Png(4, 4, 8, 5), "PNG at byte 25: color type 5 is not 0, 2, 3, 4 or 6"},
      {Png(4, 4, 8, 2, 1), "PNG at byte 26: compression method 1 is not 0"},
      {Png(4, 4, 8, 2, 0, 1), "PNG at byte 27: filter method 1 is not 0"},
      {Png(4, 4, 8, 2, 0, 0, 2),
       "PNG at byte 28: interlace method 2 is not 0 or 1"},
      {bad_crc, "PNG at byte 29: the IHDR checksum is "},
  };
  for (const auto& c : cases) {
    EXPECT_THAT(Message(ReadPngHeader(c.data).status()), HasSubstr(c.message));
  }
}

}  // namespace
}  // namespace acldump::media
