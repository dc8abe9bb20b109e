#include "tools/report/charts.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "base/strings.h"
#include "tools/common/cli_util.h"
#include "tools/report/rows.h"

namespace acldump::tools::report_internal {
namespace {

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
        if (t.is_input || !t.problem.empty() || t.by != CompareBy::kTensors) {
          continue;
        }
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

}  // namespace

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

}  // namespace acldump::tools::report_internal
