/* The status every cgo helper of package acldump returns: the code together
 * with the recent error message, copied in the same cgo call (the message is
 * thread-local in C, and a goroutine may run on another OS thread by its next
 * cgo call). The helpers of the ordinary calls are generated from
 * bindings/calls.py (calls_gen.h); those below are the special ones: Go memory,
 * callbacks, structs of the dump API. */
#ifndef ACLDUMP_GO_CALLS_H_
#define ACLDUMP_GO_CALLS_H_

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"
#include "acl/acl_dump.h"

typedef struct {
  aclError code;
  char *
      message; /* malloc'd copy when code != ACL_SUCCESS (free it), else NULL */
} acldump_status;

static inline acldump_status acldump_status_of(aclError code) {
  acldump_status status = {code, NULL};
  if (code != ACL_SUCCESS) status.message = strdup(aclGetRecentErrMsg());
  return status;
}

/* For functions that fail by returning NULL and leaving a message but no code.
 */
static inline acldump_status acldump_status_of_handle(const void *handle) {
  return acldump_status_of(handle != NULL ? ACL_SUCCESS : ACL_ERROR_FAILURE);
}

/* For functions that fail only by leaving a message (they clear it first). */
static inline acldump_status acldump_status_of_message(void) {
  return acldump_status_of(aclGetRecentErrMsg()[0] != '\0' ? ACL_ERROR_FAILURE
                                                           : ACL_SUCCESS);
}

/* ---- Go memory: a model in a []byte, copies to and from Go slices ---- */

static inline acldump_status acldump_load_from_mem(const void *model,
                                                   size_t size, uint32_t *id) {
  return acldump_status_of(aclmdlLoadFromMem(model, size, id));
}
static inline acldump_status acldump_memcpy(uintptr_t dst, size_t dest_max,
                                            const void *src, size_t count,
                                            int kind) {
  return acldump_status_of(
      aclrtMemcpy((void *)dst, dest_max, src, count, (aclrtMemcpyKind)kind));
}
static inline acldump_status acldump_memcpy_to(void *dst, size_t dest_max,
                                               uintptr_t src, size_t count,
                                               int kind) {
  return acldump_status_of(aclrtMemcpy(dst, dest_max, (const void *)src, count,
                                       (aclrtMemcpyKind)kind));
}

/* ---- Data buffers over C memory, datasets ---- */

static inline acldump_status acldump_create_data_buffer(uintptr_t memory,
                                                        size_t size,
                                                        uintptr_t *buffer) {
  *buffer = (uintptr_t)aclCreateDataBuffer((void *)memory, size);
  return acldump_status_of_handle((const void *)*buffer);
}
static inline acldump_status acldump_add_dataset_buffer(uintptr_t dataset,
                                                        uintptr_t buffer) {
  return acldump_status_of(aclmdlAddDatasetBuffer((aclmdlDataset *)dataset,
                                                  (aclDataBuffer *)buffer));
}
static inline void acldump_destroy_desc(uintptr_t desc) {
  aclmdlDestroyDesc((aclmdlDesc *)desc);
}

/* ---- Callbacks ---- */

static inline uint64_t acldump_thread_id(void) {
  return (uint64_t)pthread_self();
}

/* ---- acl_dump.h ---- */

/* In callbacks.c: registers the trampoline that calls acldumpDeliverChunk. */
acldump_status acldump_reg_dump_callback(int32_t flag);
static inline void acldump_unreg_dump_callback(void) { acldumpUnregCallback(); }
static inline const void *acldump_chunk_data(const acldumpChunk *chunk) {
  return chunk->dataBuf;
}
static inline acldump_status acldump_exception_info_path(char *path,
                                                         size_t size) {
  return acldump_status_of(acldumpGetExceptionInfoPath(path, size));
}

static inline acldump_status acldump_save_exception_info(
    const char *name, const char *tag, const acldumpTensorInfo *tensors,
    size_t count) {
  return acldump_status_of(acldumpSaveExceptionInfo(name, tag, tensors, count));
}

/* ---- The context the program selected (device.c, device.go) ---- */

/* Makes the selected context, if any, the calling thread's current one. */
aclError acldump_go_use_selection(void);
/* The runtime's calls, keeping the selection as they change the current context. */
aclError acldump_go_set_device(int32_t deviceId);
aclError acldump_go_reset_device(int32_t deviceId);
aclError acldump_go_get_device(int32_t *deviceId);
aclError acldump_go_create_context(aclrtContext *context, int32_t deviceId);
aclError acldump_go_set_current_context(aclrtContext context);
aclError acldump_go_destroy_context(aclrtContext context);
aclError acldump_go_finalize(void);

/* Every call of these in the package's C code, the helpers generated from the table
 * (calls_gen.h, which includes this header first) among them, is one of the functions above:
 * SetDevice, ResetDevice, Device, NewContext, Context.SetCurrent, Context.Close and Finalize
 * keep the selection whichever OS thread runs them. */
#ifndef ACLDUMP_GO_DEVICE_C
#define aclrtSetDevice acldump_go_set_device
#define aclrtResetDevice acldump_go_reset_device
#define aclrtGetDevice acldump_go_get_device
#define aclrtCreateContext acldump_go_create_context
#define aclrtSetCurrentContext acldump_go_set_current_context
#define aclrtDestroyContext acldump_go_destroy_context
#define aclFinalize acldump_go_finalize
#endif

#endif /* ACLDUMP_GO_CALLS_H_ */
