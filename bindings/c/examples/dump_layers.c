/* Dumps the layers an acl.json selects while running a model once. */
#include <stdio.h>
#include <stdlib.h>
#include "acl/acl.h"

#define TRY(call) do { aclError e = (call); if (e != ACL_SUCCESS) { \
  fprintf(stderr, "%s: %d %s\n", #call, e, aclGetRecentErrMsg()); return 1; } } while (0)

int main(int argc, char **argv) {
  if (argc != 3) { fprintf(stderr, "usage: %s model.om acl.json\n", argv[0]); return 2; }
  uint32_t id;
  TRY(aclInit(NULL));
  TRY(aclmdlInitDump());
  TRY(aclmdlSetDump(argv[2]));          /* applies to models loaded from now on */
  TRY(aclmdlLoadFromFile(argv[1], &id));
  aclmdlDesc *desc = aclmdlCreateDesc();
  TRY(aclmdlGetDesc(desc, id));
  aclmdlDataset *in = aclmdlCreateDataset(), *out = aclmdlCreateDataset();
  for (size_t i = 0; i < aclmdlGetNumInputs(desc); ++i) {
    size_t n = aclmdlGetInputSizeByIndex(desc, i);
    TRY(aclmdlAddDatasetBuffer(in, aclCreateDataBuffer(calloc(1, n), n)));
  }
  for (size_t i = 0; i < aclmdlGetNumOutputs(desc); ++i) {
    size_t n = aclmdlGetOutputSizeByIndex(desc, i);
    TRY(aclmdlAddDatasetBuffer(out, aclCreateDataBuffer(calloc(1, n), n)));
  }
  TRY(aclmdlExecute(id, in, out));
  TRY(aclmdlFinalizeDump());            /* every dump file is on disk now */
  TRY(aclmdlUnload(id));
  TRY(aclFinalize());
  printf("done\n");
  return 0;                             /* (buffers are left to the OS in this example) */
}
