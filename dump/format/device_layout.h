// Device (NPU) tensor layouts back to logical tensors. A device stores a
// tensor in a layout suited to its cube unit (NC1HWC0, FRACTAL_Z, FRACTAL_NZ,
// ...), with the channel axis split into blocks of C0 and padded with zeros.
// These functions undo that: C0 is read from the device shape (never assumed:
// it depends on the data type and the compiler), the padding is dropped and the
// result is sliced to the original shape, in the original format.
#ifndef ACLDUMP_DUMP_FORMAT_DEVICE_LAYOUT_H_
#define ACLDUMP_DUMP_FORMAT_DEVICE_LAYOUT_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace acldump::dump {

// Format numbers of the dump format (the OutputFormat enum; the device's
// format enum shares them).
enum DeviceFormat : int32_t {
  kFormatNchw = 0,
  kFormatNhwc = 1,
  kFormatNd = 2,
  kFormatNc1hwc0 = 3,
  kFormatFractalZ = 4,
  kFormatNc1hwc0C04 = 12,
  kFormatFractalZC04 = 13,
  kFormatChwn = 14,
  kFormatHwcn = 16,
  kFormatC1hwncoc0 = 25,
  kFormatNdhwc = 27,
  kFormatFractalNz = 29,
  kFormatNcdhw = 30,
  kFormatDhwcn = 31,
  kFormatNdc1hwc0 = 32,
  kFormatFractalZ3d = 33,
  kFormatFractalZnLstm = 38,
};

// What a dump header says about one tensor.
struct DeviceTensorLayout {
  int32_t format = kFormatNd;            // as stored on the device
  std::vector<uint64_t> shape;           // as stored on the device
  std::vector<uint64_t> original_shape;  // empty: not recorded
  // The format of the original model's tensor; -1 when not recorded: then a
  // 4-D original shape is taken as NCHW, a 5-D one as NCDHW, others as ND.
  int32_t original_format = -1;
  int32_t sub_format = 0;  // FRACTAL_Z, FRACTAL_Z_3D: the group count
};

struct LogicalTensorBytes {
  std::vector<int64_t> shape;
  int32_t format = kFormatNd;  // the logical tensor's format
  std::string bytes;           // row-major in `shape`
};

// True when `layout`'s bytes are not already the row-major original tensor:
// a blocked device format, a plain format other than the original one, or a
// shape other than the original one.
bool NeedsLayoutTransform(const DeviceTensorLayout& layout);

// The logical tensor of `bytes` (row-major in `layout.shape`, `element_size`
// bytes per element: 1, 2, 4 or 8). Errors name the format and both shapes:
// a device shape that does not fit the original shape, a format this reader
// does not know, an original shape needed but not recorded.
absl::StatusOr<LogicalTensorBytes> DeviceToLogical(
    const DeviceTensorLayout& layout, size_t element_size,
    std::string_view bytes);

// Formats DeviceToLogical converts, by name, for documentation and messages.
std::vector<std::string> SupportedDeviceFormats();

}  // namespace acldump::dump

#endif  // ACLDUMP_DUMP_FORMAT_DEVICE_LAYOUT_H_
