// Preparing one graph node's kernel: shared by the converter's passes (shape
// inference, constant folding) and by the compiler.
#ifndef ACLDUMP_RUNTIME_NODE_PREPARE_H_
#define ACLDUMP_RUNTIME_NODE_PREPARE_H_

#include <span>
#include <string>

#include "absl/status/statusor.h"
#include "kernels/op_registry.h"
#include "runtime/graph.h"

namespace acldump {

// "node 'conv1' (Conv)": how messages name a node.
std::string NodeLabel(const GraphNode& node);

// Prepares `node` given its inputs' types (`input_infos[i]`; a default
// TensorInfo for an absent optional input) and the input values known before
// execution (`constants[i]`, null when not known). Fails, naming the node, for
// an unsupported op type, a kernel that rejects its inputs or attributes, or
// an output larger than kMaxModelTensorBytes.
absl::StatusOr<PreparedKernel> PrepareNode(
    const GraphNode& node, const OpRegistry& registry,
    std::span<const TensorInfo> input_infos,
    std::span<const TensorView* const> constants);

}  // namespace acldump

#endif  // ACLDUMP_RUNTIME_NODE_PREPARE_H_
