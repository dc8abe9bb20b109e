// Finding files the binary ships with (Bazel `data`), the way Bazel lays them
// out on Linux: a symlink tree `<binary>.runfiles/<workspace>/...`, named by
// $RUNFILES_DIR or $TEST_SRCDIR when set.
#ifndef ACLDUMP_TOOLS_CLI_RUNFILES_H_
#define ACLDUMP_TOOLS_CLI_RUNFILES_H_

#include <optional>
#include <string>

namespace acldump::tools {

// The absolute runfiles root, looked up in this order: $RUNFILES_DIR,
// $TEST_SRCDIR, `argv0 + ".runfiles"`, the working directory when it is
// `<something>.runfiles/<workspace>` (where `bazel run` starts a binary), then
// an installed release: `<prefix>/share` for a binary in `<prefix>/bin` when
// `<prefix>/share/acldump` exists (the release ships the bundled files there,
// laid out as in the source tree). Call before changing the working directory.
std::optional<std::string> FindRunfilesDir(const char* argv0);

// `<runfiles>/<workspace>/<path>` when that file exists.
std::optional<std::string> Rlocation(const std::string& runfiles_dir,
                                     const std::string& path,
                                     const std::string& workspace = "acldump");

}  // namespace acldump::tools

#endif  // ACLDUMP_TOOLS_CLI_RUNFILES_H_
