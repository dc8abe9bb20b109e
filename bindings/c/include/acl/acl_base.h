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

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define ACL_FUNC_VISIBILITY __attribute__((visibility("default")))
#else
#define ACL_FUNC_VISIBILITY
#endif

typedef int32_t aclError;
typedef void *aclrtStream;

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
#define ACL_ERROR_REPEAT_FINALIZE 100037
#define ACL_ERROR_DUMP_ALREADY_RUN 100044
#define ACL_ERROR_DUMP_NOT_RUN 100045
#define ACL_ERROR_BAD_ALLOC 200000
#define ACL_ERROR_API_NOT_SUPPORT 200001
#define ACL_ERROR_INVALID_DEVICE 200002
#define ACL_ERROR_MEMORY_ADDRESS_UNALIGNED 200003
#define ACL_ERROR_RESOURCE_NOT_MATCH 200004
#define ACL_ERROR_INVALID_RESOURCE_HANDLE 200005
#define ACL_ERROR_FEATURE_UNSUPPORTED 200006
#define ACL_ERROR_STORAGE_OVER_LIMIT 300000
#define ACL_ERROR_INTERNAL_ERROR 500000
#define ACL_ERROR_FAILURE 500001

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
  ACL_BF16 = 27
} aclDataType;

typedef enum {
  ACL_FORMAT_UNDEFINED = -1,
  ACL_FORMAT_NCHW = 0,
  ACL_FORMAT_NHWC = 1,
  ACL_FORMAT_ND = 2,
  ACL_FORMAT_NC1HWC0 = 3,
  ACL_FORMAT_FRACTAL_Z = 4,
  ACL_FORMAT_HWCN = 16,
  ACL_FORMAT_NDHWC = 27,
  ACL_FORMAT_FRACTAL_NZ = 29,
  ACL_FORMAT_NCDHW = 30
} aclFormat;

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
ACL_FUNC_VISIBILITY size_t
aclGetDataBufferSizeV2(const aclDataBuffer *dataBuffer);
/* Points the buffer at other memory. */
ACL_FUNC_VISIBILITY aclError aclUpdateDataBuffer(aclDataBuffer *dataBuffer,
                                                 void *data, size_t size);

/* Size in bytes of one element of `dataType`; 0 for unknown or variable-size
 * types. */
ACL_FUNC_VISIBILITY size_t aclDataTypeSize(aclDataType dataType);

/* The calling thread's message for its most recent failed call ("" if none).
 * The pointer stays valid until the thread's next acl call. */
ACL_FUNC_VISIBILITY const char *aclGetRecentErrMsg(void);

#ifdef __cplusplus
}
#endif

#endif /* ACLDUMP_ACL_BASE_H_ */
