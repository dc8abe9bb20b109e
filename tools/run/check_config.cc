#include "tools/run/check_config.h"

#include <algorithm>
#include <filesystem>
#include <set>

#include "acl/acl.h"
#include "base/status_macros.h"
#include "base/strings.h"
#include "base/text.h"
#include "dump/config.h"
#include "dump/format/dump_names.h"
#include "dump/format/record_file.h"
#include "dump/payload.h"
#include "dump/policy.h"
#include "nlohmann/json.hpp"
#include "runtime/gears.h"
#include "runtime/model_loader.h"
#include "tools/common/cli_util.h"
#include "tools/run/model_input.h"

namespace acldump::tools {
namespace {

// What aclmdlSetDump says about the file: (code, message).
std::pair<aclError, std::string> ValidateThroughApi(const std::string& path) {
  aclError code = aclInit(nullptr);
  if (code != ACL_SUCCESS) return {code, aclGetRecentErrMsg()};
  code = aclmdlInitDump();
  std::string message;
  if (code == ACL_SUCCESS) {
    code = aclmdlSetDump(path.c_str());
    if (code != ACL_SUCCESS) message = aclGetRecentErrMsg();
    aclmdlFinalizeDump();
  } else {
    message = aclGetRecentErrMsg();
  }
  aclFinalize();
  return {code, message};
}

// Compiled through the loader, as every load is (a dynamic model gets one
// plan per gear), only to plan: checking a model never allocates its
// activations.
absl::StatusOr<std::unique_ptr<GearedModel>> LoadForPlan(
    const std::string& path) {
  ASSIGN_OR_RETURN(Graph graph, ReadAnyModel(path, /*allow_dynamic=*/true));
  return CompileModel(std::move(graph));
}

std::string GearName(const GearedModel& model, size_t gear) {
  return StrCat(GearKindName(model.gear_kind()), " [",
                StrJoin(model.gears()[gear], ","), "]");
}

std::string ShapeText(const TensorInfo& info) {
  return info.shape.rank() == 0 ? "[]" : StrJoin(info.shape.dims(), "x");
}

// Bytes of a dump file header: a rough figure (names, shapes, attrs).
uint64_t HeaderEstimate(const StepInfo& step, size_t tensors) {
  uint64_t bytes = 24 + 2 * step.name.size() + step.op_type.size();
  for (const std::string& name : step.original_names) bytes += name.size() + 1;
  return bytes + 48 * tensors;
}

// Names longer than a file system allows are written as hashes with a
// mapping.csv row: say which, before the run.
void PredictHashedNames(const CompiledModel& model, const dump::DumpPlan& plan,
                        std::vector<std::string>& warnings) {
  const std::string folder = dump::EscapeNamePart(plan.model_name);
  if (dump::ExceedsNameMax(folder)) {
    warnings.push_back(StrCat(
        "the model folder name is ", folder.size(), " bytes, more than the ",
        dump::kMaxNameBytes,
        " a file system allows: it is written as the hash of its path, with "
        "a \"hash,name\" row in mapping.csv of its device folder"));
  }
  size_t long_files = 0;
  for (size_t s = 0; s < model.steps().size(); ++s) {
    if (!plan.dump_inputs[s] && !plan.dump_outputs[s]) continue;
    const StepInfo& step = model.steps()[s];
    // The timestamp has 16 digits; ".csv" may follow.
    const std::string name = dump::DumpFileName(
        step.op_type, step.name, step.task_id, 0, 1000000000000000);
    long_files += dump::ExceedsNameMax(name + ".csv");
  }
  if (long_files > 0) {
    warnings.push_back(StrCat(
        long_files, " operator(s) have dump file names over ",
        dump::kMaxNameBytes,
        " bytes: those files are written as the hash of their path, with a "
        "\"hash,name\" row in their folder's mapping.csv"));
  }
}

void AppendConfigDetails(const dump::DumpConfig& config, std::string& out) {
  if (!config.model_dump()) return;
  out += "  dump_list:\n";
  for (size_t i = 0; i < config.dump_list.size(); ++i) {
    const dump::DumpListEntry& entry = config.dump_list[i];
    StrAppend(out, "    [", i, "] ",
              entry.model_name ? StrCat("model '", *entry.model_name, "'")
                               : std::string("every model"),
              ": ",
              entry.layers ? StrCat(entry.layers->size(), " layers (",
                                    StrJoin(*entry.layers, ", "), ")")
                           : std::string("every operator"),
              "\n");
  }
}

// Why no dump_list entry matched the model, with near misses; the warning
// goes to `warnings`.
std::string UnnamedModelReason(const dump::DumpConfig& config,
                               const std::string& file_stem,
                               const std::string& graph_name,
                               std::vector<std::string>& warnings) {
  std::vector<std::string> named;
  std::vector<std::string_view> candidates = {file_stem, graph_name};
  for (const auto& e : config.dump_list) {
    if (e.model_name) named.push_back(StrCat("'", *e.model_name, "'"));
  }
  std::string reason = StrCat(
      "no dump_list entry names this model (model_name must be the file "
      "stem '",
      file_stem, "' or the graph name '", graph_name, "'; the config names ",
      StrJoin(named, ", "), ")");
  for (const auto& e : config.dump_list) {
    if (!e.model_name) continue;
    if (auto near = NearestWord(*e.model_name, candidates)) {
      StrAppend(reason, "; did you mean '", *near, "' for '", *e.model_name,
                "'?");
    }
  }
  warnings.push_back(reason + ": nothing of it is dumped");
  return reason;
}

void AddPlanRow(PlanRow row, uint64_t tensor_bytes, ModelPlan& mp) {
  mp.bytes_per_iteration += row.bytes;
  mp.tensor_bytes_per_iteration += tensor_bytes;
  ++mp.files_per_iteration;
  mp.rows.push_back(std::move(row));
}

// A graph input is dumped as the output of its Data op.
PlanRow DataRow(const Graph& graph, int g, const StepInfo& step,
                const dump::PayloadKind& payload) {
  const TensorInfo& info = graph.inputs[g].info;
  PlanRow row;
  row.task = step.task_id;
  row.op = graph.inputs[g].name;
  row.type = "Data";
  row.dumps = "output (graph input)";
  row.tensors = {ShapeText(info)};
  row.bytes = payload.estimate_bytes({1, info.ByteSize(), 80});
  return row;
}

// The row of a step that dumps inputs, outputs or both; `data` is set to
// the bytes of its tensors.
PlanRow StepRow(const StepInfo& step, bool inputs, bool outputs,
                const dump::PayloadKind& payload, uint64_t& data) {
  size_t tensors = 0;
  data = 0;
  PlanRow row;
  if (inputs) {
    for (const TensorInfo& info : step.input_infos) {
      if (!info.present()) continue;
      ++tensors;
      data += info.ByteSize();
      row.tensors.push_back("in " + ShapeText(info));
    }
  }
  if (outputs) {
    for (const TensorInfo& info : step.output_infos) {
      ++tensors;
      data += info.ByteSize();
      row.tensors.push_back("out " + ShapeText(info));
    }
  }
  row.task = step.task_id;
  row.op = step.name;
  row.type = step.op_type;
  row.original_names = step.original_names;
  row.dumps =
      inputs && outputs ? "inputs+outputs" : (inputs ? "inputs" : "outputs");
  row.bytes =
      payload.estimate_bytes({tensors, data, HeaderEstimate(step, tensors)});
  return row;
}

// The rows of the selected model, in run order, with a graph input's row
// before the first step that reads it.
void AddPlanRows(const dump::DumpConfig& config, const CompiledModel& model,
                 const dump::DumpPlan& plan, ModelPlan& mp) {
  const Graph& graph = model.graph();
  const dump::PayloadKind& payload = config.payload();
  // Tensor bytes are reported apart only where the files hold them.
  const uint64_t tensor_share = payload.holds_tensor_data ? 1 : 0;
  std::set<int> data_ops;
  for (size_t s = 0; s < model.steps().size(); ++s) {
    const StepInfo& step = model.steps()[s];
    for (int g : plan.data_inputs[s]) {
      if (!data_ops.insert(g).second) continue;
      AddPlanRow(DataRow(graph, g, step, payload),
                 tensor_share * graph.inputs[g].info.ByteSize(), mp);
    }
    if (!plan.dump_inputs[s] && !plan.dump_outputs[s]) continue;
    uint64_t data = 0;
    PlanRow row =
        StepRow(step, plan.dump_inputs[s], plan.dump_outputs[s], payload, data);
    AddPlanRow(std::move(row), tensor_share * data, mp);
  }
}

void ListNeverDumped(const Graph& graph, ModelPlan& mp) {
  for (const GraphNode& node : graph.nodes) {
    if (node.no_task) {
      mp.never_dumped.push_back(StrCat(node.name, " (", node.op_type,
                                       ": no-task node, aliases memory)"));
    } else if (node.op_type == "Constant") {
      mp.never_dumped.push_back(
          StrCat(node.name, " (Constant: no output at run time)"));
    }
  }
}

// The watcher scene's files: each watcher's own, and one per watcher after
// each layer, in run order.
void AddWatcherRows(const dump::DumpConfig& config, const CompiledModel& model,
                    ModelPlan& mp, std::vector<std::string>& warnings) {
  const dump::WatcherPlan plan = dump::BuildWatcherPlan(config, model);
  warnings.insert(warnings.end(), plan.warnings.begin(), plan.warnings.end());
  if (plan.watchers.empty()) {
    mp.nothing_reason =
        "none of the watcher_nodes is an operator of this model (names after "
        "fusion)";
    return;
  }
  mp.selected = true;
  mp.selected_by = StrCat("dump_scene watcher (", plan.watchers.size(),
                          " watcher nodes, ", plan.layers.size(), " layers)");
  mp.folder = StrCat(config.dump_path_resolved, "/{time}/{device}/",
                     model.graph().name, "/{model id}/{iteration}/");
  mp.iterations = config.steps ? StrCat("steps ", config.steps->ToString())
                               : std::string("every iteration");
  const dump::PayloadKind& payload = config.payload();
  const uint64_t tensor_share = payload.holds_tensor_data ? 1 : 0;
  const std::vector<StepInfo>& steps = model.steps();
  std::vector<std::pair<PlanRow, uint64_t>> rows;
  for (uint32_t w : plan.watchers) {
    uint64_t data = 0;
    PlanRow row = StepRow(steps[w], false, true, payload, data);
    rows.emplace_back(std::move(row), tensor_share * data);
  }
  for (uint32_t layer : plan.layers) {
    for (uint32_t w : plan.watchers) {
      uint64_t data = 0;
      PlanRow row = StepRow(steps[w], false, true, payload, data);
      row.task = layer;
      row.op = StrCat(steps[layer].name, "_To_", steps[w].name);
      row.original_names.clear();
      row.dumps = StrCat("outputs of ", steps[w].name);
      rows.emplace_back(std::move(row), tensor_share * data);
    }
  }
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    return a.first.task < b.first.task;
  });
  for (auto& [row, data] : rows) AddPlanRow(std::move(row), data, mp);
}

