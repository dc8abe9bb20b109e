#include "tools/compare/shard.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "acl/acl_version.h"
#include "base/strings.h"
#include "dump/format/testing/dump_test_util.h"
#include "kernels/npy.h"
#include "tools/compare/shard.pb.h"
#include "tools/report/report.h"

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
  std::string dir;  // for the tasks' files
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

// Writes the tasks into `dir` and runs each here, as a worker would.
std::vector<CompareTaskFiles> RunAllTasks(const std::string& dir,
                                          const FolderPlan& plan,
                                          const CompareOptions& options,
                                          size_t max_tasks,
                                          const FilterOptions& filter = {}) {
  fs::create_directories(dir);
  absl::StatusOr<std::vector<CompareTaskFiles>> files =
      WriteCompareTasks(dir, plan, options, filter, max_tasks);
  EXPECT_TRUE(files.ok()) << files.status();
  if (!files.ok()) return {};
  for (const CompareTaskFiles& f : *files) {
    absl::Status done = RunCompareTask(f.task, f.result);
    EXPECT_TRUE(done.ok()) << done;
  }
  return *files;
}

TEST(CompareShardTest, MergedTasksAreTheInProcessResultByteForByte) {
  auto t = MakeTrees("shard_same");
  const CompareOptions options{1e-3, 1e-3};
  const FolderPlan plan = PairFolders(t->a, t->b);
  ASSERT_EQ(plan.pairs.size(), 3u);
  const TreeCompareResult direct = CompareTrees(t->a, t->b, options);
  ASSERT_EQ(direct.exit_code(), 1);
  for (size_t max_tasks : {1, 2, 3, 10}) {
    const std::vector<CompareTaskFiles> files =
        RunAllTasks(StrCat(t->dir, max_tasks), plan, options, max_tasks);
    EXPECT_EQ(files.size(), std::min<size_t>(max_tasks, 3));
    size_t pairs = 0;
    for (const auto& f : files) pairs += f.pairs.size();
    EXPECT_EQ(pairs, 3u);
    const MergedCompare merged = MergeCompareResults(plan, files);
    EXPECT_TRUE(merged.failed.empty());
    ASSERT_TRUE(merged.result.first_pair.has_value());
    EXPECT_EQ(*merged.result.first_pair, 1u);
    EXPECT_EQ(AllOutputs(merged.result, t->a, t->b, options),
              AllOutputs(direct, t->a, t->b, options))
        << max_tasks << " tasks";
  }
}

TEST(CompareShardTest, ReferenceSidesTravelInTheTasks) {
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
  const FolderPlan plan = PairFolders(*a, *ref);
  const MergedCompare merged =
      MergeCompareResults(plan, RunAllTasks(root + "/tasks", plan, {}, 2));
  EXPECT_EQ(AllOutputs(merged.result, *a, *ref, {}),
            AllOutputs(CompareTrees(*a, *ref, {}), *a, *ref, {}));
  EXPECT_EQ(merged.result.tensors_outside, 3u);  // b's output, each iteration
}

TEST(CompareShardTest, TasksCarryTheOptionsAndFilters) {
  auto t = MakeTrees("shard_options");
  FilterOptions filter;
  filter.op_types = {"Add"};
  const FolderPlan plan = PairFolders(t->a, t->b);
  const std::vector<CompareTaskFiles> files =
      RunAllTasks(t->dir, plan, {0, 0}, 1, filter);
  ASSERT_EQ(files.size(), 1u);
  shard::CompareTask task;
  {
    std::ifstream in(files[0].task, std::ios::binary);
    ASSERT_TRUE(task.ParseFromIstream(&in));
  }
  EXPECT_EQ(task.atol(), 0);
  EXPECT_THAT(task.op_types(), ElementsAre("Add"));
  EXPECT_EQ(task.pairs_size(), 3);
  EXPECT_EQ(task.version(), ACLDUMP_VERSION_STRING);
  // The worker's filter is the client's: the same result as in process.
  absl::StatusOr<DumpFilter> same = DumpFilter::Create(filter);
  ASSERT_TRUE(same.ok());
  const MergedCompare merged = MergeCompareResults(plan, files);
  EXPECT_EQ(
      AllOutputs(merged.result, t->a, t->b, {0, 0}),
      AllOutputs(CompareTrees(t->a, t->b, {0, 0}, *same), t->a, t->b, {0, 0}));
}

