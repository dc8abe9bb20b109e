// `compare --csv`: one row per tensor pair and per operator not compared.
#include "base/strings.h"
#include "base/text.h"
#include "dump/format/dump_names.h"
#include "tools/common/cli_util.h"
#include "tools/report/report.h"
#include "tools/report/rows.h"

namespace acldump::tools {
namespace {

using namespace report_internal;  // NOLINT: the renderers' shared rows

std::string CsvNumber(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return fmt::format("{}", v);
}

std::string OptionalNumber(int64_t v, bool present) {
  return present ? StrCat(v) : "";
}

}  // namespace

std::vector<std::string> CompareCsvColumns() {
  std::vector<std::string> columns = {
      "pair",     "model",    "model_id", "iteration", "device",  "folder_a",
      "folder_b", "op_index", "task",     "op",        "type",    "match",
      "b_op",     "tensor",   "b_tensor", "status",    "problem", "shape_a",
      "shape_b",  "dtype_a",  "dtype_b",  "count",     "ignored", "violations"};
  for (Metric m : kAllMetrics) columns.emplace_back(MetricName(m));
  for (const char* c : {"worst_index", "worst_a", "worst_b", "first_divergence",
                        "by", "stat_differences"}) {
    columns.emplace_back(c);
  }
  return columns;
}

std::string CompareCsv(const TreeCompareResult& result, const ReportContext&) {
  std::string out;
  auto line = [&](const std::vector<std::string>& cells) {
    for (size_t i = 0; i < cells.size(); ++i) {
      if (i > 0) out += ',';
      dump::AppendCsvField(out, cells[i]);
    }
    out += '\n';
  };
  line(CompareCsvColumns());
  for (size_t p = 0; p < result.pairs.size(); ++p) {
    const FolderPair& pair = result.pairs[p];
    const CompareSide& a = *pair.a;
    const bool placed = a.layout == dump::Layout::kModel;
    for (const Row& row : RowsOf(result, p)) {
      const TensorComparison* t = row.tensor;
      const bool numbers = t != nullptr && t->problem.empty();
      const bool metrics = numbers && t->by == CompareBy::kTensors;
      std::vector<std::string> cells = {
          StrCat(p),
          placed ? a.model : "",
          OptionalNumber(a.model_id, placed),
          OptionalNumber(a.iteration, placed),
          OptionalNumber(a.device, placed),
          a.directory,
          pair.b->directory,
          StrCat(row.op->index),
          StrCat(row.op->a->task_id),
          row.op->a->name,
          row.op->a->type,
          row.op->match == MatchKind::kNone
              ? "none"
              : std::string(MatchKindName(row.op->match)),
          row.op->b_name,
          t ? TensorName(t) : "",
          t ? t->b_label : "",
          StatusKey(row),
          t ? t->problem : "",
          t ? ShapeText(t->shape_a) : "",
          t ? ShapeText(t->shape_b) : "",
          t ? t->dtype_a : "",
          t ? t->dtype_b : "",
          numbers ? StrCat(t->metrics.count) : "",
          metrics ? StrCat(t->metrics.ignored) : "",
          numbers ? StrCat(t->tolerance.violations) : ""};
      for (Metric m : kAllMetrics) {
        cells.push_back(metrics ? CsvNumber(MetricValue(t->metrics, m)) : "");
      }
      const bool worst = t != nullptr && !t->worst.empty();
      cells.push_back(worst ? IndexText(t->worst.front().index) : "");
      cells.push_back(worst ? CsvNumber(t->worst.front().a) : "");
      cells.push_back(worst ? CsvNumber(t->worst.front().b) : "");
      cells.push_back(row.first ? "1" : "0");
      cells.push_back(t ? std::string(CompareByName(t->by)) : "");
      cells.push_back(t ? StatsDifferenceText(*t) : "");
      line(cells);
    }
  }
  return out;
}

}  // namespace acldump::tools
