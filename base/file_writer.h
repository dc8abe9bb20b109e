// Writing a file whole or not at all.
#ifndef ACLDUMP_BASE_FILE_WRITER_H_
#define ACLDUMP_BASE_FILE_WRITER_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace acldump {

// Writes `bytes` to `path` whole or not at all (beside it, then renamed
// over it): a reader never sees half a file, and a failed write leaves what
// was there. A path that is a device, a FIFO or a symlink is written in place
// instead: /dev/stdout stays a device.
absl::Status WriteFileWhole(const std::string& path, std::string_view bytes);

}  // namespace acldump

#endif  // ACLDUMP_BASE_FILE_WRITER_H_