// The plan of one compiled plan of a model under `config`, and the warnings
// it adds.
ModelPlan BuildPlanOf(const dump::DumpConfig& config,
                      const CompiledModel& model, const std::string& model_path,
                      std::vector<std::string>& warnings) {
  ModelPlan mp;
  mp.model_path = model_path;
  mp.file_stem = FileStem(model_path);
  const Graph& graph = model.graph();
  mp.graph_name = graph.name;
  mp.executed_ops = model.steps().size();
  if (config.scene == dump::DumpScene::kWatcher) {
    AddWatcherRows(config, model, mp, warnings);
    ListNeverDumped(graph, mp);
    return mp;
  }
  const dump::DumpPlan plan = dump::BuildDumpPlan(config, model, mp.file_stem);
  const int entry = dump::MatchModelEntry(config, mp.file_stem, graph.name);
  if (!config.model_dump()) {
    mp.nothing_reason =
        config.enabled()
            ? std::string()
            : "the config dumps no model: it has no dump_list entry (and "
              "dump_debug and dump_op_switch are off)";
  } else if (!plan.selected) {
    mp.nothing_reason =
        entry < 0
            ? UnnamedModelReason(config, mp.file_stem, graph.name, warnings)
            : StrCat("dump_list[", entry,
                     "] names this model but its layer list and "
                     "ranges select no operator it runs");
  } else {
    mp.selected = true;
    mp.selected_by = entry >= 0
                         ? StrCat("dump_list[", entry, "] (model_name '",
                                  *config.dump_list[entry].model_name, "')")
                         : std::string("a layer list for every model");
    mp.folder = StrCat(config.dump_path_resolved, "/{time}/{device}/",
                       plan.model_name, "/{model id}/{iteration}/");
    mp.iterations = config.steps ? StrCat("steps ", config.steps->ToString())
                                 : std::string("every iteration");
    AddPlanRows(config, model, plan, mp);
    PredictHashedNames(model, plan, warnings);
  }
  ListNeverDumped(graph, mp);
  for (const std::string& warning : plan.warnings) warnings.push_back(warning);
  return mp;
}

