#include "dump/policy.h"

#include <map>
#include <set>

#include "base/strings.h"

namespace acldump::dump {

int MatchModelEntry(const DumpConfig& config, std::string_view file_stem,
                    std::string_view graph_name) {
  int by_graph_name = -1;
  for (size_t i = 0; i < config.dump_list.size(); ++i) {
    const auto& name = config.dump_list[i].model_name;
    if (!name) continue;
    if (!file_stem.empty() && *name == file_stem) return static_cast<int>(i);
    if (*name == graph_name && by_graph_name < 0)
      by_graph_name = static_cast<int>(i);
  }
  return by_graph_name;
}

DumpPlan BuildDumpPlan(const DumpConfig& config, const CompiledModel& model,
                       std::string_view file_stem) {
  DumpPlan plan;
  const Graph& graph = model.graph();
  const std::vector<StepInfo>& steps = model.steps();
  plan.step_flags.assign(steps.size(), kObserveNothing);
  plan.dump_inputs.assign(steps.size(), 0);
  plan.dump_outputs.assign(steps.size(), 0);
  plan.data_inputs.assign(steps.size(), {});
  if (!config.model_dump()) return plan;

  const std::string model_label =
      file_stem.empty() ? StrCat("'", graph.name, "'")
                        : StrCat("'", graph.name, "' (file '", file_stem, "')");
  // Layers that apply: the matching named entry (no layer list = every
  // operator) plus every entry without model_name (S10: applies to all models).
  const int entry = MatchModelEntry(config, file_stem, graph.name);
  bool all_operators = false;
  std::vector<std::string> named_layers;
  std::vector<std::string> global_layers;
  if (entry >= 0) {
    plan.model_name = *config.dump_list[entry].model_name;
    if (config.dump_list[entry].layers) {
      named_layers = *config.dump_list[entry].layers;
    } else {
      all_operators = true;
    }
  }
  for (const DumpListEntry& e : config.dump_list) {
    if (!e.model_name && e.layers) {
      global_layers.insert(global_layers.end(), e.layers->begin(),
                           e.layers->end());
    }
  }
  if (entry < 0 && global_layers.empty())
    return plan;  // the model is not in the dump list
  if (plan.model_name.empty()) plan.model_name = graph.name;

  std::vector<uint8_t> selected(steps.size(), all_operators ? 1 : 0);
  if (!all_operators) {
    // Converted names and every original name resolve to steps; other nodes are
    // remembered to explain why they cannot be dumped (S16).
    std::map<std::string, std::vector<size_t>, std::less<>> by_name;
    for (size_t s = 0; s < steps.size(); ++s) {
      by_name[steps[s].name].push_back(s);
      for (const std::string& original : steps[s].original_names) {
        if (original != steps[s].name) by_name[original].push_back(s);
      }
    }
    std::map<std::string, const GraphNode*, std::less<>> not_executed;
    std::set<std::string, std::less<>> executed;
    for (const StepInfo& step : steps) executed.insert(step.name);
    for (const GraphNode& node : graph.nodes) {
      if (executed.count(node.name)) continue;
      for (const std::string& name : node.original_names)
        not_executed[name] = &node;
      not_executed[node.name] = &node;
    }
    auto resolve = [&](const std::string& layer, bool meant_for_this_model) {
      auto it = by_name.find(layer);
      if (it != by_name.end()) {
        for (size_t s : it->second) selected[s] = 1;
        return;
      }
      auto skipped = not_executed.find(layer);
      if (skipped != not_executed.end()) {
        const GraphNode& node = *skipped->second;
        plan.warnings.push_back(
            node.op_type == "Constant"
                ? StrCat("layer '", layer, "' of model ", model_label,
                         " is a Constant: it produces no output at run time, "
                         "nothing is dumped "
                         "(S16)")
                : StrCat("layer '", layer, "' of model ", model_label,
                         " is a no-task ", node.op_type,
                         " node that only aliases memory; it cannot be dumped "
                         "(S16): dump its producer or consumer instead"));
        return;
      }
      if (meant_for_this_model) {
        plan.warnings.push_back(StrCat(
            "layer '", layer, "' matches no operator of model ", model_label,
            "; check the converted names with "
            "`dump check-config --model`"));
      }
    };
    for (const std::string& layer : named_layers) resolve(layer, true);
    for (const std::string& layer : global_layers) resolve(layer, true);
  }
  const bool inputs = config.mode != DumpMode::kOutput;
  const bool outputs = config.mode != DumpMode::kInput;
  std::set<std::string, std::less<>> graph_inputs;
  for (const auto& in : graph.inputs) graph_inputs.insert(in.name);
  for (size_t s = 0; s < steps.size(); ++s) {
    if (!selected[s]) continue;
    ++plan.num_selected_steps;
    plan.dump_inputs[s] = inputs;
    plan.dump_outputs[s] = outputs;
    if (inputs) plan.step_flags[s] |= kObserveBefore;
    if (outputs) plan.step_flags[s] |= kObserveAfter;
    for (const std::string& in : steps[s].input_names) {
      if (!graph_inputs.count(in)) continue;
      for (size_t g = 0; g < graph.inputs.size(); ++g) {
        if (graph.inputs[g].name == in)
          plan.data_inputs[s].push_back(static_cast<int>(g));
      }
      plan.step_flags[s] |= kObserveBefore;
    }
  }
  plan.selected = plan.num_selected_steps > 0;
  return plan;
}

}  // namespace acldump::dump
