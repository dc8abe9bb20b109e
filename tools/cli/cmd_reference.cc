// `dump reference`: every node's outputs of an ONNX model from an engine
// other than the one under test, for `dump compare`.
#include <cstdio>

#include "base/strings.h"
#include "tools/cli/command.h"
#include "tools/common/cli_util.h"
#include "tools/reference/engine.h"

namespace acldump::tools {
namespace {

class ReferenceCommand final : public Command {
 public:
  CLI::App* Setup(CLI::App& app) override {
    CLI::App* reference = app.add_subcommand(
        "reference",
        "Write every node's outputs of an ONNX model (and its inputs) as "
        "{node}.output.{i}.npy, from ONNX Runtime (node + onnxruntime-node) "
        "or from this runtime without fusion in float64: references "
        "`dump compare` reads.");
    reference->add_option("--model,-m", options_.model, ".onnx model")
        ->required();
    reference->add_option("--input,-i", options_.inputs,
                          ".npy per model input (in order, or name=file.npy); "
                          "the rest are seeded random, as `dump run` makes "
                          "them");
    reference->add_option("--out,-o", options_.out_dir, "output folder")
        ->required();
    reference
        ->add_option("--engine", options_.engine,
                     "onnxruntime, acldump-unfused, or auto (onnxruntime "
                     "when found, else acldump-unfused)")
        ->check(CLI::IsMember({"auto", "onnxruntime", "acldump-unfused"}))
        ->capture_default_str();
    reference->add_option(
        "--ort-dir", options_.ort_dir,
        StrCat("folder where `", kOrtInstallCommand,
               "` was run (else $NODE_PATH and ./node_modules are searched)"));
    reference->add_option("--input-shape", options_.input_shape,
                          "static shapes for symbolic input dimensions, e.g. "
                          "\"x:1,3,224,224\" (as `convert --input-shape`)");
    reference->add_option("--seed", options_.seed, "seed of random inputs")
        ->capture_default_str();
    reference->footer(
        "Example: bazel run //tools:dump -- reference --model "
        "testdata/resnet_tiny.onnx --input "
        "testdata/resnet_tiny.input.input.npy "
        "--out ref\n"
        "then:    bazel run //tools:dump -- compare acldump_output ref");
    return reference;
  }

  int Run(const ToolContext&) override {
    absl::StatusOr<ReferenceSummary> summary = WriteReferences(options_);
    if (!summary.ok()) {
      return FailWith("reference", summary.status(),
                      "`dump reference --help` shows the options and an "
                      "example",
                      kExitFailure);
    }
    std::printf("references of %s by %s\n", options_.model.c_str(),
                summary->engine.c_str());
    if (!summary->engine_note.empty()) {
      std::printf("  engine   %s\n", summary->engine_note.c_str());
    }
    for (const std::string& input : summary->inputs) {
      std::printf("  input    %s\n", input.c_str());
    }
    std::printf(
        "  wrote    %zu .npy files (%zu nodes and the inputs), %s, "
        "into %s\n",
        summary->files, summary->nodes, HumanBytes(summary->bytes).c_str(),
        options_.out_dir.c_str());
    for (const std::string& skipped : summary->skipped) {
      std::printf("  skipped  %s\n", skipped.c_str());
    }
    return 0;
  }

 private:
  ReferenceOptions options_;
};

}  // namespace

std::unique_ptr<Command> MakeReferenceCommand() {
  return std::make_unique<ReferenceCommand>();
}

}  // namespace acldump::tools
