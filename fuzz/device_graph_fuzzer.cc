// The converter graph JSON a user passes to compare-device (untrusted).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "tools/device/device_graph.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto graph = acldump::tools::ParseDeviceGraph(
      std::string_view(reinterpret_cast<const char*>(data), size), "fuzz");
  if (!graph.ok()) return 0;
  // What compare-device does next: every input followed to its original.
  for (const auto& op : graph->ops) {
    for (size_t i = 0; i < op.inputs.size(); ++i) {
      (void)acldump::tools::OriginalInput(*graph, op, i);
    }
  }
  return 0;
}
