// Retention (dump_keep_iterations): the writer keeps the newest K iteration
// folders of each model folder, in both layouts, removes what it gives up
// only after writing what was queued for it, and counts what it could not
// remove.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "base/strings.h"
#include "dump/file_system.h"
#include "dump/writer.h"

namespace acldump::dump {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Files into {model}/{iteration}/op{sequence} (or into `folder` when set).
class IterationRenderer final : public JobRenderer {
 public:
  explicit IterationRenderer(std::string model, std::string folder = "")
      : model_(std::move(model)), folder_(std::move(folder)) {}
  absl::Status Render(const WriteJob& job, RenderedFile& file) const override {
    file.directory = folder_.empty() ? StrCat(model_, "/", job.iteration)
                                     : StrCat(model_, "/", folder_);
    file.name = StrCat("op", job.sequence);
    file.payloads.emplace_back(reinterpret_cast<const char*>(job.buffer.data()),
                               job.used);
    return absl::OkStatus();
  }

 private:
  const std::string model_;
  const std::string folder_;
};

// Fails removing anything inside iteration folder `refused`.
class RefusingFileSystem final : public ForwardingFileSystem {
 public:
  explicit RefusingFileSystem(std::string refused)
      : refused_(std::move(refused)) {}
  absl::Status RemoveAt(int dir, std::string_view name,
                        const std::string& path) override {
    if (path.find(refused_) != std::string::npos) {
      return absl::PermissionDeniedError(
          StrCat("cannot remove '", path, "': Permission denied"));
    }
    return ForwardingFileSystem::RemoveAt(dir, name, path);
  }

 private:
  const std::string refused_;
};

class RetentionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        StrCat(testing::TempDir(), "/",
               testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }

  void Submit(DumpWriter& writer, const std::shared_ptr<JobRenderer>& renderer,
              uint64_t iteration, uint64_t sequence) {
    WriteJob job;
    job.renderer = renderer;
    job.iteration = iteration;
    job.sequence = sequence;
    job.buffer = writer.AcquireBuffer(8);
    std::memset(job.buffer.data(), static_cast<int>(sequence), 8);
    job.used = 8;
    writer.Submit(std::move(job));
  }

  // The entries of dir_/{relative}, sorted.
  std::set<std::string> Entries(const std::string& relative) const {
    std::set<std::string> names;
    const fs::path path = fs::path(dir_) / relative;
    if (!fs::exists(path)) return names;
    for (const auto& entry : fs::directory_iterator(path)) {
      names.insert(entry.path().filename().string());
    }
    return names;
  }

  std::string dir_;
};

TEST_F(RetentionTest, KeepsTheNewestIterationsOfEachModel) {
  DumpWriter::Options options;
  options.root = dir_;
  options.keep_iterations = 2;
  DumpWriter writer(options);
  auto a = std::make_shared<IterationRenderer>("0/a/1");
  auto b = std::make_shared<IterationRenderer>("0/b/2");
  auto report = std::make_shared<IterationRenderer>("0/a/1", "recorder");
  Submit(writer, report, 0, 99);  // not an iteration folder: never removed
  for (uint64_t i = 0; i < 6; ++i) {
    for (uint64_t op = 0; op < 3; ++op) {
      Submit(writer, a, i, op);
      if (i < 3) Submit(writer, b, i, op);
    }
  }
  ASSERT_TRUE(writer.Flush().ok());
  EXPECT_EQ(Entries("0/a/1"), (std::set<std::string>{"4", "5", "recorder"}));
  EXPECT_EQ(Entries("0/a/1/5"), (std::set<std::string>{"op0", "op1", "op2"}));
  EXPECT_EQ(Entries("0/b/2"), (std::set<std::string>{"1", "2"}));
  const WriterStats stats = writer.stats();
  EXPECT_EQ(stats.iteration_folders_removed, 4u + 1u);
  EXPECT_EQ(stats.iteration_folder_removals_failed, 0u);
  EXPECT_EQ(stats.files_written, 1u + 18u + 9u);
}

// Records of an iteration already given up (they were queued before a newer
// iteration began) are written and removed with their folder, and do not
// push a newer iteration out.
TEST_F(RetentionTest, LateRecordsOfAGivenUpIterationDoNotEvictNewerOnes) {
  DumpWriter::Options options;
  options.root = dir_;
  options.keep_iterations = 1;
  DumpWriter writer(options);
  auto a = std::make_shared<IterationRenderer>("0/a/1");
  Submit(writer, a, 0, 0);
  Submit(writer, a, 1, 1);
  Submit(writer, a, 0, 2);  // late
  Submit(writer, a, 1, 3);
  ASSERT_TRUE(writer.Flush().ok());
  Submit(writer, a, 0, 4);  // later still, in a batch of its own
  ASSERT_TRUE(writer.Flush().ok());
  EXPECT_EQ(Entries("0/a/1"), (std::set<std::string>{"1"}));
  EXPECT_EQ(Entries("0/a/1/1"), (std::set<std::string>{"op1", "op3"}));
}

