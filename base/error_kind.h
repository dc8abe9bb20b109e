// Error categories that mean something below the C ABI. A layer tags an
// absl::Status with a kind where the distinction matters to a caller (the C
// ABI turns kinds into distinct aclError codes once); everything else travels
// as a plain status code.
#ifndef ACLDUMP_BASE_ERROR_KIND_H_
#define ACLDUMP_BASE_ERROR_KIND_H_

#include <optional>
#include <string_view>

#include "absl/status/status.h"

namespace acldump {

enum class ErrorKind : int {
  kInvalidFile = 1,      // a config/model/input file is missing or unreadable
  kParseFile,            // a config file is not valid JSON
  kInvalidDumpConfig,    // a dump config breaks a rule
  kWriteFile,            // dump data could not be written
  kParseModel,           // the model file is corrupt or inconsistent
  kReadModelFailure,     // the model file cannot be read
  kModelSizeInvalid,     // a model (or its memory plan) is too large
  kModelInputNotMatch,   // execute: inputs do not fit the model
  kModelOutputNotMatch,  // execute: outputs do not fit the model
  kOpInputNotMatch,      // single op: inputs do not fit the op
  kOpOutputNotMatch,
  kOpAttrNotMatch,
  kOpNotFound,
  kUnsupportedDataType,
  kOutOfMemory,  // an allocation failed (std::bad_alloc or a memory limit)
  // A config file's text is not JSON. Kept apart from kParseFile because the
  // SDK reports it differently by entry point (aclmdlSetDump: invalid dump
  // config; aclInit: parse error).
  kInvalidJson,
  kFeatureUnsupported,  // valid for the NPU SDK, not available on this runtime
  kGearInvalid,         // a dynamic model's gear input names no gear
  // Misuse of the dump lifecycle (InitDump / SetDump / FinalizeDump).
  kDumpNotInitialized,      // SetDump/FinalizeDump without InitDump
  kDumpAlreadyInitialized,  // InitDump twice
  // The host runtime (devices, contexts, streams, events, memory).
  kNotInitialized,       // the runtime is shut down or was never started
  kInvalidParam,         // an argument is out of range (API level)
  kRtParamInvalid,       // a runtime handle or argument is not valid
  kRtInvalidDeviceId,    // a device id outside the supported range
  kRtContextNull,        // no (live) context where one is needed
  kRtStreamContext,      // a stream of another context than the current
  kRtStreamSubscribe,    // a stream's report subscription is wrong
  kRtThreadSubscribe,    // a thread serves no (or another) subscription
  kRtReportTimeout,      // no callback report arrived in time
  kRtStreamSyncTimeout,  // a stream's work did not finish in time
  kRtMemoryFree,         // memory that cannot be freed (unknown, in use)
  kModelParamInvalid,    // model-level argument (caller memory) is wrong
  kFailure,              // a failure with no more specific kind
};
// KindOf accepts kinds up to this one.
inline constexpr ErrorKind kLastErrorKind = ErrorKind::kFailure;

// A status of `code` with `message`, tagged with `kind`.
absl::Status KindError(
    ErrorKind kind, std::string_view message,
    absl::StatusCode code = absl::StatusCode::kFailedPrecondition);

// Returns `status` (which must not be OK) tagged with `kind`.
absl::Status WithKind(absl::Status status, ErrorKind kind);
std::optional<ErrorKind> KindOf(const absl::Status& status);

}  // namespace acldump

#endif  // ACLDUMP_BASE_ERROR_KIND_H_
