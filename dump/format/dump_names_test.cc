#include "dump/format/dump_names.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <string>

namespace acldump::dump {
namespace {

TEST(DumpNamesTest, EscapesSpaceDotAndSlashes) {
  EXPECT_EQ(EscapeNamePart("model/conv 1.weight\\x"), "model_conv_1_weight_x");
  EXPECT_EQ(EscapeNamePart("conv1bn1relu1"), "conv1bn1relu1");
  EXPECT_EQ(EscapeNamePart(""), "");
  EXPECT_EQ(EscapeNamePart("a-b_c:d"), "a-b_c:d");
}

TEST(DumpNamesTest, FileName) {
  EXPECT_EQ(DumpFileName("Conv", "conv1", 3, 0, 1700000000123456),
            "Conv.conv1.3.0.1700000000123456");
  EXPECT_EQ(DumpFileName("Relu", "block.1/relu", 12, 7, 42),
            "Relu.block_1_relu.12.7.0000000000000042");
  EXPECT_EQ(DumpFileName("Add", "a", 4294967295u, 4294967295u, 0),
            "Add.a.4294967295.4294967295.0000000000000000");
  // More than 16 digits are kept whole; appending keeps what was there.
  std::string out = "dir/";
  AppendDumpFileName(out, "My Op", "x\\y", 1, 0, 18446744073709551615u);
  EXPECT_EQ(out, "dir/My_Op.x_y.1.0.18446744073709551615");
}

TEST(DumpNamesTest, CsvFieldsAreQuotedOnlyWhenNeeded) {
  EXPECT_EQ(CsvField("plain"), "plain");
  EXPECT_EQ(CsvField("a,b"), "\"a,b\"");
  EXPECT_EQ(CsvField("say \"hi\""), "\"say \"\"hi\"\"\"");
  std::string out = "x,";
  AppendCsvField(out, "line\nbreak");
  EXPECT_EQ(out, "x,\"line\nbreak\"");
}

TEST(DumpNamesTest, HashedNames) {
  EXPECT_FALSE(ExceedsNameMax(std::string(255, 'a')));
  EXPECT_TRUE(ExceedsNameMax(std::string(256, 'a')));
  // As the SDK's writer names them: std::hash of the full path, in decimal.
  const std::string path = "/dump/20250101120000/0/net/1/0/" +
                           DumpFileName("Conv", std::string(300, 'n'), 1, 0, 5);
  EXPECT_EQ(HashedName(path), std::to_string(std::hash<std::string>{}(path)));
  EXPECT_NE(HashedName(path), HashedName(path + "x"));
  EXPECT_LE(HashedName(path).size(), 20u);
}

TEST(DumpNamesTest, MappingCsvLine) {
  EXPECT_EQ(MappingCsvLine("123", "Conv.conv1.1.0.0000000000000005"),
            "123,Conv.conv1.1.0.0000000000000005\n");
  EXPECT_EQ(MappingCsvLine("123", "a,b"), "123,\"a,b\"\n");
  EXPECT_EQ(MappingCsvLine("123", "say \"hi\""), "123,\"say \"\"hi\"\"\"\n");
  EXPECT_EQ(MappingCsvLine("123", "line\nbreak"), "123,\"line\nbreak\"\n");
}

class TimeNamesTest : public ::testing::Test {
 protected:
  void SetTz(const char* tz) {
    setenv("TZ", tz, 1);
    tzset();
  }
  void TearDown() override {
    unsetenv("TZ");
    tzset();
  }
};

TEST_F(TimeNamesTest, FolderNameIsLocalTime) {
  SetTz("UTC0");
  EXPECT_EQ(DumpTimeFolderName(1700000000), "20231114221320");
  EXPECT_EQ(DumpTimeFolderName(0), "19700101000000");
  SetTz("CST-8");  // UTC+8, no tzdata needed
  EXPECT_EQ(DumpTimeFolderName(1700000000), "20231115061320");
}

TEST_F(TimeNamesTest, ExceptionTimestampHasMilliseconds) {
  SetTz("UTC0");
  using std::chrono::microseconds;
  const std::chrono::system_clock::time_point t{
      microseconds(int64_t{1700000000} * 1000000 + 7999)};
  EXPECT_EQ(ExceptionTimestamp(t), "20231114221320007");
  const std::chrono::system_clock::time_point u{
      microseconds(int64_t{1700000000} * 1000000 + 999999)};
  EXPECT_EQ(ExceptionTimestamp(u), "20231114221320999");
  EXPECT_EQ(ExceptionTimestamp(std::chrono::system_clock::time_point{}),
            "19700101000000000");
  // Before the epoch: the milliseconds still count forward within the second.
  const std::chrono::system_clock::time_point before{microseconds(-1000)};
  EXPECT_EQ(ExceptionTimestamp(before), "19691231235959999");
}

}  // namespace
}  // namespace acldump::dump
