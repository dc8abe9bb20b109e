// The fusions: MatMul+Add, Conv+Add, activations into their producer, and the
// Swish, HardSwish, LayerNorm and GELU chains exporters spell out, each into
// one node that keeps every member's original name.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <set>

#include "base/status_macros.h"
#include "base/strings.h"
#include "kernels/vector_math.h"
#include "runtime/graph_edit.h"
#include "runtime/passes.h"

namespace acldump {

using graph_edit::ConstantValue;
using graph_edit::HoistConstantsBefore;
using graph_edit::Merge;
using graph_edit::ScalarFloat32;
using graph_edit::SoleConsumer;

absl::Status FuseMatMulAdd(Graph& graph, const OpRegistry& registry) {
  ASSIGN_OR_RETURN(auto infos, InferValueInfos(graph, registry));
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const GraphNode& matmul = graph.nodes[i];
    if (matmul.op_type != "MatMul" || matmul.attrs.size() != 0) continue;
    const TensorInfo& a = infos[matmul.inputs[0]];
    const Tensor* b = ConstantValue(graph, matmul.inputs[1]);
    if (a.shape.rank() < 2 || b == nullptr || b->shape().rank() != 2 ||
        b->dtype() != a.dtype ||
        (a.dtype != DType::kFloat32 && a.dtype != DType::kFloat64)) {
      continue;
    }
    const int add_index = SoleConsumer(graph, matmul.outputs[0]);
    if (add_index < 0 || graph.nodes[add_index].op_type != "Add") continue;
    const GraphNode& add = graph.nodes[add_index];
    const std::string& other =
        add.inputs[0] == matmul.outputs[0] ? add.inputs[1] : add.inputs[0];
    const Tensor* c = ConstantValue(graph, other);
    // 2-D A: a Gemm, whose C must broadcast to [M, N] without changing the
    // output shape. Batched rows (a transformer's Linear on [batch, tokens,
    // features]): a MatMul taking a float32 bias along the last axis as its
    // third input, added after the product as the Add did.
    const bool batched = a.shape.rank() > 2;
    const int64_t m = a.shape[0], n = b->shape()[1];
    if (c == nullptr) continue;
    const Shape& cs = c->shape();
    const bool fits =
        batched ? a.dtype == DType::kFloat32 && c->dtype() == DType::kFloat32 &&
                      c->NumElements() == n && cs.rank() > 0 &&
                      cs.rank() <= a.shape.rank() && cs[cs.rank() - 1] == n
                : c->dtype() == a.dtype &&
                      ((cs.rank() == 0) ||
                       (cs.rank() == 1 && (cs[0] == n || cs[0] == 1)) ||
                       (cs.rank() == 2 && (cs[0] == m || cs[0] == 1) &&
                        (cs[1] == n || cs[1] == 1)));
    if (!fits) continue;
    GraphNode merged;
    merged.op_type = batched ? "MatMul" : "Gemm";
    merged.inputs = {matmul.inputs[0], matmul.inputs[1], other};
    // Copied: hoisting moves the nodes the references point into. B moves
    // too: the packed kernels need its value when they are prepared.
    const std::string add_out = add.outputs[0];
    const int first =
        HoistConstantsBefore(graph, merged.inputs, static_cast<int>(i));
    Merge(graph, first, graph.ProducerOf(add_out), std::move(merged));
    i = static_cast<size_t>(first);
  }
  return absl::OkStatus();
}

// The float32 bounds of a Clip node, as its kernel computes them, when they
// are known before execution.
std::optional<std::pair<float, float>> ClipBounds(const Graph& graph,
                                                  const GraphNode& clip) {
  double bounds[2] = {-std::numeric_limits<double>::infinity(),
                      std::numeric_limits<double>::infinity()};
  const char* names[2] = {"min", "max"};
  for (int i = 0; i < 2; ++i) {
    if (clip.attrs.Has(names[i])) {
      absl::StatusOr<float> v = clip.attrs.GetFloat(names[i], 0.0f);
      if (!v.ok()) return std::nullopt;
      bounds[i] = *v;
    }
    if (clip.inputs.size() > static_cast<size_t>(i + 1) &&
        !clip.inputs[i + 1].empty()) {
      const Tensor* t = ConstantValue(graph, clip.inputs[i + 1]);
      if (t == nullptr || t->dtype() != DType::kFloat32 ||
          t->NumElements() != 1) {
        return std::nullopt;
      }
      bounds[i] = t->as<float>()[0];
    }
  }
  return std::pair<float, float>(ClipBoundFloat32(bounds[0]),
                                 ClipBoundFloat32(bounds[1]));
}

