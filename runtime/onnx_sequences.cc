#include "runtime/onnx_sequences.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "base/status_macros.h"
#include "base/strings.h"
#include "runtime/onnx_tensors.h"

namespace acldump {
namespace {

// Each unrolled iteration is a copy of the body: a bound on what a small file
// can make the converter build.
constexpr int64_t kMaxUnrolledIterations = 4096;
// All the nodes unrolling may write, over the whole graph.
constexpr int64_t kMaxUnrolledNodes = int64_t{1} << 16;
// What the pass may build in all: nodes written plus sequence elements copied
// (each insert or erase makes a sequence of its own). A small file must not
// make the converter build a huge graph.
constexpr int64_t kMaxWork = int64_t{1} << 20;
// Integer constants read as positions, sizes and trip counts.
constexpr int64_t kMaxConstantElements = 4096;

const std::set<std::string, std::less<>>& SequenceOps() {
  static const auto* ops = new std::set<std::string, std::less<>>{
      "SequenceEmpty",      "SequenceConstruct", "SequenceInsert",
      "SequenceErase",      "SequenceAt",        "SequenceLength",
      "ConcatFromSequence", "SplitToSequence",   "SequenceMap"};
  return *ops;
}

const onnx::AttributeProto* FindAttribute(const onnx::NodeProto& node,
                                          std::string_view name) {
  for (const onnx::AttributeProto& attr : node.attribute()) {
    if (attr.name() == name) return &attr;
  }
  return nullptr;
}

int64_t IntAttribute(const onnx::NodeProto& node, std::string_view name,
                     int64_t fallback) {
  const onnx::AttributeProto* attr = FindAttribute(node, name);
  return attr != nullptr ? attr->i() : fallback;
}

bool HasGraphAttribute(const onnx::NodeProto& node) {
  for (const onnx::AttributeProto& attr : node.attribute()) {
    if (attr.type() == onnx::AttributeProto::GRAPH ||
        attr.type() == onnx::AttributeProto::GRAPHS) {
      return true;
    }
  }
  return false;
}

// Every value and node name of a graph, at any depth.
void CollectNames(const onnx::GraphProto& graph, std::set<std::string>& names) {
  for (const onnx::ValueInfoProto& v : graph.input()) names.insert(v.name());
  for (const onnx::ValueInfoProto& v : graph.output()) names.insert(v.name());
  for (const onnx::TensorProto& t : graph.initializer()) names.insert(t.name());
  for (const onnx::NodeProto& node : graph.node()) {
    names.insert(node.name());
    names.insert(node.input().begin(), node.input().end());
    names.insert(node.output().begin(), node.output().end());
    for (const onnx::AttributeProto& attr : node.attribute()) {
      if (attr.has_g()) CollectNames(attr.g(), names);
      for (const onnx::GraphProto& g : attr.graphs()) CollectNames(g, names);
    }
  }
}

// Every value a node's subgraphs read, at any depth (a superset of what they
// read from outside: names they define themselves are included too).
void CollectSubgraphInputs(const onnx::NodeProto& node,
                           std::set<std::string>& names) {
  for (const onnx::AttributeProto& attr : node.attribute()) {
    std::vector<const onnx::GraphProto*> graphs;
    if (attr.has_g()) graphs.push_back(&attr.g());
    for (const onnx::GraphProto& g : attr.graphs()) graphs.push_back(&g);
    for (const onnx::GraphProto* g : graphs) {
      for (const onnx::NodeProto& inner : g->node()) {
        names.insert(inner.input().begin(), inner.input().end());
        CollectSubgraphInputs(inner, names);
      }
    }
  }
}

class Resolver {
 public:
  Resolver(const onnx::GraphProto& graph, int64_t opset) : opset_(opset) {
    CollectNames(graph, taken_);
  }

