/*
 * acldump C ABI: dump data delivered to the application (acldumpRegCallback),
 * the dump paths in effect, and the application's own tensors saved beside an
 * exception dump. Declarations as in the NPU SDK's acl/acl_dump.h.
 */
#ifndef ACLDUMP_ACL_DUMP_H_
#define ACLDUMP_ACL_DUMP_H_

#include <stddef.h>
#include <stdint.h>

#include "acl/acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ACL_DUMP_MAX_FILE_PATH_LENGTH 4096

/* A piece of a dump file. fileName is the absolute path the file would have
 * (NUL-terminated); dataBuf holds bufLen bytes that belong at `offset` in that
 * file (always >= 0 here: never -1, "append"); isLastChunk is 1 on a file's
 * final chunk (a file appended to, such as a packed layout's dump.pack, may
 * end more than once: it is complete each time, and later chunks extend it);
 * flag is reserved (0). */
typedef struct acldumpChunk {
  char fileName[ACL_DUMP_MAX_FILE_PATH_LENGTH];
  uint32_t bufLen;
  uint32_t isLastChunk;
  int64_t offset;
  int32_t flag;
#ifdef __GNUC__
  __extension__ uint8_t dataBuf[0];
#else
  uint8_t dataBuf[1];
#endif
} acldumpChunk;

/* Delivers dump data to messageCallback instead of files: from now on every
 * dump file (model, single-op, statistics, overflow, exception dumps; SDK and
 * packed layouts) reaches it as chunks of at most 4 MiB, in file order, and
 * no file is written (the folders of the layout are still created, empty).
 * The callback gets the chunk and its length in bytes (the header plus
 * bufLen); the chunk is valid during the call only. It runs on a dump writer
 * thread (chunks of different sessions may arrive concurrently, those of one
 * file in order); while it runs, that session's writer waits, and executions
 * wait once the writer's memory budget is full: nothing is dropped. A return
 * value other than 0 refuses the chunk: the rest of that file is not
 * delivered and aclmdlFinalizeDump / aclFinalize report the file as not
 * written (ACL_ERROR_WRITE_FILE). A file that started while the callback was
 * registered and is complete after it was unregistered is written to disk.
 * flag is reserved: 0. ACL_ERROR_FAILURE for a NULL callback or a flag other
 * than 0. While a callback is registered, registering another one succeeds
 * and has no effect (as in the SDK; a warning is logged). Works before
 * aclInit and across aclFinalize. */
ACL_FUNC_VISIBILITY aclError acldumpRegCallback(
    int32_t (*const messageCallback)(const acldumpChunk *, int32_t),
    int32_t flag);
/* Unregisters the callback, returning once no chunk is being delivered to it
 * (called from inside the callback it returns at once). Packed files still
 * open then are reported as incomplete: unregister after
 * aclmdlFinalizeDump. Nothing registered: nothing happens. */
ACL_FUNC_VISIBILITY void acldumpUnregCallback(void);

#define ACL_OP_DUMP_OP_AICORE_ARGS 0x00000001U

/* Starts the argument dump of single operators: while it is on, every
 * aclopExecuteV2 appends one JSON line to {path}/op_args.{pid}.jsonl with what
 * a CPU kernel has in place of the AI Core's argument table: "op_type",
 * "inputs" and "outputs" ({"dtype", "shape", "format", "bytes"}, null for an
 * absent optional input), "attrs" (name: value as text), "status" ("ok" or
 * the error) and "sequence" (0, 1, ... per start). path is created when
 * missing. dumpType must include ACL_OP_DUMP_OP_AICORE_ARGS.
 * ACL_ERROR_FAILURE (the message says which) for a NULL or empty path, one
 * that cannot be created, is not a directory or is not readable and
 * writable, a dumpType without ACL_OP_DUMP_OP_AICORE_ARGS, or a dump already
 * on. Works before aclInit and across aclFinalize, as in the SDK. */
ACL_FUNC_VISIBILITY aclError aclopStartDumpArgs(uint32_t dumpType,
                                                const char *path);
/* Stops it when dumpType includes ACL_OP_DUMP_OP_AICORE_ARGS (otherwise, or
 * when it is not on, nothing happens: ACL_SUCCESS). ACL_ERROR_FAILURE when
 * lines could not be written since the start (the message gives how many and
 * why); the SDK only logs that. */
ACL_FUNC_VISIBILITY aclError aclopStopDumpArgs(uint32_t dumpType);

