// Internal helpers of the C ABI: the recent-error message, status -> aclError
// conversion, the catch-everything guard around every entry point, and
// live-handle registries that make use of a destroyed or foreign handle an
// error instead of a crash.
#ifndef ACLDUMP_BINDINGS_C_API_SUPPORT_H_
#define ACLDUMP_BINDINGS_C_API_SUPPORT_H_

#include <mutex>
#include <new>
#include <string>
#include <string_view>
#include <unordered_set>

#include "absl/status/status.h"
#include "acl/acl_base.h"

namespace acldump::capi {

// Clears the calling thread's recent error (every entry point starts with
// this).
void ClearError();
// Sets the recent error and returns `code`.
aclError Fail(aclError code, std::string_view message);
// Converts a failed status (tagged ErrorKind first, then the status code;
// `fallback` for an untagged error of an unexpected code) and records its
// message.
aclError FailWith(const absl::Status& status, aclError fallback);
const char* RecentError();

// Runs `body` (returning T), turning any escaping exception into `on_error`
// with ACL_ERROR_BAD_ALLOC / ACL_ERROR_INTERNAL_ERROR recorded. No exception
// crosses the C boundary.
template <typename T, typename Body>
T Guarded(T on_error, Body&& body) noexcept {
  try {
    ClearError();
    return body();
  } catch (const std::bad_alloc&) {
    Fail(ACL_ERROR_BAD_ALLOC, "out of memory");
  } catch (const std::exception& e) {
    Fail(ACL_ERROR_INTERNAL_ERROR, std::string("internal error: ") + e.what());
  } catch (...) {
    Fail(ACL_ERROR_INTERNAL_ERROR, "internal error: unknown exception");
  }
  return on_error;
}

template <typename Body>
aclError GuardedCall(Body&& body) noexcept {
  return Guarded<aclError>(ACL_ERROR_INTERNAL_ERROR, std::forward<Body>(body));
}

// Pointers handed out to C callers and not yet destroyed.
template <typename T>
class LiveHandles {
 public:
  void Add(const T* handle) {
    std::lock_guard<std::mutex> lock(mutex_);
    handles_.insert(handle);
  }
  bool Contains(const T* handle) const {
    std::lock_guard<std::mutex> lock(mutex_);
    return handles_.count(handle) > 0;
  }
  // False when the handle was not live (never created, or destroyed already).
  bool Remove(const T* handle) {
    std::lock_guard<std::mutex> lock(mutex_);
    return handles_.erase(handle) > 0;
  }

 private:
  mutable std::mutex mutex_;
  std::unordered_set<const T*> handles_;
};

}  // namespace acldump::capi

#endif  // ACLDUMP_BINDINGS_C_API_SUPPORT_H_