// A device tensor's original format from the converter graph travels with
// its reference (unknown stays unknown).
TEST(CompareShardTest, OriginalFormatsTravelInTheTasks) {
  auto t = MakeTrees("shard_formats");
  t->a.folders[0].ops[0].outputs[0].original_format = 0;  // NCHW
  t->a.folders[0].ops[1].outputs[0].original_format = 1;  // NHWC
  const FolderPlan plan = PairFolders(t->a, t->b);
  const std::vector<CompareTaskFiles> files =
      RunAllTasks(t->dir, plan, {0, 0}, 1);
  ASSERT_EQ(files.size(), 1u);
  shard::CompareTask task;
  {
    std::ifstream in(files[0].task, std::ios::binary);
    ASSERT_TRUE(task.ParseFromIstream(&in));
  }
  std::vector<uint32_t> formats;
  for (const shard::CompareSide& side : task.sides()) {
    for (const shard::OpRecord& op : side.ops()) {
      for (const shard::TensorRef& out : op.outputs()) {
        formats.push_back(out.original_format_plus_one());
      }
    }
  }
  // The first side sent is a's first folder: NCHW (1), NHWC (2); every other
  // output unknown (0).
  ASSERT_GE(formats.size(), 2u);
  EXPECT_EQ(formats[0], 1u);
  EXPECT_EQ(formats[1], 2u);
  EXPECT_EQ(std::count(formats.begin(), formats.end(), 0u),
            static_cast<long>(formats.size()) - 2);
}

// Stats sides travel with their statistics; the options with --by and the
// per-column tolerances.
TEST(CompareShardTest, StatsSidesAndTheirOptionsTravelInTheTasks) {
  const std::string root = NewTempDir("shard_stats");
  const std::string header =
      "Input/Output,Index,Data Size,Data Type,Format,Shape,Count,Max Value,Min "
      "Value,Avg Value,Checksum\n";
  for (int it = 0; it < 3; ++it) {
    const std::string dir = ModelFolder(root + "/stats", it);
    dump::testing::WriteText(
        StrCat(dir, "/Add.a.0.0.", 100 * it + 1, ".csv"),
        header + "Output,0,16,DT_FLOAT,ND,4,4,5,2,3.5,00000000000000aa\n");
    dump::testing::WriteText(
        StrCat(dir, "/Mul.b.1.0.", 100 * it + 2, ".csv"),
        header +
            StrCat("Input,0,16,DT_FLOAT,ND,4,4,5,2,3.5,00000000000000aa\n"
                   "Output,0,16,DT_FLOAT,ND,4,4,10,4,",
                   it == 1 ? "7.25,00000000000000bc" : "7,00000000000000bb",
                   "\n"));
  }
  WriteRun(root + "/tensors", -1);
  absl::StatusOr<CompareTree> stats = LoadCompareTree(root + "/stats", {});
  absl::StatusOr<CompareTree> tensors = LoadCompareTree(root + "/tensors", {});
  ASSERT_TRUE(stats.ok() && tensors.ok());
  ASSERT_EQ(stats->kind, SideKind::kStats);
  CompareOptions by_stats{1e-3, 1e-3, CompareBy::kStats, {{"Avg", 0.1, 0}}};
  for (const CompareOptions& options : {CompareOptions{}, by_stats}) {
    const FolderPlan plan = PairFolders(*stats, *stats);
    const MergedCompare merged = MergeCompareResults(
        plan, RunAllTasks(root + "/tasks_self", plan, options, 2));
    EXPECT_EQ(merged.result.exit_code(), 0);
    const FolderPlan mixed = PairFolders(*stats, *tensors);
    const TreeCompareResult direct = CompareTrees(*stats, *tensors, options);
    // The checksums are made up: by checksum every tensor differs; by
    // statistics only iteration 1's Avg (7.25 against 7) does.
    EXPECT_EQ(direct.tensors_outside,
              options.by == CompareBy::kStats ? 1u : 9u);
    const MergedCompare merged_mixed = MergeCompareResults(
        mixed,
        RunAllTasks(StrCat(root, "/tasks_mixed", static_cast<int>(options.by)),
                    mixed, options, 3));
    EXPECT_EQ(AllOutputs(merged_mixed.result, *stats, *tensors, options),
              AllOutputs(direct, *stats, *tensors, options));
  }
}

