#include "runtime/dynamic_executor.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <new>
#include <set>

#include "base/error_kind.h"
#include "base/status_macros.h"
#include "base/strings.h"
#include "runtime/node_prepare.h"

namespace acldump {
namespace {

// Prepared kernels kept per node: a node seeing more input shapes than this
// (a Loop body whose shapes grow) keeps the newest.
constexpr size_t kMaxCachedShapes = 16;

std::string StepLabel(std::string_view name, const GraphNode& node,
                      uint32_t task) {
  return StrCat("node '", name, "' (", node.op_type, ", task ", task, ")");
}

// The budget of the execution under way on this thread (null outside one):
// values the dynamic part computes count against the model's memory limit.
thread_local DynamicExecutor::MemoryBudget* tls_budget = nullptr;

absl::StatusOr<Tensor> NewTensor(const TensorInfo& info,
                                 std::string_view name) {
  const size_t bytes = info.ByteSize();
  if (tls_budget != nullptr && bytes > tls_budget->limit - tls_budget->live) {
    return WithKind(
        absl::ResourceExhaustedError(StrCat(
            "'", name, "' (", info.ToString(),
            ") would take the values the "
            "model computes while it runs past ",
            tls_budget->limit, " bytes, what its memory limit leaves them (",
            tls_budget->live,
            " bytes are in use); raise the limit (ACLDUMP_MAX_MODEL_MEMORY_MB) "
            "or give the model smaller inputs")),
        ErrorKind::kOutOfMemory);
  }
  try {
    return Tensor(info.dtype, info.shape);
  } catch (const std::bad_alloc&) {
    return WithKind(
        absl::ResourceExhaustedError(StrCat(
            "out of memory allocating ", info.ToString(), " for '", name, "'")),
        ErrorKind::kOutOfMemory);
  }
}

// A subgraph node's error names its path ("loop/body/2/add").
absl::Status Located(const absl::Status& status, const GraphNode& node,
                     std::string_view name) {
  return name == node.name ? status
                           : Annotate(status, StrCat("in '", name, "'"));
}

absl::StatusOr<bool> ReadCondition(const TensorView& view,
                                   std::string_view what) {
  if (view.dtype != DType::kBool || view.NumElements() != 1) {
    return absl::InvalidArgumentError(
        StrCat(what, " must be a bool tensor of one element, got ",
               view.info().ToString()));
  }
  return *view.as<const bool>();
}

const Graph* SubgraphOf(const GraphNode& node, std::string_view attr) {
  for (const auto& [name, graph] : node.subgraphs) {
    if (name == attr) return graph.get();
  }
  return nullptr;
}

// Elements of `view` at `index` along `axis` (the axis removed).
absl::StatusOr<Tensor> SliceAlong(const TensorView& view, int64_t axis,
                                  int64_t index, std::string_view name) {
  std::vector<int64_t> dims = view.shape.dims();
  const int64_t count = dims[axis];
  dims.erase(dims.begin() + axis);
  ASSIGN_OR_RETURN(Tensor out,
                   NewTensor(TensorInfo{view.dtype, Shape(dims)}, name));
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= view.shape[d];
  for (size_t d = axis + 1; d < view.shape.rank(); ++d) inner *= view.shape[d];
  const size_t chunk = static_cast<size_t>(inner) * DTypeSize(view.dtype);
  const auto* src = static_cast<const std::byte*>(view.data);
  auto* dst = static_cast<std::byte*>(out.data());
  for (int64_t o = 0; o < outer; ++o) {
    if (chunk > 0) {
      std::memcpy(dst + o * chunk, src + (o * count + index) * chunk, chunk);
    }
  }
  return out;
}

// Stacks same-typed tensors along a new `axis` (in the given order).
absl::StatusOr<Tensor> StackAlong(std::span<const TensorView> parts,
                                  int64_t axis, std::string_view name) {
  const TensorView& first = parts[0];
  for (const TensorView& part : parts) {
    if (part.info() != first.info()) {
      return absl::InvalidArgumentError(
          StrCat("scan output '", name, "' changes from ",
                 first.info().ToString(), " to ", part.info().ToString(),
                 " between iterations; every iteration must give one type "
                 "and shape"));
    }
  }
  std::vector<int64_t> dims = first.shape.dims();
  dims.insert(dims.begin() + axis, static_cast<int64_t>(parts.size()));
  ASSIGN_OR_RETURN(Tensor out,
                   NewTensor(TensorInfo{first.dtype, Shape(dims)}, name));
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= first.shape[d];
  for (size_t d = axis; d < first.shape.rank(); ++d) inner *= first.shape[d];
  const size_t chunk = static_cast<size_t>(inner) * DTypeSize(first.dtype);
  auto* dst = static_cast<std::byte*>(out.data());
  const size_t n = parts.size();
  for (int64_t o = 0; o < outer; ++o) {
    for (size_t p = 0; p < n; ++p) {
      if (chunk == 0) continue;
      std::memcpy(dst + (o * n + p) * chunk,
                  static_cast<const std::byte*>(parts[p].data) + o * chunk,
                  chunk);
    }
  }
  return out;
}

// How a Scan's inputs and its body's outputs divide: `leading` inputs come
// before the states (opset 8's 'sequence_lens'), num_scan_inputs after them.
struct ScanLayout {
  int64_t scan_inputs;
  size_t states;
  size_t scan_outputs;
};

absl::StatusOr<ScanLayout> ReadScanLayout(const GraphNode& node,
                                          const Graph& body, size_t num_inputs,
                                          size_t leading) {
  const std::string after = leading > 0 ? " after 'sequence_lens'" : "";
  const size_t usable = num_inputs >= leading ? num_inputs - leading : 0;
  ASSIGN_OR_RETURN(const int64_t m, node.attrs.GetInt("num_scan_inputs", -1));
  if (m < 1 || m > static_cast<int64_t>(usable)) {
    return absl::InvalidArgumentError(
        StrCat("attribute 'num_scan_inputs' must be between 1 and the ", usable,
               " inputs", after, ", got ", m));
  }
  const size_t states = usable - static_cast<size_t>(m);
  if (body.inputs.size() != usable || body.outputs.size() < states ||
      node.outputs.size() > body.outputs.size()) {
    return absl::InvalidArgumentError(StrCat(
        "the body has ", body.inputs.size(), " inputs and ",
        body.outputs.size(), " outputs; the node has ", usable, " inputs",
        after, " (", states, " states) and ", node.outputs.size(), " outputs"));
  }
  return ScanLayout{m, states, body.outputs.size() - states};
}

// An ints attribute of `count` values, `count` zeros when absent.
absl::StatusOr<std::vector<int64_t>> IntsOfCount(const GraphNode& node,
                                                 const char* attr,
                                                 size_t count) {
  ASSIGN_OR_RETURN(std::vector<int64_t> values,
                   node.attrs.GetInts(attr, std::vector<int64_t>(count, 0)));
  if (values.size() != count) {
    return absl::InvalidArgumentError(StrCat("attribute '", attr, "' has ",
                                             values.size(),
                                             " values, expected ", count));
  }
  return values;
}

// A loop body's outputs, found in the scope it ran in.
absl::StatusOr<std::vector<const ValueScope::Entry*>> BodyOutputs(
    const Graph& body, const ValueScope& scope) {
  std::vector<const ValueScope::Entry*> outs;
  for (const NamedTensorInfo& out : body.outputs) {
    const ValueScope::Entry* entry = scope.Find(out.name);
    if (entry == nullptr) {
      return absl::InvalidArgumentError(
          StrCat("the body does not compute its output '", out.name, "'"));
    }
    outs.push_back(entry);
  }
  return outs;
}

// A scan output of no iterations: [0] and the declared dims (unknown ones 0).
absl::StatusOr<Tensor> EmptyStack(const NamedTensorInfo& declared,
                                  int64_t axis) {
  std::vector<int64_t> dims;
  for (int64_t d : declared.info.shape.dims())
    dims.push_back(std::max<int64_t>(d, 0));
  axis = std::min<int64_t>(axis, static_cast<int64_t>(dims.size()));
  dims.insert(dims.begin() + axis, 0);
  return NewTensor(TensorInfo{declared.info.dtype, Shape(dims)}, declared.name);
}

}  // namespace

std::shared_ptr<const Tensor> ShareTensor(Tensor tensor) {
  DynamicExecutor::MemoryBudget* budget = tls_budget;
  const size_t bytes = tensor.ByteSize();
  if (budget != nullptr) {
    budget->live += bytes;
    budget->peak = std::max(budget->peak, budget->live);
  }
  return std::shared_ptr<const Tensor>(new Tensor(std::move(tensor)),
                                       [budget, bytes](const Tensor* t) {
                                         if (budget != nullptr)
                                           budget->live -= bytes;
                                         delete t;
                                       });
}

void ValueScope::Set(const std::string& name, Entry entry) {
  entries_[name] = std::move(entry);
}

void ValueScope::Own(const std::string& name, Tensor tensor, bool constant) {
  std::shared_ptr<const Tensor> owner = ShareTensor(std::move(tensor));
  Set(name, Entry{owner->view(), owner, constant});
}

const ValueScope::Entry* ValueScope::Find(std::string_view name) const {
  for (const ValueScope* scope = this; scope != nullptr;
       scope = scope->parent_) {
    auto it = scope->entries_.find(std::string(name));
    if (it != scope->entries_.end()) return &it->second;
  }
  return nullptr;
}

absl::StatusOr<std::unique_ptr<DynamicExecutor>> DynamicExecutor::Create(
    const Graph& graph, std::vector<int> nodes, const OpRegistry& registry,
    uint32_t first_task_id,
    const std::function<TensorInfo(std::string_view)>& info_of,
    size_t memory_limit) {
  std::unique_ptr<DynamicExecutor> executor(new DynamicExecutor(registry));
  executor->budget_.limit = memory_limit;
  executor->first_task_id_ = first_task_id;
  executor->opset_ = graph.source_opset;
  RETURN_IF_ERROR(
      executor->AddBlock(graph, nodes, "", info_of, executor->top_));
  return executor;
}

absl::Status DynamicExecutor::AddBlock(
    const Graph& graph, std::span<const int> nodes, const std::string& prefix,
    const std::function<TensorInfo(std::string_view)>& info_of, Block& block) {
  // Types known before execution: what the block's graph declares.
  std::map<std::string, TensorInfo, std::less<>> known;
  for (const NamedTensorInfo& in : graph.inputs) {
    known[in.name] = TensorInfo{in.info.dtype, {}};
  }
  for (const auto& [name, tensor] : graph.initializers) {
    known[name] = tensor->info();
  }
  auto type_of = [&](const std::string& name) {
    if (name.empty()) return TensorInfo{};
    auto it = known.find(name);
    return it != known.end() ? it->second : info_of(name);
  };
  std::map<std::string, size_t, std::less<>> produced_at;
  std::map<std::string, size_t, std::less<>> last_read;
  for (size_t p = 0; p < nodes.size(); ++p) {
    const GraphNode& node = graph.nodes[nodes[p]];
    const size_t step = steps_.size();
    StepInfo info;
    info.task_id = first_task_id_ + static_cast<uint32_t>(step);
    info.name = prefix.empty() ? node.name : StrCat(prefix, "/", node.name);
    info.op_type = node.op_type;
    info.original_names = node.original_names.empty()
                              ? std::vector<std::string>{node.name}
                              : node.original_names;
    info.input_names = node.inputs;
    info.output_names = node.outputs;
    for (const std::string& in : node.inputs) {
      TensorInfo t = type_of(in);
      // A present input of unknown type still counts as present.
      if (!in.empty() && !t.present()) t.dtype = DType::kUndefined;
      info.input_infos.push_back(t);
    }
    info.output_infos.resize(node.outputs.size());
    for (size_t o = 0; o < node.outputs.size(); ++o) {
      for (const NamedTensorInfo& out : graph.outputs) {
        if (out.name == node.outputs[o]) {
          info.output_infos[o] = TensorInfo{out.info.dtype, {}};
        }
      }
    }
    info.attrs = &node.attrs;
    info.dynamic = true;
    steps_.push_back(std::move(info));
    states_.push_back(NodeState{&node, step, false, {}});
    block.states.push_back(states_.size() - 1);
    for (const std::string& in : node.inputs) {
      if (!in.empty()) last_read[in] = p;
    }
    for (const std::string& in : node.implicit_inputs) last_read[in] = p;
    for (const std::string& out : node.outputs) {
      if (!out.empty()) produced_at[out] = p;
    }
    if (IsControlFlowOp(node.op_type)) {
      if (node.subgraphs.empty()) {
        return absl::InvalidArgumentError(
            StrCat(NodeLabel(node),
                   ": a control-flow node without its "
                   "subgraph attributes"));
      }
      for (const auto& [attr, subgraph] : node.subgraphs) {
        if (subgraph == nullptr) {
          return absl::InvalidArgumentError(
              StrCat(NodeLabel(node), ": subgraph '", attr, "' is missing"));
        }
        std::vector<int> all(subgraph->nodes.size());
        for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int>(i);
        Block sub;
        RETURN_IF_ERROR(AddBlock(
            *subgraph, all, StrCat(steps_[step].name, "/", attr),
            [&](std::string_view name) { return type_of(std::string(name)); },
            sub));
        subgraph_blocks_[subgraph.get()] = std::move(sub);
      }
    }
  }
  // A value this block produces is freed after its last reader here, unless
  // the graph returns it.
  std::set<std::string, std::less<>> outputs;
  for (const NamedTensorInfo& out : graph.outputs) outputs.insert(out.name);
  block.release_after.resize(nodes.size());
  for (const auto& [name, at] : produced_at) {
    if (outputs.count(name) > 0) continue;
    auto read = last_read.find(name);
    block.release_after[read == last_read.end() ? at : read->second].push_back(
        name);
  }
  return absl::OkStatus();
}

absl::Status DynamicExecutor::Run(ValueScope& scope,
                                  const DynamicRunContext& context,
                                  const std::vector<std::string>& keep) {
  DynamicExecutor::MemoryBudget* saved = tls_budget;
  tls_budget = &budget_;
  absl::Status status = RunBlock(top_, scope, "", context, &keep);
  tls_budget = saved;
  return status;
}

absl::Status DynamicExecutor::RunBlock(const Block& block, ValueScope& scope,
                                       std::string_view prefix,
                                       const DynamicRunContext& context,
                                       const std::vector<std::string>* keep) {
  for (size_t p = 0; p < block.states.size(); ++p) {
    NodeState& state = states_[block.states[p]];
    const std::string name = prefix.empty()
                                 ? state.node->name
                                 : StrCat(prefix, "/", state.node->name);
    RETURN_IF_ERROR(RunNode(state, scope, name, context));
    for (const std::string& value : block.release_after[p]) {
      if (keep != nullptr &&
          std::find(keep->begin(), keep->end(), value) != keep->end()) {
        continue;
      }
      scope.Erase(value);
    }
  }
  return absl::OkStatus();
}

absl::Status DynamicExecutor::RunSubgraph(const Graph& graph, ValueScope& scope,
                                          std::string_view prefix,
                                          const DynamicRunContext& context) {
  auto block = subgraph_blocks_.find(&graph);
  if (block == subgraph_blocks_.end()) {
    return absl::InternalError(
        StrCat("subgraph '", prefix, "' was not prepared"));
  }
  for (const auto& [name, tensor] : graph.initializers) {
    scope.Set(name, ValueScope::Entry{tensor->view(), tensor, true});
  }
  return RunBlock(block->second, scope, prefix, context, nullptr);
}

absl::Status DynamicExecutor::CollectInputs(const GraphNode& node,
                                            const ValueScope& scope,
                                            std::string_view name,
                                            std::vector<TensorView>& views,
                                            std::vector<bool>& constant) const {
  views.clear();
  constant.clear();
  for (const std::string& in : node.inputs) {
    if (in.empty()) {
      views.emplace_back();
      constant.push_back(false);
      continue;
    }
    const ValueScope::Entry* entry = scope.Find(in);
    if (entry == nullptr) {
      return absl::InvalidArgumentError(
          StrCat("node '", name, "' (", node.op_type, "): input '", in,
                 "' is not available: no node before it computes it"));
    }
    views.push_back(entry->view);
    constant.push_back(entry->constant);
  }
  return absl::OkStatus();
}

StepInfo DynamicExecutor::EventStep(const NodeState& state,
                                    std::string_view name,
                                    std::span<const TensorView> inputs,
                                    std::span<const TensorView> outputs) const {
  StepInfo step = steps_[state.step];
  step.name = std::string(name);
  for (size_t i = 0; i < inputs.size() && i < step.input_infos.size(); ++i) {
    step.input_infos[i] = inputs[i].info();
  }
  step.output_infos.clear();
  for (const TensorView& out : outputs) step.output_infos.push_back(out.info());
  return step;
}

uint8_t DynamicExecutor::FlagsOf(const NodeState& state,
                                 const DynamicRunContext& context) const {
  if (context.observer == nullptr) return 0;
  const uint32_t task = steps_[state.step].task_id;
  return task < context.step_flags.size() ? context.step_flags[task] : 0;
}

void DynamicExecutor::Observe(uint8_t flag, const NodeState& state,
                              std::string_view name,
                              std::span<const TensorView> inputs,
                              std::span<const TensorView> outputs,
                              std::span<const std::byte> workspace,
                              const DynamicRunContext& context) const {
  if ((FlagsOf(state, context) & flag) == 0) return;
  // Before the node runs its outputs are not there yet: the event lists
  // their types as far as they are known.
  StepInfo step = EventStep(state, name, inputs, outputs);
  NodeEvent event{step, context.iteration, inputs, outputs, workspace};
  if (flag == kObserveBefore) {
    context.observer->BeforeNode(event);
  } else {
    context.observer->AfterNode(event);
  }
}

absl::Status DynamicExecutor::Failed(const NodeState& state,
                                     std::string_view name,
                                     std::span<const TensorView> inputs,
                                     std::span<const TensorView> outputs,
                                     const absl::Status& status,
                                     const DynamicRunContext& context) const {
  if (context.observer != nullptr) {
    StepInfo step = EventStep(state, name, inputs, outputs);
    context.observer->OnNodeFailure(
        NodeEvent{step, context.iteration, inputs, outputs, {}}, status);
  }
  return absl::Status(
      status.code(),
      StrCat(StepLabel(name, *state.node, steps_[state.step].task_id),
             " failed: ", status.message()));
}

absl::StatusOr<const DynamicExecutor::CacheEntry*> DynamicExecutor::Prepare(
    NodeState& state, std::string_view name, std::span<const TensorView> inputs,
    const std::vector<bool>& constant, CacheEntry& fresh) {
  const GraphNode& node = *state.node;
  std::vector<TensorInfo> infos;
  for (const TensorView& view : inputs) infos.push_back(view.info());
  if (!state.needs_values) {
    for (const CacheEntry& entry : state.cache) {
      if (entry.inputs == infos) return &entry;
    }
    std::vector<const TensorView*> constants;
    for (size_t i = 0; i < inputs.size(); ++i) {
      constants.push_back(constant[i] ? &inputs[i] : nullptr);
    }
    absl::StatusOr<PreparedKernel> prepared =
        PrepareNode(node, registry_, infos, constants);
    if (prepared.ok()) {
      if (state.cache.size() >= kMaxCachedShapes) {
        state.cache.erase(state.cache.begin());
      }
      state.cache.push_back(CacheEntry{std::move(infos),
                                       std::move(prepared->outputs),
                                       std::move(prepared->kernel)});
      return &state.cache.back();
    }
    if (!IsNotKnownBeforeExecution(prepared.status())) {
      return Located(prepared.status(), *state.node, name);
    }
    // Its shapes depend on input values: prepared with them, every run.
    state.needs_values = true;
  }
  std::vector<const TensorView*> values;
  for (const TensorView& view : inputs) {
    values.push_back(view.present() ? &view : nullptr);
  }
  absl::StatusOr<PreparedKernel> prepared =
      PrepareNode(node, registry_, infos, values);
  if (!prepared.ok()) {
    return Located(prepared.status(), *state.node, name);
  }
  fresh = CacheEntry{std::move(infos), std::move(prepared->outputs),
                     std::move(prepared->kernel)};
  return &fresh;
}

absl::Status DynamicExecutor::RunNode(NodeState& state, ValueScope& scope,
                                      const std::string& name,
                                      const DynamicRunContext& context) {
  const GraphNode& node = *state.node;
  if (node.op_type == "If") return RunIf(state, scope, name, context);
  if (node.op_type == "Loop") return RunLoop(state, scope, name, context);
  if (node.op_type == "Scan") {
    return opset_ > 0 && opset_ < 9 ? RunScan8(state, scope, name, context)
                                    : RunScan(state, scope, name, context);
  }
  std::vector<TensorView> inputs;
  std::vector<bool> constant;
  RETURN_IF_ERROR(CollectInputs(node, scope, name, inputs, constant));
  CacheEntry fresh;
  ASSIGN_OR_RETURN(const CacheEntry* prepared,
                   Prepare(state, name, inputs, constant, fresh));
  std::vector<Tensor> outputs;
  std::vector<TensorView> output_views;
  for (size_t o = 0; o < prepared->outputs.size(); ++o) {
    ASSIGN_OR_RETURN(Tensor t, NewTensor(prepared->outputs[o], name));
    outputs.push_back(std::move(t));
  }
  for (const Tensor& t : outputs) output_views.push_back(t.view());
  const size_t workspace_bytes = prepared->kernel->WorkspaceBytes();
  if (workspace_.size() < workspace_bytes) {
    try {
      workspace_ = AlignedBuffer(workspace_bytes, /*zeroed=*/false);
    } catch (const std::bad_alloc&) {
      return WithKind(absl::ResourceExhaustedError(
                          StrCat("out of memory allocating ", workspace_bytes,
                                 " bytes of workspace for node '", name, "'")),
                      ErrorKind::kOutOfMemory);
    }
  }
  std::span<std::byte> workspace(workspace_.data(), workspace_bytes);
  Observe(kObserveBefore, state, name, inputs, output_views, {}, context);
  absl::Status status = prepared->kernel->Run(inputs, output_views, workspace);
  if (!status.ok()) {
    return Failed(state, name, inputs, output_views, status, context);
  }
  Observe(kObserveAfter, state, name, inputs, output_views, workspace, context);
  const bool constant_output = node.op_type == "Constant";
  for (size_t o = 0; o < node.outputs.size() && o < outputs.size(); ++o) {
    if (node.outputs[o].empty()) continue;
    scope.Own(node.outputs[o], std::move(outputs[o]), constant_output);
  }
  return absl::OkStatus();
}

absl::Status DynamicExecutor::SetOutputs(const NodeState& state,
                                         std::string_view name,
                                         ValueScope& scope,
                                         std::span<const TensorView> inputs,
                                         std::vector<ValueScope::Entry> results,
                                         const DynamicRunContext& context) {
  const GraphNode& node = *state.node;
  std::vector<TensorView> views;
  for (const ValueScope::Entry& entry : results) views.push_back(entry.view);
  Observe(kObserveAfter, state, name, inputs, views, {}, context);
  for (size_t o = 0; o < node.outputs.size() && o < results.size(); ++o) {
    if (node.outputs[o].empty()) continue;
    ValueScope::Entry entry = std::move(results[o]);
    entry.constant = false;
    scope.Set(node.outputs[o], std::move(entry));
  }
  return absl::OkStatus();
}

absl::Status DynamicExecutor::RunIf(NodeState& state, ValueScope& scope,
                                    const std::string& name,
                                    const DynamicRunContext& context) {
  const GraphNode& node = *state.node;
  std::vector<TensorView> inputs;
  std::vector<bool> constant;
  RETURN_IF_ERROR(CollectInputs(node, scope, name, inputs, constant));
  if (inputs.size() != 1 || !inputs[0].present()) {
    return Failed(state, name, inputs, {},
                  absl::InvalidArgumentError("If takes one input, 'cond'"),
                  context);
  }
  Observe(kObserveBefore, state, name, inputs, {}, {}, context);
  absl::StatusOr<bool> cond = ReadCondition(inputs[0], "input 'cond'");
  if (!cond.ok()) {
    return Failed(state, name, inputs, {}, cond.status(), context);
  }
  const char* attr = *cond ? "then_branch" : "else_branch";
  const Graph* branch = SubgraphOf(node, attr);
  if (branch == nullptr) {
    return Failed(
        state, name, inputs, {},
        absl::InvalidArgumentError(StrCat("attribute '", attr, "' is missing")),
        context);
  }
  if (branch->outputs.size() != node.outputs.size()) {
    return Failed(state, name, inputs, {},
                  absl::InvalidArgumentError(
                      StrCat(attr, " has ", branch->outputs.size(),
                             " outputs, the node ", node.outputs.size())),
                  context);
  }
  ValueScope child(&scope);
  RETURN_IF_ERROR(
      RunSubgraph(*branch, child, StrCat(name, "/", attr), context));
  std::vector<ValueScope::Entry> results;
  for (const NamedTensorInfo& out : branch->outputs) {
    const ValueScope::Entry* entry = child.Find(out.name);
    if (entry == nullptr) {
      return Failed(state, name, inputs, {},
                    absl::InvalidArgumentError(StrCat(
                        attr, " does not compute its output '", out.name, "'")),
                    context);
    }
    results.push_back(*entry);
  }
  return SetOutputs(state, name, scope, inputs, std::move(results), context);
}

absl::Status DynamicExecutor::RunLoop(NodeState& state, ValueScope& scope,
                                      const std::string& name,
                                      const DynamicRunContext& context) {
  const GraphNode& node = *state.node;
  std::vector<TensorView> inputs;
  std::vector<bool> constant;
  RETURN_IF_ERROR(CollectInputs(node, scope, name, inputs, constant));
  auto fail = [&](absl::Status status) {
    return Failed(state, name, inputs, {}, status, context);
  };
  const Graph* body = SubgraphOf(node, "body");
  if (body == nullptr) {
    return fail(absl::InvalidArgumentError("attribute 'body' is missing"));
  }
  if (inputs.size() < 2) {
    return fail(absl::InvalidArgumentError(
        "Loop takes at least two inputs, 'M' and 'cond' (either may be "
        "empty)"));
  }
  const size_t carried = inputs.size() - 2;
  if (body->inputs.size() != carried + 2 ||
      body->outputs.size() < carried + 1 ||
      node.outputs.size() > body->outputs.size() - 1) {
    return fail(absl::InvalidArgumentError(StrCat(
        "the body has ", body->inputs.size(), " inputs and ",
        body->outputs.size(), " outputs; with ", carried,
        " loop-carried values it needs ", carried + 2, " inputs and at least ",
        carried + 1, " outputs, and the node at most ",
        body->outputs.size() - 1, " outputs")));
  }
  const size_t scans = body->outputs.size() - 1 - carried;
  Observe(kObserveBefore, state, name, inputs, {}, {}, context);
  int64_t trip_count = INT64_MAX;
  bool cond = true;
  if (inputs[0].present()) {
    const TensorView& m = inputs[0];
    if (m.NumElements() != 1 ||
        (m.dtype != DType::kInt64 && m.dtype != DType::kInt32)) {
      return fail(absl::InvalidArgumentError(
          StrCat("input 'M' (the trip count) must be one int64 value, got ",
                 m.info().ToString())));
    }
    trip_count = m.dtype == DType::kInt64 ? *m.as<const int64_t>()
                                          : *m.as<const int32_t>();
  }
  if (inputs[1].present()) {
    absl::StatusOr<bool> c = ReadCondition(inputs[1], "input 'cond'");
    if (!c.ok()) return fail(c.status());
    cond = *c;
  }
  if (!inputs[0].present() && !inputs[1].present()) {
    return fail(absl::UnimplementedError(
        "a Loop with neither a trip count 'M' nor a condition 'cond' runs "
        "forever; give it one of them"));
  }
  std::vector<ValueScope::Entry> values;
  for (size_t n = 0; n < carried; ++n) {
    const ValueScope::Entry* entry = scope.Find(node.inputs[2 + n]);
    if (entry == nullptr) {
      return fail(absl::InvalidArgumentError(
          StrCat("loop-carried input ", 2 + n, " is empty")));
    }
    values.push_back(*entry);
  }
  std::vector<std::vector<ValueScope::Entry>> scanned(scans);
  for (int64_t i = 0; i < trip_count && cond; ++i) {
    ValueScope child(&scope);
    Tensor iteration(DType::kInt64, Shape({}));
    *iteration.as<int64_t>() = i;
    child.Own(body->inputs[0].name, std::move(iteration));
    Tensor cond_in(DType::kBool, Shape({}));
    *cond_in.as<bool>() = cond;
    child.Own(body->inputs[1].name, std::move(cond_in));
    for (size_t n = 0; n < carried; ++n) {
      child.Set(body->inputs[2 + n].name, values[n]);
    }
    RETURN_IF_ERROR(
        RunSubgraph(*body, child, StrCat(name, "/body/", i), context));
    absl::StatusOr<std::vector<const ValueScope::Entry*>> found =
        BodyOutputs(*body, child);
    if (!found.ok()) return fail(found.status());
    const std::vector<const ValueScope::Entry*>& outs = *found;
    absl::StatusOr<bool> next =
        ReadCondition(outs[0]->view, "the body's condition output");
    if (!next.ok()) return fail(next.status());
    cond = *next;
    for (size_t n = 0; n < carried; ++n) values[n] = *outs[1 + n];
    for (size_t k = 0; k < scans; ++k) {
      scanned[k].push_back(*outs[1 + carried + k]);
    }
  }
  std::vector<ValueScope::Entry> results = std::move(values);
  for (size_t k = 0; k < scans; ++k) {
    const NamedTensorInfo& declared = body->outputs[1 + carried + k];
    absl::StatusOr<Tensor> stacked;
    if (scanned[k].empty()) {
      stacked = EmptyStack(declared, 0);
    } else {
      std::vector<TensorView> parts;
      for (const ValueScope::Entry& e : scanned[k]) parts.push_back(e.view);
      stacked = StackAlong(parts, 0, declared.name);
    }
    if (!stacked.ok()) return fail(stacked.status());
    auto owner = ShareTensor(std::move(*stacked));
    results.push_back(ValueScope::Entry{owner->view(), owner, false});
  }
  return SetOutputs(state, name, scope, inputs, std::move(results), context);
}

absl::Status DynamicExecutor::RunScan(NodeState& state, ValueScope& scope,
                                      const std::string& name,
                                      const DynamicRunContext& context) {
  const GraphNode& node = *state.node;
  std::vector<TensorView> inputs;
  std::vector<bool> constant;
  RETURN_IF_ERROR(CollectInputs(node, scope, name, inputs, constant));
  auto fail = [&](absl::Status status) {
    return Failed(state, name, inputs, {}, status, context);
  };
  const Graph* body = SubgraphOf(node, "body");
  if (body == nullptr) {
    return fail(absl::InvalidArgumentError("attribute 'body' is missing"));
  }
  absl::StatusOr<ScanLayout> layout =
      ReadScanLayout(node, *body, inputs.size(), 0);
  if (!layout.ok()) return fail(layout.status());
  const int64_t m = layout->scan_inputs;
  const size_t states = layout->states;
  const size_t k_outputs = layout->scan_outputs;
  absl::StatusOr<std::vector<int64_t>> in_axes =
      IntsOfCount(node, "scan_input_axes", static_cast<size_t>(m));
  absl::StatusOr<std::vector<int64_t>> in_dirs =
      IntsOfCount(node, "scan_input_directions", static_cast<size_t>(m));
  absl::StatusOr<std::vector<int64_t>> out_axes =
      IntsOfCount(node, "scan_output_axes", k_outputs);
  absl::StatusOr<std::vector<int64_t>> out_dirs =
      IntsOfCount(node, "scan_output_directions", k_outputs);
  for (const auto* attr : {&in_axes, &in_dirs, &out_axes, &out_dirs}) {
    if (!attr->ok()) return fail(attr->status());
  }
  ScanSpec spec{body, std::move(*in_axes), std::move(*in_dirs),
                std::move(*out_axes), std::move(*out_dirs)};
  std::vector<ValueScope::Entry> initial;
  for (size_t n = 0; n < states; ++n) {
    const ValueScope::Entry* entry = scope.Find(node.inputs[n]);
    if (entry == nullptr) {
      return fail(
          absl::InvalidArgumentError(StrCat("state input ", n, " is empty")));
    }
    initial.push_back(*entry);
  }
  std::span<const TensorView> scan_inputs(inputs.data() + states,
                                          static_cast<size_t>(m));
  Observe(kObserveBefore, state, name, inputs, {}, {}, context);
  absl::StatusOr<std::vector<ValueScope::Entry>> results =
      ScanLoop(spec, scope, std::move(initial), scan_inputs, name, context);
  if (!results.ok()) return fail(results.status());
  return SetOutputs(state, name, scope, inputs, std::move(*results), context);
}

absl::StatusOr<std::vector<ValueScope::Entry>> DynamicExecutor::ScanLoop(
    const ScanSpec& spec, ValueScope& scope,
    std::vector<ValueScope::Entry> values,
    std::span<const TensorView> scan_inputs, const std::string& name,
    const DynamicRunContext& context) {
  const Graph& body = *spec.body;
  const size_t states = values.size();
  const size_t m = scan_inputs.size();
  const size_t k_outputs = body.outputs.size() - states;
  std::vector<int64_t> in_axes = spec.in_axes;
  int64_t length = -1;
  for (size_t j = 0; j < m; ++j) {
    const TensorView& in = scan_inputs[j];
    if (!in.present()) {
      return absl::InvalidArgumentError(
          StrCat("scan input ", states + j, " is empty"));
    }
    ASSIGN_OR_RETURN(
        in_axes[j],
        NormalizeAxis(in_axes[j], static_cast<int64_t>(in.shape.rank()),
                      "scan_input_axes"));
    if (length >= 0 && in.shape[in_axes[j]] != length) {
      return absl::InvalidArgumentError(
          StrCat("scan inputs differ in length: ", length, " and ",
                 in.shape[in_axes[j]], " (input ", states + j, ")"));
    }
    length = in.shape[in_axes[j]];
  }
  std::vector<std::vector<ValueScope::Entry>> scanned(k_outputs);
  for (int64_t i = 0; i < length; ++i) {
    ValueScope child(&scope);
    for (size_t n = 0; n < states; ++n) {
      child.Set(body.inputs[n].name, values[n]);
    }
    for (size_t j = 0; j < m; ++j) {
      const int64_t at = spec.in_dirs[j] == 1 ? length - 1 - i : i;
      ASSIGN_OR_RETURN(Tensor slice, SliceAlong(scan_inputs[j], in_axes[j], at,
                                                body.inputs[states + j].name));
      child.Own(body.inputs[states + j].name, std::move(slice));
    }
    RETURN_IF_ERROR(
        RunSubgraph(body, child, StrCat(name, "/body/", i), context));
    ASSIGN_OR_RETURN(const std::vector<const ValueScope::Entry*> outs,
                     BodyOutputs(body, child));
    for (size_t n = 0; n < states; ++n) values[n] = *outs[n];
    for (size_t k = 0; k < k_outputs; ++k) {
      scanned[k].push_back(*outs[states + k]);
    }
  }
  std::vector<ValueScope::Entry> results = std::move(values);
  for (size_t k = 0; k < k_outputs; ++k) {
    const NamedTensorInfo& declared = body.outputs[states + k];
    if (spec.out_dirs[k] == 1) {
      std::reverse(scanned[k].begin(), scanned[k].end());
    }
    absl::StatusOr<Tensor> stacked;
    if (scanned[k].empty()) {
      stacked = EmptyStack(declared, 0);
    } else {
      std::vector<TensorView> parts;
      for (const ValueScope::Entry& e : scanned[k]) parts.push_back(e.view);
      ASSIGN_OR_RETURN(
          int64_t axis,
          NormalizeAxis(spec.out_axes[k],
                        static_cast<int64_t>(parts[0].shape.rank()) + 1,
                        "scan_output_axes"));
      stacked = StackAlong(parts, axis, declared.name);
    }
    RETURN_IF_ERROR(stacked.status());
    auto owner = ShareTensor(std::move(*stacked));
    results.push_back(ValueScope::Entry{owner->view(), owner, false});
  }
  return results;
}

// Scan of opset 8: a batch axis in front of every state and scan input, the
// scan axis after it, and an optional first input 'sequence_lens'. Each batch
// element is scanned on its own and the results stacked again.
absl::Status DynamicExecutor::RunScan8(NodeState& state, ValueScope& scope,
                                       const std::string& name,
                                       const DynamicRunContext& context) {
  const GraphNode& node = *state.node;
  std::vector<TensorView> inputs;
  std::vector<bool> constant;
  RETURN_IF_ERROR(CollectInputs(node, scope, name, inputs, constant));
  auto fail = [&](absl::Status status) {
    return Failed(state, name, inputs, {}, status, context);
  };
  const Graph* body = SubgraphOf(node, "body");
  if (body == nullptr) {
    return fail(absl::InvalidArgumentError("attribute 'body' is missing"));
  }
  absl::StatusOr<ScanLayout> layout =
      ReadScanLayout(node, *body, inputs.size(), 1);
  if (!layout.ok()) return fail(layout.status());
  const int64_t m = layout->scan_inputs;
  const size_t states = layout->states;
  const size_t k_outputs = layout->scan_outputs;
  absl::StatusOr<std::vector<int64_t>> dirs =
      IntsOfCount(node, "directions", static_cast<size_t>(m));
  if (!dirs.ok()) return fail(dirs.status());
  int64_t batch = -1;
  for (size_t i = 1; i < inputs.size(); ++i) {
    if (!inputs[i].present() || inputs[i].shape.rank() < 1 ||
        (i > states && inputs[i].shape.rank() < 2)) {
      return fail(absl::InvalidArgumentError(StrCat(
          "input ", i, " must have a batch axis",
          i > states ? " and a scan axis" : "", ", got ",
          inputs[i].present() ? inputs[i].info().ToString() : "nothing")));
    }
    if (batch >= 0 && inputs[i].shape[0] != batch) {
      return fail(absl::InvalidArgumentError(
          StrCat("inputs differ in batch size: ", batch, " and ",
                 inputs[i].shape[0], " (input ", i, ")")));
    }
    batch = inputs[i].shape[0];
  }
  if (inputs[0].present()) {
    const TensorView& lens = inputs[0];
    const int64_t full = inputs[1 + states].shape[1];
    bool all_full = lens.dtype == DType::kInt64 && lens.NumElements() == batch;
    for (int64_t b = 0; all_full && b < batch; ++b) {
      all_full = lens.as<const int64_t>()[b] == full;
    }
    if (!all_full) {
      return fail(absl::UnimplementedError(StrCat(
          "'sequence_lens' shorter than the scan axis (", full,
          ") is not supported; pass no 'sequence_lens' or re-export the model "
          "with opset 9 or later")));
    }
  }
  ScanSpec spec{body, std::vector<int64_t>(static_cast<size_t>(m), 0),
                std::move(*dirs), std::vector<int64_t>(k_outputs, 0),
                std::vector<int64_t>(k_outputs, 0)};
  Observe(kObserveBefore, state, name, inputs, {}, {}, context);
  std::vector<std::vector<Tensor>> per_batch(states + k_outputs);
  for (int64_t b = 0; b < batch; ++b) {
    std::vector<ValueScope::Entry> initial;
    std::vector<Tensor> scan_parts;
    for (size_t n = 0; n < states; ++n) {
      absl::StatusOr<Tensor> slice =
          SliceAlong(inputs[1 + n], 0, b, body->inputs[n].name);
      if (!slice.ok()) return fail(slice.status());
      auto owner = ShareTensor(std::move(*slice));
      initial.push_back(ValueScope::Entry{owner->view(), owner, false});
    }
    for (int64_t j = 0; j < m; ++j) {
      absl::StatusOr<Tensor> slice = SliceAlong(inputs[1 + states + j], 0, b,
                                                body->inputs[states + j].name);
      if (!slice.ok()) return fail(slice.status());
      scan_parts.push_back(std::move(*slice));
    }
    std::vector<TensorView> scan_views;
    for (const Tensor& t : scan_parts) scan_views.push_back(t.view());
    absl::StatusOr<std::vector<ValueScope::Entry>> results =
        ScanLoop(spec, scope, std::move(initial), scan_views,
                 StrCat(name, "/batch", b), context);
    if (!results.ok()) return fail(results.status());
    for (size_t r = 0; r < results->size(); ++r) {
      absl::StatusOr<Tensor> copy =
          NewTensor((*results)[r].view.info(), body->outputs[r].name);
      if (!copy.ok()) return fail(copy.status());
      if (copy->ByteSize() > 0) {
        std::memcpy(copy->data(), (*results)[r].view.data, copy->ByteSize());
      }
      per_batch[r].push_back(std::move(*copy));
    }
  }
  std::vector<ValueScope::Entry> outputs;
  for (size_t r = 0; r < per_batch.size(); ++r) {
    if (per_batch[r].empty()) {
      return fail(absl::InvalidArgumentError("a batch of size 0"));
    }
    std::vector<TensorView> parts;
    for (const Tensor& t : per_batch[r]) parts.push_back(t.view());
    absl::StatusOr<Tensor> stacked =
        StackAlong(parts, 0, body->outputs[r].name);
    if (!stacked.ok()) return fail(stacked.status());
    auto owner = ShareTensor(std::move(*stacked));
    outputs.push_back(ValueScope::Entry{owner->view(), owner, false});
  }
  return SetOutputs(state, name, scope, inputs, std::move(outputs), context);
}

}  // namespace acldump
