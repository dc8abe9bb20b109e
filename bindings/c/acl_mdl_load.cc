// Loading (with system or caller memory), querying sizes, executing (now or on
// a stream) and unloading models.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "acl/acl.h"
#include "api_support.h"
#include "base/status_macros.h"
#include "base/strings.h"
#include "library.h"
#include "runtime/host/host_runtime.h"
#include "runtime/host/memory_registry.h"
#include "runtime/model_loader.h"
#include "runtime/request_tag.h"

using namespace acldump;        // NOLINT: the entry points are thin adapters
using namespace acldump::capi;  // NOLINT
using namespace acldump::host;  // NOLINT

namespace {

constexpr size_t kMaxModelPath = 4096;

// A path's length limit, as the SDK's.
aclError CheckPath(const char* path) {
  const size_t length = std::strlen(path);
  if (length == 0 || length > kMaxModelPath) {
    return Fail(ACL_ERROR_INVALID_PARAM,
                StrCat("modelPath must be a non-empty path of at most ",
                       kMaxModelPath, " characters"));
  }
  return ACL_SUCCESS;
}

// A model argument as the caller gave it: a path, or bytes.
struct ModelArg {
  const char* path = nullptr;
  std::string_view bytes;
};

ModelArg InMemory(const void* model, size_t size) {
  return {nullptr, std::string_view(static_cast<const char*>(model), size)};
}

// Checked after the other arguments, in the SDK's order.
aclError ToSource(const ModelArg& arg, ModelSource* source) {
  if (arg.path == nullptr) {
    *source = ModelSource::Memory(arg.bytes);
    return ACL_SUCCESS;
  }
  if (aclError e = CheckPath(arg.path)) return e;
  *source = ModelSource::File(arg.path);
  return ACL_SUCCESS;
}

void PrintWarnings(const std::vector<std::string>& warnings) {
  for (const std::string& warning : warnings) {
    std::fprintf(stderr, "[acldump] warning: %s\n", warning.c_str());
  }
}

aclError Load(const ModelArg& arg, uint32_t* model_id,
              const CallerMemory& memory) {
  if (model_id == nullptr) return NullArgument("modelId");
  std::shared_ptr<State> state = Acquire();
  if (!state) return ACL_ERROR_UNINITIALIZE;
  LoadRequest request;
  if (aclError e = ToSource(arg, &request.source)) return e;
  request.memory = memory;
  request.device = state->runtime.CurrentDevice();
  std::vector<std::string> warnings;
  absl::StatusOr<uint32_t> id =
      LoadAndRegister(request, state->models, &state->dump, &warnings);
  if (!id.ok()) return FailWith(id.status(), ACL_ERROR_PARSE_MODEL);
  PrintWarnings(warnings);
  *model_id = *id;
  return ACL_SUCCESS;
}

aclError QuerySize(const ModelArg& arg, size_t* work, size_t* weight) {
  if (work == nullptr) return NullArgument("workSize");
  if (weight == nullptr) return NullArgument("weightSize");
  ModelSource source;
  if (aclError e = ToSource(arg, &source)) return e;
  absl::StatusOr<std::unique_ptr<GearedModel>> model = LoadModel(source);
  if (!model.ok()) return FailWith(model.status(), ACL_ERROR_PARSE_MODEL);
  const ModelMemoryNeeds needs = MemoryNeeds(**model);
  *work = needs.work_bytes;
  *weight = needs.weight_bytes;
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

aclError Execute(uint32_t model_id, const aclmdlDataset* input,
                 aclmdlDataset* output) {
  std::shared_ptr<State> state = Acquire();
  if (!state) return ACL_ERROR_UNINITIALIZE;
  std::shared_ptr<const LoadedModel> loaded;
  if (aclError e = FindModel(*state, model_id, &loaded)) return e;
  // Reused per thread: small models need no allocation per execution.
  thread_local std::vector<HostBuffer> inputs;
  thread_local std::vector<MutableHostBuffer> outputs;
  if (aclError e = CollectBuffers(input, "input", inputs)) return e;
  if (aclError e = CollectBuffers(output, "output", outputs)) return e;
  absl::Status status = loaded->model->Execute(inputs, outputs);
  return status.ok() ? ACL_SUCCESS : FailWith(status, ACL_ERROR_FAILURE);
}

// The running library and loaded model `model_id`, for an entry point.
aclError FindLoaded(uint32_t model_id, std::shared_ptr<State>* state,
                    std::shared_ptr<const LoadedModel>* loaded) {
  *state = Acquire();
  if (!*state) return ACL_ERROR_UNINITIALIZE;
  return FindModel(**state, model_id, loaded);
}

aclError CheckConfigPath(const char* path) {
  if (path == nullptr || *path == '\0') {
    return Fail(ACL_ERROR_INVALID_PARAM,
                "dumpCfgPath must be the path of a dump config file");
  }
  return ACL_SUCCESS;
}

constexpr size_t kMaxRequestTag = 128;

// A request tag: NULL or "" for none, else printable ASCII (it names the
// request in request.json and in messages).
aclError CheckTag(const char* tag, std::string_view* out) {
  *out = {};
  if (tag == nullptr) return ACL_SUCCESS;
  const std::string_view text(tag, strnlen(tag, kMaxRequestTag + 1));
  if (text.size() > kMaxRequestTag) {
    return Fail(ACL_ERROR_INVALID_PARAM,
                StrCat("requestTag is longer than ", kMaxRequestTag,
                       " bytes; use a shorter request id"));
  }
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c > 0x7e) {
      return Fail(ACL_ERROR_INVALID_PARAM,
                  StrCat("requestTag has a byte outside printable ASCII (",
                         static_cast<int>(c), " at offset ", i,
                         "); use letters, digits and punctuation"));
    }
  }
  *out = text;
  return ACL_SUCCESS;
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
    return Annotate(status, StrCat("aclmdlExecuteAsync of model ", loaded->id));
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
    return Load(ModelArg{modelPath, {}}, modelId, {});
  });
}

