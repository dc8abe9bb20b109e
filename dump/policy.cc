#include "dump/policy.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "base/strings.h"
#include "base/text.h"

namespace acldump::dump {
namespace {

// Suggestions per name that matches nothing.
constexpr size_t kMaxSuggestions = 3;
// Names that match nothing are explained one by one up to this count; the
// rest are counted (a config may list thousands of layers).
constexpr size_t kMaxNameWarnings = 20;

// The names a config may use for the operators of a model: converted and
// original names of executed steps, and nodes that never execute.
class OperatorNames {
 public:
  explicit OperatorNames(const CompiledModel& model) {
    const std::vector<StepInfo>& steps = model.steps();
    for (size_t s = 0; s < steps.size(); ++s) {
      Add(steps[s].name, s);
      for (const std::string& original : steps[s].original_names) {
        if (original != steps[s].name) Add(original, s);
      }
    }
    for (const GraphNode& node : model.graph().nodes) {
      if (steps_.count(node.name)) continue;
      for (const std::string& name : node.original_names) {
        not_executed_[name] = &node;
      }
      not_executed_[node.name] = &node;
    }
  }

  // Steps named `name` (converted or original), ascending; nullptr if none.
  const std::vector<size_t>* Find(std::string_view name) const {
    auto it = steps_.find(name);
    return it == steps_.end() ? nullptr : &it->second;
  }

  // A node named `name` that is not executed (no-task or Constant), if any.
  const GraphNode* NotExecuted(std::string_view name) const {
    auto it = not_executed_.find(name);
    return it == not_executed_.end() ? nullptr : it->second;
  }

  std::vector<std::string_view> Nearest(std::string_view name) const {
    return NearestWords(name, names_, kMaxSuggestions);
  }

 private:
  void Add(const std::string& name, size_t step) {
    std::vector<size_t>& steps = steps_[name];
    if (steps.empty()) names_.push_back(name);
    if (steps.empty() || steps.back() != step) steps.push_back(step);
  }

  std::map<std::string, std::vector<size_t>, std::less<>> steps_;
  std::map<std::string, const GraphNode*, std::less<>> not_executed_;
  std::vector<std::string_view> names_;  // in execution order
};

// Which tensors of a step a blacklist takes out.
struct Exclusion {
  bool whole = false;
  std::set<uint32_t> inputs;
  std::set<uint32_t> outputs;
};

class PlanBuilder {
 public:
  PlanBuilder(const DumpConfig& config, const CompiledModel& model,
              std::string_view file_stem, DumpPlan& plan)
      : config_(config),
        model_(model),
        steps_(model.steps()),
        names_(model),
        plan_(plan),
        label_(file_stem.empty() ? Quote(model.graph().name)
                                 : StrCat(Quote(model.graph().name), " (file ",
                                          Quote(file_stem), ")")),
        entry_(MatchModelEntry(config, file_stem, model.graph().name)),
        selected_(steps_.size(), 0),
        exclusions_(steps_.size()),
        data_excluded_(model.graph().inputs.size(), 0) {}

  void Run();

 private:
  void Select(const DumpListEntry& entry, const std::string& where);
  void SelectLayers(const std::vector<std::string>& layers);
  void SelectRanges(const std::vector<OpRange>& ranges,
                    const std::string& where);
  std::optional<size_t> RangeEnd(const OpRange& range, bool begin,
                                 const std::string& what);
  void ApplyFilters(const DumpListEntry& entry, bool named);
  void ApplyFilter(const OpFilter& filter, bool by_type, bool named);
  void Exclude(Exclusion& exclusion, const OpFilter& filter);
  void ExcludeDataOps(const OpFilter& filter, bool by_type);
  bool Finish(size_t s);
  void AddDataInputs(size_t s);
  std::string WhyUnmatched(std::string_view name) const;
  void WarnUnmatchedLayer(const std::string& layer);

