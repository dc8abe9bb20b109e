// The drop policy and the byte budget end to end: executions keep going while
// the writer is stuck, every record is written or counted as dropped (per
// model, in the session's report), and what is written is complete.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "base/error_kind.h"
#include "base/strings.h"
#include "dump/dump_manager.h"
#include "dump/format/dump_file.h"
#include "dump/testing/gated_file_system.h"
#include "dump/testing/model_runs.h"
#include "nlohmann/json.hpp"

namespace acldump::dump {
namespace {

namespace fs = std::filesystem;

constexpr char kResnet[] = "testdata/resnet_tiny.om";

class BackpressureTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = TempDir(
        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    dump_path_ = dir_ + "/out";
    fs::create_directories(dump_path_);
  }
  std::string Config(const std::string& body) {
    return WriteConfig(dir_,
                       R"({"dump":{"dump_path":")" + dump_path_ +
                           R"(","dump_mode":"output",)"
                           R"("dump_list":[{"model_name":"resnet_tiny"}],)" +
                           body + "}}");
  }
  // The records written (every dump file but the drop report), each checked
  // to be complete; their payload bytes added to `*payload`.
  size_t CompleteRecords(size_t* payload) {
    size_t records = 0;
    *payload = 0;
    for (const std::string& file : FilesUnder(dump_path_)) {
      if (fs::path(file).filename() == kDroppedReportFileName) continue;
      absl::StatusOr<DumpFileContents> contents =
          ReadDumpFile(dump_path_ + "/" + file);
      EXPECT_TRUE(contents.ok()) << file << ": " << contents.status();
      if (!contents.ok()) continue;
      ++records;
      for (const std::string& output : contents->outputs) {
        *payload += output.size();
      }
    }
    return records;
  }
  nlohmann::json Report() {
    for (const std::string& file : FilesUnder(dump_path_)) {
      if (fs::path(file).filename() == kDroppedReportFileName) {
        std::ifstream in(dump_path_ + "/" + file);
        return nlohmann::json::parse(in);
      }
    }
    return nullptr;
  }

  std::string dir_;
  std::string dump_path_;
  // Outlives the models (their dump sessions write through it).
  GatedFileSystem gate_;
  ModelRegistry registry_;
};

// The writer is stuck (its file system blocks) for the whole run: under
// 'wait' the first execution would never return; under 'drop' each gives up
// what it cannot hand over within its budget, and every record is accounted
// for.
TEST_F(BackpressureTest, DropPolicyKeepsExecutionsGoingAndCountsEveryRecord) {
  SessionOptions options;
  options.fs = &gate_;
  options.writer_memory_budget = 64 << 10;
  DumpManager manager(options);
  ASSERT_TRUE(manager.InitDump().ok());
  ASSERT_TRUE(manager
                  .SetDump(Config(R"("dump_backpressure":"drop",)"
                                  R"("dump_wait_budget_us":"1000")"))
                  .ok());
  Loaded loaded = Load(manager, registry_, kResnet);
  ASSERT_TRUE(loaded.attach_status.ok());
  constexpr int kIterations = 10;
  const std::vector<Tensor> reference = RunModel(*loaded.model);
  for (int i = 1; i < kIterations; ++i) {
    const std::vector<Tensor> outputs = RunModel(*loaded.model);
    for (size_t k = 0; k < outputs.size(); ++k) {
      ASSERT_EQ(std::memcmp(outputs[k].data(), reference[k].data(),
                            outputs[k].ByteSize()),
                0);
    }
  }
  const DropCounts drops = manager.DropsOf(loaded.id);
  EXPECT_GT(drops.records, 0u);
  EXPECT_GT(drops.bytes, 0u);
  EXPECT_EQ(drops.last_iteration, kIterations - 1u);
  gate_.Open();
  ASSERT_TRUE(manager.FinalizeDump().ok());

  size_t payload = 0;
  const size_t written = CompleteRecords(&payload);
  // Every step's output and the graph input, per iteration.
  const size_t expected = kIterations * (loaded.model->steps().size() + 1);
  EXPECT_EQ(written + drops.records, expected);
  EXPECT_GT(written, 0u);
  const nlohmann::json report = Report();
  ASSERT_FALSE(report.is_null());
  EXPECT_EQ(report["records_dropped"], drops.records);
  EXPECT_EQ(report["late"], drops.records);
  EXPECT_EQ(report["over_byte_budget"], 0);
  EXPECT_EQ(report["bytes_dropped"], drops.bytes);
  EXPECT_EQ(report["dump_backpressure"], "drop");
  const nlohmann::json& model = report["by_model"][std::to_string(loaded.id)];
  EXPECT_EQ(model["records"], drops.records);
  EXPECT_EQ(model["iterations"], drops.iterations);
}

