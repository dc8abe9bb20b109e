#include "runtime/converter.h"

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "base/file_reader.h"
#include "base/status_macros.h"
#include "base/strings.h"
#include "kernels/ops.h"
#include "runtime/aipp_insert.h"
#include "runtime/compiled_model.h"
#include "runtime/model_file.h"
#include "runtime/onnx_import.h"
#include "runtime/onnx_sequences.h"
#include "runtime/onnx_tensors.h"

namespace acldump {
namespace {

absl::StatusOr<Graph> ConvertStatic(const onnx::ModelProto& proto,
                                    const PassOptions& options,
                                    const ImportOptions& import_options) {
  ASSIGN_OR_RETURN(Graph graph, ImportOnnx(proto, import_options));
  RETURN_IF_ERROR(OptimizeGraph(graph, BuiltinOps(), options));
  RETURN_IF_ERROR(CheckFitsModelFile(graph));
  // The converted model must load: round-trip it through the file format and
  // compile it.
  ASSIGN_OR_RETURN(Graph reparsed, ParseModel(SerializeModel(graph)));
  ASSIGN_OR_RETURN(auto compiled,
                   CompiledModel::Compile(std::move(reparsed), BuiltinOps()));
  return graph;
}

std::string RenderGear(const std::vector<int64_t>& values) {
  return StrCat("[", StrJoin(values, ","), "]");
}

// One static conversion per gear, with the inputs' -1s replaced by its values.
absl::StatusOr<Graph> ConvertGears(const onnx::ModelProto& proto,
                                   const PassOptions& options,
                                   const ImportOptions& import_options,
                                   const GearOptions& gears) {
  RETURN_IF_ERROR(Annotate(CheckGearValues(gears.kind, gears.values),
                           StrCat("dynamic ", GearKindName(gears.kind))));
  Graph model;
  model.gear_kind = gears.kind;
  ASSIGN_OR_RETURN(model.inputs,
                   DynamicInputs(proto, import_options.input_shapes));
  bool any_dynamic = false;
  for (const NamedTensorInfo& in : model.inputs) {
    ASSIGN_OR_RETURN(bool dynamic, CheckDynamicDims(gears.kind, in.name,
                                                    in.info.shape.dims()));
    any_dynamic = any_dynamic || dynamic;
  }
  if (!any_dynamic) {
    return absl::InvalidArgumentError(StrCat(
        "dynamic ", GearKindName(gears.kind),
        ": no input has a dynamic dimension; mark them -1 with --input-shape (",
        gears.kind == GearKind::kBatch       ? "\"x:-1,3,224,224\""
        : gears.kind == GearKind::kImageSize ? "\"x:1,3,-1,-1\""
                                             : "\"x:1,-1;mask:-1,-1\"",
        ")"));
  }
  if (gears.kind == GearKind::kDims) {
    RETURN_IF_ERROR(Annotate(CheckDimsGearArity(model.inputs, gears.values),
                             "--dynamic-dims"));
  }
  for (const std::vector<int64_t>& values : gears.values) {
    ImportOptions pinned;
    const std::vector<std::vector<int64_t>> dims =
        InputDimsForGear(gears.kind, model.inputs, values);
    for (size_t i = 0; i < model.inputs.size(); ++i) {
      pinned.input_shapes[model.inputs[i].name] = dims[i];
    }
    absl::StatusOr<Graph> graph = ConvertStatic(proto, options, pinned);
    if (!graph.ok()) {
      return Annotate(graph.status(), StrCat(GearKindName(gears.kind), " gear ",
                                             RenderGear(values)));
    }
    model.gears.push_back(
        Gear{values, std::make_shared<const Graph>(std::move(*graph))});
  }
  const size_t largest_gear = LargestGear(gears.values);
  const Graph& largest = *model.gears[largest_gear].graph;
  model.name = largest.name;
  model.source_opset = largest.source_opset;
  std::vector<std::vector<NamedTensorInfo>> outputs;
  for (const Gear& gear : model.gears) outputs.push_back(gear.graph->outputs);
  model.outputs = GearsEnvelope(gears.kind, outputs, largest_gear);
  // The model as a whole must read back.
  RETURN_IF_ERROR(ParseModel(SerializeModel(model)).status());
  return model;
}

}  // namespace

namespace {

struct MissingOp {
  int nodes = 0;
  std::string first_node;
};

// The op types of `graph` the registry lacks, by type, with the first node's
// path ("If_3/then_branch/Foo_1"; unnamed nodes as the import names them).
// Control flow is supported: its subgraphs are searched instead.
void CollectMissingOps(const onnx::GraphProto& graph, const std::string& path,
                       int depth, std::map<std::string, MissingOp>& missing,
                       std::vector<std::string>& order) {
  for (int i = 0; i < graph.node_size(); ++i) {
    const onnx::NodeProto& node = graph.node(i);
    const std::string name =
        node.name().empty() ? StrCat(node.op_type(), "_", i) : node.name();
    const std::string node_path = StrCat(path, name);
    const bool default_domain =
        node.domain().empty() || node.domain() == "ai.onnx";
    if (default_domain && IsControlFlowOp(node.op_type())) {
      // Deeper nesting is the import's error.
      if (depth >= kMaxSubgraphDepth) continue;
      for (const onnx::AttributeProto& attr : node.attribute()) {
        if (attr.type() != onnx::AttributeProto::GRAPH) continue;
        CollectMissingOps(attr.g(), SubgraphPath(path, name, attr.name()),
                          depth + 1, missing, order);
      }
      continue;
    }
    if (default_domain && BuiltinOps().Find(node.op_type()) != nullptr)
      continue;
    const std::string type = default_domain
                                 ? node.op_type()
                                 : StrCat(node.domain(), ".", node.op_type());
    MissingOp& entry = missing[type];
    if (entry.nodes++ == 0) {
      entry.first_node = node_path;
      order.push_back(type);
    }
  }
}

// Every operator of the model the registry lacks, in one error: a user learns
// the whole list at once, not one operator per attempt.
// Sequences are resolved first (the import does the same): what they become
// is what must be supported.
absl::Status CheckOperatorsSupported(const onnx::ModelProto& proto) {
  const absl::StatusOr<std::optional<ResolvedSequences>> resolved =
      ResolveStaticSequences(proto.graph(), DefaultOpset(proto));
  const onnx::GraphProto& graph = resolved.ok() && resolved->has_value()
                                      ? (*resolved)->graph
                                      : proto.graph();
  std::map<std::string, MissingOp> missing;
  std::vector<std::string> order;
  CollectMissingOps(graph, "", 0, missing, order);
  if (missing.empty()) return resolved.status();
  std::vector<std::string> listed;
  for (const std::string& type : order) {
    const MissingOp& entry = missing[type];
    listed.push_back(StrCat(type, " (", entry.nodes,
                            entry.nodes == 1 ? " node" : " nodes", ", first '",
                            entry.first_node, "')"));
  }
  const MissingOp& first = missing[order.front()];
  return absl::UnimplementedError(StrCat(
      "node '", first.first_node, "' (", order.front(), "): op type '",
      order.front(), "' is not supported; the model uses ", order.size(),
      " unsupported op type", order.size() == 1 ? "" : "s", ": ",
      StrJoin(listed, ", "),
      ". docs/operators.md lists the supported operators; re-export the "
      "model without them (another opset, or the exporter's options), or "
      "cut the graph before them",
      resolved.ok() ? ""
                    : StrCat(". The sequences were not resolved: ",
                             resolved.status().message())));
}

}  // namespace

namespace {

// Weights of the graph and of its subgraphs.
uint64_t InitializerBytes(const Graph& graph) {
  uint64_t bytes = 0;
  for (const auto& [name, tensor] : graph.initializers) {
    bytes += tensor->ByteSize();
  }
  for (const GraphNode& node : graph.nodes) {
    for (const auto& [attribute, subgraph] : node.subgraphs) {
      if (subgraph != nullptr) bytes += InitializerBytes(*subgraph);
    }
  }
  return bytes;
}

}  // namespace

absl::Status CheckFitsModelFile(const Graph& graph, uint64_t limit) {
  const uint64_t bytes = InitializerBytes(graph);
  if (bytes < limit) return absl::OkStatus();
  return absl::ResourceExhaustedError(
      StrCat("the model's weights take ", bytes, " bytes (", bytes >> 20,
             " MiB); a converted model file holds at most ", limit >> 20,
             " MiB of them"));
}

absl::StatusOr<Graph> ConvertOnnx(std::string_view onnx_bytes,
                                  const PassOptions& options,
                                  const ImportOptions& import_options,
                                  const GearOptions& gears) {
  ASSIGN_OR_RETURN(onnx::ModelProto proto, ParseOnnx(onnx_bytes));
  RETURN_IF_ERROR(CheckOperatorsSupported(proto));
  if (gears.kind == GearKind::kNone)
    return ConvertStatic(proto, options, import_options);
  return ConvertGears(proto, options, import_options, gears);
}

absl::StatusOr<Graph> ConvertOnnxFile(const std::string& path,
                                      const PassOptions& options,
                                      const ImportOptions& import_options,
                                      const GearOptions& gears) {
  ASSIGN_OR_RETURN(std::string bytes,
                   ReadRegularFile(path, kMaxOnnxFileBytes, "ONNX file"));
  ImportOptions with_folder = import_options;
  if (with_folder.external_data_dir.empty()) {
    const std::string folder =
        std::filesystem::path(path).parent_path().string();
    with_folder.external_data_dir = folder.empty() ? "." : folder;
  }
  absl::StatusOr<Graph> graph = ConvertOnnx(bytes, options, with_folder, gears);
  if (!graph.ok()) return Annotate(graph.status(), path);
  return graph;
}

absl::Status ApplyInsertOpConf(Graph& graph, const std::string& conf_path) {
  ASSIGN_OR_RETURN(std::string text, ReadRegularFile(conf_path, size_t{1} << 20,
                                                     "insert-op-conf file"));
  RETURN_IF_ERROR(InsertAippOps(graph, text, conf_path));
  ASSIGN_OR_RETURN(Graph reparsed, ParseModel(SerializeModel(graph)));
  ASSIGN_OR_RETURN(auto compiled,
                   CompiledModel::Compile(std::move(reparsed), BuiltinOps()));
  return absl::OkStatus();
}

}  // namespace acldump
