// A model graph by value names: what the converter's passes rewrite, what the
// model file stores and what the loader validates and compiles.
#ifndef ACLDUMP_RUNTIME_GRAPH_H_
#define ACLDUMP_RUNTIME_GRAPH_H_

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "kernels/attributes.h"
#include "kernels/tensor.h"

namespace acldump {

// Largest single tensor (initializer, input, output or intermediate) a model
// may declare.
inline constexpr int64_t kMaxModelTensorBytes = int64_t{4} << 30;

struct Graph;

struct GraphNode {
  std::string name;
  std::string op_type;
  std::vector<std::string> inputs;  // "" = absent optional input
  std::vector<std::string> outputs;
  Attributes attrs;
  std::vector<std::string> original_names;
  bool no_task = false;
  // Control flow (If, Loop, Scan): the node's graph attributes by attribute
  // name ("then_branch", "else_branch", "body"), in attribute order.
  std::vector<std::pair<std::string, std::shared_ptr<const Graph>>> subgraphs;
  // Values of the enclosing graphs that the subgraphs read by name (outer
  // scope), in first-use order: the node depends on them as on its inputs.
  std::vector<std::string> implicit_inputs;
};

struct NamedTensorInfo {
  std::string name;
  TensorInfo info;
  // Set by the ONNX import for an output declared with symbolic dimensions
  // (-1 in info.shape) or with no shape: ResolveOutputShapes fills it in from
  // shape inference. Never set in a model file.
  bool infer_shape = false;
};

// How a model's gears differ: none (static shapes), by batch size, by image
// size (height, width), or by dims (one value per -1 across all inputs, in
// input order), as the SDK's converter builds them.
enum class GearKind { kNone, kBatch, kImageSize, kDims };

// One compiled-in shape of a dynamic model: its values ([batch], [height,
// width], or the dims gear's values) and the graph with every shape static for them.
struct Gear {
  std::vector<int64_t> values;
  std::shared_ptr<const Graph> graph;
};

struct Graph {
  std::string name;
  int64_t source_opset = 0;
  std::vector<NamedTensorInfo> inputs;
  std::vector<NamedTensorInfo> outputs;
  std::map<std::string, std::shared_ptr<const Tensor>> initializers;
  std::vector<GraphNode> nodes;
  // A dynamic model (gear_kind != kNone) holds no nodes or initializers of its
  // own: `inputs` mark the dynamic dimensions -1, `outputs` have the largest
  // gear's shapes, and each gear holds a complete static graph, in the order
  // the gears were given.
  GearKind gear_kind = GearKind::kNone;
  std::vector<Gear> gears;

  bool dynamic() const { return gear_kind != GearKind::kNone; }
  // Index of the node producing `value`, or -1.
  int ProducerOf(std::string_view value) const;
  // Indices of the nodes reading `value`.
  std::vector<int> ConsumersOf(std::string_view value) const;
  bool IsGraphOutput(std::string_view value) const;
  bool IsGraphInput(std::string_view value) const;
};

// Orders nodes so every input is produced before use. Fails on a cycle or on an
// input nobody produces, naming the node and the value.
absl::Status SortTopologically(Graph& graph);

}  // namespace acldump

#endif  // ACLDUMP_RUNTIME_GRAPH_H_
