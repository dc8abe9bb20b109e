// dump_path: the NPU SDK's checks of the directory dump files go to, and its
// resolution to an absolute local directory.
#ifndef ACLDUMP_DUMP_CONFIG_PATH_H_
#define ACLDUMP_DUMP_CONFIG_PATH_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace acldump::dump {

// Longest dump_path, in bytes (the SDK's limit).
inline constexpr size_t kMaxDumpPathBytes = 512;

struct CheckedDumpPath {
  // A remote "ipv4:path" form (see IsRemoteDumpPath): nothing was resolved.
  bool remote = false;
  // For a local directory: absolute and canonical (symlinks resolved).
  std::string resolved;
};

// Whether `written` names a directory on another host as the SDK reads it:
// the text before the first ':' is four '.'-separated numbers, each in
// [0, 255] as std::stoi reads it (leading blanks and a sign allowed, trailing
// junk ignored; an empty last part is dropped), and something follows the
// ':'. Anything else is a local path.
bool IsRemoteDumpPath(std::string_view written);

// The SDK's checks, in its order: not empty, at most 512 bytes; a remote form
// may only use letters, digits and -=[];\,./!@#$%^&*()_+{}:? after the ':';
// a local path must exist, be a directory and be readable and writable by the
// current user (root passes the access check whatever the mode bits say).
// Local paths may refer to environment variables as $NAME or ${NAME}; a
// relative path is taken from the working directory. Errors are
// InvalidArgument; the message is a reason to follow "dump.dump_path: ".
absl::StatusOr<CheckedDumpPath> CheckDumpPath(const std::string& written);

// The dump_path of an exception scene, which the SDK does not check: $NAME
// expanded and made absolute, nothing more (the folder may not exist yet).
// An error says why it cannot be used (a variable not set, a remote path).
absl::StatusOr<std::string> ResolveUncheckedDumpPath(
    const std::string& written);

}  // namespace acldump::dump

#endif  // ACLDUMP_DUMP_CONFIG_PATH_H_
