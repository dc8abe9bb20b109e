// Element types of tensors, their sizes and names, and their ONNX numbers.
#ifndef ACLDUMP_KERNELS_DTYPE_H_
#define ACLDUMP_KERNELS_DTYPE_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace acldump {

enum class DType : uint8_t {
  kUndefined = 0,
  kFloat32,
  kFloat16,
  kBFloat16,
  kFloat64,
  kInt8,
  kInt16,
  kInt32,
  kInt64,
  kUInt8,
  kBool,
  // Appended: the numbers above must not move.
  kUInt16,
  kUInt32,
  kUInt64,
};

inline constexpr DType kAllDTypes[] = {
    DType::kFloat32, DType::kFloat16, DType::kBFloat16, DType::kFloat64,
    DType::kInt8,    DType::kInt16,   DType::kInt32,    DType::kInt64,
    DType::kUInt8,   DType::kUInt16,  DType::kUInt32,   DType::kUInt64,
    DType::kBool};

// Bytes per element; 0 for kUndefined.
size_t DTypeSize(DType dtype);
// Lower-case name used in messages and the CLI: "float32", "float16", ...
std::string_view DTypeName(DType dtype);
std::optional<DType> DTypeFromName(std::string_view name);
bool IsFloating(DType dtype);

// ONNX TensorProto.DataType numbers, e.g. kFloat32 -> FLOAT = 1.
int32_t ToOnnxDataType(DType dtype);
std::optional<DType> FromOnnxDataType(int32_t onnx_data_type);

}  // namespace acldump

#endif  // ACLDUMP_KERNELS_DTYPE_H_
