// Loading (with system or caller memory), querying sizes, executing (now or on
// a stream) and unloading models.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

#include "acl/acl.h"
#include "api_support.h"
#include "base/strings.h"
#include "library.h"
#include "runtime/host/host_runtime.h"
#include "runtime/host/memory_registry.h"
#include "runtime/memory_plan.h"

using namespace acldump;        // NOLINT: the entry points are thin adapters
using namespace acldump::capi;  // NOLINT
using namespace acldump::host;  // NOLINT

namespace {

constexpr size_t kMaxModelPath = 4096;

// What a model is loaded from: a file or bytes in memory.
struct ModelSource {
  const char* path = nullptr;
  std::string_view bytes;
};

// Caller memory for a load-with-memory call (null pointers: the model's own).
struct CallerMemory {
  void* work = nullptr;
  size_t work_size = 0;
  void* weights = nullptr;
  size_t weight_size = 0;
};

// aclmdlQuerySize's figures: never 0, so they can be passed to aclrtMalloc.
size_t ReportedWorkBytes(const GearedModel& model) {
  return std::max(model.work_bytes(), kPlanAlignment);
}
size_t ReportedWeightBytes(const GearedModel& model) {
  return std::max(AlignToPlan(model.weight_bytes()), kPlanAlignment);
}

aclError CheckSource(const ModelSource& source) {
  if (source.path != nullptr) {
    const size_t length = std::strlen(source.path);
    if (length == 0 || length > kMaxModelPath) {
      return Fail(ACL_ERROR_INVALID_PARAM,
                  StrCat("modelPath must be a non-empty path of at most ",
                         kMaxModelPath, " characters"));
    }
    return ACL_SUCCESS;
  }
  if (source.bytes.data() == nullptr || source.bytes.empty()) {
    return Fail(ACL_ERROR_INVALID_PARAM, "model is NULL or modelSize is 0");
  }
  return ACL_SUCCESS;
}

aclError Compile(const ModelSource& source,
                 std::unique_ptr<GearedModel>* model) {
  if (aclError e = CheckSource(source)) return e;
  absl::StatusOr<std::unique_ptr<GearedModel>> compiled =
      source.path != nullptr ? LoadGearedModelFromFile(source.path)
                             : LoadGearedModelFromMemory(source.bytes);
  if (!compiled.ok()) return FailWith(compiled.status(), ACL_ERROR_PARSE_MODEL);
  *model = std::move(*compiled);
  return ACL_SUCCESS;
}

aclError CheckCallerPart(const char* what, const void* pointer, size_t size,
                         size_t needed) {
  if (pointer == nullptr) return ACL_SUCCESS;
  if (size < needed) {
    return Fail(ACL_ERROR_GE_PARAM_INVALID,
                StrCat(what, " memory of ", size,
                       " bytes is too small: the model needs ", needed,
                       " (aclmdlQuerySize)"));
  }
  if (!Memory().Contains(pointer, size, MemoryKind::kDevice)) {
    return Fail(ACL_ERROR_GE_PARAM_INVALID,
                StrCat(what, " memory [", pointer, ", +", size,
                       ") is not inside one allocation of aclrtMalloc"));
  }
  return ACL_SUCCESS;
}

// Binds caller memory; the returned model keeps it pinned while it lives.
aclError BindCallerMemory(std::unique_ptr<GearedModel> model,
                          const CallerMemory& memory,
                          std::shared_ptr<GearedModel>* bound) {
  if (aclError e = CheckCallerPart("work", memory.work, memory.work_size,
                                   ReportedWorkBytes(*model))) {
    return e;
  }
  if (aclError e = CheckCallerPart("weight", memory.weights, memory.weight_size,
                                   ReportedWeightBytes(*model))) {
    return e;
  }
  absl::Status status = model->BindMemory(memory.work, memory.work_size,
                                          memory.weights, memory.weight_size);
  if (!status.ok()) return FailWith(status, ACL_ERROR_GE_PARAM_INVALID);
  const void* used[] = {memory.work, memory.weights};
  std::shared_ptr<MemoryRegistry::Pins> pins = Memory().Pin(used);
  *bound = std::shared_ptr<GearedModel>(model.release(),
                                        [pins](GearedModel* m) { delete m; });
  return ACL_SUCCESS;
}

void PrintWarnings(const std::vector<std::string>& warnings) {
  for (const std::string& warning : warnings) {
    std::fprintf(stderr, "[acldump] warning: %s\n", warning.c_str());
  }
}

// Registers a compiled model and attaches what the dump config in effect asks
// for (decided now, at load) to each of its plans.
aclError RegisterLoaded(State& state, std::shared_ptr<GearedModel> model,
                        std::string file_stem, uint32_t* model_id) {
  // The id is needed for the dump layout before the model is visible to other
  // threads.
  absl::StatusOr<uint32_t> id = state.models.Add(model, file_stem);
  if (!id.ok()) return FailWith(id.status(), ACL_ERROR_FAILURE);
  const dump::ModelIdentity identity{*id, std::move(file_stem),
                                     state.runtime.CurrentDevice()};
  std::vector<std::string> warnings;
  for (size_t i = 0; i < model->num_plans(); ++i) {
    CompiledModel& plan = model->plan(i);
    dump::Attachment attachment =
        state.dump.OnModelLoad(plan, identity, &warnings);
    if (!attachment.observer) continue;
    absl::Status attached = plan.AttachObserver(
        std::move(attachment.observer), std::move(attachment.step_flags));
    if (!attached.ok()) {
      state.models.Remove(*id).IgnoreError();
      return FailWith(attached, ACL_ERROR_INTERNAL_ERROR);
    }
  }
  // Gears share their layer names: one warning per distinct text.
  std::sort(warnings.begin(), warnings.end());
  warnings.erase(std::unique(warnings.begin(), warnings.end()), warnings.end());
  PrintWarnings(warnings);
  *model_id = *id;
  return ACL_SUCCESS;
}

aclError Load(const ModelSource& source, uint32_t* model_id,
              const CallerMemory& memory) {
  if (model_id == nullptr) return NullArgument("modelId");
  std::shared_ptr<State> state = Acquire();
  if (!state) return ACL_ERROR_UNINITIALIZE;
  std::unique_ptr<GearedModel> compiled;
  if (aclError e = Compile(source, &compiled)) return e;
  std::shared_ptr<GearedModel> model;
  if (aclError e = BindCallerMemory(std::move(compiled), memory, &model)) {
    return e;
  }
  return RegisterLoaded(*state, std::move(model),
                        source.path ? FileStem(source.path) : "", model_id);
}

aclError QuerySize(const ModelSource& source, size_t* work, size_t* weight) {
  if (work == nullptr) return NullArgument("workSize");
  if (weight == nullptr) return NullArgument("weightSize");
  std::unique_ptr<GearedModel> model;
  if (aclError e = Compile(source, &model)) return e;
  *work = ReportedWorkBytes(*model);
  *weight = ReportedWeightBytes(*model);
  return ACL_SUCCESS;
}

// A dataset's buffers as runtime buffers.
template <typename Buffer>
aclError CollectBuffers(const aclmdlDataset* dataset, const char* what,
                        std::vector<Buffer>& out) {
  if (dataset == nullptr || !Lib().datasets.Contains(dataset)) {
    return Fail(ACL_ERROR_INVALID_PARAM,
                StrCat(what, " dataset is NULL or was destroyed"));
  }
  out.clear();
  for (size_t i = 0; i < dataset->buffers.size(); ++i) {
    const aclDataBuffer* buffer = dataset->buffers[i];
    if (!Lib().buffers.Contains(buffer)) {
      return Fail(ACL_ERROR_INVALID_PARAM,
                  StrCat(what, " buffer ", i,
                         " was destroyed while still in the dataset"));
    }
    out.push_back(Buffer{buffer->data, buffer->size});
  }
  return ACL_SUCCESS;
}

aclError FindModel(const State& state, uint32_t model_id,
                   std::shared_ptr<const LoadedModel>* loaded) {
  *loaded = state.models.Find(model_id);
  if (*loaded) return ACL_SUCCESS;
  return Fail(ACL_ERROR_INVALID_MODEL_ID,
              StrCat("model id ", model_id, " is not loaded"));
}

// One queued execution: the model and the buffers' addresses, with device
// and aclrtMallocHost memory among them pinned until it has run.
struct QueuedExecution {
  std::shared_ptr<const LoadedModel> loaded;
  std::vector<HostBuffer> inputs;
  std::vector<MutableHostBuffer> outputs;
  std::shared_ptr<MemoryRegistry::Pins> pins;