typedef enum acldumpType {
  AIC_ERR_BRIEF_DUMP = 1,  /* exception dump, brief */
  AIC_ERR_NORM_DUMP = 2,   /* exception dump, with shapes, formats, attrs */
  AIC_ERR_DETAIL_DUMP = 3, /* exception dump with device memory (NPU only) */
  DATA_DUMP = 4,           /* model or single-operator dump */
  OVERFLOW_DUMP = 5        /* overflow operator dump */
} acldumpType;

/* The dump path in effect for dumpType, or NULL when that kind of dump is not
 * enabled (or dumpType is unknown). DATA_DUMP and OVERFLOW_DUMP: the
 * dump_path of the config in effect (aclmdlSetDump's, else aclInit's). The
 * exception types: {exception root}/extra-info/data-dump/, created if
 * missing, where the root comes from ASCEND_DUMP_PATH, ASCEND_WORK_PATH, the
 * config's dump_path or the working directory. The string stays valid until
 * this thread calls acldumpGetPath again. */
ACL_FUNC_VISIBILITY const char *acldumpGetPath(acldumpType dumpType);

#define ACL_DUMP_MAX_SHAPE_NUM 25

typedef enum acldumpTensorType {
  ACL_DUMP_TENSOR_INPUT = 0,
  ACL_DUMP_TENSOR_OUTPUT,
  ACL_DUMP_TENSOR_WORKSPACE
} acldumpTensorType;

typedef enum acldumpTensorAddressType {
  ACL_DUMP_ADDR_PTR = 0, /* the address of a pointer to the data */
  ACL_DUMP_ADDR_PTR_PTR, /* two dereferences to the data */
  ACL_DUMP_ADDR_RAW      /* the data itself */
} acldumpTensorAddressType;

typedef enum acldumpTensorPlacement {
  ACL_DUMP_PLACEMENT_DEVICE = 0,
  ACL_DUMP_PLACEMENT_HOST,
  ACL_DUMP_PLACEMENT_END
} acldumpTensorPlacement;

/* One tensor for acldumpSaveExceptionInfo. format and dataType are aclFormat
 * and aclDataType values. */
typedef struct acldumpTensorInfo {
  acldumpTensorType type;
  size_t tensorSize; /* bytes */
  int32_t format;
  int32_t dataType;
  int64_t *tensorAddr;
  acldumpTensorAddressType addrType;
  acldumpTensorPlacement placement;
  uint32_t argsOffset;
  uint32_t shapeNum;       /* <= ACL_DUMP_MAX_SHAPE_NUM */
  uint32_t originShapeNum; /* <= ACL_DUMP_MAX_SHAPE_NUM */
  uint64_t shape[ACL_DUMP_MAX_SHAPE_NUM];
  uint64_t originShape[ACL_DUMP_MAX_SHAPE_NUM];
} acldumpTensorInfo;

/* Saves the application's own tensors as a dump file under the exception
 * dump's root path (acldumpGetExceptionInfoPath), named fileName (relative;
 * folders in it are created) with ".custom.{YYYYMMDDhhmmssmmm}" appended,
 * read-only. The file's op_name is its base name and userTag, when not NULL
 * or empty, is its "user_tag" attribute; inputs and outputs are the tensors of
 * those types in order, workspaces are recorded with their sizes. Every
 * tensor needs addrType ACL_DUMP_ADDR_RAW, placement
 * ACL_DUMP_PLACEMENT_DEVICE (memory from aclrtMalloc, or any host memory on
 * this runtime), a non-NULL tensorAddr and tensorSize > 0.
 * ACL_ERROR_INVALID_PARAM for a NULL, empty or ".."-containing fileName, NULL
 * tensors, tensorCount 0 or a tensor breaking those rules (the message names
 * it); ACL_ERROR_FAILURE when no exception dump is enabled or the file cannot
 * be written. */
ACL_FUNC_VISIBILITY aclError acldumpSaveExceptionInfo(
    const char *fileName, const char *userTag,
    const acldumpTensorInfo *tensors, size_t tensorCount);

/* Writes the exception dump's root path, {exception root}/extra-info/
 * data-dump/{deviceId}/ (created if missing), into path.
 * ACL_ERROR_INVALID_PARAM for a NULL path, maxLen <= 1 or a buffer too small
 * (the message gives the size needed); ACL_ERROR_FAILURE when no exception
 * dump is enabled. */
ACL_FUNC_VISIBILITY aclError acldumpGetExceptionInfoPath(char *path,
                                                         size_t maxLen);

#ifdef __cplusplus
}
#endif

#endif /* ACLDUMP_ACL_DUMP_H_ */
