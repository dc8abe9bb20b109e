// dump_baseline end to end: a stats dump of a model is the baseline of a
// later run, which writes tensors only for the operators that depart from it.
#include "dump/baseline.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

#include "base/error_kind.h"
#include "dump/dump_manager.h"
#include "dump/format/dump_file.h"
#include "dump/format/dump_tree.h"
#include "dump/format/stats_csv.h"
#include "dump/testing/model_runs.h"
#include "nlohmann/json.hpp"
#include "runtime/model_loader.h"

namespace acldump::dump {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

constexpr char kResnet[] = "testdata/resnet_tiny.om";
constexpr char kMlp[] = "testdata/mlp_block.om";

std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void WriteText(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

class BaselineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = TempDir(
        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    base_path_ = dir_ + "/base";
    run_path_ = dir_ + "/run";
    fs::create_directories(base_path_);
    fs::create_directories(run_path_);
  }

  // The baseline's stats records of the first iteration, in execution order.
  std::vector<const DumpEntry*> Records(const DumpTree& tree) {
    EXPECT_THAT(tree.runs, SizeIs(1));
    return tree.runs.at(0).files;
  }

  struct Run {
    absl::Status set_dump;
    absl::Status attach;
    std::vector<std::string> warnings;
    std::vector<std::string> files;  // below run_path_
  };

  // Runs `model` with a dump into `dump_path` configured by `keys` plus the
  // dump_list.
  Run Dump(const std::string& dump_path, const std::string& keys,
           const std::string& model,
           const std::function<void(Tensor&)>& change_input = nullptr) {
    const std::string config =
        WriteConfig(dir_, R"({"dump":{"dump_path":")" + dump_path + "\"," +
                              keys + R"(,"dump_list":[{"model_name":")" +
                              FileStem(model) + R"("}]}})");
    DumpManager manager;
    ModelRegistry registry;
    EXPECT_TRUE(manager.InitDump().ok());
    Run run;
    run.set_dump = manager.SetDump(config);
    if (run.set_dump.ok()) {
      Loaded loaded = Load(manager, registry, model);
      run.attach = loaded.attach_status;
      run.warnings = loaded.warnings;
      if (loaded.attach_status.ok()) {
        RunModel(*loaded.model, nullptr, change_input);
      }
    }
    EXPECT_TRUE(manager.FinalizeDump().ok());
    run.files = FilesUnder(dump_path);
    return run;
  }

  Run RunWith(const std::string& keys, const std::string& model = kResnet,
              const std::function<void(Tensor&)>& change_input = nullptr) {
    return Dump(run_path_, keys, model, change_input);
  }

  // Dumps `model` into base_path_ with `data_keys` (dump_data, dump_stats,
  // layout); returns the time folder.
  std::string MakeBaseline(const std::string& data_keys,
                           const std::string& model = kResnet) {
    const Run run = Dump(base_path_, data_keys, model);
    EXPECT_TRUE(run.set_dump.ok() && run.attach.ok())
        << run.set_dump << run.attach;
    std::string newest;
    for (const auto& entry : fs::directory_iterator(base_path_)) {
      const std::string name = entry.path().filename().string();
      if (newest.empty() || TimeFolderBefore(newest, name)) newest = name;
    }
    return base_path_ + "/" + newest;
  }

  Run RunAgainst(const std::string& baseline, const std::string& extra = "",
                 const std::function<void(Tensor&)>& change_input = nullptr) {
    return RunWith(R"("dump_baseline":")" + baseline + "\"" +
                       (extra.empty() ? "" : "," + extra),
                   kResnet, change_input);
  }

  // The one summary of the run.
  nlohmann::json Summary(const Run& run) {
    for (const std::string& file : run.files) {
      if (fs::path(file).filename() == kBaselineSummaryFileName) {
        return nlohmann::json::parse(ReadText(run_path_ + "/" + file));
      }
    }
    ADD_FAILURE() << "no " << kBaselineSummaryFileName;
    return {};
  }

  std::string dir_, base_path_, run_path_;
};

constexpr char kChecksumStats[] =
    R"("dump_data":"stats","dump_stats":["Max","Min","Checksum"])";

