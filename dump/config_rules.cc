#include "dump/config_rules.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <map>
#include <string>

#include "base/status_macros.h"
#include "base/strings.h"
#include "base/text.h"
#include "dump/config_path.h"
#include "dump/payload.h"

namespace acldump::dump::config_internal {
namespace {

constexpr size_t kMaxFilters = 100;  // per blacklist
constexpr unsigned long kMaxBaselineTensors = 10000;
constexpr std::string_view kBlacklists[] = {"optype_blacklist",
                                            "opname_blacklist"};

absl::Status CheckScene(const CheckContext& c) {
  const std::string_view scene = c.Text("dump_scene");
  if (scene.empty()) return absl::OkStatus();
  for (std::string_view key : {"dump_debug", "dump_op_switch"}) {
    if (c.IsOn(key)) {
      return c.Error(MemberPath("dump", key),
                     StrCat("'on' cannot be combined with dump_scene ",
                            Quote(scene), " (", SceneKind(scene), "); set ",
                            key, " to 'off' or remove dump_scene"));
    }
  }
  // The watcher dumps outputs only (the SDK's default mode for it).
  if (scene == kWatcher && c.Field("dump_mode") != nullptr &&
      c.Text("dump_mode") != "output") {
    return c.Error("dump.dump_mode",
                   StrCat(Quote(c.Text("dump_mode")),
                          " cannot be combined with dump_scene 'watcher', "
                          "which dumps outputs only; set dump_mode to "
                          "'output' or remove it"));
  }
  return absl::OkStatus();
}

// For a missing dump_path: where the config put it instead, if anywhere.
std::string MissingPathHint(const CheckContext& c) {
  const JsonNode* nested = c.Field("dump");
  if (nested != nullptr && nested->Find("dump_path") != nullptr) {
    return "; the dump section is nested in itself (dump.dump holds a "
           "dump_path): move its keys up one level";
  }
  if (const JsonNode* list = c.Field("dump_list")) {
    for (size_t i = 0; i < list->elements().size(); ++i) {
      if (list->elements()[i].Find("dump_path") == nullptr) continue;
      return StrCat("; ", ElementPath("dump.dump_list", i),
                    " has a dump_path, which belongs in the dump object");
    }
  }
  return CheckContext::TypoHint(c.dump(), "dump_path", kDumpKeys);
}

absl::Status CheckPath(const CheckContext& c, PathFacts& facts) {
  const JsonNode* path = c.Field("dump_path");
  if (path == nullptr) {
    return c.Error(
        "dump.dump_path",
        StrCat("is required", c.IsOn("dump_debug") ? " for overflow dump" : "",
               ": set it to an existing writable directory (absolute, or "
               "relative to the working directory)",
               MissingPathHint(c)));
  }
  absl::StatusOr<CheckedDumpPath> checked = CheckDumpPath(path->text);
  if (!checked.ok()) {
    return c.Error("dump.dump_path", ToStd(checked.status().message()));
  }
  facts.checked = true;
  facts.remote = checked->remote;
  facts.resolved = std::move(checked->resolved);
  return absl::OkStatus();
}

absl::Status CheckDebug(const CheckContext& c) {
  if (!c.IsOn("dump_debug")) return absl::OkStatus();
  if (c.IsOn("dump_op_switch")) {
    return c.Error("dump.dump_op_switch",
                   "'on' cannot be combined with dump_debug 'on' (overflow "
                   "dump cannot run with single-operator dump); turn one of "
                   "them off");
  }
  // This runtime's rule: overflow dump does not run with a model dump.
  if (c.HasElements("dump_list")) {
    return c.Error("dump.dump_list",
                   "overflow dump (dump_debug 'on') cannot be combined with a "
                   "model dump_list; use \"dump_list\": [] or set dump_debug "
                   "to 'off'");
  }
  return absl::OkStatus();
}

absl::Status CheckStep(const CheckContext& c) {
  const std::string_view text = c.Text("dump_step");
  if (text.empty()) return absl::OkStatus();  // every iteration
  absl::StatusOr<StepSet> steps = StepSet::Parse(text);
  if (!steps.ok()) {
    return c.Error("dump.dump_step", StrCat("invalid value ", Quote(text), ": ",
                                            ToStd(steps.status().message())));
  }
  return absl::OkStatus();
}

// Without dump_op_switch "on", an entry that names a model or layers must
// name them.
absl::Status CheckEntryNames(const CheckContext& c, const JsonNode& entry,
                             const std::string& path) {
  if (c.IsOn("dump_op_switch")) return absl::OkStatus();
  const JsonNode* name = entry.Find("model_name");
  if (name != nullptr && name->text.empty()) {
    return c.Error(MemberPath(path, "model_name"),
                   "is empty; name a model (its file name without "
                   "extension, or its \"name\"), or remove model_name to "
                   "apply the entry to every model");
  }
  const JsonNode* layers = entry.Find("layer");
  if (layers != nullptr && layers->elements().empty()) {
    return c.Error(MemberPath(path, "layer"),
                   "is empty; list operator names, or remove layer to dump "
                   "every operator of the model");
  }
  return absl::OkStatus();
}

absl::Status CheckEntryWatcher(const CheckContext& c, const JsonNode& entry,
                               const std::string& path) {
  const JsonNode* nodes = entry.Find("watcher_nodes");
  const bool has_nodes = nodes != nullptr && !nodes->elements().empty();
  if (c.Text("dump_scene") != kWatcher) {
    if (!has_nodes) return absl::OkStatus();
    return c.Error(MemberPath(path, "watcher_nodes"),
                   "can only be set with \"dump_scene\": \"watcher\"; remove "
                   "it");
  }
  if (!has_nodes) {
    return c.Error(MemberPath(path, "watcher_nodes"),
                   StrCat(nodes == nullptr ? "is required" : "is empty",
                          " with dump_scene 'watcher': list the operators to "
                          "watch"));
  }
  const JsonNode* name = entry.Find("model_name");
  if (name != nullptr && !name->text.empty()) {
    return c.Error(MemberPath(path, "model_name"),
                   "cannot be set with dump_scene 'watcher'; remove it");
  }
  return absl::OkStatus();
}

std::string LevelNeeded(const CheckContext& c, std::string_view key) {
  return StrCat("needs \"dump_level\": \"op\" (dump_level is ",
                c.Field("dump_level") != nullptr
                    ? Quote(c.Text("dump_level"))
                    : std::string("'all', the default"),
                "); set dump_level to 'op' or remove ", key);
}

// Sizes of both blacklists first, then their dump_level, as the SDK does.
absl::Status CheckEntryFilters(const CheckContext& c, const JsonNode& entry,
                               const std::string& path) {
  for (std::string_view key : kBlacklists) {
    const JsonNode* filters = entry.Find(key);
    if (filters != nullptr && filters->elements().size() > kMaxFilters) {
      return c.Error(MemberPath(path, key),
                     StrCat("has ", filters->elements().size(),
                            " filters; at most ", kMaxFilters, " are allowed"));
    }
  }
  for (std::string_view key : kBlacklists) {
    const JsonNode* filters = entry.Find(key);
    if (filters != nullptr && !filters->elements().empty() &&
        c.Text("dump_level") != "op") {
      return c.Error(MemberPath(path, key), LevelNeeded(c, key));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckEntryRanges(const CheckContext& c, const JsonNode& entry,
                              const std::string& path) {
  const JsonNode* ranges = entry.Find("opname_range");
  if (ranges == nullptr || ranges->elements().empty()) {
    return absl::OkStatus();
  }
  const std::string ranges_path = MemberPath(path, "opname_range");
  if (c.Text("dump_level") != "op") {
    return c.Error(ranges_path, LevelNeeded(c, "opname_range"));
  }
  const JsonNode* name = entry.Find("model_name");
  if (name == nullptr || name->text.empty()) {
    return c.Error(
        MemberPath(path, "model_name"),
        StrCat(name == nullptr ? "is required" : "is empty",
               " with opname_range: name the model whose operators "
               "the ranges select",
               CheckContext::TypoHint(entry, "model_name", kEntryKeys)));
  }
  for (size_t j = 0; j < ranges->elements().size(); ++j) {
    const JsonNode& range = ranges->elements()[j];
    const JsonNode* begin = range.Find("begin");
    const JsonNode* end = range.Find("end");
    if (begin != nullptr && end != nullptr && !begin->text.empty() &&
        !end->text.empty()) {
      continue;
    }
    return c.Error(
        ElementPath(ranges_path, j),
        StrCat("is incomplete: begin and end must both name an operator "
               "(found begin ",
               begin != nullptr ? Quote(begin->text) : "missing", ", end ",
               end != nullptr ? Quote(end->text) : "missing", ")"));
  }
  return absl::OkStatus();
}

// The items of a non-empty dump_list, each checked fully before the next.
absl::Status CheckList(const CheckContext& c) {
  const JsonNode* list = c.Field("dump_list");
  if (list == nullptr) return absl::OkStatus();
  for (size_t i = 0; i < list->elements().size(); ++i) {
    const JsonNode& entry = list->elements()[i];
    const std::string path = ElementPath("dump.dump_list", i);
    RETURN_IF_ERROR(CheckEntryNames(c, entry, path));
    RETURN_IF_ERROR(CheckEntryWatcher(c, entry, path));
    RETURN_IF_ERROR(CheckEntryFilters(c, entry, path));
    RETURN_IF_ERROR(CheckEntryRanges(c, entry, path));
  }
  return absl::OkStatus();
}

absl::Status CheckStats(const CheckContext& c) {
  const JsonNode* stats = c.Field("dump_stats");
  if (stats == nullptr) return absl::OkStatus();
  if (stats->elements().empty()) {
    return c.Error("dump.dump_stats",
                   "is empty; list statistics such as [\"Max\", \"Min\"], or "
                   "remove dump_stats for the default columns");
  }
  const PayloadKind* data = FindPayload(c.Text("dump_data"));
  if (data == nullptr || !data->takes_stats_columns) {
    // The payloads whose files are statistics: "\"stats\"".
    std::vector<std::string> takers;
    for (const PayloadKind* kind : Payloads()) {
      if (kind->takes_stats_columns) {
        takers.push_back(StrCat("\"", kind->name, "\""));
      }
    }
    return c.Error("dump.dump_stats",
                   StrCat("needs \"dump_data\": ", StrJoin(takers, " or "),
                          "; set dump_data to ", StrJoin(takers, " or "),
                          " or remove dump_stats"));
  }
  return absl::OkStatus();
}

// The packed layout packs the records of model and single-operator dumps;
// the exception and overflow dumps write one file per event.
absl::Status CheckLayout(const CheckContext& c) {
  if (c.Text("dump_layout") != "packed") return absl::OkStatus();
  const std::string_view scene = c.Text("dump_scene");
  if ((!scene.empty() && scene != kWatcher) || c.IsOn("dump_debug")) {
    return c.Error(
        "dump.dump_layout",
        StrCat("'packed' applies to model and single-operator dumps, not to ",
               c.IsOn("dump_debug") ? "overflow dump (dump_debug 'on')"
                                    : StrCat("dump_scene '", scene, "'"),
               ", which writes one file per event; remove dump_layout or set "
               "it to 'sdk'"));
  }
  return absl::OkStatus();
}

// A whole number of at most `max`, as acl.json writes numbers (in a string).
bool WholeNumberAtMost(std::string_view text, uint64_t max) {
  if (text.empty() || text.size() > 19) return false;
  for (char ch : text) {
    if (ch < '0' || ch > '9') return false;
  }
  return std::stoull(std::string(text)) <= max;
}

// dump_backpressure, dump_wait_budget_us, dump_max_bytes,
// dump_keep_iterations (acldump's own): what an execution does when the
// writer is behind, a byte budget, and retention.
absl::Status CheckLimits(const CheckContext& c) {
  constexpr uint64_t kMaxWaitBudgetUs = 60'000'000;
  constexpr uint64_t kMaxBytes = uint64_t{1} << 60;
  constexpr uint64_t kMaxKeepIterations = 1'000'000'000;
  const bool drop = c.Text("dump_backpressure") == "drop";
  if (drop && !c.Text("dump_scene").empty() &&
      c.Text("dump_scene") != kWatcher) {
    return c.Error("dump.dump_backpressure",
                   StrCat("'drop' applies to model and single-operator "
                          "dumps; an exception dump (dump_scene '",
                          c.Text("dump_scene"),
                          "') writes each failing operator before the "
                          "execution returns and never drops; remove "
                          "dump_backpressure"));
  }
  if (const JsonNode* budget = c.Field("dump_wait_budget_us")) {
    if (!drop) {
      return c.Error("dump.dump_wait_budget_us",
                     "applies to \"dump_backpressure\": \"drop\" (with "
                     "'wait', an execution waits for the writer as long as "
                     "it takes); add it or remove dump_wait_budget_us");
    }
    if (!WholeNumberAtMost(budget->text, kMaxWaitBudgetUs)) {
      return c.Error("dump.dump_wait_budget_us",
                     StrCat("is ", Quote(budget->text),
                            "; expected how long, in microseconds, an "
                            "execution may wait for the writer in all, a "
                            "whole number from 0 to ",
                            kMaxWaitBudgetUs, " (default 0: never wait)"));
    }
  }
  if (const JsonNode* keep = c.Field("dump_keep_iterations")) {
    if (!WholeNumberAtMost(keep->text, kMaxKeepIterations) ||
        keep->text == "0") {
      return c.Error("dump.dump_keep_iterations",
                     StrCat("is ", Quote(keep->text),
                            "; expected how many of each model's newest "
                            "iteration folders to keep, a whole number from "
                            "1 to ",
                            kMaxKeepIterations,
                            " (older ones are removed as newer ones begin)"));
    }
    if (!c.Text("dump_scene").empty() && c.Text("dump_scene") != kWatcher) {
      return c.Error("dump.dump_keep_iterations",
                     "applies to model dumps (iteration folders); an "
                     "exception dump has none: remove dump_keep_iterations");
    }
  }
  if (const JsonNode* bytes = c.Field("dump_max_bytes")) {
    if (!WholeNumberAtMost(bytes->text, kMaxBytes) || bytes->text == "0") {
      return c.Error("dump.dump_max_bytes",
                     StrCat("is ", Quote(bytes->text),
                            "; expected the most bytes of records this "
                            "config may dump, a whole number from 1 to ",
                            kMaxBytes, " (e.g. \"1073741824\" for 1 GiB)"));
    }
  }
  return absl::OkStatus();
}

// dump_baseline (acldump's own): a model dump that compares each operator
// with a stats dump and writes tensors only where they differ.
absl::Status CheckBaseline(const CheckContext& c, PathFacts& path) {
  const JsonNode* baseline = c.Field("dump_baseline");
  const JsonNode* count = c.Field("dump_baseline_tensors");
  if (baseline == nullptr) {
    if (count == nullptr) return absl::OkStatus();
    return c.Error("dump.dump_baseline_tensors",
                   "needs dump_baseline (the stats dump to compare with); add "
                   "\"dump_baseline\": \"<folder of a stats dump>\" or remove "
                   "dump_baseline_tensors");
  }
  if (!c.HasElements("dump_list") || !c.Text("dump_scene").empty()) {
    return c.Error("dump.dump_baseline",
                   "applies to model dump: give a dump_list naming the models "
                   "to compare (and no dump_scene)");
  }
  const PayloadKind* data = FindPayload(c.Text("dump_data"));
  if (data != nullptr && !data->holds_tensor_data) {
    return c.Error("dump.dump_baseline",
                   StrCat("writes the tensors of the operators that differ "
                          "from the baseline, but dump_data is ",
                          Quote(c.Text("dump_data")),
                          "; remove dump_data or set it to \"tensor\""));
  }
  if (count != nullptr) {
    const std::string& text = count->text;
    const bool whole = !text.empty() && text.size() <= 5 &&
                       std::all_of(text.begin(), text.end(), [](char ch) {
                         return ch >= '0' && ch <= '9';
                       });
    if (!whole || std::stoul(text) > kMaxBaselineTensors) {
      return c.Error("dump.dump_baseline_tensors",
                     StrCat("is ", Quote(count->text),
                            "; expected how many differing operators get "
                            "their tensors written, a whole number from 0 to ",
                            kMaxBaselineTensors, " (default 1)"));
    }
  }
  if (baseline->text.empty()) {
    return c.Error("dump.dump_baseline",
                   "is empty; name the folder of a dump written with "
                   "\"dump_data\": \"stats\" (with \"Checksum\" in dump_stats "
                   "for an exact comparison) or \"checksum\"");
  }
  absl::StatusOr<std::string> resolved =
      ResolveUncheckedDumpPath(baseline->text);
  if (!resolved.ok()) {
    return c.Error("dump.dump_baseline", ToStd(resolved.status().message()));
  }
  struct stat st;
  if (::stat(resolved->c_str(), &st) != 0) {
    return c.Error("dump.dump_baseline",
                   StrCat(Quote(*resolved, 4096), ": ", ErrnoText(errno),
                          "; name the folder of an earlier stats dump"));
  }
  path.baseline = *std::move(resolved);
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckConstraints(const CheckContext& c, PathFacts& path) {
  RETURN_IF_ERROR(CheckScene(c));
  RETURN_IF_ERROR(CheckLayout(c));
  // acldump's own keys, before the scenes that stop early ignore them.
  RETURN_IF_ERROR(CheckBaseline(c, path));
  RETURN_IF_ERROR(CheckLimits(c));
  const std::string_view scene = c.Text("dump_scene");
  // Exception scenes check nothing more: their dump_path may be absent.
  if (!scene.empty() && scene != kWatcher) return absl::OkStatus();
  RETURN_IF_ERROR(CheckPath(c, path));
  RETURN_IF_ERROR(CheckDebug(c));
  // Overflow dump checks nothing more.
  if (c.IsOn("dump_debug")) return absl::OkStatus();
  RETURN_IF_ERROR(CheckStep(c));
  RETURN_IF_ERROR(CheckList(c));
  return CheckStats(c);
}

absl::Status CheckUniqueModelNames(const CheckContext& c) {
  const JsonNode* list = c.Field("dump_list");
  if (list == nullptr) return absl::OkStatus();
  // model_name -> index of its entry.
  std::map<std::string_view, size_t> names;
  for (size_t i = 0; i < list->elements().size(); ++i) {
    const JsonNode* name = list->elements()[i].Find("model_name");
    if (name == nullptr || name->text.empty()) continue;  // every model
    const auto [first, added] = names.emplace(name->text, i);
    if (added) continue;
    return c.Error(
        MemberPath(ElementPath("dump.dump_list", i), "model_name"),
        StrCat("duplicate model ", Quote(first->first), ", already named by ",
               ElementPath("dump.dump_list", first->second),
               ".model_name; each model_name must be unique: merge the "
               "entries"));
  }
  return absl::OkStatus();
}

absl::Status CheckRuntimeSupport(const CheckContext& c, const PathFacts& path) {
  const std::string_view scene = c.Text("dump_scene");
  if (scene == kDetailException) {
    return c.Unsupported(
        "dump.dump_scene",
        StrCat(Quote(scene),
               " (exception dump with a core dump) records the AI Core's "
               "local memory, registers and call stack, which a CPU does not "
               "have; use 'aic_err_norm_dump' for the failing operator's "
               "tensors with their data types, formats and attributes"));
  }
  if (c.Field("dump_kernel_data") != nullptr) {
    return c.Unsupported("dump.dump_kernel_data",
                         "kernel debug data (printf, assert, timestamp and "
                         "tensor records of device kernels) needs an NPU; "
                         "remove dump_kernel_data");
  }
  if (path.remote) {
    return c.Unsupported(
        "dump.dump_path",
        StrCat(Quote(c.Text("dump_path")),
               " names a directory on another host (ip:path), but dump files "
               "are written to a local directory: give one"));
  }
  return absl::OkStatus();
}

}  // namespace acldump::dump::config_internal
