// The operator registry: per op type (ONNX names), a prepare function that
// validates attributes and input types/shapes, infers the output types/shapes,
// and returns a kernel ready to run.
#ifndef ACLDUMP_KERNELS_OP_REGISTRY_H_
#define ACLDUMP_KERNELS_OP_REGISTRY_H_

#include <cstddef>
#include <initializer_list>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "kernels/attributes.h"
#include "kernels/tensor.h"

namespace acldump {

// A kernel prepared for fixed input types and shapes. Run() writes into the
// output buffers it is given and never allocates them; it fails with a status
// (op, reason, offending values) instead of crashing on bad data such as an
// out-of-range index.
class Kernel {
 public:
  virtual ~Kernel() = default;
  // Scratch memory Run() needs, supplied by the caller.
  virtual size_t WorkspaceBytes() const { return 0; }
  virtual absl::Status Run(std::span<const TensorView> inputs,
                           std::span<const TensorView> outputs,
                           std::span<std::byte> workspace) const = 0;
  // The launch parameters the kernel derived at prepare time (GEMM sizes, loop
  // bounds, ...): what an exception dump records as tiling data.
  virtual std::vector<std::pair<std::string, std::string>> LaunchParams()
      const {
    return {};
  }
};

struct OpContext {
  std::string_view op_type;
  const Attributes& attrs;
  // One per input slot; an absent optional input has dtype kUndefined.
  std::span<const TensorInfo> inputs;
  // Same length as inputs: the value of an input when it is known before
  // execution (an initializer or a constant), else nullptr. Shape-defining
  // inputs (Reshape's shape, Slice's starts, ...) must be known.
  std::span<const TensorView* const> constant_inputs;
  size_t num_outputs = 1;

  const TensorView* constant(size_t index) const {
    return index < constant_inputs.size() ? constant_inputs[index] : nullptr;
  }
  bool has_input(size_t index) const {
    return index < inputs.size() && inputs[index].present();
  }
};

struct PreparedKernel {
  std::vector<TensorInfo> outputs;
  std::unique_ptr<Kernel> kernel;
};

using PrepareFn = absl::StatusOr<PreparedKernel> (*)(const OpContext&);

// What a prepare function returns when an input whose values decide the
// output's shape (Reshape's shape, NonZero's data) is not known. The runtime
// tells this failure from others: it prepares such a node while the model
// runs, once the values exist.
absl::Status NotKnownBeforeExecution(std::string_view input_name,
                                     std::string_view detail = "");
bool IsNotKnownBeforeExecution(const absl::Status& status);

struct OpDef {
  std::string type;
  int min_inputs = 1;
  int max_inputs = 1;
  int min_outputs = 1;
  int max_outputs = 1;
  PrepareFn prepare = nullptr;
  // Output 0 is input 0's bytes under another shape (Reshape, Flatten,
  // Identity, Squeeze, Unsqueeze): the runtime may alias instead of running a
  // task.
  bool output_aliases_input = false;
};

class OpRegistry {
 public:
  // Fails when the type is already registered.
  absl::Status Register(OpDef def);
  // Registers an op family's table; stops at the first failure.
  absl::Status RegisterAll(std::initializer_list<OpDef> defs);
  const OpDef* Find(std::string_view type) const;
  // Every registered type, sorted.
  std::vector<std::string> Types() const;
  // Replaces a registered type's definition (tests plant faulty kernels in a
  // copy of the built-in registry); NotFound when the type is not registered.
  absl::Status Replace(OpDef def);

  // Checks input/output counts against the def, then prepares. Errors name the
  // op type.
  absl::StatusOr<PreparedKernel> Prepare(const OpContext& context) const;

 private:
  std::map<std::string, OpDef, std::less<>> defs_;
};

}  // namespace acldump

#endif  // ACLDUMP_KERNELS_OP_REGISTRY_H_
