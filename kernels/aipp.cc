#include "kernels/aipp.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "base/status_macros.h"
#include "base/strings.h"
#include "kernels/half.h"

namespace acldump::aipp {
namespace {

struct FormatInfo {
  int32_t format;
  std::string_view name;
  // The dynamic block's code for it (the device's own numbering).
  uint8_t device_code;
};

constexpr FormatInfo kFormats[] = {
    {kYuv420Sp, "YUV420SP_U8", 1}, {kXrgb8888, "XRGB8888_U8", 2},
    {kRgb888, "RGB888_U8", 5},     {kYuv400, "YUV400_U8", 10},
    {kArgb8888, "ARGB8888_U8", 6},
};

const FormatInfo* Find(int32_t format) {
  for (const FormatInfo& info : kFormats) {
    if (info.format == format) return &info;
  }
  return nullptr;
}

int32_t BytesPerPixel(int32_t format) {
  switch (format) {
    case kRgb888:
      return 3;
    case kXrgb8888:
    case kArgb8888:
      return 4;
    default:
      return 1;
  }
}

template <typename T>
void Put(std::span<std::byte> out, size_t offset, T value) {
  std::memcpy(out.data() + offset, &value, sizeof(T));
}

template <typename T>
T Take(std::span<const std::byte> in, size_t offset) {
  T value;
  std::memcpy(&value, in.data() + offset, sizeof(T));
  return value;
}

// Offsets of the dynamic block (the SDK's packed structs).
namespace header {
constexpr size_t kFormat = 0, kCsc = 1, kRbuvSwap = 2, kAxSwap = 3,
                 kBatchNum = 4, kSrcWidth = 8, kSrcHeight = 12, kMatrix = 16,
                 kOutputBias = 40, kInputBias = 43;
}  // namespace header
namespace batch {
constexpr size_t kCrop = 0, kScf = 1, kPadding = 2, kRotate = 3, kCropX = 8,
                 kCropY = 12, kCropWidth = 16, kCropHeight = 20, kPadTop = 40,
                 kPadBottom = 44, kPadLeft = 48, kPadRight = 52, kMean = 56,
                 kMin = 64, kVarReci = 72;
}  // namespace batch

int Clamp255(int value) { return std::clamp(value, 0, 255); }

// The device's color matrix step: (M * (x - input_bias)) / 256 rounded, plus
// the output bias, clamped.
std::array<int, 3> Convert(const Params& p, int c0, int c1, int c2) {
  const int t[3] = {c0 - p.input_bias[0], c1 - p.input_bias[1],
                    c2 - p.input_bias[2]};
  std::array<int, 3> out;
  for (int row = 0; row < 3; ++row) {
    const int sum = p.matrix[3 * row] * t[0] * 2 +
                    p.matrix[3 * row + 1] * t[1] * 2 +
                    p.matrix[3 * row + 2] * t[2] * 2 + 1;
    const int scaled =
        static_cast<int>(std::lround(static_cast<float>(sum) / 512.0f));
    out[row] = Clamp255(scaled + p.output_bias[row]);
  }
  return out;
}

}  // namespace

std::string_view FormatName(int32_t format) {
  const FormatInfo* info = Find(format);
  return info ? info->name : std::string_view();
}

int32_t FormatByName(std::string_view name) {
  for (const FormatInfo& info : kFormats) {
    if (info.name == name) return info.format;
  }
  return 0;
}

size_t ImageBytes(int32_t format, int64_t width, int64_t height) {
  if (!Find(format) || width <= 0 || height <= 0 || width > 65536 ||
      height > 65536) {
    return 0;
  }
  const size_t pixels = static_cast<size_t>(width) * height;
  if (format == kYuv420Sp) {
    if (width % 2 != 0 || height % 2 != 0) return 0;
    return pixels * 3 / 2;
  }
  return pixels * BytesPerPixel(format);
}

std::vector<int64_t> ImageDims(int32_t format, int64_t width, int64_t height) {
  if (format == kYuv420Sp) return {height * 3 / 2, width, 1};
  return {height, width, BytesPerPixel(format)};
}

size_t DynamicDataBytes(size_t batches) {
  return kDynamicHeaderBytes + kDynamicBatchBytes * batches;
}

void WriteDynamic(const Params& p, std::span<std::byte> out) {
  std::fill(out.begin(), out.end(), std::byte{0});
  const FormatInfo* info = Find(p.input_format);
  Put<uint8_t>(out, header::kFormat, info ? info->device_code : 0);
  Put<int8_t>(out, header::kCsc, p.csc);
  Put<int8_t>(out, header::kRbuvSwap, p.rbuv_swap);
  Put<int8_t>(out, header::kAxSwap, p.ax_swap);
  Put<int8_t>(out, header::kBatchNum, static_cast<int8_t>(p.batches.size()));
  Put<int32_t>(out, header::kSrcWidth, p.src_width);
  Put<int32_t>(out, header::kSrcHeight, p.src_height);
  for (size_t i = 0; i < 9; ++i)
    Put<int16_t>(out, header::kMatrix + 2 * i, p.matrix[i]);
  for (size_t i = 0; i < 3; ++i) {
    Put<uint8_t>(out, header::kOutputBias + i, p.output_bias[i]);
    Put<uint8_t>(out, header::kInputBias + i, p.input_bias[i]);
  }
  for (size_t b = 0; b < p.batches.size(); ++b) {
    const BatchParams& bp = p.batches[b];
    const size_t at = kDynamicHeaderBytes + b * kDynamicBatchBytes;
    Put<int8_t>(out, at + batch::kCrop, bp.crop);
    Put<int8_t>(out, at + batch::kPadding, bp.padding);
    Put<int32_t>(out, at + batch::kCropX, bp.crop_x);
    Put<int32_t>(out, at + batch::kCropY, bp.crop_y);
    Put<int32_t>(out, at + batch::kCropWidth, bp.crop_width);
    Put<int32_t>(out, at + batch::kCropHeight, bp.crop_height);
    Put<int32_t>(out, at + batch::kPadTop, bp.pad_top);
    Put<int32_t>(out, at + batch::kPadBottom, bp.pad_bottom);
    Put<int32_t>(out, at + batch::kPadLeft, bp.pad_left);
    Put<int32_t>(out, at + batch::kPadRight, bp.pad_right);
    for (size_t c = 0; c < 4; ++c) {
      Put<int16_t>(out, at + batch::kMean + 2 * c, bp.mean[c]);
      Put<uint16_t>(out, at + batch::kMin + 2 * c, FloatToHalfBits(bp.min[c]));
      Put<uint16_t>(out, at + batch::kVarReci + 2 * c,
                    FloatToHalfBits(bp.var_reci[c]));
    }
  }
}

absl::StatusOr<Params> ReadDynamic(std::span<const std::byte> data,
                                   size_t batches) {
  if (batches == 0 || batches > kMaxDynamicBatches ||
      data.size() < DynamicDataBytes(batches)) {
    return absl::InvalidArgumentError(
        StrCat("the dynamic AIPP data holds ", data.size(), " bytes; ", batches,
               " images need ", DynamicDataBytes(batches),
               " (set it with aclmdlSetInputAIPP)"));
  }
  Params p;
  const uint8_t code = Take<uint8_t>(data, header::kFormat);
  for (const FormatInfo& info : kFormats) {
    if (info.device_code == code) p.input_format = info.format;
  }
  if (p.input_format == 0) {
    return absl::InvalidArgumentError(StrCat(
        "the dynamic AIPP data names input format code ", code,
        code == 0 ? " (never set: call aclmdlSetInputAIPP before executing)"
                  : ", which acldump does not preprocess"));
  }
  p.csc = Take<int8_t>(data, header::kCsc) != 0;
  p.rbuv_swap = Take<int8_t>(data, header::kRbuvSwap) != 0;
  p.ax_swap = Take<int8_t>(data, header::kAxSwap) != 0;
  const int8_t stored = Take<int8_t>(data, header::kBatchNum);
  if (stored != static_cast<int8_t>(batches)) {
    return absl::InvalidArgumentError(
        StrCat("the dynamic AIPP data is set for ", stored,
               " images, the model input has ", batches));
  }
  p.src_width = Take<int32_t>(data, header::kSrcWidth);
  p.src_height = Take<int32_t>(data, header::kSrcHeight);
  for (size_t i = 0; i < 9; ++i)
    p.matrix[i] = Take<int16_t>(data, header::kMatrix + 2 * i);
  for (size_t i = 0; i < 3; ++i) {
    p.output_bias[i] = Take<uint8_t>(data, header::kOutputBias + i);
    p.input_bias[i] = Take<uint8_t>(data, header::kInputBias + i);
  }
  p.batches.clear();
  for (size_t b = 0; b < batches; ++b) {
    const size_t at = kDynamicHeaderBytes + b * kDynamicBatchBytes;
    BatchParams bp;
    if (Take<int8_t>(data, at + batch::kScf) != 0 ||
        Take<int8_t>(data, at + batch::kRotate) != 0) {
      return absl::InvalidArgumentError(
          StrCat("image ", b,
                 " of the dynamic AIPP data asks for resizing or rotation, "
                 "which acldump does not do"));
    }
    bp.crop = Take<int8_t>(data, at + batch::kCrop) != 0;
    bp.padding = Take<int8_t>(data, at + batch::kPadding) != 0;
    bp.crop_x = Take<int32_t>(data, at + batch::kCropX);
    bp.crop_y = Take<int32_t>(data, at + batch::kCropY);
    bp.crop_width = Take<int32_t>(data, at + batch::kCropWidth);
    bp.crop_height = Take<int32_t>(data, at + batch::kCropHeight);
    bp.pad_top = Take<int32_t>(data, at + batch::kPadTop);
    bp.pad_bottom = Take<int32_t>(data, at + batch::kPadBottom);
    bp.pad_left = Take<int32_t>(data, at + batch::kPadLeft);
    bp.pad_right = Take<int32_t>(data, at + batch::kPadRight);
    for (size_t c = 0; c < 4; ++c) {
      bp.mean[c] = Take<int16_t>(data, at + batch::kMean + 2 * c);
      bp.min[c] =
          HalfBitsToFloat(Take<uint16_t>(data, at + batch::kMin + 2 * c));
      bp.var_reci[c] =
          HalfBitsToFloat(Take<uint16_t>(data, at + batch::kVarReci + 2 * c));
    }
    p.batches.push_back(bp);
  }
  return p;
}

absl::Status Check(const Params& p, int64_t batch, int64_t channels,
                   int64_t height, int64_t width) {
  if (!Find(p.input_format)) {
    return absl::InvalidArgumentError(
        StrCat("input format ", p.input_format,
               " is not one acldump preprocesses (YUV420SP_U8, XRGB8888_U8, "
               "RGB888_U8, YUV400_U8, ARGB8888_U8)"));
  }
  if (channels != 1 && channels != 3) {
    return absl::InvalidArgumentError(
        StrCat("the model input has ", channels,
               " channels; AIPP feeds NCHW inputs of 1 or 3 channels"));
  }
  // Combinations whose result would be meaningless: a gray image has no
  // color to convert or to fill more channels with, and a color image feeds
  // one channel only through the matrix's first row.
  if (p.input_format == kYuv400 && (p.csc || channels != 1)) {
    return absl::InvalidArgumentError(StrCat(
        "a YUV400_U8 (gray) image feeds a 1-channel input without color "
        "conversion; the model input has ",
        channels, " channels", p.csc ? " and color conversion is on" : ""));
  }
  if (p.input_format != kYuv400 && channels == 1 && !p.csc) {
    return absl::InvalidArgumentError(StrCat(
        "a ", FormatName(p.input_format),
        " image feeds a 1-channel input through the color matrix (its first "
        "row gives the gray value): turn color conversion on"));
  }
  if (ImageBytes(p.input_format, p.src_width, p.src_height) == 0) {
    return absl::InvalidArgumentError(StrCat(
        "source image size ", p.src_width, "x", p.src_height,
        " is not valid for ", FormatName(p.input_format),
        p.input_format == kYuv420Sp ? " (positive and even, at most 65536)"
                                    : " (positive, at most 65536)"));
  }
  if (p.batches.size() != 1 && static_cast<int64_t>(p.batches.size()) != batch)
    return absl::InvalidArgumentError(
        StrCat(p.batches.size(), " sets of per-image parameters for ", batch,
               " images"));
  for (size_t b = 0; b < p.batches.size(); ++b) {
    const BatchParams& bp = p.batches[b];
    const std::string where =
        p.batches.size() > 1 ? StrCat("image ", b, ": ") : std::string();
    int64_t kept_width = p.src_width, kept_height = p.src_height;
    if (bp.crop) {
      if (bp.crop_x < 0 || bp.crop_y < 0 || bp.crop_width <= 0 ||
          bp.crop_height <= 0 ||
          int64_t{bp.crop_x} + bp.crop_width > p.src_width ||
          int64_t{bp.crop_y} + bp.crop_height > p.src_height) {
        return absl::InvalidArgumentError(
            StrCat(where, "the crop ", bp.crop_width, "x", bp.crop_height,
                   " at (", bp.crop_x, ",", bp.crop_y, ") is not inside the ",
                   p.src_width, "x", p.src_height, " image"));
      }
      if (p.input_format == kYuv420Sp &&
          (bp.crop_x % 2 != 0 || bp.crop_y % 2 != 0)) {
        return absl::InvalidArgumentError(
            StrCat(where, "a YUV420SP crop starts at even positions, not (",
                   bp.crop_x, ",", bp.crop_y, ")"));
      }
      kept_width = bp.crop_width;
      kept_height = bp.crop_height;
    }
    int64_t out_width = kept_width, out_height = kept_height;
    if (bp.padding) {
      if (bp.pad_top < 0 || bp.pad_bottom < 0 || bp.pad_left < 0 ||
          bp.pad_right < 0 || bp.pad_top > 65536 || bp.pad_bottom > 65536 ||
          bp.pad_left > 65536 || bp.pad_right > 65536) {
        return absl::InvalidArgumentError(
            StrCat(where, "padding sizes must be 0..65536"));
      }
      out_width += int64_t{bp.pad_left} + bp.pad_right;
      out_height += int64_t{bp.pad_top} + bp.pad_bottom;
    }
    if (out_width != width || out_height != height) {
      return absl::InvalidArgumentError(StrCat(
          where, "the ", bp.crop ? "crop" : "image", " (", kept_width, "x",
          kept_height, ")", bp.padding ? " with its padding" : "", " is ",
          out_width, "x", out_height, " (width x height); the model input is ",
          width, "x", height, ": crop or pad the image to that size"));
    }
  }
  return absl::OkStatus();
}

void Apply(const Params& p, const uint8_t* images, size_t image_stride,
           int64_t batch, int64_t channels, int64_t height, int64_t width,
           float* out) {
  const int64_t sw = p.src_width;
  const int64_t sh = p.src_height;
  const int32_t bpp = BytesPerPixel(p.input_format);
  // XRGB / ARGB: the color bytes follow the X or A byte, or precede it when
  // swapped (RGBX).
  const int64_t color_offset =
      (p.input_format == kXrgb8888 || p.input_format == kArgb8888) && !p.ax_swap
          ? 1
          : 0;
  const int64_t plane = height * width;
  for (int64_t n = 0; n < batch; ++n) {
    const BatchParams& bp = p.batches[p.batches.size() == 1 ? 0 : n];
    const uint8_t* image = images + n * image_stride;
    float* dst = out + n * channels * plane;
    const int64_t top = bp.padding ? bp.pad_top : 0;
    const int64_t left = bp.padding ? bp.pad_left : 0;
    const int64_t kept_w = bp.crop ? bp.crop_width : sw;
    const int64_t kept_h = bp.crop ? bp.crop_height : sh;
    const int64_t x0 = bp.crop ? bp.crop_x : 0;
    const int64_t y0 = bp.crop ? bp.crop_y : 0;
    for (int64_t h = 0; h < height; ++h) {
      for (int64_t w = 0; w < width; ++w) {
        const int64_t at = h * width + w;
        const bool pad =
            h < top || h >= top + kept_h || w < left || w >= left + kept_w;
        if (pad) {
          for (int64_t c = 0; c < channels; ++c)
            dst[c * plane + at] = p.padding_value;
          continue;
        }
        const int64_t sy = y0 + (h - top);
        const int64_t sx = x0 + (w - left);
        int ch[3] = {0, 0, 0};
        if (p.input_format == kYuv420Sp) {
          const uint8_t* uv = image + sw * sh + (sy / 2) * sw + (sx & ~1);
          ch[0] = image[sy * sw + sx];
          ch[1] = uv[p.rbuv_swap ? 1 : 0];
          ch[2] = uv[p.rbuv_swap ? 0 : 1];
        } else if (p.input_format == kYuv400) {
          ch[0] = image[sy * sw + sx];
        } else {
          const uint8_t* px = image + (sy * sw + sx) * bpp + color_offset;
          ch[0] = px[p.rbuv_swap ? 2 : 0];
          ch[1] = px[1];
          ch[2] = px[p.rbuv_swap ? 0 : 2];
        }
        std::array<int, 3> value = {ch[0], ch[1], ch[2]};
        if (p.csc) value = Convert(p, ch[0], ch[1], ch[2]);
        for (int64_t c = 0; c < channels; ++c) {
          dst[c * plane + at] = (static_cast<float>(value[c]) -
                                 static_cast<float>(bp.mean[c]) - bp.min[c]) *
                                bp.var_reci[c];
        }
      }
    }
  }
}

void ToAttributes(const Params& p, Attributes& attrs) {
  attrs.Set("input_format", int64_t{p.input_format});
  attrs.Set("src_image_size", std::vector<int64_t>{p.src_width, p.src_height});
  attrs.Set("csc_switch", int64_t{p.csc});
  attrs.Set("rbuv_swap_switch", int64_t{p.rbuv_swap});
  attrs.Set("ax_swap_switch", int64_t{p.ax_swap});
  attrs.Set("matrix", std::vector<int64_t>(p.matrix.begin(), p.matrix.end()));
  attrs.Set("output_bias",
            std::vector<int64_t>(p.output_bias.begin(), p.output_bias.end()));
  attrs.Set("input_bias",
            std::vector<int64_t>(p.input_bias.begin(), p.input_bias.end()));
  attrs.Set("padding_value", p.padding_value);
  const BatchParams& bp = p.batches.at(0);
  attrs.Set("crop", std::vector<int64_t>{bp.crop, bp.crop_x, bp.crop_y,
                                         bp.crop_width, bp.crop_height});
  attrs.Set("padding",
            std::vector<int64_t>{bp.padding, bp.pad_top, bp.pad_bottom,
                                 bp.pad_left, bp.pad_right});
  attrs.Set("mean", std::vector<int64_t>(bp.mean.begin(), bp.mean.end()));
  attrs.Set("min", std::vector<float>(bp.min.begin(), bp.min.end()));
  attrs.Set("var_reci",
            std::vector<float>(bp.var_reci.begin(), bp.var_reci.end()));
}

absl::StatusOr<Params> FromAttributes(const Attributes& attrs) {
  Params p;
  const auto ints = [&](std::string_view name,
                        size_t count) -> absl::StatusOr<std::vector<int64_t>> {
    ASSIGN_OR_RETURN(std::vector<int64_t> values, attrs.GetInts(name));
    if (values.size() != count) {
      return absl::InvalidArgumentError(StrCat("attribute '", name, "' has ",
                                               values.size(),
                                               " values, expected ", count));
    }
    for (int64_t v : values) {
      if (v < INT32_MIN || v > INT32_MAX) {
        return absl::InvalidArgumentError(
            StrCat("attribute '", name, "' value ", v, " is out of range"));
      }
    }
    return values;
  };
  const auto in_range = [](std::string_view name, int64_t v, int64_t lo,
                           int64_t hi) -> absl::Status {
    if (v < lo || v > hi) {
      return absl::InvalidArgumentError(StrCat("attribute '", name, "' value ",
                                               v, " is not in ", lo, "..", hi));
    }
    return absl::OkStatus();
  };
  ASSIGN_OR_RETURN(int64_t format, attrs.GetInt("input_format", 0));
  RETURN_IF_ERROR(in_range("input_format", format, 0, 255));
  p.input_format = static_cast<int32_t>(format);
  ASSIGN_OR_RETURN(auto size, ints("src_image_size", 2));
  p.src_width = static_cast<int32_t>(size[0]);
  p.src_height = static_cast<int32_t>(size[1]);
  ASSIGN_OR_RETURN(p.csc, attrs.GetFlag("csc_switch", false));
  ASSIGN_OR_RETURN(p.rbuv_swap, attrs.GetFlag("rbuv_swap_switch", false));
  ASSIGN_OR_RETURN(p.ax_swap, attrs.GetFlag("ax_swap_switch", false));
  ASSIGN_OR_RETURN(auto matrix, ints("matrix", 9));
  for (size_t i = 0; i < 9; ++i) {
    RETURN_IF_ERROR(in_range("matrix", matrix[i], INT16_MIN, INT16_MAX));
    p.matrix[i] = static_cast<int16_t>(matrix[i]);
  }
  ASSIGN_OR_RETURN(auto output_bias, ints("output_bias", 3));
  ASSIGN_OR_RETURN(auto input_bias, ints("input_bias", 3));
  for (size_t i = 0; i < 3; ++i) {
    RETURN_IF_ERROR(in_range("output_bias", output_bias[i], 0, 255));
    RETURN_IF_ERROR(in_range("input_bias", input_bias[i], 0, 255));
    p.output_bias[i] = static_cast<uint8_t>(output_bias[i]);
    p.input_bias[i] = static_cast<uint8_t>(input_bias[i]);
  }
  ASSIGN_OR_RETURN(p.padding_value, attrs.GetFloat("padding_value", 0));
  BatchParams& bp = p.batches[0];
  ASSIGN_OR_RETURN(auto crop, ints("crop", 5));
  bp.crop = crop[0] != 0;
  bp.crop_x = static_cast<int32_t>(crop[1]);
  bp.crop_y = static_cast<int32_t>(crop[2]);
  bp.crop_width = static_cast<int32_t>(crop[3]);
  bp.crop_height = static_cast<int32_t>(crop[4]);
  ASSIGN_OR_RETURN(auto padding, ints("padding", 5));
  bp.padding = padding[0] != 0;
  bp.pad_top = static_cast<int32_t>(padding[1]);
  bp.pad_bottom = static_cast<int32_t>(padding[2]);
  bp.pad_left = static_cast<int32_t>(padding[3]);
  bp.pad_right = static_cast<int32_t>(padding[4]);
  ASSIGN_OR_RETURN(auto mean, ints("mean", 4));
  ASSIGN_OR_RETURN(std::vector<float> min, attrs.GetFloats("min"));
  ASSIGN_OR_RETURN(std::vector<float> var_reci, attrs.GetFloats("var_reci"));
  if (min.size() != 4 || var_reci.size() != 4) {
    return absl::InvalidArgumentError(
        "attributes 'min' and 'var_reci' have 4 values each");
  }
  for (size_t c = 0; c < 4; ++c) {
    RETURN_IF_ERROR(in_range("mean", mean[c], INT16_MIN, INT16_MAX));
    bp.mean[c] = static_cast<int16_t>(mean[c]);
    bp.min[c] = min[c];
    bp.var_reci[c] = var_reci[c];
  }
  return p;
}

std::string Describe(const Params& p) {
  const BatchParams& bp = p.batches.at(0);
  std::string text =
      StrCat(FormatName(p.input_format), " ", p.src_width, "x", p.src_height);
  if (bp.crop)
    text += StrCat(", crop ", bp.crop_width, "x", bp.crop_height, " at (",
                   bp.crop_x, ",", bp.crop_y, ")");
  if (bp.padding)
    text += StrCat(", padding ", bp.pad_top, ",", bp.pad_bottom, ",",
                   bp.pad_left, ",", bp.pad_right);
  if (p.csc) text += ", color conversion";
  if (p.rbuv_swap) text += ", R/B (U/V) swapped";
  if (p.ax_swap) text += ", alpha last";
  return text;
}

}  // namespace acldump::aipp
