#include "runtime/passes.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <set>

#include "base/status_macros.h"
#include "base/strings.h"
#include "kernels/vector_math.h"
#include "runtime/graph_edit.h"
#include "runtime/node_prepare.h"

namespace acldump {

using graph_edit::ConstantValue;
using graph_edit::Merge;
using graph_edit::SoleConsumer;
using graph_edit::UniqueInitializerName;

namespace {

// Outputs of folded nodes must stay small: folding is for shape arithmetic, not
// for precomputing large tensors into the model file.
constexpr size_t kMaxFoldedBytes = size_t{1} << 20;

struct PreparedNode {
  std::vector<TensorInfo> output_infos;
  std::unique_ptr<Kernel> kernel;
  bool all_inputs_known = true;
};

absl::StatusOr<PreparedNode> PrepareNode(
    const GraphNode& node, const OpRegistry& registry,
    const std::map<std::string, TensorInfo, std::less<>>& infos,
    const std::map<std::string, std::shared_ptr<const Tensor>, std::less<>>&
        known) {
  std::vector<TensorInfo> input_infos;
  std::vector<TensorView> views;
  PreparedNode result;
  for (const std::string& in : node.inputs) {
    if (in.empty()) {
      input_infos.emplace_back();
      views.emplace_back();
      continue;
    }
    auto info = infos.find(in);
    if (info == infos.end()) {
      return absl::InvalidArgumentError(
          StrCat(NodeLabel(node), ": input '", in, "' is not defined"));
    }
    input_infos.push_back(info->second);
    auto value = known.find(in);
    if (value != known.end()) {
      views.push_back(value->second->view());
    } else {
      views.emplace_back();
      result.all_inputs_known = false;
    }
  }
  std::vector<const TensorView*> constants;
  for (size_t i = 0; i < views.size(); ++i) {
    constants.push_back(views[i].present() ? &views[i] : nullptr);
  }
  ASSIGN_OR_RETURN(
      PreparedKernel prepared,
      acldump::PrepareNode(node, registry, input_infos, constants));
  result.output_infos = std::move(prepared.outputs);
  result.kernel = std::move(prepared.kernel);
  return result;
}

// The node prepared, or nullopt when its types are known only while the model
// runs (as the compiled model decides): control flow, a reader of such a
// value, or a kernel whose output shapes depend on values not known yet. Its
// outputs join `at_execution`; the passes leave such nodes as they are.
absl::StatusOr<std::optional<PreparedNode>> PrepareUnlessAtExecution(
    const GraphNode& node, const OpRegistry& registry,
    const std::map<std::string, TensorInfo, std::less<>>& infos,
    const std::map<std::string, std::shared_ptr<const Tensor>, std::less<>>&
        known,
    std::set<std::string, std::less<>>& at_execution) {
  auto reads_at_execution = [&](const std::vector<std::string>& names) {
    return std::any_of(names.begin(), names.end(), [&](const std::string& in) {
      return at_execution.count(in) > 0;
    });
  };
  if (!IsControlFlowOp(node.op_type) && !reads_at_execution(node.inputs) &&
      !reads_at_execution(node.implicit_inputs)) {
    absl::StatusOr<PreparedNode> prepared =
        PrepareNode(node, registry, infos, known);
    if (prepared.ok()) return std::move(*prepared);
    if (!IsNotKnownBeforeExecution(prepared.status())) {
      return prepared.status();
    }
  }
  at_execution.insert(node.outputs.begin(), node.outputs.end());
  return std::nullopt;
}

// Runs the node on known inputs. An input missing from `known` (only
// Shape/Size, which read shapes alone) is passed as a view without data.
absl::StatusOr<std::vector<std::shared_ptr<const Tensor>>> Evaluate(
    const GraphNode& node, PreparedNode& prepared,
    const std::map<std::string, TensorInfo, std::less<>>& infos,
    const std::map<std::string, std::shared_ptr<const Tensor>, std::less<>>&
        known) {
  std::vector<TensorView> inputs;
  for (const std::string& in : node.inputs) {
    if (in.empty()) {
      inputs.emplace_back();
    } else if (auto it = known.find(in); it != known.end()) {
      inputs.push_back(it->second->view());
    } else {
      const TensorInfo& info = infos.at(in);
      inputs.push_back(TensorView{info.dtype, info.shape, nullptr});
    }
  }
  std::vector<std::shared_ptr<const Tensor>> results;
  std::vector<Tensor> outputs;
  std::vector<TensorView> output_views;
  for (const TensorInfo& info : prepared.output_infos) {
    outputs.emplace_back(info.dtype, info.shape);
  }
  for (Tensor& t : outputs) output_views.push_back(t.view());
  AlignedBuffer workspace(prepared.kernel->WorkspaceBytes());
  RETURN_IF_ERROR(
      Annotate(prepared.kernel->Run(inputs, output_views,
                                    {workspace.data(), workspace.size()}),
               StrCat("evaluating node '", node.name, "'")));
  for (Tensor& t : outputs)
    results.push_back(std::make_shared<const Tensor>(std::move(t)));
  return results;
}

// Whether constant folding evaluates the node: a Constant, or a node whose
// inputs are all known (or Shape/Size, which read shapes alone) with small
// outputs.
bool Foldable(const GraphNode& node, const PreparedNode& prepared) {
  size_t output_bytes = 0;
  for (const TensorInfo& info : prepared.output_infos)
    output_bytes += info.ByteSize();
  const bool shape_only = node.op_type == "Shape" || node.op_type == "Size";
  return (prepared.all_inputs_known || shape_only ||
          node.op_type == "Constant") &&
         output_bytes <= kMaxFoldedBytes;
}

}  // namespace

absl::StatusOr<std::map<std::string, TensorInfo, std::less<>>> InferValueInfos(
    const Graph& graph, const OpRegistry& registry) {
  std::map<std::string, TensorInfo, std::less<>> infos;
  std::map<std::string, std::shared_ptr<const Tensor>, std::less<>> known;
  for (const auto& in : graph.inputs) infos[in.name] = in.info;
  for (const auto& [name, tensor] : graph.initializers) {
    infos[name] = tensor->info();
    known[name] = tensor;
  }
  std::set<std::string, std::less<>> at_execution;
  for (const GraphNode& node : graph.nodes) {
    ASSIGN_OR_RETURN(
        std::optional<PreparedNode> prepared_or,
        PrepareUnlessAtExecution(node, registry, infos, known, at_execution));
    if (!prepared_or) continue;
    PreparedNode& prepared = *prepared_or;
    for (size_t o = 0; o < node.outputs.size(); ++o) {
      infos[node.outputs[o]] = prepared.output_infos[o];
    }
    // Values FoldConstants would fold (Constant nodes, small results of known
    // inputs, Shape/Size of static shapes) are computed too: later nodes
    // (Reshape's shape, ...) need them to infer their shapes. A Constant of
    // any size is known, as it is when the model is compiled: fused kernels
    // that need constant weights then prepare alike in both.
    if (Foldable(node, prepared) || node.op_type == "Constant") {
      ASSIGN_OR_RETURN(auto values, Evaluate(node, prepared, infos, known));
      for (size_t o = 0; o < node.outputs.size(); ++o)
        known[node.outputs[o]] = values[o];
    }
  }
  return infos;
}

absl::Status ResolveOutputShapes(Graph& graph, const OpRegistry& registry) {
  bool any = false;
  for (const NamedTensorInfo& out : graph.outputs) any |= out.infer_shape;
  if (!any) return absl::OkStatus();
  ASSIGN_OR_RETURN(auto infos, InferValueInfos(graph, registry));
  for (NamedTensorInfo& out : graph.outputs) {
    if (!out.infer_shape) continue;
    auto it = infos.find(out.name);
    if (it == infos.end() && graph.ProducerOf(out.name) >= 0) {
      // Its shape is known only while the model runs (control flow, a
      // value-dependent size): the declared dims stay, -1 where they vary.
      if (out.info.shape.rank() == 0) {
        return absl::InvalidArgumentError(StrCat(
            "output '", out.name,
            "' declares no shape, and its shape is known only while the "
            "model runs (it comes from control flow or a value-dependent "
            "size): declare at least its rank in the model"));
      }
      out.infer_shape = false;
      continue;
    }
    if (it == infos.end()) {
      return absl::InvalidArgumentError(
          StrCat("output '", out.name,
                 "' is not produced by any node, input or initializer"));
    }
    const TensorInfo& inferred = it->second;
    // A declared rank of 0 with symbolic dimensions cannot happen: rank 0
    // here means the output declares no shape at all.
    const std::vector<int64_t>& declared = out.info.shape.dims();
    bool matches =
        inferred.dtype == out.info.dtype &&
        (declared.empty() || declared.size() == inferred.shape.rank());
    for (size_t i = 0; matches && i < declared.size(); ++i) {
      matches = declared[i] < 0 || declared[i] == inferred.shape[i];
    }
    if (!matches) {
      std::vector<std::string> dims;
      for (int64_t d : declared) dims.push_back(d < 0 ? "?" : StrCat(d));
      return absl::InvalidArgumentError(StrCat(
          "output '", out.name, "' is declared as ", DTypeName(out.info.dtype),
          "[", StrJoin(dims, ","), "] but computes ", inferred.ToString()));
    }
    out.info = inferred;
    out.infer_shape = false;
  }
  return absl::OkStatus();
}

absl::Status FoldConstants(Graph& graph, const OpRegistry& registry,
                           bool keep_dequantize) {
  std::map<std::string, TensorInfo, std::less<>> infos;
  std::map<std::string, std::shared_ptr<const Tensor>, std::less<>> known;
  for (const auto& in : graph.inputs) infos[in.name] = in.info;
  for (const auto& [name, tensor] : graph.initializers) {
    infos[name] = tensor->info();
    known[name] = tensor;
  }
  std::set<std::string, std::less<>> at_execution;
  std::vector<GraphNode> kept;
  for (GraphNode& node : graph.nodes) {
    ASSIGN_OR_RETURN(
        std::optional<PreparedNode> prepared_or,
        PrepareUnlessAtExecution(node, registry, infos, known, at_execution));
    if (!prepared_or) {
      kept.push_back(std::move(node));
      continue;
    }
    PreparedNode& prepared = *prepared_or;
    for (size_t o = 0; o < node.outputs.size(); ++o) {
      infos[node.outputs[o]] = prepared.output_infos[o];
    }
    const bool is_constant = node.op_type == "Constant";
    const bool kept_dequantize =
        keep_dequantize && node.op_type == "DequantizeLinear";
    if (!kept_dequantize && Foldable(node, prepared)) {
      ASSIGN_OR_RETURN(auto values, Evaluate(node, prepared, infos, known));
      for (size_t o = 0; o < node.outputs.size(); ++o)
        known[node.outputs[o]] = values[o];
      if (!is_constant) {
        for (const std::string& out : node.outputs)
          graph.initializers[out] = known[out];
        continue;  // the node is gone: its outputs are initializers now
      }
    }
    kept.push_back(std::move(node));
  }
  graph.nodes = std::move(kept);
  // Constant nodes whose value now lives in folded initializers, or that
  // nothing reads.
  RemoveUnusedConstants(graph);
  return absl::OkStatus();
}

absl::Status FoldBatchNormIntoConv(Graph& graph) {
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const GraphNode& conv = graph.nodes[i];
    if (conv.op_type != "Conv" || conv.outputs.size() != 1 ||
        conv.inputs.size() < 2 || conv.attrs.Has("fused_activation")) {
      continue;
    }
    const int bn_index = SoleConsumer(graph, conv.outputs[0]);
    if (bn_index < 0) continue;
    const GraphNode& bn = graph.nodes[bn_index];
    if (bn.op_type != "BatchNormalization" || bn.outputs.size() != 1 ||
        bn.inputs.size() != 5 || bn.inputs[0] != conv.outputs[0] ||
        bn.attrs.Has("fused_activation")) {
      continue;
    }
    ASSIGN_OR_RETURN(int64_t training, bn.attrs.GetInt("training_mode", 0));
    if (training != 0) continue;
    const Tensor* w = ConstantValue(graph, conv.inputs[1]);
    const Tensor* b = conv.inputs.size() > 2 && !conv.inputs[2].empty()
                          ? ConstantValue(graph, conv.inputs[2])
                          : nullptr;
    const bool has_bias_input =
        conv.inputs.size() > 2 && !conv.inputs[2].empty();
    const Tensor* params[4];
    bool ok =
        w != nullptr && w->dtype() == DType::kFloat32 &&
        w->shape().rank() >= 3 &&
        (!has_bias_input || (b != nullptr && b->dtype() == DType::kFloat32));
    for (int p = 0; p < 4 && ok; ++p) {
      params[p] = ConstantValue(graph, bn.inputs[p + 1]);
      ok = params[p] != nullptr && params[p]->dtype() == DType::kFloat32 &&
           params[p]->NumElements() == w->shape()[0];
    }
    if (!ok || (b != nullptr && b->NumElements() != w->shape()[0])) continue;
    ASSIGN_OR_RETURN(float epsilon, bn.attrs.GetFloat("epsilon", 1e-5f));
    const int64_t channels = w->shape()[0];
    const int64_t per_channel =
        w->NumElements() / std::max<int64_t>(channels, 1);
    Tensor new_w = w->Clone();
    Tensor new_b(DType::kFloat32, Shape({channels}));
    const float* scale = params[0]->as<float>();
    const float* beta = params[1]->as<float>();
    const float* mean = params[2]->as<float>();
    const float* var = params[3]->as<float>();
    for (int64_t c = 0; c < channels; ++c) {
      const double factor =
          scale[c] / std::sqrt(static_cast<double>(var[c]) + epsilon);
      float* row = new_w.as<float>() + c * per_channel;
      for (int64_t k = 0; k < per_channel; ++k)
        row[k] = static_cast<float>(row[k] * factor);
      const double bias = b != nullptr ? b->as<float>()[c] : 0.0;
      new_b.as<float>()[c] =
          static_cast<float>((bias - mean[c]) * factor + beta[c]);
    }
    GraphNode merged;
    merged.op_type = "Conv";
    merged.attrs = conv.attrs;
    const std::string fused_name = conv.name + bn.name;
    const std::string w_name =
        UniqueInitializerName(graph, fused_name + ".weight");
    graph.initializers[w_name] =
        std::make_shared<const Tensor>(std::move(new_w));
    const std::string b_name =
        UniqueInitializerName(graph, fused_name + ".bias");
    graph.initializers[b_name] =
        std::make_shared<const Tensor>(std::move(new_b));
    merged.inputs = {conv.inputs[0], w_name, b_name};
    Merge(graph, static_cast<int>(i), bn_index, std::move(merged));
  }
  RemoveUnusedConstants(graph);
  return absl::OkStatus();
}