  // `base`, or `base_1`, `base_2`, ... if the model or this pass already
  // uses it (as a value or a node name).
  std::string Fresh(const std::string& base) {
    std::string name = base;
    for (int suffix = 1; !taken_.insert(name).second; ++suffix) {
      name = StrCat(base, "_", suffix);
    }
    return name;
  }

  void RecordInitializers(const onnx::GraphProto& graph) {
    for (const onnx::TensorProto& init : graph.initializer()) {
      RecordConstant(init.name(), init);
      dims_[init.name()] = {init.dims().begin(), init.dims().end()};
    }
    // Inputs declared with static dimensions (a SplitToSequence without
    // sizes needs the length it splits).
    for (const onnx::ValueInfoProto& input : graph.input()) {
      if (!input.type().has_tensor_type() ||
          !input.type().tensor_type().has_shape()) {
        continue;
      }
      std::vector<int64_t> dims;
      for (const auto& dim : input.type().tensor_type().shape().dim()) {
        if (!dim.has_dim_value() || dim.dim_value() < 0) break;
        dims.push_back(dim.dim_value());
      }
      if (static_cast<int>(dims.size()) ==
          input.type().tensor_type().shape().dim_size()) {
        dims_.emplace(input.name(), std::move(dims));
      }
    }
  }

  // Resolves one node (its names final: a body node is renamed before).
  absl::Status Visit(const onnx::NodeProto& node) {
    if (work_ > kMaxWork) {
      return absl::ResourceExhaustedError(
          StrCat("resolving the model's sequences takes more than ", kMaxWork,
                 " nodes and copied elements"));
    }
    const std::string label =
        StrCat("node '", node.name(), "' (", node.op_type(), ")");
    if (node.op_type() == "Constant") RecordConstantNode(node);
    if (node.op_type() == "Identity" && node.input_size() == 1 &&
        node.output_size() == 1) {
      PropagateConstant(node.input(0), node.output(0));
      // A sequence passed on (a Loop body's pass-through) is the same list.
      if (auto seq = sequences_.find(node.input(0)); seq != sequences_.end()) {
        work_ += static_cast<int64_t>(seq->second.size());
        sequences_[node.output(0)] = seq->second;
        return absl::OkStatus();
      }
    }
    if (SequenceOps().count(node.op_type())) {
      return Annotate(VisitSequenceOp(node), label);
    }
    if (node.op_type() == "Loop" && CarriesSequence(node)) {
      return Annotate(Unroll(node), label);
    }
    for (const std::string& input : node.input()) {
      if (sequences_.count(input)) {
        return absl::UnimplementedError(
            StrCat(label, " takes the sequence '", input,
                   "' as an input; acldump has no run-time sequence type and "
                   "resolves a sequence only where SequenceAt, SequenceLength, "
                   "ConcatFromSequence or a Loop that builds it reads it"));
      }
    }
    std::set<std::string> inner;
    CollectSubgraphInputs(node, inner);
    for (const std::string& value : inner) {
      if (sequences_.count(value)) {
        return absl::UnimplementedError(StrCat(
            label, ": a subgraph reads the sequence '", value,
            "'; only a Loop that carries it as a loop variable is resolved"));
      }
    }
    nodes_.Add()->CopyFrom(node);
    return absl::OkStatus();
  }

  absl::Status CheckOutputs(const onnx::GraphProto& graph) const {
    for (const onnx::ValueInfoProto& output : graph.output()) {
      if (sequences_.count(output.name())) {
        return absl::UnimplementedError(
            StrCat("graph output '", output.name(),
                   "' is a sequence; acldump's outputs are tensors"));
      }
    }
    return absl::OkStatus();
  }

  ResolvedSequences Result() && {
    ResolvedSequences result;
    *result.graph.mutable_node() = std::move(nodes_);
    result.original_names = std::move(original_names_);
    return result;
  }

