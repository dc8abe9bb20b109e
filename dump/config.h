// The `dump` section of an acl.json file: parsing, validation and a human
// summary. It accepts and rejects exactly what the NPU SDK's aclmdlSetDump
// does, plus a few stricter rules of this runtime (listed below); messages
// name the file, the JSON path and how to fix the problem, e.g.
// `acl.json: dump.dump_list[1].layer[0]: ...`.
//
// Order of checks (the SDK's): (1) the file (exists, regular, <= 10 MiB; an
// empty file is no config); (2) nesting: at most 10 levels of objects and 10
// of arrays, counted over every '{' and '[' character (inside strings too);
// (3) JSON syntax; (4) the `dump` key (absent, or an empty object: nothing to
// do); (5) the type of every value; (6) every enum value; (7) constraints in
// the order dump_scene, dump_path, dump_debug, dump_step, dump_list,
// dump_stats, where an exception scene stops after the scene and dump_debug
// "on" stops after dump_debug; (8) this runtime's own rules: duplicate keys,
// duplicate model_name entries, overflow dump with a non-empty dump_list;
// (9) NPU-only features, only once everything above passed. The first problem
// is reported.
//
// Unknown keys are ignored, as by the SDK, and each is recorded in
// DumpConfig::warnings with the nearest known key. A config that selects
// nothing (no dump_list entry, dump_op_switch and dump_debug off, no scene)
// is valid and does nothing.
//
// Error kinds (base/error_kind.h): kInvalidFile for a missing, unreadable,
// non-regular or oversized (> 10 MiB) file; kParseFile for nesting deeper
// than 10 levels; kInvalidJson for text that is not JSON;
// kFeatureUnsupported (status code Unimplemented) for what only an NPU can
// do (aic_err_detail_dump and watcher scenes, watcher_nodes,
// dump_kernel_data, remote "ip:path" dump paths); kInvalidDumpConfig (status
// code InvalidArgument) for everything else.
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
struct PayloadKind;  // dump/payload.h
// dump_layout (acldump's own key): one file per record as the SDK writes
// them, or each folder's records packed into one file (dump/format/pack.h).
enum class DumpLayout { kSdk, kPacked };

// An optype_blacklist / opname_blacklist item: operators (by type or by name)
// whose tensors are not dumped. `positions` narrows it to some tensors
// ("input0", "output1"); empty = every tensor of the operator. Positions of
// another form are kept as written and exclude nothing.
struct OpFilter {
  std::string name;  // empty: the item has no effect
  std::vector<std::string> positions;
};

// What a blacklist position names: "input2" is input 2 of the operator,
// "output0" its output 0 (the N of inputN is the operator's input slot,
// counting absent optional inputs, as in dump file headers).
struct TensorPosition {
  bool input = false;
  uint32_t index = 0;
};
// "inputN" or "outputN" with N of 1 to 9 decimal digits; nullopt otherwise.
std::optional<TensorPosition> ParseTensorPosition(std::string_view position);

// An opname_range item: the operators from `begin` to `end` (inclusive) in
// execution order. Both are non-empty once parsed.
struct OpRange {
  std::string begin;
  std::string end;
};

// A dump_list item. As in the SDK, an empty model_name or layer list (allowed
// only with dump_op_switch "on") is the same as an absent one.
struct DumpListEntry {
  std::optional<std::string> model_name;           // absent = every model
  std::optional<std::vector<std::string>> layers;  // absent = every operator
  // Only with dump_level "op" (validation enforces it).
  std::vector<OpFilter> optype_blacklist;
  std::vector<OpFilter> opname_blacklist;
  std::vector<OpRange> opname_range;  // only with a model_name
  // dump_scene watcher: operators (by their name after fusion) whose outputs
  // are dumped after each `layers` operator runs.
  std::vector<std::string> watcher_nodes;
};

// dump_level: on this runtime an operator is its kernel, so "op", "kernel"
// and "all" dump the same operators; the filters above need "op".
enum class DumpLevel { kOp, kKernel, kAll };

