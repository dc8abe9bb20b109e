#include "tools/compare_report.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <set>

#include "base/strings.h"
#include "base/text.h"
#include "dump/format/dump_names.h"
#include "nlohmann/json.hpp"
#include "tools/cli_util.h"

namespace acldump::tools {
namespace {

using Json = nlohmann::ordered_json;

// Rows of the HTML table beyond this are left out (the CSV has them all).
constexpr size_t kMaxHtmlRows = 20000;

struct Row {
  size_t pair = 0;
  const OpComparison* op = nullptr;
  const TensorComparison* tensor = nullptr;  // null: not compared
  bool first = false;  // the tree's first diverging operator
};

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
  if (row.tensor == nullptr || !row.tensor->problem.empty()) return "";
  return FormatNumber(MetricValue(row.tensor->metrics, m));
}

std::string IndexText(const std::vector<int64_t>& index) {
  return StrCat("[", StrJoin(index, ","), "]");
}

std::string WorstCell(const TensorComparison* t) {
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

std::string Header(const ReportContext& c) {
  std::string out = StrCat("A: ", SideSummary(*c.a), "\nB: ", SideSummary(*c.b),
                           "\ntolerance: |a-b| <= atol + rtol*|b| with atol ",
                           FormatNumber(c.options.atol), ", rtol ",
                           FormatNumber(c.options.rtol), "\n");
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

std::string TensorTable(const TreeCompareResult& result, size_t pair_index,
                        const ReportContext& context) {
  std::vector<std::string> header = {"#",      "task", "op",    "type",
                                     "tensor", "B",    "match", "shape"};
  for (Metric m : context.metrics) header.emplace_back(MetricName(m));
  header.push_back("worst element");
  header.push_back("result");
  TextTable table(header);
  for (const Row& row : RowsOf(result, pair_index)) {
    std::vector<std::string> cells = {
        StrCat(row.op->index + 1),
        StrCat(row.op->a->task_id),
        row.op->a->name,
        row.op->a->type,
        TensorName(row.tensor),
        row.tensor ? row.tensor->b_label : "-",
        std::string(MatchKindName(row.op->match)),
        row.tensor ? ShapeText(row.tensor->shape_a) : ""};
    for (Metric m : context.metrics) cells.push_back(MetricCell(row, m));
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

Json Num(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

Json FolderJson(const CompareSide& side) {
  Json j;
  j["path"] = side.directory;
  const bool placed = side.layout == dump::Layout::kModel;
  j["model"] = placed ? Json(side.model) : Json(nullptr);
  j["model_id"] = placed ? Json(side.model_id) : Json(nullptr);
  j["iteration"] = placed ? Json(side.iteration) : Json(nullptr);
  j["device"] = placed ? Json(side.device) : Json(nullptr);
  j["time"] = placed ? Json(side.time) : Json(nullptr);
  return j;
}

Json TensorJson(const TensorComparison& t) {
  Json j;
  j["tensor"] = TensorName(&t);
  j["io"] = t.is_input ? "input" : "output";
  j["position"] = t.position;
  j["b"] = t.b_label;
  j["shape_a"] = t.shape_a;
  j["shape_b"] = t.shape_b;
  j["dtype_a"] = t.dtype_a;
  j["dtype_b"] = t.dtype_b;
  j["status"] = t.within() ? "within" : "outside";
  j["problem"] = t.problem;
  if (!t.problem.empty()) {
    j["count"] = nullptr;
    j["ignored"] = nullptr;
    j["violations"] = nullptr;
    j["metrics"] = nullptr;
  } else {
    j["count"] = t.metrics.count;
    j["ignored"] = t.metrics.ignored;
    j["violations"] = t.tolerance.violations;
    Json metrics = Json::object();
    for (Metric m : kAllMetrics) {
      metrics[std::string(MetricName(m))] = Num(MetricValue(t.metrics, m));
    }
    j["metrics"] = std::move(metrics);
  }
  Json worst = Json::array();
  for (const ElementDiff& w : t.worst) {
    worst.push_back({{"index", w.index},
                     {"flat", w.flat},
                     {"a", Num(w.a)},
                     {"b", Num(w.b)},
                     {"abs_diff", Num(w.abs_diff)}});
  }
  j["worst"] = std::move(worst);
  return j;
}

Json OpJson(const OpComparison& op) {
  Json j;
  j["index"] = op.index;
  j["name"] = op.a->name;
  j["type"] = op.a->type;
  j["task"] = op.a->task_id;
  j["timestamp"] = op.a->timestamp_us;
  j["original_names"] = op.a->original_names;
  j["match"] = op.match == MatchKind::kNone ? "none" : MatchKindName(op.match);
  j["b"] = op.b_name;
  j["inputs"] = VerdictName(op.inputs);
  j["outputs"] = VerdictName(op.outputs);
  Json tensors = Json::array();
  for (const TensorComparison& t : op.tensors) tensors.push_back(TensorJson(t));
  j["tensors"] = std::move(tensors);
  return j;
}

std::string CsvNumber(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return fmt::format("{}", v);
}

std::string OptionalNumber(int64_t v, bool present) {
  return present ? StrCat(v) : "";
}

// ---- HTML ----

constexpr std::string_view kStyle = R"(
body { font-family: sans-serif; margin: 20px 24px; color: #222; }
h1 { font-size: 20px; margin: 0 0 4px; }
h2 { font-size: 16px; margin: 22px 0 6px; }
.meta { color: #555; font-size: 13px; white-space: pre-wrap; }
.verdict { font-size: 16px; padding: 8px 12px; border-radius: 4px; display: inline-block; margin: 12px 0 4px; }
.verdict.pass { background: #e3f4e3; color: #1d6b1d; }
.verdict.fail { background: #fbe3e3; color: #a11d1d; }
.verdict.none { background: #eee; color: #444; }
.divergence { background: #fff4d6; border-left: 4px solid #e0a100; padding: 8px 12px; margin: 8px 0 8px; max-width: 1200px; }
.notes { font-size: 13px; color: #444; }
table { border-collapse: collapse; font-size: 12px; }
th, td { border: 1px solid #ddd; padding: 3px 6px; text-align: right; white-space: nowrap; }
th { background: #f2f2f2; position: sticky; top: 0; z-index: 1; }
#ops th { cursor: pointer; user-select: none; }
#ops th.sorted-asc::after { content: " \25B2"; }
#ops th.sorted-desc::after { content: " \25BC"; }
td.text { text-align: left; }
tr.diff td { background: #fdeaea; }
tr.first td { background: #ffe8b0; font-weight: bold; }
tr.none td { color: #888; }
.table-wrap { overflow: auto; max-height: 75vh; max-width: 100%; border: 1px solid #ddd; }
.controls { margin: 6px 0; font-size: 13px; }
.controls input, .controls select { font-size: 13px; margin-right: 12px; }
.charts { display: flex; flex-wrap: wrap; gap: 12px; }
.chart-box { border: 1px solid #e4e4e4; padding: 4px 8px; }
.chart-box h3 { font-size: 13px; margin: 2px 0; font-weight: normal; color: #444; }
svg { font-size: 10px; }
svg .grid { stroke: #ececec; }
svg .axis { fill: #666; }
svg .frame { fill: none; stroke: #bbb; }
svg .series { fill: none; stroke: #4a78b0; stroke-width: 1.2; }
svg .pt-ok { fill: #4a78b0; }
svg .pt-diff { fill: #d04040; }
svg .pt-first { fill: #e0a100; stroke: #7a5600; stroke-width: 1.5; }
svg .tolerance { stroke: #c00; stroke-dasharray: 4 3; }
svg .tol-label { fill: #c00; }
svg .bar { fill: #d07a50; }
svg .bar-zero { fill: #999; }
svg .diag { stroke: #888; stroke-dasharray: 3 3; }
svg .dot { fill: #4a78b0; fill-opacity: 0.45; }
svg .dot-worst { fill: #d04040; }
.detail { display: flex; flex-wrap: wrap; gap: 16px; align-items: flex-start; }
)";

// Sorting, filtering and the state in the page address. Cells carry a
// data-v attribute with a number where they hold one.
constexpr std::string_view kScript = R"(
(function () {
  var table = document.getElementById('ops');
  if (!table) return;
  var body = table.tBodies[0];
  var heads = table.tHead.rows[0].cells;
  var filter = document.getElementById('filter');
  var status = document.getElementById('status');
  var shown = document.getElementById('shown');
  var rows = Array.prototype.slice.call(body.rows);
  var sortColumn = -1, sortDir = 1;
  function value(row, col) {
    var cell = row.cells[col];
    var v = cell.getAttribute('data-v');
    if (v !== null) {
      if (v === 'nan') return NaN;
      return parseFloat(v);
    }
    return cell.textContent;
  }
  function compare(a, b) {
    var x = value(a, sortColumn), y = value(b, sortColumn);
    if (typeof x === 'number' && typeof y === 'number') {
      if (isNaN(x) && isNaN(y)) return 0;
      if (isNaN(x)) return 1;
      if (isNaN(y)) return -1;
      return (x - y) * sortDir;
    }
    if (typeof x === 'number') return -1;
    if (typeof y === 'number') return 1;
    return x.localeCompare(y) * sortDir;
  }
  function apply() {
    var text = filter.value.toLowerCase();
    var want = status.value;
    var ordered = rows.slice();
    if (sortColumn >= 0) ordered.sort(compare);
    var count = 0;
    ordered.forEach(function (row) {
      var ok = (!text || row.textContent.toLowerCase().indexOf(text) >= 0) &&
               (want === 'all' || row.getAttribute('data-status') === want);
      row.style.display = ok ? '' : 'none';
      if (ok) count++;
      body.appendChild(row);
    });
    shown.textContent = count + ' of ' + rows.length + ' rows';
    for (var i = 0; i < heads.length; i++) {
      heads[i].classList.remove('sorted-asc', 'sorted-desc');
    }
    if (sortColumn >= 0) {
      heads[sortColumn].classList.add(sortDir > 0 ? 'sorted-asc' : 'sorted-desc');
    }
    var state = [];
    if (sortColumn >= 0) {
      state.push('sort=' + heads[sortColumn].getAttribute('data-key') +
                 (sortDir > 0 ? ':asc' : ':desc'));
    }
    if (filter.value) state.push('filter=' + encodeURIComponent(filter.value));
    if (want !== 'all') state.push('status=' + want);
    document.body.setAttribute('data-state', state.join('&'));
  }
  function sortBy(col, dir) {
    if (dir === undefined) dir = (col === sortColumn) ? -sortDir : 1;
    sortColumn = col;
    sortDir = dir;
    apply();
  }
  for (var i = 0; i < heads.length; i++) {
    (function (col) {
      heads[col].addEventListener('click', function () { sortBy(col); });
    })(i);
  }
  filter.addEventListener('input', apply);
  status.addEventListener('change', apply);
  var hash = decodeURIComponent(location.hash.replace(/^#/, ''));
  hash.split('&').forEach(function (part) {
    var eq = part.indexOf('=');
    if (eq < 0) return;
    var key = part.slice(0, eq), val = part.slice(eq + 1);
    if (key === 'filter') filter.value = val;
    if (key === 'status') status.value = val;
    if (key === 'sort') {
      var name = val.split(':')[0], dir = val.split(':')[1] === 'desc' ? -1 : 1;
      for (var c = 0; c < heads.length; c++) {
        if (heads[c].getAttribute('data-key') === name) { sortColumn = c; sortDir = dir; }
      }
    }
  });
  apply();
})();
)";

bool HigherIsBetter(Metric m) {
  return m == Metric::kCosine || m == Metric::kFracRel001 ||
         m == Metric::kFracRel005;
}

bool LogScale(Metric m) {
  return !(HigherIsBetter(m) || m == Metric::kStdA || m == Metric::kStdB);
}

struct ChartPoint {
  size_t x;  // operator index
  double y;
  std::string label;
  bool outside = false;
  bool first = false;
};

// One value per operator position: the operator's worst output over every
// folder pair (worst = lowest for cosine-like metrics, highest otherwise).
std::vector<ChartPoint> ChartPoints(const TreeCompareResult& result,
                                    Metric metric, size_t* positions) {
  std::map<size_t, ChartPoint> by_x;
  *positions = 0;
  for (size_t p = 0; p < result.pairs.size(); ++p) {
    const CompareResult& pair = result.pairs[p].result;
    *positions = std::max(*positions, pair.ops.size());
    for (const OpComparison& op : pair.ops) {
      for (const TensorComparison& t : op.tensors) {
        if (t.is_input || !t.problem.empty()) continue;
        const double v = MetricValue(t.metrics, metric);
        const bool first =
            result.first_pair == p && pair.first_divergence == op.index;
        auto [it, added] = by_x.try_emplace(op.index);
        ChartPoint& point = it->second;
        // NaN counts as the worst value.
        bool replace = added;
        if (!added && !std::isnan(point.y)) {
          replace = std::isnan(v) ||
                    (HigherIsBetter(metric) ? v < point.y : v > point.y);
        }
        if (replace) {
          point.x = op.index;
          point.y = v;
          point.label =
              StrCat(op.a->name, " ", TensorName(&t),
                     result.pairs.size() > 1
                         ? StrCat(" (", FolderLabel(*result.pairs[p].a), ")")
                         : std::string());
        }
        point.outside |= !t.within();
        point.first |= first;
      }
    }
  }
  std::vector<ChartPoint> points;
  for (auto& [x, point] : by_x) points.push_back(std::move(point));
  return points;
}

// Where a metric chart puts values: the y range (in log10 for log-scale
// metrics) and the operator positions along x.
struct ChartFrame {
  static constexpr double kWidth = 560, kHeight = 240, kLeft = 56, kRight = 12,
                          kTop = 10, kBottom = 34;
  static constexpr double kPlotW = kWidth - kLeft - kRight,
                          kPlotH = kHeight - kTop - kBottom;
  static constexpr double kFloorLog = -12;
  Metric metric;
  bool log;
  size_t positions;
  double lo = 0, hi = 0;

  double Transform(double v) const {
    if (!log) return v;
    return v > 0 ? std::max(std::log10(v), kFloorLog) : kFloorLog;
  }
  double Px(size_t x) const {
    const double span = std::max<double>(1, positions > 1 ? positions - 1 : 1);
    return kLeft + kPlotW * x / span;
  }
  double Py(double v) const {
    // NaN and infinities at the bad end of the axis.
    const double bad = HigherIsBetter(metric) ? lo : hi;
    double t = std::isnan(v)   ? bad
               : std::isinf(v) ? (v > 0 ? hi : lo)
                               : Transform(v);
    t = std::clamp(t, lo, hi);
    return kTop + kPlotH * (hi - t) / (hi - lo);
  }
};

// A y range that holds every finite point (and atol for max |a-b|), on
// whole decades for log scales and never empty.
ChartFrame FitChart(const std::vector<ChartPoint>& points, Metric metric,
                    double atol, size_t positions) {
  ChartFrame frame{metric, LogScale(metric), positions};
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const ChartPoint& p : points) {
    if (!std::isfinite(p.y)) continue;
    lo = std::min(lo, frame.Transform(p.y));
    hi = std::max(hi, frame.Transform(p.y));
  }
  if (metric == Metric::kMaxAbs) {
    lo = std::min(lo, frame.Transform(atol));
    hi = std::max(hi, frame.Transform(atol));
  }
  if (!std::isfinite(lo)) lo = 0, hi = 1;
  if (frame.log) {
    lo = std::floor(lo);
    hi = std::ceil(hi + 1e-9);
  }
  if (hi - lo < 1e-12) {
    lo -= frame.log ? 1 : 0.5;
    hi += frame.log ? 1 : 0.5;
  }
  frame.lo = lo;
  frame.hi = hi;
  return frame;
}

// The grid, the axis labels, the frame and, for max |a-b|, the atol line.
std::string ChartAxes(const ChartFrame& f, double atol) {
  using F = ChartFrame;
  std::string html;
  const double lo = f.lo, hi = f.hi;
  // Y grid and labels.
  const int ticks = 5;
  for (int i = 0; i <= ticks; ++i) {
    const double t = lo + (hi - lo) * i / ticks;
    const double y = F::kTop + F::kPlotH * (hi - t) / (hi - lo);
    const std::string label = f.log ? (std::fabs(t - std::round(t)) < 1e-9
                                           ? fmt::format("1e{:.0f}", t)
                                           : fmt::format("1e{:.1f}", t))
                                    : FormatNumber(t);
    html += fmt::format(
        "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" "
        "class=\"grid\"/><text x=\"{:.1f}\" y=\"{:.1f}\" class=\"axis\" "
        "text-anchor=\"end\">{}</text>\n",
        F::kLeft, y, F::kWidth - F::kRight, y, F::kLeft - 4, y + 3,
        Escape(label));
  }
  // X ticks: operator positions.
  const size_t step = std::max<size_t>(1, f.positions / 8);
  for (size_t x = 0; x < f.positions; x += step) {
    html += fmt::format(
        "<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"axis\" "
        "text-anchor=\"middle\">{}</text>\n",
        f.Px(x), F::kHeight - F::kBottom + 14, x + 1);
  }
  html += fmt::format(
      "<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"axis\" "
      "text-anchor=\"middle\">operator, in execution order</text>\n",
      F::kLeft + F::kPlotW / 2, F::kHeight - 4);
  html += fmt::format(
      "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" "
      "class=\"frame\"/>\n",
      F::kLeft, F::kTop, F::kPlotW, F::kPlotH);
  if (f.metric == Metric::kMaxAbs) {
    const double y = f.Py(atol);
    html += fmt::format(
        "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" "
        "class=\"tolerance\"/><text x=\"{:.1f}\" y=\"{:.1f}\" "
        "class=\"tol-label\" text-anchor=\"end\">atol {}</text>\n",
        F::kLeft, y, F::kWidth - F::kRight, y, F::kWidth - F::kRight - 2, y - 3,
        Escape(FormatNumber(atol)));
  }
  return html;
}

// The line through the points and the points themselves.
std::string ChartSeries(const std::vector<ChartPoint>& points,
                        const ChartFrame& f) {
  std::string line;
  for (const ChartPoint& p : points) {
    StrAppend(line, line.empty() ? "" : " ",
              fmt::format("{:.1f},{:.1f}", f.Px(p.x), f.Py(p.y)));
  }
  std::string html =
      StrCat("<polyline class=\"series\" points=\"", line, "\"/>\n");
  // Points: every one up to 2,000 operators; beyond, only those outside.
  const bool all_points = points.size() <= 2000;
  for (const ChartPoint& p : points) {
    if (!all_points && !p.outside && !p.first) continue;
    const char* cls = p.first ? "pt-first" : (p.outside ? "pt-diff" : "pt-ok");
    html += fmt::format(
        "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"{}\" class=\"{}\" "
        "data-op=\"{}\"><title>#{} {}: {}</title></circle>\n",
        f.Px(p.x), f.Py(p.y), p.first ? 4.5 : (points.size() > 300 ? 1.6 : 2.6),
        cls, Escape(p.label), p.x + 1, Escape(p.label),
        Escape(FormatNumber(p.y)));
  }
  return html;
}

std::string MetricChart(const TreeCompareResult& result, Metric metric,
                        const ReportContext& context) {
  size_t positions = 0;
  const std::vector<ChartPoint> points =
      ChartPoints(result, metric, &positions);
  const std::string id = StrCat("chart-", MetricName(metric));
  std::string html =
      StrCat("<div class=\"chart-box\"><h3>", Escape(MetricName(metric)), ": ",
             Escape(MetricDescription(metric)),
             result.pairs.size() > 1 ? " (worst over the folder pairs)" : "",
             "</h3>\n");
  if (points.empty()) {
    return html + StrCat("<p id=\"", Escape(id),
                         "\">No output was compared.</p></div>\n");
  }
  const ChartFrame frame =
      FitChart(points, metric, context.options.atol, positions);
  StrAppend(html, "<svg id=\"", Escape(id), "\" class=\"chart\" width=\"",
            ChartFrame::kWidth, "\" height=\"", ChartFrame::kHeight,
            "\" viewBox=\"0 0 ", ChartFrame::kWidth, " ", ChartFrame::kHeight,
            "\" role=\"img\" aria-label=\"", Escape(MetricName(metric)),
            " per operator against execution order\">\n");
  html += ChartAxes(frame, context.options.atol);
  html += ChartSeries(points, frame);
  html += "</svg></div>\n";
  return html;
}

std::string Histogram(const TensorComparison& t,
                      const CompareOptions& options) {
  const ErrorDetail& d = *t.detail;
  const double width = 460, height = 220, left = 48, right = 10, top = 10,
               bottom = 36;
  const double plot_w = width - left - right, plot_h = height - top - bottom;
  uint64_t max_count = std::max<uint64_t>(d.zero, 1);
  for (uint64_t c : d.bins) max_count = std::max(max_count, c);
  const size_t n = d.bins.size() + 1;  // a bar for |a-b| == 0 first
  const double bar_w = plot_w / n;
  std::string svg = fmt::format(
      "<svg id=\"histogram\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} "
      "{1}\" role=\"img\" aria-label=\"histogram of |a-b|\">\n",
      width, height);
  svg += fmt::format(
      "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" "
      "class=\"frame\"/>\n",
      left, top, plot_w, plot_h);
  auto bar = [&](size_t i, uint64_t count, const char* cls,
                 const std::string& title) {
    const double h = plot_h * static_cast<double>(count) / max_count;
    svg += fmt::format(
        "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" "
        "class=\"{}\"><title>{}: {}</title></rect>\n",
        left + bar_w * i + 0.5, top + plot_h - h, std::max(0.5, bar_w - 1), h,
        cls, Escape(title), count);
  };
  bar(0, d.zero, "bar-zero", "|a-b| = 0");
  const double bin_w = (d.bin_high - d.bin_low) / d.bins.size();
  for (size_t i = 0; i < d.bins.size(); ++i) {
    bar(i + 1, d.bins[i], "bar",
        fmt::format("|a-b| in [1e{:.2f}, 1e{:.2f})", d.bin_low + bin_w * i,
                    d.bin_low + bin_w * (i + 1)));
  }
  // Decade labels under the bars.
  for (double decade = d.bin_low; decade <= d.bin_high + 1e-9; decade += 1) {
    const double x = left + bar_w * (1 + (decade - d.bin_low) / bin_w);
    svg += fmt::format(
        "<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"axis\" "
        "text-anchor=\"middle\">1e{:.0f}</text>\n",
        x, top + plot_h + 12, decade);
  }
  if (options.atol > 0 && std::log10(options.atol) >= d.bin_low &&
      std::log10(options.atol) <= d.bin_high) {
    const double x =
        left + bar_w * (1 + (std::log10(options.atol) - d.bin_low) / bin_w);
    svg += fmt::format(
        "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" "
        "class=\"tolerance\"/><text x=\"{:.1f}\" y=\"{:.1f}\" "
        "class=\"tol-label\">atol</text>\n",
        x, top, x, top + plot_h, x + 3, top + 10);
  }
  svg += fmt::format(
      "<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"axis\" "
      "text-anchor=\"middle\">|a-b| (first bar: 0{})</text>\n",
      left + plot_w / 2, height - 6,
      d.nonfinite > 0 ? StrCat("; ", d.nonfinite, " NaN/Inf mismatches")
                      : std::string());
  svg += fmt::format(
      "<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"axis\" "
      "text-anchor=\"end\">{}</text>\n",
      left - 4, top + 8, max_count);
  svg += "</svg>\n";
  return svg;
}

std::string Scatter(const TensorComparison& t) {
  const ErrorDetail& d = *t.detail;
  const double size = 260, left = 48, bottom = 34, top = 10, right = 10;
  const double plot = size - left - right;
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const auto& [b, a] : d.sample) {
    lo = std::min({lo, a, b});
    hi = std::max({hi, a, b});
  }
  if (!std::isfinite(lo)) lo = 0, hi = 1;
  if (hi - lo < 1e-30) lo -= 0.5, hi += 0.5;
  auto sx = [&](double v) { return left + plot * (v - lo) / (hi - lo); };
  auto sy = [&](double v) { return top + plot * (hi - v) / (hi - lo); };
  std::string svg = fmt::format(
      "<svg id=\"scatter\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} "
      "{1}\" role=\"img\" aria-label=\"a against b\">\n",
      size, size + bottom - right);
  svg += fmt::format(
      "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" "
      "class=\"frame\"/>\n",
      left, top, plot, plot);
  svg += fmt::format(
      "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" "
      "class=\"diag\"/>\n",
      sx(lo), sy(lo), sx(hi), sy(hi));
  const size_t worst_from =
      d.sample.size() - std::min(d.sample.size(), t.worst.size());
  for (size_t i = 0; i < d.sample.size(); ++i) {
    const auto& [b, a] = d.sample[i];
    svg += fmt::format(
        "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"{}\" class=\"{}\"/>\n", sx(b),
        sy(a), i >= worst_from ? 3 : 1.5,
        i >= worst_from ? "dot-worst" : "dot");
  }
  svg += fmt::format(
      "<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"axis\" "
      "text-anchor=\"start\">{}</text>"
      "<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"axis\" "
      "text-anchor=\"end\">{}</text>"
      "<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"axis\" text-anchor=\"middle\">b "
      "(reference)</text>"
      "<text x=\"12\" y=\"{:.1f}\" class=\"axis\" text-anchor=\"middle\" "
      "transform=\"rotate(-90 12 {:.1f})\">a</text>\n",
      left, top + plot + 12, Escape(FormatNumber(lo)), left + plot,
      top + plot + 12, Escape(FormatNumber(hi)), left + plot / 2,
      top + plot + 26, top + plot / 2, top + plot / 2);
  svg += "</svg>\n";
  return svg;
}

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

std::string CompareJson(const TreeCompareResult& result,
                        const ReportContext& context) {
  Json j;
  j["schema"] = "acldump.compare/1";
  auto side = [](const CompareTree& tree) {
    Json s;
    s["path"] = tree.root;
    s["kind"] = tree.kind == SideKind::kDump ? "dump" : "reference";
    s["folders"] = tree.folders.size();
    s["operators_filtered_out"] = tree.ops_filtered_out;
    return s;
  };
  j["a"] = side(*context.a);
  j["b"] = side(*context.b);
  j["tolerance"] = {{"atol", Num(context.options.atol)},
                    {"rtol", Num(context.options.rtol)}};
  j["filters"] = context.filters;
  j["verdict"] = result.tensors_compared == 0
                     ? "nothing_compared"
                     : (result.within() ? "pass" : "fail");
  j["exit_code"] = result.exit_code();
  j["tensors_compared"] = result.tensors_compared;
  j["tensors_outside"] = result.tensors_outside;
  j["operators_not_compared"] = result.ops_not_compared;
  Json first = nullptr;
  if (result.first_pair) {
    const FolderPair& pair = result.pairs[*result.first_pair];
    if (pair.result.first_divergence) {
      const OpComparison& op = pair.result.ops[*pair.result.first_divergence];
      first = {{"pair", *result.first_pair},
               {"operator", op.index},
               {"name", op.a->name},
               {"type", op.a->type},
               {"task", op.a->task_id},
               {"basis", DivergenceBasisName(pair.result.basis)},
               {"folder", FolderJson(*pair.a)}};
    }
  }
  j["first_divergence"] = std::move(first);
  j["divergence_note"] = TreeDivergenceNote(result);
  j["notes"] = result.notes;
  Json only_a = Json::array(), only_b = Json::array();
  for (const CompareSide* f : result.only_in_a)
    only_a.push_back(FolderJson(*f));
  for (const CompareSide* f : result.only_in_b)
    only_b.push_back(FolderJson(*f));
  j["only_in_a"] = std::move(only_a);
  j["only_in_b"] = std::move(only_b);
  Json pairs = Json::array();
  for (const FolderPair& p : result.pairs) {
    const CompareResult& r = p.result;
    Json pj;
    pj["a"] = FolderJson(*p.a);
    pj["b"] = FolderJson(*p.b);
    pj["tensors_compared"] = r.tensors_compared;
    pj["tensors_outside"] = r.tensors_outside;
    pj["operators_not_compared"] = r.ops_not_compared;
    pj["first_divergence"] =
        r.first_divergence ? Json(*r.first_divergence) : Json(nullptr);
    pj["basis"] =
        r.first_divergence ? Json(DivergenceBasisName(r.basis)) : Json(nullptr);
    pj["earlier_not_compared"] = r.earlier_not_compared;
    pj["divergence_note"] = r.divergence_note;
    pj["only_in_b"] = r.only_in_b;
    Json ops = Json::array();
    for (const OpComparison& op : r.ops) ops.push_back(OpJson(op));
    pj["operators"] = std::move(ops);
    pairs.push_back(std::move(pj));
  }
  j["pairs"] = std::move(pairs);
  return j.dump(1) + "\n";
}

std::vector<std::string> CompareCsvColumns() {
  std::vector<std::string> columns = {
      "pair",     "model",    "model_id", "iteration", "device",  "folder_a",
      "folder_b", "op_index", "task",     "op",        "type",    "match",
      "b_op",     "tensor",   "b_tensor", "status",    "problem", "shape_a",
      "shape_b",  "dtype_a",  "dtype_b",  "count",     "ignored", "violations"};
  for (Metric m : kAllMetrics) columns.emplace_back(MetricName(m));
  for (const char* c :
       {"worst_index", "worst_a", "worst_b", "first_divergence"}) {
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
          numbers ? StrCat(t->metrics.ignored) : "",
          numbers ? StrCat(t->tolerance.violations) : ""};
      for (Metric m : kAllMetrics) {
        cells.push_back(numbers ? CsvNumber(MetricValue(t->metrics, m)) : "");
      }
      const bool worst = t != nullptr && !t->worst.empty();
      cells.push_back(worst ? IndexText(t->worst.front().index) : "");
      cells.push_back(worst ? CsvNumber(t->worst.front().a) : "");
      cells.push_back(worst ? CsvNumber(t->worst.front().b) : "");
      cells.push_back(row.first ? "1" : "0");
      line(cells);
    }
  }
  return out;
}

namespace {

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
    if (row.tensor == nullptr || !row.tensor->problem.empty()) {
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
  html += "<h2>Error against depth</h2>\n<div class=\"charts\">\n";
  for (Metric m : context.metrics) html += MetricChart(result, m, context);
  html += "</div>\n";
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
