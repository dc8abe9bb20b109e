#include "base/file_writer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "base/strings.h"

namespace acldump {

namespace {

absl::Status WriteAll(int fd, const std::string& path, std::string_view bytes) {
  if (fd < 0) {
    return absl::PermissionDeniedError(
        StrCat("cannot create '", path, "': ", ErrnoText(errno)));
  }
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  const int error = errno;
  if (close(fd) != 0 || done != bytes.size()) {
    return absl::ResourceExhaustedError(
        StrCat("cannot write '", path, "': ", ErrnoText(done ? error : errno)));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status WriteFileWhole(const std::string& path, std::string_view bytes) {
  struct stat status;
  if (lstat(path.c_str(), &status) == 0 && !S_ISREG(status.st_mode)) {
    return WriteAll(open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC), path,
                    bytes);
  }
  const std::string temporary = StrCat(path, ".tmp.", getpid());
  absl::Status written = WriteAll(
      open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644),
      temporary, bytes);
  if (written.ok() && rename(temporary.c_str(), path.c_str()) != 0) {
    written = absl::PermissionDeniedError(
        StrCat("cannot write '", path, "': ", ErrnoText(errno)));
  }
  if (!written.ok()) unlink(temporary.c_str());
  return written;
}

}  // namespace acldump
