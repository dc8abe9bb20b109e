#include "tools/common/output_folder.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <vector>

#include "base/status_macros.h"
#include "base/strings.h"
#include "base/text.h"
#include "dump/format/dump_names.h"

namespace acldump::tools {
namespace {

namespace fs = std::filesystem;

std::string Errno() { return ErrnoText(errno); }

// Closes a descriptor when it goes out of scope.
struct Descriptor {
  int fd = -1;
  ~Descriptor() {
    if (fd >= 0) ::close(fd);
  }
};

absl::Status WriteAll(int fd, std::string_view bytes, const std::string& path) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      return absl::PermissionDeniedError(
          StrCat("cannot write ", Quote(path), ": ",
                 n < 0 ? Errno() : "no space written"));
    }
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return absl::OkStatus();
}

// The folder `name` in `dir`, created when missing; a symlink or anything
// but a folder is refused.
absl::StatusOr<int> OpenSubfolder(int dir, const std::string& name,
                                  const std::string& path) {
  for (int attempt = 0; attempt < 2; ++attempt) {
    const int fd = ::openat(dir, name.c_str(),
                            O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0) return fd;
    struct stat st;
    if ((errno == ELOOP || errno == ENOTDIR) &&
        ::fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
        S_ISLNK(st.st_mode)) {
      return absl::FailedPreconditionError(StrCat(
          Quote(path), " is a symlink: not followed, nothing written there"));
    }
    if (errno == ENOTDIR || errno == ELOOP) {
      return absl::FailedPreconditionError(
          StrCat(Quote(path),
                 " exists and is not a folder: nothing written "
                 "there"));
    }
    if (errno != ENOENT || attempt == 1) {
      return absl::PermissionDeniedError(
          StrCat("cannot open the folder ", Quote(path), ": ", Errno()));
    }
    if (::mkdirat(dir, name.c_str(), 0755) != 0 && errno != EEXIST) {
      return absl::PermissionDeniedError(
          StrCat("cannot create the folder ", Quote(path), ": ", Errno()));
    }
  }
  return absl::InternalError("unreachable");
}

