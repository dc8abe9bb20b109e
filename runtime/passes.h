// Graph passes of the converter. Fused nodes are named by concatenating their
// members' names (conv1 + conv1_relu -> conv1conv1_relu) and keep every
// member's original name.
#ifndef ACLDUMP_RUNTIME_PASSES_H_
#define ACLDUMP_RUNTIME_PASSES_H_

#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "kernels/op_registry.h"
#include "runtime/graph.h"

namespace acldump {

struct PassOptions {
  bool fold_constants = true;
  bool fold_batch_norm = true;
  // MatMul + Add of a constant: Gemm for 2-D A, MatMul with its bias as a
  // third input for batched rows
  bool fuse_matmul_add = true;
  // Add(Conv(x), r) as a Conv with r as input 3. Off by default: a dump then
  // loses the convolution's own output, the place where a residual block's
  // two branches are compared.
  bool fuse_conv_add = false;
  // Relu into Conv/Gemm/MatMul, Clip into Conv
  bool fuse_relu = true;
  // HardSwish into Conv. Off by default: on the AVX2 machine of bench/README
  // mobilenet_v3_small ran 3-5 % slower fused than with the separate
  // vector HardSwish (the epilogue's division sits in the convolution's
  // store loop).
  bool fuse_conv_hard_swish = false;
  bool fuse_swish = true;  // Sigmoid(x) * x as one Swish node
  // x * Clip(x + 3, 0, 6) / 6 (and other constants) as one HardSwish node
  bool fuse_hard_swish = true;
  // ReduceMean, Sub, Pow, ReduceMean, Add, Sqrt, Div, Mul(, Add) as one
  // LayerNormalization node
  bool fuse_layer_norm = true;
  // x * (erf(x / sqrt 2) + 1) * 0.5 (Div, Erf, Add, Mul, Mul) as one Gelu node
  bool fuse_gelu = true;
  // DequantizeLinear -> Conv/Gemm/Add/GlobalAveragePool -> QuantizeLinear
  // computed on the 8-bit values (QLinearConv, QGemm, QLinearAdd,
  // QLinearGlobalAveragePool), as ONNX Runtime runs quantized models
  bool fuse_qdq = true;
  bool mark_no_task = true;

  // Every node kept as imported (constants still folded).
  static PassOptions Unfused() {
    PassOptions options;
    options.fold_batch_norm = options.fuse_matmul_add = options.fuse_conv_add =
        options.fuse_relu = options.fuse_swish = options.fuse_hard_swish =
            options.fuse_layer_norm = options.fuse_gelu = options.fuse_qdq =
                false;
    return options;
  }
};

// Type and shape of every value (inputs, initializers, node outputs), by shape
// inference through the registry. Values known only while the model runs
// (outputs of control flow, of their readers, of value-dependent shapes) are
// left out; the passes leave their nodes alone.
absl::StatusOr<std::map<std::string, TensorInfo, std::less<>>> InferValueInfos(
    const Graph& graph, const OpRegistry& registry);

// Gives outputs the import marked infer_shape (symbolic dimensions) the type
// and shape that shape inference computes; fails when that contradicts what
// the model declares. OptimizeGraph runs it first.
absl::Status ResolveOutputShapes(Graph& graph, const OpRegistry& registry);
// Evaluates nodes whose inputs are all known (and Shape/Size of static shapes)
// when their outputs are small, replacing them with initializers; drops
// Constant nodes nothing reads. With `keep_dequantize`, DequantizeLinear
// nodes stay (FuseQuantizedGroups reads them).
absl::Status FoldConstants(Graph& graph, const OpRegistry& registry,
                           bool keep_dequantize = false);
// DequantizeLinear -> op -> QuantizeLinear groups of Conv, Gemm, Add,
// GlobalAveragePool and AveragePool become QLinearConv, QGemm, QLinearAdd,
// QLinearGlobalAveragePool and QLinearAveragePool (ONNX Runtime's arithmetic);
// a Cast to the type a value has and a Relu before a QuantizeLinear that clamps
// alike go first.
absl::Status FuseQuantizedGroups(Graph& graph, const OpRegistry& registry);
// Conv -> BatchNormalization (inference) becomes one Conv with scaled weights
// and bias. Weights may be initializers or Constant nodes.
absl::Status FoldBatchNormIntoConv(Graph& graph);
// MatMul(A [M,K], B initializer [K,N]) -> Add(initializer C) becomes Gemm(A, B,
// C).
absl::Status FuseMatMulAdd(Graph& graph, const OpRegistry& registry);
// Add(Conv(...), r) of two float32 values of one shape: the Conv adds r to its
// finished output (residual blocks).
absl::Status FuseConvAdd(Graph& graph, const OpRegistry& registry);
// X -> Sigmoid -> Mul(X, .) (SiLU) becomes one Swish node.
absl::Status FuseSwish(Graph& graph);
// LayerNorm spelled out as ReduceMean/Sub/Pow/Sqrt/Div/Mul/Add becomes one
// LayerNormalization node that computes each step as those nodes did.
absl::Status FuseLayerNormChain(Graph& graph, const OpRegistry& registry);
// Gelu spelled out as Div/Erf/Add/Mul/Mul becomes one Gelu node that computes
// the steps as the nodes did.
absl::Status FuseGeluChain(Graph& graph);
// Conv / Gemm / MatMul -> Relu becomes one node with fused_activation = "Relu".
absl::Status FuseRelu(Graph& graph, bool hard_swish);
// Add(x, shift) -> Clip -> Mul(x, .) -> Div(., divisor), with float32 scalar
// constants, becomes one HardSwish node that computes the four steps exactly
// as the nodes did (fused_shift, fused_clip_min/max, fused_divisor), with the
// scalar Mul/Add nodes just before x and just after the Div
// (fused_pre_scale/shift, fused_post_scale/shift).
absl::Status FuseHardSwishChain(Graph& graph);
// Reshape, Flatten, Identity, Squeeze and Unsqueeze alias their input (no task,
//) unless their output is a graph output.
absl::Status MarkNoTaskNodes(Graph& graph, const OpRegistry& registry);
void RemoveUnusedInitializers(Graph& graph);
// Drops Constant nodes nothing reads (their values were folded into fused
// nodes), then unused initializers.
void RemoveUnusedConstants(Graph& graph);

absl::Status OptimizeGraph(Graph& graph, const OpRegistry& registry,
                           const PassOptions& options);

}  // namespace acldump

#endif  // ACLDUMP_RUNTIME_PASSES_H_
