// The C ABI's implementation: process state, models, datasets, dump, single
// ops.
#include "acl/acl.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <vector>

#include "acl_dtypes.h"
#include "api_support.h"
#include "base/error_kind.h"
#include "base/strings.h"
#include "dump/dump_manager.h"
#include "kernels/ops.h"
#include "runtime/model_registry.h"
#include "runtime/single_op.h"

struct aclDataBuffer {
  void* data = nullptr;
  size_t size = 0;
};

struct aclmdlDataset {
  std::vector<aclDataBuffer*> buffers;
};

struct IoDescription {
  std::string name;
  aclDataType data_type = ACL_DT_UNDEFINED;
  aclFormat format = ACL_FORMAT_ND;
  std::vector<int64_t> dims;
  size_t size = 0;
};

struct aclmdlDesc {
  std::vector<IoDescription> inputs;
  std::vector<IoDescription> outputs;
};

struct aclTensorDesc {
  aclDataType data_type = ACL_DT_UNDEFINED;
  std::vector<int64_t> dims;
  aclFormat format = ACL_FORMAT_ND;
  std::string name;
};

struct aclopAttr {
  acldump::Attributes attrs;
};

namespace acldump::capi {
namespace {

constexpr size_t kMaxConfigPath = 4096;

struct Library {
  std::mutex mutex;  // guards `initialized` and init/finalize transitions
  bool initialized = false;
  std::unique_ptr<ModelRegistry> models;
  std::unique_ptr<dump::DumpManager> dump;
  LiveHandles<aclDataBuffer> buffers;
  LiveHandles<aclmdlDataset> datasets;
  LiveHandles<aclmdlDesc> descs;
  LiveHandles<aclTensorDesc> tensor_descs;
  LiveHandles<aclopAttr> attrs;
  LiveHandles<void> allocations;
};

Library& Lib() {
  static Library* const library =
      new Library;  // never destroyed: usable during exit
  return *library;
}

thread_local int32_t current_device = 0;

// The running library's parts, or an ACL_ERROR_UNINITIALIZE failure.
struct Live {
  ModelRegistry* models = nullptr;
  dump::DumpManager* dump = nullptr;
};

bool Acquire(Live& live) {
  Library& lib = Lib();
  std::lock_guard<std::mutex> lock(lib.mutex);
  if (!lib.initialized) {
    Fail(ACL_ERROR_UNINITIALIZE, "acl is not initialised: call aclInit first");
    return false;
  }
  live.models = lib.models.get();
  live.dump = lib.dump.get();
  return true;
}

bool CheckPath(const char* path, const char* what) {
  if (path == nullptr) {
    Fail(ACL_ERROR_INVALID_PARAM, StrCat(what, " is NULL"));
    return false;
  }
  if (std::strlen(path) == 0 || std::strlen(path) > kMaxConfigPath) {
    Fail(ACL_ERROR_INVALID_PARAM,
         StrCat(what, " must be a non-empty path of at most ", kMaxConfigPath,
                " characters"));
    return false;
  }
  return true;
}

void PrintWarnings(const std::vector<std::string>& warnings) {
  for (const std::string& warning : warnings) {
    std::fprintf(stderr, "[acldump] warning: %s\n", warning.c_str());
  }
}

aclError RegisterLoaded(const Live& live, std::unique_ptr<CompiledModel> model,
                        std::string file_stem, uint32_t* model_id) {
  std::shared_ptr<CompiledModel> shared = std::move(model);
  // The id is needed for the dump layout before the model is visible to other
  // threads.
  absl::StatusOr<uint32_t> id = live.models->Add(shared, file_stem);
  if (!id.ok()) return FailWith(id.status(), ACL_ERROR_FAILURE);
  std::vector<std::string> warnings;
  dump::Attachment attachment = live.dump->OnModelLoad(
      *shared, dump::ModelIdentity{*id, std::move(file_stem), current_device},
      &warnings);
  PrintWarnings(warnings);
  if (attachment.observer) {
    absl::Status attached = shared->AttachObserver(
        std::move(attachment.observer), std::move(attachment.step_flags));
    if (!attached.ok()) {
      live.models->Remove(*id).IgnoreError();
      return FailWith(attached, ACL_ERROR_INTERNAL_ERROR);
    }
  }
  *model_id = *id;
  return ACL_SUCCESS;
}

bool DescArg(const aclmdlDesc* desc) {
  if (desc == nullptr || !Lib().descs.Contains(desc)) {
    Fail(ACL_ERROR_INVALID_PARAM, "model desc is NULL or was destroyed");
    return false;
  }
  return true;
}

const IoDescription* IoAt(const aclmdlDesc* desc, size_t index, bool input) {
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

aclError FillDims(const IoDescription* io, aclmdlIODims* dims) {
  if (dims == nullptr) return Fail(ACL_ERROR_INVALID_PARAM, "dims is NULL");
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

// Buffers of a dataset as runtime buffers; small models need no allocation.
template <typename Buffer>
bool CollectBuffers(const aclmdlDataset* dataset, const char* what,
                    std::vector<Buffer>& out) {
  if (dataset == nullptr || !Lib().datasets.Contains(dataset)) {
    Fail(ACL_ERROR_INVALID_PARAM,
         StrCat(what, " dataset is NULL or was destroyed"));
    return false;
  }
  out.clear();
  for (size_t i = 0; i < dataset->buffers.size(); ++i) {
    const aclDataBuffer* buffer = dataset->buffers[i];
    if (!Lib().buffers.Contains(buffer)) {
      Fail(ACL_ERROR_INVALID_PARAM,
           StrCat(what, " buffer ", i,
                  " was destroyed while still in the dataset"));
      return false;
    }
    out.push_back(Buffer{buffer->data, buffer->size});
  }
  return true;
}

}  // namespace
}  // namespace acldump::capi

using namespace acldump;  // NOLINT: the C entry points below are thin adapters
using namespace acldump::capi;  // NOLINT

extern "C" {

// ---- Library
// ------------------------------------------------------------------------------

aclError aclInit(const char* configPath) {
  return GuardedCall([&] {
    Library& lib = Lib();
    std::lock_guard<std::mutex> lock(lib.mutex);
    if (lib.initialized) {
      return Fail(ACL_ERROR_REPEAT_INITIALIZE,
                  "aclInit was already called; call aclFinalize first (the "
                  "dump config of "
                  "aclInit is changed by editing its file, S6)");
    }
    auto models = std::make_unique<ModelRegistry>();
    auto dump = std::make_unique<dump::DumpManager>();
    if (configPath != nullptr && configPath[0] != '\0') {
      absl::Status configured = dump->ConfigureFromAclInit(configPath);
      // aclInit parses the whole file first: text that is not JSON is a parse
      // error here, not an invalid dump config.
      if (KindOf(configured) == ErrorKind::kInvalidJson) {
        return Fail(ACL_ERROR_PARSE_FILE, ToStd(configured.message()));
      }
      if (!configured.ok()) return FailWith(configured, ACL_ERROR_INVALID_FILE);
    }
    lib.models = std::move(models);
    lib.dump = std::move(dump);
    lib.initialized = true;
    return ACL_SUCCESS;
  });
}

aclError aclFinalize(void) {
  return GuardedCall([&] {
    Library& lib = Lib();
    std::unique_ptr<ModelRegistry> models;
    std::unique_ptr<dump::DumpManager> dump;
    {
      std::lock_guard<std::mutex> lock(lib.mutex);
      if (!lib.initialized) {
        return Fail(ACL_ERROR_REPEAT_FINALIZE,
                    "aclFinalize without aclInit (or called twice)");
      }
      lib.initialized = false;
      models = std::move(lib.models);
      dump = std::move(lib.dump);
    }
    models.reset();  // unload every model (an execution in progress finishes
                     // first)
    absl::Status closed = dump->Shutdown();
    if (!closed.ok()) return FailWith(closed, ACL_ERROR_WRITE_FILE);
    return ACL_SUCCESS;
  });
}

aclError aclrtGetVersion(int32_t* majorVersion, int32_t* minorVersion,
                         int32_t* patchVersion) {
  return GuardedCall([&] {
    if (majorVersion == nullptr || minorVersion == nullptr ||
        patchVersion == nullptr) {
      return Fail(ACL_ERROR_INVALID_PARAM, "version outputs must not be NULL");
    }
    *majorVersion = ACL_MAJOR_VERSION;
    *minorVersion = ACL_MINOR_VERSION;
    *patchVersion = ACL_PATCH_VERSION;
    return ACL_SUCCESS;
  });
}

const char* aclGetRecentErrMsg(void) { return RecentError(); }

// ---- Devices and memory
// -------------------------------------------------------------------

aclError aclrtSetDevice(int32_t deviceId) {
  return GuardedCall([&] {
    Live live;
    if (!Acquire(live)) return ACL_ERROR_UNINITIALIZE;
    if (deviceId < 0 || deviceId > ACL_MAX_DEVICE_ID) {
      return Fail(
          ACL_ERROR_INVALID_DEVICE,
          StrCat("device id ", deviceId, " is not in 0..", ACL_MAX_DEVICE_ID));
    }
    current_device = deviceId;
    return ACL_SUCCESS;
  });
}

aclError aclrtGetDevice(int32_t* deviceId) {
  return GuardedCall([&] {
    if (deviceId == nullptr)
      return Fail(ACL_ERROR_INVALID_PARAM, "deviceId is NULL");
    Live live;
    if (!Acquire(live)) return ACL_ERROR_UNINITIALIZE;
    *deviceId = current_device;
    return ACL_SUCCESS;
  });
}

aclError aclrtResetDevice(int32_t deviceId) {
  return GuardedCall([&] {
    Live live;
    if (!Acquire(live)) return ACL_ERROR_UNINITIALIZE;
    if (deviceId < 0 || deviceId > ACL_MAX_DEVICE_ID) {
      return Fail(ACL_ERROR_INVALID_DEVICE,
                  StrCat("device id ", deviceId, " is not valid"));
    }
    if (current_device == deviceId) current_device = 0;
    return ACL_SUCCESS;
  });
}

aclError aclrtMalloc(void** devPtr, size_t size, aclrtMemMallocPolicy policy) {
  return GuardedCall([&] {
    if (devPtr == nullptr)
      return Fail(ACL_ERROR_INVALID_PARAM, "devPtr is NULL");
    if (size == 0)
      return Fail(ACL_ERROR_INVALID_PARAM, "size must be greater than 0");
    if (policy < ACL_MEM_MALLOC_HUGE_FIRST ||
        policy > ACL_MEM_MALLOC_NORMAL_ONLY) {
      return Fail(ACL_ERROR_INVALID_PARAM,
                  StrCat("unknown malloc policy ", int(policy)));
    }
    Live live;
    if (!Acquire(live)) return ACL_ERROR_UNINITIALIZE;
    if (size > (size_t{1} << 46))
      return Fail(ACL_ERROR_BAD_ALLOC, "size is too large");
    void* p = std::aligned_alloc(64, (size + 63) / 64 * 64);
    if (p == nullptr)
      return Fail(ACL_ERROR_BAD_ALLOC,
                  StrCat("cannot allocate ", size, " bytes"));
    Lib().allocations.Add(p);
    *devPtr = p;
    return ACL_SUCCESS;
  });
}

aclError aclrtFree(void* devPtr) {
  return GuardedCall([&] {
    if (devPtr == nullptr) return ACL_SUCCESS;
    if (!Lib().allocations.Remove(devPtr)) {
      return Fail(ACL_ERROR_INVALID_PARAM,
                  "aclrtFree: pointer was not returned by aclrtMalloc or was "
                  "freed already");
    }
    std::free(devPtr);
    return ACL_SUCCESS;
  });
}

// ---- Data buffers
// -------------------------------------------------------------------------

aclDataBuffer* aclCreateDataBuffer(void* data, size_t size) {
  return Guarded<aclDataBuffer*>(nullptr, [&]() -> aclDataBuffer* {
    if (data == nullptr && size != 0) {
      Fail(ACL_ERROR_INVALID_PARAM,
           "aclCreateDataBuffer: data is NULL but size is not 0");
      return nullptr;
    }
    auto* buffer = new aclDataBuffer{data, size};
    Lib().buffers.Add(buffer);
    return buffer;
  });
}

aclError aclDestroyDataBuffer(const aclDataBuffer* dataBuffer) {
  return GuardedCall([&] {
    if (dataBuffer == nullptr) return ACL_SUCCESS;
    if (!Lib().buffers.Remove(dataBuffer)) {
      return Fail(ACL_ERROR_INVALID_PARAM,
                  "data buffer was destroyed already or is not one");
    }
    delete dataBuffer;
    return ACL_SUCCESS;
  });
}

void* aclGetDataBufferAddr(const aclDataBuffer* dataBuffer) {
  return Guarded<void*>(nullptr, [&]() -> void* {
    if (dataBuffer == nullptr || !Lib().buffers.Contains(dataBuffer)) {
      Fail(ACL_ERROR_INVALID_PARAM, "data buffer is NULL or was destroyed");
      return nullptr;
    }
    return dataBuffer->data;
  });
}

size_t aclGetDataBufferSizeV2(const aclDataBuffer* dataBuffer) {
  return Guarded<size_t>(0, [&]() -> size_t {
    if (dataBuffer == nullptr || !Lib().buffers.Contains(dataBuffer)) {
      Fail(ACL_ERROR_INVALID_PARAM, "data buffer is NULL or was destroyed");
      return 0;
    }
    return dataBuffer->size;
  });
}

aclError aclUpdateDataBuffer(aclDataBuffer* dataBuffer, void* data,
                             size_t size) {
  return GuardedCall([&] {
    if (dataBuffer == nullptr || !Lib().buffers.Contains(dataBuffer)) {
      return Fail(ACL_ERROR_INVALID_PARAM,
                  "data buffer is NULL or was destroyed");
    }
    if (data == nullptr && size != 0) {
      return Fail(ACL_ERROR_INVALID_PARAM, "data is NULL but size is not 0");
    }
    dataBuffer->data = data;
    dataBuffer->size = size;
    return ACL_SUCCESS;
  });
}

size_t aclDataTypeSize(aclDataType dataType) {
  return Guarded<size_t>(0, [&]() -> size_t {
    switch (dataType) {
      case ACL_UINT16:
        return 2;
      case ACL_UINT32:
        return 4;
      case ACL_UINT64:
        return 8;
      case ACL_COMPLEX64:
        return 8;
      case ACL_COMPLEX128:
        return 16;
      default:
        break;
    }
    std::optional<DType> dtype = FromAclDataType(dataType);
    return dtype ? DTypeSize(*dtype) : 0;
  });
}

// ---- Dump
// ---------------------------------------------------------------------------------

aclError aclmdlInitDump(void) {
  return GuardedCall([&] {
    Live live;
    if (!Acquire(live)) return ACL_ERROR_UNINITIALIZE;
    absl::Status status = live.dump->InitDump();
    return status.ok() ? ACL_SUCCESS : FailWith(status, ACL_ERROR_FAILURE);
  });
}

aclError aclmdlSetDump(const char* dumpCfgPath) {
  return GuardedCall([&] {
    if (!CheckPath(dumpCfgPath, "dumpCfgPath")) return ACL_ERROR_INVALID_PARAM;
    Live live;
    if (!Acquire(live)) return ACL_ERROR_UNINITIALIZE;
    absl::Status status = live.dump->SetDump(dumpCfgPath);
    return status.ok() ? ACL_SUCCESS
                       : FailWith(status, ACL_ERROR_INVALID_DUMP_CONFIG);
  });
}

aclError aclmdlFinalizeDump(void) {
  return GuardedCall([&] {
    Live live;
    if (!Acquire(live)) return ACL_ERROR_UNINITIALIZE;
    absl::Status status = live.dump->FinalizeDump();
    return status.ok() ? ACL_SUCCESS : FailWith(status, ACL_ERROR_WRITE_FILE);
  });
}

// ---- Models
// -------------------------------------------------------------------------------

aclError aclmdlLoadFromFile(const char* modelPath, uint32_t* modelId) {
  return GuardedCall([&] {
    if (!CheckPath(modelPath, "modelPath")) return ACL_ERROR_INVALID_PARAM;
    if (modelId == nullptr)
      return Fail(ACL_ERROR_INVALID_PARAM, "modelId is NULL");
    Live live;
    if (!Acquire(live)) return ACL_ERROR_UNINITIALIZE;
    absl::StatusOr<std::unique_ptr<CompiledModel>> model =
        LoadModelFromFile(modelPath);
    if (!model.ok()) return FailWith(model.status(), ACL_ERROR_PARSE_MODEL);
    return RegisterLoaded(live, std::move(*model), FileStem(modelPath),
                          modelId);
  });
}

aclError aclmdlLoadFromMem(const void* model, size_t modelSize,
                           uint32_t* modelId) {
  return GuardedCall([&] {
    if (model == nullptr || modelSize == 0) {
      return Fail(ACL_ERROR_INVALID_PARAM, "model is NULL or modelSize is 0");
    }
    if (modelId == nullptr)
      return Fail(ACL_ERROR_INVALID_PARAM, "modelId is NULL");
    Live live;
    if (!Acquire(live)) return ACL_ERROR_UNINITIALIZE;
    absl::StatusOr<std::unique_ptr<CompiledModel>> compiled =
        LoadModelFromMemory(
            std::string_view(static_cast<const char*>(model), modelSize));
    if (!compiled.ok())
      return FailWith(compiled.status(), ACL_ERROR_PARSE_MODEL);
    return RegisterLoaded(live, std::move(*compiled), "", modelId);
  });
}

aclError aclmdlUnload(uint32_t modelId) {
  return GuardedCall([&] {
    Live live;
    if (!Acquire(live)) return ACL_ERROR_UNINITIALIZE;
    absl::Status status = live.models->Remove(modelId);
    return status.ok() ? ACL_SUCCESS
                       : FailWith(status, ACL_ERROR_INVALID_MODEL_ID);
  });
}

aclError aclmdlExecute(uint32_t modelId, const aclmdlDataset* input,
                       aclmdlDataset* output) {
  return GuardedCall([&] {
    Live live;
    if (!Acquire(live)) return ACL_ERROR_UNINITIALIZE;
    std::shared_ptr<const LoadedModel> loaded = live.models->Find(modelId);
    if (!loaded) {
      return Fail(ACL_ERROR_INVALID_MODEL_ID,
                  StrCat("model id ", modelId, " is not loaded"));
    }
    thread_local std::vector<HostBuffer> inputs;
    thread_local std::vector<MutableHostBuffer> outputs;
    if (!CollectBuffers(input, "input", inputs)) return ACL_ERROR_INVALID_PARAM;
    if (!CollectBuffers(output, "output", outputs))
      return ACL_ERROR_INVALID_PARAM;
    absl::Status status = loaded->model->Execute(inputs, outputs);
    return status.ok() ? ACL_SUCCESS : FailWith(status, ACL_ERROR_FAILURE);
  });
}

// ---- Model descriptions
// -------------------------------------------------------------------

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
    Live live;
    if (!Acquire(live)) return ACL_ERROR_UNINITIALIZE;
    std::shared_ptr<const LoadedModel> loaded = live.models->Find(modelId);
    if (!loaded) {
      return Fail(ACL_ERROR_INVALID_MODEL_ID,
                  StrCat("model id ", modelId, " is not loaded"));
    }
    auto describe = [](const NamedTensorInfo& value) {
      IoDescription io;
      io.name = value.name;
      io.data_type = ToAclDataType(value.info.dtype);
      io.format =
          value.info.shape.rank() == 4 ? ACL_FORMAT_NCHW : ACL_FORMAT_ND;
      io.dims = value.info.shape.dims();
      io.size = value.info.ByteSize();
      return io;
    };
    aclmdlDesc filled;
    for (const auto& in : loaded->model->graph().inputs)
      filled.inputs.push_back(describe(in));
    for (const auto& out : loaded->model->graph().outputs)
      filled.outputs.push_back(describe(out));
    *modelDesc = std::move(filled);
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
    const IoDescription* io = IoAt(modelDesc, index, true);
    return io ? io->size : 0;
  });
}