// Add(Conv(...), r) of two float32 values of one shape (a residual block's
// sum): the Conv takes r as input 3 and adds it to its finished output, as
// the Add did. Of two Convs feeding the Add, the later one in the graph
// fuses, so r is made before the fused node runs.
absl::Status FuseConvAdd(Graph& graph, const OpRegistry& registry) {
  ASSIGN_OR_RETURN(auto infos, InferValueInfos(graph, registry));
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const GraphNode& add = graph.nodes[i];
    if (add.op_type != "Add" || add.inputs.size() != 2 ||
        add.outputs.size() != 1 || add.inputs[0] == add.inputs[1]) {
      continue;
    }
    int conv = -1;
    std::string residual;
    for (int side = 0; side < 2; ++side) {
      const int producer = graph.ProducerOf(add.inputs[side]);
      const std::string& other = add.inputs[1 - side];
      const int other_producer = graph.ProducerOf(other);
      if (producer <= conv || graph.nodes[producer].op_type != "Conv" ||
          graph.nodes[producer].inputs.size() > 3 ||
          graph.nodes[producer].attrs.Has("fused_activation") ||
          SoleConsumer(graph, add.inputs[side]) != static_cast<int>(i) ||
          other_producer >= producer ||
          ConstantValue(graph, other) != nullptr) {
        continue;
      }
      const TensorInfo& a = infos[add.inputs[side]];
      const TensorInfo& b = infos[other];
      if (a.dtype != DType::kFloat32 || b.dtype != DType::kFloat32 ||
          a.shape != b.shape) {
        continue;
      }
      conv = producer;
      residual = other;
    }
    if (conv < 0) continue;
    GraphNode merged = graph.nodes[conv];
    merged.inputs.resize(3);  // an absent bias stays an empty name
    merged.inputs.push_back(residual);
    Merge(graph, conv, static_cast<int>(i), std::move(merged));
    i = static_cast<size_t>(conv);
  }
  return absl::OkStatus();
}

// Relu after Conv, Gemm, MatMul or BatchNormalization (DenseNet's
// pre-activation), Clip with known bounds after Conv, and with `hard_swish`
// HardSwish after Conv, become the node's fused_activation.
absl::Status FuseRelu(Graph& graph, bool hard_swish) {
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const GraphNode& node = graph.nodes[i];
    if ((node.op_type != "Conv" && node.op_type != "Gemm" &&
         node.op_type != "MatMul" && node.op_type != "BatchNormalization") ||
        node.outputs.size() != 1 || node.attrs.Has("fused_activation")) {
      continue;
    }
    const int next_index = SoleConsumer(graph, node.outputs[0]);
    if (next_index < 0) continue;
    const GraphNode& next = graph.nodes[next_index];
    GraphNode merged;
    merged.op_type = node.op_type;
    merged.inputs = node.inputs;
    merged.attrs = node.attrs;
    if (next.op_type == "Relu") {
      merged.attrs.Set("fused_activation", std::string("Relu"));
    } else if (hard_swish && next.op_type == "HardSwish" &&
               node.op_type == "Conv" && next.attrs.size() == 0) {
      merged.attrs.Set("fused_activation", std::string("HardSwish"));
    } else if (next.op_type == "Clip" && node.op_type == "Conv" &&
               next.inputs[0] == node.outputs[0]) {
      const std::optional<std::pair<float, float>> bounds =
          ClipBounds(graph, next);
      if (!bounds) continue;
      merged.attrs.Set("fused_activation", std::string("Clip"));
      merged.attrs.Set("fused_clip_min", bounds->first);
      merged.attrs.Set("fused_clip_max", bounds->second);
    } else {
      continue;
    }
    Merge(graph, static_cast<int>(i), next_index, std::move(merged));
  }
  return absl::OkStatus();
}