// The plan of `model` (its largest gear's when dynamic; the table of every
// gear's totals beside), and the warnings it adds, each once.
ModelPlan BuildModelPlan(const dump::DumpConfig& config,
                         const GearedModel& model,
                         const std::string& model_path,
                         std::vector<std::string>& warnings) {
  if (!model.dynamic()) {
    return BuildPlanOf(config, model.plan(0), model_path, warnings);
  }
  const size_t shown = model.largest_gear();
  ModelPlan mp = BuildPlanOf(config, model.plan(shown), model_path, warnings);
  mp.graph_name = model.graph().name;
  mp.gear = GearName(model, shown);
  for (size_t g = 0; g < model.num_plans(); ++g) {
    std::vector<std::string> ignored;  // gears share their layer names
    const ModelPlan gear =
        g == shown ? mp
                   : BuildPlanOf(config, model.plan(g), model_path, ignored);
    mp.gears.push_back({GearName(model, g), gear.files_per_iteration,
                        gear.bytes_per_iteration});
  }
  return mp;
}

std::string RenderPlan(const dump::DumpConfig& config, const ModelPlan& mp) {
  std::string out = StrCat("\nmodel ", mp.model_path, ": graph '",
                           mp.graph_name, "', file stem '", mp.file_stem, "', ",
                           mp.executed_ops, " executed operators\n");
  if (!mp.gear.empty()) {
    StrAppend(out, "  dynamic model with ", mp.gears.size(),
              " gears; the table is ", mp.gear,
              "'s (the largest, which runs while no gear is set)\n");
  }
  if (!config.model_dump() && config.scene != dump::DumpScene::kWatcher) {
    out += "  the config dumps no model (no model dump_list)\n";
  } else if (!mp.selected) {
    out += "  nothing of this model would be dumped\n";
  } else {
    StrAppend(out, "  selected by ", mp.selected_by, "; files go to ",
              mp.folder, "\n  iterations: ", mp.iterations, "\n");
    TextTable table(
        {"task", "op", "type", "original names", "dumps", "tensors", "bytes"});
    for (const PlanRow& row : mp.rows) {
      table.AddRow(
          {StrCat(row.task), row.op, row.type,
           row.original_names.empty() ? std::string("-")
                                      : StrJoin(row.original_names, ","),
           row.dumps, StrJoin(row.tensors, " "), HumanBytes(row.bytes)});
    }
    out += table.Render("  ");
    const dump::PayloadKind& payload = config.payload();
    StrAppend(out, "  estimated per dumped iteration: ", mp.files_per_iteration,
              " files, ", HumanBytes(mp.bytes_per_iteration),
              payload.holds_tensor_data
                  ? StrCat(" (", HumanBytes(mp.tensor_bytes_per_iteration),
                           " tensor data)")
                  : StrCat(" of ", dump::RecordFileName(payload.file)),
              "\n");
  }
  if (mp.selected && !mp.gears.empty()) {
    out += "  per gear and dumped iteration:";
    for (const GearPlan& gear : mp.gears) {
      StrAppend(out, " ", gear.gear, " ", gear.files_per_iteration, " files ",
                HumanBytes(gear.bytes_per_iteration), ";");
    }
    out.back() = '\n';
  }
  if (!mp.never_dumped.empty()) {
    StrAppend(out, "  never dumped: ", StrJoin(mp.never_dumped, ", "), "\n");
  }
  return out;
}

}  // namespace

