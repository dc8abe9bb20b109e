#include "dump/format/device_layout.h"

#include <cstring>
#include <random>

#include "dump/format/testing/device_encoder.h"
#include "gtest/gtest.h"

namespace acldump::dump {
namespace {

using testing::EncodeDeviceLayout;
using Dims = std::vector<int64_t>;

std::vector<uint64_t> U(const Dims& dims) {
  return std::vector<uint64_t>(dims.begin(), dims.end());
}

int64_t Count(const Dims& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

// Distinct non-zero elements, so that a misplaced or padding element shows.
std::string RandomTensor(const Dims& dims, size_t element_size, uint32_t seed) {
  std::mt19937 rng(seed);
  std::string bytes(static_cast<size_t>(Count(dims)) * element_size, '\0');
  for (size_t i = 0; i < bytes.size(); ++i) {
    bytes[i] = static_cast<char>(1 + rng() % 255);
  }
  return bytes;
}

struct Case {
  int32_t format;
  Dims shape;  // logical, canonical order
  int64_t c0;
  size_t element_size;
  int64_t groups = 1;
};

class RoundTripTest : public ::testing::TestWithParam<Case> {};

TEST_P(RoundTripTest, ReaderUndoesTheEncoder) {
  const Case& c = GetParam();
  const std::string logical = RandomTensor(c.shape, c.element_size, 7);
  const auto encoded = EncodeDeviceLayout(c.format, c.shape, c.element_size,
                                          logical, c.c0, c.groups);
  DeviceTensorLayout layout;
  layout.format = c.format;
  layout.sub_format = static_cast<int32_t>(c.groups);
  layout.shape = encoded.shape;
  layout.original_shape = U(c.shape);
  ASSERT_TRUE(NeedsLayoutTransform(layout));
  absl::StatusOr<LogicalTensorBytes> back =
      DeviceToLogical(layout, c.element_size, encoded.bytes);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->shape, c.shape);
  EXPECT_TRUE(back->bytes == logical);
}

INSTANTIATE_TEST_SUITE_P(
    AwkwardSizes, RoundTripTest,
    ::testing::Values(
        // C not a multiple of C0; C0 16 (2-byte), 32 (1-byte), 8 (fp32).
        Case{kFormatNc1hwc0, {2, 3, 5, 7}, 16, 2},
        Case{kFormatNc1hwc0, {1, 33, 4, 3}, 32, 1},
        Case{kFormatNc1hwc0, {3, 17, 2, 2}, 8, 4},
        Case{kFormatNc1hwc0, {1, 16, 3, 3}, 16, 2},  // C == C0
        Case{kFormatNc1hwc0C04, {2, 3, 6, 5}, 4, 2},
        Case{kFormatNdc1hwc0, {2, 19, 3, 4, 5}, 16, 2},
        // N not a multiple of 16, C not of C0.
        Case{kFormatFractalZ, {17, 3, 3, 3}, 16, 2},
        Case{kFormatFractalZ, {5, 40, 1, 1}, 32, 1},
        Case{kFormatFractalZ, {33, 20, 2, 3}, 8, 4},
        Case{kFormatFractalZ3d, {18, 5, 2, 3, 3}, 16, 2},
        Case{kFormatC1hwncoc0, {3, 20, 3, 3}, 16, 2},
        Case{kFormatFractalNz, {37, 45}, 16, 2},
        Case{kFormatFractalNz, {2, 3, 17, 40}, 32, 1},
        Case{kFormatFractalNz, {5, 1, 8}, 16, 4},
        Case{kFormatFractalNz, {20}, 16, 2},
        Case{kFormatFractalNz, {16, 16}, 16, 8},
        Case{kFormatFractalZC04, {20, 3, 3, 3}, 16, 2},
        Case{kFormatFractalZC04, {3, 4, 5, 2}, 32, 1},
        // Grouped convolutions: depthwise, few channels per group, groups
        // not a multiple of the groups one block holds, 1-byte C0 = 32.
        Case{kFormatFractalZ, {32, 1, 3, 3}, 16, 2, 32},
        Case{kFormatFractalZ, {8, 1, 1, 1}, 16, 2, 4},
        Case{kFormatFractalZ, {64, 8, 1, 1}, 16, 2, 8},
        Case{kFormatFractalZ, {30, 3, 2, 3}, 16, 4, 5},
        Case{kFormatFractalZ, {21, 5, 1, 2}, 32, 1, 7},
        Case{kFormatFractalZ, {48, 24, 3, 3}, 16, 2, 2},
        // LSTM weights [input + hidden, 4·hidden]: parts not multiples of 16.
        Case{kFormatFractalZnLstm, {20 + 12, 48}, 16, 2},
        Case{kFormatFractalZnLstm, {3 + 17, 68}, 16, 4}));

// The worked examples of the device's own converters, one element each: the
// flat device index of one logical element (fp16, C0 = 16).
struct Example {
  int32_t format;
  Dims shape;
  int64_t groups;
  Dims element;
  int64_t device_index;
};

TEST(DeviceLayoutTest, ElementsLandWhereTheDevicesConvertersPutThem) {
  const Example examples[] = {
      {kFormatFractalZ, {8, 1, 1, 1}, 4, {5, 0, 0, 0}, 82},
      {kFormatFractalZ, {32, 1, 3, 3}, 32, {20, 0, 1, 2}, 3652},
      {kFormatFractalZ, {64, 8, 1, 1}, 8, {37, 5, 0, 0}, 597},
      {kFormatFractalZ, {20, 3, 2, 2}, 1, {17, 2, 1, 0}, 1298},
      {kFormatFractalZ3d, {4, 20, 2, 1, 2}, 1, {2, 18, 1, 0, 1}, 1826},
      {kFormatC1hwncoc0, {2, 20, 1, 2}, 1, {1, 17, 0, 1}, 1809},
      {kFormatFractalZnLstm, {32, 48}, 1, {25, 30}, 2661},
      {kFormatNc1hwc0, {1, 20, 2, 2}, 1, {0, 17, 1, 0}, 97},
      {kFormatFractalNz, {20, 40}, 1, {17, 35}, 1299},
      {kFormatFractalZC04, {32, 3, 3, 3}, 1, {20, 2, 1, 2}, 838},
  };
  for (const Example& e : examples) {
    // A device tensor holding 1 at the example's index, 0 elsewhere.
    const std::string zeros(static_cast<size_t>(Count(e.shape)) * 2, '\0');
    const auto encoded =
        EncodeDeviceLayout(e.format, e.shape, 2, zeros, 16, e.groups);
    std::string device(encoded.bytes.size(), '\0');
    ASSERT_LT(e.device_index * 2 + 1, static_cast<int64_t>(device.size()));
    device[e.device_index * 2] = 1;
    DeviceTensorLayout layout;
    layout.format = e.format;
    layout.shape = encoded.shape;
    layout.original_shape = U(e.shape);
    layout.sub_format = static_cast<int32_t>(e.groups);
    auto back = DeviceToLogical(layout, 2, device);
    ASSERT_TRUE(back.ok()) << back.status();
    int64_t flat = 0;
    for (size_t k = 0; k < e.shape.size(); ++k) {
      flat = flat * e.shape[k] + e.element[k];
    }
    const auto* values = reinterpret_cast<const uint16_t*>(back->bytes.data());
    for (int64_t i = 0; i < Count(e.shape); ++i) {
      ASSERT_EQ(values[i], i == flat ? 1 : 0)
          << "format " << e.format << " element " << i;
    }
  }
}

// A vector stored as an NZ column (the device's shape inference appends a 1).
TEST(DeviceLayoutTest, NzVectorAsAColumn) {
  const int64_t w = 20, c0 = 16;
  std::string device(1 * 2 * 16 * c0, '\0');
  for (int64_t i = 0; i < w; ++i) device[i * c0] = static_cast<char>(i + 1);
  DeviceTensorLayout layout;
  layout.format = kFormatFractalNz;
  layout.shape = {1, 2, 16, 16};
  layout.original_shape = {20};
  auto back = DeviceToLogical(layout, 1, device);
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_EQ(back->shape, (Dims{20}));
  for (int64_t i = 0; i < w; ++i) EXPECT_EQ(back->bytes[i], i + 1);
}

// A hand-written NC1HWC0 tensor: N=1, C=3, H=1, W=2 with C0=4. The device
// holds, per pixel, the 3 channels and one zero.
TEST(DeviceLayoutTest, Nc1hwc0ByHand) {
  const uint8_t device[] = {10, 20, 30, 0, 11, 21, 31, 0};
  DeviceTensorLayout layout;
  layout.format = kFormatNc1hwc0;
  layout.shape = {1, 1, 1, 2, 4};
  layout.original_shape = {1, 3, 1, 2};
  auto back = DeviceToLogical(
      layout, 1, std::string_view(reinterpret_cast<const char*>(device), 8));
  ASSERT_TRUE(back.ok()) << back.status();
  const uint8_t want[] = {10, 11, 20, 21, 30, 31};
  EXPECT_EQ(back->bytes,
            std::string(reinterpret_cast<const char*>(want), sizeof(want)));
  EXPECT_EQ(back->format, kFormatNchw);
}

// The original format decides the order of the result: an NHWC original
// comes back as NHWC, with the original shape as recorded (N, H, W, C).
TEST(DeviceLayoutTest, NhwcOriginalComesBackAsNhwc) {
  const Dims nchw{2, 5, 3, 4};
  const std::string logical = RandomTensor(nchw, 2, 3);
  const auto encoded = EncodeDeviceLayout(kFormatNc1hwc0, nchw, 2, logical, 16);
  DeviceTensorLayout layout;
  layout.format = kFormatNc1hwc0;
  layout.shape = encoded.shape;
  layout.original_shape = {2, 3, 4, 5};
  layout.original_format = kFormatNhwc;
  auto back = DeviceToLogical(layout, 2, encoded.bytes);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->shape, (Dims{2, 3, 4, 5}));
  EXPECT_EQ(back->format, kFormatNhwc);
  const auto* want = reinterpret_cast<const uint16_t*>(logical.data());
  const auto* got = reinterpret_cast<const uint16_t*>(back->bytes.data());
  for (int n = 0; n < 2; ++n)
    for (int c = 0; c < 5; ++c)
      for (int h = 0; h < 3; ++h)
        for (int w = 0; w < 4; ++w)
          ASSERT_EQ(got[((n * 3 + h) * 4 + w) * 5 + c],
                    want[((n * 5 + c) * 3 + h) * 4 + w]);
}

// A plain HWCN device tensor of an NCHW original is transposed.
TEST(DeviceLayoutTest, PlainFormatsAreTransposedToTheOriginal) {
  // HWCN [1, 2, 3, 1]: H=1, W=2, C=3, N=1.
  const uint8_t hwcn[] = {1, 2, 3, 4, 5, 6};  // (w, c): w0c0 w0c1 w0c2 w1c0..
  DeviceTensorLayout layout;
  layout.format = kFormatHwcn;
  layout.shape = {1, 2, 3, 1};
  layout.original_shape = {1, 3, 1, 2};
  layout.original_format = kFormatNchw;
  auto back = DeviceToLogical(
      layout, 1, std::string_view(reinterpret_cast<const char*>(hwcn), 6));
  ASSERT_TRUE(back.ok()) << back.status();
  const uint8_t want[] = {1, 4, 2, 5, 3, 6};  // NCHW: c-major, then w
  EXPECT_EQ(back->bytes,
            std::string(reinterpret_cast<const char*>(want), sizeof(want)));
  EXPECT_EQ(back->shape, (Dims{1, 3, 1, 2}));
  // An input records no original format: a 4-D original shape other than
  // the device's is taken as NCHW.
  layout.original_format = -1;
  back = DeviceToLogical(
      layout, 1, std::string_view(reinterpret_cast<const char*>(hwcn), 6));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->bytes,
            std::string(reinterpret_cast<const char*>(want), sizeof(want)));
}

