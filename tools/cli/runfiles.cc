#include "tools/cli/runfiles.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace acldump::tools {
namespace {

namespace fs = std::filesystem;

std::optional<std::string> AbsoluteDirectory(const fs::path& path) {
  std::error_code error;
  if (path.empty() || !fs::is_directory(path, error)) return std::nullopt;
  fs::path absolute = fs::absolute(path, error);
  if (error) return std::nullopt;
  return absolute.lexically_normal().string();
}

}  // namespace

std::optional<std::string> FindRunfilesDir(const char* argv0) {
  for (const char* variable : {"RUNFILES_DIR", "TEST_SRCDIR"}) {
    const char* value = std::getenv(variable);
    if (value == nullptr || value[0] == '\0') continue;
    if (auto dir = AbsoluteDirectory(value)) return dir;
  }
  if (argv0 != nullptr && argv0[0] != '\0') {
    if (auto dir = AbsoluteDirectory(std::string(argv0) + ".runfiles")) {
      return dir;
    }
  }
  std::error_code error;
  const fs::path cwd = fs::current_path(error);
  if (!error && cwd.parent_path().extension() == ".runfiles") {
    return AbsoluteDirectory(cwd.parent_path());
  }
  const fs::path exe = fs::read_symlink("/proc/self/exe", error);
  if (!error) {
    const fs::path share = exe.parent_path().parent_path() / "share";
    if (exe.parent_path().filename() == "bin" &&
        fs::is_directory(share / "acldump", error)) {
      return AbsoluteDirectory(share);
    }
  }
  return std::nullopt;
}

std::optional<std::string> Rlocation(const std::string& runfiles_dir,
                                     const std::string& path,
                                     const std::string& workspace) {
  const fs::path candidate = fs::path(runfiles_dir) / workspace / path;
  std::error_code error;
  if (!fs::exists(candidate, error)) return std::nullopt;
  return candidate.string();
}

}  // namespace acldump::tools
