#include "runtime/compiled_model.h"

#include <algorithm>
#include <cstring>
#include <map>

#include "base/error_kind.h"
#include "base/status_macros.h"
#include "base/strings.h"
#include "runtime/model_file.h"

namespace acldump {
namespace {

constexpr size_t kArenaAlignment = AlignedBuffer::kAlignment;

enum class ValueKind {
  kInput,
  kInitializer,
  kConstant,
  kArena,
  kOutput,
  kAlias
};

struct ValueState {
  TensorInfo info;
  ValueKind kind = ValueKind::kArena;
  int input_index = -1;
  int output_index = -1;
  const void* fixed_data = nullptr;  // initializers and constants
  int alias_of = -1;  // kAlias: the value whose memory this one shares
  int def_step = -1;
  int last_use = -1;
  size_t offset = 0;
};

size_t AlignUp(size_t bytes) {
  return (bytes + kArenaAlignment - 1) / kArenaAlignment * kArenaAlignment;
}

// Greedy by size (largest first): each value goes to the lowest offset that
// does not overlap a placed value whose lifetime overlaps its own.
size_t PlanArena(std::vector<ValueState>& values) {
  std::vector<int> order;
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i].kind == ValueKind::kArena)
      order.push_back(static_cast<int>(i));
  }
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return values[a].info.ByteSize() > values[b].info.ByteSize();
  });
  std::vector<int> placed;
  size_t arena = 0;
  for (int v : order) {
    ValueState& value = values[v];
    const size_t size = AlignUp(std::max<size_t>(value.info.ByteSize(), 1));
    // Memory ranges of placed values alive at the same time, sorted by offset.
    std::vector<std::pair<size_t, size_t>> busy;
    for (int p : placed) {
      const ValueState& other = values[p];
      if (other.def_step <= value.last_use &&
          value.def_step <= other.last_use) {
        busy.emplace_back(
            other.offset,
            other.offset + AlignUp(std::max<size_t>(other.info.ByteSize(), 1)));
      }
    }
    std::sort(busy.begin(), busy.end());
    size_t offset = 0;
    for (const auto& [begin, end] : busy) {
      if (offset + size <= begin) break;
      offset = std::max(offset, end);
    }
    value.offset = offset;
    arena = std::max(arena, offset + size);
    placed.push_back(v);
  }
  return arena;
}

}  // namespace

CompiledModel::~CompiledModel() = default;

