// `dump check-config acl.json [--model M]`: validates a config exactly as
// aclmdlSetDump does (through the C ABI, so the code and message are the
// API's) and, given a model, shows the dump plan without running anything.
// `dump run` uses the same plan to say why a run dumped nothing.
#ifndef ACLDUMP_TOOLS_RUN_CHECK_CONFIG_H_
#define ACLDUMP_TOOLS_RUN_CHECK_CONFIG_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "dump/step_set.h"

namespace acldump::tools {

// One row of a dump plan: a file the model writes per dumped iteration.
struct PlanRow {
  uint32_t task = 0;
  std::string op, type;
  std::vector<std::string> original_names;
  std::string
      dumps;  // "outputs", "inputs", "inputs+outputs", "output (graph input)"
  std::vector<std::string> tensors;  // "in 1x3x32x32", "out 1x16x32x32"
  uint64_t bytes = 0;                // estimated file size
};

// A dynamic model's other gears, in the model's order (the table is the
// largest gear's).
struct GearPlan {
  std::string gear;  // "batch [2]", "image size [224,224]"
  size_t files_per_iteration = 0;
  uint64_t bytes_per_iteration = 0;
};

struct ModelPlan {
  std::string model_path, graph_name, file_stem;
  // A dynamic model: the gear the rows are of (the largest, which runs when
  // no gear is set) and every gear's totals. Empty for a static model.
  std::string gear;
  std::vector<GearPlan> gears;
  size_t executed_ops = 0;
  bool selected = false;
  std::string selected_by;  // "dump_list[0] (model_name 'resnet_tiny')"
  std::string folder;       // "{dump_path}/{time}/{device}/resnet_tiny/..."
  std::string iterations;   // "every iteration", "steps 0|3-5"
  std::vector<PlanRow> rows;
  size_t files_per_iteration = 0;
  uint64_t bytes_per_iteration = 0;
  uint64_t tensor_bytes_per_iteration = 0;  // 0 for stats dumps
  std::vector<std::string> never_dumped;    // no-task and Constant nodes
  // Non-empty when nothing of the model is dumped: why.
  std::string nothing_reason;
};

struct ConfigCheck {
  bool valid = false;
  int32_t acl_error = 0;    // what aclmdlSetDump returned
  std::string message;      // its message when not valid
  std::string report;       // the error, or the description and plan
  std::string description;  // DescribeDumpConfig
  std::vector<std::string> warning_list;
  size_t warnings = 0;
  std::optional<ModelPlan> plan;
};

// Errors only for a model that cannot be read or converted; an invalid
// config is a ConfigCheck with valid == false.
absl::StatusOr<ConfigCheck> CheckConfig(const std::string& config_path,
                                        const std::string& model_path);

// `check-config --json`: schema "acldump.check-config/1".
std::string ConfigCheckJson(const std::string& config_path,
                            const ConfigCheck& check);

// What a run of `model_path` for `iterations` iterations under the config
// will dump: the plan's files and bytes per dumped iteration, the dumped
// iterations, the warnings (layers that match nothing, with the nearest
// names), and, when nothing will be dumped, why. For a config that is not a
// model dump (overflow, exception or single-operator dump) `known` is false.
struct DumpForecast {
  bool known = false;
  std::string model;  // file stem
  size_t files_per_iteration = 0;
  uint64_t bytes_per_iteration = 0;
  uint64_t dumped_iterations = 0;
  std::optional<dump::StepSet> steps;  // unset: every iteration
  std::vector<std::string> warnings;
  std::string nothing_reason;
};
absl::StatusOr<DumpForecast> ForecastDump(const std::string& config_path,
                                          const std::string& model_path,
                                          uint64_t iterations);

}  // namespace acldump::tools

#endif  // ACLDUMP_TOOLS_RUN_CHECK_CONFIG_H_
