// acl.json parser + checks (untrusted config files).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "dump/config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto config = acldump::dump::ParseDumpConfig(text, "fuzz.json");
  if (config.ok()) (void)acldump::dump::DescribeDumpConfig(*config);
  return 0;
}
