#include "dump/config_path.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <system_error>
#include <vector>

#include "base/status_macros.h"
#include "base/strings.h"
#include "base/text.h"

namespace acldump::dump {
namespace {

// Paths may be long: messages show more of them than of other values.
constexpr size_t kMaxShownPathChars = 4096;

// Characters the SDK allows after "ip:" besides ASCII letters and digits.
constexpr std::string_view kRemotePathPunctuation =
    "-=[];\\,./!@#$%^&*()_+{}:?";

absl::Status Invalid(const std::string& reason) {
  return absl::InvalidArgumentError(reason);
}

// std::stoi's reading of `text` as an IPv4 part in [0, 255]: leading
// whitespace, an optional sign, at least one digit; what follows the digits
// is ignored.
bool IsAddressPart(std::string_view text) {
  size_t i = 0;
  while (i < text.size() &&
         (text[i] == ' ' || (text[i] >= '\t' && text[i] <= '\r'))) {
    ++i;
  }
  bool negative = false;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) {
    negative = text[i] == '-';
    ++i;
  }
  const size_t digits_begin = i;
  long value = 0;
  while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
    value = std::min<long>(value * 10 + (text[i] - '0'), 1L << 40);
    ++i;
  }
  if (i == digits_begin) return false;  // stoi throws: not an address
  if (negative) value = -value;
  return value >= 0 && value <= 255;
}

// The address before the first ':' split on '.' as the SDK splits it
// (std::getline: empty parts kept, except a trailing one).
std::vector<std::string_view> AddressParts(std::string_view address) {
  std::vector<std::string_view> parts;
  size_t begin = 0;
  while (begin < address.size()) {
    size_t end = address.find('.', begin);
    if (end == std::string_view::npos) end = address.size();
    parts.push_back(address.substr(begin, end - begin));
    begin = end + 1;
  }
  return parts;
}

absl::Status CheckRemotePath(std::string_view written) {
  const size_t colon = written.find(':');
  const std::string_view path = written.substr(colon + 1);
  for (char c : path) {
    const bool allowed = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                         (c >= '0' && c <= '9') ||
                         kRemotePathPunctuation.find(c) != std::string::npos;
    if (!allowed) {
      return Invalid(
          StrCat("the remote path ", Quote(path, kMaxShownPathChars),
                 " (after host ", Quote(written.substr(0, colon)),
                 ") contains ", Quote(std::string_view(&c, 1)),
                 ", which is not allowed there: use letters, digits and ",
                 kRemotePathPunctuation));
    }
  }
  return absl::OkStatus();
}

// Replaces $NAME and ${NAME}: the SDK's own example is "$HOME/output". A
// '$' not followed by a name stays as it is.
absl::StatusOr<std::string> ExpandEnvironment(const std::string& text) {
  const auto name_char = [](char c, bool first) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' ||
           (!first && c >= '0' && c <= '9');
  };
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    if (text[i] != '$') {
      out += text[i++];
      continue;
    }
    const bool braced = i + 1 < text.size() && text[i + 1] == '{';
    const size_t begin = i + (braced ? 2 : 1);
    size_t end = begin;
    while (end < text.size() && name_char(text[end], end == begin)) ++end;
    if (end == begin || (braced && (end >= text.size() || text[end] != '}'))) {
      out += text[i++];
      continue;
    }
    const std::string name = text.substr(begin, end - begin);
    const char* value = std::getenv(name.c_str());
    if (value == nullptr || *value == '\0') {
      return Invalid(StrCat("refers to environment variable ",
                            Printable(name, kMaxShownChars),
                            ", which is not set (or empty); set it or write "
                            "the directory out"));
    }
    out += value;
    i = end + (braced ? 1 : 0);
  }
  return out;
}

// `expanded` made absolute against the working directory.
absl::StatusOr<std::string> Absolute(const std::string& written,
                                     const std::string& expanded) {
  if (expanded.front() == '/') return expanded;
  std::error_code error;
  const std::filesystem::path cwd = std::filesystem::current_path(error);
  if (error) {
    return Invalid(StrCat(
        "cannot resolve the relative path ", Quote(written, kMaxShownPathChars),
        ": the working directory is unknown (", error.message(), ")"));
  }
  return StrCat(cwd.native(), "/", expanded);
}