absl::StatusOr<std::unique_ptr<CompiledModel>> CompiledModel::Compile(
    Graph graph, const OpRegistry& registry, size_t max_arena_bytes) {
  std::unique_ptr<CompiledModel> model(new CompiledModel());
  model->graph_ = std::move(graph);
  const Graph& g = model->graph_;

  std::vector<ValueState> values;
  std::map<std::string, int, std::less<>> value_ids;
  // Graphs reach here from the model file parser or straight from the ONNX
  // importer: the invariants the plan relies on are checked here again.
  absl::Status duplicate;
  auto add_value = [&](const std::string& name, ValueState state) {
    if (name.empty() ||
        !value_ids.emplace(name, static_cast<int>(values.size())).second) {
      if (duplicate.ok()) {
        duplicate = absl::InvalidArgumentError(StrCat(
            "value '", name, "' is defined more than once (or has no name)"));
      }
      return;
    }
    values.push_back(std::move(state));
  };
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    ValueState state;
    state.info = g.inputs[i].info;
    state.kind = ValueKind::kInput;
    state.input_index = static_cast<int>(i);
    add_value(g.inputs[i].name, state);
    model->input_infos_.push_back(g.inputs[i].info);
  }
  for (const auto& [name, tensor] : g.initializers) {
    ValueState state;
    state.info = tensor->info();
    state.kind = ValueKind::kInitializer;
    state.fixed_data = tensor->data();
    add_value(name, state);
  }

  // Prepare every node in topological order; shapes flow from inputs and
  // initializers.
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    RETURN_IF_ERROR(duplicate);
    const GraphNode& node = g.nodes[n];
    const std::string where =
        StrCat("node '", node.name, "' (", node.op_type, ")");
    const OpDef* def = registry.Find(node.op_type);
    if (def == nullptr) {
      return absl::InvalidArgumentError(
          StrCat(where, ": op type '", node.op_type, "' is not supported"));
    }
    std::vector<TensorInfo> infos;
    std::vector<TensorView> constant_views;
    std::vector<bool> known;
    std::vector<int> input_ids;
    for (const std::string& in : node.inputs) {
      if (in.empty()) {
        infos.emplace_back();
        constant_views.emplace_back();
        known.push_back(false);
        input_ids.push_back(-1);
        continue;
      }
      auto it = value_ids.find(in);
      if (it == value_ids.end()) {
        return absl::InvalidArgumentError(
            StrCat(where, ": input '", in, "' is not defined"));
      }
      const ValueState& v = values[it->second];
      infos.push_back(v.info);
      TensorView view{v.info.dtype, v.info.shape, nullptr};
      const bool is_known =
          v.kind == ValueKind::kInitializer || v.kind == ValueKind::kConstant;
      if (is_known) view.data = const_cast<void*>(v.fixed_data);
      constant_views.push_back(std::move(view));
      known.push_back(is_known);
      input_ids.push_back(it->second);
    }
    std::vector<const TensorView*> constants;
    for (size_t i = 0; i < constant_views.size(); ++i) {
      constants.push_back(known[i] ? &constant_views[i] : nullptr);
    }
    OpContext context{node.op_type, node.attrs, infos, constants,
                      node.outputs.size()};
    absl::StatusOr<PreparedKernel> prepared = registry.Prepare(context);
    if (!prepared.ok()) return Annotate(prepared.status(), where);
    for (size_t o = 0; o < prepared->outputs.size(); ++o) {
      const TensorInfo& info = prepared->outputs[o];
      absl::StatusOr<int64_t> count = CheckedNumElements(
          info.shape.dims(),
          kMaxModelTensorBytes / static_cast<int64_t>(DTypeSize(info.dtype)));
      if (!count.ok()) {
        return Annotate(count.status(),
                        StrCat(where, ": output '", node.outputs[o], "'"));
      }
    }

    if (node.op_type == "Constant") {
      // Evaluated once here: a Constant produces no output at run time (S16).
      auto tensor = std::make_shared<Tensor>(prepared->outputs[0].dtype,
                                             prepared->outputs[0].shape);
      std::vector<TensorView> outs = {tensor->view()};
      RETURN_IF_ERROR(Annotate(prepared->kernel->Run({}, outs, {}), where));
      ValueState state;
      state.info = tensor->info();
      state.kind = ValueKind::kConstant;
      state.fixed_data = tensor->data();
      model->constants_.push_back(tensor);
      add_value(node.outputs[0], state);
      continue;
    }
    const bool alias = node.no_task && !g.IsGraphOutput(node.outputs[0]);
    if (node.no_task) {
      if (!def->output_aliases_input || node.outputs.size() != 1 ||
          input_ids.empty() || input_ids[0] < 0) {
        return absl::InvalidArgumentError(
            StrCat(where,
                   ": marked no-task, but only Reshape, Flatten, Identity, "
                   "Squeeze and Unsqueeze "
                   "nodes with one output can alias their input"));
      }
      if (prepared->outputs[0].ByteSize() !=
          values[input_ids[0]].info.ByteSize()) {
        return absl::InvalidArgumentError(
            StrCat(where, ": no-task output ", prepared->outputs[0].ToString(),
                   " does not have the size of its input ",
                   values[input_ids[0]].info.ToString()));
      }
    }
    if (alias) {
      ValueState state;
      state.info = prepared->outputs[0];
      state.kind = ValueKind::kAlias;
      state.alias_of = input_ids[0];
      add_value(node.outputs[0], state);
      continue;
    }
    const int step_index = static_cast<int>(model->steps_.size());
    Step step;
    step.node_index = static_cast<int>(n);
    step.workspace_bytes = prepared->kernel->WorkspaceBytes();
    StepInfo info;
    info.task_id = static_cast<uint32_t>(step_index);
    info.name = node.name;
    info.op_type = node.op_type;
    info.original_names = node.original_names;
    info.input_names = node.inputs;
    info.output_names = node.outputs;
    info.input_infos = infos;
    info.output_infos = prepared->outputs;
    info.launch_params = prepared->kernel->LaunchParams();
    info.workspace_bytes = step.workspace_bytes;
    step.kernel = std::move(prepared->kernel);
    for (int id : input_ids) {
      // Reading a value (or a value through aliases) extends its root's
      // lifetime.
      for (int v = id; v >= 0; v = values[v].alias_of) {
        values[v].last_use = std::max(values[v].last_use, step_index);
      }
    }
    for (size_t o = 0; o < node.outputs.size(); ++o) {
      ValueState state;
      state.info = info.output_infos[o];
      state.def_step = step_index;
      state.last_use = step_index;
      for (size_t k = 0; k < g.outputs.size(); ++k) {
        if (g.outputs[k].name == node.outputs[o]) {
          state.kind = ValueKind::kOutput;
          state.output_index = static_cast<int>(k);
        }
      }
      add_value(node.outputs[o], state);
    }
    // Views are filled once memory is planned.
    step.inputs.resize(input_ids.size());
    step.outputs.resize(node.outputs.size());
    model->steps_.push_back(std::move(step));
    model->step_infos_.push_back(std::move(info));
  }

  RETURN_IF_ERROR(duplicate);
  // Declared outputs must exist and match what the graph computes.
  for (size_t k = 0; k < g.outputs.size(); ++k) {
    auto produced = value_ids.find(g.outputs[k].name);
    if (produced == value_ids.end()) {
      return absl::InvalidArgumentError(
          StrCat("output '", g.outputs[k].name,
                 "' is not produced by any node, input or initializer"));
    }
    const ValueState& v = values[produced->second];
    if (v.info != g.outputs[k].info) {
      return absl::InvalidArgumentError(StrCat(
          "output '", g.outputs[k].name, "' is declared as ",
          g.outputs[k].info.ToString(), " but computes ", v.info.ToString()));
    }
    model->output_infos_.push_back(v.info);
  }

  // Memory plan.
  MemoryPlanStats& stats = model->plan_stats_;
  for (const ValueState& v : values) {
    if (v.kind == ValueKind::kArena) {
      stats.naive_bytes += v.info.ByteSize();
      ++stats.num_arena_values;
    } else if (v.kind == ValueKind::kAlias) {
      ++stats.num_aliases;
    }
  }
  stats.arena_bytes = PlanArena(values);
  if (stats.arena_bytes > max_arena_bytes) {
    return absl::ResourceExhaustedError(
        StrCat("the model needs ", stats.arena_bytes,
               " bytes of activation memory, more than the limit "
               "of ",
               max_arena_bytes));
  }
  for (const Step& step : model->steps_) {
    stats.workspace_bytes =
        std::max(stats.workspace_bytes, step.workspace_bytes);
  }
  model->arena_ = AlignedBuffer(stats.arena_bytes);
  model->workspace_ = AlignedBuffer(stats.workspace_bytes);

  // Resolve each value to memory: a fixed address, or a caller buffer patched
  // per execution.
  auto root_of = [&](int id) {
    while (values[id].kind == ValueKind::kAlias) id = values[id].alias_of;
    return id;
  };
  auto bind = [&](int id, TensorView& view) {
    const ValueState& v = values[id];
    view.dtype = v.info.dtype;
    view.shape = v.info.shape;
    const ValueState& root = values[root_of(id)];
    switch (root.kind) {
      case ValueKind::kInput:
        model->patches_.push_back({&view, root.input_index, false});
        break;
      case ValueKind::kOutput:
        model->patches_.push_back({&view, root.output_index, true});
        break;
      case ValueKind::kInitializer:
      case ValueKind::kConstant:
        view.data = const_cast<void*>(root.fixed_data);
        break;
      case ValueKind::kArena:
        view.data = model->arena_.data() + root.offset;
        break;
      case ValueKind::kAlias:
        break;
    }
  };
  for (Step& step : model->steps_) {
    const GraphNode& node = g.nodes[step.node_index];
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      if (!node.inputs[i].empty())
        bind(value_ids.at(node.inputs[i]), step.inputs[i]);
    }
    for (size_t o = 0; o < node.outputs.size(); ++o) {
      bind(value_ids.at(node.outputs[o]), step.outputs[o]);
    }
  }
  for (size_t k = 0; k < g.outputs.size(); ++k) {
    const ValueState& root = values[root_of(value_ids.at(g.outputs[k].name))];
    if (root.kind == ValueKind::kOutput &&
        root.output_index == static_cast<int>(k))
      continue;
    FinalCopy copy{-1, nullptr, model->output_infos_[k].ByteSize(),
                   static_cast<int>(k)};
    if (root.kind == ValueKind::kInput) {
      copy.input_index = root.input_index;
    } else if (root.kind == ValueKind::kArena) {
      copy.source = model->arena_.data() + root.offset;
    } else if (root.kind == ValueKind::kOutput) {
      return absl::InvalidArgumentError(
          StrCat("output '", g.outputs[k].name,
                 "' shares its memory with another output"));
    } else {
      copy.source = root.fixed_data;
    }
    model->final_copies_.push_back(copy);
  }
  return model;
}