 private:
  void RecordConstant(const std::string& name, const onnx::TensorProto& t) {
    if (t.data_location() == onnx::TensorProto::EXTERNAL) return;
    const bool integer = t.data_type() == onnx::TensorProto::INT64 ||
                         t.data_type() == onnx::TensorProto::INT32;
    const bool boolean = t.data_type() == onnx::TensorProto::BOOL;
    if (!integer && !boolean) return;
    int64_t elements = 1;
    for (int64_t d : t.dims()) {
      if (d < 0 || d > kMaxConstantElements) return;
      elements *= d;
      if (elements > kMaxConstantElements) return;
    }
    absl::StatusOr<Tensor> tensor = TensorFromOnnx(t);
    if (!tensor.ok()) return;  // The import reports a malformed tensor.
    if (boolean) {
      if (tensor->NumElements() == 1) bools_[name] = *tensor->as<bool>();
      return;
    }
    std::vector<int64_t> values(static_cast<size_t>(tensor->NumElements()));
    for (size_t i = 0; i < values.size(); ++i) {
      values[i] = tensor->dtype() == DType::kInt64
                      ? tensor->as<int64_t>()[i]
                      : int64_t{tensor->as<int32_t>()[i]};
    }
    ints_[name] = {std::move(values), t.dims_size() == 0};
  }

  void RecordConstantNode(const onnx::NodeProto& node) {
    if (node.output_size() != 1) return;
    const std::string& out = node.output(0);
    for (const onnx::AttributeProto& attr : node.attribute()) {
      if (attr.name() == "value" && attr.has_t()) RecordConstant(out, attr.t());
      if (attr.name() == "value_int") ints_[out] = {{attr.i()}, true};
      if (attr.name() == "value_ints" &&
          attr.ints_size() <= kMaxConstantElements) {
        ints_[out] = {{attr.ints().begin(), attr.ints().end()}, false};
      }
    }
  }

  void PropagateConstant(const std::string& from, const std::string& to) {
    if (auto it = ints_.find(from); it != ints_.end()) ints_[to] = it->second;
    if (auto it = bools_.find(from); it != bools_.end())
      bools_[to] = it->second;
  }

  bool CarriesSequence(const onnx::NodeProto& loop) const {
    for (int i = 2; i < loop.input_size(); ++i) {
      if (sequences_.count(loop.input(i))) return true;
    }
    return false;
  }

  // The scalar integer constant `name` (input `what` of the node).
  absl::StatusOr<int64_t> ScalarInt(const std::string& name,
                                    std::string_view what) const {
    auto it = ints_.find(name);
    if (it == ints_.end()) {
      return absl::UnimplementedError(StrCat(
          what, " '", name,
          "' is known only when the model runs (not a constant); acldump has "
          "no run-time sequence type, so it must be a Constant or an "
          "initializer"));
    }
    if (it->second.values.size() != 1) {
      return absl::InvalidArgumentError(
          StrCat(what, " '", name, "' must be a scalar, it has ",
                 it->second.values.size(), " values"));
    }
    return it->second.values[0];
  }

  absl::StatusOr<std::vector<std::string>*> Sequence(const std::string& name) {
    auto it = sequences_.find(name);
    if (it == sequences_.end()) {
      return absl::UnimplementedError(
          StrCat("'", name,
                 "' is not a sequence the converter can follow (made by "
                 "SequenceEmpty, SequenceConstruct, SplitToSequence or a "
                 "Loop that builds one)"));
    }
    return &it->second;
  }

  // pos in [-n, n - 1] (or [-n, n] with `end_allowed`), made non-negative.
  static absl::StatusOr<size_t> Position(int64_t pos, size_t n,
                                         bool end_allowed) {
    const auto size = static_cast<int64_t>(n);
    const int64_t last = end_allowed ? size : size - 1;
    if (pos < -size || pos > last) {
      return absl::InvalidArgumentError(
          StrCat("position ", pos, " is outside [", -size, ", ", last,
                 "] for a sequence of ", n, " tensors"));
    }
    return static_cast<size_t>(pos < 0 ? pos + size : pos);
  }

