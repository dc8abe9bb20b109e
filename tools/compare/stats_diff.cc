// Tensor pairs by statistics or by checksum: the records of stats CSVs, the
// same records computed from tensors, and the comparison of two records.
#include <algorithm>
#include <charconv>
#include <cmath>

#include "base/status_macros.h"
#include "base/strings.h"
#include "dump/format/data_type.h"
#include "dump/format/stats_csv.h"
#include "dump/stats.h"
#include "fmt/format.h"
#include "tools/common/cli_util.h"
#include "tools/compare/internal.h"

namespace acldump::tools {

std::string_view CompareByName(CompareBy by) {
  switch (by) {
    case CompareBy::kAuto:
      return "auto";
    case CompareBy::kTensors:
      return "tensors";
    case CompareBy::kStats:
      return "stats";
    case CompareBy::kChecksum:
      return "checksum";
  }
  return "";
}

std::optional<CompareBy> CompareByFromName(std::string_view name) {
  for (CompareBy by : {CompareBy::kAuto, CompareBy::kTensors, CompareBy::kStats,
                       CompareBy::kChecksum}) {
    if (CompareByName(by) == name) return by;
  }
  return std::nullopt;
}

namespace {

// The statistics a tolerance applies to; the counts compare exactly.
constexpr std::string_view kToleratedColumns[] = {"Max", "Min", "Avg",
                                                  "L2norm"};

absl::StatusOr<double> ParseTolerance(std::string_view text,
                                      std::string_view what) {
  double value = 0;
  const auto [end, error] =
      std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() ||
      !(value >= 0) || std::isinf(value)) {
    return absl::InvalidArgumentError(
        StrCat(what, " '", text, "' is not a non-negative number"));
  }
  return value;
}

}  // namespace

absl::StatusOr<StatTolerance> ParseStatTolerance(std::string_view text,
                                                 double rtol) {
  const size_t equals = text.find('=');
  if (equals == std::string_view::npos) {
    return absl::InvalidArgumentError(
        StrCat("stat tolerance '", text,
               "' is not COLUMN=ATOL[,RTOL] (e.g. Avg=1e-5)"));
  }
  StatTolerance tolerance;
  tolerance.column = std::string(text.substr(0, equals));
  bool known = false;
  for (std::string_view column : kToleratedColumns) {
    known = known || column == tolerance.column;
  }
  if (!known) {
    return absl::InvalidArgumentError(
        StrCat("stat tolerance '", text, "': '", tolerance.column,
               "' is not a statistic with a tolerance (Max, Min, Avg, L2norm; "
               "counts and checksums compare exactly)"));
  }
  std::string_view numbers = text.substr(equals + 1);
  const size_t comma = numbers.find(',');
  ASSIGN_OR_RETURN(tolerance.atol,
                   ParseTolerance(numbers.substr(0, comma), "atol"));
  tolerance.rtol = rtol;
  if (comma != std::string_view::npos) {
    ASSIGN_OR_RETURN(tolerance.rtol,
                     ParseTolerance(numbers.substr(comma + 1), "rtol"));
  }
  return tolerance;
}

std::string StatsDifferenceText(const TensorComparison& t) {
  std::vector<std::string> parts;
  for (const StatDiff& d : t.stats) {
    // By statistics, differing bytes within the tolerance are no news.
    if (d.within || (t.by == CompareBy::kStats && d.column == "Checksum")) {
      continue;
    }
    parts.push_back(StrCat(d.column, " ", d.a, " vs ", d.b));
  }
  if (parts.empty()) return "";
  std::string text = StrJoin(parts, "; ");
  const bool statistics =
      std::any_of(t.stats.begin(), t.stats.end(), [](const StatDiff& d) {
        return d.column != "Checksum" && d.column != "Count";
      });
  if (t.by == CompareBy::kChecksum && parts.size() == 1 && statistics) {
    text += ", statistics within the tolerance";
  }
  return text;
}

