// `dump run`: executes models with a dump config the way an application does,
// through the C ABI: aclInit -> aclrtSetDevice -> aclmdlInitDump ->
// aclmdlSetDump -> load -> execute N -> aclmdlFinalizeDump -> unload ->
// aclFinalize. Optionally the models are loaded again after FinalizeDump and
// run without dump, to measure what dumping costs.
#ifndef ACLDUMP_TOOLS_RUN_RUN_H_
#define ACLDUMP_TOOLS_RUN_RUN_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "kernels/tensor.h"

namespace acldump::tools {

// Where the tools write by default: one folder in the working directory, the
// model outputs of `dump run` in it.
inline constexpr char kOutputFolder[] = "acldump_output";
inline constexpr char kDefaultOutputDir[] = "acldump_output/outputs";

struct RunOptions {
  std::vector<std::string> models;  // .om, or .onnx (converted first)
  std::string config;               // acl.json with a "dump" section
  // One .npy per model input, in input order, or "name=file.npy". Only with
  // a single model. Missing inputs get seeded random data.
  std::vector<std::string> inputs;
  uint64_t iterations = 1;
  int32_t device = 0;
  uint64_t seed = 0;
  // Model outputs of the last iteration go here as
  // `{model}.output.{name}.npy`; empty = kDefaultOutputDir in the working
  // directory (never inside dump_path, which holds only what the SDK puts
  // there).
  std::string output_dir;
  bool measure_without_dump = false;
};

struct ModelRun {
  std::string path;  // as given
  std::string name;  // file stem: the dump_list model_name
  uint32_t model_id = 0;
  std::vector<std::string> inputs;   // "input float32[1,3,32,32] from x.npy"
  std::vector<std::string> outputs;  // .npy files written
  double seconds_with_dump = 0;      // the execute loop
  double first_with_dump = 0;        // its first iteration (allocations)
  double seconds_without_dump = -1;  // < 0: not measured
};

struct RunSummary {
  std::string config_description;  // DescribeDumpConfig
  std::string dump_root;           // dump_path, resolved ("" if none)
  uint64_t iterations = 0;
  int32_t device = 0;
  std::vector<ModelRun> models;
  double finalize_seconds = 0;  // aclmdlFinalizeDump: flushing the writer
  // Dump files this run added under dump_root.
  size_t files = 0;
  uint64_t bytes = 0;
  std::vector<std::string> folders;  // their folders, in layout order
  std::string first_file;            // a tensor dump, for `dump show`
  // dump_baseline: the baseline, and one line per iteration that departed
  // from it (none: everything compared matched).
  std::string baseline;
  std::vector<std::string> baseline_lines;
  // aclmdlFinalizeDump's verdict: dump files that could not be written. The
  // run still completes and saves the model outputs.
  absl::Status dump_status;
  // What the plan said before the run: warnings (layers that match nothing,
  // with the nearest names), and why nothing was dumped when the config
  // selects nothing the run executes (one reason per model).
  std::vector<std::string> warnings;
  std::vector<std::string> nothing_reasons;
  bool nothing_selected = false;  // every model's plan selects nothing
};

// Errors carry the failing ACL call, its aclError name and code, the
// library's message, and a hint (HintOf).
absl::StatusOr<RunSummary> RunWithDump(const RunOptions& options);

// Seeded random data for a model input: normal(0, 1) for floats, 0..9 for
// integers, 0/1 for bool. `dump run` and `dump reference` make the same
// inputs from the same seed.
void FillRandom(const TensorView& view, uint64_t seed);

// The summary `dump run` prints.
std::string FormatRunSummary(const RunSummary& summary);
// The same as JSON (schema "acldump.run/1"): every field of the summary;
// times in seconds, "dump_error" null or the message of a dump that could not
// be written.
std::string RunSummaryJson(const RunSummary& summary);

}  // namespace acldump::tools

#endif  // ACLDUMP_TOOLS_RUN_RUN_H_
