// The stats CSV of `dump_data: stats`: writing it, and
// reading it back (the reader treats files as untrusted).
//
// Cells are written the way the SDK's writers write them:
//  - Shape: dims joined by 'x' ("1x3x224x224"); empty for a scalar. A
//    zero-size dimension prints as 0 ("0x3").
//  - Numbers: counts, sizes and indices as integers; Max and Min of integer
//    and bool data exactly; every other value with six significant digits
//    ("3.96214", "1e+06"), infinities as "inf"/"-inf" and NaN as "nan".
//  - NaN never takes part in Max/Min, infinities do: Max is "inf" when +Inf
//    is present, Min "-inf" when -Inf is; a tensor of NaN only has "nan" for
//    both. Avg is the mean of the finite values, "nan" when a NaN (or both
//    infinities) is present, "inf"/"-inf" when one infinity is. l2norm is
//    "nan" with a NaN, "inf" with an infinity.
//  - A type without statistics has every statistic cell empty, Count
//    included. An empty tensor (Count 0) has "NA" for Max, Min, Avg and
//    l2norm (the SDK refuses such tensors).
#ifndef ACLDUMP_DUMP_FORMAT_STATS_CSV_H_
#define ACLDUMP_DUMP_FORMAT_STATS_CSV_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "dump/format/stat_columns.h"

namespace acldump::dump {

inline constexpr std::string_view kDefaultStatsCsvHeader =
    "Input/Output,Index,Data Size,Data Type,Format,Shape,Max Value,Min "
    "Value,Avg Value,Count,Nan Count,Negative Inf Count,Positive Inf Count";

// Largest stats CSV ParseStatsCsv accepts, and the widest row.
inline constexpr size_t kMaxStatsCsvBytes = size_t{64} << 20;
inline constexpr size_t kMaxStatsCsvColumns = 1024;

struct StatsRow {
  bool is_input = false;
  uint32_t index = 0;
  uint64_t data_size = 0;      // bytes
  int32_t data_type = 0;       // OutputDataType number
  int32_t format = 2;          // OutputFormat number (ND)
  std::vector<int64_t> shape;  // empty: a scalar
  TensorStats stats;
  bool numeric = true;  // false: every statistic cell is empty
};

// The CSV column heading of a statistic: "Max Value", "Min Value", "Avg
// Value", "Nan Count", "Negative Inf Count", "Positive Inf Count", "l2norm".
std::string_view StatColumnHeader(StatColumn column);

// The header line (no newline): the default one when `columns` is empty; else
// the six leading columns, Count, then the chosen statistics in StatColumn
// order (duplicates ignored).
std::string StatsCsvHeader(std::span<const StatColumn> columns);

// A row in two parts, for writers that format many rows of the same tensors:
// the leading cells ("Output,0,32,DT_FLOAT,NCHW,1x2x2x2"), and the rest with
// the statistics `stats` (the row's own are not read) and the newline, for
// the header StatsCsvHeader(columns) gives.
std::string StatsCsvRowLead(const StatsRow& row);
void AppendStatsCsvCells(std::string& out, const StatsRow& row,
                         const TensorStats& stats,
                         std::span<const StatColumn> columns);

// Header + one line per row, each ending in '\n'.
std::string FormatStatsCsv(const std::vector<StatsRow>& rows,
                           std::span<const StatColumn> columns);

// A parsed CSV: cells as text, every row as wide as the header.
struct StatsTable {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;

  std::optional<size_t> ColumnIndex(std::string_view name) const;
  // Errors name the missing column or the row out of range.
  absl::StatusOr<std::string_view> Cell(size_t row,
                                        std::string_view column) const;
  // A number cell; "NA" or "" → nullopt; anything else that is not a number is
  // an error naming the row and column.
  absl::StatusOr<std::optional<double>> Double(size_t row,
                                               std::string_view column) const;
  // A non-negative integer cell (Index, Data Size, counts); "NA" or "" →
  // nullopt.
  absl::StatusOr<std::optional<uint64_t>> Uint64(size_t row,
                                                 std::string_view column) const;
  // The Shape cell as dims ("" or "-" → empty).
  absl::StatusOr<std::vector<int64_t>> ShapeOf(size_t row) const;
};

// RFC 4180 (quoted fields, CRLF or LF, optional trailing newline, blank lines
// skipped). Errors give 1-based line numbers.
absl::StatusOr<StatsTable> ParseStatsCsv(std::string_view text);

// "1x3x224x224" → {1, 3, 224, 224}; "" or "-" (older files) → {}.
absl::StatusOr<std::vector<int64_t>> ParseStatsShape(std::string_view text);

}  // namespace acldump::dump

#endif  // ACLDUMP_DUMP_FORMAT_STATS_CSV_H_
