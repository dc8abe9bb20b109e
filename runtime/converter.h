// ONNX -> acldump model conversion: import, graph passes, and a compile check
// so a converted model is known to load.
#ifndef ACLDUMP_RUNTIME_CONVERTER_H_
#define ACLDUMP_RUNTIME_CONVERTER_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "runtime/gears.h"
#include "runtime/graph.h"
#include "runtime/model_file.h"
#include "runtime/onnx_import.h"
#include "runtime/passes.h"

namespace acldump {

// Largest ONNX file read (protobuf cannot parse a larger message).
inline constexpr size_t kMaxOnnxFileBytes = size_t{2} << 30;

// Gears to compile (convert --dynamic-batch-size / --dynamic-image-size): the
// inputs' -1 dimensions take each gear's values in turn.
struct GearOptions {
  GearKind kind = GearKind::kNone;
  GearValues values;
};

// `import_options` pins symbolic input dimensions (convert --input-shape);
// output and intermediate shapes follow by shape inference. With `gears`, the
// result is a dynamic model holding one converted graph per gear.
absl::StatusOr<Graph> ConvertOnnx(std::string_view onnx_bytes,
                                  const PassOptions& options = {},
                                  const ImportOptions& import_options = {},
                                  const GearOptions& gears = {});
// A model file's weights section holds at most kMaxModelWeightsBytes: a
// model whose weights reach `limit` is refused, naming its size, before it is
// serialised.
absl::Status CheckFitsModelFile(const Graph& graph,
                                uint64_t limit = kMaxModelWeightsBytes);
absl::StatusOr<Graph> ConvertOnnxFile(const std::string& path,
                                      const PassOptions& options = {},
                                      const ImportOptions& import_options = {},
                                      const GearOptions& gears = {});

// convert --insert-op-conf: inserts the AIPP operators the file at
// `conf_path` configures (see runtime/aipp_insert.h) into a converted static
// model, and checks that the result loads.
absl::Status ApplyInsertOpConf(Graph& graph, const std::string& conf_path);

}  // namespace acldump

#endif  // ACLDUMP_RUNTIME_CONVERTER_H_
