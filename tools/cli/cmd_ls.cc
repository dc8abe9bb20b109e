// `dump ls`: the dump tree with sizes.
#include <cstdio>

#include "base/status_macros.h"
#include "base/strings.h"
#include "dump/format/dump_tree.h"
#include "tools/cli/command.h"
#include "tools/cluster/cluster.h"
#include "tools/cluster/tree_shard.h"
#include "tools/common/cli_util.h"
#include "tools/tree/ls.h"

namespace acldump::tools {
namespace {

class LsCommand final : public Command {
 public:
  CLI::App* Setup(CLI::App& app) override {
    CLI::App* ls = app.add_subcommand(
        "ls",
        "List a dump tree: time / device / model / model id / iteration, "
        "then the operators' files with sizes.");
    ls->add_option("DIR", path_, "dump_path or any folder below it")
        ->required();
    ls->add_flag("--summary,-s", summary_,
                 "folders only, iterations as ranges, no per-file lines");
    ls->add_option("--json", json_,
                   "write every entry (file, kind, place in the layout, "
                   "operator, size) as JSON (schema acldump.ls/1) to this "
                   "file; - for stdout");
    AddFilterOptions(*ls, filter_options_);
    AddClusterOptions(*ls, cluster_);
    AddShardOptions(*ls, shard_);
    ls->footer(
        "Example: bazel run //tools:dump -- ls acldump_output --summary\n"
        "         bazel run //tools:dump -- ls acldump_output --op-type Conv "
        "--iterations 0");
    return ls;
  }

  int Run(const ToolContext&) override {
    if (shard_.active()) {
      absl::StatusOr<dump::DumpTree> part = ScanTaskFolders(path_, shard_.list);
      absl::Status written = part.ok()
                                 ? WriteJsonFile(shard_.output, TreeJson(*part))
                                 : part.status();
      return written.ok() ? 0 : FailWith("ls", written, "", kExitFailure);
    }
    std::vector<std::string> failed;
    absl::StatusOr<dump::DumpTree> tree = Scan(failed);
    if (!tree.ok()) {
      // A cluster's failure says what to do itself; the hint is about paths.
      return FailWith("ls", tree.status(),
                      cluster_.scheduler.empty()
                          ? "give a dump_path, or any folder or file below it"
                          : "",
                      kExitFailure);
    }
    for (const std::string& problem : tree->problems) {
      std::fprintf(stderr, "dump ls: warning: %s\n", problem.c_str());
    }
    absl::StatusOr<DumpFilter> filter = DumpFilter::Create(filter_options_);
    if (!filter.ok()) return FailWith("ls", filter.status(), "", kExitUsage);
    if (!filter->empty()) {
      dump::DumpTree kept = FilterTree(*tree, *filter);
      if (kept.runs.empty()) {
        return Fail("ls", ExplainEmptyFilter(*tree, *filter), "", kExitFailure);
      }
      *tree = std::move(kept);
    } else if (tree->runs.empty()) {
      std::fprintf(stderr, "dump ls: note: no dump files under '%s'\n",
                   path_.c_str());
    }
    if (json_ == "-") {
      // Names that are not UTF-8 are written with U+FFFD, as in --json FILE.
      std::fputs((TreeJson(*tree).dump(
                      1, ' ', false, nlohmann::json::error_handler_t::replace) +
                  "\n")
                     .c_str(),
                 stdout);
    } else {
      std::fputs(FormatDumpTree(*tree, summary_).c_str(), stdout);
      if (!json_.empty()) {
        absl::Status written = WriteJsonFile(json_, TreeJson(*tree));
        if (!written.ok()) return FailWith("ls", written, "", kExitFailure);
      }
    }
    if (!failed.empty()) {
      return Fail("ls",
                  StrCat(failed.size(), " folders could not be listed: ",
                         StrJoin(failed, "; ")),
                  "the listing above leaves them out", kExitIncomplete);
    }
    return 0;
  }

 private:
  absl::StatusOr<dump::DumpTree> Scan(std::vector<std::string>& failed) {
    if (cluster_.scheduler.empty()) return dump::ScanDumpTree(path_);
    ASSIGN_OR_RETURN(ClusterScan scan, ScanOnCluster("ls", path_, cluster_));
    failed = std::move(scan.failed);
    return std::move(scan.tree);
  }

  std::string path_;
  std::string json_;
  bool summary_ = false;
  FilterOptions filter_options_;
  ClusterOptions cluster_;
  ShardOptions shard_;
};

}  // namespace

std::unique_ptr<Command> MakeLsCommand() {
  return std::make_unique<LsCommand>();
}

}  // namespace acldump::tools
