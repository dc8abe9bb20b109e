#include "dump/baseline.h"

#include <algorithm>
#include <tuple>

#include "base/error_kind.h"
#include "base/file_reader.h"
#include "base/status_macros.h"
#include "base/strings.h"
#include "base/text.h"
#include "dump/format/dump_names.h"
#include "dump/format/dump_tree.h"
#include "dump/format/merged_stats.h"
#include "dump/format/pack.h"
#include "dump/format/stats_csv.h"

namespace acldump::dump {
namespace {

// A packed folder's statistic.csv holds every record of an iteration.
constexpr size_t kMaxMergedStatsBytes = size_t{1} << 30;
constexpr size_t kLeadCells = 6;  // Input/Output .. Shape

absl::Status BaselineError(std::string_view message) {
  return WithKind(absl::InvalidArgumentError(std::string(message)),
                  ErrorKind::kInvalidDumpConfig);
}

std::string JoinCells(const std::vector<std::string>& cells, size_t begin,
                      size_t end) {
  std::string out;
  for (size_t i = begin; i < end; ++i) {
    if (i > begin) out += ',';
    out += cells[i];
  }
  return out;
}

// The columns a header was written with: the chosen ones, or none for the
// default header. Anything else was not written by a stats dump.
absl::StatusOr<std::vector<StatColumn>> ColumnsOfHeader(
    const std::vector<std::string>& header, const std::string& path) {
  std::vector<StatColumn> columns;
  for (size_t i = kLeadCells; i < header.size(); ++i) {
    for (StatColumn column : kAllStatColumns) {
      if (StatColumnHeader(column) == header[i]) columns.push_back(column);
    }
  }
  const std::string text = JoinCells(header, 0, header.size());
  if (StatsCsvHeader(columns) == text) return columns;
  if (StatsCsvHeader({}) == text) return std::vector<StatColumn>{};
  return BaselineError(
      StrCat(path, ": the header ", Quote(Printable(text, 200)),
             " is not one a stats dump writes; dump_baseline needs a dump "
             "written with \"dump_data\": \"stats\" or \"checksum\""));
}

std::optional<uint64_t> ParseChecksum(std::string_view hex) {
  if (hex.size() != 16) return std::nullopt;
  uint64_t value = 0;
  for (char ch : hex) {
    int digit;
    if (ch >= '0' && ch <= '9') {
      digit = ch - '0';
    } else if (ch >= 'a' && ch <= 'f') {
      digit = ch - 'a' + 10;
    } else {
      return std::nullopt;
    }
    value = value << 4 | static_cast<uint64_t>(digit);
  }
  return value;
}

absl::StatusOr<BaselineRecord> ParseRecord(std::string_view csv,
                                           std::string path) {
  absl::StatusOr<StatsTable> table = ParseStatsCsv(csv);
  if (!table.ok()) {
    return BaselineError(StrCat(path, ": ", ToStd(table.status().message())));
  }
  if (table->header.size() < kLeadCells) {
    return BaselineError(
        StrCat(path, ": not a stats CSV (", table->header.size(), " columns)"));
  }
  BaselineRecord record;
  ASSIGN_OR_RETURN(record.columns, ColumnsOfHeader(table->header, path));
  record.headers.assign(table->header.begin() + kLeadCells,
                        table->header.end());
  record.checksum = std::find(record.columns.begin(), record.columns.end(),
                              StatColumn::kChecksum) != record.columns.end();
  const std::optional<size_t> checksum_column = table->ColumnIndex("Checksum");
  for (size_t r = 0; r < table->rows.size(); ++r) {
    const std::vector<std::string>& cells = table->rows[r];
    BaselineRow row;
    row.is_input = cells[0] == "Input";
    if (!row.is_input && cells[0] != "Output") {
      return BaselineError(StrCat(path, ": row ", r + 1, ": Input/Output is ",
                                  Quote(Printable(cells[0], 40))));
    }
    absl::StatusOr<std::optional<uint64_t>> index = table->Uint64(r, "Index");
    if (!index.ok()) {
      return BaselineError(StrCat(path, ": ", ToStd(index.status().message())));
    }
    if (!*index || **index > UINT32_MAX) {
      return BaselineError(StrCat(path, ": row ", r + 1, ": no Index"));
    }
    row.index = static_cast<uint32_t>(**index);
    row.lead = JoinCells(cells, 0, kLeadCells);
    row.cells = "," + JoinCells(cells, kLeadCells, cells.size()) + "\n";
    if (record.checksum && checksum_column) {
      const std::string& hex = cells[*checksum_column];
      // Empty for a type without statistics.
      if (!hex.empty()) {
        row.checksum = ParseChecksum(hex);
        if (!row.checksum) {
          return BaselineError(StrCat(path, ": row ", r + 1, ": Checksum ",
                                      Quote(Printable(hex, 40)),
                                      " is not 16 hex digits"));
        }
      }
    }
    record.rows.push_back(std::move(row));
  }
  record.path = std::move(path);
  return record;
}

// Reads the stats records of a tree: a packed folder's statistic.csv once.
class RecordReader {
 public:
  absl::StatusOr<std::string> Read(const DumpEntry& entry) {
    if (!entry.packed) {
      return ReadRegularFile(entry.path, kMaxStatsCsvBytes,
                             "baseline stats CSV");
    }
    const std::string& merged = entry.packed_in;
    const size_t slash = merged.rfind('/');
    // The record's name in the statistic.csv: its path below that folder.
    const std::string name = entry.path.substr(slash + 1);
    auto it = folders_.find(merged);
    if (it == folders_.end()) {
      ASSIGN_OR_RETURN(std::string text,
                       ReadRegularFile(merged, kMaxMergedStatsBytes,
                                       "baseline statistic.csv"));
      absl::StatusOr<std::vector<MergedStatsRecord>> records =
          SplitMergedStats(text);
      if (!records.ok()) {
        return BaselineError(
            StrCat(merged, ": ", ToStd(records.status().message())));
      }
      std::map<std::string, std::string> by_name;
      for (MergedStatsRecord& record : *records) {
        by_name[record.name] = std::move(record.csv);
      }
      it = folders_.emplace(merged, std::move(by_name)).first;
    }
    auto record = it->second.find(name);
    if (record == it->second.end()) {
      return BaselineError(StrCat(entry.path, ": not in ", merged));
    }
    return record->second;
  }