absl::Status MarkNoTaskNodes(Graph& graph, const OpRegistry& registry) {
  for (GraphNode& node : graph.nodes) {
    const OpDef* def = registry.Find(node.op_type);
    node.no_task = def != nullptr && def->output_aliases_input &&
                   node.outputs.size() == 1 && !node.inputs.empty() &&
                   !node.inputs[0].empty() &&
                   !graph.IsGraphOutput(node.outputs[0]);
  }
  return absl::OkStatus();
}

void RemoveUnusedConstants(Graph& graph) {
  std::vector<GraphNode> live;
  for (GraphNode& node : graph.nodes) {
    if (node.op_type == "Constant" &&
        graph.ConsumersOf(node.outputs[0]).empty() &&
        !graph.IsGraphOutput(node.outputs[0])) {
      continue;
    }
    live.push_back(std::move(node));
  }
  graph.nodes = std::move(live);
  RemoveUnusedInitializers(graph);
}

void RemoveUnusedInitializers(Graph& graph) {
  std::set<std::string, std::less<>> used;
  for (const GraphNode& node : graph.nodes) {
    used.insert(node.inputs.begin(), node.inputs.end());
    used.insert(node.implicit_inputs.begin(), node.implicit_inputs.end());
  }
  for (const auto& out : graph.outputs) used.insert(out.name);
  for (auto it = graph.initializers.begin(); it != graph.initializers.end();) {
    it = used.count(it->first) ? std::next(it) : graph.initializers.erase(it);
  }
}

