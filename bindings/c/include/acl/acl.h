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

#define ACL_MAJOR_VERSION 1
#define ACL_MINOR_VERSION 0
#define ACL_PATCH_VERSION 0

/* Initialises the library. configPath may be NULL or "" (no config), or a JSON
 * file whose "dump" section configures dump for the whole process (S6; then
 * aclmdlInitDump fails with ACL_ERROR_DUMP_ALREADY_RUN). A second call before
 * aclFinalize fails with ACL_ERROR_REPEAT_INITIALIZE. Config errors as for
 * aclmdlSetDump. */
ACL_FUNC_VISIBILITY aclError aclInit(const char *configPath);
/* Unloads every model, ends dump sessions (writing everything queued;
 * ACL_ERROR_WRITE_FILE if data could not be written) and releases the library.
 * ACL_ERROR_REPEAT_FINALIZE when not initialised. aclInit may be called again
 * afterwards. */
ACL_FUNC_VISIBILITY aclError aclFinalize(void);
ACL_FUNC_VISIBILITY aclError aclrtGetVersion(int32_t *majorVersion,
                                             int32_t *minorVersion,
                                             int32_t *patchVersion);

#ifdef __cplusplus
}
#endif

#endif /* ACLDUMP_ACL_H_ */
