// `dump ls`: the dump tree with sizes.
#include <cstdio>

#include "dump/format/dump_tree.h"
#include "tools/cli_util.h"
#include "tools/command.h"
#include "tools/dump_ls.h"

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
    AddFilterOptions(*ls, filter_options_);
    ls->footer(
        "Example: bazel run //tools:dump -- ls acldump_output --summary\n"
        "         bazel run //tools:dump -- ls acldump_output --op-type Conv "
        "--iterations 0");
    return ls;
  }

  int Run(const ToolContext&) override {
    absl::StatusOr<dump::DumpTree> tree = dump::ScanDumpTree(path_);
    if (!tree.ok()) {
      return FailWith("ls", tree.status(),
                      "give a dump_path, or any folder or file below it",
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
      std::fputs(FormatDumpTree(kept, summary_).c_str(), stdout);
      return 0;
    }
    std::fputs(FormatDumpTree(*tree, summary_).c_str(), stdout);
    if (tree->runs.empty()) {
      std::fprintf(stderr, "dump ls: note: no dump files under '%s'\n",
                   path_.c_str());
    }
    return 0;
  }

 private:
  std::string path_;
  bool summary_ = false;
  FilterOptions filter_options_;
};

}  // namespace

std::unique_ptr<Command> MakeLsCommand() {
  return std::make_unique<LsCommand>();
}

}  // namespace acldump::tools
