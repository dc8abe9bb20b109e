// `dump run`, and what the tool does with no command: run the bundled model
// with a built-in dump config.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "base/strings.h"
#include "tools/cli/command.h"
#include "tools/cli/runfiles.h"
#include "tools/common/cli_util.h"
#include "tools/run/run.h"

namespace acldump::tools {
namespace {

namespace fs = std::filesystem;

// The run's verdict on its dump: the model outputs are saved either way.
// A config that selected nothing the run executed is exit 3, with the
// reasons in the summary.
int ReportDump(std::string_view command, const RunSummary& summary) {
  if (!summary.dump_status.ok()) {
    return FailWith(command, summary.dump_status,
                    "the model outputs were saved; free space in dump_path or "
                    "dump fewer layers (dump_data stats, a layer list)",
                    kExitFailure);
  }
  if (summary.nothing_selected && summary.files == 0) {
    return Fail(
        command, "the dump config selected nothing this run executes",
        StrCat(StrJoin(summary.nothing_reasons, "; "), " (exit code 3)"),
        kExitNothingDumped);
  }
  return 0;
}

class RunCommand final : public Command {
 public:
  CLI::App* Setup(CLI::App& app) override {
    CLI::App* run = app.add_subcommand(
        "run",
        "Execute models through the C ABI with a dump config (aclInit, "
        "aclmdlInitDump, aclmdlSetDump, load, execute, aclmdlFinalizeDump, "
        "unload, aclFinalize).");
    run->add_option("--model,-m", options_.models,
                    ".om model, or .onnx (converted on the fly); repeatable")
        ->required();
    run->add_option("--config,-c", options_.config,
                    "acl.json with a \"dump\" section")
        ->required();
    run->add_option("--input,-i", options_.inputs,
                    ".npy per model input (in order, or name=file.npy); the "
                    "rest are seeded random");
    run->add_option("--iterations,-n", options_.iterations,
                    "executions per model")
        ->capture_default_str();
    run->add_option("--device,-d", options_.device,
                    "device id written into the dump layout (0..1023)")
        ->capture_default_str();
    run->add_option("--seed", options_.seed, "seed of random inputs")
        ->capture_default_str();
    run->add_option("--output-dir,-o", options_.output_dir,
                    "write the model outputs of the last iteration here as "
                    "{model}.output.{name}.npy (default: "
                    "./acldump_output/outputs)");
    run->add_option("--json", json_,
                    "write the summary as JSON (schema acldump.run/1) to this "
                    "file, or to stdout with -");
    run->add_flag("--timing", options_.measure_without_dump,
                  "also run without dump (reloading after aclmdlFinalizeDump) "
                  "and report both times");
    run->footer(
        "Exit codes: 0 dumped, 1 failed (also when the dump could not be "
        "written; the model outputs are saved first), 2 usage, 3 the config "
        "selected nothing this run executes (wrong model_name, layers that "
        "match nothing, dump_step beyond the iterations).\n"
        "Example: bazel run //tools:dump -- run --model "
        "testdata/resnet_tiny.onnx --config acl.json --input "
        "testdata/resnet_tiny.input.input.npy --iterations 3 --output-dir out "
        "--timing");
    return run;
  }

  int Run(const ToolContext&) override {
    absl::StatusOr<RunSummary> summary = RunWithDump(options_);
    if (!summary.ok()) {
      return FailWith("run", summary.status(),
                      "`dump run --help` shows the options and an example",
                      kExitFailure);
    }
    if (json_ != "-") std::fputs(FormatRunSummary(*summary).c_str(), stdout);
    if (!json_.empty()) {
      absl::Status written = WriteTextOutput(json_, RunSummaryJson(*summary));
      if (!written.ok()) {
        return FailWith("run", written, "", kExitFailure);
      }
    }
    return ReportDump("run", *summary);
  }

