// Devices and contexts (acl_rt.h).
#include "acl/acl.h"
#include "api_support.h"
#include "library.h"

using namespace acldump;        // NOLINT: the entry points are thin adapters
using namespace acldump::capi;  // NOLINT

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
    return state->runtime.SetDevice(deviceId);
  });
}

aclError aclrtResetDevice(int32_t deviceId) {
  return GuardedCall([&] {
    std::shared_ptr<State> state = Acquire();
    if (!state) return ACL_ERROR_UNINITIALIZE;
    return state->runtime.ResetDevice(deviceId);
  });
}

aclError aclrtGetDevice(int32_t* deviceId) {
  return GuardedCall([&] {
    if (deviceId == nullptr) return NullArgument("deviceId");
    std::shared_ptr<State> state = Acquire();
    if (!state) return ACL_ERROR_UNINITIALIZE;
    std::shared_ptr<Context> context;
    if (aclError e = state->runtime.RequireCurrent(&context)) return e;
    *deviceId = context->device;
    return ACL_SUCCESS;
  });
}

aclError aclrtSynchronizeDevice(void) {
  return GuardedCall([&] {
    std::shared_ptr<State> state = Acquire();
    if (!state) return ACL_ERROR_UNINITIALIZE;
    return state->runtime.SynchronizeDevice();
  });
}

aclError aclrtCreateContext(aclrtContext* context, int32_t deviceId) {
  return GuardedCall([&] {
    if (context == nullptr) return NullArgument("context");
    std::shared_ptr<State> state = Acquire();
    if (!state) return ACL_ERROR_UNINITIALIZE;
    void* created = nullptr;
    if (aclError e = state->runtime.CreateContext(deviceId, &created)) return e;
    *context = created;
    return ACL_SUCCESS;
  });
}

aclError aclrtDestroyContext(aclrtContext context) {
  return GuardedCall([&] {
    if (context == nullptr) return NullArgument("context");
    std::shared_ptr<State> state = Acquire();
    if (!state) return ACL_ERROR_UNINITIALIZE;
    return state->runtime.DestroyContext(context);
  });
}

aclError aclrtSetCurrentContext(aclrtContext context) {
  return GuardedCall([&] {
    if (context == nullptr) return NullArgument("context");
    std::shared_ptr<State> state = Acquire();
    if (!state) return ACL_ERROR_UNINITIALIZE;
    return state->runtime.SetCurrentContext(context);
  });
}

aclError aclrtGetCurrentContext(aclrtContext* context) {
  return GuardedCall([&] {
    if (context == nullptr) return NullArgument("context");
    std::shared_ptr<State> state = Acquire();
    if (!state) return ACL_ERROR_UNINITIALIZE;
    void* current = nullptr;
    if (aclError e = state->runtime.GetCurrentContext(&current)) return e;
    *context = current;
    return ACL_SUCCESS;
  });
}

}  // extern "C"
