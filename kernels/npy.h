// NumPy .npy files (format versions 1-3) for tensors: reading validates the
// header and sizes (files are untrusted), writing produces version 1.0 files
// numpy.load reads.
#ifndef ACLDUMP_KERNELS_NPY_H_
#define ACLDUMP_KERNELS_NPY_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "kernels/tensor.h"

namespace acldump {

// Largest .npy file read: the largest tensor a model may declare plus room
// for the header.
inline constexpr size_t kMaxNpyFileBytes = (size_t{4} << 30) + (1 << 20);

// The bytes of a .npy file holding `view` (bfloat16 has no numpy type: it is
// widened to float32).
absl::StatusOr<std::string> EncodeNpy(const TensorView& view);
absl::StatusOr<Tensor> DecodeNpy(std::string_view bytes);

absl::Status WriteNpyFile(const std::string& path, const TensorView& view);
absl::StatusOr<Tensor> ReadNpyFile(const std::string& path);

}  // namespace acldump

#endif  // ACLDUMP_KERNELS_NPY_H_
