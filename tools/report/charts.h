// The HTML report's pictures, as inline SVG: a metric against execution order,
// the first diverging tensor's |a-b| histogram and its a-vs-b scatter.
// Internal to tools/report.
#ifndef ACLDUMP_TOOLS_REPORT_CHARTS_H_
#define ACLDUMP_TOOLS_REPORT_CHARTS_H_

#include <string>

#include "tools/compare/compare.h"
#include "tools/compare/metrics.h"
#include "tools/report/report.h"

namespace acldump::tools::report_internal {

// One chart (#chart-<metric>): each operator's worst output over every folder
// pair against its position.
std::string MetricChart(const TreeCompareResult& result, Metric metric,
                        const ReportContext& context);
// A tensor's |a-b| histogram (#histogram), with the tolerance marked.
std::string Histogram(const TensorComparison& t, const CompareOptions& options);
// A tensor's a-vs-b scatter (#scatter).
std::string Scatter(const TensorComparison& t);

}  // namespace acldump::tools::report_internal

#endif  // ACLDUMP_TOOLS_REPORT_CHARTS_H_
