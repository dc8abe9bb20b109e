// .om model loading from memory: parse, validate, compile every plan of a
// static or dynamic model (untrusted model files).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "runtime/model_loader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // A small memory limit keeps absurd-but-valid models inside the fuzzer's
  // memory limit.
  acldump::CompileOptions options;
  options.max_memory_bytes = size_t{64} << 20;
  (void)acldump::LoadModel(acldump::ModelSource::Memory(std::string_view(
                               reinterpret_cast<const char*>(data), size)),
                           options);
  return 0;
}