size_t aclmdlGetOutputSizeByIndex(aclmdlDesc* modelDesc, size_t index) {
  return Guarded<size_t>(0, [&]() -> size_t {
    const IoDescription* io = IoAt(modelDesc, index, false);
    return io ? io->size : 0;
  });
}

const char* aclmdlGetInputNameByIndex(const aclmdlDesc* modelDesc,
                                      size_t index) {
  return Guarded<const char*>(nullptr, [&]() -> const char* {
    const IoDescription* io = IoAt(modelDesc, index, true);
    return io ? io->name.c_str() : nullptr;
  });
}

const char* aclmdlGetOutputNameByIndex(const aclmdlDesc* modelDesc,
                                       size_t index) {
  return Guarded<const char*>(nullptr, [&]() -> const char* {
    const IoDescription* io = IoAt(modelDesc, index, false);
    return io ? io->name.c_str() : nullptr;
  });
}

aclDataType aclmdlGetInputDataType(const aclmdlDesc* modelDesc, size_t index) {
  return Guarded<aclDataType>(ACL_DT_UNDEFINED, [&] {
    const IoDescription* io = IoAt(modelDesc, index, true);
    return io ? io->data_type : ACL_DT_UNDEFINED;
  });
}

aclDataType aclmdlGetOutputDataType(const aclmdlDesc* modelDesc, size_t index) {
  return Guarded<aclDataType>(ACL_DT_UNDEFINED, [&] {
    const IoDescription* io = IoAt(modelDesc, index, false);
    return io ? io->data_type : ACL_DT_UNDEFINED;
  });
}

