#include "runtime/memory_plan.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <utility>
#include <vector>

#include "base/error_kind.h"
#include "base/strings.h"

namespace acldump {

size_t PlanArena(std::span<ArenaValue> values) {
  std::vector<size_t> order(values.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return values[a].bytes > values[b].bytes;
  });
  std::vector<size_t> placed;
  std::vector<std::pair<size_t, size_t>> busy;
  size_t arena = 0;
  for (size_t v : order) {
    ArenaValue& value = values[v];
    const size_t size = AlignToPlan(std::max<size_t>(value.bytes, 1));
    // Memory ranges of placed values alive at the same time, by offset.
    busy.clear();
    for (size_t p : placed) {
      const ArenaValue& other = values[p];
      if (other.first_step <= value.last_step &&
          value.first_step <= other.last_step) {
        busy.emplace_back(
            other.offset,
            other.offset + AlignToPlan(std::max<size_t>(other.bytes, 1)));
      }
    }
    std::sort(busy.begin(), busy.end());
    size_t offset = 0;
    for (const auto& [begin, end] : busy) {
      if (offset + size <= begin) break;
      offset = std::max(offset, end);
    }
    value.offset = offset;
    arena = std::max(arena, offset + size);
    placed.push_back(v);
  }
  return arena;
}

size_t DefaultModelMemoryLimit() {
  static const size_t limit = [] {
    if (const char* mb = std::getenv("ACLDUMP_MAX_MODEL_MEMORY_MB")) {
      char* end = nullptr;
      const unsigned long long value = std::strtoull(mb, &end, 10);
      if (end != mb && *end == '\0' && value > 0 && value < (1ull << 40)) {
        return static_cast<size_t>(value) << 20;
      }
    }
    uint64_t smallest = UINT64_MAX;
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long page_size = sysconf(_SC_PAGE_SIZE);
    if (pages > 0 && page_size > 0) {
      smallest =
          static_cast<uint64_t>(pages) * static_cast<uint64_t>(page_size);
    }
    for (int resource : {RLIMIT_AS, RLIMIT_DATA}) {
      struct rlimit limit;
      if (getrlimit(resource, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
        smallest = std::min<uint64_t>(smallest, limit.rlim_cur);
      }
    }
    if (smallest == UINT64_MAX) smallest = uint64_t{16} << 30;
    return static_cast<size_t>(smallest / 4 * 3);
  }();
  return limit;
}

absl::Status CheckFootprint(const ModelFootprint& footprint, size_t limit,
                            std::string_view model_name) {
  if (footprint.total() <= limit) return absl::OkStatus();
  return WithKind(
      absl::ResourceExhaustedError(StrCat(
          "model '", model_name, "' needs ", footprint.total(),
          " bytes of memory (activations ", footprint.arena_bytes,
          ", kernel workspace ", footprint.workspace_bytes, ", weights ",
          footprint.weight_bytes, "), more than its limit of ", limit,
          " bytes; raise the limit with ACLDUMP_MAX_MODEL_MEMORY_MB if the "
          "machine has the memory")),
      ErrorKind::kOutOfMemory);
}

}  // namespace acldump
