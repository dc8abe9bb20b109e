#include "runtime/model_file.h"

#include <cstring>
#include <fstream>
#include <set>

#include "base/file_reader.h"
#include "base/status_macros.h"
#include "base/strings.h"
#include "google/protobuf/io/coded_stream.h"
#include "nlohmann/json.hpp"
#include "runtime/gears.h"
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
    {DType::kUInt8, 4},    {DType::kInt16, 5},   {DType::kUInt16, 6},
    {DType::kInt32, 7},    {DType::kInt64, 8},   {DType::kUInt32, 9},
    {DType::kUInt64, 10},  {DType::kBool, 11},   {DType::kFloat64, 12},
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

// The weights section of a version-2 file: initializers' bytes outside the
// message, read straight into their tensors.
class WeightsSection {
 public:
  virtual ~WeightsSection() = default;
  virtual uint64_t size() const = 0;
  // `length` bytes at `offset` (within size()) into `out`.
  virtual absl::Status Read(uint64_t offset, uint64_t length,
                            void* out) const = 0;

  // Initializers' bytes follow each other in the order the message lists
  // them (the model's, each subgraph's depth first, each gear's), each once
  // and 64-byte aligned: `offset` must be where the next one starts, so no
  // byte is read twice and a file cannot make the reader allocate more than
  // it holds.
  absl::Status Claim(std::string_view where, uint64_t offset,
                     uint64_t length) const;
  // The section must end with the last initializer's bytes.
  absl::Status CheckAllUsed() const {
    if (used_end_ == size()) return absl::OkStatus();
    return absl::InvalidArgumentError(
        StrCat("model file is corrupt: its weights section has ",
               size() - used_end_, " bytes after the last initializer's"));
  }

 private:
  mutable uint64_t used_end_ = 0;
};

class MemoryWeights final : public WeightsSection {
 public:
  explicit MemoryWeights(std::string_view bytes) : bytes_(bytes) {}
  uint64_t size() const override { return bytes_.size(); }
  absl::Status Read(uint64_t offset, uint64_t length,
                    void* out) const override {
    if (length > 0) std::memcpy(out, bytes_.data() + offset, length);
    return absl::OkStatus();
  }

 private:
  std::string_view bytes_;
};

class FileWeights final : public WeightsSection {
 public:
  FileWeights(const RandomAccessFile& file, uint64_t start)
      : file_(file), start_(start) {}
  uint64_t size() const override { return file_.size() - start_; }
  absl::Status Read(uint64_t offset, uint64_t length,
                    void* out) const override {
    absl::Status read = file_.ReadInto(start_ + offset, length, out);
    // A file that fails to read (or shrank) is a read failure, not a
    // corrupt model.
    if (!read.ok()) return absl::DataLossError(read.message());
    return read;
  }

 private:
  const RandomAccessFile& file_;
  uint64_t start_;
};

constexpr uint64_t kWeightsAlignment = 64;

