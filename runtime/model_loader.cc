#include "runtime/model_loader.h"

#include <algorithm>

#include "base/error_kind.h"
#include "base/file_reader.h"
#include "base/status_macros.h"
#include "base/strings.h"
#include "kernels/ops.h"
#include "runtime/converter.h"
#include "runtime/gears.h"
#include "runtime/host/memory_registry.h"
#include "runtime/memory_plan.h"
#include "runtime/model_file.h"

namespace acldump {
namespace {

// A status from compiling: over a limit is a size error, anything else
// untagged a model the runtime cannot run.
absl::Status ModelLoadError(const absl::Status& status) {
  if (KindOf(status)) return status;
  return WithKind(status, status.code() == absl::StatusCode::kResourceExhausted
                              ? ErrorKind::kModelSizeInvalid
                              : ErrorKind::kParseModel);
}

// A parse failure of bytes that were read: corrupt or inconsistent.
absl::Status ParseError(const absl::Status& status) {
  if (KindOf(status)) return status;
  const ErrorKind kind = status.code() == absl::StatusCode::kNotFound ||
                                 status.code() == absl::StatusCode::kDataLoss
                             ? ErrorKind::kReadModelFailure
                         : status.code() == absl::StatusCode::kResourceExhausted
                             ? ErrorKind::kModelSizeInvalid
                             : ErrorKind::kParseModel;
  return WithKind(status, kind);
}

// A file that cannot be read (missing, a folder, a device, unreadable) is a
// read failure, one over the size limit a size error.
absl::Status ReadError(const absl::Status& status) {
  return WithKind(status, status.code() == absl::StatusCode::kResourceExhausted
                              ? ErrorKind::kModelSizeInvalid
                              : ErrorKind::kReadModelFailure);
}

absl::Status CheckCallerPart(const char* what, const void* pointer, size_t size,
                             size_t needed) {
  if (pointer == nullptr) return absl::OkStatus();
  if (size < needed) {
    return KindError(ErrorKind::kModelParamInvalid,
                     StrCat(what, " memory of ", size,
                            " bytes is too small: the model needs ", needed,
                            " (aclmdlQuerySize)"),
                     absl::StatusCode::kInvalidArgument);
  }
  if (!host::Memory().Contains(pointer, size, host::MemoryKind::kDevice)) {
    return KindError(ErrorKind::kModelParamInvalid,
                     StrCat(what, " memory [", pointer, ", +", size,
                            ") is not inside one allocation of aclrtMalloc"),
                     absl::StatusCode::kInvalidArgument);
  }
  return absl::OkStatus();
}

// Binds caller memory; the returned model keeps it pinned while it lives.
absl::StatusOr<std::shared_ptr<GearedModel>> BindCallerMemory(
    std::unique_ptr<GearedModel> model, const CallerMemory& memory) {
  if (memory.work == nullptr && memory.weights == nullptr) {
    return std::shared_ptr<GearedModel>(std::move(model));
  }
  const ModelMemoryNeeds needs = MemoryNeeds(*model);
  RETURN_IF_ERROR(
      CheckCallerPart("work", memory.work, memory.work_size, needs.work_bytes));
  RETURN_IF_ERROR(CheckCallerPart("weight", memory.weights, memory.weight_size,
                                  needs.weight_bytes));
  absl::Status bound = model->BindMemory(memory.work, memory.work_size,
                                         memory.weights, memory.weight_size);
  if (!bound.ok() && !KindOf(bound)) {
    bound = WithKind(bound, ErrorKind::kModelParamInvalid);
  }
  RETURN_IF_ERROR(bound);
  const void* used[] = {memory.work, memory.weights};
  std::shared_ptr<host::MemoryRegistry::Pins> pins = host::Memory().Pin(used);
  return std::shared_ptr<GearedModel>(model.release(),
                                      [pins](GearedModel* m) { delete m; });
}

}  // namespace

ModelSource ModelSource::File(std::string path) {
  ModelSource source;
  source.path = std::move(path);
  return source;
}

ModelSource ModelSource::Memory(std::string_view bytes) {
  ModelSource source;
  source.bytes = bytes;
  return source;
}

std::string ModelSource::file_stem() const {
  return is_file() ? FileStem(path) : std::string();
}

std::string FileStem(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  const size_t dot = name.find_last_of('.');
  if (dot != std::string::npos && dot > 0) name.resize(dot);
  return name;
}

absl::StatusOr<Graph> ReadModel(const ModelSource& source) {
  if (!source.is_file()) {
    absl::StatusOr<Graph> graph = ParseModel(source.bytes);
    if (!graph.ok()) return ParseError(graph.status());
    return graph;
  }
  absl::StatusOr<RandomAccessFile> file =
      RandomAccessFile::Open(source.path, "model file");
  if (!file.ok()) return ReadError(file.status());
  absl::StatusOr<Graph> graph = ReadModelFile(*file);
  if (!graph.ok()) return ParseError(Annotate(graph.status(), source.path));
  return graph;
}

namespace {

// Every op type registered or control flow, subgraphs included: a file naming
// an unknown op anywhere is refused before anything is compiled.
absl::Status CheckOpTypes(const Graph& graph) {
  RETURN_IF_ERROR(CheckOpTypesSupported(graph, BuiltinOps()));
  for (const Gear& gear : graph.gears) {
    RETURN_IF_ERROR(CheckOpTypesSupported(*gear.graph, BuiltinOps()));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<GearedModel>> CompileModel(
    Graph graph, const CompileOptions& options) {
  if (absl::Status ops = CheckOpTypes(graph); !ops.ok()) {
    return ModelLoadError(ops);
  }
  absl::StatusOr<std::unique_ptr<GearedModel>> compiled =
      GearedModel::Compile(std::move(graph), BuiltinOps(), options);
  if (!compiled.ok()) return ModelLoadError(compiled.status());
  return compiled;
}

absl::StatusOr<std::unique_ptr<GearedModel>> LoadModel(
    const ModelSource& source, const CompileOptions& options) {
  ASSIGN_OR_RETURN(Graph graph, ReadModel(source));
  return CompileModel(std::move(graph), options);
}

absl::StatusOr<std::unique_ptr<CompiledModel>> CompileStaticModel(
    Graph graph, const CompileOptions& options) {
  if (graph.dynamic()) {
    return KindError(
        ErrorKind::kParseModel,
        StrCat("model '", graph.name, "' is dynamic (", graph.gears.size(), " ",
               GearKindName(graph.gear_kind),
               " gears); this caller runs static models: convert with "
               "--input-shape instead"),
        absl::StatusCode::kInvalidArgument);
  }
  if (absl::Status ops = CheckOpTypes(graph); !ops.ok()) {
    return ModelLoadError(ops);
  }
  absl::StatusOr<std::unique_ptr<CompiledModel>> compiled =
      CompiledModel::Compile(std::move(graph), BuiltinOps(), options);
  if (!compiled.ok()) return ModelLoadError(compiled.status());
  return compiled;
}

absl::StatusOr<std::unique_ptr<CompiledModel>> LoadStaticModel(
    const ModelSource& source, const CompileOptions& options) {
  ASSIGN_OR_RETURN(Graph graph, ReadModel(source));
  return CompileStaticModel(std::move(graph), options);
}

absl::Status ConvertOnnxToModelFile(const std::string& onnx_path,
                                    const std::string& om_path,
                                    const ImportOptions& import_options) {
  // Read first: whatever keeps the file from being read (missing, a folder,
  // unreadable, too large) is a read failure, as for .om models.
  absl::StatusOr<std::string> bytes =
      ReadRegularFile(onnx_path, kMaxOnnxFileBytes, "ONNX file");
  if (!bytes.ok()) {
    return WithKind(bytes.status(), ErrorKind::kReadModelFailure);
  }
  absl::StatusOr<Graph> graph = ConvertOnnx(*bytes, {}, import_options);
  if (!graph.ok()) {
    // An operator or feature the runtime lacks is unsupported; anything
    // else is a model that does not convert.
    const absl::Status annotated = Annotate(graph.status(), onnx_path);
    if (KindOf(annotated)) return annotated;
    return WithKind(annotated,
                    graph.status().code() == absl::StatusCode::kUnimplemented
                        ? ErrorKind::kFeatureUnsupported
                        : ErrorKind::kParseModel);
  }
  absl::Status written = WriteModelFile(*graph, om_path);
  if (!written.ok() && !KindOf(written)) {
    return WithKind(written, ErrorKind::kWriteFile);
  }
  return written;
}

ModelMemoryNeeds MemoryNeeds(const GearedModel& model) {
  return {std::max(model.work_bytes(), kPlanAlignment),
          std::max(AlignToPlan(model.weight_bytes()), kPlanAlignment)};
}

absl::StatusOr<uint32_t> LoadAndRegister(const LoadRequest& request,
                                         ModelRegistry& registry,
                                         ModelLoadListener* listener,
                                         std::vector<std::string>* warnings) {
  ASSIGN_OR_RETURN(std::unique_ptr<GearedModel> compiled,
                   LoadModel(request.source, request.options));
  ASSIGN_OR_RETURN(std::shared_ptr<GearedModel> model,
                   BindCallerMemory(std::move(compiled), request.memory));
  // The id is part of the dump layout: the listener needs it.
  ASSIGN_OR_RETURN(uint32_t id,
                   registry.Add(std::move(model), request.source.file_stem(),
                                request.device));
  if (listener == nullptr) return id;
  std::shared_ptr<const LoadedModel> loaded = registry.Find(id);
  if (loaded == nullptr) {
    // Unloaded in the meantime: aclFinalize (or an unload of the new id on
    // another thread) emptied the registry while this load attached.
    return KindError(ErrorKind::kNotInitialized,
                     StrCat("model ", id,
                            " was unloaded while it was being loaded (the "
                            "runtime was finalized meanwhile); load it again "
                            "after aclInit"));
  }
  absl::Status attached =
      listener->OnModelLoaded(*loaded, request.device, warnings);
  if (!attached.ok()) {
    registry.Remove(id).IgnoreError();
    // Untagged: the runtime could not attach what it was given.
    if (!KindOf(attached)) return absl::InternalError(attached.message());
    return attached;
  }
  return id;
}

}  // namespace acldump
