// RETURN_IF_ERROR / ASSIGN_OR_RETURN for absl::Status(Or); abseil 20220623
// ships neither.
#ifndef ACLDUMP_BASE_STATUS_MACROS_H_
#define ACLDUMP_BASE_STATUS_MACROS_H_

#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/cord.h"
#include "base/strings.h"

#define ACLDUMP_CONCAT_INNER(a, b) a##b
#define ACLDUMP_CONCAT(a, b) ACLDUMP_CONCAT_INNER(a, b)

#define RETURN_IF_ERROR(expr)                          \
  do {                                                 \
    ::absl::Status acldump_status_ = (expr);           \
    if (!acldump_status_.ok()) return acldump_status_; \
  } while (0)

#define ACLDUMP_ASSIGN_OR_RETURN_IMPL(var, lhs, expr) \
  auto var = (expr);                                  \
  if (!var.ok()) return std::move(var).status();      \
  lhs = std::move(var).value()

#define ASSIGN_OR_RETURN(lhs, expr)                                         \
  ACLDUMP_ASSIGN_OR_RETURN_IMPL(ACLDUMP_CONCAT(acldump_or_, __LINE__), lhs, \
                                expr)

namespace acldump {

// Prefixes the message of a failed status with context, keeping its code and
// payloads (the ErrorKind an API maps to its code).
inline absl::Status Annotate(const absl::Status& status,
                             std::string_view context) {
  if (status.ok()) return status;
  absl::Status out(status.code(), StrCat(context, ": ", status.message()));
  status.ForEachPayload([&](absl::string_view url, const absl::Cord& payload) {
    out.SetPayload(url, payload);
  });
  return out;
}

}  // namespace acldump

#endif  // ACLDUMP_BASE_STATUS_MACROS_H_