absl::Status CompiledModel::AttachObserver(
    std::shared_ptr<ExecutionObserver> observer,
    std::vector<uint8_t> step_flags) {
  if (observer && step_flags.size() != steps_.size()) {
    return absl::InvalidArgumentError(
        StrCat("observer plan has ", step_flags.size(),
               " entries, the model has ", steps_.size(), " steps"));
  }
  std::lock_guard<std::mutex> lock(mutex_);
  observer_ = std::move(observer);
  step_flags_ = observer_ ? std::move(step_flags) : std::vector<uint8_t>();
  return absl::OkStatus();
}

std::shared_ptr<ExecutionObserver> CompiledModel::observer() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return observer_;
}

uint64_t CompiledModel::iteration() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return iteration_;
}

template <bool kObserved>
absl::Status CompiledModel::RunSteps(uint64_t iteration) {
  std::span<std::byte> workspace(workspace_.data(), workspace_.size());
  for (size_t i = 0; i < steps_.size(); ++i) {
    const Step& step = steps_[i];
    uint8_t flags = 0;
    if constexpr (kObserved) {
      flags = step_flags_[i];
      if (flags & kObserveBefore) {
        observer_->BeforeNode(NodeEvent{
            step_infos_[i], iteration, step.inputs, step.outputs, {}});
      }
    }
    absl::Status status =
        step.kernel->Run(step.inputs, step.outputs, workspace);
    if (!status.ok()) [[unlikely]] {
      if (observer_) {
        observer_->OnNodeFailure(
            NodeEvent{step_infos_[i], iteration, step.inputs, step.outputs,
                      std::span<const std::byte>(workspace.data(),
                                                 step.workspace_bytes)},
            status);
      }
      return absl::Status(
          status.code(),
          StrCat("node '", step_infos_[i].name, "' (", step_infos_[i].op_type,
                 ", task ", i, ") failed: ", status.message()));
    }
    if constexpr (kObserved) {
      if (flags & kObserveAfter) {
        observer_->AfterNode(
            NodeEvent{step_infos_[i], iteration, step.inputs, step.outputs,
                      std::span<const std::byte>(workspace.data(),
                                                 step.workspace_bytes)});
      }
    }
  }
  return absl::OkStatus();
}

