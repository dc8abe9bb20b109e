// `dump compare`: two dump trees, or a dump and references, folder pair by
// folder pair and operator by operator; names the first diverging operator.
#include <cstdio>
#include <optional>

#include "base/status_macros.h"
#include "base/strings.h"
#include "tools/cli/command.h"
#include "tools/cli/compare_on_cluster.h"
#include "tools/cluster/cluster.h"
#include "tools/common/cli_util.h"
#include "tools/compare/compare.h"
#include "tools/compare/metrics.h"
#include "tools/compare/shard.h"
#include "tools/report/report.h"
#include "tools/tree/filter.h"

namespace acldump::tools {
namespace {

// Folder pairs per cluster task, at least (a task is a process of its own).
constexpr size_t kPairsPerTask = 32;

class CompareCommand final : public Command {
 public:
  CLI::App* Setup(CLI::App& app) override {
    CLI::App* compare = app.add_subcommand(
        "compare",
        "Compare two dumps (two runs, two configs, two conversions of a "
        "model: every (model, iteration, device) folder present in both) or a "
        "dump and references (`dump reference`, or .npy/.npz named by "
        "operator); names the first diverging operator by iteration, then "
        "execution order. Exit 0 within tolerance, 1 outside, 2 when nothing "
        "could be compared.");
    compare->add_option("A", a_,
                        "dump under test: a dump_path or any folder "
                        "or file below it (required)");
    compare->add_option("B", b_,
                        "reference: a dump, or a folder (or .npz) of arrays "
                        "named {op}[.{output|input}.{i}[.{timestamp}]].npy "
                        "(required)");
    compare->add_option("--atol", atol_, "absolute tolerance")
        ->capture_default_str();
    compare
        ->add_option("--rtol", rtol_,
                     "relative tolerance: |a-b| <= atol + rtol*|b|")
        ->capture_default_str();
    compare
        ->add_option(
            "--by", by_,
            "how tensor pairs compare: tensors (element by element), stats "
            "(Max, Min, Avg, L2norm within the tolerance; counts equal), "
            "checksum (the bytes, exactly); auto: tensors when both sides "
            "hold tensor dumps, else checksum where both sides have one, "
            "else stats")
        ->capture_default_str();
    compare->add_option(
        "--stat-tolerance", stat_tolerances_,
        "by stats: COLUMN=ATOL[,RTOL] for Max, Min, Avg or L2norm (e.g. "
        "Avg=1e-5); repeatable; other columns use --atol and --rtol");
    std::string metric_help =
        "columns and charts: comma-separated, or all / default:";
    for (Metric m : kAllMetrics) {
      metric_help += StrCat("\n  ", MetricName(m), ": ", MetricDescription(m));
    }
    compare->add_option("--metrics", metrics_, metric_help)
        ->capture_default_str();
    compare->add_option(
        "--report", report_,
        "write a self-contained HTML report (charts, sortable table)");
    compare->add_option("--json", json_,
                        "write every result as JSON (schema "
                        "acldump.compare/1) to this file; - for stdout");
    compare->add_option("--csv", csv_,
                        "write one row per tensor pair to this CSV file; - "
                        "for stdout");
    compare->add_option("--model", model_,
                        "only folders of this model (folder name)");
    compare->add_option("--iteration", iteration_)
        ->group("");  // kept for old scripts: --iterations N
    AddFilterOptions(*compare, filter_options_);
    compare->add_flag("--verbose,-v", verbose_,
                      "print the tensors of every folder pair");
    AddClusterOptions(*compare, cluster_);
    // A worker's task: folder pairs the client wrote into a task file.
    compare->add_option("--task", task_)->group("");
    compare->add_option("--task-result", task_result_)->group("");
    compare->footer(
        "Example: bazel run //tools:dump -- compare run_a run_b --report "
        "compare.html\n"
        "         bazel run //tools:dump -- compare acldump_output/"
        "20250101120000/0/resnet_tiny/1/0 ref/ --json result.json");
    return compare;
  }

