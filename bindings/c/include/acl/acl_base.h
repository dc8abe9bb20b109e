/*
 * acldump C ABI: base types, error codes and data buffers. Call-compatible with
 * the NPU SDK's acl_base.h for the parts acldump implements. Plain C99; no C++
 * type crosses this boundary.
 *
 * Conventions for every function of the ABI:
 * - Inputs first, outputs last; outputs are written only on success.
 * - Functions returning aclError return ACL_SUCCESS (0) or an error code and
 * set the calling thread's recent error message (aclGetRecentErrMsg). Functions
 * returning a pointer or a size return NULL / 0 on error and set the message
 * too.
 * - Destroy functions accept NULL.
 * - Unless stated otherwise a function is thread-safe; an object (buffer,
 * dataset, desc, attr) must not be modified by two threads at once.
 */
#ifndef ACLDUMP_ACL_BASE_H_
#define ACLDUMP_ACL_BASE_H_

#include <stddef.h>
#include <stdint.h>

#include "acl/error_codes/ge_error_codes.h"
#include "acl/error_codes/rt_error_codes.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define ACL_FUNC_VISIBILITY __attribute__((visibility("default")))
#define ACL_DEPRECATED_MESSAGE(message) __attribute__((deprecated(message)))
#else
#define ACL_FUNC_VISIBILITY
#define ACL_DEPRECATED_MESSAGE(message)
#endif

typedef int32_t aclError;
typedef uint16_t aclFloat16;
/* Runtime handles (acl_rt.h): opaque, created and destroyed by the library. */
typedef void *aclrtStream;
typedef void *aclrtEvent;
typedef void *aclrtContext;

/* Success and errors: the SDK's numbers. */
#define ACL_SUCCESS 0
#define ACL_ERROR_NONE 0
#define ACL_ERROR_INVALID_PARAM 100000
#define ACL_ERROR_UNINITIALIZE 100001
#define ACL_ERROR_REPEAT_INITIALIZE 100002
#define ACL_ERROR_INVALID_FILE 100003
#define ACL_ERROR_WRITE_FILE 100004
#define ACL_ERROR_INVALID_FILE_SIZE 100005
#define ACL_ERROR_PARSE_FILE 100006
#define ACL_ERROR_FILE_MISSING_ATTR 100007
#define ACL_ERROR_FILE_ATTR_INVALID 100008
#define ACL_ERROR_INVALID_DUMP_CONFIG 100009
#define ACL_ERROR_INVALID_PROFILING_CONFIG 100010
#define ACL_ERROR_INVALID_MODEL_ID 100011
#define ACL_ERROR_DESERIALIZE_MODEL 100012
#define ACL_ERROR_PARSE_MODEL 100013
#define ACL_ERROR_READ_MODEL_FAILURE 100014
#define ACL_ERROR_MODEL_SIZE_INVALID 100015
#define ACL_ERROR_MODEL_MISSING_ATTR 100016
#define ACL_ERROR_MODEL_INPUT_NOT_MATCH 100017
#define ACL_ERROR_MODEL_OUTPUT_NOT_MATCH 100018
#define ACL_ERROR_MODEL_NOT_DYNAMIC 100019
#define ACL_ERROR_OP_TYPE_NOT_MATCH 100020
#define ACL_ERROR_OP_INPUT_NOT_MATCH 100021
#define ACL_ERROR_OP_OUTPUT_NOT_MATCH 100022
#define ACL_ERROR_OP_ATTR_NOT_MATCH 100023
#define ACL_ERROR_OP_NOT_FOUND 100024
#define ACL_ERROR_OP_LOAD_FAILED 100025
#define ACL_ERROR_UNSUPPORTED_DATA_TYPE 100026
#define ACL_ERROR_FORMAT_NOT_MATCH 100027
#define ACL_ERROR_BIN_SELECTOR_NOT_REGISTERED 100028
#define ACL_ERROR_KERNEL_NOT_FOUND 100029
#define ACL_ERROR_BIN_SELECTOR_ALREADY_REGISTERED 100030
#define ACL_ERROR_KERNEL_ALREADY_REGISTERED 100031
#define ACL_ERROR_INVALID_QUEUE_ID 100032
#define ACL_ERROR_REPEAT_SUBSCRIBE 100033
#define ACL_ERROR_STREAM_NOT_SUBSCRIBE 100034
#define ACL_ERROR_THREAD_NOT_SUBSCRIBE 100035
#define ACL_ERROR_WAIT_CALLBACK_TIMEOUT 100036
#define ACL_ERROR_REPEAT_FINALIZE 100037
#define ACL_ERROR_NOT_STATIC_AIPP 100038
#define ACL_ERROR_COMPILING_STUB_MODE 100039
#define ACL_ERROR_GROUP_NOT_SET 100040
#define ACL_ERROR_GROUP_NOT_CREATE 100041
#define ACL_ERROR_PROF_ALREADY_RUN 100042
#define ACL_ERROR_PROF_NOT_RUN 100043
#define ACL_ERROR_DUMP_ALREADY_RUN 100044
#define ACL_ERROR_DUMP_NOT_RUN 100045
#define ACL_ERROR_BAD_ALLOC 200000
#define ACL_ERROR_API_NOT_SUPPORT 200001
#define ACL_ERROR_INVALID_DEVICE 200002
#define ACL_ERROR_MEMORY_ADDRESS_UNALIGNED 200003
#define ACL_ERROR_RESOURCE_NOT_MATCH 200004
#define ACL_ERROR_INVALID_RESOURCE_HANDLE 200005
#define ACL_ERROR_FEATURE_UNSUPPORTED 200006
#define ACL_ERROR_PROF_MODULES_UNSUPPORTED 200007
#define ACL_ERROR_STORAGE_OVER_LIMIT 300000
#define ACL_ERROR_INTERNAL_ERROR 500000
#define ACL_ERROR_FAILURE 500001
#define ACL_ERROR_GE_FAILURE 500002
#define ACL_ERROR_RT_FAILURE 500003
#define ACL_ERROR_DRV_FAILURE 500004
#define ACL_ERROR_PROFILING_FAILURE 500005

