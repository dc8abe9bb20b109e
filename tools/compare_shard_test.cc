#include "tools/compare_shard.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "acl/acl_version.h"
#include "base/strings.h"
#include "dump/format/testing/dump_test_util.h"
#include "kernels/npy.h"
#include "tools/compare_report.h"
#include "tools/compare_shard.pb.h"

namespace acldump::tools {
namespace {

using dump::testing::FakeOp;
using dump::testing::ModelFolder;
using dump::testing::NewTempDir;
using dump::testing::WriteDumpFile;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

namespace fs = std::filesystem;

// x -> a -> b, three iterations; `bad_iteration` gets b's output wrong
// (and a NaN where the other side has a number).
void WriteRun(const std::string& root, int bad_iteration) {
  for (int it = 0; it < 3; ++it) {
    const std::string dir = ModelFolder(root, it);
    const float nan = std::nanf("");
    const std::vector<float> b = it == bad_iteration
                                     ? std::vector<float>{4, 6, 9.5f, nan}
                                     : std::vector<float>{4, 6, 8, 10};
    WriteDumpFile(dir,
                  FakeOp{"Add", "a", {}, {{{1, 2, 3, 4}}}, {{{2, 3, 4, 5}}}}, 0,
                  100 * it + 1);
    WriteDumpFile(dir, FakeOp{"Mul", "b", {}, {{{2, 3, 4, 5}}}, {{b}}}, 1,
                  100 * it + 2);
  }
}

struct Trees {
  std::string dir;
  CompareTree a, b;
};

std::unique_ptr<Trees> MakeTrees(const std::string& name) {
  auto t = std::make_unique<Trees>();
  const std::string root = NewTempDir(name);
  WriteRun(root + "/a", -1);
  WriteRun(root + "/b", 1);
  absl::StatusOr<CompareTree> a = LoadCompareTree(root + "/a", {});
  absl::StatusOr<CompareTree> b = LoadCompareTree(root + "/b", {});
  EXPECT_TRUE(a.ok() && b.ok());
  t->a = *std::move(a);
  t->b = *std::move(b);
  t->dir = root + "/tasks";
  return t;
}

// Every output of `dump compare`, for equality checks.
std::string AllOutputs(const TreeCompareResult& r, const CompareTree& a,
                       const CompareTree& b, const CompareOptions& options) {
  const ReportContext context{&a, &b, options, {Metric::kCosine}, "", true};
  return StrCat(FormatCompareText(r, context), CompareJson(r, context),
                CompareCsv(r, context), RenderCompareHtml(r, context));
}

// Writes the plan and runs every pair's task here.
size_t RunAllShards(const Trees& t, const CompareOptions& options) {
  absl::StatusOr<size_t> pairs = WriteComparePlan(t.dir, t.a, t.b, options, {});
  EXPECT_TRUE(pairs.ok()) << pairs.status();
  for (size_t i = 0; i < pairs.value_or(0); ++i) {
    absl::Status done = CompareShard(t.dir, i);
    EXPECT_TRUE(done.ok()) << done;
  }
  return pairs.value_or(0);
}

TEST(CompareShardTest, MergedShardsAreTheInProcessResultByteForByte) {
  auto t = MakeTrees("shard_same");
  const CompareOptions options{1e-3, 1e-3};
  EXPECT_EQ(RunAllShards(*t, options), 3u);
  const MergedCompare merged =
      MergeCompareShards(PairFolders(t->a, t->b), t->dir);
  EXPECT_TRUE(merged.failed.empty());
  const TreeCompareResult direct = CompareTrees(t->a, t->b, options);
  ASSERT_EQ(direct.exit_code(), 1);
  EXPECT_EQ(merged.result.exit_code(), 1);
  ASSERT_TRUE(merged.result.first_pair.has_value());
  EXPECT_EQ(*merged.result.first_pair, 1u);
  EXPECT_EQ(AllOutputs(merged.result, t->a, t->b, options),
            AllOutputs(direct, t->a, t->b, options));
}

TEST(CompareShardTest, ReferenceSidesTravelInThePlan) {
  const std::string root = NewTempDir("shard_refs");
  WriteRun(root + "/a", -1);
  fs::create_directories(root + "/ref");
  Tensor b(DType::kFloat32, Shape{4});
  const float values[] = {4, 6, 8, 11};
  std::copy(std::begin(values), std::end(values), b.as<float>());
  ASSERT_TRUE(WriteNpyFile(root + "/ref/b.npy", b.view()).ok());
  absl::StatusOr<CompareTree> a = LoadCompareTree(root + "/a", {});
  absl::StatusOr<CompareTree> ref = LoadCompareTree(root + "/ref", {});
  ASSERT_TRUE(a.ok() && ref.ok());
  const std::string dir = root + "/tasks";
  absl::StatusOr<size_t> pairs = WriteComparePlan(dir, *a, *ref, {}, {});
  ASSERT_TRUE(pairs.ok()) << pairs.status();
  for (size_t i = 0; i < *pairs; ++i) ASSERT_TRUE(CompareShard(dir, i).ok());
  const MergedCompare merged = MergeCompareShards(PairFolders(*a, *ref), dir);
  EXPECT_EQ(AllOutputs(merged.result, *a, *ref, {}),
            AllOutputs(CompareTrees(*a, *ref, {}), *a, *ref, {}));
  EXPECT_EQ(merged.result.tensors_outside, 3u);  // b's output, each iteration
}

TEST(CompareShardTest, WorkersUseThePlansOptionsAndFilters) {
  auto t = MakeTrees("shard_options");
  FilterOptions filter;
  filter.op_types = {"Add"};
  ASSERT_TRUE(WriteComparePlan(t->dir, t->a, t->b, {0, 0}, filter).ok());
  absl::StatusOr<std::unique_ptr<ComparePlan>> plan = ReadComparePlan(t->dir);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ((*plan)->options.atol, 0);
  EXPECT_THAT((*plan)->filter_options.op_types, ElementsAre("Add"));
  EXPECT_EQ((*plan)->folders.pairs.size(), 3u);
  EXPECT_EQ((*plan)->a.folders.size(), t->a.folders.size());
}

TEST(CompareShardTest, APairNoWorkerDeliveredIsReportedAndTheRestKept) {
  auto t = MakeTrees("shard_missing");
  RunAllShards(*t, {});
  fs::remove(PairResultPath(t->dir, 1));  // the pair holding the divergence
  const MergedCompare merged =
      MergeCompareShards(PairFolders(t->a, t->b), t->dir);
  EXPECT_THAT(merged.failed, ElementsAre(1u));
  EXPECT_EQ(merged.result.tensors_outside, 0u);
  EXPECT_EQ(merged.result.tensors_compared, 8u);  // pairs 0 and 2
  EXPECT_THAT(merged.result.pairs[1].result.divergence_note,
              HasSubstr("not compared: no worker delivered this folder pair"));
  ASSERT_FALSE(merged.result.notes.empty());
  EXPECT_THAT(merged.result.notes.back(),
              HasSubstr("folder pair 1 (net (id 1) iteration 1"));
  // What the runner said about the task comes first.
  const MergedCompare told =
      MergeCompareShards(PairFolders(t->a, t->b), t->dir, [](size_t i) {
        return i == 2 ? "exit 1: worker ran out of memory" : "";
      });
  EXPECT_THAT(told.failed, ElementsAre(1u, 2u));
  EXPECT_THAT(told.result.notes.back(),
              HasSubstr("was not compared: exit 1: worker ran out of memory"));
}

TEST(CompareShardTest, DamagedOrMisplacedResultsAreNotMerged) {
  auto t = MakeTrees("shard_damaged");
  RunAllShards(*t, {});
  {
    std::ofstream garbage(PairResultPath(t->dir, 0), std::ios::binary);
    garbage << "\xff\xff\xff not a result";
  }
  fs::copy_file(PairResultPath(t->dir, 2), PairResultPath(t->dir, 1),
                fs::copy_options::overwrite_existing);
  const MergedCompare merged =
      MergeCompareShards(PairFolders(t->a, t->b), t->dir);
  EXPECT_THAT(merged.failed, ElementsAre(0u, 1u));
  EXPECT_THAT(merged.result.notes[merged.result.notes.size() - 2],
              HasSubstr("is not one (truncated or another file)"));
  EXPECT_THAT(merged.result.notes.back(), HasSubstr("holds pair 2"));
}

TEST(CompareShardTest, OutOfRangeOperatorIndicesAreRejected) {
  auto t = MakeTrees("shard_range");
  RunAllShards(*t, {});
  shard::PairResult p;
  {
    std::ifstream in(PairResultPath(t->dir, 0), std::ios::binary);
    ASSERT_TRUE(p.ParseFromIstream(&in));
  }
  p.mutable_ops(0)->set_op(99);
  {
    std::ofstream out(PairResultPath(t->dir, 0), std::ios::binary);
    ASSERT_TRUE(p.SerializeToOstream(&out));
  }
  const MergedCompare merged =
      MergeCompareShards(PairFolders(t->a, t->b), t->dir);
  EXPECT_THAT(merged.failed, ElementsAre(0u));
  EXPECT_THAT(merged.result.notes.back(), HasSubstr("operator 99 of 2"));
}

TEST(CompareShardTest, PlansOfAnotherReleaseAndBadPairsAreErrors) {
  auto t = MakeTrees("shard_version");
  ASSERT_TRUE(WriteComparePlan(t->dir, t->a, t->b, {}, {}).ok());
  absl::Status out_of_range = CompareShard(t->dir, 3);
  EXPECT_EQ(out_of_range.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(out_of_range.message(),
              HasSubstr("folder pair 3 does not exist: the plan has 3"));
  shard::ComparePlan plan;
  {
    std::ifstream in(PlanPath(t->dir), std::ios::binary);
    ASSERT_TRUE(plan.ParseFromIstream(&in));
  }
  plan.set_version("0.9.0");
  {
    std::ofstream out(PlanPath(t->dir), std::ios::binary);
    ASSERT_TRUE(plan.SerializeToOstream(&out));
  }
  absl::Status old = CompareShard(t->dir, 0);
  EXPECT_EQ(old.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(old.message(),
              HasSubstr(StrCat("written by acldump 0.9.0, this is ",
                               ACLDUMP_VERSION_STRING)));
  EXPECT_FALSE(fs::exists(PairResultPath(t->dir, 0)));
  fs::remove(PlanPath(t->dir));
  EXPECT_FALSE(ReadComparePlan(t->dir).ok());
  EXPECT_FALSE(ReadComparePlan(NewTempDir("shard_none") + "/x").ok());
}

TEST(CompareShardTest, APlanCannotBeWrittenWhereThereIsNoFolder) {
  auto t = MakeTrees("shard_unwritable");
  absl::StatusOr<size_t> pairs =
      WriteComparePlan("/proc/no/such/folder", t->a, t->b, {}, {});
  ASSERT_FALSE(pairs.ok());
  EXPECT_THAT(pairs.status().message(),
              HasSubstr("cannot create the folder '/proc/no/such/folder'"));
}

}  // namespace
}  // namespace acldump::tools
