// Reference tensors made by other tools: .npy files (C or Fortran order),
// .npz archives (np.savez and np.savez_compressed) and the file names that
// say which operator tensor a file holds. Every file is untrusted: sizes are
// checked before anything is allocated or copied.
#ifndef ACLDUMP_TOOLS_COMMON_ARRAY_FILES_H_
#define ACLDUMP_TOOLS_COMMON_ARRAY_FILES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "kernels/tensor.h"

namespace acldump::tools {

// What a reference file's stem (the name without ".npy", or an .npz member's
// name) says about its tensor:
//   "{op}"                                   output 0 of operator op
//   "{op}.{output|input}.{i}"                output / input i of op
//   "{op}.{output|input}.{i}.{timestamp}"    the same, one execution of it
// `op` may itself contain dots (it may be a whole dump file name, as
// `dump convert` writes them).
struct TensorFileName {
  std::string op;
  bool is_input = false;
  uint32_t position = 0;
  std::optional<uint64_t> timestamp;
  bool explicit_tensor = false;  // the ".output.i" / ".input.i" form
};
TensorFileName ParseTensorFileName(std::string_view stem);

// A .npy file's bytes as a tensor in C order: Fortran-ordered arrays are
// transposed.
absl::StatusOr<Tensor> DecodeArray(std::string_view npy_bytes);
absl::StatusOr<Tensor> ReadArrayFile(const std::string& path);

// One array of an .npz archive.
struct NpzMember {
  std::string name;          // without ".npy"
  uint64_t data_offset = 0;  // of the member's (compressed) bytes in the file
  uint64_t compressed_size = 0;
  uint64_t size = 0;    // of the .npy bytes
  uint16_t method = 0;  // 0 stored, 8 deflate
  uint32_t crc32 = 0;
};
// The .npy members of an .npz archive (a ZIP file, ZIP64 included), from its
// central directory. Other members are ignored.
absl::StatusOr<std::vector<NpzMember>> ListNpz(const std::string& path);
// Reads, inflates and checks (size, CRC-32) one member.
absl::StatusOr<Tensor> ReadNpzMember(const std::string& path,
                                     const NpzMember& member);

}  // namespace acldump::tools

#endif  // ACLDUMP_TOOLS_COMMON_ARRAY_FILES_H_
