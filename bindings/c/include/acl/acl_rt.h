/*
 * acldump C ABI: runtime resources. acldump runs on the host CPU: a "device" is
 * the id written into the dump layout (U5: runs on several devices/ranks do not
 * collide), and device memory is host memory.
 */
#ifndef ACLDUMP_ACL_RT_H_
#define ACLDUMP_ACL_RT_H_

#include "acl/acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  ACL_MEM_MALLOC_HUGE_FIRST = 0,
  ACL_MEM_MALLOC_HUGE_ONLY = 1,
  ACL_MEM_MALLOC_NORMAL_ONLY = 2
} aclrtMemMallocPolicy;

/* Largest device id accepted. */
#define ACL_MAX_DEVICE_ID 1023

/* Makes `deviceId` (0..ACL_MAX_DEVICE_ID) the calling thread's current device.
 * Models loaded and single ops executed by this thread dump under that id.
 * Needs aclInit. */
ACL_FUNC_VISIBILITY aclError aclrtSetDevice(int32_t deviceId);
/* The calling thread's current device (0 until aclrtSetDevice). */
ACL_FUNC_VISIBILITY aclError aclrtGetDevice(int32_t *deviceId);
ACL_FUNC_VISIBILITY aclError aclrtResetDevice(int32_t deviceId);

/* 64-byte aligned memory of `size` bytes (size > 0); free with aclrtFree. Needs
 * aclInit. */
ACL_FUNC_VISIBILITY aclError aclrtMalloc(void **devPtr, size_t size,
                                         aclrtMemMallocPolicy policy);
/* Frees memory from aclrtMalloc. NULL is allowed. */
ACL_FUNC_VISIBILITY aclError aclrtFree(void *devPtr);

#ifdef __cplusplus
}
#endif

#endif /* ACLDUMP_ACL_RT_H_ */
