#include "dump/format/dump_tree.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <system_error>
#include <tuple>

#include "base/file_reader.h"
#include "base/status_macros.h"
#include "base/strings.h"
#include "base/text.h"
#include "dump/format/dump_names.h"
#include "dump/format/merged_stats.h"
#include "dump/format/pack.h"
#include "dump/format/record_file.h"
#include "dump/format/stats_csv.h"

namespace acldump::dump {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kOverflowPrefix = "Opdebug.Node_OpDebug.";

bool AllDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(),
                                   [](char c) { return c >= '0' && c <= '9'; });
}

template <typename T>
bool ParseNumber(std::string_view s, T& value) {
  if (!AllDigits(s)) return false;
  const auto [end, error] =
      std::from_chars(s.data(), s.data() + s.size(), value);
  return error == std::errc() && end == s.data() + s.size();
}

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.substr(s.size() - suffix.size()) == suffix;
}

bool IsTimeFolder(std::string_view s) { return IsTimeFolderName(s); }

// The number after "_" of a time folder's name; 0 without one.
uint64_t TimeFolderSuffix(std::string_view name) {
  uint64_t n = 0;
  if (name.size() > 15) ParseNumber(name.substr(15), n);
  return n;
}

// hash -> original file name, from a folder's mapping.csv.
using Mapping = std::map<std::string, std::string, std::less<>>;

Mapping ReadMapping(const fs::path& directory) {
  Mapping mapping;
  absl::StatusOr<std::string> text = ReadRegularFile(
      (directory / "mapping.csv").string(), kMaxStatsCsvBytes, "mapping.csv");
  if (!text.ok()) return mapping;
  // The file has no header line: parse it as one and keep it as a row.
  absl::StatusOr<StatsTable> table = ParseStatsCsv(*text);
  if (!table.ok() || table->header.size() != 2) return mapping;
  mapping[table->header[0]] = table->header[1];
  for (const auto& row : table->rows) mapping[row[0]] = row[1];
  return mapping;
}

void PlaceInLayout(const fs::path& directory, DumpEntry& entry) {
  std::vector<std::string> parts;
  for (const auto& part : directory) parts.push_back(part.string());
  const size_t n = parts.size();
  auto at = [&](size_t back) -> std::string_view { return parts[n - back]; };
  if (n >= 5 && IsTimeFolder(at(5)) && ParseNumber(at(4), entry.device) &&
      ParseNumber(at(2), entry.model_id) &&
      ParseNumber(at(1), entry.iteration)) {
    entry.layout = Layout::kModel;
    entry.time = at(5);
    entry.model = at(3);
    return;
  }
  entry.device = entry.model_id = entry.iteration = -1;
  if (n >= 2 && IsTimeFolder(at(2)) && ParseNumber(at(1), entry.device)) {
    entry.layout = Layout::kSingleOp;
    entry.time = at(2);
    return;
  }
  entry.device = -1;
  if (n >= 3 && at(3) == "extra-info" && at(2) == "data-dump" &&
      ParseNumber(at(1), entry.device)) {
    entry.layout = Layout::kException;
    return;
  }
  entry.device = -1;
}

void Classify(DumpEntry& entry, const Mapping& mapping) {
  std::string_view name = entry.file_name;
  if (EndsWith(name, ".tmp") || name == "mapping.csv") return;
  // A hashed name ("123", or "123.csv" from older writers) stands for the
  // name mapping.csv records.
  if (auto it = mapping.find(name); it != mapping.end()) {
    name = it->second;
  } else if (AllDigits(name)) {
    return;
  }
  const RecordFile form = RecordFileOfName(name, &name);
  entry.name =
      form == RecordFile::kDumpFile && entry.layout == Layout::kException
          ? ParseExceptionFileName(name)
          : ParseDumpFileName(name);
  if (!entry.name) return;
  if (form == RecordFile::kStatsCsv) {
    entry.kind = EntryKind::kStats;
  } else if (name.substr(0, kOverflowPrefix.size()) == kOverflowPrefix) {
    entry.kind = EntryKind::kOverflowRecord;
  } else {
    entry.kind = EntryKind::kTensor;
  }
}

auto RunKey(const DumpEntry& e) {
  return std::make_tuple(static_cast<int>(e.layout), e.time, e.device, e.model,
                         e.model_id, e.iteration);
}

bool ExecutionOrder(const DumpEntry* a, const DumpEntry* b) {
  if (a->name && b->name) {
    return std::tie(a->name->task_id, a->name->timestamp_us, a->file_name) <
           std::tie(b->name->task_id, b->name->timestamp_us, b->file_name);
  }
  return a->file_name < b->file_name;
}

