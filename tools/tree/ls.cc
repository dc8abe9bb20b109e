#include "tools/tree/ls.h"

#include <algorithm>
#include <map>

#include "base/strings.h"
#include "base/text.h"
#include "tools/common/cli_util.h"

namespace acldump::tools {

using dump::DumpEntry;
using dump::DumpRun;
using dump::DumpTree;
using dump::EntryKind;
using dump::EntryKindName;
using dump::Layout;

namespace {

// The folders of a run, outermost first: (folder name, what it is).
std::vector<std::pair<std::string, std::string>> Levels(const DumpRun& run) {
  switch (run.layout) {
    case Layout::kModel:
      return {{run.time, "time"},
              {StrCat(run.device), "device"},
              {run.model, "model"},
              {StrCat(run.model_id), "model id"},
              {StrCat(run.iteration), "iteration"}};
    case Layout::kSingleOp:
      return {{run.time, "time"},
              {StrCat(run.device), "device (single-op dump)"}};
    case Layout::kException:
      return {{"extra-info/data-dump", "exception dump"},
              {StrCat(run.device), "device"}};
    case Layout::kUnknown:
      break;
  }
  return {{run.directory, "not in the dump layout"}};
}

}  // namespace

std::string IterationRanges(std::vector<int64_t> iterations) {
  std::sort(iterations.begin(), iterations.end());
  iterations.erase(std::unique(iterations.begin(), iterations.end()),
                   iterations.end());
  std::vector<std::string> ranges;
  for (size_t i = 0; i < iterations.size();) {
    size_t j = i;
    while (j + 1 < iterations.size() &&
           iterations[j + 1] == iterations[j] + 1) {
      ++j;
    }
    ranges.push_back(j == i ? StrCat(iterations[i])
                            : StrCat(iterations[i], "-", iterations[j]));
    i = j + 1;
  }
  return StrJoin(ranges, ",");
}

namespace {

using LevelList = std::vector<std::pair<std::string, std::string>>;
// Files and bytes under every level prefix, keyed by LevelKey.
using LevelTotals = std::map<std::string, std::pair<size_t, uint64_t>>;

// Layouts are keyed apart so that folders of the same name in different
// layouts are not summed together.
std::string LevelKey(Layout layout, const LevelList& levels, size_t depth) {
  std::string key;
  for (size_t i = 0; i <= depth; ++i) StrAppend(key, levels[i].first, "/");
  return StrCat(static_cast<int>(layout), ":", key);
}

std::string TreeHeadline(const DumpTree& tree) {
  const size_t tensors = tree.CountKind(EntryKind::kTensor);
  const size_t stats = tree.CountKind(EntryKind::kStats);
  const size_t overflow = tree.CountKind(EntryKind::kOverflowRecord);
  return StrCat(tree.root, ": ", tensors + stats + overflow, " dump files (",
                tensors, " tensor, ", stats, " stats, ", overflow,
                " overflow), ", HumanBytes(tree.DumpBytes()), ", ",
                tree.runs.size(),
                tree.runs.size() == 1 ? " folder" : " folders", "\n");
}

LevelTotals TotalsByLevel(const DumpTree& tree) {
  LevelTotals totals;
  for (const DumpRun& run : tree.runs) {
    const LevelList levels = Levels(run);
    for (size_t d = 0; d < levels.size(); ++d) {
      auto& total = totals[LevelKey(run.layout, levels, d)];
      total.first += run.files.size();
      total.second += run.bytes;
    }
  }
  return totals;
}

// The last of the runs from r on that differ from it only in iteration.
size_t LastIterationOf(const DumpTree& tree, size_t r) {
  const DumpRun& run = tree.runs[r];
  size_t last = r;
  while (last + 1 < tree.runs.size()) {
    const DumpRun& next = tree.runs[last + 1];
    if (next.layout != Layout::kModel || next.time != run.time ||
        next.device != run.device || next.model != run.model ||
        next.model_id != run.model_id) {
      break;
    }
    ++last;
  }
  return last;
}

std::string IterationsLine(const DumpTree& tree, size_t first, size_t last,
                           size_t depth) {
  std::vector<int64_t> iterations;
  size_t files = 0;
  uint64_t bytes = 0;
  for (size_t k = first; k <= last; ++k) {
    iterations.push_back(tree.runs[k].iteration);
    files += tree.runs[k].files.size();
    bytes += tree.runs[k].bytes;
  }
  return StrCat(std::string(2 * depth, ' '),
                iterations.size() == 1 ? "iteration " : "iterations ",
                IterationRanges(iterations), "  (",
                Plural(iterations.size(), "folder"), ")  ", files,
                files == 1 ? " file, " : " files, ", HumanBytes(bytes), "\n");
}

std::string FilesTable(const DumpRun& run, size_t depth) {
  TextTable table({"task", "type", "op", "kind", "size", "file"});
  for (const DumpEntry* e : run.files) {
    table.AddRow({StrCat(e->name->task_id), e->name->op_type, e->name->op_name,
                  std::string(EntryKindName(e->kind)), HumanBytes(e->bytes),
                  e->file_name});
  }
  return table.Render(std::string(2 * depth, ' '));
}

std::string OtherFilesLine(const DumpTree& tree) {
  std::vector<std::string> others;
  for (const DumpEntry& e : tree.entries) {
    if (e.kind == EntryKind::kOther && !dump::IsLayoutFile(e)) {
      others.push_back(e.relative.empty() ? e.file_name : e.relative);
    }
  }
  if (others.empty()) return "";
  const size_t shown = std::min<size_t>(others.size(), 5);
  return StrCat(
      others.size(), others.size() == 1 ? " other file" : " other files",
      " (not dump files): ",
      StrJoin(std::vector<std::string>(others.begin(), others.begin() + shown),
              ", "),
      others.size() > shown ? ", ..." : "", "\n");
}

}  // namespace

std::string FormatDumpTree(const DumpTree& tree, bool summary) {
  std::string out = TreeHeadline(tree);
  LevelTotals totals = TotalsByLevel(tree);
  LevelList previous;
  Layout previous_layout = Layout::kUnknown;
  for (size_t r = 0; r < tree.runs.size(); ++r) {
    const DumpRun& run = tree.runs[r];
    LevelList levels = Levels(run);
    // --summary: the iteration folders of one model id on one line, as
    // ranges.
    const bool by_ranges = summary && run.layout == Layout::kModel;
    const size_t last = by_ranges ? LastIterationOf(tree, r) : r;
    if (by_ranges) levels.pop_back();
    // Folders already printed for the previous run are not repeated.
    size_t same = 0;
    if (run.layout == previous_layout) {
      while (same < levels.size() && same < previous.size() &&
             levels[same].first == previous[same].first) {
        ++same;
      }
    }
    for (size_t d = same; d < levels.size(); ++d) {
      const auto& total = totals[LevelKey(run.layout, levels, d)];
      StrAppend(out, std::string(2 * d, ' '), levels[d].first, "/  (",
                levels[d].second, ")  ", total.first,
                total.first == 1 ? " file, " : " files, ",
                HumanBytes(total.second), "\n");
    }
    previous = levels;
    previous_layout = run.layout;
    if (by_ranges) {
      out += IterationsLine(tree, r, last, levels.size());
      r = last;
    } else if (!summary) {
      out += FilesTable(run, levels.size());
    }
  }
  out += OtherFilesLine(tree);
  return out;
}

}  // namespace acldump::tools
