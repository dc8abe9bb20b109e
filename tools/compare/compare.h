// `dump compare A B`: pairs the dump folders of two trees (or a tree and a
// folder of reference arrays), pairs the operators of each folder pair,
// computes the comparison metrics per tensor, checks a tolerance and names
// the first diverging operator.
//
// Folders. Each side is scanned at any level of the layout. Its folders are
// the (model, model id, iteration, device) folders holding tensor dumps, or
// folders of reference arrays (.npy, .npz; a tree `dump convert` wrote keeps
// the layout). They pair:
//  - one folder on each side: with each other, whatever their places;
//  - a folder of references outside the layout on B: with every folder of A;
//  - else by (model, n-th model id of that model, iteration, device), the
//    device left out when each side has a single one. A side that holds the
//    same folder in several time folders uses the latest (a note says so).
// Folders without a partner are listed as present on one side only.
//
// Operators, for each operator of A in execution order:
//  1. by converted name: B has an operator of the same name (the k-th
//     occurrence in A pairs with the k-th in B); inputs and outputs pair by
//     position.
//  2. by original names: each output of A pairs with the B output produced by
//     the same original op (the header's original_op.name, else the last of
//     the "original_names" attr), found among B's original_op names and
//     converted names. Inputs are not paired then: a fused operator's weights
//     differ from its parts' by design (BatchNorm folded into Conv).
// A reference folder is a set of operators: `X.npy` is output 0 of operator
// (or original op) X; `X.output.<i>.npy` / `X.input.<i>.npy` are output /
// input i, optionally followed by `.<timestamp>` (k-th timestamp = k-th
// execution). `X` may be a dump file name, as `dump convert` writes them.
// .npz members are named the same way.
//
// A side holding stats dumps only (dump_data: stats or checksum) pairs the
// same way (by converted name; stats CSVs carry no original names); its
// tensor pairs compare by checksum or statistics (CompareBy), the other
// side's tensors reduced to the statistics a stats dump would hold.
//
// The graph input is compared like any tensor: its Data operator pairs by
// name. What was not compared (no counterpart, inputs absent from B) is
// reported as "not compared", never as within the tolerance.
//
// The first diverging operator of a folder pair is the first one, in A's
// execution order, whose outputs are outside the tolerance and
//  - whose inputs are within it ("inputs_within"), or
//  - whose inputs were not compared, while every earlier operator's outputs
//    are within it ("earlier_within"), or
//  - whose inputs were not compared and some earlier operators were not
//    compared at all ("earlier_not_compared": the divergence may start in
//    one of those; they are named).
// Over a tree, the first divergence is that of the first folder pair, by
// iteration and then execution order, holding a tensor outside the tolerance.
#ifndef ACLDUMP_TOOLS_COMPARE_COMPARE_H_
#define ACLDUMP_TOOLS_COMPARE_COMPARE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "dump/format/dump_tree.h"
#include "tools/common/array_files.h"
#include "tools/compare/metrics.h"
#include "tools/tree/filter.h"

namespace acldump::tools {

struct TensorRef {
  bool is_input = false;
  uint32_t position = 0;    // among the op's inputs or outputs
  std::string original_op;  // outputs: the original op that produced it
  uint32_t original_index = 0;
  // Device tensors: the original layout (a dump OutputFormat number) when the
  // dump file does not record one; from the converter graph. -1: unknown.
  int32_t original_format = -1;
};

// Where a reference array is: a .npy file, or a member of an .npz file.
struct ArraySource {
  std::string path;
  std::optional<NpzMember> member;
  bool empty() const { return path.empty(); }
};

// A tensor's statistics as a stats dump records them: read from a stats CSV,
// or computed from a tensor and rounded the way the CSV writer rounds them, so
// that a tensor and the stats dump of the same bytes give equal records.
// Absent: the column was not recorded (or is NA).
struct TensorStatsRecord {
  std::string dtype;  // "DT_FLOAT"
  std::vector<int64_t> shape;
  std::optional<uint64_t> count;
  std::optional<double> max, min, avg, l2norm;
  std::optional<uint64_t> nan, negative_inf, positive_inf;
  std::optional<uint64_t> checksum;
};

struct OpRecord {
  std::string name;  // converted name
  std::string type;  // "" for references
  std::vector<std::string> original_names;
  std::vector<TensorRef> inputs, outputs;
  uint32_t task_id = 0;
  uint64_t timestamp_us = 0;
  std::string path;  // dump file; for references the folder + name
  // References: the array of each tensor (empty where absent).
  std::vector<ArraySource> input_files, output_files;
  // Stats dumps: each tensor's statistics, by position.
  std::vector<TensorStatsRecord> input_stats, output_stats;