// X -> Sigmoid -> S, Mul(X, S) (SiLU, as PyTorch exports it): one Swish node
// reading X, named for both.
absl::Status FuseSwish(Graph& graph) {
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const GraphNode& sigmoid = graph.nodes[i];
    if (sigmoid.op_type != "Sigmoid" || sigmoid.inputs.size() != 1 ||
        sigmoid.outputs.size() != 1) {
      continue;
    }
    const int mul_index = SoleConsumer(graph, sigmoid.outputs[0]);
    if (mul_index < 0) continue;
    const GraphNode& mul = graph.nodes[mul_index];
    if (mul.op_type != "Mul" || mul.inputs.size() != 2) continue;
    const std::string& other =
        mul.inputs[0] == sigmoid.outputs[0] ? mul.inputs[1] : mul.inputs[0];
    if (other != sigmoid.inputs[0]) continue;
    GraphNode merged;
    merged.op_type = "Swish";
    merged.inputs = sigmoid.inputs;
    Merge(graph, static_cast<int>(i), mul_index, std::move(merged));
  }
  return absl::OkStatus();
}

namespace {

// `node` as op_type(value, scalar) in either order, with a float32 scalar
// constant: the other input and the scalar.
struct ScalarStep {
  std::string value;
  float scalar = 0.0f;
};
std::optional<ScalarStep> ScalarOperand(const Graph& graph,
                                        const GraphNode& node,
                                        std::string_view op_type) {
  if (node.op_type != op_type || node.inputs.size() != 2 ||
      node.outputs.size() != 1) {
    return std::nullopt;
  }
  for (int side = 0; side < 2; ++side) {
    const std::optional<float> scalar =
        ScalarFloat32(graph, node.inputs[1 - side]);
    if (scalar && ConstantValue(graph, node.inputs[side]) == nullptr) {
      return ScalarStep{node.inputs[side], *scalar};
    }
  }
  return std::nullopt;
}

}  // namespace