absl::Status OptimizeGraph(Graph& graph, const OpRegistry& registry,
                           const PassOptions& options) {
  RETURN_IF_ERROR(ResolveOutputShapes(graph, registry));
  if (options.fold_constants) {
    RETURN_IF_ERROR(FoldConstants(graph, registry, options.fuse_qdq));
  }
  if (options.fuse_qdq) {
    RETURN_IF_ERROR(FuseQuantizedGroups(graph, registry));
    // The DequantizeLinear nodes of constants no group took (weights of
    // float operators) fold now.
    const bool any_dequantize = std::any_of(
        graph.nodes.begin(), graph.nodes.end(), [](const GraphNode& node) {
          return node.op_type == "DequantizeLinear";
        });
    if (options.fold_constants && any_dequantize) {
      RETURN_IF_ERROR(FoldConstants(graph, registry));
    }
  }
  if (options.fold_batch_norm) RETURN_IF_ERROR(FoldBatchNormIntoConv(graph));
  if (options.fuse_matmul_add) RETURN_IF_ERROR(FuseMatMulAdd(graph, registry));
  if (options.fuse_conv_add) RETURN_IF_ERROR(FuseConvAdd(graph, registry));
  if (options.fuse_relu) {
    RETURN_IF_ERROR(FuseRelu(graph, options.fuse_conv_hard_swish));
  }
  if (options.fuse_swish) RETURN_IF_ERROR(FuseSwish(graph));
  if (options.fuse_hard_swish) RETURN_IF_ERROR(FuseHardSwishChain(graph));
  if (options.fuse_gelu) RETURN_IF_ERROR(FuseGeluChain(graph));
  if (options.fuse_layer_norm) {
    RETURN_IF_ERROR(FuseLayerNormChain(graph, registry));
  }
  RemoveUnusedConstants(graph);
  if (options.mark_no_task) RETURN_IF_ERROR(MarkNoTaskNodes(graph, registry));
  return absl::OkStatus();
}

}  // namespace acldump
