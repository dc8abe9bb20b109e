#include "dump/file_system.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "base/strings.h"

namespace acldump::dump {
namespace {

absl::Status ErrnoStatus(int error, std::string_view action,
                         const std::string& path) {
  const std::string message =
      StrCat(action, " '", path, "': ", std::strerror(error));
  switch (error) {
    case ENOENT:
      return absl::NotFoundError(message);
    case EEXIST:
      return absl::AlreadyExistsError(message);
    case EACCES:
    case EPERM:
    case EROFS:
      return absl::PermissionDeniedError(message);
    case ENOSPC:
    case EDQUOT:
    case EFBIG:
      return absl::ResourceExhaustedError(message);
    default:
      return absl::InternalError(message);
  }
}

class PosixFs final : public FileSystem {
 public:
  absl::Status MakeDirectory(const std::string& path) override {
    if (::mkdir(path.c_str(), 0755) == 0) return absl::OkStatus();
    return ErrnoStatus(errno, "cannot create directory", path);
  }
  bool IsDirectory(const std::string& path) override {
    struct stat st;
    return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
  }
  absl::StatusOr<int> CreateFile(const std::string& path, int mode) override {
    const int fd =
        ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
    if (fd < 0) return ErrnoStatus(errno, "cannot create", path);
    return fd;
  }
  absl::StatusOr<int> OpenForAppend(const std::string& path) override {
    const int fd =
        ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) return ErrnoStatus(errno, "cannot open", path);
    return fd;
  }
  absl::StatusOr<size_t> Write(int fd, const void* data, size_t size) override {
    while (true) {
      const ssize_t n = ::write(fd, data, size);
      if (n >= 0) return static_cast<size_t>(n);
      if (errno != EINTR)
        return ErrnoStatus(errno, "cannot write", StrCat("fd ", fd));
    }
  }
  absl::Status Sync(int fd) override {
    if (::fsync(fd) == 0) return absl::OkStatus();
    return ErrnoStatus(errno, "cannot fsync", StrCat("fd ", fd));
  }
  absl::Status Close(int fd) override {
    if (::close(fd) == 0) return absl::OkStatus();
    return ErrnoStatus(errno, "cannot close", StrCat("fd ", fd));
  }
  absl::Status Rename(const std::string& from, const std::string& to) override {
    if (::rename(from.c_str(), to.c_str()) == 0) return absl::OkStatus();
    return ErrnoStatus(errno, "cannot rename", StrCat(from, "' to '", to));
  }
  absl::Status Remove(const std::string& path) override {
    if (::unlink(path.c_str()) == 0) return absl::OkStatus();
    return ErrnoStatus(errno, "cannot remove", path);
  }
};

}  // namespace

FileSystem& PosixFileSystem() {
  static PosixFs* const fs = new PosixFs;
  return *fs;
}

absl::Status WriteAll(FileSystem& fs, int fd, std::string_view data,
                      const std::string& path) {
  while (!data.empty()) {
    absl::StatusOr<size_t> written = fs.Write(fd, data.data(), data.size());
    if (!written.ok()) {
      return absl::Status(
          written.status().code(),
          StrCat("cannot write '", path, "': ", written.status().message()));
    }
    if (*written == 0) {
      return absl::ResourceExhaustedError(
          StrCat("cannot write '", path, "': no progress"));
    }
    data.remove_prefix(*written);
  }
  return absl::OkStatus();
}

}  // namespace acldump::dump
