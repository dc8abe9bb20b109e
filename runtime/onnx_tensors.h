// Decoding of ONNX TensorProto / AttributeProto into our tensors and
// attributes. ONNX files are untrusted: every length is checked against the
// declared dtype and shape.
#ifndef ACLDUMP_RUNTIME_ONNX_TENSORS_H_
#define ACLDUMP_RUNTIME_ONNX_TENSORS_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "kernels/attributes.h"
#include "kernels/tensor.h"
#include "onnx/onnx.pb.h"

namespace acldump {

absl::StatusOr<Tensor> TensorFromOnnx(const onnx::TensorProto& proto);
// The same, where a tensor stored as external data (data_location EXTERNAL:
// "location", "offset", "length" entries) is read from `location` in
// `external_data_dir`, the ONNX file's folder. The location must be a relative
// path inside that folder; the bytes read must be exactly the tensor's.
absl::StatusOr<Tensor> TensorFromOnnx(const onnx::TensorProto& proto,
                                      const std::string& external_data_dir);
void TensorToOnnx(const Tensor& tensor, onnx::TensorProto* proto);

// The node's attributes. `opset` is the model's default-domain opset; ops whose
// semantics changed across opsets receive it as the int attribute "onnx_opset".
// GRAPH attributes are skipped: the import reads them as subgraphs.
absl::StatusOr<Attributes> AttributesFromOnnx(const onnx::NodeProto& node,
                                              int64_t opset);

// A graph value's tensor type and its dtype: Unimplemented, naming the value,
// for a value that is not a tensor or has a data type the runtime lacks.
absl::StatusOr<const onnx::TypeProto_Tensor*> OnnxTensorType(
    const onnx::ValueInfoProto& value, DType* dtype);

// dtype + static shape of a graph input/output; dynamic or missing dimensions
// are an error.
absl::StatusOr<TensorInfo> TensorInfoFromOnnx(
    const onnx::ValueInfoProto& value);

// The default-domain ("" or "ai.onnx") opset a model imports; 0 when absent.
int64_t DefaultOpset(const onnx::ModelProto& model);

}  // namespace acldump

#endif  // ACLDUMP_RUNTIME_ONNX_TENSORS_H_
