// .npy reader (inputs and references handed to the tools).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "kernels/npy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)acldump::DecodeNpy(
      std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
