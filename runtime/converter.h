// ONNX -> acldump model conversion: import, graph passes, and a compile check
// so a converted model is known to load.
#ifndef ACLDUMP_RUNTIME_CONVERTER_H_
#define ACLDUMP_RUNTIME_CONVERTER_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "runtime/graph.h"
#include "runtime/onnx_import.h"
#include "runtime/passes.h"

namespace acldump {

// Largest ONNX file read (protobuf cannot parse a larger message).
inline constexpr size_t kMaxOnnxFileBytes = size_t{2} << 30;

// `import_options` pins symbolic input dimensions (convert --input-shape);
// output and intermediate shapes follow by shape inference.
absl::StatusOr<Graph> ConvertOnnx(std::string_view onnx_bytes,
                                  const PassOptions& options = {},
                                  const ImportOptions& import_options = {});
absl::StatusOr<Graph> ConvertOnnxFile(const std::string& path,
                                      const PassOptions& options = {},
                                      const ImportOptions& import_options = {});

}  // namespace acldump

#endif  // ACLDUMP_RUNTIME_CONVERTER_H_
