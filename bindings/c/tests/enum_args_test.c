/*
 * Enum arguments a C caller may pass with any int value (C allows it; the
 * library must neither trust nor crash on them): each is refused with
 * ACL_ERROR_INVALID_PARAM and a message naming the value, or kept as given.
 */
#include <stdio.h>
#include <string.h>

#include "acl/acl.h"

static int failures = 0;

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                              \
    }                                                                          \
  } while (0)

static void Nothing(void *data) { (void)data; }

int main(void) {
  const int64_t dims[] = {2, 3};
  char in[64] = {0};
  void *device = NULL;
  size_t free_bytes = 0, total = 0;
  aclTensorDesc *desc = NULL;
  CHECK(aclInit(NULL) == ACL_SUCCESS);
  CHECK(aclrtSetDevice(0) == ACL_SUCCESS);

  CHECK(aclCreateTensorDesc((aclDataType)999, 2, dims, ACL_FORMAT_ND) == NULL);
  CHECK(strstr(aclGetRecentErrMsg(), "data type 999 is not an aclDataType") !=
        NULL);
  CHECK(aclDataTypeSize((aclDataType)999) == 0);
  /* An unknown format number is kept as given (the SDK has more formats). */
  desc = aclCreateTensorDesc(ACL_FLOAT, 2, dims, (aclFormat)999);
  CHECK(desc != NULL && (int)aclGetTensorDescFormat(desc) == 999);
  aclDestroyTensorDesc(desc);

  CHECK(aclrtMalloc(&device, 64, (aclrtMemMallocPolicy)12345) == ACL_SUCCESS);
  CHECK(aclrtMemcpy(device, 64, in, 64, (aclrtMemcpyKind)9) ==
        ACL_ERROR_INVALID_PARAM);
  CHECK(strstr(aclGetRecentErrMsg(), "copy kind 9") != NULL);
  CHECK(aclrtMemcpyAsync(device, 64, in, 64, (aclrtMemcpyKind)-1, NULL) ==
        ACL_ERROR_INVALID_PARAM);
  CHECK(aclrtLaunchCallback(Nothing, NULL, (aclrtCallbackBlockType)2, NULL) ==
        ACL_ERROR_INVALID_PARAM);
  CHECK(strstr(aclGetRecentErrMsg(), "blockType 2") != NULL);
  CHECK(aclrtGetMemInfo((aclrtMemAttr)99, &free_bytes, &total) ==
        ACL_ERROR_INVALID_PARAM);
  CHECK(aclrtFree(device) == ACL_SUCCESS);
  CHECK(aclrtResetDevice(0) == ACL_SUCCESS);
  CHECK(aclFinalize() == ACL_SUCCESS);
  if (failures > 0) {
    fprintf(stderr, "%d check(s) failed\n", failures);
    return 1;
  }
  printf("enum_args_test: all checks passed\n");
  return 0;
}