aclError aclmdlLoadFromMem(const void* model, size_t modelSize,
                           uint32_t* modelId) {
  return GuardedCall([&] {
    if (model == nullptr || modelSize == 0) {
      return Fail(ACL_ERROR_INVALID_PARAM, "model is NULL or modelSize is 0");
    }
    return Load(InMemory(model, modelSize), modelId, {});
  });
}

aclError aclmdlLoadFromFileWithMem(const char* modelPath, uint32_t* modelId,
                                   void* workPtr, size_t workSize,
                                   void* weightPtr, size_t weightSize) {
  return GuardedCall([&] {
    if (modelPath == nullptr) return NullArgument("modelPath");
    return Load(ModelArg{modelPath, {}}, modelId,
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
    return Load(InMemory(model, modelSize), modelId,
                CallerMemory{workPtr, workSize, weightPtr, weightSize});
  });
}

aclError aclmdlQuerySize(const char* fileName, size_t* workSize,
                         size_t* weightSize) {
  return GuardedCall([&] {
    if (fileName == nullptr) return NullArgument("fileName");
    return QuerySize(ModelArg{fileName, {}}, workSize, weightSize);
  });
}

aclError aclmdlQuerySizeFromMem(const void* model, size_t modelSize,
                                size_t* workSize, size_t* weightSize) {
  return GuardedCall([&] {
    if (model == nullptr || modelSize == 0) {
      return Fail(ACL_ERROR_INVALID_PARAM, "model is NULL or modelSize is 0");
    }
    return QuerySize(InMemory(model, modelSize), workSize, weightSize);
  });
}

aclError aclmdlUnload(uint32_t modelId) {
  return GuardedCall([&] {
    std::shared_ptr<State> state = Acquire();
    if (!state) return ACL_ERROR_UNINITIALIZE;
    absl::Status status = state->models.Remove(modelId);
    if (!status.ok()) return FailWith(status, ACL_ERROR_INVALID_MODEL_ID);
    // The model is gone either way: what its arms could not write is said.
    absl::Status arms = state->dump.OnModelUnloaded(modelId);
    if (!arms.ok()) {
      PrintWarnings(
          {StrCat("model ", modelId,
                  " unloaded; its armed dump or recorder: ", arms.message())});
    }
    return ACL_SUCCESS;
  });
}

aclError aclmdlExecute(uint32_t modelId, const aclmdlDataset* input,
                       aclmdlDataset* output) {
  return GuardedCall([&] { return Execute(modelId, input, output); });
}

aclError aclmdlExecuteWithTag(uint32_t modelId, const char* requestTag,
                              const aclmdlDataset* input,
                              aclmdlDataset* output) {
  return GuardedCall([&] {
    std::string_view tag;
    if (aclError e = CheckTag(requestTag, &tag)) return e;
    ScopedRequestTag scoped(tag);
    return Execute(modelId, input, output);
  });
}

aclError aclmdlArmDump(uint32_t modelId, const char* dumpCfgPath,
                       const char* requestTag, uint64_t executions) {
  return GuardedCall([&] {
    std::shared_ptr<State> state;
    std::shared_ptr<const LoadedModel> loaded;
    if (aclError e = FindLoaded(modelId, &state, &loaded)) return e;
    if (aclError e = CheckConfigPath(dumpCfgPath)) return e;
    std::string_view tag;
    if (aclError e = CheckTag(requestTag, &tag)) return e;
    std::vector<std::string> warnings;
    absl::Status status = state->dump.Arm(
        *loaded, dumpCfgPath, std::string(tag), executions, &warnings);
    PrintWarnings(warnings);
    return Translate(status, ACL_ERROR_INVALID_DUMP_CONFIG);
  });
}

aclError aclmdlDisarmDump(uint32_t modelId, const char* requestTag) {
  return GuardedCall([&] {
    std::shared_ptr<State> state;
    std::shared_ptr<const LoadedModel> loaded;
    if (aclError e = FindLoaded(modelId, &state, &loaded)) return e;
    std::string tag;
    if (requestTag != nullptr) {
      std::string_view checked;
      if (aclError e = CheckTag(requestTag, &checked)) return e;
      tag.assign(checked);
    }
    return Translate(state->dump.Disarm(loaded.get(), modelId,
                                        requestTag == nullptr ? nullptr : &tag),
                     ACL_ERROR_WRITE_FILE);
  });
}

aclError aclmdlGetDumpDropCount(uint32_t modelId, uint64_t* records,
                                uint64_t* bytes, uint64_t* iterations) {
  return GuardedCall([&] {
    std::shared_ptr<State> state;
    std::shared_ptr<const LoadedModel> loaded;
    if (aclError e = FindLoaded(modelId, &state, &loaded)) return e;
    const dump::DropCounts drops = state->dump.DropsOf(modelId);
    if (records != nullptr) *records = drops.records;
    if (bytes != nullptr) *bytes = drops.bytes;
    if (iterations != nullptr) *iterations = drops.iterations;
    return ACL_SUCCESS;
  });
}

}  // extern "C"

