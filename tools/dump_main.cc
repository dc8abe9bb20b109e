// `dump`: run models with dump, and inspect, convert, summarise and compare
// dumps. `bazel run //tools:dump` alone runs the bundled model with a
// built-in config and says what to try next. Exit codes: 0 success (compare:
// within tolerance), 1 failure (compare: outside tolerance), 2 usage errors
// (compare: anything that prevented comparing).
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "acl/acl_base.h"
#include "base/strings.h"
#include "dump/format/dump_tree.h"
#include "tools/check_config.h"
#include "tools/cli_util.h"
#include "tools/compare_metrics.h"
#include "tools/compare_report.h"
#include "tools/dump_compare.h"
#include "tools/dump_convert.h"
#include "tools/dump_ls.h"
#include "tools/dump_run.h"
#include "tools/dump_show.h"
#include "tools/dump_stats.h"
#include "tools/runfiles.h"

namespace acldump::tools {
namespace {

namespace fs = std::filesystem;

constexpr int kUsage = 2;

// How the user invokes this tool, for the commands we suggest.
std::string Invocation(const char* argv0) {
  if (std::getenv("BUILD_WORKING_DIRECTORY") != nullptr) {
    return "bazel run //tools:dump --";
  }
  return argv0;
}

std::string Absolute(const std::string& path) {
  std::error_code error;
  return fs::absolute(path, error).lexically_normal().string();
}

// Prints a failed status as one line plus its hint (or `hint`).
int FailWith(std::string_view command, const absl::Status& status,
             std::string_view hint, int exit_code) {
  const std::string attached = HintOf(status);
  return Fail(command, ToStd(status.message()),
              attached.empty() ? hint : std::string_view(attached), exit_code);
}

// ---- run ----------------------------------------------------------------

int Run(const RunOptions& options) {
  absl::StatusOr<RunSummary> summary = RunWithDump(options);
  if (!summary.ok()) {
    return FailWith("run", summary.status(),
                    "`dump run --help` shows the options and an example", 1);
  }
  std::fputs(FormatRunSummary(*summary).c_str(), stdout);
  return 0;
}

// ---- the default: no command ------------------------------------------------

int DefaultRun(const std::optional<std::string>& runfiles, const char* argv0) {
  const char* hint =
      "run it as `bazel run //tools:dump` (that provides the bundled model), "
      "or use `dump run --model M --config acl.json`";
  if (!runfiles) {
    return Fail("", "cannot find the runfiles with the bundled model", hint, 1);
  }
  const std::optional<std::string> model =
      Rlocation(*runfiles, "testdata/resnet_tiny.om");
  const std::optional<std::string> input =
      Rlocation(*runfiles, "testdata/resnet_tiny.input.input.npy");
  if (!model || !input) {
    return Fail("", StrCat("the bundled model is missing from ", *runfiles),
                hint, 1);
  }
  const std::string out = Absolute("acldump_output");
  std::error_code error;
  fs::create_directories(out, error);
  if (error) {
    return Fail("", StrCat("cannot create ", out, ": ", error.message()),
                "run it from a directory you can write to", 1);
  }
  const std::string config = out + "/acl.json";
  {
    // Every operator's outputs, every iteration, full tensors.
    std::ofstream file(config);
    file << "{\n  \"dump\": {\n    \"dump_path\": \"" << out
         << "\",\n    \"dump_list\": [{\"model_name\": \"resnet_tiny\"}],\n"
            "    \"dump_mode\": \"output\",\n    \"dump_data\": \"tensor\"\n"
            "  }\n}\n";
    if (!file) {
      return Fail("", StrCat("cannot write ", config), "check permissions", 1);
    }
  }
  RunOptions options;
  options.models = {*model};
  options.config = config;
  options.inputs = {*input};
  options.iterations = 2;
  options.output_dir = out + "/outputs";
  options.measure_without_dump = true;
  absl::StatusOr<RunSummary> summary = RunWithDump(options);
  if (!summary.ok()) return FailWith("", summary.status(), "", 1);
  // Bundled files by their place in the source tree, not the runfiles path.
  const std::string prefix = *runfiles + "/acldump/";
  auto shorten = [&](std::string& text) {
    for (size_t at; (at = text.find(prefix)) != std::string::npos;) {
      text.erase(at, prefix.size());
    }
  };
  for (ModelRun& run : summary->models) {
    shorten(run.path);
    for (std::string& input : run.inputs) shorten(input);
  }

  const std::string dump = Invocation(argv0);
  std::printf(
      "acldump: no command given, so this ran the bundled ResNet-style model "
      "(resnet_tiny.om) with a built-in dump config: every operator's "
      "outputs, 2 iterations, into %s (config saved as %s).\n\n",
      DisplayPath(out).c_str(), DisplayPath(config).c_str());
  std::fputs(FormatRunSummary(*summary).c_str(), stdout);

  std::printf("\nNext, try:\n");
  auto suggest = [&](const std::string& what, const std::string& args) {
    std::printf("  %s\n    %s %s\n", what.c_str(), dump.c_str(), args.c_str());
  };
  suggest("list the dump tree (time / device / model / id / iteration / ops):",
          StrCat("ls ", DisplayPath(out), " --summary"));
  if (!summary->first_file.empty()) {
    suggest("look inside one dump file (header, shapes, statistics):",
            StrCat("show ", DisplayPath(summary->first_file)));
  }
  if (!summary->folders.empty()) {
    const std::string first = DisplayPath(summary->folders.front());
    std::string reference;
    if (const char* ws = std::getenv("BUILD_WORKSPACE_DIRECTORY")) {
      reference = StrCat(ws, "/testdata/reference/resnet_tiny");
    } else if (auto r =
                   Rlocation(*runfiles, "testdata/reference/resnet_tiny")) {
      reference = *r;
    }
    suggest(
        "summarise statistics, flag NaN/Inf and extreme values:",
        StrCat("stats ",
               DisplayPath(
                   fs::path(summary->folders.front()).parent_path().string())));
    if (!reference.empty() && fs::exists(reference)) {
      suggest(
          "compare with the PyTorch reference outputs (and write a report):",
          StrCat("compare ", first, " ", DisplayPath(reference),
                 " --report compare.html"));
    }
    if (summary->folders.size() > 1) {
      suggest("compare the two iterations (they must agree):",
              StrCat("compare ", first, " ", DisplayPath(summary->folders[1])));
    }
    suggest("convert the tensors to .npy:",
            StrCat("convert ", first, " --out resnet_tiny_npy"));
  }
  suggest(
      "check a config against a model before running it:",
      StrCat("check-config ", DisplayPath(config), " --model ",
             std::getenv("BUILD_WORKSPACE_DIRECTORY")
                 ? DisplayPath(StrCat(std::getenv("BUILD_WORKSPACE_DIRECTORY"),
                                      "/testdata/resnet_tiny.onnx"))
                 : *model));
  suggest("see every command:", "--help");
  return 0;
}

// ---- check-config -----------------------------------------------------------

int CheckConfigCommand(const std::string& config, const std::string& model) {
  absl::StatusOr<ConfigCheck> check = CheckConfig(config, model);
  if (!check.ok()) {
    return FailWith("check-config", check.status(), "", 1);
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
                check->report.substr(0, check->report.size() - 1), hint, 1);
  }
  std::fputs(check->report.c_str(), stdout);
  return 0;
}

// ---- ls / show -------------------------------------------------------------

int Ls(const std::string& dir, bool summary) {
  absl::StatusOr<dump::DumpTree> tree = dump::ScanDumpTree(dir);
  if (!tree.ok()) {
    return FailWith("ls", tree.status(),
                    "give a dump_path, or any folder or file below it", 1);
  }
  std::fputs(FormatDumpTree(*tree, summary).c_str(), stdout);
  if (tree->runs.empty()) {
    std::fprintf(stderr, "dump ls: note: no dump files under '%s'\n",
                 dir.c_str());
  }
  return 0;
}

int Show(const std::vector<std::string>& files, size_t head) {
  int status = 0;
  for (size_t i = 0; i < files.size(); ++i) {
    absl::StatusOr<std::string> text = DescribeDumpFile(files[i], {head});
    if (!text.ok()) {
      status = FailWith("show", text.status(),
                        "show takes one dump file (or stats .csv); `dump ls "
                        "DIR` lists them",
                        1);
      continue;
    }
    if (i > 0) std::fputs("\n", stdout);
    std::fputs(text->c_str(), stdout);
  }
  return status;
}

// ---- convert ---------------------------------------------------------------

int Convert(const std::string& path, std::string out, const std::string& to) {
  absl::StatusOr<dump::DumpTree> tree = dump::ScanDumpTree(path);
  if (!tree.ok()) return FailWith("convert", tree.status(), "", 1);
  const std::string base = fs::path(Absolute(path)).filename().string().empty()
                               ? "dump"
                               : fs::path(Absolute(path)).filename().string();
  if (to == "csv") {
    absl::StatusOr<MergedStats> stats = MergeStats(*tree);
    if (!stats.ok()) {
      return FailWith("convert", stats.status(),
                      "point it at a dump folder with stats CSVs or tensor "
                      "dumps",
                      1);
    }
    if (out.empty()) out = base + "_stats.csv";
    std::ofstream file(out, std::ios::binary);
    file << MergedStatsCsv(*stats);
    if (!file) return Fail("convert", StrCat("cannot write ", out), "", 1);
    for (const std::string& problem : stats->problems) {
      std::fprintf(stderr, "dump convert: skipped %s\n", problem.c_str());
    }
    std::printf("wrote %zu rows (%zu stats CSV, %zu tensor dumps) to %s\n",
                stats->rows.size(), stats->stats_files, stats->tensor_files,
                out.c_str());
    return 0;
  }
  if (tree->CountKind(dump::EntryKind::kTensor) +
          tree->CountKind(dump::EntryKind::kStats) +
          tree->CountKind(dump::EntryKind::kOverflowRecord) ==
      0) {
    return Fail("convert", StrCat("no dump files under '", path, "'"),
                "give a dump file or a folder of the dump tree", 1);
  }
  if (out.empty()) out = base + "_npy";
  absl::StatusOr<ConvertSummary> summary = ConvertDumpToNpy(*tree, out);
  if (!summary.ok()) return FailWith("convert", summary.status(), "", 1);
  for (const std::string& skipped : summary->skipped) {
    std::fprintf(stderr, "dump convert: skipped %s\n", skipped.c_str());
  }
  std::printf(
      "converted %zu dump files to %zu .npy files, copied %zu CSV files: %s "
      "in %s\n",
      summary->dump_files, summary->npy_files, summary->copied,
      HumanBytes(summary->bytes_written).c_str(), out.c_str());
  return 0;
}

// ---- stats -----------------------------------------------------------------

int Stats(const std::string& dir, const std::string& csv,
          const StatsReportOptions& options) {
  absl::StatusOr<dump::DumpTree> tree = dump::ScanDumpTree(dir);
  if (!tree.ok()) return FailWith("stats", tree.status(), "", 1);
  absl::StatusOr<MergedStats> stats = MergeStats(*tree);
  if (!stats.ok()) {
    return FailWith("stats", stats.status(),
                    "run with a config that has \"dump_data\": \"stats\" (or "
                    "tensor dumps), then point stats at its dump_path",
                    1);
  }
  std::fputs(FormatStatsReport(*tree, *stats, options).c_str(), stdout);
  if (!csv.empty()) {
    std::ofstream file(csv, std::ios::binary);
    file << MergedStatsCsv(*stats);
    if (!file) return Fail("stats", StrCat("cannot write ", csv), "", 1);
    std::printf("\nmerged table (%zu rows) written to %s\n", stats->rows.size(),
                csv.c_str());
  }
  return 0;
}

// ---- compare ---------------------------------------------------------------

struct CompareArgs {
  std::string a, b, metrics = "default", report, model;
  double atol = 1e-3, rtol = 1e-3;
  std::optional<int64_t> iteration;
};

int Compare(const CompareArgs& args) {
  absl::StatusOr<std::vector<Metric>> metrics = ParseMetricList(args.metrics);
  if (!metrics.ok()) {
    return FailWith("compare", metrics.status(),
                    "e.g. --metrics cosine,max_abs", kUsage);
  }
  if (args.atol < 0 || args.rtol < 0) {
    return Fail("compare", "--atol and --rtol must not be negative", "",
                kUsage);
  }
  const SideSelection selection{args.iteration, args.model};
  absl::StatusOr<CompareSide> a = LoadCompareSide(args.a, selection);
  if (!a.ok()) {
    return FailWith("compare", a.status(),
                    "A must be a dump folder with tensor dumps", kUsage);
  }
  absl::StatusOr<CompareSide> b = LoadCompareSide(args.b, selection);
  if (!b.ok()) {
    return FailWith("compare", b.status(),
                    "B must be a dump folder or a folder of .npy files named "
                    "by operator",
                    kUsage);
  }
  const CompareOptions options{args.atol, args.rtol};
  const CompareResult result = CompareSides(*a, *b, options);
  const ReportContext context{&*a, &*b, options, *metrics};
  std::fputs(FormatCompareText(result, context).c_str(), stdout);
  if (!args.report.empty()) {
    std::ofstream file(args.report, std::ios::binary);
    file << RenderCompareHtml(result, context);
    if (!file) {
      return Fail("compare", StrCat("cannot write ", args.report), "", kUsage);
    }
    std::printf("report: %s\n", args.report.c_str());
  }
  if (result.tensors_compared == 0) {
    return Fail("compare", "no operator of A has a counterpart in B",
                "B's operators are matched by converted name, then by "
                "original op name; check both with `dump ls`",
                kUsage);
  }
  return result.within() ? 0 : 1;
}

// Which subcommand was being parsed when CLI11 failed.
std::string FailedCommand(const CLI::App& app) {
  for (const CLI::App* sub : app.get_subcommands({})) {
    if (sub->parsed()) return sub->get_name();
  }
  return "";
}

}  // namespace
}  // namespace acldump::tools

