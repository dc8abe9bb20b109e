// `dump compare` in pieces, for a cluster: the client reads both sides and
// writes a plan; each worker compares one folder pair of the plan and writes
// its result; the client merges the results into the TreeCompareResult that
// CompareTrees would have returned, so every output is the same, byte for
// byte. The files live in one folder that client and workers share.
#ifndef ACLDUMP_TOOLS_COMPARE_SHARD_H_
#define ACLDUMP_TOOLS_COMPARE_SHARD_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tools/dump_compare.h"
#include "tools/dump_filter.h"

namespace acldump::tools {

// Both sides, the options and the pairing. Not movable: the pairing points
// into the sides.
struct ComparePlan {
  ComparePlan() = default;
  ComparePlan(const ComparePlan&) = delete;
  ComparePlan& operator=(const ComparePlan&) = delete;

  CompareTree a, b;
  CompareOptions options;
  FilterOptions filter_options;
  DumpFilter filter;
  FolderPlan folders;
};

// "<dir>/plan.pb" and "<dir>/pair-<i>.pb".
std::string PlanPath(const std::string& dir);
std::string PairResultPath(const std::string& dir, size_t pair);

// Writes the plan of comparing `a` with `b` into `dir` (created if missing).
// Returns the number of folder pairs, one task each.
absl::StatusOr<size_t> WriteComparePlan(const std::string& dir,
                                        const CompareTree& a,
                                        const CompareTree& b,
                                        const CompareOptions& options,
                                        const FilterOptions& filter_options);

// Errors: missing or unreadable, not a plan, written by another version.
absl::StatusOr<std::unique_ptr<ComparePlan>> ReadComparePlan(
    const std::string& dir);

// A worker's task: compares folder pair `pair` of the plan in `dir` and
// writes its result next to the plan (whole or not at all).
absl::Status CompareShard(const std::string& dir, size_t pair);

// The merged result, and the pairs no worker delivered.
struct MergedCompare {
  TreeCompareResult result;
  std::vector<size_t> failed;  // pair indices, ascending
};

// The results of every pair of `folders`, in its order, read from `dir`. A
// pair whose result is missing or unreadable (its worker died, the files
// could not be read) stays in the result with nothing compared; a note names
// it and why (`why_missing`, when it knows, else what reading said).
MergedCompare MergeCompareShards(
    const FolderPlan& folders, const std::string& dir,
    const std::function<std::string(size_t)>& why_missing = {});

}  // namespace acldump::tools

#endif  // ACLDUMP_TOOLS_COMPARE_SHARD_H_
