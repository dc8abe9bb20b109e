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

// The same as JSON (schema "acldump.show/1"): the header's fields, and per
// tensor its description, its shape as the original tensor and statistics
// (null where a value is not finite or there is none), or the reason there
// are none; a stats CSV as its header and rows.
absl::StatusOr<std::string> DumpFileJson(const std::string& path,
                                         const ShowOptions& options);

}  // namespace acldump::tools

#endif  // ACLDUMP_TOOLS_TREE_SHOW_H_
