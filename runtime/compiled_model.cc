#include "runtime/compiled_model.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <new>
#include <set>

#include "base/error_kind.h"
#include "base/status_macros.h"
#include "base/strings.h"
#include "kernels/threading.h"
#include "runtime/dynamic_executor.h"
#include "runtime/node_prepare.h"

namespace acldump {

// Turns a graph into a CompiledModel, one named step at a time.
class ModelCompiler {
 public:
  ModelCompiler(Graph graph, const OpRegistry& registry,
                const CompileOptions& options)
      : model_(new CompiledModel()), registry_(registry), options_(options) {
    model_->graph_ = std::move(graph);
  }

  absl::StatusOr<std::unique_ptr<CompiledModel>> Run() {
    RETURN_IF_ERROR(AddGraphInputsAndInitializers());
    for (size_t n = 0; n < graph().nodes.size(); ++n) {
      RETURN_IF_ERROR(AddNode(n));
    }
    RETURN_IF_ERROR(CheckDeclaredOutputs());
    KeepDynamicReads();
    RETURN_IF_ERROR(PlanMemory());
    RETURN_IF_ERROR(BindViews());
    RETURN_IF_ERROR(AddDynamicExecutor());
    return std::move(model_);
  }

 private:
  enum class ValueKind {
    kInput,
    kInitializer,
    kConstant,
    kArena,
    kOutput,
    kAlias
  };
  struct Value {
    TensorInfo info;
    ValueKind kind = ValueKind::kArena;
    int input_index = -1;
    int output_index = -1;
    const void* fixed_data = nullptr;  // initializers and constants
    int weight_index = -1;             // initializers and constants
    int alias_of = -1;  // kAlias: the value whose memory this one shares
    int def_step = -1;
    int last_use = -1;
    size_t offset = 0;  // kArena
  };
  // What PrepareNodeInputs found about a node's inputs.
  struct NodeInputs {
    std::vector<TensorInfo> infos;
    std::vector<TensorView> views;  // data set for known (constant) inputs
    std::vector<bool> known;
    std::vector<int> ids;  // -1 for an absent input
  };

  const Graph& graph() const { return model_->graph_; }

  absl::Status AddValue(const std::string& name, Value value) {
    if (name.empty() ||
        !value_ids_.emplace(name, static_cast<int>(values_.size())).second) {
      return absl::InvalidArgumentError(StrCat(
          "value '", name, "' is defined more than once (or has no name)"));
    }
    values_.push_back(std::move(value));
    return absl::OkStatus();
  }

  // A weight (initializer or constant): counted against the memory limit
  // before it is allocated (constants) and placed in the weight layout.
  int AddWeight(const void* data, size_t bytes) {
    model_->weights_.push_back({data, bytes, weight_bytes_});
    weight_bytes_ += AlignToPlan(bytes);
    return static_cast<int>(model_->weights_.size() - 1);
  }

  absl::Status AddGraphInputsAndInitializers() {
    const Graph& g = graph();
    for (size_t i = 0; i < g.inputs.size(); ++i) {
      Value value;
      value.info = g.inputs[i].info;
      value.kind = ValueKind::kInput;
      value.input_index = static_cast<int>(i);
      RETURN_IF_ERROR(AddValue(g.inputs[i].name, value));
      model_->input_infos_.push_back(g.inputs[i].info);
    }
    for (const auto& [name, tensor] : g.initializers) {
      Value value;
      value.info = tensor->info();
      value.kind = ValueKind::kInitializer;
      value.fixed_data = tensor->data();
      value.weight_index = AddWeight(tensor->data(), tensor->ByteSize());
      RETURN_IF_ERROR(AddValue(name, value));
    }
    return CheckFootprint({0, 0, weight_bytes_}, options_.max_memory_bytes,
                          g.name);
  }

