// The one reader of untrusted files (configs, models, ONNX, .npy, dump files,
// stats CSVs): regular files only, the size checked before anything is read,
// a clear message for directories, devices and FIFOs. Never blocks on a FIFO
// and never reads more than its limit, whatever the file claims to be.
#ifndef ACLDUMP_BASE_FILE_READER_H_
#define ACLDUMP_BASE_FILE_READER_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace acldump {

// Reads the whole file at `path` (symlinks to regular files are followed).
// `what` names the file in messages ("model file", "config file"). Errors:
//   NotFound           the path does not exist
//   PermissionDenied   it cannot be opened for reading
//   InvalidArgument    a directory, device, FIFO or socket ("... is not a
//                      regular file (it is a FIFO)")
//   ResourceExhausted  larger than `max_bytes` (the message names both sizes)
//   Internal           a read error
// Messages read "<what> '<path>': <reason>". May throw std::bad_alloc for a
// file within the limit that does not fit in memory; entry points catch it.
absl::StatusOr<std::string> ReadRegularFile(const std::string& path,
                                            size_t max_bytes,
                                            std::string_view what);

// "a directory", "a character device", "a FIFO", ... for a stat mode.
std::string_view FileTypeName(unsigned mode);

}  // namespace acldump

#endif  // ACLDUMP_BASE_FILE_READER_H_