aclFormat aclmdlGetInputFormat(const aclmdlDesc* modelDesc, size_t index) {
  return Guarded<aclFormat>(ACL_FORMAT_UNDEFINED, [&] {
    const IoDescription* io = IoAt(modelDesc, index, true);
    return io ? io->format : ACL_FORMAT_UNDEFINED;
  });
}

aclFormat aclmdlGetOutputFormat(const aclmdlDesc* modelDesc, size_t index) {
  return Guarded<aclFormat>(ACL_FORMAT_UNDEFINED, [&] {
    const IoDescription* io = IoAt(modelDesc, index, false);
    return io ? io->format : ACL_FORMAT_UNDEFINED;
  });
}

aclError aclmdlGetInputDims(const aclmdlDesc* modelDesc, size_t index,
                            aclmdlIODims* dims) {
  return GuardedCall([&] {
    const IoDescription* io = IoAt(modelDesc, index, true);
    return io ? FillDims(io, dims) : ACL_ERROR_INVALID_PARAM;
  });
}

aclError aclmdlGetOutputDims(const aclmdlDesc* modelDesc, size_t index,
                             aclmdlIODims* dims) {
  return GuardedCall([&] {
    const IoDescription* io = IoAt(modelDesc, index, false);
    return io ? FillDims(io, dims) : ACL_ERROR_INVALID_PARAM;
  });
}

