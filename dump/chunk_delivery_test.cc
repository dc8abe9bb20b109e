// Dump files delivered as chunks: the chunks rebuild byte for byte the files a
// disk dump writes (one file per record, and packs), nothing is written while
// a consumer is registered, a refused chunk is reported, and unregistering
// waits for deliveries under way.
#include "dump/chunk_delivery.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <sstream>
#include <thread>
#include <vector>

#include "base/strings.h"
#include "dump/format/pack.h"
#include "dump/writer.h"

namespace acldump::dump {
namespace {

namespace fs = std::filesystem;

struct SeenChunk {
  std::string file_name;
  int64_t offset;
  std::string data;
  bool last;
};

// Keeps every chunk; optionally refuses the n-th or blocks until released.
class RecordingConsumer final : public ChunkConsumer {
 public:
  absl::Status Consume(const DumpChunk& chunk) override {
    std::string data;
    for (std::string_view piece : chunk.pieces) data.append(piece);
    EXPECT_EQ(data.size(), chunk.size);
    std::unique_lock<std::mutex> lock(mutex_);
    const int index = calls_++;
    if (index == refuse_at_) return absl::InternalError("disk of the app full");
    chunks_.push_back({std::string(chunk.file_name), chunk.offset,
                       std::move(data), chunk.last});
    entered_.notify_all();
    released_cv_.wait(lock, [&] { return !hold_; });
    return absl::OkStatus();
  }

  // The files the chunks describe (bytes placed at their offsets).
  std::map<std::string, std::string> Files() const {
    std::lock_guard<std::mutex> lock(mutex_);
    std::map<std::string, std::string> files;
    for (const SeenChunk& chunk : chunks_) {
      std::string& file = files[chunk.file_name];
      const size_t end = size_t(chunk.offset) + chunk.data.size();
      if (file.size() < end) file.resize(end);
      file.replace(size_t(chunk.offset), chunk.data.size(), chunk.data);
    }
    return files;
  }
  std::vector<SeenChunk> chunks() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return chunks_;
  }
  void RefuseAt(int call) { refuse_at_ = call; }
  void Hold() { hold_ = true; }
  void Release() {
    std::lock_guard<std::mutex> lock(mutex_);
    hold_ = false;
    released_cv_.notify_all();
  }
  void WaitForChunk() {
    std::unique_lock<std::mutex> lock(mutex_);
    entered_.wait(lock, [&] { return !chunks_.empty(); });
  }

