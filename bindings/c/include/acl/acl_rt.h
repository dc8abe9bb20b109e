/*
 * acldump C ABI: runtime resources (devices, contexts, streams, events,
 * memory, callbacks), with the NPU SDK's signatures, enum values and error
 * codes, on the host CPU:
 *
 * - A device id (0..ACL_MAX_DEVICE_ID) names the host CPU; it is the {device}
 *   folder of the dumps of models loaded and single ops run while a context of
 *   that device is current (so runs on several devices or ranks do not mix).
 *   Device memory is host memory.
 * - A context belongs to a device. Every thread has its own current context:
 *   aclrtSetDevice makes the device's default context current,
 *   aclrtCreateContext makes the new context current, aclrtSetCurrentContext
 *   switches. Calls that need one return ACL_ERROR_RT_CONTEXT_NULL (107002) in
 *   a thread without one (or whose context was destroyed).
 * - A stream is an in-order queue of work run by its own worker thread: the
 *   ...Async calls, aclmdlExecuteAsync, aclrtRecordEvent, aclrtStreamWaitEvent
 *   and aclrtLaunchCallback queue work and return at once; work runs in the
 *   order it was queued. aclrtSynchronizeStream waits until everything queued
 *   so far has run and returns the first failure among it (later work still
 *   runs). A NULL stream is the current context's default stream. A stream may
 *   only be used while its context is current (else
 *   ACL_ERROR_RT_STREAM_CONTEXT, 107003).
 *
 * Every call here except aclrtGetRunMode, aclrtGetDeviceCount, aclrtGetSocName
 * and aclrtFree/aclrtFreeHost needs aclInit (else ACL_ERROR_UNINITIALIZE).
 * aclFinalize destroys every context, stream and event (queued work runs
 * first); memory stays allocated until freed. Calls are thread-safe.
 *
 * Codes: NULL outputs and out-of-range enum values are ACL_ERROR_INVALID_PARAM
 * (100000) as in the SDK's argument checks; the runtime's own checks return
 * ACL_ERROR_RT_* (error_codes/rt_error_codes.h); a handle that was destroyed
 * (or never was one) is ACL_ERROR_RT_PARAM_INVALID, a context
 * ACL_ERROR_RT_CONTEXT_NULL.
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
  ACL_MEM_MALLOC_NORMAL_ONLY = 2,
  ACL_MEM_MALLOC_HUGE_FIRST_P2P = 3,
  ACL_MEM_MALLOC_HUGE_ONLY_P2P = 4,
  ACL_MEM_MALLOC_NORMAL_ONLY_P2P = 5,
  ACL_MEM_MALLOC_HUGE1G_ONLY = 6,
  ACL_MEM_MALLOC_HUGE1G_ONLY_P2P = 7,
  ACL_MEM_TYPE_LOW_BAND_WIDTH = 0x0100,
  ACL_MEM_TYPE_HIGH_BAND_WIDTH = 0x1000,
  ACL_MEM_ACCESS_USER_SPACE_READONLY = 0x100000
} aclrtMemMallocPolicy;

typedef enum {
  ACL_MEMCPY_HOST_TO_HOST = 0,
  ACL_MEMCPY_HOST_TO_DEVICE = 1,
  ACL_MEMCPY_DEVICE_TO_HOST = 2,
  ACL_MEMCPY_DEVICE_TO_DEVICE = 3,
  ACL_MEMCPY_DEFAULT = 4,
  ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE = 5,
  ACL_MEMCPY_INNER_DEVICE_TO_DEVICE = 6,
  ACL_MEMCPY_INTER_DEVICE_TO_DEVICE = 7
} aclrtMemcpyKind;

typedef enum {
  ACL_DDR_MEM = 0,
  ACL_HBM_MEM = 1,
  ACL_DDR_MEM_HUGE = 2,
  ACL_DDR_MEM_NORMAL = 3,
  ACL_HBM_MEM_HUGE = 4,
  ACL_HBM_MEM_NORMAL = 5,
  ACL_DDR_MEM_P2P_HUGE = 6,
  ACL_DDR_MEM_P2P_NORMAL = 7,
  ACL_HBM_MEM_P2P_HUGE = 8,
  ACL_HBM_MEM_P2P_NORMAL = 9,
  ACL_HBM_MEM_HUGE1G = 10,
  ACL_HBM_MEM_P2P_HUGE1G = 11,
  ACL_MEM_NORMAL = 12,
  ACL_MEM_HUGE = 13,
  ACL_MEM_HUGE1G = 14,
  ACL_MEM_P2P_NORMAL = 15,
  ACL_MEM_P2P_HUGE = 16,
  ACL_MEM_P2P_HUGE1G = 17
} aclrtMemAttr;

typedef enum { ACL_DEVICE = 0, ACL_HOST = 1 } aclrtRunMode;

typedef enum {
  ACL_EVENT_STATUS_COMPLETE = 0,
  ACL_EVENT_STATUS_NOT_READY = 1,
  ACL_EVENT_STATUS_RESERVED = 2
} aclrtEventStatus;

/* Note the order: the opposite of aclrtEventStatus (as in the SDK). */
typedef enum {
  ACL_EVENT_RECORDED_STATUS_NOT_READY = 0,
  ACL_EVENT_RECORDED_STATUS_COMPLETE = 1
} aclrtEventRecordedStatus;