// ---- Datasets
// -----------------------------------------------------------------------------

aclmdlDataset* aclmdlCreateDataset(void) {
  return Guarded<aclmdlDataset*>(nullptr, [&] {
    auto* dataset = new aclmdlDataset;
    Lib().datasets.Add(dataset);
    return dataset;
  });
}

aclError aclmdlDestroyDataset(const aclmdlDataset* dataset) {
  return GuardedCall([&] {
    if (dataset == nullptr) return ACL_SUCCESS;
    if (!Lib().datasets.Remove(dataset)) {
      return Fail(ACL_ERROR_INVALID_PARAM,
                  "dataset was destroyed already or is not one");
    }
    delete dataset;
    return ACL_SUCCESS;
  });
}

aclError aclmdlAddDatasetBuffer(aclmdlDataset* dataset,
                                aclDataBuffer* dataBuffer) {
  return GuardedCall([&] {
    if (dataset == nullptr || !Lib().datasets.Contains(dataset)) {
      return Fail(ACL_ERROR_INVALID_PARAM, "dataset is NULL or was destroyed");
    }
    if (dataBuffer == nullptr || !Lib().buffers.Contains(dataBuffer)) {
      return Fail(ACL_ERROR_INVALID_PARAM,
                  "data buffer is NULL or was destroyed");
    }
    dataset->buffers.push_back(dataBuffer);
    return ACL_SUCCESS;
  });
}

