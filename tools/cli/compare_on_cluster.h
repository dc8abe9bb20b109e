// `dump compare`'s folder pairs as tasks on a Dask cluster, merged back into
// one result (also used by `dump compare-device`).
#ifndef ACLDUMP_TOOLS_CLI_COMPARE_ON_CLUSTER_H_
#define ACLDUMP_TOOLS_CLI_COMPARE_ON_CLUSTER_H_

#include "absl/status/statusor.h"
#include "tools/cluster/cluster.h"
#include "tools/compare/compare.h"
#include "tools/compare/shard.h"
#include "tools/tree/filter.h"

namespace acldump::tools {

absl::StatusOr<MergedCompare> CompareTreesOnCluster(
    const ClusterOptions& cluster, const CompareTree& a, const CompareTree& b,
    const CompareOptions& options, const FilterOptions& filter_options);

}  // namespace acldump::tools

#endif  // ACLDUMP_TOOLS_CLI_COMPARE_ON_CLUSTER_H_
