// The one reader of untrusted files (configs, models, ONNX, .npy, dump files,
// stats CSVs): regular files only, the size checked before anything is read,
// a clear message for directories, devices and FIFOs. Never blocks on a FIFO
// and never reads more than its limit, whatever the file claims to be.
#ifndef ACLDUMP_BASE_FILE_READER_H_
#define ACLDUMP_BASE_FILE_READER_H_

#include <cstddef>
#include <cstdint>
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

// A regular file opened for reads at offsets (parts of a large untrusted
// file: a dump file's header, a pack's records). Move-only.
class RandomAccessFile {
 public:
  // Errors as ReadRegularFile's for a path that is missing, unreadable or not
  // a regular file.
  static absl::StatusOr<RandomAccessFile> Open(const std::string& path,
                                               std::string_view what);
  RandomAccessFile(RandomAccessFile&& other) noexcept;
  RandomAccessFile& operator=(RandomAccessFile&& other) noexcept;
  ~RandomAccessFile();

  uint64_t size() const { return size_; }
  // Exactly `length` bytes at `offset`: InvalidArgument past the end,
  // Internal for a read error.
  absl::StatusOr<std::string> ReadAt(uint64_t offset, uint64_t length) const;
  // The same into `out` (room for `length` bytes): a large part read where
  // it is kept, without a copy.
  absl::Status ReadInto(uint64_t offset, uint64_t length, void* out) const;

 private:
  RandomAccessFile(int fd, std::string path, std::string_view what,
                   uint64_t size);
  int fd_ = -1;
  std::string path_;
  std::string what_;
  uint64_t size_ = 0;
};

// "a directory", "a character device", "a FIFO", ... for a stat mode.
std::string_view FileTypeName(unsigned mode);

}  // namespace acldump

#endif  // ACLDUMP_BASE_FILE_READER_H_
