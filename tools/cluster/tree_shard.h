// A dump tree as JSON (`dump ls --json`, schema acldump.ls/1), and scanning a
// tree in pieces on a cluster: the client walks the top of the tree and hands
// its subfolders to workers, each scanning one and writing its entries; the
// client puts them back together into the tree one scan would have found
// (entries are placed by their absolute folder, so where a scan starts does
// not change them).
#ifndef ACLDUMP_TOOLS_CLUSTER_TREE_SHARD_H_
#define ACLDUMP_TOOLS_CLUSTER_TREE_SHARD_H_

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/status/statusor.h"
#include "dump/format/dump_tree.h"
#include "nlohmann/json.hpp"
#include "tools/cluster/cluster.h"

namespace acldump::tools {

// {"schema": "acldump.ls/1", "root", "problems", "entries": [...]}; each
// entry has every DumpEntry field (op_type ... timestamp_us null when the
// file name is not a dump file's).
nlohmann::ordered_json TreeJson(const dump::DumpTree& tree);
// The entries and problems of TreeJson's output, checked (a shard file is
// written by a worker: not trusted).
absl::Status EntriesFromJson(const nlohmann::json& json,
                             std::vector<dump::DumpEntry>& entries,
                             std::vector<std::string>& problems);

// Where to cut a tree: subfolders (relative to the root) for workers, and
// the files above them, which the client scans itself.
struct ScanPlan {
  std::vector<std::string> folders;
  std::vector<std::string> files;
};
// Walks down level by level until there are at least `want` folders (or no
// level has subfolders, or the run folders are reached). A root that is a
// file is one file ("") for the client.
absl::StatusOr<ScanPlan> PlanScan(const std::string& root, size_t want);

// Scans `root`/`sub` with entries named as a scan of `root` names them.
absl::StatusOr<dump::DumpTree> ScanPart(const std::string& root,
                                        const std::string& sub);

// The worker side of a scan task: --shard-list FILE (a JSON array of
// folders relative to the root) and --shard-out FILE.
struct ShardOptions {
  std::string list;
  std::string output;
  bool active() const { return !output.empty(); }
};
void AddShardOptions(CLI::App& command, ShardOptions& options);

// Scans each folder of the task's list under `root`: one tree of them all.
absl::StatusOr<dump::DumpTree> ScanTaskFolders(const std::string& root,
                                               const std::string& list);

// Writes `json` to `path` whole or not at all.
absl::Status WriteJsonFile(const std::string& path,
                           const nlohmann::ordered_json& json);

// A scan of `root` on the cluster: the planned folders in tasks of several,
// each `<tool> <command> <root> --shard-list <file> --shard-out <file>`
// followed by `task_args`. The
// folders of a task no worker delivered are listed in the tree's problems
// and in `failed`. `on_shard` sees each task's JSON (the command's own
// fields).
struct ClusterScan {
  dump::DumpTree tree;
  std::vector<std::string> failed;  // folders, with why
};
// One task of a cluster scan: its folders (relative to the root).
struct ScanTask {
  ClusterTask task;
  std::vector<std::string> folders;
};
// The client's own part (files above the tasks' folders) and each task's
// listing, put together; a task whose listing is missing or damaged (or
// that `on_shard` refuses) adds none of its entries, and each of its
// folders is reported.
ClusterScan MergeScanTasks(
    const std::string& root, dump::DumpTree client_part,
    const std::vector<ScanTask>& tasks,
    const std::function<absl::Status(const nlohmann::json&)>& on_shard = {});
absl::StatusOr<ClusterScan> ScanOnCluster(
    const std::string& command, const std::string& root,
    const ClusterOptions& options,
    const std::function<absl::Status(const nlohmann::json&)>& on_shard = {},
    const std::vector<std::string>& task_args = {});

}  // namespace acldump::tools

#endif  // ACLDUMP_TOOLS_CLUSTER_TREE_SHARD_H_
