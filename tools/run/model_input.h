// The models the tools accept: an .om file, or an .onnx file converted on the
// fly. One place for the checks and messages every command gives.
#ifndef ACLDUMP_TOOLS_RUN_MODEL_INPUT_H_
#define ACLDUMP_TOOLS_RUN_MODEL_INPUT_H_

#include <string>

#include "absl/status/statusor.h"
#include "runtime/graph.h"

namespace acldump::tools {

// True for a path ending in ".om".
bool IsOmFile(const std::string& path);

// Reads `path` as an .om model or converts it as an .onnx model. Errors say
// what the path is (missing, a folder, another format) with a hint. A dynamic
// .om model is refused unless `allow_dynamic` (the tools run static models;
// check-config previews every gear).
absl::StatusOr<Graph> ReadAnyModel(const std::string& path,
                                   bool allow_dynamic = false);

}  // namespace acldump::tools

#endif  // ACLDUMP_TOOLS_RUN_MODEL_INPUT_H_
