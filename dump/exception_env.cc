#include "dump/exception_env.h"

#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "base/strings.h"
#include "dump/config_schema.h"

namespace acldump::dump {
namespace {

// `value` as a usable directory (created when missing), or why not.
std::string UsableDirectory(const std::string& value, std::string* why) {
  std::error_code error;
  std::filesystem::create_directories(value, error);
  char real[PATH_MAX];
  if (realpath(value.c_str(), real) == nullptr) {
    *why = StrCat("cannot be created or resolved (", ErrnoText(errno), ")");
    return "";
  }
  struct stat st;
  if (stat(real, &st) != 0 || !S_ISDIR(st.st_mode)) {
    *why = "is not a directory";
    return "";
  }
  if (access(real, R_OK | W_OK) != 0) {
    *why = "is not readable and writable by this process";
    return "";
  }
  return real;
}

std::string PathVariable(const EnvironmentLookup& lookup, const char* name,
                         std::vector<std::string>& warnings) {
  const char* value = lookup(name);
  if (value == nullptr || value[0] == '\0') return "";
  std::string why;
  std::string directory = UsableDirectory(value, &why);
  if (directory.empty()) {
    warnings.push_back(StrCat("environment variable ", name, "=", value, " ",
                              why, ": it is ignored"));
  }
  return directory;
}

std::string WorkingDirectory() {
  std::error_code error;
  const std::filesystem::path cwd = std::filesystem::current_path(error);
  return error ? "." : cwd.native();
}

}  // namespace

ExceptionEnvironment ReadExceptionEnvironment(
    const EnvironmentLookup& lookup_or_default) {
  const EnvironmentLookup lookup =
      lookup_or_default ? lookup_or_default
                        : [](const char* name) { return std::getenv(name); };
  ExceptionEnvironment env;
  env.dump_path = PathVariable(lookup, "ASCEND_DUMP_PATH", env.warnings);
  env.work_path = PathVariable(lookup, "ASCEND_WORK_PATH", env.warnings);
  const char* scene = lookup("ASCEND_DUMP_SCENE");
  const std::string_view written = scene == nullptr ? "" : scene;
  using config_internal::kBriefException;
  using config_internal::kDetailException;
  using config_internal::kNormException;
  if (written == kBriefException || written == kNormException) {
    env.level = written == kNormException ? ExceptionLevel::kNorm
                                          : ExceptionLevel::kBrief;
    env.scene = std::string(written);
    env.source = StrCat("ASCEND_DUMP_SCENE=", written);
    env.root = !env.dump_path.empty()   ? env.dump_path
               : !env.work_path.empty() ? env.work_path
                                        : WorkingDirectory();
    return env;
  }
  if (written == kDetailException) {
    env.warnings.push_back(StrCat(
        "environment variable ASCEND_DUMP_SCENE=", written,
        " asks for a core dump (the AI Core's local memory, registers and "
        "call stack), which a CPU does not have: it is ignored; use ",
        kNormException,
        " for the failing operator's tensors with their data "
        "types, formats and attributes"));
  } else if (!written.empty()) {
    env.warnings.push_back(StrCat(
        "environment variable ASCEND_DUMP_SCENE=", written,
        " is ignored: expected ", kBriefException, " or ", kNormException));
  }
  std::string collect = PathVariable(lookup, "NPU_COLLECT_PATH", env.warnings);
  if (!collect.empty()) {
    env.level = ExceptionLevel::kNorm;
    env.scene = std::string(kNormException);
    env.source = StrCat("NPU_COLLECT_PATH=", lookup("NPU_COLLECT_PATH"));
    env.root = std::move(collect);
  }
  return env;
}

std::string ExceptionRoot(const ExceptionEnvironment& env,
                          const DumpConfig& config) {
  if (!env.dump_path.empty()) return env.dump_path;
  if (!env.work_path.empty()) return env.work_path;
  if (!config.dump_path_resolved.empty()) return config.dump_path_resolved;
  return WorkingDirectory();
}

DumpConfig EnvironmentExceptionConfig(const ExceptionEnvironment& env) {
  DumpConfig config;
  config.source = env.source;
  config.scene = DumpScene::kException;
  config.exception_level = env.level.value_or(ExceptionLevel::kBrief);
  config.exception_scene = env.scene;
  return config;
}

}  // namespace acldump::dump
