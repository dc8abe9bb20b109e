// `dump convert`: dump files to .npy, or all statistics into one CSV.
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "base/strings.h"
#include "dump/format/dump_tree.h"
#include "tools/cli/command.h"
#include "tools/common/cli_util.h"
#include "tools/common/output_folder.h"
#include "tools/tree/convert.h"
#include "tools/tree/stats.h"

namespace acldump::tools {
namespace {

namespace fs = std::filesystem;

class ConvertCommand final : public Command {
 public:
  CLI::App* Setup(CLI::App& app) override {
    CLI::App* convert = app.add_subcommand(
        "convert",
        "Convert dump files to .npy ({file}.{input|output}.{i}.npy; float16 "
        "stays float16, bfloat16 becomes float32; stats CSVs are copied), "
        "with --to csv merge all statistics into one CSV, or with --to sdk "
        "expand a packed dump (dump_layout 'packed') into the files the SDK "
        "layout would have written, with --to golden write every output as "
        "{op}.{output}.{timestamp}.npy, the golden files the SDK's compare "
        "tools read (named by original operator).");
    convert->add_option("PATH", path_, "a dump file or folder")->required();
    convert->add_option("--out", out_,
                        "output folder (npy; default <name>_npy; sdk: default "
                        "<name>_sdk; golden: default <name>_golden) or file "
                        "(csv; default <name>_stats.csv)");
    convert->add_option("--to", to_, "npy, csv, sdk or golden")
        ->check(CLI::IsMember({"npy", "csv", "sdk", "golden"}))
        ->capture_default_str();
    AddFilterOptions(*convert, filter_options_);
    convert->footer(
        "Example: bazel run //tools:dump -- convert "
        "acldump_output/20250101120000 --out npy_dump");
    return convert;
  }

  int Run(const ToolContext&) override {
    absl::StatusOr<dump::DumpTree> tree = dump::ScanDumpTree(path_);
    if (!tree.ok()) {
      return FailWith("convert", tree.status(), "", kExitFailure);
    }
    absl::StatusOr<DumpFilter> filter = DumpFilter::Create(filter_options_);
    if (!filter.ok()) {
      return FailWith("convert", filter.status(), "", kExitUsage);
    }
    const std::string name = fs::path(Absolute(path_)).filename().string();
    const std::string base = name.empty() ? "dump" : name;
    if (!filter->empty()) {
      dump::DumpTree kept = FilterTree(*tree, *filter);
      if (kept.runs.empty()) {
        return Fail("convert", ExplainEmptyFilter(*tree, *filter), "",
                    kExitFailure);
      }
      return To(kept, base);
    }
    return To(*tree, base);
  }

 private:
  int To(const dump::DumpTree& tree, const std::string& base) {
    if (to_ == "csv") return ToCsv(tree, base);
    if (to_ == "sdk") return ToSdk(tree, base);
    if (to_ == "golden") return ToGolden(tree, base);
    return ToNpy(tree, base);
  }

  int ToGolden(const dump::DumpTree& tree, const std::string& base) {
    const std::string out = out_.empty() ? base + "_golden" : out_;
    absl::StatusOr<GoldenSummary> summary = ConvertDumpToGolden(tree, out);
    if (!summary.ok()) {
      return FailWith("convert", summary.status(), "", kExitFailure);
    }
    for (const std::string& skipped : summary->skipped) {
      std::fprintf(stderr, "dump convert: skipped %s\n", skipped.c_str());
    }
    if (summary->npy_files == 0) {
      return Fail("convert", StrCat("no tensor dump under '", path_, "'"),
                  "--to golden converts tensor dumps (dump_data tensor)",
                  kExitFailure);
    }
    std::printf(
        "wrote %zu golden files ({op}.{output}.{timestamp}.npy) of %zu dump "
        "files: %s in %s\n",
        summary->npy_files, summary->dump_files,
        HumanBytes(summary->bytes_written).c_str(), out.c_str());
    return 0;
  }

  int ToSdk(const dump::DumpTree& tree, const std::string& base) {
    size_t packed = 0;
    for (const dump::DumpEntry& entry : tree.entries) packed += entry.packed;
    if (packed == 0) {
      return Fail("convert",
                  StrCat("no packed records under '", path_,
                         "': it is in the SDK layout already"),
                  "--to sdk expands dumps written with \"dump_layout\": "
                  "\"packed\"",
                  kExitFailure);
    }
    const std::string out = out_.empty() ? base + "_sdk" : out_;
    absl::StatusOr<SdkSummary> summary = ConvertDumpToSdk(tree, out);
    if (!summary.ok()) {
      return FailWith("convert", summary.status(), "", kExitFailure);
    }
    for (const std::string& problem : tree.problems) {
      std::fprintf(stderr, "dump convert: skipped %s\n", problem.c_str());
    }
    std::printf(
        "expanded %zu packed records into files, copied %zu other "
        "files: %s in %s\n",
        summary->records, summary->copied,
        HumanBytes(summary->bytes_written).c_str(), out.c_str());
    return 0;
  }

  int ToCsv(const dump::DumpTree& tree, const std::string& base) {
    absl::StatusOr<MergedStats> stats = MergeStats(tree);
    if (!stats.ok()) {
      return FailWith("convert", stats.status(),
                      "point it at a dump folder with stats CSVs or tensor "
                      "dumps",
                      kExitFailure);
    }
    std::string out = out_;
    if (out.empty()) {
      // A name derived from the tree's: written by the output folder's rule
      // (a symlink planted there is not followed).
      absl::StatusOr<std::string> written =
          WriteDerivedFile(base + "_stats.csv", MergedStatsCsv(*stats));
      if (!written.ok()) {
        return FailWith("convert", written.status(),
                        "give the file to write with --out", kExitFailure);
      }
      out = *written;
    } else {
      std::ofstream file(out, std::ios::binary);
      file << MergedStatsCsv(*stats);
      if (!file) {
        return Fail("convert", StrCat("cannot write ", out), "", kExitFailure);
      }
    }
    for (const std::string& problem : stats->problems) {
      std::fprintf(stderr, "dump convert: skipped %s\n", problem.c_str());
    }
    std::printf("wrote %zu rows (%zu stats CSV, %zu tensor dumps) to %s\n",
                stats->rows.size(), stats->stats_files, stats->tensor_files,
                out.c_str());
    return 0;
  }

  int ToNpy(const dump::DumpTree& tree, const std::string& base) {
    if (tree.CountKind(dump::EntryKind::kTensor) +
            tree.CountKind(dump::EntryKind::kStats) +
            tree.CountKind(dump::EntryKind::kOverflowRecord) ==
        0) {
      return Fail("convert", StrCat("no dump files under '", path_, "'"),
                  "give a dump file or a folder of the dump tree",
                  kExitFailure);
    }
    const std::string out = out_.empty() ? base + "_npy" : out_;
    absl::StatusOr<ConvertSummary> summary = ConvertDumpToNpy(tree, out);
    if (!summary.ok()) {
      return FailWith("convert", summary.status(), "", kExitFailure);
    }
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

  std::string path_;
  std::string out_;
  std::string to_ = "npy";
  FilterOptions filter_options_;
};

}  // namespace

std::unique_ptr<Command> MakeConvertCommand() {
  return std::make_unique<ConvertCommand>();
}

}  // namespace acldump::tools
