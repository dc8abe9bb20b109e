// The self-contained HTML page (inline CSS, SVG and script; nothing fetched).
#include <algorithm>
#include <string_view>

#include "base/strings.h"
#include "base/text.h"
#include "tools/common/cli_util.h"
#include "tools/report/charts.h"
#include "tools/report/report.h"
#include "tools/report/rows.h"

namespace acldump::tools {
namespace {

using namespace report_internal;  // NOLINT: the renderers' shared rows

// Rows of the HTML table beyond this are left out (the CSV has them all).
constexpr size_t kMaxHtmlRows = 20000;

constexpr std::string_view kStyle =
#include "tools/report/report.css.inc"
    ;

// Sorting, filtering and the state in the page address. Cells carry a
// data-v attribute with a number where they hold one.
constexpr std::string_view kScript =
#include "tools/report/report.js.inc"
    ;

std::string DivergenceDetail(const TreeCompareResult& result,
                             const ReportContext& context) {
  if (!result.first_pair) return "";
  const FolderPair& pair = result.pairs[*result.first_pair];
  // The tensor: the first output outside the tolerance of the first
  // diverging operator, else the pair's first tensor outside.
  const TensorComparison* tensor = nullptr;
  const OpComparison* op = nullptr;
  auto pick = [&](const OpComparison& candidate) {
    for (const TensorComparison& t : candidate.tensors) {
      if (!t.within() && t.problem.empty() && !t.is_input) {
        tensor = &t;
        op = &candidate;
        return true;
      }
    }
    return false;
  };
  if (pair.result.first_divergence) {
    pick(pair.result.ops[*pair.result.first_divergence]);
  }
  for (size_t i = 0; tensor == nullptr && i < pair.result.ops.size(); ++i) {
    pick(pair.result.ops[i]);
  }
  if (tensor == nullptr) return "";
  std::string html = StrCat(
      "<h2>First diverging tensor: ", Escape(op->a->name), " ",
      Escape(TensorName(tensor)), " against ", Escape(tensor->b_label),
      result.pairs.size() > 1 ? StrCat(" (", Escape(FolderLabel(*pair.a)), ")")
                              : "",
      "</h2>\n<div class=\"detail\" id=\"divergence-detail\">\n");
  if (tensor->by != CompareBy::kTensors) {
    html +=
        "<div><table id=\"stats\"><thead><tr><th>statistic</th><th>a</th>"
        "<th>b</th><th>result</th></tr></thead><tbody>\n";
    for (const StatDiff& d : tensor->stats) {
      StrAppend(html, "<tr><td class=\"text\">", Escape(d.column), "</td><td>",
                Escape(d.a), "</td><td>", Escape(d.b),
                "</td><td class=\"text\">", d.within ? "ok" : "DIFF",
                "</td></tr>\n");
    }
    StrAppend(html, "</tbody></table><p class=\"notes\">compared by ",
              CompareByName(tensor->by), ", shape ",
              Escape(ShapeText(tensor->shape_a)), "</p></div>\n</div>\n");
    return html;
  }
  if (tensor->detail) {
    StrAppend(html, "<div>", Histogram(*tensor, context.options), "</div>\n");
    StrAppend(html, "<div>", Scatter(*tensor), "</div>\n");
  } else {
    html += "<p>(no plots kept for this tensor)</p>\n";
  }
  html +=
      "<div><table id=\"worst\"><thead><tr><th>index</th><th>a</th>"
      "<th>b</th><th>|a-b|</th></tr></thead><tbody>\n";
  for (const ElementDiff& w : tensor->worst) {
    StrAppend(html, "<tr><td class=\"text\">", Escape(IndexText(w.index)),
              "</td><td>", Escape(FormatNumber(w.a)), "</td><td>",
              Escape(FormatNumber(w.b)), "</td><td>",
              Escape(FormatNumber(w.abs_diff)), "</td></tr>\n");
  }
  StrAppend(html, "</tbody></table><p class=\"notes\">shape ",
            Escape(ShapeText(tensor->shape_a)), ", ",
            tensor->tolerance.violations, " of ", tensor->metrics.count,
            " elements outside the tolerance; the worst ", tensor->worst.size(),
            " shown</p></div>\n</div>\n");
  return html;
}

std::string PairsTable(const TreeCompareResult& result) {
  std::string html =
      "<div class=\"table-wrap\" style=\"max-height: 30vh\"><table "
      "id=\"pairs\"><thead><tr><th>#</th><th>A</th><th>B</th><th>compared</"
      "th><th>outside</th><th>not compared</th><th>first diverging "
      "operator</th></tr></thead><tbody>\n";
  for (size_t i = 0; i < result.pairs.size(); ++i) {
    const FolderPair& p = result.pairs[i];
    const CompareResult& r = p.result;
    const std::string cls = result.first_pair == i
                                ? "first"
                                : (r.tensors_outside > 0 ? "diff" : "");
    StrAppend(
        html, "<tr class=\"pair-row ", cls, "\"><td>", i + 1,
        "</td><td class=\"text\">", Escape(FolderLabel(*p.a)),
        "</td><td class=\"text\">", Escape(FolderLabel(*p.b)), "</td><td>",
        r.tensors_compared, "</td><td>", r.tensors_outside, "</td><td>",
        r.ops_not_compared, "</td><td class=\"text\">",
        r.first_divergence ? Escape(r.ops[*r.first_divergence].a->name) : "",
        "</td></tr>\n");
  }
  html += "</tbody></table></div>\n";
  return html;
}

// The page up to the charts: the verdict, the first divergence and the
// notes.
std::string ReportHead(const TreeCompareResult& result,
                       const ReportContext& context) {
  std::string html =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<title>acldump compare</title>\n<style>";
  html += kStyle;
  html += "</style>\n</head>\n<body>\n<h1>acldump compare</h1>\n";
  StrAppend(html, "<div class=\"meta\">", Escape(Header(context)), "</div>\n");
  const std::string verdict_class = result.tensors_compared == 0
                                        ? "none"
                                        : (result.within() ? "pass" : "fail");
  StrAppend(html, "<div class=\"verdict ", verdict_class, "\" id=\"verdict\">",
            VerdictWord(result), ": ", Escape(VerdictText(result)), "</div>\n");
  StrAppend(html,
            "<div class=\"divergence\" id=\"first-divergence\"><b>First "
            "diverging operator:</b> ",
            Escape(TreeDivergenceNote(result)), "</div>\n");
  if (!result.notes.empty() || !result.only_in_a.empty() ||
      !result.only_in_b.empty()) {
    html += "<ul class=\"notes\" id=\"notes\">\n";
    for (const std::string& note : result.notes) {
      StrAppend(html, "<li>", Escape(note), "</li>\n");
    }
    for (const auto* list : {&result.only_in_a, &result.only_in_b}) {
      if (list->empty()) continue;
      std::vector<std::string> labels;
      for (const CompareSide* f : *list) labels.push_back(FolderLabel(*f));
      StrAppend(html, "<li>folders only in ",
                list == &result.only_in_a ? "A" : "B", " (", list->size(),
                "): ", Escape(StrJoin(labels, "; ")), "</li>\n");
    }
    html += "</ul>\n";
  }
  return html;
}

// The table's rows: those of the pairs outside the tolerance first when
// they would not all fit; `left_out` counts the rows that did not.
std::vector<Row> TableRows(const TreeCompareResult& result, size_t& left_out) {
  std::vector<size_t> order;
  for (size_t p = 0; p < result.pairs.size(); ++p) order.push_back(p);
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
    return (result.pairs[x].result.tensors_outside > 0) >
           (result.pairs[y].result.tensors_outside > 0);
  });
  left_out = 0;
  std::vector<bool> take(result.pairs.size(), false);
  size_t budget = kMaxHtmlRows;
  for (size_t p : order) {
    const std::vector<Row> pair_rows = RowsOf(result, p);
    if (pair_rows.size() <= budget) {
      take[p] = true;
      budget -= pair_rows.size();
    } else {
      left_out += pair_rows.size();
    }
  }
  std::vector<Row> rows;
  for (size_t p = 0; p < result.pairs.size(); ++p) {
    if (!take[p]) continue;
    for (Row& row : RowsOf(result, p)) rows.push_back(row);
  }
  return rows;
}

