// ONNX -> acldump graph: a one-to-one import of nodes (names kept or
// generated), inputs with static shapes (declared, or pinned by the caller
// where the model declares symbolic dimensions), initializers, outputs. The
// converter's passes run afterwards.
#ifndef ACLDUMP_RUNTIME_ONNX_IMPORT_H_
#define ACLDUMP_RUNTIME_ONNX_IMPORT_H_

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "onnx/onnx.pb.h"
#include "runtime/graph.h"

namespace acldump {

inline constexpr int64_t kMinOnnxOpset = 7;
inline constexpr int64_t kMaxOnnxOpset = 18;

// Static shapes for graph inputs, by input name (what `convert --input-shape`
// gives).
using InputShapes = std::map<std::string, std::vector<int64_t>, std::less<>>;

struct ImportOptions {
  // Pins the dimensions of these graph inputs. Every symbolic input dimension
  // must be pinned; pinned static dimensions must equal the declared ones.
  InputShapes input_shapes;
  // The ONNX file's folder, where tensors stored as external data are read;
  // empty when the model comes from memory (such tensors are then an error).
  std::string external_data_dir;
};

// Graph inputs get static shapes (declared or pinned); outputs declared with
// symbolic dimensions are marked infer_shape (see ResolveOutputShapes).
absl::StatusOr<Graph> ImportOnnx(const onnx::ModelProto& model,
                                 const ImportOptions& options = {});
// Parses serialised ONNX (untrusted).
absl::StatusOr<onnx::ModelProto> ParseOnnx(std::string_view bytes);
// Parses serialised ONNX (untrusted) and imports it.
absl::StatusOr<Graph> ImportOnnxBytes(std::string_view bytes,
                                      const ImportOptions& options = {});

// The graph inputs of `model` as the gear options of convert start from them:
// declared shapes with `given` applied, -1 where a dimension is dynamic (-1 in
// `given`, or symbolic and not given).
absl::StatusOr<std::vector<NamedTensorInfo>> DynamicInputs(
    const onnx::ModelProto& model, const InputShapes& given);

// Parses "x:1,3,640,640;y:1,16" (the SDK converter's --input_shape form):
// `;`-separated entries of name ':' comma-separated dims; the name ends at the
// last ':' (ONNX names may contain ':'). Dims must be positive integers or -1
// (a dynamic dimension, for convert's gear options); an
// input named twice, an empty name or an empty entry is an error. Sizes are
// checked against the input's type at import.
absl::StatusOr<InputShapes> ParseInputShapes(std::string_view text);

}  // namespace acldump

#endif  // ACLDUMP_RUNTIME_ONNX_IMPORT_H_
