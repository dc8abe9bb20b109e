#include "dump/folder_tree.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace acldump::dump {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

std::string NewRoot(const std::string& name) {
  const fs::path dir = fs::path(::testing::TempDir()) / ("folder_tree_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(FolderTreeTest, CreatesTheTimeFolderWithTheFirstFolderOnly) {
  const std::string root = NewRoot("lazy");
  FolderTree tree(PosixFileSystem(), root, "20250101120000");
  EXPECT_EQ(tree.time_folder(), "");
  EXPECT_TRUE(fs::is_empty(root));  // nothing on disk until a folder is opened
  absl::StatusOr<FolderTree::Folder> folder = tree.Open("0/net/1/0");
  ASSERT_TRUE(folder.ok()) << folder.status();
  EXPECT_EQ(tree.time_folder(), "20250101120000");
  EXPECT_EQ(folder->path, root + "/20250101120000/0/net/1/0");
  EXPECT_TRUE(fs::is_directory(folder->path));
  // Folders are private to the user (and group).
  struct stat info;
  ASSERT_EQ(::stat((root + "/20250101120000").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0750u);
  // Reopening is served from the cache, siblings from their cached parents.
  ASSERT_TRUE(tree.Open("0/net/1/0").ok());
  ASSERT_TRUE(tree.Open("0/net/1/1").ok());
  EXPECT_TRUE(fs::is_directory(root + "/20250101120000/0/net/1/1"));
}

TEST(FolderTreeTest, NeverReusesAnExistingTimeFolder) {
  const std::string root = NewRoot("exclusive");
  // Another run (or another user) took this second and its next 998 numbers,
  // and planted a symlink to a victim folder as the 999th.
  fs::create_directories(root + "/20250101120000");
  for (int i = 1; i < 999; ++i) {
    fs::create_directories(root + "/20250101120000_" + std::to_string(i));
  }
  const std::string victim = NewRoot("victim");
  fs::create_directory_symlink(victim, root + "/20250101120000_999");
  FolderTree tree(PosixFileSystem(), root, "20250101120000");
  absl::StatusOr<FolderTree::Folder> folder = tree.Open("0/net/1/0");
  ASSERT_TRUE(folder.ok()) << folder.status();
  EXPECT_EQ(tree.time_folder(), "20250101120000_1000");
  EXPECT_TRUE(fs::is_empty(victim));
  // A second tree of this process in the same second shares the folder it
  // created.
  FolderTree again(PosixFileSystem(), root, "20250101120000");
  ASSERT_TRUE(again.Open("0/other/2/0").ok());
  EXPECT_EQ(again.time_folder(), "20250101120000_1000");
}

TEST(FolderTreeTest, RefusesSymlinksBelowTheRoot) {
  const std::string root = NewRoot("symlink");
  const std::string victim = NewRoot("victim2");
  // An exception dump writes below pre-existing shared folders: a symlinked
  // component is not followed.
  fs::create_directories(root + "/extra-info");
  fs::create_directory_symlink(victim, root + "/extra-info/data-dump");
  FolderTree tree(PosixFileSystem(), root, "");
  absl::StatusOr<FolderTree::Folder> folder =
      tree.Open("extra-info/data-dump/0");
  ASSERT_FALSE(folder.ok());
  EXPECT_THAT(folder.status().message(), HasSubstr("not followed"));
  EXPECT_TRUE(fs::is_empty(victim));
}

TEST(FolderTreeTest, LongFolderNamesAreHashedWithAMapping) {
  const std::string root = NewRoot("long");
  FolderTree tree(PosixFileSystem(), root, "20250101120000");
  const std::string model(300, 'm');
  absl::StatusOr<FolderTree::Folder> folder = tree.Open("0/" + model + "/1/0");
  ASSERT_TRUE(folder.ok()) << folder.status();
  const std::string device = root + "/20250101120000/0";
  const std::string mapping = ReadText(device + "/mapping.csv");
  const std::string hashed = mapping.substr(0, mapping.find(','));
  EXPECT_EQ(mapping, hashed + "," + model + "\n");
  EXPECT_EQ(folder->path, device + "/" + hashed + "/1/0");
  EXPECT_TRUE(fs::is_directory(folder->path));
  // The same folder again (another iteration) reuses the hashed name.
  ASSERT_TRUE(tree.Open("0/" + model + "/1/1").ok());
  EXPECT_EQ(ReadText(device + "/mapping.csv"), mapping);
}

TEST(FolderTreeTest, AMissingRootIsAnErrorAndIsNotCreated) {
  const std::string root = NewRoot("gone");
  fs::remove_all(root);
  FolderTree tree(PosixFileSystem(), root, "20250101120000");
  absl::StatusOr<FolderTree::Folder> folder = tree.Open("0");
  ASSERT_FALSE(folder.ok());
  EXPECT_THAT(folder.status().message(), HasSubstr("no longer exists"));
  EXPECT_FALSE(fs::exists(root));
  fs::create_directories(root);
  FolderTree present(PosixFileSystem(), root, "");
  EXPECT_THAT(present.Open("../escape").status().message(),
              HasSubstr("special component"));
  EXPECT_FALSE(present.Open("a//b").ok());
  EXPECT_TRUE(present.Open("a/b").ok());
}

}  // namespace
}  // namespace acldump::dump
