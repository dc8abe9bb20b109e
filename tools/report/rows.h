// The report's rows and texts shared by its renderers (text, JSON, CSV, HTML):
// internal to tools/report.
#ifndef ACLDUMP_TOOLS_REPORT_ROWS_H_
#define ACLDUMP_TOOLS_REPORT_ROWS_H_

#include <string>
#include <string_view>
#include <vector>

#include "tools/compare/compare.h"
#include "tools/compare/metrics.h"
#include "tools/report/report.h"

namespace acldump::tools::report_internal {

// One table row: a tensor pair, or an operator not compared.
struct Row {
  size_t pair = 0;
  const OpComparison* op = nullptr;
  const TensorComparison* tensor = nullptr;  // null: not compared
  bool first = false;  // the tree's first diverging operator
};

// The rows of one folder pair, in execution order.
std::vector<Row> RowsOf(const TreeCompareResult& result, size_t pair_index);
std::string StatusText(const Row& row);
std::string StatusKey(const Row& row);  // "within", "outside", "not_compared"
std::string TensorName(const TensorComparison* t);  // "output 0"
std::string MetricCell(const Row& row, Metric m);
std::string IndexText(const std::vector<int64_t>& index);  // "[0,3]"
std::string WorstCell(const TensorComparison* t);
// "resnet_tiny iterations 0-1, device 0" style summary of a side's folders.
std::string SideSummary(const CompareTree& tree);
// How pairs compare when not by tensors: "checksum (the bytes, exactly)".
std::string CompareByText(const CompareOptions& options);
// The sides, the tolerance and the filters, a line each.
std::string Header(const ReportContext& c);
std::string VerdictText(const TreeCompareResult& result);
std::string VerdictWord(const TreeCompareResult& result);  // PASS, FAIL...
// Operators of A without a counterpart in B.
std::vector<std::string> Unmatched(const CompareResult& result);
std::string Abbreviated(const std::vector<std::string>& names, size_t limit);
// Text for HTML (and SVG) content and attributes.
std::string Escape(std::string_view text);

}  // namespace acldump::tools::report_internal

#endif  // ACLDUMP_TOOLS_REPORT_ROWS_H_