size_t aclmdlGetDatasetNumBuffers(const aclmdlDataset* dataset) {
  return Guarded<size_t>(0, [&]() -> size_t {
    if (dataset == nullptr || !Lib().datasets.Contains(dataset)) {
      Fail(ACL_ERROR_INVALID_PARAM, "dataset is NULL or was destroyed");
      return 0;
    }
    return dataset->buffers.size();
  });
}

aclDataBuffer* aclmdlGetDatasetBuffer(const aclmdlDataset* dataset,
                                      size_t index) {
  return Guarded<aclDataBuffer*>(nullptr, [&]() -> aclDataBuffer* {
    if (dataset == nullptr || !Lib().datasets.Contains(dataset)) {
      Fail(ACL_ERROR_INVALID_PARAM, "dataset is NULL or was destroyed");
      return nullptr;
    }
    if (index >= dataset->buffers.size()) {
      Fail(ACL_ERROR_INVALID_PARAM,
           StrCat("buffer index ", index, " is out of range (",
                  dataset->buffers.size(), " buffers)"));
      return nullptr;
    }
    return dataset->buffers[index];
  });
}

// ---- Single op
// ----------------------------------------------------------------------------

aclTensorDesc* aclCreateTensorDesc(aclDataType dataType, int numDims,
                                   const int64_t* dims, aclFormat format) {
  return Guarded<aclTensorDesc*>(nullptr, [&]() -> aclTensorDesc* {
    if (numDims < 0 || numDims > ACL_MAX_DIM_CNT ||
        (numDims > 0 && dims == nullptr)) {
      Fail(ACL_ERROR_INVALID_PARAM,
           StrCat("numDims ", numDims, " with dims ", dims ? "set" : "NULL",
                  " is not valid"));
      return nullptr;
    }
    for (int i = 0; i < numDims; ++i) {
      if (dims[i] < 0) {
        Fail(ACL_ERROR_INVALID_PARAM,
             StrCat("dims[", i, "] is negative (", dims[i], ")"));
        return nullptr;
      }
    }
    if (!CheckedNumElements(std::span<const int64_t>(dims, numDims)).ok()) {
      Fail(ACL_ERROR_INVALID_PARAM, "the tensor described is too large");
      return nullptr;
    }
    auto* desc = new aclTensorDesc;
    desc->data_type = dataType;
    desc->dims.assign(dims, dims + numDims);
    desc->format = format;
    Lib().tensor_descs.Add(desc);
    return desc;
  });
}

