#include "dump/format/overflow_record.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "dump/format/dump_file.h"

namespace acldump::dump {
namespace {

using ::testing::HasSubstr;

OverflowRecord Sample() {
  OverflowRecord r;
  r.acc_type = kAccTypeAicpu;
  r.model_id = 7;
  r.stream_id = 0x0102030405060708;
  r.task_id = 42;
  r.task_type = 3;
  r.context_id = 0xFFFFFFFFFFFFFFFF;
  r.thread_id = 9;
  r.status = kOverflowStatusNan | kOverflowStatusNegativeInf;
  return r;
}

TEST(OverflowRecordTest, LayoutBytes) {
  const std::string p = EncodeOverflowPayload(Sample());
  ASSERT_EQ(p.size(), 2048u);
  const std::string head(
      "\x5A\x5A\x5A\x5A"                  // magic
      "\x01\0\0\0"                        // version
      "\x01\0\0\0"                        // valid
      "\x02\0\0\0"                        // acc_type AICPU
      "\0\0\0\0"                          // reserved
      "\x38\0\0\0"                        // data_len 56
      "\x07\0\0\0\0\0\0\0"                // model_id
      "\x08\x07\x06\x05\x04\x03\x02\x01"  // stream_id
      "\x2A\0\0\0\0\0\0\0"                // task_id
      "\x03\0\0\0\0\0\0\0"                // task_type
      "\xFF\xFF\xFF\xFF\xFF\xFF\xFF\xFF"  // context_id
      "\x09\0\0\0\0\0\0\0"                // thread_id
      "\x05\0\0\0\0\0\0\0",               // status
      80);
  EXPECT_EQ(p.substr(0, 80), head);
  EXPECT_EQ(p.substr(80), std::string(2048 - 80, '\0'));
}

TEST(OverflowRecordTest, RoundTrips) {
  absl::StatusOr<OverflowRecord> decoded =
      DecodeOverflowPayload(EncodeOverflowPayload(Sample()));
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(*decoded, Sample());
  OverflowRecord defaults;
  EXPECT_EQ(*DecodeOverflowPayload(EncodeOverflowPayload(defaults)), defaults);
  EXPECT_EQ(defaults.acc_type, kAccTypeAicpu);
}

TEST(OverflowRecordTest, DecodeErrors) {
  const std::string good = EncodeOverflowPayload(Sample());
  auto error = [](std::string bytes) {
    return std::string(DecodeOverflowPayload(bytes).status().message());
  };
  EXPECT_THAT(error(good.substr(0, 2047)),
              HasSubstr("overflow record is 2047 bytes, not 2048"));
  EXPECT_THAT(error(""), HasSubstr("is 0 bytes"));
  std::string bad = good;
  bad[0] = 0;
  EXPECT_THAT(error(bad), HasSubstr("magic is 0x5a5a5a00, not 0x5a5a5a5a"));
  bad = good;
  bad[4] = 2;
  EXPECT_THAT(error(bad), HasSubstr("version 2 is not supported"));
  bad = good;
  bad[8] = 0;
  EXPECT_THAT(error(bad), HasSubstr("not valid (valid = 0)"));
  bad = good;
  bad[12] = 4;
  EXPECT_THAT(error(bad), HasSubstr("acc_type 4 is none of"));
  bad = good;
  bad[20] = 8;
  EXPECT_THAT(error(bad), HasSubstr("data_len 8 is outside [56, 2024]"));
  bad = good;
  bad[21] = 0x10;  // 4152
  EXPECT_THAT(error(bad), HasSubstr("data_len 4152 is outside"));
}

TEST(OverflowRecordTest, DumpFile) {
  EXPECT_EQ(OverflowRecordFileName(42, 0, 1700000000123456),
            "Opdebug.Node_OpDebug.42.0.1700000000123456");
  EXPECT_EQ(OverflowRecordFileName(1, 2, 3),
            "Opdebug.Node_OpDebug.1.2.0000000000000003");
  const std::string file = EncodeOverflowDumpFile(Sample(), 1234);
  absl::StatusOr<DumpFileContents> parsed = ParseDumpFile(file);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->header.op_name(), "Node_OpDebug");
  EXPECT_EQ(parsed->header.dump_time(), 1234u);
  ASSERT_EQ(parsed->header.output_size(), 1);
  const auto& out = parsed->header.output(0);
  EXPECT_EQ(out.data_type(), toolkit::dumpdata::DT_UINT8);
  EXPECT_EQ(out.format(), toolkit::dumpdata::FORMAT_ND);
  ASSERT_EQ(out.shape().dim_size(), 1);
  EXPECT_EQ(out.shape().dim(0), 2048u);
  EXPECT_EQ(*DecodeOverflowPayload(parsed->outputs[0]), Sample());
}

}  // namespace
}  // namespace acldump::dump
