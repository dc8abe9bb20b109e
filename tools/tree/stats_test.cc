#include "tools/tree/stats.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>

#include "dump/format/dump_names.h"
#include "dump/format/testing/dump_test_util.h"
#include "nlohmann/json.hpp"

namespace acldump::tools {
namespace {

using dump::testing::FakeOp;
using dump::testing::ModelFolder;
using dump::testing::NewTempDir;
using dump::testing::WriteDumpFile;
using dump::testing::WriteText;
using ::testing::HasSubstr;

constexpr float kNan = std::numeric_limits<float>::quiet_NaN();

std::string StatsFile(const std::string& dir, const std::string& type,
                      const std::string& name, uint32_t task) {
  return dir + "/" + dump::DumpFileName(type, name, task, 0, task + 1) + ".csv";
}

TEST(MergeStatsTest, MergesCsvAndTensorDumps) {
  const std::string root = NewTempDir("merge");
  const std::string dir = ModelFolder(root, 0);
  WriteText(StatsFile(dir, "Conv", "conv", 0),
            "Input/Output,Index,Data Size,Data Type,Format,Shape,Max Value,Min "
            "Value,Avg Value,Count,Nan Count,Negative Inf Count,Positive Inf "
            "Count\nOutput,0,16,DT_FLOAT,ND,4,20000,-1,5000,4,0,0,0\n");
  // Custom columns (dump_stats): Count after Shape, then l2norm.
  WriteText(StatsFile(dir, "Relu", "relu", 1),
            "Input/Output,Index,Data Size,Data Type,Format,Shape,Count,Max "
            "Value,l2norm\nOutput,0,16,DT_FLOAT,ND,4,4,3,5\n");
  // A tensor dump: its statistics are computed (one NaN).
  WriteDumpFile(dir, FakeOp{"Div", "div", {}, {{{1, 2}}}, {{{kNan, 4}}}}, 2, 9);

  absl::StatusOr<dump::DumpTree> tree = dump::ScanDumpTree(root);
  ASSERT_TRUE(tree.ok());
  absl::StatusOr<MergedStats> stats = MergeStats(*tree);
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_EQ(stats->stats_files, 2u);
  EXPECT_EQ(stats->tensor_files, 1u);
  ASSERT_EQ(stats->rows.size(), 4u);  // conv out, relu out, div in + out
  EXPECT_EQ(stats->header[0], "Time");
  EXPECT_EQ(stats->header.back(), "l2norm");  // union, first seen order
  EXPECT_EQ(*stats->rows[0].max, 20000);
  EXPECT_TRUE(stats->rows[2].is_input);
  EXPECT_EQ(stats->rows[3].nan, 1u);
  EXPECT_EQ(*stats->rows[3].max, 4);
  EXPECT_EQ(CountNonFiniteRows(*stats), 1u);

  const std::string csv = MergedStatsCsv(*stats);
  EXPECT_THAT(csv,
              HasSubstr("Time,Device,Model,Model ID,Iteration,Op Type,"
                        "Op Name,Task ID,Stream ID,Timestamp,Input/Output"));
  EXPECT_THAT(csv, HasSubstr("20250101120000,0,net,1,0,Relu,relu,1,0,2,Output,"
                             "0,16,DT_FLOAT,ND,4,3,,,4,,,,5"));

  const std::string report = FormatStatsReport(*tree, *stats, {});
  EXPECT_THAT(report, HasSubstr("NaN/Inf: 1 tensors"));
  EXPECT_THAT(report, HasSubstr("extreme values (|x| >= 10000): 1 tensors"));
  // Ranked: the NaN op first, then by largest |value|.
  const size_t div = report.find("1  div");
  const size_t conv = report.find("2  conv");
  ASSERT_NE(div, std::string::npos) << report;
  ASSERT_NE(conv, std::string::npos) << report;
  EXPECT_THAT(report, HasSubstr("NaN/Inf"));
  EXPECT_THAT(report, HasSubstr("extreme"));
}

// --json: rows with the documented keys, NaN/Inf and extreme rows as indices
// into rows, and the ranking (the NaN op first).
TEST(MergeStatsTest, JsonHoldsRowsFlagsAndRanking) {
  const std::string root = NewTempDir("json");
  const std::string dir = ModelFolder(root, 0);
  WriteText(StatsFile(dir, "Conv", "conv", 0),
            "Input/Output,Index,Data Size,Data Type,Format,Shape,Max Value,Min "
            "Value,Avg Value,Count,Nan Count,Negative Inf Count,Positive Inf "
            "Count\nOutput,0,16,DT_FLOAT,ND,4,20000,-1,5000,4,0,0,0\n");
  WriteDumpFile(dir, FakeOp{"Div", "div", {}, {}, {{{kNan, 4}}}}, 1, 9);
  absl::StatusOr<dump::DumpTree> tree = dump::ScanDumpTree(root);
  ASSERT_TRUE(tree.ok());
  absl::StatusOr<MergedStats> stats = MergeStats(*tree);
  ASSERT_TRUE(stats.ok()) << stats.status();
  const nlohmann::json j = nlohmann::json::parse(StatsJson(*tree, *stats, {}));
  EXPECT_EQ(j["schema"], "acldump.stats/1");
  EXPECT_EQ(j["stats_files"], 1);
  EXPECT_EQ(j["tensor_files"], 1);
  EXPECT_EQ(j["extreme"], 10000.0);
  ASSERT_EQ(j["rows"].size(), 2u);
  const nlohmann::json& conv = j["rows"][0];
  for (const char* key :
       {"time", "device", "model", "model_id", "iteration", "op_type",
        "op_name", "task", "stream", "timestamp", "io", "index", "data_type",
        "shape", "max", "min", "avg", "nan", "file"}) {
    EXPECT_TRUE(conv.contains(key)) << key;
  }
  EXPECT_EQ(conv["op_name"], "conv");
  EXPECT_EQ(conv["io"], "output");
  EXPECT_EQ(conv["max"], 20000.0);
  EXPECT_EQ(j["rows"][1]["nan"], 1);
  EXPECT_EQ(j["nonfinite_rows"], nlohmann::json::array({1}));
  EXPECT_EQ(j["extreme_rows"], nlohmann::json::array({0}));
  ASSERT_EQ(j["ranking"].size(), 2u);
  EXPECT_EQ(j["ranking"][0]["op"], "div");
  EXPECT_EQ(j["ranking"][0]["rank"], 1);
  EXPECT_EQ(j["ranking"][1]["op"], "conv");
  EXPECT_EQ(j["ranking"][1]["worst_row"], 0);
}

TEST(MergeStatsTest, EmptyTreeIsAnError) {
  absl::StatusOr<dump::DumpTree> tree =
      dump::ScanDumpTree(NewTempDir("nothing"));
  ASSERT_TRUE(tree.ok());
  EXPECT_FALSE(MergeStats(*tree).ok());
}

TEST(MergeStatsTest, BadCsvIsReportedNotFatal) {
  const std::string root = NewTempDir("bad_csv");
  const std::string dir = ModelFolder(root, 0);
  WriteText(StatsFile(dir, "Conv", "conv", 0), "Input/Output,Index\nOops,x\n");
  WriteDumpFile(dir, FakeOp{"Add", "add", {}, {}, {{{1}}}}, 1, 5);
  absl::StatusOr<dump::DumpTree> tree = dump::ScanDumpTree(root);
  ASSERT_TRUE(tree.ok());
  absl::StatusOr<MergedStats> stats = MergeStats(*tree);
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->rows.size(), 1u);
  ASSERT_EQ(stats->problems.size(), 1u);
  EXPECT_THAT(stats->problems[0], HasSubstr("Conv.conv.0.0"));
}

}  // namespace
}  // namespace acldump::tools
