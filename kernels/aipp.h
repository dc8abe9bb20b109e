// AIPP, the NPU's image preprocessing in front of a model input, on the CPU:
// crop, color space conversion (with R/B or U/V and alpha swaps), padding and
// the data type conversion (pixel - mean - min) * var_reci, from 8-bit images
// (YUV420SP, YUV400, RGB888, XRGB8888, ARGB8888) to a float NCHW input.
// The arithmetic follows the device kernel's: the color matrix in units of
// 1/256 rounded to nearest, results clamped to 0..255; the data type
// conversion is done in float32 (the device rounds it to float16).
#ifndef ACLDUMP_KERNELS_AIPP_H_
#define ACLDUMP_KERNELS_AIPP_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "kernels/attributes.h"

namespace acldump::aipp {

// The SDK's aclAippInputFormat values.
enum ImageFormat : int32_t {
  kYuv420Sp = 1,
  kXrgb8888 = 2,
  kRgb888 = 3,
  kYuv400 = 4,
  kArgb8888 = 7,
};

// The SDK's name of a format ("YUV420SP_U8"), or "" for one acldump does not
// preprocess.
std::string_view FormatName(int32_t format);
// The format named so (a converter config's input_format), or 0.
int32_t FormatByName(std::string_view name);
// Bytes of one `width` x `height` image, 0 for an unsupported format or odd
// YUV420SP sizes.
size_t ImageBytes(int32_t format, int64_t width, int64_t height);
// The image input's shape per image ([height, width, channels]; YUV420SP as
// [height * 3 / 2, width, 1]).
std::vector<int64_t> ImageDims(int32_t format, int64_t width, int64_t height);

// What may change per image of a batch.
struct BatchParams {
  bool crop = false;
  int32_t crop_x = 0, crop_y = 0, crop_width = 0, crop_height = 0;
  bool padding = false;
  int32_t pad_top = 0, pad_bottom = 0, pad_left = 0, pad_right = 0;
  std::array<int16_t, 4> mean{};
  std::array<float, 4> min{};
  std::array<float, 4> var_reci{1, 1, 1, 1};
};

struct Params {
  int32_t input_format = 0;
  int32_t src_width = 0, src_height = 0;
  bool csc = false;
  bool rbuv_swap = false;
  bool ax_swap = false;
  std::array<int16_t, 9> matrix{};  // row-major, units of 1/256
  std::array<uint8_t, 3> output_bias{};
  std::array<uint8_t, 3> input_bias{};
  float padding_value = 0;
  // One for every image (static AIPP), or one per image (dynamic AIPP).
  std::vector<BatchParams> batches{BatchParams{}};
};

// The SDK's dynamic AIPP parameter block (the model input named
// "ascend_dynamic_aipp_data"): a 64-byte header, then 96 bytes per image.
inline constexpr size_t kDynamicHeaderBytes = 64;
inline constexpr size_t kDynamicBatchBytes = 96;
inline constexpr size_t kMaxDynamicBatches = 127;
size_t DynamicDataBytes(size_t batches);
// Writes `params` in the block's layout (mins and var_recis as float16) into
// `out`, which holds DynamicDataBytes(params.batches.size()).
void WriteDynamic(const Params& params, std::span<std::byte> out);
// Reads a block written for `batches` images; untrusted bytes, every field
// checked by Check later.
absl::StatusOr<Params> ReadDynamic(std::span<const std::byte> data,
                                   size_t batches);

// Whether `params` turn `batch` images into a float [batch, channels, height,
// width] input: a supported format and image size, crops inside the image,
// crop (or image) plus padding equal to height x width, 1 or 3 channels.
// The error says which parameter and how it should be.
absl::Status Check(const Params& params, int64_t batch, int64_t channels,
                   int64_t height, int64_t width);

// Preprocesses `batch` images, `image_stride` bytes apart, into `out`
// ([batch, channels, height, width]). `params` passed Check.
void Apply(const Params& params, const uint8_t* images, size_t image_stride,
           int64_t batch, int64_t channels, int64_t height, int64_t width,
           float* out);

// Static parameters as an Aipp node's attributes, and back.
void ToAttributes(const Params& params, Attributes& attrs);
absl::StatusOr<Params> FromAttributes(const Attributes& attrs);

// "YUV420SP_U8 416x416, crop 0,0 224x224, csc on, ..." for messages.
std::string Describe(const Params& params);

}  // namespace acldump::aipp

#endif  // ACLDUMP_KERNELS_AIPP_H_
