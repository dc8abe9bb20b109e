// `dump locate`: bisection to the first operator whose output departs from a
// reference, one operator dumped per run.
#include <cstdio>

#include "base/strings.h"
#include "tools/cli/command.h"
#include "tools/common/cli_util.h"
#include "tools/locate/locate.h"

namespace acldump::tools {
namespace {

class LocateCommand final : public Command {
 public:
  CLI::App* Setup(CLI::App& app) override {
    CLI::App* locate = app.add_subcommand(
        "locate",
        "Find the first operator whose output departs from a reference beyond "
        "the tolerance by bisection: each step runs the model once and dumps "
        "one operator's outputs, about log2(operators) + 1 runs in all.");
    locate
        ->add_option("--model,-m", options_.model,
                     "the model (.onnx; .om "
                     "with --reference)")
        ->required();
    locate->add_option("--input,-i", options_.inputs,
                       ".npy per model input (in order, or name=file); "
                       "missing inputs are seeded random");
    locate->add_option("--seed", options_.seed, "seed of random inputs")
        ->capture_default_str();
    locate->add_option("--input-shape", options_.input_shape,
                       "pin symbolic ONNX input dimensions, x:1,3,224,224");
    locate->add_option("--reference", options_.reference,
                       "a reference folder (dump reference) or a dump tree; "
                       "default: made first by --engine from the same inputs");
    locate
        ->add_option("--engine", options_.engine,
                     "auto, onnxruntime or acldump-unfused (as dump "
                     "reference)")
        ->capture_default_str();
    locate->add_option("--ort-dir", options_.ort_dir,
                       "where onnxruntime-node is installed");
    locate->add_option("--atol", options_.atol)->capture_default_str();
    locate->add_option("--rtol", options_.rtol)->capture_default_str();
    locate->add_option("--keep", options_.work_dir,
                       "keep each step's dump (and the references) here");
    locate->add_option("--json", json_,
                       "write the steps and the result as JSON (schema "
                       "acldump.locate/1) to this file; - for stdout");
    locate->footer(
        "Exit: 0 nothing departs, 1 an operator departs (named), 2 usage or "
        "cannot locate.\nExample: bazel run //tools:dump -- locate -m "
        "testdata/resnet_tiny.onnx -i testdata/resnet_tiny.input.input.npy "
        "--engine acldump-unfused");
    return locate;
  }

  int Run(const ToolContext&) override {
    absl::StatusOr<LocateResult> result = Locate(options_);
    if (!result.ok()) {
      return FailWith("locate", result.status(),
                      "give an .onnx model (the reference engines run it) or "
                      "--reference with references of this model",
                      kExitUsage);
    }
    if (json_ != "-") std::fputs(FormatLocate(*result).c_str(), stdout);
    if (!json_.empty()) {
      absl::Status written = WriteTextOutput(json_, LocateJson(*result));
      if (!written.ok()) return FailWith("locate", written, "", kExitUsage);
    }
    return result->first ? kExitFailure : 0;
  }

 private:
  LocateOptions options_;
  std::string json_;
};

}  // namespace

std::unique_ptr<Command> MakeLocateCommand() {
  return std::make_unique<LocateCommand>();
}

}  // namespace acldump::tools