TEST_F(BackpressureTest, ByteBudgetDumpsUpToItAndCountsTheRest) {
  constexpr size_t kMaxBytes = 100000;
  DumpManager manager;
  ASSERT_TRUE(manager.InitDump().ok());
  ASSERT_TRUE(
      manager.SetDump(Config(StrCat(R"("dump_max_bytes":")", kMaxBytes, "\"")))
          .ok());
  Loaded loaded = Load(manager, registry_, kResnet);
  constexpr int kIterations = 5;
  for (int i = 0; i < kIterations; ++i) RunModel(*loaded.model);
  const DropCounts drops = manager.DropsOf(loaded.id);
  ASSERT_TRUE(manager.FinalizeDump().ok());
  size_t payload = 0;
  const size_t written = CompleteRecords(&payload);
  EXPECT_GT(drops.records, 0u);
  EXPECT_GT(written, 0u);
  EXPECT_EQ(written + drops.records,
            kIterations * (loaded.model->steps().size() + 1));
  EXPECT_LE(payload, kMaxBytes);
  const nlohmann::json report = Report();
  ASSERT_FALSE(report.is_null());
  EXPECT_EQ(report["over_byte_budget"], drops.records);
  EXPECT_EQ(report["bytes_dropped"], drops.bytes);
  EXPECT_EQ(report["late"], 0);
}

// Nothing dropped: no report, and the counts stay zero.
TEST_F(BackpressureTest, NothingDroppedWritesNoReport) {
  DumpManager manager;
  ASSERT_TRUE(manager.InitDump().ok());
  ASSERT_TRUE(manager
                  .SetDump(Config(R"("dump_backpressure":"drop",)"
                                  R"("dump_wait_budget_us":"60000000")"))
                  .ok());
  Loaded loaded = Load(manager, registry_, kResnet);
  for (int i = 0; i < 3; ++i) RunModel(*loaded.model);
  EXPECT_EQ(manager.DropsOf(loaded.id).records, 0u);
  ASSERT_TRUE(manager.FinalizeDump().ok());
  size_t payload = 0;
  EXPECT_EQ(CompleteRecords(&payload), 3 * (loaded.model->steps().size() + 1));
  EXPECT_TRUE(Report().is_null());
}

// Finalizing in the background returns while the writer is stuck; a new
// dump can start at once; the wait reports a timeout, then the files.
TEST_F(BackpressureTest, FinalizeInBackgroundDoesNotWaitForTheWriter) {
  SessionOptions options;
  options.fs = &gate_;
  DumpManager manager(options);
  ASSERT_TRUE(manager.InitDump().ok());
  ASSERT_TRUE(manager.SetDump(Config(R"("dump_backpressure":"wait")")).ok());
  Loaded loaded = Load(manager, registry_, kResnet);
  for (int i = 0; i < 2; ++i) RunModel(*loaded.model);
  bool closed_before_writing = false;
  ASSERT_TRUE(manager
                  .FinalizeDumpInBackground([&] {
                    closed_before_writing = true;
                    return absl::OkStatus();
                  })
                  .ok());
  ASSERT_TRUE(manager.InitDump().ok());  // the dump ended at once
  const absl::Status early = manager.WaitFinalized(
      std::chrono::steady_clock::now() + std::chrono::milliseconds(20));
  EXPECT_TRUE(absl::IsDeadlineExceeded(early)) << early;
  EXPECT_THAT(early.message(),
              ::testing::HasSubstr("1 dump finalize is still writing files"));
  gate_.Open();
  ASSERT_TRUE(manager.WaitFinalized(std::nullopt).ok());
  EXPECT_TRUE(closed_before_writing);
  size_t payload = 0;
  EXPECT_EQ(CompleteRecords(&payload), 2 * (loaded.model->steps().size() + 1));
  // Reported once: nothing is left to wait for.
  EXPECT_TRUE(manager.WaitFinalized(std::chrono::steady_clock::now()).ok());
  EXPECT_TRUE(manager.FinalizeDumpInBackground(nullptr).ok());
  EXPECT_EQ(KindOf(manager.FinalizeDumpInBackground(nullptr)),
            ErrorKind::kDumpNotInitialized);
}

}  // namespace
}  // namespace acldump::dump