namespace compare_internal {
namespace {

using dump::StatColumn;
using dump::StatColumnHeader;

std::optional<uint64_t> ParseHex64(std::string_view text) {
  uint64_t value = 0;
  const auto [end, error] =
      std::from_chars(text.data(), text.data() + text.size(), value, 16);
  if (text.empty() || error != std::errc() ||
      end != text.data() + text.size()) {
    return std::nullopt;
  }
  return value;
}

// Row r of `table` as a record; columns the file lacks stay absent.
absl::StatusOr<TensorStatsRecord> RecordOfRow(const dump::StatsTable& table,
                                              size_t r) {
  TensorStatsRecord s;
  if (table.ColumnIndex("Data Type")) {
    ASSIGN_OR_RETURN(std::string_view type, table.Cell(r, "Data Type"));
    s.dtype = std::string(type);
  }
  if (table.ColumnIndex("Shape")) {
    ASSIGN_OR_RETURN(s.shape, table.ShapeOf(r));
  }
  auto real = [&](std::string_view column,
                  std::optional<double>& out) -> absl::Status {
    if (!table.ColumnIndex(column)) return absl::OkStatus();
    ASSIGN_OR_RETURN(out, table.Double(r, column));
    return absl::OkStatus();
  };
  auto count = [&](std::string_view column,
                   std::optional<uint64_t>& out) -> absl::Status {
    if (!table.ColumnIndex(column)) return absl::OkStatus();
    ASSIGN_OR_RETURN(out, table.Uint64(r, column));
    return absl::OkStatus();
  };
  RETURN_IF_ERROR(count("Count", s.count));
  RETURN_IF_ERROR(real(StatColumnHeader(StatColumn::kMax), s.max));
  RETURN_IF_ERROR(real(StatColumnHeader(StatColumn::kMin), s.min));
  RETURN_IF_ERROR(real(StatColumnHeader(StatColumn::kAvg), s.avg));
  RETURN_IF_ERROR(real(StatColumnHeader(StatColumn::kL2norm), s.l2norm));
  RETURN_IF_ERROR(count(StatColumnHeader(StatColumn::kNan), s.nan));
  RETURN_IF_ERROR(
      count(StatColumnHeader(StatColumn::kNegativeInf), s.negative_inf));
  RETURN_IF_ERROR(
      count(StatColumnHeader(StatColumn::kPositiveInf), s.positive_inf));
  const std::string_view checksum_column =
      StatColumnHeader(StatColumn::kChecksum);
  if (table.ColumnIndex(checksum_column)) {
    ASSIGN_OR_RETURN(std::string_view text, table.Cell(r, checksum_column));
    if (!text.empty()) {
      s.checksum = ParseHex64(text);
      if (!s.checksum) {
        return absl::InvalidArgumentError(
            StrCat("row ", r + 1, ": Checksum '", text,
                   "' is not a 64-bit hexadecimal number"));
      }
    }
  }
  return s;
}

bool SameReal(double a, double b) {
  return a == b || (std::isnan(a) && std::isnan(b));
}

// |a-b| <= atol + rtol*|b|; equal non-finite values agree, other non-finite
// values do not.
bool RealWithin(double a, double b, double atol, double rtol) {
  if (!std::isfinite(a) || !std::isfinite(b)) return SameReal(a, b);
  return std::fabs(a - b) <= atol + rtol * std::fabs(b);
}

class StatsPair {
 public:
  StatsPair(const TensorStatsRecord& a, const TensorStatsRecord& b,
            const CompareOptions& options, TensorComparison& c)
      : a_(a), b_(b), options_(options), c_(c) {}

  void Real(std::string_view column, const std::optional<double>& a,
            const std::optional<double>& b) {
    if (!a || !b) return;
    double atol = options_.atol, rtol = options_.rtol;
    for (const StatTolerance& t : options_.stat_tolerances) {
      if (t.column == column) atol = t.atol, rtol = t.rtol;
    }
    Add(column, FormatNumber(*a), FormatNumber(*b),
        RealWithin(*a, *b, atol, rtol));
  }

  void Count(std::string_view column, const std::optional<uint64_t>& a,
             const std::optional<uint64_t>& b) {
    if (!a || !b) return;
    Add(column, StrCat(*a), StrCat(*b), *a == *b);
  }

  void Checksum() {
    if (!a_.checksum || !b_.checksum) return;
    Add("Checksum", fmt::format("{:016x}", *a_.checksum),
        fmt::format("{:016x}", *b_.checksum), *a_.checksum == *b_.checksum);
  }

 private:
  void Add(std::string_view column, std::string a, std::string b, bool within) {
    c_.stats.push_back(
        StatDiff{std::string(column), std::move(a), std::move(b), within});
  }