// The newest by number are kept, whatever order their folders begin in.
TEST_F(RetentionTest, KeepsTheNewestByNumber) {
  DumpWriter::Options options;
  options.root = dir_;
  options.keep_iterations = 2;
  DumpWriter writer(options);
  auto a = std::make_shared<IterationRenderer>("0/a/1");
  Submit(writer, a, 7, 0);
  Submit(writer, a, 8, 1);
  Submit(writer, a, 5, 2);
  ASSERT_TRUE(writer.Flush().ok());
  EXPECT_EQ(Entries("0/a/1"), (std::set<std::string>{"7", "8"}));
  EXPECT_EQ(writer.stats().iteration_folders_removed, 1u);
}

TEST_F(RetentionTest, PackedLayoutRemovesWholePacks) {
  DumpWriter::Options options;
  options.root = dir_;
  options.packed = true;
  options.keep_iterations = 1;
  DumpWriter writer(options);
  auto a = std::make_shared<IterationRenderer>("0/a/1");
  for (uint64_t i = 0; i < 4; ++i) {
    for (uint64_t op = 0; op < 5; ++op) Submit(writer, a, i, op);
    if (i == 1) ASSERT_TRUE(writer.Flush().ok());  // packs closed and reopened
  }
  ASSERT_TRUE(writer.Flush().ok());
  EXPECT_EQ(Entries("0/a/1"), (std::set<std::string>{"3"}));
  EXPECT_THAT(Entries("0/a/1/3"), ElementsAre("dump.pack"));
  EXPECT_EQ(writer.stats().iteration_folders_removed, 3u);
  EXPECT_EQ(writer.stats().files_failed, 0u);
}

TEST_F(RetentionTest, RemovalsThatFailAreCountedAndDumpingGoesOn) {
  RefusingFileSystem refusing("/1/1/");
  DumpWriter::Options options;
  options.root = dir_;
  options.fs = &refusing;
  options.keep_iterations = 1;
  DumpWriter writer(options);
  auto a = std::make_shared<IterationRenderer>("0/a/1");
  for (uint64_t i = 0; i < 4; ++i) Submit(writer, a, i, i);
  ASSERT_TRUE(writer.Flush().ok());  // the records were all written
  const WriterStats stats = writer.stats();
  EXPECT_EQ(stats.files_written, 4u);
  EXPECT_EQ(stats.iteration_folders_removed, 2u);
  EXPECT_EQ(stats.iteration_folder_removals_failed, 1u);
  EXPECT_THAT(stats.retention_failure, HasSubstr("Permission denied"));
  EXPECT_EQ(Entries("0/a/1"), (std::set<std::string>{"1", "3"}));
}

TEST(RemoveTreeAtTest, RemovesNestedFoldersAndNeverFollowsSymlinks) {
  const std::string dir = StrCat(testing::TempDir(), "/remove_tree");
  fs::remove_all(dir);
  fs::create_directories(dir + "/victim/a/b");
  fs::create_directories(dir + "/outside");
  std::ofstream(dir + "/victim/a/b/file") << "x";
  std::ofstream(dir + "/outside/kept") << "y";
  fs::create_directory_symlink(dir + "/outside", dir + "/victim/link");
  FileSystem& posix = PosixFileSystem();
  absl::StatusOr<int> root = posix.OpenRoot(dir);
  ASSERT_TRUE(root.ok()) << root.status();
  ASSERT_TRUE(RemoveTreeAt(posix, *root, "victim", dir + "/victim").ok());
  EXPECT_FALSE(fs::exists(dir + "/victim"));
  EXPECT_TRUE(fs::exists(dir + "/outside/kept"));
  EXPECT_EQ(posix.Close(*root, dir).code(), absl::StatusCode::kOk);
  absl::StatusOr<int> again = posix.OpenRoot(dir);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(RemoveTreeAt(posix, *again, "missing", dir + "/missing").code(),
            absl::StatusCode::kNotFound);
  posix.Close(*again, dir).IgnoreError();
}

}  // namespace
}  // namespace acldump::dump
