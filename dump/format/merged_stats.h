// statistic.csv of the packed layout (see pack.h): one stats CSV per folder
// whose rows carry their record's identity, split back into the SDK layout's
// per-record stats files for readers.
#ifndef ACLDUMP_DUMP_FORMAT_MERGED_STATS_H_
#define ACLDUMP_DUMP_FORMAT_MERGED_STATS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace acldump::dump {

// One stats record of a statistic.csv: its file name in the SDK layout
// ("{op_type}.{op_name}.{task}.{stream}.{timestamp}.csv") and that file's text.
struct MergedStatsRecord {
  std::string name;
  std::string csv;
};
// Splits statistic.csv text back into the SDK layout's stats files, in the
// order their rows first appear (a model folder's, with its Iteration column,
// into records named "{iteration}/{file name}"). An unterminated last line (a
// crash while it was written) is ignored; a row with fewer cells than the
// header is an error.
absl::StatusOr<std::vector<MergedStatsRecord>> SplitMergedStats(
    std::string_view text);
// Appends the rows of a stats CSV `csv` (header line first) to `rows` as
// statistic.csv lines for the record file `name` ("….csv" or without the
// suffix); the header line of statistic.csv is the first line of `header_out`
// when it is not null. On error `rows` is as it was.
absl::Status AppendMergedStatsRows(std::string_view name, std::string_view csv,
                                   std::string& rows, std::string* header_out);

// A file of a dump tree: the regular file at `path`, else the packed record
// it names (ReadPackedFile); errors as ReadRegularFile's.
absl::StatusOr<std::string> ReadDumpTreeFile(const std::string& path,
                                             uint64_t limit,
                                             std::string_view what);

}  // namespace acldump::dump

#endif  // ACLDUMP_DUMP_FORMAT_MERGED_STATS_H_
