#include "dump/format/data_type.h"

#include <array>
#include <utility>

namespace acldump {
namespace {

constexpr std::array<std::pair<DType, int32_t>, 13> kNumbers = {{
    {DType::kFloat32, 1},
    {DType::kFloat16, 2},
    {DType::kInt8, 3},
    {DType::kUInt8, 4},
    {DType::kInt16, 5},
    {DType::kUInt16, 6},
    {DType::kInt32, 7},
    {DType::kInt64, 8},
    {DType::kUInt32, 9},
    {DType::kUInt64, 10},
    {DType::kBool, 11},
    {DType::kFloat64, 12},
    {DType::kBFloat16, 27},
}};

constexpr std::array<std::string_view, 41> kNames = {
    "DT_UNDEFINED",   "DT_FLOAT",       "DT_FLOAT16",       "DT_INT8",
    "DT_UINT8",       "DT_INT16",       "DT_UINT16",        "DT_INT32",
    "DT_INT64",       "DT_UINT32",      "DT_UINT64",        "DT_BOOL",
    "DT_DOUBLE",      "DT_STRING",      "DT_DUAL_SUB_INT8", "DT_DUAL_SUB_UINT8",
    "DT_COMPLEX64",   "DT_COMPLEX128",  "DT_QINT8",         "DT_QINT16",
    "DT_QINT32",      "DT_QUINT8",      "DT_QUINT16",       "DT_RESOURCE",
    "DT_STRING_REF",  "DT_DUAL",        "DT_VARIANT",       "DT_BF16",
    "DT_INT4",        "DT_UINT1",       "DT_INT2",          "DT_UINT2",
    "DT_COMPLEX32",   "DT_HIFLOAT8",    "DT_FLOAT8_E5M2",   "DT_FLOAT8_E4M3FN",
    "DT_FLOAT8_E8M0", "DT_FLOAT6_E3M2", "DT_FLOAT6_E2M3",   "DT_FLOAT4_E2M1",
    "DT_FLOAT4_E1M2",
};

}  // namespace

int32_t ToDumpDataType(DType dtype) {
  for (const auto& [type, number] : kNumbers) {
    if (type == dtype) return number;
  }
  return 0;
}

std::optional<DType> FromDumpDataType(int32_t dump_data_type) {
  for (const auto& [type, number] : kNumbers) {
    if (number == dump_data_type) return type;
  }
  return std::nullopt;
}

std::string_view DumpDataTypeName(int32_t dump_data_type) {
  if (dump_data_type < 0 ||
      dump_data_type >= static_cast<int32_t>(kNames.size())) {
    return kNames[0];
  }
  return kNames[dump_data_type];
}

}  // namespace acldump
