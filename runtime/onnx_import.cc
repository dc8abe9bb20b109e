#include "runtime/onnx_import.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <climits>
#include <set>

#include "base/status_macros.h"
#include "base/strings.h"
#include "base/text.h"
#include "google/protobuf/io/coded_stream.h"
#include "runtime/model_file.h"
#include "runtime/onnx_sequences.h"
#include "runtime/onnx_tensors.h"

namespace acldump {

namespace {

// A graph input or output as the ONNX file declares it: -1 for a symbolic (or
// unknown) dimension, whose label is the dim_param or "?".
struct DeclaredValue {
  DType dtype = DType::kUndefined;
  bool has_shape = false;
  std::vector<int64_t> dims;
  std::vector<std::string> labels;

  bool IsStatic() const {
    return has_shape && std::find(dims.begin(), dims.end(), -1) == dims.end();
  }
  std::string Render() const {
    return has_shape ? StrCat("[", StrJoin(labels, ","), "]") : "(no shape)";
  }
};

absl::StatusOr<DeclaredValue> ReadDeclared(const onnx::ValueInfoProto& value) {
  DeclaredValue declared;
  ASSIGN_OR_RETURN(const onnx::TypeProto_Tensor* type,
                   OnnxTensorType(value, &declared.dtype));
  const onnx::TypeProto_Tensor& tensor_type = *type;
  declared.has_shape = tensor_type.has_shape();
  for (const auto& dim : tensor_type.shape().dim()) {
    if (dim.has_dim_value()) {
      if (dim.dim_value() < 0) {
        return absl::InvalidArgumentError(
            StrCat("'", value.name(), "' declares dimension ",
                   declared.dims.size(), " as ", dim.dim_value()));
      }
      declared.dims.push_back(dim.dim_value());
      declared.labels.push_back(StrCat(dim.dim_value()));
    } else {
      declared.dims.push_back(-1);
      declared.labels.push_back(dim.dim_param().empty() ? "?"
                                                        : dim.dim_param());
    }
  }
  return declared;
}

// Element count of `dims` for `dtype` within the model tensor size limit.
absl::Status CheckPinnedSize(const std::string& name, DType dtype,
                             const std::vector<int64_t>& dims) {
  const int64_t element = static_cast<int64_t>(DTypeSize(dtype));
  absl::StatusOr<int64_t> count =
      CheckedNumElements(dims, kMaxModelTensorBytes / element);
  if (!count.ok()) {
    return absl::InvalidArgumentError(
        StrCat("--input-shape gives input '", name, "' the shape [",
               StrJoin(dims, ","), "], more than ", kMaxModelTensorBytes,
               " bytes of ", DTypeName(dtype)));
  }
  return absl::OkStatus();
}

// The static shape of graph input `name`: as declared, or as pinned.
absl::StatusOr<TensorInfo> InputInfo(const std::string& name,
                                     const DeclaredValue& declared,
                                     const ImportOptions& options) {
  auto pinned = options.input_shapes.find(name);
  if (pinned == options.input_shapes.end()) {
    if (declared.IsStatic()) {
      RETURN_IF_ERROR(Annotate(CheckedNumElements(declared.dims).status(),
                               StrCat("graph input '", name, "'")));
      return TensorInfo{declared.dtype, Shape(declared.dims)};
    }
    std::vector<std::string> pattern;
    for (int64_t dim : declared.dims)
      pattern.push_back(dim < 0 ? "?" : StrCat(dim));
    return absl::InvalidArgumentError(StrCat(
        "graph input '", name, "' has ",
        declared.has_shape ? StrCat("symbolic dimensions ", declared.Render())
                           : std::string("no declared shape"),
        "; give it a static shape with --input-shape \"", name, ":",
        declared.has_shape ? StrJoin(pattern, ",") : std::string("d0,d1,..."),
        "\"", declared.has_shape ? ", each ? replaced by a size" : "",
        " (several inputs: \"a:1,3,224,224;b:1,16\")"));
  }
  const std::vector<int64_t>& dims = pinned->second;
  if (declared.has_shape && dims.size() != declared.dims.size()) {
    return absl::InvalidArgumentError(
        StrCat("--input-shape gives input '", name, "' ", dims.size(),
               " dimensions [", StrJoin(dims, ","), "], the model declares ",
               declared.dims.size(), ": ", declared.Render()));
  }
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] == -1) {
      return absl::InvalidArgumentError(
          StrCat("--input-shape gives input '", name, "' dimension ", i,
                 " = -1 (dynamic), which needs --dynamic-batch-size, "
                 "--dynamic-image-size or --dynamic-dims to give its sizes"));
    }
    if (dims[i] <= 0) {
      return absl::InvalidArgumentError(
          StrCat("--input-shape gives input '", name, "' dimension ", i, " = ",
                 dims[i], "; dimensions must be positive"));
    }
    if (declared.has_shape && declared.dims[i] >= 0 &&
        declared.dims[i] != dims[i]) {
      return absl::InvalidArgumentError(
          StrCat("--input-shape gives input '", name, "' dimension ", i, " = ",
                 dims[i], ", but the model declares it static as ",
                 declared.dims[i], " ", declared.Render()));
    }
  }
  RETURN_IF_ERROR(CheckPinnedSize(name, declared.dtype, dims));
  return TensorInfo{declared.dtype, Shape(dims)};
}

}  // namespace

