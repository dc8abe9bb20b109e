/* The acl calls of package acldump, each returning its code together with the
 * recent error message, copied in the same cgo call: the message is
 * thread-local in C, and a goroutine may run on another OS thread by its next
 * cgo call. */
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

static inline acldump_status acldump_init(const char *config) {
  return acldump_status_of(aclInit(config));
}
static inline acldump_status acldump_get_version(int32_t *major, int32_t *minor,
                                                 int32_t *patch) {
  return acldump_status_of(aclrtGetVersion(major, minor, patch));
}
static inline acldump_status acldump_finalize(void) {
  return acldump_status_of(aclFinalize());
}
static inline acldump_status acldump_init_dump(void) {
  return acldump_status_of(aclmdlInitDump());
}
static inline acldump_status acldump_set_dump(const char *path) {
  return acldump_status_of(aclmdlSetDump(path));
}
static inline acldump_status acldump_finalize_dump(void) {
  return acldump_status_of(aclmdlFinalizeDump());
}
static inline acldump_status acldump_load_from_file(const char *path,
                                                    uint32_t *id) {
  return acldump_status_of(aclmdlLoadFromFile(path, id));
}
static inline acldump_status acldump_load_from_mem(const void *model,
                                                   size_t size, uint32_t *id) {
  return acldump_status_of(aclmdlLoadFromMem(model, size, id));
}
static inline acldump_status acldump_unload(uint32_t id) {
  return acldump_status_of(aclmdlUnload(id));
}
static inline acldump_status acldump_execute(uint32_t id, uintptr_t input,
                                             uintptr_t output) {
  return acldump_status_of(
      aclmdlExecute(id, (const aclmdlDataset *)input, (aclmdlDataset *)output));
}
static inline acldump_status acldump_create_desc(uintptr_t *desc) {
  *desc = (uintptr_t)aclmdlCreateDesc();
  return acldump_status_of_handle((const void *)*desc);
}
static inline acldump_status acldump_get_desc(uintptr_t desc, uint32_t id) {
  return acldump_status_of(aclmdlGetDesc((aclmdlDesc *)desc, id));
}
static inline acldump_status acldump_malloc(size_t size, uintptr_t *memory) {
  void *address = NULL;
  acldump_status status =
      acldump_status_of(aclrtMalloc(&address, size, ACL_MEM_MALLOC_HUGE_FIRST));
  *memory = (uintptr_t)address;
  return status;
}
static inline acldump_status acldump_free(uintptr_t memory) {
  return acldump_status_of(aclrtFree((void *)memory));
}
static inline acldump_status acldump_create_data_buffer(uintptr_t memory,
                                                        size_t size,
                                                        uintptr_t *buffer) {
  *buffer = (uintptr_t)aclCreateDataBuffer((void *)memory, size);
  return acldump_status_of_handle((const void *)*buffer);
}
static inline acldump_status acldump_create_dataset(uintptr_t *dataset) {
  *dataset = (uintptr_t)aclmdlCreateDataset();
  return acldump_status_of_handle((const void *)*dataset);
}
static inline acldump_status acldump_add_dataset_buffer(uintptr_t dataset,
                                                        uintptr_t buffer) {
  return acldump_status_of(aclmdlAddDatasetBuffer((aclmdlDataset *)dataset,
                                                  (aclDataBuffer *)buffer));
}

/* ---- Runtime: devices, contexts, streams, callbacks, memory ---- */