namespace {

constexpr size_t kMaxReason = 1024;

constexpr uint32_t kRecorderFlags =
    ACL_RECORDER_OPERATOR_STATS | ACL_RECORDER_TRIGGER_NON_FINITE |
    ACL_RECORDER_TRIGGER_ERROR | ACL_RECORDER_TRIGGER_SIGNAL;

std::optional<std::chrono::steady_clock::time_point> DeadlineIn(
    int32_t timeout_ms) {
  if (timeout_ms < 0) return std::nullopt;
  return std::chrono::steady_clock::now() +
         std::chrono::milliseconds(timeout_ms);
}

}  // namespace

extern "C" {

aclError aclmdlStartRecorder(uint32_t modelId, const char* dumpCfgPath,
                             uint32_t executions, uint32_t flags) {
  return GuardedCall([&] {
    std::shared_ptr<State> state;
    std::shared_ptr<const LoadedModel> loaded;
    if (aclError e = FindLoaded(modelId, &state, &loaded)) return e;
    if (aclError e = CheckConfigPath(dumpCfgPath)) return e;
    if ((flags & ~kRecorderFlags) != 0) {
      return Fail(ACL_ERROR_INVALID_PARAM,
                  StrCat("flags has unknown bits (", flags & ~kRecorderFlags,
                         "); combine the ACL_RECORDER_* flags"));
    }
    dump::RecorderOptions options;
    options.executions = executions;
    options.operator_stats = (flags & ACL_RECORDER_OPERATOR_STATS) != 0;
    options.trigger_non_finite = (flags & ACL_RECORDER_TRIGGER_NON_FINITE) != 0;
    options.trigger_error = (flags & ACL_RECORDER_TRIGGER_ERROR) != 0;
    options.trigger_signal = (flags & ACL_RECORDER_TRIGGER_SIGNAL) != 0;
    return Translate(state->dump.StartRecorder(loaded, dumpCfgPath, options),
                     ACL_ERROR_INVALID_DUMP_CONFIG);
  });
}

aclError aclmdlStopRecorder(uint32_t modelId) {
  return GuardedCall([&] {
    std::shared_ptr<State> state;
    std::shared_ptr<const LoadedModel> loaded;
    if (aclError e = FindLoaded(modelId, &state, &loaded)) return e;
    return Translate(state->dump.StopRecorder(loaded.get(), modelId),
                     ACL_ERROR_WRITE_FILE);
  });
}

aclError aclmdlTriggerRecorder(uint32_t modelId, const char* reason,
                               int32_t* reproduced) {
  return GuardedCall([&] {
    std::shared_ptr<State> state;
    std::shared_ptr<const LoadedModel> loaded;
    if (aclError e = FindLoaded(modelId, &state, &loaded)) return e;
    std::string text;
    if (reason != nullptr) {
      text.assign(reason, strnlen(reason, kMaxReason + 1));
      if (text.size() > kMaxReason) {
        return Fail(ACL_ERROR_INVALID_PARAM,
                    StrCat("reason is longer than ", kMaxReason,
                           " bytes; give a shorter one"));
      }
    }
    absl::StatusOr<dump::RecorderReport> report =
        state->dump.TriggerRecorder(modelId, std::move(text));
    if (!report.ok()) return Translate(report.status(), ACL_ERROR_WRITE_FILE);
    if (reproduced != nullptr) *reproduced = report->reproduced ? 1 : 0;
    return ACL_SUCCESS;
  });
}

aclError aclmdlWaitRecorder(uint32_t modelId, int32_t timeoutMs) {
  return GuardedCall([&] {
    if (timeoutMs < -1) {
      return Fail(ACL_ERROR_INVALID_PARAM,
                  StrCat("timeoutMs is ", timeoutMs,
                         "; give a timeout in milliseconds, or -1 to wait "
                         "without limit"));
    }
    std::shared_ptr<State> state;
    std::shared_ptr<const LoadedModel> loaded;
    if (aclError e = FindLoaded(modelId, &state, &loaded)) return e;
    absl::Status status =
        state->dump.WaitRecorder(modelId, DeadlineIn(timeoutMs));
    if (absl::IsDeadlineExceeded(status)) {
      return Fail(ACL_ERROR_RT_WAIT_TIMEOUT,
                  StrCat(status.message(), " (after ", timeoutMs, " ms)"));
    }
    return Translate(status, ACL_ERROR_WRITE_FILE);
  });
}

aclError aclmdlGetRecorderCount(uint32_t modelId, uint64_t* recorded,
                                uint64_t* triggers, uint64_t* reports,
                                uint64_t* reproduced, uint64_t* skipped) {
  return GuardedCall([&] {
    std::shared_ptr<State> state;
    std::shared_ptr<const LoadedModel> loaded;
    if (aclError e = FindLoaded(modelId, &state, &loaded)) return e;
    absl::StatusOr<dump::RecorderCounts> counts =
        state->dump.RecorderStatus(modelId, nullptr);
    if (!counts.ok())
      return Translate(counts.status(), ACL_ERROR_INVALID_PARAM);
    if (recorded != nullptr) *recorded = counts->recorded;
    if (triggers != nullptr) *triggers = counts->triggers;
    if (reports != nullptr) *reports = counts->reports;
    if (reproduced != nullptr) *reproduced = counts->reproduced;
    if (skipped != nullptr) *skipped = counts->skipped;
    return ACL_SUCCESS;
  });
}

}  // extern "C"