  const TensorStatsRecord& a_;
  const TensorStatsRecord& b_;
  const CompareOptions& options_;
  TensorComparison& c_;
};

// "?" for a stats CSV without a Data Type column.
std::string DtypeText(const std::string& dtype) {
  return dtype.empty() ? "?" : dtype;
}

}  // namespace

TensorStatsRecord StatsRecordOfTensor(const TensorView& view) {
  dump::StatsRow row;
  row.data_type = ToDumpDataType(view.dtype);
  row.data_size = view.dtype == DType::kUndefined ? 0 : view.ByteSize();
  row.shape = view.shape.dims();
  row.stats = dump::ComputeStats(view, /*checksum=*/true);
  const std::string csv = dump::FormatStatsCsv({row}, dump::kAllStatColumns);
  // Through the writer and back: the record rounds as a stats dump's does.
  absl::StatusOr<std::vector<StatsCsvTensor>> tensors =
      ReadStatsCsvTensors(csv);
  if (!tensors.ok() || tensors->size() != 1) return {};
  return std::move(tensors->front().stats);
}

absl::StatusOr<std::vector<StatsCsvTensor>> ReadStatsCsvTensors(
    std::string_view csv_text) {
  ASSIGN_OR_RETURN(dump::StatsTable table, dump::ParseStatsCsv(csv_text));
  std::vector<StatsCsvTensor> tensors;
  for (size_t r = 0; r < table.rows.size(); ++r) {
    StatsCsvTensor t;
    ASSIGN_OR_RETURN(std::string_view direction, table.Cell(r, "Input/Output"));
    if (direction != "Input" && direction != "Output") {
      return absl::InvalidArgumentError(StrCat("row ", r + 1,
                                               ": Input/Output is '", direction,
                                               "', not Input or Output"));
    }
    t.is_input = direction == "Input";
    ASSIGN_OR_RETURN(std::optional<uint64_t> index, table.Uint64(r, "Index"));
    if (!index || *index > 65535) {
      return absl::InvalidArgumentError(
          StrCat("row ", r + 1, ": Index is missing or above 65535"));
    }
    t.index = static_cast<uint32_t>(*index);
    ASSIGN_OR_RETURN(t.stats, RecordOfRow(table, r));
    tensors.push_back(std::move(t));
  }
  return tensors;
}

TensorComparison CompareStats(const absl::StatusOr<TensorStatsRecord>& a,
                              const absl::StatusOr<TensorStatsRecord>& b,
                              CompareBy by, const CompareOptions& options) {
  TensorComparison c;
  c.by = by;
  if (!a.ok() || !b.ok()) {
    c.problem = !a.ok() ? StrCat("A: ", ToStd(a.status().message()))
                        : StrCat("B: ", ToStd(b.status().message()));
    return c;
  }
  c.shape_a = a->shape;
  c.shape_b = b->shape;
  c.dtype_a = DtypeText(a->dtype);
  c.dtype_b = DtypeText(b->dtype);
  if (a->shape != b->shape) {
    c.problem = StrCat("shapes differ: ", ShapeText(a->shape), " vs ",
                       ShapeText(b->shape));
    return c;
  }
  if (by == CompareBy::kChecksum && (!a->checksum || !b->checksum)) {
    c.problem = StrCat(!a->checksum ? "A" : "B",
                       " has no checksum (dump with dump_data: checksum, or "
                       "\"Checksum\" in dump_stats; or compare --by stats)");
    return c;
  }
  StatsPair pair(*a, *b, options, c);
  pair.Checksum();
  pair.Count("Count", a->count, b->count);
  pair.Real("Max", a->max, b->max);
  pair.Real("Min", a->min, b->min);
  pair.Real("Avg", a->avg, b->avg);
  pair.Real("L2norm", a->l2norm, b->l2norm);
  pair.Count("Nan", a->nan, b->nan);
  pair.Count("Negative Inf", a->negative_inf, b->negative_inf);
  pair.Count("Positive Inf", a->positive_inf, b->positive_inf);
  c.metrics.count = a->count.value_or(0);
  for (const StatDiff& d : c.stats) {
    // By checksum, the checksum alone decides; the statistics say how far.
    // By statistics, the checksum is shown but does not decide.
    const bool decides = (by == CompareBy::kStats) == (d.column != "Checksum");
    if (decides && !d.within) ++c.tolerance.violations;
  }
  const bool compared =
      std::any_of(c.stats.begin(), c.stats.end(), [&](const StatDiff& d) {
        return by == CompareBy::kStats
                   ? d.column != "Checksum" && d.column != "Count"
                   : d.column == "Checksum";
      });
  if (!compared) {
    c.problem = "no statistic recorded on both sides";
    return c;
  }
  c.tolerance.within = c.tolerance.violations == 0;
  return c;
}

}  // namespace compare_internal
}  // namespace acldump::tools
