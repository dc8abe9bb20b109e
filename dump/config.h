// The `dump` section of an acl.json file (spec S8-S21, dump-format.md §7):
// parsing, validation and a human summary.
//
// Checks run in the order of dump-format.md §7: (1) the file, (2) the `dump`
// key, (3) value types and unknown/duplicate keys, (4) enum values,
// (5) constraints. Within a phase the first problem in document order is
// reported. Every error message reads `<file>: <json path>: <reason>`, e.g.
// `acl.json: dump.dump_list[1].layer[0]: ...`.
//
// Error kinds (base/error_kind.h): kInvalidFile for a missing, unreadable,
// non-regular or oversized (> 10 MiB) file; kParseFile for text that is not
// JSON or nests deeper than 10 levels; kInvalidDumpConfig (status code
// InvalidArgument) for everything else.
//
// The input is untrusted: no function here throws or crashes on any input.
// Thread-compatible: the functions keep no state, but dump_path checks read
// the working directory and the environment at call time.
#ifndef ACLDUMP_DUMP_CONFIG_H_
#define ACLDUMP_DUMP_CONFIG_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "dump/format/stat_columns.h"

namespace acldump::dump {

enum class DumpMode { kInput, kOutput, kAll };
enum class DumpData { kTensor, kStats };

// The iterations selected by dump_step (S14): "0|5|10" or "0|3-5|10". At most
// 100 `|`-separated items, each `N` or `A-B` (decimal digits only, A <= B,
// values that fit in uint64).
class StepSet {
 public:
  // Errors (InvalidArgument) name the 1-based item and its text, e.g.
  // "item 2 of 3 ('5-3'): range start 5 is greater than its end 3".
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

struct DumpListEntry {
  std::optional<std::string> model_name;
  std::optional<std::vector<std::string>> layers;  // absent = every operator
};

struct DumpConfig {
  std::string source;     // path of the file the config came from
  bool enabled = false;   // false: no "dump" key or "dump": {}
  std::string dump_path;  // as written
  // Absolute and canonical (symlinks resolved); a relative dump_path is
  // relative to the working directory at parse time, and $NAME / ${NAME} are
  // replaced by environment variables. Empty for the exception scene, whose
  // files go to $ASCEND_WORK_PATH or the working directory (S18).
  std::string dump_path_resolved;
  DumpMode mode = DumpMode::kOutput;
  bool op_switch = false;        // dump_op_switch on (single-operator dump)
  std::optional<StepSet> steps;  // unset = every iteration
  DumpData data = DumpData::kTensor;
  // dump_stats in config order, deduplicated; empty = the default columns.
  std::vector<StatColumn> stats;
  std::vector<DumpListEntry> dump_list;
  bool exception_scene = false;  // dump_scene lite_exception
  bool overflow = false;         // dump_debug on

  // Exception dump takes precedence over a model dump_list (S19); overflow
  // with a non-empty dump_list is rejected at parse time (S21).
  bool model_dump() const {
    return !exception_scene && !overflow && !dump_list.empty();
  }
};

// Reads the file at `path` and parses it with ParseDumpConfig; `path` as given
// becomes DumpConfig::source and prefixes error messages.
absl::StatusOr<DumpConfig> LoadDumpConfigFile(const std::string& path);

// Parses acl.json text. Keys other than "dump" at the top level are ignored
// (acl.json holds other sections). `source` names the text in messages.
absl::StatusOr<DumpConfig> ParseDumpConfig(std::string_view json_text,
                                           std::string_view source);

// One paragraph for tools and logs, e.g. "model dump of 2 models, outputs,
// tensor, steps 0|3-5, into /abs/path".
std::string DescribeDumpConfig(const DumpConfig& config);

}  // namespace acldump::dump

#endif  // ACLDUMP_DUMP_CONFIG_H_