TEST_F(BaselineTest, RunThatMatchesWritesNothing) {
  for (const std::string layout : {"sdk", "packed"}) {
    for (const std::string& data :
         {std::string(kChecksumStats), std::string(R"("dump_data":"stats")"),
          std::string(R"("dump_data":"checksum")")}) {
      SCOPED_TRACE(layout + " " + data);
      fs::remove_all(base_path_);
      fs::create_directories(base_path_);
      const std::string baseline =
          MakeBaseline(data + R"(,"dump_layout":")" + layout + "\"");
      const Run run =
          RunAgainst(baseline, R"("dump_layout":")" + layout + "\"");
      ASSERT_TRUE(run.set_dump.ok()) << run.set_dump;
      ASSERT_TRUE(run.attach.ok()) << run.attach;
      EXPECT_THAT(run.warnings, IsEmpty());
      EXPECT_THAT(run.files, IsEmpty());
      if (!run.files.empty()) ADD_FAILURE() << Summary(run).dump(1);
    }
  }
}

// A record of the baseline made to differ: that operator's tensors (inputs
// and outputs) are written, nothing else, and the summary names it.
TEST_F(BaselineTest, PlantedChecksumDifferenceWritesThatOperatorOnly) {
  const std::string baseline = MakeBaseline(kChecksumStats);
  absl::StatusOr<DumpTree> tree = ScanDumpTree(baseline);
  ASSERT_TRUE(tree.ok()) << tree.status();
  std::vector<const DumpEntry*> records = Records(*tree);
  ASSERT_GT(records.size(), 4u);
  // The third operator (not a graph input's Data record).
  const DumpEntry* planted = nullptr;
  int operators = 0;
  for (const DumpEntry* e : records) {
    if (e->name->op_type != "Data" && ++operators == 3) planted = e;
  }
  ASSERT_NE(planted, nullptr);
  std::string csv = ReadText(planted->path);
  const std::regex checksum(",([0-9a-f]{16})\n");
  std::smatch found;
  ASSERT_TRUE(std::regex_search(csv, found, checksum)) << csv;
  const std::string original = found[1];
  std::string changed = original;
  changed[15] = changed[15] == '0' ? '1' : '0';
  csv.replace(found.position(1), 16, changed);
  WriteText(planted->path, csv);

  const Run run = RunAgainst(baseline);
  ASSERT_TRUE(run.attach.ok()) << run.attach;
  ASSERT_THAT(run.files, SizeIs(2));
  std::string dump_file;
  for (const std::string& f : run.files) {
    if (fs::path(f).filename() != kBaselineSummaryFileName) dump_file = f;
  }
  const std::string prefix =
      planted->name->op_type + "." + planted->name->op_name + ".";
  EXPECT_EQ(fs::path(dump_file).filename().string().substr(0, prefix.size()),
            prefix);
  absl::StatusOr<DumpFileContents> contents =
      ReadDumpFile(run_path_ + "/" + dump_file);
  ASSERT_TRUE(contents.ok()) << contents.status();
  EXPECT_GE(contents->header.input_size(), 1);
  EXPECT_GE(contents->header.output_size(), 1);

  const nlohmann::json summary = Summary(run);
  EXPECT_EQ(summary["model"], "resnet_tiny");
  EXPECT_EQ(summary["iteration"], 0);
  EXPECT_EQ(summary["operators_differing"], 1);
  EXPECT_EQ(summary["tensors_written_for"], 1);
  EXPECT_EQ(summary["records_compared"], records.size());
  const nlohmann::json& first = summary["first_difference"];
  EXPECT_EQ(first["op_name"], planted->name->op_name);
  EXPECT_EQ(first["column"], "Checksum");
  EXPECT_EQ(first["baseline"], changed);
  EXPECT_EQ(first["run"], original);
  EXPECT_EQ(first["tensors_written"], true);
  EXPECT_THAT(summary["baseline"].get<std::string>(), HasSubstr(baseline));
}