absl::StatusOr<InputShapes> ParseInputShapes(std::string_view text) {
  InputShapes shapes;
  std::vector<std::string_view> entries = SplitOn(text, ';');
  // One trailing ';' is tolerated ("x:1,3;").
  if (entries.size() > 1 && TrimWhitespace(entries.back()).empty())
    entries.pop_back();
  for (std::string_view raw : entries) {
    const std::string_view entry = TrimWhitespace(raw);
    const size_t colon = entry.rfind(':');
    if (entry.empty() || colon == std::string_view::npos) {
      return absl::InvalidArgumentError(
          StrCat("input shape '", entry,
                 "' is not name:dims (e.g. \"x:1,3,224,224\")"));
    }
    const std::string name(TrimWhitespace(entry.substr(0, colon)));
    if (name.empty()) {
      return absl::InvalidArgumentError(
          StrCat("input shape '", entry, "' has no input name"));
    }
    std::vector<int64_t> dims;
    for (std::string_view part : SplitOn(entry.substr(colon + 1), ',')) {
      const std::string_view digits = TrimWhitespace(part);
      int64_t dim = 0;
      const auto [end, error] =
          std::from_chars(digits.data(), digits.data() + digits.size(), dim);
      if (digits.empty() || error == std::errc::result_out_of_range ||
          error != std::errc() || end != digits.data() + digits.size()) {
        return absl::InvalidArgumentError(StrCat(
            "input shape '", entry, "': dimension '", digits, "' of '", name,
            "' is not ",
            error == std::errc::result_out_of_range ? "a representable integer"
                                                    : "an integer"));
      }
      // -1 marks a dynamic dimension (with convert's gear options).
      if (dim <= 0 && dim != -1) {
        return absl::InvalidArgumentError(StrCat(
            "input shape '", entry, "': dimension ", dims.size(), " of '", name,
            "' is ", dim, "; dimensions must be positive (or -1: dynamic)"));
      }
      dims.push_back(dim);
    }
    std::vector<int64_t> sized = dims;
    std::replace(sized.begin(), sized.end(), int64_t{-1}, int64_t{1});
    absl::StatusOr<int64_t> count = CheckedNumElements(sized);
    if (!count.ok()) {
      return absl::InvalidArgumentError(
          StrCat("input shape '", entry, "': ", count.status().message()));
    }
    if (!shapes.emplace(name, std::move(dims)).second) {
      return absl::InvalidArgumentError(
          StrCat("input shape: input '", name, "' is given twice"));
    }
  }
  return shapes;
}

