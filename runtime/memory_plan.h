// Where a compiled model's values live: activation values share one arena
// (offsets reused once a value is dead), constant weights get their own
// layout, and the whole footprint is checked against a per-model limit before
// anything is allocated.
#ifndef ACLDUMP_RUNTIME_MEMORY_PLAN_H_
#define ACLDUMP_RUNTIME_MEMORY_PLAN_H_

#include <cstddef>
#include <span>

#include "absl/status/status.h"

namespace acldump {

// Every offset of a plan is a multiple of this.
inline constexpr size_t kPlanAlignment = 64;

inline size_t AlignToPlan(size_t bytes) {
  return (bytes + kPlanAlignment - 1) / kPlanAlignment * kPlanAlignment;
}

// A value alive from the step that defines it to the last step that reads it
// (inclusive).
struct ArenaValue {
  size_t bytes = 0;
  int first_step = 0;
  int last_step = 0;
  size_t offset = 0;  // set by PlanArena
};

// Greedy by size (largest first): each value goes to the lowest aligned
// offset that overlaps no placed value alive at the same time. Returns the
// arena size. O(n^2) in the number of values.
size_t PlanArena(std::span<ArenaValue> values);

// What a model needs besides its caller's input and output buffers.
struct ModelFootprint {
  size_t arena_bytes = 0;      // activations
  size_t workspace_bytes = 0;  // the largest kernel scratch buffer
  size_t weight_bytes = 0;     // initializers and evaluated constants
  size_t total() const { return arena_bytes + workspace_bytes + weight_bytes; }
};

// The default per-model memory limit: ACLDUMP_MAX_MODEL_MEMORY_MB when set,
// else three quarters of the smallest of physical memory and the process's
// address-space and data limits.
size_t DefaultModelMemoryLimit();

// ResourceExhausted (tagged kOutOfMemory) naming the parts of `footprint`
// when its total exceeds `limit`, and how to raise the limit.
absl::Status CheckFootprint(const ModelFootprint& footprint, size_t limit,
                            std::string_view model_name);

}  // namespace acldump

#endif  // ACLDUMP_RUNTIME_MEMORY_PLAN_H_
