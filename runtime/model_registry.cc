#include "runtime/model_registry.h"

#include "base/error_kind.h"
#include "base/file_reader.h"
#include "base/status_macros.h"
#include "base/strings.h"
#include "kernels/ops.h"
#include "runtime/gears.h"
#include "runtime/model_file.h"

namespace acldump {

absl::StatusOr<uint32_t> ModelRegistry::Add(std::shared_ptr<GearedModel> model,
                                            std::string file_stem) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (models_.size() >= UINT32_MAX - 1) {
    return absl::ResourceExhaustedError("too many models are loaded");
  }
  while (next_id_ == 0 || models_.count(next_id_)) ++next_id_;
  auto loaded = std::make_shared<LoadedModel>();
  loaded->id = next_id_++;
  loaded->file_stem = std::move(file_stem);
  loaded->model = std::move(model);
  models_[loaded->id] = loaded;
  return loaded->id;
}

std::shared_ptr<const LoadedModel> ModelRegistry::Find(uint32_t id) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = models_.find(id);
  return it == models_.end() ? nullptr : it->second;
}

absl::Status ModelRegistry::Remove(uint32_t id) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (models_.erase(id) == 0) {
    return absl::NotFoundError(StrCat("model id ", id, " is not loaded"));
  }
  return absl::OkStatus();
}

std::vector<std::shared_ptr<const LoadedModel>> ModelRegistry::All() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::shared_ptr<const LoadedModel>> all;
  for (const auto& [id, model] : models_) all.push_back(model);
  return all;
}

size_t ModelRegistry::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return models_.size();
}

namespace {

absl::Status ModelLoadError(const absl::Status& status) {
  if (KindOf(status)) return status;
  return WithKind(status, status.code() == absl::StatusCode::kResourceExhausted
                              ? ErrorKind::kModelSizeInvalid
                              : ErrorKind::kParseModel);
}

absl::StatusOr<Graph> TagParsed(absl::StatusOr<Graph> graph) {
  if (graph.ok() || KindOf(graph.status())) return graph;
  const ErrorKind kind =
      graph.status().code() == absl::StatusCode::kNotFound ||
              graph.status().code() == absl::StatusCode::kDataLoss
          ? ErrorKind::kReadModelFailure
          : ErrorKind::kParseModel;
  return WithKind(graph.status(), kind);
}

absl::StatusOr<std::unique_ptr<CompiledModel>> CompileStatic(
    absl::StatusOr<Graph> graph, const CompileOptions& options) {
  ASSIGN_OR_RETURN(Graph parsed, TagParsed(std::move(graph)));
  if (parsed.dynamic()) {
    return WithKind(
        absl::InvalidArgumentError(
            StrCat("model '", parsed.name, "' is dynamic (",
                   parsed.gears.size(), " ", GearKindName(parsed.gear_kind),
                   " gears); this tool runs static models: convert with "
                   "--input-shape instead")),
        ErrorKind::kParseModel);
  }
  absl::StatusOr<std::unique_ptr<CompiledModel>> compiled =
      CompiledModel::Compile(std::move(parsed), BuiltinOps(), options);
  if (!compiled.ok()) return ModelLoadError(compiled.status());
  return compiled;
}

absl::StatusOr<std::unique_ptr<GearedModel>> CompileGeared(
    absl::StatusOr<Graph> graph, const CompileOptions& options) {
  ASSIGN_OR_RETURN(Graph parsed, TagParsed(std::move(graph)));
  absl::StatusOr<std::unique_ptr<GearedModel>> compiled =
      GearedModel::Compile(std::move(parsed), BuiltinOps(), options);
  if (!compiled.ok()) return ModelLoadError(compiled.status());
  return compiled;
}

// A file that cannot be read (missing, a directory, a device, unreadable) is
// a read failure, one over the size limit a size error; only its bytes can be
// a parse error.
absl::StatusOr<Graph> ParseModelFile(const std::string& path) {
  absl::StatusOr<std::string> bytes =
      ReadRegularFile(path, kMaxModelFileBytes, "model file");
  if (!bytes.ok()) {
    return WithKind(bytes.status(), bytes.status().code() ==
                                            absl::StatusCode::kResourceExhausted
                                        ? ErrorKind::kModelSizeInvalid
                                        : ErrorKind::kReadModelFailure);
  }
  absl::StatusOr<Graph> graph = ParseModel(*bytes);
  if (!graph.ok()) return TagParsed(Annotate(graph.status(), path));
  return graph;
}

}  // namespace

absl::StatusOr<std::unique_ptr<CompiledModel>> LoadModelFromFile(
    const std::string& path, const CompileOptions& options) {
  return CompileStatic(ParseModelFile(path), options);
}

absl::StatusOr<std::unique_ptr<CompiledModel>> LoadModelFromMemory(
    std::string_view bytes, const CompileOptions& options) {
  return CompileStatic(ParseModel(bytes), options);
}

absl::StatusOr<std::unique_ptr<GearedModel>> LoadGearedModelFromFile(
    const std::string& path, const CompileOptions& options) {
  return CompileGeared(ParseModelFile(path), options);
}

absl::StatusOr<std::unique_ptr<GearedModel>> LoadGearedModelFromMemory(
    std::string_view bytes, const CompileOptions& options) {
  return CompileGeared(ParseModel(bytes), options);
}

std::string FileStem(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  const size_t dot = name.find_last_of('.');
  if (dot != std::string::npos && dot > 0) name.resize(dot);
  return name;
}

}  // namespace acldump