TEST(DeviceLayoutTest, PlainTensorsReshapeOrLoseTheirPadding) {
  DeviceTensorLayout layout;
  layout.format = kFormatNd;
  layout.shape = {2, 3};
  const uint8_t data[] = {1, 2, 3, 4, 5, 6};
  const std::string_view bytes(reinterpret_cast<const char*>(data), 6);
  EXPECT_FALSE(NeedsLayoutTransform(layout));
  layout.original_shape = {6};
  auto reshaped = DeviceToLogical(layout, 1, bytes);
  ASSERT_TRUE(reshaped.ok());
  EXPECT_EQ(reshaped->shape, (Dims{6}));
  EXPECT_EQ(reshaped->bytes, bytes);
  layout.original_shape = {2, 2};
  auto sliced = DeviceToLogical(layout, 1, bytes);
  ASSERT_TRUE(sliced.ok());
  EXPECT_EQ(sliced->bytes, std::string("\x01\x02\x04\x05"));
}

TEST(DeviceLayoutTest, ErrorsNameTheFormatAndBothShapes) {
  DeviceTensorLayout layout;
  layout.format = kFormatNc1hwc0;
  layout.shape = {1, 2, 2, 2, 16};
  layout.original_shape = {1, 3, 2, 2};  // 3 channels need one C1 block
  const std::string bytes(1 * 2 * 2 * 2 * 16 * 2, '\0');
  absl::StatusOr<LogicalTensorBytes> r = DeviceToLogical(layout, 2, bytes);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "NC1HWC0 shape [1,2,2,2,16] does not hold original [1,3,2,2]: "
            "expected [1,1,2,2,16] (N, C/C0 rounded up, H, W, C0)");

  layout.original_shape = {1, 32, 2, 2};
  r = DeviceToLogical(layout, 2, bytes.substr(2));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "NC1HWC0 shape [1,2,2,2,16] needs 256 bytes of 2-byte elements; "
            "the data has 254");

  layout.format = kFormatFractalZ;
  layout.shape = {4, 1, 16, 16};
  layout.original_shape.clear();
  r = DeviceToLogical(layout, 2, std::string(4 * 16 * 16 * 2, '\0'));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "FRACTAL_Z tensors can only be read back with their original "
            "shape, which the header does not record");

  layout.format = 44;  // FRACTAL_ZN_RNN
  layout.shape = {2};
  r = DeviceToLogical(layout, 2, std::string(4, '\0'));
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(std::string(r.status().message())
                  .starts_with("device format FRACTAL_ZN_RNN cannot be read "
                               "back (supported: ND,"))
      << r.status();

  layout.format = kFormatNd;
  layout.shape = {2};
  r = DeviceToLogical(layout, 3, std::string(6, '\0'));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "elements of 3 bytes cannot be rearranged (1, 2, 4 or 8 bytes)");
}

