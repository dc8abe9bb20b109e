// AIPP: the parameters of dynamic AIPP (aclmdlCreateAIPP, aclmdlSetAIPP*),
// written into a dataset's parameter input, and what a model's inputs are to
// AIPP. The preprocessing itself is the model's Aipp operator.
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#include "acl/acl.h"
#include "api_support.h"
#include "base/strings.h"
#include "kernels/aipp.h"
#include "library.h"

using namespace acldump;        // NOLINT: the entry points are thin adapters
using namespace acldump::capi;  // NOLINT

namespace {

constexpr std::string_view kAippOp = "Aipp";

bool AippArg(const aclmdlAIPP* aipp) {
  if (aipp != nullptr && Lib().aipps.Contains(aipp)) return true;
  Fail(ACL_ERROR_INVALID_PARAM, "aippParmsSet is NULL or was destroyed");
  return false;
}

aclError OutOfRange(std::string_view name, double value, double lo, double hi) {
  return Fail(
      ACL_ERROR_INVALID_PARAM,
      StrCat(name, " ", value, " is out of range [", lo, ", ", hi, "]"));
}

// The checks every per-image setter makes; the image's parameters or null.
aipp::BatchParams* BatchAt(aclmdlAIPP* aipp, uint64_t batch_index) {
  if (!AippArg(aipp)) return nullptr;
  if (batch_index >= aipp->params.batches.size()) {
    Fail(ACL_ERROR_INVALID_PARAM,
         StrCat("batchIndex ", batch_index,
                " is out of range (the parameters "
                "are for ",
                aipp->params.batches.size(), " images)"));
    return nullptr;
  }
  return &aipp->params.batches[batch_index];
}

// An image input's Aipp node in a loaded model, or null.
const GraphNode* AippNodeFor(const Graph& graph, const std::string& input) {
  for (const GraphNode& node : graph.nodes) {
    if (node.op_type == kAippOp && !node.inputs.empty() &&
        node.inputs[0] == input) {
      return &node;
    }
  }
  return nullptr;
}

size_t InputIndex(const Graph& graph, const std::string& name) {
  for (size_t i = 0; i < graph.inputs.size(); ++i) {
    if (graph.inputs[i].name == name) return i;
  }
  return ACL_INVALID_NODE_INDEX;
}

struct ModelArg {
  std::shared_ptr<State> state;  // held for the whole call
  std::shared_ptr<const LoadedModel> loaded;
  const Graph* graph = nullptr;
};

aclError FindModel(uint32_t model_id, ModelArg* out) {
  out->state = Acquire();
  if (!out->state) return ACL_ERROR_UNINITIALIZE;
  out->loaded = out->state->models.Find(model_id);
  if (!out->loaded) {
    return Fail(ACL_ERROR_GE_EXEC_MODEL_ID_INVALID,
                StrCat("model id ", model_id, " is not loaded"));
  }
  out->graph = &out->loaded->model->graph();
  return ACL_SUCCESS;
}

// Writes `aipp` into dataset buffer `params_index` for the image input the
// Aipp node `node` reads, after checking them against the model.
aclError WriteParams(uint32_t model_id, const Graph& graph,
                     const GraphNode& node, aclmdlDataset* dataset,
                     size_t params_index, const aclmdlAIPP* aipp) {
  aclDataBuffer* buffer = WritableDatasetBuffer(dataset, params_index);
  if (buffer == nullptr) return ACL_ERROR_INVALID_PARAM;
  absl::StatusOr<std::vector<int64_t>> dims = node.attrs.GetInts("output_dims");
  if (!dims.ok() || dims->size() != 4) {
    return Fail(ACL_ERROR_FAILURE, "the model's Aipp node has no output_dims");
  }
  const aipp::Params& params = aipp->params;
  const int64_t batch = (*dims)[0];
  if (static_cast<int64_t>(params.batches.size()) != batch) {
    return Fail(ACL_ERROR_INVALID_PARAM,
                StrCat("the AIPP parameters are for ", params.batches.size(),
                       " images, the model input of model ", model_id,
                       " takes ", batch, " (aclmdlCreateAIPP(", batch, "))"));
  }
  const absl::Status checked =
      aipp::Check(params, batch, (*dims)[1], (*dims)[2], (*dims)[3]);
  if (!checked.ok()) {
    return Fail(
        ACL_ERROR_INVALID_PARAM,
        StrCat("the AIPP parameters do not fit input '", node.inputs[0],
               "' of model ", model_id, ": ", std::string(checked.message())));
  }
  const size_t image_input = InputIndex(graph, node.inputs[0]);
  if (image_input >= graph.inputs.size()) {
    return Fail(ACL_ERROR_FAILURE,
                StrCat("the model's Aipp node reads '", node.inputs[0],
                       "', which is not a model input"));
  }
  const size_t max_bytes =
      graph.inputs[image_input].info.ByteSize() / static_cast<size_t>(batch);
  const size_t image_bytes = aipp::ImageBytes(
      params.input_format, params.src_width, params.src_height);
  if (image_bytes > max_bytes) {
    return Fail(
        ACL_ERROR_INVALID_PARAM,
        StrCat("a ", aipp::Describe(params), " image has ", image_bytes,
               " bytes; input '", node.inputs[0], "' holds at most ", max_bytes,
               " per image (the converter's max_src_image_size)"));
  }
  const size_t bytes = aipp::DynamicDataBytes(params.batches.size());
  if (buffer->size < bytes) {
    return Fail(ACL_ERROR_INVALID_PARAM,
                StrCat("buffer ", params_index, " holds ", buffer->size,
                       " bytes; the AIPP parameters need ", bytes,
                       " (aclmdlGetAippDataSize)"));
  }
  aipp::WriteDynamic(params,
                     std::span(static_cast<std::byte*>(buffer->data), bytes));
  return ACL_SUCCESS;
}

// The dynamic Aipp node that reads parameter input `name`, or null.
const GraphNode* NodeReadingParams(const Graph& graph,
                                   const std::string& name) {
  for (const GraphNode& node : graph.nodes) {
    if (node.op_type == kAippOp && node.inputs.size() > 1 &&
        node.inputs[1] == name) {
      return &node;
    }
  }
  return nullptr;
}

bool IsDynamic(const GraphNode& node) { return node.inputs.size() > 1; }

// Float parameters as the block stores them (float16): finite, in its range.
aclError SetHalfs(aclmdlAIPP* aipp, uint64_t batch_index, const char* name,
                  const float (&values)[4], double lo, double hi,
                  std::array<float, 4> aipp::BatchParams::*field) {
  aipp::BatchParams* batch = BatchAt(aipp, batch_index);
  if (batch == nullptr) return ACL_ERROR_INVALID_PARAM;
  for (int c = 0; c < 4; ++c) {
    if (!std::isfinite(values[c]) || values[c] < lo || values[c] > hi)
      return OutOfRange(StrCat(name, c), values[c], lo, hi);
  }
  for (int c = 0; c < 4; ++c) (batch->*field)[c] = values[c];
  return ACL_SUCCESS;
}

}  // namespace