TEST(CompareShardTest, ATaskNoWorkerDeliveredIsReportedAndTheRestKept) {
  auto t = MakeTrees("shard_missing");
  const FolderPlan plan = PairFolders(t->a, t->b);
  const std::vector<CompareTaskFiles> files = RunAllTasks(t->dir, plan, {}, 3);
  ASSERT_EQ(files.size(), 3u);
  fs::remove(files[1].result);  // the pair holding the divergence
  const MergedCompare merged = MergeCompareResults(plan, files);
  EXPECT_THAT(merged.failed, ElementsAre(1u));
  EXPECT_EQ(merged.result.tensors_outside, 0u);
  EXPECT_EQ(merged.result.tensors_compared, 8u);  // pairs 0 and 2
  EXPECT_THAT(merged.result.pairs[1].result.divergence_note,
              HasSubstr("not compared: no worker delivered this folder pair"));
  ASSERT_FALSE(merged.result.notes.empty());
  EXPECT_THAT(merged.result.notes.back(),
              HasSubstr("folder pair 1 (net (id 1) iteration 1"));
  // What the runner said about a task comes first.
  const MergedCompare told =
      MergeCompareResults(plan, files, [](size_t k) -> std::string {
        return k == 2 ? "KilledWorker: the worker died 3 times" : "";
      });
  EXPECT_THAT(told.failed, ElementsAre(1u, 2u));
  EXPECT_THAT(told.result.notes.back(),
              HasSubstr("was not compared: KilledWorker: the worker died"));
  const ReportContext context{&t->a, &t->b, {}, {Metric::kCosine}, "", false};
  EXPECT_THAT(CompareJson(told.result, context),
              HasSubstr("no worker delivered this folder pair"));
}

TEST(CompareShardTest, DamagedOrMisplacedResultsAreNotMerged) {
  auto t = MakeTrees("shard_damaged");
  const FolderPlan plan = PairFolders(t->a, t->b);
  const std::vector<CompareTaskFiles> files = RunAllTasks(t->dir, plan, {}, 3);
  ASSERT_EQ(files.size(), 3u);
  {
    std::ofstream garbage(files[0].result, std::ios::binary);
    garbage << "\xff\xff\xff not a result";
  }
  fs::copy_file(files[2].result, files[1].result,
                fs::copy_options::overwrite_existing);
  const MergedCompare merged = MergeCompareResults(plan, files);
  EXPECT_THAT(merged.failed, ElementsAre(0u, 1u));
  EXPECT_THAT(merged.result.notes[merged.result.notes.size() - 2],
              HasSubstr("is not one (truncated or another file)"));
  EXPECT_THAT(merged.result.notes.back(),
              HasSubstr("holds pair 2 where pair 1 belongs"));
}

TEST(CompareShardTest, OutOfRangeOperatorIndicesAreRejected) {
  auto t = MakeTrees("shard_range");
  const FolderPlan plan = PairFolders(t->a, t->b);
  const std::vector<CompareTaskFiles> files = RunAllTasks(t->dir, plan, {}, 1);
  shard::TaskResult r;
  {
    std::ifstream in(files[0].result, std::ios::binary);
    ASSERT_TRUE(r.ParseFromIstream(&in));
  }
  r.mutable_pairs(2)->mutable_ops(0)->set_op(99);
  {
    std::ofstream out(files[0].result, std::ios::binary);
    ASSERT_TRUE(r.SerializeToOstream(&out));
  }
  const MergedCompare merged = MergeCompareResults(plan, files);
  EXPECT_THAT(merged.failed, ElementsAre(0u, 1u, 2u));  // all or nothing
  EXPECT_THAT(merged.result.notes.back(), HasSubstr("operator 99 of 2"));
  EXPECT_EQ(merged.result.tensors_compared, 0u);
}

TEST(CompareShardTest, ImpossibleHistogramsAreRefused) {
  auto t = MakeTrees("shard_histogram");
  const FolderPlan plan = PairFolders(t->a, t->b);
  const std::vector<CompareTaskFiles> files = RunAllTasks(t->dir, plan, {}, 1);
  shard::TaskResult good;
  {
    std::ifstream in(files[0].result, std::ios::binary);
    ASSERT_TRUE(good.ParseFromIstream(&in));
  }
  // Pair 1 holds the tensor outside the tolerance, with its histogram.
  const auto details = [](shard::TaskResult& r) {
    std::vector<shard::ErrorDetail*> found;
    for (auto& op : *r.mutable_pairs(1)->mutable_ops()) {
      for (auto& tensor : *op.mutable_tensors()) {
        if (tensor.has_detail()) found.push_back(tensor.mutable_detail());
      }
    }
    return found;
  };
  ASSERT_FALSE(details(good).empty());
  const auto broken = [&](auto change) {
    shard::TaskResult r = good;
    for (shard::ErrorDetail* d : details(r)) change(*d);
    std::ofstream out(files[0].result, std::ios::binary | std::ios::trunc);
    r.SerializeToOstream(&out);
    out.close();
    return MergeCompareResults(plan, files);
  };
  using D = shard::ErrorDetail;
  for (auto change : std::vector<std::function<void(D&)>>{
           [](D& d) { d.set_bin_low(-1e300); },
           [](D& d) { d.set_bin_low(-INFINITY); },
           [](D& d) { d.set_bin_high(d.bin_low()); },
           [](D& d) { d.clear_bins(); }, [](D& d) { d.add_sample_a(1); }}) {
    const MergedCompare merged = broken(change);
    EXPECT_THAT(merged.failed, ElementsAre(0u, 1u, 2u));
  }
  EXPECT_THAT(broken([](D& d) { d.set_bin_low(-1e300); }).result.notes.back(),
              HasSubstr("an error histogram out of range"));
  EXPECT_TRUE(broken([](D&) {}).failed.empty());
}

