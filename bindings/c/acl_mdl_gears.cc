// Selecting a dynamic model's gear: the SDK's calls write the batch size,
// image size or dims into the dataset's gear input (its last input, named
// ACL_DYNAMIC_TENSOR_NAME), whose contents choose the plan an execution runs.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "api_support.h"
#include "base/strings.h"
#include "library.h"

using namespace acldump;        // NOLINT: the entry points are thin adapters
using namespace acldump::capi;  // NOLINT

namespace {

std::string RenderValues(const std::vector<int64_t>& values) {
  return StrCat("[", StrJoin(values, ","), "]");
}

// The gear values a dims model reads from `dims` (every input's dims, one
// input after another): the values at the inputs' -1s. Fails unless the count
// and every fixed dimension match the inputs.
aclError DimsGearValues(const GearedModel& model, uint32_t model_id,
                        const aclmdlIODims& dims,
                        std::vector<int64_t>* values) {
  const std::vector<NamedTensorInfo>& inputs = model.graph().inputs;
  std::vector<std::string> shapes;
  size_t total = 0;
  for (const NamedTensorInfo& in : inputs) {
    total += in.info.shape.rank();
    shapes.push_back(StrCat(in.name, ":", RenderValues(in.info.shape.dims())));
  }
  const std::string expected =
      StrCat(" (model ", model_id,
             "'s inputs, one after another: ", StrJoin(shapes, " "),
             "; -1 takes a gear's value)");
  if (dims.dimCount != total || dims.dimCount > ACL_MAX_DIM_CNT) {
    return Fail(ACL_ERROR_GE_DYNAMIC_BATCH_SIZE_INVALID,
                StrCat("dims has ", dims.dimCount, " values, the inputs ",
                       total, expected));
  }
  size_t at = 0;
  for (const NamedTensorInfo& in : inputs) {
    for (int64_t dim : in.info.shape.dims()) {
      const int64_t given = dims.dims[at];
      if (dim < 0) {
        values->push_back(given);
      } else if (given != dim) {
        return Fail(ACL_ERROR_GE_DYNAMIC_BATCH_SIZE_INVALID,
                    StrCat("dims[", at, "] is ", given,
                           ", but that dimension "
                           "of input '",
                           in.name, "' is fixed at ", dim, expected));
      }
      ++at;
    }
  }
  return ACL_SUCCESS;
}

// The SDK's check order: the arguments, the buffer's length, the model, then
// the gear; a gear that fits is recorded on the model (aclmdlGetCurOutputDims)
// and written into the buffer as the runtime reads it. A dims gear's length
// is known from the model only, so its buffer is checked after the model.
aclError SetGear(uint32_t model_id, aclmdlDataset* dataset, size_t index,
                 GearKind kind, const std::vector<uint64_t>& requested,
                 const aclmdlIODims* dims = nullptr) {
  std::shared_ptr<State> state = Acquire();
  if (!state) return ACL_ERROR_UNINITIALIZE;
  if (dataset == nullptr || !Lib().datasets.Contains(dataset)) {
    return Fail(ACL_ERROR_INVALID_PARAM, "dataset is NULL or was destroyed");
  }
  if (kind == GearKind::kDims && dims == nullptr) return NullArgument("dims");
  for (uint64_t value : requested) {
    if (value == 0) {
      return Fail(ACL_ERROR_INVALID_PARAM,
                  kind == GearKind::kBatch ? "batchSize must not be 0"
                                           : "height and width must not be 0");
    }
  }
  aclDataBuffer* buffer = WritableDatasetBuffer(dataset, index);
  if (buffer == nullptr) return ACL_ERROR_INVALID_PARAM;
  const auto check_length = [&](size_t arity) {
    if (GearedModel::GearValueWidth(arity, buffer->size) != 0) {
      return ACL_SUCCESS;
    }
    return Fail(ACL_ERROR_GE_DYNAMIC_INPUT_LENGTH_INVALID,
                StrCat("buffer ", index, " holds ", buffer->size,
                       " bytes; the gear input needs ", 8 * arity));
  };
  if (kind != GearKind::kDims) {
    if (aclError error = check_length(requested.size()); error != ACL_SUCCESS)
      return error;
  }
  std::shared_ptr<const LoadedModel> loaded = state->models.Find(model_id);
  if (!loaded) {
    return Fail(ACL_ERROR_GE_EXEC_MODEL_ID_INVALID,
                StrCat("model id ", model_id, " is not loaded"));
  }
  const GearedModel& model = *loaded->model;
  const auto not_a_gear = [&](const std::string& given) {
    std::vector<std::string> gears;
    for (const auto& g : model.gears()) gears.push_back(RenderValues(g));
    return Fail(ACL_ERROR_GE_DYNAMIC_BATCH_SIZE_INVALID,
                StrCat(GearKindName(kind), " ", given, " is not a ",
                       "gear of model ", model_id, " (",
                       model.gear_kind() == GearKind::kNone
                           ? std::string("it has static shapes")
                           : StrCat("its ", GearKindName(model.gear_kind()),
                                    " gears: ", StrJoin(gears, " ")),
                       ")"));
  };
  // A value past int64 is a size no gear has: not a gear, as the SDK says of
  // any other value that is none of the model's.
  std::vector<int64_t> values;
  bool representable = true;
  if (kind == GearKind::kDims) {
    if (model.gear_kind() != GearKind::kDims) {
      std::vector<int64_t> given(
          dims->dims,
          dims->dims + std::min<size_t>(dims->dimCount, ACL_MAX_DIM_CNT));
      return not_a_gear(RenderValues(given));
    }
    if (aclError error = DimsGearValues(model, model_id, *dims, &values);
        error != ACL_SUCCESS) {
      return error;
    }
    if (aclError error = check_length(values.size()); error != ACL_SUCCESS)
      return error;
  } else {
    for (uint64_t value : requested) {
      representable &= value <= static_cast<uint64_t>(INT64_MAX);
      values.push_back(static_cast<int64_t>(value));
    }
  }
  std::optional<size_t> gear;
  if (model.gear_kind() == kind && representable) {
    gear = model.FindGear(values);
  }
  if (!gear) {
    return not_a_gear(
        kind == GearKind::kDims
            ? StrCat(RenderValues(values), " (the values at the -1s)")
            : StrCat("[", StrJoin(requested, ","), "]"));
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
  return GuardedCall([&] {
    return SetGear(modelId, dataset, index, GearKind::kBatch, {batchSize});
  });
}

aclError aclmdlSetDynamicHWSize(uint32_t modelId, aclmdlDataset* dataset,
                                size_t index, uint64_t height, uint64_t width) {
  return GuardedCall([&] {
    return SetGear(modelId, dataset, index, GearKind::kImageSize,
                   {height, width});
  });
}

aclError aclmdlSetInputDynamicDims(uint32_t modelId, aclmdlDataset* dataset,
                                   size_t index, const aclmdlIODims* dims) {
  return GuardedCall([&] {
    return SetGear(modelId, dataset, index, GearKind::kDims, {}, dims);
  });
}

}  // extern "C"
