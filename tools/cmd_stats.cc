// `dump stats`: merged statistics of a run, NaN/Inf and extreme values
// flagged, operators ranked.
#include <cstdio>
#include <fstream>

#include "base/strings.h"
#include "dump/format/dump_tree.h"
#include "tools/cli_util.h"
#include "tools/command.h"
#include "tools/dump_stats.h"

namespace acldump::tools {
namespace {

class StatsCommand final : public Command {
 public:
  CLI::App* Setup(CLI::App& app) override {
    CLI::App* stats = app.add_subcommand(
        "stats",
        "Merge the stats CSVs of a run (or statistics of tensor dumps), flag "
        "NaN/Inf and extreme values and rank the operators.");
    stats->add_option("DIR", path_, "dump folder")->required();
    stats->add_option("--csv", csv_, "also write the merged table here");
    stats
        ->add_option("--extreme", options_.extreme,
                     "flag values with |x| at or above this")
        ->capture_default_str();
    stats->add_option("--top", options_.top, "operators in the ranking")
        ->capture_default_str();
    stats->add_option("--json", json_,
                      "write rows, flags and the ranking as JSON (schema "
                      "acldump.stats/1) to this file; - for stdout");
    AddFilterOptions(*stats, filter_options_);
    stats->footer(
        "Example: bazel run //tools:dump -- stats acldump_output --csv "
        "all.csv");
    return stats;
  }

  int Run(const ToolContext&) override {
    absl::StatusOr<dump::DumpTree> tree = dump::ScanDumpTree(path_);
    if (!tree.ok()) return FailWith("stats", tree.status(), "", kExitFailure);
    absl::StatusOr<DumpFilter> filter = DumpFilter::Create(filter_options_);
    if (!filter.ok()) return FailWith("stats", filter.status(), "", kExitUsage);
    if (!filter->empty()) {
      dump::DumpTree kept = FilterTree(*tree, *filter);
      if (kept.runs.empty()) {
        return Fail("stats", ExplainEmptyFilter(*tree, *filter), "",
                    kExitFailure);
      }
      *tree = std::move(kept);
    }
    absl::StatusOr<MergedStats> stats = MergeStats(*tree);
    if (!stats.ok()) {
      return FailWith("stats", stats.status(),
                      "run with a config that has \"dump_data\": \"stats\" "
                      "(or tensor dumps), then point stats at its dump_path",
                      kExitFailure);
    }
    if (json_ == "-") {
      std::fputs(StatsJson(*tree, *stats, options_).c_str(), stdout);
      return 0;
    }
    std::fputs(FormatStatsReport(*tree, *stats, options_).c_str(), stdout);
    if (!json_.empty()) {
      std::ofstream file(json_, std::ios::binary);
      file << StatsJson(*tree, *stats, options_);
      file.close();
      if (!file) {
        return Fail("stats", StrCat("cannot write ", json_), "", kExitFailure);
      }
      std::printf("\njson written to %s\n", json_.c_str());
    }
    if (!csv_.empty()) {
      std::ofstream file(csv_, std::ios::binary);
      file << MergedStatsCsv(*stats);
      if (!file) {
        return Fail("stats", StrCat("cannot write ", csv_), "", kExitFailure);
      }
      std::printf("\nmerged table (%zu rows) written to %s\n",
                  stats->rows.size(), csv_.c_str());
    }
    return 0;
  }

 private:
  std::string path_;
  std::string csv_;
  std::string json_;
  StatsReportOptions options_;
  FilterOptions filter_options_;
};

}  // namespace

std::unique_ptr<Command> MakeStatsCommand() {
  return std::make_unique<StatsCommand>();
}

}  // namespace acldump::tools
