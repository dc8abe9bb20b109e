// Selecting a dynamic model's gear: the SDK's calls write the batch size or
// image size into the dataset's gear input (its last input, named
// ACL_DYNAMIC_TENSOR_NAME), whose contents choose the plan an execution runs.
#include <cstdint>
#include <vector>

#include "acl/acl.h"
#include "api_support.h"
#include "base/strings.h"
#include "library.h"

using namespace acldump;        // NOLINT: the entry points are thin adapters
using namespace acldump::capi;  // NOLINT

namespace {

// The SDK's check order: the arguments, the buffer's length, the model, then
// the gear; a gear that fits is recorded on the model (aclmdlGetCurOutputDims)
// and written into the buffer as the runtime reads it.
aclError SetGear(uint32_t model_id, aclmdlDataset* dataset, size_t index,
                 const std::vector<uint64_t>& requested) {
  std::shared_ptr<State> state = Acquire();
  if (!state) return ACL_ERROR_UNINITIALIZE;
  if (dataset == nullptr || !Lib().datasets.Contains(dataset)) {
    return Fail(ACL_ERROR_INVALID_PARAM, "dataset is NULL or was destroyed");
  }
  const GearKind kind =
      requested.size() == 1 ? GearKind::kBatch : GearKind::kImageSize;
  for (uint64_t value : requested) {
    if (value == 0) {
      return Fail(ACL_ERROR_INVALID_PARAM,
                  kind == GearKind::kBatch ? "batchSize must not be 0"
                                           : "height and width must not be 0");
    }
  }
  if (index >= dataset->buffers.size()) {
    return Fail(ACL_ERROR_INVALID_PARAM,
                StrCat("index ", index, " is out of range (the dataset has ",
                       dataset->buffers.size(), " buffers)"));
  }
  aclDataBuffer* buffer = dataset->buffers[index];
  if (!Lib().buffers.Contains(buffer) || buffer->data == nullptr) {
    return Fail(ACL_ERROR_INVALID_PARAM,
                StrCat("buffer ", index,
                       " of the dataset has no memory or was destroyed"));
  }
  if (GearedModel::GearValueWidth(requested.size(), buffer->size) == 0) {
    return Fail(ACL_ERROR_GE_DYNAMIC_INPUT_LENGTH_INVALID,
                StrCat("buffer ", index, " holds ", buffer->size,
                       " bytes; the gear input needs ", 8 * requested.size()));
  }
  std::shared_ptr<const LoadedModel> loaded = state->models.Find(model_id);
  if (!loaded) {
    return Fail(ACL_ERROR_GE_EXEC_MODEL_ID_INVALID,
                StrCat("model id ", model_id, " is not loaded"));
  }
  const GearedModel& model = *loaded->model;
  // A value past int64 is a size no gear has: not a gear, as the SDK says of
  // any other value that is none of the model's.
  std::vector<int64_t> values;
  bool representable = true;
  for (uint64_t value : requested) {
    representable &= value <= static_cast<uint64_t>(INT64_MAX);
    values.push_back(static_cast<int64_t>(value));
  }
  std::optional<size_t> gear;
  if (model.gear_kind() == kind && representable) {
    gear = model.FindGear(values);
  }
  if (!gear) {
    std::vector<std::string> gears;
    for (const auto& g : model.gears())
      gears.push_back(StrCat("[", StrJoin(g, ","), "]"));
    return Fail(ACL_ERROR_GE_DYNAMIC_BATCH_SIZE_INVALID,
                StrCat(GearKindName(kind), " [", StrJoin(requested, ","),
                       "] is not a ", "gear of model ", model_id, " (",
                       model.gear_kind() == GearKind::kNone
                           ? std::string("it has static shapes")
                           : StrCat("its ", GearKindName(model.gear_kind()),
                                    " gears: ", StrJoin(gears, " ")),
                       ")"));
  }
  loaded->selected_gear.store(static_cast<int32_t>(*gear));
  // The length was checked above: the values fit.
  GearedModel::WriteGearInput(values, buffer->data, buffer->size);
  return ACL_SUCCESS;
}

}  // namespace

extern "C" {

aclError aclmdlSetDynamicBatchSize(uint32_t modelId, aclmdlDataset* dataset,
                                   size_t index, uint64_t batchSize) {
  return GuardedCall(
      [&] { return SetGear(modelId, dataset, index, {batchSize}); });
}

aclError aclmdlSetDynamicHWSize(uint32_t modelId, aclmdlDataset* dataset,
                                size_t index, uint64_t height, uint64_t width) {
  return GuardedCall([&] {
    return SetGear(modelId, dataset, index, {height, width});
  });
}

}  // extern "C"
