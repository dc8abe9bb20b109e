// Internal helpers of the C ABI: the recent-error message, status -> aclError
// conversion, the catch-everything guard around every entry point, and
// live-handle registries that make use of a destroyed or foreign handle an
// error instead of a crash.
#ifndef ACLDUMP_BINDINGS_C_API_SUPPORT_H_
#define ACLDUMP_BINDINGS_C_API_SUPPORT_H_

#include <cstdint>
#include <cstring>
#include <exception>
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
// Sets the recent error and returns `code`. Never throws (without memory for
// the message, the message is left empty).
aclError Fail(aclError code, std::string_view message) noexcept;
// Converts a failed status (tagged ErrorKind first, then the status code;
// `fallback` for an untagged error of an unexpected code) and records its
// message.
aclError FailWith(const absl::Status& status, aclError fallback);
// ACL_SUCCESS for an OK status, else FailWith(status, fallback).
inline aclError Translate(const absl::Status& status,
                          aclError fallback = ACL_ERROR_FAILURE) {
  return status.ok() ? ACL_SUCCESS : FailWith(status, fallback);
}
// As FailWith for aclInit, where text that is not JSON is a parse error
// (ACL_ERROR_PARSE_FILE) rather than an invalid dump config, as in the SDK;
// `fallback` ACL_ERROR_INVALID_FILE.
aclError FailAclInit(const absl::Status& status);
// Fails with ACL_ERROR_INVALID_PARAM: "<name> is NULL".
aclError NullArgument(std::string_view name);
const char* RecentError();

// Records the exception that escaped an entry point and returns its code:
// ACL_ERROR_BAD_ALLOC for std::bad_alloc, ACL_ERROR_INTERNAL_ERROR otherwise.
aclError FailFromException(std::exception_ptr error) noexcept;

// Runs `body` (returning T), turning any escaping exception into `on_error`
// with the exception recorded as the recent error. No exception crosses the C
// boundary.
template <typename T, typename Body>
T Guarded(T on_error, Body&& body) noexcept {
  try {
    ClearError();
    return body();
  } catch (...) {
    FailFromException(std::current_exception());
  }
  return on_error;
}

// As Guarded for a body returning an aclError: an escaping std::bad_alloc is
// ACL_ERROR_BAD_ALLOC, anything else ACL_ERROR_INTERNAL_ERROR.
template <typename Body>
aclError GuardedCall(Body&& body) noexcept {
  try {
    ClearError();
    return body();
  } catch (...) {
    return FailFromException(std::current_exception());
  }
}

// The value a C caller passed for an enum parameter, read without loading the
// enum (C allows any int there; in C++ an out-of-range enum value may not be
// loaded).
template <typename Enum>
int32_t RawEnum(const Enum& value) {
  static_assert(sizeof(Enum) == sizeof(int32_t));
  int32_t raw;
  std::memcpy(&raw, &value, sizeof(raw));
  return raw;
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