std::string TableHeader(const ReportContext& context, bool multi) {
  std::string html =
      "<div class=\"table-wrap\"><table id=\"ops\">\n<thead><tr>";
  std::vector<std::pair<std::string, std::string>> header = {{"#", "index"}};
  if (multi) header.emplace_back("folder", "folder");
  for (const auto& h : std::vector<std::pair<std::string, std::string>>{
           {"task", "task"},
           {"op", "op"},
           {"type", "type"},
           {"tensor", "tensor"},
           {"B", "b"},
           {"match", "match"},
           {"shape A", "shape_a"},
           {"shape B", "shape_b"},
           {"dtype A", "dtype_a"},
           {"dtype B", "dtype_b"}}) {
    header.push_back(h);
  }
  for (const auto& [title, key] : header) {
    StrAppend(html, "<th data-key=\"", Escape(key), "\">", Escape(title),
              "</th>");
  }
  for (Metric m : context.metrics) {
    StrAppend(html, "<th data-key=\"", Escape(MetricName(m)), "\" title=\"",
              Escape(MetricDescription(m)), "\">", Escape(MetricName(m)),
              "</th>");
  }
  html +=
      "<th data-key=\"worst\">worst element</th><th "
      "data-key=\"result\">result</th></tr></thead>\n<tbody>\n";
  return html;
}

