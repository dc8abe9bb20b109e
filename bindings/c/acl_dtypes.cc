#include "acl_dtypes.h"

namespace acldump {
namespace {

struct Pair {
  aclDataType acl;
  DType dtype;
};

constexpr Pair kPairs[] = {
    {ACL_FLOAT, DType::kFloat32}, {ACL_FLOAT16, DType::kFloat16},
    {ACL_BF16, DType::kBFloat16}, {ACL_DOUBLE, DType::kFloat64},
    {ACL_INT8, DType::kInt8},     {ACL_INT16, DType::kInt16},
    {ACL_INT32, DType::kInt32},   {ACL_INT64, DType::kInt64},
    {ACL_UINT8, DType::kUInt8},   {ACL_UINT16, DType::kUInt16},
    {ACL_UINT32, DType::kUInt32}, {ACL_UINT64, DType::kUInt64},
    {ACL_BOOL, DType::kBool},
};

}  // namespace

std::optional<DType> FromAclDataType(aclDataType type) {
  for (const Pair& pair : kPairs) {
    if (pair.acl == type) return pair.dtype;
  }
  return std::nullopt;
}

aclDataType ToAclDataType(DType type) {
  for (const Pair& pair : kPairs) {
    if (pair.dtype == type) return pair.acl;
  }
  return ACL_DT_UNDEFINED;
}

}  // namespace acldump
