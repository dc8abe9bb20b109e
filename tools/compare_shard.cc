#include "tools/compare_shard.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "acl/acl_version.h"
#include "base/file_reader.h"
#include "base/status_macros.h"
#include "base/strings.h"
#include "tools/compare_shard.pb.h"

namespace acldump::tools {
namespace {

namespace pb = ::acldump::tools::shard;

// A plan holds every header's names; a pair's result every tensor's metrics.
constexpr size_t kMaxPlanBytes = size_t{4} << 30;
constexpr size_t kMaxPairBytes = size_t{1} << 30;

// ---- to the wire ----

void Put(const TensorRef& r, pb::TensorRef& p) {
  p.set_is_input(r.is_input);
  p.set_position(r.position);
  p.set_original_op(r.original_op);
  p.set_original_index(r.original_index);
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

void Put(const CompareTree& tree, pb::CompareTree& p) {
  p.set_kind(static_cast<int>(tree.kind));
  p.set_root(tree.root);
  for (const CompareSide& f : tree.folders) Put(f, *p.add_folders());
  for (const std::string& n : tree.notes) p.add_notes(n);
  p.set_ops_filtered_out(tree.ops_filtered_out);
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
  return {p.is_input(), p.position(), p.original_op(), p.original_index()};
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
  return op;
}

absl::StatusOr<CompareSide> Get(const pb::CompareSide& p) {
  CompareSide side;
  ASSIGN_OR_RETURN(side.kind, EnumOf<SideKind>(p.kind(), 1, "side kind"));
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

absl::StatusOr<CompareTree> Get(const pb::CompareTree& p) {
  CompareTree tree;
  ASSIGN_OR_RETURN(tree.kind, EnumOf<SideKind>(p.kind(), 1, "side kind"));
  tree.root = p.root();
  for (const auto& f : p.folders()) {
    ASSIGN_OR_RETURN(CompareSide side, Get(f));
    tree.folders.push_back(std::move(side));
  }
  tree.notes.assign(p.notes().begin(), p.notes().end());
  tree.ops_filtered_out = p.ops_filtered_out();
  return tree;
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

// Whole or absent: written beside, then renamed over.
absl::Status WriteWhole(const std::string& path, const std::string& bytes) {
  const std::string temporary = StrCat(path, ".tmp.", getpid());
  const int fd =
      open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    return absl::PermissionDeniedError(
        StrCat("cannot create '", temporary, "': ", std::strerror(errno)));
  }
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int error = errno;
      close(fd);
      unlink(temporary.c_str());
      return absl::ResourceExhaustedError(
          StrCat("cannot write '", temporary, "': ", std::strerror(error)));
    }
    done += static_cast<size_t>(n);
  }
  if (close(fd) != 0 || rename(temporary.c_str(), path.c_str()) != 0) {
    const int error = errno;
    unlink(temporary.c_str());
    return absl::ResourceExhaustedError(
        StrCat("cannot write '", path, "': ", std::strerror(error)));
  }
  return absl::OkStatus();
}

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

std::string PlanPath(const std::string& dir) { return dir + "/plan.pb"; }

std::string PairResultPath(const std::string& dir, size_t pair) {
  return StrCat(dir, "/pair-", pair, ".pb");
}

absl::StatusOr<size_t> WriteComparePlan(const std::string& dir,
                                        const CompareTree& a,
                                        const CompareTree& b,
                                        const CompareOptions& options,
                                        const FilterOptions& filter_options) {
  if (mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
    return absl::PermissionDeniedError(
        StrCat("cannot create the folder '", dir, "': ", std::strerror(errno)));
  }
  pb::ComparePlan plan;
  plan.set_version(ACLDUMP_VERSION_STRING);
  Put(a, *plan.mutable_a());
  Put(b, *plan.mutable_b());
  plan.set_atol(options.atol);
  plan.set_rtol(options.rtol);
  for (const std::string& t : filter_options.op_types) plan.add_op_types(t);
  plan.set_match(filter_options.match);
  plan.set_iterations(filter_options.iterations);
  const size_t pairs = PairFolders(a, b).pairs.size();
  plan.set_pairs(pairs);
  std::string bytes;
  if (!plan.SerializeToString(&bytes)) {
    return absl::ResourceExhaustedError("the plan is too large to write");
  }
  RETURN_IF_ERROR(WriteWhole(PlanPath(dir), bytes));
  return pairs;
}

absl::StatusOr<std::unique_ptr<ComparePlan>> ReadComparePlan(
    const std::string& dir) {
  ASSIGN_OR_RETURN(pb::ComparePlan p,
                   ReadMessage<pb::ComparePlan>(PlanPath(dir), kMaxPlanBytes,
                                                "compare plan"));
  auto plan = std::make_unique<ComparePlan>();
  ASSIGN_OR_RETURN(plan->a, Get(p.a()));
  ASSIGN_OR_RETURN(plan->b, Get(p.b()));
  plan->options = {p.atol(), p.rtol()};
  plan->filter_options.op_types.assign(p.op_types().begin(),
                                       p.op_types().end());
  plan->filter_options.match = p.match();
  plan->filter_options.iterations = p.iterations();
  ASSIGN_OR_RETURN(plan->filter, DumpFilter::Create(plan->filter_options));
  plan->folders = PairFolders(plan->a, plan->b);
  if (plan->folders.pairs.size() != p.pairs()) {
    return absl::DataLossError(StrCat("compare plan '", PlanPath(dir),
                                      "' pairs ", plan->folders.pairs.size(),
                                      " folders, it says ", p.pairs()));
  }
  return plan;
}

absl::Status CompareShard(const std::string& dir, size_t pair) {
  ASSIGN_OR_RETURN(std::unique_ptr<ComparePlan> plan, ReadComparePlan(dir));
  if (pair >= plan->folders.pairs.size()) {
    return absl::InvalidArgumentError(StrCat("folder pair ", pair,
                                             " does not exist: the plan has ",
                                             plan->folders.pairs.size()));
  }
  const auto& [a, b] = plan->folders.pairs[pair];
  const CompareResult result =
      CompareSides(*a, *b, plan->options, plan->filter);
  pb::PairResult p;
  p.set_version(ACLDUMP_VERSION_STRING);
  p.set_pair(pair);
  Put(result, *a, p);
  std::string bytes;
  if (!p.SerializeToString(&bytes)) {
    return absl::ResourceExhaustedError("the result is too large to write");
  }
  return WriteWhole(PairResultPath(dir, pair), bytes);
}

MergedCompare MergeCompareShards(
    const FolderPlan& folders, const std::string& dir,
    const std::function<std::string(size_t)>& why_missing) {
  MergedCompare merged{StartTreeResult(folders), {}};
  for (size_t i = 0; i < merged.result.pairs.size(); ++i) {
    FolderPair& pair = merged.result.pairs[i];
    absl::StatusOr<CompareResult> result =
        [&]() -> absl::StatusOr<CompareResult> {
      if (why_missing) {
        std::string why = why_missing(i);
        if (!why.empty()) return absl::UnavailableError(why);
      }
      ASSIGN_OR_RETURN(
          pb::PairResult p,
          ReadMessage<pb::PairResult>(PairResultPath(dir, i), kMaxPairBytes,
                                      "folder pair result"));
      if (p.pair() != i) {
        return absl::DataLossError(
            StrCat("'", PairResultPath(dir, i), "' holds pair ", p.pair()));
      }
      return Get(p, *pair.a);
    }();
    if (result.ok()) {
      pair.result = *std::move(result);
      continue;
    }
    merged.failed.push_back(i);
    pair.result.divergence_note =
        StrCat("not compared: no worker delivered this folder pair (",
               result.status().message(), ")");
    merged.result.notes.push_back(
        StrCat("folder pair ", i, " (", FolderLabel(*pair.a),
               ") was not compared: ", result.status().message()));
  }
  TotalTreeResult(merged.result);
  return merged;
}

}  // namespace acldump::tools
