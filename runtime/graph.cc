#include "runtime/graph.h"

#include <algorithm>
#include <set>

#include "base/status_macros.h"
#include "base/strings.h"
#include "kernels/op_registry.h"

namespace acldump {

bool IsControlFlowOp(std::string_view op_type) {
  return op_type == "If" || op_type == "Loop" || op_type == "Scan";
}

int Graph::ProducerOf(std::string_view value) const {
  for (size_t i = 0; i < nodes.size(); ++i) {
    for (const std::string& out : nodes[i].outputs) {
      if (out == value) return static_cast<int>(i);
    }
  }
  return -1;
}

std::vector<int> Graph::ConsumersOf(std::string_view value) const {
  std::vector<int> consumers;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const GraphNode& node = nodes[i];
    if (std::find(node.inputs.begin(), node.inputs.end(), value) !=
            node.inputs.end() ||
        std::find(node.implicit_inputs.begin(), node.implicit_inputs.end(),
                  value) != node.implicit_inputs.end()) {
      consumers.push_back(static_cast<int>(i));
    }
  }
  return consumers;
}

bool Graph::IsGraphOutput(std::string_view value) const {
  for (const auto& out : outputs) {
    if (out.name == value) return true;
  }
  return false;
}

bool Graph::IsGraphInput(std::string_view value) const {
  for (const auto& in : inputs) {
    if (in.name == value) return true;
  }
  return false;
}

absl::Status SortTopologically(
    Graph& graph, const std::set<std::string, std::less<>>* outer_scope) {
  std::map<std::string, int, std::less<>> producer;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    for (const std::string& out : graph.nodes[i].outputs) {
      if (out.empty()) continue;
      producer.emplace(out, static_cast<int>(i));
    }
  }
  std::set<std::string, std::less<>> available;
  for (const auto& in : graph.inputs) available.insert(in.name);
  for (const auto& [name, tensor] : graph.initializers) available.insert(name);
  if (outer_scope != nullptr)
    available.insert(outer_scope->begin(), outer_scope->end());
  // Kahn's algorithm keeping the original order among ready nodes (stable,
  // deterministic).
  const size_t n = graph.nodes.size();
  std::vector<int> missing(n, 0);
  std::vector<std::vector<int>> dependents(n);
  for (size_t i = 0; i < n; ++i) {
    std::set<int> deps;
    const GraphNode& node = graph.nodes[i];
    for (const auto* reads : {&node.inputs, &node.implicit_inputs}) {
      for (const std::string& in : *reads) {
        if (in.empty() || available.count(in)) continue;
        auto it = producer.find(in);
        if (it == producer.end()) {
          return absl::InvalidArgumentError(StrCat(
              "node '", node.name, "' (", node.op_type, ") ",
              reads == &node.inputs ? "reads '" : "has subgraphs reading '", in,
              "', which no node, input or initializer provides"));
        }
        deps.insert(it->second);
      }
    }
    missing[i] = static_cast<int>(deps.size());
    for (int dep : deps) dependents[dep].push_back(static_cast<int>(i));
  }
  std::set<int> ready;
  for (size_t i = 0; i < n; ++i) {
    if (missing[i] == 0) ready.insert(static_cast<int>(i));
  }
  std::vector<int> order;
  while (!ready.empty()) {
    const int next = *ready.begin();
    ready.erase(ready.begin());
    order.push_back(next);
    for (int dependent : dependents[next]) {
      if (--missing[dependent] == 0) ready.insert(dependent);
    }
  }
  if (order.size() != n) {
    for (size_t i = 0; i < n; ++i) {
      if (missing[i] > 0) {
        return absl::InvalidArgumentError(
            StrCat("the graph has a cycle through node '", graph.nodes[i].name,
                   "' (", graph.nodes[i].op_type, ")"));
      }
    }
  }
  std::vector<GraphNode> sorted;
  sorted.reserve(n);
  for (int index : order) sorted.push_back(std::move(graph.nodes[index]));
  graph.nodes = std::move(sorted);
  return absl::OkStatus();
}

std::vector<std::string> OuterScopeReads(const Graph& graph) {
  std::set<std::string, std::less<>> local;
  for (const NamedTensorInfo& in : graph.inputs) local.insert(in.name);
  for (const auto& [name, tensor] : graph.initializers) local.insert(name);
  for (const GraphNode& node : graph.nodes)
    local.insert(node.outputs.begin(), node.outputs.end());
  std::vector<std::string> reads;
  std::set<std::string, std::less<>> seen;
  auto read = [&](const std::string& name) {
    if (name.empty() || local.count(name) || !seen.insert(name).second) return;
    reads.push_back(name);
  };
  for (const GraphNode& node : graph.nodes) {
    for (const std::string& in : node.inputs) read(in);
    for (const std::string& in : node.implicit_inputs) read(in);
  }
  // A branch may return an outer value as it is.
  for (const NamedTensorInfo& out : graph.outputs) read(out.name);
  return reads;
}

std::vector<std::string> ImplicitInputsOf(const GraphNode& node) {
  std::vector<std::string> reads;
  std::set<std::string, std::less<>> seen;
  for (const auto& [attribute, subgraph] : node.subgraphs) {
    if (subgraph == nullptr) continue;
    for (std::string& name : OuterScopeReads(*subgraph)) {
      if (seen.insert(name).second) reads.push_back(std::move(name));
    }
  }
  return reads;
}