// a = Add(x, shift), c = Clip(a, min, max), m = Mul(x, c), y = Div(m, divisor)
// with float32 scalar constants (HardSwish as PaddlePaddle exports it): one
// HardSwish node whose fused_* attributes make it compute the steps as the
// nodes did. A scalar Mul and/or Add that make x and read nothing else, and a
// scalar Mul and/or Add applied to y alone (PP-LCNet's learnable affine
// around its activations), join the node as fused_pre_* and fused_post_*.
absl::Status FuseHardSwishChain(Graph& graph) {
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const std::optional<ScalarStep> add =
        ScalarOperand(graph, graph.nodes[i], "Add");
    if (!add) continue;
    const std::string x = add->value;
    const std::string add_out = graph.nodes[i].outputs[0];
    const int clip_index = SoleConsumer(graph, add_out);
    if (clip_index < 0) continue;
    const GraphNode& clip = graph.nodes[clip_index];
    if (clip.op_type != "Clip" || clip.inputs[0] != add_out ||
        clip.outputs.size() != 1) {
      continue;
    }
    const std::optional<std::pair<float, float>> bounds =
        ClipBounds(graph, clip);
    if (!bounds) continue;
    const int mul_index = SoleConsumer(graph, clip.outputs[0]);
    if (mul_index < 0) continue;
    const GraphNode& mul = graph.nodes[mul_index];
    if (mul.op_type != "Mul" || mul.inputs.size() != 2 ||
        mul.outputs.size() != 1) {
      continue;
    }
    const std::string& other =
        mul.inputs[0] == clip.outputs[0] ? mul.inputs[1] : mul.inputs[0];
    if (other != x) continue;
    const int div_index = SoleConsumer(graph, mul.outputs[0]);
    if (div_index < 0) continue;
    const GraphNode& div = graph.nodes[div_index];
    if (div.op_type != "Div" || div.inputs.size() != 2 ||
        div.inputs[0] != mul.outputs[0]) {
      continue;
    }
    const std::optional<float> divisor = ScalarFloat32(graph, div.inputs[1]);
    if (!divisor) continue;

    GraphNode merged;
    merged.op_type = "HardSwish";
    merged.attrs.Set("fused_shift", add->scalar);
    merged.attrs.Set("fused_clip_min", bounds->first);
    merged.attrs.Set("fused_clip_max", bounds->second);
    merged.attrs.Set("fused_divisor", *divisor);
    // The nodes to merge, by output, in graph order.
    std::vector<std::string> members = {add_out, clip.outputs[0],
                                        mul.outputs[0], div.outputs[0]};
    // Before: x = Add(., shift) and/or before it Mul(., scale), walked back
    // while every reader of the value is in the chain (x is read by the
    // chain's Add and Mul).
    auto read_by_members_only = [&](const std::string& value) {
      if (graph.IsGraphOutput(value)) return false;
      for (int reader : graph.ConsumersOf(value)) {
        if (std::find(members.begin(), members.end(),
                      graph.nodes[reader].outputs[0]) == members.end()) {
          return false;
        }
      }
      return true;
    };
    std::string input = x;
    for (const char* op : {"Add", "Mul"}) {
      const int producer = graph.ProducerOf(input);
      if (producer < 0 || !read_by_members_only(input)) break;
      const std::optional<ScalarStep> step =
          ScalarOperand(graph, graph.nodes[producer], op);
      if (!step) continue;
      merged.attrs.Set(
          std::string(op) == "Add" ? "fused_pre_shift" : "fused_pre_scale",
          step->scalar);
      members.insert(members.begin(), input);
      input = step->value;
    }
    // After: y * scale and/or + shift, each the previous step's only reader.
    std::string out = div.outputs[0];
    for (const char* op : {"Mul", "Add"}) {
      const int next = SoleConsumer(graph, out);
      if (next < 0) break;
      const std::optional<ScalarStep> step =
          ScalarOperand(graph, graph.nodes[next], op);
      if (!step || step->value != out) continue;
      merged.attrs.Set(
          std::string(op) == "Mul" ? "fused_post_scale" : "fused_post_shift",
          step->scalar);
      out = graph.nodes[next].outputs[0];
      members.push_back(out);
    }
    merged.inputs = {input};
    // Merge folds each next node into the first (found again by their
    // outputs, as each merge shifts the indices).
    const int first = graph.ProducerOf(members[0]);
    for (size_t m = 1; m < members.size(); ++m) {
      Merge(graph, first, graph.ProducerOf(members[m]), merged);
    }
    i = static_cast<size_t>(first);
  }
  return absl::OkStatus();
}

namespace {

// Whether `node` is a ReduceMean over the last axis of a rank-`rank` input
// only, keeping dims (axes as the attribute or a constant input).
bool MeanOfLastAxis(const Graph& graph, const GraphNode& node, size_t rank) {
  if (node.op_type != "ReduceMean" || node.outputs.size() != 1 || rank == 0) {
    return false;
  }
  absl::StatusOr<bool> keepdims = node.attrs.GetFlag("keepdims", true);
  if (!keepdims.ok() || !*keepdims) return false;
  std::vector<int64_t> axes;
  if (node.attrs.Has("axes")) {
    absl::StatusOr<std::vector<int64_t>> attr = node.attrs.GetInts("axes");
    if (!attr.ok()) return false;
    axes = *attr;
  } else if (node.inputs.size() > 1 && !node.inputs[1].empty()) {
    const Tensor* t = ConstantValue(graph, node.inputs[1]);
    if (t == nullptr || t->dtype() != DType::kInt64) return false;
    axes.assign(t->as<int64_t>(), t->as<int64_t>() + t->NumElements());
  }
  const int64_t last = static_cast<int64_t>(rank) - 1;
  return axes.size() == 1 && (axes[0] == -1 || axes[0] == last);
}

// `node` as op_type(value, constant) in either order with a float32 constant
// of `size` elements along the last axis of a rank-`rank` value: the
// constant's name.
std::optional<std::string> LastAxisParameter(const Graph& graph,
                                             const GraphNode& node,
                                             std::string_view op_type,
                                             const std::string& value,
                                             size_t rank, int64_t size) {
  if (node.op_type != op_type || node.inputs.size() != 2 ||
      node.outputs.size() != 1) {
    return std::nullopt;
  }
  const int side = node.inputs[0] == value ? 1 : 0;
  if (node.inputs[1 - side] != value) return std::nullopt;
  const Tensor* t = ConstantValue(graph, node.inputs[side]);
  if (t == nullptr || t->dtype() != DType::kFloat32 ||
      t->NumElements() != size || t->shape().rank() == 0 ||
      t->shape().rank() > rank || t->shape()[t->shape().rank() - 1] != size) {
    return std::nullopt;
  }
  return node.inputs[side];
}

}  // namespace

