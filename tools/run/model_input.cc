#include "tools/run/model_input.h"

#include <filesystem>

#include "base/status_macros.h"
#include "base/strings.h"
#include "runtime/converter.h"
#include "runtime/gears.h"
#include "runtime/model_loader.h"
#include "tools/common/cli_util.h"

namespace acldump::tools {

namespace fs = std::filesystem;

bool IsOmFile(const std::string& path) {
  return fs::path(path).extension() == ".om";
}

absl::StatusOr<Graph> ReadAnyModel(const std::string& path,
                                   bool allow_dynamic) {
  RETURN_IF_ERROR(RequireRegularFile(path, "model file"));
  const std::string extension = fs::path(path).extension().string();
  if (extension == ".om") {
    ASSIGN_OR_RETURN(Graph graph, ReadModel(ModelSource::File(path)));
    if (graph.dynamic() && !allow_dynamic) {
      return WithHint(
          absl::InvalidArgumentError(StrCat("'", path, "' is a dynamic model (",
                                            graph.gears.size(), " ",
                                            GearKindName(graph.gear_kind),
                                            " gears); the tools run static "
                                            "models")),
          "convert the ONNX model with --input-shape at the shape to run, or "
          "run the dynamic model through the C API or Python, which select a "
          "gear");
    }
    return graph;
  }
  if (extension != ".onnx") {
    return WithHint(absl::InvalidArgumentError(StrCat(
                        "'", path, "' is neither an .om nor an .onnx model")),
                    "convert other formats to ONNX first");
  }
  absl::StatusOr<Graph> graph = ConvertOnnxFile(path);
  if (!graph.ok()) {
    return WithHint(
        absl::Status(graph.status().code(),
                     StrCat("cannot convert '", path,
                            "': ", ToStd(graph.status().message()))),
        "the converter (acldump-convert installed, //tools:convert in the "
        "source tree) converts with options (--input-shape, --no-fusion)");
  }
  return graph;
}

}  // namespace acldump::tools
