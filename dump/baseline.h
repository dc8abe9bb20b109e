// A stats dump read back as the baseline of a later run (dump_baseline): per
// model and iteration, each record's rows (one per tensor) as the stats CSV
// writer formatted them, so that a run's statistics, formatted the same way,
// compare exactly; with the Checksum column, the hash decides alone.
#ifndef ACLDUMP_DUMP_BASELINE_H_
#define ACLDUMP_DUMP_BASELINE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "dump/format/stat_columns.h"

namespace acldump::dump {

// One tensor of a baseline record.
struct BaselineRow {
  bool is_input = false;
  uint32_t index = 0;
  // The cells before the statistics ("Output,0,32,DT_FLOAT,NCHW,1x2x2x2")
  // and after them up to the newline (",8,1.5,...\n"), as in the file.
  std::string lead;
  std::string cells;
  std::optional<uint64_t> checksum;  // with the Checksum column
};

// One record (an operator execution) of the baseline.
struct BaselineRecord {
  std::string path;  // the file (or packed record) it came from, for reports
  std::vector<StatColumn> columns;   // empty: the default columns
  bool checksum = false;             // columns hold Checksum
  std::vector<std::string> headers;  // the header's cells after Shape
  std::vector<BaselineRow> rows;
};

// One iteration of a model in the baseline.
struct BaselineIteration {
  std::string directory;  // its folder
  // "{op_type}.{op_name}" (escaped as in file names) -> record.
  std::map<std::string, BaselineRecord> records;

  // Null when it has no record of the operator.
  const BaselineRecord* Find(const std::string& key) const;
};

// One model's run in the baseline.
struct BaselineModel {
  std::map<int64_t, BaselineIteration> iterations;
  // dump_baseline named one iteration's folder: it is the baseline of every
  // iteration of the run. Otherwise iterations pair by number.
  bool every_iteration = false;

  // The baseline of a run's iteration; null when there is none.
  const BaselineIteration* For(int64_t iteration) const;
};

class Baseline {
 public:
  // Reads the stats dump at `path` (a dump_path, a time folder or anything
  // below; SDK or packed layout). An iteration's folder is the baseline of
  // every iteration; above it, iterations pair by number. Errors: nothing
  // there, no stats records (a tensor dump, an empty folder), two runs of one
  // model (point at one time folder), an unreadable or malformed stats file
  // (named).
  static absl::StatusOr<std::shared_ptr<const Baseline>> Load(
      const std::string& path);

  const std::string& root() const { return root_; }
  // The run of the model whose folder name is `model_folder` (escaped);
  // null when the baseline has none.
  const BaselineModel* FindModel(const std::string& model_folder) const;
  // The models it holds, for messages: "'resnet', 'bert'".
  std::string DescribeModels() const;
  size_t records() const { return records_; }

 private:
  std::string root_;
  std::map<std::string, BaselineModel> models_;  // by model folder name
  size_t records_ = 0;
};

// Written in an iteration's folder when anything in it differed.
inline constexpr std::string_view kBaselineSummaryFileName =
    "baseline_diff.json";

// "{op_type}.{op_name}" as a record's file name starts (both escaped).
std::string BaselineKey(std::string_view op_type, std::string_view op_name);

}  // namespace acldump::dump

#endif  // ACLDUMP_DUMP_BASELINE_H_