typedef enum {
  ACL_STREAM_STATUS_COMPLETE = 0,
  ACL_STREAM_STATUS_NOT_READY = 1,
  ACL_STREAM_STATUS_RESERVED = 0xFFFF
} aclrtStreamStatus;

typedef enum {
  ACL_CALLBACK_NO_BLOCK = 0,
  ACL_CALLBACK_BLOCK = 1
} aclrtCallbackBlockType;

typedef void (*aclrtCallback)(void *userData);

#define ACL_EVENT_SYNC 0x00000001u
#define ACL_EVENT_CAPTURE_STREAM_PROGRESS 0x00000002u
#define ACL_EVENT_TIME_LINE 0x00000008u
#define ACL_STREAM_FAST_LAUNCH 0x00000001u
#define ACL_STREAM_FAST_SYNC 0x00000002u

/* Largest device id accepted. */
#define ACL_MAX_DEVICE_ID 1023

/* ---- Devices ---- */

/* ACL_HOST: the application runs on the host (the samples then stage data in
 * aclrtMallocHost memory and copy it with aclrtMemcpy). */
ACL_FUNC_VISIBILITY aclError aclrtGetRunMode(aclrtRunMode *runMode);
/* ACL_MAX_DEVICE_ID + 1: every id names the host CPU. */
ACL_FUNC_VISIBILITY aclError aclrtGetDeviceCount(uint32_t *count);
/* A static string naming this runtime ("acldump_cpu"); never NULL. */
ACL_FUNC_VISIBILITY const char *aclrtGetSocName(void);

/* Opens `deviceId` for the calling thread and makes its default context the
 * current one. Counted: each call needs an aclrtResetDevice.
 * ACL_ERROR_RT_INVALID_DEVICEID for an id outside 0..ACL_MAX_DEVICE_ID. */
ACL_FUNC_VISIBILITY aclError aclrtSetDevice(int32_t deviceId);
/* Releases one aclrtSetDevice; the last release destroys the default context
 * with its streams (queued work runs first). A thread whose current context
 * it was has none afterwards. A device that is not open: ACL_SUCCESS. */
ACL_FUNC_VISIBILITY aclError aclrtResetDevice(int32_t deviceId);
/* The device of the calling thread's current context;
 * ACL_ERROR_RT_CONTEXT_NULL when the thread has none (no aclrtSetDevice or
 * aclrtCreateContext yet), as in the SDK. */
