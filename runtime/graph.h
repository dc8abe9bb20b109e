// A model graph by value names: what the converter's passes rewrite, what the
// model file stores and what the loader validates and compiles.
#ifndef ACLDUMP_RUNTIME_GRAPH_H_
#define ACLDUMP_RUNTIME_GRAPH_H_

#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "kernels/attributes.h"
#include "kernels/tensor.h"

namespace acldump {

// Largest single tensor (initializer, input, output or intermediate) a model
// may declare.
inline constexpr int64_t kMaxModelTensorBytes = int64_t{4} << 30;

// Deepest nesting of control-flow subgraphs (a Loop body is depth 1, an If in
// it has branches of depth 2): bounds recursion over untrusted files.
inline constexpr int kMaxSubgraphDepth = 32;

class OpRegistry;
struct Graph;

// If, Loop and Scan: nodes that run subgraphs. The executor runs them; they
// have no kernel in the registry.
bool IsControlFlowOp(std::string_view op_type);

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
  // Always ImplicitInputsOf(*this).
  std::vector<std::string> implicit_inputs;
};

struct NamedTensorInfo {
  std::string name;
  TensorInfo info;
  // The shape is not fully known: -1 in info.shape marks an unknown
  // dimension; an empty shape, an unknown rank. Main graph outputs: set by the
  // ONNX import for symbolic dimensions, then ResolveOutputShapes fills them
  // in (never set there in a model file). Subgraph inputs and outputs keep it:
  // their shapes are known only when the model runs.
  bool infer_shape = false;
};

// How a model's gears differ: none (static shapes), by batch size, by image
// size (height, width), or by dims (one value per -1 across all inputs, in
// input order), as the SDK's converter builds them.
enum class GearKind { kNone, kBatch, kImageSize, kDims };

// One compiled-in shape of a dynamic model: its values ([batch], [height,
// width], or the dims gear's values) and the graph with every shape static for
// them.
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
  // Indices of the nodes reading `value`, as an input or an implicit input.
  std::vector<int> ConsumersOf(std::string_view value) const;
  bool IsGraphOutput(std::string_view value) const;
  bool IsGraphInput(std::string_view value) const;
};

// Orders nodes so every input and implicit input is produced before use.
// Fails on a cycle or on an input nobody produces, naming the node and the
// value. A subgraph passes the values it reads from enclosing graphs as
// `outer_scope` (see OuterScopeReads): they count as available.
absl::Status SortTopologically(
    Graph& graph,
    const std::set<std::string, std::less<>>* outer_scope = nullptr);

// The values `graph` reads but does not define itself (as an input,
// initializer or node output): node inputs, nested nodes' implicit inputs and
// graph outputs, each once, in first-use order (nodes in order, then outputs).
std::vector<std::string> OuterScopeReads(const Graph& graph);
// What node.implicit_inputs must hold: the OuterScopeReads of its subgraphs in
// attribute order, each once.
std::vector<std::string> ImplicitInputsOf(const GraphNode& node);
// The shape of a control-flow node (and that other nodes have no subgraphs):
// If has then_branch and else_branch, Loop and Scan a body, and the
// subgraphs' inputs and outputs fit the node's. The message does not name the
// node: callers add where it is.
absl::Status CheckControlFlowNode(const GraphNode& node);
// "{parent}{node}/{attribute}/": the prefix messages give the nodes of a
// subgraph ("If_3/then_branch/"). Elided at the front past 1024 characters, so
// deep nesting keeps it cheap to build for every node.
std::string SubgraphPath(std::string_view parent, std::string_view node,
                         std::string_view attribute);
// Every op type inside the subgraphs of `graph` is registered or control
// flow; otherwise InvalidArgument naming the node by its path
// ("If_3/then_branch/Foo_1"). The main graph's own nodes are left to the
// compiler, which names them alike.
absl::Status CheckOpTypesSupported(const Graph& graph,
                                   const OpRegistry& registry);

}  // namespace acldump

#endif  // ACLDUMP_RUNTIME_GRAPH_H_
