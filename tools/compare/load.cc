// Reading each side of a comparison: a dump tree's folders, or folders of
// reference arrays, with the filters applied.
#include <algorithm>
#include <atomic>
#include <map>
#include <set>
#include <thread>
#include <tuple>

#include "base/status_macros.h"
#include "base/strings.h"
#include "base/text.h"
#include "dump/format/dump_file.h"
#include "dump/format/dump_names.h"
#include "dump/format/dump_tree.h"
#include "dump/format/merged_stats.h"
#include "dump/format/stats_csv.h"
#include "tools/common/cli_util.h"
#include "tools/compare/compare.h"
#include "tools/compare/internal.h"

namespace acldump::tools {
namespace {

std::vector<std::string> SplitCommas(const std::string& text) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= text.size() && !text.empty()) {
    size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    if (end > start) parts.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.substr(s.size() - suffix.size()) == suffix;
}

absl::StatusOr<OpRecord> RecordOfDumpFile(const dump::DumpEntry& entry) {
  ASSIGN_OR_RETURN(dump::DumpFileContents contents,
                   dump::ReadDumpFileHeader(entry.path));
  const auto& h = contents.header;
  OpRecord op;
  op.name = h.op_name().empty() ? entry.name->op_name : h.op_name();
  op.type = entry.name->op_type;
  for (const auto& attr : h.attr()) {
    if (attr.name() == "op_type") op.type = attr.value();
    if (attr.name() == "original_names") {
      op.original_names = SplitCommas(attr.value());
    }
  }
  for (int i = 0; i < h.input_size(); ++i) {
    op.inputs.push_back({true, static_cast<uint32_t>(i), "", 0});
  }
  for (int i = 0; i < h.output_size(); ++i) {
    TensorRef ref{false, static_cast<uint32_t>(i), "",
                  static_cast<uint32_t>(i)};
    if (h.output(i).has_original_op() &&
        !h.output(i).original_op().name().empty()) {
      ref.original_op = h.output(i).original_op().name();
      ref.original_index = h.output(i).original_op().output_index();
    } else if (!op.original_names.empty()) {
      ref.original_op = op.original_names.back();
    }
    op.outputs.push_back(std::move(ref));
  }
  op.task_id = entry.name->task_id;
  op.timestamp_us = entry.name->timestamp_us;
  op.path = entry.path;
  return op;
}

// A stats dump: the operator from its name, its tensors' statistics from its
// rows.
absl::StatusOr<OpRecord> RecordOfStatsFile(const dump::DumpEntry& entry) {
  ASSIGN_OR_RETURN(
      std::string text,
      dump::ReadDumpTreeFile(entry.path, dump::kMaxStatsCsvBytes, "stats CSV"));
  absl::StatusOr<std::vector<compare_internal::StatsCsvTensor>> tensors =
      compare_internal::ReadStatsCsvTensors(text);
  if (!tensors.ok()) {
    return absl::InvalidArgumentError(
        StrCat(entry.path, ": ", ToStd(tensors.status().message())));
  }
  OpRecord op;
  op.name = entry.name->op_name;
  op.type = entry.name->op_type;
  for (compare_internal::StatsCsvTensor& t : *tensors) {
    auto& refs = t.is_input ? op.inputs : op.outputs;
    auto& stats = t.is_input ? op.input_stats : op.output_stats;
    if (t.index >= refs.size()) {
      for (uint32_t p = static_cast<uint32_t>(refs.size()); p <= t.index; ++p) {
        refs.push_back({t.is_input, p, "", p});
      }
      stats.resize(t.index + 1);
    }
    stats[t.index] = std::move(t.stats);
  }
  op.task_id = entry.name->task_id;
  op.timestamp_us = entry.name->timestamp_us;
  op.path = entry.path;
  return op;
}

absl::StatusOr<OpRecord> RecordOfFile(const dump::DumpEntry& entry) {
  return entry.kind == dump::EntryKind::kStats ? RecordOfStatsFile(entry)
                                               : RecordOfDumpFile(entry);
}

// The records of many dump files' headers, in order. Reading a header is
// mostly waiting on the file system, so several threads read at once (a
// network file system answers them in parallel).
std::vector<absl::StatusOr<OpRecord>> ReadRecords(
    const std::vector<const dump::DumpEntry*>& entries) {
  std::vector<absl::StatusOr<OpRecord>> records(entries.size(),
                                                absl::UnknownError("not read"));
  std::atomic<size_t> next{0}, done{0};
  auto read = [&] {
    for (size_t i; (i = next.fetch_add(1)) < entries.size();) {
      records[i] = RecordOfFile(*entries[i]);
      done.fetch_add(1);
    }
  };
  Progress progress("reading headers", entries.size());
  {
    const size_t helpers = std::min<size_t>(
        std::clamp(std::thread::hardware_concurrency(), 1u, 8u) - 1,
        entries.size() / 64);
    std::vector<std::jthread> pool;
    for (size_t t = 0; t < helpers; ++t) pool.emplace_back(read);
    // This thread reads too, and draws the progress.
    for (size_t i; (i = next.fetch_add(1)) < entries.size();) {
      records[i] = RecordOfFile(*entries[i]);
      progress.Update(done.fetch_add(1) + 1);
    }
  }
  progress.Finish();
  return records;
}

void PlaceSide(const dump::DumpRun& run, CompareSide& side) {
  side.layout = run.layout;
  side.directory = run.directory;
  side.time = run.time;
  side.device = run.device;
  side.model = run.model;
  side.model_id = run.model_id;
  side.iteration = run.iteration;
}

// (device, model, model rank, iteration): what pairs folders across sides.
using compare_internal::FolderKey;
using compare_internal::KeyOf;

// Gives each folder the rank of its model id among the ids of its model in
// its time folder and device.
void RankModelIds(std::vector<CompareSide>& folders) {
  std::map<std::tuple<std::string, int64_t, std::string>, std::set<int64_t>>
      ids;
  for (const CompareSide& f : folders) {
    ids[{f.time, f.device, f.model}].insert(f.model_id);
  }
  for (CompareSide& f : folders) {
    const auto& set = ids[{f.time, f.device, f.model}];
    f.model_rank = std::distance(set.begin(), set.find(f.model_id));
  }
}

// Keeps the latest time folder of each folder key; notes what it left out.
void KeepLatest(CompareTree& tree) {
  std::map<FolderKey, size_t> latest;
  for (size_t i = 0; i < tree.folders.size(); ++i) {
    const FolderKey key = KeyOf(tree.folders[i], true);
    auto [it, added] = latest.emplace(key, i);
    if (!added && dump::TimeFolderBefore(tree.folders[it->second].time,
                                         tree.folders[i].time)) {
      it->second = i;
    }
  }
  if (latest.size() == tree.folders.size()) return;
  std::set<std::string> older;
  std::vector<CompareSide> kept;
  std::string newest;
  for (size_t i = 0; i < tree.folders.size(); ++i) {
    if (latest[KeyOf(tree.folders[i], true)] == i) {
      newest = std::max(newest, tree.folders[i].time);
      kept.push_back(std::move(tree.folders[i]));
    } else {
      older.insert(tree.folders[i].time);
    }
  }
  tree.notes.push_back(
      StrCat("'", tree.root,
             "' holds the same folders in several time folders; "
             "the latest of each is compared, not those in ",
             StrJoin(older, ", "),
             " (give a time folder as the path to compare another run)"));
  tree.folders = std::move(kept);
}

// The folders of a tree's `kind` files (tensor dumps, or stats dumps).
absl::StatusOr<CompareTree> LoadDumpTree(const dump::DumpTree& tree,
                                         const CompareLoadOptions& options,
                                         dump::EntryKind kind) {
  CompareTree side;
  side.kind =
      kind == dump::EntryKind::kStats ? SideKind::kStats : SideKind::kDump;
  side.root = tree.root;
  std::set<std::string> models;
  size_t runs_with_tensors = 0, runs_in_iterations = 0;
  std::vector<const dump::DumpRun*> runs;
  for (const dump::DumpRun& run : tree.runs) {
    const bool has_tensors =
        std::any_of(run.files.begin(), run.files.end(),
                    [&](const dump::DumpEntry* e) { return e->kind == kind; });
    if (!has_tensors) continue;
    ++runs_with_tensors;
    models.insert(run.model);
    if (!options.filter.MatchesIteration(run.iteration)) continue;
    ++runs_in_iterations;
    if (!options.model.empty() && run.model != options.model) continue;
    runs.push_back(&run);
  }
  if (runs.empty()) {
    if (runs_in_iterations == 0 && runs_with_tensors > 0) {
      return absl::NotFoundError(ExplainEmptyFilter(tree, options.filter));
    }
    return absl::NotFoundError(
        StrCat("no folder of '", tree.root, "' holds model '", options.model,
               "' (models present: ", StrJoin(models, ", "), ")"));
  }
  std::vector<const dump::DumpEntry*> tensors;
  for (const dump::DumpRun* run : runs) {
    for (const dump::DumpEntry* entry : run->files) {
      if (entry->kind == kind) tensors.push_back(entry);
    }
  }
  std::vector<absl::StatusOr<OpRecord>> records = ReadRecords(tensors);
  size_t next = 0;
  for (const dump::DumpRun* run : runs) {
    CompareSide folder;
    folder.kind = side.kind;
    folder.root = tree.root;
    PlaceSide(*run, folder);
    folder.description = StrCat(run->Describe(), " in ", run->directory);
    for (const dump::DumpEntry* entry : run->files) {
      if (entry->kind != kind) continue;
      ASSIGN_OR_RETURN(OpRecord op, std::move(records[next++]));
      if (!options.filter.MatchesType(op.type) ||
          !options.filter.MatchesName(op.name, op.original_names)) {
        ++side.ops_filtered_out;
        continue;
      }
      folder.ops.push_back(std::move(op));
    }
    side.folders.push_back(std::move(folder));
  }
  size_t ops = 0;
  for (const CompareSide& f : side.folders) ops += f.ops.size();
  if (ops == 0) {
    // Which filter removed everything, with the nearest type for a typo.
    return absl::NotFoundError(StrCat(ExplainEmptyFilter(tree, options.filter),
                                      " (", side.ops_filtered_out,
                                      " operators filtered out)"));
  }
  RankModelIds(side.folders);
  KeepLatest(side);
  return side;
}

// Adds one reference array to `folder` (ops keyed by name in `by_key`).
void AddReference(const std::string& key_prefix, std::string_view stem,
                  ArraySource source, CompareSide& folder,
                  std::map<std::string, size_t>& by_key) {
  const TensorFileName parsed = ParseTensorFileName(stem);
  // A dump file name as the op ("F.output.0" of `dump convert`).
  const std::optional<dump::DumpFileNameParts> converted =
      parsed.explicit_tensor ? dump::ParseDumpFileName(parsed.op)
                             : std::nullopt;
  const std::string op_name = converted ? converted->op_name : parsed.op;
  // Executions of one op (timestamps) are separate records.
  const std::string key =
      StrCat(key_prefix, parsed.op, "#",
             parsed.timestamp ? StrCat(*parsed.timestamp) : std::string());
  auto [it, added] = by_key.emplace(key, folder.ops.size());
  if (added) {
    OpRecord op;
    op.name = op_name;
    op.type = converted ? converted->op_type : "";
    op.task_id = converted ? converted->task_id : 0;
    op.timestamp_us =
        converted ? converted->timestamp_us : parsed.timestamp.value_or(0);
    op.path = StrCat(key_prefix, parsed.op);
    folder.ops.push_back(std::move(op));
  }
  OpRecord& op = folder.ops[it->second];
  auto& refs = parsed.is_input ? op.inputs : op.outputs;
  auto& sources = parsed.is_input ? op.input_files : op.output_files;
  const uint32_t position = parsed.position;
  if (refs.size() <= position) {
    for (uint32_t p = static_cast<uint32_t>(refs.size()); p <= position; ++p) {
      refs.push_back({parsed.is_input, p, parsed.is_input ? "" : op.name, p});
    }
    sources.resize(position + 1);
  }
  sources[position] = std::move(source);
}

// The references of a tree: folders in the layout (a converted tree) by
// directory; everything else is one flat folder.
struct ReferenceFolders {
  std::map<std::string, CompareSide> placed;
  std::map<std::string, std::map<std::string, size_t>> keys;
  CompareSide flat;
  size_t arrays = 0;
};

// folder_path keeps its trailing '/'.
void DescribeLayoutFolder(const dump::DumpEntry& e,
                          const std::string& folder_path,
                          const std::string& root, CompareSide& folder) {
  folder.kind = SideKind::kReference;
  folder.root = root;
  folder.layout = e.layout;
  folder.directory = folder_path.substr(0, folder_path.size() - 1);
  folder.time = e.time;
  folder.device = e.device;
  folder.model = e.model;
  folder.model_id = e.model_id;
  folder.iteration = e.iteration;
}

// Adds the arrays of one .npy or .npz file; other files are not references.
absl::Status AddReferenceFile(const dump::DumpEntry& e,
                              const CompareLoadOptions& options,
                              const std::string& root,
                              ReferenceFolders& found) {
  const bool npy = EndsWith(e.file_name, ".npy");
  const bool npz = EndsWith(e.file_name, ".npz");
  if (!npy && !npz) return absl::OkStatus();
  const std::string folder_path =
      e.path.substr(0, e.path.size() - e.file_name.size());  // keeps '/'
  const bool in_layout = e.layout == dump::Layout::kModel;
  if (in_layout && !options.filter.MatchesIteration(e.iteration)) {
    return absl::OkStatus();
  }
  if (in_layout && !options.model.empty() && e.model != options.model) {
    return absl::OkStatus();
  }
  CompareSide* folder = &found.flat;
  std::map<std::string, size_t>* by_key = &found.keys[""];
  if (in_layout) {
    auto [it, added] = found.placed.try_emplace(folder_path);
    folder = &it->second;
    if (added) DescribeLayoutFolder(e, folder_path, root, *folder);
    by_key = &found.keys[folder_path];
  }
  // Keys carry the folder, so equal names in different flat folders stay
  // apart.
  const std::string prefix = in_layout ? "" : folder_path;
  if (npy) {
    ++found.arrays;
    AddReference(prefix, e.file_name.substr(0, e.file_name.size() - 4),
                 ArraySource{e.path, std::nullopt}, *folder, *by_key);
    return absl::OkStatus();
  }
  ASSIGN_OR_RETURN(std::vector<NpzMember> members, ListNpz(e.path));
  for (NpzMember& member : members) {
    ++found.arrays;
    const std::string name = member.name;
    AddReference(prefix, name, ArraySource{e.path, std::move(member)}, *folder,
                 *by_key);
  }
  return absl::OkStatus();
}

// Filters and orders the ops of a folder and describes it; returns how many
// ops the filter dropped.
size_t FinishReferenceFolder(CompareSide& folder, const DumpFilter& filter,
                             size_t arrays, const std::string& root) {
  size_t filtered_out = 0;
  std::vector<OpRecord> kept;
  for (OpRecord& op : folder.ops) {
    if (filter.MatchesName(op.name) && filter.MatchesType(op.type)) {
      kept.push_back(std::move(op));
    } else {
      ++filtered_out;
    }
  }
  folder.ops = std::move(kept);
  std::stable_sort(folder.ops.begin(), folder.ops.end(),
                   [](const OpRecord& a, const OpRecord& b) {
                     return std::tie(a.task_id, a.timestamp_us, a.name) <
                            std::tie(b.task_id, b.timestamp_us, b.name);
                   });
  if (folder.layout == dump::Layout::kModel) {
    folder.description = StrCat(
        folder.model, " (id ", folder.model_id, ") iteration ",
        folder.iteration, ", device ", folder.device, ", ", folder.time, " in ",
        folder.directory, " (", folder.ops.size(), " operators of .npy files)");
  } else {
    folder.description = StrCat(arrays, " reference arrays in ", root);
  }
  return filtered_out;
}

absl::StatusOr<CompareTree> LoadReferenceTree(
    const dump::DumpTree& tree, const CompareLoadOptions& options) {
  CompareTree side;
  side.kind = SideKind::kReference;
  side.root = tree.root;
  ReferenceFolders found;
  found.flat.kind = SideKind::kReference;
  found.flat.root = tree.root;
  found.flat.directory = tree.root;
  for (const dump::DumpEntry& e : tree.entries) {
    absl::Status added = AddReferenceFile(e, options, tree.root, found);
    if (!added.ok()) return added;
  }
  auto finish = [&](CompareSide& folder) {
    side.ops_filtered_out +=
        FinishReferenceFolder(folder, options.filter, found.arrays, tree.root);
    if (!folder.ops.empty()) side.folders.push_back(std::move(folder));
  };
  if (!found.flat.ops.empty()) finish(found.flat);
  for (auto& [path, folder] : found.placed) finish(folder);
  if (side.folders.empty()) {
    if (found.arrays > 0) {
      return absl::NotFoundError(StrCat("no reference array of '", tree.root,
                                        "' passes ",
                                        options.filter.Describe()));
    }
    return absl::NotFoundError(
        StrCat("no tensor dump files and no .npy or "
               ".npz files under '",
               tree.root, "'"));
  }
  RankModelIds(side.folders);
  return side;
}

}  // namespace

absl::StatusOr<CompareTree> LoadCompareTree(const std::string& path,
                                            const CompareLoadOptions& options) {
  ASSIGN_OR_RETURN(dump::DumpTree tree, dump::ScanDumpTree(path));
  // Tensors when the tree has any (a tree with both compares its tensors).
  for (dump::EntryKind kind :
       {dump::EntryKind::kTensor, dump::EntryKind::kStats}) {
    if (tree.CountKind(kind) == 0) continue;
    ASSIGN_OR_RETURN(CompareTree loaded, LoadDumpTree(tree, options, kind));
    // What the scan skipped (a record named outside its folder, a torn
    // pack) is said with the folders left out.
    for (const std::string& problem : tree.problems) {
      loaded.notes.push_back(StrCat("skipped: ", problem));
    }
    return loaded;
  }
  return LoadReferenceTree(tree, options);
}

}  // namespace acldump::tools
