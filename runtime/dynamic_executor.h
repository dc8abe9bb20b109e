// The part of a model whose shapes are known only while it runs: nodes after
// an output whose size depends on values (NonZero, NonMaxSuppression, ...),
// nodes whose shape-defining inputs are computed, and control flow (If, Loop,
// Scan) with its subgraphs. Each node is prepared from its inputs' real types
// and shapes (and values, where its kernel needs them); prepared kernels are
// kept per node and input shapes, so a shape seen before costs a lookup.
#ifndef ACLDUMP_RUNTIME_DYNAMIC_EXECUTOR_H_
#define ACLDUMP_RUNTIME_DYNAMIC_EXECUTOR_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "absl/status/statusor.h"
#include "kernels/op_registry.h"
#include "runtime/graph.h"
#include "runtime/observer.h"

namespace acldump {

// Values by name during a dynamic run; a subgraph's scope sees its parents'.
class ValueScope {
 public:
  struct Entry {
    TensorView view;
    // Null for memory that outlives the execution (graph inputs, weights,
    // the static part's values).
    std::shared_ptr<const Tensor> owner;
    bool constant = false;  // an initializer or a Constant's output
  };
  explicit ValueScope(const ValueScope* parent = nullptr) : parent_(parent) {}
  void Set(const std::string& name, Entry entry);
  // Owns `tensor` under `name`.
  void Own(const std::string& name, Tensor tensor, bool constant = false);
  const Entry* Find(std::string_view name) const;
  void Erase(const std::string& name) { entries_.erase(name); }

 private:
  const ValueScope* parent_;
  std::unordered_map<std::string, Entry> entries_;
};

struct DynamicRunContext {
  // Null, or an observer that ObservesDynamicSteps().
  ExecutionObserver* observer = nullptr;
  std::span<const uint8_t> step_flags;  // by task id
  uint64_t iteration = 0;
};

class DynamicExecutor {
 public:
  // `nodes`: indices into graph.nodes, in execution order; `graph` must
  // outlive the executor. Task ids count from `first_task_id` in the order
  // steps() lists them. `info_of` gives the type of a value the nodes read
  // from outside (a default TensorInfo when unknown). The values the nodes
  // compute may take `memory_limit` bytes at a time (kOutOfMemory past it).
  static absl::StatusOr<std::unique_ptr<DynamicExecutor>> Create(
      const Graph& graph, std::vector<int> nodes, const OpRegistry& registry,
      uint32_t first_task_id,
      const std::function<TensorInfo(std::string_view)>& info_of,
      size_t memory_limit = SIZE_MAX);

  // Bytes of computed values alive during an execution: a Loop that keeps
  // stacking scan outputs stops at the limit instead of exhausting memory.
  struct MemoryBudget {
    size_t limit = SIZE_MAX;
    size_t live = 0;
    size_t peak = 0;  // the most alive at once, over all executions
  };
  size_t peak_bytes() const { return budget_.peak; }

  // Every node this executor may run: the given nodes and, depth first after
  // each control-flow node, its subgraphs' nodes ("if/then_branch/add").
  const std::vector<StepInfo>& steps() const { return steps_; }

  // Runs the nodes in `scope`, which holds every value they read from
  // outside; their outputs are left in it (intermediate values are released
  // after their last reader, except those named in `keep`).
  absl::Status Run(ValueScope& scope, const DynamicRunContext& context,
                   const std::vector<std::string>& keep);

