// Loaded models by id (uint32, never reused while the process lives).
// Thread-safe; a model found here stays alive while a caller holds it, even if
// it is unloaded meanwhile.
#ifndef ACLDUMP_RUNTIME_MODEL_REGISTRY_H_
#define ACLDUMP_RUNTIME_MODEL_REGISTRY_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/compiled_model.h"
#include "runtime/geared_model.h"

namespace acldump {

struct LoadedModel {
  uint32_t id = 0;
  std::string
      file_stem;  // file name without extension; empty when loaded from memory
  std::shared_ptr<GearedModel> model;
  // The gear aclmdlSetDynamicBatchSize / aclmdlSetDynamicHWSize last set (-1:
  // none), which aclmdlGetCurOutputDims reports.
  mutable std::atomic<int32_t> selected_gear{-1};
};

class ModelRegistry {
 public:
  // Registers the model and returns its id.
  absl::StatusOr<uint32_t> Add(std::shared_ptr<GearedModel> model,
                               std::string file_stem);
  std::shared_ptr<const LoadedModel> Find(uint32_t id) const;
  // Fails (NotFound) for an unknown id.
  absl::Status Remove(uint32_t id);
  std::vector<std::shared_ptr<const LoadedModel>> All() const;
  size_t size() const;

 private:
  mutable std::mutex mutex_;
  std::map<uint32_t, std::shared_ptr<const LoadedModel>> models_;
  uint32_t next_id_ = 1;
};

// Reads, validates and compiles a model, static or dynamic (one plan per
// gear). Errors are tagged kReadModelFailure (cannot read), kParseModel
// (corrupt or inconsistent), kModelSizeInvalid (a tensor over the size limit)
// or kOutOfMemory (over the memory limit).
absl::StatusOr<std::unique_ptr<GearedModel>> LoadGearedModelFromFile(
    const std::string& path, const CompileOptions& options = {});
absl::StatusOr<std::unique_ptr<GearedModel>> LoadGearedModelFromMemory(
    std::string_view bytes, const CompileOptions& options = {});
// The same for a static model; a dynamic one is a kParseModel error.
absl::StatusOr<std::unique_ptr<CompiledModel>> LoadModelFromFile(
    const std::string& path, const CompileOptions& options = {});
absl::StatusOr<std::unique_ptr<CompiledModel>> LoadModelFromMemory(
    std::string_view bytes, const CompileOptions& options = {});
// "dir/resnet.v2.om" -> "resnet.v2" (the dump model name of a file-loaded
// model).
std::string FileStem(const std::string& path);

}  // namespace acldump

#endif  // ACLDUMP_RUNTIME_MODEL_REGISTRY_H_
