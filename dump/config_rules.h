// Internal to //dump:config: the rules a well-typed dump object must follow,
// run after the checks of dump/config_schema.h. Users include dump/config.h.
#ifndef ACLDUMP_DUMP_CONFIG_RULES_H_
#define ACLDUMP_DUMP_CONFIG_RULES_H_

#include "absl/status/status.h"
#include "dump/config.h"
#include "dump/config_schema.h"

namespace acldump::dump::config_internal {

// What the constraint checks learnt about dump_path.
struct PathFacts {
  bool checked = false;  // exception scenes do not check dump_path
  bool remote = false;   // an "ip:path" form
  std::string resolved;  // a local directory, absolute and canonical
  std::string baseline;  // dump_baseline, absolute ($NAME expanded)
};

// The SDK's constraints, in its order: dump_scene (an exception scene stops
// here), dump_path, dump_debug (with this runtime's rule against a non-empty
// dump_list; "on" stops here), dump_step, the dump_list items, dump_stats.
absl::Status CheckConstraints(const CheckContext& c, PathFacts& path);

// This runtime's own rule, whatever the scene: model_name values are unique.
absl::Status CheckUniqueModelNames(const CheckContext& c);

// What only an NPU can do, once every other check passed (so a config the SDK
// rejects gets the SDK's verdict first): aic_err_* and watcher scenes,
// watcher_nodes, dump_kernel_data, a remote dump_path.
absl::Status CheckRuntimeSupport(const CheckContext& c, const PathFacts& path);

}  // namespace acldump::dump::config_internal

#endif  // ACLDUMP_DUMP_CONFIG_RULES_H_
