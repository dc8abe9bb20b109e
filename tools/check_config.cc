#include "tools/check_config.h"

#include <filesystem>
#include <set>

#include "acl/acl.h"
#include "base/status_macros.h"
#include "base/strings.h"
#include "dump/config.h"
#include "dump/format/dump_names.h"
#include "dump/policy.h"
#include "kernels/ops.h"
#include "runtime/compiled_model.h"
#include "runtime/converter.h"
#include "runtime/model_file.h"
#include "runtime/model_registry.h"
#include "tools/cli_util.h"
#include "tools/model_input.h"

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

// Compiled only to plan: checking a model never allocates its activations.
absl::StatusOr<std::unique_ptr<CompiledModel>> LoadForPlan(
    const std::string& path) {
  ASSIGN_OR_RETURN(Graph graph, ReadAnyModel(path));
  return CompiledModel::Compile(std::move(graph), BuiltinOps());
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

}  // namespace

absl::StatusOr<ConfigCheck> CheckConfig(const std::string& config_path,
                                        const std::string& model_path) {
  ConfigCheck check;
  const auto [code, message] = ValidateThroughApi(config_path);
  check.acl_error = code;
  if (code != ACL_SUCCESS) {
    check.report = StrCat(message, " [aclmdlSetDump returns ",
                          AclErrorName(code), " (", code, ")]\n");
    return check;
  }
  absl::StatusOr<dump::DumpConfig> config =
      dump::LoadDumpConfigFile(config_path);
  if (!config.ok()) {  // the API accepted it: only a race could get here
    check.report = StrCat(config.status().message(), "\n");
    return check;
  }
  check.valid = true;
  std::string& out = check.report;
  StrAppend(out, config_path, ": valid (aclmdlSetDump returns ACL_SUCCESS)\n  ",
            dump::DescribeDumpConfig(*config), "\n");
  AppendConfigDetails(*config, out);
  // What the parser accepted but noticed: unknown keys, filters without
  // effect, a config that selects nothing, ...
  std::vector<std::string> warnings = config->warnings;
  if (config->model_dump() && config->data == dump::DumpData::kTensor &&
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
    ASSIGN_OR_RETURN(std::unique_ptr<CompiledModel> model,
                     LoadForPlan(model_path));
    const std::string stem = FileStem(model_path);
    const Graph& graph = model->graph();
    const dump::DumpPlan plan = dump::BuildDumpPlan(*config, *model, stem);
    StrAppend(out, "\nmodel ", model_path, ": graph '", graph.name,
              "', file stem '", stem, "', ", model->steps().size(),
              " executed operators\n");
    const int entry = dump::MatchModelEntry(*config, stem, graph.name);
    if (!config->model_dump()) {
      out += "  the config dumps no model (no model dump_list)\n";
    } else if (!plan.selected) {
      if (entry < 0) {
        warnings.push_back(StrCat(
            "no dump_list entry names this model: nothing of it is dumped "
            "(model_name must be the file stem '",
            stem, "' or the graph name '", graph.name, "')"));
      }
      out += "  nothing of this model would be dumped\n";
    } else {
      StrAppend(out, "  selected by ",
                entry >= 0 ? StrCat("dump_list[", entry, "] (model_name '",
                                    *config->dump_list[entry].model_name, "')")
                           : std::string("a layer list for every model"),
                "; files go to ", config->dump_path_resolved,
                "/{time}/{device}/", plan.model_name,
                "/{model id}/{iteration}/\n  iterations: ",
                config->steps ? StrCat("steps ", config->steps->ToString())
                              : std::string("every iteration"),
                "\n");
      const bool stats = config->data == dump::DumpData::kStats;
      TextTable table({"task", "op", "type", "original names", "dumps",
                       "tensors", "bytes"});
      size_t files = 0;
      uint64_t bytes = 0, payload = 0;
      std::set<int> data_ops;
      for (size_t s = 0; s < model->steps().size(); ++s) {
        const StepInfo& step = model->steps()[s];
        for (int g : plan.data_inputs[s]) {
          if (!data_ops.insert(g).second) continue;
          const TensorInfo& info = graph.inputs[g].info;
          const uint64_t b = stats ? 250 : info.ByteSize() + 80;
          table.AddRow({StrCat(step.task_id), graph.inputs[g].name, "Data", "-",
                        "output (graph input)", StrCat(ShapeText(info)),
                        HumanBytes(b)});
          ++files;
          bytes += b;
          payload += stats ? 0 : info.ByteSize();
        }
        if (!plan.dump_inputs[s] && !plan.dump_outputs[s]) continue;
        size_t tensors = 0;
        uint64_t data = 0;
        std::vector<std::string> shapes;
        if (plan.dump_inputs[s]) {
          for (const TensorInfo& info : step.input_infos) {
            if (!info.present()) continue;
            ++tensors;
            data += info.ByteSize();
            shapes.push_back("in " + ShapeText(info));
          }
        }
        if (plan.dump_outputs[s]) {
          for (const TensorInfo& info : step.output_infos) {
            ++tensors;
            data += info.ByteSize();
            shapes.push_back("out " + ShapeText(info));
          }
        }
        const uint64_t b =
            stats ? 160 + 110 * tensors : data + HeaderEstimate(step, tensors);
        ++files;
        bytes += b;
        payload += stats ? 0 : data;
        table.AddRow({StrCat(step.task_id), step.name, step.op_type,
                      StrJoin(step.original_names, ","),
                      plan.dump_inputs[s] && plan.dump_outputs[s]
                          ? "inputs+outputs"
                          : (plan.dump_inputs[s] ? "inputs" : "outputs"),
                      StrJoin(shapes, " "), HumanBytes(b)});
      }
      out += table.Render("  ");
      PredictHashedNames(*model, plan, warnings);
      StrAppend(out, "  estimated per dumped iteration: ", files, " files, ",
                HumanBytes(bytes),
                stats ? " of stats CSV"
                      : StrCat(" (", HumanBytes(payload), " tensor data)"),
                "\n");
    }
    std::vector<std::string> skipped;
    for (const GraphNode& node : graph.nodes) {
      if (node.no_task) {
        skipped.push_back(StrCat(node.name, " (", node.op_type,
                                 ": no-task node, aliases memory)"));
      } else if (node.op_type == "Constant") {
        skipped.push_back(
            StrCat(node.name, " (Constant: no output at run time)"));
      }
    }
    if (!skipped.empty()) {
      StrAppend(out, "  never dumped: ", StrJoin(skipped, ", "), "\n");
    }
    for (const std::string& warning : plan.warnings)
      warnings.push_back(warning);
  }
  check.warnings = warnings.size();
  if (!warnings.empty()) {
    out += "\nwarnings:\n";
    for (const std::string& warning : warnings) {
      StrAppend(out, "  - ", warning, "\n");
    }
  }
  return check;
}

}  // namespace acldump::tools
