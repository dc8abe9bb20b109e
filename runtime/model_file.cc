#include "runtime/model_file.h"

#include <cstring>
#include <fstream>
#include <set>

#include "base/file_reader.h"
#include "base/status_macros.h"
#include "base/strings.h"
#include "nlohmann/json.hpp"
#include "runtime/model.pb.h"

namespace acldump {
namespace {

constexpr uint32_t kFormatVersion = 1;
constexpr size_t kMaxNameLength = 1024;
constexpr int kMaxRank = 16;

absl::Status Invalid(std::string_view where, std::string_view reason) {
  return absl::InvalidArgumentError(StrCat(where, ": ", reason));
}

absl::Status CheckName(std::string_view where, const std::string& name) {
  if (name.empty()) return Invalid(where, "empty name");
  if (name.size() > kMaxNameLength) {
    return Invalid(where, StrCat("name is ", name.size(),
                                 " characters, more than ", kMaxNameLength));
  }
  for (unsigned char c : name) {
    if (c < 0x20 || c == 0x7F)
      return Invalid(where, "name contains a control character");
  }
  return absl::OkStatus();
}

// Element types in the model file: the SDK's data type numbers (DT_FLOAT = 1,
// DT_FLOAT16 = 2, ..., DT_BF16 = 27), so a model reads like the SDK's files.
constexpr std::pair<DType, int32_t> kModelDataTypes[] = {
    {DType::kFloat32, 1},  {DType::kFloat16, 2}, {DType::kInt8, 3},
    {DType::kUInt8, 4},    {DType::kInt16, 5},   {DType::kInt32, 7},
    {DType::kInt64, 8},    {DType::kBool, 11},   {DType::kFloat64, 12},
    {DType::kBFloat16, 27}};

int32_t ToModelDataType(DType dtype) {
  for (const auto& [type, number] : kModelDataTypes) {
    if (type == dtype) return number;
  }
  return 0;
}

std::optional<DType> FromModelDataType(int32_t number) {
  for (const auto& [type, value] : kModelDataTypes) {
    if (value == number) return type;
  }
  return std::nullopt;
}

absl::StatusOr<TensorInfo> InfoFromProto(
    std::string_view where, int32_t data_type,
    const google::protobuf::RepeatedField<int64_t>& dims) {
  std::optional<DType> dtype = FromModelDataType(data_type);
  if (!dtype)
    return Invalid(where, StrCat("unsupported data type ", data_type));
  if (dims.size() > kMaxRank) {
    return Invalid(where, StrCat("rank ", dims.size(), " exceeds ", kMaxRank));
  }
  std::vector<int64_t> shape(dims.begin(), dims.end());
  absl::StatusOr<int64_t> count = CheckedNumElements(
      shape, kMaxModelTensorBytes / static_cast<int64_t>(DTypeSize(*dtype)));
  if (!count.ok()) {
    return Invalid(where, StrCat(ToStd(count.status().message()), " (limit: ",
                                 kMaxModelTensorBytes, " bytes per tensor)"));
  }
  return TensorInfo{*dtype, Shape(std::move(shape))};
}

absl::StatusOr<Tensor> TensorFromProto(std::string_view where,
                                       const om::TensorValue& proto) {
  ASSIGN_OR_RETURN(TensorInfo info,
                   InfoFromProto(where, proto.data_type(), proto.dims()));
  if (proto.data().size() != info.ByteSize()) {
    return Invalid(where, StrCat("holds ", proto.data().size(), " bytes, ",
                                 info.ToString(), " needs ", info.ByteSize()));
  }
  Tensor tensor(info.dtype, info.shape);
  if (info.ByteSize() > 0)
    std::memcpy(tensor.data(), proto.data().data(), info.ByteSize());
  return tensor;
}

void TensorToProto(const Tensor& tensor, om::TensorValue* proto) {
  proto->set_data_type(ToModelDataType(tensor.dtype()));
  for (int64_t dim : tensor.shape().dims()) proto->add_dims(dim);
  proto->set_data(tensor.data(), tensor.ByteSize());
}

absl::StatusOr<AttrValue> AttrFromProto(std::string_view where,
                                        const om::Attribute& attr) {
  switch (attr.value_case()) {
    case om::Attribute::kI:
      return AttrValue(attr.i());
    case om::Attribute::kF:
      return AttrValue(attr.f());
    case om::Attribute::kS:
      return AttrValue(attr.s());
    case om::Attribute::kInts:
      return AttrValue(std::vector<int64_t>(attr.ints().values().begin(),
                                            attr.ints().values().end()));
    case om::Attribute::kFloats:
      return AttrValue(std::vector<float>(attr.floats().values().begin(),
                                          attr.floats().values().end()));
    case om::Attribute::kStrings:
      return AttrValue(std::vector<std::string>(attr.strings().values().begin(),
                                                attr.strings().values().end()));
    case om::Attribute::kTensor: {
      ASSIGN_OR_RETURN(Tensor tensor, TensorFromProto(where, attr.tensor()));
      return AttrValue(std::make_shared<const Tensor>(std::move(tensor)));
    }
    case om::Attribute::VALUE_NOT_SET:
      break;
  }
  return Invalid(where, "attribute has no value");
}

void AttrToProto(const std::string& name, const AttrValue& value,
                 om::Attribute* proto) {
  proto->set_name(name);
  struct Writer {
    om::Attribute* p;
    void operator()(int64_t v) const { p->set_i(v); }
    void operator()(float v) const { p->set_f(v); }
    void operator()(const std::string& v) const { p->set_s(v); }
    void operator()(const std::vector<int64_t>& v) const {
      p->mutable_ints()->mutable_values()->Add(v.begin(), v.end());
    }
    void operator()(const std::vector<float>& v) const {
      p->mutable_floats()->mutable_values()->Add(v.begin(), v.end());
    }
    void operator()(const std::vector<std::string>& v) const {
      for (const auto& s : v) p->mutable_strings()->add_values(s);
    }
    void operator()(const std::shared_ptr<const Tensor>& v) const {
      if (v) TensorToProto(*v, p->mutable_tensor());
    }
  };
  std::visit(Writer{proto}, value);
}

// One node, every name and attribute checked; its outputs are defined by the
// caller (names must be unique across the model).
absl::StatusOr<GraphNode> NodeFromProto(const std::string& where,
                                        const om::Node& proto) {
  RETURN_IF_ERROR(CheckName(where, proto.name()));
  RETURN_IF_ERROR(CheckName(StrCat(where, " op type"), proto.op_type()));
  GraphNode node;
  node.name = proto.name();
  node.op_type = proto.op_type();
  node.no_task = proto.no_task();
  for (const std::string& in : proto.inputs()) {
    if (!in.empty()) RETURN_IF_ERROR(CheckName(StrCat(where, " input"), in));
    node.inputs.push_back(in);
  }
  if (proto.outputs_size() == 0) return Invalid(where, "node has no outputs");
  for (const std::string& out : proto.outputs()) {
    RETURN_IF_ERROR(CheckName(StrCat(where, " output"), out));
    node.outputs.push_back(out);
  }
  for (const om::Attribute& attr : proto.attributes()) {
    const std::string attr_where =
        StrCat(where, " attribute '", attr.name(), "'");
    RETURN_IF_ERROR(CheckName(attr_where, attr.name()));
    if (node.attrs.Has(attr.name())) {
      return Invalid(attr_where, "attribute given twice");
    }
    ASSIGN_OR_RETURN(AttrValue value, AttrFromProto(attr_where, attr));
    node.attrs.Set(attr.name(), std::move(value));
  }
  for (const std::string& original : proto.original_names()) {
    RETURN_IF_ERROR(CheckName(StrCat(where, " original name"), original));
    node.original_names.push_back(original);
  }
  if (node.original_names.empty()) node.original_names.push_back(node.name);
  return node;
}

absl::StatusOr<Graph> GraphFromProto(const om::Model& model) {
  if (model.format_version() != kFormatVersion) {
    return Invalid("model",
                   StrCat("format version ", model.format_version(),
                          " is not supported (expected ", kFormatVersion, ")"));
  }
  Graph graph;
  RETURN_IF_ERROR(CheckName("model name", model.name()));
  graph.name = model.name();
  graph.source_opset = model.source_opset();
  std::set<std::string, std::less<>> defined;
  auto define = [&](std::string_view where,
                    const std::string& name) -> absl::Status {
    RETURN_IF_ERROR(CheckName(where, name));
    if (!defined.insert(name).second) {
      return Invalid(where,
                     StrCat("value '", name, "' is defined more than once"));
    }
    return absl::OkStatus();
  };
  for (int i = 0; i < model.inputs_size(); ++i) {
    const om::ValueInfo& in = model.inputs(i);
    const std::string where = StrCat("input ", i, " '", in.name(), "'");
    RETURN_IF_ERROR(define(where, in.name()));
    ASSIGN_OR_RETURN(TensorInfo info,
                     InfoFromProto(where, in.data_type(), in.dims()));
    graph.inputs.push_back({in.name(), std::move(info)});
  }
  for (int i = 0; i < model.initializers_size(); ++i) {
    const om::TensorValue& init = model.initializers(i);
    const std::string where = StrCat("initializer ", i, " '", init.name(), "'");
    RETURN_IF_ERROR(define(where, init.name()));
    ASSIGN_OR_RETURN(Tensor tensor, TensorFromProto(where, init));
    graph.initializers[init.name()] =
        std::make_shared<const Tensor>(std::move(tensor));
  }
  std::set<std::string, std::less<>> node_names;
  for (int i = 0; i < model.nodes_size(); ++i) {
    const om::Node& proto = model.nodes(i);
    const std::string where = StrCat("node ", i, " '", proto.name(), "'");
    if (!node_names.insert(proto.name()).second) {
      return Invalid(where, "node name is used more than once");
    }
    ASSIGN_OR_RETURN(GraphNode node, NodeFromProto(where, proto));
    for (const std::string& out : node.outputs) {
      RETURN_IF_ERROR(define(StrCat(where, " output"), out));
    }
    graph.nodes.push_back(std::move(node));
  }
  for (int i = 0; i < model.outputs_size(); ++i) {
    const om::ValueInfo& out = model.outputs(i);
    const std::string where = StrCat("output ", i, " '", out.name(), "'");
    RETURN_IF_ERROR(CheckName(where, out.name()));
    if (!defined.count(out.name())) {
      return Invalid(where, "no input, initializer or node produces it");
    }
    if (graph.IsGraphOutput(out.name()))
      return Invalid(where, "listed twice as an output");
    ASSIGN_OR_RETURN(TensorInfo info,
                     InfoFromProto(where, out.data_type(), out.dims()));
    graph.outputs.push_back({out.name(), std::move(info)});
  }
  if (graph.outputs.empty())
    return Invalid("model", "the model has no outputs");
  RETURN_IF_ERROR(SortTopologically(graph));
  return graph;
}

}  // namespace

std::string SerializeModel(const Graph& graph) {
  om::Model model;
  model.set_format_version(kFormatVersion);
  model.set_name(graph.name);
  model.set_producer("acldump");
  model.set_source_opset(graph.source_opset);
  for (const auto& in : graph.inputs) {
    om::ValueInfo* info = model.add_inputs();
    info->set_name(in.name);
    info->set_data_type(ToModelDataType(in.info.dtype));
    for (int64_t dim : in.info.shape.dims()) info->add_dims(dim);
  }
  for (const auto& out : graph.outputs) {
    om::ValueInfo* info = model.add_outputs();
    info->set_name(out.name);
    info->set_data_type(ToModelDataType(out.info.dtype));
    for (int64_t dim : out.info.shape.dims()) info->add_dims(dim);
  }
  for (const auto& [name, tensor] : graph.initializers) {
    om::TensorValue* value = model.add_initializers();
    value->set_name(name);
    TensorToProto(*tensor, value);
  }
  for (const GraphNode& node : graph.nodes) {
    om::Node* proto = model.add_nodes();
    proto->set_name(node.name);
    proto->set_op_type(node.op_type);
    for (const auto& in : node.inputs) proto->add_inputs(in);
    for (const auto& out : node.outputs) proto->add_outputs(out);
    for (const auto& [name, value] : node.attrs.values()) {
      AttrToProto(name, value, proto->add_attributes());
    }
    for (const auto& original : node.original_names)
      proto->add_original_names(original);
    proto->set_no_task(node.no_task);
  }
  std::string bytes(kModelMagic);
  model.AppendToString(&bytes);
  return bytes;
}

absl::StatusOr<Graph> ParseModel(std::string_view bytes) {
  if (bytes.size() < kModelMagic.size() ||
      bytes.substr(0, kModelMagic.size()) != kModelMagic) {
    return absl::InvalidArgumentError(
        "not an acldump model: the file does not start with \"ACLDMOM1\" "
        "(convert ONNX models "
        "with `bazel run //tools:convert`)");
  }
  if (bytes.size() > kMaxModelFileBytes) {
    return absl::InvalidArgumentError(StrCat("model is ", bytes.size(),
                                             " bytes, more than the limit of ",
                                             kMaxModelFileBytes));
  }
  om::Model model;
  const std::string_view payload = bytes.substr(kModelMagic.size());
  if (!model.ParseFromArray(payload.data(), static_cast<int>(payload.size()))) {
    return absl::InvalidArgumentError(
        "model file is corrupt or truncated: its protobuf payload does not "
        "parse");
  }
  return GraphFromProto(model);
}

absl::StatusOr<Graph> ReadModelFile(const std::string& path) {
  ASSIGN_OR_RETURN(std::string bytes,
                   ReadRegularFile(path, kMaxModelFileBytes, "model file"));
  absl::StatusOr<Graph> graph = ParseModel(bytes);
  if (!graph.ok()) return Annotate(graph.status(), path);
  return graph;
}

absl::Status WriteModelFile(const Graph& graph, const std::string& path) {
  const std::string bytes = SerializeModel(graph);
  const std::string temp = path + ".tmp";
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out.write(bytes.data(), static_cast<std::streamsize>(bytes.size())) ||
        !out.flush()) {
      std::remove(temp.c_str());
      return absl::PermissionDeniedError(StrCat("cannot write '", path, "'"));
    }
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    std::remove(temp.c_str());
    return absl::PermissionDeniedError(
        StrCat("cannot rename '", temp, "' to '", path, "'"));
  }
  return absl::OkStatus();
}