namespace {

// The latest report of the model's recorder; an aclError when it has none.
aclError LastReport(uint32_t model_id, dump::RecorderReport* out) {
  std::shared_ptr<State> state;
  std::shared_ptr<const LoadedModel> loaded;
  if (aclError e = FindLoaded(model_id, &state, &loaded)) return e;
  std::optional<dump::RecorderReport> last;
  absl::StatusOr<dump::RecorderCounts> counts =
      state->dump.RecorderStatus(model_id, &last);
  if (!counts.ok()) return Translate(counts.status(), ACL_ERROR_INVALID_PARAM);
  if (!last) {
    return Fail(ACL_ERROR_INVALID_PARAM,
                StrCat("the recorder of model ", model_id,
                       " has written no report yet"));
  }
  *out = std::move(*last);
  return ACL_SUCCESS;
}

}  // namespace

extern "C" {

aclError aclmdlGetRecorderLastReport(uint32_t modelId, int32_t* reproduced,
                                     uint64_t* triggerIteration) {
  return GuardedCall([&] {
    dump::RecorderReport report;
    if (aclError e = LastReport(modelId, &report)) return e;
    if (reproduced != nullptr) *reproduced = report.reproduced ? 1 : 0;
    if (triggerIteration != nullptr) {
      *triggerIteration = report.trigger.iteration;
    }
    return ACL_SUCCESS;
  });
}

const char* aclmdlGetRecorderReportDir(uint32_t modelId) {
  return Guarded<const char*>(nullptr, [&]() -> const char* {
    thread_local std::string directory;
    dump::RecorderReport report;
    if (LastReport(modelId, &report) != ACL_SUCCESS) return nullptr;
    directory = std::move(report.directory);
    return directory.c_str();
  });
}

aclError aclmdlGetArmedDumpCount(uint32_t modelId, const char* requestTag,
                                 uint64_t* dumped, uint64_t* remaining) {
  return GuardedCall([&] {
    if (dumped == nullptr) return NullArgument("dumped");
    if (remaining == nullptr) return NullArgument("remaining");
    std::shared_ptr<State> state;
    std::shared_ptr<const LoadedModel> loaded;
    if (aclError e = FindLoaded(modelId, &state, &loaded)) return e;
    std::string_view tag;
    if (aclError e = CheckTag(requestTag, &tag)) return e;
    absl::StatusOr<dump::DumpManager::ArmCounts> counts =
        state->dump.ArmStatus(modelId, std::string(tag));
    if (!counts.ok()) return FailWith(counts.status(), ACL_ERROR_INVALID_PARAM);
    *dumped = counts->dumped;
    *remaining = counts->remaining;
    return ACL_SUCCESS;
  });
}

aclError aclmdlExecuteAsync(uint32_t modelId, const aclmdlDataset* input,
                            aclmdlDataset* output, aclrtStream stream) {
  return GuardedCall(
      [&] { return ExecuteAsync(modelId, input, output, stream); });
}

}  // extern "C"
