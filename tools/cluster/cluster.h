// Running a command's tasks on an existing Dask cluster (`--scheduler`): the
// command splits its work into tasks, each an invocation of this same tool
// that writes one output file into a folder the client and the workers
// share; the Python package acldump.analysis submits them to the scheduler,
// shows progress and retries; the command then merges the outputs.
#ifndef ACLDUMP_TOOLS_CLUSTER_CLUSTER_H_
#define ACLDUMP_TOOLS_CLUSTER_CLUSTER_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/status/statusor.h"

namespace acldump::tools {

struct ClusterTask {
  std::vector<std::string> argv;  // argv[0] is this tool
  std::string output;             // the file the task writes; absent = failed
};

struct ClusterOptions {
  std::string scheduler;  // "tcp://host:8786"
  std::string scratch;    // parent of the task folder; "" = $TMPDIR or /tmp
};

// --scheduler and --scratch on `command`.
void AddClusterOptions(CLI::App& command, ClusterOptions& options);

// How many tasks to cut `units` of work into: `per_task` units each (a task
// costs a process and a scheduler round trip), but at least 64 tasks while
// there are that many units (so that a small tree still spreads over the
// workers), and at most 512 (what one scheduler dispatches without becoming
// the bottleneck).
size_t TaskCount(size_t units, size_t per_task);

// This tool's absolute path, for the tasks' argv[0].
std::string ToolPath();

// A new folder, private to this user (0700), for one run's tasks (under
// options.scratch), removed by the destructor.
class TaskFolder {
 public:
  static absl::StatusOr<TaskFolder> Create(const ClusterOptions& options,
                                           std::string_view command);
  TaskFolder(TaskFolder&& other) noexcept;
  TaskFolder& operator=(TaskFolder&&) = delete;
  ~TaskFolder();
  const std::string& path() const { return path_; }

 private:
  explicit TaskFolder(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

// Runs `tasks` on the cluster and waits for all of them. OK when the run
// could be made, even if some tasks failed: their outputs are absent and
// TaskFailure says why. Errors: Python, dask.distributed or acldump.analysis
// cannot be found, the scheduler cannot be reached.
absl::Status RunOnCluster(const ClusterOptions& options, std::string_view label,
                          const std::vector<ClusterTask>& tasks,
                          const TaskFolder& folder);

// Why a task left no output ("" when it did).
std::string TaskFailure(const ClusterTask& task);

}  // namespace acldump::tools

#endif  // ACLDUMP_TOOLS_CLUSTER_CLUSTER_H_
