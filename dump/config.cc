#include "dump/config.h"

#include <algorithm>
#include <new>

#include "base/error_kind.h"
#include "base/file_reader.h"
#include "base/status_macros.h"
#include "base/strings.h"
#include "base/text.h"
#include "dump/config_path.h"
#include "dump/config_rules.h"
#include "dump/config_schema.h"
#include "dump/json_tree.h"
#include "dump/payload.h"

namespace acldump::dump {
namespace {

using config_internal::CheckContext;
using config_internal::ElementPath;
using config_internal::MemberPath;
using config_internal::PathFacts;

constexpr size_t kMaxConfigBytes = size_t{10} << 20;

// ---------------------------------------------------------------------------
// The DumpConfig of a checked dump object.

class Builder {
 public:
  Builder(const CheckContext& c, DumpConfig& config)
      : c_(c),
        config_(config),
        // An exception scene ignores the dump_list: no warnings about it.
        list_ignored_(!c.Text("dump_scene").empty()) {}

  void Run(const PathFacts& path) {
    config_.dump_path = std::string(c_.Text("dump_path"));
    config_.dump_path_resolved = path.resolved;
    config_.baseline = path.baseline;
    if (const JsonNode* count = c_.Field("dump_baseline_tensors")) {
      config_.baseline_tensors = static_cast<uint32_t>(std::stoul(count->text));
    }
    config_.drop_when_behind = c_.Text("dump_backpressure") == "drop";
    if (const JsonNode* budget = c_.Field("dump_wait_budget_us")) {
      config_.wait_budget_us = std::stoull(budget->text);
    }
    if (const JsonNode* bytes = c_.Field("dump_max_bytes")) {
      config_.max_bytes = std::stoull(bytes->text);
    }
    if (const JsonNode* keep = c_.Field("dump_keep_iterations")) {
      config_.keep_iterations = std::stoull(keep->text);
    }
    BuildSteps();
    BuildStats();
    if (const JsonNode* list = c_.Field("dump_list")) {
      config_.dump_list.reserve(list->elements().size());
      for (size_t i = 0; i < list->elements().size(); ++i) {
        config_.dump_list.push_back(
            BuildEntry(list->elements()[i], ElementPath("dump.dump_list", i)));
      }
    }
    BuildScene();
  }

 private:
  // Exception scenes and overflow dump skip the SDK's dump_step check, so the
  // text may not parse: it is then ignored.
  void BuildSteps() {
    const std::string_view text = c_.Text("dump_step");
    if (text.empty()) return;
    absl::StatusOr<StepSet> steps = StepSet::Parse(text);
    if (steps.ok()) {
      config_.steps = *std::move(steps);
      return;
    }
    c_.Warn("dump.dump_step",
            StrCat("invalid value ", Quote(text),
                   " is ignored: ", ToStd(steps.status().message())));
  }

  void BuildStats() {
    const JsonNode* stats = c_.Field("dump_stats");
    if (stats == nullptr) return;
    for (const JsonNode& name : stats->elements()) {
      const StatColumn column = *StatColumnFromConfigName(name.text);
      if (std::find(config_.stats.begin(), config_.stats.end(), column) ==
          config_.stats.end()) {
        config_.stats.push_back(column);
      }
    }
  }

  DumpListEntry BuildEntry(const JsonNode& entry, const std::string& path) {
    DumpListEntry out;
    const JsonNode* name = entry.Find("model_name");
    if (name != nullptr && !name->text.empty()) out.model_name = name->text;
    const JsonNode* layers = entry.Find("layer");
    if (layers != nullptr && !layers->elements().empty()) {
      std::vector<std::string>& names = out.layers.emplace();
      names.reserve(layers->elements().size());
      for (const JsonNode& layer : layers->elements()) {
        names.push_back(layer.text);
      }
    }
    out.optype_blacklist = BuildFilters(entry.Find("optype_blacklist"),
                                        MemberPath(path, "optype_blacklist"));
    out.opname_blacklist = BuildFilters(entry.Find("opname_blacklist"),
                                        MemberPath(path, "opname_blacklist"));
    if (const JsonNode* ranges = entry.Find("opname_range")) {
      for (const JsonNode& range : ranges->elements()) {
        const JsonNode* begin = range.Find("begin");
        const JsonNode* end = range.Find("end");
        out.opname_range.push_back({begin != nullptr ? begin->text : "",
                                    end != nullptr ? end->text : ""});
      }
    }
    if (const JsonNode* nodes = entry.Find("watcher_nodes")) {
      for (const JsonNode& node : nodes->elements()) {
        out.watcher_nodes.push_back(node.text);
      }
    }
    if (!out.model_name && !out.layers && !list_ignored_ &&
        c_.Text("dump_scene") != config_internal::kWatcher) {
      c_.Warn(path,
              "names neither a model nor layers: every operator of every "
              "model is dumped");
    }
    return out;
  }

