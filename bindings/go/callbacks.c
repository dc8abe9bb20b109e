/* Stream callbacks with Go functions: the runtime calls a C trampoline with
 * the callback's id, which calls back into Go (acldumpRunCallback). */
#include "_cgo_export.h"
#include "acl/acl.h"
#include "calls.h"

static void acldump_trampoline(void *id) { acldumpRunCallback((uintptr_t)id); }

acldump_status acldump_launch_callback(uintptr_t stream, uintptr_t id,
                                       int block) {
  return acldump_status_of(aclrtLaunchCallback(
      acldump_trampoline, (void *)id,
      block ? ACL_CALLBACK_BLOCK : ACL_CALLBACK_NO_BLOCK, (aclrtStream)stream));
}

/* Dump chunks for the Go function of RegisterDumpCallback
 * (acldumpDeliverChunk). */
static int32_t acldump_dump_trampoline(const acldumpChunk *chunk,
                                       int32_t length) {
  (void)length;
  return acldumpDeliverChunk((acldumpChunk *)chunk);
}

acldump_status acldump_reg_dump_callback(int32_t flag) {
  return acldump_status_of(acldumpRegCallback(acldump_dump_trampoline, flag));
}
