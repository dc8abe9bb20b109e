// The one way a model gets loaded: file or memory -> parsed and validated ->
// compiled (one plan, or one per gear of a dynamic model) -> bound to caller
// memory -> registered -> handed to whatever else a load attaches (the dump
// engine, through ModelLoadListener). The C ABI, the tools' plan preview and
// the benchmarks all load through here, so they see the same plans.
//
// Errors carry the ErrorKind an API reports: kReadModelFailure (cannot read),
// kParseModel (corrupt or inconsistent), kModelSizeInvalid (a file or tensor
// over its size limit), kOutOfMemory (over the memory limit),
// kModelParamInvalid (caller memory that does not fit), kFeatureUnsupported
// (an ONNX operator the runtime lacks), kWriteFile (a converted model that
// cannot be written).
#ifndef ACLDUMP_RUNTIME_MODEL_LOADER_H_
#define ACLDUMP_RUNTIME_MODEL_LOADER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/compiled_model.h"
#include "runtime/geared_model.h"
#include "runtime/graph.h"
#include "runtime/model_registry.h"
#include "runtime/onnx_import.h"

namespace acldump {

// Where a model comes from: an .om file, or its bytes in memory.
struct ModelSource {
  std::string path;        // set for a file
  std::string_view bytes;  // the model when path is empty (not owned)

  static ModelSource File(std::string path);
  static ModelSource Memory(std::string_view bytes);
  bool is_file() const { return !path.empty(); }
  // The dump model name of a file-loaded model ("dir/resnet.v2.om" ->
  // "resnet.v2"); empty for memory.
  std::string file_stem() const;
};

// "dir/resnet.v2.om" -> "resnet.v2".
std::string FileStem(const std::string& path);

// Reads (bounded) and validates a model; nodes in topological order.
absl::StatusOr<Graph> ReadModel(const ModelSource& source);
// Compiles a validated graph: one plan, or one per gear of a dynamic model.
absl::StatusOr<std::unique_ptr<GearedModel>> CompileModel(
    Graph graph, const CompileOptions& options = {});
// CompileModel for a graph that must be static (one plan); a dynamic one is a
// kParseModel error that says how to make a static one.
absl::StatusOr<std::unique_ptr<CompiledModel>> CompileStaticModel(
    Graph graph, const CompileOptions& options = {});
// ReadModel, then CompileModel.
absl::StatusOr<std::unique_ptr<GearedModel>> LoadModel(
    const ModelSource& source, const CompileOptions& options = {});
// ReadModel, then CompileStaticModel: for callers that run one plan directly
// (benchmarks, tests).
absl::StatusOr<std::unique_ptr<CompiledModel>> LoadStaticModel(
    const ModelSource& source, const CompileOptions& options = {});

// ONNX -> .om file in one call (the C ABI's aclmdlConvertOnnx). `input_shapes`
// pins symbolic input dimensions.
absl::Status ConvertOnnxToModelFile(const std::string& onnx_path,
                                    const std::string& om_path,
                                    const ImportOptions& import_options = {});

// Caller memory for a load (the SDK's load-with-memory calls): null pointers
// leave that part to the model. Must be memory the host runtime handed out
// (aclrtMalloc), which stays pinned while the model lives.
struct CallerMemory {
  void* work = nullptr;
  size_t work_size = 0;
  void* weights = nullptr;
  size_t weight_size = 0;
};

// The memory a model needs when loaded with caller memory (aclmdlQuerySize):
// never 0, so it can be passed to an allocator.
struct ModelMemoryNeeds {
  size_t work_bytes = 0;
  size_t weight_bytes = 0;
};
ModelMemoryNeeds MemoryNeeds(const GearedModel& model);

struct LoadRequest {
  ModelSource source;
  CallerMemory memory;
  int32_t device = 0;  // the device the model's dumps are filed under
  CompileOptions options;
};

// compile -> bind memory -> register -> listener, as one call; returns the
// model id. `listener` may be null (nothing else is attached).
absl::StatusOr<uint32_t> LoadAndRegister(const LoadRequest& request,
                                         ModelRegistry& registry,
                                         ModelLoadListener* listener,
                                         std::vector<std::string>* warnings);

}  // namespace acldump

#endif  // ACLDUMP_RUNTIME_MODEL_LOADER_H_