  absl::StatusOr<NodeInputs> CollectInputs(const GraphNode& node) {
    NodeInputs inputs;
    for (const std::string& in : node.inputs) {
      if (in.empty()) {
        inputs.infos.emplace_back();
        inputs.views.emplace_back();
        inputs.known.push_back(false);
        inputs.ids.push_back(-1);
        continue;
      }
      auto it = value_ids_.find(in);
      if (it == value_ids_.end()) {
        return absl::InvalidArgumentError(
            StrCat(NodeLabel(node), ": input '", in, "' is not defined"));
      }
      const Value& v = values_[it->second];
      inputs.infos.push_back(v.info);
      TensorView view{v.info.dtype, v.info.shape, nullptr};
      const bool known =
          v.kind == ValueKind::kInitializer || v.kind == ValueKind::kConstant;
      if (known) view.data = const_cast<void*>(v.fixed_data);
      inputs.views.push_back(std::move(view));
      inputs.known.push_back(known);
      inputs.ids.push_back(it->second);
    }
    return inputs;
  }

  // Whether the node reads a value known only while the model runs, or runs
  // subgraphs: then the dynamic executor runs it, after the static steps.
  bool ReadsDynamicValues(const GraphNode& node) const {
    if (IsControlFlowOp(node.op_type)) return true;
    for (const std::string& in : node.inputs) {
      if (dynamic_values_.count(in) > 0) return true;
    }
    for (const std::string& in : node.implicit_inputs) {
      if (dynamic_values_.count(in) > 0) return true;
    }
    return false;
  }

  absl::Status AddDynamicNode(size_t n) {
    const GraphNode& node = graph().nodes[n];
    auto read = [&](const std::string& in) -> absl::Status {
      if (in.empty() || dynamic_values_.count(in) > 0) return absl::OkStatus();
      if (value_ids_.count(in) == 0) {
        return absl::InvalidArgumentError(
            StrCat(NodeLabel(node), ": input '", in, "' is not defined"));
      }
      if (std::find(dynamic_reads_.begin(), dynamic_reads_.end(), in) ==
          dynamic_reads_.end()) {
        dynamic_reads_.push_back(in);
      }
      return absl::OkStatus();
    };
    for (const std::string& in : node.inputs) RETURN_IF_ERROR(read(in));
    for (const std::string& in : node.implicit_inputs) {
      RETURN_IF_ERROR(read(in));
    }
    for (const std::string& out : node.outputs) {
      if (out.empty()) continue;
      if (value_ids_.count(out) > 0 || !dynamic_values_.insert(out).second) {
        return absl::InvalidArgumentError(
            StrCat("value '", out, "' is defined more than once"));
      }
    }
    dynamic_nodes_.push_back(static_cast<int>(n));
    return absl::OkStatus();
  }

  absl::Status AddNode(size_t n) {
    const GraphNode& node = graph().nodes[n];
    if (ReadsDynamicValues(node)) return AddDynamicNode(n);
    ASSIGN_OR_RETURN(NodeInputs inputs, CollectInputs(node));
    std::vector<const TensorView*> constants;
    for (size_t i = 0; i < inputs.views.size(); ++i) {
      constants.push_back(inputs.known[i] ? &inputs.views[i] : nullptr);
    }
    absl::StatusOr<PreparedKernel> prepared_or =
        PrepareNode(node, registry_, inputs.infos, constants);
    if (!prepared_or.ok() && IsNotKnownBeforeExecution(prepared_or.status())) {
      // Its output shapes depend on values computed while the model runs.
      return AddDynamicNode(n);
    }
    RETURN_IF_ERROR(prepared_or.status());
    PreparedKernel prepared = std::move(*prepared_or);
    if (node.op_type == "Constant") return AddConstant(node, prepared);
    RETURN_IF_ERROR(CheckNoTask(node, prepared, inputs));
    if (node.no_task && !graph().IsGraphOutput(node.outputs[0])) {
      Value value;
      value.info = prepared.outputs[0];
      value.kind = ValueKind::kAlias;
      value.alias_of = inputs.ids[0];
      return AddValue(node.outputs[0], value);
    }
    return AddStep(node, std::move(prepared), std::move(inputs));
  }

