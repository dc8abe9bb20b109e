// `dump compare A B`: pairs the operators of two dumps (or a dump and a
// folder of .npy references), computes the §8 metrics per tensor, checks a
// tolerance and names the first diverging operator.
//
// Matching, for each operator of A in execution order:
//  1. by converted name: B has an operator of the same name (the k-th
//     occurrence in A pairs with the k-th in B); inputs and outputs pair by
//     position.
//  2. by original names: each output of A pairs with the B output produced by
//     the same original op (the header's original_op.name, else the last of
//     the "original_names" attr), found among B's original_op names and
//     converted names. Inputs are not paired then: a fused operator's weights
//     differ from its parts' by design (BatchNorm folded into Conv).
// A .npy folder is a set of operators with one output each: `X.npy` is the
// output of operator (or original op) X; `F.output.<i>.npy` and
// `F.input.<i>.npy` (what `dump convert` writes for dump file F) are the
// tensors of F's operator.
//
// The first diverging operator is the first one, in A's execution order,
// whose outputs are outside the tolerance while its inputs are inside it;
// when its inputs were not compared (output-only dumps, .npy references,
// original-name matches), while every earlier operator's outputs were inside.
#ifndef ACLDUMP_TOOLS_DUMP_COMPARE_H_
#define ACLDUMP_TOOLS_DUMP_COMPARE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tools/compare_metrics.h"

namespace acldump::tools {

struct TensorRef {
  bool is_input = false;
  uint32_t position = 0;    // among the op's inputs or outputs
  std::string original_op;  // outputs: the original op that produced it
  uint32_t original_index = 0;
};

struct OpRecord {
  std::string name;  // converted name
  std::string type;
  std::vector<std::string> original_names;
  std::vector<TensorRef> inputs, outputs;
  uint32_t task_id = 0;
  uint64_t timestamp_us = 0;
  std::string path;  // dump file; for .npy sides the folder + file stem
  // .npy sides: the file of each tensor.
  std::vector<std::string> input_files, output_files;
};

enum class SideKind { kDump, kNpy };

struct CompareSide {
  SideKind kind = SideKind::kDump;
  std::string root;
  std::string description;
  std::vector<OpRecord> ops;       // execution order (dumps) or by name (.npy)
  std::vector<std::string> notes;  // how a folder of the tree was chosen
};

// Which folder of a dump tree to compare when it holds several.
struct SideSelection {
  std::optional<int64_t> iteration;
  std::string model;  // model folder name; empty = any
};

// Reads `path`: a dump tree (any level; one folder of it is chosen: the
// selection, then the latest time, the lowest device, model id and
// iteration, with a note) or a folder of .npy files. Only headers are read.
absl::StatusOr<CompareSide> LoadCompareSide(const std::string& path,
                                            const SideSelection& selection);

enum class MatchKind { kNone, kConvertedName, kOriginalName };
enum class Verdict { kNotCompared, kMatch, kDiff };

struct TensorComparison {
  bool is_input = false;
  uint32_t position = 0;
  std::string b_label;  // "relu1 output 0"
  std::string shape_a, shape_b, dtype_a, dtype_b;
  std::string problem;  // non-empty: not comparable (shape, unreadable)
  TensorMetrics metrics;
  ToleranceCheck tolerance;
  bool within() const { return problem.empty() && tolerance.within; }
};

struct OpComparison {
  const OpRecord* a = nullptr;
  MatchKind match = MatchKind::kNone;
  std::string b_name;  // counterpart operator(s)
  std::vector<TensorComparison> tensors;
  Verdict inputs = Verdict::kNotCompared;
  Verdict outputs = Verdict::kNotCompared;
};

struct CompareOptions {
  double atol = 1e-3;
  double rtol = 1e-3;
};

struct CompareResult {
  std::vector<OpComparison> ops;           // every op of A, execution order
  std::optional<size_t> first_divergence;  // index into ops
  std::string divergence_note;             // why, or why none could be named
  size_t tensors_compared = 0;
  size_t tensors_outside = 0;
  std::vector<std::string> only_in_b;  // B operators nothing matched

  bool within() const { return tensors_compared > 0 && tensors_outside == 0; }
};

// Pairs and compares. The result points into `a`, which must outlive it.
// Unreadable tensors become rows with a problem (and count as outside the
// tolerance); errors only for option mistakes.
CompareResult CompareSides(const CompareSide& a, const CompareSide& b,
                           const CompareOptions& options);
CompareResult CompareSides(CompareSide&& a, const CompareSide& b,
                           const CompareOptions& options) = delete;

std::string_view MatchKindName(MatchKind kind);

}  // namespace acldump::tools

#endif  // ACLDUMP_TOOLS_DUMP_COMPARE_H_
