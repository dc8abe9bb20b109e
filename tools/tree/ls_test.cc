#include "tools/tree/ls.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "dump/format/testing/dump_test_util.h"

namespace acldump::tools {
namespace {

using dump::DumpTree;
using dump::ScanDumpTree;
using dump::testing::FakeOp;
using dump::testing::ModelFolder;
using dump::testing::NewTempDir;
using dump::testing::WriteDumpFile;
using dump::testing::WriteText;
using ::testing::HasSubstr;
using ::testing::Not;

FakeOp Op(const std::string& type, const std::string& name) {
  return FakeOp{type, name, {}, {}, {{{1, 2}}}};
}

TEST(FormatDumpTreeTest, ListsFoldersAndFiles) {
  const std::string root = NewTempDir("format");
  WriteDumpFile(ModelFolder(root, 0), Op("Conv", "conv"), 0, 1);
  WriteDumpFile(ModelFolder(root, 1), Op("Conv", "conv"), 0, 2);
  WriteText(root + "/notes.txt", "x");
  absl::StatusOr<DumpTree> tree = ScanDumpTree(root);
  ASSERT_TRUE(tree.ok());
  const std::string full = FormatDumpTree(*tree, false);
  EXPECT_THAT(full, HasSubstr("2 dump files (2 tensor, 0 stats, 0 overflow)"));
  EXPECT_THAT(full, HasSubstr("20250101120000/  (time)  2 files"));
  EXPECT_THAT(full, HasSubstr("net/  (model)"));
  EXPECT_THAT(full, HasSubstr("0/  (iteration)  1 file,"));
  EXPECT_THAT(full, HasSubstr("Conv.conv.0.0.0000000000000001"));
  EXPECT_THAT(full, HasSubstr("1 other file (not dump files): notes.txt"));
  EXPECT_THAT(FormatDumpTree(*tree, true), Not(HasSubstr("Conv.conv.0.0")));
}

}  // namespace
}  // namespace acldump::tools