  // Evaluated once here: a Constant produces no output at run time.
  absl::Status AddConstant(const GraphNode& node, PreparedKernel& prepared) {
    const TensorInfo& info = prepared.outputs[0];
    RETURN_IF_ERROR(
        CheckFootprint({0, 0, weight_bytes_ + AlignToPlan(info.ByteSize())},
                       options_.max_memory_bytes, graph().name));
    auto tensor = std::make_shared<Tensor>(info.dtype, info.shape);
    std::vector<TensorView> outs = {tensor->view()};
    RETURN_IF_ERROR(
        Annotate(prepared.kernel->Run({}, outs, {}), NodeLabel(node)));
    Value value;
    value.info = tensor->info();
    value.kind = ValueKind::kConstant;
    value.fixed_data = tensor->data();
    value.weight_index = AddWeight(tensor->data(), tensor->ByteSize());
    model_->constants_.push_back(tensor);
    return AddValue(node.outputs[0], value);
  }

  absl::Status CheckNoTask(const GraphNode& node,
                           const PreparedKernel& prepared,
                           const NodeInputs& inputs) {
    if (!node.no_task) return absl::OkStatus();
    const OpDef* def = registry_.Find(node.op_type);
    if (!def->output_aliases_input || node.outputs.size() != 1 ||
        inputs.ids.empty() || inputs.ids[0] < 0) {
      return absl::InvalidArgumentError(StrCat(
          NodeLabel(node),
          ": marked no-task, but only Reshape, Flatten, Identity, Squeeze and "
          "Unsqueeze nodes with one output can alias their input"));
    }
    const TensorInfo& input = values_[inputs.ids[0]].info;
    if (prepared.outputs[0].ByteSize() != input.ByteSize()) {
      return absl::InvalidArgumentError(StrCat(
          NodeLabel(node), ": no-task output ", prepared.outputs[0].ToString(),
          " does not have the size of its input ", input.ToString()));
    }
    return absl::OkStatus();
  }

  absl::Status AddStep(const GraphNode& node, PreparedKernel prepared,
                       NodeInputs inputs) {
    const int step_index = static_cast<int>(model_->steps_.size());
    CompiledModel::Step step;
    step.workspace_bytes = prepared.kernel->WorkspaceBytes();
    StepInfo info;
    info.task_id = static_cast<uint32_t>(step_index);
    info.name = node.name;
    info.op_type = node.op_type;
    info.original_names = node.original_names;
    info.input_names = node.inputs;
    info.output_names = node.outputs;
    info.input_infos = std::move(inputs.infos);
    info.output_infos = prepared.outputs;
    // The node lives in the model's graph as long as the model.
    info.attrs = &node.attrs;
    info.launch_params = prepared.kernel->LaunchParams();
    info.workspace_bytes = step.workspace_bytes;
    step.kernel = std::move(prepared.kernel);
    for (int id : inputs.ids) {
      // Reading a value (or a value through aliases) extends its root's
      // lifetime.
      for (int v = id; v >= 0; v = values_[v].alias_of) {
        values_[v].last_use = std::max(values_[v].last_use, step_index);
      }
    }
    for (size_t o = 0; o < node.outputs.size(); ++o) {
      Value value;
      value.info = info.output_infos[o];
      value.def_step = step_index;
      value.last_use = step_index;
      for (size_t k = 0; k < graph().outputs.size(); ++k) {
        if (graph().outputs[k].name == node.outputs[o]) {
          value.kind = ValueKind::kOutput;
          value.output_index = static_cast<int>(k);
        }
      }
      RETURN_IF_ERROR(AddValue(node.outputs[o], value));
    }
    // Views are bound once memory is planned.
    step.inputs.resize(node.inputs.size());
    step.outputs.resize(node.outputs.size());
    step_inputs_.push_back(std::move(inputs.ids));
    model_->steps_.push_back(std::move(step));
    model_->step_infos_.push_back(std::move(info));
    return absl::OkStatus();
  }

