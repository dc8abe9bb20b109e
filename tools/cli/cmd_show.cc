// `dump show`: one dump file's header and statistics, or a stats CSV.
#include <cstdio>

#include "tools/cli/command.h"
#include "tools/common/cli_util.h"
#include "tools/tree/show.h"

namespace acldump::tools {
namespace {

class ShowCommand final : public Command {
 public:
  CLI::App* Setup(CLI::App& app) override {
    CLI::App* show = app.add_subcommand(
        "show",
        "Print a dump file's header (op, type, original names, attrs, dtypes, "
        "formats, shapes) and per-tensor statistics; stats CSVs as a table.");
    show->add_option("FILE", files_, "dump file(s) or stats .csv")->required();
    show->add_option("--head", head_, "also print the first N values");
    show->add_flag("--json", json_,
                   "print JSON instead (schema acldump.show/1; one object per "
                   "file, a JSON array for several files)");
    show->footer(
        "Example: bazel run //tools:dump -- show "
        "acldump_output/20250101120000/0/resnet_tiny/1/0/"
        "Conv.conv1bn1relu1.0.0.1735732800000000 --head 8");
    return show;
  }

  int Run(const ToolContext&) override {
    int status = 0;
    if (json_ && files_.size() > 1) std::fputs("[\n", stdout);
    bool first = true;
    for (size_t i = 0; i < files_.size(); ++i) {
      absl::StatusOr<std::string> text =
          json_ ? DumpFileJson(files_[i], {head_})
                : DescribeDumpFile(files_[i], {head_});
      if (!text.ok()) {
        status = FailWith("show", text.status(),
                          "show takes one dump file (or stats .csv); `dump ls "
                          "DIR` lists them",
                          kExitFailure);
        continue;
      }
      if (!first) std::fputs(json_ ? "," : "\n", stdout);
      first = false;
      std::fputs(text->c_str(), stdout);
    }
    if (json_ && files_.size() > 1) std::fputs("]\n", stdout);
    return status;
  }

 private:
  std::vector<std::string> files_;
  size_t head_ = 0;
  bool json_ = false;
};

}  // namespace

std::unique_ptr<Command> MakeShowCommand() {
  return std::make_unique<ShowCommand>();
}

}  // namespace acldump::tools
