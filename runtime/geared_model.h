// A loaded model: one compiled plan, or one per gear of a dynamic model (see
// runtime/gears.h). A dynamic model takes one input more than its graph
// declares, last: the gear input (the SDK's "ascend_mbatch_shape_data"), int64
// [1] for a batch size, [2] for height and width, or one per -1 of a dims
// model's inputs, whose contents select the
// plan each execution runs. Plans share one work memory; executions of a model
// are serialised and numbered across its plans.
#ifndef ACLDUMP_RUNTIME_GEARED_MODEL_H_
#define ACLDUMP_RUNTIME_GEARED_MODEL_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/compiled_model.h"
#include "runtime/gears.h"

namespace acldump {

// The SDK's name of a dynamic model's gear input.
inline constexpr std::string_view kGearInputName = "ascend_mbatch_shape_data";

class GearedModel {
 public:
  // Compiles a static graph (one plan) or each gear of a dynamic one.
  static absl::StatusOr<std::unique_ptr<GearedModel>> Compile(
      Graph graph, const OpRegistry& registry, CompileOptions options = {});
  explicit GearedModel(std::unique_ptr<CompiledModel> plan);

  // The model as its users see it: a dynamic model's inputs have -1 in their
  // dynamic dimensions and its outputs the largest gear's shapes.
  const Graph& graph() const;
  bool dynamic() const { return graph_.dynamic(); }
  GearKind gear_kind() const { return graph_.gear_kind; }
  // Each gear's values ([batch], [height, width] or the dims) in the model's
  // order.
  const GearValues& gears() const { return gear_values_; }
  // Values per gear (the gear input's element count); 0 for a static model.
  size_t gear_arity() const {
    return gear_values_.empty() ? 0 : gear_values_[0].size();
  }
  size_t largest_gear() const { return largest_gear_; }
  size_t num_plans() const { return plans_.size(); }
  // Plan i runs gear i (a static model has plan 0 only).
  CompiledModel& plan(size_t i) const { return *plans_[i]; }

  // The gear with exactly these values, if the model has it.
  std::optional<size_t> FindGear(std::span<const int64_t> values) const;
  // Inputs callers pass, sized so that every gear fits (GearsEnvelope: the
  // largest gear's, or each dimension's largest for dims gears), then the gear
  // input for a dynamic model.
  std::vector<NamedTensorInfo> CallerInputs() const;
  // Outputs sized so that every gear's fit.
  std::vector<NamedTensorInfo> CallerOutputs() const;

  // Memory for caller-provided memory (aclmdlQuerySize): the largest plan's
  // work memory (plans share it) and every plan's weights, one after another.
  size_t work_bytes() const;
  size_t weight_bytes() const;
  absl::Status BindMemory(void* work, size_t work_size, void* weights,
                          size_t weight_size);

  // The gear input's encoding, as the SDK writes it: 8-byte values when the
  // buffer holds them, else 4-byte ones. The width for `values` values in a
  // buffer of `size` bytes, 0 when neither fits.
  static size_t GearValueWidth(size_t values, size_t size);
  // Writes `values` into a gear input buffer of `size` bytes (false: too
  // small).
  static bool WriteGearInput(std::span<const int64_t> values, void* data,
                             size_t size);

  // The plan the gear input of `inputs` selects: the gear its values name,
  // the largest gear when they are all zero (never set), else kGearInvalid.
  absl::StatusOr<size_t> SelectPlan(std::span<const HostBuffer> inputs) const;
  // The checks Execute makes: the gear input, then the selected plan's
  // buffers.
  absl::Status CheckBuffers(std::span<const HostBuffer> inputs,
                            std::span<const MutableHostBuffer> outputs) const;
  // Runs one iteration (see CompiledModel::Execute) on the selected plan.
  absl::Status Execute(std::span<const HostBuffer> inputs,
                       std::span<const MutableHostBuffer> outputs);

 private:
  GearedModel() = default;
  absl::Status EnsureSharedWork();

  Graph graph_;  // a dynamic model's; a static one is plans_[0]->graph()
  GearValues gear_values_;
  size_t largest_gear_ = 0;
  std::vector<std::unique_ptr<CompiledModel>> plans_;
  std::vector<NamedTensorInfo> caller_inputs_, caller_outputs_;  // dynamic

  std::mutex mutex_;  // a dynamic model's executions
  AlignedBuffer own_work_;
  bool work_bound_ = false;
  uint64_t iteration_ = 0;
};

}  // namespace acldump

#endif  // ACLDUMP_RUNTIME_GEARED_MODEL_H_