// Another input: the run departs at once; only the first N operators that
// differ get their tensors, every one is listed.
TEST_F(BaselineTest, OtherInputWritesTheFirstNDifferingOperators) {
  const std::string baseline = MakeBaseline(kChecksumStats);
  const Run run =
      RunAgainst(baseline, R"("dump_baseline_tensors":"2")",
                 [](Tensor& t) { static_cast<float*>(t.data())[0] += 1.0f; });
  ASSERT_TRUE(run.attach.ok()) << run.attach;
  ASSERT_THAT(run.files, SizeIs(3));  // two records and the summary
  const nlohmann::json summary = Summary(run);
  EXPECT_EQ(summary["tensors_written_for"], 2);
  EXPECT_GT(summary["operators_differing"].get<int>(), 2);
  const nlohmann::json& differences = summary["differences"];
  ASSERT_EQ(differences.size(), summary["operators_differing"]);
  EXPECT_EQ(differences[0], summary["first_difference"]);
  EXPECT_EQ(differences[0]["tensors_written"], true);
  EXPECT_EQ(differences[1]["tensors_written"], true);
  EXPECT_EQ(differences[2]["tensors_written"], false);
  // The changed graph input is where the run departs.
  EXPECT_EQ(differences[0]["op_type"], "Data");
  // Zero: only the summary.
  fs::remove_all(run_path_);
  fs::create_directories(run_path_);
  const Run quiet =
      RunAgainst(baseline, R"("dump_baseline_tensors":"0")",
                 [](Tensor& t) { static_cast<float*>(t.data())[0] += 1.0f; });
  ASSERT_THAT(quiet.files, SizeIs(1));
  EXPECT_EQ(Summary(quiet)["tensors_written_for"], 0);
}

// Without checksums, the statistics decide, as the stats CSV prints them.
TEST_F(BaselineTest, StatsBaselineNamesTheDifferingColumns) {
  const std::string baseline = MakeBaseline(R"("dump_data":"stats")");
  absl::StatusOr<DumpTree> tree = ScanDumpTree(baseline);
  ASSERT_TRUE(tree.ok()) << tree.status();
  const DumpEntry* planted = Records(*tree).back();
  absl::StatusOr<StatsTable> table = ParseStatsCsv(ReadText(planted->path));
  ASSERT_TRUE(table.ok()) << table.status();
  const size_t max_column = *table->ColumnIndex("Max Value");
  const size_t last = table->rows.size() - 1;
  const std::string max = table->rows[last][max_column];
  table->rows[last][max_column] = "12345.6";
  std::string csv;
  for (const auto& line : {table->header}) {
    for (size_t i = 0; i < line.size(); ++i) csv += (i ? "," : "") + line[i];
  }
  csv += "\n";
  for (const auto& row : table->rows) {
    for (size_t i = 0; i < row.size(); ++i) csv += (i ? "," : "") + row[i];
    csv += "\n";
  }
  WriteText(planted->path, csv);

  const Run run = RunAgainst(baseline);
  ASSERT_THAT(run.files, SizeIs(2));
  const nlohmann::json first = Summary(run)["first_difference"];
  EXPECT_EQ(first["op_name"], planted->name->op_name);
  ASSERT_EQ(first["columns"].size(), 1u);
  EXPECT_EQ(first["columns"][0]["column"], "Max Value");
  EXPECT_EQ(first["columns"][0]["baseline"], "12345.6");
  EXPECT_EQ(first["columns"][0]["run"], max);
}

// A record that cannot match (another shape in the baseline) differs in
// every iteration, with the reason.
TEST_F(BaselineTest, RecordOfAnotherShapeDiffersWithTheReason) {
  const std::string baseline = MakeBaseline(kChecksumStats);
  absl::StatusOr<DumpTree> tree = ScanDumpTree(baseline);
  ASSERT_TRUE(tree.ok()) << tree.status();
  const DumpEntry* planted = Records(*tree).back();
  std::string csv = ReadText(planted->path);
  const size_t row = csv.find("\nOutput,0,");
  ASSERT_NE(row, std::string::npos) << csv;
  // The shape is the sixth cell: "1x10" becomes "1x11".
  size_t cell = row + 1;
  for (int i = 0; i < 5; ++i) cell = csv.find(',', cell) + 1;
  const size_t end = csv.find(',', cell);
  const std::string shape = csv.substr(cell, end - cell);
  csv.replace(cell, end - cell, shape + "1");
  WriteText(planted->path, csv);

  const Run run = RunAgainst(baseline);
  ASSERT_TRUE(run.attach.ok()) << run.attach;
  const nlohmann::json first = Summary(run)["first_difference"];
  EXPECT_EQ(first["op_name"], planted->name->op_name);
  EXPECT_EQ(first["tensor"], "record");
  EXPECT_THAT(first["reason"].get<std::string>(),
              HasSubstr("output 0 is 'Output,0,"));
  EXPECT_THAT(first["reason"].get<std::string>(),
              HasSubstr(shape + "1' in the baseline"));
}