absl::Status StatError(const std::string& where, const std::string& absolute,
                       int error) {
  switch (error) {
    case ENOENT:
      return Invalid(StrCat(where,
                            " does not exist; create it first (mkdir -p ",
                            Quote(absolute, kMaxShownPathChars), ")"));
    case ENOTDIR:
      return Invalid(StrCat(where,
                            " cannot be reached: a component of the path is "
                            "not a directory"));
    case EACCES:
      return Invalid(StrCat(where,
                            " cannot be reached: permission denied on a "
                            "parent directory"));
    default:
      return Invalid(StrCat(where, " cannot be checked: ", ErrnoText(error)));
  }
}

// The local directory checks: exists, is a directory, readable and writable.
absl::StatusOr<std::string> CheckLocalDirectory(const std::string& written) {
  const absl::StatusOr<std::string> expanded = ExpandEnvironment(written);
  if (!expanded.ok()) return expanded.status();
  ASSIGN_OR_RETURN(const std::string absolute, Absolute(written, *expanded));
  std::string where = StrCat("directory ", Quote(written, kMaxShownPathChars));
  if (absolute != written) {
    StrAppend(where, " (resolved to ", Quote(absolute, kMaxShownPathChars),
              ")");
  }
  struct stat info;
  if (stat(absolute.c_str(), &info) != 0) {
    return StatError(where, absolute, errno);
  }
  if (!S_ISDIR(info.st_mode)) {
    return Invalid(StrCat(where,
                          " is not a directory; dump_path names the directory "
                          "dump files go to"));
  }
  // access(2) uses the real ids, as a dump writer would. Root passes it
  // whatever the mode bits say; read-only file systems fail with EROFS.
  if (access(absolute.c_str(), R_OK | W_OK) != 0) {
    const int error = errno;
    if (error == EROFS) {
      return Invalid(StrCat(
          where,
          " is on a read-only file system; choose a writable directory"));
    }
    return Invalid(StrCat(where,
                          " is not readable and writable by the current user "
                          "(uid ",
                          getuid(), "): ", ErrnoText(error),
                          "; grant access (e.g. chmod u+rwx) or choose another "
                          "directory"));
  }
  char* real = realpath(absolute.c_str(), nullptr);
  if (real == nullptr) {
    return Invalid(StrCat(where, " cannot be resolved: ", ErrnoText(errno)));
  }
  std::string resolved = real;
  std::free(real);
  return resolved;
}

}  // namespace

bool IsRemoteDumpPath(std::string_view written) {
  const size_t colon = written.find(':');
  if (colon == std::string_view::npos || colon + 1 == written.size()) {
    return false;
  }
  const std::vector<std::string_view> parts =
      AddressParts(written.substr(0, colon));
  if (parts.size() != 4) return false;
  for (std::string_view part : parts) {
    if (!IsAddressPart(part)) return false;
  }
  return true;
}

absl::StatusOr<CheckedDumpPath> CheckDumpPath(const std::string& written) {
  if (written.empty()) {
    return Invalid("is empty; set it to an existing writable directory");
  }
  if (written.size() > kMaxDumpPathBytes) {
    return Invalid(StrCat("is ", written.size(), " bytes long; at most ",
                          kMaxDumpPathBytes, " are allowed"));
  }
  CheckedDumpPath out;
  if (IsRemoteDumpPath(written)) {
    RETURN_IF_ERROR(CheckRemotePath(written));
    out.remote = true;
    return out;
  }
  if (written.find('\0') != std::string::npos) {
    return Invalid("contains a NUL character");
  }
  ASSIGN_OR_RETURN(out.resolved, CheckLocalDirectory(written));
  return out;
}

absl::StatusOr<std::string> ResolveUncheckedDumpPath(
    const std::string& written) {
  if (written.empty()) return Invalid("is empty");
  if (IsRemoteDumpPath(written)) {
    return Invalid(StrCat(Quote(written, kMaxShownPathChars),
                          " names a directory on another host (ip:path)"));
  }
  ASSIGN_OR_RETURN(std::string expanded, ExpandEnvironment(written));
  if (expanded.empty()) return Invalid("is empty once expanded");
  return Absolute(written, expanded);
}

}  // namespace acldump::dump