  // Declared outputs must exist and match what the graph computes. An output
  // the dynamic part computes keeps its declared type; its shape is checked
  // at every execution.
  absl::Status CheckDeclaredOutputs() {
    const Graph& g = graph();
    model_->dynamic_outputs_.assign(g.outputs.size(), false);
    for (size_t k = 0; k < g.outputs.size(); ++k) {
      if (dynamic_values_.count(g.outputs[k].name) > 0) {
        model_->dynamic_outputs_[k] = true;
        model_->output_infos_.push_back(g.outputs[k].info);
        continue;
      }
      auto produced = value_ids_.find(g.outputs[k].name);
      if (produced == value_ids_.end()) {
        return absl::InvalidArgumentError(
            StrCat("output '", g.outputs[k].name,
                   "' is not produced by any node, input or initializer"));
      }
      const Value& v = values_[produced->second];
      if (v.info != g.outputs[k].info) {
        return absl::InvalidArgumentError(StrCat(
            "output '", g.outputs[k].name, "' is declared as ",
            g.outputs[k].info.ToString(), " but computes ", v.info.ToString()));
      }
      model_->output_infos_.push_back(v.info);
    }
    return absl::OkStatus();
  }

  // The dynamic part runs after every static step: what it reads lives until
  // the end.
  void KeepDynamicReads() {
    const int end = static_cast<int>(model_->steps_.size());
    for (const std::string& name : dynamic_reads_) {
      for (int v = value_ids_.at(name); v >= 0; v = values_[v].alias_of) {
        values_[v].last_use = std::max(values_[v].last_use, end);
      }
    }
  }

  // What the model's memory limit leaves the dynamic part's values once the
  // static plan (activations, workspace, weights) is counted.
  size_t DynamicMemoryLimit() const {
    const MemoryPlanStats& plan = model_->plan_stats_;
    const size_t used =
        plan.arena_bytes + plan.workspace_bytes + plan.weight_bytes;
    return options_.max_memory_bytes > used ? options_.max_memory_bytes - used
                                            : 0;
  }

  absl::Status AddDynamicExecutor() {
    if (dynamic_nodes_.empty()) return absl::OkStatus();
    for (const std::string& name : dynamic_reads_) {
      const int id = value_ids_.at(name);
      model_->dynamic_sources_.emplace_back();
      CompiledModel::DynamicSource& source = model_->dynamic_sources_.back();
      source.name = name;
      const ValueKind kind = values_[RootOf(id)].kind;
      source.constant =
          kind == ValueKind::kInitializer || kind == ValueKind::kConstant;
      Bind(id, source.view);
      const CompiledModel::Binding& binding = model_->bindings_.back();
      if (binding.location.memory == CompiledModel::Memory::kWeights) {
        binding.view->data =
            const_cast<void*>(model_->weights_[binding.location.index].data);
      } else if (binding.location.memory == CompiledModel::Memory::kInput ||
                 binding.location.memory == CompiledModel::Memory::kOutput) {
        model_->io_bindings_.push_back(binding);
      }
    }
    auto info_of = [this](std::string_view name) {
      auto it = value_ids_.find(name);
      return it == value_ids_.end() ? TensorInfo{} : values_[it->second].info;
    };
    ASSIGN_OR_RETURN(model_->dynamic_,
                     DynamicExecutor::Create(
                         graph(), dynamic_nodes_, registry_,
                         static_cast<uint32_t>(model_->step_infos_.size()),
                         info_of, DynamicMemoryLimit()));
    for (const StepInfo& step : model_->dynamic_->steps()) {
      model_->step_infos_.push_back(step);
    }
    for (size_t k = 0; k < graph().outputs.size(); ++k) {
      if (model_->dynamic_outputs_[k]) {
        model_->dynamic_output_names_.push_back(graph().outputs[k].name);
      }
    }
    return absl::OkStatus();
  }

