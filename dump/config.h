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
#include "dump/step_set.h"

namespace acldump::dump {

enum class DumpMode { kInput, kOutput, kAll };
enum class DumpData { kTensor, kStats };

// An optype_blacklist / opname_blacklist item: operators (by type or by name)
// whose tensors are not dumped. `positions` narrows it to some tensors
// ("input0", "output1"); empty = every tensor of the operator.
struct OpFilter {
  std::string name;  // empty: the item has no effect
  std::vector<std::string> positions;
};

// An opname_range item: the operators from `begin` to `end` (inclusive) in
// execution order.
struct OpRange {
  std::string begin;
  std::string end;
};

struct DumpListEntry {
  std::optional<std::string> model_name;
  std::optional<std::vector<std::string>> layers;  // absent = every operator
  std::vector<OpFilter> optype_blacklist;
  std::vector<OpFilter> opname_blacklist;
  std::vector<OpRange> opname_range;
};

// dump_level: on this runtime an operator is its kernel, so "op" and "kernel"
// dump the same operators; the filters above need "op".
enum class DumpLevel { kOp, kKernel, kAll };

// What a config turns on, chosen once when it is parsed. The exception scene
// wins over model and single-operator dump; overflow dump cannot be combined
// with either (rejected at parse time). Single-operator dump (op_switch) may
// accompany kModel or stand alone (kOff).
enum class DumpScene {
  kOff,        // nothing, or single-operator dump only
  kModel,      // a non-empty dump_list
  kOverflow,   // dump_debug on
  kException,  // dump_scene lite_exception
};

struct DumpConfig {
  std::string source;  // path of the file the config came from
  DumpScene scene = DumpScene::kOff;
  bool op_switch = false;  // dump_op_switch on (single-operator dump)
  std::string dump_path;   // as written
  // Absolute and canonical (symlinks resolved); a relative dump_path is
  // relative to the working directory at parse time, and $NAME / ${NAME} are
  // replaced by environment variables. Empty for the exception scene, whose
  // files go to $ASCEND_WORK_PATH or the working directory.
  std::string dump_path_resolved;
  DumpMode mode = DumpMode::kOutput;
  DumpLevel level = DumpLevel::kAll;
  std::optional<StepSet> steps;  // unset = every iteration
  DumpData data = DumpData::kTensor;
  // dump_stats in config order, deduplicated; empty = the default columns.
  std::vector<StatColumn> stats;
  std::vector<DumpListEntry> dump_list;
  // Accepted but worth telling the user: unknown keys (with the nearest known
  // one), a config that selects nothing, ...
  std::vector<std::string> warnings;

  // Anything to dump at all (a config that selects nothing is valid and does
  // nothing).
  bool enabled() const { return scene != DumpScene::kOff || op_switch; }
  bool model_dump() const { return scene == DumpScene::kModel; }
  // Single-operator executions are dumped (the exception scene records their
  // failures instead).
  bool single_op_dump() const {
    return op_switch && scene != DumpScene::kException;
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