TEST(CompareShardTest, AFolderInManyPairsIsWrittenOnce) {
  const std::string root = NewTempDir("shard_once");
  WriteRun(root + "/a", -1);
  fs::create_directories(root + "/ref");
  Tensor b(DType::kFloat32, Shape{4});
  std::fill(b.as<float>(), b.as<float>() + 4, 1.0f);
  ASSERT_TRUE(WriteNpyFile(root + "/ref/b.npy", b.view()).ok());
  absl::StatusOr<CompareTree> a = LoadCompareTree(root + "/a", {});
  absl::StatusOr<CompareTree> ref = LoadCompareTree(root + "/ref", {});
  ASSERT_TRUE(a.ok() && ref.ok());
  const std::vector<CompareTaskFiles> files =
      RunAllTasks(root + "/tasks", PairFolders(*a, *ref), {}, 1);
  shard::CompareTask task;
  std::ifstream in(files[0].task, std::ios::binary);
  ASSERT_TRUE(task.ParseFromIstream(&in));
  EXPECT_EQ(task.pairs_size(), 3);
  EXPECT_EQ(task.sides_size(), 4);  // three folders of A, the references once
}

TEST(CompareShardTest, TasksOfAnotherReleaseAreRefused) {
  auto t = MakeTrees("shard_version");
  const FolderPlan plan = PairFolders(t->a, t->b);
  fs::create_directories(t->dir);
  absl::StatusOr<std::vector<CompareTaskFiles>> files =
      WriteCompareTasks(t->dir, plan, {}, {}, 1);
  ASSERT_TRUE(files.ok());
  const std::string task = (*files)[0].task, result = (*files)[0].result;
  shard::CompareTask old;
  {
    std::ifstream in(task, std::ios::binary);
    ASSERT_TRUE(old.ParseFromIstream(&in));
  }
  old.set_version("0.9.0");
  {
    std::ofstream out(task, std::ios::binary);
    ASSERT_TRUE(old.SerializeToOstream(&out));
  }
  absl::Status refused = RunCompareTask(task, result);
  EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(refused.message(),
              HasSubstr(StrCat("written by acldump 0.9.0, this is ",
                               ACLDUMP_VERSION_STRING)));
  EXPECT_FALSE(fs::exists(result));
  EXPECT_THAT(RunCompareTask(t->dir + "/none.pb", result).message(),
              HasSubstr("none.pb"));
  {
    std::ofstream out(task, std::ios::binary);
    out << "garbage";
  }
  EXPECT_EQ(RunCompareTask(task, result).code(), absl::StatusCode::kDataLoss);
}

TEST(CompareShardTest, AResultThatCannotBeWrittenIsAnError) {
  auto t = MakeTrees("shard_no_result");
  fs::create_directories(t->dir);
  absl::StatusOr<std::vector<CompareTaskFiles>> files =
      WriteCompareTasks(t->dir, PairFolders(t->a, t->b), {}, {}, 1);
  ASSERT_TRUE(files.ok());
  const std::string result = t->dir + "/no/such/result.pb";
  absl::Status written = RunCompareTask((*files)[0].task, result);
  EXPECT_FALSE(written.ok());
  EXPECT_THAT(written.message(), HasSubstr("cannot create"));
  EXPECT_FALSE(fs::exists(result));
}

TEST(CompareShardTest, TasksCannotBeWrittenWhereThereIsNoFolder) {
  auto t = MakeTrees("shard_unwritable");
  absl::StatusOr<std::vector<CompareTaskFiles>> files = WriteCompareTasks(
      "/proc/no/such/folder", PairFolders(t->a, t->b), {}, {}, 4);
  ASSERT_FALSE(files.ok());
  EXPECT_THAT(files.status().message(),
              HasSubstr("cannot create '/proc/no/such/folder/task-0.pb"));
}

}  // namespace
}  // namespace acldump::tools
