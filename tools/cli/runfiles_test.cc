#include "tools/cli/runfiles.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace acldump::tools {
namespace {

TEST(RunfilesTest, FindsTestDataThroughTheEnvironment) {
  // Bazel sets TEST_SRCDIR (and RUNFILES_DIR) for tests.
  const std::optional<std::string> dir = FindRunfilesDir("/nonexistent");
  ASSERT_TRUE(dir.has_value());
  EXPECT_EQ((*dir)[0], '/');
  EXPECT_TRUE(Rlocation(*dir, "testdata/resnet_tiny.om").has_value());
  EXPECT_FALSE(Rlocation(*dir, "testdata/no_such_file").has_value());
}

TEST(RunfilesTest, FallsBackToArgv0) {
  const std::optional<std::string> dir = FindRunfilesDir(nullptr);
  ASSERT_TRUE(dir.has_value());
  const std::string saved_runfiles =
      std::getenv("RUNFILES_DIR") ? std::getenv("RUNFILES_DIR") : "";
  const std::string saved_srcdir = std::getenv("TEST_SRCDIR");
  unsetenv("RUNFILES_DIR");
  unsetenv("TEST_SRCDIR");
  // "<dir minus .runfiles>" is the binary the runfiles belong to.
  const std::string binary = dir->substr(0, dir->size() - 9);
  const std::optional<std::string> found = FindRunfilesDir(binary.c_str());
  setenv("TEST_SRCDIR", saved_srcdir.c_str(), 1);
  if (!saved_runfiles.empty())
    setenv("RUNFILES_DIR", saved_runfiles.c_str(), 1);
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(*found, *dir);
}

}  // namespace
}  // namespace acldump::tools