// What a config turns on, chosen once when it is parsed. The exception scene
// wins over model and single-operator dump; overflow dump cannot be combined
// with either (rejected at parse time). Single-operator dump (op_switch) may
// accompany kModel or stand alone (kOff).
enum class DumpScene {
  kOff,        // nothing, or single-operator dump only
  kModel,      // a non-empty dump_list
  kOverflow,   // dump_debug on
  kException,  // dump_scene lite_exception, aic_err_brief_dump or
               // aic_err_norm_dump
  kWatcher,    // dump_scene watcher: the watcher nodes' outputs after each
               // layer operator
};

// What an exception dump file holds (the SDK's two levels a CPU can give).
// kBrief (lite_exception, aic_err_brief_dump): the failing operator's
// tensors with their shapes and sizes, its workspace and tiling data, in
// exception_info.{stream}.{task}.{time} files. kNorm (aic_err_norm_dump): also
// every tensor's data type and format and the operator's attributes, in
// {op_type}.{op_name}.{task}.{time} files.
enum class ExceptionLevel { kBrief, kNorm };

struct DumpConfig {
  std::string source;  // path of the file the config came from
  DumpScene scene = DumpScene::kOff;
  bool op_switch = false;  // dump_op_switch on (single-operator dump)
  std::string dump_path;   // as written
  // Absolute and canonical (symlinks resolved); a relative dump_path is
  // relative to the working directory at parse time, and $NAME / ${NAME} are
  // replaced by environment variables. For an exception scene dump_path is
  // not checked (the folder is created when a file is written): absolute, or
  // empty when not given or unusable (a warning says why); its files go to
  // $ASCEND_DUMP_PATH, $ASCEND_WORK_PATH, this, or the working directory,
  // the first that is set.
  std::string dump_path_resolved;
  ExceptionLevel exception_level = ExceptionLevel::kBrief;
  std::string exception_scene;  // the dump_scene as written, for messages
  DumpMode mode = DumpMode::kOutput;
  DumpLevel level = DumpLevel::kAll;
  std::optional<StepSet> steps;  // unset = every iteration
  // dump_data: what each record's file holds (null until parsed: the
  // default); read it through payload().
  const PayloadKind* data = nullptr;
  DumpLayout layout = DumpLayout::kSdk;
  // dump_baseline (acldump's own), absolute: a stats dump each selected
  // operator is compared with while the model runs; empty = none. Only the
  // tensors of the first `baseline_tensors` operators that differ (per
  // iteration) are written, with a summary of the differences.
  std::string baseline;
  uint32_t baseline_tensors = 1;
  // dump_backpressure "drop" (acldump's own): records an execution cannot
  // hand to the writer within wait_budget_us of its start (the writer is
  // behind: memory or queue full) are dropped and counted, not waited for.
  bool drop_when_behind = false;
  uint64_t wait_budget_us = 0;
  // dump_max_bytes (acldump's own): records that would take the session's
  // dumped bytes beyond it are dropped and counted; 0 = no limit.
  uint64_t max_bytes = 0;
  // dump_keep_iterations (acldump's own): only the newest this many iteration
  // folders of each model are kept; 0 = every one.
  uint64_t keep_iterations = 0;
  // dump_stats in config order, deduplicated; empty = the default columns.
  std::vector<StatColumn> stats;
  std::vector<DumpListEntry> dump_list;
  // Accepted but worth telling the user, one message each in the form
  // `<file>: <json path>: <what>`: unknown keys (with the nearest known one),
  // a config that selects nothing, an empty file, filters that have no
  // effect, ...
  std::vector<std::string> warnings;

  // The payload dump_data names (the default, tensors, when not given).
  const PayloadKind& payload() const;

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

// Reads the file at `path` (with the bounded reader of base/file_reader.h) and
// parses it with ParseDumpConfig; `path` as given becomes DumpConfig::source
// and prefixes error messages.
absl::StatusOr<DumpConfig> LoadDumpConfigFile(const std::string& path);

// Parses acl.json text. Keys other than "dump" at the top level are ignored
// (acl.json holds other sections), and so is a top level that is not an
// object. Empty text is no config. `source` names the text in messages.
absl::StatusOr<DumpConfig> ParseDumpConfig(std::string_view json_text,
                                           std::string_view source);

// One paragraph for tools and logs, e.g. "model dump of 2 models, outputs,
// tensor, steps 0|3-5, into /abs/path".
std::string DescribeDumpConfig(const DumpConfig& config);

}  // namespace acldump::dump

#endif  // ACLDUMP_DUMP_CONFIG_H_
