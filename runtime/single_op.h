// Single-operator execution: one op, given its type, attributes and caller
// buffers (the path `dump_op_switch` dumps).
#ifndef ACLDUMP_RUNTIME_SINGLE_OP_H_
#define ACLDUMP_RUNTIME_SINGLE_OP_H_

#include <span>
#include <string>

#include "absl/status/status.h"
#include "kernels/attributes.h"
#include "kernels/op_registry.h"
#include "kernels/tensor.h"
#include "runtime/observer.h"

namespace acldump {

struct SingleOpCall {
  std::string op_type;
  std::string op_name;  // for dumps and messages; defaults to the op type
  const Attributes* attrs = nullptr;
  std::span<const TensorView>
      inputs;  // absent optional inputs have dtype kUndefined
  std::span<const TensorView>
      outputs;  // must match the inferred output types and shapes
};

// Prepares (input values are known, so shape inputs work), checks the caller's
// output descriptions, runs. The observer (may be null) sees BeginIteration(0),
// BeforeNode, AfterNode, or OnNodeFailure. Errors are tagged kOpNotFound /
// kOpInputNotMatch / kOpOutputNotMatch / kOpAttrNotMatch.
absl::Status ExecuteSingleOp(const OpRegistry& registry,
                             const SingleOpCall& call,
                             ExecutionObserver* observer);
// The same with the built-in operators (what the C ABI runs).
absl::Status ExecuteSingleOp(const SingleOpCall& call,
                             ExecutionObserver* observer);

}  // namespace acldump

#endif  // ACLDUMP_RUNTIME_SINGLE_OP_H_
