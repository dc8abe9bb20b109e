// Model descriptions: a loaded model's inputs and outputs.
#include <algorithm>
#include <cstdio>
#include <cstring>

#include "acl/acl.h"
#include "acl_dtypes.h"
#include "api_support.h"
#include "base/strings.h"
#include "library.h"

using namespace acldump;        // NOLINT: the entry points are thin adapters
using namespace acldump::capi;  // NOLINT

namespace {

using Io = aclmdlDesc::Io;

bool DescArg(const aclmdlDesc* desc) {
  if (desc != nullptr && Lib().descs.Contains(desc)) return true;
  Fail(ACL_ERROR_INVALID_PARAM, "model desc is NULL or was destroyed");
  return false;
}

const Io* IoAt(const aclmdlDesc* desc, size_t index, bool input) {
  if (!DescArg(desc)) return nullptr;
  const auto& list = input ? desc->inputs : desc->outputs;
  if (index >= list.size()) {
    Fail(ACL_ERROR_INVALID_PARAM,
         StrCat(input ? "input" : "output", " index ", index,
                " is out of range (the model has ", list.size(), ")"));
    return nullptr;
  }
  return &list[index];
}

aclError FillDims(const Io* io, aclmdlIODims* dims) {
  if (io == nullptr) return ACL_ERROR_INVALID_PARAM;
  if (dims == nullptr) return NullArgument("dims");
  if (io->dims.size() > ACL_MAX_DIM_CNT) {
    return Fail(ACL_ERROR_STORAGE_OVER_LIMIT,
                "tensor rank exceeds ACL_MAX_DIM_CNT");
  }
  aclmdlIODims out{};
  std::snprintf(out.name, sizeof(out.name), "%s", io->name.c_str());
  out.dimCount = io->dims.size();
  for (size_t i = 0; i < io->dims.size(); ++i) out.dims[i] = io->dims[i];
  *dims = out;
  return ACL_SUCCESS;
}

Io Describe(const NamedTensorInfo& value) {
  Io io;
  io.name = value.name;
  io.data_type = ToAclDataType(value.info.dtype);
  io.format = value.info.shape.rank() == 4 ? ACL_FORMAT_NCHW : ACL_FORMAT_ND;
  io.dims = value.info.shape.dims();
  // An output whose size depends on the input (-1 dims) has no fixed size:
  // 0, as the SDK reports it; aclmdlGetCurOutputDims gives the dims an
  // execution computed.
  const bool varies = std::any_of(io.dims.begin(), io.dims.end(),
                                  [](int64_t d) { return d < 0; });
  io.size = varies ? 0 : value.info.ByteSize();
  return io;
}

// Inputs as callers pass them (a dynamic model's sized for its largest gear,
// with -1 in the dynamic dimensions, then the gear input); outputs at the
// largest gear.
aclmdlDesc DescribeModel(uint32_t model_id, const GearedModel& model) {
  aclmdlDesc desc;
  desc.model_id = model_id;
  const std::vector<NamedTensorInfo> inputs = model.CallerInputs();
  const Graph& graph = model.graph();
  for (size_t i = 0; i < inputs.size(); ++i) {
    Io io = Describe(inputs[i]);
    if (i < graph.inputs.size()) io.dims = graph.inputs[i].info.shape.dims();
    // An AIPP image input holds pixels in rows: NHWC, as the SDK says.
    for (const GraphNode& node : graph.nodes) {
      if (node.op_type == "Aipp" && !node.inputs.empty() &&
          node.inputs[0] == inputs[i].name && io.dims.size() == 4) {
        io.format = ACL_FORMAT_NHWC;
      }
    }
    desc.inputs.push_back(std::move(io));
  }
  for (const auto& out : model.CallerOutputs())
    desc.outputs.push_back(Describe(out));
  desc.gear_kind = model.gear_kind();
  desc.gears = model.gears();
  for (size_t g = 0; g < model.num_plans() && model.dynamic(); ++g) {
    std::vector<std::vector<int64_t>> dims;
    for (const auto& out : model.plan(g).graph().outputs)
      dims.push_back(out.info.shape.dims());
    desc.gear_output_dims.push_back(std::move(dims));
  }
  if (model.gear_kind() == GearKind::kDims) {
    for (const std::vector<int64_t>& gear : model.gears()) {
      std::vector<int64_t> all;
      for (const auto& dims :
           InputDimsForGear(GearKind::kDims, graph.inputs, gear))
        all.insert(all.end(), dims.begin(), dims.end());
      desc.gear_input_dims.push_back(std::move(all));
    }
  }
  return desc;
}

aclError IndexByName(const aclmdlDesc* desc, const char* name, size_t* index,
                     bool input) {
  if (!DescArg(desc)) return ACL_ERROR_INVALID_PARAM;
  if (name == nullptr) return NullArgument("name");
  if (index == nullptr) return NullArgument("index");
  const auto& list = input ? desc->inputs : desc->outputs;
  std::vector<std::string> names;
  for (size_t i = 0; i < list.size(); ++i) {
    if (list[i].name == name) {
      *index = i;
      return ACL_SUCCESS;
    }
    names.push_back(StrCat("'", list[i].name, "'"));
  }
  return Fail(
      ACL_ERROR_INVALID_PARAM,
      StrCat("the model has no ", input ? "input" : "output", " named '", name,
             "' (it has ", StrJoin(names, ", "), ")"));
}

}  // namespace