static inline acldump_status acldump_set_device(int32_t device) {
  return acldump_status_of(aclrtSetDevice(device));
}
static inline acldump_status acldump_reset_device(int32_t device) {
  return acldump_status_of(aclrtResetDevice(device));
}
static inline acldump_status acldump_get_device(int32_t *device) {
  return acldump_status_of(aclrtGetDevice(device));
}
static inline acldump_status acldump_create_context(int32_t device,
                                                    uintptr_t *context) {
  aclrtContext created = NULL;
  acldump_status status =
      acldump_status_of(aclrtCreateContext(&created, device));
  *context = (uintptr_t)created;
  return status;
}
static inline acldump_status acldump_destroy_context(uintptr_t context) {
  return acldump_status_of(aclrtDestroyContext((aclrtContext)context));
}
static inline acldump_status acldump_set_current_context(uintptr_t context) {
  return acldump_status_of(aclrtSetCurrentContext((aclrtContext)context));
}
static inline acldump_status acldump_create_stream(uintptr_t *stream) {
  aclrtStream created = NULL;
  acldump_status status = acldump_status_of(aclrtCreateStream(&created));
  *stream = (uintptr_t)created;
  return status;
}
static inline acldump_status acldump_destroy_stream(uintptr_t stream) {
  return acldump_status_of(aclrtDestroyStream((aclrtStream)stream));
}
static inline acldump_status acldump_synchronize_stream(uintptr_t stream) {
  return acldump_status_of(aclrtSynchronizeStream((aclrtStream)stream));
}
static inline acldump_status acldump_subscribe_report(uint64_t thread,
                                                      uintptr_t stream) {
  return acldump_status_of(aclrtSubscribeReport(thread, (aclrtStream)stream));
}
static inline acldump_status acldump_unsubscribe_report(uint64_t thread,
                                                        uintptr_t stream) {
  return acldump_status_of(aclrtUnSubscribeReport(thread, (aclrtStream)stream));
}
static inline acldump_status acldump_process_report(int32_t timeout) {
  return acldump_status_of(aclrtProcessReport(timeout));
}
static inline uint64_t acldump_thread_id(void) {
  return (uint64_t)pthread_self();
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

/* ---- Models in caller memory, on streams ---- */

static inline acldump_status acldump_query_size(const char *path, size_t *work,
                                                size_t *weight) {
  return acldump_status_of(aclmdlQuerySize(path, work, weight));
}
static inline acldump_status acldump_load_with_mem(const char *path,
                                                   uint32_t *id, uintptr_t work,
                                                   size_t work_size,
                                                   uintptr_t weight,
                                                   size_t weight_size) {
  return acldump_status_of(aclmdlLoadFromFileWithMem(
      path, id, (void *)work, work_size, (void *)weight, weight_size));
}
static inline acldump_status acldump_execute_async(uint32_t id, uintptr_t input,
                                                   uintptr_t output,
                                                   uintptr_t stream) {
  return acldump_status_of(aclmdlExecuteAsync(id, (const aclmdlDataset *)input,
                                              (aclmdlDataset *)output,
                                              (aclrtStream)stream));
}
static inline acldump_status acldump_index_by_name(uintptr_t desc,
                                                   const char *name, int input,
                                                   size_t *index) {
  return acldump_status_of(
      input
          ? aclmdlGetInputIndexByName((const aclmdlDesc *)desc, name, index)
          : aclmdlGetOutputIndexByName((const aclmdlDesc *)desc, name, index));
}

/* ---- acl_dump.h ---- */

/* In callbacks.c: registers the trampoline that calls acldumpDeliverChunk. */
acldump_status acldump_reg_dump_callback(int32_t flag);
static inline void acldump_unreg_dump_callback(void) { acldumpUnregCallback(); }
static inline const void *acldump_chunk_data(const acldumpChunk *chunk) {
  return chunk->dataBuf;
}
/* The path, or NULL with the message in *status. */
static inline const char *acldump_get_path(int type, acldump_status *status) {
  const char *path = acldumpGetPath((acldumpType)type);
  *status = acldump_status_of_handle(path);
  return path;
}
static inline acldump_status acldump_exception_info_path(char *path,
                                                         size_t size) {
  return acldump_status_of(acldumpGetExceptionInfoPath(path, size));
}

static inline acldump_status acldump_save_exception_info(
    const char *name, const char *tag, const acldumpTensorInfo *tensors,
    size_t count) {
  return acldump_status_of(
      acldumpSaveExceptionInfo(name, tag, tensors, count));
}

#endif /* ACLDUMP_GO_CALLS_H_ */
