// `dump stats`: merged statistics of a run, NaN/Inf and extreme values
// flagged, operators ranked.
#include <cstdio>
#include <fstream>
#include <map>
#include <set>

#include "base/status_macros.h"
#include "base/strings.h"
#include "dump/format/dump_tree.h"
#include "tools/cli/command.h"
#include "tools/cluster/cluster.h"
#include "tools/cluster/tree_shard.h"
#include "tools/common/cli_util.h"
#include "tools/tree/stats.h"

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
    AddClusterOptions(*stats, cluster_);
    AddShardOptions(*stats, shard_);
    stats->footer(
        "Example: bazel run //tools:dump -- stats acldump_output --csv "
        "all.csv");
    return stats;
  }

  int Run(const ToolContext&) override {
    if (shard_.active()) {
      absl::Status written = WriteShard();
      return written.ok() ? 0 : FailWith("stats", written, "", kExitFailure);
    }
    std::vector<std::string> failed;
    absl::StatusOr<dump::DumpTree> tree = Scan(failed);
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
    absl::StatusOr<MergedStats> stats =
        cluster_.scheduler.empty() ? MergeStats(*tree)
                                   : MergeStats(*tree, [&](const auto& entry) {
                                       return TextFromWorkers(entry);
                                     });
    if (!stats.ok()) {
      return FailWith("stats", stats.status(),
                      "run with a config that has \"dump_data\": \"stats\" "
                      "(or tensor dumps), then point stats at its dump_path",
                      kExitFailure);
    }
    const int done = failed.empty() ? 0 : kExitIncomplete;
    if (!failed.empty()) {
      Fail("stats",
           StrCat(failed.size(),
                  " folders could not be read: ", StrJoin(failed, "; ")),
           "the statistics leave their files out", kExitIncomplete);
    }
    if (json_ == "-") {
      std::fputs(StatsJson(*tree, *stats, options_).c_str(), stdout);
      return done;
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
    return done;
  }

 private:
  // A worker's task: the listing of its folder, and the text MergeStats
  // parses for each stats CSV and tensor dump in it (or why there is none).
  absl::Status WriteShard() {
    ASSIGN_OR_RETURN(dump::DumpTree part, ScanTaskFolders(path_, shard_.list));
    nlohmann::ordered_json json = TreeJson(part);
    nlohmann::ordered_json texts = nlohmann::ordered_json::object();
    // The client's filters: statistics only of what it will merge.
    ASSIGN_OR_RETURN(DumpFilter filter, DumpFilter::Create(filter_options_));
    const dump::DumpTree kept =
        filter.empty() ? dump::DumpTree() : FilterTree(part, filter);
    const dump::DumpTree& wanted = filter.empty() ? part : kept;
    for (const dump::DumpEntry& entry : wanted.entries) {
      if (entry.kind != dump::EntryKind::kStats &&
          entry.kind != dump::EntryKind::kTensor) {
        continue;
      }
      absl::StatusOr<std::string> text = StatsTextOfFile(entry);
      texts[entry.relative] =
          text.ok() ? nlohmann::ordered_json{{"text", *text}}
                    : nlohmann::ordered_json{
                          {"error", std::string(text.status().message())}};
    }
    json["texts"] = std::move(texts);
    return WriteJsonFile(shard_.output, json);
  }

  absl::StatusOr<dump::DumpTree> Scan(std::vector<std::string>& failed) {
    if (cluster_.scheduler.empty()) return dump::ScanDumpTree(path_);
    // A task's texts, for files of its own listing only; all or none.
    auto collect = [&](const nlohmann::json& shard) -> absl::Status {
      const auto texts = shard.find("texts");
      if (texts == shard.end() || !texts->is_object()) {
        return absl::DataLossError("a worker's listing without texts");
      }
      std::set<std::string> listed;
      for (const auto& entry : shard["entries"]) {
        listed.insert(entry["relative"].get<std::string>());
      }
      std::map<std::string, absl::StatusOr<std::string>> found;
      for (const auto& [relative, text] : texts->items()) {
        if (!listed.count(relative)) {
          return absl::DataLossError(
              "a worker's text of a file it did not list");
        }
        if (text.contains("text") && text["text"].is_string()) {
          found.emplace(relative, text["text"].get<std::string>());
        } else if (text.contains("error") && text["error"].is_string()) {
          found.emplace(relative,
                        absl::DataLossError(text["error"].get<std::string>()));
        } else {
          return absl::DataLossError("a worker's text is neither");
        }
      }
      texts_.merge(found);
      return absl::OkStatus();
    };
    std::vector<std::string> filters;
    for (const std::string& t : filter_options_.op_types) {
      filters.insert(filters.end(), {"--op-type", t});
    }
    if (!filter_options_.match.empty()) {
      filters.insert(filters.end(), {"--match", filter_options_.match});
    }
    if (!filter_options_.iterations.empty()) {
      filters.insert(filters.end(),
                     {"--iterations", filter_options_.iterations});
    }
    ASSIGN_OR_RETURN(ClusterScan scan,
                     ScanOnCluster("stats", path_, cluster_, collect, filters));
    failed = std::move(scan.failed);
    return std::move(scan.tree);
  }

  absl::StatusOr<std::string> TextFromWorkers(const dump::DumpEntry& entry) {
    auto it = texts_.find(entry.relative);
    if (it != texts_.end()) return it->second;
    // Above the workers' folders (the client listed it): read here.
    return StatsTextOfFile(entry);
  }

  std::map<std::string, absl::StatusOr<std::string>> texts_;
  ClusterOptions cluster_;
  ShardOptions shard_;
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
