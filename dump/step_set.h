// The iterations a dump_step value selects.
#ifndef ACLDUMP_DUMP_STEP_SET_H_
#define ACLDUMP_DUMP_STEP_SET_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace acldump::dump {

// Iterations (model executions, counted from 0) written "0|5|10" or
// "0|3-5|10": at most 100 `|`-separated items, each `N` or `A-B` in decimal
// digits only, with A <= B. These are the NPU SDK's rules, including its
// treatment of huge numbers: any run of digits is accepted, and numbers past
// 2^63 - 1 compare as 2^63 - 1 (they name iterations no run reaches; stored
// values saturate at 2^64 - 1).
class StepSet {
 public:
  // Errors (InvalidArgument) name the 1-based item and its text, e.g.
  // "item 2 of 3 ('5-3'): range start 5 is greater than its end 3". The empty
  // text is an error here; a config treats dump_step "" as "every iteration".
  static absl::StatusOr<StepSet> Parse(std::string_view text);

  // O(log ranges).
  bool Contains(uint64_t iteration) const;
  // Inclusive [first, last] ranges, sorted, overlapping and adjacent ones
  // merged.
  const std::vector<std::pair<uint64_t, uint64_t>>& ranges() const {
    return ranges_;
  }
  // Canonical form of the merged ranges: "3|4|5|9" gives "3-5|9".
  std::string ToString() const;

  friend bool operator==(const StepSet&, const StepSet&) = default;

 private:
  explicit StepSet(std::vector<std::pair<uint64_t, uint64_t>> ranges)
      : ranges_(std::move(ranges)) {}

  std::vector<std::pair<uint64_t, uint64_t>> ranges_;
};

}  // namespace acldump::dump

#endif  // ACLDUMP_DUMP_STEP_SET_H_
