#include "dump/format/stats_csv.h"

#include <algorithm>
#include <cfloat>
#include <charconv>
#include <cmath>
#include <limits>
#include <set>

#include "base/strings.h"
#include "dump/format/data_type.h"
#include "dump/format/dump_data.pb.h"
#include "dump/format/dump_file.h"
#include "kernels/dtype.h"

namespace acldump::dump {
namespace {

using namespace toolkit::dumpdata;  // NOLINT: the DT_ enumerators

constexpr std::string_view kNA = "NA";
constexpr std::string_view kLeadingColumns =
    "Input/Output,Index,Data Size,Data Type,Format,Shape";
// Bounds the memory a hostile file can make the parser allocate (each cell is
// a std::string, many times the size of its text).
constexpr size_t kMaxStatsCsvCells = size_t{1} << 22;

bool IsInteger(int32_t data_type) {
  switch (data_type) {
    case DT_INT8:
    case DT_UINT8:
    case DT_INT16:
    case DT_UINT16:
    case DT_INT32:
    case DT_UINT32:
    case DT_INT64:
    case DT_UINT64:
    case DT_BOOL:
      return true;
    default:
      return false;
  }
}

// Six significant digits, "inf", "-inf", "nan": what a default C++ stream
// prints, as the SDK's writers do. Number formatting is most of a stats dump's
// cost on the writer thread: to_chars neither parses a format string nor
// allocates (StrAppend uses it for integers too).
void AppendReal(std::string& out, double value) {
  if (std::isnan(value)) {
    out += "nan";
    return;
  }
  // As printf's "%.6g".
  char text[32];
  const std::to_chars_result end = std::to_chars(
      text, text + sizeof text, value, std::chars_format::general, 6);
  out.append(text, end.ptr);
}

// Max/Min: integers exactly, floating point like AppendReal.
void AppendElementValue(std::string& out, double value, int32_t data_type) {
  if (IsInteger(data_type) && value == std::trunc(value)) {
    if (value >= 0 && value < 0x1p64) {
      return StrAppend(out, static_cast<uint64_t>(value));
    }
    if (value < 0 && value >= -0x1p63) {
      return StrAppend(out, static_cast<int64_t>(value));
    }
  }
  AppendReal(out, value);
}

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// NaN never takes part in Max/Min; infinities do. A tensor with no value
// other than NaN has NaN for both.
double MaxOf(const TensorStats& s) {
  if (s.positive_inf > 0) return kInf;
  if (s.finite > 0) return s.max;
  return s.negative_inf > 0 ? -kInf : kNaN;
}

double MinOf(const TensorStats& s) {
  if (s.negative_inf > 0) return -kInf;
  if (s.finite > 0) return s.min;
  return s.positive_inf > 0 ? kInf : kNaN;
}

// The mean of the finite values, unless NaN or both infinities are present
// (NaN) or one infinity is (that infinity).
double AvgOf(const TensorStats& s) {
  if (s.nan > 0 || (s.positive_inf > 0 && s.negative_inf > 0)) return kNaN;
  if (s.positive_inf > 0) return kInf;
  if (s.negative_inf > 0) return -kInf;
  return s.sum / static_cast<double>(s.finite);
}

double L2normOf(const TensorStats& s) {
  if (s.nan > 0) return kNaN;
  if (s.positive_inf > 0 || s.negative_inf > 0) return kInf;
  return std::sqrt(s.sum_squares);
}

// Appends ",{cell}" (the writer's hot path: no string per cell).
void AppendStatCell(std::string& out, const StatsRow& row, const TensorStats& s,
                    StatColumn column) {
  out += ',';
  // Bytes have a checksum whatever their type.
  if (column == StatColumn::kChecksum) {
    fmt::format_to(std::back_inserter(out), "{:016x}", s.checksum);
    return;
  }
  if (!row.numeric) return;
  const bool empty = s.count == 0;
  // Max, Min, Avg and l2norm of an empty tensor are "NA".
  switch (column) {
    case StatColumn::kMax:
      if (empty) break;
      return AppendElementValue(out, MaxOf(s), row.data_type);
    case StatColumn::kMin:
      if (empty) break;
      return AppendElementValue(out, MinOf(s), row.data_type);
    case StatColumn::kAvg:
      if (empty) break;
      return AppendReal(out, AvgOf(s));
    case StatColumn::kNan:
      return StrAppend(out, s.nan);
    case StatColumn::kNegativeInf:
      return StrAppend(out, s.negative_inf);
    case StatColumn::kPositiveInf:
      return StrAppend(out, s.positive_inf);
    case StatColumn::kL2norm:
      if (empty) break;
      return AppendReal(out, L2normOf(s));
    case StatColumn::kChecksum:
      break;  // written above
  }
  out += kNA;
}

void AppendCountCell(std::string& out, const StatsRow& row,
                     const TensorStats& s) {
  out += ',';
  if (row.numeric) StrAppend(out, s.count);
}

// Calls `f` for each chosen statistic in StatColumn order, each once (the
// header and every row agree on it).
template <typename F>
void ForEachChosen(std::span<const StatColumn> columns, F f) {
  for (StatColumn c : kAllStatColumns) {
    if (std::find(columns.begin(), columns.end(), c) != columns.end()) f(c);
  }
}

// A scalar's shape is empty, as the SDK's writer prints it.
void AppendShape(std::string& out, const std::vector<int64_t>& shape) {
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) out += 'x';
    StrAppend(out, shape[i]);
  }
}

