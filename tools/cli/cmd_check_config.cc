// `dump check-config`: validate an acl.json as aclmdlSetDump does; with a
// model, show the dump plan.
#include <cstdio>
#include <fstream>

#include "acl/acl_base.h"
#include "tools/cli/command.h"
#include "tools/common/cli_util.h"
#include "tools/run/check_config.h"

namespace acldump::tools {
namespace {

class CheckConfigCommand final : public Command {
 public:
  CLI::App* Setup(CLI::App& app) override {
    CLI::App* check = app.add_subcommand(
        "check-config",
        "Validate an acl.json dump config exactly as aclmdlSetDump does; with "
        "--model, show the dump plan (operators, tensors, files and bytes per "
        "iteration) without running.");
    check->add_option("acl.json", path_, "the config file")->required();
    check->add_option("--model,-m", model_, ".om or .onnx model to plan for");
    check->add_option("--json", json_,
                      "write the verdict, warnings and plan as JSON (schema "
                      "acldump.check-config/1) to this file; - for stdout");
    check->footer(
        "Checks, in order: the file (exists, <= 10 MiB, JSON, depth <= 10), "
        "the dump key, value types, enum values, constraints (dump_path "
        "exists and is writable, dump_step syntax, conflicts).\n"
        "Example: bazel run //tools:dump -- check-config acl.json --model "
        "testdata/resnet_tiny.onnx");
    return check;
  }

  int Run(const ToolContext&) override {
    absl::StatusOr<ConfigCheck> check = CheckConfig(path_, model_);
    if (!check.ok()) {
      return FailWith("check-config", check.status(), "", kExitFailure);
    }
    if (!json_.empty()) {
      absl::Status written =
          WriteTextOutput(json_, ConfigCheckJson(path_, *check));
      if (!written.ok()) {
        return FailWith("check-config", written, "", kExitFailure);
      }
      if (json_ == "-") return check->valid ? 0 : kExitFailure;
    }
    if (!check->valid) {
      const char* hint =
          check->acl_error == ACL_ERROR_INVALID_FILE
              ? "check the path: relative paths are taken from the directory "
                "you ran the command in"
          : check->acl_error == ACL_ERROR_PARSE_FILE
              ? "the file must be JSON (no comments, no trailing commas)"
              : "fix the item named in the message; `dump check-config --help` "
                "lists the checks";
      return Fail("check-config",
                  check->report.substr(0, check->report.size() - 1), hint,
                  kExitFailure);
    }
    std::fputs(check->report.c_str(), stdout);
    return 0;
  }

 private:
  std::string path_;
  std::string model_;
  std::string json_;
};

}  // namespace

std::unique_ptr<Command> MakeCheckConfigCommand() {
  return std::make_unique<CheckConfigCommand>();
}

}  // namespace acldump::tools