ACL_FUNC_VISIBILITY aclError aclrtGetDevice(int32_t *deviceId);
/* Waits for every stream of the current context's device and returns the
 * first failure of their work. */
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeDevice(void);

/* ---- Contexts ---- */

/* A new context on `deviceId`, made current for the calling thread (no
 * aclrtSetDevice needed). Destroy with aclrtDestroyContext. */
ACL_FUNC_VISIBILITY aclError aclrtCreateContext(aclrtContext *context,
                                                int32_t deviceId);
/* Destroys a context from aclrtCreateContext and its streams (queued work runs
 * first). The current context may be destroyed; threads using it then have
 * none. ACL_ERROR_RT_CONTEXT_NULL for a destroyed context or a device's
 * default context (aclrtResetDevice releases that). */
ACL_FUNC_VISIBILITY aclError aclrtDestroyContext(aclrtContext context);
/* Makes `context` (from aclrtCreateContext or aclrtGetCurrentContext) the
 * calling thread's current context. ACL_ERROR_RT_CONTEXT_NULL when destroyed.
 */
ACL_FUNC_VISIBILITY aclError aclrtSetCurrentContext(aclrtContext context);
/* ACL_ERROR_RT_CONTEXT_NULL when the thread has no (live) current context. */
ACL_FUNC_VISIBILITY aclError aclrtGetCurrentContext(aclrtContext *context);

/* ---- Streams ---- */

/* A new stream of the current context. Destroy with aclrtDestroyStream. */
ACL_FUNC_VISIBILITY aclError aclrtCreateStream(aclrtStream *stream);
/* As aclrtCreateStream; priority and flag are accepted and have no effect. */
ACL_FUNC_VISIBILITY aclError aclrtCreateStreamWithConfig(aclrtStream *stream,
                                                         uint32_t priority,
                                                         uint32_t flag);
/* Runs the stream's queued work, then destroys it (its callback subscription
 * ends; callbacks not yet processed are dropped). NULL:
 * ACL_ERROR_INVALID_PARAM. Not from a callback of the stream itself. */
ACL_FUNC_VISIBILITY aclError aclrtDestroyStream(aclrtStream stream);
/* Waits until the work queued so far has run; returns (and clears) the first
 * failure of that work, with its message. NULL: the default stream. */
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeStream(aclrtStream stream);
/* As aclrtSynchronizeStream, waiting at most `timeout` ms (-1: no limit):
 * ACL_ERROR_RT_STREAM_SYNC_TIMEOUT when work is still running then;
 * ACL_ERROR_RT_PARAM_INVALID for timeout < -1. */
ACL_FUNC_VISIBILITY aclError
aclrtSynchronizeStreamWithTimeout(aclrtStream stream, int32_t timeout);
/* ACL_STREAM_STATUS_COMPLETE when no queued work is left, else NOT_READY. */
ACL_FUNC_VISIBILITY aclError aclrtStreamQuery(aclrtStream stream,
                                              aclrtStreamStatus *status);
/* Queues a wait: work queued on `stream` after this call starts once the
 * event's latest record (at the time of this call) has run. An event never
 * recorded is not waited for. */
ACL_FUNC_VISIBILITY aclError aclrtStreamWaitEvent(aclrtStream stream,
                                                  aclrtEvent event);

/* ---- Events ---- */

/* A new event (with timing); needs a current context. */
ACL_FUNC_VISIBILITY aclError aclrtCreateEvent(aclrtEvent *event);
/* As aclrtCreateEvent; `flag` is ignored (every event here has timing and can
 * be waited for). */
ACL_FUNC_VISIBILITY aclError aclrtCreateEventWithFlag(aclrtEvent *event,
                                                      uint32_t flag);
/* NULL: ACL_ERROR_INVALID_PARAM; destroyed already: ACL_ERROR_RT_PARAM_INVALID.
 */