TEST_F(BaselineTest, PackedBaselineAndPackedRun) {
  const std::string baseline =
      MakeBaseline(std::string(kChecksumStats) + R"(,"dump_layout":"packed")");
  absl::StatusOr<DumpTree> tree = ScanDumpTree(baseline);
  ASSERT_TRUE(tree.ok()) << tree.status();
  const DumpEntry* planted = Records(*tree).back();
  ASSERT_TRUE(planted->packed);
  // Change the last record's checksum in the model folder's statistic.csv,
  // which holds the rows of every iteration.
  const std::string merged = planted->packed_in;
  EXPECT_EQ(merged, fs::path(planted->path).parent_path().parent_path() /
                        "statistic.csv");
  std::string text = ReadText(merged);
  const size_t end = text.rfind('\n', text.size() - 2);
  ASSERT_NE(end, std::string::npos);
  const size_t hex = text.size() - 17;  // the last row's checksum
  text[hex + 15] = text[hex + 15] == '0' ? '1' : '0';
  WriteText(merged, text);

  const Run run = RunAgainst(baseline, R"("dump_layout":"packed")");
  ASSERT_TRUE(run.attach.ok()) << run.attach;
  absl::StatusOr<DumpTree> written = ScanDumpTree(run_path_);
  ASSERT_TRUE(written.ok()) << written.status();
  EXPECT_EQ(written->CountKind(EntryKind::kTensor), 1u);
  EXPECT_EQ(Summary(run)["first_difference"]["op_name"],
            planted->name->op_name);
}

TEST_F(BaselineTest, BaselineProblemsAreClearErrors) {
  // Missing folder: the config is refused.
  Run run = RunAgainst(dir_ + "/nothing-here");
  EXPECT_EQ(KindOf(run.set_dump), ErrorKind::kInvalidDumpConfig);
  EXPECT_THAT(run.set_dump.message(), HasSubstr("dump.dump_baseline"));
  EXPECT_THAT(run.set_dump.message(), HasSubstr("nothing-here"))
      << run.set_dump;
  EXPECT_THAT(run.files, IsEmpty());

  // A tensor dump is no baseline.
  const std::string tensors = MakeBaseline(R"("dump_data":"tensor")");
  run = RunAgainst(tensors);
  EXPECT_EQ(KindOf(run.set_dump), ErrorKind::kInvalidDumpConfig);
  EXPECT_THAT(run.set_dump.message(), HasSubstr("holds no stats records"));
  EXPECT_THAT(run.set_dump.message(), HasSubstr("tensor dump files"));

  // Two runs of the model below the folder given: which one is ambiguous.
  fs::remove_all(base_path_);
  fs::create_directories(base_path_);
  const std::string first = MakeBaseline(kChecksumStats);
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  MakeBaseline(kChecksumStats);
  run = RunAgainst(base_path_);
  EXPECT_THAT(run.set_dump.message(), HasSubstr("more than one run"));
  EXPECT_THAT(run.set_dump.message(), HasSubstr("time folder"));
  run = RunAgainst(first);
  EXPECT_TRUE(run.set_dump.ok()) << run.set_dump;
  EXPECT_THAT(run.files, IsEmpty());

  // A model the baseline does not hold: its load fails.
  run = RunWith(R"("dump_baseline":")" + first + "\"", kMlp);
  EXPECT_EQ(KindOf(run.attach), ErrorKind::kInvalidDumpConfig);
  EXPECT_THAT(run.attach.message(),
              HasSubstr("holds no run of model 'mlp_block' (it holds "
                        "'resnet_tiny')"));
}

TEST_F(BaselineTest, MalformedBaselineFilesAreNamed) {
  const std::string baseline = MakeBaseline(kChecksumStats);
  absl::StatusOr<DumpTree> tree = ScanDumpTree(baseline);
  ASSERT_TRUE(tree.ok());
  const std::string path = Records(*tree).back()->path;
  const std::string good = ReadText(path);
  const std::string header = good.substr(0, good.find('\n'));
  for (const std::string& bad :
       {std::string("Input/Output,Index,Wrong\nOutput,0,1\n"),
        header + "\nSideways,0" +
            good.substr(good.find(',', header.size() + 2)),
        good.substr(0, good.size() - 3) + "zz\n"}) {
    WriteText(path, bad);
    const Run run = RunAgainst(baseline);
    EXPECT_EQ(KindOf(run.set_dump), ErrorKind::kInvalidDumpConfig) << bad;
    EXPECT_THAT(run.set_dump.message(), HasSubstr(path)) << bad;
  }
}