extern "C" {

aclmdlDesc* aclmdlCreateDesc(void) {
  return Guarded<aclmdlDesc*>(nullptr, [&] {
    auto* desc = new aclmdlDesc;
    Lib().descs.Add(desc);
    return desc;
  });
}

aclError aclmdlDestroyDesc(aclmdlDesc* modelDesc) {
  return GuardedCall([&] {
    if (modelDesc == nullptr) return ACL_SUCCESS;
    if (!Lib().descs.Remove(modelDesc)) {
      return Fail(ACL_ERROR_INVALID_PARAM,
                  "model desc was destroyed already or is not one");
    }
    delete modelDesc;
    return ACL_SUCCESS;
  });
}

aclError aclmdlGetDesc(aclmdlDesc* modelDesc, uint32_t modelId) {
  return GuardedCall([&] {
    if (!DescArg(modelDesc)) return ACL_ERROR_INVALID_PARAM;
    std::shared_ptr<State> state = Acquire();
    if (!state) return ACL_ERROR_UNINITIALIZE;
    std::shared_ptr<const LoadedModel> loaded = state->models.Find(modelId);
    if (!loaded) {
      return Fail(ACL_ERROR_INVALID_MODEL_ID,
                  StrCat("model id ", modelId, " is not loaded"));
    }
    *modelDesc = DescribeModel(modelId, *loaded->model);
    return ACL_SUCCESS;
  });
}

size_t aclmdlGetNumInputs(aclmdlDesc* modelDesc) {
  return Guarded<size_t>(0, [&]() -> size_t {
    return DescArg(modelDesc) ? modelDesc->inputs.size() : 0;
  });
}

size_t aclmdlGetNumOutputs(aclmdlDesc* modelDesc) {
  return Guarded<size_t>(0, [&]() -> size_t {
    return DescArg(modelDesc) ? modelDesc->outputs.size() : 0;
  });
}

size_t aclmdlGetInputSizeByIndex(aclmdlDesc* modelDesc, size_t index) {
  return Guarded<size_t>(0, [&]() -> size_t {
    const Io* io = IoAt(modelDesc, index, true);
    return io ? io->size : 0;
  });
}

size_t aclmdlGetOutputSizeByIndex(aclmdlDesc* modelDesc, size_t index) {
  return Guarded<size_t>(0, [&]() -> size_t {
    const Io* io = IoAt(modelDesc, index, false);
    return io ? io->size : 0;
  });
}

const char* aclmdlGetInputNameByIndex(const aclmdlDesc* modelDesc,
                                      size_t index) {
  return Guarded<const char*>(nullptr, [&]() -> const char* {
    const Io* io = IoAt(modelDesc, index, true);
    return io ? io->name.c_str() : nullptr;
  });
}

const char* aclmdlGetOutputNameByIndex(const aclmdlDesc* modelDesc,
                                       size_t index) {
  return Guarded<const char*>(nullptr, [&]() -> const char* {
    const Io* io = IoAt(modelDesc, index, false);
    return io ? io->name.c_str() : nullptr;
  });
}

aclDataType aclmdlGetInputDataType(const aclmdlDesc* modelDesc, size_t index) {
  return Guarded<aclDataType>(ACL_DT_UNDEFINED, [&] {
    const Io* io = IoAt(modelDesc, index, true);
    return io ? io->data_type : ACL_DT_UNDEFINED;
  });
}

aclDataType aclmdlGetOutputDataType(const aclmdlDesc* modelDesc, size_t index) {
  return Guarded<aclDataType>(ACL_DT_UNDEFINED, [&] {
    const Io* io = IoAt(modelDesc, index, false);
    return io ? io->data_type : ACL_DT_UNDEFINED;
  });
}

aclFormat aclmdlGetInputFormat(const aclmdlDesc* modelDesc, size_t index) {
  return Guarded<aclFormat>(ACL_FORMAT_UNDEFINED, [&] {
    const Io* io = IoAt(modelDesc, index, true);
    return io ? io->format : ACL_FORMAT_UNDEFINED;
  });
}

aclFormat aclmdlGetOutputFormat(const aclmdlDesc* modelDesc, size_t index) {
  return Guarded<aclFormat>(ACL_FORMAT_UNDEFINED, [&] {
    const Io* io = IoAt(modelDesc, index, false);
    return io ? io->format : ACL_FORMAT_UNDEFINED;
  });
}

aclError aclmdlGetInputDims(const aclmdlDesc* modelDesc, size_t index,
                            aclmdlIODims* dims) {
  return GuardedCall(
      [&] { return FillDims(IoAt(modelDesc, index, true), dims); });
}

aclError aclmdlGetInputDimsV2(const aclmdlDesc* modelDesc, size_t index,
                              aclmdlIODims* dims) {
  return GuardedCall(
      [&] { return FillDims(IoAt(modelDesc, index, true), dims); });
}

aclError aclmdlGetOutputDims(const aclmdlDesc* modelDesc, size_t index,
                             aclmdlIODims* dims) {
  return GuardedCall(
      [&] { return FillDims(IoAt(modelDesc, index, false), dims); });
}

aclError aclmdlGetInputIndexByName(const aclmdlDesc* modelDesc,
                                   const char* name, size_t* index) {
  return GuardedCall([&] { return IndexByName(modelDesc, name, index, true); });
}

aclError aclmdlGetOutputIndexByName(const aclmdlDesc* modelDesc,
                                    const char* name, size_t* index) {
  return GuardedCall(
      [&] { return IndexByName(modelDesc, name, index, false); });
}

aclError aclmdlGetCurOutputDims(const aclmdlDesc* modelDesc, size_t index,
                                aclmdlIODims* dims) {
  return GuardedCall([&] {
    const Io* io = IoAt(modelDesc, index, false);
    if (io == nullptr) return ACL_ERROR_INVALID_PARAM;
    if (dims == nullptr) return NullArgument("dims");
    const bool varies = std::any_of(io->dims.begin(), io->dims.end(),
                                    [](int64_t d) { return d < 0; });
    if (modelDesc->gear_kind == GearKind::kNone && !varies) {
      return FillDims(io, dims);
    }
    // The gear last set on the model (none set: the largest gear's dims), or
    // the dims the last execution computed for an output whose size varies.
    std::shared_ptr<State> state = Acquire();
    if (!state) return ACL_ERROR_UNINITIALIZE;
    std::shared_ptr<const LoadedModel> loaded =
        state->models.Find(modelDesc->model_id);
    if (!loaded) {
      return Fail(ACL_ERROR_GE_EXEC_MODEL_ID_INVALID,
                  StrCat("model id ", modelDesc->model_id,
                         " of this desc is no longer loaded"));
    }
    if (modelDesc->gear_kind == GearKind::kNone) {
      Io current = *io;
      current.dims =
          loaded->model->plan(0).CurrentOutputInfos().at(index).shape.dims();
      return FillDims(&current, dims);
    }
    const int32_t gear = loaded->selected_gear.load();
    if (gear < 0) return FillDims(io, dims);
    Io current = *io;
    current.dims = modelDesc->gear_output_dims.at(gear).at(index);
    return FillDims(&current, dims);
  });
}

aclError aclmdlGetDynamicBatch(const aclmdlDesc* modelDesc,
                               aclmdlBatch* batch) {
  return GuardedCall([&] {
    if (!DescArg(modelDesc)) return ACL_ERROR_INVALID_PARAM;
    if (batch == nullptr) return NullArgument("batch");
    aclmdlBatch out{};
    if (modelDesc->gear_kind == GearKind::kBatch) {
      if (modelDesc->gears.size() > ACL_MAX_BATCH_NUM) {
        return Fail(ACL_ERROR_STORAGE_OVER_LIMIT,
                    "the model has more gears than ACL_MAX_BATCH_NUM");
      }
      out.batchCount = modelDesc->gears.size();
      for (size_t i = 0; i < out.batchCount; ++i)
        out.batch[i] = static_cast<uint64_t>(modelDesc->gears[i][0]);
    }
    *batch = out;
    return ACL_SUCCESS;
  });
}

aclError aclmdlGetDynamicHW(const aclmdlDesc* modelDesc, size_t index,
                            aclmdlHW* hw) {
  return GuardedCall([&] {
    if (!DescArg(modelDesc)) return ACL_ERROR_INVALID_PARAM;
    if (hw == nullptr) return NullArgument("hw");
    (void)index;  // reserved in the SDK (callers pass -1)
    aclmdlHW out{};
    if (modelDesc->gear_kind == GearKind::kImageSize) {
      if (modelDesc->gears.size() > ACL_MAX_HW_NUM) {
        return Fail(ACL_ERROR_STORAGE_OVER_LIMIT,
                    "the model has more gears than ACL_MAX_HW_NUM");
      }
      out.hwCount = modelDesc->gears.size();
      for (size_t i = 0; i < out.hwCount; ++i) {
        out.hw[i][0] = static_cast<uint64_t>(modelDesc->gears[i][0]);
        out.hw[i][1] = static_cast<uint64_t>(modelDesc->gears[i][1]);
      }
    }
    *hw = out;
    return ACL_SUCCESS;
  });
}

aclError aclmdlGetInputDynamicGearCount(const aclmdlDesc* modelDesc,
                                        size_t index, size_t* gearCount) {
  return GuardedCall([&] {
    if (!DescArg(modelDesc)) return ACL_ERROR_INVALID_PARAM;
    if (gearCount == nullptr) return NullArgument("gearCount");
    (void)index;  // reserved in the SDK (callers pass -1)
    *gearCount = modelDesc->gear_input_dims.size();
    return ACL_SUCCESS;
  });
}

aclError aclmdlGetInputDynamicDims(const aclmdlDesc* modelDesc, size_t index,
                                   aclmdlIODims* gearDims, size_t gearCount) {
  return GuardedCall([&] {
    if (!DescArg(modelDesc)) return ACL_ERROR_INVALID_PARAM;
    if (gearDims == nullptr) return NullArgument("gearDims");
    (void)index;  // reserved in the SDK (callers pass -1)
    const auto& gears = modelDesc->gear_input_dims;
    if (gears.empty()) {
      return Fail(ACL_ERROR_INVALID_PARAM,
                  "the model has no dims gears (it was not converted with "
                  "--dynamic-dims)");
    }
    if (gearCount < gears.size()) {
      return Fail(
          ACL_ERROR_INVALID_PARAM,
          StrCat("gearCount ", gearCount, " is less than the model's ",
                 gears.size(), " gears (aclmdlGetInputDynamicGearCount)"));
    }
    for (const std::vector<int64_t>& gear : gears) {
      if (gear.size() > ACL_MAX_DIM_CNT) {
        return Fail(ACL_ERROR_STORAGE_OVER_LIMIT,
                    "the inputs' dims together exceed ACL_MAX_DIM_CNT");
      }
    }
    for (size_t g = 0; g < gears.size(); ++g) {
      aclmdlIODims out{};
      out.dimCount = gears[g].size();
      std::copy(gears[g].begin(), gears[g].end(), out.dims);
      gearDims[g] = out;
    }
    return ACL_SUCCESS;
  });
}

}  // extern "C"
