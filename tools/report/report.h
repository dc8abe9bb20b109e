// How `dump compare` shows a TreeCompareResult: text for the terminal, a
// self-contained HTML page (inline CSS, SVG and script; nothing fetched), and
// the machine-readable forms (JSON, CSV) whose field and column names are
// documented in docs/tool-reference.md and stay stable.
#ifndef ACLDUMP_TOOLS_REPORT_REPORT_H_
#define ACLDUMP_TOOLS_REPORT_REPORT_H_

#include <string>
#include <vector>

#include "tools/compare/compare.h"
#include "tools/compare/metrics.h"

namespace acldump::tools {

struct ReportContext {
  const CompareTree* a = nullptr;
  const CompareTree* b = nullptr;
  CompareOptions options;
  std::vector<Metric> metrics;  // columns shown (JSON and CSV hold all)
  std::string filters;          // DumpFilter::Describe(), "" when none
  bool verbose = false;         // text: every folder pair's table
};

// The terminal report: one row per compared tensor (and per operator not
// compared) of the one folder pair, or of the first pair outside the
// tolerance (every pair with `verbose`), a line per folder pair when there
// are several, the first divergence and the verdict.
std::string FormatCompareText(const TreeCompareResult& result,
                              const ReportContext& context);

// The HTML page: verdict (#verdict), first divergence (#first-divergence),
// folder pairs (#pairs), one chart per chosen metric against execution order
// (#chart-<metric>), the first diverging tensor's |a-b| histogram
// (#histogram), a-vs-b scatter (#scatter) and worst elements (#worst), and
// the sortable, filterable table (#ops, rows `tr.op-row`). The page's
// address may carry `#sort=<column>[:asc|:desc]&filter=<text>&status=
// <all|outside|within|not_compared>` to open in that state.
std::string RenderCompareHtml(const TreeCompareResult& result,
                              const ReportContext& context);

// `compare --json`: schema "acldump.compare/1".
std::string CompareJson(const TreeCompareResult& result,
                        const ReportContext& context);

// `compare --csv`: one row per tensor pair and per operator not compared.
std::string CompareCsv(const TreeCompareResult& result,
                       const ReportContext& context);

// The CSV header, for the documentation test.
std::vector<std::string> CompareCsvColumns();

}  // namespace acldump::tools

#endif  // ACLDUMP_TOOLS_REPORT_REPORT_H_
