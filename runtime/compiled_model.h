// A validated graph compiled for execution: kernels prepared for the static
// shapes, a memory plan that reuses one arena across intermediate values, and
// the executor loop.
#ifndef ACLDUMP_RUNTIME_COMPILED_MODEL_H_
#define ACLDUMP_RUNTIME_COMPILED_MODEL_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

#include "absl/status/statusor.h"
#include "kernels/op_registry.h"
#include "runtime/graph.h"
#include "runtime/observer.h"

namespace acldump {

// A caller-owned buffer (graph input or output).
struct HostBuffer {
  const void* data = nullptr;
  size_t size = 0;
};
struct MutableHostBuffer {
  void* data = nullptr;
  size_t size = 0;
};

struct MemoryPlanStats {
  size_t arena_bytes = 0;      // one arena shared by all intermediate values
  size_t naive_bytes = 0;      // the sum of all intermediate values (no reuse)
  size_t workspace_bytes = 0;  // the largest kernel scratch buffer
  size_t num_arena_values = 0;
  size_t num_aliases =
      0;  // values of no-task nodes that share their input's memory
};

class CompiledModel {
 public:
  // Validates ops against the registry, infers every value's type and shape,
  // checks them against the declared outputs, evaluates Constant nodes, plans
  // memory. Errors name the node.
  // `max_arena_bytes` bounds the activation memory a model may plan.
  static absl::StatusOr<std::unique_ptr<CompiledModel>> Compile(
      Graph graph, const OpRegistry& registry,
      size_t max_arena_bytes = kDefaultMaxArenaBytes);
  static constexpr size_t kDefaultMaxArenaBytes = size_t{16} << 30;
  ~CompiledModel();

  const Graph& graph() const { return graph_; }
  // Executed nodes in order; task_id = index.
  const std::vector<StepInfo>& steps() const { return step_infos_; }
  // Graph node index of each step.
  int step_node(size_t step) const { return steps_[step].node_index; }
  const MemoryPlanStats& memory_plan() const { return plan_stats_; }

  // Attaches (or, with nullptr, detaches) an observer with one StepObservation
  // mask per step. Not to be called while an execution is running on another
  // thread.
  absl::Status AttachObserver(std::shared_ptr<ExecutionObserver> observer,
                              std::vector<uint8_t> step_flags);
  std::shared_ptr<ExecutionObserver> observer() const;

  // Runs one iteration. Sizes must match the graph's inputs/outputs (at least
  // the byte size). Executions of one model are serialised (one arena per
  // model); different models run concurrently. On a kernel failure the status
  // names the node, its type and the reason.
  absl::Status Execute(std::span<const HostBuffer> inputs,
                       std::span<const MutableHostBuffer> outputs);

  // Executions started so far (the next iteration's number).
  uint64_t iteration() const;

 private:
  struct Step {
    int node_index = -1;
    std::unique_ptr<Kernel> kernel;
    std::vector<TensorView> inputs;
    std::vector<TensorView> outputs;
    size_t workspace_bytes = 0;
  };
  // Where a step's view must point at a caller buffer for this execution.
  struct Patch {
    TensorView* view;
    int buffer_index;
    bool is_output;
  };
  // A graph output no step writes into the caller's buffer (it is a graph
  // input, an initializer or a constant): copied after the steps ran.
  struct FinalCopy {
    int input_index;     // >= 0: copy from this caller input
    const void* source;  // else from here
    size_t bytes;
    int output_index;
  };

  CompiledModel() = default;
  template <bool kObserved>
  absl::Status RunSteps(uint64_t iteration);

  Graph graph_;
  std::vector<Step> steps_;
  std::vector<StepInfo> step_infos_;
  std::vector<Patch> patches_;
  std::vector<FinalCopy> final_copies_;
  std::vector<TensorInfo> input_infos_;
  std::vector<TensorInfo> output_infos_;
  std::vector<std::shared_ptr<const Tensor>>
      constants_;  // Constant node outputs
  AlignedBuffer arena_;
  AlignedBuffer workspace_;
  MemoryPlanStats plan_stats_;

  mutable std::mutex mutex_;
  std::shared_ptr<ExecutionObserver> observer_;
  std::vector<uint8_t> step_flags_;
  uint64_t iteration_ = 0;
};

}  // namespace acldump

#endif  // ACLDUMP_RUNTIME_COMPILED_MODEL_H_