  absl::Status PlanMemory() {
    MemoryPlanStats& stats = model_->plan_stats_;
    std::vector<ArenaValue> arena;
    std::vector<int> arena_ids;
    for (size_t i = 0; i < values_.size(); ++i) {
      const Value& v = values_[i];
      if (v.kind == ValueKind::kArena) {
        stats.naive_bytes += v.info.ByteSize();
        ++stats.num_arena_values;
        arena.push_back({v.info.ByteSize(), v.def_step, v.last_use});
        arena_ids.push_back(static_cast<int>(i));
      } else if (v.kind == ValueKind::kAlias) {
        ++stats.num_aliases;
      }
    }
    stats.arena_bytes = PlanArena(arena);
    for (size_t a = 0; a < arena.size(); ++a) {
      values_[arena_ids[a]].offset = arena[a].offset;
    }
    for (const CompiledModel::Step& step : model_->steps_) {
      stats.workspace_bytes =
          std::max(stats.workspace_bytes, step.workspace_bytes);
    }
    stats.weight_bytes = weight_bytes_;
    return CheckFootprint(
        {stats.arena_bytes, stats.workspace_bytes, stats.weight_bytes},
        options_.max_memory_bytes, graph().name);
  }

  int RootOf(int id) const {
    while (values_[id].kind == ValueKind::kAlias) id = values_[id].alias_of;
    return id;
  }

  CompiledModel::Location LocationOf(int id) const {
    const Value& root = values_[RootOf(id)];
    using Memory = CompiledModel::Memory;
    switch (root.kind) {
      case ValueKind::kInput:
        return {Memory::kInput, 0, root.input_index};
      case ValueKind::kOutput:
        return {Memory::kOutput, 0, root.output_index};
      case ValueKind::kInitializer:
      case ValueKind::kConstant:
        return {Memory::kWeights, model_->weights_[root.weight_index].offset,
                root.weight_index};
      case ValueKind::kArena:
      case ValueKind::kAlias:
        break;
    }
    return {Memory::kWork, root.offset, -1};
  }

  void Bind(int id, TensorView& view) {
    view.dtype = values_[id].info.dtype;
    view.shape = values_[id].info.shape;
    model_->bindings_.push_back({&view, LocationOf(id)});
  }

  absl::Status BindViews() {
    const Graph& g = graph();
    for (size_t s = 0; s < model_->steps_.size(); ++s) {
      CompiledModel::Step& step = model_->steps_[s];
      for (size_t i = 0; i < step_inputs_[s].size(); ++i) {
        if (step_inputs_[s][i] >= 0) Bind(step_inputs_[s][i], step.inputs[i]);
      }
      const std::vector<std::string>& outputs =
          model_->step_infos_[s].output_names;
      for (size_t o = 0; o < outputs.size(); ++o) {
        Bind(value_ids_.at(outputs[o]), step.outputs[o]);
      }
    }
    // Weights are the model's own until BindMemory copies them elsewhere.
    model_->Rebind(CompiledModel::Memory::kWeights, nullptr);
    for (const CompiledModel::Binding& binding : model_->bindings_) {
      const CompiledModel::Memory memory = binding.location.memory;
      if (memory == CompiledModel::Memory::kInput ||
          memory == CompiledModel::Memory::kOutput) {
        model_->io_bindings_.push_back(binding);
      }
    }
    for (size_t k = 0; k < g.outputs.size(); ++k) {
      if (model_->dynamic_outputs_[k]) continue;
      const int id = value_ids_.at(g.outputs[k].name);
      const CompiledModel::Location source = LocationOf(id);
      if (source.memory == CompiledModel::Memory::kOutput) {
        if (source.index == static_cast<int>(k)) continue;
        return absl::InvalidArgumentError(
            StrCat("output '", g.outputs[k].name,
                   "' shares its memory with another output"));
      }
      model_->final_copies_.push_back(
          {source, model_->output_infos_[k].ByteSize(), static_cast<int>(k)});
    }
    return absl::OkStatus();
  }

