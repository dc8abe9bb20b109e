// The C ABI's process state: what lives from aclInit to aclFinalize (models,
// dump, the host runtime) and the handle registries that outlive it.
//
// aclFinalize may run while other threads are inside acl calls. Every call
// takes shared ownership of the running state (Acquire) under the library's
// lock and keeps it to its end, so aclFinalize never frees what a call in
// flight uses: it shuts the state down (streams drained, models unloaded,
// dump sessions closed) and the last call holding it frees it.
#ifndef ACLDUMP_BINDINGS_C_LIBRARY_H_
#define ACLDUMP_BINDINGS_C_LIBRARY_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>

#include "acl/acl.h"
#include "api_support.h"
#include "dump/dump_manager.h"
#include "handles.h"
#include "runtime/host/host_runtime.h"
#include "runtime/model_registry.h"

namespace acldump::capi {

// One aclInit .. aclFinalize.
struct State {
  ModelRegistry models;
  dump::DumpManager dump;
  host::HostRuntime runtime;
};

struct Library {
  std::mutex mutex;  // guards `state` and the init/finalize transitions
  std::shared_ptr<State> state;
  // The content hash of the first successful aclInit (it survives aclFinalize:
  // a later aclInit must bring the same content, as in the SDK).
  std::optional<size_t> init_content_hash;
  LiveHandles<aclDataBuffer> buffers;
  LiveHandles<aclmdlDataset> datasets;
  LiveHandles<aclmdlDesc> descs;
  LiveHandles<aclTensorDesc> tensor_descs;
  LiveHandles<aclopAttr> attrs;
  LiveHandles<aclmdlAIPP> aipps;
};

// The process's library (never destroyed: usable during exit).
Library& Lib();

// The running state, or null with ACL_ERROR_UNINITIALIZE recorded.
std::shared_ptr<State> Acquire();

// Buffer `index` of a live dataset, with memory to write into; null with
// ACL_ERROR_INVALID_PARAM recorded (which argument, and why) otherwise.
aclDataBuffer* WritableDatasetBuffer(aclmdlDataset* dataset, size_t index);

}  // namespace acldump::capi

#endif  // ACLDUMP_BINDINGS_C_LIBRARY_H_
