// Device memory (host memory here), host staging memory, copies and memset
// (acl_rt.h).
#include <unistd.h>

#include <cstring>

#include "acl/acl.h"
#include "api_support.h"
#include "base/strings.h"
#include "library.h"
#include "runtime/host/host_runtime.h"
#include "runtime/host/memory_registry.h"

using namespace acldump;        // NOLINT: the entry points are thin adapters
using namespace acldump::capi;  // NOLINT
using namespace acldump::host;  // NOLINT

namespace {

constexpr size_t kMaxAllocation = size_t{1} << 46;

aclError Allocate(void** pointer, size_t size, MemoryKind kind,
                  const char* name) {
  if (pointer == nullptr) return NullArgument(name);
  if (size == 0) return Fail(ACL_ERROR_INVALID_PARAM, "size must be > 0");
  void* memory =
      size <= kMaxAllocation ? Memory().Allocate(size, kind) : nullptr;
  if (memory == nullptr) {
    return Fail(ACL_ERROR_BAD_ALLOC,
                StrCat("cannot allocate ", size, " bytes"));
  }
  *pointer = memory;
  return ACL_SUCCESS;
}

aclError Release(void* pointer, MemoryKind kind, const char* name) {
  if (pointer == nullptr) return NullArgument(name);
  const bool device = kind == MemoryKind::kDevice;
  switch (Memory().Free(pointer, kind)) {
    case MemoryRegistry::FreeResult::kFreed:
      return ACL_SUCCESS;
    case MemoryRegistry::FreeResult::kInUse:
      return Fail(ACL_ERROR_RT_MEMORY_FREE,
                  StrCat(name,
                         " is still in use by a loaded model or by work "
                         "queued on a stream: unload the model or "
                         "synchronize the stream first"));
    case MemoryRegistry::FreeResult::kUnknown:
      break;
  }
  const MemoryKind other = device ? MemoryKind::kHost : MemoryKind::kDevice;
  if (device && Memory().Holds(pointer, MemoryKind::kDevice)) {
    return Fail(ACL_ERROR_RT_PARAM_INVALID,
                StrCat(name,
                       " points inside device memory but not at the start of "
                       "an aclrtMalloc allocation (memory from acldvppMalloc "
                       "is freed with acldvppFree)"));
  }
  return Fail(ACL_ERROR_RT_PARAM_INVALID,
              StrCat(name, " was not returned by ",
                     device ? "aclrtMalloc" : "aclrtMallocHost",
                     Memory().Holds(pointer, other)
                         ? StrCat(" (it is ",
                                  device ? "aclrtMallocHost" : "aclrtMalloc",
                                  " memory: free it with ",
                                  device ? "aclrtFreeHost" : "aclrtFree", ")")
                         : std::string(" or was freed already")));
}

// One side of a copy: device memory must hold the whole range, host memory
// must not be device memory (and an aclrtMallocHost range must fit).
aclError CheckSide(const char* name, const void* pointer, size_t size,
                   bool device) {
  if (device) {
    if (Memory().Contains(pointer, size, MemoryKind::kDevice)) {
      return ACL_SUCCESS;
    }
    return Fail(ACL_ERROR_RT_PARAM_INVALID,
                StrCat(name, " [", pointer, ", +", size,
                       ") is not inside one aclrtMalloc allocation, but the "
                       "copy kind says it is device memory"));
  }
  if (Memory().Holds(pointer, MemoryKind::kDevice)) {
    return Fail(ACL_ERROR_RT_PARAM_INVALID,
                StrCat(name,
                       " is device memory (aclrtMalloc), but the copy "
                       "kind says it is host memory"));
  }
  if (Memory().Holds(pointer, MemoryKind::kHost) &&
      !Memory().Contains(pointer, size, MemoryKind::kHost)) {
    return Fail(ACL_ERROR_RT_PARAM_INVALID,
                StrCat(name, " [", pointer, ", +", size,
                       ") runs past the end of its aclrtMallocHost "
                       "allocation"));
  }
  return ACL_SUCCESS;
}

// Any side that is acldump's memory must hold the whole range.
aclError CheckAnySide(const char* name, const void* pointer, size_t size) {
  for (MemoryKind kind : {MemoryKind::kDevice, MemoryKind::kHost}) {
    if (Memory().Holds(pointer, kind) &&
        !Memory().Contains(pointer, size, kind)) {
      return Fail(ACL_ERROR_RT_PARAM_INVALID,
                  StrCat(name, " [", pointer, ", +", size,
                         ") runs past the end of its allocation"));
    }
  }
  return ACL_SUCCESS;
}

aclError CheckCopy(void* dst, size_t dest_max, const void* src, size_t count,
                   int32_t kind) {
  if (dst == nullptr) return NullArgument("dst");
  if (src == nullptr) return NullArgument("src");
  if (kind < ACL_MEMCPY_HOST_TO_HOST ||
      kind > ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE) {
    return Fail(ACL_ERROR_INVALID_PARAM,
                StrCat("copy kind ", kind,
                       " is not supported (ACL_MEMCPY_HOST_TO_HOST .. "
                       "ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE)"));
  }
  if (dest_max == 0 || count == 0) {
    return Fail(ACL_ERROR_RT_PARAM_INVALID, "destMax and count must be > 0");
  }
  if (count > dest_max) {
    return Fail(ACL_ERROR_RT_PARAM_INVALID,
                StrCat("count ", count, " exceeds destMax ", dest_max));
  }
  if (kind == ACL_MEMCPY_DEFAULT) {
    if (aclError e = CheckAnySide("dst", dst, count)) return e;
    return CheckAnySide("src", src, count);
  }
  const bool dst_device = kind == ACL_MEMCPY_HOST_TO_DEVICE ||
                          kind == ACL_MEMCPY_DEVICE_TO_DEVICE ||
                          kind == ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE;
  const bool src_device =
      kind == ACL_MEMCPY_DEVICE_TO_HOST || kind == ACL_MEMCPY_DEVICE_TO_DEVICE;
  if (aclError e = CheckSide("dst", dst, count, dst_device)) return e;
  return CheckSide("src", src, count, src_device);
}

aclError CheckMemset(void* pointer, size_t max_count, size_t count) {
  if (pointer == nullptr) return NullArgument("devPtr");
  if (count > max_count) {
    return Fail(ACL_ERROR_RT_PARAM_INVALID,
                StrCat("count ", count, " exceeds maxCount ", max_count));
  }
  if (Memory().Contains(pointer, count, MemoryKind::kDevice) ||
      Memory().Contains(pointer, count, MemoryKind::kHost)) {
    return ACL_SUCCESS;
  }
  return Fail(ACL_ERROR_RT_PARAM_INVALID,
              StrCat("devPtr [", pointer, ", +", count,
                     ") is not inside one allocation of aclrtMalloc or "
                     "aclrtMallocHost"));
}

// The running state with a current context in the calling thread.
aclError RequireContext(std::shared_ptr<State>* state) {
  *state = Acquire();
  if (!*state) return ACL_ERROR_UNINITIALIZE;
  return Translate((*state)->runtime.RequireCurrent().status());
}

aclError Enqueue(State& state, aclrtStream stream,
                 std::vector<const void*> used, Stream::Work work) {
  absl::StatusOr<std::shared_ptr<Stream>> resolved =
      state.runtime.ResolveStream(stream);
  if (!resolved.ok()) return Translate(resolved.status());
  auto pins = Memory().Pin(used);
  absl::Status queued =
      (*resolved)->Enqueue([pins, work = std::move(work)] { return work(); });
  return queued.ok() ? ACL_SUCCESS
                     : FailWith(queued, ACL_ERROR_RT_PARAM_INVALID);
}

}  // namespace