uint64_t RoundUp(uint64_t value, uint64_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

absl::Status WeightsSection::Claim(std::string_view where, uint64_t offset,
                                   uint64_t length) const {
  const uint64_t next = RoundUp(used_end_, kWeightsAlignment);
  if (offset != next) {
    return Invalid(where,
                   StrCat("its bytes at offset ", offset,
                          " of the weights section are not where the next "
                          "initializer's start (",
                          next,
                          "): each initializer's bytes follow the "
                          "previous one's, in the message's order"));
  }
  if (offset > size() || length > size() - offset) {
    return Invalid(where,
                   StrCat("its ", length, " bytes at offset ", offset,
                          " run past the end of the weights section (", size(),
                          " bytes): the file is truncated or "
                          "corrupt"));
  }
  used_end_ = offset + length;
  return absl::OkStatus();
}

// `weights`: the file's weights section (none in a version-1 file and for a
// tensor attribute, which the message always holds).
absl::StatusOr<Tensor> TensorFromProto(std::string_view where,
                                       const om::TensorValue& proto,
                                       const WeightsSection* weights) {
  ASSIGN_OR_RETURN(TensorInfo info,
                   InfoFromProto(where, proto.data_type(), proto.dims()));
  const uint64_t need = info.ByteSize();
  if (!proto.external()) {
    if (proto.offset() != 0) {
      return Invalid(where,
                     "an offset into the weights section, but its "
                     "bytes are not there");
    }
    if (proto.data().size() != need) {
      return Invalid(where, StrCat("holds ", proto.data().size(), " bytes, ",
                                   info.ToString(), " needs ", need));
    }
    Tensor tensor(info.dtype, info.shape, /*zeroed=*/false);
    if (need > 0) std::memcpy(tensor.data(), proto.data().data(), need);
    return tensor;
  }
  if (weights == nullptr) {
    return Invalid(where,
                   "its bytes are in a weights section, which only the "
                   "initializers of a version-2 file have");
  }
  if (!proto.data().empty()) {
    return Invalid(where,
                   "holds its bytes both in the message and in the weights "
                   "section");
  }
  const uint64_t offset = proto.offset();
  RETURN_IF_ERROR(weights->Claim(where, offset, need));
  Tensor tensor(info.dtype, info.shape, /*zeroed=*/false);
  if (need > 0) {
    absl::Status read = weights->Read(offset, need, tensor.data());
    if (!read.ok()) {
      return absl::Status(read.code(), StrCat(where, ": ", read.message()));
    }
  }
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
      ASSIGN_OR_RETURN(Tensor tensor,
                       TensorFromProto(where, attr.tensor(), nullptr));
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

// Where the nodes being read are: `prefix` for the plan ("" or "gear 2: "),
// `path` for the subgraph ("" or "If_0/then_branch/"), at `depth`.
struct Scope {
  std::string prefix;
  std::string path;
  int depth = 0;
  const WeightsSection* weights = nullptr;
};

absl::StatusOr<std::shared_ptr<const Graph>> SubgraphFromProto(
    const Scope& scope, const std::string& attribute,
    const om::SubGraph& proto);

// One node, every name and attribute checked, its subgraphs read and checked
// recursively; its outputs are defined by the caller (names must be unique in
// their graph).
absl::StatusOr<GraphNode> NodeFromProto(const std::string& where,
                                        const om::Node& proto,
                                        const Scope& scope) {
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
  for (const om::NodeSubgraph& subgraph : proto.subgraphs()) {
    const std::string subgraph_where =
        StrCat(where, " subgraph '", subgraph.attribute(), "'");
    RETURN_IF_ERROR(CheckName(subgraph_where, subgraph.attribute()));
    if (node.attrs.Has(subgraph.attribute())) {
      return Invalid(subgraph_where, "also an attribute of the node");
    }
    if (scope.depth >= kMaxSubgraphDepth) {
      return Invalid(subgraph_where, StrCat("subgraphs nest more than ",
                                            kMaxSubgraphDepth, " deep"));
    }
    const Scope inner{scope.prefix,
                      SubgraphPath(scope.path, node.name, subgraph.attribute()),
                      scope.depth + 1, scope.weights};
    ASSIGN_OR_RETURN(
        std::shared_ptr<const Graph> graph,
        SubgraphFromProto(inner, subgraph.attribute(), subgraph.graph()));
    node.subgraphs.emplace_back(subgraph.attribute(), std::move(graph));
  }
  for (const std::string& name : proto.implicit_inputs()) {
    RETURN_IF_ERROR(CheckName(StrCat(where, " implicit input"), name));
    node.implicit_inputs.push_back(name);
  }
  if (IsControlFlowOp(node.op_type) || !node.subgraphs.empty()) {
    if (absl::Status shape = CheckControlFlowNode(node); !shape.ok()) {
      return Invalid(where, ToStd(shape.message()));
    }
  }
  // The executor and the plan trust them: they must be what the subgraphs
  // read from outside (none without subgraphs; most nodes, checked cheaply).
  if (node.subgraphs.empty() && node.implicit_inputs.empty()) return node;
  const std::vector<std::string> reads = ImplicitInputsOf(node);
  if (node.implicit_inputs != reads) {
    return Invalid(
        where, StrCat("implicit inputs [", StrJoin(node.implicit_inputs, ", "),
                      "] are not what its subgraphs read from "
                      "enclosing graphs [",
                      StrJoin(reads, ", "), "]"));
  }
  return node;
}

using Initializers = std::map<std::string, std::shared_ptr<const Tensor>>;

absl::StatusOr<Initializers> InitializersFromProto(
    std::string_view prefix,
    const google::protobuf::RepeatedPtrField<om::TensorValue>& list,
    const WeightsSection* weights) {
  Initializers initializers;
  for (int i = 0; i < list.size(); ++i) {
    const om::TensorValue& init = list.Get(i);
    const std::string where =
        StrCat(prefix, "initializer ", i, " '", init.name(), "'");
    RETURN_IF_ERROR(CheckName(where, init.name()));
    if (initializers.count(init.name())) {
      return Invalid(
          where, StrCat("value '", init.name(), "' is defined more than once"));
    }
    ASSIGN_OR_RETURN(Tensor tensor, TensorFromProto(where, init, weights));
    initializers[init.name()] =
        std::make_shared<const Tensor>(std::move(tensor));
  }
  return initializers;
}

// Where a value may have an unknown shape (unknown_shape: -1 dimensions):
// subgraph inputs and outputs (also an unknown rank: no dims), and the
// outputs of a graph whose size depends on the input (a known rank).
enum class UnknownShapes { kRefused, kSubgraph, kGraphOutputs };

// Unknown dimensions are sized as if each were 1.
absl::StatusOr<std::vector<NamedTensorInfo>> ValueInfosFromProto(
    std::string_view prefix, std::string_view kind,
    const google::protobuf::RepeatedPtrField<om::ValueInfo>& list,
    UnknownShapes unknown = UnknownShapes::kRefused) {
  const bool subgraph = unknown == UnknownShapes::kSubgraph;
  std::vector<NamedTensorInfo> infos;
  for (int i = 0; i < list.size(); ++i) {
    const om::ValueInfo& value = list.Get(i);
    const std::string where =
        StrCat(prefix, kind, " ", i, " '", value.name(), "'");
    RETURN_IF_ERROR(CheckName(where, value.name()));
    if (!value.unknown_shape()) {
      ASSIGN_OR_RETURN(TensorInfo info,
                       InfoFromProto(where, value.data_type(), value.dims()));
      infos.push_back({value.name(), std::move(info)});
      continue;
    }
    if (unknown == UnknownShapes::kRefused) {
      return Invalid(where,
                     "an unknown shape, which only subgraph inputs and "
                     "outputs and graph outputs may have");
    }
    if (!subgraph && value.dims().empty()) {
      return Invalid(where,
                     "an output of unknown shape must have a known rank");
    }
    google::protobuf::RepeatedField<int64_t> sized = value.dims();
    for (int64_t& dim : sized) {
      if (dim == -1) dim = 1;
    }
    ASSIGN_OR_RETURN(TensorInfo info,
                     InfoFromProto(where, value.data_type(), sized));
    info.shape =
        Shape(std::vector<int64_t>(value.dims().begin(), value.dims().end()));
    NamedTensorInfo named{value.name(), std::move(info)};
    // A graph output keeps its -1 dimensions: they vary per execution.
    named.infer_shape = subgraph;
    infos.push_back(std::move(named));
  }
  return infos;
}

absl::StatusOr<std::shared_ptr<const Graph>> SubgraphFromProto(
    const Scope& scope, const std::string& attribute,
    const om::SubGraph& proto) {
  // "gear 0: subgraph 'If_0/then_branch': "
  const std::string prefix = StrCat(
      scope.prefix, "subgraph '",
      std::string_view(scope.path).substr(0, scope.path.size() - 1), "': ");
  Graph graph;
  if (!proto.name().empty()) {
    RETURN_IF_ERROR(CheckName(StrCat(prefix, "name"), proto.name()));
  }
  graph.name = proto.name().empty() ? attribute : proto.name();
  std::set<std::string, std::less<>> defined;
  auto define = [&](std::string_view where,
                    const std::string& name) -> absl::Status {
    if (!defined.insert(name).second) {
      return Invalid(where,
                     StrCat("value '", name, "' is defined more than once"));
    }
    return absl::OkStatus();
  };
  ASSIGN_OR_RETURN(graph.inputs,
                   ValueInfosFromProto(prefix, "input", proto.inputs(),
                                       UnknownShapes::kSubgraph));
  for (size_t i = 0; i < graph.inputs.size(); ++i) {
    RETURN_IF_ERROR(define(StrCat(prefix, "input ", i), graph.inputs[i].name));
  }
  ASSIGN_OR_RETURN(
      graph.initializers,
      InitializersFromProto(prefix, proto.initializers(), scope.weights));
  for (const auto& [name, tensor] : graph.initializers) {
    RETURN_IF_ERROR(define(StrCat(prefix, "initializer '", name, "'"), name));
  }
  std::set<std::string, std::less<>> node_names;
  for (int i = 0; i < proto.nodes_size(); ++i) {
    const om::Node& node_proto = proto.nodes(i);
    const std::string where = StrCat(scope.prefix, "node ", i, " '", scope.path,
                                     node_proto.name(), "'");
    if (!node_names.insert(node_proto.name()).second) {
      return Invalid(where, "node name is used more than once");
    }
    ASSIGN_OR_RETURN(GraphNode node, NodeFromProto(where, node_proto, scope));
    for (const std::string& out : node.outputs) {
      RETURN_IF_ERROR(define(StrCat(where, " output"), out));
    }
    graph.nodes.push_back(std::move(node));
  }
  // Outputs may be values of enclosing graphs: the enclosing node's
  // implicit inputs hold them, and its graph checks they exist.
  ASSIGN_OR_RETURN(graph.outputs,
                   ValueInfosFromProto(prefix, "output", proto.outputs(),
                                       UnknownShapes::kSubgraph));
  const std::vector<std::string> reads = OuterScopeReads(graph);
  const std::set<std::string, std::less<>> outer(reads.begin(), reads.end());
  if (absl::Status sorted = SortTopologically(graph, &outer); !sorted.ok()) {
    return absl::Status(sorted.code(), StrCat(prefix, sorted.message()));
  }
  return std::make_shared<const Graph>(std::move(graph));
}

// One static graph of the file: the model itself (`Fields` = om::Model) or one
// gear of a dynamic model (om::Gear, whose nodes may also read `shared`).
template <typename Fields>
absl::StatusOr<Graph> StaticGraphFromProto(std::string_view prefix,
                                           const Fields& proto,
                                           Initializers initializers,
                                           const Initializers* shared,
                                           const WeightsSection* weights) {
  Graph graph;
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
  ASSIGN_OR_RETURN(graph.inputs,
                   ValueInfosFromProto(prefix, "input", proto.inputs()));
  for (size_t i = 0; i < graph.inputs.size(); ++i) {
    RETURN_IF_ERROR(define(StrCat(prefix, "input ", i), graph.inputs[i].name));
  }
  for (const auto& [name, tensor] : initializers) {
    RETURN_IF_ERROR(define(StrCat(prefix, "initializer '", name, "'"), name));
  }
  graph.initializers = std::move(initializers);
  std::set<std::string, std::less<>> node_names;
  for (int i = 0; i < proto.nodes_size(); ++i) {
    const om::Node& node_proto = proto.nodes(i);
    const std::string where =
        StrCat(prefix, "node ", i, " '", node_proto.name(), "'");
    if (!node_names.insert(node_proto.name()).second) {
      return Invalid(where, "node name is used more than once");
    }
    ASSIGN_OR_RETURN(GraphNode node,
                     NodeFromProto(where, node_proto,
                                   Scope{std::string(prefix), "", 0, weights}));
    for (const std::string& out : node.outputs) {
      RETURN_IF_ERROR(define(StrCat(where, " output"), out));
    }
    graph.nodes.push_back(std::move(node));
  }
  // Shared weights a gear reads become its own initializers.
  auto take_shared = [&](const std::string& name) {
    if (shared == nullptr || name.empty() || defined.count(name)) return;
    auto found = shared->find(name);
    if (found == shared->end()) return;
    graph.initializers[name] = found->second;
    defined.insert(name);
  };
  for (const GraphNode& node : graph.nodes) {
    for (const std::string& in : node.inputs) take_shared(in);
    for (const std::string& in : node.implicit_inputs) take_shared(in);
  }
  for (const om::ValueInfo& out : proto.outputs()) take_shared(out.name());
  ASSIGN_OR_RETURN(graph.outputs,
                   ValueInfosFromProto(prefix, "output", proto.outputs(),
                                       UnknownShapes::kGraphOutputs));
  for (size_t i = 0; i < graph.outputs.size(); ++i) {
    const std::string& name = graph.outputs[i].name;
    const std::string where = StrCat(prefix, "output ", i, " '", name, "'");
    if (!defined.count(name)) {
      return Invalid(where, "no input, initializer or node produces it");
    }
    for (size_t j = 0; j < i; ++j) {
      if (graph.outputs[j].name == name)
        return Invalid(where, "listed twice as an output");
    }
  }
  if (graph.outputs.empty())
    return Invalid(StrCat(prefix, "model"), "the model has no outputs");
  if (absl::Status sorted = SortTopologically(graph); !sorted.ok()) {
    return absl::Status(sorted.code(), StrCat(prefix, sorted.message()));
  }
  return graph;
}

// A dynamic model's input: -1 allowed in its dynamic dimensions.
absl::StatusOr<TensorInfo> DynamicInputFromProto(std::string_view where,
                                                 GearKind kind,
                                                 const om::ValueInfo& value,
                                                 bool* dynamic) {
  std::vector<int64_t> dims(value.dims().begin(), value.dims().end());
  ASSIGN_OR_RETURN(*dynamic, CheckDynamicDims(kind, value.name(), dims));
  google::protobuf::RepeatedField<int64_t> sized = value.dims();
  for (int64_t& dim : sized) {
    if (dim == -1) dim = 1;
  }
  ASSIGN_OR_RETURN(TensorInfo info,
                   InfoFromProto(where, value.data_type(), sized));
  info.shape = Shape(std::move(dims));
  return info;
}

absl::Status CheckGearMatches(std::string_view where, const Graph& model,
                              const Gear& gear) {
  const Graph& plan = *gear.graph;
  if (plan.inputs.size() != model.inputs.size() ||
      plan.outputs.size() != model.outputs.size()) {
    return Invalid(where, "its inputs or outputs differ from the model's");
  }
  const std::vector<std::vector<int64_t>> gear_dims =
      InputDimsForGear(model.gear_kind, model.inputs, gear.values);
  for (size_t i = 0; i < plan.inputs.size(); ++i) {
    const NamedTensorInfo& in = model.inputs[i];
    const std::vector<int64_t>& expected = gear_dims[i];
    if (plan.inputs[i].name != in.name ||
        plan.inputs[i].info.dtype != in.info.dtype ||
        plan.inputs[i].info.shape.dims() != expected) {
      return Invalid(
          where,
          StrCat("input ", i, " is '", plan.inputs[i].name, "' ",
                 plan.inputs[i].info.ToString(), ", the gear needs '", in.name,
                 "' ", TensorInfo{in.info.dtype, Shape(expected)}.ToString()));
    }
  }
  for (size_t i = 0; i < plan.outputs.size(); ++i) {
    if (plan.outputs[i].name != model.outputs[i].name ||
        plan.outputs[i].info.dtype != model.outputs[i].info.dtype) {
      return Invalid(where,
                     StrCat("output ", i, " is '", plan.outputs[i].name,
                            "', the model's is '", model.outputs[i].name, "'"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<Graph> DynamicGraphFromProto(const om::Model& model,
                                            const WeightsSection* weights) {
  Graph graph;
  if (model.gear_kind() == om::GEAR_BATCH) {
    graph.gear_kind = GearKind::kBatch;
  } else if (model.gear_kind() == om::GEAR_IMAGE_SIZE) {
    graph.gear_kind = GearKind::kImageSize;
  } else if (model.gear_kind() == om::GEAR_DIMS) {
    graph.gear_kind = GearKind::kDims;
  } else {
    return Invalid("model", StrCat("unknown gear kind ", model.gear_kind()));
  }
  if (model.nodes_size() > 0) {
    return Invalid("model", "a dynamic model keeps its nodes in its gears");
  }
  bool any_dynamic = false;
  for (int i = 0; i < model.inputs_size(); ++i) {
    const om::ValueInfo& in = model.inputs(i);
    const std::string where = StrCat("input ", i, " '", in.name(), "'");
    RETURN_IF_ERROR(CheckName(where, in.name()));
    if (in.unknown_shape()) {
      return Invalid(where,
                     "an unknown shape, which only subgraph inputs and "
                     "outputs may have");
    }
    bool dynamic = false;
    ASSIGN_OR_RETURN(
        TensorInfo info,
        DynamicInputFromProto(where, graph.gear_kind, in, &dynamic));
    any_dynamic = any_dynamic || dynamic;
    graph.inputs.push_back({in.name(), std::move(info)});
  }
  if (!any_dynamic) {
    return Invalid("model", "a dynamic model has no input with a -1 dimension");
  }
  ASSIGN_OR_RETURN(graph.outputs,
                   ValueInfosFromProto("", "output", model.outputs()));
  GearValues values;
  for (const om::Gear& gear : model.gears())
    values.emplace_back(gear.values().begin(), gear.values().end());
  RETURN_IF_ERROR(Annotate(CheckGearValues(graph.gear_kind, values), "gears"));
  if (graph.gear_kind == GearKind::kDims) {
    RETURN_IF_ERROR(
        Annotate(CheckDimsGearArity(graph.inputs, values), "gears"));
  }
  ASSIGN_OR_RETURN(Initializers shared,
                   InitializersFromProto("", model.initializers(), weights));
  for (int i = 0; i < model.gears_size(); ++i) {
    const std::string prefix = StrCat("gear ", i, ": ");
    const om::Gear& proto = model.gears(i);
    ASSIGN_OR_RETURN(
        Initializers own,
        InitializersFromProto(prefix, proto.initializers(), weights));
    for (const auto& [name, tensor] : own) {
      if (shared.count(name)) {
        return Invalid(StrCat(prefix, "initializer '", name, "'"),
                       "also a shared initializer");
      }
    }
    ASSIGN_OR_RETURN(
        Graph plan,
        StaticGraphFromProto(prefix, proto, std::move(own), &shared, weights));
    plan.name = graph.name = model.name();
    plan.source_opset = model.source_opset();
    Gear gear{values[i], std::make_shared<const Graph>(std::move(plan))};
    RETURN_IF_ERROR(CheckGearMatches(StrCat("gear ", i), graph, gear));
    graph.gears.push_back(std::move(gear));
  }
  std::vector<std::vector<NamedTensorInfo>> outputs;
  for (const Gear& gear : graph.gears) {
    for (size_t i = 0; i < graph.outputs.size(); ++i) {
      if (gear.graph->outputs[i].info.shape.rank() !=
          graph.outputs[i].info.shape.rank()) {
        return Invalid(StrCat("output ", i, " '", graph.outputs[i].name, "'"),
                       "its rank differs between gears");
      }
    }
    outputs.push_back(gear.graph->outputs);
  }
  const std::vector<NamedTensorInfo> envelope =
      GearsEnvelope(graph.gear_kind, outputs, LargestGear(values));
  for (size_t i = 0; i < graph.outputs.size(); ++i) {
    if (graph.outputs[i].info.shape != envelope[i].info.shape) {
      return Invalid(StrCat("output ", i, " '", graph.outputs[i].name, "'"),
                     graph.gear_kind == GearKind::kDims
                         ? "its shape is not the largest of the gears'"
                         : "its shape is not the largest gear's");
    }
  }
  return graph;
}

absl::StatusOr<Graph> GraphFromProto(const om::Model& model,
                                     const WeightsSection* weights) {
  if (model.format_version() != kFormatVersion) {
    return Invalid("model",
                   StrCat("format version ", model.format_version(),
                          " is not supported (expected ", kFormatVersion, ")"));
  }
  RETURN_IF_ERROR(CheckName("model name", model.name()));
  if (model.gear_kind() != om::GEAR_NONE || model.gears_size() > 0) {
    ASSIGN_OR_RETURN(Graph graph, DynamicGraphFromProto(model, weights));
    graph.source_opset = model.source_opset();
    return graph;
  }
  ASSIGN_OR_RETURN(Initializers initializers,
                   InitializersFromProto("", model.initializers(), weights));
  ASSIGN_OR_RETURN(Graph graph,
                   StaticGraphFromProto("", model, std::move(initializers),
                                        nullptr, weights));
  graph.name = model.name();
  graph.source_opset = model.source_opset();
  return graph;
}

}  // namespace

namespace {

// A graph output whose dims vary per execution (-1) is stored as an unknown
// shape; a dynamic model's inputs keep their -1 dims as they are.
void ValueInfoToProto(const NamedTensorInfo& value, om::ValueInfo* info,
                      bool graph_output = false) {
  info->set_name(value.name);
  info->set_data_type(ToModelDataType(value.info.dtype));
  for (int64_t dim : value.info.shape.dims()) info->add_dims(dim);
  const std::vector<int64_t>& dims = value.info.shape.dims();
  const bool varies =
      graph_output &&
      std::any_of(dims.begin(), dims.end(), [](int64_t d) { return d < 0; });
  info->set_unknown_shape(value.infer_shape || varies);
}

void InitializerToProto(const std::string& name, const Tensor& tensor,
                        om::TensorValue* value);
void SubgraphToProto(const Graph& graph, om::SubGraph* proto);

void NodeToProto(const GraphNode& node, om::Node* proto) {
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
  for (const auto& [attribute, subgraph] : node.subgraphs) {
    om::NodeSubgraph* entry = proto->add_subgraphs();
    entry->set_attribute(attribute);
    if (subgraph != nullptr) SubgraphToProto(*subgraph, entry->mutable_graph());
  }
  for (const auto& name : node.implicit_inputs)
    proto->add_implicit_inputs(name);
}

// Inputs, outputs and nodes of one static graph (om::Model or om::Gear).
template <typename Fields>
void StaticGraphToProto(const Graph& graph, Fields* proto) {
  for (const auto& in : graph.inputs) ValueInfoToProto(in, proto->add_inputs());
  for (const auto& out : graph.outputs)
    ValueInfoToProto(out, proto->add_outputs(), /*graph_output=*/true);
  for (const GraphNode& node : graph.nodes)
    NodeToProto(node, proto->add_nodes());
}

void InitializerToProto(const std::string& name, const Tensor& tensor,
                        om::TensorValue* value) {
  value->set_name(name);
  TensorToProto(tensor, value);
}

void SubgraphToProto(const Graph& graph, om::SubGraph* proto) {
  proto->set_name(graph.name);
  StaticGraphToProto(graph, proto);
  for (const auto& [name, tensor] : graph.initializers)
    InitializerToProto(name, *tensor, proto->add_initializers());
}

bool SameTensor(const Tensor& a, const Tensor& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() &&
         (a.ByteSize() == 0 ||
          std::memcmp(a.data(), b.data(), a.ByteSize()) == 0);
}

// Weights every gear that has them holds equal are stored once; the rest
// with their gear.
void DynamicGraphToProto(const Graph& graph, om::Model* model) {
  model->set_gear_kind(graph.gear_kind == GearKind::kBatch ? om::GEAR_BATCH
                       : graph.gear_kind == GearKind::kImageSize
                           ? om::GEAR_IMAGE_SIZE
                           : om::GEAR_DIMS);
  for (const auto& in : graph.inputs) ValueInfoToProto(in, model->add_inputs());
  for (const auto& out : graph.outputs)
    ValueInfoToProto(out, model->add_outputs());
  std::map<std::string, const Tensor*> shared;
  std::set<std::string> differing;
  for (const Gear& gear : graph.gears) {
    for (const auto& [name, tensor] : gear.graph->initializers) {
      auto [it, inserted] = shared.emplace(name, tensor.get());
      if (!inserted && it->second != tensor.get() &&
          !SameTensor(*it->second, *tensor)) {
        differing.insert(name);
      }
    }
  }
  for (const auto& [name, tensor] : shared) {
    if (!differing.count(name))
      InitializerToProto(name, *tensor, model->add_initializers());
  }
  for (const Gear& gear : graph.gears) {
    om::Gear* proto = model->add_gears();
    for (int64_t value : gear.values) proto->add_values(value);
    StaticGraphToProto(*gear.graph, proto);
    for (const auto& [name, tensor] : gear.graph->initializers) {
      if (differing.count(name))
        InitializerToProto(name, *tensor, proto->add_initializers());
    }
  }
}

}  // namespace

namespace {

// Moves each initializer's bytes out of the message to the end of `section`,
// 64-byte aligned, freeing the message's copy as it goes.
void MoveToSection(google::protobuf::RepeatedPtrField<om::TensorValue>* list,
                   std::string* section) {
  for (om::TensorValue& value : *list) {
    section->resize(RoundUp(section->size(), kWeightsAlignment), '\0');
    value.set_external(true);
    value.set_offset(section->size());
    section->append(value.data());
    std::string().swap(*value.mutable_data());
  }
}

// The initializers of every subgraph below `nodes`, at any depth.
void MoveSubgraphsToSection(google::protobuf::RepeatedPtrField<om::Node>* nodes,
                            std::string* section) {
  for (om::Node& node : *nodes) {
    for (om::NodeSubgraph& entry : *node.mutable_subgraphs()) {
      om::SubGraph* graph = entry.mutable_graph();
      MoveToSection(graph->mutable_initializers(), section);
      MoveSubgraphsToSection(graph->mutable_nodes(), section);
    }
  }
}

void AppendLittleEndian64(uint64_t value, std::string* out) {
  for (int i = 0; i < 8; ++i)
    out->push_back(static_cast<char>(value >> (8 * i)));
}

uint64_t LittleEndian64(std::string_view bytes) {
  uint64_t value = 0;
  for (int i = 7; i >= 0; --i) {
    value = (value << 8) | static_cast<unsigned char>(bytes[i]);
  }
  return value;
}

// A version-2 file in two parts: magic, size and message, padded; then the
// weights section.
struct ModelFileParts {
  std::string head;
  std::string weights;
};

ModelFileParts SerializeParts(const Graph& graph, bool weights_section) {
  om::Model model;
  model.set_format_version(kFormatVersion);
  model.set_name(graph.name);
  model.set_producer("acldump");
  model.set_source_opset(graph.source_opset);
  if (graph.dynamic()) {
    DynamicGraphToProto(graph, &model);
  } else {
    StaticGraphToProto(graph, &model);
    for (const auto& [name, tensor] : graph.initializers)
      InitializerToProto(name, *tensor, model.add_initializers());
  }
  ModelFileParts parts;
  if (!weights_section) {
    parts.head = std::string(kModelMagicV1);
    model.AppendToString(&parts.head);
    return parts;
  }
  MoveToSection(model.mutable_initializers(), &parts.weights);
  MoveSubgraphsToSection(model.mutable_nodes(), &parts.weights);
  for (om::Gear& gear : *model.mutable_gears()) {
    MoveToSection(gear.mutable_initializers(), &parts.weights);
    MoveSubgraphsToSection(gear.mutable_nodes(), &parts.weights);
  }
  parts.head = std::string(kModelMagic);
  AppendLittleEndian64(model.ByteSizeLong(), &parts.head);
  model.AppendToString(&parts.head);
  parts.head.resize(RoundUp(parts.head.size(), kWeightsAlignment), '\0');
  return parts;
}

}  // namespace

std::string SerializeModel(const Graph& graph) {
  ModelFileParts parts = SerializeParts(graph, /*weights_section=*/true);
  parts.head += parts.weights;
  return std::move(parts.head);
}

std::string SerializeModelVersion1(const Graph& graph) {
  return SerializeParts(graph, /*weights_section=*/false).head;
}

namespace {

constexpr size_t kHeaderBytes = 16;  // version 2: magic and message size

// The file's version from its first bytes: 1 (magic, message) or 2 (magic,
// message size, message, weights section).
absl::StatusOr<int> FileVersion(std::string_view head) {
  constexpr std::string_view kConvert =
      "convert the original ONNX model with acldump's converter: "
      "`acldump-convert model.onnx model.om` (a release), "
      "`./bazelw run //tools:convert -- model.onnx model.om` (the source tree)";
  // The NPU SDK's converter (atc) writes its .om with this magic number
  // (0x444F4D49, little-endian).
  constexpr std::string_view kDeviceModelMagic = "IMOD";
  if (head.substr(0, kDeviceModelMagic.size()) == kDeviceModelMagic) {
    return absl::InvalidArgumentError(StrCat(
        "a device model: the NPU SDK's converter (atc) built this .om for "
        "the NPU, and acldump cannot run its kernels; ",
        kConvert));
  }
  const std::string_view magic = head.substr(0, kModelMagic.size());
  if (magic == kModelMagic) return 2;
  if (magic == kModelMagicV1) return 1;
  return absl::InvalidArgumentError(StrCat(
      "not an acldump model: the file does not start with \"", kModelMagic,
      "\" (or \"", kModelMagicV1, "\", an older one); ", kConvert));
}

// A size over a limit: ResourceExhausted, which the loader reports as a
// model size error, from memory and from disk alike.
absl::Status TooLarge(std::string_view what, uint64_t bytes, uint64_t limit) {
  return absl::ResourceExhaustedError(
      StrCat(what, " is ", bytes, " bytes, more than the limit of ", limit));
}

// Where a version-2 file's parts are, from its header and size.
struct Layout {
  uint64_t message_bytes = 0;
  uint64_t weights_start = 0;
};

absl::StatusOr<Layout> LayoutOf(std::string_view header, uint64_t file_bytes) {
  if (file_bytes < kHeaderBytes || header.size() < kHeaderBytes) {
    return absl::InvalidArgumentError(
        StrCat("model file is truncated: ", file_bytes,
               " bytes, shorter than its ", kHeaderBytes, "-byte header"));
  }
  Layout layout;
  layout.message_bytes = LittleEndian64(header.substr(kModelMagic.size()));
  // Below 2 GiB: protobuf sizes its input in an int.
  if (layout.message_bytes >= kMaxModelFileBytes) {
    return TooLarge("model file's message", layout.message_bytes,
                    kMaxModelFileBytes - 1);
  }
  layout.weights_start =
      RoundUp(kHeaderBytes + layout.message_bytes, kWeightsAlignment);
  if (layout.weights_start > file_bytes) {
    return absl::InvalidArgumentError(StrCat(
        "model file is truncated: ", file_bytes,
        " bytes, but its message and padding take ", layout.weights_start));
  }
  if (file_bytes - layout.weights_start > kMaxModelWeightsBytes) {
    return TooLarge("model file's weights section",
                    file_bytes - layout.weights_start, kMaxModelWeightsBytes);
  }
  return layout;
}

// One serialised om::Model into `model`.
absl::Status ParseMessage(std::string_view payload, om::Model* model) {
  // Room for kMaxSubgraphDepth nested subgraphs (three messages each), so
  // that a file nested deeper gets an error that says so.
  constexpr int kRecursionLimit = 3 * kMaxSubgraphDepth + 64;
  google::protobuf::io::CodedInputStream input(
      reinterpret_cast<const uint8_t*>(payload.data()),
      static_cast<int>(payload.size()));
  input.SetRecursionLimit(kRecursionLimit);
  if (!model->ParseFromCodedStream(&input) || !input.ConsumedEntireMessage() ||
      input.CurrentPosition() != static_cast<int>(payload.size())) {
    return absl::InvalidArgumentError(
        "model file is corrupt or truncated: its protobuf payload does not "
        "parse");
  }
  return absl::OkStatus();
}

absl::Status CheckVersion1Size(uint64_t bytes) {
  if (bytes > kMaxModelFileBytes) {
    return TooLarge("version-1 model file", bytes, kMaxModelFileBytes);
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Graph> ParseModel(std::string_view bytes) {
  ASSIGN_OR_RETURN(const int version, FileVersion(bytes));
  om::Model model;
  if (version == 1) {
    RETURN_IF_ERROR(CheckVersion1Size(bytes.size()));
    RETURN_IF_ERROR(ParseMessage(bytes.substr(kModelMagicV1.size()), &model));
    return GraphFromProto(model, nullptr);
  }
  ASSIGN_OR_RETURN(const Layout layout, LayoutOf(bytes, bytes.size()));
  RETURN_IF_ERROR(
      ParseMessage(bytes.substr(kHeaderBytes, layout.message_bytes), &model));
  const MemoryWeights weights(bytes.substr(layout.weights_start));
  ASSIGN_OR_RETURN(Graph graph, GraphFromProto(model, &weights));
  RETURN_IF_ERROR(weights.CheckAllUsed());
  return graph;
}

absl::StatusOr<Graph> ParseModel(std::string&& bytes) {
  if (FileVersion(bytes).value_or(0) != 1) {
    // The weights section is read from `bytes` in place.
    const std::string owned = std::move(bytes);
    return ParseModel(std::string_view(owned));
  }
  om::Model model;
  {
    const std::string owned = std::move(bytes);
    RETURN_IF_ERROR(CheckVersion1Size(owned.size()));
    RETURN_IF_ERROR(ParseMessage(
        std::string_view(owned).substr(kModelMagicV1.size()), &model));
  }
  // The file's bytes are gone before the graph's tensors are made.
  return GraphFromProto(model, nullptr);
}

absl::StatusOr<Graph> ReadModelFile(const RandomAccessFile& file) {
  // A read that fails is a read failure (DataLoss), not a corrupt model.
  const auto read = [&](uint64_t offset,
                        uint64_t length) -> absl::StatusOr<std::string> {
    absl::StatusOr<std::string> bytes = file.ReadAt(offset, length);
    if (!bytes.ok()) return absl::DataLossError(bytes.status().message());
    return bytes;
  };
  ASSIGN_OR_RETURN(std::string head,
                   read(0, std::min<uint64_t>(file.size(), kHeaderBytes)));
  ASSIGN_OR_RETURN(const int version, FileVersion(head));
  if (version == 1) {
    RETURN_IF_ERROR(CheckVersion1Size(file.size()));
    ASSIGN_OR_RETURN(std::string bytes, read(0, file.size()));
    return ParseModel(std::move(bytes));
  }
  ASSIGN_OR_RETURN(const Layout layout, LayoutOf(head, file.size()));
  om::Model model;
  {
    ASSIGN_OR_RETURN(const std::string message,
                     read(kHeaderBytes, layout.message_bytes));
    RETURN_IF_ERROR(ParseMessage(message, &model));
  }
  const FileWeights weights(file, layout.weights_start);
  ASSIGN_OR_RETURN(Graph graph, GraphFromProto(model, &weights));
  RETURN_IF_ERROR(weights.CheckAllUsed());
  return graph;
}

absl::Status WriteModelFile(const Graph& graph, const std::string& path) {
  const ModelFileParts parts = SerializeParts(graph, /*weights_section=*/true);
  const std::string temp = path + ".tmp";
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out.write(parts.head.data(),
                   static_cast<std::streamsize>(parts.head.size())) ||
        !out.write(parts.weights.data(),
                   static_cast<std::streamsize>(parts.weights.size())) ||
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

namespace {

using Json = nlohmann::ordered_json;

Json GraphToJson(const Graph& graph) {
  Json json;
  auto value_info = [](const NamedTensorInfo& v) {
    Json info{{"name", v.name},
              {"dtype", std::string(DTypeName(v.info.dtype))},
              {"shape", v.info.shape.dims()}};
    if (v.infer_shape) info["unknown_shape"] = true;
    return info;
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
    Json entry{{"name", node.name},
               {"op_type", node.op_type},
               {"original_names", node.original_names},
               {"inputs", node.inputs},
               {"outputs", node.outputs},
               {"no_task", node.no_task},
               {"attributes", attrs}};
    if (!node.subgraphs.empty()) {
      entry["implicit_inputs"] = node.implicit_inputs;
      Json subgraphs = Json::object();
      for (const auto& [attribute, subgraph] : node.subgraphs) {
        if (subgraph == nullptr) continue;
        Json sub{{"name", subgraph->name}};
        sub.update(GraphToJson(*subgraph));
        subgraphs[attribute] = std::move(sub);
      }
      entry["subgraphs"] = std::move(subgraphs);
    }
    json["nodes"].push_back(std::move(entry));
  }
  json["initializers"] = Json::array();
  for (const auto& [name, tensor] : graph.initializers) {
    json["initializers"].push_back(
        Json{{"name", name},
             {"dtype", std::string(DTypeName(tensor->dtype()))},
             {"shape", tensor->shape().dims()}});
  }
  return json;
}

}  // namespace

std::string ModelToJson(const Graph& graph) {
  Json json;
  json["name"] = graph.name;
  json["source_opset"] = graph.source_opset;
  json.update(GraphToJson(graph));
  if (graph.dynamic()) {
    json["gear_kind"] = std::string(GearKindName(graph.gear_kind));
    json["gears"] = Json::array();
    for (const Gear& gear : graph.gears) {
      Json entry;
      entry["values"] = gear.values;
      entry.update(GraphToJson(*gear.graph));
      json["gears"].push_back(std::move(entry));
    }
  }
  return json.dump(2);
}

}  // namespace acldump
