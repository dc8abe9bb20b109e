// JPEG and PNG header reader (acldvppJpegGetImageInfo, acldvppPngGetImageInfo
// and the size predictions read untrusted image bytes through it).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>

#include "runtime/media/image_header.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> bytes(data, size);
  absl::StatusOr<acldump::media::JpegInfo> jpeg =
      acldump::media::ReadJpegHeader(bytes);
  if (jpeg.ok()) {
    // What the reader promises of an image it accepts.
    if (jpeg->width == 0 || jpeg->height == 0 || jpeg->width > 65500 ||
        jpeg->height > 65500 || jpeg->components.empty() ||
        jpeg->components.size() > 10 || jpeg->header_size > size) {
      std::abort();
    }
  }
  absl::StatusOr<acldump::media::PngInfo> png =
      acldump::media::ReadPngHeader(bytes);
  if (png.ok()) {
    if (png->width == 0 || png->height == 0 || png->width > 0x7FFFFFFFu ||
        png->height > 0x7FFFFFFFu || png->components < 1 ||
        png->components > 4 || size < 33) {
      std::abort();
    }
  }
  return 0;
}
