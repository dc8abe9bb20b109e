// aclmdlInitDump / aclmdlSetDump / aclmdlFinalizeDump over the dump manager,
// with the SDK's order of checks.
#include <cstring>

#include "acl/acl.h"
#include "api_support.h"
#include "base/strings.h"
#include "library.h"

using namespace acldump;        // NOLINT: the entry points are thin adapters
using namespace acldump::capi;  // NOLINT

namespace {

constexpr size_t kMaxConfigPath = 4096;

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
    absl::Status status = state->dump.FinalizeDump();
    return status.ok() ? ACL_SUCCESS : FailWith(status, ACL_ERROR_WRITE_FILE);
  });
}

}  // extern "C"
