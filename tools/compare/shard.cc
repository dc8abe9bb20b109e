#include "tools/compare/shard.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <map>
#include <utility>

#include "acl/acl_version.h"
#include "base/file_reader.h"
#include "base/file_writer.h"
#include "base/status_macros.h"
#include "base/strings.h"
#include "tools/cluster/cluster.h"
#include "tools/compare/shard.pb.h"

namespace acldump::tools {
namespace {

namespace pb = ::acldump::tools::shard;

// A task holds its folders' header names and its pairs' metrics.
constexpr size_t kMaxTaskBytes = size_t{2} << 30;
// What a result's error histogram may hold (the report makes 40 bins over
// the decades of finite doubles, and samples 2,000 points).
constexpr int kMaxDetailBins = 1000;
constexpr double kMaxDetailDecades = 700;
constexpr int kMaxDetailSample = 100000;

// ---- to the wire ----

void Put(const TensorRef& r, pb::TensorRef& p) {
  p.set_is_input(r.is_input);
  p.set_position(r.position);
  p.set_original_op(r.original_op);
  p.set_original_index(r.original_index);
  p.set_original_format_plus_one(
      r.original_format < 0 ? 0 : static_cast<uint32_t>(r.original_format) + 1);
}

void Put(const ArraySource& s, pb::ArraySource& p) {
  p.set_path(s.path);
  p.set_has_member(s.member.has_value());
  if (!s.member) return;
  p.set_member_name(s.member->name);
  p.set_data_offset(s.member->data_offset);
  p.set_compressed_size(s.member->compressed_size);
  p.set_size(s.member->size);
  p.set_method(s.member->method);
  p.set_crc32(s.member->crc32);
}

void Put(const TensorStatsRecord& s, pb::TensorStats& p) {
  p.set_dtype(s.dtype);
  for (int64_t d : s.shape) p.add_shape(d);
  if (s.count) p.set_count(*s.count);
  if (s.max) p.set_max(*s.max);
  if (s.min) p.set_min(*s.min);
  if (s.avg) p.set_avg(*s.avg);
  if (s.l2norm) p.set_l2norm(*s.l2norm);
  if (s.nan) p.set_nan(*s.nan);
  if (s.negative_inf) p.set_negative_inf(*s.negative_inf);
  if (s.positive_inf) p.set_positive_inf(*s.positive_inf);
  if (s.checksum) p.set_checksum(*s.checksum);
}

void Put(const OpRecord& op, pb::OpRecord& p) {
  p.set_name(op.name);
  p.set_type(op.type);
  for (const std::string& n : op.original_names) p.add_original_names(n);
  for (const TensorRef& r : op.inputs) Put(r, *p.add_inputs());
  for (const TensorRef& r : op.outputs) Put(r, *p.add_outputs());
  p.set_task_id(op.task_id);
  p.set_timestamp_us(op.timestamp_us);
  p.set_path(op.path);
  for (const ArraySource& s : op.input_files) Put(s, *p.add_input_files());
  for (const ArraySource& s : op.output_files) Put(s, *p.add_output_files());
  for (const auto& s : op.input_stats) Put(s, *p.add_input_stats());
  for (const auto& s : op.output_stats) Put(s, *p.add_output_stats());
}

void Put(const CompareSide& side, pb::CompareSide& p) {
  p.set_kind(static_cast<int>(side.kind));
  p.set_root(side.root);
  p.set_directory(side.directory);
  p.set_description(side.description);
  p.set_layout(static_cast<int>(side.layout));
  p.set_time(side.time);
  p.set_device(side.device);
  p.set_model(side.model);
  p.set_model_id(side.model_id);
  p.set_model_rank(side.model_rank);
  p.set_iteration(side.iteration);
  for (const OpRecord& op : side.ops) Put(op, *p.add_ops());
}

void Put(const TensorMetrics& m, pb::TensorMetrics& p) {
  p.set_count(m.count);
  p.set_ignored(m.ignored);
  p.set_nonfinite_mismatch(m.nonfinite_mismatch);
  p.set_cosine(m.cosine);
  p.set_max_abs(m.max_abs);
  p.set_mean_abs(m.mean_abs);
  p.set_rmse(m.rmse);
  p.set_rel_euclidean(m.rel_euclidean);
  p.set_max_rel(m.max_rel);
  p.set_mean_rel(m.mean_rel);
  p.set_acc_rel(m.acc_rel);
  p.set_kl(m.kl);
  p.set_std_a(m.std_a);
  p.set_std_b(m.std_b);
  p.set_mean_a(m.mean_a);
  p.set_mean_b(m.mean_b);
  p.set_frac_rel_001(m.frac_rel_001);
  p.set_frac_rel_005(m.frac_rel_005);
}

void Put(const TensorComparison& t, pb::TensorComparison& p) {
  p.set_is_input(t.is_input);
  p.set_position(t.position);
  p.set_b_label(t.b_label);
  for (int64_t d : t.shape_a) p.add_shape_a(d);
  for (int64_t d : t.shape_b) p.add_shape_b(d);
  p.set_dtype_a(t.dtype_a);
  p.set_dtype_b(t.dtype_b);
  p.set_problem(t.problem);
  p.set_by(static_cast<int>(t.by));
  for (const StatDiff& d : t.stats) {
    pb::StatDiff& q = *p.add_stats();
    q.set_column(d.column);
    q.set_a(d.a);
    q.set_b(d.b);
    q.set_within(d.within);
  }
  Put(t.metrics, *p.mutable_metrics());
  p.set_within(t.tolerance.within);
  p.set_violations(t.tolerance.violations);
  p.set_worst_index(t.tolerance.worst_index);
  p.set_worst_abs(t.tolerance.worst_abs);
  for (const ElementDiff& w : t.worst) {
    pb::ElementDiff& e = *p.add_worst();
    for (int64_t i : w.index) e.add_index(i);
    e.set_flat(w.flat);
    e.set_a(w.a);
    e.set_b(w.b);
    e.set_abs_diff(w.abs_diff);
  }
  if (!t.detail) return;
  pb::ErrorDetail& d = *p.mutable_detail();
  d.set_bin_low(t.detail->bin_low);
  d.set_bin_high(t.detail->bin_high);
  for (uint64_t b : t.detail->bins) d.add_bins(b);
  d.set_zero(t.detail->zero);
  d.set_nonfinite(t.detail->nonfinite);
  for (const auto& [b, a] : t.detail->sample) {
    d.add_sample_b(b);
    d.add_sample_a(a);
  }
}

void Put(const CompareResult& r, const CompareSide& a, pb::PairResult& p) {
  for (const OpComparison& op : r.ops) {
    pb::OpComparison& o = *p.add_ops();
    o.set_op(static_cast<uint64_t>(op.a - a.ops.data()));
    o.set_index(op.index);
    o.set_match(static_cast<int>(op.match));
    o.set_b_name(op.b_name);
    for (const TensorComparison& t : op.tensors) Put(t, *o.add_tensors());
    o.set_inputs(static_cast<int>(op.inputs));
    o.set_outputs(static_cast<int>(op.outputs));
  }
  p.set_has_first_divergence(r.first_divergence.has_value());
  p.set_first_divergence(r.first_divergence.value_or(0));
  p.set_basis(static_cast<int>(r.basis));
  for (size_t i : r.earlier_not_compared) p.add_earlier_not_compared(i);
  p.set_divergence_note(r.divergence_note);
  p.set_tensors_compared(r.tensors_compared);
  p.set_tensors_outside(r.tensors_outside);
  p.set_ops_not_compared(r.ops_not_compared);
  for (const std::string& n : r.only_in_b) p.add_only_in_b(n);
}

// ---- from the wire (files of a shared folder: checked, never trusted) ----

template <typename E>
absl::StatusOr<E> EnumOf(int value, int last, std::string_view what) {
  if (value < 0 || value > last) {
    return absl::DataLossError(StrCat("bad ", what, " ", value));
  }
  return static_cast<E>(value);
}

TensorRef Get(const pb::TensorRef& p) {
  return {p.is_input(), p.position(), p.original_op(), p.original_index(),
          static_cast<int32_t>(std::min<uint32_t>(p.original_format_plus_one(),
                                                  uint32_t{1} << 30)) -
              1};
}

ArraySource Get(const pb::ArraySource& p) {
  ArraySource s{p.path(), std::nullopt};
  if (p.has_member()) {
    s.member = NpzMember{p.member_name(),
                         p.data_offset(),
                         p.compressed_size(),
                         p.size(),
                         static_cast<uint16_t>(p.method()),
                         p.crc32()};
  }
  return s;
}

TensorStatsRecord Get(const pb::TensorStats& p) {
  TensorStatsRecord s;
  s.dtype = p.dtype();
  s.shape.assign(p.shape().begin(), p.shape().end());
  if (p.has_count()) s.count = p.count();
  if (p.has_max()) s.max = p.max();
  if (p.has_min()) s.min = p.min();
  if (p.has_avg()) s.avg = p.avg();
  if (p.has_l2norm()) s.l2norm = p.l2norm();
  if (p.has_nan()) s.nan = p.nan();
  if (p.has_negative_inf()) s.negative_inf = p.negative_inf();
  if (p.has_positive_inf()) s.positive_inf = p.positive_inf();
  if (p.has_checksum()) s.checksum = p.checksum();
  return s;
}

OpRecord Get(const pb::OpRecord& p) {
  OpRecord op;
  op.name = p.name();
  op.type = p.type();
  op.original_names.assign(p.original_names().begin(),
                           p.original_names().end());
  for (const auto& r : p.inputs()) op.inputs.push_back(Get(r));
  for (const auto& r : p.outputs()) op.outputs.push_back(Get(r));
  op.task_id = p.task_id();
  op.timestamp_us = p.timestamp_us();
  op.path = p.path();
  for (const auto& s : p.input_files()) op.input_files.push_back(Get(s));
  for (const auto& s : p.output_files()) op.output_files.push_back(Get(s));
  for (const auto& s : p.input_stats()) op.input_stats.push_back(Get(s));
  for (const auto& s : p.output_stats()) op.output_stats.push_back(Get(s));
  return op;
}

absl::StatusOr<CompareSide> Get(const pb::CompareSide& p) {
  CompareSide side;
  ASSIGN_OR_RETURN(side.kind, EnumOf<SideKind>(p.kind(), 2, "side kind"));
  side.root = p.root();
  side.directory = p.directory();
  side.description = p.description();
  ASSIGN_OR_RETURN(side.layout, EnumOf<dump::Layout>(p.layout(), 3, "layout"));
  side.time = p.time();
  side.device = p.device();
  side.model = p.model();
  side.model_id = p.model_id();
  side.model_rank = p.model_rank();
  side.iteration = p.iteration();
  side.ops.reserve(p.ops_size());
  for (const auto& op : p.ops()) side.ops.push_back(Get(op));
  return side;
}

TensorMetrics Get(const pb::TensorMetrics& p) {
  TensorMetrics m;
  m.count = p.count();
  m.ignored = p.ignored();
  m.nonfinite_mismatch = p.nonfinite_mismatch();
  m.cosine = p.cosine();
  m.max_abs = p.max_abs();
  m.mean_abs = p.mean_abs();
  m.rmse = p.rmse();
  m.rel_euclidean = p.rel_euclidean();
  m.max_rel = p.max_rel();
  m.mean_rel = p.mean_rel();
  m.acc_rel = p.acc_rel();
  m.kl = p.kl();
  m.std_a = p.std_a();
  m.std_b = p.std_b();
  m.mean_a = p.mean_a();
  m.mean_b = p.mean_b();
  m.frac_rel_001 = p.frac_rel_001();
  m.frac_rel_005 = p.frac_rel_005();
  return m;
}

absl::StatusOr<TensorComparison> Get(const pb::TensorComparison& p) {
  TensorComparison t;
  t.is_input = p.is_input();
  t.position = p.position();
  t.b_label = p.b_label();
  t.shape_a.assign(p.shape_a().begin(), p.shape_a().end());
  t.shape_b.assign(p.shape_b().begin(), p.shape_b().end());
  t.dtype_a = p.dtype_a();
  t.dtype_b = p.dtype_b();
  t.problem = p.problem();
  ASSIGN_OR_RETURN(t.by, EnumOf<CompareBy>(p.by(), 3, "comparison kind"));
  for (const auto& d : p.stats()) {
    t.stats.push_back({d.column(), d.a(), d.b(), d.within()});
  }
  t.metrics = Get(p.metrics());
  t.tolerance = {p.within(), p.violations(), p.worst_index(), p.worst_abs()};
  for (const auto& w : p.worst()) {
    t.worst.push_back({{w.index().begin(), w.index().end()},
                       w.flat(),
                       w.a(),
                       w.b(),
                       w.abs_diff()});
  }
  if (p.has_detail()) {
    const pb::ErrorDetail& d = p.detail();
    if (d.sample_a_size() != d.sample_b_size()) {
      return absl::DataLossError("sample columns of different lengths");
    }
    // The report draws these: a range it can walk decade by decade.
    if (d.bins_size() < 1 || d.bins_size() > kMaxDetailBins ||
        !std::isfinite(d.bin_low()) || !std::isfinite(d.bin_high()) ||
        !(d.bin_low() < d.bin_high()) ||
        d.bin_high() - d.bin_low() > kMaxDetailDecades ||
        d.sample_a_size() > kMaxDetailSample) {
      return absl::DataLossError("an error histogram out of range");
    }
    ErrorDetail detail;
    detail.bin_low = d.bin_low();
    detail.bin_high = d.bin_high();
    detail.bins.assign(d.bins().begin(), d.bins().end());
    detail.zero = d.zero();
    detail.nonfinite = d.nonfinite();
    for (int i = 0; i < d.sample_a_size(); ++i) {
      detail.sample.emplace_back(d.sample_b(i), d.sample_a(i));
    }
    t.detail = std::move(detail);
  }
  return t;
}

absl::StatusOr<CompareResult> Get(const pb::PairResult& p,
                                  const CompareSide& a) {
  CompareResult r;
  for (const auto& o : p.ops()) {
    if (o.op() >= a.ops.size()) {
      return absl::DataLossError(
          StrCat("operator ", o.op(), " of ", a.ops.size(), " in folder A"));
    }
    OpComparison op;
    op.a = &a.ops[o.op()];
    op.index = o.index();
    ASSIGN_OR_RETURN(op.match, EnumOf<MatchKind>(o.match(), 2, "match"));
    op.b_name = o.b_name();
    for (const auto& t : o.tensors()) {
      ASSIGN_OR_RETURN(TensorComparison tensor, Get(t));
      op.tensors.push_back(std::move(tensor));
    }
    ASSIGN_OR_RETURN(op.inputs, EnumOf<Verdict>(o.inputs(), 2, "verdict"));
    ASSIGN_OR_RETURN(op.outputs, EnumOf<Verdict>(o.outputs(), 2, "verdict"));
    r.ops.push_back(std::move(op));
  }
  const auto in_ops = [&](uint64_t i) { return i < r.ops.size(); };
  if (p.has_first_divergence()) {
    if (!in_ops(p.first_divergence())) {
      return absl::DataLossError("first divergence past the operators");
    }
    r.first_divergence = p.first_divergence();
  }
  ASSIGN_OR_RETURN(r.basis, EnumOf<DivergenceBasis>(p.basis(), 2, "basis"));
  for (uint64_t i : p.earlier_not_compared()) {
    if (!in_ops(i)) return absl::DataLossError("operator index out of range");
    r.earlier_not_compared.push_back(i);
  }
  r.divergence_note = p.divergence_note();
  r.tensors_compared = p.tensors_compared();
  r.tensors_outside = p.tensors_outside();
  r.ops_not_compared = p.ops_not_compared();
  r.only_in_b.assign(p.only_in_b().begin(), p.only_in_b().end());
  return r;
}

// ---- files ----

template <typename Message>
absl::StatusOr<Message> ReadMessage(const std::string& path, size_t limit,
                                    std::string_view what) {
  ASSIGN_OR_RETURN(std::string bytes, ReadRegularFile(path, limit, what));
  Message message;
  if (!message.ParseFromString(bytes)) {
    return absl::DataLossError(
        StrCat(what, " '", path, "' is not one (truncated or another file)"));
  }
  if (message.version() != ACLDUMP_VERSION_STRING) {
    return absl::FailedPreconditionError(
        StrCat(what, " '", path, "' was written by acldump ",
               message.version().empty() ? "?" : message.version(),
               ", this is ", ACLDUMP_VERSION_STRING,
               ": install the same release on the client and every worker"));
  }
  return message;
}

}  // namespace

absl::StatusOr<std::vector<CompareTaskFiles>> WriteCompareTasks(
    const std::string& dir, const FolderPlan& folders,
    const CompareOptions& options, const FilterOptions& filter_options,
    size_t max_tasks) {
  // Consecutive pairs, cut where the operators so far pass the next share.
  size_t total_ops = 0;
  for (const auto& [a, b] : folders.pairs) total_ops += a->ops.size() + 1;
  const size_t tasks =
      std::max<size_t>(1, std::min(max_tasks, folders.pairs.size()));
  std::vector<CompareTaskFiles> files;
  size_t ops = 0;
  for (size_t i = 0; i < folders.pairs.size(); ++i) {
    const size_t share = (files.size() * total_ops + tasks - 1) / tasks;
    if (files.empty() || (ops >= share && files.size() < tasks)) {
      const size_t k = files.size();
      files.push_back({StrCat(dir, "/task-", k, ".pb"),
                       StrCat(dir, "/result-", k, ".pb"),
                       {}});
    }
    files.back().pairs.push_back(i);
    ops += folders.pairs[i].first->ops.size() + 1;
  }
  for (const CompareTaskFiles& file : files) {
    pb::CompareTask task;
    task.set_version(ACLDUMP_VERSION_STRING);
    task.set_atol(options.atol);
    task.set_rtol(options.rtol);
    task.set_by(static_cast<int>(options.by));
    task.set_original_names_only(options.original_names_only);
    for (const StatTolerance& t : options.stat_tolerances) {
      pb::StatTolerance& q = *task.add_stat_tolerances();
      q.set_column(t.column);
      q.set_atol(t.atol);
      q.set_rtol(t.rtol);
    }
    for (const std::string& t : filter_options.op_types) task.add_op_types(t);
    task.set_match(filter_options.match);
    task.set_iterations(filter_options.iterations);
    std::map<const CompareSide*, uint32_t> sides;
    auto side = [&](const CompareSide* s) {
      auto [it, added] = sides.emplace(s, task.sides_size());
      if (added) Put(*s, *task.add_sides());
      return it->second;
    };
    for (size_t i : file.pairs) {
      pb::PairSpec& spec = *task.add_pairs();
      spec.set_index(i);
      spec.set_a(side(folders.pairs[i].first));
      spec.set_b(side(folders.pairs[i].second));
    }
    std::string bytes;
    if (!task.SerializeToString(&bytes)) {
      return absl::ResourceExhaustedError(
          StrCat("the task '", file.task, "' is too large to write"));
    }
    RETURN_IF_ERROR(WriteFileWhole(file.task, bytes));
  }
  return files;
}

absl::Status RunCompareTask(const std::string& task_path,
                            const std::string& result_path) {
  ASSIGN_OR_RETURN(
      pb::CompareTask task,
      ReadMessage<pb::CompareTask>(task_path, kMaxTaskBytes, "compare task"));
  FilterOptions filter_options;
  filter_options.op_types.assign(task.op_types().begin(),
                                 task.op_types().end());
  filter_options.match = task.match();
  filter_options.iterations = task.iterations();
  ASSIGN_OR_RETURN(DumpFilter filter, DumpFilter::Create(filter_options));
  CompareOptions options{task.atol(), task.rtol(), CompareBy::kAuto, {}};
  ASSIGN_OR_RETURN(options.by,
                   EnumOf<CompareBy>(task.by(), 3, "comparison kind"));
  options.original_names_only = task.original_names_only();
  for (const pb::StatTolerance& t : task.stat_tolerances()) {
    options.stat_tolerances.push_back({t.column(), t.atol(), t.rtol()});
  }
  pb::TaskResult result;
  result.set_version(ACLDUMP_VERSION_STRING);
  std::vector<CompareSide> sides;
  sides.reserve(task.sides_size());
  for (const pb::CompareSide& side : task.sides()) {
    ASSIGN_OR_RETURN(CompareSide s, Get(side));
    sides.push_back(std::move(s));
  }
  for (const pb::PairSpec& spec : task.pairs()) {
    if (spec.a() >= sides.size() || spec.b() >= sides.size()) {
      return absl::DataLossError(StrCat("compare task '", task_path,
                                        "' pairs a folder it does not hold"));
    }
    const CompareSide& a = sides[spec.a()];
    pb::PairResult& p = *result.add_pairs();
    p.set_pair(spec.index());
    Put(CompareSides(a, sides[spec.b()], options, filter), a, p);
  }
  std::string bytes;
  if (!result.SerializeToString(&bytes)) {
    return absl::ResourceExhaustedError("the results are too large to write");
  }
  return WriteFileWhole(result_path, bytes);
}

MergedCompare MergeCompareResults(
    const FolderPlan& folders, const std::vector<CompareTaskFiles>& tasks,
    const std::function<std::string(size_t)>& why_missing) {
  MergedCompare merged{StartTreeResult(folders), {}};
  auto fail = [&](size_t pair, std::string_view why) {
    FolderPair& p = merged.result.pairs[pair];
    p.result = CompareResult{};
    p.result.divergence_note = StrCat(
        "not compared: no worker delivered this folder pair (", why, ")");
    merged.failed.push_back(pair);
    merged.result.notes.push_back(StrCat("folder pair ", pair, " (",
                                         FolderLabel(*p.a),
                                         ") was not compared: ", why));
  };
  for (size_t k = 0; k < tasks.size(); ++k) {
    const CompareTaskFiles& task = tasks[k];
    absl::Status read = [&]() -> absl::Status {
      if (why_missing) {
        std::string why = why_missing(k);
        if (!why.empty()) return absl::UnavailableError(why);
      }
      ASSIGN_OR_RETURN(pb::TaskResult result,
                       ReadMessage<pb::TaskResult>(task.result, kMaxTaskBytes,
                                                   "compare task result"));
      if (static_cast<size_t>(result.pairs_size()) != task.pairs.size()) {
        return absl::DataLossError(
            StrCat("'", task.result, "' holds ", result.pairs_size(),
                   " folder pairs, the task has ", task.pairs.size()));
      }
      std::vector<CompareResult> results;
      for (int i = 0; i < result.pairs_size(); ++i) {
        const size_t pair = task.pairs[i];
        if (result.pairs(i).pair() != pair) {
          return absl::DataLossError(StrCat("'", task.result, "' holds pair ",
                                            result.pairs(i).pair(),
                                            " where pair ", pair, " belongs"));
        }
        ASSIGN_OR_RETURN(CompareResult r,
                         Get(result.pairs(i), *merged.result.pairs[pair].a));
        results.push_back(std::move(r));
      }
      for (size_t i = 0; i < results.size(); ++i) {
        merged.result.pairs[task.pairs[i]].result = std::move(results[i]);
      }
      return absl::OkStatus();
    }();
    if (!read.ok()) {
      for (size_t pair : task.pairs) fail(pair, ToStd(read.message()));
    }
  }
  std::sort(merged.failed.begin(), merged.failed.end());
  TotalTreeResult(merged.result);
  return merged;
}

}  // namespace acldump::tools
