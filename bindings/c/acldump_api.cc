// The acl_dump.h calls: dump data to an application callback, the dump paths
// in effect, the application's tensors beside an exception dump.
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "acl/acl_dump.h"
#include "acl_dtypes.h"
#include "api_support.h"
#include "base/strings.h"
#include "dump/chunk_delivery.h"
#include "dump/observers.h"
#include "dump/op_args_recorder.h"
#include "library.h"

using namespace acldump;        // NOLINT: the entry points are thin adapters
using namespace acldump::capi;  // NOLINT

namespace {

static_assert(dump::ChunkRouter::kMaxFileName + 1 ==
              ACL_DUMP_MAX_FILE_PATH_LENGTH);

using MessageCallback = int32_t (*)(const acldumpChunk*, int32_t);

// Copies each chunk into an acldumpChunk (the header, then the bytes) and
// hands it to the application's function.
class CallbackConsumer final : public dump::ChunkConsumer {
 public:
  explicit CallbackConsumer(MessageCallback callback) : callback_(callback) {}

  absl::Status Consume(const dump::DumpChunk& chunk) override {
    // One buffer per writer thread, kept: no allocation per chunk.
    thread_local std::vector<std::byte> storage;
    const size_t length = sizeof(acldumpChunk) + chunk.size;
    if (storage.size() < length) storage.resize(length);
    auto* message = reinterpret_cast<acldumpChunk*>(storage.data());
    std::memset(message, 0, sizeof(acldumpChunk));
    std::memcpy(message->fileName, chunk.file_name.data(),
                chunk.file_name.size());
    message->bufLen = static_cast<uint32_t>(chunk.size);
    message->isLastChunk = chunk.last ? 1 : 0;
    message->offset = chunk.offset;
    message->flag = 0;
    // dataBuf starts before the end of the padded struct.
    uint8_t* out = message->dataBuf;
    for (std::string_view piece : chunk.pieces) {
      std::memcpy(out, piece.data(), piece.size());
      out += piece.size();
    }
    const int32_t result = callback_(message, static_cast<int32_t>(length));
    if (result != 0) {
      return absl::AbortedError(StrCat("the callback returned ", result,
                                       " for '", chunk.file_name, "'"));
    }
    return absl::OkStatus();
  }

 private:
  const MessageCallback callback_;
};

// Enum values from C callers are read as integers: any int may arrive.
bool ExceptionType(int32_t type) {
  return type == AIC_ERR_BRIEF_DUMP || type == AIC_ERR_NORM_DUMP ||
         type == AIC_ERR_DETAIL_DUMP;
}

// {root}/extra-info/data-dump[/device], created, as an absolute path without
// a trailing slash.
absl::StatusOr<std::string> ExceptionFolder(const std::string& root,
                                            const std::string& below) {
  std::string folder = StrCat(root, "/extra-info/data-dump");
  if (!below.empty()) StrAppend(folder, "/", below);
  std::error_code error;
  std::filesystem::create_directories(folder, error);
  if (error) {
    return absl::PermissionDeniedError(
        StrCat("cannot create the exception dump folder '", folder,
               "': ", error.message()));
  }
  return folder;
}

aclError ExceptionDumpNotEnabled(const char* call) {
  return Fail(ACL_ERROR_FAILURE,
              StrCat(call,
                     " needs exception dump to be on: a dump config with "
                     "dump_scene aic_err_brief_dump, aic_err_norm_dump or "
                     "lite_exception, or ASCEND_DUMP_SCENE / NPU_COLLECT_PATH "
                     "set before aclInit"));
}

absl::Status ConvertTensor(const acldumpTensorInfo& in, size_t index,
                           dump::CustomTensor& out) {
  const std::string name = StrCat("tensors[", index, "]");
  if (in.shapeNum > ACL_DUMP_MAX_SHAPE_NUM ||
      in.originShapeNum > ACL_DUMP_MAX_SHAPE_NUM) {
    return absl::InvalidArgumentError(
        StrCat(name, ": shapeNum ", in.shapeNum, " / originShapeNum ",
               in.originShapeNum, " exceed ACL_DUMP_MAX_SHAPE_NUM (",
               ACL_DUMP_MAX_SHAPE_NUM, ")"));
  }
  switch (RawEnum(in.type)) {
    case ACL_DUMP_TENSOR_INPUT:
      out.kind = dump::CustomTensor::Kind::kInput;
      break;
    case ACL_DUMP_TENSOR_OUTPUT:
      out.kind = dump::CustomTensor::Kind::kOutput;
      break;
    case ACL_DUMP_TENSOR_WORKSPACE:
      out.kind = dump::CustomTensor::Kind::kWorkspace;
      break;
    default:
      return absl::InvalidArgumentError(
          StrCat(name, ".type ", RawEnum(in.type),
                 " is not ACL_DUMP_TENSOR_INPUT/OUTPUT/WORKSPACE"));
  }
  if (RawEnum(in.addrType) != ACL_DUMP_ADDR_RAW) {
    return absl::InvalidArgumentError(
        StrCat(name, ".addrType ", RawEnum(in.addrType),
               " is not supported: use ACL_DUMP_ADDR_RAW"));
  }
  if (RawEnum(in.placement) != ACL_DUMP_PLACEMENT_DEVICE) {
    return absl::InvalidArgumentError(
        StrCat(name, ".placement ", RawEnum(in.placement),
               " is not supported: use ACL_DUMP_PLACEMENT_DEVICE"));
  }
  if (in.tensorAddr == nullptr) {
    return absl::InvalidArgumentError(StrCat(name, ".tensorAddr is NULL"));
  }
  if (in.tensorSize == 0) {
    return absl::InvalidArgumentError(
        StrCat(name, ".tensorSize must be greater than 0"));
  }
  if (out.kind != dump::CustomTensor::Kind::kWorkspace) {
    std::optional<DType> dtype =
        FromAclDataType(static_cast<aclDataType>(in.dataType));
    if (!dtype) {
      return absl::InvalidArgumentError(
          StrCat(name, ".dataType ", in.dataType,
                 " is not a data type this runtime has tensors of"));
    }
    out.dtype = *dtype;
  }
  out.format = in.format;
  out.shape.assign(in.shape, in.shape + in.shapeNum);
  out.original_shape.assign(in.originShape, in.originShape + in.originShapeNum);
  out.data = in.tensorAddr;
  out.bytes = in.tensorSize;
  return absl::OkStatus();
}

// Where the calling thread's acldumpGetPath strings live.
std::string& PathSlot(int32_t type) {
  thread_local std::string exception_path, data_path;
  return ExceptionType(type) ? exception_path : data_path;
}

}  // namespace