namespace {

const Graph* FindSubgraph(const GraphNode& node, std::string_view attribute) {
  for (const auto& [name, subgraph] : node.subgraphs) {
    if (name == attribute) return subgraph.get();
  }
  return nullptr;
}

}  // namespace

absl::Status CheckControlFlowNode(const GraphNode& node) {
  std::vector<std::string_view> expected;
  if (node.op_type == "If") {
    expected = {"then_branch", "else_branch"};
  } else if (node.op_type == "Loop" || node.op_type == "Scan") {
    expected = {"body"};
  }
  std::set<std::string_view> seen;
  for (const auto& [attribute, subgraph] : node.subgraphs) {
    if (std::find(expected.begin(), expected.end(), attribute) ==
        expected.end()) {
      return absl::InvalidArgumentError(
          expected.empty()
              ? StrCat(node.op_type, " takes no subgraph, yet has '", attribute,
                       "'")
              : StrCat(node.op_type, " has no subgraph attribute '", attribute,
                       "' (it takes ", StrJoin(expected, " and "), ")"));
    }
    if (!seen.insert(attribute).second) {
      return absl::InvalidArgumentError(
          StrCat("subgraph '", attribute, "' is given twice"));
    }
    if (subgraph == nullptr) {
      return absl::InvalidArgumentError(
          StrCat("subgraph '", attribute, "' is empty"));
    }
  }
  if (seen.size() != expected.size()) {
    return absl::InvalidArgumentError(StrCat(
        node.op_type, " needs the subgraphs ", StrJoin(expected, " and ")));
  }
  if (expected.empty()) return absl::OkStatus();
  // A Loop or Scan may leave trailing outputs out, so its body may return
  // more values than the node has outputs.
  const size_t outputs = node.outputs.size();
  if (node.op_type == "If") {
    const Graph& then_branch = *FindSubgraph(node, "then_branch");
    const Graph& else_branch = *FindSubgraph(node, "else_branch");
    if (node.inputs.size() != 1 || node.inputs[0].empty()) {
      return absl::InvalidArgumentError("If needs its condition input");
    }
    if (then_branch.outputs.size() != outputs ||
        else_branch.outputs.size() != outputs) {
      return absl::InvalidArgumentError(StrCat(
          "If has ", outputs, " outputs, its branches return ",
          then_branch.outputs.size(), " and ", else_branch.outputs.size()));
    }
    return absl::OkStatus();
  }
  const Graph& body = *FindSubgraph(node, "body");
  if (node.op_type == "Loop") {
    // (M, cond, v...) -> body (i, cond, v...) -> (cond, v..., scans...).
    if (node.inputs.size() < 2 || body.inputs.size() != node.inputs.size() ||
        body.outputs.size() < node.inputs.size() - 1 ||
        body.outputs.size() - 1 < outputs) {
      return absl::InvalidArgumentError(StrCat(
          "Loop has ", node.inputs.size(), " inputs and ", outputs,
          " outputs, its body ", body.inputs.size(), " inputs and ",
          body.outputs.size(),
          " outputs (the body takes the iteration, the condition and each "
          "loop-carried value, and returns the condition, each loop-carried "
          "value and the scan outputs)"));
    }
    return absl::OkStatus();
  }
  // Scan: the body takes each state and scan input (opset 8: the node also
  // has sequence_lens first) and returns each state and scan output.
  if (body.inputs.size() > node.inputs.size() ||
      body.outputs.size() < outputs) {
    return absl::InvalidArgumentError(
        StrCat("Scan has ", node.inputs.size(), " inputs and ", outputs,
               " outputs, its body ", body.inputs.size(), " inputs and ",
               body.outputs.size(), " outputs"));
  }
  return absl::OkStatus();
}

std::string SubgraphPath(std::string_view parent, std::string_view node,
                         std::string_view attribute) {
  constexpr size_t kMaxPath = 1024;
  std::string path = StrCat(parent, node, "/", attribute, "/");
  if (path.size() > kMaxPath) {
    path = StrCat("...", std::string_view(path).substr(path.size() - kMaxPath));
  }
  return path;
}

namespace {

absl::Status CheckOpTypesIn(const Graph& graph, const std::string& path,
                            const OpRegistry& registry, int depth) {
  for (const GraphNode& node : graph.nodes) {
    if (!IsControlFlowOp(node.op_type)) {
      // The main graph's nodes are looked up when they are compiled, with
      // the same message; only subgraphs need it here (a load of a model
      // without them costs nothing more).
      if (depth > 0 && registry.Find(node.op_type) == nullptr) {
        return absl::InvalidArgumentError(
            StrCat("node '", path, node.name, "' (", node.op_type,
                   "): op type '", node.op_type, "' is not supported"));
      }
      continue;
    }
    if (depth >= kMaxSubgraphDepth) {
      return absl::InvalidArgumentError(StrCat("node '", path, node.name,
                                               "': subgraphs nest more than ",
                                               kMaxSubgraphDepth, " deep"));
    }
    for (const auto& [attribute, subgraph] : node.subgraphs) {
      if (subgraph == nullptr) continue;
      RETURN_IF_ERROR(CheckOpTypesIn(*subgraph,
                                     SubgraphPath(path, node.name, attribute),
                                     registry, depth + 1));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckOpTypesSupported(const Graph& graph,
                                   const OpRegistry& registry) {
  return CheckOpTypesIn(graph, "", registry, 0);
}

}  // namespace acldump
