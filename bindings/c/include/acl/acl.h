/*
 * acldump C ABI: process initialisation, and the umbrella header.
 */
#ifndef ACLDUMP_ACL_H_
#define ACLDUMP_ACL_H_

#include "acl/acl_base.h"
#include "acl/acl_mdl.h"
#include "acl/acl_op.h"
#include "acl/acl_rt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ACL_MAJOR_VERSION, ACL_MINOR_VERSION, ACL_PATCH_VERSION and
 * ACLDUMP_VERSION_STRING: the release this header belongs to. */
#include "acl/acl_version.h"

/* Initialises the library. configPath may be NULL or "" (no config), or a JSON
 * file whose "dump" section configures dump for the whole process (models
 * loaded outside an aclmdlInitDump session with its own aclmdlSetDump dump as
 * it says). Checked in this order: ACL_ERROR_REPEAT_INITIALIZE before
 * aclFinalize; ACL_ERROR_INVALID_FILE for a file that cannot be read;
 * ACL_ERROR_INVALID_PARAM when the file's content differs from that of the
 * first successful aclInit of the process (NULL and "" count as empty content;
 * the same content may be given again after aclFinalize, as in the SDK);
 * ACL_ERROR_PARSE_FILE when the text is not JSON (or nested too deeply);
 * ACL_ERROR_INVALID_DUMP_CONFIG when its dump section breaks a rule. */
ACL_FUNC_VISIBILITY aclError aclInit(const char *configPath);
/* Destroys every context, stream and event (queued work runs first), unloads
 * every model, ends dump sessions (writing everything queued;
 * ACL_ERROR_WRITE_FILE if data could not be written) and releases the library.
 * Safe while other threads are inside acl calls: those finish with the state
 * they started with, calls starting afterwards get ACL_ERROR_UNINITIALIZE.
 * ACL_ERROR_REPEAT_FINALIZE when not initialised. aclInit may be called again
 * afterwards. Memory from aclrtMalloc/aclrtMallocHost stays allocated. */
ACL_FUNC_VISIBILITY aclError aclFinalize(void);

/* Writes the library's version (ACL_MAJOR_VERSION, ACL_MINOR_VERSION,
 * ACL_PATCH_VERSION). ACL_ERROR_INVALID_PARAM for a NULL output. */
ACL_FUNC_VISIBILITY aclError aclrtGetVersion(int32_t *majorVersion,
                                             int32_t *minorVersion,
                                             int32_t *patchVersion);

#ifdef __cplusplus
}
#endif

#endif /* ACLDUMP_ACL_H_ */