void aclDestroyTensorDesc(const aclTensorDesc* desc) {
  Guarded<int>(0, [&] {
    if (desc != nullptr && Lib().tensor_descs.Remove(desc)) delete desc;
    return 0;
  });
}

void aclSetTensorDescName(aclTensorDesc* desc, const char* name) {
  Guarded<int>(0, [&] {
    if (desc != nullptr && name != nullptr && Lib().tensor_descs.Contains(desc))
      desc->name = name;
    return 0;
  });
}

aclDataType aclGetTensorDescType(const aclTensorDesc* desc) {
  return Guarded<aclDataType>(ACL_DT_UNDEFINED, [&] {
    if (desc == nullptr || !Lib().tensor_descs.Contains(desc)) {
      Fail(ACL_ERROR_INVALID_PARAM, "tensor desc is NULL or was destroyed");
      return ACL_DT_UNDEFINED;
    }
    return desc->data_type;
  });
}

size_t aclGetTensorDescNumDims(const aclTensorDesc* desc) {
  return Guarded<size_t>(0, [&]() -> size_t {
    if (desc == nullptr || !Lib().tensor_descs.Contains(desc)) {
      Fail(ACL_ERROR_INVALID_PARAM, "tensor desc is NULL or was destroyed");
      return 0;
    }
    return desc->dims.size();
  });
}

