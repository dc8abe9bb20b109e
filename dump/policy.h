// DumpConfig x loaded model -> DumpPlan, decided once at model load: which
// steps dump inputs and/or outputs (and which of their tensors), which graph
// inputs are dumped as data ops, and what the user should be told (layers and
// ranges that match nothing, layers that cannot be dumped). The hot path only
// reads it.
//
// What a model dumps: the union of what its dump_list entries select. The
// entry naming the model selects its `layer` operators and the operators of
// its opname_range ranges, or every operator when it has neither; an entry
// without model_name applies to every model (its layers, or every operator).
// Then the blacklists of those entries (dump_level "op") take operators or
// some of their tensors out. Operators are named by their converted name or
// any original name; on this runtime an operator is its kernel, so
// dump_level op, kernel and all select the same operators.
#ifndef ACLDUMP_DUMP_POLICY_H_
#define ACLDUMP_DUMP_POLICY_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "dump/config.h"
#include "runtime/compiled_model.h"

namespace acldump::dump {

// Every per-step vector has one element per step of the model
// (CompiledModel::steps(), in execution order).
struct DumpPlan {
  bool selected = false;   // the model is dumped at all
  std::string model_name;  // the {model_name} folder of the layout
  // Per step: a StepObservation mask, and what to record.
  std::vector<uint8_t> step_flags;
  std::vector<uint8_t> dump_inputs;
  std::vector<uint8_t> dump_outputs;
  // Per step: tensors a blacklist position ("inputN" / "outputN") takes out
  // of the step's dump file although the step dumps its inputs / outputs.
  // skipped_inputs[s] holds input slots (indices into StepInfo::input_infos,
  // counting absent optional inputs: the N of "inputN"); skipped_outputs[s]
  // holds output indices (into StepInfo::output_infos). Both sorted, without
  // duplicates, and only slots the step dumps: skipped_inputs[s] is empty
  // unless dump_inputs[s] is set and never lists every present input (a step
  // whose present inputs are all excluded has dump_inputs[s] = 0 instead);
  // likewise for outputs. The remaining tensors keep their own index in the
  // file header.
  std::vector<std::vector<uint32_t>> skipped_inputs;
  std::vector<std::vector<uint32_t>> skipped_outputs;
  // Per step: graph inputs (indices) the step reads, dumped as "Data" ops once
  // per iteration (a blacklist may exclude them: op type "Data", or the graph
  // input's name).
  std::vector<std::vector<int>> data_inputs;
  size_t num_selected_steps = 0;  // steps that dump inputs or outputs
  std::vector<std::string> warnings;
};

// Which dump_list entry names this model: a file-loaded model matches its
// file stem or its graph name, the file-stem entry winning; a memory-loaded
// model (empty file_stem) matches its graph name only. Returns the entry index
// or -1.
int MatchModelEntry(const DumpConfig& config, std::string_view file_stem,
                    std::string_view graph_name);

DumpPlan BuildDumpPlan(const DumpConfig& config, const CompiledModel& model,
                       std::string_view file_stem);

// The watcher scene's plan of a model (dump_scene watcher): the layers and
// watcher nodes of every dump_list entry taken together, as in the SDK. An
// entry without a layer makes every operator a layer; watcher nodes are
// matched by their name after fusion only; an operator that is both is a
// watcher node only.
struct WatcherPlan {
  std::vector<uint32_t> watchers;  // their tasks, in config name order
  std::vector<uint32_t> layers;    // tasks in execution order
  // A fused-away watcher name (and the operator it became), names that match
  // nothing.
  std::vector<std::string> warnings;
};
WatcherPlan BuildWatcherPlan(const DumpConfig& config,
                             const CompiledModel& model);

}  // namespace acldump::dump

#endif  // ACLDUMP_DUMP_POLICY_H_