std::string ParentOf(const std::string& path) {
  return fs::path(path).parent_path().string();
}

// The records of a packed folder's dump.pack or statistic.csv (`container`,
// already placed), as entries named like the SDK layout's files.
// `mapping`: the folder's mapping.csv (a record too long for a file name is
// packed under its hash, as the SDK layout's file would be).
void AddPackedEntries(const DumpEntry& container, const fs::path& absolute,
                      const Mapping& mapping, DumpTree& tree) {
  std::vector<std::pair<std::string, uint64_t>> records;  // name, bytes
  if (container.file_name == kPackFileName) {
    absl::StatusOr<PackContents> pack = ReadPackContents(absolute.string());
    if (!pack.ok()) {
      tree.problems.push_back(std::string(ToStd(pack.status().message())));
      return;
    }
    if (!pack->problem.empty()) {
      tree.problems.push_back(StrCat(container.path, ": ", pack->problem));
    }
    for (const std::string& refused : pack->refused) {
      tree.problems.push_back(StrCat(container.path, ": ", refused));
    }
    for (const PackRecord& record : pack->records)
      records.emplace_back(record.name, record.data_bytes);
  } else {
    absl::StatusOr<std::string> text =
        ReadRegularFile(absolute.string(), kMaxStatsCsvBytes, "stats CSV");
    absl::StatusOr<std::vector<MergedStatsRecord>> split =
        text.ok()
            ? SplitMergedStats(*text)
            : absl::StatusOr<std::vector<MergedStatsRecord>>(text.status());
    if (!split.ok()) {
      tree.problems.push_back(
          StrCat(container.path, ": ", ToStd(split.status().message())));
      return;
    }
    for (const MergedStatsRecord& record : *split)
      records.emplace_back(record.name, record.csv.size());
  }
  const fs::path folder = fs::path(container.path).parent_path();
  const fs::path relative_folder = fs::path(container.relative).parent_path();
  for (const auto& [name, bytes] : records) {
    // A record becomes an entry only under a name that stays in its folder
    // (or, in a model folder, in one of its iteration folders).
    if (std::string why = WhyNotAPackedRecordName(name); !why.empty()) {
      tree.problems.push_back(StrCat(container.path, ": the record ",
                                     Quote(name), " is not a file name (", why,
                                     "): refused"));
      continue;
    }
    const PackedRecordName parts = SplitPackedRecordName(name);
    DumpEntry entry = container;
    entry.file_name = parts.file;
    entry.path = (folder / name).string();
    entry.relative = (relative_folder / name).string();
    entry.bytes = bytes;
    entry.packed = true;
    entry.packed_in = container.path;
    entry.kind = EntryKind::kOther;
    if (!parts.iteration.empty()) {
      PlaceInLayout(absolute.parent_path() / parts.iteration, entry);
    }
    Classify(entry, mapping);
    tree.entries.push_back(std::move(entry));
  }
}

}  // namespace

namespace {

std::vector<std::string_view> NameParts(std::string_view name) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    const size_t dot = name.find('.', start);
    parts.push_back(name.substr(start, dot - start));
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return parts;
}

}  // namespace

std::optional<DumpFileNameParts> ParseExceptionFileName(std::string_view name) {
  if (std::optional<DumpFileNameParts> parsed = ParseDumpFileName(name)) {
    return parsed;
  }
  const std::vector<std::string_view> parts = NameParts(name);
  if (parts.size() != 4 || parts[0].empty() || parts[3].size() != 17) {
    return std::nullopt;
  }
  DumpFileNameParts parsed;
  parsed.op_type = parts[0];
  if (!ParseNumber(parts[2], parsed.task_id) ||
      !ParseNumber(parts[3], parsed.timestamp_us)) {
    return std::nullopt;
  }
  if (parts[0] == kBriefExceptionFilePrefix) {
    if (!ParseNumber(parts[1], parsed.stream_id)) return std::nullopt;
  } else if (parts[1].empty()) {
    return std::nullopt;
  } else {
    parsed.op_name = parts[1];
  }
  return parsed;
}