TEST_F(BaselineTest, OperatorsWithoutARecordAreWarnedAbout) {
  // A baseline of two layers; the run compares every operator.
  const std::string config = WriteConfig(
      dir_,
      R"({"dump":{"dump_path":")" + base_path_ +
          R"(","dump_data":"checksum","dump_list":[{"model_name":"resnet_tiny","layer":["conv1"]}]}})");
  {
    DumpManager manager;
    ModelRegistry registry;
    ASSERT_TRUE(manager.InitDump().ok());
    ASSERT_TRUE(manager.SetDump(config).ok());
    Loaded loaded = Load(manager, registry, kResnet);
    RunModel(*loaded.model);
    ASSERT_TRUE(manager.FinalizeDump().ok());
  }
  const Run run = RunAgainst(base_path_);
  ASSERT_TRUE(run.attach.ok()) << run.attach;
  ASSERT_THAT(run.warnings, SizeIs(1));
  EXPECT_THAT(run.warnings[0],
              HasSubstr("have no record in the baseline and are not compared"));
  EXPECT_THAT(run.files, IsEmpty());
}

TEST(BaselineConfigTest, KeysAreChecked) {
  auto parse = [](const std::string& keys) {
    return ParseDumpConfig(R"({"dump":{"dump_path":"/tmp",)" + keys +
                               R"(,"dump_list":[{"model_name":"m"}]}})",
                           "acl.json");
  };
  absl::StatusOr<DumpConfig> config =
      parse(R"("dump_baseline":"/tmp","dump_baseline_tensors":"3")");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->baseline, "/tmp");
  EXPECT_EQ(config->baseline_tensors, 3u);
  EXPECT_THAT(DescribeDumpConfig(*config),
              HasSubstr("compared with the baseline /tmp: tensors (inputs and "
                        "outputs) of the first 3 differing operators"));
  EXPECT_EQ(parse(R"("dump_baseline":"/tmp")")->baseline_tensors, 1u);

  struct Bad {
    std::string keys;
    std::string message;
  };
  for (const Bad& bad : std::vector<Bad>{
           {R"("dump_baseline_tensors":"2")",
            "acl.json: dump.dump_baseline_tensors: needs dump_baseline"},
           {R"("dump_baseline":"/tmp","dump_baseline_tensors":"-1")",
            "a whole number from 0 to 10000"},
           {R"("dump_baseline":"/tmp","dump_baseline_tensors":"10001")",
            "a whole number from 0 to 10000"},
           {R"("dump_baseline":"/tmp","dump_baseline_tensors":"two")",
            "is 'two'; expected how many differing operators"},
           {R"("dump_baseline":"/tmp","dump_data":"stats")",
            "dump_data is 'stats'; remove dump_data or set it to "
            "\"tensor\""},
           {R"("dump_baseline":"")", "dump.dump_baseline: is empty"},
           {R"("dump_baseline":"/no/such/folder")",
            "'/no/such/folder': No such file or directory"},
           {R"("dump_baseline":3)", "dump.dump_baseline"},
       }) {
    absl::StatusOr<DumpConfig> refused = parse(bad.keys);
    ASSERT_FALSE(refused.ok()) << bad.keys;
    EXPECT_EQ(KindOf(refused.status()), ErrorKind::kInvalidDumpConfig);
    EXPECT_THAT(refused.status().message(), HasSubstr(bad.message)) << bad.keys;
  }
  // Model dump only.
  absl::StatusOr<DumpConfig> overflow = ParseDumpConfig(
      R"({"dump":{"dump_path":"/tmp","dump_debug":"on","dump_baseline":"/tmp"}})",
      "acl.json");
  ASSERT_FALSE(overflow.ok());
  EXPECT_THAT(overflow.status().message(), HasSubstr("applies to model dump"));
  absl::StatusOr<DumpConfig> watcher = ParseDumpConfig(
      R"({"dump":{"dump_path":"/tmp","dump_scene":"watcher","dump_baseline":"/tmp","dump_list":[{"model_name":"m","layer":["a"],"watcher_nodes":["b"]}]}})",
      "acl.json");
  ASSERT_FALSE(watcher.ok());
  EXPECT_THAT(watcher.status().message(), HasSubstr("applies to model dump"));
}

}  // namespace
}  // namespace acldump::dump
