#include "dump/format/data_type.h"

#include <gtest/gtest.h>

namespace acldump {
namespace {

TEST(DumpDataTypeTest, NumbersAndNamesOfTheFormat) {
  EXPECT_EQ(ToDumpDataType(DType::kFloat32), 1);
  EXPECT_EQ(ToDumpDataType(DType::kFloat16), 2);
  EXPECT_EQ(ToDumpDataType(DType::kInt8), 3);
  EXPECT_EQ(ToDumpDataType(DType::kUInt8), 4);
  EXPECT_EQ(ToDumpDataType(DType::kInt16), 5);
  EXPECT_EQ(ToDumpDataType(DType::kUInt16), 6);
  EXPECT_EQ(ToDumpDataType(DType::kInt32), 7);
  EXPECT_EQ(ToDumpDataType(DType::kInt64), 8);
  EXPECT_EQ(ToDumpDataType(DType::kUInt32), 9);
  EXPECT_EQ(ToDumpDataType(DType::kUInt64), 10);
  EXPECT_EQ(DumpDataTypeName(10), "DT_UINT64");
  EXPECT_EQ(ToDumpDataType(DType::kBool), 11);
  EXPECT_EQ(ToDumpDataType(DType::kFloat64), 12);
  EXPECT_EQ(ToDumpDataType(DType::kBFloat16), 27);
  EXPECT_EQ(ToDumpDataType(DType::kUndefined), 0);
  EXPECT_EQ(DumpDataTypeName(27), "DT_BF16");
  EXPECT_EQ(DumpDataTypeName(12), "DT_DOUBLE");
  EXPECT_EQ(DumpDataTypeName(40), "DT_FLOAT4_E1M2");
  EXPECT_EQ(DumpDataTypeName(41), "DT_UNDEFINED");
  EXPECT_EQ(DumpDataTypeName(-1), "DT_UNDEFINED");
  for (DType dtype : kAllDTypes) {
    EXPECT_EQ(FromDumpDataType(ToDumpDataType(dtype)), dtype);
  }
  EXPECT_FALSE(FromDumpDataType(13).has_value());  // DT_STRING
}

}  // namespace
}  // namespace acldump