extern "C" {

aclmdlAIPP* aclmdlCreateAIPP(uint64_t batchSize) {
  return Guarded<aclmdlAIPP*>(nullptr, [&]() -> aclmdlAIPP* {
    if (batchSize == 0 || batchSize > aipp::kMaxDynamicBatches) {
      Fail(ACL_ERROR_INVALID_PARAM,
           StrCat("batchSize ", batchSize, " is out of range [1, ",
                  aipp::kMaxDynamicBatches, "]"));
      return nullptr;
    }
    auto* aipp = new aclmdlAIPP;
    aipp->params.batches.assign(batchSize, aipp::BatchParams{});
    Lib().aipps.Add(aipp);
    return aipp;
  });
}

aclError aclmdlDestroyAIPP(const aclmdlAIPP* aippParmsSet) {
  return GuardedCall([&] {
    if (aippParmsSet == nullptr) return ACL_SUCCESS;
    auto* aipp = const_cast<aclmdlAIPP*>(aippParmsSet);
    if (!Lib().aipps.Remove(aipp)) {
      return Fail(ACL_ERROR_INVALID_PARAM,
                  "aippParmsSet was not created by aclmdlCreateAIPP or was "
                  "already destroyed");
    }
    delete aipp;
    return ACL_SUCCESS;
  });
}

aclError aclmdlGetAippDataSize(uint64_t batchSize, size_t* size) {
  return GuardedCall([&] {
    if (size == nullptr) return NullArgument("size");
    if (batchSize == 0 || batchSize > aipp::kMaxDynamicBatches) {
      return OutOfRange("batchSize", static_cast<double>(batchSize), 1,
                        aipp::kMaxDynamicBatches);
    }
    *size = aipp::DynamicDataBytes(batchSize);
    return ACL_SUCCESS;
  });
}

aclError aclmdlSetAIPPInputFormat(aclmdlAIPP* aippParmsSet,
                                  aclAippInputFormat inputFormat) {
  return GuardedCall([&] {
    if (!AippArg(aippParmsSet)) return ACL_ERROR_INVALID_PARAM;
    if (aipp::FormatName(inputFormat).empty()) {
      return Fail(ACL_ERROR_INVALID_PARAM,
                  StrCat("input format ", static_cast<int>(inputFormat),
                         " is not one acldump preprocesses (ACL_YUV420SP_U8, "
                         "ACL_XRGB8888_U8, ACL_RGB888_U8, ACL_YUV400_U8, "
                         "ACL_ARGB8888_U8)"));
    }
    aippParmsSet->params.input_format = inputFormat;
    return ACL_SUCCESS;
  });
}

aclError aclmdlSetAIPPCscParams(
    aclmdlAIPP* aippParmsSet, int8_t cscSwitch, int16_t cscMatrixR0C0,
    int16_t cscMatrixR0C1, int16_t cscMatrixR0C2, int16_t cscMatrixR1C0,
    int16_t cscMatrixR1C1, int16_t cscMatrixR1C2, int16_t cscMatrixR2C0,
    int16_t cscMatrixR2C1, int16_t cscMatrixR2C2, uint8_t cscOutputBiasR0,
    uint8_t cscOutputBiasR1, uint8_t cscOutputBiasR2, uint8_t cscInputBiasR0,
    uint8_t cscInputBiasR1, uint8_t cscInputBiasR2) {
  return GuardedCall([&] {
    if (!AippArg(aippParmsSet)) return ACL_ERROR_INVALID_PARAM;
    aipp::Params& p = aippParmsSet->params;
    p.csc = cscSwitch != 0;
    p.matrix = {cscMatrixR0C0, cscMatrixR0C1, cscMatrixR0C2,
                cscMatrixR1C0, cscMatrixR1C1, cscMatrixR1C2,
                cscMatrixR2C0, cscMatrixR2C1, cscMatrixR2C2};
    p.output_bias = {cscOutputBiasR0, cscOutputBiasR1, cscOutputBiasR2};
    p.input_bias = {cscInputBiasR0, cscInputBiasR1, cscInputBiasR2};
    return ACL_SUCCESS;
  });
}

aclError aclmdlSetAIPPRbuvSwapSwitch(aclmdlAIPP* aippParmsSet,
                                     int8_t rbuvSwapSwitch) {
  return GuardedCall([&] {
    if (!AippArg(aippParmsSet)) return ACL_ERROR_INVALID_PARAM;
    aippParmsSet->params.rbuv_swap = rbuvSwapSwitch != 0;
    return ACL_SUCCESS;
  });
}

aclError aclmdlSetAIPPAxSwapSwitch(aclmdlAIPP* aippParmsSet,
                                   int8_t axSwapSwitch) {
  return GuardedCall([&] {
    if (!AippArg(aippParmsSet)) return ACL_ERROR_INVALID_PARAM;
    aippParmsSet->params.ax_swap = axSwapSwitch != 0;
    return ACL_SUCCESS;
  });
}

aclError aclmdlSetAIPPSrcImageSize(aclmdlAIPP* aippParmsSet,
                                   int32_t srcImageSizeW,
                                   int32_t srcImageSizeH) {
  return GuardedCall([&] {
    if (!AippArg(aippParmsSet)) return ACL_ERROR_INVALID_PARAM;
    if (srcImageSizeW <= 0 || srcImageSizeW > 4096)
      return OutOfRange("srcImageSizeW", srcImageSizeW, 1, 4096);
    if (srcImageSizeH <= 0 || srcImageSizeH > 4096)
      return OutOfRange("srcImageSizeH", srcImageSizeH, 1, 4096);
    aippParmsSet->params.src_width = srcImageSizeW;
    aippParmsSet->params.src_height = srcImageSizeH;
    return ACL_SUCCESS;
  });
}

aclError aclmdlSetAIPPScfParams(aclmdlAIPP* aippParmsSet, int8_t scfSwitch,
                                int32_t, int32_t, int32_t, int32_t,
                                uint64_t batchIndex) {
  return GuardedCall([&] {
    if (BatchAt(aippParmsSet, batchIndex) == nullptr)
      return ACL_ERROR_INVALID_PARAM;
    if (scfSwitch != 0) {
      return Fail(ACL_ERROR_FEATURE_UNSUPPORTED,
                  "AIPP resizing is not supported by acldump: resize the "
                  "image before the model, or crop and pad it to the model "
                  "input's size");
    }
    return ACL_SUCCESS;
  });
}

aclError aclmdlSetAIPPCropParams(aclmdlAIPP* aippParmsSet, int8_t cropSwitch,
                                 int32_t cropStartPosW, int32_t cropStartPosH,
                                 int32_t cropSizeW, int32_t cropSizeH,
                                 uint64_t batchIndex) {
  return GuardedCall([&] {
    aipp::BatchParams* batch = BatchAt(aippParmsSet, batchIndex);
    if (batch == nullptr) return ACL_ERROR_INVALID_PARAM;
    if (cropSwitch != 0) {
      if (cropStartPosW < 0 || cropStartPosW > 4095)
        return OutOfRange("cropStartPosW", cropStartPosW, 0, 4095);
      if (cropStartPosH < 0 || cropStartPosH > 4095)
        return OutOfRange("cropStartPosH", cropStartPosH, 0, 4095);
      if (cropSizeW <= 0 || cropSizeW > 4096)
        return OutOfRange("cropSizeW", cropSizeW, 1, 4096);
      if (cropSizeH <= 0 || cropSizeH > 4096)
        return OutOfRange("cropSizeH", cropSizeH, 1, 4096);
    }
    batch->crop = cropSwitch != 0;
    batch->crop_x = cropStartPosW;
    batch->crop_y = cropStartPosH;
    batch->crop_width = cropSizeW;
    batch->crop_height = cropSizeH;
    return ACL_SUCCESS;
  });
}

aclError aclmdlSetAIPPPaddingParams(
    aclmdlAIPP* aippParmsSet, int8_t paddingSwitch, int32_t paddingSizeTop,
    int32_t paddingSizeBottom, int32_t paddingSizeLeft,
    int32_t paddingSizeRight, uint64_t batchIndex) {
  return GuardedCall([&] {
    aipp::BatchParams* batch = BatchAt(aippParmsSet, batchIndex);
    if (batch == nullptr) return ACL_ERROR_INVALID_PARAM;
    const std::pair<const char*, int32_t> sizes[] = {
        {"paddingSizeTop", paddingSizeTop},
        {"paddingSizeBottom", paddingSizeBottom},
        {"paddingSizeLeft", paddingSizeLeft},
        {"paddingSizeRight", paddingSizeRight}};
    for (const auto& [name, value] : sizes) {
      if (paddingSwitch != 0 && (value < 0 || value > 32))
        return OutOfRange(name, value, 0, 32);
    }
    batch->padding = paddingSwitch != 0;
    batch->pad_top = paddingSizeTop;
    batch->pad_bottom = paddingSizeBottom;
    batch->pad_left = paddingSizeLeft;
    batch->pad_right = paddingSizeRight;
    return ACL_SUCCESS;
  });
}

aclError aclmdlSetAIPPDtcPixelMean(aclmdlAIPP* aippParmsSet,
                                   int16_t dtcPixelMeanChn0,
                                   int16_t dtcPixelMeanChn1,
                                   int16_t dtcPixelMeanChn2,
                                   int16_t dtcPixelMeanChn3,
                                   uint64_t batchIndex) {
  return GuardedCall([&] {
    aipp::BatchParams* batch = BatchAt(aippParmsSet, batchIndex);
    if (batch == nullptr) return ACL_ERROR_INVALID_PARAM;
    batch->mean = {dtcPixelMeanChn0, dtcPixelMeanChn1, dtcPixelMeanChn2,
                   dtcPixelMeanChn3};
    return ACL_SUCCESS;
  });
}

aclError aclmdlSetAIPPDtcPixelMin(aclmdlAIPP* aippParmsSet,
                                  float dtcPixelMinChn0, float dtcPixelMinChn1,
                                  float dtcPixelMinChn2, float dtcPixelMinChn3,
                                  uint64_t batchIndex) {
  return GuardedCall([&] {
    const float values[4] = {dtcPixelMinChn0, dtcPixelMinChn1, dtcPixelMinChn2,
                             dtcPixelMinChn3};
    return SetHalfs(aippParmsSet, batchIndex, "dtcPixelMinChn", values, 0, 255,
                    &aipp::BatchParams::min);
  });
}

aclError aclmdlSetAIPPPixelVarReci(aclmdlAIPP* aippParmsSet,
                                   float dtcPixelVarReciChn0,
                                   float dtcPixelVarReciChn1,
                                   float dtcPixelVarReciChn2,
                                   float dtcPixelVarReciChn3,
                                   uint64_t batchIndex) {
  return GuardedCall([&] {
    const float values[4] = {dtcPixelVarReciChn0, dtcPixelVarReciChn1,
                             dtcPixelVarReciChn2, dtcPixelVarReciChn3};
    return SetHalfs(aippParmsSet, batchIndex, "dtcPixelVarReciChn", values,
                    -65504, 65504, &aipp::BatchParams::var_reci);
  });
}

aclError aclmdlSetInputAIPP(uint32_t modelId, aclmdlDataset* dataset,
                            size_t index, const aclmdlAIPP* aippParmsSet) {
  return GuardedCall([&] {
    if (!AippArg(aippParmsSet)) return ACL_ERROR_INVALID_PARAM;
    ModelArg model;
    if (aclError error = FindModel(modelId, &model); error != ACL_SUCCESS)
      return error;
    const Graph& graph = *model.graph;
    if (index >= graph.inputs.size() ||
        graph.inputs[index].name != ACL_DYNAMIC_AIPP_NAME) {
      return Fail(
          ACL_ERROR_INVALID_PARAM,
          StrCat("input ", index, " of model ", modelId,
                 " is not its dynamic AIPP input (named " ACL_DYNAMIC_AIPP_NAME
                 ": aclmdlGetInputIndexByName finds it; a model has "
                 "one when converted with aipp_mode: dynamic)"));
    }
    const GraphNode* node = NodeReadingParams(graph, graph.inputs[index].name);
    if (node == nullptr) {
      return Fail(ACL_ERROR_FAILURE, "no Aipp node reads the AIPP input");
    }
    return WriteParams(modelId, graph, *node, dataset, index, aippParmsSet);
  });
}

aclError aclmdlSetAIPPByInputIndex(uint32_t modelId, aclmdlDataset* dataset,
                                   size_t index,
                                   const aclmdlAIPP* aippParmsSet) {
  return GuardedCall([&] {
    if (!AippArg(aippParmsSet)) return ACL_ERROR_INVALID_PARAM;
    ModelArg model;
    if (aclError error = FindModel(modelId, &model); error != ACL_SUCCESS)
      return error;
    const Graph& graph = *model.graph;
    const GraphNode* node = index < graph.inputs.size()
                                ? AippNodeFor(graph, graph.inputs[index].name)
                                : nullptr;
    if (node == nullptr || !IsDynamic(*node)) {
      return Fail(ACL_ERROR_INVALID_PARAM,
                  StrCat("input ", index, " of model ", modelId,
                         " has no dynamic AIPP (aclmdlGetAippType tells which "
                         "input has)"));
    }
    return WriteParams(modelId, graph, *node, dataset,
                       InputIndex(graph, node->inputs[1]), aippParmsSet);
  });
}

aclError aclmdlGetAippType(uint32_t modelId, size_t index,
                           aclmdlInputAippType* type,
                           size_t* dynamicAttachedDataIndex) {
  return GuardedCall([&] {
    if (type == nullptr) return NullArgument("type");
    if (dynamicAttachedDataIndex == nullptr)
      return NullArgument("dynamicAttachedDataIndex");
    ModelArg model;
    if (aclError error = FindModel(modelId, &model); error != ACL_SUCCESS)
      return error;
    const Graph& graph = *model.graph;
    if (index >= graph.inputs.size()) {
      return Fail(
          ACL_ERROR_INVALID_PARAM,
          StrCat("input index ", index, " is out of range (the model has ",
                 graph.inputs.size(), ")"));
    }
    const std::string& name = graph.inputs[index].name;
    *dynamicAttachedDataIndex = ACL_INVALID_NODE_INDEX;
    *type = ACL_DATA_WITHOUT_AIPP;
    if (NodeReadingParams(graph, name) != nullptr) {
      *type = ACL_DYNAMIC_AIPP_NODE;
    } else if (const GraphNode* node = AippNodeFor(graph, name)) {
      if (IsDynamic(*node)) {
        *type = ACL_DATA_WITH_DYNAMIC_AIPP;
        *dynamicAttachedDataIndex = InputIndex(graph, node->inputs[1]);
      } else {
        *type = ACL_DATA_WITH_STATIC_AIPP;
      }
    }
    return ACL_SUCCESS;
  });
}

aclError aclmdlGetFirstAippInfo(uint32_t modelId, size_t index,
                                aclAippInfo* aippInfo) {
  return GuardedCall([&] {
    if (aippInfo == nullptr) return NullArgument("aippInfo");
    ModelArg model;
    if (aclError error = FindModel(modelId, &model); error != ACL_SUCCESS)
      return error;
    const Graph& graph = *model.graph;
    if (index >= graph.inputs.size()) {
      return Fail(
          ACL_ERROR_INVALID_PARAM,
          StrCat("input index ", index, " is out of range (the model has ",
                 graph.inputs.size(), ")"));
    }
    const NamedTensorInfo& input = graph.inputs[index];
    const GraphNode* node = AippNodeFor(graph, input.name);
    if (node == nullptr) {
      return Fail(ACL_ERROR_GE_AIPP_NOT_EXIST,
                  StrCat("input ", index, " '", input.name, "' has no AIPP"));
    }
    if (IsDynamic(*node)) {
      return Fail(ACL_ERROR_NOT_STATIC_AIPP,
                  StrCat("input ", index, " '", input.name,
                         "' has dynamic AIPP: its parameters come with each "
                         "execution"));
    }
    absl::StatusOr<aipp::Params> params = aipp::FromAttributes(node->attrs);
    absl::StatusOr<std::vector<int64_t>> dims =
        node->attrs.GetInts("output_dims");
    if (!params.ok() || !dims.ok() || dims->size() != 4) {
      return Fail(ACL_ERROR_FAILURE, "the model's Aipp node is malformed");
    }
    const aipp::Params& p = *params;
    const aipp::BatchParams& b = p.batches[0];
    // Filled in place: the struct is about 300 KB.
    aclAippInfo& info = *aippInfo;
    std::memset(&info, 0, sizeof(info));
    info.inputFormat = static_cast<aclAippInputFormat>(p.input_format);
    info.srcImageSizeW = p.src_width;
    info.srcImageSizeH = p.src_height;
    info.cropSwitch = b.crop;
    info.loadStartPosW = b.crop_x;
    info.loadStartPosH = b.crop_y;
    info.cropSizeW = b.crop_width;
    info.cropSizeH = b.crop_height;
    info.paddingSwitch = b.padding;
    info.leftPaddingSize = b.pad_left;
    info.rightPaddingSize = b.pad_right;
    info.topPaddingSize = b.pad_top;
    info.bottomPaddingSize = b.pad_bottom;
    info.cscSwitch = p.csc;
    info.rbuvSwapSwitch = p.rbuv_swap;
    info.axSwapSwitch = p.ax_swap;
    int32_t* matrix[9] = {&info.matrixR0C0, &info.matrixR0C1, &info.matrixR0C2,
                          &info.matrixR1C0, &info.matrixR1C1, &info.matrixR1C2,
                          &info.matrixR2C0, &info.matrixR2C1, &info.matrixR2C2};
    for (int i = 0; i < 9; ++i) *matrix[i] = p.matrix[i];
    info.outputBias0 = p.output_bias[0];
    info.outputBias1 = p.output_bias[1];
    info.outputBias2 = p.output_bias[2];
    info.inputBias0 = p.input_bias[0];
    info.inputBias1 = p.input_bias[1];
    info.inputBias2 = p.input_bias[2];
    info.meanChn0 = b.mean[0];
    info.meanChn1 = b.mean[1];
    info.meanChn2 = b.mean[2];
    info.meanChn3 = b.mean[3];
    info.minChn0 = b.min[0];
    info.minChn1 = b.min[1];
    info.minChn2 = b.min[2];
    info.minChn3 = b.min[3];
    info.varReciChn0 = b.var_reci[0];
    info.varReciChn1 = b.var_reci[1];
    info.varReciChn2 = b.var_reci[2];
    info.varReciChn3 = b.var_reci[3];
    info.srcFormat = ACL_FORMAT_NHWC;
    info.srcDatatype = ACL_UINT8;
    info.srcDimNum = input.info.shape.rank();
    info.shapeCount = 1;
    aclAippDims& out = info.outDims[0];
    out.srcDims.dimCount = input.info.shape.rank();
    for (size_t d = 0; d < out.srcDims.dimCount && d < ACL_MAX_DIM_CNT; ++d)
      out.srcDims.dims[d] = input.info.shape[d];
    std::snprintf(out.srcDims.name, sizeof(out.srcDims.name), "%s",
                  input.name.c_str());
    out.srcSize = input.info.ByteSize();
    out.aippOutdims.dimCount = 4;
    for (size_t d = 0; d < 4; ++d) out.aippOutdims.dims[d] = (*dims)[d];
    out.aippOutSize =
        static_cast<size_t>((*dims)[0] * (*dims)[1] * (*dims)[2] * (*dims)[3]) *
        sizeof(float);
    return ACL_SUCCESS;
  });
}

}  // extern "C"
