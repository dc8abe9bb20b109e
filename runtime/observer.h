// The hook the executor offers around nodes. The runtime knows nothing of
// dumping: a dump (or any other) observer is attached to a compiled model
// together with one flag byte per step, and the executor calls it only where
// that byte asks.
#ifndef ACLDUMP_RUNTIME_OBSERVER_H_
#define ACLDUMP_RUNTIME_OBSERVER_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "kernels/attributes.h"
#include "kernels/tensor.h"

namespace acldump {

// The caller's memory of a model input or output.
struct HostBuffer {
  const void* data = nullptr;
  size_t size = 0;
};
struct MutableHostBuffer {
  void* data = nullptr;
  size_t size = 0;
};

// What an observer knows about an executed node (a "task").
struct StepInfo {
  uint32_t task_id = 0;  // position in execution order
  std::string name;      // converted name
  std::string op_type;
  std::vector<std::string> original_names;
  std::vector<std::string> input_names;  // "" for an absent optional input
  std::vector<std::string> output_names;
  std::vector<TensorInfo> input_infos;
  std::vector<TensorInfo> output_infos;
  const Attributes* attrs = nullptr;
  std::vector<std::pair<std::string, std::string>> launch_params;
  size_t workspace_bytes = 0;
  // Prepared while the model runs (its shapes depend on values, or it sits in
  // a control-flow subgraph): the infos above hold what is known before
  // execution (dtype kUndefined where even that is not); each NodeEvent
  // carries the step as it ran, with its real infos. A Loop/Scan body node
  // runs once per iteration under one task id; its event's name holds the
  // iteration ("loop/body/3/add").
  bool dynamic = false;
};

enum StepObservation : uint8_t {
  kObserveNothing = 0,
  kObserveBefore = 1,  // BeforeNode: inputs are ready, outputs not yet written
  kObserveAfter = 2,   // AfterNode: outputs written
};

struct NodeEvent {
  const StepInfo& step;
  uint64_t iteration;
  std::span<const TensorView> inputs;
  std::span<const TensorView> outputs;
  std::span<const std::byte> workspace;
};

// Called on the executing thread. Implementations must be cheap where they are
// not interested: the flags decide the calls, BeginIteration decides whether an
// iteration is observed at all.
class ExecutionObserver {
 public:
  virtual ~ExecutionObserver() = default;
  // Returning false runs this execution as if no observer were attached (no
  // Before/After calls; failures are still reported).
  virtual bool BeginIteration(uint64_t iteration) = 0;
  virtual void BeforeNode(const NodeEvent& event) {}
  virtual void AfterNode(const NodeEvent& event) {}
  // A kernel failed: inputs as they were, outputs possibly partial, the
  // workspace it used.
  virtual void OnNodeFailure(const NodeEvent& event,
                             const absl::Status& status) {}
  // Whether Before/AfterNode and OnNodeFailure are called for dynamic steps
  // too. An observer that plans its records from the steps' infos before
  // execution must not see them.
  virtual bool ObservesDynamicSteps() const { return false; }
  // The model's own inputs and outputs, for an observer that keeps whole
  // executions (a flight recorder). Called whenever an observer is attached,
  // whatever BeginIteration returned: the caller's input buffers before the
  // first step, then (before EndIteration) its output buffers with the types
  // and shapes this execution gave them, and how the execution went.
  virtual void OnModelInputs(uint64_t iteration,
                             std::span<const HostBuffer> inputs) {}
  virtual void OnModelOutputs(uint64_t iteration,
                              std::span<const MutableHostBuffer> outputs,
                              std::span<const TensorInfo> infos,
                              const absl::Status& status) {}
  // The execution ended (successfully or not). A non-OK status fails the
  // execution.
  virtual absl::Status EndIteration(uint64_t iteration) {
    return absl::OkStatus();
  }
};

}  // namespace acldump

#endif  // ACLDUMP_RUNTIME_OBSERVER_H_