  onnx::NodeProto* Emit(const std::string& op_type, const std::string& name) {
    ++work_;
    onnx::NodeProto* node = nodes_.Add();
    node->set_op_type(op_type);
    node->set_name(name);
    return node;
  }

  // A Constant node `name` whose tensor (value) the caller fills.
  onnx::TensorProto* EmitConstant(const std::string& name,
                                  const std::string& output,
                                  onnx::TensorProto::DataType type) {
    onnx::NodeProto* node = Emit("Constant", name);
    node->add_output(output);
    onnx::AttributeProto* attr = node->add_attribute();
    attr->set_name("value");
    attr->set_type(onnx::AttributeProto::TENSOR);
    attr->mutable_t()->set_data_type(type);
    return attr->mutable_t();
  }

  void EmitInt64(const std::string& name, const std::string& output,
                 const std::vector<int64_t>& values, bool scalar) {
    onnx::TensorProto* t = EmitConstant(name, output, onnx::TensorProto::INT64);
    if (!scalar) t->add_dims(static_cast<int64_t>(values.size()));
    for (int64_t v : values) t->add_int64_data(v);
    ints_[output] = {values, scalar};
  }

  void EmitBoolTrue(const std::string& name, const std::string& output) {
    EmitConstant(name, output, onnx::TensorProto::BOOL)->add_int32_data(1);
    bools_[output] = true;
  }

  absl::Status CheckTensorElement(const std::string& name) const {
    if (sequences_.count(name)) {
      return absl::UnimplementedError(
          StrCat("'", name,
                 "' is a sequence: sequences of sequences are not supported"));
    }
    return absl::OkStatus();
  }

  static std::string OptionalInput(const onnx::NodeProto& node, int i) {
    return i < node.input_size() ? node.input(i) : std::string();
  }

