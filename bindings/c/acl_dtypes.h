// aclDataType <-> acldump DType, for the C ABI and the C++ tools built on it.
#ifndef ACLDUMP_BINDINGS_C_ACL_DTYPES_H_
#define ACLDUMP_BINDINGS_C_ACL_DTYPES_H_

#include <optional>

#include "acl/acl_base.h"
#include "kernels/dtype.h"

namespace acldump {

// nullopt for types acldump has no tensors of (ACL_STRING, ACL_COMPLEX64, ...).
std::optional<DType> FromAclDataType(aclDataType type);
aclDataType ToAclDataType(DType type);

}  // namespace acldump

#endif  // ACLDUMP_BINDINGS_C_ACL_DTYPES_H_
