#include "runtime/converter.h"

#include <fstream>
#include <sstream>

#include "base/file_reader.h"
#include "base/status_macros.h"
#include "base/strings.h"
#include "kernels/ops.h"
#include "runtime/compiled_model.h"
#include "runtime/model_file.h"
#include "runtime/onnx_import.h"

namespace acldump {

absl::StatusOr<Graph> ConvertOnnx(std::string_view onnx_bytes,
                                  const PassOptions& options,
                                  const ImportOptions& import_options) {
  ASSIGN_OR_RETURN(Graph graph, ImportOnnxBytes(onnx_bytes, import_options));
  RETURN_IF_ERROR(OptimizeGraph(graph, BuiltinOps(), options));
  // The converted model must load: round-trip it through the file format and
  // compile it.
  ASSIGN_OR_RETURN(Graph reparsed, ParseModel(SerializeModel(graph)));
  ASSIGN_OR_RETURN(auto compiled,
                   CompiledModel::Compile(std::move(reparsed), BuiltinOps()));
  return graph;
}

absl::StatusOr<Graph> ConvertOnnxFile(const std::string& path,
                                      const PassOptions& options,
                                      const ImportOptions& import_options) {
  ASSIGN_OR_RETURN(std::string bytes,
                   ReadRegularFile(path, kMaxOnnxFileBytes, "ONNX file"));
  absl::StatusOr<Graph> graph = ConvertOnnx(bytes, options, import_options);
  if (!graph.ok()) return Annotate(graph.status(), path);
  return graph;
}

}  // namespace acldump