  int Run(const ToolContext&) override {
    if (!task_.empty()) {
      absl::Status done = RunCompareTask(task_, task_result_);
      return done.ok() ? 0 : FailWith("compare", done, "", kExitFailure);
    }
    if (a_.empty() || b_.empty()) {  // not CLI11's required(): see --task
      return Fail("compare", a_.empty() ? "A is required" : "B is required",
                  StrCat("see `", ToolName(), " help compare`"), kExitUsage);
    }
    absl::StatusOr<std::vector<Metric>> metrics = ParseMetricList(metrics_);
    if (!metrics.ok()) {
      return FailWith("compare", metrics.status(),
                      "e.g. --metrics cosine,max_abs", kExitUsage);
    }
    if (!(atol_ >= 0) || !(rtol_ >= 0)) {
      return Fail("compare", "--atol and --rtol must not be negative", "",
                  kExitUsage);
    }
    if (!iteration_.empty()) {
      if (!filter_options_.iterations.empty()) {
        return Fail("compare", "give --iterations only", "", kExitUsage);
      }
      filter_options_.iterations = iteration_;
    }
    absl::StatusOr<DumpFilter> filter = DumpFilter::Create(filter_options_);
    if (!filter.ok()) {
      return FailWith("compare", filter.status(), "", kExitUsage);
    }
    const CompareLoadOptions load{*filter, model_};
    absl::StatusOr<CompareTree> a = LoadCompareTree(a_, load);
    if (!a.ok()) {
      return FailWith("compare", a.status(),
                      "A must be a dump folder with tensor or stats dumps",
                      kExitUsage);
    }
    absl::StatusOr<CompareTree> b = LoadCompareTree(b_, load);
    if (!b.ok()) {
      return FailWith("compare", b.status(),
                      "B must be a dump folder, or a folder or .npz of "
                      "arrays named by operator (`dump reference` writes "
                      "them)",
                      kExitUsage);
    }
    const std::optional<CompareBy> by = CompareByFromName(by_);
    if (!by) {
      return Fail(
          "compare",
          StrCat("--by ", by_, " is not one of auto, tensors, stats, checksum"),
          "", kExitUsage);
    }
    CompareOptions options{atol_, rtol_, *by, {}};
    for (const std::string& text : stat_tolerances_) {
      absl::StatusOr<StatTolerance> tolerance = ParseStatTolerance(text, rtol_);
      if (!tolerance.ok()) {
        return FailWith("compare", tolerance.status(), "", kExitUsage);
      }
      options.stat_tolerances.push_back(*tolerance);
    }
    if (*by == CompareBy::kTensors) {
      for (const CompareTree* side : {&*a, &*b}) {
        if (side->kind != SideKind::kStats) continue;
        return Fail(
            "compare",
            StrCat("--by tensors: '", side->root, "' holds stats dumps only"),
            "compare it --by stats or --by checksum (the default "
            "picks one)",
            kExitUsage);
      }
    }
    const ReportContext context{
        &*a, &*b, options, *metrics, filter->Describe(), verbose_};
    if (cluster_.scheduler.empty()) {
      return Report(CompareTrees(*a, *b, options, *filter), context);
    }
    return CompareOnCluster(*a, *b, options, context);
  }

 private:
  int CompareOnCluster(const CompareTree& a, const CompareTree& b,
                       const CompareOptions& options,
                       const ReportContext& context) {
    absl::StatusOr<MergedCompare> merged =
        CompareTreesOnCluster(cluster_, a, b, options, filter_options_);
    if (!merged.ok()) {
      return FailWith("compare", merged.status(), "", kExitFailure);
    }
    const int code = Report(merged->result, context);
    if (merged->failed.empty()) return code;
    return Fail(
        "compare",
        StrCat(merged->failed.size(), " of ", merged->result.pairs.size(),
               " folder pairs were not compared (the notes say why)"),
        "the results above hold the other pairs", kExitIncomplete);
  }

  // Prints and writes what --report, --json and --csv ask for; the exit code.
  int Report(const TreeCompareResult& result, const ReportContext& context) {
    const bool quiet = json_ == "-" || csv_ == "-";
    if (!quiet) std::fputs(FormatCompareText(result, context).c_str(), stdout);
    auto write = [&](const std::string& path, const std::string& text,
                     std::string_view what) -> bool {
      if (path.empty()) return true;
      if (absl::Status written = WriteTextOutput(path, text); !written.ok()) {
        Fail("compare", std::string(written.message()), "", kExitUsage);
        return false;
      }
      if (path == "-") return true;
      if (!quiet)
        std::printf("%.*s: %s\n", static_cast<int>(what.size()), what.data(),
                    path.c_str());
      return true;
    };
    if (!write(report_,
               report_.empty() ? "" : RenderCompareHtml(result, context),
               "report") ||
        !write(json_, json_.empty() ? "" : CompareJson(result, context),
               "json") ||
        !write(csv_, csv_.empty() ? "" : CompareCsv(result, context), "csv")) {
      return kExitUsage;
    }
    if (result.tensors_compared == 0) {
      return Fail("compare", "no tensor of A has a counterpart in B",
                  "operators are matched by converted name, then by original "
                  "op name, within folders paired by model, iteration and "
                  "device; check both sides with `dump ls`",
                  kExitUsage);
    }
    return result.exit_code();
  }

  std::string a_, b_, metrics_ = "default", report_, json_, csv_, model_,
                      iteration_, task_, task_result_, by_ = "auto";
  std::vector<std::string> stat_tolerances_;
  ClusterOptions cluster_;
  double atol_ = 1e-3, rtol_ = 1e-3;
  FilterOptions filter_options_;
  bool verbose_ = false;
};

}  // namespace

absl::StatusOr<MergedCompare> CompareTreesOnCluster(
    const ClusterOptions& cluster, const CompareTree& a, const CompareTree& b,
    const CompareOptions& options, const FilterOptions& filter_options) {
  ASSIGN_OR_RETURN(TaskFolder folder, TaskFolder::Create(cluster, "compare"));
  const FolderPlan plan = PairFolders(a, b);
  ASSIGN_OR_RETURN(
      std::vector<CompareTaskFiles> files,
      WriteCompareTasks(folder.path(), plan, options, filter_options,
                        TaskCount(plan.pairs.size(), kPairsPerTask)));
  std::vector<ClusterTask> tasks;
  for (const CompareTaskFiles& f : files) {
    tasks.push_back(
        {{ToolPath(), "compare", "--task", f.task, "--task-result", f.result},
         f.result});
  }
  RETURN_IF_ERROR(RunOnCluster(cluster, "compare", tasks, folder));
  return MergeCompareResults(plan, files,
                             [&](size_t k) { return TaskFailure(tasks[k]); });
}

std::unique_ptr<Command> MakeCompareCommand() {
  return std::make_unique<CompareCommand>();
}

}  // namespace acldump::tools
