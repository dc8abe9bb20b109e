// The terminal report.
#include <algorithm>

#include "base/strings.h"
#include "tools/common/cli_util.h"
#include "tools/report/report.h"
#include "tools/report/rows.h"

namespace acldump::tools {
namespace {

using namespace report_internal;  // NOLINT: the renderers' shared rows

std::string TensorTable(const TreeCompareResult& result, size_t pair_index,
                        const ReportContext& context) {
  const std::vector<Row> rows = RowsOf(result, pair_index);
  // Pairs compared by statistics or checksum have no metrics: no columns.
  const bool metrics = std::any_of(rows.begin(), rows.end(), [](const Row& r) {
    return r.tensor != nullptr && r.tensor->by == CompareBy::kTensors;
  });
  std::vector<std::string> header = {"#",      "task", "op",    "type",
                                     "tensor", "B",    "match", "shape"};
  if (metrics) {
    for (Metric m : context.metrics) header.emplace_back(MetricName(m));
  }
  header.push_back(metrics ? "worst element" : "differences");
  header.push_back("result");
  TextTable table(header);
  for (const Row& row : rows) {
    std::vector<std::string> cells = {
        StrCat(row.op->index + 1),
        StrCat(row.op->a->task_id),
        row.op->a->name,
        row.op->a->type,
        TensorName(row.tensor),
        row.tensor ? row.tensor->b_label : "-",
        std::string(MatchKindName(row.op->match)),
        row.tensor ? ShapeText(row.tensor->shape_a) : ""};
    if (metrics) {
      for (Metric m : context.metrics) cells.push_back(MetricCell(row, m));
    }
    cells.push_back(row.tensor && !row.tensor->within() ? WorstCell(row.tensor)
                                                        : "");
    std::string status = StatusText(row);
    if (row.first && row.tensor && !row.tensor->is_input &&
        !row.tensor->within()) {
      status += "  <- first divergence";
    }
    cells.push_back(std::move(status));
    table.AddRow(std::move(cells));
  }
  return table.Render();
}

}  // namespace

std::string FormatCompareText(const TreeCompareResult& result,
                              const ReportContext& context) {
  std::string out = Header(context);
  for (const std::string& note : result.notes) {
    StrAppend(out, "note: ", note, "\n");
  }
  if (result.pairs.size() > 1) {
    TextTable pairs({"#", "A", "B", "compared", "outside", "not compared",
                     "first diverging operator"});
    for (size_t i = 0; i < result.pairs.size(); ++i) {
      const FolderPair& p = result.pairs[i];
      const CompareResult& r = p.result;
      pairs.AddRow({StrCat(i + 1), FolderLabel(*p.a), FolderLabel(*p.b),
                    StrCat(r.tensors_compared), StrCat(r.tensors_outside),
                    StrCat(r.ops_not_compared),
                    r.first_divergence ? r.ops[*r.first_divergence].a->name
                                       : (r.tensors_outside > 0 ? "?" : "")});
    }
    StrAppend(out, "\nfolder pairs (", result.pairs.size(), "):\n",
              pairs.Render("  "));
  }
  std::vector<size_t> detailed;
  if (result.pairs.size() == 1 || context.verbose) {
    for (size_t i = 0; i < result.pairs.size(); ++i) detailed.push_back(i);
  } else if (result.first_pair) {
    detailed.push_back(*result.first_pair);
  }
  for (size_t i : detailed) {
    const FolderPair& p = result.pairs[i];
    if (result.pairs.size() > 1) {
      StrAppend(out, "\n", FolderLabel(*p.a), " against ", FolderLabel(*p.b),
                ":");
    }
    out += "\n" + TensorTable(result, i, context);
    const std::vector<std::string> unmatched = Unmatched(p.result);
    if (!unmatched.empty()) {
      StrAppend(out, "operators of A not compared (no counterpart in B, ",
                unmatched.size(), "): ", Abbreviated(unmatched, 10), "\n");
    }
    if (!p.result.only_in_b.empty()) {
      StrAppend(out, "operators of B not matched (", p.result.only_in_b.size(),
                "): ", Abbreviated(p.result.only_in_b, 10), "\n");
    }
  }
  if (result.pairs.size() > 1 && !context.verbose) {
    out +=
        "(--verbose prints every folder pair's tensors; --json and --csv "
        "write them all)\n";
  }
  auto folders = [&](const std::vector<const CompareSide*>& list,
                     std::string_view side) {
    if (list.empty()) return;
    std::vector<std::string> labels;
    for (const CompareSide* f : list) labels.push_back(FolderLabel(*f));
    StrAppend(out, "folders only in ", side, " (", list.size(),
              "): ", Abbreviated(labels, 10), "\n");
  };
  out += "\n";
  folders(result.only_in_a, "A");
  folders(result.only_in_b, "B");
  StrAppend(out, "first diverging operator: ", TreeDivergenceNote(result),
            "\n");
  StrAppend(out, "result: ", VerdictText(result), " -> ", VerdictWord(result),
            "\n");
  return out;
}

}  // namespace acldump::tools
