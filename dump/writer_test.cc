// The writer's queueing on its own: back-pressure on a full queue and on the
// memory budget loses nothing and keeps order-independent contents exact, and
// work that never fills a batch is still written without a Flush.
#include "dump/writer.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "base/strings.h"
#include "dump/format/pack.h"
#include "dump/testing/gated_file_system.h"

namespace acldump::dump {
namespace {

namespace fs = std::filesystem;

// Names each file after the job's sequence number; the payload is the buffer.
class SequenceRenderer final : public JobRenderer {
 public:
  absl::Status Render(const WriteJob& job, RenderedFile& file) const override {
    file.directory = "";
    file.name = StrCat("job", job.sequence, ".bin");
    file.payloads.emplace_back(reinterpret_cast<const char*>(job.buffer.data()),
                               job.used);
    return absl::OkStatus();
  }
};

// The real file system, slowed down so that producers outrun the writer.
class SlowFileSystem final : public ForwardingFileSystem {
 public:
  absl::StatusOr<int> CreateFileAt(int dir, int mode,
                                   const std::string& path) override {
    std::this_thread::sleep_for(std::chrono::microseconds(500));
    return ForwardingFileSystem::CreateFileAt(dir, mode, path);
  }
};

class WriterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        StrCat(::testing::TempDir(), "/writer_test_",
               ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    renderer_ = std::make_shared<SequenceRenderer>();
  }

  // Job `i` holds `bytes` bytes of the value i % 251.
  WriteJob MakeJob(DumpWriter& writer, uint64_t i, size_t bytes) {
    WriteJob job;
    job.renderer = renderer_;
    job.sequence = i;
    job.buffer = writer.AcquireBuffer(bytes);
    std::memset(job.buffer.data(), static_cast<int>(i % 251), bytes);
    job.used = bytes;
    return job;
  }
  void SubmitJob(DumpWriter& writer, uint64_t i, size_t bytes) {
    writer.Submit(MakeJob(writer, i, bytes));
  }

  void ExpectAllFiles(uint64_t jobs, size_t bytes) {
    size_t files = 0;
    for (const auto& entry : fs::directory_iterator(dir_)) {
      ++files;
      EXPECT_EQ(entry.path().extension(), ".bin") << entry.path();
    }
    EXPECT_EQ(files, jobs);
    for (uint64_t i = 0; i < jobs; ++i) {
      std::ifstream in(StrCat(dir_, "/job", i, ".bin"), std::ios::binary);
      std::stringstream content;
      content << in.rdbuf();
      ASSERT_EQ(content.str(), std::string(bytes, static_cast<char>(i % 251)))
          << "job " << i;
    }
  }

  // Writes below dir_ through a file system slow enough for producers to
  // outrun the writer.
  DumpWriter::Options SlowOptions() {
    DumpWriter::Options options;
    options.root = dir_;
    options.fs = &slow_;
    return options;
  }

