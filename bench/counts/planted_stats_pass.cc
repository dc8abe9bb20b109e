// A planted regression for the count gate's own test: a second, scalar pass
// over every tensor whose statistics are computed (as a forgotten debug check
// would be), linked over dump::ComputeStats with `--wrap` so no product code
// carries a hook.
#include <cstddef>
#include <cstdint>

#include "dump/format/stat_columns.h"
#include "kernels/tensor.h"

namespace acldump::bench {

__attribute__((noinline)) uint64_t PlantedStatsPassWork(
    const TensorView& view) {
  const auto* bytes = static_cast<const volatile uint8_t*>(view.data);
  const size_t size = view.ByteSize();
  uint64_t sum = 0;
  for (size_t i = 0; i < size; i += 4) sum += bytes[i];
  return sum;
}

}  // namespace acldump::bench

namespace acldump::dump {

TensorStats RealComputeStats(const TensorView& view, bool checksum) asm(
    "__real__ZN7acldump4dump12ComputeStatsERKNS_10TensorViewEb");
TensorStats WrappedComputeStats(const TensorView& view, bool checksum) asm(
    "__wrap__ZN7acldump4dump12ComputeStatsERKNS_10TensorViewEb");

TensorStats WrappedComputeStats(const TensorView& view, bool checksum) {
  static volatile uint64_t sink = 0;
  sink = sink + bench::PlantedStatsPassWork(view);
  return RealComputeStats(view, checksum);
}

}  // namespace acldump::dump