 private:
  RunOptions options_;
  std::string json_;
};

// Every operator's outputs, every iteration, full tensors, into `out`.
absl::Status WriteDefaultConfig(const std::string& dump_path,
                                const std::string& config) {
  std::error_code error;
  fs::create_directories(dump_path, error);
  if (error) {
    return absl::PermissionDeniedError(
        StrCat("cannot create ", dump_path, ": ", error.message()));
  }
  std::ofstream file(config);
  file << "{\n  \"dump\": {\n    \"dump_path\": \"" << dump_path
       << "\",\n    \"dump_list\": [{\"model_name\": \"resnet_tiny\"}],\n"
          "    \"dump_mode\": \"output\",\n    \"dump_data\": \"tensor\"\n"
          "  }\n}\n";
  if (!file) {
    return absl::PermissionDeniedError(StrCat("cannot write ", config));
  }
  return absl::OkStatus();
}

// The commands worth trying on what the default run wrote.
void PrintNextSteps(const ToolContext& context, const RunSummary& summary,
                    const std::string& out, const std::string& config,
                    const std::string& model) {
  std::printf("\nNext, try:\n");
  auto suggest = [&](const std::string& what, const std::string& args) {
    std::printf("  %s\n    %s %s\n", what.c_str(), context.invocation.c_str(),
                args.c_str());
  };
  suggest("list the dump tree (time / device / model / id / iteration / ops):",
          StrCat("ls ", DisplayPath(out), " --summary"));
  if (!summary.first_file.empty()) {
    suggest("look inside one dump file (header, shapes, statistics):",
            StrCat("show ", DisplayPath(summary.first_file)));
  }
  if (!summary.folders.empty()) {
    const std::string first = DisplayPath(summary.folders.front());
    std::string reference;
    if (const char* ws = std::getenv("BUILD_WORKSPACE_DIRECTORY")) {
      reference = StrCat(ws, "/testdata/reference/resnet_tiny");
    } else if (auto r = Rlocation(*context.runfiles,
                                  "testdata/reference/resnet_tiny")) {
      reference = *r;
    }
    suggest(
        "summarise statistics, flag NaN/Inf and extreme values:",
        StrCat("stats ",
               DisplayPath(
                   fs::path(summary.folders.front()).parent_path().string())));
    if (!reference.empty() && fs::exists(reference)) {
      suggest(
          "compare with the PyTorch reference outputs (and write a report):",
          StrCat("compare ", first, " ", DisplayPath(reference),
                 " --report compare.html"));
    }
    if (summary.folders.size() > 1) {
      suggest("compare the two iterations (they must agree):",
              StrCat("compare ", first, " ", DisplayPath(summary.folders[1])));
    }
    suggest("convert the tensors to .npy:",
            StrCat("convert ", first, " --out resnet_tiny_npy"));
  }
  const char* workspace = std::getenv("BUILD_WORKSPACE_DIRECTORY");
  suggest("check a config against a model before running it:",
          StrCat("check-config ", DisplayPath(config), " --model ",
                 workspace ? DisplayPath(StrCat(workspace,
                                                "/testdata/resnet_tiny.onnx"))
                           : model));
  suggest("see every command:", "--help");
}

}  // namespace

std::unique_ptr<Command> MakeRunCommand() {
  return std::make_unique<RunCommand>();
}

int RunDefault(const ToolContext& context) {
  const char* hint =
      "run it as `bazel run //tools:dump` or from an installed release "
      "(both provide the bundled model), or use `dump run --model M --config "
      "acl.json`";
  if (!context.runfiles) {
    return Fail("", "cannot find the runfiles with the bundled model", hint,
                kExitFailure);
  }
  const std::optional<std::string> model =
      Rlocation(*context.runfiles, "testdata/resnet_tiny.om");
  const std::optional<std::string> input =
      Rlocation(*context.runfiles, "testdata/resnet_tiny.input.input.npy");
  if (!model || !input) {
    return Fail("",
                StrCat("the bundled model is missing from ", *context.runfiles),
                hint, kExitFailure);
  }
  // One folder for all it writes: the dump tree (dump_path holds only what
  // the SDK would put there), the config and the model outputs beside it.
  const std::string out = Absolute(kOutputFolder);
  const std::string dump_path = out + "/dump";
  const std::string config = out + "/acl.json";
  absl::Status written = WriteDefaultConfig(dump_path, config);
  if (!written.ok()) {
    return FailWith("", written, "run it from a directory you can write to",
                    kExitFailure);
  }
  RunOptions options;
  options.models = {*model};
  options.config = config;
  options.inputs = {*input};
  options.iterations = 2;
  options.output_dir = out + "/outputs";
  options.measure_without_dump = true;
  absl::StatusOr<RunSummary> summary = RunWithDump(options);
  if (!summary.ok()) return FailWith("", summary.status(), "", kExitFailure);
  // Bundled files by their place in the source tree, not the runfiles path.
  const std::string prefix = *context.runfiles + "/acldump/";
  auto shorten = [&](std::string& text) {
    for (size_t at; (at = text.find(prefix)) != std::string::npos;) {
      text.erase(at, prefix.size());
    }
  };
  for (ModelRun& run : summary->models) {
    shorten(run.path);
    for (std::string& in : run.inputs) shorten(in);
  }
  std::printf(
      "acldump: no command given, so this ran the bundled ResNet-style model "
      "(resnet_tiny.om) on its bundled input "
      "(testdata/resnet_tiny.input.input.npy) with a built-in dump config: "
      "every operator's outputs, 2 iterations, into %s (config saved as "
      "%s, model outputs in %s).\n\n",
      DisplayPath(dump_path).c_str(), DisplayPath(config).c_str(),
      DisplayPath(options.output_dir).c_str());
  std::fputs(FormatRunSummary(*summary).c_str(), stdout);
  PrintNextSteps(context, *summary, dump_path, config, *model);
  return ReportDump("", *summary);
}

}  // namespace acldump::tools