ACL_FUNC_VISIBILITY aclError aclrtDestroyEvent(aclrtEvent event);
/* Queues a record on `stream` (NULL: default stream): the event completes, with
 * a timestamp, when the work queued before it has run. Recording again starts
 * a new record. */
ACL_FUNC_VISIBILITY aclError aclrtRecordEvent(aclrtEvent event,
                                              aclrtStream stream);
/* Forgets the event's records (it reads as never recorded). */
ACL_FUNC_VISIBILITY aclError aclrtResetEvent(aclrtEvent event,
                                             aclrtStream stream);
/* Waits until the event's latest record has run (at once if never recorded);
 * ACL_ERROR_UNINITIALIZE when aclFinalize ends the runtime first. */
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeEvent(aclrtEvent event);
/* ACL_EVENT_RECORDED_STATUS_COMPLETE once the latest record has run, else
 * ACL_EVENT_RECORDED_STATUS_NOT_READY (also when never recorded). */
ACL_FUNC_VISIBILITY aclError
aclrtQueryEventStatus(aclrtEvent event, aclrtEventRecordedStatus *status);
/* The older form: ACL_EVENT_STATUS_COMPLETE / ACL_EVENT_STATUS_NOT_READY. */
ACL_DEPRECATED_MESSAGE(
    "aclrtQueryEvent is deprecated, use aclrtQueryEventStatus")
ACL_FUNC_VISIBILITY aclError aclrtQueryEvent(aclrtEvent event,
                                             aclrtEventStatus *status);
/* Milliseconds between two completed records. ACL_ERROR_RT_EVENT_TIMESTAMP_
 * INVALID when either event was never recorded, ACL_ERROR_RT_EVENT_NOT_COMPLETE
 * when a record has not run yet, ACL_ERROR_RT_EVENT_TIMESTAMP_REVERSAL when
 * `endEvent` completed before `startEvent`. */
ACL_FUNC_VISIBILITY aclError aclrtEventElapsedTime(float *ms,
                                                   aclrtEvent startEvent,
                                                   aclrtEvent endEvent);

/* ---- Memory (device memory is host memory) ---- */

/* 64-byte aligned "device" memory of `size` bytes (size > 0); free with
 * aclrtFree. Any policy is accepted. Needs aclInit (no context needed).
 * ACL_ERROR_BAD_ALLOC when it cannot be allocated. */
ACL_FUNC_VISIBILITY aclError aclrtMalloc(void **devPtr, size_t size,
                                         aclrtMemMallocPolicy policy);
/* Frees memory from aclrtMalloc. NULL: ACL_ERROR_INVALID_PARAM (as the SDK);
 * memory not from aclrtMalloc (or freed already): ACL_ERROR_RT_PARAM_INVALID;
 * memory a loaded model or queued stream work still uses:
 * ACL_ERROR_RT_MEMORY_FREE (unload the model / synchronize the stream first).
 */
ACL_FUNC_VISIBILITY aclError aclrtFree(void *devPtr);
/* Host memory of `size` bytes (size > 0) for staging copies; needs a current
 * context. Free with aclrtFreeHost. */
ACL_FUNC_VISIBILITY aclError aclrtMallocHost(void **hostPtr, size_t size);
/* NULL: ACL_ERROR_INVALID_PARAM; memory not from aclrtMallocHost:
 * ACL_ERROR_RT_PARAM_INVALID; memory queued stream work still uses:
 * ACL_ERROR_RT_MEMORY_FREE. */
ACL_FUNC_VISIBILITY aclError aclrtFreeHost(void *hostPtr);

/* Copies `count` bytes from `src` to `dst` (capacity `destMax`) before
 * returning; needs a current context. The kind says where each side is: a
 * device side must lie inside one aclrtMalloc allocation, a host side must not
 * be device memory (ACL_MEMCPY_DEFAULT: either). Errors: NULL pointers or an
 * unknown kind ACL_ERROR_INVALID_PARAM; count or destMax 0, count > destMax, a
 * side that is not the memory its kind says ACL_ERROR_RT_PARAM_INVALID. */