// LayerNorm as exporters without the LayerNormalization op write it:
// m = ReduceMean(x, last axis), d = Sub(x, m), v = ReduceMean(Pow(d, 2)),
// s = Sqrt(Add(v, epsilon)), y = Add(Mul(Div(d, s), scale), bias), on float32
// with constant scale and bias (bias optional). One LayerNormalization node
// with fused_decomposed computes each step as those nodes did.
absl::Status FuseLayerNormChain(Graph& graph, const OpRegistry& registry) {
  ASSIGN_OR_RETURN(auto infos, InferValueInfos(graph, registry));
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const GraphNode& mean = graph.nodes[i];
    if (mean.op_type != "ReduceMean" || mean.inputs.empty()) continue;
    const std::string x = mean.inputs[0];
    const TensorInfo& info = infos[x];
    const size_t rank = info.shape.rank();
    if (info.dtype != DType::kFloat32 || !MeanOfLastAxis(graph, mean, rank)) {
      continue;
    }
    const int64_t size = info.shape[rank - 1];
    if (size <= 0) continue;
    // Each step is the previous one's only reader, except d (Pow and Div).
    auto next = [&](const std::string& value, std::string_view op) {
      const int index = SoleConsumer(graph, value);
      return index >= 0 && graph.nodes[index].op_type == op ? index : -1;
    };
    const int sub = next(mean.outputs[0], "Sub");
    if (sub < 0 || graph.nodes[sub].inputs[0] != x ||
        graph.nodes[sub].inputs[1] != mean.outputs[0]) {
      continue;
    }
    const std::string d = graph.nodes[sub].outputs[0];
    const std::vector<int> d_readers = graph.ConsumersOf(d);
    if (graph.IsGraphOutput(d) || d_readers.size() != 2) continue;
    int pow = -1, div = -1;
    for (int reader : d_readers) {
      const std::string& op = graph.nodes[reader].op_type;
      if (op == "Pow") pow = reader;
      if (op == "Div") div = reader;
    }
    if (pow < 0 || div < 0 || graph.nodes[pow].inputs[0] != d ||
        ScalarFloat32(graph, graph.nodes[pow].inputs[1]) != 2.0f) {
      continue;
    }
    const int variance = SoleConsumer(graph, graph.nodes[pow].outputs[0]);
    if (variance < 0 || !MeanOfLastAxis(graph, graph.nodes[variance], rank)) {
      continue;
    }
    const int add_epsilon =
        SoleConsumer(graph, graph.nodes[variance].outputs[0]);
    if (add_epsilon < 0) continue;
    const std::optional<ScalarStep> epsilon =
        ScalarOperand(graph, graph.nodes[add_epsilon], "Add");
    if (!epsilon || epsilon->value != graph.nodes[variance].outputs[0]) {
      continue;
    }
    const int sqrt = next(graph.nodes[add_epsilon].outputs[0], "Sqrt");
    if (sqrt < 0 || SoleConsumer(graph, graph.nodes[sqrt].outputs[0]) != div ||
        graph.nodes[div].inputs[0] != d ||
        graph.nodes[div].inputs[1] != graph.nodes[sqrt].outputs[0]) {
      continue;
    }
    const int mul = SoleConsumer(graph, graph.nodes[div].outputs[0]);
    if (mul < 0) continue;
    const std::optional<std::string> scale =
        LastAxisParameter(graph, graph.nodes[mul], "Mul",
                          graph.nodes[div].outputs[0], rank, size);
    if (!scale) continue;
    std::vector<std::string> members = {mean.outputs[0],
                                        d,
                                        graph.nodes[pow].outputs[0],
                                        graph.nodes[variance].outputs[0],
                                        graph.nodes[add_epsilon].outputs[0],
                                        graph.nodes[sqrt].outputs[0],
                                        graph.nodes[div].outputs[0],
                                        graph.nodes[mul].outputs[0]};
    GraphNode merged;
    merged.op_type = "LayerNormalization";
    merged.inputs = {x, *scale};
    const int add_bias = SoleConsumer(graph, members.back());
    if (add_bias >= 0) {
      if (std::optional<std::string> bias =
              LastAxisParameter(graph, graph.nodes[add_bias], "Add",
                                members.back(), rank, size)) {
        merged.inputs.push_back(*bias);
        members.push_back(graph.nodes[add_bias].outputs[0]);
      }
    }
    merged.attrs.Set("axis", int64_t{-1});
    merged.attrs.Set("epsilon", epsilon->scalar);
    merged.attrs.Set("fused_decomposed", int64_t{1});
    const int first = HoistConstantsBefore(graph, merged.inputs,
                                           graph.ProducerOf(members[0]));
    // Merge folds each member into the first; the members may sit anywhere
    // after it (the Pow and Div of d in either order), so each is found
    // again by its output.
    for (size_t m = 1; m < members.size(); ++m) {
      Merge(graph, first, graph.ProducerOf(members[m]), merged);
    }
    i = static_cast<size_t>(first);
  }
  return absl::OkStatus();
}

