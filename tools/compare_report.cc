#include "tools/compare_report.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "base/strings.h"
#include "tools/cli_util.h"

namespace acldump::tools {
namespace {

struct Row {
  size_t op_index = 0;
  const OpComparison* op = nullptr;
  const TensorComparison* tensor = nullptr;  // null: no counterpart
  bool first = false;                        // the first diverging operator
};

std::vector<Row> Rows(const CompareResult& result) {
  std::vector<Row> rows;
  for (size_t i = 0; i < result.ops.size(); ++i) {
    const OpComparison& op = result.ops[i];
    const bool first = result.first_divergence == i;
    if (op.tensors.empty()) rows.push_back({i, &op, nullptr, first});
    for (const TensorComparison& t : op.tensors) {
      rows.push_back({i, &op, &t, first});
    }
  }
  return rows;
}

std::string Status(const Row& row) {
  if (row.tensor == nullptr) return "no counterpart";
  if (!row.tensor->problem.empty()) return row.tensor->problem;
  return row.tensor->within() ? "ok" : "DIFF";
}

std::string TensorName(const Row& row) {
  if (row.tensor == nullptr) return "-";
  return StrCat(row.tensor->is_input ? "input " : "output ",
                row.tensor->position);
}

std::vector<std::string> MetricCells(const Row& row,
                                     const std::vector<Metric>& metrics) {
  std::vector<std::string> cells;
  for (Metric m : metrics) {
    cells.push_back(row.tensor == nullptr || !row.tensor->problem.empty()
                        ? ""
                        : FormatNumber(MetricValue(row.tensor->metrics, m)));
  }
  return cells;
}

std::string Header(const ReportContext& c) {
  return StrCat("A: ", c.a->description, " (", c.a->ops.size(),
                " operators)\nB: ", c.b->description, " (", c.b->ops.size(),
                " operators)\ntolerance: |a-b| <= atol + rtol*|b| with atol ",
                FormatNumber(c.options.atol), ", rtol ",
                FormatNumber(c.options.rtol), "\n");
}

std::string VerdictText(const CompareResult& result) {
  return StrCat(result.tensors_compared, " tensors compared, ",
                result.tensors_outside, " outside the tolerance");
}

std::vector<std::string> Unmatched(const CompareResult& result) {
  std::vector<std::string> names;
  for (const OpComparison& op : result.ops) {
    if (op.match == MatchKind::kNone) names.push_back(op.a->name);
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
      default:
        out += c;
    }
  }
  return out;
}

// The largest max |a-b| over an operator's outputs; nullopt when none was
// compared numerically.
std::optional<double> OpError(const OpComparison& op, bool* within) {
  std::optional<double> worst;
  *within = true;
  for (const TensorComparison& t : op.tensors) {
    if (t.is_input) continue;
    if (!t.within()) *within = false;
    if (!t.problem.empty()) continue;
    const double e = std::isnan(t.metrics.max_abs)
                         ? std::numeric_limits<double>::infinity()
                         : t.metrics.max_abs;
    worst = worst ? std::max(*worst, e) : e;
  }
  return worst;
}

std::string Chart(const CompareResult& result, const ReportContext& context) {
  struct Bar {
    std::string name;
    double error;
    bool within;
    bool first;
  };
  std::vector<Bar> bars;
  for (size_t i = 0; i < result.ops.size(); ++i) {
    bool within = true;
    const std::optional<double> error = OpError(result.ops[i], &within);
    if (!error) continue;
    bars.push_back(
        {result.ops[i].a->name, *error, within, result.first_divergence == i});
  }
  if (bars.empty()) return "<p>No operator output was compared.</p>\n";
  // log10 axis from 1e-10 (and below: zero error) to the largest error.
  const double floor_log = -10;
  double top_log = std::log10(std::max(context.options.atol, 1e-9));
  for (const Bar& b : bars) {
    if (std::isfinite(b.error) && b.error > 0) {
      top_log = std::max(top_log, std::log10(b.error));
    }
  }
  top_log = std::ceil(top_log + 0.01);
  const double left = 60, top = 20, plot_h = 220, bottom_labels = 110;
  const double step = std::max(14.0, std::min(48.0, 900.0 / bars.size()));
  const double width = left + step * bars.size() + 20;
  const double height = top + plot_h + bottom_labels;
  auto y_of = [&](double value) {
    double log = value > 0 ? std::log10(value) : floor_log;
    if (!std::isfinite(log)) log = top_log;
    log = std::clamp(log, floor_log, top_log);
    return top + plot_h * (top_log - log) / (top_log - floor_log);
  };
  std::string svg = fmt::format(
      "<svg id=\"error-chart\" "
      "width=\"{:.0f}\" height=\"{:.0f}\" role=\"img\" "
      "aria-label=\"max absolute error per operator\">\n",
      width, height);
  for (double log = floor_log; log <= top_log; log += 2) {
    const double y = y_of(std::pow(10, log));
    svg += fmt::format(
        "<line x1=\"{:.0f}\" y1=\"{:.1f}\" x2=\"{:.0f}\" y2=\"{:.1f}\" "
        "class=\"grid\"/><text x=\"{:.0f}\" y=\"{:.1f}\" "
        "class=\"axis\">1e{:.0f}</text>\n",
        left, y, width - 10, y, left - 6, y + 4, log);
  }
  const double tol_y = y_of(context.options.atol);
  svg += fmt::format(
      "<line x1=\"{:.0f}\" y1=\"{:.1f}\" x2=\"{:.0f}\" y2=\"{:.1f}\" "
      "class=\"tolerance\"/><text x=\"{:.0f}\" y=\"{:.1f}\" "
      "class=\"tol-label\">atol {}</text>\n",
      left, tol_y, width - 10, tol_y, width - 12, tol_y - 4,
      Escape(FormatNumber(context.options.atol)));
  for (size_t i = 0; i < bars.size(); ++i) {
    const Bar& b = bars[i];
    const double x = left + step * i + step * 0.15;
    const double y = y_of(b.error);
    const double base = top + plot_h;
    const char* cls =
        b.first ? "bar first" : (b.within ? "bar ok" : "bar diff");
    svg += fmt::format(
        "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" "
        "class=\"{}\"><title>{}: max |a-b| {}</title></rect>\n",
        x, y, step * 0.7, std::max(1.0, base - y), cls, Escape(b.name),
        Escape(FormatNumber(b.error)));
    const double lx = x + step * 0.35;
    svg += fmt::format(
        "<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"label\" "
        "transform=\"rotate(-55 {:.1f} {:.1f})\">{}</text>\n",
        lx, base + 12, lx, base + 12, Escape(b.name));
  }
  svg += fmt::format(
      "<text x=\"14\" y=\"{:.0f}\" class=\"axis-title\" transform=\"rotate(-90 "
      "14 {:.0f})\">max |a-b|</text>\n",
      top + plot_h / 2, top + plot_h / 2);
  svg += "</svg>\n";
  return svg;
}

constexpr std::string_view kStyle = R"(
body { font-family: sans-serif; margin: 24px; color: #222; }
h1 { font-size: 20px; margin-bottom: 4px; }
.meta { color: #555; font-size: 13px; white-space: pre-wrap; }
.verdict { font-size: 16px; padding: 8px 12px; border-radius: 4px; display: inline-block; margin: 12px 0; }
.verdict.pass { background: #e3f4e3; color: #1d6b1d; }
.verdict.fail { background: #fbe3e3; color: #a11d1d; }
.divergence { background: #fff4d6; border-left: 4px solid #e0a100; padding: 8px 12px; margin: 8px 0 16px; }
table { border-collapse: collapse; font-size: 12px; }
th, td { border: 1px solid #ddd; padding: 3px 6px; text-align: right; white-space: nowrap; }
th { background: #f2f2f2; position: sticky; top: 0; }
td.text { text-align: left; }
tr.diff td { background: #fdeaea; }
tr.first td { background: #ffe8b0; font-weight: bold; }
tr.none td { color: #888; }
svg .grid { stroke: #e4e4e4; }
svg .axis, svg .axis-title { font-size: 10px; fill: #666; text-anchor: end; }
svg .axis-title { text-anchor: middle; }
svg .tolerance { stroke: #c00; stroke-dasharray: 4 3; }
svg .tol-label { font-size: 10px; fill: #c00; text-anchor: end; }
svg .bar.ok { fill: #5a9e5a; }
svg .bar.diff { fill: #d05050; }
svg .bar.first { fill: #e0a100; stroke: #7a5600; }
svg .label { font-size: 10px; fill: #333; text-anchor: end; }
)";

}  // namespace

std::string FormatCompareText(const CompareResult& result,
                              const ReportContext& context) {
  std::string out = Header(context);
  for (const std::string& note : context.a->notes)
    StrAppend(out, "note: A ", note, "\n");
  for (const std::string& note : context.b->notes)
    StrAppend(out, "note: B ", note, "\n");
  std::vector<std::string> header = {"#",      "task", "op",    "type",
                                     "tensor", "B",    "match", "shape"};
  for (Metric m : context.metrics) header.emplace_back(MetricName(m));
  header.push_back("result");
  TextTable table(header);
  for (const Row& row : Rows(result)) {
    std::vector<std::string> cells = {StrCat(row.op_index + 1),
                                      StrCat(row.op->a->task_id),
                                      row.op->a->name,
                                      row.op->a->type,
                                      TensorName(row),
                                      row.tensor ? row.tensor->b_label : "-",
                                      std::string(MatchKindName(row.op->match)),
                                      row.tensor ? row.tensor->shape_a : ""};
    for (std::string& cell : MetricCells(row, context.metrics)) {
      cells.push_back(std::move(cell));
    }
    std::string status = Status(row);
    if (row.first && row.tensor && !row.tensor->is_input &&
        !row.tensor->within()) {
      status += "  <- first divergence";
    }
    cells.push_back(std::move(status));
    table.AddRow(std::move(cells));
  }
  out += "\n" + table.Render() + "\n";
  StrAppend(out, "first diverging operator: ", result.divergence_note, "\n");
  const std::vector<std::string> unmatched = Unmatched(result);
  if (!unmatched.empty()) {
    StrAppend(out, "operators of A without a counterpart in B (",
              unmatched.size(), "): ", Abbreviated(unmatched, 10), "\n");
  }
  if (!result.only_in_b.empty()) {
    StrAppend(out, "operators of B not matched (", result.only_in_b.size(),
              "): ", Abbreviated(result.only_in_b, 10), "\n");
  }
  StrAppend(out, "result: ", VerdictText(result), " -> ",
            result.within() ? "PASS" : "FAIL", "\n");
  return out;
}

std::string RenderCompareHtml(const CompareResult& result,
                              const ReportContext& context) {
  std::string html =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<title>acldump compare</title>\n<style>";
  html += kStyle;
  html += "</style>\n</head>\n<body>\n<h1>acldump compare</h1>\n";
  StrAppend(html, "<div class=\"meta\">", Escape(Header(context)));
  for (const std::string& note : context.a->notes) {
    StrAppend(html, "note: A ", Escape(note), "\n");
  }
  for (const std::string& note : context.b->notes) {
    StrAppend(html, "note: B ", Escape(note), "\n");
  }
  html += "</div>\n";
  StrAppend(html, "<div class=\"verdict ", result.within() ? "pass" : "fail",
            "\" id=\"verdict\">", result.within() ? "PASS" : "FAIL", ": ",
            Escape(VerdictText(result)), "</div>\n");
  StrAppend(html,
            "<div class=\"divergence\" id=\"first-divergence\"><b>First "
            "diverging operator:</b> ",
            Escape(result.divergence_note), "</div>\n");
  html += "<h2>Max absolute error per operator</h2>\n";
  html += Chart(result, context);
  html += "<h2>Tensors</h2>\n<table id=\"ops\">\n<thead><tr>";
  std::vector<std::string> header = {"#",       "task",    "op",     "type",
                                     "tensor",  "B",       "match",  "shape A",
                                     "shape B", "dtype A", "dtype B"};
  for (const std::string& h : header)
    StrAppend(html, "<th>", Escape(h), "</th>");
  for (Metric m : context.metrics) {
    StrAppend(html, "<th title=\"", Escape(MetricDescription(m)), "\">",
              Escape(MetricName(m)), "</th>");
  }
  html += "<th>result</th></tr></thead>\n<tbody>\n";
  for (const Row& row : Rows(result)) {
    std::string cls = "op-row";
    if (row.tensor == nullptr) {
      cls += " none";
    } else if (row.first) {
      cls += " first";
    } else if (!row.tensor->within()) {
      cls += " diff";
    }
    StrAppend(html, "<tr class=\"", cls, "\" data-op=\"",
              Escape(row.op->a->name), "\">");
    auto cell = [&](std::string_view text, bool is_text) {
      StrAppend(html, is_text ? "<td class=\"text\">" : "<td>", Escape(text),
                "</td>");
    };
    cell(StrCat(row.op_index + 1), false);
    cell(StrCat(row.op->a->task_id), false);
    cell(row.op->a->name, true);
    cell(row.op->a->type, true);
    cell(TensorName(row), true);
    cell(row.tensor ? row.tensor->b_label : "-", true);
    cell(MatchKindName(row.op->match), true);
    cell(row.tensor ? row.tensor->shape_a : "", true);
    cell(row.tensor ? row.tensor->shape_b : "", true);
    cell(row.tensor ? row.tensor->dtype_a : "", true);
    cell(row.tensor ? row.tensor->dtype_b : "", true);
    for (const std::string& value : MetricCells(row, context.metrics)) {
      cell(value, false);
    }
    cell(Status(row), true);
    html += "</tr>\n";
  }
  html += "</tbody>\n</table>\n";
  const std::vector<std::string> unmatched = Unmatched(result);
  if (!unmatched.empty()) {
    StrAppend(html, "<p>Operators of A without a counterpart in B: ",
              Escape(StrJoin(unmatched, ", ")), "</p>\n");
  }
  if (!result.only_in_b.empty()) {
    StrAppend(html, "<p>Operators of B not matched: ",
              Escape(StrJoin(result.only_in_b, ", ")), "</p>\n");
  }
  html += "</body>\n</html>\n";
  return html;
}

}  // namespace acldump::tools
