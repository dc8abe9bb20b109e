#include "tools/common/output_folder.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace acldump::tools {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

std::string Read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class OutputFolderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::path(std::getenv("TEST_TMPDIR")) /
            ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(root_);
    fs::create_directories(root_ / "victim");
    std::ofstream(root_ / "victim" / "precious") << "precious";
    auto folder = OutputFolder::Open((root_ / "out").string());
    ASSERT_TRUE(folder.ok()) << folder.status();
    out_ = std::move(*folder);
  }

  fs::path root_;
  std::unique_ptr<OutputFolder> out_;
};

TEST_F(OutputFolderTest, WritesFilesAndFoldersBelowIt) {
  auto path = out_->Write("a/b/x.npy", "bytes");
  ASSERT_TRUE(path.ok()) << path.status();
  EXPECT_EQ(*path, (root_ / "out/a/b/x.npy").string());
  EXPECT_EQ(Read(root_ / "out/a/b/x.npy"), "bytes");
  // An existing regular file is replaced whole.
  ASSERT_TRUE(out_->Write("a/b/x.npy", "new").ok());
  EXPECT_EQ(Read(root_ / "out/a/b/x.npy"), "new");
  // No temporary file is left.
  size_t files = 0;
  for (const auto& e : fs::directory_iterator(root_ / "out/a/b")) {
    (void)e;
    ++files;
  }
  EXPECT_EQ(files, 1u);
}

TEST_F(OutputFolderTest, NamesThatLeaveTheFolderAreRefused) {
  for (const char* name : {"/etc/passwd", "../victim/precious", "a/../../x", "",
                           "a//b", "./x", "x\n.npy"}) {
    auto written = out_->Write(name, "evil");
    ASSERT_FALSE(written.ok()) << name;
    EXPECT_EQ(written.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(written.status().message(), HasSubstr("is refused"));
  }
  auto nul = out_->Write(std::string("x\0y", 3), "evil");
  EXPECT_THAT(nul.status().message(), HasSubstr("holds a NUL"));
  EXPECT_EQ(Read(root_ / "victim" / "precious"), "precious");
}

TEST_F(OutputFolderTest, SymlinksAreNeitherFollowedNorReplaced) {
  fs::create_symlink(root_ / "victim" / "precious", root_ / "out" / "x.npy");
  auto file = out_->Write("x.npy", "evil");
  ASSERT_FALSE(file.ok());
  EXPECT_THAT(file.status().message(),
              HasSubstr("is a symlink: not followed, not replaced"));
  fs::create_symlink(root_ / "victim", root_ / "out" / "sub");
  auto below = out_->Write("sub/precious", "evil");
  ASSERT_FALSE(below.ok());
  EXPECT_THAT(below.status().message(),
              HasSubstr("is a symlink: not followed"));
  EXPECT_EQ(Read(root_ / "victim" / "precious"), "precious");
  EXPECT_TRUE(fs::is_symlink(root_ / "out" / "x.npy"));
}

TEST_F(OutputFolderTest, FifosAndFoldersAtANameAreNotReplaced) {
  ASSERT_EQ(::mkfifo((root_ / "out" / "fifo.npy").c_str(), 0644), 0);
  auto fifo = out_->Write("fifo.npy", "x");  // would block if it were opened
  ASSERT_FALSE(fifo.ok());
  EXPECT_THAT(fifo.status().message(), HasSubstr("not a regular file"));
  fs::create_directories(root_ / "out" / "dir.npy");
  EXPECT_FALSE(out_->Write("dir.npy", "x").ok());
  std::ofstream(root_ / "out" / "file") << "f";
  auto under_file = out_->Write("file/x.npy", "x");
  ASSERT_FALSE(under_file.ok());
  EXPECT_THAT(under_file.status().message(), HasSubstr("is not a folder"));
}

TEST_F(OutputFolderTest, RefuseKeepsAnExistingFile) {
  ASSERT_TRUE(out_->Write("x", "first").ok());
  auto again = out_->Write("x", "second", IfExists::kRefuse);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(Read(root_ / "out" / "x"), "first");
}

TEST_F(OutputFolderTest, ReadOnlyFolderFailsAndLeavesNothing) {
  if (::geteuid() == 0) GTEST_SKIP() << "root writes into read-only folders";
  fs::create_directories(root_ / "out" / "ro");
  fs::permissions(root_ / "out" / "ro",
                  fs::perms::owner_read | fs::perms::owner_exec);
  auto written = out_->Write("ro/x", "x");
  fs::permissions(root_ / "out" / "ro", fs::perms::owner_all);
  ASSERT_FALSE(written.ok());
  EXPECT_THAT(written.status().message(), HasSubstr("cannot write into"));
}

TEST_F(OutputFolderTest, ANameTooLongIsHashedAndMapped) {
  const std::string name = std::string(300, 'n') + ".npy";
  auto written = out_->Write(name, "long");
  ASSERT_TRUE(written.ok()) << written.status();
  const std::string hashed = fs::path(*written).filename().string();
  EXPECT_LT(hashed.size(), 30u);
  EXPECT_EQ(Read(*written), "long");
  EXPECT_EQ(Read(root_ / "out" / "mapping.csv"), hashed + "," + name + "\n");
}

TEST_F(OutputFolderTest, CopiesOnlyRegularFiles) {
  auto copied = out_->Copy("c/precious", (root_ / "victim/precious").string());
  ASSERT_TRUE(copied.ok()) << copied.status();
  EXPECT_EQ(Read(root_ / "out/c/precious"), "precious");
  ASSERT_EQ(::mkfifo((root_ / "in.fifo").c_str(), 0644), 0);
  auto fifo = out_->Copy("c/fifo", (root_ / "in.fifo").string());
  ASSERT_FALSE(fifo.ok());
  EXPECT_THAT(fifo.status().message(), HasSubstr("is not a regular file"));
}

TEST(WriteDerivedFileTest, WritesBesideAndRefusesASymlink) {
  const fs::path root = fs::path(std::getenv("TEST_TMPDIR")) / "derived";
  fs::remove_all(root);
  fs::create_directories(root);
  const std::string target = (root / "tree_stats.csv").string();
  auto written = WriteDerivedFile(target, "csv");
  ASSERT_TRUE(written.ok()) << written.status();
  EXPECT_EQ(*written, target);
  std::ofstream(root / "precious") << "precious";
  fs::remove(target);
  fs::create_symlink(root / "precious", target);
  EXPECT_FALSE(WriteDerivedFile(target, "evil").ok());
  EXPECT_EQ(Read(root / "precious"), "precious");
}

}  // namespace
}  // namespace acldump::tools