  // The original format a tensor's TensorRef carries (-1: none).
  int32_t OriginalFormat(bool is_input, uint32_t position) const {
    for (const TensorRef& ref : is_input ? inputs : outputs) {
      if (ref.position == position) return ref.original_format;
    }
    return -1;
  }
};

// kStats: a dump tree holding stats dumps only (dump_data: stats or
// checksum); its tensors compare by statistics or checksum.
enum class SideKind { kDump, kReference, kStats };

// One folder of a side: a dump folder (one model, model id, iteration,
// device) or a folder of reference arrays.
struct CompareSide {
  SideKind kind = SideKind::kDump;
  std::string root;         // the path the side was given as
  std::string directory;    // this folder
  std::string description;  // "resnet_tiny (id 1) iteration 0, device 0, ..."
  dump::Layout layout = dump::Layout::kUnknown;
  std::string time;
  int64_t device = -1;
  std::string model;
  int64_t model_id = -1;
  int64_t model_rank = 0;  // n-th model id of this model in its time folder
  int64_t iteration = -1;
  std::vector<OpRecord> ops;  // execution order (dumps) or by name
};

// A whole side: every folder that can be compared.
struct CompareTree {
  SideKind kind = SideKind::kDump;
  std::string root;
  std::vector<CompareSide> folders;
  std::vector<std::string> notes;  // folders left out, and why
  size_t ops_filtered_out = 0;     // operators the filter removed
};

struct CompareLoadOptions {
  DumpFilter filter;
  std::string model;  // model folder name; empty = any
};

// Reads `path`: a dump tree (any level, or one dump file), a folder of
// reference arrays, or one .npz / .npy file. Only dump headers (and stats
// CSVs) are read. A tree with tensor dumps is a kDump side; one with stats
// dumps only, a kStats side. Errors: the path cannot be read, holds nothing
// comparable, a stats CSV is malformed, or the filters leave nothing (the
// error says which filter).
absl::StatusOr<CompareTree> LoadCompareTree(const std::string& path,
                                            const CompareLoadOptions& options);

enum class MatchKind { kNone, kConvertedName, kOriginalName };
enum class Verdict { kNotCompared, kWithin, kOutside };

// An element of a tensor pair, by its index in the tensor.
struct ElementDiff {
  std::vector<int64_t> index;  // multi-dimensional
  uint64_t flat = 0;
  double a = 0, b = 0;
  double abs_diff = 0;  // inf for a NaN/Inf mismatch
};

// What the report plots for a tensor outside the tolerance: a histogram of
// |a-b| and a sample of (a, b) pairs.
struct ErrorDetail {
  // Bins of log10|a-b| from bin_low to bin_high (decades), equal width.
  double bin_low = 0, bin_high = 0;
  std::vector<uint64_t> bins;
  uint64_t zero = 0;       // |a-b| == 0
  uint64_t nonfinite = 0;  // NaN/Inf on one side only (or different ones)
  std::vector<std::pair<double, double>> sample;  // (b, a), finite, <= 2000
};

// How tensor pairs are compared:
//  - kTensors: element by element (both sides hold tensors);
//  - kStats: by statistics: Max, Min, Avg and L2norm within the tolerance
//    (per column if given), Count and the NaN/Inf counts equal;
//  - kChecksum: by the checksum of the bytes: equal or not, exactly;
//  - kAuto: kTensors when both sides hold tensors, else kChecksum for a pair
//    whose sides both have a checksum (a tensor always has one), else kStats.
enum class CompareBy { kAuto, kTensors, kStats, kChecksum };
std::string_view CompareByName(CompareBy by);  // "auto", "tensors", ...
std::optional<CompareBy> CompareByFromName(std::string_view name);

// One statistic of a pair compared by statistics or checksum.
struct StatDiff {
  std::string column;  // "Max", "Min", "Avg", "L2norm", "Count", "Nan", ...
  std::string a, b;    // as the stats CSV writes them; checksums in hex
  bool within = true;
};

struct TensorComparison {
  CompareBy by = CompareBy::kTensors;  // never kAuto
  bool is_input = false;
  uint32_t position = 0;
  std::string b_label;  // "relu1 output 0"
  std::vector<int64_t> shape_a, shape_b;
  std::string dtype_a, dtype_b;
  std::string problem;  // non-empty: not comparable (shape, unreadable)
  TensorMetrics metrics;
  ToleranceCheck tolerance;
  std::vector<ElementDiff> worst;  // outside the tolerance, worst first (<= 5)
  std::optional<ErrorDetail> detail;  // for the first tensors outside
  // By statistics or checksum: every statistic both sides have (tolerance's
  // `violations` counts those outside; metrics are not computed).
  std::vector<StatDiff> stats;
  bool within() const { return problem.empty() && tolerance.within; }
};

struct OpComparison {
  const OpRecord* a = nullptr;
  size_t index = 0;  // 0-based position in A's execution order
  MatchKind match = MatchKind::kNone;
  std::string b_name;  // counterpart operator(s)
  std::vector<TensorComparison> tensors;
  Verdict inputs = Verdict::kNotCompared;
  Verdict outputs = Verdict::kNotCompared;
};

enum class DivergenceBasis {
  kInputsWithin,        // its inputs are within the tolerance
  kEarlierWithin,       // inputs not compared, every earlier op within
  kEarlierNotCompared,  // inputs not compared, some earlier op not compared
};
std::string_view DivergenceBasisName(DivergenceBasis basis);

// A tolerance for one statistic (by statistics): Max, Min, Avg or L2norm.
struct StatTolerance {
  std::string column;
  double atol = 0, rtol = 0;
};

struct CompareOptions {
  double atol = 1e-3;
  double rtol = 1e-3;
  CompareBy by = CompareBy::kAuto;
  std::vector<StatTolerance> stat_tolerances;  // others use atol, rtol
  // Pair operators by original names only (step 2), never by converted name:
  // a device's operator may carry an original operator's name while holding
  // a fused group's result. Inputs whose TensorRef names an original producer
  // are then compared with that producer's output in B.
  bool original_names_only = false;
};

// "Avg=1e-5" or "Avg=1e-5,1e-4" (atol, rtol; rtol defaults to `rtol`).
// Errors name the unknown column or the bad number.
absl::StatusOr<StatTolerance> ParseStatTolerance(std::string_view text,
                                                 double rtol);

// One folder pair.
struct CompareResult {
  std::vector<OpComparison> ops;           // every op of A, execution order
  std::optional<size_t> first_divergence;  // index into ops
  DivergenceBasis basis = DivergenceBasis::kInputsWithin;
  // Operators before the first divergence whose outputs were not compared.
  std::vector<size_t> earlier_not_compared;
  std::string divergence_note;  // why, or why none could be named
  size_t tensors_compared = 0;  // tensor pairs (a problem counts, outside)
  size_t tensors_outside = 0;
  size_t ops_not_compared = 0;         // ops of A without any tensor compared
  std::vector<std::string> only_in_b;  // B operators nothing matched