ACL_FUNC_VISIBILITY aclError aclrtMemcpy(void *dst, size_t destMax,
                                         const void *src, size_t count,
                                         aclrtMemcpyKind kind);
/* As aclrtMemcpy, queued on `stream` (NULL: the default stream); both sides
 * must stay valid until it has run (device and aclrtMallocHost memory cannot
 * be freed before). */
ACL_FUNC_VISIBILITY aclError aclrtMemcpyAsync(void *dst, size_t destMax,
                                              const void *src, size_t count,
                                              aclrtMemcpyKind kind,
                                              aclrtStream stream);
/* Sets `count` bytes of aclrtMalloc or aclrtMallocHost memory to (uint8_t)
 * value. count > maxCount, or a range outside the allocation:
 * ACL_ERROR_RT_PARAM_INVALID. Needs a current context. */
ACL_FUNC_VISIBILITY aclError aclrtMemset(void *devPtr, size_t maxCount,
                                         int32_t value, size_t count);
/* As aclrtMemset (the same checks, now), queued on `stream` (NULL: the
 * default stream); the memory must stay allocated until it has run. */
ACL_FUNC_VISIBILITY aclError aclrtMemsetAsync(void *devPtr, size_t maxCount,
                                              int32_t value, size_t count,
                                              aclrtStream stream);
/* The host's available and total memory in bytes, whatever `attr` (a valid
 * aclrtMemAttr). Needs a current context. */
ACL_FUNC_VISIBILITY aclError aclrtGetMemInfo(aclrtMemAttr attr, size_t *free,
                                             size_t *total);

/* ---- Callbacks ---- */

/* Makes the thread `threadId` ((uint64_t)pthread_self() of the thread that
 * will call aclrtProcessReport) the one that runs the callbacks of `stream`
 * (NULL: the default stream). ACL_ERROR_RT_STREAM_SUBSCRIBE when the stream is
 * subscribed already. A thread may serve several streams. */
ACL_FUNC_VISIBILITY aclError aclrtSubscribeReport(uint64_t threadId,
                                                  aclrtStream stream);
/* Queues fn(userData) on `stream`: when the work before it has run, the
 * subscribed thread runs it inside aclrtProcessReport. ACL_CALLBACK_BLOCK:
 * later work on the stream waits until it has returned. NULL fn or another
 * block type: ACL_ERROR_INVALID_PARAM; a stream without subscriber:
 * ACL_ERROR_RT_STREAM_NO_CB_REG. */
ACL_FUNC_VISIBILITY aclError
aclrtLaunchCallback(aclrtCallback fn, void *userData,
                    aclrtCallbackBlockType blockType, aclrtStream stream);
/* Runs the callbacks waiting for the calling thread, waiting up to `timeout`
 * ms (-1: no limit) for the first. ACL_ERROR_RT_REPORT_TIMEOUT when none came;
 * ACL_ERROR_RT_THREAD_SUBSCRIBE when the thread serves no stream;
 * ACL_ERROR_INVALID_PARAM for timeout 0 or < -1; ACL_ERROR_UNINITIALIZE when
 * aclFinalize ends the runtime while it waits. */
ACL_FUNC_VISIBILITY aclError aclrtProcessReport(int32_t timeout);
/* Ends the subscription (callbacks not yet processed are dropped).
 * ACL_ERROR_RT_STREAM_SUBSCRIBE when the stream is not subscribed,
 * ACL_ERROR_RT_THREAD_SUBSCRIBE when another thread is its subscriber. */
ACL_FUNC_VISIBILITY aclError aclrtUnSubscribeReport(uint64_t threadId,
                                                    aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLDUMP_ACL_RT_H_ */
