#include "base/file_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "base/status_macros.h"
#include "base/strings.h"

namespace acldump {
namespace {

class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

absl::Status OpenError(int error, std::string_view what,
                       const std::string& path) {
  const std::string message = StrCat(what, " '", path, "': ", ErrnoText(error));
  switch (error) {
    case ENOENT:
    case ENOTDIR:
      return absl::NotFoundError(
          StrCat("cannot open ", what, " '", path, "': it does not exist"));
    case EACCES:
    case EPERM:
      return absl::PermissionDeniedError(
          StrCat(what, " '", path, "' cannot be read: ", ErrnoText(error)));
    case ELOOP:
      return absl::InvalidArgumentError(
          StrCat(what, " '", path, "': too many levels of symbolic links"));
    default:
      return absl::InternalError(StrCat("cannot open ", message));
  }
}

}  // namespace

std::string_view FileTypeName(unsigned mode) {
  switch (mode & S_IFMT) {
    case S_IFREG:
      return "a regular file";
    case S_IFDIR:
      return "a directory";
    case S_IFCHR:
      return "a character device";
    case S_IFBLK:
      return "a block device";
    case S_IFIFO:
      return "a FIFO";
    case S_IFSOCK:
      return "a socket";
    case S_IFLNK:
      return "a symbolic link";
  }
  return "not a regular file";
}

RandomAccessFile::RandomAccessFile(int fd, std::string path,
                                   std::string_view what, uint64_t size)
    : fd_(fd), path_(std::move(path)), what_(what), size_(size) {}

RandomAccessFile::RandomAccessFile(RandomAccessFile&& other) noexcept {
  *this = std::move(other);
}

RandomAccessFile& RandomAccessFile::operator=(
    RandomAccessFile&& other) noexcept {
  std::swap(fd_, other.fd_);
  path_ = std::move(other.path_);
  what_ = std::move(other.what_);
  size_ = other.size_;
  return *this;
}

RandomAccessFile::~RandomAccessFile() {
  if (fd_ >= 0) ::close(fd_);
}

namespace {

// The size of an open file, refusing anything but a regular file (a FIFO,
// device or directory has no size to trust).
absl::StatusOr<uint64_t> RegularFileSize(int fd, const std::string& path,
                                         std::string_view what) {
  struct stat info;
  if (::fstat(fd, &info) != 0) {
    return absl::InternalError(
        StrCat("cannot stat ", what, " '", path, "': ", ErrnoText(errno)));
  }
  if (!S_ISREG(info.st_mode)) {
    return absl::InvalidArgumentError(StrCat(what, " '", path,
                                             "' is not a regular file (it is ",
                                             FileTypeName(info.st_mode), ")"));
  }
  return static_cast<uint64_t>(info.st_size);
}

}  // namespace

absl::StatusOr<RandomAccessFile> RandomAccessFile::Open(const std::string& path,
                                                        std::string_view what) {
  const int fd =
      ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) return OpenError(errno, what, path);
  RandomAccessFile file(fd, path, what, 0);
  ASSIGN_OR_RETURN(file.size_, RegularFileSize(fd, path, what));
  return file;
}

absl::StatusOr<std::string> RandomAccessFile::ReadAt(uint64_t offset,
                                                     uint64_t length) const {
  if (offset > size_ || length > size_ - offset) {
    return absl::InvalidArgumentError(
        StrCat(what_, " '", path_, "': ", length, " bytes at offset ", offset,
               " run past its end (", size_, " bytes)"));
  }
  std::string bytes(length, '\0');
  RETURN_IF_ERROR(ReadInto(offset, length, bytes.data()));
  return bytes;
}

absl::Status RandomAccessFile::ReadInto(uint64_t offset, uint64_t length,
                                        void* out) const {
  if (offset > size_ || length > size_ - offset) {
    return absl::InvalidArgumentError(
        StrCat(what_, " '", path_, "': ", length, " bytes at offset ", offset,
               " run past its end (", size_, " bytes)"));
  }
  char* bytes = static_cast<char*>(out);
  uint64_t done = 0;
  while (done < length) {
    const ssize_t n = ::pread(fd_, bytes + done, length - done,
                              static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      return absl::InternalError(StrCat(
          "cannot read ", what_, " '", path_, "' at offset ", offset + done,
          n < 0 ? StrCat(": ", ErrnoText(errno))
                : std::string(": it ended early")));
    }
    done += static_cast<uint64_t>(n);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> ReadRegularFile(const std::string& path,
                                            size_t max_bytes,
                                            std::string_view what) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused
  // below anyway.
  const FileDescriptor fd(
      ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
  if (fd.get() < 0) return OpenError(errno, what, path);
  ASSIGN_OR_RETURN(const uint64_t declared,
                   RegularFileSize(fd.get(), path, what));
  if (declared > max_bytes) {
    return absl::ResourceExhaustedError(
        StrCat(what, " '", path, "' is ", declared, " bytes, more than the ",
               "limit of ", max_bytes, " bytes"));
  }
  // Files of /proc report size 0 but have contents: read to the end, never
  // past the limit.
  std::string data;
  data.resize(declared > 0 ? declared : std::min<size_t>(max_bytes, 4096));
  size_t filled = 0;
  while (true) {
    if (filled == data.size()) {
      if (data.size() >= max_bytes) {
        // Full at the limit: one more byte means the file is too large.
        char probe;
        const ssize_t extra = ::read(fd.get(), &probe, 1);
        if (extra > 0) {
          return absl::ResourceExhaustedError(
              StrCat(what, " '", path, "' is more than the limit of ",
                     max_bytes, " bytes"));
        }
        if (extra < 0 && errno == EINTR) continue;
        break;
      }
      data.resize(std::min(max_bytes, std::max<size_t>(data.size() * 2, 4096)));
    }
    const ssize_t n =
        ::read(fd.get(), data.data() + filled, data.size() - filled);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      return absl::InternalError(
          StrCat("cannot read ", what, " '", path, "': ", ErrnoText(errno)));
    }
    filled += static_cast<size_t>(n);
  }
  data.resize(filled);
  return data;
}

}  // namespace acldump
