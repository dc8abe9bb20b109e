// Element types of tensors and their mapping to the dump format's
// OutputDataType numbers.
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
};

inline constexpr DType kAllDTypes[] = {
    DType::kFloat32, DType::kFloat16, DType::kBFloat16, DType::kFloat64,
    DType::kInt8,    DType::kInt16,   DType::kInt32,    DType::kInt64,
    DType::kUInt8,   DType::kBool};

// Bytes per element; 0 for kUndefined.
size_t DTypeSize(DType dtype);
// Lower-case name used in messages and the CLI: "float32", "float16", ...
std::string_view DTypeName(DType dtype);
std::optional<DType> DTypeFromName(std::string_view name);
bool IsFloating(DType dtype);

// The dump format's OutputDataType (dump-format.md §1), e.g. kFloat32 ->
// DT_FLOAT = 1.
int32_t ToDumpDataType(DType dtype);
std::optional<DType> FromDumpDataType(int32_t dump_data_type);
// "DT_FLOAT", "DT_FLOAT16", ... for any OutputDataType number; "DT_UNDEFINED"
// if unknown.
std::string_view DumpDataTypeName(int32_t dump_data_type);

// ONNX TensorProto.DataType numbers, e.g. kFloat32 -> FLOAT = 1.
int32_t ToOnnxDataType(DType dtype);
std::optional<DType> FromOnnxDataType(int32_t onnx_data_type);

}  // namespace acldump

#endif  // ACLDUMP_KERNELS_DTYPE_H_
