// `dump show FILE`: what one dump file holds, in words.
#ifndef ACLDUMP_TOOLS_TREE_SHOW_H_
#define ACLDUMP_TOOLS_TREE_SHOW_H_

#include <cstddef>
#include <string>

#include "absl/status/statusor.h"

namespace acldump::tools {

struct ShowOptions {
  size_t head = 0;  // print the first `head` elements of each tensor
};

// A dump file (the 2.0 layout or legacy): op, time, attrs, and per input/output
// the dtype, format, shapes, original op and statistics (count, min, max,
// mean, std, L2 norm, NaN/Inf, zeros). Overflow records are decoded. A stats
// CSV is printed as an aligned table. Errors name the file and the problem.
absl::StatusOr<std::string> DescribeDumpFile(const std::string& path,
                                             const ShowOptions& options);

}  // namespace acldump::tools

#endif  // ACLDUMP_TOOLS_TREE_SHOW_H_
