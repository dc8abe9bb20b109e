// One-pass tensor statistics (max, min, sum, sum of squares over finite
// elements; NaN and
// +/-Inf counts) for stats dumps and overflow checks. SIMD (Highway, dynamic
// dispatch) for float32 and float16, which dominate dumps; a scalar loop for
// the other types.
#ifndef ACLDUMP_DUMP_STATS_H_
#define ACLDUMP_DUMP_STATS_H_

#include "dump/format/stat_columns.h"
#include "kernels/tensor.h"

namespace acldump::dump {

// With `checksum`, also TensorStats::checksum (XXH3-64 of the tensor's bytes),
// hashed block by block in the same pass, while each block is in cache.
TensorStats ComputeStats(const TensorView& view, bool checksum = false);
// The checksum alone.
uint64_t TensorChecksum(const TensorView& view);

// True when a float tensor holds a NaN or an infinity (false for non-float
// tensors). Stops at the first one.
bool HasNonFinite(const TensorView& view);

}  // namespace acldump::dump

#endif  // ACLDUMP_DUMP_STATS_H_