  absl::Status operator()() const {
    absl::Status status = loaded->model->Execute(inputs, outputs);
    return WithContext(status,
                       StrCat("aclmdlExecuteAsync of model ", loaded->id));
  }
};

aclError ExecuteAsync(uint32_t model_id, const aclmdlDataset* input,
                      const aclmdlDataset* output, aclrtStream stream) {
  std::shared_ptr<State> state = Acquire();
  if (!state) return ACL_ERROR_UNINITIALIZE;
  QueuedExecution run;
  if (aclError e = FindModel(*state, model_id, &run.loaded)) return e;
  if (aclError e = CollectBuffers(input, "input", run.inputs)) return e;
  if (aclError e = CollectBuffers(output, "output", run.outputs)) return e;
  // The checks the execution makes when it runs, made before it is queued.
  absl::Status fits = run.loaded->model->CheckBuffers(run.inputs, run.outputs);
  if (!fits.ok()) return FailWith(fits, ACL_ERROR_FAILURE);
  absl::StatusOr<std::shared_ptr<Stream>> queue =
      state->runtime.ResolveStream(stream);
  if (!queue.ok()) return Translate(queue.status());
  std::vector<const void*> used;
  for (const HostBuffer& buffer : run.inputs) used.push_back(buffer.data);
  for (const MutableHostBuffer& buffer : run.outputs)
    used.push_back(buffer.data);
  run.pins = Memory().Pin(used);
  absl::Status queued = (*queue)->Enqueue(std::move(run));
  return queued.ok() ? ACL_SUCCESS
                     : FailWith(queued, ACL_ERROR_RT_PARAM_INVALID);
}

}  // namespace

