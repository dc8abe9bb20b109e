// A validated graph compiled for execution: kernels prepared for the static
// shapes, a memory plan that reuses one arena across intermediate values, and
// the executor loop.
//
// Compiling allocates nothing for activations: the work memory (arena plus
// kernel workspace) is bound at the first execution, or to caller memory with
// BindMemory (the SDK's load-with-memory calls). So checking or converting a
// model never touches its arena.
#ifndef ACLDUMP_RUNTIME_COMPILED_MODEL_H_
#define ACLDUMP_RUNTIME_COMPILED_MODEL_H_

#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <vector>

#include "absl/status/statusor.h"
#include "kernels/op_registry.h"
#include "runtime/dynamic_executor.h"
#include "runtime/graph.h"
#include "runtime/memory_plan.h"
#include "runtime/observer.h"

namespace acldump {

// A caller-owned buffer (graph input or output).

struct MemoryPlanStats {
  size_t arena_bytes = 0;      // one arena shared by all intermediate values
  size_t naive_bytes = 0;      // the sum of all intermediate values (no reuse)
  size_t workspace_bytes = 0;  // the largest kernel scratch buffer
  size_t weight_bytes = 0;     // initializers and constants, laid out aligned
  size_t num_arena_values = 0;
  // Values of no-task nodes that share their input's memory.
  size_t num_aliases = 0;
  // Work memory a caller must provide to BindMemory: arena then workspace.
  size_t work_bytes() const {
    return AlignToPlan(arena_bytes) + AlignToPlan(workspace_bytes);
  }
};

struct CompileOptions {
  // Activations, workspace and weights together may not exceed this; checked
  // from the plan before anything is allocated (kOutOfMemory).
  size_t max_memory_bytes = DefaultModelMemoryLimit();
  // Threads one execution may use; 0 takes the process setting
  // (IntraOpThreads()) at compile time. Fixed for the model's life: kernels
  // plan their work for it when they are prepared.
  int intra_op_threads = 0;
};

class CompiledModel {
 public:
  // Validates ops against the registry, infers every value's type and shape,
  // checks them against the declared outputs, evaluates Constant nodes, plans
  // memory. Errors name the node.
  static absl::StatusOr<std::unique_ptr<CompiledModel>> Compile(
      Graph graph, const OpRegistry& registry, CompileOptions options = {});
  ~CompiledModel();

  const Graph& graph() const { return graph_; }
  // Executed nodes in order; task_id = index. The static steps come first,
  // then the dynamic part's (StepInfo::dynamic): nodes whose shapes are known
  // only while the model runs, and the nodes of control-flow subgraphs.
  const std::vector<StepInfo>& steps() const { return step_infos_; }
  // The views step `task` writes its outputs into, as bound for the execution
  // under way: for an observer, which may look at a step's output memory
  // after other steps ran (it holds that step's outputs only between the step
  // and its last reader; the memory is shared with other values otherwise).
  std::span<const TensorView> StepOutputs(size_t task) const {
    if (task >= steps_.size()) return {};  // a dynamic step
    return steps_[task].outputs;
  }
  const MemoryPlanStats& memory_plan() const { return plan_stats_; }
  int intra_op_threads() const { return intra_op_threads_; }

  // Runs the model in caller memory: `work` (at least memory_plan().
  // work_bytes()) holds activations and workspace, `weights` (at least
  // weight_bytes) receives a copy of the constant weights. Either may be null
  // to keep the model's own. The memory must stay valid while the model is
  // loaded. Fails (InvalidArgument) for too small a buffer.
  absl::Status BindMemory(void* work, size_t work_size, void* weights,
                          size_t weight_size);

  // Attaches (or, with nullptr, detaches) an observer with one StepObservation
  // mask per step. An execution running on another thread finishes with the
  // observer it began with; the next one gets the new observer.
  absl::Status AttachObserver(std::shared_ptr<ExecutionObserver> observer,
                              std::vector<uint8_t> step_flags);
  std::shared_ptr<ExecutionObserver> observer() const;
  // The step flags attached with observer() (empty without one).
  std::vector<uint8_t> observer_flags() const;