int main(int argc, char** argv) {
  using namespace acldump::tools;  // NOLINT: one file's CLI
  using acldump::StrCat;
  // Runfiles are found from where `bazel run` starts us; the user's paths are
  // relative to where they ran it.
  const std::optional<std::string> runfiles = FindRunfilesDir(argv[0]);
  if (const char* wd = std::getenv("BUILD_WORKING_DIRECTORY")) {
    if (chdir(wd) != 0) {
      std::fprintf(stderr, "dump: cannot enter %s\n", wd);
      return 1;
    }
  }

  CLI::App app{
      "acldump's dump tool: run models with a dump config, then inspect, "
      "convert, summarise and compare the dumps.\nWithout a command it runs "
      "the bundled model with a built-in config and suggests what to try."};
  app.require_subcommand(0, 1);
  app.footer(
      "Workflow: stats first (dump_data stats) -> find suspects (dump stats) "
      "-> tensor dump of those layers (layer list) -> compare.\n"
      "Example: bazel run //tools:dump -- compare run_a/.../0 run_b/.../0 "
      "--report cmp.html");

  RunOptions run_options;
  CLI::App* run = app.add_subcommand(
      "run",
      "Execute models through the C ABI with a dump config (aclInit, "
      "aclmdlInitDump, aclmdlSetDump, load, execute, aclmdlFinalizeDump, "
      "unload, aclFinalize).");
  run->add_option("--model,-m", run_options.models,
                  ".om model, or .onnx (converted on the fly); repeatable")
      ->required();
  run->add_option("--config,-c", run_options.config,
                  "acl.json with a \"dump\" section")
      ->required();
  run->add_option("--input,-i", run_options.inputs,
                  ".npy per model input (in order, or name=file.npy); the "
                  "rest are seeded random");
  run->add_option("--iterations,-n", run_options.iterations,
                  "executions per model")
      ->capture_default_str();
  run->add_option("--device,-d", run_options.device,
                  "device id written into the dump layout (0..1023)")
      ->capture_default_str();
  run->add_option("--seed", run_options.seed, "seed of random inputs")
      ->capture_default_str();
  run->add_option("--output-dir,-o", run_options.output_dir,
                  "write the model outputs of the last iteration here as "
                  "{model}.output.{name}.npy (default: <dump_path>/outputs)");
  run->add_flag("--timing", run_options.measure_without_dump,
                "also run without dump (reloading after aclmdlFinalizeDump) "
                "and report both times");
  run->footer(
      "Example: bazel run //tools:dump -- run --model "
      "testdata/resnet_tiny.onnx "
      "--config acl.json --input testdata/resnet_tiny.input.input.npy "
      "--iterations 3 --output-dir out --timing");

  std::string check_path, check_model;
  CLI::App* check = app.add_subcommand(
      "check-config",
      "Validate an acl.json dump config exactly as aclmdlSetDump does; with "
      "--model, show the dump plan (operators, tensors, files and bytes per "
      "iteration) without running.");
  check->add_option("acl.json", check_path, "the config file")->required();
  check->add_option("--model,-m", check_model,
                    ".om or .onnx model to plan for");
  check->footer(
      "Checks, in order: the file (exists, <= 10 MiB, JSON, depth <= 10), the "
      "dump key, value types and unknown keys, enum values, constraints "
      "(dump_path exists and is writable, dump_step syntax, conflicts).\n"
      "Example: bazel run //tools:dump -- check-config acl.json --model "
      "testdata/resnet_tiny.onnx");

  std::string ls_path;
  bool ls_summary = false;
  CLI::App* ls = app.add_subcommand(
      "ls",
      "List a dump tree: time / device / model / model id / iteration, "
      "then the operators' files with sizes.");
  ls->add_option("DIR", ls_path, "dump_path or any folder below it")
      ->required();
  ls->add_flag("--summary,-s", ls_summary, "folders only, no per-file lines");
  ls->footer("Example: bazel run //tools:dump -- ls acldump_output --summary");

  std::vector<std::string> show_files;
  size_t show_head = 0;
  CLI::App* show = app.add_subcommand(
      "show",
      "Print a dump file's header (op, type, original names, attrs, dtypes, "
      "formats, shapes) and per-tensor statistics; stats CSVs as a table.");
  show->add_option("FILE", show_files, "dump file(s) or stats .csv")
      ->required();
  show->add_option("--head", show_head, "also print the first N values");
  show->footer(
      "Example: bazel run //tools:dump -- show "
      "acldump_output/20250101120000/0/resnet_tiny/1/0/"
      "Conv.conv1bn1relu1.0.0.1735732800000000 --head 8");

  std::string convert_path, convert_out, convert_to = "npy";
  CLI::App* convert = app.add_subcommand(
      "convert",
      "Convert dump files to .npy ({file}.{input|output}.{i}.npy; float16 "
      "stays float16, bfloat16 becomes float32; stats CSVs are copied), or "
      "with --to csv merge all statistics into one CSV.");
  convert->add_option("PATH", convert_path, "a dump file or folder")
      ->required();
  convert->add_option("--out", convert_out,
                      "output folder (npy; default <name>_npy) or file (csv; "
                      "default <name>_stats.csv)");
  convert->add_option("--to", convert_to, "npy or csv")
      ->check(CLI::IsMember({"npy", "csv"}))
      ->capture_default_str();
  convert->footer(
      "Example: bazel run //tools:dump -- convert "
      "acldump_output/20250101120000 "
      "--out npy_dump");

  CompareArgs compare_args;
  int64_t compare_iteration = -1;
  CLI::App* compare = app.add_subcommand(
      "compare",
      "Compare two dumps (two runs, two configs, two conversions of a model) "
      "or a dump and a folder of .npy references named by operator; names "
      "the first diverging operator. Exit 0 within tolerance, 1 outside, 2 "
      "when it cannot compare.");
  compare->add_option("A", compare_args.a, "dump folder under test")
      ->required();
  compare
      ->add_option("B", compare_args.b,
                   "reference: dump folder, or folder of <op>.npy")
      ->required();
  compare->add_option("--atol", compare_args.atol, "absolute tolerance")
      ->capture_default_str();
  compare
      ->add_option("--rtol", compare_args.rtol,
                   "relative tolerance: |a-b| <= atol + rtol*|b|")
      ->capture_default_str();
  std::string metric_help = "comma-separated, or all / default:";
  for (Metric m : kAllMetrics) {
    metric_help += StrCat("\n  ", MetricName(m), ": ", MetricDescription(m));
  }
  compare->add_option("--metrics", compare_args.metrics, metric_help)
      ->capture_default_str();
  compare->add_option(
      "--report", compare_args.report,
      "write a self-contained HTML report (table + error chart)");
  compare->add_option("--iteration", compare_iteration,
                      "iteration folder to use when a side holds several");
  compare->add_option("--model", compare_args.model,
                      "model folder to use when a side holds several");
  compare->footer(
      "Example: bazel run //tools:dump -- compare acldump_output/"
      "20250101120000/0/resnet_tiny/1/0 testdata/reference/resnet_tiny "
      "--report compare.html");

  std::string stats_path, stats_csv;
  StatsReportOptions stats_options;
  CLI::App* stats = app.add_subcommand(
      "stats",
      "Merge the stats CSVs of a run (or statistics of tensor dumps), flag "
      "NaN/Inf and extreme values and rank the operators.");
  stats->add_option("DIR", stats_path, "dump folder")->required();
  stats->add_option("--csv", stats_csv, "also write the merged table here");
  stats
      ->add_option("--extreme", stats_options.extreme,
                   "flag values with |x| at or above this")
      ->capture_default_str();
  stats->add_option("--top", stats_options.top, "operators in the ranking")
      ->capture_default_str();
  stats->footer(
      "Example: bazel run //tools:dump -- stats acldump_output --csv all.csv");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    const std::string command = FailedCommand(app);
    return Fail(command, e.what(),
                StrCat("see `dump ", command, command.empty() ? "" : " ",
                       "--help` for usage and an example"),
                kUsage);
  }
  if (compare_iteration >= 0) compare_args.iteration = compare_iteration;
  if (*run) return Run(run_options);
  if (*check) return CheckConfigCommand(check_path, check_model);
  if (*ls) return Ls(ls_path, ls_summary);
  if (*show) return Show(show_files, show_head);
  if (*convert) return Convert(convert_path, convert_out, convert_to);
  if (*compare) return Compare(compare_args);
  if (*stats) return Stats(stats_path, stats_csv, stats_options);
  return DefaultRun(runfiles, argv[0]);
}