// Gelu as exporters without the Gelu op write it: q = Div(x, sqrt 2),
// e = Erf(q), a = Add(e, 1), m = Mul(x, a), y = Mul(m, 0.5), with float32
// scalar constants: one Gelu node whose fused_* attributes make it compute
// the steps as the nodes did.
absl::Status FuseGeluChain(Graph& graph) {
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const GraphNode& div = graph.nodes[i];
    if (div.op_type != "Div" || div.inputs.size() != 2 ||
        div.outputs.size() != 1 ||
        ConstantValue(graph, div.inputs[0]) != nullptr) {
      continue;
    }
    const std::optional<float> divisor = ScalarFloat32(graph, div.inputs[1]);
    if (!divisor) continue;
    const std::string x = div.inputs[0];
    const int erf = SoleConsumer(graph, div.outputs[0]);
    if (erf < 0 || graph.nodes[erf].op_type != "Erf") continue;
    const std::string erf_out = graph.nodes[erf].outputs[0];
    const int add = SoleConsumer(graph, erf_out);
    if (add < 0) continue;
    const std::optional<ScalarStep> shift =
        ScalarOperand(graph, graph.nodes[add], "Add");
    if (!shift || shift->value != erf_out) continue;
    const std::string add_out = graph.nodes[add].outputs[0];
    const int mul = SoleConsumer(graph, add_out);
    if (mul < 0) continue;
    const GraphNode& mul_node = graph.nodes[mul];
    if (mul_node.op_type != "Mul" || mul_node.inputs.size() != 2 ||
        mul_node.outputs.size() != 1 ||
        (mul_node.inputs[0] == add_out ? mul_node.inputs[1]
                                       : mul_node.inputs[0]) != x) {
      continue;
    }
    const int half = SoleConsumer(graph, mul_node.outputs[0]);
    if (half < 0) continue;
    const std::optional<ScalarStep> scale =
        ScalarOperand(graph, graph.nodes[half], "Mul");
    if (!scale || scale->value != mul_node.outputs[0]) continue;
    GraphNode merged;
    merged.op_type = "Gelu";
    merged.inputs = {x};
    merged.attrs.Set("fused_divisor", *divisor);
    merged.attrs.Set("fused_shift", shift->scalar);
    merged.attrs.Set("fused_scale", scale->scalar);
    const std::vector<std::string> members = {div.outputs[0], erf_out, add_out,
                                              mul_node.outputs[0],
                                              graph.nodes[half].outputs[0]};
    const int first = static_cast<int>(i);
    for (size_t m = 1; m < members.size(); ++m) {
      Merge(graph, first, graph.ProducerOf(members[m]), merged);
    }
  }
  return absl::OkStatus();
}

}  // namespace acldump