  // Runs one iteration. Sizes must match the graph's inputs/outputs (at least
  // the byte size). Executions of one model are serialised (one arena per
  // model); different models run concurrently. On a kernel failure the status
  // names the node, its type and the reason. The first execution allocates
  // the work memory unless BindMemory gave some (kOutOfMemory if it cannot).
  absl::Status Execute(std::span<const HostBuffer> inputs,
                       std::span<const MutableHostBuffer> outputs);
  // Execute on `inputs` into new tensors of the outputs' declared types and
  // shapes (for callers that hold tensors, not buffers).
  absl::StatusOr<std::vector<Tensor>> ExecuteToTensors(
      std::span<const Tensor> inputs);
  // The buffer checks Execute makes (kModelInputNotMatch /
  // kModelOutputNotMatch).
  absl::Status CheckBuffers(std::span<const HostBuffer> inputs,
                            std::span<const MutableHostBuffer> outputs) const;
  // Execute as iteration `iteration` (a dynamic model numbers the executions
  // of all its plans together); iteration() is `iteration` + 1 after it ran,
  // unchanged when the buffers were rejected.
  absl::Status ExecuteAs(uint64_t iteration, std::span<const HostBuffer> inputs,
                         std::span<const MutableHostBuffer> outputs);

  // Executions started so far (the next iteration's number).
  uint64_t iteration() const;

  // Whether output `index`'s shape depends on the input (it is computed by
  // the dynamic part): its declared info has -1 for the dimensions that vary.
  bool output_is_dynamic(size_t index) const {
    return index < dynamic_outputs_.size() && dynamic_outputs_[index];
  }
  // The outputs' types and shapes as the last successful execution computed
  // them (the declared ones before any).
  std::vector<TensorInfo> CurrentOutputInfos() const;

 private:
  friend class ModelCompiler;

  // Where a value's memory comes from.
  enum class Memory : uint8_t { kWork, kWeights, kInput, kOutput };
  struct Location {
    Memory memory = Memory::kWork;
    size_t offset = 0;  // kWork, kWeights: bytes from the base
    int index = -1;     // kInput, kOutput: the caller buffer
  };
  struct Step {
    std::unique_ptr<Kernel> kernel;
    std::vector<TensorView> inputs;
    std::vector<TensorView> outputs;
    size_t workspace_bytes = 0;
  };
  // A step view and where its data lives.
  struct Binding {
    TensorView* view;
    Location location;
  };
  // A graph output no step writes into the caller's buffer (it is a graph
  // input, an initializer or a constant): copied after the steps ran.
  struct FinalCopy {
    Location source;
    size_t bytes;
    int output_index;
  };
  // A weight (initializer or constant) and its place in the weight layout.
  struct Weight {
    const void* data;
    size_t bytes;
    size_t offset;
  };

  CompiledModel() = default;
  template <bool kObserved>
  absl::Status RunSteps(uint64_t iteration);
  absl::Status Run(std::optional<uint64_t> iteration,
                   std::span<const HostBuffer> inputs,
                   std::span<const MutableHostBuffer> outputs);
  // Points every binding of `memory` kind at its base; mutex_ held.
  void Rebind(Memory memory, std::byte* base);
  absl::Status EnsureWorkMemory();
  absl::Status RunDynamic(uint64_t iteration, bool observed,
                          std::span<const MutableHostBuffer> outputs);
  const void* Resolve(const Location& location,
                      std::span<const HostBuffer> inputs) const;

  Graph graph_;
  std::vector<Step> steps_;
  std::vector<StepInfo> step_infos_;
  std::vector<Binding> bindings_;
  std::vector<Binding> io_bindings_;  // those patched on every execution
  std::vector<FinalCopy> final_copies_;
  std::vector<Weight> weights_;
  std::vector<TensorInfo> input_infos_;
  std::vector<TensorInfo> output_infos_;
  // Constant node outputs, evaluated at compile time.
  std::vector<std::shared_ptr<const Tensor>> constants_;
  MemoryPlanStats plan_stats_;

  mutable std::mutex mutex_;
  AlignedBuffer own_work_;  // when no caller work memory is bound
  std::byte* work_ = nullptr;
  std::byte* weight_base_ = nullptr;  // caller weight memory, or null
  std::shared_ptr<ExecutionObserver> observer_;
  std::vector<uint8_t> step_flags_;
  uint64_t iteration_ = 0;
  int intra_op_threads_ = 1;

  // A static value the dynamic part reads, bound like a step's view.
  struct DynamicSource {
    std::string name;
    TensorView view;
    bool constant = false;
  };
  std::unique_ptr<DynamicExecutor> dynamic_;   // null: every shape is static
  std::deque<DynamicSource> dynamic_sources_;  // stable addresses: bound
  std::vector<bool> dynamic_outputs_;
  std::vector<std::string> dynamic_output_names_;
  std::vector<TensorInfo> current_output_infos_;
};

}  // namespace acldump

#endif  // ACLDUMP_RUNTIME_COMPILED_MODEL_H_