  std::vector<OpFilter> BuildFilters(const JsonNode* list,
                                     const std::string& path) {
    std::vector<OpFilter> out;
    if (list == nullptr) return out;
    for (size_t i = 0; i < list->elements().size(); ++i) {
      const JsonNode& filter = list->elements()[i];
      const std::string filter_path = ElementPath(path, i);
      OpFilter& f = out.emplace_back();
      if (const JsonNode* name = filter.Find("name")) f.name = name->text;
      if (f.name.empty() && !list_ignored_) {
        c_.Warn(filter_path, "has no name: it excludes nothing");
      }
      const JsonNode* pos = filter.Find("pos");
      if (pos == nullptr) continue;
      for (size_t k = 0; k < pos->elements().size(); ++k) {
        const std::string& position = pos->elements()[k].text;
        if (!ParseTensorPosition(position) && !list_ignored_) {
          c_.Warn(ElementPath(MemberPath(filter_path, "pos"), k),
                  StrCat(Quote(position),
                         " is not a position of the form inputN or outputN "
                         "(such as input0): it excludes nothing"));
        }
        f.positions.push_back(position);
      }
    }
    return out;
  }

  void BuildScene() {
    const bool has_list = c_.HasElements("dump_list");
    const std::string_view scene = c_.Text("dump_scene");
    if (scene == config_internal::kLiteException ||
        scene == config_internal::kBriefException ||
        scene == config_internal::kNormException) {
      config_.scene = DumpScene::kException;
      config_.exception_scene = std::string(scene);
      config_.exception_level = scene == config_internal::kNormException
                                    ? ExceptionLevel::kNorm
                                    : ExceptionLevel::kBrief;
      BuildExceptionPath();
      if (has_list) {
        c_.Warn("dump.dump_list",
                StrCat("is ignored: exception dump (dump_scene '", scene,
                       "') takes precedence over model dump"));
      }
    } else if (c_.IsOn("dump_debug")) {
      config_.scene = DumpScene::kOverflow;
    } else if (scene == config_internal::kWatcher) {
      if (has_list) config_.scene = DumpScene::kWatcher;
    } else if (has_list) {
      config_.scene = DumpScene::kModel;
    }
    if (!config_.enabled()) {
      c_.Warn("dump",
              "selects nothing to dump (no dump_list entry, dump_op_switch "
              "and dump_debug off, no dump_scene): the config is accepted and "
              "does nothing");
    }
  }

  // The SDK does not check an exception scene's dump_path: it is used when
  // it resolves, and a warning says why when it does not.
  void BuildExceptionPath() {
    if (c_.Field("dump_path") == nullptr) return;
    absl::StatusOr<std::string> resolved =
        ResolveUncheckedDumpPath(config_.dump_path);
    if (resolved.ok()) {
      config_.dump_path_resolved = *std::move(resolved);
      return;
    }
    c_.Warn("dump.dump_path",
            StrCat(resolved.status().message(),
                   ": exception files go to $ASCEND_DUMP_PATH, "
                   "$ASCEND_WORK_PATH or the working directory instead"));
  }

