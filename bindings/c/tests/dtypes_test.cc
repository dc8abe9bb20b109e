// aclDataType <-> DType: every tensor type has its SDK number and back.
#include <gtest/gtest.h>

#include "bindings/c/acl_dtypes.h"

namespace acldump {
namespace {

TEST(AclDataTypeTest, EveryDTypeMapsBothWays) {
  for (DType dtype : kAllDTypes) {
    const aclDataType acl = ToAclDataType(dtype);
    EXPECT_NE(acl, ACL_DT_UNDEFINED) << DTypeName(dtype);
    EXPECT_EQ(FromAclDataType(acl), dtype) << DTypeName(dtype);
  }
  EXPECT_EQ(ToAclDataType(DType::kUInt16), ACL_UINT16);
  EXPECT_EQ(ToAclDataType(DType::kUInt32), ACL_UINT32);
  EXPECT_EQ(ToAclDataType(DType::kUInt64), ACL_UINT64);
  EXPECT_EQ(FromAclDataType(ACL_UINT64), DType::kUInt64);
  EXPECT_FALSE(FromAclDataType(ACL_STRING).has_value());
  EXPECT_FALSE(FromAclDataType(ACL_COMPLEX64).has_value());
  EXPECT_EQ(ToAclDataType(DType::kUndefined), ACL_DT_UNDEFINED);
}

}  // namespace
}  // namespace acldump
