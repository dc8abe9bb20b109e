#include "runtime/graph.h"

#include <set>

#include "base/strings.h"

namespace acldump {

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
    for (const std::string& in : nodes[i].inputs) {
      if (in == value) {
        consumers.push_back(static_cast<int>(i));
        break;
      }
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

absl::Status SortTopologically(Graph& graph) {
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
  // Kahn's algorithm keeping the original order among ready nodes (stable,
  // deterministic).
  const size_t n = graph.nodes.size();
  std::vector<int> missing(n, 0);
  std::vector<std::vector<int>> dependents(n);
  for (size_t i = 0; i < n; ++i) {
    std::set<int> deps;
    for (const std::string& in : graph.nodes[i].inputs) {
      if (in.empty() || available.count(in)) continue;
      auto it = producer.find(in);
      if (it == producer.end()) {
        return absl::InvalidArgumentError(
            StrCat("node '", graph.nodes[i].name, "' (", graph.nodes[i].op_type,
                   ") reads '", in,
                   "', which no node, input or initializer "
                   "provides"));
      }
      deps.insert(it->second);
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

}  // namespace acldump
