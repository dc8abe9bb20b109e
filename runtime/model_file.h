// Reading and writing .om model files: magic "ACLDMOM1" + a serialised
// acldump.om.Model. Files are untrusted: parsing validates every field and
// bounds every allocation.
#ifndef ACLDUMP_RUNTIME_MODEL_FILE_H_
#define ACLDUMP_RUNTIME_MODEL_FILE_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "runtime/graph.h"

namespace acldump {

inline constexpr std::string_view kModelMagic = "ACLDMOM1";
// Largest model file accepted (protobuf's own message limit is 2 GiB).
inline constexpr size_t kMaxModelFileBytes = size_t{1} << 31;

std::string SerializeModel(const Graph& graph);

// Parses and validates the structure of a model: magic and version, names,
// dtypes and shapes, initializer sizes, attribute values, unique producers, no
// dangling inputs, no cycles. Control-flow subgraphs are validated the same
// way, recursively (at most kMaxSubgraphDepth deep), and each node's implicit
// inputs must be exactly what its subgraphs read from enclosing graphs. Nodes
// come back in topological order. Errors are InvalidArgument naming the
// offending item (inside subgraphs, by node path: "If_0/then_branch/Add").
// Files are read through runtime/model_loader (ReadModel), which bounds the
// read and tags errors.
absl::StatusOr<Graph> ParseModel(std::string_view bytes);
absl::Status WriteModelFile(const Graph& graph, const std::string& path);

// The model as JSON, outer "name" first (the model converter's JSON of).
// Tensor data is summarised, not printed.
std::string ModelToJson(const Graph& graph);

}  // namespace acldump

#endif  // ACLDUMP_RUNTIME_MODEL_FILE_H_
