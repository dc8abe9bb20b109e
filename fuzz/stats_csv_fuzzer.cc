// Stats CSV reader.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "dump/format/stats_csv.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto table = acldump::dump::ParseStatsCsv(
      std::string_view(reinterpret_cast<const char*>(data), size));
  if (!table.ok()) return 0;
  for (size_t row = 0; row < table->rows.size(); ++row) {
    (void)table->Double(row, "Max Value");
    (void)table->Uint64(row, "Count");
    (void)table->ShapeOf(row);
  }
  return 0;
}