std::string TableRow(const Row& row, const TreeCompareResult& result,
                     const ReportContext& context, bool multi) {
  std::string html;
  std::string cls = "op-row";
  if (row.tensor == nullptr) {
    cls += " none";
  } else if (row.first) {
    cls += " first";
  } else if (!row.tensor->within()) {
    cls += " diff";
  }
  StrAppend(html, "<tr class=\"", cls, "\" data-op=\"", Escape(row.op->a->name),
            "\" data-status=\"", StatusKey(row), "\">");
  auto cell = [&](std::string_view text, bool is_text) {
    StrAppend(html, is_text ? "<td class=\"text\">" : "<td>", Escape(text),
              "</td>");
  };
  auto number = [&](double v, std::string_view text) {
    StrAppend(html, "<td data-v=\"",
              std::isnan(v) ? "nan" : fmt::format("{}", v), "\">", Escape(text),
              "</td>");
  };
  number(static_cast<double>(row.op->index + 1), StrCat(row.op->index + 1));
  if (multi) cell(FolderLabel(*result.pairs[row.pair].a), true);
  number(row.op->a->task_id, StrCat(row.op->a->task_id));
  cell(row.op->a->name, true);
  cell(row.op->a->type, true);
  cell(TensorName(row.tensor), true);
  cell(row.tensor ? row.tensor->b_label : "-", true);
  cell(MatchKindName(row.op->match), true);
  cell(row.tensor ? ShapeText(row.tensor->shape_a) : "", true);
  cell(row.tensor ? ShapeText(row.tensor->shape_b) : "", true);
  cell(row.tensor ? row.tensor->dtype_a : "", true);
  cell(row.tensor ? row.tensor->dtype_b : "", true);
  for (Metric m : context.metrics) {
    if (row.tensor == nullptr || !row.tensor->problem.empty() ||
        row.tensor->by != CompareBy::kTensors) {
      cell("", false);
    } else {
      const double v = MetricValue(row.tensor->metrics, m);
      number(std::isinf(v) ? (v > 0 ? 1e308 : -1e308) : v, FormatNumber(v));
    }
  }
  cell(row.tensor && !row.tensor->within() ? WorstCell(row.tensor) : "", true);
  cell(StatusText(row), true);
  html += "</tr>\n";
  return html;
}

// Operators left out of the comparison on either side; with several pairs,
// those of the first pair only.
std::string UnmatchedNotes(const TreeCompareResult& result, bool multi) {
  std::string html;
  for (size_t p = 0; p < result.pairs.size(); ++p) {
    const std::vector<std::string> unmatched =
        Unmatched(result.pairs[p].result);
    const std::string where =
        multi ? StrCat(" (", Escape(FolderLabel(*result.pairs[p].a)), ")") : "";
    if (!unmatched.empty() && (p == 0 || !multi)) {
      StrAppend(html, "<p class=\"notes\">Operators of A not compared", where,
                ": ", Escape(StrJoin(unmatched, ", ")), "</p>\n");
    }
    if (!result.pairs[p].result.only_in_b.empty() && (p == 0 || !multi)) {
      StrAppend(html, "<p class=\"notes\">Operators of B not matched", where,
                ": ", Escape(StrJoin(result.pairs[p].result.only_in_b, ", ")),
                "</p>\n");
    }
  }
  return html;
}

}  // namespace

std::string RenderCompareHtml(const TreeCompareResult& result,
                              const ReportContext& context) {
  std::string html = ReportHead(result, context);
  if (result.pairs.size() > 1) {
    StrAppend(html, "<h2>Folder pairs (", result.pairs.size(), ")</h2>\n",
              PairsTable(result));
  }
  bool by_tensors = false;
  for (const FolderPair& pair : result.pairs) {
    for (const OpComparison& op : pair.result.ops) {
      for (const TensorComparison& t : op.tensors) {
        by_tensors = by_tensors || t.by == CompareBy::kTensors;
      }
    }
  }
  // Pairs compared by statistics or checksum have no metrics to chart.
  if (by_tensors) {
    html += "<h2>Error against depth</h2>\n<div class=\"charts\">\n";
    for (Metric m : context.metrics) html += MetricChart(result, m, context);
    html += "</div>\n";
  }
  html += DivergenceDetail(result, context);

  size_t left_out = 0;
  const std::vector<Row> rows = TableRows(result, left_out);
  const bool multi = result.pairs.size() > 1;
  StrAppend(html,
            "<h2>Tensors</h2>\n<div class=\"controls\">filter <input "
            "id=\"filter\" type=\"search\" placeholder=\"op, type, "
            "tensor...\"> result <select id=\"status\"><option "
            "value=\"all\">all</option><option value=\"outside\">outside "
            "the tolerance</option><option value=\"within\">within</"
            "option><option value=\"not_compared\">not compared</"
            "option></select> <span id=\"shown\"></span> (click a "
            "column to sort)</div>\n");
  if (left_out > 0) {
    StrAppend(html, "<p class=\"notes\">", left_out,
              " rows of folder pairs within the tolerance are left out of "
              "this table (the CSV and JSON have them).</p>\n");
  }
  html += TableHeader(context, multi);
  for (const Row& row : rows) html += TableRow(row, result, context, multi);
  html += "</tbody>\n</table></div>\n";
  html += UnmatchedNotes(result, multi);
  StrAppend(html, "<script>", kScript, "</script>\n</body>\n</html>\n");
  return html;
}

}  // namespace acldump::tools
