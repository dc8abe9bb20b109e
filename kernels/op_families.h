// Registration of each family of built-in operators (one .cc per family, or a
// few joined by a private <family>_internal.h).
#ifndef ACLDUMP_KERNELS_OP_FAMILIES_H_
#define ACLDUMP_KERNELS_OP_FAMILIES_H_

#include "absl/status/status.h"
#include "kernels/op_registry.h"

namespace acldump {

// Add Sub Mul Div Pow Mod Sum Mean Min Max Equal Less LessOrEqual Greater
// GreaterOrEqual And Or Xor Not Where Relu LeakyRelu Elu Selu HardSigmoid
// HardSwish ThresholdedRelu Sigmoid Tanh Erf Exp Log Sqrt Reciprocal Floor Ceil
// Round Sin Cos Tan Softplus Mish Softsign Neg Abs Sign Clip Cast CastLike
// PRelu Celu Shrink IsNaN IsInf Asin Acos Atan Sinh Cosh Asinh Acosh Atanh
absl::Status RegisterElementwiseOps(OpRegistry& registry);
// GatherElements ScatterElements Scatter GatherND ScatterND Trilu EyeLike
// OneHot DepthToSpace SpaceToDepth CumSum TopK Dropout
absl::Status RegisterIndexingOps(OpRegistry& registry);
// Einsum
absl::Status RegisterEinsumOps(OpRegistry& registry);
// NonZero Compress Unique NonMaxSuppression: output sizes depend on input
// values
absl::Status RegisterDataDependentOps(OpRegistry& registry);
// LRN MeanVarianceNormalization LpNormalization GroupNormalization
absl::Status RegisterFeatureNormOps(OpRegistry& registry);
// GridSample
absl::Status RegisterGridSampleOps(OpRegistry& registry);
// Det
absl::Status RegisterLinalgOps(OpRegistry& registry);
// Momentum Adagrad Adam (domain ai.onnx.preview.training)
absl::Status RegisterOptimizerOps(OpRegistry& registry);
// LpPool
absl::Status RegisterLpPoolOps(OpRegistry& registry);
// NegativeLogLikelihoodLoss SoftmaxCrossEntropyLoss
absl::Status RegisterLossOps(OpRegistry& registry);
// Aipp (acldump's own: the converter inserts it for --insert-op-conf)
absl::Status RegisterAippOps(OpRegistry& registry);
// MatMul Gemm
absl::Status RegisterMatMulOps(OpRegistry& registry);
// BitShift BitwiseAnd BitwiseOr BitwiseXor BitwiseNot
absl::Status RegisterBitwiseOps(OpRegistry& registry);
// Conv ConvTranspose ConvInteger QLinearConv
absl::Status RegisterConvOps(OpRegistry& registry);
// QuantizeLinear DequantizeLinear DynamicQuantizeLinear MatMulInteger
// QLinearMatMul QGemm
absl::Status RegisterQuantizeOps(OpRegistry& registry);
// QLinearAdd QLinearGlobalAveragePool QLinearAveragePool (ONNX Runtime's, made
// by the converter from DequantizeLinear -> op -> QuantizeLinear)
absl::Status RegisterQLinearOps(OpRegistry& registry);
// MaxPool AveragePool GlobalAveragePool GlobalMaxPool
absl::Status RegisterPoolOps(OpRegistry& registry);
// BatchNormalization LayerNormalization InstanceNormalization
absl::Status RegisterNormalizationOps(OpRegistry& registry);
// ReduceMean ReduceSum ReduceMax ReduceMin ReduceProd ReduceSumSquare ReduceL1
// ReduceL2 ReduceLogSum ReduceLogSumExp ArgMax ArgMin
absl::Status RegisterReduceOps(OpRegistry& registry);
// RNN GRU LSTM
absl::Status RegisterRecurrentOps(OpRegistry& registry);
// RoiAlign
absl::Status RegisterRoiAlignOps(OpRegistry& registry);
// ReverseSequence MaxUnpool CenterCropPad Col2Im
absl::Status RegisterReorderOps(OpRegistry& registry);
// Resize Upsample
absl::Status RegisterResizeOps(OpRegistry& registry);
// DFT STFT HannWindow HammingWindow BlackmanWindow MelWeightMatrix
absl::Status RegisterSignalOps(OpRegistry& registry);
// Softmax LogSoftmax Hardmax
absl::Status RegisterSoftmaxOps(OpRegistry& registry);
// Concat Split Slice Gather Reshape Flatten Transpose Squeeze Unsqueeze
// Identity Pad Shape Constant ConstantOfShape Expand Tile Size Range
absl::Status RegisterTensorOps(OpRegistry& registry);
// TfIdfVectorizer
absl::Status RegisterTfIdfOps(OpRegistry& registry);

}  // namespace acldump

#endif  // ACLDUMP_KERNELS_OP_FAMILIES_H_