absl::StatusOr<ConfigCheck> CheckConfig(const std::string& config_path,
                                        const std::string& model_path) {
  ConfigCheck check;
  const auto [code, message] = ValidateThroughApi(config_path);
  check.acl_error = code;
  if (code != ACL_SUCCESS) {
    check.message = message;
    check.report = StrCat(message, " [aclmdlSetDump returns ",
                          AclErrorName(code), " (", code, ")]\n");
    return check;
  }
  absl::StatusOr<dump::DumpConfig> config =
      dump::LoadDumpConfigFile(config_path);
  if (!config.ok()) {  // the API accepted it: only a race could get here
    check.message = std::string(ToStd(config.status().message()));
    check.report = StrCat(config.status().message(), "\n");
    return check;
  }
  check.valid = true;
  check.description = dump::DescribeDumpConfig(*config);
  std::string& out = check.report;
  StrAppend(out, config_path, ": valid (aclmdlSetDump returns ACL_SUCCESS)\n  ",
            check.description, "\n");
  AppendConfigDetails(*config, out);
  // What the parser accepted but noticed: unknown keys, filters without
  // effect, a config that selects nothing, ...
  std::vector<std::string> warnings = config->warnings;
  if (config->model_dump() && config->payload().holds_tensor_data &&
      config->mode == dump::DumpMode::kAll && !config->steps) {
    bool whole_model = false;
    for (const auto& entry : config->dump_list) whole_model |= !entry.layers;
    if (whole_model) {
      warnings.push_back(
          "inputs and outputs of every operator at every step: full dumps are "
          "large and slow; find suspects with dump_data stats first, "
          "then dump those layers");
    }
  }
  if (!model_path.empty()) {
    ASSIGN_OR_RETURN(std::unique_ptr<GearedModel> model,
                     LoadForPlan(model_path));
    check.plan = BuildModelPlan(*config, *model, model_path, warnings);
    out += RenderPlan(*config, *check.plan);
  }
  check.warnings = warnings.size();
  check.warning_list = warnings;
  if (!warnings.empty()) {
    out += "\nwarnings:\n";
    for (const std::string& warning : warnings) {
      StrAppend(out, "  - ", warning, "\n");
    }
  }
  return check;
}

