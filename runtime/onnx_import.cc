#include "runtime/onnx_import.h"

#include <set>

#include "base/status_macros.h"
#include "base/strings.h"
#include "runtime/model_file.h"
#include "runtime/onnx_tensors.h"

namespace acldump {

absl::StatusOr<Graph> ImportOnnx(const onnx::ModelProto& model) {
  const int64_t opset = DefaultOpset(model);
  if (opset < kMinOnnxOpset || opset > kMaxOnnxOpset) {
    return absl::UnimplementedError(StrCat("ONNX opset ", opset,
                                           " is not supported (", kMinOnnxOpset,
                                           "..", kMaxOnnxOpset, ")"));
  }
  const onnx::GraphProto& proto = model.graph();
  Graph graph;
  graph.name = proto.name().empty() ? "model" : proto.name();
  graph.source_opset = opset;
  for (const onnx::TensorProto& init : proto.initializer()) {
    if (init.name().empty())
      return absl::InvalidArgumentError("an initializer has no name");
    ASSIGN_OR_RETURN(Tensor tensor, TensorFromOnnx(init));
    if (!graph.initializers
             .emplace(init.name(),
                      std::make_shared<const Tensor>(std::move(tensor)))
             .second) {
      return absl::InvalidArgumentError(
          StrCat("initializer '", init.name(), "' is duplicated"));
    }
  }
  for (const onnx::ValueInfoProto& input : proto.input()) {
    if (graph.initializers.count(input.name()))
      continue;  // an initializer with a default
    absl::StatusOr<TensorInfo> info = TensorInfoFromOnnx(input);
    if (!info.ok()) return Annotate(info.status(), "graph input");
    graph.inputs.push_back({input.name(), std::move(*info)});
  }
  for (const onnx::ValueInfoProto& output : proto.output()) {
    absl::StatusOr<TensorInfo> info = TensorInfoFromOnnx(output);
    if (!info.ok()) return Annotate(info.status(), "graph output");
    graph.outputs.push_back({output.name(), std::move(*info)});
  }
  std::set<std::string> names;
  for (const onnx::NodeProto& node : proto.node()) names.insert(node.name());
  std::set<std::string> used;
  for (int i = 0; i < proto.node_size(); ++i) {
    const onnx::NodeProto& node = proto.node(i);
    if (!node.domain().empty() && node.domain() != "ai.onnx") {
      return absl::UnimplementedError(StrCat("node '", node.name(),
                                             "' is in domain '", node.domain(),
                                             "'; only the default ONNX domain "
                                             "is supported"));
    }
    GraphNode imported;
    imported.op_type = node.op_type();
    // Unnamed nodes get "{op_type}_{index}"; names are made unique against
    // every other name.
    std::string name = node.name();
    const bool generated = name.empty();
    if (generated) name = StrCat(node.op_type(), "_", i);
    if (used.count(name) || (generated && names.count(name))) {
      const std::string base = name;
      int suffix = 1;
      do {
        name = StrCat(base, "_", suffix++);
      } while (used.count(name) || names.count(name));
    }
    used.insert(name);
    imported.name = name;
    imported.original_names = {name};
    imported.inputs.assign(node.input().begin(), node.input().end());
    imported.outputs.assign(node.output().begin(), node.output().end());
    // Trailing optional outputs left empty are dropped; inner empty ones are
    // not supported.
    while (!imported.outputs.empty() && imported.outputs.back().empty())
      imported.outputs.pop_back();
    for (const std::string& out : imported.outputs) {
      if (out.empty()) {
        return absl::UnimplementedError(
            StrCat("node '", name,
                   "' skips an optional output; name every output up to the "
                   "last one used"));
      }
    }
    absl::StatusOr<Attributes> attrs = AttributesFromOnnx(node, opset);
    if (!attrs.ok())
      return Annotate(attrs.status(), StrCat("node '", name, "'"));
    imported.attrs = std::move(*attrs);
    graph.nodes.push_back(std::move(imported));
  }
  RETURN_IF_ERROR(SortTopologically(graph));
  return graph;
}

absl::StatusOr<Graph> ImportOnnxBytes(std::string_view bytes) {
  if (bytes.size() > kMaxModelFileBytes) {
    return absl::InvalidArgumentError(StrCat("ONNX model is ", bytes.size(),
                                             " bytes, more than the limit of ",
                                             kMaxModelFileBytes));
  }
  onnx::ModelProto model;
  if (!model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return absl::InvalidArgumentError(
        "not a valid ONNX model: the protobuf does not parse");
  }
  return ImportOnnx(model);
}

}  // namespace acldump
