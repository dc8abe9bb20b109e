#include "tools/tree/show.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>

#include "dump/format/overflow_record.h"
#include "dump/format/testing/dump_test_util.h"
#include "nlohmann/json.hpp"

namespace acldump::tools {
namespace {

using dump::testing::FakeOp;
using dump::testing::NewTempDir;
using dump::testing::WriteDumpFile;
using dump::testing::WriteText;
using ::testing::HasSubstr;

TEST(ShowTest, HeaderAndStatistics) {
  const std::string dir = NewTempDir("show");
  const std::string file =
      WriteDumpFile(dir,
                    FakeOp{"Conv",
                           "conv1bn1",
                           {"conv1", "bn1"},
                           {{{1, 2, 3, 4}, {1, 4}}},
                           {{{0, -1, 3, 0}, {2, 2}, 1, "bn1"}}},
                    3, 1735732800000000);
  absl::StatusOr<std::string> text = DescribeDumpFile(file, {3});
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_THAT(*text, HasSubstr("op       conv1bn1  (type Conv)"));
  EXPECT_THAT(*text, HasSubstr("original conv1,bn1"));
  EXPECT_THAT(*text, HasSubstr("1 input, 1 output"));
  EXPECT_THAT(*text, HasSubstr("input 0: DT_FLOAT  ND  shape [1,4]"));
  EXPECT_THAT(*text, HasSubstr("original op bn1:0"));
  // Output [0,-1,3,0]: mean 0.5, population std sqrt(2.75), l2norm sqrt(10).
  EXPECT_THAT(*text, HasSubstr("count 4  min -1  max 3  mean 0.5  std 1.5  "
                               "l2norm 3.16228"));
  EXPECT_THAT(*text, HasSubstr("zeros 2 (50.0%)"));
  EXPECT_THAT(*text, HasSubstr("first 3: 0 -1 3 ..."));
}

TEST(ShowTest, OverflowRecord) {
  const std::string dir = NewTempDir("show_overflow");
  dump::OverflowRecord record;
  record.model_id = 4;
  record.task_id = 7;
  record.status = dump::kOverflowStatusNan | dump::kOverflowStatusPositiveInf;
  const std::string path =
      dir + "/" + dump::OverflowRecordFileName(7, 0, 1735732800000000);
  WriteText(path, dump::EncodeOverflowDumpFile(record, 1735732800000000));
  absl::StatusOr<std::string> text = DescribeDumpFile(path, {});
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_THAT(*text, HasSubstr("overflow record: model_id 4, task_id 7"));
  EXPECT_THAT(*text, HasSubstr("(NaN, +Inf)"));
}

TEST(ShowTest, StatsCsvAndErrors) {
  const std::string dir = NewTempDir("show_csv");
  WriteText(dir + "/a.csv", "Input/Output,Index,Max Value\nOutput,0,2.5\n");
  absl::StatusOr<std::string> text = DescribeDumpFile(dir + "/a.csv", {});
  ASSERT_TRUE(text.ok());
  EXPECT_THAT(*text, HasSubstr("Input/Output  Index  Max Value"));
  WriteText(dir + "/junk", "not a dump file");
  EXPECT_FALSE(DescribeDumpFile(dir + "/junk", {}).ok());
  EXPECT_FALSE(DescribeDumpFile(dir + "/missing", {}).ok());
}

TEST(ShowTest, JsonHasTheTextsFacts) {
  const std::string dir = NewTempDir("show_json");
  const std::string file =
      WriteDumpFile(dir,
                    FakeOp{"Conv",
                           "conv1bn1",
                           {"conv1", "bn1"},
                           {{{1, 2, 3, 4}, {1, 4}}},
                           {{{0, -1, 3, std::numeric_limits<float>::infinity()},
                             {2, 2},
                             1,
                             "bn1"}}},
                    3, 1735732800000000);
  absl::StatusOr<std::string> text = DumpFileJson(file, {2});
  ASSERT_TRUE(text.ok()) << text.status();
  const nlohmann::json j = nlohmann::json::parse(*text);
  EXPECT_EQ(j["schema"], "acldump.show/1");
  EXPECT_EQ(j["kind"], "dump");
  EXPECT_EQ(j["op"], "conv1bn1");
  EXPECT_EQ(j["type"], "Conv");
  EXPECT_EQ(j["original_names"], nlohmann::json({"conv1", "bn1"}));
  EXPECT_EQ(j["version"], "2.0");
  EXPECT_FALSE(j["legacy_format"]);
  ASSERT_EQ(j["inputs"].size(), 1u);
  EXPECT_EQ(j["inputs"][0]["dtype"], "DT_FLOAT");
  EXPECT_EQ(j["inputs"][0]["shape"], nlohmann::json({1, 4}));
  EXPECT_EQ(j["inputs"][0]["stats"]["mean"], 2.5);
  const nlohmann::json& out = j["outputs"][0];
  EXPECT_EQ(out["original_op"]["name"], "bn1");
  EXPECT_EQ(out["logical_shape"], nlohmann::json({2, 2}));
  // [0, -1, 3, +inf]: statistics over the finite values; the infinity is
  // counted, and JSON holds it as null among the first values.
  EXPECT_EQ(out["stats"]["count"], 4);
  EXPECT_EQ(out["stats"]["min"], -1.0);
  EXPECT_EQ(out["stats"]["max"], 3.0);
  EXPECT_EQ(out["stats"]["positive_inf"], 1);
  EXPECT_EQ(out["stats"]["zeros"], 1);
  EXPECT_EQ(out["first"], nlohmann::json({0.0, -1.0}));

  dump::OverflowRecord record;
  record.model_id = 4;
  record.status = dump::kOverflowStatusNan;
  const std::string path =
      dir + "/" + dump::OverflowRecordFileName(7, 0, 1735732800000000);
  WriteText(path, dump::EncodeOverflowDumpFile(record, 1735732800000000));
  text = DumpFileJson(path, {});
  ASSERT_TRUE(text.ok()) << text.status();
  const nlohmann::json overflow = nlohmann::json::parse(*text);
  EXPECT_EQ(overflow["outputs"][0]["overflow"]["model_id"], 4);
  EXPECT_EQ(overflow["outputs"][0]["overflow"]["nan"], true);

  WriteText(dir + "/a.csv", "Input/Output,Index,Max Value\nOutput,0,2.5\n");
  text = DumpFileJson(dir + "/a.csv", {});
  ASSERT_TRUE(text.ok()) << text.status();
  const nlohmann::json csv = nlohmann::json::parse(*text);
  EXPECT_EQ(csv["kind"], "stats");
  EXPECT_EQ(csv["rows"][0][2], "2.5");
  EXPECT_FALSE(DumpFileJson(dir + "/missing", {}).ok());
}

}  // namespace
}  // namespace acldump::tools
