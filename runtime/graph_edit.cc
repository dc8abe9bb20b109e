#include "runtime/graph_edit.h"

#include <algorithm>

#include "base/strings.h"

namespace acldump::graph_edit {

std::string UniqueInitializerName(const Graph& graph, const std::string& base) {
  std::string name = base;
  for (int i = 1; graph.initializers.count(name) ||
                  graph.ProducerOf(name) >= 0 || graph.IsGraphInput(name);
       ++i) {
    name = StrCat(base, "_", i);
  }
  return name;
}

int SoleConsumer(const Graph& graph, const std::string& value) {
  if (graph.IsGraphOutput(value)) return -1;
  std::vector<int> consumers = graph.ConsumersOf(value);
  if (consumers.size() != 1) return -1;
  int uses = 0;
  for (const std::string& in : graph.nodes[consumers[0]].inputs)
    uses += in == value;
  for (const std::string& in : graph.nodes[consumers[0]].implicit_inputs)
    uses += in == value;
  return uses == 1 ? consumers[0] : -1;
}

const Tensor* ConstantValue(const Graph& graph, const std::string& name) {
  auto it = graph.initializers.find(name);
  if (it != graph.initializers.end()) return it->second.get();
  const int producer = graph.ProducerOf(name);
  if (producer < 0 || graph.nodes[producer].op_type != "Constant") {
    return nullptr;
  }
  absl::StatusOr<std::shared_ptr<const Tensor>> value =
      graph.nodes[producer].attrs.GetTensor("value");
  return value.ok() ? value->get() : nullptr;
}

std::optional<float> ScalarFloat32(const Graph& graph,
                                   const std::string& name) {
  const Tensor* t = ConstantValue(graph, name);
  if (t == nullptr || t->dtype() != DType::kFloat32 || t->NumElements() != 1) {
    return std::nullopt;
  }
  return t->as<float>()[0];
}

int HoistConstantsBefore(Graph& graph, const std::vector<std::string>& values,
                         int index) {
  for (const std::string& value : values) {
    const int producer = graph.ProducerOf(value);
    if (producer > index && graph.nodes[producer].op_type == "Constant") {
      std::rotate(graph.nodes.begin() + index, graph.nodes.begin() + producer,
                  graph.nodes.begin() + producer + 1);
      ++index;
    }
  }
  return index;
}

void Merge(Graph& graph, int first, int second, GraphNode merged) {
  merged.name = graph.nodes[first].name + graph.nodes[second].name;
  merged.original_names = graph.nodes[first].original_names;
  for (const std::string& name : graph.nodes[second].original_names) {
    merged.original_names.push_back(name);
  }
  merged.outputs = graph.nodes[second].outputs;
  graph.nodes[first] = std::move(merged);
  graph.nodes.erase(graph.nodes.begin() + second);
}

}  // namespace acldump::graph_edit