  absl::Status VisitSequenceOp(const onnx::NodeProto& node) {
    const std::string& op = node.op_type();
    if (node.output_size() != 1 || node.output(0).empty()) {
      return absl::InvalidArgumentError("needs exactly one named output");
    }
    const std::string& out = node.output(0);
    if (op == "SequenceEmpty") {
      sequences_[out] = {};
      return absl::OkStatus();
    }
    if (op == "SequenceConstruct") {
      for (const std::string& input : node.input()) {
        RETURN_IF_ERROR(CheckTensorElement(input));
      }
      work_ += node.input_size();
      sequences_[out] = {node.input().begin(), node.input().end()};
      return absl::OkStatus();
    }
    if (op == "SequenceInsert" || op == "SequenceErase") {
      ASSIGN_OR_RETURN(std::vector<std::string> * seq,
                       Sequence(OptionalInput(node, 0)));
      work_ += static_cast<int64_t>(seq->size()) + 1;
      std::vector<std::string> result = *seq;
      const int pos_slot = op == "SequenceInsert" ? 2 : 1;
      const std::string pos_name = OptionalInput(node, pos_slot);
      if (op == "SequenceInsert") {
        size_t at = result.size();
        if (!pos_name.empty()) {
          ASSIGN_OR_RETURN(int64_t pos, ScalarInt(pos_name, "position"));
          ASSIGN_OR_RETURN(at, Position(pos, result.size(), true));
        }
        RETURN_IF_ERROR(CheckTensorElement(OptionalInput(node, 1)));
        result.insert(result.begin() + static_cast<std::ptrdiff_t>(at),
                      OptionalInput(node, 1));
      } else {
        int64_t pos = -1;
        if (!pos_name.empty()) {
          ASSIGN_OR_RETURN(pos, ScalarInt(pos_name, "position"));
        }
        ASSIGN_OR_RETURN(size_t at, Position(pos, result.size(), false));
        result.erase(result.begin() + static_cast<std::ptrdiff_t>(at));
      }
      sequences_[out] = std::move(result);
      return absl::OkStatus();
    }
    if (op == "SequenceAt") {
      ASSIGN_OR_RETURN(std::vector<std::string> * seq,
                       Sequence(OptionalInput(node, 0)));
      ASSIGN_OR_RETURN(int64_t pos,
                       ScalarInt(OptionalInput(node, 1), "position"));
      ASSIGN_OR_RETURN(size_t at, Position(pos, seq->size(), false));
      onnx::NodeProto* identity = Emit("Identity", node.name());
      identity->add_input((*seq)[at]);
      identity->add_output(out);
      PropagateConstant((*seq)[at], out);
      return absl::OkStatus();
    }
    if (op == "SequenceLength") {
      ASSIGN_OR_RETURN(std::vector<std::string> * seq,
                       Sequence(OptionalInput(node, 0)));
      EmitInt64(node.name(), out, {static_cast<int64_t>(seq->size())}, true);
      return absl::OkStatus();
    }
    if (op == "ConcatFromSequence") {
      ASSIGN_OR_RETURN(std::vector<std::string> * seq,
                       Sequence(OptionalInput(node, 0)));
      const onnx::AttributeProto* axis = FindAttribute(node, "axis");
      if (axis == nullptr) {
        return absl::InvalidArgumentError("attribute 'axis' is required");
      }
      if (seq->empty()) {
        return absl::InvalidArgumentError(
            "the sequence is empty: there is nothing to concatenate");
      }
      std::vector<std::string> parts = *seq;
      if (IntAttribute(node, "new_axis", 0) != 0) {
        const std::string axes = Fresh(StrCat(node.name(), "/axes"));
        if (opset_ >= 13) EmitInt64(axes, axes, {axis->i()}, false);
        for (size_t k = 0; k < parts.size(); ++k) {
          onnx::NodeProto* unsqueeze =
              Emit("Unsqueeze", Fresh(StrCat(node.name(), "/unsqueeze_", k)));
          unsqueeze->add_input(parts[k]);
          if (opset_ >= 13) {
            unsqueeze->add_input(axes);
          } else {
            onnx::AttributeProto* attr = unsqueeze->add_attribute();
            attr->set_name("axes");
            attr->set_type(onnx::AttributeProto::INTS);
            attr->add_ints(axis->i());
          }
          parts[k] = Fresh(StrCat(node.name(), "/unsqueezed_", k));
          unsqueeze->add_output(parts[k]);
        }
      }
      onnx::NodeProto* concat = Emit("Concat", node.name());
      for (const std::string& part : parts) concat->add_input(part);
      concat->add_output(out);
      onnx::AttributeProto* attr = concat->add_attribute();
      attr->set_name("axis");
      attr->set_type(onnx::AttributeProto::INT);
      attr->set_i(axis->i());
      return absl::OkStatus();
    }
    if (op == "SplitToSequence") return SplitToSequence(node, out);
    return absl::UnimplementedError(
        StrCat(op, " is not supported: acldump has no run-time sequence type"));
  }

