#include "dump/file_system.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "base/status_macros.h"
#include "base/strings.h"

namespace acldump::dump {
namespace {

absl::Status ErrnoStatus(int error, std::string_view action,
                         const std::string& path) {
  const std::string message =
      StrCat(action, " '", path, "': ", ErrnoText(error));
  switch (error) {
    case ENOENT:
      return absl::NotFoundError(message);
    case EEXIST:
      return absl::AlreadyExistsError(message);
    case ENAMETOOLONG:
      return absl::OutOfRangeError(message);
    case EACCES:
    case EPERM:
    case EROFS:
      return absl::PermissionDeniedError(message);
    case ENOSPC:
    case EDQUOT:
    case EFBIG:
      return absl::ResourceExhaustedError(message);
    case ELOOP:
    case ENOTDIR:
      return absl::FailedPreconditionError(
          StrCat(message,
                 " (a symbolic link or a file where a folder belongs: not "
                 "followed)"));
    default:
      return absl::InternalError(message);
  }
}

class PosixFs final : public FileSystem {
 public:
  absl::StatusOr<int> OpenRoot(const std::string& path) override {
    const int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return ErrnoStatus(errno, "cannot open dump folder", path);
    return fd;
  }
  absl::Status MakeDirectoryAt(int dir, std::string_view name, int mode,
                               const std::string& path) override {
    if (::mkdirat(dir, std::string(name).c_str(), mode) == 0) {
      return absl::OkStatus();
    }
    return ErrnoStatus(errno, "cannot create directory", path);
  }
  absl::StatusOr<int> OpenDirectoryAt(int dir, std::string_view name,
                                      const std::string& path) override {
    const int fd = ::openat(dir, std::string(name).c_str(),
                            O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return ErrnoStatus(errno, "cannot open directory", path);
    return fd;
  }
  absl::StatusOr<int> CreateFileAt(int dir, int mode,
                                   const std::string& path) override {
    if (!no_tmpfile_.load(std::memory_order_relaxed)) {
      const int fd = ::openat(dir, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, mode);
      if (fd >= 0) return fd;
      if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL) {
        return ErrnoStatus(errno, "cannot create", path);
      }
      no_tmpfile_.store(true, std::memory_order_relaxed);
    }
    // A hidden name of our own, given its real name by renameat2 later.
    const std::string temp =
        StrCat(".acldump.", ::getpid(), ".", next_temp_.fetch_add(1), ".tmp");
    const int fd =
        ::openat(dir, temp.c_str(),
                 O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    if (fd < 0) return ErrnoStatus(errno, "cannot create", path);
    std::lock_guard<std::mutex> lock(mutex_);
    temporaries_[fd] = {dir, temp};
    return fd;
  }
  absl::Status LinkFileAt(int fd, int dir, std::string_view name,
                          const std::string& path) override {
    const std::string target(name);
    Temporary temporary;
    if (TakeTemporary(fd, temporary)) {
      if (::renameat2(temporary.dir, temporary.name.c_str(), dir,
                      target.c_str(), RENAME_NOREPLACE) == 0) {
        return absl::OkStatus();
      }
      const int error = errno;
      ::unlinkat(temporary.dir, temporary.name.c_str(), 0);
      return ErrnoStatus(error, "cannot name", path);
    }
    char proc[64];
    std::snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
    if (::linkat(AT_FDCWD, proc, dir, target.c_str(), AT_SYMLINK_FOLLOW) == 0) {
      return absl::OkStatus();
    }
    return ErrnoStatus(errno, "cannot name", path);
  }
  absl::Status RemoveAt(int dir, std::string_view name,
                        const std::string& path) override {
    if (::unlinkat(dir, std::string(name).c_str(), 0) == 0) {
      return absl::OkStatus();
    }
    return ErrnoStatus(errno, "cannot remove", path);
  }
  absl::StatusOr<std::vector<DirectoryEntry>> ListDirectory(
      int dir, const std::string& path) override {
    // fdopendir takes the descriptor it is given: a copy, at offset 0.
    const int fd = ::openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return ErrnoStatus(errno, "cannot list", path);
    DIR* stream = ::fdopendir(fd);
    if (stream == nullptr) {
      const int error = errno;
      ::close(fd);
      return ErrnoStatus(error, "cannot list", path);
    }
    std::vector<DirectoryEntry> entries;
    errno = 0;
    while (const dirent* entry = ::readdir(stream)) {
      const std::string_view entry_name = entry->d_name;
      if (entry_name == "." || entry_name == "..") continue;
      bool directory = entry->d_type == DT_DIR;
      if (entry->d_type == DT_UNKNOWN) {
        struct stat info;
        directory =
            ::fstatat(fd, entry->d_name, &info, AT_SYMLINK_NOFOLLOW) == 0 &&
            S_ISDIR(info.st_mode);
      }
      entries.push_back(DirectoryEntry{std::string(entry_name), directory});
      errno = 0;
    }
    const int error = errno;
    ::closedir(stream);
    if (error != 0) return ErrnoStatus(error, "cannot list", path);
    return entries;
  }
  absl::Status RemoveDirectoryAt(int dir, std::string_view name,
                                 const std::string& path) override {
    if (::unlinkat(dir, std::string(name).c_str(), AT_REMOVEDIR) == 0) {
      return absl::OkStatus();
    }
    return ErrnoStatus(errno, "cannot remove folder", path);
  }
  absl::StatusOr<int> OpenForAppendAt(int dir, std::string_view name,
                                      const std::string& path) override {
    const int fd =
        ::openat(dir, std::string(name).c_str(),
                 O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0640);
    if (fd < 0) return ErrnoStatus(errno, "cannot open", path);
    return fd;
  }
  absl::StatusOr<size_t> Write(int fd, std::span<const iovec> data,
                               const std::string& path) override {
    const int count = static_cast<int>(std::min<size_t>(data.size(), IOV_MAX));
    while (true) {
      const ssize_t n = ::writev(fd, data.data(), count);
      if (n >= 0) return static_cast<size_t>(n);
      if (errno != EINTR) return ErrnoStatus(errno, "cannot write", path);
    }
  }
  absl::Status Sync(int fd, const std::string& path) override {
    if (::fsync(fd) == 0) return absl::OkStatus();
    return ErrnoStatus(errno, "cannot fsync", path);
  }
  absl::StatusOr<uint64_t> FileSize(int fd, const std::string& path) override {
    struct stat st;
    if (::fstat(fd, &st) == 0) return static_cast<uint64_t>(st.st_size);
    return ErrnoStatus(errno, "cannot stat", path);
  }
  absl::Status Truncate(int fd, uint64_t size,
                        const std::string& path) override {
    while (::ftruncate(fd, static_cast<off_t>(size)) != 0) {
      if (errno != EINTR) return ErrnoStatus(errno, "cannot truncate", path);
    }
    return absl::OkStatus();
  }
  absl::Status Close(int fd, const std::string& path) override {
    Temporary temporary;
    if (TakeTemporary(fd, temporary)) {
      ::unlinkat(temporary.dir, temporary.name.c_str(), 0);  // never linked
    }
    if (::close(fd) == 0) return absl::OkStatus();
    return ErrnoStatus(errno, "cannot close", path);
  }

 private:
  struct Temporary {
    int dir = -1;
    std::string name;
  };
  bool TakeTemporary(int fd, Temporary& out) {
    if (!no_tmpfile_.load(std::memory_order_relaxed)) return false;
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = temporaries_.find(fd);
    if (it == temporaries_.end()) return false;
    out = std::move(it->second);
    temporaries_.erase(it);
    return true;
  }

  std::atomic<bool> no_tmpfile_{false};
  std::atomic<uint64_t> next_temp_{0};
  std::mutex mutex_;
  std::unordered_map<int, Temporary> temporaries_;
};

}  // namespace

FileSystem& PosixFileSystem() {
  static PosixFs* const fs = new PosixFs;
  return *fs;
}

bool IsNameTooLong(const absl::Status& status) {
  return status.code() == absl::StatusCode::kOutOfRange;
}

absl::Status RemoveTreeAt(FileSystem& fs, int dir, std::string_view name,
                          const std::string& path, int max_depth) {
  // Listed and emptied through one descriptor of the folder (no symlink
  // followed): a rename meanwhile cannot send the removals elsewhere.
  ASSIGN_OR_RETURN(int fd, fs.OpenDirectoryAt(dir, name, path));
  absl::StatusOr<std::vector<FileSystem::DirectoryEntry>> listed =
      fs.ListDirectory(fd, path);
  absl::Status status = listed.status();
  if (listed.ok()) {
    for (const FileSystem::DirectoryEntry& entry : *listed) {
      const std::string child = StrCat(path, "/", entry.name);
      if (entry.directory && max_depth <= 0) {
        status = absl::FailedPreconditionError(
            StrCat("cannot remove '", child, "': too deeply nested"));
      } else {
        status = entry.directory
                     ? RemoveTreeAt(fs, fd, entry.name, child, max_depth - 1)
                     : fs.RemoveAt(fd, entry.name, child);
      }
      if (!status.ok()) break;
    }
  }
  absl::Status closed = fs.Close(fd, path);
  RETURN_IF_ERROR(status);
  RETURN_IF_ERROR(closed);
  return fs.RemoveDirectoryAt(dir, name, path);
}

absl::Status WriteAll(FileSystem& fs, int fd, std::span<const iovec> data,
                      const std::string& path) {
  std::vector<iovec> rest(data.begin(), data.end());
  size_t first = 0;
  while (first < rest.size()) {
    if (rest[first].iov_len == 0) {
      ++first;
      continue;
    }
    absl::StatusOr<size_t> written =
        fs.Write(fd, std::span<const iovec>(rest).subspan(first), path);
    if (!written.ok()) return written.status();
    if (*written == 0) {
      return absl::ResourceExhaustedError(
          StrCat("cannot write '", path, "': no progress"));
    }
    size_t done = *written;
    while (done > 0 && first < rest.size()) {
      const size_t step = std::min(done, rest[first].iov_len);
      rest[first].iov_base = static_cast<char*>(rest[first].iov_base) + step;
      rest[first].iov_len -= step;
      done -= step;
      if (rest[first].iov_len == 0) ++first;
    }
  }
  return absl::OkStatus();
}

}  // namespace acldump::dump
