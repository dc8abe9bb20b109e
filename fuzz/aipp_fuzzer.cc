// AIPP's dynamic parameter block (written by programs, read by the Aipp
// operator at every execution): read, checked against a small model input
// the input also chooses, then applied to images of the checked size.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "kernels/aipp.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 4) return 0;
  // The first bytes choose the model input [batch, channels, height, width].
  const int64_t batch = 1 + data[0] % 3;
  const int64_t channels = data[1] % 2 == 0 ? 1 : 3;
  const int64_t height = 1 + data[2] % 48;
  const int64_t width = 1 + data[3] % 48;
  data += 4;
  size -= 4;
  const size_t block = acldump::aipp::DynamicDataBytes(batch);
  auto params = acldump::aipp::ReadDynamic(
      std::span(reinterpret_cast<const std::byte*>(data), size),
      static_cast<size_t>(batch));
  if (!params.ok()) return 0;
  if (!acldump::aipp::Check(*params, batch, channels, height, width).ok())
    return 0;
  const size_t image_bytes = acldump::aipp::ImageBytes(
      params->input_format, params->src_width, params->src_height);
  // Images as large as the parameters say (capped so a run stays fast),
  // filled from what follows the block.
  if (image_bytes == 0 || image_bytes > (size_t{1} << 22)) return 0;
  std::vector<uint8_t> images(image_bytes * batch);
  for (size_t i = 0; i < images.size() && block + i < size; ++i)
    images[i] = data[block + i];
  std::vector<float> out(batch * channels * height * width);
  acldump::aipp::Apply(*params, images.data(), image_bytes, batch, channels,
                       height, width, out.data());
  return 0;
}