  std::string dir_;
  std::shared_ptr<SequenceRenderer> renderer_;
  SlowFileSystem slow_;
};

TEST_F(WriterTest, FullQueueMakesProducersWaitAndLosesNothing) {
  DumpWriter::Options options = SlowOptions();
  options.max_queued_jobs = 4;
  DumpWriter writer(options);
  constexpr uint64_t kJobs = 60;
  // Two producers, as two executing models sharing a session's writer.
  std::thread other([&] {
    for (uint64_t i = kJobs / 2; i < kJobs; ++i) SubmitJob(writer, i, 100);
  });
  for (uint64_t i = 0; i < kJobs / 2; ++i) SubmitJob(writer, i, 100);
  other.join();
  ASSERT_TRUE(writer.Flush().ok());

  const WriterStats stats = writer.stats();
  EXPECT_EQ(stats.jobs_submitted, kJobs);
  EXPECT_EQ(stats.files_written, kJobs);
  EXPECT_EQ(stats.files_failed, 0u);
  EXPECT_EQ(stats.bytes_written, kJobs * 100);
  EXPECT_GT(stats.back_pressure_waits, 0u);
  ExpectAllFiles(kJobs, 100);
}

TEST_F(WriterTest, MemoryBudgetMakesProducersWaitAndLosesNothing) {
  DumpWriter::Options options = SlowOptions();
  options.memory_budget = 3 * 4096;  // three page-sized buffers
  DumpWriter writer(options);
  constexpr uint64_t kJobs = 30;
  for (uint64_t i = 0; i < kJobs; ++i) SubmitJob(writer, i, 4000);
  ASSERT_TRUE(writer.Flush().ok());

  const WriterStats stats = writer.stats();
  EXPECT_EQ(stats.files_written, kJobs);
  EXPECT_GT(stats.back_pressure_waits, 0u);
  EXPECT_LE(stats.peak_buffered_bytes, options.memory_budget);
  ExpectAllFiles(kJobs, 4000);
}

TEST_F(WriterTest, WorkBelowABatchIsWrittenWithoutFlush) {
  DumpWriter::Options options;
  options.root = dir_;
  DumpWriter writer(options);
  SubmitJob(writer, 7, 10);  // far below a batch of jobs or bytes
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (writer.stats().files_written == 0 &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(writer.stats().files_written, 1u);
  std::ifstream in(StrCat(dir_, "/job7.bin"), std::ios::binary);
  std::stringstream content;
  content << in.rdbuf();
  EXPECT_EQ(content.str(), std::string(10, '\7'));
}

TEST_F(WriterTest, DestructorWritesWhatIsQueued) {
  {
    DumpWriter::Options options = SlowOptions();
    DumpWriter writer(options);
    for (uint64_t i = 0; i < 20; ++i) SubmitJob(writer, i, 64);
  }
  ExpectAllFiles(20, 64);
}

TEST_F(WriterTest, SmallJobsStayOutsideThePoolAndItsBudget) {
  DumpWriter::Options options = SlowOptions();
  options.memory_budget = 4096;  // one pooled page
  DumpWriter writer(options);
  constexpr uint64_t kJobs = 40;
  for (uint64_t i = 0; i < kJobs; ++i) {
    WriteJob job = MakeJob(writer, i, DumpWriter::kSmallJobBytes);
    EXPECT_TRUE(DumpWriter::IsSmall(job.buffer));
    writer.Submit(std::move(job));
  }
  ASSERT_TRUE(writer.Flush().ok());
  const WriterStats stats = writer.stats();
  EXPECT_EQ(stats.files_written, kJobs);
  EXPECT_EQ(stats.back_pressure_waits, 0u);
  EXPECT_EQ(stats.peak_buffered_bytes, 0u);
  ExpectAllFiles(kJobs, DumpWriter::kSmallJobBytes);
  // One byte more is pooled and counted.
  WriteJob pooled = MakeJob(writer, kJobs, DumpWriter::kSmallJobBytes + 1);
  EXPECT_FALSE(DumpWriter::IsSmall(pooled.buffer));
  EXPECT_EQ(writer.stats().peak_buffered_bytes, 4096u);
  writer.ReturnBuffer(std::move(pooled.buffer));
}

TEST_F(WriterTest, SubmitAllOnAFullQueueKeepsOrderAndLosesNothing) {
  DumpWriter::Options options = SlowOptions();
  options.max_queued_jobs = 4;
  options.packed = true;  // one pack: its records show the order
  constexpr uint64_t kJobs = 40;
  {
    DumpWriter writer(options);
    std::vector<WriteJob> jobs;
    for (uint64_t i = 0; i < kJobs; ++i) {
      jobs.push_back(MakeJob(writer, i, i % 2 ? 100 : 5000));
    }
    writer.SubmitAll(jobs);
    EXPECT_TRUE(jobs.empty());
    ASSERT_TRUE(writer.Flush().ok());
    const WriterStats stats = writer.stats();
    EXPECT_EQ(stats.files_written, kJobs);
    EXPECT_GT(stats.back_pressure_waits, 0u);
  }
  absl::StatusOr<PackContents> pack =
      ReadPackContents(StrCat(dir_, "/", kPackFileName));
  ASSERT_TRUE(pack.ok()) << pack.status();
  ASSERT_EQ(pack->records.size(), kJobs);
  for (uint64_t i = 0; i < kJobs; ++i) {
    EXPECT_EQ(pack->records[i].name, StrCat("job", i, ".bin"));
    EXPECT_EQ(pack->records[i].data_bytes, i % 2 ? 100u : 5000u);
  }
}

TEST_F(WriterTest, WorkQueuedWhileTheWriterPollsIsWrittenWithoutFlush) {
  DumpWriter::Options options;
  options.root = dir_;
  DumpWriter writer(options);
  auto wait_for_files = [&](uint64_t files) {
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (writer.stats().files_written < files &&
           std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
    return writer.stats().files_written;
  };
  SubmitJob(writer, 0, 10);
  ASSERT_EQ(wait_for_files(1), 1u);
  // The writer has just been busy, so it polls instead of sleeping: neither
  // SubmitAll (a small backlog) nor Kick wakes it, and it still takes these.
  for (uint64_t round = 1; round <= 20; ++round) {
    std::vector<WriteJob> jobs;
    jobs.push_back(MakeJob(writer, round, 10));
    writer.SubmitAll(jobs);
    writer.Kick();
    ASSERT_EQ(wait_for_files(round + 1), round + 1);
  }
  ExpectAllFiles(21, 10);
}

// The drop policy's side of the writer: a producer that cannot hand a job
// over by its deadline gets it back as dropped, counted exactly, and the
// jobs it did hand over are all written.
TEST_F(WriterTest, DeadlinesDropWhatCannotBeQueuedAndCountIt) {
  GatedFileSystem gate;
  DumpWriter::Options options;
  options.root = dir_;
  options.fs = &gate;
  options.max_queued_jobs = 4;
  DumpWriter writer(options);
  uint64_t queued = 0, dropped = 0;
  size_t dropped_bytes = 0;
  for (uint64_t i = 0; i < 20; ++i) {
    // The written files are numbered 0..queued-1, whichever were dropped.
    WriteJob job = MakeJob(writer, queued, 100);
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::milliseconds(1);
    if (writer.TrySubmit(std::move(job), deadline)) {
      ++queued;
    } else {
      ++dropped;
      dropped_bytes += 100;
    }
  }
  // The writer holds one batch (at most a queue's worth) at the gate; the
  // queue holds at most 4 more.
  EXPECT_GE(queued, 4u);
  EXPECT_LE(queued, 8u);
  EXPECT_EQ(queued + dropped, 20u);
  std::vector<WriteJob> more;
  for (uint64_t i = 0; i < 3; ++i) more.push_back(MakeJob(writer, 99, 10));
  size_t more_bytes = 0;
  EXPECT_EQ(
      writer.TrySubmitAll(more, std::chrono::steady_clock::now(), &more_bytes),
      3u);
  EXPECT_EQ(more_bytes, 30u);
  EXPECT_TRUE(more.empty());
  gate.Open();
  ASSERT_TRUE(writer.Flush().ok());
  const WriterStats stats = writer.stats();
  EXPECT_EQ(stats.records_dropped_late, dropped + 3);
  EXPECT_EQ(stats.bytes_dropped, dropped_bytes + 30);
  EXPECT_EQ(stats.files_written, queued);
  ExpectAllFiles(queued, 100);
}

TEST_F(WriterTest, TryAcquireBufferGivesUpAtTheDeadline) {
  DumpWriter::Options options;
  options.root = dir_;
  options.memory_budget = 64 << 10;
  DumpWriter writer(options);
  AlignedBuffer held = writer.AcquireBuffer(64 << 10);
  const auto start = std::chrono::steady_clock::now();
  AlignedBuffer late =
      writer.TryAcquireBuffer(32 << 10, start + std::chrono::milliseconds(2));
  EXPECT_EQ(late.size(), 0u);
  EXPECT_GE(std::chrono::steady_clock::now() - start,
            std::chrono::milliseconds(2));
  EXPECT_EQ(writer.stats().records_dropped_late, 1u);
  EXPECT_EQ(writer.stats().bytes_dropped, 32u << 10);
  writer.ReturnBuffer(std::move(held));
  AlignedBuffer in_time =
      writer.TryAcquireBuffer(32 << 10, std::chrono::steady_clock::now());
  EXPECT_GE(in_time.size(), 32u << 10);
  writer.ReturnBuffer(std::move(in_time));
  EXPECT_EQ(writer.stats().records_dropped_late, 1u);
}

TEST_F(WriterTest, ByteBudgetGrantsUpToItsLimit) {
  DumpWriter::Options options;
  options.root = dir_;
  options.max_bytes = 10;
  DumpWriter writer(options);
  EXPECT_TRUE(writer.ReserveBytes(6));
  EXPECT_FALSE(writer.ReserveBytes(6));
  EXPECT_TRUE(writer.ReserveBytes(4));
  EXPECT_FALSE(writer.ReserveBytes(1));
  EXPECT_EQ(writer.stats().records_dropped_over_budget, 2u);
  EXPECT_EQ(writer.stats().bytes_dropped, 7u);
}

}  // namespace
}  // namespace acldump::dump