 private:
  std::map<std::string, std::map<std::string, std::string>> folders_;
};

}  // namespace

std::string BaselineKey(std::string_view op_type, std::string_view op_name) {
  return StrCat(EscapeNamePart(op_type), ".", EscapeNamePart(op_name));
}

const BaselineRecord* BaselineIteration::Find(const std::string& key) const {
  auto it = records.find(key);
  return it == records.end() ? nullptr : &it->second;
}

const BaselineIteration* BaselineModel::For(int64_t iteration) const {
  if (every_iteration) return &iterations.begin()->second;
  auto it = iterations.find(iteration);
  return it == iterations.end() ? nullptr : &it->second;
}

absl::StatusOr<std::shared_ptr<const Baseline>> Baseline::Load(
    const std::string& given) {
  std::string path = given;
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  absl::StatusOr<DumpTree> tree = ScanDumpTree(path);
  if (!tree.ok()) {
    return BaselineError(StrCat("dump_baseline ", Quote(path), ": ",
                                ToStd(tree.status().message())));
  }
  if (!tree->problems.empty()) {
    return BaselineError(
        StrCat("dump_baseline ", Quote(path), ": ", tree->problems.front()));
  }
  auto baseline = std::shared_ptr<Baseline>(new Baseline());
  baseline->root_ = path;
  // model folder -> the (time, device, model id) its records came from.
  std::map<std::string, std::tuple<std::string, int64_t, int64_t>> origin;
  RecordReader reader;
  for (const DumpRun& run : tree->runs) {
    if (run.layout != Layout::kModel) continue;
    for (const DumpEntry* entry : run.files) {
      if (entry->kind != EntryKind::kStats || !entry->name) continue;
      const auto here = std::make_tuple(run.time, run.device, run.model_id);
      auto [known, added] = origin.emplace(run.model, here);
      if (!added && known->second != here) {
        return BaselineError(StrCat(
            "dump_baseline ", Quote(path), " holds more than one run of model ",
            Quote(run.model), " (time folders ", std::get<0>(known->second),
            " and ", run.time,
            ", or devices or model ids that differ); point "
            "dump_baseline at the time folder of the run to compare with"));
      }
      BaselineModel& model = baseline->models_[run.model];
      BaselineIteration& iteration = model.iterations[run.iteration];
      iteration.directory = run.directory;
      model.every_iteration = run.directory == path;
      ASSIGN_OR_RETURN(std::string csv, reader.Read(*entry));
      ASSIGN_OR_RETURN(BaselineRecord record, ParseRecord(csv, entry->path));
      iteration.records.insert_or_assign(
          StrCat(entry->name->op_type, ".", entry->name->op_name),
          std::move(record));
      ++baseline->records_;
    }
  }
  if (baseline->records_ == 0) {
    const size_t tensors = tree->CountKind(EntryKind::kTensor);
    return BaselineError(StrCat(
        "dump_baseline ", Quote(path),
        " holds no stats records of a model dump",
        tensors > 0 ? StrCat(" (it holds ", tensors, " tensor dump files)")
                    : "",
        "; make the baseline with a model dump of \"dump_data\": \"stats\" "
        "(add \"Checksum\" to dump_stats for an exact comparison) or "
        "\"checksum\""));
  }
  return std::shared_ptr<const Baseline>(std::move(baseline));
}

const BaselineModel* Baseline::FindModel(
    const std::string& model_folder) const {
  auto it = models_.find(model_folder);
  return it == models_.end() ? nullptr : &it->second;
}

std::string Baseline::DescribeModels() const {
  std::vector<std::string> names;
  for (const auto& [name, model] : models_) names.push_back(Quote(name));
  return StrJoin(names, ", ");
}

}  // namespace acldump::dump
