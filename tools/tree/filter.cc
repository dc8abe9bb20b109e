#include "tools/tree/filter.h"

#include <algorithm>
#include <charconv>
#include <set>

#include "base/strings.h"
#include "base/text.h"

namespace acldump::tools {
namespace {

std::vector<std::string_view> Split(std::string_view text,
                                    std::string_view separators) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find_first_of(separators, start);
    if (end == std::string_view::npos) end = text.size();
    parts.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

std::optional<int64_t> Number(std::string_view text) {
  if (text.empty() || text.size() > 18 ||
      text.find_first_not_of("0123456789") != std::string_view::npos) {
    return std::nullopt;
  }
  int64_t value = 0;
  std::from_chars(text.data(), text.data() + text.size(), value);
  return value;
}

}  // namespace

absl::StatusOr<IterationSet> IterationSet::Parse(std::string_view text) {
  IterationSet set;
  for (std::string_view item : Split(text, ",|")) {
    const size_t dash = item.find('-');
    const std::optional<int64_t> first =
        Number(dash == std::string_view::npos ? item : item.substr(0, dash));
    const std::optional<int64_t> last =
        dash == std::string_view::npos ? first : Number(item.substr(dash + 1));
    if (!first || !last || *last < *first) {
      return absl::InvalidArgumentError(StrCat(
          "--iterations: ", Quote(item),
          " is not an iteration N or a range N-M (N <= M, from 0); give e.g. "
          "3-5 or 0,3-5,10"));
    }
    set.ranges_.emplace_back(*first, *last);
  }
  std::sort(set.ranges_.begin(), set.ranges_.end());
  return set;
}

bool IterationSet::Contains(int64_t iteration) const {
  for (const auto& [first, last] : ranges_) {
    if (iteration >= first && iteration <= last) return true;
  }
  return false;
}

std::string IterationSet::ToString() const {
  std::vector<std::string> items;
  for (const auto& [first, last] : ranges_) {
    items.push_back(first == last ? StrCat(first) : StrCat(first, "-", last));
  }
  return StrJoin(items, ",");
}

absl::StatusOr<DumpFilter> DumpFilter::Create(const FilterOptions& options) {
  DumpFilter filter;
  for (const std::string& list : options.op_types) {
    for (std::string_view type : Split(list, ",")) {
      if (!type.empty()) filter.op_types_.emplace_back(type);
    }
  }
  if (!options.match.empty()) {
    try {
      filter.regex_ = std::make_shared<const std::regex>(
          options.match, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      return absl::InvalidArgumentError(StrCat(
          "--match: ", Quote(options.match),
          " is not a regular expression (ECMAScript syntax): ", e.what()));
    }
    filter.pattern_ = options.match;
  }
  if (!options.iterations.empty()) {
    absl::StatusOr<IterationSet> set = IterationSet::Parse(options.iterations);
    if (!set.ok()) return set.status();
    filter.iterations_ = *std::move(set);
  }
  return filter;
}

bool DumpFilter::MatchesType(std::string_view type) const {
  if (op_types_.empty() || type.empty()) return true;
  return std::find(op_types_.begin(), op_types_.end(), type) != op_types_.end();
}

bool DumpFilter::MatchesName(
    std::string_view name, std::span<const std::string> original_names) const {
  if (!regex_) return true;
  auto search = [&](std::string_view text) {
    return std::regex_search(text.begin(), text.end(), *regex_);
  };
  if (search(name)) return true;
  return std::any_of(original_names.begin(), original_names.end(),
                     [&](const std::string& n) { return search(n); });
}

bool DumpFilter::MatchesIteration(int64_t iteration) const {
  if (!iterations_) return true;
  return iteration >= 0 && iterations_->Contains(iteration);
}

bool DumpFilter::Matches(const dump::DumpEntry& entry) const {
  if (empty()) return true;
  if (!entry.name) return false;
  return MatchesIteration(entry.iteration) &&
         MatchesType(entry.name->op_type) && MatchesName(entry.name->op_name);
}

std::string DumpFilter::Describe() const {
  std::vector<std::string> parts;
  if (!op_types_.empty()) {
    parts.push_back(StrCat("--op-type ", StrJoin(op_types_, ",")));
  }
  if (regex_) parts.push_back(StrCat("--match ", Quote(pattern_)));
  if (iterations_) {
    parts.push_back(StrCat("--iterations ", iterations_->ToString()));
  }
  return StrJoin(parts, ", ");
}

dump::DumpTree FilterTree(const dump::DumpTree& tree,
                          const DumpFilter& filter) {
  std::vector<dump::DumpEntry> kept;
  for (const dump::DumpEntry& entry : tree.entries) {
    // mapping.csv stays: it names the hashed files that are kept.
    if (filter.Matches(entry) || entry.file_name == "mapping.csv") {
      kept.push_back(entry);
    }
  }
  return dump::BuildDumpTree(tree.root, std::move(kept));
}

std::string ExplainEmptyFilter(const dump::DumpTree& tree,
                               const DumpFilter& filter) {
  std::set<std::string> types;
  std::set<int64_t> iterations;
  size_t dump_files = 0;
  for (const dump::DumpEntry& e : tree.entries) {
    if (!e.name) continue;
    ++dump_files;
    types.insert(e.name->op_type);
    if (e.iteration >= 0) iterations.insert(e.iteration);
  }
  if (dump_files == 0) {
    return StrCat("'", tree.root, "' holds no dump files");
  }
  std::vector<std::string> reasons;
  // Which single filter leaves nothing on its own.
  DumpFilter only_types, only_name, only_iterations;
  only_types.op_types_ = filter.op_types_;
  only_name.regex_ = filter.regex_;
  only_name.pattern_ = filter.pattern_;
  only_iterations.iterations_ = filter.iterations_;
  auto none = [&](const DumpFilter& f) {
    return std::none_of(tree.entries.begin(), tree.entries.end(),
                        [&](const dump::DumpEntry& e) { return f.Matches(e); });
  };
  if (!filter.op_types_.empty() && none(only_types)) {
    std::vector<std::string_view> candidates(types.begin(), types.end());
    std::string text =
        StrCat("no operator has type ", StrJoin(filter.op_types_, " or "),
               " (types present: ", StrJoin(types, ", "), ")");
    for (const std::string& type : filter.op_types_) {
      if (types.count(type)) continue;
      if (auto near = NearestWord(type, candidates)) {
        StrAppend(text, "; did you mean ", Quote(*near), " for ", Quote(type),
                  "?");
      }
    }
    reasons.push_back(text);
  }
  if (filter.regex_ && none(only_name)) {
    reasons.push_back(
        StrCat("no operator name matches --match ", Quote(filter.pattern_)));
  }
  if (filter.iterations_ && none(only_iterations)) {
    std::vector<std::string> present;
    for (int64_t i : iterations) present.push_back(StrCat(i));
    if (present.size() > 12) {
      present = {StrCat(*iterations.begin(), "-", *iterations.rbegin())};
    }
    reasons.push_back(StrCat(
        "no dump folder of iteration ", filter.iterations_->ToString(),
        present.empty()
            ? std::string(" (no iteration folders)")
            : StrCat(" (iterations present: ", StrJoin(present, ","), ")")));
  }
  if (reasons.empty()) {
    reasons.push_back(
        StrCat("no dump file passes ", filter.Describe(), " together"));
  }
  return StrCat("nothing under '", tree.root,
                "' passes the filters: ", StrJoin(reasons, "; "));
}

}  // namespace acldump::tools