 private:
  mutable std::mutex mutex_;
  std::condition_variable entered_, released_cv_;
  std::vector<SeenChunk> chunks_;
  int calls_ = 0;
  int refuse_at_ = -1;
  bool hold_ = false;
};

TEST(ChunkRouterTest, SplitsPartsIntoBoundedChunksInFileOrder) {
  ChunkRouter router(/*max_chunk_bytes=*/4);
  auto consumer = std::make_shared<RecordingConsumer>();
  ASSERT_TRUE(router.Register(consumer).ok());
  const std::string_view parts[] = {"abcdef", "", "gh", "ijklm"};
  ASSERT_TRUE(router.Deliver("/d/f", 10, parts, true).ok());
  const std::vector<SeenChunk> chunks = consumer->chunks();
  ASSERT_EQ(chunks.size(), 4u);
  const char* expected[] = {"abcd", "efgh", "ijkl", "m"};
  for (size_t i = 0; i < chunks.size(); ++i) {
    EXPECT_EQ(chunks[i].file_name, "/d/f");
    EXPECT_EQ(chunks[i].data, expected[i]);
    EXPECT_EQ(chunks[i].offset, int64_t(10 + 4 * i));
    EXPECT_EQ(chunks[i].last, i == 3);
  }
}

TEST(ChunkRouterTest, AnEmptyFileIsOneEmptyLastChunk) {
  ChunkRouter router;
  auto consumer = std::make_shared<RecordingConsumer>();
  ASSERT_TRUE(router.Register(consumer).ok());
  ASSERT_TRUE(router.Deliver("/d/empty", 0, {}, true).ok());
  ASSERT_EQ(consumer->chunks().size(), 1u);
  EXPECT_EQ(consumer->chunks()[0].data, "");
  EXPECT_TRUE(consumer->chunks()[0].last);
}

TEST(ChunkRouterTest, RegistrationRules) {
  ChunkRouter router;
  const std::string_view part = "x";
  EXPECT_TRUE(absl::IsUnavailable(router.Deliver("/f", 0, {&part, 1}, true)));
  auto first = std::make_shared<RecordingConsumer>();
  ASSERT_TRUE(router.Register(first).ok());
  absl::Status again = router.Register(std::make_shared<RecordingConsumer>());
  EXPECT_TRUE(absl::IsAlreadyExists(again)) << again;
  ASSERT_TRUE(router.Deliver("/f", 0, {&part, 1}, true).ok());
  EXPECT_EQ(first->chunks().size(), 1u);  // the first one stayed
  EXPECT_TRUE(router.Unregister());
  EXPECT_FALSE(router.Unregister());
  EXPECT_FALSE(router.registered());
}

TEST(ChunkRouterTest, ARefusedChunkStopsTheFileWithAClearError) {
  ChunkRouter router(2);
  auto consumer = std::make_shared<RecordingConsumer>();
  consumer->RefuseAt(1);
  ASSERT_TRUE(router.Register(consumer).ok());
  const std::string_view part = "abcdef";
  absl::Status status = router.Deliver("/f", 0, {&part, 1}, true);
  EXPECT_TRUE(absl::IsDataLoss(status)) << status;
  EXPECT_NE(status.message().find("refused the 2-byte chunk at offset 2"),
            std::string_view::npos)
      << status;
  EXPECT_NE(status.message().find("disk of the app full"),
            std::string_view::npos);
  EXPECT_EQ(consumer->chunks().size(), 1u);  // nothing after the refusal
}

TEST(ChunkRouterTest, UnregisterWaitsForTheChunkBeingDelivered) {
  ChunkRouter router;
  auto consumer = std::make_shared<RecordingConsumer>();
  consumer->Hold();
  ASSERT_TRUE(router.Register(consumer).ok());
  const std::string_view part = "data";
  std::thread writer([&] {
    EXPECT_TRUE(router.Deliver("/f", 0, {&part, 1}, true).ok());
  });
  consumer->WaitForChunk();
  std::atomic<bool> unregistered{false};
  std::thread app([&] {
    router.Unregister();
    unregistered = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(unregistered.load());  // still delivering
  consumer->Release();
  app.join();
  writer.join();
  EXPECT_TRUE(unregistered.load());
}

// A consumer that unregisters itself must not wait for its own delivery.
class SelfRemovingConsumer final : public ChunkConsumer {
 public:
  explicit SelfRemovingConsumer(ChunkRouter& router) : router_(router) {}
  absl::Status Consume(const DumpChunk&) override {
    removed_ = router_.Unregister();
    return absl::OkStatus();
  }
  bool removed_ = false;

 private:
  ChunkRouter& router_;
};

TEST(ChunkRouterTest, UnregisterFromInsideTheConsumerReturns) {
  ChunkRouter router;
  auto consumer = std::make_shared<SelfRemovingConsumer>(router);
  ASSERT_TRUE(router.Register(consumer).ok());
  const std::string_view part = "x";
  ASSERT_TRUE(router.Deliver("/f", 0, {&part, 1}, true).ok());
  EXPECT_TRUE(consumer->removed_);
  EXPECT_FALSE(router.registered());
}

// Files in nested folders, sized after the job's sequence number.
class TreeRenderer final : public JobRenderer {
 public:
  absl::Status Render(const WriteJob& job, RenderedFile& file) const override {
    file.directory = StrCat("0/model/", job.sequence % 3);
    file.name = StrCat("Conv.node_", job.sequence, ".", job.timestamp_us);
    file.head = StrCat("head", job.sequence);
    file.payloads.emplace_back(reinterpret_cast<const char*>(job.buffer.data()),
                               job.used);
    return absl::OkStatus();
  }
};

class CallbackWriterTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    base_ = StrCat(::testing::TempDir(), "/chunk_delivery_", GetParam());
    fs::remove_all(base_);
    fs::create_directories(base_ + "/disk");
    fs::create_directories(base_ + "/callback");
  }

  // Writes the same jobs under `root`; returns the writer's report.
  absl::Status WriteJobs(const std::string& root, FileSystem* file_system) {
    DumpWriter::Options options;
    options.root = root;
    options.time_base = "20261204120000";
    options.packed = GetParam();
    options.fs = file_system;
    DumpWriter writer(options);
    auto renderer = std::make_shared<TreeRenderer>();
    for (uint64_t i = 0; i < 40; ++i) {
      WriteJob job;
      job.renderer = renderer;
      job.sequence = i;
      job.timestamp_us = 1700000000000000 + i;
      const size_t bytes = (i * 7919) % 20000;  // some above the chunk size
      job.buffer = writer.AcquireBuffer(std::max<size_t>(bytes, 1));
      for (size_t b = 0; b < bytes; ++b)
        job.buffer.data()[b] = std::byte(b * i);
      job.used = bytes;
      writer.Submit(std::move(job));
    }
    return writer.Flush();
  }

  static std::map<std::string, std::string> FilesUnder(
      const std::string& root) {
    std::map<std::string, std::string> files;
    for (const auto& entry : fs::recursive_directory_iterator(root)) {
      if (!entry.is_regular_file()) continue;
      std::ifstream in(entry.path(), std::ios::binary);
      std::stringstream content;
      content << in.rdbuf();
      files[fs::relative(entry.path(), root).string()] = content.str();
    }
    return files;
  }

  std::string base_;
};

TEST_P(CallbackWriterTest, ChunksRebuildTheDiskDumpByteForByte) {
  ASSERT_TRUE(WriteJobs(base_ + "/disk", nullptr).ok());
  ChunkRouter router(/*max_chunk_bytes=*/4096);
  auto consumer = std::make_shared<RecordingConsumer>();
  ASSERT_TRUE(router.Register(consumer).ok());
  CallbackFileSystem callback_fs(PosixFileSystem(), router);
  ASSERT_TRUE(WriteJobs(base_ + "/callback", &callback_fs).ok());

  EXPECT_TRUE(FilesUnder(base_ + "/callback").empty())
      << "no file is written while a callback is registered";
  const std::map<std::string, std::string> disk = FilesUnder(base_ + "/disk");
  std::map<std::string, std::string> delivered;
  const std::string prefix = base_ + "/callback/";
  for (auto& [name, bytes] : consumer->Files()) {
    ASSERT_EQ(name.rfind(prefix, 0), 0u) << name << " is not absolute";
    delivered[name.substr(prefix.size())] = bytes;
  }
  ASSERT_EQ(delivered.size(), disk.size());
  for (const auto& [name, bytes] : disk) {
    ASSERT_TRUE(delivered.contains(name)) << name;
    EXPECT_TRUE(delivered[name] == bytes) << name << " differs";
  }
  if (GetParam()) {
    EXPECT_EQ(disk.size(), 3u);  // a pack per folder
  } else {
    EXPECT_EQ(disk.size(), 40u);
  }
  // Each file's chunks are in order and the file's final one says so.
  std::map<std::string, int64_t> next;
  for (const SeenChunk& chunk : consumer->chunks()) {
    EXPECT_EQ(chunk.offset, next[chunk.file_name]) << chunk.file_name;
    EXPECT_LE(chunk.data.size(), 4096u);
    next[chunk.file_name] = chunk.offset + int64_t(chunk.data.size());
  }
  std::map<std::string, bool> ended;
  for (const SeenChunk& chunk : consumer->chunks())
    ended[chunk.file_name] = chunk.last;
  for (const auto& [name, last] : ended) EXPECT_TRUE(last) << name;
}

TEST_P(CallbackWriterTest, ARefusedChunkIsReportedNotDropped) {
  ChunkRouter router;
  auto consumer = std::make_shared<RecordingConsumer>();
  consumer->RefuseAt(3);
  ASSERT_TRUE(router.Register(consumer).ok());
  CallbackFileSystem callback_fs(PosixFileSystem(), router);
  absl::Status status = WriteJobs(base_ + "/callback", &callback_fs);
  EXPECT_TRUE(absl::IsDataLoss(status)) << status;
  EXPECT_NE(status.message().find("the dump callback refused"),
            std::string_view::npos)
      << status;
  EXPECT_NE(status.message().find("disk of the app full"),
            std::string_view::npos);
}

INSTANTIATE_TEST_SUITE_P(Layouts, CallbackWriterTest, ::testing::Bool(),
                         [](const auto& info) {
                           return info.param ? "Packed" : "PerRecord";
                         });

TEST(CallbackFileSystemTest, AFileFinishedAfterUnregisteringGoesToDisk) {
  const std::string dir = StrCat(::testing::TempDir(), "/chunk_fallback");
  fs::remove_all(dir);
  fs::create_directories(dir);
  ChunkRouter router;
  ASSERT_TRUE(router.Register(std::make_shared<RecordingConsumer>()).ok());
  CallbackFileSystem callback_fs(PosixFileSystem(), router);
  const int root = open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  ASSERT_GE(root, 0);
  const std::string path = dir + "/late.bin";
  absl::StatusOr<int> fd = callback_fs.CreateFileAt(root, 0640, path);
  ASSERT_TRUE(fd.ok());
  const std::string text = "written while registered";
  const iovec data{const_cast<char*>(text.data()), text.size()};
  ASSERT_TRUE(WriteAll(callback_fs, *fd, {&data, 1}, path).ok());
  router.Unregister();
  ASSERT_TRUE(callback_fs.LinkFileAt(*fd, root, "late.bin", path).ok());
  ASSERT_TRUE(callback_fs.Close(*fd, path).ok());
  close(root);
  std::ifstream in(path, std::ios::binary);
  std::stringstream content;
  content << in.rdbuf();
  EXPECT_EQ(content.str(), text);
}

}  // namespace
}  // namespace acldump::dump
