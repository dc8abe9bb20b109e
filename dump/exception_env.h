// Exception dump and its folder from the environment, read as the SDK's dump
// config converter reads them:
//  - ASCEND_DUMP_SCENE = aic_err_brief_dump | aic_err_norm_dump turns
//    exception dump on with no config at all (aic_err_detail_dump needs an
//    NPU core dump: refused with a warning); else NPU_COLLECT_PATH = DIR turns
//    on aic_err_norm_dump into DIR;
//  - the folder of exception files: ASCEND_DUMP_PATH, then ASCEND_WORK_PATH,
//    then the config's dump_path, then the working directory.
// A path variable counts when it names a directory this process can read and
// write (created when missing, as the SDK does); otherwise it is ignored with
// a warning, as is an unknown scene.
#ifndef ACLDUMP_DUMP_EXCEPTION_ENV_H_
#define ACLDUMP_DUMP_EXCEPTION_ENV_H_

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "dump/config.h"

namespace acldump::dump {

struct ExceptionEnvironment {
  // Set when the environment turns exception dump on.
  std::optional<ExceptionLevel> level;
  std::string scene;      // as DumpConfig::exception_scene
  std::string source;     // "ASCEND_DUMP_SCENE=aic_err_norm_dump", for messages
  std::string root;       // where its files go (the working directory when no
                          // variable names one)
  std::string dump_path;  // ASCEND_DUMP_PATH when usable, else ""
  std::string work_path;  // ASCEND_WORK_PATH when usable, else ""
  std::vector<std::string> warnings;
};

using EnvironmentLookup = std::function<const char*(const char*)>;

// Reads the variables (by default from the process's environment).
ExceptionEnvironment ReadExceptionEnvironment(
    const EnvironmentLookup& lookup = {});

// The folder exception files of `config` go to: ASCEND_DUMP_PATH,
// ASCEND_WORK_PATH, the config's dump_path, or the working directory.
std::string ExceptionRoot(const ExceptionEnvironment& environment,
                          const DumpConfig& config);

// The config the environment's exception dump runs with (its files go to
// `root`).
DumpConfig EnvironmentExceptionConfig(const ExceptionEnvironment& environment);

}  // namespace acldump::dump

#endif  // ACLDUMP_DUMP_EXCEPTION_ENV_H_