size_t aclGetTensorDescSize(const aclTensorDesc* desc) {
  return Guarded<size_t>(0, [&]() -> size_t {
    if (desc == nullptr || !Lib().tensor_descs.Contains(desc)) {
      Fail(ACL_ERROR_INVALID_PARAM, "tensor desc is NULL or was destroyed");
      return 0;
    }
    return Shape(desc->dims).NumElements() * aclDataTypeSize(desc->data_type);
  });
}

aclopAttr* aclopCreateAttr(void) {
  return Guarded<aclopAttr*>(nullptr, [&] {
    auto* attr = new aclopAttr;
    Lib().attrs.Add(attr);
    return attr;
  });
}

void aclopDestroyAttr(const aclopAttr* attr) {
  Guarded<int>(0, [&] {
    if (attr != nullptr && Lib().attrs.Remove(attr)) delete attr;
    return 0;
  });
}

namespace {

aclError SetAttr(aclopAttr* attr, const char* name, AttrValue value) {
  if (attr == nullptr || !Lib().attrs.Contains(attr)) {
    return Fail(ACL_ERROR_INVALID_PARAM, "attr is NULL or was destroyed");
  }
  if (name == nullptr || name[0] == '\0') {
    return Fail(ACL_ERROR_INVALID_PARAM, "attribute name is NULL or empty");
  }
  attr->attrs.Set(name, std::move(value));
  return ACL_SUCCESS;
}

}  // namespace

aclError aclopSetAttrBool(aclopAttr* attr, const char* attrName,
                          uint8_t attrValue) {
  return GuardedCall(
      [&] { return SetAttr(attr, attrName, int64_t{attrValue != 0}); });
}

aclError aclopSetAttrInt(aclopAttr* attr, const char* attrName,
                         int64_t attrValue) {
  return GuardedCall([&] { return SetAttr(attr, attrName, attrValue); });
}

aclError aclopSetAttrFloat(aclopAttr* attr, const char* attrName,
                           float attrValue) {
  return GuardedCall([&] { return SetAttr(attr, attrName, attrValue); });
}

aclError aclopSetAttrString(aclopAttr* attr, const char* attrName,
                            const char* attrValue) {
  return GuardedCall([&] {
    if (attrValue == nullptr)
      return Fail(ACL_ERROR_INVALID_PARAM, "attrValue is NULL");
    return SetAttr(attr, attrName, std::string(attrValue));
  });
}

