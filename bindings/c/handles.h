// The C ABI's opaque handle types (declared in the public headers, defined
// here for the files that implement them).
#ifndef ACLDUMP_BINDINGS_C_HANDLES_H_
#define ACLDUMP_BINDINGS_C_HANDLES_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "kernels/attributes.h"

struct aclDataBuffer {
  void* data = nullptr;
  size_t size = 0;
};

struct aclmdlDataset {
  std::vector<aclDataBuffer*> buffers;
};

struct aclmdlDesc {
  struct Io {
    std::string name;
    aclDataType data_type = ACL_DT_UNDEFINED;
    aclFormat format = ACL_FORMAT_ND;
    std::vector<int64_t> dims;
    size_t size = 0;
  };
  std::vector<Io> inputs;
  std::vector<Io> outputs;
};

struct aclTensorDesc {
  aclDataType data_type = ACL_DT_UNDEFINED;  // checked at creation
  std::vector<int64_t> dims;
  int32_t format = ACL_FORMAT_ND;  // as the caller gave it (any number)
  std::string name;
};

struct aclopAttr {
  acldump::Attributes attrs;
};

#endif  // ACLDUMP_BINDINGS_C_HANDLES_H_
