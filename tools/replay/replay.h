// `dump replay`: one operator re-run from its dump file (a tensor dump of
// dump_mode "all": every input and output). The operator, as the model
// compiled it (fused, the same kernel and constants), runs alone on the
// dumped inputs: a faithful replay reproduces the dumped outputs bit for bit.
// With the ONNX model, the original (unfused) operators it stands for also
// run, in float64 wherever a kernel accepts it, and each output is measured
// against that result (rounded once to the output's type).
#ifndef ACLDUMP_TOOLS_REPLAY_REPLAY_H_
#define ACLDUMP_TOOLS_REPLAY_REPLAY_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/graph.h"

namespace acldump::tools {

struct ReplayOptions {
  std::string dump_file;
  std::string model;        // .onnx (both paths) or .om (the fused path)
  std::string input_shape;  // "x:1,3,224,224" for symbolic ONNX dimensions
};

// How far one tensor is from another of the same type and shape.
struct Distance {
  uint64_t elements = 0;
  uint64_t differing = 0;  // elements whose bits differ
  // As `dump compare` measures them, against the second tensor.
  double max_abs = 0;
  double max_rel = 0;
  double cosine = 1;
  bool nonfinite_mismatch = false;  // NaN/Inf on one side only
  uint64_t max_ulps = 0;  // float types: representable values in between
};

struct ReplayOutput {
  uint32_t index = 0;
  std::string tensor;      // "float32[1,16,32,32]"
  Distance fused_vs_dump;  // differing == 0: reproduced bit for bit
  // With the unfused float64 path: each against its result.
  std::optional<Distance> dump_vs_float64;
  std::optional<Distance> fused_vs_float64;
};

struct ReplayResult {
  std::string op_name;
  std::string op_type;
  std::vector<std::string> original_names;
  std::vector<std::string> inputs;  // "x float32[1,3,32,32]"
  std::vector<ReplayOutput> outputs;
  bool reproduced = false;  // every output bit for bit
  // The float64 path: the original operators run, and how many of them ran
  // in float64; or why it did not run.
  std::vector<std::string> float64_operators;
  size_t float64_nodes = 0;
  std::string float64_note;
};

// The graph of `model` as acldump runs it: an .om file as written, an .onnx
// file converted (with fusion when `fused`, else as the unfused reference
// engine converts it). `input_shape` pins symbolic ONNX dimensions.
absl::StatusOr<Graph> ReadModelGraph(const std::string& model,
                                     const std::string& input_shape,
                                     bool fused);
bool IsOnnxModel(const std::string& path);

// Errors: the dump file cannot be read or holds no inputs (dump_mode
// "output"), the model has no such operator, the dump does not fit it.
absl::StatusOr<ReplayResult> Replay(const ReplayOptions& options);

std::string FormatReplay(const ReplayResult& result);
// The result as JSON (schema acldump.replay/1).
std::string ReplayJson(const ReplayResult& result);

}  // namespace acldump::tools

#endif  // ACLDUMP_TOOLS_REPLAY_REPLAY_H_
