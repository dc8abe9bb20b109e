// Devices and contexts (acl_rt.h).
#include "acl/acl.h"
#include "api_support.h"
#include "library.h"
#include "runtime/host/host_runtime.h"

using namespace acldump;        // NOLINT: the entry points are thin adapters
using namespace acldump::capi;  // NOLINT

static_assert(acldump::host::kMaxDeviceId == ACL_MAX_DEVICE_ID);

extern "C" {

aclError aclrtGetRunMode(aclrtRunMode* runMode) {
  return GuardedCall([&] {
    if (runMode == nullptr) return NullArgument("runMode");
    *runMode = ACL_HOST;
    return ACL_SUCCESS;
  });
}

aclError aclrtGetDeviceCount(uint32_t* count) {
  return GuardedCall([&] {
    if (count == nullptr) return NullArgument("count");
    *count = ACL_MAX_DEVICE_ID + 1;
    return ACL_SUCCESS;
  });
}

const char* aclrtGetSocName(void) { return "acldump_cpu"; }

aclError aclrtSetDevice(int32_t deviceId) {
  return GuardedCall([&] {
    std::shared_ptr<State> state = Acquire();
    if (!state) return ACL_ERROR_UNINITIALIZE;
    return Translate(state->runtime.SetDevice(deviceId));
  });
}

aclError aclrtResetDevice(int32_t deviceId) {
  return GuardedCall([&] {
    std::shared_ptr<State> state = Acquire();
    if (!state) return ACL_ERROR_UNINITIALIZE;
    return Translate(state->runtime.ResetDevice(deviceId));
  });
}

aclError aclrtGetDevice(int32_t* deviceId) {
  return GuardedCall([&] {
    if (deviceId == nullptr) return NullArgument("deviceId");
    std::shared_ptr<State> state = Acquire();
    if (!state) return ACL_ERROR_UNINITIALIZE;
    auto context = state->runtime.RequireCurrent();
    if (!context.ok()) return Translate(context.status());
    *deviceId = (*context)->device;
    return ACL_SUCCESS;
  });
}

aclError aclrtSynchronizeDevice(void) {
  return GuardedCall([&] {
    std::shared_ptr<State> state = Acquire();
    if (!state) return ACL_ERROR_UNINITIALIZE;
    return Translate(state->runtime.SynchronizeDevice());
  });
}

aclError aclrtCreateContext(aclrtContext* context, int32_t deviceId) {
  return GuardedCall([&] {
    if (context == nullptr) return NullArgument("context");
    std::shared_ptr<State> state = Acquire();
    if (!state) return ACL_ERROR_UNINITIALIZE;
    absl::StatusOr<void*> created = state->runtime.CreateContext(deviceId);
    if (!created.ok()) return Translate(created.status());
    *context = *created;
    return ACL_SUCCESS;
  });
}

aclError aclrtDestroyContext(aclrtContext context) {
  return GuardedCall([&] {
    if (context == nullptr) return NullArgument("context");
    std::shared_ptr<State> state = Acquire();
    if (!state) return ACL_ERROR_UNINITIALIZE;
    return Translate(state->runtime.DestroyContext(context));
  });
}

aclError aclrtSetCurrentContext(aclrtContext context) {
  return GuardedCall([&] {
    if (context == nullptr) return NullArgument("context");
    std::shared_ptr<State> state = Acquire();
    if (!state) return ACL_ERROR_UNINITIALIZE;
    return Translate(state->runtime.SetCurrentContext(context));
  });
}

aclError aclrtGetCurrentContext(aclrtContext* context) {
  return GuardedCall([&] {
    if (context == nullptr) return NullArgument("context");
    std::shared_ptr<State> state = Acquire();
    if (!state) return ACL_ERROR_UNINITIALIZE;
    absl::StatusOr<void*> current = state->runtime.GetCurrentContext();
    if (!current.ok()) return Translate(current.status());
    *context = *current;
    return ACL_SUCCESS;
  });
}

}  // extern "C"