template <typename... Args>
absl::Status Invalid(const Args&... args) {
  return absl::InvalidArgumentError(StrCat(args...));
}

}  // namespace

std::string_view StatColumnHeader(StatColumn column) {
  switch (column) {
    case StatColumn::kMax:
      return "Max Value";
    case StatColumn::kMin:
      return "Min Value";
    case StatColumn::kAvg:
      return "Avg Value";
    case StatColumn::kNan:
      return "Nan Count";
    case StatColumn::kNegativeInf:
      return "Negative Inf Count";
    case StatColumn::kPositiveInf:
      return "Positive Inf Count";
    case StatColumn::kL2norm:
      return "l2norm";
    case StatColumn::kChecksum:
      return "Checksum";
  }
  return "";
}

std::string StatsCsvHeader(std::span<const StatColumn> columns) {
  if (columns.empty()) return std::string(kDefaultStatsCsvHeader);
  std::string out = StrCat(kLeadingColumns, ",Count");
  ForEachChosen(
      columns, [&](StatColumn c) { StrAppend(out, ",", StatColumnHeader(c)); });
  return out;
}

std::string StatsCsvRowLead(const StatsRow& row) {
  std::string out = StrCat(
      row.is_input ? "Input" : "Output", ",", row.index, ",", row.data_size,
      ",", DumpDataTypeName(row.data_type), ",", FormatName(row.format), ",");
  AppendShape(out, row.shape);
  return out;
}

void AppendStatsCsvCells(std::string& out, const StatsRow& row,
                         const TensorStats& stats,
                         std::span<const StatColumn> columns) {
  if (columns.empty()) {
    for (StatColumn c :
         {StatColumn::kMax, StatColumn::kMin, StatColumn::kAvg}) {
      AppendStatCell(out, row, stats, c);
    }
    AppendCountCell(out, row, stats);
    for (StatColumn c : {StatColumn::kNan, StatColumn::kNegativeInf,
                         StatColumn::kPositiveInf}) {
      AppendStatCell(out, row, stats, c);
    }
  } else {
    AppendCountCell(out, row, stats);
    ForEachChosen(columns,
                  [&](StatColumn c) { AppendStatCell(out, row, stats, c); });
  }
  out += '\n';
}

std::string FormatStatsCsv(const std::vector<StatsRow>& rows,
                           std::span<const StatColumn> columns) {
  std::string out = StatsCsvHeader(columns);
  out += '\n';
  for (const StatsRow& row : rows) {
    out += StatsCsvRowLead(row);
    AppendStatsCsvCells(out, row, row.stats, columns);
  }
  return out;
}

