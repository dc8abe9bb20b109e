// ONNX -> acldump model conversion: import, graph passes, and a compile check
// so a converted model is known to load.
#ifndef ACLDUMP_RUNTIME_CONVERTER_H_
#define ACLDUMP_RUNTIME_CONVERTER_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "runtime/graph.h"
#include "runtime/passes.h"

namespace acldump {

absl::StatusOr<Graph> ConvertOnnx(std::string_view onnx_bytes,
                                  const PassOptions& options = {});
absl::StatusOr<Graph> ConvertOnnxFile(const std::string& path,
                                      const PassOptions& options = {});

}  // namespace acldump

#endif  // ACLDUMP_RUNTIME_CONVERTER_H_