// Without an original shape the padded channels stay (there is nothing to
// slice them to).
TEST(DeviceLayoutTest, NoOriginalShapeKeepsThePadding) {
  DeviceTensorLayout layout;
  layout.format = kFormatNc1hwc0;
  layout.shape = {1, 2, 1, 1, 4};
  const uint8_t data[] = {1, 2, 3, 4, 5, 6, 7, 8};
  auto back = DeviceToLogical(
      layout, 1, std::string_view(reinterpret_cast<const char*>(data), 8));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->shape, (Dims{1, 8, 1, 1}));
  EXPECT_EQ(back->bytes,
            std::string_view(reinterpret_cast<const char*>(data), 8));
}

}  // namespace
}  // namespace acldump::dump

namespace acldump::dump {
namespace {

// Shapes are untrusted: products that overflow, or an original larger than
// the device tensor, are refused before anything is allocated.
TEST(DeviceLayoutTest, UntrustedShapesAreBounded) {
  DeviceTensorLayout layout;
  layout.format = kFormatFractalNz;
  layout.shape = {1, 1, 16, 16};
  layout.original_shape = {uint64_t{1} << 40, uint64_t{1} << 40};
  auto r = DeviceToLogical(layout, 1, std::string(256, '\0'));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "shape [1099511627776,1099511627776] has more elements than a "
            "dump can hold");
  layout.original_shape = {17, 16};
  r = DeviceToLogical(layout, 1, std::string(256, '\0'));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "FRACTAL_NZ shape [1,1,16,16] cannot hold original [17,16] (272 "
            "elements in 256)");
}

}  // namespace
}  // namespace acldump::dump
