#include "base/file_reader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace acldump {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

std::string TempDir() {
  const char* base = std::getenv("TEST_TMPDIR");
  const fs::path dir = fs::path(base ? base : "/tmp") / "file_reader";
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

TEST(ReadRegularFileTest, ReadsAWholeFile) {
  const std::string path = TempDir() + "/a.bin";
  std::ofstream(path, std::ios::binary) << std::string("ab\0cd", 5);
  absl::StatusOr<std::string> data = ReadRegularFile(path, 5, "test file");
  ASSERT_TRUE(data.ok()) << data.status();
  EXPECT_EQ(*data, std::string("ab\0cd", 5));
}

TEST(ReadRegularFileTest, RefusesFilesOverTheLimitBeforeReading) {
  const std::string path = TempDir() + "/big.bin";
  std::ofstream(path) << std::string(100, 'x');
  absl::StatusOr<std::string> data = ReadRegularFile(path, 99, "model file");
  ASSERT_EQ(data.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(data.status().message(),
              HasSubstr("is 100 bytes, more than the limit of 99 bytes"));
  EXPECT_THAT(data.status().message(), HasSubstr("model file '"));
}

TEST(ReadRegularFileTest, NamesWhatAPathIsWhenItIsNotARegularFile) {
  const std::string dir = TempDir();
  absl::StatusOr<std::string> directory = ReadRegularFile(dir, 10, "input");
  ASSERT_EQ(directory.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(directory.status().message(),
              HasSubstr("is not a regular file (it is a directory)"));

  // A symlink to /dev/zero would grow without bound if read as a stream.
  const std::string zero = dir + "/z.npy";
  ASSERT_EQ(::symlink("/dev/zero", zero.c_str()), 0);
  absl::StatusOr<std::string> device = ReadRegularFile(zero, 1 << 20, "input");
  ASSERT_EQ(device.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(device.status().message(),
              HasSubstr("is not a regular file (it is a character device)"));

  // Opening a FIFO with no writer must not block.
  const std::string fifo = dir + "/fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  absl::StatusOr<std::string> pipe = ReadRegularFile(fifo, 10, "input");
  ASSERT_EQ(pipe.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(pipe.status().message(), HasSubstr("(it is a FIFO)"));

  absl::StatusOr<std::string> missing =
      ReadRegularFile(dir + "/missing", 10, "config file");
  ASSERT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(missing.status().message(),
              HasSubstr("cannot open config file '" + dir +
                        "/missing': it does not exist"));
}

TEST(ReadRegularFileTest, ProcFilesWithZeroSizeAreReadUpToTheLimit) {
  absl::StatusOr<std::string> maps =
      ReadRegularFile("/proc/self/status", 1 << 20, "file");
  ASSERT_TRUE(maps.ok()) << maps.status();
  EXPECT_THAT(*maps, HasSubstr("Name:"));
  absl::StatusOr<std::string> capped =
      ReadRegularFile("/proc/self/status", 16, "file");
  ASSERT_EQ(capped.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(capped.status().message(),
              HasSubstr("more than the limit of 16 bytes"));
}

}  // namespace
}  // namespace acldump