  bool within() const { return tensors_compared > 0 && tensors_outside == 0; }
};

// Pairs and compares the operators of two folders. The result points into
// `a`, which must outlive it. Unreadable tensors become rows with a problem
// (and count as outside the tolerance). B operators the filter removes are
// not listed as unmatched.
CompareResult CompareSides(const CompareSide& a, const CompareSide& b,
                           const CompareOptions& options,
                           const DumpFilter& filter = {});
CompareResult CompareSides(CompareSide&& a, const CompareSide& b,
                           const CompareOptions& options,
                           const DumpFilter& filter = {}) = delete;

struct FolderPair {
  const CompareSide* a = nullptr;
  const CompareSide* b = nullptr;
  CompareResult result;
};

struct TreeCompareResult {
  std::vector<FolderPair> pairs;  // by iteration, then execution order
  std::vector<const CompareSide*> only_in_a, only_in_b;
  std::vector<std::string> notes;  // how folders were paired
  // The pair holding the tree's first divergence, or (when no operator could
  // be named) the first pair with a tensor outside the tolerance.
  std::optional<size_t> first_pair;
  size_t tensors_compared = 0;
  size_t tensors_outside = 0;
  size_t ops_not_compared = 0;

  bool within() const { return tensors_compared > 0 && tensors_outside == 0; }
  // 0 within the tolerance, 1 outside, 2 nothing compared.
  int exit_code() const {
    return tensors_compared == 0 ? 2 : (tensors_outside > 0 ? 1 : 0);
  }
};

// Which folders of two sides are compared with which, in report order, and
// how they were paired. Points into `a` and `b`.
struct FolderPlan {
  std::vector<std::pair<const CompareSide*, const CompareSide*>> pairs;
  std::vector<const CompareSide*> only_in_a, only_in_b;
  std::vector<std::string> notes;
};
FolderPlan PairFolders(const CompareTree& a, const CompareTree& b);

// A result with the plan's pairs and no comparison yet; TotalTreeResult adds
// up the pairs' results once they are filled in. CompareTrees is the two
// around CompareSides; a cluster fills the pairs in elsewhere.
TreeCompareResult StartTreeResult(const FolderPlan& plan);
void TotalTreeResult(TreeCompareResult& result);

// Pairs the folders and compares each pair. Points into `a` and `b`.
TreeCompareResult CompareTrees(const CompareTree& a, const CompareTree& b,
                               const CompareOptions& options,
                               const DumpFilter& filter = {});

// What differs in a pair compared by statistics or checksum: "Checksum
// 1f.. vs 2e..; Max 1.5 vs 1.2" ("" when nothing does).
std::string StatsDifferenceText(const TensorComparison& t);

std::string_view MatchKindName(MatchKind kind);
std::string_view VerdictName(Verdict verdict);  // within/outside/not_compared
// "resnet_tiny (id 1) iteration 0, device 0": a folder in messages.
std::string FolderLabel(const CompareSide& side);
// "[1,16,32,32]"-style text of a shape ("1x16x32x32").
std::string ShapeText(const std::vector<int64_t>& shape);
// The text that names the tree's first divergence (or says why there is
// none), for the terminal and the report.
std::string TreeDivergenceNote(const TreeCompareResult& result);

}  // namespace acldump::tools

#endif  // ACLDUMP_TOOLS_COMPARE_COMPARE_H_
