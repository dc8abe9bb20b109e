// One statistics table for a whole dump tree (`dump stats`, `dump convert
// --to csv`): the rows of every stats CSV and, for tensor dumps, the same
// rows computed from the data, each prefixed with where it came from.
#ifndef ACLDUMP_TOOLS_TREE_STATS_H_
#define ACLDUMP_TOOLS_TREE_STATS_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "dump/format/dump_tree.h"

namespace acldump::tools {

// Columns that say where a row comes from, before the stats CSV columns.
inline constexpr const char* kMergedPrefixColumns[] = {
    "Time",    "Device",  "Model",   "Model ID",  "Iteration",
    "Op Type", "Op Name", "Task ID", "Stream ID", "Timestamp"};

struct MergedRow {
  const dump::DumpEntry* entry = nullptr;
  bool is_input = false;
  uint32_t index = 0;
  std::string data_type;                // "DT_FLOAT"
  std::string shape;                    // "1x16x32x32"
  std::optional<double> max, min, avg;  // absent: NA or not recorded
  uint64_t nan = 0, negative_inf = 0, positive_inf = 0;
};

struct MergedStats {
  // kMergedPrefixColumns, then the union of the CSV columns in the order
  // first seen (the default header when tensors were computed).
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> cells;  // one per row, header-wide
  std::vector<MergedRow> rows;
  size_t stats_files = 0;
  size_t tensor_files = 0;            // stats computed from tensor dumps
  std::vector<std::string> problems;  // files skipped, with the reason
};

// Reads every stats CSV and tensor dump of `tree` (runs in layout order,
// files in execution order). Unreadable files are listed in `problems`, not
// fatal; a tree with neither kind is an error.
// What MergeStats parses for a stats CSV or tensor dump entry: the file's
// text, or the CSV of statistics computed from the tensors.
using StatsTextSource =
    std::function<absl::StatusOr<std::string>(const dump::DumpEntry&)>;
absl::StatusOr<std::string> StatsTextOfFile(const dump::DumpEntry& entry);

absl::StatusOr<MergedStats> MergeStats(
    const dump::DumpTree& tree,
    const StatsTextSource& source = StatsTextOfFile);

// RFC 4180 CSV of `stats` (header + rows).
std::string MergedStatsCsv(const MergedStats& stats);

struct StatsReportOptions {
  double extreme = 1e4;  // |value| at or above this is flagged
  size_t top = 10;       // operators shown in the ranking
};

// What `dump stats` finds: rows holding NaN/Inf, rows with extreme values,
// and the operators ranked by NaN/Inf count, then by their largest |value|
// (each operator by its worst output, or input when it has no output).
struct RankedOp {
  std::string name, type;
  uint32_t task_id = 0;
  const MergedRow* worst = nullptr;
  uint64_t nonfinite = 0;
  double max_abs = 0;
  std::vector<std::string> flags;  // "NaN/Inf", "beyond float16 range", ...
};
struct StatsAnalysis {
  std::vector<size_t> nonfinite_rows;  // indices into MergedStats::rows
  std::vector<size_t> extreme_rows;
  std::vector<RankedOp> ranking;  // every operator, best-ranked first
};
StatsAnalysis AnalyseStats(const MergedStats& stats,
                           const StatsReportOptions& options);

// The `dump stats` report: NaN/Inf rows, extreme values, and the top of the
// ranking.
std::string FormatStatsReport(const dump::DumpTree& tree,
                              const MergedStats& stats,
                              const StatsReportOptions& options);

// `dump stats --json`: schema "acldump.stats/1".
std::string StatsJson(const dump::DumpTree& tree, const MergedStats& stats,
                      const StatsReportOptions& options);

// Rows holding NaN or Inf.
size_t CountNonFiniteRows(const MergedStats& stats);

}  // namespace acldump::tools

#endif  // ACLDUMP_TOOLS_TREE_STATS_H_
