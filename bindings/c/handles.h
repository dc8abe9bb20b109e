// The C ABI's opaque handle types (declared in the public headers, defined
// here for the files that implement them).
#ifndef ACLDUMP_BINDINGS_C_HANDLES_H_
#define ACLDUMP_BINDINGS_C_HANDLES_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "kernels/aipp.h"
#include "kernels/attributes.h"
#include "runtime/graph.h"

struct aclDataBuffer {
  void* data = nullptr;
  size_t size = 0;
};

struct aclmdlDataset {
  std::vector<aclDataBuffer*> buffers;
};

// Dynamic AIPP parameters: one BatchParams per image.
struct aclmdlAIPP {
  acldump::aipp::Params params;
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
  // Of the model described (aclmdlGetDesc): its id, and for a dynamic model
  // its gears and each gear's output dims.
  uint32_t model_id = 0;
  acldump::GearKind gear_kind = acldump::GearKind::kNone;
  std::vector<std::vector<int64_t>> gears;
  std::vector<std::vector<std::vector<int64_t>>> gear_output_dims;
  // A dims model's gears as aclmdlGetInputDynamicDims gives them: every
  // input's dims at the gear, one after another.
  std::vector<std::vector<int64_t>> gear_input_dims;
};

struct aclTensorDesc {
  aclDataType data_type = ACL_DT_UNDEFINED;  // checked at creation
  std::vector<int64_t> dims;
  int32_t format = ACL_FORMAT_ND;  // as the caller gave it (any number)
  std::string name;
  // aclSetTensorConst: the value, copied; an input described by this desc
  // and given no buffer reads it.
  std::optional<std::string> const_data;
};

struct aclopAttr {
  acldump::Attributes attrs;
};

#endif  // ACLDUMP_BINDINGS_C_HANDLES_H_