std::optional<size_t> StatsTable::ColumnIndex(std::string_view name) const {
  for (size_t i = 0; i < header.size(); ++i) {
    if (header[i] == name) return i;
  }
  return std::nullopt;
}

absl::StatusOr<std::string_view> StatsTable::Cell(
    size_t row, std::string_view column) const {
  const std::optional<size_t> index = ColumnIndex(column);
  if (!index) {
    return absl::NotFoundError(StrCat(
        "no column \"", column, "\" (columns: ", StrJoin(header, ","), ")"));
  }
  if (row >= rows.size()) {
    return absl::OutOfRangeError(
        StrCat("row ", row, " does not exist (", rows.size(), " rows)"));
  }
  return std::string_view(rows[row][*index]);
}

absl::StatusOr<std::optional<double>> StatsTable::Double(
    size_t row, std::string_view column) const {
  absl::StatusOr<std::string_view> cell = Cell(row, column);
  if (!cell.ok()) return cell.status();
  // "NA" (not applicable) and "" (a type without statistics).
  if (*cell == kNA || cell->empty()) return std::optional<double>();
  double value = 0;
  const char* end = cell->data() + cell->size();
  const auto [ptr, ec] = std::from_chars(cell->data(), end, value);
  if (cell->empty() || ec != std::errc() || ptr != end) {
    return Invalid("row ", row, ", column \"", column, "\": \"", *cell,
                   "\" is not a number");
  }
  return std::optional<double>(value);
}

absl::StatusOr<std::optional<uint64_t>> StatsTable::Uint64(
    size_t row, std::string_view column) const {
  absl::StatusOr<std::string_view> cell = Cell(row, column);
  if (!cell.ok()) return cell.status();
  if (*cell == kNA || cell->empty()) return std::optional<uint64_t>();
  uint64_t value = 0;
  const char* end = cell->data() + cell->size();
  const auto [ptr, ec] = std::from_chars(cell->data(), end, value);
  if (cell->empty() || ec != std::errc() || ptr != end) {
    return Invalid("row ", row, ", column \"", column, "\": \"", *cell,
                   "\" is not a non-negative integer");
  }
  return std::optional<uint64_t>(value);
}

absl::StatusOr<std::vector<int64_t>> StatsTable::ShapeOf(size_t row) const {
  absl::StatusOr<std::string_view> cell = Cell(row, "Shape");
  if (!cell.ok()) return cell.status();
  absl::StatusOr<std::vector<int64_t>> shape = ParseStatsShape(*cell);
  if (!shape.ok()) {
    return Invalid("row ", row,
                   ", column \"Shape\": ", shape.status().message());
  }
  return shape;
}

absl::StatusOr<std::vector<int64_t>> ParseStatsShape(std::string_view text) {
  std::vector<int64_t> dims;
  if (text == "-" || text.empty()) return dims;
  size_t pos = 0;
  while (true) {
    const size_t x = std::min(text.find('x', pos), text.size());
    const std::string_view part = text.substr(pos, x - pos);
    int64_t dim = 0;
    const char* end = part.data() + part.size();
    const auto [ptr, ec] = std::from_chars(part.data(), end, dim);
    if (part.empty() || ec != std::errc() || ptr != end || dim < 0) {
      return Invalid(
          "shape \"", text,
          "\" is not \"-\" or dims joined by 'x' (e.g. 1x3x224x224)");
    }
    dims.push_back(dim);
    if (x == text.size()) break;
    pos = x + 1;
  }
  return dims;
}

namespace {

// A position in the CSV text. line counts the newlines passed, quoted ones
// included, so messages name the line an editor shows.
struct CsvCursor {
  std::string_view text;
  size_t pos = 0;
  size_t line = 1;