  const DumpConfig& config_;
  const CompiledModel& model_;
  const std::vector<StepInfo>& steps_;
  const OperatorNames names_;
  DumpPlan& plan_;
  const std::string label_;  // the model in messages
  const int entry_;          // the dump_list entry naming the model, or -1
  std::vector<uint8_t> selected_;
  std::vector<Exclusion> exclusions_;
  std::vector<uint8_t> data_excluded_;  // per graph input
  size_t unmatched_layers_ = 0;
};

void PlanBuilder::Run() {
  for (size_t i = 0; i < config_.dump_list.size(); ++i) {
    const DumpListEntry& entry = config_.dump_list[i];
    const bool named = static_cast<int>(i) == entry_;
    if (!named && entry.model_name) continue;  // another model's entry
    Select(entry, StrCat("dump_list[", i, "]"));
    ApplyFilters(entry, named);
  }
  if (unmatched_layers_ > kMaxNameWarnings) {
    plan_.warnings.push_back(
        StrCat("and ", unmatched_layers_ - kMaxNameWarnings,
               " more layers match no operator of model ", label_));
  }
  for (size_t s = 0; s < steps_.size(); ++s) {
    if (Finish(s)) AddDataInputs(s);
  }
  plan_.selected = plan_.num_selected_steps > 0;
}

// An entry's layers and ranges, or every operator when it has neither.
void PlanBuilder::Select(const DumpListEntry& entry, const std::string& where) {
  if (!entry.layers && entry.opname_range.empty()) {
    std::fill(selected_.begin(), selected_.end(), 1);
    return;
  }
  if (entry.layers) SelectLayers(*entry.layers);
  SelectRanges(entry.opname_range, where);
}

void PlanBuilder::SelectLayers(const std::vector<std::string>& layers) {
  for (const std::string& layer : layers) {
    if (const std::vector<size_t>* steps = names_.Find(layer)) {
      for (size_t s : *steps) selected_[s] = 1;
    } else {
      WarnUnmatchedLayer(layer);
    }
  }
}

void PlanBuilder::WarnUnmatchedLayer(const std::string& layer) {
  const GraphNode* node = names_.NotExecuted(layer);
  const std::string what = StrCat("layer ", Quote(layer), " of model ", label_);
  if (node != nullptr && node->op_type == "Constant") {
    plan_.warnings.push_back(StrCat(what,
                                    " is a Constant: it produces no output at "
                                    "run time, nothing is dumped"));
  } else if (node != nullptr) {
    plan_.warnings.push_back(
        StrCat(what, " is a no-task ", node->op_type,
               " node that only aliases memory; it cannot be dumped: dump its "
               "producer or consumer instead"));
  } else if (++unmatched_layers_ <= kMaxNameWarnings) {
    plan_.warnings.push_back(StrCat("layer ", Quote(layer),
                                    " matches no operator of model ", label_,
                                    WhyUnmatched(layer)));
  }
}

// "; did you mean 'a', 'b'?..." for a name that matches no operator.
std::string PlanBuilder::WhyUnmatched(std::string_view name) const {
  const std::vector<std::string_view> nearest = names_.Nearest(name);
  std::string out;
  if (!nearest.empty()) {
    StrAppend(out, "; did you mean ", QuotedList(nearest), "?");
  }
  StrAppend(out,
            "; `dump check-config --model` lists the converted and original "
            "names");
  return out;
}

void PlanBuilder::SelectRanges(const std::vector<OpRange>& ranges,
                               const std::string& where) {
  for (size_t j = 0; j < ranges.size(); ++j) {
    const OpRange& range = ranges[j];
    const std::string what =
        StrCat(where, ".opname_range[", j, "] (", Quote(range.begin), " to ",
               Quote(range.end), ") of model ", label_);
    const std::optional<size_t> first = RangeEnd(range, true, what);
    const std::optional<size_t> last = RangeEnd(range, false, what);
    if (!first || !last) continue;
    if (*first > *last) {
      plan_.warnings.push_back(
          StrCat(what, ": begin runs after end (task ", steps_[*first].task_id,
                 " after task ", steps_[*last].task_id,
                 "); the range dumps nothing: swap begin and end"));
      continue;
    }
    for (size_t s = *first; s <= *last; ++s) selected_[s] = 1;
  }
}

// The first step of a range's begin, or the last of its end; nullopt (with
// a warning) when the name matches no operator.
std::optional<size_t> PlanBuilder::RangeEnd(const OpRange& range, bool begin,
                                            const std::string& what) {
  const std::string& name = begin ? range.begin : range.end;
  if (const std::vector<size_t>* steps = names_.Find(name)) {
    return begin ? steps->front() : steps->back();
  }
  std::string why;
  if (const GraphNode* node = names_.NotExecuted(name)) {
    why = StrCat(" is a ", node->op_type,
                 " node that does not run (no-task or Constant)");
  } else if (model_.graph().IsGraphInput(name)) {
    why = " is a graph input (a Data op), which cannot bound a range";
  } else {
    why = StrCat(" matches no operator", WhyUnmatched(name));
  }
  plan_.warnings.push_back(StrCat(what, ": ", begin ? "begin " : "end ",
                                  Quote(name), why,
                                  "; the range dumps nothing"));
  return std::nullopt;
}

void PlanBuilder::ApplyFilters(const DumpListEntry& entry, bool named) {
  for (const OpFilter& filter : entry.optype_blacklist) {
    ApplyFilter(filter, true, named);
  }
  for (const OpFilter& filter : entry.opname_blacklist) {
    ApplyFilter(filter, false, named);
  }
}

// One blacklist filter: by op type, or by converted or original name. A
// filter without a name has no effect.
void PlanBuilder::ApplyFilter(const OpFilter& filter, bool by_type,
                              bool named) {
  if (filter.name.empty()) return;
  ExcludeDataOps(filter, by_type);
  bool matched = false;
  if (by_type) {
    for (size_t s = 0; s < steps_.size(); ++s) {
      if (steps_[s].op_type != filter.name) continue;
      Exclude(exclusions_[s], filter);
      matched = true;
    }
  } else if (const std::vector<size_t>* steps = names_.Find(filter.name)) {
    for (size_t s : *steps) Exclude(exclusions_[s], filter);
    matched = true;
  }
  matched = matched || (by_type && filter.name == "Data") ||
            (!by_type && model_.graph().IsGraphInput(filter.name));
  if (!matched && named) {
    plan_.warnings.push_back(
        StrCat(by_type ? "optype_blacklist type " : "opname_blacklist name ",
               Quote(filter.name), " matches no operator of model ", label_,
               by_type ? std::string("; op types are ONNX names such as 'Conv'")
                       : WhyUnmatched(filter.name)));
  }
}

void PlanBuilder::Exclude(Exclusion& exclusion, const OpFilter& filter) {
  if (filter.positions.empty()) {
    exclusion.whole = true;
    return;
  }
  for (const std::string& text : filter.positions) {
    const std::optional<TensorPosition> position = ParseTensorPosition(text);
    if (!position) continue;  // excludes nothing (warned when parsed)
    (position->input ? exclusion.inputs : exclusion.outputs)
        .insert(position->index);
  }
}

// Graph inputs are dumped as ops of type "Data" named after the input; their
// one tensor is output 0.
void PlanBuilder::ExcludeDataOps(const OpFilter& filter, bool by_type) {
  const auto& inputs = model_.graph().inputs;
  const bool whole = filter.positions.empty() ||
                     std::find(filter.positions.begin(), filter.positions.end(),
                               "output0") != filter.positions.end();
  if (!whole) return;
  for (size_t g = 0; g < inputs.size(); ++g) {
    if (by_type ? filter.name == "Data" : filter.name == inputs[g].name) {
      data_excluded_[g] = 1;
    }
  }
}

// Sets what step `s` dumps; false when it dumps none of its tensors.
bool PlanBuilder::Finish(size_t s) {
  const Exclusion& exclusion = exclusions_[s];
  if (!selected_[s] || exclusion.whole) return false;
  const StepInfo& step = steps_[s];
  bool inputs = config_.mode != DumpMode::kOutput;
  bool outputs = config_.mode != DumpMode::kInput;
  std::vector<uint32_t> skipped_inputs, skipped_outputs;
  if (inputs) {
    size_t kept = 0;
    for (uint32_t slot = 0; slot < step.input_infos.size(); ++slot) {
      // A dynamic step may not know an input's type before it runs.
      const bool present = step.dynamic ? !step.input_names[slot].empty()
                                        : step.input_infos[slot].present();
      if (!present) continue;
      if (exclusion.inputs.count(slot)) {
        skipped_inputs.push_back(slot);
      } else {
        ++kept;
      }
    }
    inputs = kept > 0;
    if (!inputs) skipped_inputs.clear();
  }
  if (outputs) {
    for (uint32_t index : exclusion.outputs) {
      if (index < step.output_infos.size()) skipped_outputs.push_back(index);
    }
    outputs = skipped_outputs.size() < step.output_infos.size();
    if (!outputs) skipped_outputs.clear();
  }
  if (!inputs && !outputs) return false;
  ++plan_.num_selected_steps;
  plan_.dump_inputs[s] = inputs;
  plan_.dump_outputs[s] = outputs;
  plan_.skipped_inputs[s] = std::move(skipped_inputs);
  plan_.skipped_outputs[s] = std::move(skipped_outputs);
  if (inputs) plan_.step_flags[s] |= kObserveBefore;
  if (outputs) plan_.step_flags[s] |= kObserveAfter;
  return true;
}

// The graph inputs a dumped step reads are dumped as data ops.
void PlanBuilder::AddDataInputs(size_t s) {
  const auto& inputs = model_.graph().inputs;
  for (const std::string& name : steps_[s].input_names) {
    for (size_t g = 0; g < inputs.size(); ++g) {
      if (inputs[g].name != name || data_excluded_[g]) continue;
      std::vector<int>& data = plan_.data_inputs[s];
      if (std::find(data.begin(), data.end(), static_cast<int>(g)) ==
          data.end()) {
        data.push_back(static_cast<int>(g));
      }
      plan_.step_flags[s] |= kObserveBefore;
    }
  }
}

}  // namespace

int MatchModelEntry(const DumpConfig& config, std::string_view file_stem,
                    std::string_view graph_name) {
  int by_graph_name = -1;
  for (size_t i = 0; i < config.dump_list.size(); ++i) {
    const auto& name = config.dump_list[i].model_name;
    if (!name) continue;
    if (!file_stem.empty() && *name == file_stem) return static_cast<int>(i);
    if (*name == graph_name && by_graph_name < 0) {
      by_graph_name = static_cast<int>(i);
    }
  }
  return by_graph_name;
}

DumpPlan BuildDumpPlan(const DumpConfig& config, const CompiledModel& model,
                       std::string_view file_stem) {
  DumpPlan plan;
  const size_t steps = model.steps().size();
  plan.step_flags.assign(steps, kObserveNothing);
  plan.dump_inputs.assign(steps, 0);
  plan.dump_outputs.assign(steps, 0);
  plan.skipped_inputs.assign(steps, {});
  plan.skipped_outputs.assign(steps, {});
  plan.data_inputs.assign(steps, {});
  if (!config.model_dump()) return plan;
  const Graph& graph = model.graph();
  const int entry = MatchModelEntry(config, file_stem, graph.name);
  const bool any_global = std::any_of(
      config.dump_list.begin(), config.dump_list.end(),
      [](const DumpListEntry& e) { return !e.model_name.has_value(); });
  if (entry < 0 && !any_global) return plan;  // not in the dump list
  plan.model_name =
      entry >= 0 ? *config.dump_list[entry].model_name : graph.name;
  PlanBuilder(config, model, file_stem, plan).Run();
  return plan;
}

namespace {

bool Named(const StepInfo& step, std::string_view name) {
  return step.name == name ||
         std::find(step.original_names.begin(), step.original_names.end(),
                   name) != step.original_names.end();
}

}  // namespace

WatcherPlan BuildWatcherPlan(const DumpConfig& config,
                             const CompiledModel& model) {
  WatcherPlan plan;
  const std::vector<StepInfo>& steps = model.steps();
  const std::string& model_name = model.graph().name;
  std::set<std::string> watcher_names, layer_names;
  bool every_layer = false;
  for (const DumpListEntry& entry : config.dump_list) {
    watcher_names.insert(entry.watcher_nodes.begin(),
                         entry.watcher_nodes.end());
    if (!entry.layers) {
      every_layer = true;
    } else {
      layer_names.insert(entry.layers->begin(), entry.layers->end());
    }
  }
  std::vector<uint8_t> is_watcher(steps.size(), 0);
  for (const std::string& name : watcher_names) {
    auto exact =
        std::find_if(steps.begin(), steps.end(),
                     [&](const StepInfo& s) { return s.name == name; });
    if (exact != steps.end()) {
      plan.watchers.push_back(exact->task_id);
      is_watcher[exact->task_id] = 1;
      continue;
    }
    auto fused =
        std::find_if(steps.begin(), steps.end(),
                     [&](const StepInfo& s) { return Named(s, name); });
    plan.warnings.push_back(
        fused != steps.end()
            ? StrCat(config.source, ": watcher node '", name, "' of model '",
                     model_name, "' was fused into operator '", fused->name,
                     "': watcher_nodes take the name after fusion, so it is "
                     "not watched; write '",
                     fused->name, "'")
            : StrCat(config.source, ": watcher node '", name,
                     "' matches no operator of model '", model_name,
                     "' that runs a task: it is not watched"));
  }
  if (!every_layer) {
    for (const std::string& name : layer_names) {
      if (std::none_of(steps.begin(), steps.end(),
                       [&](const StepInfo& s) { return Named(s, name); })) {
        plan.warnings.push_back(StrCat(config.source, ": layer '", name,
                                       "' matches no operator of model '",
                                       model_name, "'"));
      }
    }
  }
  for (const StepInfo& step : steps) {
    if (is_watcher[step.task_id]) continue;
    if (every_layer ||
        std::any_of(layer_names.begin(), layer_names.end(),
                    [&](const std::string& name) { return Named(step, name); }))
      plan.layers.push_back(step.task_id);
  }
  return plan;
}

}  // namespace acldump::dump
