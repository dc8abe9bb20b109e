#include "runtime/model_registry.h"

#include "base/strings.h"

namespace acldump {

absl::StatusOr<uint32_t> ModelRegistry::Add(std::shared_ptr<GearedModel> model,
                                            std::string file_stem,
                                            int32_t device) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (models_.size() >= UINT32_MAX - 1) {
    return absl::ResourceExhaustedError("too many models are loaded");
  }
  while (next_id_ == 0 || models_.count(next_id_)) ++next_id_;
  auto loaded = std::make_shared<LoadedModel>();
  loaded->id = next_id_++;
  loaded->file_stem = std::move(file_stem);
  loaded->model = std::move(model);
  loaded->device = device;
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

}  // namespace acldump
