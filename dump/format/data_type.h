// The dump format's OutputDataType numbers (DT_FLOAT = 1, DT_FLOAT16 = 2, ...,
// DT_BF16 = 27) and their names, mapped to tensor element types.
#ifndef ACLDUMP_DUMP_FORMAT_DATA_TYPE_H_
#define ACLDUMP_DUMP_FORMAT_DATA_TYPE_H_

#include <cstdint>
#include <optional>
#include <string_view>

#include "kernels/dtype.h"

namespace acldump {

// kFloat32 -> DT_FLOAT = 1; 0 (DT_UNDEFINED) for kUndefined.
int32_t ToDumpDataType(DType dtype);
// nullopt for numbers with no tensor element type here (DT_STRING, ...).
std::optional<DType> FromDumpDataType(int32_t dump_data_type);
// "DT_FLOAT", "DT_FLOAT16", ... for any OutputDataType number; "DT_UNDEFINED"
// if unknown.
std::string_view DumpDataTypeName(int32_t dump_data_type);

}  // namespace acldump

#endif  // ACLDUMP_DUMP_FORMAT_DATA_TYPE_H_
