// The file operations the dump writer performs, behind an interface so tests
// can inject faults (ENOSPC, EIO, EACCES, a removed folder, short writes) at
// every step of writing a file.
#ifndef ACLDUMP_DUMP_FILE_SYSTEM_H_
#define ACLDUMP_DUMP_FILE_SYSTEM_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace acldump::dump {

class FileSystem {
 public:
  virtual ~FileSystem() = default;
  // mkdir of one directory; AlreadyExists when it exists.
  virtual absl::Status MakeDirectory(const std::string& path) = 0;
  virtual bool IsDirectory(const std::string& path) = 0;
  // Creates a new file (fails if it exists) for writing; returns a descriptor.
  virtual absl::StatusOr<int> CreateFile(const std::string& path, int mode) = 0;
  // Appends to a file, creating it when missing.
  virtual absl::StatusOr<int> OpenForAppend(const std::string& path) = 0;
  // May write fewer bytes than asked (the caller loops).
  virtual absl::StatusOr<size_t> Write(int fd, const void* data,
                                       size_t size) = 0;
  virtual absl::Status Sync(int fd) = 0;
  virtual absl::Status Close(int fd) = 0;
  virtual absl::Status Rename(const std::string& from,
                              const std::string& to) = 0;
  virtual absl::Status Remove(const std::string& path) = 0;
};

// The real POSIX file system. Errors carry strerror text and the path.
FileSystem& PosixFileSystem();

// Passes every call on to another file system: a base for wrappers that change
// one or two operations (fault injection, slow disks in tests).
class ForwardingFileSystem : public FileSystem {
 public:
  explicit ForwardingFileSystem(FileSystem& inner = PosixFileSystem())
      : inner_(inner) {}
  absl::Status MakeDirectory(const std::string& path) override {
    return inner_.MakeDirectory(path);
  }
  bool IsDirectory(const std::string& path) override {
    return inner_.IsDirectory(path);
  }
  absl::StatusOr<int> CreateFile(const std::string& path, int mode) override {
    return inner_.CreateFile(path, mode);
  }
  absl::StatusOr<int> OpenForAppend(const std::string& path) override {
    return inner_.OpenForAppend(path);
  }
  absl::StatusOr<size_t> Write(int fd, const void* data, size_t size) override {
    return inner_.Write(fd, data, size);
  }
  absl::Status Sync(int fd) override { return inner_.Sync(fd); }
  absl::Status Close(int fd) override { return inner_.Close(fd); }
  absl::Status Rename(const std::string& from, const std::string& to) override {
    return inner_.Rename(from, to);
  }
  absl::Status Remove(const std::string& path) override {
    return inner_.Remove(path);
  }

 private:
  FileSystem& inner_;
};

// Writes all of `data` (looping over short writes).
absl::Status WriteAll(FileSystem& fs, int fd, std::string_view data,
                      const std::string& path);

}  // namespace acldump::dump

#endif  // ACLDUMP_DUMP_FILE_SYSTEM_H_
