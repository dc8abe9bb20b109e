#include "api_support.h"

#include "base/error_kind.h"

namespace acldump::capi {
namespace {

thread_local std::string recent_error;

aclError FromKind(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kInvalidFile:
      return ACL_ERROR_INVALID_FILE;
    case ErrorKind::kParseFile:
      return ACL_ERROR_PARSE_FILE;
    case ErrorKind::kInvalidDumpConfig:
      return ACL_ERROR_INVALID_DUMP_CONFIG;
    case ErrorKind::kWriteFile:
      return ACL_ERROR_WRITE_FILE;
    case ErrorKind::kParseModel:
      return ACL_ERROR_PARSE_MODEL;
    case ErrorKind::kReadModelFailure:
      return ACL_ERROR_READ_MODEL_FAILURE;
    case ErrorKind::kModelSizeInvalid:
      return ACL_ERROR_MODEL_SIZE_INVALID;
    case ErrorKind::kModelInputNotMatch:
      return ACL_ERROR_MODEL_INPUT_NOT_MATCH;
    case ErrorKind::kModelOutputNotMatch:
      return ACL_ERROR_MODEL_OUTPUT_NOT_MATCH;
    case ErrorKind::kOpInputNotMatch:
      return ACL_ERROR_OP_INPUT_NOT_MATCH;
    case ErrorKind::kOpOutputNotMatch:
      return ACL_ERROR_OP_OUTPUT_NOT_MATCH;
    case ErrorKind::kOpAttrNotMatch:
      return ACL_ERROR_OP_ATTR_NOT_MATCH;
    case ErrorKind::kOpNotFound:
      return ACL_ERROR_OP_NOT_FOUND;
    case ErrorKind::kUnsupportedDataType:
      return ACL_ERROR_UNSUPPORTED_DATA_TYPE;
    case ErrorKind::kOutOfMemory:
      return ACL_ERROR_BAD_ALLOC;
    case ErrorKind::kInvalidJson:
      return ACL_ERROR_INVALID_DUMP_CONFIG;
    case ErrorKind::kFeatureUnsupported:
      return ACL_ERROR_FEATURE_UNSUPPORTED;
    case ErrorKind::kGearInvalid:
      return ACL_ERROR_GE_DYNAMIC_BATCH_SIZE_INVALID;
    case ErrorKind::kDumpNotInitialized:
      return ACL_ERROR_DUMP_NOT_RUN;
    case ErrorKind::kDumpAlreadyInitialized:
      return ACL_ERROR_REPEAT_INITIALIZE;
    case ErrorKind::kNotInitialized:
      return ACL_ERROR_UNINITIALIZE;
    case ErrorKind::kInvalidParam:
      return ACL_ERROR_INVALID_PARAM;
    case ErrorKind::kRtParamInvalid:
      return ACL_ERROR_RT_PARAM_INVALID;
    case ErrorKind::kRtInvalidDeviceId:
      return ACL_ERROR_RT_INVALID_DEVICEID;
    case ErrorKind::kRtContextNull:
      return ACL_ERROR_RT_CONTEXT_NULL;
    case ErrorKind::kRtStreamContext:
      return ACL_ERROR_RT_STREAM_CONTEXT;
    case ErrorKind::kRtStreamSubscribe:
      return ACL_ERROR_RT_STREAM_SUBSCRIBE;
    case ErrorKind::kRtThreadSubscribe:
      return ACL_ERROR_RT_THREAD_SUBSCRIBE;
    case ErrorKind::kRtReportTimeout:
      return ACL_ERROR_RT_REPORT_TIMEOUT;
    case ErrorKind::kRtStreamSyncTimeout:
      return ACL_ERROR_RT_STREAM_SYNC_TIMEOUT;
    case ErrorKind::kRtMemoryFree:
      return ACL_ERROR_RT_MEMORY_FREE;
    case ErrorKind::kModelParamInvalid:
      return ACL_ERROR_GE_PARAM_INVALID;
    case ErrorKind::kFailure:
      return ACL_ERROR_FAILURE;
  }
  return ACL_ERROR_FAILURE;
}

}  // namespace

void ClearError() { recent_error.clear(); }

aclError Fail(aclError code, std::string_view message) noexcept {
  try {
    recent_error.assign(message.data(), message.size());
  } catch (...) {
    recent_error.clear();  // no memory for the message
  }
  return code;
}

aclError FailWith(const absl::Status& status, aclError fallback) {
  aclError code = fallback;
  if (std::optional<ErrorKind> kind = KindOf(status)) {
    code = FromKind(*kind);
  } else if (status.code() == absl::StatusCode::kResourceExhausted) {
    code = ACL_ERROR_STORAGE_OVER_LIMIT;
  } else if (status.code() == absl::StatusCode::kInternal) {
    code = ACL_ERROR_INTERNAL_ERROR;
  }
  const absl::string_view message = status.message();
  return Fail(code, std::string_view(message.data(), message.size()));
}

aclError FailAclInit(const absl::Status& status) {
  if (KindOf(status) == ErrorKind::kInvalidJson) {
    const absl::string_view message = status.message();
    return Fail(ACL_ERROR_PARSE_FILE,
                std::string_view(message.data(), message.size()));
  }
  return FailWith(status, ACL_ERROR_INVALID_FILE);
}

aclError NullArgument(std::string_view name) {
  return Fail(ACL_ERROR_INVALID_PARAM, std::string(name) + " is NULL");
}

aclError FailFromException(std::exception_ptr error) noexcept {
  try {
    std::rethrow_exception(error);
  } catch (const std::bad_alloc&) {
    return Fail(ACL_ERROR_BAD_ALLOC, "out of memory");
  } catch (const std::exception& e) {
    Fail(ACL_ERROR_INTERNAL_ERROR, "internal error");
    try {
      recent_error.append(": ").append(e.what());
    } catch (...) {
    }
  } catch (...) {
    Fail(ACL_ERROR_INTERNAL_ERROR, "internal error: unknown exception");
  }
  return ACL_ERROR_INTERNAL_ERROR;
}

const char* RecentError() { return recent_error.c_str(); }

}  // namespace acldump::capi