  // Split with explicit sizes; without them pieces of one (squeezed unless
  // keepdims), with a scalar pieces of that size, which needs the length of
  // the input's axis when converting (a constant or a graph input declared
  // with static dimensions).
  absl::Status SplitToSequence(const onnx::NodeProto& node,
                               const std::string& out) {
    const std::string input = OptionalInput(node, 0);
    const std::string split = OptionalInput(node, 1);
    int64_t axis = IntAttribute(node, "axis", 0);
    const bool keepdims = IntAttribute(node, "keepdims", 1) != 0;
    std::vector<int64_t> sizes;
    auto given = ints_.find(split);
    if (!split.empty() && given == ints_.end()) {
      return absl::UnimplementedError(StrCat(
          "split '", split,
          "' is known only when the model runs: the number of pieces depends "
          "on it, and acldump has no run-time sequence type"));
    }
    const bool ones = split.empty();
    if (!ones && !given->second.scalar) {
      sizes = given->second.values;
    } else {
      auto dims = dims_.find(input);
      if (dims == dims_.end()) {
        return absl::UnimplementedError(StrCat(
            ones ? std::string("no split sizes are given")
                 : StrCat("split '", split, "' is one size"),
            ": the number of pieces depends on the length of '", input,
            "' along axis ", axis,
            ", which the converter knows only for a constant or a graph input "
            "declared with static dimensions"));
      }
      const auto rank = static_cast<int64_t>(dims->second.size());
      if (axis < -rank || axis >= rank) {
        return absl::InvalidArgumentError(
            StrCat("axis ", axis, " is outside [", -rank, ", ", rank - 1, "]"));
      }
      if (axis < 0) axis += rank;
      const int64_t length = dims->second[static_cast<size_t>(axis)];
      const int64_t piece = ones ? 1 : given->second.values[0];
      if (piece <= 0) {
        return absl::InvalidArgumentError(
            StrCat("split size ", piece, " must be positive"));
      }
      if (length / piece > kMaxConstantElements) {
        return absl::InvalidArgumentError(
            StrCat("splitting ", length, " into pieces of ", piece,
                   " makes more than ", kMaxConstantElements, " tensors"));
      }
      for (int64_t at = 0; at < length; at += piece) {
        sizes.push_back(std::min(piece, length - at));
      }
    }
    if (sizes.empty()) {
      sequences_[out] = {};
      return absl::OkStatus();
    }
    onnx::NodeProto* node_split = Emit("Split", node.name());
    node_split->add_input(input);
    if (opset_ >= 13) {
      const std::string sizes_name = Fresh(StrCat(node.name(), "/split"));
      EmitInt64(sizes_name, sizes_name, sizes, false);
      node_split->add_input(sizes_name);
    } else {
      onnx::AttributeProto* attr = node_split->add_attribute();
      attr->set_name("split");
      attr->set_type(onnx::AttributeProto::INTS);
      for (int64_t v : sizes) attr->add_ints(v);
    }
    onnx::AttributeProto* attr = node_split->add_attribute();
    attr->set_name("axis");
    attr->set_type(onnx::AttributeProto::INT);
    attr->set_i(axis);
    const bool squeeze = ones && !keepdims;
    const std::string axes =
        squeeze && opset_ >= 13 ? Fresh(StrCat(node.name(), "/axes")) : "";
    if (!axes.empty()) EmitInt64(axes, axes, {axis}, false);
    std::vector<std::string> pieces;
    for (size_t k = 0; k < sizes.size(); ++k) {
      pieces.push_back(Fresh(StrCat(out, "/", k)));
      node_split->add_output(pieces.back());
      if (!squeeze) continue;
      onnx::NodeProto* squeezer =
          Emit("Squeeze", Fresh(StrCat(node.name(), "/squeeze_", k)));
      squeezer->add_input(pieces.back());
      if (!axes.empty()) {
        squeezer->add_input(axes);
      } else {
        onnx::AttributeProto* axes_attr = squeezer->add_attribute();
        axes_attr->set_name("axes");
        axes_attr->set_type(onnx::AttributeProto::INTS);
        axes_attr->add_ints(axis);
      }
      pieces.back() = Fresh(StrCat(out, "/squeezed_", k));
      squeezer->add_output(pieces.back());
    }
    work_ += static_cast<int64_t>(pieces.size());
    sequences_[out] = std::move(pieces);
    return absl::OkStatus();
  }

