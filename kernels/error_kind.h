// Error categories that the C ABI reports as distinct aclError codes. Lower
// layers tag an absl::Status with a kind; bindings/c maps kinds (and otherwise
// status codes) to aclError once.
#ifndef ACLDUMP_KERNELS_ERROR_KIND_H_
#define ACLDUMP_KERNELS_ERROR_KIND_H_

#include <optional>

#include "absl/status/status.h"

namespace acldump {

enum class ErrorKind : int {
  kInvalidFile = 1,    // a config/model file is missing or unreadable
  kParseFile,          // a config file is not valid JSON
  kInvalidDumpConfig,  // a dump config breaks a rule
  kWriteFile,          // dump data could not be written
  kDumpNotRun,         // SetDump/FinalizeDump without InitDump
  kDumpAlreadyRun,     // InitDump while aclInit's dump config is active
  kRepeatInitialize,
  kUninitialized,
  kRepeatFinalize,
  kInvalidModelId,
  kParseModel,        // the model file is corrupt or inconsistent
  kReadModelFailure,  // the model file cannot be read
  kModelSizeInvalid,
  kModelInputNotMatch,
  kModelOutputNotMatch,
  kOpTypeNotMatch,
  kOpInputNotMatch,
  kOpOutputNotMatch,
  kOpAttrNotMatch,
  kOpNotFound,
  kUnsupportedDataType,
};

// Returns `status` (which must not be OK) tagged with `kind`.
absl::Status WithKind(absl::Status status, ErrorKind kind);
std::optional<ErrorKind> KindOf(const absl::Status& status);

}  // namespace acldump

#endif  // ACLDUMP_KERNELS_ERROR_KIND_H_
