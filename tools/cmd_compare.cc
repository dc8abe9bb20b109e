// `dump compare`: two dumps, or a dump and .npy references, operator by
// operator; names the first diverging operator.
#include <cstdio>
#include <fstream>
#include <optional>

#include "base/strings.h"
#include "tools/cli_util.h"
#include "tools/command.h"
#include "tools/compare_metrics.h"
#include "tools/compare_report.h"
#include "tools/dump_compare.h"

namespace acldump::tools {
namespace {

class CompareCommand final : public Command {
 public:
  CLI::App* Setup(CLI::App& app) override {
    CLI::App* compare = app.add_subcommand(
        "compare",
        "Compare two dumps (two runs, two configs, two conversions of a "
        "model) or a dump and a folder of .npy references named by operator; "
        "names the first diverging operator. Exit 0 within tolerance, 1 "
        "outside, 2 when it cannot compare.");
    compare->add_option("A", a_, "dump folder under test")->required();
    compare
        ->add_option("B", b_, "reference: dump folder, or folder of <op>.npy")
        ->required();
    compare->add_option("--atol", atol_, "absolute tolerance")
        ->capture_default_str();
    compare
        ->add_option("--rtol", rtol_,
                     "relative tolerance: |a-b| <= atol + rtol*|b|")
        ->capture_default_str();
    std::string metric_help = "comma-separated, or all / default:";
    for (Metric m : kAllMetrics) {
      metric_help += StrCat("\n  ", MetricName(m), ": ", MetricDescription(m));
    }
    compare->add_option("--metrics", metrics_, metric_help)
        ->capture_default_str();
    compare->add_option(
        "--report", report_,
        "write a self-contained HTML report (table + error chart)");
    compare->add_option("--iteration", iteration_,
                        "iteration folder to use when a side holds several");
    compare->add_option("--model", model_,
                        "model folder to use when a side holds several");
    compare->footer(
        "Example: bazel run //tools:dump -- compare acldump_output/"
        "20250101120000/0/resnet_tiny/1/0 testdata/reference/resnet_tiny "
        "--report compare.html");
    return compare;
  }

  int Run(const ToolContext&) override {
    absl::StatusOr<std::vector<Metric>> metrics = ParseMetricList(metrics_);
    if (!metrics.ok()) {
      return FailWith("compare", metrics.status(),
                      "e.g. --metrics cosine,max_abs", kExitUsage);
    }
    if (atol_ < 0 || rtol_ < 0) {
      return Fail("compare", "--atol and --rtol must not be negative", "",
                  kExitUsage);
    }
    const SideSelection selection{
        iteration_ >= 0 ? std::optional<int64_t>(iteration_) : std::nullopt,
        model_};
    absl::StatusOr<CompareSide> a = LoadCompareSide(a_, selection);
    if (!a.ok()) {
      return FailWith("compare", a.status(),
                      "A must be a dump folder with tensor dumps", kExitUsage);
    }
    absl::StatusOr<CompareSide> b = LoadCompareSide(b_, selection);
    if (!b.ok()) {
      return FailWith("compare", b.status(),
                      "B must be a dump folder or a folder of .npy files "
                      "named by operator",
                      kExitUsage);
    }
    const CompareOptions options{atol_, rtol_};
    const CompareResult result = CompareSides(*a, *b, options);
    const ReportContext context{&*a, &*b, options, *metrics};
    std::fputs(FormatCompareText(result, context).c_str(), stdout);
    if (!report_.empty()) {
      std::ofstream file(report_, std::ios::binary);
      file << RenderCompareHtml(result, context);
      if (!file) {
        return Fail("compare", StrCat("cannot write ", report_), "",
                    kExitUsage);
      }
      std::printf("report: %s\n", report_.c_str());
    }
    if (result.tensors_compared == 0) {
      return Fail("compare", "no operator of A has a counterpart in B",
                  "B's operators are matched by converted name, then by "
                  "original op name; check both with `dump ls`",
                  kExitUsage);
    }
    return result.within() ? 0 : kExitFailure;
  }

 private:
  std::string a_, b_, metrics_ = "default", report_, model_;
  double atol_ = 1e-3, rtol_ = 1e-3;
  int64_t iteration_ = -1;
};

}  // namespace

std::unique_ptr<Command> MakeCompareCommand() {
  return std::make_unique<CompareCommand>();
}

}  // namespace acldump::tools