aclError aclopSetAttrListInt(aclopAttr* attr, const char* attrName,
                             int numValues, const int64_t* values) {
  return GuardedCall([&] {
    if (numValues < 0 || (numValues > 0 && values == nullptr)) {
      return Fail(ACL_ERROR_INVALID_PARAM, "numValues/values are not valid");
    }
    return SetAttr(attr, attrName,
                   std::vector<int64_t>(values, values + numValues));
  });
}

aclError aclopSetAttrListFloat(aclopAttr* attr, const char* attrName,
                               int numValues, const float* values) {
  return GuardedCall([&] {
    if (numValues < 0 || (numValues > 0 && values == nullptr)) {
      return Fail(ACL_ERROR_INVALID_PARAM, "numValues/values are not valid");
    }
    return SetAttr(attr, attrName,
                   std::vector<float>(values, values + numValues));
  });
}

aclError aclopExecuteV2(const char* opType, int numInputs,
                        aclTensorDesc* inputDesc[], aclDataBuffer* inputs[],
                        int numOutputs, aclTensorDesc* outputDesc[],
                        aclDataBuffer* outputs[], aclopAttr* attr,
                        aclrtStream stream) {
  (void)stream;  // host execution is synchronous
  return GuardedCall([&] {
    if (opType == nullptr || opType[0] == '\0') {
      return Fail(ACL_ERROR_INVALID_PARAM, "opType is NULL or empty");
    }
    if (numInputs < 0 || numOutputs < 0 ||
        (numInputs > 0 && (!inputDesc || !inputs)) ||
        (numOutputs > 0 && (!outputDesc || !outputs))) {
      return Fail(ACL_ERROR_INVALID_PARAM,
                  "input/output counts and arrays do not match");
    }
    if (attr != nullptr && !Lib().attrs.Contains(attr)) {
      return Fail(ACL_ERROR_INVALID_PARAM, "attr was destroyed");
    }
    Live live;
    if (!Acquire(live)) return ACL_ERROR_UNINITIALIZE;
    auto to_view = [&](aclTensorDesc* desc, aclDataBuffer* buffer,
                       const char* what, int index,
                       TensorView& view) -> aclError {
      const aclError mismatch = what[0] == 'i' ? ACL_ERROR_OP_INPUT_NOT_MATCH
                                               : ACL_ERROR_OP_OUTPUT_NOT_MATCH;
      if (desc == nullptr && buffer == nullptr && what[0] == 'i')
        return ACL_SUCCESS;  // absent
      if (desc == nullptr || !Lib().tensor_descs.Contains(desc)) {
        return Fail(ACL_ERROR_INVALID_PARAM,
                    StrCat(what, " desc ", index, " is NULL or destroyed"));
      }
      if (buffer == nullptr || !Lib().buffers.Contains(buffer)) {
        return Fail(ACL_ERROR_INVALID_PARAM,
                    StrCat(what, " buffer ", index, " is NULL or destroyed"));
      }
      std::optional<DType> dtype = FromAclDataType(desc->data_type);
      if (!dtype) {
        return Fail(ACL_ERROR_UNSUPPORTED_DATA_TYPE,
                    StrCat(what, " ", index, ": data type ",
                           int(desc->data_type), " is not supported"));
      }
      view = TensorView{*dtype, Shape(desc->dims), buffer->data};
      if (buffer->size < view.ByteSize()) {
        return Fail(
            mismatch,
            StrCat(what, " ", index, " (", view.info().ToString(), ") needs ",
                   view.ByteSize(), " bytes, its buffer has ", buffer->size));
      }
      return ACL_SUCCESS;
    };
    std::vector<TensorView> in_views(numInputs), out_views(numOutputs);
    for (int i = 0; i < numInputs; ++i) {
      if (aclError e =
              to_view(inputDesc[i], inputs[i], "input", i, in_views[i]))
        return e;
    }
    for (int i = 0; i < numOutputs; ++i) {
      if (aclError e =
              to_view(outputDesc[i], outputs[i], "output", i, out_views[i]))
        return e;
    }
    SingleOpCall call;
    call.op_type = opType;
    call.op_name = opType;
    call.attrs = attr != nullptr ? &attr->attrs : nullptr;
    call.inputs = in_views;
    call.outputs = out_views;
    std::shared_ptr<ExecutionObserver> observer =
        live.dump->SingleOpObserver(current_device);
    absl::Status status = ExecuteSingleOp(BuiltinOps(), call, observer.get());
    return status.ok() ? ACL_SUCCESS : FailWith(status, ACL_ERROR_FAILURE);
  });
}

}  // extern "C"
