// `dump replay`: one operator re-run from its dump file, fused (bit for bit)
// and, with the ONNX model, its original operators in float64.
#include <cstdio>

#include "base/strings.h"
#include "tools/cli/command.h"
#include "tools/common/cli_util.h"
#include "tools/replay/replay.h"

namespace acldump::tools {
namespace {

class ReplayCommand final : public Command {
 public:
  CLI::App* Setup(CLI::App& app) override {
    CLI::App* replay = app.add_subcommand(
        "replay",
        "Re-run one operator from its dump file (a dump of dump_mode all): "
        "the fused kernel alone must reproduce the dumped outputs bit for "
        "bit; with the ONNX model, the original operators also run in "
        "float64 and each output is measured against that result.");
    replay->add_option("FILE", options_.dump_file, "a dump file")->required();
    replay
        ->add_option("--model,-m", options_.model,
                     "the model the dump was made from (.onnx for the float64 "
                     "path, or .om)")
        ->required();
    replay->add_option("--input-shape", options_.input_shape,
                       "pin symbolic ONNX input dimensions, x:1,3,224,224");
    replay->add_option("--json", json_,
                       "write the result as JSON (schema acldump.replay/1) to "
                       "this file; - for stdout");
    replay->footer(
        "Exit: 0 reproduced bit for bit, 1 not reproduced or cannot replay, 2 "
        "usage.\nExample: bazel run //tools:dump -- replay "
        "acldump_output/20250101120000/0/resnet_tiny/1/0/"
        "Conv.conv1bn1relu1.0.0.1735732800000000 -m "
        "testdata/resnet_tiny.onnx");
    return replay;
  }

  int Run(const ToolContext&) override {
    absl::StatusOr<ReplayResult> result = Replay(options_);
    if (!result.ok()) {
      return FailWith("replay", result.status(),
                      "dump the operator with \"dump_mode\": \"all\" and give "
                      "the model it came from",
                      kExitFailure);
    }
    if (json_ != "-") std::fputs(FormatReplay(*result).c_str(), stdout);
    if (!json_.empty()) {
      absl::Status written = WriteTextOutput(json_, ReplayJson(*result));
      if (!written.ok()) return FailWith("replay", written, "", kExitUsage);
    }
    return result->reproduced ? 0 : kExitFailure;
  }

 private:
  ReplayOptions options_;
  std::string json_;
};

}  // namespace

std::unique_ptr<Command> MakeReplayCommand() {
  return std::make_unique<ReplayCommand>();
}

}  // namespace acldump::tools