extern "C" {

aclError acldumpRegCallback(
    int32_t (*const messageCallback)(const acldumpChunk*, int32_t),
    int32_t flag) {
  return GuardedCall([&] {
    if (messageCallback == nullptr) {
      return Fail(ACL_ERROR_FAILURE, "messageCallback is NULL");
    }
    if (flag != 0) {
      return Fail(ACL_ERROR_FAILURE,
                  StrCat("flag is ", flag, ": it is reserved and must be 0"));
    }
    absl::Status status = dump::GlobalChunkRouter().Register(
        std::make_shared<CallbackConsumer>(messageCallback));
    if (absl::IsAlreadyExists(status)) {
      // The SDK keeps the first registration and reports success.
      std::fprintf(stderr,
                   "[acldump] warning: acldumpRegCallback: %s; this "
                   "registration has no effect\n",
                   std::string(status.message()).c_str());
      return ACL_SUCCESS;
    }
    return status.ok() ? ACL_SUCCESS : FailWith(status, ACL_ERROR_FAILURE);
  });
}

void acldumpUnregCallback(void) {
  Guarded(0, [] {
    ClearError();
    dump::GlobalChunkRouter().Unregister();
    return 0;
  });
}

const char* acldumpGetPath(acldumpType dumpType) {
  return Guarded<const char*>(nullptr, [&]() -> const char* {
    ClearError();
    const int32_t type = RawEnum(dumpType);
    if (!ExceptionType(type) && type != DATA_DUMP && type != OVERFLOW_DUMP) {
      Fail(ACL_ERROR_INVALID_PARAM,
           StrCat("dumpType ", type, " is not an acldumpType"));
      return nullptr;
    }
    std::shared_ptr<State> state = Acquire();
    if (!state) return nullptr;
    std::string& slot = PathSlot(type);
    if (ExceptionType(type)) {
      std::shared_ptr<dump::DumpSession> session =
          state->dump.exception_session();
      if (!session) {
        ExceptionDumpNotEnabled("acldumpGetPath");
        return nullptr;
      }
      absl::StatusOr<std::string> folder = ExceptionFolder(session->root(), "");
      if (!folder.ok()) {
        FailWith(folder.status(), ACL_ERROR_FAILURE);
        return nullptr;
      }
      slot = *std::move(folder);
      return slot.c_str();
    }
    std::shared_ptr<dump::DumpSession> session = state->dump.current_session();
    if (!session || session->config().scene == dump::DumpScene::kException ||
        session->closed()) {
      Fail(ACL_ERROR_FAILURE,
           "no model, single-operator or overflow dump is configured "
           "(aclmdlSetDump, or aclInit's dump section)");
      return nullptr;
    }
    slot = session->root();
    return slot.c_str();
  });
}

aclError acldumpGetExceptionInfoPath(char* path, size_t maxLen) {
  return GuardedCall([&] {
    if (path == nullptr) return NullArgument("path");
    if (maxLen <= 1) {
      return Fail(ACL_ERROR_INVALID_PARAM,
                  StrCat("maxLen is ", maxLen, ": it must be greater than 1"));
    }
    std::shared_ptr<State> state = Acquire();
    if (!state) return ACL_ERROR_UNINITIALIZE;
    std::shared_ptr<dump::DumpSession> session =
        state->dump.exception_session();
    if (!session) return ExceptionDumpNotEnabled("acldumpGetExceptionInfoPath");
    absl::StatusOr<std::string> folder = ExceptionFolder(
        session->root(), std::to_string(state->runtime.CurrentDevice()));
    if (!folder.ok()) return FailWith(folder.status(), ACL_ERROR_FAILURE);
    if (folder->size() + 1 > maxLen) {
      return Fail(ACL_ERROR_INVALID_PARAM,
                  StrCat("maxLen is ", maxLen, ": the path '", *folder,
                         "' needs ", folder->size() + 1, " bytes"));
    }
    std::memcpy(path, folder->c_str(), folder->size() + 1);
    return ACL_SUCCESS;
  });
}

aclError acldumpSaveExceptionInfo(const char* fileName, const char* userTag,
                                  const acldumpTensorInfo* tensors,
                                  size_t tensorCount) {
  return GuardedCall([&] {
    if (fileName == nullptr) return NullArgument("fileName");
    if (fileName[0] == '\0') {
      return Fail(ACL_ERROR_INVALID_PARAM, "fileName is empty");
    }
    // The SDK's order: the name, the array, the count, whether exception dump
    // is on, then each tensor.
    if (absl::Status name = dump::CheckCustomFileName(fileName); !name.ok()) {
      return Fail(ACL_ERROR_INVALID_PARAM, ToStd(name.message()));
    }
    if (tensors == nullptr) return NullArgument("tensors");
    if (tensorCount == 0) {
      return Fail(ACL_ERROR_INVALID_PARAM,
                  "tensorCount is 0: it must be greater than 0");
    }
    std::shared_ptr<State> state = Acquire();
    if (!state) return ACL_ERROR_UNINITIALIZE;
    std::shared_ptr<dump::DumpSession> session =
        state->dump.exception_session();
    if (!session) return ExceptionDumpNotEnabled("acldumpSaveExceptionInfo");
    std::vector<dump::CustomTensor> converted(tensorCount);
    for (size_t i = 0; i < tensorCount; ++i) {
      absl::Status status = ConvertTensor(tensors[i], i, converted[i]);
      if (!status.ok())
        return Fail(ACL_ERROR_INVALID_PARAM, ToStd(status.message()));
    }
    absl::StatusOr<std::string> saved = dump::SaveCustomExceptionFile(
        *session, state->runtime.CurrentDevice(), fileName,
        userTag == nullptr ? "" : userTag, converted);
    if (!saved.ok())
      return Fail(ACL_ERROR_FAILURE, ToStd(saved.status().message()));
    return ACL_SUCCESS;
  });
}

aclError aclopStartDumpArgs(uint32_t dumpType, const char* path) {
  return GuardedCall([&] {
    if (path == nullptr) return Fail(ACL_ERROR_FAILURE, "path is NULL");
    if ((dumpType & ACL_OP_DUMP_OP_AICORE_ARGS) == 0) {
      return Fail(ACL_ERROR_FAILURE,
                  StrCat("dumpType is ", dumpType,
                         ": it must include ACL_OP_DUMP_OP_AICORE_ARGS (",
                         ACL_OP_DUMP_OP_AICORE_ARGS, ")"));
    }
    absl::Status status = dump::GlobalOpArgsRecorder().Start(path);
    if (!status.ok()) {
      return Fail(ACL_ERROR_FAILURE,
                  StrCat("aclopStartDumpArgs: ", ToStd(status.message())));
    }
    return ACL_SUCCESS;
  });
}

aclError aclopStopDumpArgs(uint32_t dumpType) {
  return GuardedCall([&] {
    if ((dumpType & ACL_OP_DUMP_OP_AICORE_ARGS) == 0) return ACL_SUCCESS;
    absl::Status status = dump::GlobalOpArgsRecorder().Stop();
    if (!status.ok()) {
      return Fail(ACL_ERROR_FAILURE,
                  StrCat("aclopStopDumpArgs: ", ToStd(status.message())));
    }
    return ACL_SUCCESS;
  });
}

}  // extern "C"