  absl::Status Unroll(const onnx::NodeProto& loop) {
    const onnx::AttributeProto* body_attr = FindAttribute(loop, "body");
    if (body_attr == nullptr || !body_attr->has_g()) {
      return absl::InvalidArgumentError("attribute 'body' is missing");
    }
    const onnx::GraphProto& body = body_attr->g();
    const int carried = loop.input_size() - 2;
    if (body.input_size() != carried + 2 || body.output_size() < carried + 1) {
      return absl::InvalidArgumentError(
          StrCat("the body has ", body.input_size(), " inputs and ",
                 body.output_size(), " outputs for ", carried,
                 " loop-carried values"));
    }
    std::set<std::string> body_inputs;
    for (const onnx::ValueInfoProto& input : body.input()) {
      if (input.name().empty() || !body_inputs.insert(input.name()).second) {
        return absl::InvalidArgumentError(
            StrCat("the body's inputs must have distinct names, got '",
                   input.name(), "' empty or twice"));
      }
    }
    if (body.output_size() > carried + 1) {
      return absl::UnimplementedError(
          "a Loop that builds a sequence and has scan outputs is not "
          "supported (acldump unrolls such a Loop at convert time)");
    }
    if (body.initializer_size() > 0) {
      return absl::UnimplementedError(
          "a Loop that builds a sequence and has initializers in its body is "
          "not supported");
    }
    for (const onnx::NodeProto& inner : body.node()) {
      if (HasGraphAttribute(inner)) {
        return absl::UnimplementedError(StrCat(
            "a Loop that builds a sequence is unrolled at convert time, and "
            "its body node '",
            inner.name(), "' (", inner.op_type(),
            ") has a subgraph of its own: not supported"));
      }
    }
    const std::string trip_name = loop.input(0);
    if (trip_name.empty()) {
      return absl::UnimplementedError(
          "the Loop builds a sequence and has no trip count: how many times "
          "it runs is known only when the model runs");
    }
    ASSIGN_OR_RETURN(int64_t trips, ScalarInt(trip_name, "trip count"));
    // A negative trip count runs no iteration, as in ONNX Runtime.
    trips = std::max<int64_t>(trips, 0);
    if (trips > kMaxUnrolledIterations) {
      return absl::InvalidArgumentError(
          StrCat("trip count ", trips, " is more than ", kMaxUnrolledIterations,
                 " (the Loop is unrolled)"));
    }
    std::string cond = loop.input(1);
    if (!cond.empty()) {
      auto known = bools_.find(cond);
      if (known == bools_.end()) {
        return absl::UnimplementedError(
            StrCat("the Loop builds a sequence and its condition '", cond,
                   "' is known only when the model runs"));
      }
      if (!known->second) trips = 0;
    } else {
      cond = Fresh(StrCat(loop.name(), "/condition"));
      EmitBoolTrue(cond, cond);
    }
    unrolled_nodes_ += trips * (body.node_size() + 1);
    if (unrolled_nodes_ > kMaxUnrolledNodes) {
      return absl::ResourceExhaustedError(
          StrCat("unrolling the Loops that build sequences would make more "
                 "than ",
                 kMaxUnrolledNodes, " nodes"));
    }
    std::vector<std::string> values(loop.input().begin() + 2,
                                    loop.input().end());
    for (int64_t it = 0; it < trips; ++it) {
      const std::string prefix = StrCat(loop.name(), "/body/", it, "/");
      std::map<std::string, std::string> renamed;
      const std::string iteration = Fresh(StrCat(prefix, "iteration"));
      EmitInt64(iteration, iteration, {it}, true);
      renamed[body.input(0).name()] = iteration;
      renamed[body.input(1).name()] = cond;
      for (int k = 0; k < carried; ++k) {
        renamed[body.input(k + 2).name()] = values[static_cast<size_t>(k)];
      }
      for (int j = 0; j < body.node_size(); ++j) {
        onnx::NodeProto clone = body.node(j);
        const std::string body_name = clone.name().empty()
                                          ? StrCat(clone.op_type(), "_", j)
                                          : clone.name();
        clone.set_name(Fresh(StrCat(prefix, body_name)));
        original_names_[clone.name()] = {
            body_name, StrCat(loop.name(), "/body/", body_name)};
        for (std::string& input : *clone.mutable_input()) {
          if (auto r = renamed.find(input); r != renamed.end()) {
            input = r->second;
          }
        }
        for (std::string& output : *clone.mutable_output()) {
          if (output.empty()) continue;
          const std::string fresh = Fresh(StrCat(prefix, output));
          renamed[output] = fresh;
          output = fresh;
        }
        RETURN_IF_ERROR(Visit(clone));
      }
      auto mapped = [&](const std::string& name) {
        auto r = renamed.find(name);
        return r != renamed.end() ? r->second : name;
      };
      cond = mapped(body.output(0).name());
      for (int k = 0; k < carried; ++k) {
        values[static_cast<size_t>(k)] = mapped(body.output(k + 1).name());
      }
      if (it + 1 == trips) break;
      auto known = bools_.find(cond);
      if (known == bools_.end()) {
        return absl::UnimplementedError(StrCat(
            "the Loop builds a sequence and its body computes its condition "
            "('",
            body.output(0).name(),
            "'): how many times it runs is known only when the model runs"));
      }
      if (!known->second) break;
    }
    for (int k = 0; k < loop.output_size() && k < carried; ++k) {
      const std::string& out = loop.output(k);
      const std::string& value = values[static_cast<size_t>(k)];
      if (out.empty()) continue;
      if (auto seq = sequences_.find(value); seq != sequences_.end()) {
        work_ += static_cast<int64_t>(seq->second.size());
        sequences_[out] = seq->second;
        continue;
      }
      onnx::NodeProto* identity =
          Emit("Identity", Fresh(StrCat(loop.name(), "/output_", k)));
      original_names_[identity->name()] = {loop.name()};
      identity->add_input(value);
      identity->add_output(out);
      PropagateConstant(value, out);
    }
    return absl::OkStatus();
  }

