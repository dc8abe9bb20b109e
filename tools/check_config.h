// `dump check-config acl.json [--model M]`: validates a config exactly as
// aclmdlSetDump does (through the C ABI, so the code and message are the
// API's) and, given a model, shows the dump plan without running anything.
#ifndef ACLDUMP_TOOLS_CHECK_CONFIG_H_
#define ACLDUMP_TOOLS_CHECK_CONFIG_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"

namespace acldump::tools {

struct ConfigCheck {
  bool valid = false;
  int32_t acl_error = 0;  // what aclmdlSetDump returned
  std::string report;     // the error, or the description and plan
  size_t warnings = 0;
};

// Errors only for a model that cannot be read or converted; an invalid
// config is a ConfigCheck with valid == false.
absl::StatusOr<ConfigCheck> CheckConfig(const std::string& config_path,
                                        const std::string& model_path);

}  // namespace acldump::tools

#endif  // ACLDUMP_TOOLS_CHECK_CONFIG_H_
