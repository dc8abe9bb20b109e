#include "dump/format/merged_stats.h"

#include <sys/stat.h>

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>

#include "base/file_reader.h"
#include "base/status_macros.h"
#include "base/strings.h"
#include "base/text.h"
#include "dump/format/dump_names.h"
#include "dump/format/pack.h"
#include "dump/format/stats_csv.h"

namespace acldump::dump {
namespace {

namespace fs = std::filesystem;

template <typename... Args>
absl::Status Invalid(const Args&... args) {
  return absl::InvalidArgumentError(StrCat(args...));
}

}  // namespace

absl::StatusOr<std::vector<MergedStatsRecord>> SplitMergedStats(
    std::string_view text) {
  // A torn last line (no newline) is a row the writer did not finish.
  const size_t last_newline = text.rfind('\n');
  text = last_newline == std::string_view::npos
             ? std::string_view()
             : text.substr(0, last_newline + 1);
  ASSIGN_OR_RETURN(StatsTable table, ParseStatsCsv(text));
  // A model folder's statistic.csv has the iteration first.
  const bool iterations =
      !table.header.empty() && table.header[0] == kMergedStatsIterationColumn;
  const size_t kIdentity = iterations ? 6 : 5;
  if (table.header.size() <= kIdentity ||
      StrJoin(std::vector<std::string>(table.header.begin() + iterations,
                                       table.header.begin() + kIdentity),
              ",") != kMergedStatsColumns) {
    return Invalid("statistic.csv does not start with the columns ",
                   kMergedStatsColumns, " (or ", kMergedStatsIterationColumn,
                   ",", kMergedStatsColumns, ")");
  }
  const std::string header =
      StrJoin(std::vector<std::string>(table.header.begin() + kIdentity,
                                       table.header.end()),
              ",");
  std::vector<MergedStatsRecord> records;
  std::map<std::string, size_t, std::less<>> position;
  for (const std::vector<std::string>& row : table.rows) {
    const std::string* id = row.data() + iterations;
    const std::string name =
        StrCat(iterations ? StrCat(row[0], "/") : "", id[0], ".", id[1], ".",
               id[2], ".", id[3], ".", id[4], ".csv");
    auto [it, inserted] = position.emplace(name, records.size());
    if (inserted) records.push_back({name, header + "\n"});
    records[it->second].csv += StrJoin(
        std::vector<std::string>(row.begin() + kIdentity, row.end()), ",");
    records[it->second].csv += "\n";
  }
  return records;
}

absl::Status AppendMergedStatsRows(std::string_view name, std::string_view csv,
                                   std::string& rows, std::string* header_out) {
  if (name.ends_with(".csv")) name.remove_suffix(4);
  const PackedRecordName parts = SplitPackedRecordName(name);
  name = parts.file;
  const std::vector<std::string_view> identity = SplitOn(name, '.');
  if (identity.size() != 5) {
    return Invalid("stats record '", name,
                   "' is not named {op_type}.{op_name}.{task}.{stream}."
                   "{timestamp}");
  }
  std::string prefix;
  if (!parts.iteration.empty()) StrAppend(prefix, parts.iteration, ",");
  for (std::string_view cell : identity) {
    AppendCsvField(prefix, cell);
    prefix += ',';
  }
  const size_t header_end = csv.find('\n');
  if (header_end == std::string_view::npos) {
    return Invalid("stats record '", name, "' has no header line");
  }
  if (header_out != nullptr) {
    *header_out = StrCat(
        parts.iteration.empty() ? "" : StrCat(kMergedStatsIterationColumn, ","),
        kMergedStatsColumns, ",", csv.substr(0, header_end), "\n");
  }
  std::string_view rest = csv.substr(header_end + 1);
  while (!rest.empty()) {
    const size_t end = rest.find('\n');
    const std::string_view line = rest.substr(0, end);
    if (!line.empty()) {
      rows += prefix;
      rows += line;
      rows += '\n';
    }
    if (end == std::string_view::npos) break;
    rest.remove_prefix(end + 1);
  }
  return absl::OkStatus();
}

namespace {

using SplitFile = std::map<std::string, std::string, std::less<>>;

// statistic.csv files split so far, by path, size and modification time
// (records are looked up one at a time).
struct CachedSplit {
  int64_t size = 0;
  int64_t mtime_ns = 0;
  std::shared_ptr<const SplitFile> records;
};
std::mutex split_mutex;
std::map<std::string, CachedSplit>& SplitCache() {
  static auto* cache = new std::map<std::string, CachedSplit>();
  return *cache;
}

absl::StatusOr<std::optional<std::string>> ReadMergedStatsRecordIn(
    const std::string& merged, const std::string& name) {
  struct stat st;
  if (name == kMergedStatsFileName || ::stat(merged.c_str(), &st) != 0 ||
      !S_ISREG(st.st_mode)) {
    return std::optional<std::string>();
  }
  const int64_t mtime_ns =
      int64_t{st.st_mtim.tv_sec} * 1000000000 + st.st_mtim.tv_nsec;
  std::shared_ptr<const SplitFile> records;
  {
    std::lock_guard<std::mutex> lock(split_mutex);
    auto found = SplitCache().find(merged);
    if (found != SplitCache().end() && found->second.size == st.st_size &&
        found->second.mtime_ns == mtime_ns) {
      records = found->second.records;
    }
  }
  if (!records) {
    ASSIGN_OR_RETURN(std::string text,
                     ReadRegularFile(merged, kMaxStatsCsvBytes, "stats CSV"));
    absl::StatusOr<std::vector<MergedStatsRecord>> split =
        SplitMergedStats(text);
    if (!split.ok()) return Annotate(split.status(), merged);
    auto by_name = std::make_shared<SplitFile>();
    for (MergedStatsRecord& record : *split)
      by_name->emplace(std::move(record.name), std::move(record.csv));
    records = by_name;
    std::lock_guard<std::mutex> lock(split_mutex);
    if (SplitCache().size() > 64) SplitCache().clear();
    SplitCache()[merged] = CachedSplit{st.st_size, mtime_ns, records};
  }
  auto found = records->find(name);
  if (found == records->end()) return std::optional<std::string>();
  return std::optional<std::string>(found->second);
}

// The folder's own statistic.csv, then, for an iteration folder, its model
// folder's, which names the record "{iteration}/{file name}".
absl::StatusOr<std::optional<std::string>> ReadMergedStatsRecord(
    const std::string& path) {
  const fs::path file(path);
  const fs::path folder = file.parent_path();
  const std::string name = file.filename().string();
  ASSIGN_OR_RETURN(
      std::optional<std::string> own,
      ReadMergedStatsRecordIn((folder / kMergedStatsFileName).string(), name));
  const std::string in_model = StrCat(folder.filename().string(), "/", name);
  if (own || !WhyNotAPackedRecordName(in_model).empty()) return own;
  return ReadMergedStatsRecordIn(
      (folder.parent_path() / kMergedStatsFileName).string(), in_model);
}

}  // namespace

absl::StatusOr<std::string> ReadDumpTreeFile(const std::string& path,
                                             uint64_t limit,
                                             std::string_view what) {
  absl::StatusOr<std::string> bytes = ReadRegularFile(path, limit, what);
  if (!absl::IsNotFound(bytes.status())) return bytes;
  ASSIGN_OR_RETURN(std::optional<std::string> packed,
                   std::string_view(path).ends_with(".csv")
                       ? ReadMergedStatsRecord(path)
                       : ReadPackedFile(path, limit));
  if (packed) return *std::move(packed);
  return bytes;
}

}  // namespace acldump::dump
