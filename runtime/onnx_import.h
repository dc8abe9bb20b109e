// ONNX -> acldump graph: a one-to-one import of nodes (names kept or
// generated), inputs with static shapes, initializers, outputs. The converter's
// passes run afterwards.
#ifndef ACLDUMP_RUNTIME_ONNX_IMPORT_H_
#define ACLDUMP_RUNTIME_ONNX_IMPORT_H_

#include <string_view>

#include "absl/status/statusor.h"
#include "onnx/onnx.pb.h"
#include "runtime/graph.h"

namespace acldump {

inline constexpr int64_t kMinOnnxOpset = 7;
inline constexpr int64_t kMaxOnnxOpset = 18;

absl::StatusOr<Graph> ImportOnnx(const onnx::ModelProto& model);
// Parses serialised ONNX (untrusted) and imports it.
absl::StatusOr<Graph> ImportOnnxBytes(std::string_view bytes);

}  // namespace acldump

#endif  // ACLDUMP_RUNTIME_ONNX_IMPORT_H_