std::vector<std::string> Parts(std::string_view relative) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= relative.size()) {
    const size_t end = std::min(relative.find('/', start), relative.size());
    parts.emplace_back(relative.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

// Refuses to write over what is not a regular file at `name` in `dir`.
absl::Status CheckTarget(int dir, const std::string& name,
                         const std::string& path, IfExists if_exists) {
  struct stat st;
  if (::fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno == ENOENT) return absl::OkStatus();
    return absl::PermissionDeniedError(
        StrCat("cannot look at ", Quote(path), ": ", Errno()));
  }
  if (S_ISLNK(st.st_mode)) {
    return absl::FailedPreconditionError(
        StrCat(Quote(path), " is a symlink: not followed, not replaced"));
  }
  if (!S_ISREG(st.st_mode)) {
    return absl::FailedPreconditionError(
        StrCat(Quote(path),
               " exists and is not a regular file (a folder, "
               "FIFO or device): not replaced"));
  }
  if (if_exists == IfExists::kRefuse) {
    return absl::AlreadyExistsError(
        StrCat(Quote(path), " exists already: not replaced"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<OutputFolder>> OutputFolder::Open(
    const std::string& path) {
  std::error_code error;
  fs::create_directories(path, error);
  const int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    return absl::PermissionDeniedError(
        StrCat("cannot open the output folder ", Quote(path), ": ",
               error ? error.message() : Errno()));
  }
  return std::unique_ptr<OutputFolder>(new OutputFolder(fd, path));
}

OutputFolder::~OutputFolder() { ::close(fd_); }

template <typename Fill>
absl::StatusOr<std::string> OutputFolder::Commit(std::string_view relative,
                                                 IfExists if_exists,
                                                 Fill&& fill) {
  if (const std::string why = dump::WhyNotARelativePath(relative);
      !why.empty()) {
    return absl::InvalidArgumentError(
        StrCat("the output name ", Quote(relative), " is refused: ", why));
  }
  const std::vector<std::string> parts = Parts(relative);
  std::string folder_path = path_;
  Descriptor folder{::dup(fd_)};
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    folder_path = StrCat(folder_path, "/", parts[i]);
    ASSIGN_OR_RETURN(const int sub,
                     OpenSubfolder(folder.fd, parts[i], folder_path));
    ::close(folder.fd);
    folder.fd = sub;
  }
  std::string name = parts.back();
  std::string path = StrCat(folder_path, "/", name);
  if (dump::ExceedsNameMax(name)) {
    const std::string hashed = dump::HashedName(path);
    Descriptor mapping{
        ::openat(folder.fd, "mapping.csv",
                 O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0644)};
    const std::string mapping_path = StrCat(folder_path, "/mapping.csv");
    if (mapping.fd < 0) {
      return absl::PermissionDeniedError(
          StrCat("cannot write ", Quote(mapping_path), ": ", Errno()));
    }
    RETURN_IF_ERROR(
        WriteAll(mapping.fd, dump::MappingCsvLine(hashed, name), mapping_path));
    name = hashed;
    path = StrCat(folder_path, "/", name);
  }
  RETURN_IF_ERROR(CheckTarget(folder.fd, name, path, if_exists));
  static std::atomic<uint64_t> next{0};
  const std::string temporary =
      StrCat(".", name.substr(0, 200), ".", ::getpid(), ".", next++, ".tmp");
  Descriptor file{::openat(folder.fd, temporary.c_str(),
                           O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                           0644)};
  if (file.fd < 0) {
    return absl::PermissionDeniedError(
        StrCat("cannot write into ", Quote(folder_path), ": ", Errno()));
  }
  absl::Status filled = fill(file.fd, path);
  if (filled.ok() && ::close(file.fd) != 0) {
    filled = absl::PermissionDeniedError(
        StrCat("cannot write ", Quote(path), ": ", Errno()));
  }
  file.fd = -1;
  if (filled.ok()) {
    // kRefuse: linkat never replaces (a file that appeared meanwhile stays);
    // kReplace: renameat replaces the name itself, a symlink never followed.
    const bool moved = if_exists == IfExists::kRefuse
                           ? ::linkat(folder.fd, temporary.c_str(), folder.fd,
                                      name.c_str(), 0) == 0
                           : ::renameat(folder.fd, temporary.c_str(), folder.fd,
                                        name.c_str()) == 0;
    if (!moved) {
      filled = absl::PermissionDeniedError(
          StrCat("cannot write ", Quote(path), ": ", Errno()));
    } else if (if_exists == IfExists::kRefuse) {
      ::unlinkat(folder.fd, temporary.c_str(), 0);
    }
  }
  if (!filled.ok()) {
    ::unlinkat(folder.fd, temporary.c_str(), 0);
    return filled;
  }
  return path;
}

absl::StatusOr<std::string> OutputFolder::Write(std::string_view relative,
                                                std::string_view bytes,
                                                IfExists if_exists) {
  return Commit(relative, if_exists, [&](int fd, const std::string& path) {
    return WriteAll(fd, bytes, path);
  });
}

absl::StatusOr<std::string> OutputFolder::Copy(std::string_view relative,
                                               const std::string& source,
                                               IfExists if_exists) {
  Descriptor in{::open(source.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC)};
  struct stat st;
  if (in.fd < 0 || ::fstat(in.fd, &st) != 0) {
    return absl::PermissionDeniedError(
        StrCat("cannot read ", Quote(source), ": ", Errno()));
  }
  if (!S_ISREG(st.st_mode)) {
    return absl::FailedPreconditionError(
        StrCat(Quote(source), " is not a regular file: not copied"));
  }
  return Commit(relative, if_exists, [&](int fd, const std::string& path) {
    std::vector<char> buffer(size_t{1} << 20);
    while (true) {
      const ssize_t n = ::read(in.fd, buffer.data(), buffer.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        return absl::PermissionDeniedError(
            StrCat("cannot read ", Quote(source), ": ", Errno()));
      }
      if (n == 0) return absl::OkStatus();
      RETURN_IF_ERROR(WriteAll(
          fd, std::string_view(buffer.data(), static_cast<size_t>(n)), path));
    }
  });
}

absl::StatusOr<std::string> WriteDerivedFile(const std::string& path,
                                             std::string_view bytes) {
  const fs::path target(path);
  std::string folder = target.parent_path().string();
  if (folder.empty()) folder = ".";
  ASSIGN_OR_RETURN(std::unique_ptr<OutputFolder> out,
                   OutputFolder::Open(folder));
  ASSIGN_OR_RETURN(std::string written,
                   out->Write(target.filename().string(), bytes));
  // As the caller named it, unless the name had to be hashed.
  return fs::path(written).filename() == target.filename() ? path : written;
}

}  // namespace acldump::tools
