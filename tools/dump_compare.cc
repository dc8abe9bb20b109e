#include "tools/dump_compare.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <thread>
#include <tuple>

#include "base/status_macros.h"
#include "base/strings.h"
#include "base/text.h"
#include "dump/format/data_type.h"
#include "dump/format/dump_file.h"
#include "dump/format/dump_names.h"
#include "dump/format/dump_tree.h"
#include "kernels/dtype.h"
#include "tools/cli_util.h"

namespace acldump::tools {
namespace {

constexpr size_t kWorstElements = 5;
constexpr size_t kDetailedTensors = 20;  // per folder pair
constexpr size_t kSampleSize = 2000;
constexpr size_t kHistogramBins = 40;

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
      records[i] = RecordOfDumpFile(*entries[i]);
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
      records[i] = RecordOfDumpFile(*entries[i]);
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
using FolderKey = std::tuple<int64_t, std::string, int64_t, int64_t>;
FolderKey KeyOf(const CompareSide& s, bool with_device) {
  return {with_device ? s.device : -1, s.model, s.model_rank, s.iteration};
}

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

absl::StatusOr<CompareTree> LoadDumpTree(const dump::DumpTree& tree,
                                         const CompareLoadOptions& options) {
  CompareTree side;
  side.kind = SideKind::kDump;
  side.root = tree.root;
  std::set<std::string> models;
  size_t runs_with_tensors = 0, runs_in_iterations = 0;
  std::vector<const dump::DumpRun*> runs;
  for (const dump::DumpRun& run : tree.runs) {
    const bool has_tensors = std::any_of(
        run.files.begin(), run.files.end(), [](const dump::DumpEntry* e) {
          return e->kind == dump::EntryKind::kTensor;
        });
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
      if (entry->kind == dump::EntryKind::kTensor) tensors.push_back(entry);
    }
  }
  std::vector<absl::StatusOr<OpRecord>> records = ReadRecords(tensors);
  size_t next = 0;
  for (const dump::DumpRun* run : runs) {
    CompareSide folder;
    folder.kind = SideKind::kDump;
    folder.root = tree.root;
    PlaceSide(*run, folder);
    folder.description = StrCat(run->Describe(), " in ", run->directory);
    for (const dump::DumpEntry* entry : run->files) {
      if (entry->kind != dump::EntryKind::kTensor) continue;
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

struct LoadedTensor {
  std::vector<double> values;
  std::vector<int64_t> shape;
  std::string dtype;
  std::string error;
};

LoadedTensor FromTensor(absl::StatusOr<Tensor> tensor) {
  LoadedTensor out;
  if (!tensor.ok()) {
    out.error = std::string(ToStd(tensor.status().message()));
    return out;
  }
  out.values = ToDoubles(tensor->view());
  out.shape = tensor->shape().dims();
  out.dtype = std::string(DTypeName(tensor->dtype()));
  return out;
}

// Reads the tensors of one side's operators, keeping the current files.
class TensorLoader {
 public:
  explicit TensorLoader(const CompareSide& side) : side_(side) {}
  void Clear() { files_.clear(); }

  LoadedTensor Load(const OpRecord& op, bool is_input, uint32_t position) {
    if (side_.kind == SideKind::kReference) {
      const auto& sources = is_input ? op.input_files : op.output_files;
      if (position >= sources.size() || sources[position].empty()) {
        LoadedTensor out;
        out.error = "no such tensor";
        return out;
      }
      const ArraySource& source = sources[position];
      return FromTensor(source.member
                            ? ReadNpzMember(source.path, *source.member)
                            : ReadArrayFile(source.path));
    }
    LoadedTensor out;
    auto it = files_.find(op.path);
    if (it == files_.end()) {
      it = files_.emplace(op.path, dump::ReadDumpFile(op.path)).first;
    }
    if (!it->second.ok()) {
      out.error = std::string(ToStd(it->second.status().message()));
      return out;
    }
    const dump::DumpFileContents& contents = *it->second;
    const auto& h = contents.header;
    const int count = is_input ? h.input_size() : h.output_size();
    if (count < 0 || position >= static_cast<uint32_t>(count)) {
      out.error = "no such tensor";
      return out;
    }
    const int32_t data_type = is_input ? h.input(position).data_type()
                                       : h.output(position).data_type();
    const auto& shape =
        is_input ? h.input(position).shape() : h.output(position).shape();
    const std::string& bytes =
        is_input ? contents.inputs[position] : contents.outputs[position];
    const std::optional<DType> dtype = FromDumpDataType(data_type);
    for (uint64_t d : shape.dim()) out.shape.push_back(static_cast<int64_t>(d));
    LoadedTensor loaded =
        FromTensor(dump::PayloadToTensor(data_type, shape, bytes));
    loaded.shape = out.shape;
    loaded.dtype =
        std::string(dtype ? DTypeName(*dtype) : DumpDataTypeName(data_type));
    return loaded;
  }

 private:
  const CompareSide& side_;
  std::map<std::string, absl::StatusOr<dump::DumpFileContents>> files_;
};

std::vector<int64_t> Unravel(uint64_t flat, const std::vector<int64_t>& shape) {
  std::vector<int64_t> index(shape.size(), 0);
  for (size_t d = shape.size(); d-- > 0;) {
    if (shape[d] <= 0) continue;
    index[d] = static_cast<int64_t>(flat % static_cast<uint64_t>(shape[d]));
    flat /= static_cast<uint64_t>(shape[d]);
  }
  return index;
}

bool SameNonFinite(double x, double y) {
  if (std::isnan(x) || std::isnan(y)) return std::isnan(x) && std::isnan(y);
  return std::isinf(x) && x == y;
}

// An element outside the tolerance; how far past it decides its rank.
struct Candidate {
  double excess;
  uint64_t flat;
};

// Furthest past the tolerance first; ties go to the lower index so the
// listing is stable.
bool RanksBefore(const Candidate& x, const Candidate& y) {
  return x.excess > y.excess || (x.excess == y.excess && x.flat < y.flat);
}

// The nonzero finite differences, whose range sets the histogram's bins.
struct DiffRange {
  double min_diff = std::numeric_limits<double>::infinity();
  double max_diff = 0;
  uint64_t nonzero = 0;
};

// The kWorstElements elements furthest past the tolerance, ranked.
std::vector<Candidate> FindWorst(const std::vector<double>& a,
                                 const std::vector<double>& b,
                                 const CompareOptions& options,
                                 DiffRange& range) {
  std::vector<Candidate> worst;
  for (size_t i = 0; i < a.size(); ++i) {
    double excess;
    if (std::isfinite(a[i]) && std::isfinite(b[i])) {
      const double diff = std::fabs(a[i] - b[i]);
      if (diff > 0) {
        ++range.nonzero;
        range.min_diff = std::min(range.min_diff, diff);
        range.max_diff = std::max(range.max_diff, diff);
      }
      excess = diff - (options.atol + options.rtol * std::fabs(b[i]));
      if (excess <= 0) continue;
    } else if (SameNonFinite(a[i], b[i])) {
      continue;
    } else {
      excess = std::numeric_limits<double>::infinity();
    }
    const Candidate candidate{excess, i};
    if (worst.size() < kWorstElements) {
      worst.push_back(candidate);
      std::sort(worst.begin(), worst.end(), RanksBefore);
    } else if (RanksBefore(candidate, worst.back())) {
      worst.back() = candidate;
      std::sort(worst.begin(), worst.end(), RanksBefore);
    }
  }
  return worst;
}

ElementDiff DescribeElement(uint64_t flat, const std::vector<double>& a,
                            const std::vector<double>& b,
                            const std::vector<int64_t>& shape) {
  ElementDiff e;
  e.flat = flat;
  e.index = Unravel(flat, shape);
  e.a = a[flat];
  e.b = b[flat];
  e.abs_diff = std::isfinite(e.a) && std::isfinite(e.b)
                   ? std::fabs(e.a - e.b)
                   : std::numeric_limits<double>::infinity();
  return e;
}

// The histogram of differences on log-spaced bins, and a strided sample of
// (reference, value) pairs with the worst elements added so they show.
ErrorDetail BuildDetail(const std::vector<double>& a,
                        const std::vector<double>& b, const DiffRange& range,
                        const std::vector<ElementDiff>& worst) {
  ErrorDetail detail;
  if (range.nonzero > 0) {
    detail.bin_low = std::floor(std::log10(range.min_diff));
    detail.bin_high =
        std::max(std::ceil(std::log10(range.max_diff)), detail.bin_low + 1);
  }
  detail.bins.assign(kHistogramBins, 0);
  const double width = (detail.bin_high - detail.bin_low) / kHistogramBins;
  const size_t stride =
      std::max<size_t>(1, (a.size() + kSampleSize - 1) / kSampleSize);
  for (size_t i = 0; i < a.size(); ++i) {
    if (!(std::isfinite(a[i]) && std::isfinite(b[i]))) {
      if (!SameNonFinite(a[i], b[i])) ++detail.nonfinite;
      continue;
    }
    const double diff = std::fabs(a[i] - b[i]);
    if (diff == 0) {
      ++detail.zero;
    } else {
      const double position = (std::log10(diff) - detail.bin_low) / width;
      const size_t bin = std::min<size_t>(
          kHistogramBins - 1, static_cast<size_t>(std::max(0.0, position)));
      ++detail.bins[bin];
    }
    if (i % stride == 0) detail.sample.emplace_back(b[i], a[i]);
  }
  for (const ElementDiff& e : worst) {
    if (std::isfinite(e.a) && std::isfinite(e.b)) {
      detail.sample.emplace_back(e.b, e.a);
    }
  }
  return detail;
}

// The worst elements outside the tolerance (by how far past it, then by
// index) and, when asked, the histogram and sample the report plots.
void Examine(const std::vector<double>& a, const std::vector<double>& b,
             const std::vector<int64_t>& shape, const CompareOptions& options,
             bool detailed, TensorComparison& c) {
  DiffRange range;
  for (const Candidate& w : FindWorst(a, b, options, range)) {
    c.worst.push_back(DescribeElement(w.flat, a, b, shape));
  }
  if (!detailed) return;
  c.detail = BuildDetail(a, b, range, c.worst);
}
TensorComparison Compare(const LoadedTensor& a, const LoadedTensor& b,
                         const CompareOptions& options, bool* detail_budget) {
  TensorComparison c;
  c.shape_a = a.shape;
  c.shape_b = b.shape;
  c.dtype_a = a.dtype;
  c.dtype_b = b.dtype;
  if (!a.error.empty()) {
    c.problem = StrCat("A: ", a.error);
  } else if (!b.error.empty()) {
    c.problem = StrCat("B: ", b.error);
  } else if (a.shape != b.shape) {
    c.problem = StrCat("shapes differ: ", ShapeText(a.shape), " vs ",
                       ShapeText(b.shape));
  } else {
    c.metrics = ComputeMetrics(a.values, b.values);
    c.tolerance =
        CheckTolerance(a.values, b.values, options.atol, options.rtol);
    if (!c.tolerance.within) {
      Examine(a.values, b.values, a.shape, options, *detail_budget, c);
    }
  }
  return c;
}

Verdict VerdictOf(const std::vector<TensorComparison>& tensors, bool inputs) {
  Verdict verdict = Verdict::kNotCompared;
  for (const TensorComparison& t : tensors) {
    if (t.is_input != inputs) continue;
    if (!t.within()) return Verdict::kOutside;
    verdict = Verdict::kWithin;
  }
  return verdict;
}

std::string IndexText(const std::vector<int64_t>& index) {
  return StrCat("[", StrJoin(index, ","), "]");
}

std::string DescribeOutputs(const OpComparison& op) {
  for (const TensorComparison& t : op.tensors) {
    if (t.is_input || t.within()) continue;
    if (!t.problem.empty()) {
      return StrCat("output ", t.position, ": ", t.problem);
    }
    std::string text =
        StrCat("output ", t.position, " is not (max |a-b| ",
               FormatNumber(t.metrics.max_abs), ", ", t.tolerance.violations,
               " of ", t.metrics.count, " elements outside");
    if (!t.worst.empty()) {
      const ElementDiff& w = t.worst.front();
      StrAppend(text, ", worst at ", IndexText(w.index), ": a ",
                FormatNumber(w.a), ", b ", FormatNumber(w.b));
    }
    return text + ")";
  }
  return "";
}

std::string OpIdentity(const OpRecord& op) {
  return op.type.empty()
             ? StrCat(op.name, " (task ", op.task_id, ")")
             : StrCat(op.name, " (", op.type, ", task ", op.task_id, ")");
}

// Why the op is named, in the words the basis allows, ending where the
// description of its outputs follows.
std::string DivergenceReason(const CompareResult& result,
                             const OpComparison& op, DivergenceBasis basis,
                             const std::vector<size_t>& not_compared) {
  switch (basis) {
    case DivergenceBasis::kInputsWithin:
      return StrCat(OpIdentity(*op.a),
                    ": its inputs are within the tolerance, ");
    case DivergenceBasis::kEarlierWithin:
      return StrCat(OpIdentity(*op.a),
                    ": its inputs were not compared, but every earlier "
                    "operator's outputs are within the tolerance; ");
    case DivergenceBasis::kEarlierNotCompared: {
      std::vector<std::string> names;
      for (size_t k = 0; k < not_compared.size() && k < 5; ++k) {
        const OpRecord& earlier = *result.ops[not_compared[k]].a;
        names.push_back(earlier.type.empty()
                            ? earlier.name
                            : StrCat(earlier.name, " (", earlier.type, ")"));
      }
      if (not_compared.size() > 5) names.push_back("...");
      return StrCat(OpIdentity(*op.a),
                    " is the first operator outside the tolerance, but "
                    "its inputs were not compared and ",
                    Plural(not_compared.size(), "earlier operator"),
                    not_compared.size() == 1 ? " was" : " were",
                    " not compared (", StrJoin(names, ", "),
                    "), so the divergence may start there; ");
    }
  }
  return "";
}

void NameDivergenceAt(CompareResult& result, size_t i, DivergenceBasis basis,
                      const std::vector<size_t>& not_compared) {
  const OpComparison& op = result.ops[i];
  result.first_divergence = i;
  result.basis = basis;
  if (basis == DivergenceBasis::kEarlierNotCompared) {
    result.earlier_not_compared = not_compared;
  }
  result.divergence_note = StrCat(
      DivergenceReason(result, op, basis, not_compared), DescribeOutputs(op));
  if (op.a->type == "Data") {
    StrAppend(result.divergence_note,
              "; this is a graph input: the two sides ran on different "
              "inputs (give both the same one, e.g. `dump run --input`)");
  }
}

// Why no op could be named; upstream is the first outside op whose inputs
// differ, if any.
void ExplainNoDivergence(CompareResult& result,
                         std::optional<size_t> upstream) {
  if (upstream) {
    const OpComparison& op = result.ops[*upstream];
    result.divergence_note = StrCat(
        "none could be named: the first operator with outputs outside "
        "the tolerance, ",
        OpIdentity(*op.a),
        ", has inputs outside it too, so the divergence starts upstream in "
        "an operator missing from the dump (dump with dump_mode all and no "
        "layer list)");
  } else if (result.tensors_compared == 0) {
    result.divergence_note = "none: no tensor of A has a counterpart in B";
  } else if (result.tensors_outside > 0) {
    // Only inputs differ (dump_mode input): their producer diverged.
    for (const OpComparison& op : result.ops) {
      if (op.inputs != Verdict::kOutside) continue;
      result.divergence_note = StrCat(
          "none could be named from outputs: the first tensor outside the "
          "tolerance is an input of ",
          OpIdentity(*op.a),
          ", so its producer diverges; dump outputs too (dump_mode all) to "
          "name it");
      break;
    }
  } else {
    result.divergence_note =
        "none: every compared tensor is within the tolerance";
    if (result.ops_not_compared > 0) {
      StrAppend(result.divergence_note, " (",
                Plural(result.ops_not_compared, "operator"),
                " of A not compared)");
    }
  }
}

void NameDivergence(CompareResult& result) {
  bool earlier_outside = false;
  std::vector<size_t> not_compared;
  std::optional<size_t> upstream;  // first outside op whose inputs differ
  for (size_t i = 0; i < result.ops.size(); ++i) {
    const OpComparison& op = result.ops[i];
    if (op.outputs == Verdict::kNotCompared) {
      not_compared.push_back(i);
      continue;
    }
    if (op.outputs != Verdict::kOutside) continue;
    if (op.inputs == Verdict::kWithin) {
      NameDivergenceAt(result, i, DivergenceBasis::kInputsWithin, not_compared);
      return;
    }
    if (op.inputs == Verdict::kNotCompared && !earlier_outside) {
      NameDivergenceAt(result, i,
                       not_compared.empty()
                           ? DivergenceBasis::kEarlierWithin
                           : DivergenceBasis::kEarlierNotCompared,
                       not_compared);
      return;
    }
    if (!upstream) upstream = i;
    earlier_outside = true;
  }
  ExplainNoDivergence(result, upstream);
}

}  // namespace

absl::StatusOr<CompareTree> LoadCompareTree(const std::string& path,
                                            const CompareLoadOptions& options) {
  ASSIGN_OR_RETURN(dump::DumpTree tree, dump::ScanDumpTree(path));
  if (tree.CountKind(dump::EntryKind::kTensor) > 0) {
    ASSIGN_OR_RETURN(CompareTree loaded, LoadDumpTree(tree, options));
    // What the scan skipped (a record named outside its folder, a torn
    // pack) is said with the folders left out.
    for (const std::string& problem : tree.problems) {
      loaded.notes.push_back(StrCat("skipped: ", problem));
    }
    return loaded;
  }
  if (tree.CountKind(dump::EntryKind::kStats) > 0) {
    return absl::InvalidArgumentError(StrCat(
        "'", path,
        "' holds stats dumps only (dump_data: stats); compare needs tensor "
        "dumps"));
  }
  return LoadReferenceTree(tree, options);
}

std::string_view MatchKindName(MatchKind kind) {
  switch (kind) {
    case MatchKind::kNone:
      return "-";
    case MatchKind::kConvertedName:
      return "name";
    case MatchKind::kOriginalName:
      return "original";
  }
  return "";
}

std::string_view VerdictName(Verdict verdict) {
  switch (verdict) {
    case Verdict::kNotCompared:
      return "not_compared";
    case Verdict::kWithin:
      return "within";
    case Verdict::kOutside:
      return "outside";
  }
  return "";
}

std::string_view DivergenceBasisName(DivergenceBasis basis) {
  switch (basis) {
    case DivergenceBasis::kInputsWithin:
      return "inputs_within";
    case DivergenceBasis::kEarlierWithin:
      return "earlier_within";
    case DivergenceBasis::kEarlierNotCompared:
      return "earlier_not_compared";
  }
  return "";
}

std::string ShapeText(const std::vector<int64_t>& shape) {
  return shape.empty() ? "[]" : StrJoin(shape, "x");
}

std::string FolderLabel(const CompareSide& side) {
  if (side.layout == dump::Layout::kModel) {
    return StrCat(side.model, " (id ", side.model_id, ") iteration ",
                  side.iteration, ", device ", side.device);
  }
  if (side.kind == SideKind::kReference) {
    return StrCat("references in ", side.directory);
  }
  return StrCat("files in ", side.directory);
}

namespace {

// B's operators by converted name (and escaped name), and B's outputs by
// producing op.
struct SideIndex {
  using OutputMap =
      std::map<std::pair<std::string, uint32_t>, std::pair<size_t, uint32_t>>;
  std::map<std::string, std::vector<size_t>, std::less<>> by_name;
  OutputMap by_output;

  OutputMap::const_iterator FindOutput(const std::string& producer,
                                       uint32_t index) const {
    auto it = by_output.find({producer, index});
    if (it == by_output.end()) {
      it = by_output.find({dump::EscapeNamePart(producer), index});
    }
    return it;
  }
};

SideIndex IndexSide(const CompareSide& b) {
  SideIndex index;
  for (size_t i = 0; i < b.ops.size(); ++i) {
    const OpRecord& op = b.ops[i];
    index.by_name[op.name].push_back(i);
    for (const TensorRef& out : op.outputs) {
      if (!out.original_op.empty()) {
        index.by_output.emplace(
            std::make_pair(out.original_op, out.original_index),
            std::make_pair(i, out.position));
      }
      index.by_output.emplace(std::make_pair(op.name, out.position),
                              std::make_pair(i, out.position));
    }
  }
  return index;
}

// Finds each op of A its counterpart in B and compares their tensors. What
// carries from op to op: how often each name was matched (repeated names
// pair up in order), which ops of B were used, and how many tensors got the
// detailed look.
class OpMatcher {
 public:
  OpMatcher(const CompareSide& a, const CompareSide& b,
            const CompareOptions& options)
      : a_(a),
        b_(b),
        options_(options),
        index_(IndexSide(b)),
        used_(b.ops.size(), false),
        load_a_(a),
        load_b_(b) {}

  OpComparison Match(size_t index) {
    const OpRecord& op = a_.ops[index];
    OpComparison cmp;
    cmp.a = &op;
    cmp.index = index;
    load_a_.Clear();
    load_b_.Clear();
    auto named = index_.by_name.find(op.name);
    if (named == index_.by_name.end()) {
      named = index_.by_name.find(dump::EscapeNamePart(op.name));
    }
    const size_t k =
        named == index_.by_name.end() ? 0 : occurrences_[named->first]++;
    if (named != index_.by_name.end() && k < named->second.size()) {
      MatchByName(cmp, named->second[k]);
    } else {
      MatchByOutputs(cmp);
    }
    cmp.inputs = VerdictOf(cmp.tensors, true);
    cmp.outputs = VerdictOf(cmp.tensors, false);
    return cmp;
  }

  const std::vector<bool>& used() const { return used_; }

 private:
  void CompareTensor(OpComparison& cmp, const OpRecord& other, bool is_input,
                     uint32_t pa, uint32_t pb) {
    bool detail = detailed_ < kDetailedTensors;
    TensorComparison c =
        Compare(load_a_.Load(*cmp.a, is_input, pa),
                load_b_.Load(other, is_input, pb), options_, &detail);
    if (c.detail) ++detailed_;
    c.is_input = is_input;
    c.position = pa;
    c.b_label = StrCat(other.name, is_input ? " input " : " output ", pb);
    cmp.tensors.push_back(std::move(c));
  }

  void MatchByName(OpComparison& cmp, size_t other_index) {
    const OpRecord& op = *cmp.a;
    const OpRecord& other = b_.ops[other_index];
    used_[other_index] = true;
    cmp.match = MatchKind::kConvertedName;
    cmp.b_name = other.name;
    for (const auto* refs : {&op.inputs, &op.outputs}) {
      for (const TensorRef& t : *refs) {
        const auto& other_refs = t.is_input ? other.inputs : other.outputs;
        const auto& other_files =
            t.is_input ? other.input_files : other.output_files;
        if (t.position >= other_refs.size()) continue;
        // A reference side may lack some tensors of an op.
        if (b_.kind == SideKind::kReference &&
            (t.position >= other_files.size() ||
             other_files[t.position].empty())) {
          continue;
        }
        CompareTensor(cmp, other, t.is_input, t.position, t.position);
      }
    }
  }

  void MatchByOutputs(OpComparison& cmp) {
    const OpRecord& op = *cmp.a;
    std::vector<std::string> counterparts;
    for (const TensorRef& t : op.outputs) {
      const std::string producer =
          t.original_op.empty() ? op.name : t.original_op;
      auto it = index_.FindOutput(producer, t.original_index);
      if (it == index_.by_output.end()) continue;
      const auto [other_index, position] = it->second;
      const OpRecord& other = b_.ops[other_index];
      used_[other_index] = true;
      if (std::find(counterparts.begin(), counterparts.end(), other.name) ==
          counterparts.end()) {
        counterparts.push_back(other.name);
      }
      CompareTensor(cmp, other, false, t.position, position);
    }
    if (!cmp.tensors.empty()) {
      cmp.match = MatchKind::kOriginalName;
      cmp.b_name = StrJoin(counterparts, ",");
    }
  }

  const CompareSide& a_;
  const CompareSide& b_;
  const CompareOptions& options_;
  const SideIndex index_;
  std::map<std::string, size_t> occurrences_;
  std::vector<bool> used_;
  TensorLoader load_a_;
  TensorLoader load_b_;
  size_t detailed_ = 0;
};

}  // namespace

CompareResult CompareSides(const CompareSide& a, const CompareSide& b,
                           const CompareOptions& options,
                           const DumpFilter& filter) {
  OpMatcher matcher(a, b, options);
  CompareResult result;
  Progress progress("compare", a.ops.size());
  for (size_t index = 0; index < a.ops.size(); ++index) {
    progress.Update(index + 1, a.ops[index].name);
    OpComparison cmp = matcher.Match(index);
    for (const TensorComparison& t : cmp.tensors) {
      ++result.tensors_compared;
      if (!t.within()) ++result.tensors_outside;
    }
    if (cmp.tensors.empty()) ++result.ops_not_compared;
    result.ops.push_back(std::move(cmp));
  }
  progress.Finish();
  for (size_t i = 0; i < b.ops.size(); ++i) {
    if (matcher.used()[i]) continue;
    const OpRecord& op = b.ops[i];
    if (!filter.MatchesType(op.type) ||
        !filter.MatchesName(op.name, op.original_names)) {
      continue;
    }
    result.only_in_b.push_back(op.name);
  }
  NameDivergence(result);
  return result;
}

FolderPlan PairFolders(const CompareTree& a, const CompareTree& b) {
  FolderPlan plan;
  for (const std::string& note : a.notes) plan.notes.push_back("A: " + note);
  for (const std::string& note : b.notes) plan.notes.push_back("B: " + note);
  auto& pairs = plan.pairs;
  const bool b_flat =
      b.folders.size() == 1 && b.folders[0].layout != dump::Layout::kModel;
  if (a.folders.size() == 1 && b.folders.size() == 1) {
    pairs.emplace_back(&a.folders[0], &b.folders[0]);
    const CompareSide &fa = a.folders[0], &fb = b.folders[0];
    if (fa.layout == dump::Layout::kModel &&
        fb.layout == dump::Layout::kModel &&
        KeyOf(fa, true) != KeyOf(fb, true)) {
      plan.notes.push_back(StrCat("comparing two different folders: ",
                                  FolderLabel(fa), " with ", FolderLabel(fb)));
    }
  } else if (b_flat) {
    for (const CompareSide& fa : a.folders)
      pairs.emplace_back(&fa, &b.folders[0]);
    plan.notes.push_back(StrCat("every folder of A (", a.folders.size(),
                                ") is compared with the references in ",
                                b.root));
  } else {
    std::set<int64_t> devices_a, devices_b;
    for (const CompareSide& f : a.folders) devices_a.insert(f.device);
    for (const CompareSide& f : b.folders) devices_b.insert(f.device);
    const bool with_device = !(devices_a.size() == 1 && devices_b.size() == 1);
    if (!with_device && devices_a != devices_b) {
      plan.notes.push_back(StrCat("device ", *devices_a.begin(),
                                  " of A is paired with device ",
                                  *devices_b.begin(), " of B"));
    }
    std::map<FolderKey, const CompareSide*> in_b;
    for (const CompareSide& f : b.folders) {
      if (f.layout == dump::Layout::kModel) in_b[KeyOf(f, with_device)] = &f;
    }
    std::set<const CompareSide*> paired_b;
    for (const CompareSide& f : a.folders) {
      auto it = f.layout == dump::Layout::kModel
                    ? in_b.find(KeyOf(f, with_device))
                    : in_b.end();
      if (it == in_b.end()) {
        plan.only_in_a.push_back(&f);
        continue;
      }
      pairs.emplace_back(&f, it->second);
      paired_b.insert(it->second);
    }
    for (const CompareSide& f : b.folders) {
      if (!paired_b.count(&f)) plan.only_in_b.push_back(&f);
    }
  }
  // By iteration, then by when the folder's first operator ran.
  auto first_time = [](const CompareSide* s) {
    return s->ops.empty() ? 0 : s->ops.front().timestamp_us;
  };
  std::stable_sort(
      pairs.begin(), pairs.end(), [&](const auto& x, const auto& y) {
        return std::make_tuple(x.first->iteration, first_time(x.first),
                               x.first->model) <
               std::make_tuple(y.first->iteration, first_time(y.first),
                               y.first->model);
      });
  return plan;
}

TreeCompareResult StartTreeResult(const FolderPlan& plan) {
  TreeCompareResult result;
  result.notes = plan.notes;
  result.only_in_a = plan.only_in_a;
  result.only_in_b = plan.only_in_b;
  for (const auto& [fa, fb] : plan.pairs) {
    result.pairs.push_back(FolderPair{fa, fb, {}});
  }
  return result;
}

void TotalTreeResult(TreeCompareResult& result) {
  result.tensors_compared = result.tensors_outside = 0;
  result.ops_not_compared = 0;
  result.first_pair.reset();
  for (size_t i = 0; i < result.pairs.size(); ++i) {
    const CompareResult& r = result.pairs[i].result;
    result.tensors_compared += r.tensors_compared;
    result.tensors_outside += r.tensors_outside;
    result.ops_not_compared += r.ops_not_compared;
    if (r.tensors_outside > 0 && !result.first_pair) result.first_pair = i;
  }
}

TreeCompareResult CompareTrees(const CompareTree& a, const CompareTree& b,
                               const CompareOptions& options,
                               const DumpFilter& filter) {
  TreeCompareResult result = StartTreeResult(PairFolders(a, b));
  for (FolderPair& pair : result.pairs) {
    pair.result = CompareSides(*pair.a, *pair.b, options, filter);
  }
  TotalTreeResult(result);
  return result;
}

std::string TreeDivergenceNote(const TreeCompareResult& result) {
  if (result.first_pair) {
    const FolderPair& pair = result.pairs[*result.first_pair];
    if (result.pairs.size() == 1) return pair.result.divergence_note;
    return StrCat("in ", FolderLabel(*pair.a), ": ",
                  pair.result.divergence_note);
  }
  if (result.tensors_compared == 0) {
    return "none: no tensor of A has a counterpart in B";
  }
  std::string note = "none: every compared tensor is within the tolerance";
  if (result.ops_not_compared > 0) {
    StrAppend(note, " (", Plural(result.ops_not_compared, "operator"),
              " of A not compared)");
  }
  return note;
}

}  // namespace acldump::tools
