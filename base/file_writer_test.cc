#include "base/file_writer.h"

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "gtest/gtest.h"

namespace acldump {
namespace {

namespace fs = std::filesystem;

std::string Read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(FileWriterTest, ReplacesAFileWholeAndLeavesNoTemporary) {
  const fs::path dir = fs::path(::testing::TempDir()) / "whole";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string path = (dir / "report.json").string();
  ASSERT_TRUE(WriteFileWhole(path, "first").ok());
  ASSERT_TRUE(WriteFileWhole(path, "second, longer").ok());
  EXPECT_EQ(Read(path), "second, longer");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), {}), 1);
}

TEST(FileWriterTest, AFailedWriteNamesThePathAndKeepsWhatWasThere) {
  const fs::path dir = fs::path(::testing::TempDir()) / "failed";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string path = (dir / "kept.txt").string();
  ASSERT_TRUE(WriteFileWhole(path, "kept").ok());
  // A folder that does not exist: the temporary cannot be created.
  const absl::Status missing =
      WriteFileWhole((dir / "no" / "file.txt").string(), "x");
  EXPECT_FALSE(missing.ok());
  EXPECT_NE(std::string(missing.message()).find("no/file.txt"),
            std::string::npos)
      << missing;
  // A folder where the file should be: renaming over it fails, the
  // temporary is removed.
  fs::create_directories(dir / "taken");
  const absl::Status taken = WriteFileWhole((dir / "taken").string(), "x");
  EXPECT_FALSE(taken.ok());
  EXPECT_EQ(Read(path), "kept");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), {}), 2);
}

TEST(FileWriterTest, ADeviceIsWrittenInPlace) {
  EXPECT_TRUE(WriteFileWhole("/dev/null", "discarded").ok());
}

}  // namespace
}  // namespace acldump
