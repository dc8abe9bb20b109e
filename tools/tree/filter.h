// The filters `compare`, `stats`, `ls` and `convert` share: --op-type,
// --match REGEX and --iterations 3-5. A dump file passes when its operator
// type is one of --op-type, its operator name (or, where the header is read,
// one of its original names) contains a match of --match, and its iteration
// is in --iterations. Files outside the model layout have no iteration: they
// pass only when --iterations is not given.
#ifndef ACLDUMP_TOOLS_TREE_FILTER_H_
#define ACLDUMP_TOOLS_TREE_FILTER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <regex>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "dump/format/dump_tree.h"

namespace acldump::tools {

// Inclusive iteration ranges: "3-5", "0|3-5|10" or "0,3-5,10".
class IterationSet {
 public:
  static absl::StatusOr<IterationSet> Parse(std::string_view text);
  bool Contains(int64_t iteration) const;
  std::string ToString() const;

 private:
  std::vector<std::pair<int64_t, int64_t>> ranges_;
};

// What the command line gave (empty = no filter).
struct FilterOptions {
  std::vector<std::string> op_types;  // each may be comma-separated
  std::string match;
  std::string iterations;
};

class DumpFilter {
 public:
  DumpFilter() = default;
  // Errors: a regex that does not compile, bad iteration ranges.
  static absl::StatusOr<DumpFilter> Create(const FilterOptions& options);

  bool empty() const { return op_types_.empty() && !regex_ && !iterations_; }
  bool filters_iterations() const { return iterations_.has_value(); }
  bool filters_ops() const { return !op_types_.empty() || regex_ != nullptr; }

  // The operator tests. An empty `type` (a .npy reference) passes --op-type.
  bool MatchesType(std::string_view type) const;
  bool MatchesName(std::string_view name,
                   std::span<const std::string> original_names = {}) const;
  bool MatchesIteration(int64_t iteration) const;
  // A dump file of the tree (kOther entries never pass a non-empty filter).
  bool Matches(const dump::DumpEntry& entry) const;

  // "--op-type Conv, --match 'relu', --iterations 3-5" for messages.
  std::string Describe() const;

 private:
  friend std::string ExplainEmptyFilter(const dump::DumpTree& tree,
                                        const DumpFilter& filter);

  std::vector<std::string> op_types_;
  std::string pattern_;
  std::shared_ptr<const std::regex> regex_;
  std::optional<IterationSet> iterations_;
};

// The entries of `tree` the filter keeps (and every mapping.csv), as a tree
// of their own.
dump::DumpTree FilterTree(const dump::DumpTree& tree, const DumpFilter& filter);

// Why a filtered tree is empty: which filter removed everything, with the
// op types / iterations present and, for a --op-type typo, the nearest types.
std::string ExplainEmptyFilter(const dump::DumpTree& tree,
                               const DumpFilter& filter);

}  // namespace acldump::tools

#endif  // ACLDUMP_TOOLS_TREE_FILTER_H_
