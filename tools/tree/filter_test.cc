#include "tools/tree/filter.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "dump/format/testing/dump_test_util.h"

namespace acldump::tools {
namespace {

using dump::testing::FakeOp;
using dump::testing::ModelFolder;
using dump::testing::NewTempDir;
using dump::testing::WriteDumpFile;
using ::testing::HasSubstr;

TEST(IterationSetTest, RangesAndLists) {
  absl::StatusOr<IterationSet> set = IterationSet::Parse("3-5");
  ASSERT_TRUE(set.ok());
  EXPECT_FALSE(set->Contains(2));
  EXPECT_TRUE(set->Contains(3));
  EXPECT_TRUE(set->Contains(5));
  EXPECT_FALSE(set->Contains(6));
  set = IterationSet::Parse("10,0|3-4");
  ASSERT_TRUE(set.ok());
  EXPECT_EQ(set->ToString(), "0,3-4,10");
  for (const char* bad : {"", "5-3", "a", "1-", "-1", "1,,2", "3-x"}) {
    EXPECT_FALSE(IterationSet::Parse(bad).ok()) << bad;
  }
}

TEST(DumpFilterTest, TypesNamesIterations) {
  absl::StatusOr<DumpFilter> f = DumpFilter::Create({{"Conv,Add"}, "^re", ""});
  ASSERT_TRUE(f.ok());
  EXPECT_TRUE(f->MatchesType("Conv"));
  EXPECT_FALSE(f->MatchesType("Relu"));
  EXPECT_TRUE(f->MatchesType(""));  // references have no type
  EXPECT_TRUE(f->MatchesName("relu1"));
  EXPECT_FALSE(f->MatchesName("conv1"));
  const std::vector<std::string> originals = {"conv1", "relu1"};
  EXPECT_TRUE(f->MatchesName("conv1bn1", originals));
  EXPECT_TRUE(f->MatchesIteration(-1));
  EXPECT_EQ(f->Describe(), "--op-type Conv,Add, --match '^re'");
  EXPECT_FALSE(DumpFilter::Create({{}, "(", ""}).ok());
  EXPECT_FALSE(DumpFilter::Create({{}, "", "x"}).ok());
  f = DumpFilter::Create({{}, "", "1"});
  ASSERT_TRUE(f.ok());
  EXPECT_FALSE(f->MatchesIteration(-1));  // outside the model layout
  EXPECT_TRUE(DumpFilter().empty());
}

TEST(FilterTreeTest, KeepsMatchingFilesAndExplainsEmptyResults) {
  const std::string root = NewTempDir("filter_tree");
  for (int it : {0, 1, 2}) {
    WriteDumpFile(ModelFolder(root, it),
                  FakeOp{"Conv", "conv1", {}, {}, {{{1}}}}, 0, 10 + it);
    WriteDumpFile(ModelFolder(root, it),
                  FakeOp{"Relu", "relu1", {}, {}, {{{1}}}}, 1, 20 + it);
  }
  absl::StatusOr<dump::DumpTree> tree = dump::ScanDumpTree(root);
  ASSERT_TRUE(tree.ok());
  absl::StatusOr<DumpFilter> f = DumpFilter::Create({{"Relu"}, "", "1-2"});
  ASSERT_TRUE(f.ok());
  const dump::DumpTree kept = FilterTree(*tree, *f);
  ASSERT_EQ(kept.runs.size(), 2u);
  EXPECT_EQ(kept.runs[0].iteration, 1);
  ASSERT_EQ(kept.runs[0].files.size(), 1u);
  EXPECT_EQ(kept.runs[0].files[0]->name->op_name, "relu1");

  f = DumpFilter::Create({{"Rellu"}, "", ""});
  ASSERT_TRUE(f.ok());
  EXPECT_TRUE(FilterTree(*tree, *f).runs.empty());
  EXPECT_THAT(ExplainEmptyFilter(*tree, *f),
              HasSubstr("no operator has type Rellu (types present: Conv, "
                        "Relu); did you mean 'Relu' for 'Rellu'?"));
  f = DumpFilter::Create({{}, "", "5-9"});
  ASSERT_TRUE(f.ok());
  EXPECT_THAT(ExplainEmptyFilter(*tree, *f),
              HasSubstr("no dump folder of iteration 5-9 (iterations "
                        "present: 0,1,2)"));
  f = DumpFilter::Create({{}, "bn", ""});
  ASSERT_TRUE(f.ok());
  EXPECT_THAT(ExplainEmptyFilter(*tree, *f),
              HasSubstr("no operator name matches --match 'bn'"));
}

}  // namespace
}  // namespace acldump::tools
