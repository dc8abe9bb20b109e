// aclmdlInitDump / aclmdlSetDump / aclmdlFinalizeDump over the dump manager,
// with the SDK's order of checks.
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "acl/acl.h"
#include "api_support.h"
#include "base/error_kind.h"
#include "base/strings.h"
#include "library.h"

using namespace acldump;        // NOLINT: the entry points are thin adapters
using namespace acldump::capi;  // NOLINT

namespace {

constexpr size_t kMaxConfigPath = 4096;

// How long aclmdlFinalizeDump waits for queued executions: a minute, or
// ACLDUMP_FINALIZE_WAIT_MS.
std::chrono::milliseconds FinalizeWait() {
  if (const char* env = std::getenv("ACLDUMP_FINALIZE_WAIT_MS")) {
    char* end = nullptr;
    const long long ms = std::strtoll(env, &end, 10);
    if (end != env && *end == '\0' && ms >= 0) {
      return std::chrono::milliseconds(ms);
    }
  }
  return std::chrono::minutes(1);
}

}  // namespace

extern "C" {

aclError aclmdlInitDump(void) {
  return GuardedCall([&] {
    std::shared_ptr<State> state = Acquire();
    if (!state) return ACL_ERROR_UNINITIALIZE;
    absl::Status status = state->dump.InitDump();
    return status.ok() ? ACL_SUCCESS : FailWith(status, ACL_ERROR_FAILURE);
  });
}

// The SDK checks aclInit, then aclmdlInitDump, then the path, then the file.
aclError aclmdlSetDump(const char* dumpCfgPath) {
  return GuardedCall([&] {
    std::shared_ptr<State> state = Acquire();
    if (!state) return ACL_ERROR_UNINITIALIZE;
    if (!state->dump.dump_initialized()) {
      return Fail(ACL_ERROR_DUMP_NOT_RUN,
                  "aclmdlSetDump needs aclmdlInitDump first");
    }
    if (dumpCfgPath == nullptr) return NullArgument("dumpCfgPath");
    const size_t length = std::strlen(dumpCfgPath);
    if (length == 0 || length > kMaxConfigPath) {
      return Fail(ACL_ERROR_INVALID_PARAM,
                  StrCat("dumpCfgPath must be a non-empty path of at most ",
                         kMaxConfigPath, " characters"));
    }
    absl::Status status = state->dump.SetDump(dumpCfgPath);
    return status.ok() ? ACL_SUCCESS
                       : FailWith(status, ACL_ERROR_INVALID_DUMP_CONFIG);
  });
}

aclError aclmdlFinalizeDump(void) {
  return GuardedCall([&] {
    std::shared_ptr<State> state = Acquire();
    if (!state) return ACL_ERROR_UNINITIALIZE;
    // Executions queued with aclmdlExecuteAsync before this call dump as
    // aclmdlExecute's would: the session waits for the streams' work first.
    // Work that cannot finish (a stream waiting for an event nobody records)
    // is waited for a bounded time and then reported, never dropped quietly.
    size_t busy = 0;
    if (state->dump.dump_initialized()) {
      busy = state->runtime.DrainStreams(std::chrono::steady_clock::now() +
                                         FinalizeWait());
    }
    absl::Status status = state->dump.FinalizeDump();
    if (!status.ok()) return FailWith(status, ACL_ERROR_WRITE_FILE);
    if (busy > 0) {
      return Fail(
          ACL_ERROR_RT_STREAM_SYNC_TIMEOUT,
          StrCat(busy, busy == 1 ? " stream" : " streams",
                 " still had queued work after aclmdlFinalizeDump waited ",
                 FinalizeWait().count(),
                 " ms (is it waiting for an event not yet recorded?): the "
                 "executions among it run without dump; synchronize the "
                 "streams before finalizing, or set ACLDUMP_FINALIZE_WAIT_MS"));
    }
    return ACL_SUCCESS;
  });
}

aclError aclmdlFinalizeDumpInBackground(void) {
  return GuardedCall([&] {
    std::shared_ptr<State> state = Acquire();
    if (!state) return ACL_ERROR_UNINITIALIZE;
    // The state outlives the background work: aclFinalize waits for it.
    host::HostRuntime* runtime = &state->runtime;
    const bool initialized = state->dump.dump_initialized();
    absl::Status status = state->dump.FinalizeDumpInBackground(
        [runtime, initialized]() -> absl::Status {
          if (!initialized) return absl::OkStatus();
          const size_t busy = runtime->DrainStreams(
              std::chrono::steady_clock::now() + FinalizeWait());
          if (busy == 0) return absl::OkStatus();
          return KindError(
              ErrorKind::kRtStreamSyncTimeout,
              StrCat(busy, busy == 1 ? " stream" : " streams",
                     " still had queued work after the background dump "
                     "finalize waited ",
                     FinalizeWait().count(),
                     " ms: the executions among it ran without dump; "
                     "synchronize the streams before finalizing, or set "
                     "ACLDUMP_FINALIZE_WAIT_MS"));
        });
    return status.ok() ? ACL_SUCCESS : FailWith(status, ACL_ERROR_DUMP_NOT_RUN);
  });
}

aclError aclmdlWaitDumpFinalized(int32_t timeoutMs) {
  return GuardedCall([&] {
    if (timeoutMs < -1) {
      return Fail(ACL_ERROR_INVALID_PARAM,
                  StrCat("timeoutMs is ", timeoutMs,
                         "; give a timeout in milliseconds, or -1 to wait "
                         "without limit"));
    }
    std::shared_ptr<State> state = Acquire();
    if (!state) return ACL_ERROR_UNINITIALIZE;
    std::optional<std::chrono::steady_clock::time_point> deadline;
    if (timeoutMs >= 0) {
      deadline = std::chrono::steady_clock::now() +
                 std::chrono::milliseconds(timeoutMs);
    }
    absl::Status status = state->dump.WaitFinalized(deadline);
    if (absl::IsDeadlineExceeded(status)) {
      return Fail(ACL_ERROR_RT_WAIT_TIMEOUT,
                  StrCat(status.message(), " after ", timeoutMs,
                         " ms; call aclmdlWaitDumpFinalized again"));
    }
    return status.ok() ? ACL_SUCCESS : FailWith(status, ACL_ERROR_WRITE_FILE);
  });
}

}  // extern "C"