extern "C" {

aclError aclmdlLoadFromFile(const char* modelPath, uint32_t* modelId) {
  return GuardedCall([&] {
    if (modelPath == nullptr) return NullArgument("modelPath");
    return Load(ModelSource{modelPath, {}}, modelId, {});
  });
}

aclError aclmdlLoadFromMem(const void* model, size_t modelSize,
                           uint32_t* modelId) {
  return GuardedCall([&] {
    if (model == nullptr || modelSize == 0) {
      return Fail(ACL_ERROR_INVALID_PARAM, "model is NULL or modelSize is 0");
    }
    const ModelSource source{
        nullptr, std::string_view(static_cast<const char*>(model), modelSize)};
    return Load(source, modelId, {});
  });
}

aclError aclmdlLoadFromFileWithMem(const char* modelPath, uint32_t* modelId,
                                   void* workPtr, size_t workSize,
                                   void* weightPtr, size_t weightSize) {
  return GuardedCall([&] {
    if (modelPath == nullptr) return NullArgument("modelPath");
    return Load(ModelSource{modelPath, {}}, modelId,
                CallerMemory{workPtr, workSize, weightPtr, weightSize});
  });
}

aclError aclmdlLoadFromMemWithMem(const void* model, size_t modelSize,
                                  uint32_t* modelId, void* workPtr,
                                  size_t workSize, void* weightPtr,
                                  size_t weightSize) {
  return GuardedCall([&] {
    if (model == nullptr || modelSize == 0) {
      return Fail(ACL_ERROR_INVALID_PARAM, "model is NULL or modelSize is 0");
    }
    const ModelSource source{
        nullptr, std::string_view(static_cast<const char*>(model), modelSize)};
    return Load(source, modelId,
                CallerMemory{workPtr, workSize, weightPtr, weightSize});
  });
}

aclError aclmdlQuerySize(const char* fileName, size_t* workSize,
                         size_t* weightSize) {
  return GuardedCall([&] {
    if (fileName == nullptr) return NullArgument("fileName");
    return QuerySize(ModelSource{fileName, {}}, workSize, weightSize);
  });
}

aclError aclmdlQuerySizeFromMem(const void* model, size_t modelSize,
                                size_t* workSize, size_t* weightSize) {
  return GuardedCall([&] {
    if (model == nullptr || modelSize == 0) {
      return Fail(ACL_ERROR_INVALID_PARAM, "model is NULL or modelSize is 0");
    }
    const ModelSource source{
        nullptr, std::string_view(static_cast<const char*>(model), modelSize)};
    return QuerySize(source, workSize, weightSize);
  });
}

aclError aclmdlUnload(uint32_t modelId) {
  return GuardedCall([&] {
    std::shared_ptr<State> state = Acquire();
    if (!state) return ACL_ERROR_UNINITIALIZE;
    absl::Status status = state->models.Remove(modelId);
    return status.ok() ? ACL_SUCCESS
                       : FailWith(status, ACL_ERROR_INVALID_MODEL_ID);
  });
}

aclError aclmdlExecute(uint32_t modelId, const aclmdlDataset* input,
                       aclmdlDataset* output) {
  return GuardedCall([&] {
    std::shared_ptr<State> state = Acquire();
    if (!state) return ACL_ERROR_UNINITIALIZE;
    std::shared_ptr<const LoadedModel> loaded;
    if (aclError e = FindModel(*state, modelId, &loaded)) return e;
    // Reused per thread: small models need no allocation per execution.
    thread_local std::vector<HostBuffer> inputs;
    thread_local std::vector<MutableHostBuffer> outputs;
    if (aclError e = CollectBuffers(input, "input", inputs)) return e;
    if (aclError e = CollectBuffers(output, "output", outputs)) return e;
    absl::Status status = loaded->model->Execute(inputs, outputs);
    return status.ok() ? ACL_SUCCESS : FailWith(status, ACL_ERROR_FAILURE);
  });
}

aclError aclmdlExecuteAsync(uint32_t modelId, const aclmdlDataset* input,
                            aclmdlDataset* output, aclrtStream stream) {
  return GuardedCall(
      [&] { return ExecuteAsync(modelId, input, output, stream); });
}

}  // extern "C"
