// Small graph edits the passes share: names, single readers, constants,
// merging two nodes into one. Internal to the passes.
#ifndef ACLDUMP_RUNTIME_GRAPH_EDIT_H_
#define ACLDUMP_RUNTIME_GRAPH_EDIT_H_

#include <optional>
#include <string>
#include <vector>

#include "runtime/graph.h"

namespace acldump::graph_edit {

// `base`, or `base_N` for the first N that names no value of the graph yet.
std::string UniqueInitializerName(const Graph& graph, const std::string& base);

// The node reading `value` when it is the only reader, reads it once (its
// subgraphs count as reading their implicit inputs) and `value` is not a
// graph output; -1 otherwise.
int SoleConsumer(const Graph& graph, const std::string& value);

// The value of `name` when it is known before execution: an initializer or
// the tensor of a Constant node (Paddle exports keep weights in Constant
// nodes), so fusions treat both alike. Null otherwise.
const Tensor* ConstantValue(const Graph& graph, const std::string& name);

// The value of a one-element float32 constant.
std::optional<float> ScalarFloat32(const Graph& graph, const std::string& name);

// A fused node takes the place of its first member and must come after what
// it reads: the Constant nodes making `values` (Paddle exports place them
// anywhere) move up to just before node `index`. Returns the node's new
// index.
int HoistConstantsBefore(Graph& graph, const std::vector<std::string>& values,
                         int index);

// Replaces `first` by a node standing for first + second, with second's
// outputs; removes second.
void Merge(Graph& graph, int first, int second, GraphNode merged);

}  // namespace acldump::graph_edit

#endif  // ACLDUMP_RUNTIME_GRAPH_EDIT_H_
