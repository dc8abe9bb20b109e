#include "kernels/dtype.h"

#include <array>

namespace acldump {
namespace {

struct DTypeInfo {
  DType dtype;
  size_t size;
  std::string_view name;
  int32_t dump_type;
  int32_t onnx_type;
};

constexpr std::array<DTypeInfo, 10> kInfos = {{
    {DType::kFloat32, 4, "float32", 1, 1},
    {DType::kFloat16, 2, "float16", 2, 10},
    {DType::kBFloat16, 2, "bfloat16", 27, 16},
    {DType::kFloat64, 8, "float64", 12, 11},
    {DType::kInt8, 1, "int8", 3, 3},
    {DType::kInt16, 2, "int16", 5, 5},
    {DType::kInt32, 4, "int32", 7, 6},
    {DType::kInt64, 8, "int64", 8, 7},
    {DType::kUInt8, 1, "uint8", 4, 2},
    {DType::kBool, 1, "bool", 11, 9},
}};

const DTypeInfo* Find(DType dtype) {
  for (const DTypeInfo& info : kInfos) {
    if (info.dtype == dtype) return &info;
  }
  return nullptr;
}

constexpr std::array<std::string_view, 41> kDumpTypeNames = {
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

size_t DTypeSize(DType dtype) {
  const DTypeInfo* info = Find(dtype);
  return info ? info->size : 0;
}

std::string_view DTypeName(DType dtype) {
  const DTypeInfo* info = Find(dtype);
  return info ? info->name : "undefined";
}

std::optional<DType> DTypeFromName(std::string_view name) {
  for (const DTypeInfo& info : kInfos) {
    if (info.name == name) return info.dtype;
  }
  return std::nullopt;
}

bool IsFloating(DType dtype) {
  return dtype == DType::kFloat32 || dtype == DType::kFloat16 ||
         dtype == DType::kBFloat16 || dtype == DType::kFloat64;
}

int32_t ToDumpDataType(DType dtype) {
  const DTypeInfo* info = Find(dtype);
  return info ? info->dump_type : 0;
}

std::optional<DType> FromDumpDataType(int32_t dump_data_type) {
  for (const DTypeInfo& info : kInfos) {
    if (info.dump_type == dump_data_type) return info.dtype;
  }
  return std::nullopt;
}

std::string_view DumpDataTypeName(int32_t dump_data_type) {
  if (dump_data_type < 0 ||
      dump_data_type >= static_cast<int32_t>(kDumpTypeNames.size())) {
    return kDumpTypeNames[0];
  }
  return kDumpTypeNames[dump_data_type];
}

int32_t ToOnnxDataType(DType dtype) {
  const DTypeInfo* info = Find(dtype);
  return info ? info->onnx_type : 0;
}

std::optional<DType> FromOnnxDataType(int32_t onnx_data_type) {
  for (const DTypeInfo& info : kInfos) {
    if (info.onnx_type == onnx_data_type) return info.dtype;
  }
  return std::nullopt;
}

}  // namespace acldump
