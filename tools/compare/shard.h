// `dump compare` in pieces, for a cluster: the client reads both sides and
// pairs their folders; each task compares some folder pairs (written into a
// task file, headers read) and writes their results; the client merges the
// results into the TreeCompareResult that CompareTrees would have returned,
// so every output is the same, byte for byte. The files live in one folder
// that client and workers share.
#ifndef ACLDUMP_TOOLS_COMPARE_SHARD_H_
#define ACLDUMP_TOOLS_COMPARE_SHARD_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tools/compare/compare.h"
#include "tools/tree/filter.h"

namespace acldump::tools {

// One task: its file, the file it writes, and the folder pairs it compares
// (indices into the FolderPlan).
struct CompareTaskFiles {
  std::string task;
  std::string result;
  std::vector<size_t> pairs;
};

// Splits the pairs of `folders` into at most `max_tasks` tasks of
// consecutive pairs, of about equal numbers of operators, and writes each
// task's file into `dir` (which must exist).
absl::StatusOr<std::vector<CompareTaskFiles>> WriteCompareTasks(
    const std::string& dir, const FolderPlan& folders,
    const CompareOptions& options, const FilterOptions& filter_options,
    size_t max_tasks);

// A worker's job: compares the pairs of the task file and writes their
// results (whole or not at all) to `result`. Errors: the task file is
// missing, damaged or of another release; the result cannot be written.
absl::Status RunCompareTask(const std::string& task, const std::string& result);

// The merged result, and the pairs no task delivered.
struct MergedCompare {
  TreeCompareResult result;
  std::vector<size_t> failed;  // pair indices, ascending
};

// The results of every task, in the pairs' order. The pairs of a task whose
// result is missing or unreadable (its worker died, a file could not be
// read) stay in the result with nothing compared; a note names each and why
// (`why_missing(task index)` when it knows, else what reading said).
MergedCompare MergeCompareResults(
    const FolderPlan& folders, const std::vector<CompareTaskFiles>& tasks,
    const std::function<std::string(size_t)>& why_missing = {});

}  // namespace acldump::tools

#endif  // ACLDUMP_TOOLS_COMPARE_SHARD_H_
