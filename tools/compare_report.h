// How `dump compare` shows a CompareResult: a text table for the terminal
// and a self-contained HTML page (inline CSS and SVG, no script, nothing
// fetched) with the same table and a per-operator error chart.
#ifndef ACLDUMP_TOOLS_COMPARE_REPORT_H_
#define ACLDUMP_TOOLS_COMPARE_REPORT_H_

#include <string>
#include <vector>

#include "tools/compare_metrics.h"
#include "tools/dump_compare.h"

namespace acldump::tools {

struct ReportContext {
  const CompareSide* a = nullptr;
  const CompareSide* b = nullptr;
  CompareOptions options;
  std::vector<Metric> metrics;  // columns shown
};

// One row per compared tensor (one per operator without a counterpart), the
// first diverging operator and the verdict.
std::string FormatCompareText(const CompareResult& result,
                              const ReportContext& context);

// The HTML page. Table rows are `<tr class="op-row ...">`, one per row of the
// text table; the chart plots each operator's largest max |a-b| (log scale)
// against the atol line.
std::string RenderCompareHtml(const CompareResult& result,
                              const ReportContext& context);

}  // namespace acldump::tools

#endif  // ACLDUMP_TOOLS_COMPARE_REPORT_H_
