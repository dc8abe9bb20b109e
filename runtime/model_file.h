// Reading and writing .om model files: magic "ACLDMOM2", the size of a
// serialised acldump.om.Model, the message, then the weights section that
// holds the initializers' bytes (runtime/model.proto); version-1 files (magic
// "ACLDMOM1" + the message, weights inline) are still read. Files are
// untrusted: parsing validates every field and bounds every allocation.
#ifndef ACLDUMP_RUNTIME_MODEL_FILE_H_
#define ACLDUMP_RUNTIME_MODEL_FILE_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "base/file_reader.h"
#include "runtime/graph.h"

namespace acldump {

inline constexpr std::string_view kModelMagic = "ACLDMOM2";
inline constexpr std::string_view kModelMagicV1 = "ACLDMOM1";
// Largest message (protobuf's own limit is 2 GiB), and so the largest
// version-1 file.
inline constexpr size_t kMaxModelFileBytes = size_t{1} << 31;
// Largest weights section of a version-2 file.
inline constexpr uint64_t kMaxModelWeightsBytes = uint64_t{1} << 36;

std::string SerializeModel(const Graph& graph);
// The version-1 layout (the weights inside the message), which files written
// before the weights section have: for tests of that layout and of the
// message's own checks.
std::string SerializeModelVersion1(const Graph& graph);

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
// The same, taking the file's bytes and freeing them once parsed, before the
// graph's tensors are made: a model's weights are held twice at most while it
// loads (message and graph), not three times.
absl::StatusOr<Graph> ParseModel(std::string&& bytes);
// A model file read in parts: the message, then each initializer straight
// into its tensor (the file is never held whole). A read that fails is
// DataLoss, a version-1 file over kMaxModelFileBytes ResourceExhausted,
// anything else as ParseModel.
absl::StatusOr<Graph> ReadModelFile(const RandomAccessFile& file);
absl::Status WriteModelFile(const Graph& graph, const std::string& path);

// The model as JSON, outer "name" first (the model converter's JSON of).
// Tensor data is summarised, not printed.
std::string ModelToJson(const Graph& graph);

}  // namespace acldump

#endif  // ACLDUMP_RUNTIME_MODEL_FILE_H_