 private:
  struct CacheEntry {
    std::vector<TensorInfo> inputs;
    std::vector<TensorInfo> outputs;
    std::shared_ptr<const Kernel> kernel;
  };
  struct NodeState {
    const GraphNode* node = nullptr;
    size_t step = 0;  // index into steps_
    // Its kernel needs input values, not only types: prepared every run.
    bool needs_values = false;
    std::vector<CacheEntry> cache;
  };
  // A node list and, per position, the values its last reader there frees.
  struct Block {
    std::vector<size_t> states;
    std::vector<std::vector<std::string>> release_after;
  };
  explicit DynamicExecutor(const OpRegistry& registry) : registry_(registry) {}
  absl::Status AddBlock(
      const Graph& graph, std::span<const int> nodes, const std::string& prefix,
      const std::function<TensorInfo(std::string_view)>& info_of, Block& block);
  absl::Status RunBlock(const Block& block, ValueScope& scope,
                        std::string_view prefix,
                        const DynamicRunContext& context,
                        const std::vector<std::string>* keep);
  absl::Status RunSubgraph(const Graph& graph, ValueScope& scope,
                           std::string_view prefix,
                           const DynamicRunContext& context);
  absl::Status RunNode(NodeState& state, ValueScope& scope,
                       const std::string& name,
                       const DynamicRunContext& context);
  absl::Status RunIf(NodeState& state, ValueScope& scope,
                     const std::string& name, const DynamicRunContext& context);
  absl::Status RunLoop(NodeState& state, ValueScope& scope,
                       const std::string& name,
                       const DynamicRunContext& context);
  absl::Status RunScan(NodeState& state, ValueScope& scope,
                       const std::string& name,
                       const DynamicRunContext& context);
  absl::Status RunScan8(NodeState& state, ValueScope& scope,
                        const std::string& name,
                        const DynamicRunContext& context);
  struct ScanSpec {
    const Graph* body;
    std::vector<int64_t> in_axes, in_dirs, out_axes, out_dirs;
  };
  // Runs the body over the scan inputs from `states`; returns the final
  // states, then the stacked scan outputs.
  absl::StatusOr<std::vector<ValueScope::Entry>> ScanLoop(
      const ScanSpec& spec, ValueScope& scope,
      std::vector<ValueScope::Entry> states,
      std::span<const TensorView> scan_inputs, const std::string& name,
      const DynamicRunContext& context);
  // A prepared kernel for these inputs: from the node's cache, or prepared
  // now (into `fresh` when it depends on input values and is not kept).
  absl::StatusOr<const CacheEntry*> Prepare(NodeState& state,
                                            std::string_view name,
                                            std::span<const TensorView> inputs,
                                            const std::vector<bool>& constant,
                                            CacheEntry& fresh);
  absl::Status CollectInputs(const GraphNode& node, const ValueScope& scope,
                             std::string_view name,
                             std::vector<TensorView>& views,
                             std::vector<bool>& constant) const;
  // A control-flow node's results become its outputs (after the observer).
  absl::Status SetOutputs(const NodeState& state, std::string_view name,
                          ValueScope& scope, std::span<const TensorView> inputs,
                          std::vector<ValueScope::Entry> results,
                          const DynamicRunContext& context);
  StepInfo EventStep(const NodeState& state, std::string_view name,
                     std::span<const TensorView> inputs,
                     std::span<const TensorView> outputs) const;
  uint8_t FlagsOf(const NodeState& state,
                  const DynamicRunContext& context) const;
  void Observe(uint8_t flag, const NodeState& state, std::string_view name,
               std::span<const TensorView> inputs,
               std::span<const TensorView> outputs,
               std::span<const std::byte> workspace,
               const DynamicRunContext& context) const;
  // Reports a failed node to the observer; the status names the node.
  absl::Status Failed(const NodeState& state, std::string_view name,
                      std::span<const TensorView> inputs,
                      std::span<const TensorView> outputs,
                      const absl::Status& status,
                      const DynamicRunContext& context) const;

  const OpRegistry& registry_;
  uint32_t first_task_id_ = 0;
  int64_t opset_ = 0;  // the model's: Scan changed form in opset 9
  std::vector<StepInfo> steps_;
  std::vector<NodeState> states_;
  Block top_;
  std::unordered_map<const Graph*, Block> subgraph_blocks_;
  AlignedBuffer workspace_;
  MemoryBudget budget_;
};

// `tensor`, owned by a shared pointer and counted against the budget of the
// execution under way on this thread until the last owner drops it.
std::shared_ptr<const Tensor> ShareTensor(Tensor tensor);

}  // namespace acldump

#endif  // ACLDUMP_RUNTIME_DYNAMIC_EXECUTOR_H_
