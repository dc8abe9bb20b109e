// A planted regression for the count gate's own test: extra work on every
// execution with dump off (CompiledModel::Execute, which every mode runs),
// linked over the real function with `--wrap` so no product code carries a
// hook. ACLDUMP_PLANTED_INSTRUCTIONS says how many instructions to add per
// execution.
#include <cstdint>
#include <cstdlib>
#include <span>

#include "absl/status/status.h"
#include "runtime/compiled_model.h"

namespace acldump::bench {

// Two instructions per iteration (dec, jnz), so a count is exact.
__attribute__((noinline)) void PlantedDumpOffWork(uint64_t instructions) {
  uint64_t n = instructions / 2;
  if (n == 0) return;
  asm volatile("1: dec %0\n\tjnz 1b" : "+r"(n));
}

namespace {

uint64_t PlantedInstructions() {
  static const uint64_t n = [] {
    const char* env = std::getenv("ACLDUMP_PLANTED_INSTRUCTIONS");
    return env ? std::strtoull(env, nullptr, 10) : 0;
  }();
  return n;
}

}  // namespace
}  // namespace acldump::bench

// A member function takes `this` as its first argument (after the hidden
// pointer to the returned Status, as a free function's first argument does),
// so these free functions stand for CompiledModel::Execute.
#define ACLDUMP_EXECUTE_SYMBOL                                         \
  "_ZN7acldump13CompiledModel7ExecuteESt4spanIKNS_10HostBufferELm1844" \
  "6744073709551615EES1_IKNS_17MutableHostBufferELm18446744073709551615EE"

namespace acldump {

absl::Status RealExecute(CompiledModel* model,
                         std::span<const HostBuffer> inputs,
                         std::span<const MutableHostBuffer>
                             outputs) asm("__real_" ACLDUMP_EXECUTE_SYMBOL);
absl::Status WrappedExecute(CompiledModel* model,
                            std::span<const HostBuffer> inputs,
                            std::span<const MutableHostBuffer>
                                outputs) asm("__wrap_" ACLDUMP_EXECUTE_SYMBOL);

absl::Status WrappedExecute(CompiledModel* model,
                            std::span<const HostBuffer> inputs,
                            std::span<const MutableHostBuffer> outputs) {
  bench::PlantedDumpOffWork(bench::PlantedInstructions());
  return RealExecute(model, inputs, outputs);
}

}  // namespace acldump