typedef enum {
  ACL_DT_UNDEFINED = -1,
  ACL_FLOAT = 0,
  ACL_FLOAT16 = 1,
  ACL_INT8 = 2,
  ACL_INT32 = 3,
  ACL_UINT8 = 4,
  ACL_INT16 = 6,
  ACL_UINT16 = 7,
  ACL_UINT32 = 8,
  ACL_INT64 = 9,
  ACL_UINT64 = 10,
  ACL_DOUBLE = 11,
  ACL_BOOL = 12,
  ACL_STRING = 13,
  ACL_COMPLEX64 = 16,
  ACL_COMPLEX128 = 17,
  ACL_BF16 = 27,
  ACL_INT4 = 29,
  ACL_UINT1 = 30,
  ACL_COMPLEX32 = 33
} aclDataType;

typedef enum {
  ACL_FORMAT_UNDEFINED = -1,
  ACL_FORMAT_NCHW = 0,
  ACL_FORMAT_NHWC = 1,
  ACL_FORMAT_ND = 2,
  ACL_FORMAT_NC1HWC0 = 3,
  ACL_FORMAT_FRACTAL_Z = 4,
  ACL_FORMAT_NC1HWC0_C04 = 12,
  ACL_FORMAT_HWCN = 16,
  ACL_FORMAT_NDHWC = 27,
  ACL_FORMAT_FRACTAL_NZ = 29,
  ACL_FORMAT_NCDHW = 30,
  ACL_FORMAT_NDC1HWC0 = 32,
  ACL_FRACTAL_Z_3D = 33,
  ACL_FORMAT_NC = 35,
  ACL_FORMAT_NCL = 47
} aclFormat;

typedef enum {
  ACL_DEBUG = 0,
  ACL_INFO = 1,
  ACL_WARNING = 2,
  ACL_ERROR = 3
} aclLogLevel;

/* A caller-owned memory region described to the runtime. The buffer does not
 * own `data`. */
typedef struct aclDataBuffer aclDataBuffer;

/* Returns a new buffer describing [data, data + size) or NULL
 * (ACL_ERROR_BAD_ALLOC). data may be NULL only when size is 0. Free with
 * aclDestroyDataBuffer. */
ACL_FUNC_VISIBILITY aclDataBuffer *aclCreateDataBuffer(void *data, size_t size);
/* Frees the descriptor, not the memory it describes. NULL is allowed. */
ACL_FUNC_VISIBILITY aclError
aclDestroyDataBuffer(const aclDataBuffer *dataBuffer);
/* NULL (and ACL_ERROR_INVALID_PARAM as the recent error) for a NULL buffer. */
ACL_FUNC_VISIBILITY void *aclGetDataBufferAddr(const aclDataBuffer *dataBuffer);
/* The buffer's size in bytes; 0 for a NULL or destroyed buffer. */
ACL_FUNC_VISIBILITY size_t
aclGetDataBufferSizeV2(const aclDataBuffer *dataBuffer);
/* The size truncated to 32 bits (the SDK's first version of the call; use
 * aclGetDataBufferSizeV2). 0 for a NULL or destroyed buffer. */
ACL_DEPRECATED_MESSAGE(
    "aclGetDataBufferSize is deprecated, use aclGetDataBufferSizeV2 instead")