  const CheckContext& c_;
  DumpConfig& config_;
  const bool list_ignored_;
};

// Every check of a non-empty dump object, in order, then the DumpConfig.
absl::Status CheckAndBuild(const JsonNode& dump, const std::string& source,
                           DumpConfig& config) {
  const CheckContext c(dump, source, &config.warnings);
  RETURN_IF_ERROR(config_internal::CheckKeys(c));
  RETURN_IF_ERROR(config_internal::CheckTypes(c));
  RETURN_IF_ERROR(config_internal::CheckValues(c, config));
  PathFacts path;
  RETURN_IF_ERROR(config_internal::CheckConstraints(c, path));
  RETURN_IF_ERROR(config_internal::CheckUniqueModelNames(c));
  RETURN_IF_ERROR(config_internal::CheckRuntimeSupport(c, path));
  Builder(c, config).Run(path);
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------
// The text before the dump object.

absl::Status ParseError(std::string_view source, std::string_view message,
                        ErrorKind kind) {
  return WithKind(absl::InvalidArgumentError(StrCat(source, ": ", message)),
                  kind);
}

absl::Status CheckNesting(std::string_view text, std::string_view source) {
  const BracketNesting nesting = CountBracketNesting(text, kMaxJsonNesting);
  if (!nesting.first_too_deep) return absl::OkStatus();
  const size_t offset = *nesting.first_too_deep;
  const TextPosition at = PositionOf(text, offset);
  return ParseError(
      source,
      StrCat("JSON nesting is deeper than ", kMaxJsonNesting, " levels: the ",
             kMaxJsonNesting + 1, "th nested '", text[offset], "' is at line ",
             at.line, ", column ", at.column,
             " (every '{' and '[' in the file counts, also inside strings); a "
             "dump config needs at most 4 levels"),
      ErrorKind::kParseFile);
}

// The "dump" member of the top-level object, nullptr if there is none.
absl::StatusOr<const JsonNode*> FindDumpSection(const JsonNode& root,
                                                std::string_view source) {
  const JsonNode* dump = nullptr;
  for (const JsonMember& member : root.members()) {
    if (member.key != "dump") continue;
    if (dump != nullptr) {
      return ParseError(source,
                        "dump: duplicate key 'dump': the file has more than "
                        "one dump section; merge them into one",
                        ErrorKind::kInvalidDumpConfig);
    }
    dump = &member.value;
  }
  return dump;
}

absl::StatusOr<DumpConfig> Parse(std::string_view text,
                                 std::string_view source) {
  const std::string shown =
      source.empty() ? "(unnamed config)" : std::string(source);
  DumpConfig config;
  config.source = std::string(source);
  if (text.size() > kMaxConfigBytes) {
    return ParseError(
        shown,
        StrCat("is ", text.size(), " bytes; a dump config may be at most ",
               kMaxConfigBytes, " bytes (10 MiB)"),
        ErrorKind::kInvalidFile);
  }
  if (text.empty()) {
    config.warnings.push_back(
        StrCat(shown, ": the file is empty: no dump is configured"));
    return config;
  }
  RETURN_IF_ERROR(CheckNesting(text, shown));
  absl::StatusOr<JsonNode> root = ParseJsonTree(text, kMaxJsonNesting);
  if (!root.ok()) {
    return ParseError(shown, ToStd(root.status().message()),
                      root.status().code() == absl::StatusCode::kOutOfRange
                          ? ErrorKind::kParseFile
                          : ErrorKind::kInvalidJson);
  }
  if (!root->is_object()) {
    config.warnings.push_back(
        StrCat(shown, ": the top level is ", DescribeJsonValue(*root),
               ", not an object such as {\"dump\": {...}}: there is no dump "
               "section, nothing is dumped"));
    return config;
  }
  ASSIGN_OR_RETURN(const JsonNode* dump, FindDumpSection(*root, shown));
  if (dump == nullptr) return config;
  if (!dump->is_object()) {
    return ParseError(shown,
                      StrCat("dump: must be a JSON object such as "
                             "{\"dump_path\": \"output\", ...}, found ",
                             DescribeJsonValue(*dump)),
                      ErrorKind::kInvalidDumpConfig);
  }
  if (dump->members().empty()) {
    config.warnings.push_back(
        StrCat(shown, ": dump: is empty: nothing is dumped"));
    return config;
  }
  RETURN_IF_ERROR(CheckAndBuild(*dump, shown, config));
  return config;
}

// ---------------------------------------------------------------------------
// Files.

absl::Status FileError(const absl::Status& read) {
  std::string message(ToStd(read.message()));
  if (read.code() == absl::StatusCode::kResourceExhausted) {
    message += " (a dump config file may be at most 10 MiB)";
  } else if (message.find("is a directory") != std::string::npos) {
    message += "; name the acl.json file itself";
  }
  return WithKind(absl::Status(read.code(), message), ErrorKind::kInvalidFile);
}

absl::StatusOr<DumpConfig> Load(const std::string& path) {
  if (path.empty()) {
    return WithKind(
        absl::InvalidArgumentError("(empty path): no dump config file named"),
        ErrorKind::kInvalidFile);
  }
  if (path.find('\0') != std::string::npos) {
    return WithKind(
        absl::InvalidArgumentError(StrCat(
            Printable(path, 200), ": the path contains a NUL character")),
        ErrorKind::kInvalidFile);
  }
  absl::StatusOr<std::string> text =
      ReadRegularFile(path, kMaxConfigBytes, "dump config file");
  if (!text.ok()) return FileError(text.status());
  return Parse(*text, path);
}

absl::Status InternalFailure(std::string_view source, std::string_view what) {
  return absl::InternalError(
      StrCat(source, ": could not check the dump config: ", what));
}

// ---------------------------------------------------------------------------
// Descriptions.

std::string ModesText(DumpMode mode) {
  switch (mode) {
    case DumpMode::kInput:
      return "inputs";
    case DumpMode::kOutput:
      return "outputs";
    case DumpMode::kAll:
      return "inputs and outputs";
  }
  return "";
}

}  // namespace

const PayloadKind& DumpConfig::payload() const {
  return data != nullptr ? *data : DefaultPayload();
}

namespace {

std::string DataText(const DumpConfig& config) {
  const PayloadKind& payload = config.payload();
  if (!payload.takes_stats_columns) return std::string(payload.name);
  std::vector<std::string_view> names;
  for (StatColumn column : config.stats) {
    names.push_back(StatColumnConfigName(column));
  }
  return names.empty() ? StrCat(payload.name, " (default columns)")
                       : StrCat(payload.name, " (", StrJoin(names, ", "), ")");
}

std::string ModelsText(const DumpConfig& config) {
  size_t named = 0, layer_lists = 0, whole = 0;
  for (const DumpListEntry& entry : config.dump_list) {
    if (entry.model_name) {
      ++named;
    } else if (entry.layers) {
      ++layer_lists;
    } else {
      ++whole;
    }
  }
  std::vector<std::string> parts;
  if (named > 0) parts.push_back(Plural(named, "model"));
  if (layer_lists > 0) {
    parts.push_back(
        StrCat(Plural(layer_lists, "layer list"), " for every model"));
  }
  if (whole > 0) parts.push_back("every operator of every model");
  return StrCat("model dump of ", StrJoin(parts, " and "));
}

// The drop policy and the byte budget, when set.
std::string LimitsText(const DumpConfig& config) {
  std::string text;
  if (config.drop_when_behind) {
    StrAppend(text, "; records an execution cannot hand to the writer within ",
              config.wait_budget_us, " us are dropped and counted");
  }
  if (config.max_bytes > 0) {
    StrAppend(text, "; at most ", config.max_bytes,
              " bytes are dumped, the records beyond dropped and counted");
  }
  if (config.keep_iterations > 0) {
    StrAppend(text, "; only the newest ", config.keep_iterations,
              " iteration folders of each model are kept");
  }
  return text;
}

std::string DescribeWatcher(const DumpConfig& config) {
  std::vector<std::string> watched, layers;
  bool every_operator = false;
  for (const DumpListEntry& entry : config.dump_list) {
    watched.insert(watched.end(), entry.watcher_nodes.begin(),
                   entry.watcher_nodes.end());
    if (!entry.layers) {
      every_operator = true;
    } else {
      layers.insert(layers.end(), entry.layers->begin(), entry.layers->end());
    }
  }
  return StrCat(
      "watcher dump of the outputs of ", StrJoin(watched, ", "), " after ",
      every_operator ? std::string("every operator")
                     : StrCat("each of ", StrJoin(layers, ", ")),
      " runs and after each watcher node runs, ", DataText(config), ", ",
      config.steps ? StrCat("steps ", config.steps->ToString())
                   : std::string("every step"),
      ", into ", config.dump_path_resolved,
      config.layout == DumpLayout::kPacked ? " (packed layout)" : "");
}

std::string DescribeException(const DumpConfig& config) {
  std::string text = StrCat(
      "exception dump (dump_scene ", config.exception_scene, "): ",
      config.exception_level == ExceptionLevel::kNorm
          ? "inputs, outputs, workspace and tiling data of operators that "
            "fail, with data types, formats and attributes"
          : "inputs, outputs, workspace and tiling data of operators that "
            "fail",
      ", into extra-info/data-dump/{device} below $ASCEND_DUMP_PATH, "
      "$ASCEND_WORK_PATH, ",
      config.dump_path_resolved.empty()
          ? std::string()
          : StrCat("dump_path (", config.dump_path_resolved, "), "),
      "or the working directory, the first that is set");
  if (!config.dump_list.empty()) {
    StrAppend(text, "; the dump_list (", config.dump_list.size(),
              config.dump_list.size() == 1 ? " entry" : " entries",
              ") is ignored: exception dump takes precedence");
  }
  return text;
}

}  // namespace

std::optional<TensorPosition> ParseTensorPosition(std::string_view position) {
  TensorPosition out;
  std::string_view digits;
  if (position.substr(0, 5) == "input") {
    out.input = true;
    digits = position.substr(5);
  } else if (position.substr(0, 6) == "output") {
    digits = position.substr(6);
  } else {
    return std::nullopt;
  }
  if (digits.empty() || digits.size() > 9) return std::nullopt;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    out.index = out.index * 10 + static_cast<uint32_t>(c - '0');
  }
  return out;
}

// ---------------------------------------------------------------------------
// Entry points: nothing may escape them (the input is untrusted, and callers
// include a C ABI).

absl::StatusOr<DumpConfig> LoadDumpConfigFile(const std::string& path) {
  try {
    return Load(path);
  } catch (const std::bad_alloc&) {
    return InternalFailure(path, "out of memory");
  } catch (const std::exception& e) {
    return InternalFailure(path, e.what());
  } catch (...) {
    return InternalFailure(path, "unknown exception");
  }
}

absl::StatusOr<DumpConfig> ParseDumpConfig(std::string_view json_text,
                                           std::string_view source) {
  try {
    return Parse(json_text, source);
  } catch (const std::bad_alloc&) {
    return InternalFailure(source, "out of memory");
  } catch (const std::exception& e) {
    return InternalFailure(source, e.what());
  } catch (...) {
    return InternalFailure(source, "unknown exception");
  }
}

std::string DescribeDumpConfig(const DumpConfig& config) {
  const std::string source =
      config.source.empty() ? "the config" : config.source;
  if (!config.enabled() && config.dump_path.empty()) {
    return StrCat("dump disabled: ", source, " has no dump settings");
  }
  if (config.scene == DumpScene::kException) return DescribeException(config);
  const std::string steps =
      config.steps ? StrCat("steps ", config.steps->ToString()) : "every step";
  const std::string into = StrCat("into ", config.dump_path_resolved);
  if (config.scene == DumpScene::kWatcher) return DescribeWatcher(config);
  if (config.scene == DumpScene::kOverflow) {
    return StrCat(
        "overflow dump of the inputs and outputs of operators whose results "
        "overflow, ",
        steps, ", ", into);
  }
  std::vector<std::string> what;
  if (config.model_dump()) what.push_back(ModelsText(config));
  if (config.op_switch) what.push_back("single-operator dump");
  if (what.empty()) {
    return StrCat(
        "dump configured but nothing selected (no dump_list entry, "
        "dump_op_switch off), ",
        into);
  }
  if (!config.baseline.empty()) {
    return StrCat(
        StrJoin(what, " and "), " compared with the baseline ", config.baseline,
        ": tensors (inputs and outputs) of the first ", config.baseline_tensors,
        " differing operator", config.baseline_tensors == 1 ? "" : "s",
        " per iteration, ", steps, ", ", into,
        config.layout == DumpLayout::kPacked ? " (packed layout)" : "");
  }
  return StrCat(StrJoin(what, " and "), ", ", ModesText(config.mode), ", ",
                DataText(config), ", ", steps, ", ", into,
                config.layout == DumpLayout::kPacked ? " (packed layout)" : "",
                LimitsText(config));
}

}  // namespace acldump::dump
