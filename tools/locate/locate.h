// `dump locate`: the first operator whose output departs from a reference
// beyond a tolerance, found by bisection over the execution order. Each step
// runs the model once and dumps one operator's outputs (nothing else), so a
// model of n operators costs about log2(n) + 1 runs and as many small files,
// instead of a dump of every tensor. Departures are assumed to last: once an
// operator's output is outside the tolerance, every later comparable one is.
#ifndef ACLDUMP_TOOLS_LOCATE_LOCATE_H_
#define ACLDUMP_TOOLS_LOCATE_LOCATE_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "kernels/op_registry.h"

namespace acldump::tools {

struct LocateOptions {
  std::string model;                // .onnx, or .om with `reference` given
  std::vector<std::string> inputs;  // .npy per input, in order or name=file
  uint64_t seed = 0;                // inputs not given: as `dump run --seed`
  std::string input_shape;          // "x:1,3,224,224"
  // A folder of references (`dump reference`) or another dump tree; empty:
  // made first with `engine` from the same inputs.
  std::string reference;
  std::string engine = "auto";  // as `dump reference --engine`
  std::string ort_dir;
  double atol = 1e-3;
  double rtol = 1e-3;
  // Where the steps dump (kept); empty: a temporary folder, removed.
  std::string work_dir;
  // The kernels the model runs on; null: the built-in ones. Tests plant a
  // faulty kernel through a copy of the built-in registry.
  const OpRegistry* registry = nullptr;
};

struct LocateStep {
  size_t position = 0;  // in execution order, from 0
  std::string op_name;
  std::string op_type;
  bool within = false;
  std::string detail;  // "max |diff| 0.5 at [0,0,0,0] (atol 0.001 ...)"
};

struct LocateResult {
  size_t operators = 0;           // in the model's execution order
  size_t comparable = 0;          // those with a reference counterpart
  std::string reference;          // what the reference is
  std::vector<LocateStep> steps;  // in the order they ran
  // The first operator outside the tolerance; none when the last
  // comparable operator is within it.
  std::optional<LocateStep> first;
  // The comparable operator before it (within the tolerance), if any.
  std::optional<LocateStep> before;
};

absl::StatusOr<LocateResult> Locate(const LocateOptions& options);

std::string FormatLocate(const LocateResult& result);
std::string LocateJson(const LocateResult& result);  // acldump.locate/1

}  // namespace acldump::tools

#endif  // ACLDUMP_TOOLS_LOCATE_LOCATE_H_
