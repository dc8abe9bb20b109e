// The file operations the dump writer performs, relative to open directory
// descriptors, behind an interface so tests can inject faults (ENOSPC, EIO,
// EACCES, a removed folder, short writes) at every step of writing a file.
//
// Everything below the dump root is reached with openat(O_NOFOLLOW): a symlink
// planted by another user of a shared dump_path is refused, never followed.
// Every operation takes `path`, the logical full path, for messages (and for
// fault-injecting file systems to match on).
#ifndef ACLDUMP_DUMP_FILE_SYSTEM_H_
#define ACLDUMP_DUMP_FILE_SYSTEM_H_

#include <sys/uio.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace acldump::dump {

class FileSystem {
 public:
  virtual ~FileSystem() = default;
  // Opens the dump root, an existing directory named by an absolute path (the
  // user's own dump_path: symlinks in it are followed).
  virtual absl::StatusOr<int> OpenRoot(const std::string& path) = 0;
  // mkdirat: AlreadyExists when `name` exists (whatever it is).
  virtual absl::Status MakeDirectoryAt(int dir, std::string_view name, int mode,
                                       const std::string& path) = 0;
  // Opens directory `name` in `dir`; a symlink or a non-directory is an error.
  virtual absl::StatusOr<int> OpenDirectoryAt(int dir, std::string_view name,
                                              const std::string& path) = 0;
  // A new file in `dir` that has no name yet (invisible until LinkFileAt):
  // O_TMPFILE, or a hidden temporary name where the file system lacks it.
  virtual absl::StatusOr<int> CreateFileAt(int dir, int mode,
                                           const std::string& path) = 0;
  // Gives a complete file from CreateFileAt its name; never replaces an
  // existing file (AlreadyExists). A name too long for the file system is
  // OutOfRange.
  virtual absl::Status LinkFileAt(int fd, int dir, std::string_view name,
                                  const std::string& path) = 0;
  // unlinkat of a file.
  virtual absl::Status RemoveAt(int dir, std::string_view name,
                                const std::string& path) = 0;
  struct DirectoryEntry {
    std::string name;
    bool directory = false;  // a symlink is not (removing it removes the link)
  };
  // The entries of the open directory `dir` ("." and ".." left out).
  virtual absl::StatusOr<std::vector<DirectoryEntry>> ListDirectory(
      int dir, const std::string& path) = 0;
  // unlinkat(AT_REMOVEDIR) of an empty directory.
  virtual absl::Status RemoveDirectoryAt(int dir, std::string_view name,
                                         const std::string& path) = 0;
  // Appends to `name` in `dir`, creating it when missing.
  virtual absl::StatusOr<int> OpenForAppendAt(int dir, std::string_view name,
                                              const std::string& path) = 0;
  // writev: may write fewer bytes than asked (the caller loops).
  virtual absl::StatusOr<size_t> Write(int fd, std::span<const iovec> data,
                                       const std::string& path) = 0;
  virtual absl::Status Sync(int fd, const std::string& path) = 0;
  // The size of an open file (where an append to it starts).
  virtual absl::StatusOr<uint64_t> FileSize(int fd,
                                            const std::string& path) = 0;
  // Cuts an open file back to `size` bytes (an append that failed half-way).
  virtual absl::Status Truncate(int fd, uint64_t size,
                                const std::string& path) = 0;
  // Closes a descriptor from any of the calls above. A file from CreateFileAt
  // that was never linked disappears.
  virtual absl::Status Close(int fd, const std::string& path) = 0;
};

// The real POSIX file system. Errors carry strerror text and the path.
FileSystem& PosixFileSystem();

// True for the error LinkFileAt / MakeDirectoryAt give for a name longer than
// the file system allows.
bool IsNameTooLong(const absl::Status& status);

// Passes every call on to another file system: a base for wrappers that change
// one or two operations (fault injection, slow disks in tests).
class ForwardingFileSystem : public FileSystem {
 public:
  explicit ForwardingFileSystem(FileSystem& inner = PosixFileSystem())
      : inner_(inner) {}
  absl::StatusOr<int> OpenRoot(const std::string& path) override {
    return inner_.OpenRoot(path);
  }
  absl::Status MakeDirectoryAt(int dir, std::string_view name, int mode,
                               const std::string& path) override {
    return inner_.MakeDirectoryAt(dir, name, mode, path);
  }
  absl::StatusOr<int> OpenDirectoryAt(int dir, std::string_view name,
                                      const std::string& path) override {
    return inner_.OpenDirectoryAt(dir, name, path);
  }
  absl::StatusOr<int> CreateFileAt(int dir, int mode,
                                   const std::string& path) override {
    return inner_.CreateFileAt(dir, mode, path);
  }
  absl::Status LinkFileAt(int fd, int dir, std::string_view name,
                          const std::string& path) override {
    return inner_.LinkFileAt(fd, dir, name, path);
  }
  absl::Status RemoveAt(int dir, std::string_view name,
                        const std::string& path) override {
    return inner_.RemoveAt(dir, name, path);
  }
  absl::StatusOr<std::vector<DirectoryEntry>> ListDirectory(
      int dir, const std::string& path) override {
    return inner_.ListDirectory(dir, path);
  }
  absl::Status RemoveDirectoryAt(int dir, std::string_view name,
                                 const std::string& path) override {
    return inner_.RemoveDirectoryAt(dir, name, path);
  }
  absl::StatusOr<int> OpenForAppendAt(int dir, std::string_view name,
                                      const std::string& path) override {
    return inner_.OpenForAppendAt(dir, name, path);
  }
  absl::StatusOr<size_t> Write(int fd, std::span<const iovec> data,
                               const std::string& path) override {
    return inner_.Write(fd, data, path);
  }
  absl::Status Sync(int fd, const std::string& path) override {
    return inner_.Sync(fd, path);
  }
  absl::StatusOr<uint64_t> FileSize(int fd, const std::string& path) override {
    return inner_.FileSize(fd, path);
  }
  absl::Status Truncate(int fd, uint64_t size,
                        const std::string& path) override {
    return inner_.Truncate(fd, size, path);
  }
  absl::Status Close(int fd, const std::string& path) override {
    return inner_.Close(fd, path);
  }

 private:
  FileSystem& inner_;
};

// Removes directory `name` in `dir` and everything below it, never following
// a symlink (one is removed as a file). At most `max_depth` levels deep.
absl::Status RemoveTreeAt(FileSystem& fs, int dir, std::string_view name,
                          const std::string& path, int max_depth = 8);

// Writes all of `data` (looping over short writes).
absl::Status WriteAll(FileSystem& fs, int fd, std::span<const iovec> data,
                      const std::string& path);

}  // namespace acldump::dump

#endif  // ACLDUMP_DUMP_FILE_SYSTEM_H_