absl::Status CompiledModel::Execute(
    std::span<const HostBuffer> inputs,
    std::span<const MutableHostBuffer> outputs) {
  if (inputs.size() != input_infos_.size()) {
    return WithKind(absl::InvalidArgumentError(StrCat(
                        "model '", graph_.name, "' has ", input_infos_.size(),
                        " inputs, got ", inputs.size())),
                    ErrorKind::kModelInputNotMatch);
  }
  if (outputs.size() != output_infos_.size()) {
    return WithKind(absl::InvalidArgumentError(StrCat(
                        "model '", graph_.name, "' has ", output_infos_.size(),
                        " outputs, got ", outputs.size())),
                    ErrorKind::kModelOutputNotMatch);
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    const size_t need = input_infos_[i].ByteSize();
    if (inputs[i].size < need || (need > 0 && inputs[i].data == nullptr)) {
      return WithKind(
          absl::InvalidArgumentError(StrCat(
              "input ", i, " ('", graph_.inputs[i].name, "', ",
              input_infos_[i].ToString(), ") needs ", need,
              " bytes, the buffer ", inputs[i].data ? "has " : "is NULL with ",
              inputs[i].size)),
          ErrorKind::kModelInputNotMatch);
    }
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    const size_t need = output_infos_[i].ByteSize();
    if (outputs[i].size < need || (need > 0 && outputs[i].data == nullptr)) {
      return WithKind(
          absl::InvalidArgumentError(StrCat(
              "output ", i, " ('", graph_.outputs[i].name, "', ",
              output_infos_[i].ToString(), ") needs ", need,
              " bytes, the buffer ", outputs[i].data ? "has " : "is NULL with ",
              outputs[i].size)),
          ErrorKind::kModelOutputNotMatch);
    }
  }
  std::lock_guard<std::mutex> lock(mutex_);
  for (const Patch& patch : patches_) {
    patch.view->data = patch.is_output
                           ? outputs[patch.buffer_index].data
                           : const_cast<void*>(inputs[patch.buffer_index].data);
  }
  const uint64_t iteration = iteration_++;
  const bool observed =
      observer_ != nullptr && observer_->BeginIteration(iteration);
  absl::Status status =
      observed ? RunSteps<true>(iteration) : RunSteps<false>(iteration);
  if (status.ok()) {
    for (const FinalCopy& copy : final_copies_) {
      const void* source =
          copy.input_index >= 0 ? inputs[copy.input_index].data : copy.source;
      if (copy.bytes > 0)
        std::memmove(outputs[copy.output_index].data, source, copy.bytes);
    }
  }
  if (observer_ != nullptr) {
    absl::Status end = observer_->EndIteration(iteration);
    if (status.ok()) status = end;
  }
  return status;
}

}  // namespace acldump