  struct IntConstant {
    std::vector<int64_t> values;
    bool scalar = false;
  };

  int64_t opset_;
  int64_t unrolled_nodes_ = 0;
  int64_t work_ = 0;
  std::set<std::string> taken_;
  std::map<std::string, IntConstant, std::less<>> ints_;
  std::map<std::string, bool, std::less<>> bools_;
  // Dimensions known when converting: initializers, static graph inputs.
  std::map<std::string, std::vector<int64_t>, std::less<>> dims_;
  std::map<std::string, std::vector<std::string>, std::less<>> sequences_;
  std::map<std::string, std::vector<std::string>> original_names_;
  google::protobuf::RepeatedPtrField<onnx::NodeProto> nodes_;
};

}  // namespace

bool IsSequenceOp(const std::string& op_type) {
  return SequenceOps().count(op_type) > 0;
}

absl::StatusOr<std::optional<ResolvedSequences>> ResolveStaticSequences(
    const onnx::GraphProto& graph, int64_t opset) {
  bool any = false;
  for (const onnx::NodeProto& node : graph.node()) {
    any = any || IsSequenceOp(node.op_type());
  }
  if (!any) return std::optional<ResolvedSequences>();
  Resolver resolver(graph, opset);
  resolver.RecordInitializers(graph);
  for (int i = 0; i < graph.node_size(); ++i) {
    const onnx::NodeProto& node = graph.node(i);
    if (!node.name().empty()) {
      RETURN_IF_ERROR(resolver.Visit(node));
      continue;
    }
    // Named as the import names an unnamed node, so that the unrolled
    // body's nodes carry a name.
    onnx::NodeProto named = node;
    named.set_name(resolver.Fresh(StrCat(node.op_type(), "_", i)));
    RETURN_IF_ERROR(resolver.Visit(named));
  }
  RETURN_IF_ERROR(resolver.CheckOutputs(graph));
  return std::optional<ResolvedSequences>(std::move(resolver).Result());
}

}  // namespace acldump