  std::unique_ptr<CompiledModel> model_;
  const OpRegistry& registry_;
  const CompileOptions options_;
  std::vector<Value> values_;
  std::map<std::string, int, std::less<>> value_ids_;
  std::vector<std::vector<int>> step_inputs_;  // value ids per step input
  std::set<std::string, std::less<>> dynamic_values_;
  std::vector<int> dynamic_nodes_;          // graph node indices
  std::vector<std::string> dynamic_reads_;  // static values they read
  size_t weight_bytes_ = 0;
};

CompiledModel::~CompiledModel() = default;

absl::StatusOr<std::unique_ptr<CompiledModel>> CompiledModel::Compile(
    Graph graph, const OpRegistry& registry, CompileOptions options) {
  const int threads = options.intra_op_threads > 0 ? options.intra_op_threads
                                                   : IntraOpThreads();
  // Kernels plan their work for the threads they will run on.
  ScopedIntraOpThreads scope(threads);
  ASSIGN_OR_RETURN(std::unique_ptr<CompiledModel> model,
                   ModelCompiler(std::move(graph), registry, options).Run());
  model->intra_op_threads_ = threads;
  model->current_output_infos_ = model->output_infos_;
  return model;
}

void CompiledModel::Rebind(Memory memory, std::byte* base) {
  for (const Binding& binding : bindings_) {
    if (binding.location.memory != memory) continue;
    if (memory == Memory::kWeights && base == nullptr) {
      binding.view->data =
          const_cast<void*>(weights_[binding.location.index].data);
    } else {
      binding.view->data = base + binding.location.offset;
    }
  }
}

absl::Status CompiledModel::BindMemory(void* work, size_t work_size,
                                       void* weights, size_t weight_size) {
  if (work != nullptr && work_size < plan_stats_.work_bytes()) {
    return absl::InvalidArgumentError(
        StrCat("work memory of ", work_size, " bytes is too small: model '",
               graph_.name, "' needs ", plan_stats_.work_bytes()));
  }
  if (weights != nullptr && weight_size < plan_stats_.weight_bytes) {
    return absl::InvalidArgumentError(
        StrCat("weight memory of ", weight_size, " bytes is too small: model '",
               graph_.name, "' needs ", plan_stats_.weight_bytes));
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (work != nullptr) {
    own_work_ = AlignedBuffer();
    work_ = static_cast<std::byte*>(work);
    Rebind(Memory::kWork, work_);
  }
  if (weights != nullptr) {
    weight_base_ = static_cast<std::byte*>(weights);
    for (const Weight& weight : weights_) {
      if (weight.bytes > 0) {
        std::memcpy(weight_base_ + weight.offset, weight.data, weight.bytes);
      }
    }
    Rebind(Memory::kWeights, weight_base_);
  }
  return absl::OkStatus();
}

absl::Status CompiledModel::EnsureWorkMemory() {
  if (work_ != nullptr || plan_stats_.work_bytes() == 0)
    return absl::OkStatus();
  try {
    own_work_ = AlignedBuffer(plan_stats_.work_bytes(), /*zeroed=*/false);
  } catch (const std::bad_alloc&) {
    return WithKind(absl::ResourceExhaustedError(StrCat(
                        "out of memory allocating ", plan_stats_.work_bytes(),
                        " bytes of work memory for model '", graph_.name, "'")),
                    ErrorKind::kOutOfMemory);
  }
  work_ = own_work_.data();
  Rebind(Memory::kWork, work_);
  return absl::OkStatus();
}

absl::Status CompiledModel::AttachObserver(
    std::shared_ptr<ExecutionObserver> observer,
    std::vector<uint8_t> step_flags) {
  if (observer && step_flags.size() != step_infos_.size()) {
    return absl::InvalidArgumentError(
        StrCat("observer plan has ", step_flags.size(),
               " entries, the model has ", step_infos_.size(), " steps"));
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

std::vector<uint8_t> CompiledModel::observer_flags() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return step_flags_;
}

uint64_t CompiledModel::iteration() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return iteration_;
}

template <bool kObserved>
absl::Status CompiledModel::RunSteps(uint64_t iteration) {
  std::byte* workspace_base =
      work_ == nullptr ? nullptr : work_ + AlignToPlan(plan_stats_.arena_bytes);
  std::span<std::byte> workspace(workspace_base, plan_stats_.workspace_bytes);
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

absl::Status CompiledModel::CheckBuffers(
    std::span<const HostBuffer> inputs,
    std::span<const MutableHostBuffer> outputs) const {
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
  auto check = [&](size_t i, const void* data, size_t size, bool is_input) {
    const TensorInfo& info = is_input ? input_infos_[i] : output_infos_[i];
    // A dynamic output's size is checked once it is computed.
    const size_t need = !is_input && dynamic_outputs_[i] ? 0 : info.ByteSize();
    if (size >= need && (need == 0 || data != nullptr)) return absl::OkStatus();
    const std::string& name =
        is_input ? graph_.inputs[i].name : graph_.outputs[i].name;
    return WithKind(
        absl::InvalidArgumentError(
            StrCat(is_input ? "input " : "output ", i, " ('", name, "', ",
                   info.ToString(), ") needs ", need, " bytes, the buffer ",
                   data ? "has " : "is NULL with ", size)),
        is_input ? ErrorKind::kModelInputNotMatch
                 : ErrorKind::kModelOutputNotMatch);
  };
  for (size_t i = 0; i < inputs.size(); ++i) {
    RETURN_IF_ERROR(check(i, inputs[i].data, inputs[i].size, true));
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    RETURN_IF_ERROR(check(i, outputs[i].data, outputs[i].size, false));
  }
  return absl::OkStatus();
}

absl::Status CompiledModel::RunDynamic(
    uint64_t iteration, bool observed,
    std::span<const MutableHostBuffer> outputs) {
  ValueScope scope;
  for (const DynamicSource& source : dynamic_sources_) {
    scope.Set(source.name,
              ValueScope::Entry{source.view, nullptr, source.constant});
  }
  DynamicRunContext context;
  if (observed && observer_->ObservesDynamicSteps()) {
    context.observer = observer_.get();
    context.step_flags = step_flags_;
  }
  context.iteration = iteration;
  RETURN_IF_ERROR(dynamic_->Run(scope, context, dynamic_output_names_));
  for (size_t k = 0; k < output_infos_.size(); ++k) {
    if (!dynamic_outputs_[k]) continue;
    const std::string& name = graph_.outputs[k].name;
    const ValueScope::Entry* entry = scope.Find(name);
    if (entry == nullptr) {
      return absl::InternalError(
          StrCat("output '", name, "' was not computed"));
    }
    const TensorView& value = entry->view;
    const TensorInfo& declared = output_infos_[k];
    bool matches = value.dtype == declared.dtype &&
                   (declared.shape.rank() == 0 ||
                    declared.shape.rank() == value.shape.rank());
    for (size_t d = 0; matches && d < declared.shape.rank() &&
                       declared.shape.rank() == value.shape.rank();
         ++d) {
      matches = declared.shape[d] < 0 || declared.shape[d] == value.shape[d];
    }
    if (!matches) {
      return absl::InvalidArgumentError(
          StrCat("output '", name, "' is declared as ", declared.ToString(),
                 " but this execution computed ", value.info().ToString()));
    }
    const size_t bytes = value.ByteSize();
    if (outputs[k].size < bytes || (bytes > 0 && outputs[k].data == nullptr)) {
      return WithKind(
          absl::InvalidArgumentError(StrCat(
              "output ", k, " ('", name, "') is ", value.info().ToString(),
              " in this execution: it needs ", bytes, " bytes, the buffer ",
              outputs[k].data ? "has " : "is NULL with ", outputs[k].size,
              "; its size depends on the input, so give it room for the "
              "largest result")),
          ErrorKind::kModelOutputNotMatch);
    }
    if (bytes > 0) std::memcpy(outputs[k].data, value.data, bytes);
    current_output_infos_[k] = value.info();
  }
  return absl::OkStatus();
}

std::vector<TensorInfo> CompiledModel::CurrentOutputInfos() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return current_output_infos_;
}

const void* CompiledModel::Resolve(const Location& location,
                                   std::span<const HostBuffer> inputs) const {
  switch (location.memory) {
    case Memory::kInput:
      return inputs[location.index].data;
    case Memory::kWeights:
      return weight_base_ != nullptr ? weight_base_ + location.offset
                                     : weights_[location.index].data;
    case Memory::kWork:
      return work_ + location.offset;
    case Memory::kOutput:
      break;
  }
  return nullptr;
}

absl::Status CompiledModel::Execute(
    std::span<const HostBuffer> inputs,
    std::span<const MutableHostBuffer> outputs) {
  return Run(std::nullopt, inputs, outputs);
}

absl::StatusOr<std::vector<Tensor>> CompiledModel::ExecuteToTensors(
    std::span<const Tensor> inputs) {
  std::vector<HostBuffer> in;
  for (const Tensor& t : inputs) in.push_back({t.data(), t.ByteSize()});
  std::vector<Tensor> outputs;
  for (const NamedTensorInfo& o : graph().outputs) {
    outputs.emplace_back(o.info.dtype, o.info.shape);
  }
  std::vector<MutableHostBuffer> out;
  for (Tensor& t : outputs) out.push_back({t.data(), t.ByteSize()});
  RETURN_IF_ERROR(Execute(in, out));
  return outputs;
}

absl::Status CompiledModel::ExecuteAs(
    uint64_t iteration, std::span<const HostBuffer> inputs,
    std::span<const MutableHostBuffer> outputs) {
  return Run(iteration, inputs, outputs);
}

absl::Status CompiledModel::Run(std::optional<uint64_t> numbered,
                                std::span<const HostBuffer> inputs,
                                std::span<const MutableHostBuffer> outputs) {
  RETURN_IF_ERROR(CheckBuffers(inputs, outputs));
  std::lock_guard<std::mutex> lock(mutex_);
  RETURN_IF_ERROR(EnsureWorkMemory());
  for (const Binding& binding : io_bindings_) {
    if (binding.location.memory == Memory::kInput) {
      binding.view->data =
          const_cast<void*>(inputs[binding.location.index].data);
    } else if (binding.location.memory == Memory::kOutput) {
      binding.view->data = outputs[binding.location.index].data;
    }
  }
  const uint64_t iteration = numbered.value_or(iteration_);
  iteration_ = iteration + 1;
  ScopedIntraOpThreads threads(intra_op_threads_);
  const bool observed =
      observer_ != nullptr && observer_->BeginIteration(iteration);
  if (observer_ != nullptr) observer_->OnModelInputs(iteration, inputs);
  absl::Status status;
  // An allocation that fails in a kernel or an observer fails this execution
  // like any error: the observer still ends it (a dump session waits for
  // every execution it began).
  try {
    status = observed ? RunSteps<true>(iteration) : RunSteps<false>(iteration);
    if (status.ok() && dynamic_ != nullptr) {
      status = RunDynamic(iteration, observed, outputs);
    }
    if (status.ok()) {
      for (const FinalCopy& copy : final_copies_) {
        if (copy.bytes > 0) {
          std::memmove(outputs[copy.output_index].data,
                       Resolve(copy.source, inputs), copy.bytes);
        }
      }
    }
  } catch (const std::bad_alloc&) {
    status = WithKind(absl::ResourceExhaustedError(
                          StrCat("out of memory while executing model '",
                                 graph_.name, "' (iteration ", iteration, ")")),
                      ErrorKind::kOutOfMemory);
  }
  if (observer_ != nullptr) {
    observer_->OnModelOutputs(iteration, outputs, current_output_infos_,
                              status);
    absl::Status end = observer_->EndIteration(iteration);
    if (status.ok()) status = end;
  }
  return status;
}

}  // namespace acldump
