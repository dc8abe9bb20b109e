#include "tools/dump_ls.h"

#include <algorithm>
#include <map>

#include "base/strings.h"
#include "base/text.h"
#include "tools/cli_util.h"

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

std::string FormatDumpTree(const DumpTree& tree, bool summary) {
  const size_t tensors = tree.CountKind(EntryKind::kTensor);
  const size_t stats = tree.CountKind(EntryKind::kStats);
  const size_t overflow = tree.CountKind(EntryKind::kOverflowRecord);
  std::string out =
      StrCat(tree.root, ": ", tensors + stats + overflow, " dump files (",
             tensors, " tensor, ", stats, " stats, ", overflow, " overflow), ",
             HumanBytes(tree.DumpBytes()), ", ", tree.runs.size(),
             tree.runs.size() == 1 ? " folder" : " folders", "\n");
  // Files and bytes under every level prefix.
  std::map<std::string, std::pair<size_t, uint64_t>> totals;
  auto prefix_key =
      [](const std::vector<std::pair<std::string, std::string>>& levels,
         size_t depth) {
        std::string key;
        for (size_t i = 0; i <= depth; ++i)
          StrAppend(key, levels[i].first, "/");
        return key;
      };
  for (const DumpRun& run : tree.runs) {
    const auto levels = Levels(run);
    for (size_t d = 0; d < levels.size(); ++d) {
      auto& total = totals[StrCat(static_cast<int>(run.layout), ":",
                                  prefix_key(levels, d))];
      total.first += run.files.size();
      total.second += run.bytes;
    }
  }
  std::vector<std::pair<std::string, std::string>> previous;
  Layout previous_layout = Layout::kUnknown;
  for (size_t r = 0; r < tree.runs.size(); ++r) {
    const DumpRun& run = tree.runs[r];
    auto levels = Levels(run);
    // --summary: the iteration folders of one model id on one line, as
    // ranges.
    size_t last = r;
    if (summary && run.layout == Layout::kModel) {
      while (last + 1 < tree.runs.size()) {
        const DumpRun& next = tree.runs[last + 1];
        if (next.layout != Layout::kModel || next.time != run.time ||
            next.device != run.device || next.model != run.model ||
            next.model_id != run.model_id) {
          break;
        }
        ++last;
      }
      levels.pop_back();
    }
    size_t same = 0;
    if (run.layout == previous_layout) {
      while (same < levels.size() && same < previous.size() &&
             levels[same].first == previous[same].first) {
        ++same;
      }
    }
    for (size_t d = same; d < levels.size(); ++d) {
      const auto& total = totals[StrCat(static_cast<int>(run.layout), ":",
                                        prefix_key(levels, d))];
      StrAppend(out, std::string(2 * d, ' '), levels[d].first, "/  (",
                levels[d].second, ")  ", total.first,
                total.first == 1 ? " file, " : " files, ",
                HumanBytes(total.second), "\n");
    }
    previous = levels;
    previous_layout = run.layout;
    if (summary && run.layout == Layout::kModel) {
      std::vector<int64_t> iterations;
      size_t files = 0;
      uint64_t bytes = 0;
      for (size_t k = r; k <= last; ++k) {
        iterations.push_back(tree.runs[k].iteration);
        files += tree.runs[k].files.size();
        bytes += tree.runs[k].bytes;
      }
      StrAppend(out, std::string(2 * levels.size(), ' '),
                iterations.size() == 1 ? "iteration " : "iterations ",
                IterationRanges(iterations), "  (",
                Plural(iterations.size(), "folder"), ")  ", files,
                files == 1 ? " file, " : " files, ", HumanBytes(bytes), "\n");
      r = last;
      continue;
    }
    if (summary) continue;
    TextTable table({"task", "type", "op", "kind", "size", "file"});
    for (const DumpEntry* e : run.files) {
      table.AddRow({StrCat(e->name->task_id), e->name->op_type,
                    e->name->op_name, std::string(EntryKindName(e->kind)),
                    HumanBytes(e->bytes), e->file_name});
    }
    out += table.Render(std::string(2 * levels.size(), ' '));
  }
  std::vector<std::string> others;
  for (const DumpEntry& e : tree.entries) {
    if (e.kind == EntryKind::kOther) {
      others.push_back(e.relative.empty() ? e.file_name : e.relative);
    }
  }
  if (!others.empty()) {
    const size_t shown = std::min<size_t>(others.size(), 5);
    StrAppend(
        out, others.size(), others.size() == 1 ? " other file" : " other files",
        " (not dump files): ",
        StrJoin(
            std::vector<std::string>(others.begin(), others.begin() + shown),
            ", "),
        others.size() > shown ? ", ..." : "", "\n");
  }
  return out;
}

}  // namespace acldump::tools
