// Quantized models in QDQ form (DequantizeLinear -> float op -> QuantizeLinear,
// as PyTorch and ONNX Runtime's quantizer export them) run their operators on
// the 8-bit values, as ONNX Runtime does: each group becomes QLinearConv,
// QGemm, QLinearAdd or QLinearGlobalAveragePool, whose integer sums and
// rounding are ONNX Runtime's. The float ops in between would otherwise round
// differently, and a value on a quantization boundary lands one step away.
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/status_macros.h"
#include "runtime/graph_edit.h"
#include "runtime/passes.h"

namespace acldump {
namespace {

using graph_edit::ConstantValue;
using graph_edit::HoistConstantsBefore;
using graph_edit::SoleConsumer;

// A DequantizeLinear node's inputs, with a constant scale and zero point.
struct Dequantized {
  std::string data, scale, zero_point;
  const Tensor* scale_value = nullptr;
  const Tensor* zero_point_value = nullptr;
  const Tensor* data_value = nullptr;  // when the data is a constant too
  int64_t axis = 1;
  bool per_tensor() const { return scale_value->NumElements() == 1; }
};

bool Is8Bit(DType type) {
  return type == DType::kUInt8 || type == DType::kInt8;
}

std::optional<Dequantized> DequantizedFrom(const Graph& graph,
                                           const std::string& value) {
  const int producer = graph.ProducerOf(value);
  if (producer < 0) return std::nullopt;
  const GraphNode& node = graph.nodes[producer];
  if (node.op_type != "DequantizeLinear" || node.inputs.size() != 3 ||
      node.inputs[2].empty() || node.attrs.Has("block_size")) {
    return std::nullopt;
  }
  Dequantized d{node.inputs[0], node.inputs[1], node.inputs[2]};
  d.scale_value = ConstantValue(graph, d.scale);
  d.zero_point_value = ConstantValue(graph, d.zero_point);
  d.data_value = ConstantValue(graph, d.data);
  if (d.scale_value == nullptr || d.zero_point_value == nullptr ||
      d.scale_value->dtype() != DType::kFloat32 ||
      d.zero_point_value->NumElements() != d.scale_value->NumElements()) {
    return std::nullopt;
  }
  absl::StatusOr<int64_t> axis = node.attrs.GetInt("axis", 1);
  if (!axis.ok()) return std::nullopt;
  d.axis = *axis;
  return d;
}

// An activation's DequantizeLinear: per tensor, 8-bit.
std::optional<Dequantized> ActivationFrom(const Graph& graph,
                                          const std::string& value) {
  std::optional<Dequantized> d = DequantizedFrom(graph, value);
  if (!d || !d->per_tensor() || !Is8Bit(d->zero_point_value->dtype())) {
    return std::nullopt;
  }
  return d;
}

// A constant 8-bit weight's DequantizeLinear: per tensor, or per channel
// along `channel_axis` with `channels` values, zero points of the data's type.
std::optional<Dequantized> WeightFrom(const Graph& graph,
                                      const std::string& value,
                                      int64_t channel_axis, int64_t channels) {
  std::optional<Dequantized> d = DequantizedFrom(graph, value);
  if (!d || d->data_value == nullptr || !Is8Bit(d->data_value->dtype()) ||
      d->zero_point_value->dtype() != d->data_value->dtype()) {
    return std::nullopt;
  }
  if (d->per_tensor()) return d;
  const int64_t rank = static_cast<int64_t>(d->data_value->shape().rank());
  const int64_t axis = d->axis < 0 ? d->axis + rank : d->axis;
  if (axis != channel_axis || d->scale_value->NumElements() != channels ||
      d->scale_value->shape().rank() != 1) {
    return std::nullopt;
  }
  return d;
}

// The value of element `i` of a constant scale (float32) or zero point.
float FloatAt(const Tensor& t, int64_t i) {
  return t.as<float>()[t.NumElements() == 1 ? 0 : i];
}

// A bias that is int32 data dequantized with zero point 0 and scale
// x_scale * w_scale (per channel), as quantizers write it: the integer
// product can add the int32 values directly. Its data value, else null.
const Tensor* IntegerBias(const Graph& graph, const std::string& value,
                          const Dequantized& x, const Dequantized& w,
                          int64_t channels) {
  std::optional<Dequantized> b = DequantizedFrom(graph, value);
  if (!b || b->data_value == nullptr ||
      b->data_value->dtype() != DType::kInt32 ||
      b->data_value->NumElements() != channels ||
      b->data_value->shape().rank() != 1) {
    return nullptr;
  }
  const Tensor& zero = *b->zero_point_value;
  const int64_t scales = b->scale_value->NumElements();
  if (zero.dtype() != DType::kInt32 || (scales != 1 && scales != channels)) {
    return nullptr;
  }
  const float x_scale = FloatAt(*x.scale_value, 0);
  for (int64_t c = 0; c < channels; ++c) {
    if (zero.as<int32_t>()[zero.NumElements() == 1 ? 0 : c] != 0) {
      return nullptr;
    }
    const float expected = x_scale * FloatAt(*w.scale_value, c);
    const float scale = FloatAt(*b->scale_value, c);
    if (!(std::fabs(scale - expected) <= 1e-6f * std::fabs(expected))) {
      return nullptr;
    }
  }
  return b->data_value;
}

// The QuantizeLinear node that alone reads `value`, per tensor with a
// constant scale and an 8-bit zero point: its index, else -1.
int QuantizeAfter(const Graph& graph, const std::string& value) {
  const int index = SoleConsumer(graph, value);
  if (index < 0) return -1;
  const GraphNode& q = graph.nodes[index];
  if (q.op_type != "QuantizeLinear" || q.inputs.size() != 3 ||
      q.inputs[0] != value || q.inputs[2].empty() ||
      q.attrs.Has("output_dtype") || q.attrs.Has("block_size")) {
    return -1;
  }
  const Tensor* scale = ConstantValue(graph, q.inputs[1]);
  const Tensor* zero = ConstantValue(graph, q.inputs[2]);
  if (scale == nullptr || zero == nullptr || scale->NumElements() != 1 ||
      zero->NumElements() != 1 || scale->dtype() != DType::kFloat32 ||
      !Is8Bit(zero->dtype())) {
    return -1;
  }
  return index;
}

int32_t ZeroPointValue(const Tensor& zero) {
  return zero.dtype() == DType::kInt8 ? zero.as<int8_t>()[0]
                                      : zero.as<uint8_t>()[0];
}

bool ReadBySubgraph(const Graph& graph, const std::string& value) {
  for (const GraphNode& node : graph.nodes) {
    for (const std::string& implicit : node.implicit_inputs) {
      if (implicit == value) return true;
    }
  }
  return false;
}

// A node name no node has yet: `base`, or `base_N`.
std::string UniqueNodeName(const Graph& graph, const std::string& base) {
  std::string name = base;
  for (int i = 1;; ++i) {
    bool taken = false;
    for (const GraphNode& node : graph.nodes) taken |= node.name == name;
    if (!taken) return name;
    name = base + "_" + std::to_string(i);
  }
}

// Cast of a value to the type it already has (PyTorch writes one between
// each QuantizeLinear and DequantizeLinear): readers read the input.
void RemoveNoOpCasts(
    Graph& graph, const std::map<std::string, TensorInfo, std::less<>>& infos) {
  for (size_t i = 0; i < graph.nodes.size();) {
    const GraphNode& cast = graph.nodes[i];
    auto in = infos.find(cast.op_type == "Cast" && cast.inputs.size() == 1
                             ? cast.inputs[0]
                             : std::string());
    auto out =
        cast.outputs.size() == 1 ? infos.find(cast.outputs[0]) : infos.end();
    if (cast.op_type != "Cast" || in == infos.end() || out == infos.end() ||
        in->second.dtype != out->second.dtype ||
        graph.IsGraphOutput(cast.outputs[0]) ||
        ReadBySubgraph(graph, cast.outputs[0])) {
      ++i;
      continue;
    }
    const std::string from = cast.inputs[0], to = cast.outputs[0];
    const std::vector<std::string> names = cast.original_names;
    for (GraphNode& node : graph.nodes) {
      for (std::string& input : node.inputs) {
        if (input == to) input = from;
      }
    }
    graph.nodes.erase(graph.nodes.begin() + static_cast<int64_t>(i));
    // A dump that names the Cast gets the value it passed on.
    const int producer = graph.ProducerOf(from);
    if (producer >= 0) {
      std::vector<std::string>& kept = graph.nodes[producer].original_names;
      kept.insert(kept.end(), names.begin(), names.end());
    }
  }
}

// Relu -> QuantizeLinear whose zero point is its type's lowest value: the
// quantization clamps negatives to that value as the Relu did, so the Relu
// goes (its name stays with the QuantizeLinear).
void RemoveReluBeforeQuantize(Graph& graph) {
  for (size_t i = 0; i < graph.nodes.size();) {
    const GraphNode& relu = graph.nodes[i];
    const int q = relu.op_type == "Relu" && relu.inputs.size() == 1 &&
                          relu.outputs.size() == 1
                      ? QuantizeAfter(graph, relu.outputs[0])
                      : -1;
    const Tensor* zero =
        q < 0 ? nullptr : ConstantValue(graph, graph.nodes[q].inputs[2]);
    const Tensor* scale =
        q < 0 ? nullptr : ConstantValue(graph, graph.nodes[q].inputs[1]);
    // Negatives clamp to the lowest value only with a positive scale.
    const bool at_lowest =
        zero != nullptr && scale != nullptr && scale->as<float>()[0] > 0.0f &&
        std::isfinite(scale->as<float>()[0]) &&
        ZeroPointValue(*zero) == (zero->dtype() == DType::kInt8 ? -128 : 0);
    if (!at_lowest) {
      ++i;
      continue;
    }
    GraphNode& quantize = graph.nodes[q];
    quantize.inputs[0] = relu.inputs[0];
    std::vector<std::string> names = relu.original_names;
    names.insert(names.end(), quantize.original_names.begin(),
                 quantize.original_names.end());
    quantize.original_names = std::move(names);
    graph.nodes.erase(graph.nodes.begin() + static_cast<int64_t>(i));
  }
}

// DequantizeLinear (per tensor) -> Flatten or Reshape becomes Flatten or
// Reshape of the 8-bit values -> DequantizeLinear: the same values, and the
// group after it (a classifier's Gemm) then starts at a DequantizeLinear.
void MoveDequantizeAfterReshapes(Graph& graph) {
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const GraphNode& node = graph.nodes[i];
    if ((node.op_type != "Flatten" && node.op_type != "Reshape") ||
        node.inputs.empty() || node.outputs.size() != 1) {
      continue;
    }
    std::optional<Dequantized> x = ActivationFrom(graph, node.inputs[0]);
    if (!x || SoleConsumer(graph, node.inputs[0]) != static_cast<int>(i)) {
      continue;
    }
    const std::string out = node.outputs[0];
    const std::string moved =
        graph_edit::UniqueInitializerName(graph, out + "_quantized");
    GraphNode dequantize;
    dequantize.op_type = "DequantizeLinear";
    dequantize.name = UniqueNodeName(graph, node.name + "_dequantize");
    dequantize.inputs = {moved, x->scale, x->zero_point};
    dequantize.outputs = {out};
    // Its output is the reshaped real values, as the Reshape's was; the
    // Reshape (no task of its own) now moves 8-bit values.
    dequantize.original_names = node.original_names;
    graph.nodes[i].inputs[0] = x->data;
    graph.nodes[i].outputs[0] = moved;
    graph.nodes.insert(graph.nodes.begin() + static_cast<int64_t>(i) + 1,
                       std::move(dequantize));
    ++i;
  }
}

// `merged` takes the place of the node at `index` and of the QuantizeLinear
// at `q`, with the latter's output. The Constant nodes it reads that came
// after the node (the QuantizeLinear's scale, as PyTorch places it) move up.
void MergeWithQuantize(Graph& graph, int index, int q, GraphNode merged,
                       bool append_quantize_inputs = true) {
  if (append_quantize_inputs) {
    const GraphNode& quantize = graph.nodes[q];
    merged.inputs.push_back(quantize.inputs[1]);
    merged.inputs.push_back(quantize.inputs[2]);
  }
  index = HoistConstantsBefore(graph, merged.inputs, index);
  graph_edit::Merge(graph, index, q, std::move(merged));
}

// A group around `node`: the QuantizeLinear alone reading its one output
// (index `q`) and the activation DequantizeLinear of its first input.
struct Group {
  int q = -1;
  Dequantized input;
};

std::optional<Group> GroupAround(const Graph& graph, const GraphNode& node) {
  if (node.inputs.empty() || node.outputs.size() != 1 ||
      node.attrs.Has("fused_activation")) {
    return std::nullopt;
  }
  const int q = QuantizeAfter(graph, node.outputs[0]);
  std::optional<Dequantized> input = ActivationFrom(graph, node.inputs[0]);
  if (q < 0 || !input) return std::nullopt;
  return Group{q, *input};
}

bool FuseConv(Graph& graph, int index) {
  const GraphNode& conv = graph.nodes[index];
  std::optional<Group> group = GroupAround(graph, conv);
  if (conv.inputs.size() < 2 || !group) return false;
  const int q = group->q;
  const Dequantized* x = &group->input;
  std::optional<Dequantized> w_any = DequantizedFrom(graph, conv.inputs[1]);
  if (!w_any || w_any->data_value == nullptr ||
      w_any->data_value->shape().rank() < 3) {
    return false;
  }
  const int64_t channels = w_any->data_value->shape()[0];
  std::optional<Dequantized> w = WeightFrom(graph, conv.inputs[1], 0, channels);
  if (!w) return false;
  const bool has_bias = conv.inputs.size() > 2 && !conv.inputs[2].empty();
  if (has_bias &&
      IntegerBias(graph, conv.inputs[2], *x, *w, channels) == nullptr) {
    return false;
  }
  GraphNode merged;
  merged.op_type = "QLinearConv";
  merged.attrs = conv.attrs;
  merged.inputs = {x->data, x->scale, x->zero_point,
                   w->data, w->scale, w->zero_point};
  const GraphNode& quantize = graph.nodes[q];
  merged.inputs.push_back(quantize.inputs[1]);
  merged.inputs.push_back(quantize.inputs[2]);
  if (has_bias) {
    merged.inputs.push_back(
        graph.nodes[graph.ProducerOf(conv.inputs[2])].inputs[0]);
  }
  MergeWithQuantize(graph, index, q, std::move(merged), false);
  return true;
}

bool FuseGemm(Graph& graph, int index) {
  const GraphNode& gemm = graph.nodes[index];
  std::optional<Group> group = GroupAround(graph, gemm);
  if (gemm.inputs.size() < 2 || !group) return false;
  absl::StatusOr<int64_t> trans_a = gemm.attrs.GetInt("transA", 0);
  absl::StatusOr<int64_t> trans_b = gemm.attrs.GetInt("transB", 0);
  absl::StatusOr<float> beta = gemm.attrs.GetFloat("beta", 1.0f);
  if (!trans_a.ok() || !trans_b.ok() || !beta.ok() || *trans_a != 0) {
    return false;
  }
  const int q = group->q;
  const Dequantized* a = &group->input;
  std::optional<Dequantized> b_any = DequantizedFrom(graph, gemm.inputs[1]);
  if (!b_any || b_any->data_value == nullptr ||
      b_any->data_value->shape().rank() != 2) {
    return false;
  }
  const int64_t column_axis = *trans_b != 0 ? 0 : 1;
  const int64_t columns = b_any->data_value->shape()[column_axis];
  std::optional<Dequantized> b =
      WeightFrom(graph, gemm.inputs[1], column_axis, columns);
  if (!b) return false;
  const bool has_c = gemm.inputs.size() > 2 && !gemm.inputs[2].empty();
  absl::StatusOr<float> alpha = gemm.attrs.GetFloat("alpha", 1.0f);
  // The int32 bias joins the product before the scale, alpha included: only
  // alpha 1 keeps it alpha-free as Gemm's bias is.
  if (has_c &&
      (*beta != 1.0f || !alpha.ok() || *alpha != 1.0f ||
       IntegerBias(graph, gemm.inputs[2], *a, *b, columns) == nullptr)) {
    return false;
  }
  GraphNode merged;
  merged.op_type = "QGemm";
  merged.attrs = gemm.attrs;
  merged.inputs = {a->data, a->scale, a->zero_point,
                   b->data, b->scale, b->zero_point};
  merged.inputs.push_back(
      has_c ? graph.nodes[graph.ProducerOf(gemm.inputs[2])].inputs[0] : "");
  MergeWithQuantize(graph, index, q, std::move(merged));
  return true;
}

bool FuseAdd(Graph& graph, int index,
             const std::map<std::string, TensorInfo, std::less<>>& infos) {
  const GraphNode& add = graph.nodes[index];
  std::optional<Group> group = GroupAround(graph, add);
  std::optional<Dequantized> b = add.inputs.size() == 2
                                     ? ActivationFrom(graph, add.inputs[1])
                                     : std::nullopt;
  if (!group || !b) return false;
  const int q = group->q;
  const Dequantized* a = &group->input;
  const Tensor* y_zero = ConstantValue(graph, graph.nodes[q].inputs[2]);
  auto a_info = infos.find(a->data), b_info = infos.find(b->data);
  if (a_info == infos.end() || b_info == infos.end() ||
      a_info->second.dtype != b_info->second.dtype ||
      a_info->second.dtype != y_zero->dtype()) {
    return false;
  }
  const Shape& a_shape = a_info->second.shape;
  const Shape& b_shape = b_info->second.shape;
  const bool a_single = a_shape.NumElements() == 1;
  const bool b_single = b_shape.NumElements() == 1;
  // One value broadcast keeps the other's shape only when its rank is not
  // larger (two single values: the same shape).
  const bool same =
      a_shape == b_shape ||
      (a_single && !b_single && a_shape.rank() <= b_shape.rank()) ||
      (b_single && !a_single && b_shape.rank() <= a_shape.rank());
  if (!same) return false;
  GraphNode merged;
  merged.op_type = "QLinearAdd";
  merged.inputs = {a->data, a->scale, a->zero_point,
                   b->data, b->scale, b->zero_point};
  MergeWithQuantize(graph, index, q, std::move(merged));
  return true;
}

bool FuseGlobalAveragePool(Graph& graph, int index) {
  const GraphNode& pool = graph.nodes[index];
  std::optional<Group> group = GroupAround(graph, pool);
  if (pool.inputs.size() != 1 || !group) return false;
  const int q = group->q;
  const Dequantized* x = &group->input;
  const Tensor* y_zero = ConstantValue(graph, graph.nodes[q].inputs[2]);
  if (y_zero->dtype() != x->zero_point_value->dtype()) return false;
  GraphNode merged;
  merged.op_type = "QLinearGlobalAveragePool";
  merged.inputs = {x->data, x->scale, x->zero_point};
  MergeWithQuantize(graph, index, q, std::move(merged));
  return true;
}

// 2-D AveragePool with explicit pads and no ceil_mode, auto_pad or dilations
// (what the QLinearAveragePool kernel takes).
bool FuseAveragePool(
    Graph& graph, int index,
    const std::map<std::string, TensorInfo, std::less<>>& infos) {
  const GraphNode& pool = graph.nodes[index];
  if (pool.inputs.size() != 1 || pool.outputs.size() != 1 ||
      pool.attrs.Has("auto_pad") || pool.attrs.Has("dilations")) {
    return false;
  }
  absl::StatusOr<int64_t> ceil_mode = pool.attrs.GetInt("ceil_mode", 0);
  auto info = infos.find(pool.inputs[0]);
  if (!ceil_mode.ok() || *ceil_mode != 0 || info == infos.end() ||
      info->second.shape.rank() != 4) {
    return false;
  }
  std::optional<Group> group = GroupAround(graph, pool);
  if (!group) return false;
  const int q = group->q;
  const Dequantized* x = &group->input;
  const Tensor* y_zero = ConstantValue(graph, graph.nodes[q].inputs[2]);
  if (y_zero->dtype() != x->zero_point_value->dtype()) return false;
  GraphNode merged;
  merged.op_type = "QLinearAveragePool";
  merged.attrs = pool.attrs;
  merged.inputs = {x->data, x->scale, x->zero_point};
  MergeWithQuantize(graph, index, q, std::move(merged));
  return true;
}

// DequantizeLinear -> MaxPool -> QuantizeLinear with the same scale and zero
// point is MaxPool of the 8-bit values: the largest value dequantizes to the
// largest float and quantizes back to itself. ONNX Runtime drops the pair the
// same way.
bool FuseMaxPool(Graph& graph, int index) {
  const GraphNode& pool = graph.nodes[index];
  if (pool.inputs.size() != 1 || pool.outputs.size() != 1) return false;
  std::optional<Group> group = GroupAround(graph, pool);
  if (!group) return false;
  const GraphNode& quantize = graph.nodes[group->q];
  const Tensor* y_scale = ConstantValue(graph, quantize.inputs[1]);
  const Tensor* y_zero = ConstantValue(graph, quantize.inputs[2]);
  const Dequantized& x = group->input;
  // (QuantizeAfter checked the pair is per tensor, float32 and 8-bit.)
  if (y_zero->dtype() != x.zero_point_value->dtype() ||
      y_scale->as<float>()[0] != x.scale_value->as<float>()[0] ||
      ZeroPointValue(*y_zero) != ZeroPointValue(*x.zero_point_value)) {
    return false;
  }
  GraphNode merged;
  merged.op_type = "MaxPool";
  merged.attrs = pool.attrs;
  merged.inputs = {x.data};
  MergeWithQuantize(graph, index, group->q, std::move(merged),
                    /*append_quantize_inputs=*/false);
  return true;
}

// DequantizeLinear nodes no fused node left a reader for.
void RemoveUnreadDequantize(Graph& graph) {
  for (bool removed = true; removed;) {
    removed = false;
    for (size_t i = graph.nodes.size(); i-- > 0;) {
      const GraphNode& node = graph.nodes[i];
      if (node.op_type == "DequantizeLinear" && node.outputs.size() == 1 &&
          graph.ConsumersOf(node.outputs[0]).empty() &&
          !graph.IsGraphOutput(node.outputs[0])) {
        graph.nodes.erase(graph.nodes.begin() + static_cast<int64_t>(i));
        removed = true;
      }
    }
  }
}

}  // namespace

absl::Status FuseQuantizedGroups(Graph& graph, const OpRegistry& registry) {
  bool any = false;
  for (const GraphNode& node : graph.nodes) {
    any |= node.op_type == "QuantizeLinear";
  }
  if (!any) return absl::OkStatus();
  ASSIGN_OR_RETURN(auto infos, InferValueInfos(graph, registry));
  RemoveNoOpCasts(graph, infos);
  RemoveReluBeforeQuantize(graph);
  MoveDequantizeAfterReshapes(graph);
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const std::string& op = graph.nodes[i].op_type;
    const int index = static_cast<int>(i);
    if (op == "Conv") {
      FuseConv(graph, index);
    } else if (op == "Gemm") {
      FuseGemm(graph, index);
    } else if (op == "Add") {
      FuseAdd(graph, index, infos);
    } else if (op == "GlobalAveragePool") {
      FuseGlobalAveragePool(graph, index);
    } else if (op == "AveragePool") {
      FuseAveragePool(graph, index, infos);
    } else if (op == "MaxPool") {
      FuseMaxPool(graph, index);
    }
  }
  RemoveUnreadDequantize(graph);
  return absl::OkStatus();
}

}  // namespace acldump