std::optional<DumpFileNameParts> ParseDumpFileName(std::string_view name) {
  const std::vector<std::string_view> parts = NameParts(name);
  // 5 parts; 6 with a dump number (the device's stream path); 9 with an
  // FFTS+ sub-task (a "4" tag, context id, thread id, device id appended).
  if ((parts.size() != 5 && parts.size() != 6 && parts.size() != 9) ||
      parts[0].empty() || parts[1].empty()) {
    return std::nullopt;
  }
  DumpFileNameParts parsed;
  parsed.op_type = parts[0];
  parsed.op_name = parts[1];
  size_t next = 2;
  if (parts.size() == 6) {
    uint64_t dump_number = 0;
    if (!ParseNumber(parts[next++], dump_number)) return std::nullopt;
    parsed.dump_number = dump_number;
  }
  if (!ParseNumber(parts[next], parsed.task_id) ||
      !ParseNumber(parts[next + 1], parsed.stream_id) ||
      !ParseNumber(parts[next + 2], parsed.timestamp_us)) {
    return std::nullopt;
  }
  if (parts.size() == 9) {
    DumpFileNameParts::FftsSubTask sub;
    if (parts[5] != "4" || !ParseNumber(parts[6], sub.context_id) ||
        !ParseNumber(parts[7], sub.thread_id) ||
        !ParseNumber(parts[8], sub.device_id)) {
      return std::nullopt;
    }
    parsed.ffts = sub;
  }
  return parsed;
}

bool IsTimeFolderName(std::string_view name) {
  if (name.size() < 14 || !AllDigits(name.substr(0, 14))) return false;
  if (name.size() == 14) return true;
  uint64_t n = 0;
  return name.size() > 15 && name[14] == '_' && ParseNumber(name.substr(15), n);
}

bool TimeFolderBefore(std::string_view a, std::string_view b) {
  const std::string_view base_a = a.substr(0, 14), base_b = b.substr(0, 14);
  if (base_a != base_b) return base_a < base_b;
  return TimeFolderSuffix(a) < TimeFolderSuffix(b);
}

std::string_view EntryKindName(EntryKind kind) {
  switch (kind) {
    case EntryKind::kTensor:
      return "tensor";
    case EntryKind::kStats:
      return "stats";
    case EntryKind::kOverflowRecord:
      return "overflow";
    case EntryKind::kOther:
      return "other";
  }
  return "";
}

std::string DumpRun::Describe() const {
  switch (layout) {
    case Layout::kModel:
      return StrCat(model, " (id ", model_id, ") iteration ", iteration,
                    ", device ", device, ", ", time);
    case Layout::kSingleOp:
      return StrCat("single-op dump, device ", device, ", ", time);
    case Layout::kException:
      return StrCat("exception dump, device ", device);
    case Layout::kUnknown:
      break;
  }
  return StrCat("files in ", directory);
}

size_t DumpTree::CountKind(EntryKind kind) const {
  return std::count_if(entries.begin(), entries.end(),
                       [kind](const DumpEntry& e) { return e.kind == kind; });
}

uint64_t DumpTree::DumpBytes() const {
  uint64_t bytes = 0;
  for (const DumpEntry& e : entries) {
    if (e.kind != EntryKind::kOther) bytes += e.bytes;
  }
  return bytes;
}

bool IsLayoutFile(const DumpEntry& entry) {
  return !entry.packed && (entry.file_name == kPackFileName ||
                           entry.file_name == kPackIndexFileName ||
                           entry.file_name == kMergedStatsFileName ||
                           entry.file_name == "mapping.csv");
}

namespace {

// `path`, an iteration folder that is not on disk, as the records of its
// model folder's pack and statistic.csv named "{iteration}/…"; nullopt when
// the model folder has neither.
absl::StatusOr<std::optional<DumpTree>> ScanPackedIterationFolder(
    const std::string& path) {
  // "a/b/3/" names the folder "a/b/3".
  fs::path folder = fs::path(path).lexically_normal();
  if (!folder.has_filename()) folder = folder.parent_path();
  const fs::path model = folder.parent_path();
  const std::string iteration = folder.filename().string();
  std::error_code error;
  if (!AllDigits(iteration) ||
      (!fs::is_regular_file(model / kPackFileName, error) &&
       !fs::is_regular_file(model / kMergedStatsFileName, error))) {
    return std::optional<DumpTree>();
  }
  ASSIGN_OR_RETURN(DumpTree whole, ScanDumpTree(model.string()));
  const std::string prefix = StrCat(iteration, "/");
  std::vector<DumpEntry> entries;
  for (DumpEntry& entry : whole.entries) {
    if (!entry.packed || !entry.relative.starts_with(prefix)) continue;
    entry.relative.erase(0, prefix.size());
    entry.path = (fs::path(path) / entry.relative).string();
    entries.push_back(std::move(entry));
  }
  if (entries.empty()) return std::optional<DumpTree>();
  DumpTree tree = BuildDumpTree(path, std::move(entries));
  tree.problems = std::move(whole.problems);
  return std::optional<DumpTree>(std::move(tree));
}

}  // namespace

