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
#include "runtime/geared_model.h"

namespace acldump {

struct LoadedModel {
  uint32_t id = 0;
  std::string
      file_stem;  // file name without extension; empty when loaded from memory
  std::shared_ptr<GearedModel> model;
  // The device it was loaded on (its dumps go to that device's folder).
  int32_t device = 0;
  // The gear aclmdlSetDynamicBatchSize / aclmdlSetDynamicHWSize last set (-1:
  // none), which aclmdlGetCurOutputDims reports.
  mutable std::atomic<int32_t> selected_gear{-1};
};

// What else a load attaches to a model once it is registered: the dump engine
// implements this, so the runtime needs to know nothing of dumping.
class ModelLoadListener {
 public:
  virtual ~ModelLoadListener() = default;
  // Called once per load, after the model got its id and before the load
  // returns it. A failure unloads the model and fails the load. Warnings
  // (layers that match nothing, ...) go to `warnings`, each once.
  virtual absl::Status OnModelLoaded(const LoadedModel& model, int32_t device,
                                     std::vector<std::string>* warnings) = 0;
};

class ModelRegistry {
 public:
  // Registers the model and returns its id.
  absl::StatusOr<uint32_t> Add(std::shared_ptr<GearedModel> model,
                               std::string file_stem, int32_t device = 0);
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

}  // namespace acldump

#endif  // ACLDUMP_RUNTIME_MODEL_REGISTRY_H_