std::string ModelToJson(const Graph& graph) {
  using Json = nlohmann::ordered_json;
  Json json;
  json["name"] = graph.name;
  json["source_opset"] = graph.source_opset;
  auto value_info = [](const NamedTensorInfo& v) {
    return Json{{"name", v.name},
                {"dtype", std::string(DTypeName(v.info.dtype))},
                {"shape", v.info.shape.dims()}};
  };
  json["inputs"] = Json::array();
  for (const auto& in : graph.inputs) json["inputs"].push_back(value_info(in));
  json["outputs"] = Json::array();
  for (const auto& out : graph.outputs)
    json["outputs"].push_back(value_info(out));
  json["nodes"] = Json::array();
  for (const GraphNode& node : graph.nodes) {
    Json attrs = Json::object();
    for (const auto& [name, value] : node.attrs.values())
      attrs[name] = AttrValueToString(value);
    json["nodes"].push_back(Json{{"name", node.name},
                                 {"op_type", node.op_type},
                                 {"original_names", node.original_names},
                                 {"inputs", node.inputs},
                                 {"outputs", node.outputs},
                                 {"no_task", node.no_task},
                                 {"attributes", attrs}});
  }
  json["initializers"] = Json::array();
  for (const auto& [name, tensor] : graph.initializers) {
    json["initializers"].push_back(
        Json{{"name", name},
             {"dtype", std::string(DTypeName(tensor->dtype()))},
             {"shape", tensor->shape().dims()}});
  }
  return json.dump(2);
}

}  // namespace acldump
