#include "runtime/geared_model.h"

#include <algorithm>
#include <cstring>
#include <set>

#include "base/error_kind.h"
#include "base/status_macros.h"
#include "base/strings.h"
#include "runtime/memory_plan.h"

namespace acldump {

absl::StatusOr<std::unique_ptr<GearedModel>> GearedModel::Compile(
    Graph graph, const OpRegistry& registry, CompileOptions options) {
  if (!graph.dynamic()) {
    ASSIGN_OR_RETURN(
        std::unique_ptr<CompiledModel> plan,
        CompiledModel::Compile(std::move(graph), registry, options));
    return std::make_unique<GearedModel>(std::move(plan));
  }
  std::unique_ptr<GearedModel> model(new GearedModel());
  // The model's memory as a whole: plans share the work memory and the
  // weights their gears share; each has its own evaluated constants.
  ModelFootprint footprint;
  std::set<const Tensor*> counted;
  for (const Gear& gear : graph.gears) {
    absl::StatusOr<std::unique_ptr<CompiledModel>> plan =
        CompiledModel::Compile(*gear.graph, registry, options);
    if (!plan.ok()) {
      return Annotate(plan.status(),
                      StrCat(GearKindName(graph.gear_kind), " gear [",
                             StrJoin(gear.values, ","), "]"));
    }
    const MemoryPlanStats& stats = (*plan)->memory_plan();
    footprint.arena_bytes = std::max(footprint.arena_bytes, stats.arena_bytes);
    footprint.workspace_bytes =
        std::max(footprint.workspace_bytes, stats.workspace_bytes);
    size_t initializer_bytes = 0;
    for (const auto& [name, tensor] : gear.graph->initializers) {
      const size_t bytes = AlignToPlan(tensor->ByteSize());
      initializer_bytes += bytes;
      if (counted.insert(tensor.get()).second) footprint.weight_bytes += bytes;
    }
    if (stats.weight_bytes > initializer_bytes)
      footprint.weight_bytes += stats.weight_bytes - initializer_bytes;
    RETURN_IF_ERROR(CheckFootprint(
        footprint, options.max_memory_bytes,
        StrCat(graph.name, " (", graph.gears.size(), " gears)")));
    model->plans_.push_back(std::move(*plan));
    model->gear_values_.push_back(gear.values);
  }
  model->largest_gear_ = LargestGear(model->gear_values_);
  std::vector<std::vector<NamedTensorInfo>> inputs, outputs;
  for (const auto& plan : model->plans_) {
    inputs.push_back(plan->graph().inputs);
    outputs.push_back(plan->graph().outputs);
  }
  model->caller_inputs_ =
      GearsEnvelope(graph.gear_kind, inputs, model->largest_gear_);
  model->caller_outputs_ =
      GearsEnvelope(graph.gear_kind, outputs, model->largest_gear_);
  // The plans hold the gears' graphs; the model keeps only its description.
  graph.gears.clear();
  model->graph_ = std::move(graph);
  return model;
}

GearedModel::GearedModel(std::unique_ptr<CompiledModel> plan) {
  plans_.push_back(std::move(plan));
}

const Graph& GearedModel::graph() const {
  return dynamic() ? graph_ : plans_[0]->graph();
}

std::optional<size_t> GearedModel::FindGear(
    std::span<const int64_t> values) const {
  for (size_t i = 0; i < gear_values_.size(); ++i) {
    if (std::equal(values.begin(), values.end(), gear_values_[i].begin(),
                   gear_values_[i].end())) {
      return i;
    }
  }
  return std::nullopt;
}

std::vector<NamedTensorInfo> GearedModel::CallerInputs() const {
  std::vector<NamedTensorInfo> inputs =
      dynamic() ? caller_inputs_ : plans_[0]->graph().inputs;
  if (dynamic()) {
    const int64_t arity = static_cast<int64_t>(gear_arity());
    inputs.push_back(NamedTensorInfo{std::string(kGearInputName),
                                     TensorInfo{DType::kInt64, Shape{arity}}});
  }
  return inputs;
}

std::vector<NamedTensorInfo> GearedModel::CallerOutputs() const {
  return dynamic() ? caller_outputs_ : plans_[0]->graph().outputs;
}

size_t GearedModel::work_bytes() const {
  size_t bytes = 0;
  for (const auto& plan : plans_)
    bytes = std::max(bytes, plan->memory_plan().work_bytes());
  return bytes;
}

size_t GearedModel::weight_bytes() const {
  size_t bytes = 0;
  for (const auto& plan : plans_)
    bytes += AlignToPlan(plan->memory_plan().weight_bytes);
  return bytes;
}

absl::Status GearedModel::BindMemory(void* work, size_t work_size,
                                     void* weights, size_t weight_size) {
  if (!dynamic()) {
    return plans_[0]->BindMemory(work, work_size, weights, weight_size);
  }
  if (work != nullptr && work_size < work_bytes()) {
    return absl::InvalidArgumentError(
        StrCat("work memory of ", work_size, " bytes is too small: model '",
               graph_.name, "' needs ", work_bytes()));
  }
  if (weights != nullptr && weight_size < weight_bytes()) {
    return absl::InvalidArgumentError(
        StrCat("weight memory of ", weight_size, " bytes is too small: model '",
               graph_.name, "' needs ", weight_bytes()));
  }
  std::lock_guard<std::mutex> lock(mutex_);
  size_t weight_offset = 0;
  for (const auto& plan : plans_) {
    const size_t plan_weights = AlignToPlan(plan->memory_plan().weight_bytes);
    void* plan_weight_base =
        weights == nullptr ? nullptr
                           : static_cast<std::byte*>(weights) + weight_offset;
    RETURN_IF_ERROR(
        plan->BindMemory(work, work_size, plan_weight_base, plan_weights));
    weight_offset += plan_weights;
  }
  if (work != nullptr) {
    own_work_ = AlignedBuffer();
    work_bound_ = true;
  }
  return absl::OkStatus();
}

absl::Status GearedModel::EnsureSharedWork() {
  if (work_bound_) return absl::OkStatus();
  const size_t bytes = work_bytes();
  if (bytes > 0) {
    try {
      own_work_ = AlignedBuffer(bytes, /*zeroed=*/false);
    } catch (const std::bad_alloc&) {
      return WithKind(
          absl::ResourceExhaustedError(
              StrCat("out of memory allocating ", bytes,
                     " bytes of work memory for model '", graph_.name, "'")),
          ErrorKind::kOutOfMemory);
    }
    for (const auto& plan : plans_) {
      RETURN_IF_ERROR(plan->BindMemory(own_work_.data(), bytes, nullptr, 0));
    }
  }
  work_bound_ = true;
  return absl::OkStatus();
}

size_t GearedModel::GearValueWidth(size_t values, size_t size) {
  return size >= 8 * values ? 8 : size >= 4 * values ? 4 : 0;
}

bool GearedModel::WriteGearInput(std::span<const int64_t> values, void* data,
                                 size_t size) {
  const size_t width = GearValueWidth(values.size(), size);
  if (width == 0 || data == nullptr) return false;
  auto* out = static_cast<std::byte*>(data);
  for (size_t i = 0; i < values.size(); ++i) {
    const uint64_t value = static_cast<uint64_t>(values[i]);
    if (width == 8) {
      std::memcpy(out + 8 * i, &value, 8);
    } else {
      const uint32_t narrow = static_cast<uint32_t>(value);
      std::memcpy(out + 4 * i, &narrow, 4);
    }
  }
  return true;
}

absl::StatusOr<size_t> GearedModel::SelectPlan(
    std::span<const HostBuffer> inputs) const {
  if (!dynamic()) return 0;
  const size_t declared = graph_.inputs.size() + 1;
  if (inputs.size() != declared) {
    return WithKind(
        absl::InvalidArgumentError(StrCat(
            "model '", graph_.name, "' has ", declared, " inputs (the last is ",
            "the gear input '", kGearInputName, "'), got ", inputs.size())),
        ErrorKind::kModelInputNotMatch);
  }
  const HostBuffer& gear_input = inputs.back();
  const size_t arity = gear_arity();
  std::vector<int64_t> values(arity);
  const size_t width = GearValueWidth(arity, gear_input.size);
  if (width == 0 || gear_input.data == nullptr) {
    return WithKind(
        absl::InvalidArgumentError(StrCat(
            "the gear input '", kGearInputName, "' needs ", 8 * arity,
            " bytes, the buffer ", gear_input.data ? "has " : "is NULL with ",
            gear_input.size)),
        ErrorKind::kModelInputNotMatch);
  }
  for (size_t i = 0; i < arity; ++i) {
    const auto* bytes = static_cast<const std::byte*>(gear_input.data);
    uint64_t value = 0;
    if (width == 8) {
      std::memcpy(&value, bytes + 8 * i, 8);
    } else {
      uint32_t narrow = 0;
      std::memcpy(&narrow, bytes + 4 * i, 4);
      value = narrow;
    }
    values[i] = static_cast<int64_t>(std::min<uint64_t>(value, INT64_MAX));
  }
  if (std::all_of(values.begin(), values.end(),
                  [](int64_t v) { return v == 0; })) {
    return largest_gear_;
  }
  if (std::optional<size_t> gear = FindGear(values)) return *gear;
  std::vector<std::string> gears;
  for (const auto& gear : gear_values_)
    gears.push_back(StrCat("[", StrJoin(gear, ","), "]"));
  return WithKind(
      absl::InvalidArgumentError(StrCat(
          "the gear input '", kGearInputName, "' selects ",
          GearKindName(gear_kind()), " [", StrJoin(values, ","),
          "], which model '", graph_.name,
          "' does not have (gears: ", StrJoin(gears, " "), "); set it with ",
          gear_kind() == GearKind::kBatch       ? "aclmdlSetDynamicBatchSize"
          : gear_kind() == GearKind::kImageSize ? "aclmdlSetDynamicHWSize"
                                                : "aclmdlSetInputDynamicDims")),
      ErrorKind::kGearInvalid);
}

absl::Status GearedModel::CheckBuffers(
    std::span<const HostBuffer> inputs,
    std::span<const MutableHostBuffer> outputs) const {
  if (!dynamic()) return plans_[0]->CheckBuffers(inputs, outputs);
  ASSIGN_OR_RETURN(size_t gear, SelectPlan(inputs));
  return plans_[gear]->CheckBuffers(inputs.first(inputs.size() - 1), outputs);
}

absl::Status GearedModel::Execute(std::span<const HostBuffer> inputs,
                                  std::span<const MutableHostBuffer> outputs) {
  if (!dynamic()) return plans_[0]->Execute(inputs, outputs);
  ASSIGN_OR_RETURN(size_t gear, SelectPlan(inputs));
  std::lock_guard<std::mutex> lock(mutex_);
  RETURN_IF_ERROR(EnsureSharedWork());
  CompiledModel& plan = *plans_[gear];
  absl::Status status =
      plan.ExecuteAs(iteration_, inputs.first(inputs.size() - 1), outputs);
  // A call the plan rejected (buffers that do not fit) is no iteration.
  iteration_ = std::max(iteration_, plan.iteration());
  return status;
}

}  // namespace acldump