namespace {

absl::Status ImportInitializers(const onnx::GraphProto& proto,
                                const std::string& external_data_dir,
                                Graph& graph) {
  for (const onnx::TensorProto& init : proto.initializer()) {
    if (init.name().empty())
      return absl::InvalidArgumentError("an initializer has no name");
    ASSIGN_OR_RETURN(Tensor tensor, TensorFromOnnx(init, external_data_dir));
    if (!graph.initializers
             .emplace(init.name(),
                      std::make_shared<const Tensor>(std::move(tensor)))
             .second) {
      return absl::InvalidArgumentError(
          StrCat("initializer '", init.name(), "' is duplicated"));
    }
  }
  return absl::OkStatus();
}

// Graph inputs (initializers listed as inputs are defaults, not inputs), with
// --input-shape applied; a shape for a name that is not an input is an error.
absl::Status ImportInputs(const onnx::GraphProto& proto,
                          const ImportOptions& options, Graph& graph) {
  for (const onnx::ValueInfoProto& input : proto.input()) {
    if (graph.initializers.count(input.name())) continue;
    absl::StatusOr<DeclaredValue> declared = ReadDeclared(input);
    if (!declared.ok()) return Annotate(declared.status(), "graph input");
    ASSIGN_OR_RETURN(TensorInfo info,
                     InputInfo(input.name(), *declared, options));
    graph.inputs.push_back({input.name(), std::move(info)});
  }
  for (const auto& [name, dims] : options.input_shapes) {
    if (!graph.IsGraphInput(name)) {
      std::vector<std::string> names;
      for (const auto& in : graph.inputs)
        names.push_back(StrCat("'", in.name, "'"));
      return absl::InvalidArgumentError(
          StrCat("--input-shape names '", name,
                 "', which is not an input of the model (inputs: ",
                 StrJoin(names, ", "), ")"));
    }
  }
  return absl::OkStatus();
}

absl::Status ImportOutputs(const onnx::GraphProto& proto, Graph& graph) {
  for (const onnx::ValueInfoProto& output : proto.output()) {
    absl::StatusOr<DeclaredValue> declared = ReadDeclared(output);
    if (!declared.ok()) return Annotate(declared.status(), "graph output");
    NamedTensorInfo info{output.name(),
                         TensorInfo{declared->dtype, Shape(declared->dims)}};
    // Symbolic dimensions come from shape inference (ResolveOutputShapes).
    info.infer_shape = !declared->IsStatic();
    if (!info.infer_shape) {
      RETURN_IF_ERROR(Annotate(CheckedNumElements(declared->dims).status(),
                               StrCat("graph output '", output.name(), "'")));
    }
    graph.outputs.push_back(std::move(info));
  }
  return absl::OkStatus();
}

// Node i's name: its own, or "{op_type}_{index}" when unnamed; made unique
// against every name in the graph (`all_names`) and those given so far.
std::string UniqueNodeName(const onnx::NodeProto& node, int index,
                           const std::set<std::string>& all_names,
                           std::set<std::string>& used) {
  std::string name = node.name();
  const bool generated = name.empty();
  if (generated) name = StrCat(node.op_type(), "_", index);
  if (used.count(name) || (generated && all_names.count(name))) {
    const std::string base = name;
    int suffix = 1;
    do {
      name = StrCat(base, "_", suffix++);
    } while (used.count(name) || all_names.count(name));
  }
  used.insert(name);
  return name;
}

// What the nodes of one graph are imported with: subgraphs nest below
// `path` ("" for the main graph, "If_3/then_branch/" inside a branch).
struct NodeContext {
  int64_t opset = 0;
  const std::string* external_data_dir = nullptr;
  std::string path;
  int depth = 0;
};

absl::StatusOr<std::shared_ptr<const Graph>> ImportSubgraph(
    const onnx::GraphProto& proto, const std::string& attribute,
    const NodeContext& context);

absl::StatusOr<GraphNode> ImportNode(const onnx::NodeProto& node,
                                     std::string name,
                                     const NodeContext& context) {
  const std::string label = StrCat("node '", context.path, name, "'");
  if (!node.domain().empty() && node.domain() != "ai.onnx") {
    return absl::UnimplementedError(StrCat(label, " is in domain '",
                                           node.domain(),
                                           "'; only the default ONNX domain "
                                           "is supported"));
  }
  GraphNode imported;
  imported.op_type = node.op_type();
  imported.name = name;
  imported.original_names = {name};
  imported.inputs.assign(node.input().begin(), node.input().end());
  imported.outputs.assign(node.output().begin(), node.output().end());
  // Trailing optional outputs left empty are dropped; an inner one (LSTM's
  // Y skipped, Y_h used) is still computed, under a name of its own. Control
  // flow keeps every output: they pair with its subgraphs' outputs.
  const bool control_flow = IsControlFlowOp(node.op_type());
  while (!control_flow && !imported.outputs.empty() &&
         imported.outputs.back().empty()) {
    imported.outputs.pop_back();
  }
  for (size_t i = 0; i < imported.outputs.size(); ++i) {
    if (imported.outputs[i].empty())
      imported.outputs[i] = StrCat(name, ":unused_output_", i);
  }
  absl::StatusOr<Attributes> attrs = AttributesFromOnnx(node, context.opset);
  if (!attrs.ok()) return Annotate(attrs.status(), label);
  imported.attrs = std::move(*attrs);
  for (const onnx::AttributeProto& attr : node.attribute()) {
    if (attr.type() != onnx::AttributeProto::GRAPH) continue;
    if (!control_flow) {
      return absl::UnimplementedError(
          StrCat(label, " (", node.op_type(), "): attribute '", attr.name(),
                 "' is a graph; only If, Loop and Scan take subgraphs"));
    }
    if (context.depth >= kMaxSubgraphDepth) {
      return absl::InvalidArgumentError(StrCat(
          label, ": subgraphs nest more than ", kMaxSubgraphDepth, " deep"));
    }
    NodeContext inner = context;
    inner.path = SubgraphPath(context.path, name, attr.name());
    inner.depth = context.depth + 1;
    ASSIGN_OR_RETURN(std::shared_ptr<const Graph> subgraph,
                     ImportSubgraph(attr.g(), attr.name(), inner));
    imported.subgraphs.emplace_back(attr.name(), std::move(subgraph));
  }
  imported.implicit_inputs = ImplicitInputsOf(imported);
  if (control_flow) {
    RETURN_IF_ERROR(Annotate(CheckControlFlowNode(imported),
                             StrCat(label, " (", node.op_type(), ")")));
  }
  return imported;
}

absl::Status ImportNodes(const onnx::GraphProto& proto,
                         const NodeContext& context, Graph& graph) {
  std::set<std::string> all_names;
  for (const onnx::NodeProto& node : proto.node())
    all_names.insert(node.name());
  std::set<std::string> used;
  for (int i = 0; i < proto.node_size(); ++i) {
    const onnx::NodeProto& node = proto.node(i);
    ASSIGN_OR_RETURN(
        GraphNode imported,
        ImportNode(node, UniqueNodeName(node, i, all_names, used), context));
    graph.nodes.push_back(std::move(imported));
  }
  return absl::OkStatus();
}

// A subgraph input or output: the dtype must be known; an unknown dimension
// is -1 and an unknown rank an empty shape, both marked infer_shape.
absl::StatusOr<NamedTensorInfo> ImportSubgraphValue(
    const onnx::ValueInfoProto& value, std::string_view where) {
  if (value.name().empty()) {
    return absl::InvalidArgumentError(StrCat(where, " has no name"));
  }
  absl::StatusOr<DeclaredValue> declared = ReadDeclared(value);
  if (!declared.ok()) return Annotate(declared.status(), where);
  // Sized as the model file checks it, an unknown dimension counting 1.
  std::vector<int64_t> sized = declared->dims;
  std::replace(sized.begin(), sized.end(), int64_t{-1}, int64_t{1});
  RETURN_IF_ERROR(
      Annotate(CheckedNumElements(
                   sized, kMaxModelTensorBytes /
                              static_cast<int64_t>(DTypeSize(declared->dtype)))
                   .status(),
               StrCat(where, " '", value.name(), "'")));
  NamedTensorInfo info{value.name(),
                       TensorInfo{declared->dtype, Shape(declared->dims)}};
  info.infer_shape = !declared->IsStatic();
  return info;
}

absl::StatusOr<std::shared_ptr<const Graph>> ImportSubgraph(
    const onnx::GraphProto& proto, const std::string& attribute,
    const NodeContext& context) {
  // "If_3/then_branch", as errors name it.
  const std::string where =
      StrCat("subgraph '",
             std::string_view(context.path)
                 .substr(0, context.path.empty() ? 0 : context.path.size() - 1),
             "'");
  Graph graph;
  graph.name = proto.name().empty() ? attribute : proto.name();
  graph.source_opset = context.opset;
  RETURN_IF_ERROR(Annotate(
      ImportInitializers(proto, *context.external_data_dir, graph), where));
  // Inputs are positional here (a Loop body's iteration, condition, ...): an
  // initializer of the same name would be a second definition.
  for (int i = 0; i < proto.input_size(); ++i) {
    ASSIGN_OR_RETURN(
        NamedTensorInfo input,
        ImportSubgraphValue(proto.input(i), StrCat(where, " input ", i)));
    if (graph.initializers.count(input.name) ||
        graph.IsGraphInput(input.name)) {
      return absl::InvalidArgumentError(
          StrCat(where, " input '", input.name, "' is defined twice (",
                 graph.initializers.count(input.name) ? "also an initializer"
                                                      : "two inputs",
                 ")"));
    }
    graph.inputs.push_back(std::move(input));
  }
  for (int i = 0; i < proto.output_size(); ++i) {
    ASSIGN_OR_RETURN(
        NamedTensorInfo output,
        ImportSubgraphValue(proto.output(i), StrCat(where, " output ", i)));
    graph.outputs.push_back(std::move(output));
  }
  RETURN_IF_ERROR(ImportNodes(proto, context, graph));
  const std::vector<std::string> reads = OuterScopeReads(graph);
  const std::set<std::string, std::less<>> outer(reads.begin(), reads.end());
  RETURN_IF_ERROR(Annotate(SortTopologically(graph, &outer), where));
  return std::make_shared<const Graph>(std::move(graph));
}

// The path of the node that reads `value` inside `node`'s subgraphs, for
// errors: the innermost reader, or the subgraph returning it.
std::string ReaderPath(const GraphNode& node, const std::string& path,
                       const std::string& value) {
  for (const auto& [attribute, subgraph] : node.subgraphs) {
    const std::string inner = SubgraphPath(path, node.name, attribute);
    for (const GraphNode& reader : subgraph->nodes) {
      if (std::find(reader.inputs.begin(), reader.inputs.end(), value) !=
          reader.inputs.end()) {
        return StrCat(inner, reader.name);
      }
      if (std::find(reader.implicit_inputs.begin(),
                    reader.implicit_inputs.end(),
                    value) != reader.implicit_inputs.end()) {
        return ReaderPath(reader, inner, value);
      }
    }
    if (subgraph->IsGraphOutput(value)) {
      return StrCat(path, node.name, "/", attribute);
    }
  }
  return StrCat(path, node.name);
}

// What the main graph's subgraphs read from it must exist there.
absl::Status CheckImplicitInputsDefined(const Graph& graph) {
  std::set<std::string, std::less<>> defined;
  for (const NamedTensorInfo& in : graph.inputs) defined.insert(in.name);
  for (const auto& [name, tensor] : graph.initializers) defined.insert(name);
  for (const GraphNode& node : graph.nodes)
    defined.insert(node.outputs.begin(), node.outputs.end());
  for (const GraphNode& node : graph.nodes) {
    for (const std::string& value : node.implicit_inputs) {
      if (defined.count(value)) continue;
      return absl::InvalidArgumentError(
          StrCat("node '", ReaderPath(node, "", value), "' reads '", value,
                 "', which neither its subgraph nor any enclosing graph "
                 "defines"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Graph> ImportOnnx(const onnx::ModelProto& model,
                                 const ImportOptions& options) {
  const int64_t opset = DefaultOpset(model);
  if (opset < kMinOnnxOpset || opset > kMaxOnnxOpset) {
    return absl::UnimplementedError(StrCat("ONNX opset ", opset,
                                           " is not supported (", kMinOnnxOpset,
                                           "..", kMaxOnnxOpset, ")"));
  }
  const onnx::GraphProto& proto = model.graph();
  ASSIGN_OR_RETURN(std::optional<ResolvedSequences> resolved,
                   ResolveStaticSequences(proto, opset));
  Graph graph;
  graph.name = proto.name().empty() ? "model" : proto.name();
  graph.source_opset = opset;
  RETURN_IF_ERROR(ImportInitializers(proto, options.external_data_dir, graph));
  RETURN_IF_ERROR(ImportInputs(proto, options, graph));
  RETURN_IF_ERROR(ImportOutputs(proto, graph));
  const NodeContext context{opset, &options.external_data_dir, "", 0};
  RETURN_IF_ERROR(
      ImportNodes(resolved ? resolved->graph : proto, context, graph));
  if (resolved) {
    for (GraphNode& node : graph.nodes) {
      auto names = resolved->original_names.find(node.name);
      if (names != resolved->original_names.end()) {
        node.original_names = names->second;
      }
    }
  }
  RETURN_IF_ERROR(CheckImplicitInputsDefined(graph));
  RETURN_IF_ERROR(SortTopologically(graph));
  return graph;
}

absl::StatusOr<std::vector<NamedTensorInfo>> DynamicInputs(
    const onnx::ModelProto& model, const InputShapes& given) {
  const onnx::GraphProto& proto = model.graph();
  std::set<std::string, std::less<>> initializers;
  for (const onnx::TensorProto& init : proto.initializer())
    initializers.insert(init.name());
  std::vector<NamedTensorInfo> inputs;
  std::vector<std::string> names;
  for (const onnx::ValueInfoProto& input : proto.input()) {
    if (initializers.count(input.name())) continue;
    absl::StatusOr<DeclaredValue> declared = ReadDeclared(input);
    if (!declared.ok()) return Annotate(declared.status(), "graph input");
    names.push_back(StrCat("'", input.name(), "'"));
    std::vector<int64_t> dims = declared->dims;
    auto pinned = given.find(input.name());
    if (pinned != given.end()) {
      if (declared->has_shape && pinned->second.size() != dims.size()) {
        return absl::InvalidArgumentError(
            StrCat("--input-shape gives input '", input.name(), "' ",
                   pinned->second.size(), " dimensions [",
                   StrJoin(pinned->second, ","), "], the model declares ",
                   dims.size(), ": ", declared->Render()));
      }
      for (size_t i = 0; i < dims.size(); ++i) {
        if (dims[i] >= 0 && pinned->second[i] >= 0 &&
            dims[i] != pinned->second[i]) {
          return absl::InvalidArgumentError(
              StrCat("--input-shape gives input '", input.name(),
                     "' dimension ", i, " = ", pinned->second[i],
                     ", but the model declares it static as ", dims[i], " ",
                     declared->Render()));
        }
      }
      dims = pinned->second;
    } else if (!declared->has_shape) {
      return absl::InvalidArgumentError(
          StrCat("graph input '", input.name(),
                 "' has no declared shape; give it with --input-shape"));
    }
    inputs.push_back({input.name(), TensorInfo{declared->dtype, Shape(dims)}});
  }
  for (const auto& entry : given) {
    const std::string& name = entry.first;
    if (std::none_of(
            inputs.begin(), inputs.end(),
            [&](const NamedTensorInfo& in) { return in.name == name; })) {
      return absl::InvalidArgumentError(
          StrCat("--input-shape names '", name,
                 "', which is not an input of the model (inputs: ",
                 StrJoin(names, ", "), ")"));
    }
  }
  return inputs;
}

absl::StatusOr<onnx::ModelProto> ParseOnnx(std::string_view bytes) {
  if (bytes.size() > kMaxModelFileBytes) {
    return absl::InvalidArgumentError(StrCat("ONNX model is ", bytes.size(),
                                             " bytes, more than the limit of ",
                                             kMaxModelFileBytes));
  }
  onnx::ModelProto model;
  // Room for kMaxSubgraphDepth nested graphs (three messages each, and value
  // types below them), so that the import names a model nested too deep.
  constexpr int kRecursionLimit = 3 * kMaxSubgraphDepth + 64;
  google::protobuf::io::CodedInputStream input(
      reinterpret_cast<const uint8_t*>(bytes.data()),
      static_cast<int>(std::min<size_t>(bytes.size(), INT_MAX)));
  input.SetRecursionLimit(kRecursionLimit);
  if (bytes.size() > INT_MAX || !model.ParseFromCodedStream(&input) ||
      !input.ConsumedEntireMessage() ||
      input.CurrentPosition() != static_cast<int>(bytes.size())) {
    return absl::InvalidArgumentError(
        "not a valid ONNX model: the protobuf does not parse");
  }
  return model;
}

absl::StatusOr<Graph> ImportOnnxBytes(std::string_view bytes,
                                      const ImportOptions& options) {
  ASSIGN_OR_RETURN(onnx::ModelProto model, ParseOnnx(bytes));
  return ImportOnnx(model, options);
}

}  // namespace acldump