extern "C" {

aclError aclrtMalloc(void** devPtr, size_t size, aclrtMemMallocPolicy policy) {
  (void)policy;  // every policy gets the same host memory
  return GuardedCall([&] {
    if (devPtr == nullptr) return NullArgument("devPtr");
    if (!Acquire()) return ACL_ERROR_UNINITIALIZE;
    return Allocate(devPtr, size, MemoryKind::kDevice, "devPtr");
  });
}

aclError aclrtFree(void* devPtr) {
  return GuardedCall(
      [&] { return Release(devPtr, MemoryKind::kDevice, "devPtr"); });
}

aclError aclrtMallocHost(void** hostPtr, size_t size) {
  return GuardedCall([&] {
    if (hostPtr == nullptr) return NullArgument("hostPtr");
    if (size == 0) return Fail(ACL_ERROR_INVALID_PARAM, "size must be > 0");
    std::shared_ptr<State> state;
    if (aclError e = RequireContext(&state)) return e;
    return Allocate(hostPtr, size, MemoryKind::kHost, "hostPtr");
  });
}

aclError aclrtFreeHost(void* hostPtr) {
  return GuardedCall(
      [&] { return Release(hostPtr, MemoryKind::kHost, "hostPtr"); });
}

aclError aclrtMemcpy(void* dst, size_t destMax, const void* src, size_t count,
                     aclrtMemcpyKind kind) {
  return GuardedCall([&] {
    if (dst == nullptr) return NullArgument("dst");
    if (src == nullptr) return NullArgument("src");
    std::shared_ptr<State> state;
    if (aclError e = RequireContext(&state)) return e;
    if (aclError e = CheckCopy(dst, destMax, src, count, RawEnum(kind)))
      return e;
    if (dst != src) std::memmove(dst, src, count);
    return ACL_SUCCESS;
  });
}

aclError aclrtMemcpyAsync(void* dst, size_t destMax, const void* src,
                          size_t count, aclrtMemcpyKind kind,
                          aclrtStream stream) {
  return GuardedCall([&] {
    if (dst == nullptr) return NullArgument("dst");
    if (src == nullptr) return NullArgument("src");
    std::shared_ptr<State> state;
    if (aclError e = RequireContext(&state)) return e;
    if (aclError e = CheckCopy(dst, destMax, src, count, RawEnum(kind)))
      return e;
    return Enqueue(*state, stream, {dst, src}, [dst, src, count] {
      if (dst != src) std::memmove(dst, src, count);
      return absl::OkStatus();
    });
  });
}

aclError aclrtMemset(void* devPtr, size_t maxCount, int32_t value,
                     size_t count) {
  return GuardedCall([&] {
    if (devPtr == nullptr) return NullArgument("devPtr");
    std::shared_ptr<State> state;
    if (aclError e = RequireContext(&state)) return e;
    if (aclError e = CheckMemset(devPtr, maxCount, count)) return e;
    std::memset(devPtr, static_cast<unsigned char>(value), count);
    return ACL_SUCCESS;
  });
}

aclError aclrtMemsetAsync(void* devPtr, size_t maxCount, int32_t value,
                          size_t count, aclrtStream stream) {
  return GuardedCall([&] {
    if (devPtr == nullptr) return NullArgument("devPtr");
    std::shared_ptr<State> state;
    if (aclError e = RequireContext(&state)) return e;
    if (aclError e = CheckMemset(devPtr, maxCount, count)) return e;
    return Enqueue(*state, stream, {devPtr}, [devPtr, value, count] {
      std::memset(devPtr, static_cast<unsigned char>(value), count);
      return absl::OkStatus();
    });
  });
}

aclError aclrtGetMemInfo(aclrtMemAttr attr, size_t* free, size_t* total) {
  return GuardedCall([&] {
    if (free == nullptr) return NullArgument("free");
    if (total == nullptr) return NullArgument("total");
    const int32_t raw_attr = RawEnum(attr);
    if (raw_attr < ACL_DDR_MEM || raw_attr > ACL_MEM_P2P_HUGE1G) {
      return Fail(ACL_ERROR_INVALID_PARAM, StrCat("memory attribute ", raw_attr,
                                                  " is not an aclrtMemAttr"));
    }
    std::shared_ptr<State> state;
    if (aclError e = RequireContext(&state)) return e;
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    const size_t pages = static_cast<size_t>(sysconf(_SC_PHYS_PAGES));
    const size_t available = static_cast<size_t>(sysconf(_SC_AVPHYS_PAGES));
    *total = pages * page;
    *free = available * page;
    return ACL_SUCCESS;
  });
}

}  // extern "C"