std::string ConfigCheckJson(const std::string& config_path,
                            const ConfigCheck& check) {
  using Json = nlohmann::ordered_json;
  Json j;
  j["schema"] = "acldump.check-config/1";
  j["config"] = config_path;
  j["valid"] = check.valid;
  j["acl_error"] = check.acl_error;
  j["acl_error_name"] = AclErrorName(check.acl_error);
  j["message"] = check.message;
  j["description"] = check.description;
  j["warnings"] = check.warning_list;
  if (!check.plan) {
    j["plan"] = nullptr;
  } else {
    const ModelPlan& mp = *check.plan;
    Json plan;
    plan["model"] = mp.model_path;
    plan["graph_name"] = mp.graph_name;
    plan["file_stem"] = mp.file_stem;
    plan["gear"] = mp.gear.empty() ? Json(nullptr) : Json(mp.gear);
    Json gears = Json::array();
    for (const GearPlan& gear : mp.gears) {
      gears.push_back({{"gear", gear.gear},
                       {"files_per_iteration", gear.files_per_iteration},
                       {"bytes_per_iteration", gear.bytes_per_iteration}});
    }
    plan["gears"] = std::move(gears);
    plan["executed_operators"] = mp.executed_ops;
    plan["selected"] = mp.selected;
    plan["selected_by"] = mp.selected_by;
    plan["folder"] = mp.folder;
    plan["iterations"] = mp.iterations;
    Json rows = Json::array();
    for (const PlanRow& row : mp.rows) {
      rows.push_back({{"task", row.task},
                      {"op", row.op},
                      {"type", row.type},
                      {"original_names", row.original_names},
                      {"dumps", row.dumps},
                      {"tensors", row.tensors},
                      {"bytes", row.bytes}});
    }
    plan["files"] = std::move(rows);
    plan["files_per_iteration"] = mp.files_per_iteration;
    plan["bytes_per_iteration"] = mp.bytes_per_iteration;
    plan["tensor_bytes_per_iteration"] = mp.tensor_bytes_per_iteration;
    plan["never_dumped"] = mp.never_dumped;
    plan["nothing_reason"] = mp.nothing_reason;
    j["plan"] = std::move(plan);
  }
  return j.dump(1) + "\n";
}

absl::StatusOr<DumpForecast> ForecastDump(const std::string& config_path,
                                          const std::string& model_path,
                                          uint64_t iterations) {
  DumpForecast forecast;
  forecast.model = FileStem(model_path);
  absl::StatusOr<dump::DumpConfig> config =
      dump::LoadDumpConfigFile(config_path);
  if (!config.ok()) return config.status();
  if (config->enabled() && !config->model_dump() &&
      config->scene != dump::DumpScene::kWatcher)
    return forecast;
  forecast.known = true;
  ASSIGN_OR_RETURN(std::unique_ptr<GearedModel> model, LoadForPlan(model_path));
  const ModelPlan plan =
      BuildModelPlan(*config, *model, model_path, forecast.warnings);
  forecast.steps = config->steps;
  forecast.files_per_iteration = plan.files_per_iteration;
  forecast.bytes_per_iteration = plan.bytes_per_iteration;
  for (uint64_t i = 0; i < iterations; ++i) {
    if (!config->steps || config->steps->Contains(i)) {
      ++forecast.dumped_iterations;
    }
  }
  if (!plan.nothing_reason.empty()) {
    forecast.nothing_reason = plan.nothing_reason;
  } else if (plan.selected && forecast.dumped_iterations == 0) {
    forecast.nothing_reason = StrCat(
        "dump_step '", config->steps->ToString(),
        "' selects none of the iterations run (",
        iterations == 1 ? std::string("0") : StrCat("0-", iterations - 1),
        "; iterations count from 0, give --iterations to run more)");
  } else if (plan.selected && plan.files_per_iteration == 0) {
    forecast.nothing_reason = "the plan selects no tensor of this model";
  }
  return forecast;
}

}  // namespace acldump::tools
