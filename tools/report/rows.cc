#include "tools/report/rows.h"

#include <algorithm>

#include "base/strings.h"
#include "base/text.h"
#include "tools/common/cli_util.h"

namespace acldump::tools::report_internal {
std::vector<Row> RowsOf(const TreeCompareResult& result, size_t pair_index) {
  std::vector<Row> rows;
  const CompareResult& pair = result.pairs[pair_index].result;
  for (size_t i = 0; i < pair.ops.size(); ++i) {
    const OpComparison& op = pair.ops[i];
    const bool first =
        result.first_pair == pair_index && pair.first_divergence == i;
    if (op.tensors.empty()) rows.push_back({pair_index, &op, nullptr, first});
    for (const TensorComparison& t : op.tensors) {
      rows.push_back({pair_index, &op, &t, first});
    }
  }
  return rows;
}

std::string StatusText(const Row& row) {
  if (row.tensor == nullptr) return "not compared (no counterpart in B)";
  if (!row.tensor->problem.empty()) return row.tensor->problem;
  return row.tensor->within() ? "ok" : "DIFF";
}

std::string StatusKey(const Row& row) {
  if (row.tensor == nullptr) return "not_compared";
  return row.tensor->within() ? "within" : "outside";
}

std::string TensorName(const TensorComparison* t) {
  if (t == nullptr) return "-";
  return StrCat(t->is_input ? "input " : "output ", t->position);
}

std::string MetricCell(const Row& row, Metric m) {
  if (row.tensor == nullptr || !row.tensor->problem.empty() ||
      row.tensor->by != CompareBy::kTensors) {
    return "";
  }
  return FormatNumber(MetricValue(row.tensor->metrics, m));
}

std::string IndexText(const std::vector<int64_t>& index) {
  return StrCat("[", StrJoin(index, ","), "]");
}

std::string WorstCell(const TensorComparison* t) {
  if (t != nullptr && t->by != CompareBy::kTensors) {
    return StatsDifferenceText(*t);
  }
  if (t == nullptr || t->worst.empty()) return "";
  const ElementDiff& w = t->worst.front();
  return StrCat(IndexText(w.index), " a=", FormatNumber(w.a),
                " b=", FormatNumber(w.b));
}

// "resnet_tiny iterations 0-1, device 0" style summary of a side's folders.
std::string SideSummary(const CompareTree& tree) {
  size_t ops = 0;
  for (const CompareSide& f : tree.folders) ops += f.ops.size();
  if (tree.folders.size() == 1) {
    return StrCat(tree.folders[0].description, " (", ops, " operators)");
  }
  return StrCat(tree.root, " (", tree.folders.size(), " folders, ", ops,
                " operators)");
}

std::string CompareByText(const CompareOptions& options) {
  std::string stats =
      "statistics (Max, Min, Avg, L2norm within the tolerance; Count and "
      "NaN/Inf counts equal)";
  for (const StatTolerance& t : options.stat_tolerances) {
    StrAppend(stats, "; ", t.column, ": atol ", FormatNumber(t.atol), ", rtol ",
              FormatNumber(t.rtol));
  }
  switch (options.by) {
    case CompareBy::kChecksum:
      return "checksum (the bytes, exactly)";
    case CompareBy::kStats:
      return stats;
    default:
      return StrCat(
          "checksum where both sides have one (the bytes, exactly), "
          "else ",
          stats);
  }
}

std::string Header(const ReportContext& c) {
  std::string out = StrCat("A: ", SideSummary(*c.a), "\nB: ", SideSummary(*c.b),
                           "\ntolerance: |a-b| <= atol + rtol*|b| with atol ",
                           FormatNumber(c.options.atol), ", rtol ",
                           FormatNumber(c.options.rtol), "\n");
  const bool stats_side =
      c.a->kind == SideKind::kStats || c.b->kind == SideKind::kStats;
  if (stats_side || c.options.by == CompareBy::kStats ||
      c.options.by == CompareBy::kChecksum) {
    StrAppend(out, "compared by: ", CompareByText(c.options), "\n");
  }
  if (!c.filters.empty()) StrAppend(out, "filters: ", c.filters, "\n");
  return out;
}

std::string VerdictText(const TreeCompareResult& result) {
  std::string text = StrCat(result.tensors_compared, " tensors compared");
  if (result.pairs.size() > 1) {
    StrAppend(text, " in ", result.pairs.size(), " folder pairs");
  }
  StrAppend(text, ", ", result.tensors_outside, " outside the tolerance");
  if (result.ops_not_compared > 0) {
    StrAppend(text, ", ", Plural(result.ops_not_compared, "operator"),
              " not compared");
  }
  return text;
}

std::string VerdictWord(const TreeCompareResult& result) {
  return result.tensors_compared == 0 ? "NOTHING COMPARED"
                                      : (result.within() ? "PASS" : "FAIL");
}

std::vector<std::string> Unmatched(const CompareResult& result) {
  std::vector<std::string> names;
  for (const OpComparison& op : result.ops) {
    if (op.tensors.empty()) names.push_back(op.a->name);
  }
  return names;
}

std::string Abbreviated(const std::vector<std::string>& names, size_t limit) {
  std::vector<std::string> shown(names.begin(),
                                 names.begin() + std::min(limit, names.size()));
  return StrCat(StrJoin(shown, ", "), names.size() > limit ? ", ..." : "");
}

std::string Escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

}  // namespace acldump::tools::report_internal