absl::StatusOr<DumpTree> ScanDumpTree(const std::string& path) {
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  if (error || !fs::exists(status)) {
    ASSIGN_OR_RETURN(std::optional<DumpTree> packed,
                     ScanPackedIterationFolder(path));
    if (packed) return *std::move(packed);
    return absl::NotFoundError(StrCat("'", path, "' does not exist"));
  }
  DumpTree tree;
  tree.root = path;
  const fs::path absolute_root = fs::absolute(path, error).lexically_normal();
  std::vector<std::pair<fs::path, std::string>> files;  // absolute, relative
  if (fs::is_directory(status)) {
    fs::recursive_directory_iterator it(
        path, fs::directory_options::skip_permission_denied, error);
    if (error) {
      return absl::PermissionDeniedError(
          StrCat("cannot read '", path, "': ", error.message()));
    }
    for (; it != fs::recursive_directory_iterator(); it.increment(error)) {
      if (error) {
        return absl::PermissionDeniedError(
            StrCat("cannot read '", path, "': ", error.message()));
      }
      if (!it->is_regular_file(error)) continue;
      // Named by where the link is, not where it points (and without a
      // realpath() per file).
      const fs::path relative = it->path().lexically_relative(path);
      files.emplace_back(absolute_root / relative, relative.string());
    }
  } else {
    files.emplace_back(absolute_root, "");
  }
  std::map<std::string, Mapping> mappings;  // by absolute directory
  for (const auto& [absolute, relative] : files) {
    DumpEntry entry;
    entry.relative = relative;
    entry.path = relative.empty() ? path : (fs::path(path) / relative).string();
    entry.file_name = absolute.filename().string();
    entry.bytes = fs::file_size(absolute, error);
    if (error) entry.bytes = 0;
    const fs::path directory = absolute.parent_path();
    auto mapping = mappings.find(directory.string());
    if (mapping == mappings.end()) {
      mapping =
          mappings.emplace(directory.string(), ReadMapping(directory)).first;
    }
    // Every file is placed by its folder, dump file or not (a converted
    // tree's .npy files sit in the same layout); exception folders name their
    // files their own way.
    PlaceInLayout(directory, entry);
    Classify(entry, mapping->second);
    if (entry.file_name == kPackFileName ||
        entry.file_name == kMergedStatsFileName) {
      AddPackedEntries(entry, absolute, mapping->second, tree);
    }
    tree.entries.push_back(std::move(entry));
  }
  // A model folder too long for the file system has a hashed name that its
  // device folder's mapping.csv resolves.
  for (DumpEntry& entry : tree.entries) {
    if (entry.layout != Layout::kModel || !AllDigits(entry.model)) continue;
    const fs::path device = fs::absolute(entry.path, error)
                                .lexically_normal()
                                .parent_path()
                                .parent_path()
                                .parent_path()
                                .parent_path();
    auto parent = mappings.find(device.string());
    if (parent == mappings.end()) {
      parent = mappings.emplace(device.string(), ReadMapping(device)).first;
    }
    if (auto it = parent->second.find(entry.model);
        it != parent->second.end()) {
      entry.model = it->second;
    }
  }
  DumpTree built = BuildDumpTree(std::move(tree.root), std::move(tree.entries));
  built.problems = std::move(tree.problems);
  return built;
}

DumpTree BuildDumpTree(std::string root, std::vector<DumpEntry> entries) {
  DumpTree tree;
  tree.root = std::move(root);
  tree.entries = std::move(entries);
  std::sort(tree.entries.begin(), tree.entries.end(),
            [](const DumpEntry& a, const DumpEntry& b) {
              return a.relative < b.relative;
            });

  std::vector<const DumpEntry*> dumps;
  for (const DumpEntry& e : tree.entries) {
    if (e.kind != EntryKind::kOther) dumps.push_back(&e);
  }
  std::stable_sort(dumps.begin(), dumps.end(),
                   [](const DumpEntry* a, const DumpEntry* b) {
                     const auto ka = RunKey(*a), kb = RunKey(*b);
                     if (ka != kb) return ka < kb;
                     return ParentOf(a->path) < ParentOf(b->path);
                   });
  for (const DumpEntry* e : dumps) {
    const std::string directory = ParentOf(e->path);
    if (tree.runs.empty() || RunKey(*e) != RunKey(*tree.runs.back().files[0]) ||
        directory != tree.runs.back().directory) {
      DumpRun run;
      run.layout = e->layout;
      run.directory = directory;
      run.time = e->time;
      run.device = e->device;
      run.model = e->model;
      run.model_id = e->model_id;
      run.iteration = e->iteration;
      tree.runs.push_back(std::move(run));
    }
    tree.runs.back().files.push_back(e);
    tree.runs.back().bytes += e->bytes;
  }
  for (DumpRun& run : tree.runs) {
    std::sort(run.files.begin(), run.files.end(), ExecutionOrder);
  }
  return tree;
}

}  // namespace acldump::dump