ACL_FUNC_VISIBILITY uint32_t
aclGetDataBufferSize(const aclDataBuffer *dataBuffer);
/* Points the buffer at other memory. */
ACL_FUNC_VISIBILITY aclError aclUpdateDataBuffer(aclDataBuffer *dataBuffer,
                                                 void *data, size_t size);

/* Size in bytes of one element of `dataType`; 0 for unknown or variable-size
 * types. */
ACL_FUNC_VISIBILITY size_t aclDataTypeSize(aclDataType dataType);

/* IEEE half precision <-> float, rounding to nearest even; Inf and NaN kept.
 * Need no aclInit. */
ACL_FUNC_VISIBILITY float aclFloat16ToFloat(aclFloat16 value);
ACL_FUNC_VISIBILITY aclFloat16 aclFloatToFloat16(float value);

/* ---- Tensor descriptions (single-op inputs and outputs) ---- */

typedef struct aclTensorDesc aclTensorDesc;

/* A tensor description: type, dims (numDims >= 0; dims may be NULL when numDims
 * is 0) and format. NULL (ACL_ERROR_INVALID_PARAM as the recent error) for
 * negative dims, too many dims, a tensor too large to address, or a number
 * that is not an aclDataType. (A type this runtime has no kernels for, such
 * as ACL_STRING, is accepted here; executing with it is
 * ACL_ERROR_UNSUPPORTED_DATA_TYPE.) Free with aclDestroyTensorDesc. */
ACL_FUNC_VISIBILITY aclTensorDesc *aclCreateTensorDesc(aclDataType dataType,
                                                       int numDims,
                                                       const int64_t *dims,
                                                       aclFormat format);
/* NULL is allowed; a second destroy of the same desc is ignored. */
ACL_FUNC_VISIBILITY void aclDestroyTensorDesc(const aclTensorDesc *desc);
/* Names the tensor; an input/output name of a single op shows in its dump. */
ACL_FUNC_VISIBILITY void aclSetTensorDescName(aclTensorDesc *desc,
                                              const char *name);
/* The getters return ACL_DT_UNDEFINED / ACL_FORMAT_UNDEFINED / 0 for a NULL or
 * destroyed desc. */
ACL_FUNC_VISIBILITY aclDataType aclGetTensorDescType(const aclTensorDesc *desc);
ACL_FUNC_VISIBILITY aclFormat aclGetTensorDescFormat(const aclTensorDesc *desc);
ACL_FUNC_VISIBILITY size_t aclGetTensorDescNumDims(const aclTensorDesc *desc);
/* Bytes of the described tensor (elements x element size). */
ACL_FUNC_VISIBILITY size_t aclGetTensorDescSize(const aclTensorDesc *desc);
/* Elements of the described tensor (the product of its dims); 0 for a NULL
 * or destroyed desc. */
ACL_FUNC_VISIBILITY size_t
aclGetTensorDescElementCount(const aclTensorDesc *desc);
/* Writes dims[index] to *dimSize. ACL_ERROR_INVALID_PARAM for a NULL or
 * destroyed desc, a NULL dimSize or an index >= the number of dims. */
ACL_FUNC_VISIBILITY aclError aclGetTensorDescDimV2(const aclTensorDesc *desc,
                                                   size_t index,
                                                   int64_t *dimSize);
/* Makes desc a constant: a copy of the length bytes at dataBuffer, which must
 * be exactly the described tensor's size. A single operator's input with this
 * desc and a NULL buffer reads that copy (a buffer given still wins).
 * ACL_ERROR_INVALID_PARAM for a NULL or destroyed desc, NULL data or a length
 * that is not the tensor's size. */
ACL_FUNC_VISIBILITY aclError aclSetTensorConst(aclTensorDesc *desc,
                                               void *dataBuffer, size_t length);

/* ---- Errors and logging ---- */

/* The calling thread's message for its most recent failed call ("" if none).
 * The pointer stays valid until the thread's next acl call. */
ACL_FUNC_VISIBILITY const char *aclGetRecentErrMsg(void);

/* Writes an application log line to stderr when `logLevel` is at least the
 * level in the environment variable ASCEND_GLOBAL_LOG_LEVEL (0 debug .. 3
 * error; default 3). Safe from any thread; needs no aclInit. */
ACL_FUNC_VISIBILITY void aclAppLog(aclLogLevel logLevel, const char *func,
                                   const char *file, uint32_t line,
                                   const char *fmt, ...);
#define ACL_APP_LOG(level, fmt, ...) \
  aclAppLog(level, __FUNCTION__, __FILE__, __LINE__, fmt, ##__VA_ARGS__)

#ifdef __cplusplus
}
#endif

#endif /* ACLDUMP_ACL_BASE_H_ */
