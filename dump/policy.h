// DumpConfig x loaded model -> DumpPlan, decided once at model load (S4, U4):
// which steps dump inputs and/or outputs, which graph inputs are dumped as data
// ops, and what the user should be told (layers that match nothing, layers that
// cannot be dumped). The hot path only reads it.
#ifndef ACLDUMP_DUMP_POLICY_H_
#define ACLDUMP_DUMP_POLICY_H_

#include <string>
#include <string_view>
#include <vector>

#include "dump/config.h"
#include "runtime/compiled_model.h"

namespace acldump::dump {

struct DumpPlan {
  bool selected = false;   // the model is dumped at all
  std::string model_name;  // the {model_name} folder of the layout
  // Per step (task): a StepObservation mask, and what to record.
  std::vector<uint8_t> step_flags;
  std::vector<uint8_t> dump_inputs;
  std::vector<uint8_t> dump_outputs;
  // Per step: graph inputs (indices) the step reads, dumped as "Data" ops once
  // per iteration (S10).
  std::vector<std::vector<int>> data_inputs;
  size_t num_selected_steps = 0;
  std::vector<std::string> warnings;
};

// Which dump_list entry names this model (S9): a file-loaded model matches its
// file stem or its graph name, the file-stem entry winning; a memory-loaded
// model (empty file_stem) matches its graph name only. Returns the entry index
// or -1.
int MatchModelEntry(const DumpConfig& config, std::string_view file_stem,
                    std::string_view graph_name);

DumpPlan BuildDumpPlan(const DumpConfig& config, const CompiledModel& model,
                       std::string_view file_stem);

}  // namespace acldump::dump

#endif  // ACLDUMP_DUMP_POLICY_H_