  bool AtLineEnd(size_t p) const {
    return p < text.size() &&
           (text[p] == '\n' ||
            (text[p] == '\r' && p + 1 < text.size() && text[p + 1] == '\n'));
  }
  void SkipLineEnd() {
    pos += text[pos] == '\r' ? 2 : 1;
    ++line;
  }
};

// A field starting at the opening quote; "" stands for one quote.
absl::StatusOr<std::string> ReadQuotedField(CsvCursor& in, size_t record_line) {
  const std::string_view text = in.text;
  const size_t size = text.size();
  std::string field;
  ++in.pos;
  while (true) {
    if (in.pos >= size) {
      return Invalid("line ", record_line, ": quoted field is not closed");
    }
    const char c = text[in.pos];
    if (c == '"') {
      if (in.pos + 1 < size && text[in.pos + 1] == '"') {
        field += '"';
        in.pos += 2;
        continue;
      }
      ++in.pos;
      break;
    }
    if (c == '\n') ++in.line;
    field += c;
    ++in.pos;
  }
  if (in.pos < size && text[in.pos] != ',' && !in.AtLineEnd(in.pos)) {
    return Invalid("line ", in.line,
                   ": unexpected character after a closing quote");
  }
  return field;
}

absl::StatusOr<std::string> ReadPlainField(CsvCursor& in) {
  const std::string_view text = in.text;
  const size_t start = in.pos;
  while (in.pos < text.size() && text[in.pos] != ',' && !in.AtLineEnd(in.pos)) {
    if (text[in.pos] == '"') {
      return Invalid("line ", in.line,
                     ": '\"' inside an unquoted field (quote the "
                     "whole field)");
    }
    ++in.pos;
  }
  return std::string(text.substr(start, in.pos - start));
}

// The fields of the record at the cursor, which is left after its line end.
absl::StatusOr<std::vector<std::string>> ReadRecord(CsvCursor& in,
                                                    size_t record_line) {
  const size_t size = in.text.size();
  std::vector<std::string> fields;
  while (true) {
    absl::StatusOr<std::string> field = in.pos < size && in.text[in.pos] == '"'
                                            ? ReadQuotedField(in, record_line)
                                            : ReadPlainField(in);
    if (!field.ok()) return field.status();
    fields.push_back(*std::move(field));
    if (fields.size() > kMaxStatsCsvColumns) {
      return Invalid("line ", record_line, ": more than ", kMaxStatsCsvColumns,
                     " fields");
    }
    if (in.pos < size && in.text[in.pos] == ',') {
      ++in.pos;
      continue;
    }
    if (in.pos < size) in.SkipLineEnd();
    return fields;
  }
}

absl::Status CheckHeader(const std::vector<std::string>& fields,
                         size_t record_line) {
  for (size_t i = 0; i < fields.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (fields[i] == fields[j]) {
        return Invalid("line ", record_line, ": column \"", fields[i],
                       "\" appears twice in the header");
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<StatsTable> ParseStatsCsv(std::string_view text) {
  if (text.size() > kMaxStatsCsvBytes) {
    return Invalid("stats CSV is ", text.size(),
                   " bytes, more than the limit of ", kMaxStatsCsvBytes);
  }
  constexpr std::string_view kBom = "\xEF\xBB\xBF";
  if (text.starts_with(kBom)) text.remove_prefix(kBom.size());

  StatsTable table;
  bool have_header = false;
  size_t cells = 0;
  CsvCursor in{text};
  while (in.pos < text.size()) {
    if (in.AtLineEnd(in.pos)) {  // a blank line
      in.SkipLineEnd();
      continue;
    }
    const size_t record_line = in.line;
    absl::StatusOr<std::vector<std::string>> fields =
        ReadRecord(in, record_line);
    if (!fields.ok()) return fields.status();
    cells += fields->size();
    if (cells > kMaxStatsCsvCells) {
      return Invalid("line ", record_line, ": more than ", kMaxStatsCsvCells,
                     " cells in the file");
    }
    if (!have_header) {
      if (absl::Status header = CheckHeader(*fields, record_line);
          !header.ok()) {
        return header;
      }
      table.header = *std::move(fields);
      have_header = true;
      continue;
    }
    if (fields->size() != table.header.size()) {
      return Invalid("line ", record_line, ": ", fields->size(),
                     " fields but the header has ", table.header.size());
    }
    table.rows.push_back(*std::move(fields));
  }
  if (!have_header) return Invalid("stats CSV is empty: no header line");
  return table;
}

}  // namespace acldump::dump
