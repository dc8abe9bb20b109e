#include "kernels/dtype.h"

#include <array>

namespace acldump {
namespace {

struct DTypeInfo {
  DType dtype;
  size_t size;
  std::string_view name;
  int32_t onnx_type;
};

constexpr std::array<DTypeInfo, 13> kInfos = {{
    {DType::kFloat32, 4, "float32", 1},
    {DType::kFloat16, 2, "float16", 10},
    {DType::kBFloat16, 2, "bfloat16", 16},
    {DType::kFloat64, 8, "float64", 11},
    {DType::kInt8, 1, "int8", 3},
    {DType::kInt16, 2, "int16", 5},
    {DType::kInt32, 4, "int32", 6},
    {DType::kInt64, 8, "int64", 7},
    {DType::kUInt8, 1, "uint8", 2},
    {DType::kUInt16, 2, "uint16", 4},
    {DType::kUInt32, 4, "uint32", 12},
    {DType::kUInt64, 8, "uint64", 13},
    {DType::kBool, 1, "bool", 9},
}};

const DTypeInfo* Find(DType dtype) {
  for (const DTypeInfo& info : kInfos) {
    if (info.dtype == dtype) return &info;
  }
  return nullptr;
}

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
