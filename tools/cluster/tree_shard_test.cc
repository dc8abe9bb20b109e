#include "tools/cluster/tree_shard.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "acl/acl_version.h"
#include "base/strings.h"
#include "dump/format/pack.h"
#include "dump/format/testing/dump_test_util.h"

namespace acldump::tools {
namespace {

using dump::testing::FakeOp;
using dump::testing::ModelFolder;
using dump::testing::NewTempDir;
using dump::testing::WriteDumpFile;
using dump::testing::WriteText;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

namespace fs = std::filesystem;

// Two runs (time folders), two models, two iterations, a stats CSV, a file
// at the top and a symlinked folder (not followed, as by the scan).
std::string MakeTree(const std::string& name) {
  const std::string root = NewTempDir(name);
  for (const char* time : {"20250101120000", "20250101120000_1"}) {
    for (const char* model : {"net", "other"}) {
      for (int it = 0; it < 2; ++it) {
        const std::string dir = ModelFolder(root, it, model, time);
        WriteDumpFile(dir, FakeOp{"Add", "a", {}, {}, {{{1, 2}}}}, 0, 10 + it);
        WriteDumpFile(dir, FakeOp{"Relu", "r", {}, {}, {{{1, 0}}}}, 1, 20 + it);
      }
    }
  }
  WriteText(ModelFolder(root, 0, "net", "20250101120000") + "/Add.a.5.0.99.csv",
            "Input/Output,Index,Data Size,Data Type,Format,Shape,Max Value,"
            "Min Value,Avg Value,Count,Nan Count,Negative Inf Count,Positive "
            "Inf Count\nOutput,0,8,DT_FLOAT,ND,2,2,1,1.5,2,0,0,0\n");
  WriteText(root + "/acl.json", "{}");
  // A packed single-operator dump beside the model folders: its records are
  // named in its folder, whoever scans it.
  const std::string record = "Relu.r.1.0.5";
  WriteText(root + "/20250101120000/0/" + std::string(dump::kPackFileName),
            dump::PackFrame(record.size(), 3) + record + "abc");
  fs::create_directory_symlink(root + "/20250101120000", root + "/link");
  // A dump file linked in from elsewhere is named where the link is.
  const std::string outside = NewTempDir(name + "_outside");
  const std::string linked = WriteDumpFile(
      outside, FakeOp{"Add", "linked", {}, {}, {{{1, 2}}}}, 7, 70);
  fs::create_symlink(linked, ModelFolder(root, 1, "net", "20250101120000") +
                                 "/" + fs::path(linked).filename().string());
  return root;
}

// What a scan found, as the listing prints it.
std::string Listing(const dump::DumpTree& tree) {
  return TreeJson(tree).dump(1);
}

dump::DumpTree ScanInParts(const std::string& root, size_t want) {
  absl::StatusOr<ScanPlan> plan = PlanScan(root, want);
  EXPECT_TRUE(plan.ok()) << plan.status();
  std::vector<dump::DumpEntry> entries;
  for (const std::string& part : plan->folders) {
    absl::StatusOr<dump::DumpTree> tree = ScanPart(root, part);
    EXPECT_TRUE(tree.ok()) << tree.status();
    // Through JSON, as from a worker.
    std::vector<std::string> problems;
    EXPECT_TRUE(EntriesFromJson(nlohmann::json::parse(TreeJson(*tree).dump()),
                                entries, problems)
                    .ok());
  }
  for (const std::string& file : plan->files) {
    absl::StatusOr<dump::DumpTree> tree = ScanPart(root, file);
    EXPECT_TRUE(tree.ok()) << tree.status();
    for (const auto& e : tree->entries) entries.push_back(e);
  }
  for (auto& e : entries) e.path = (fs::path(root) / e.relative).string();
  return dump::BuildDumpTree(root, std::move(entries));
}

TEST(TreeShardTest, PlansCutAtTheLevelWithEnoughFolders) {
  const std::string root = MakeTree("plan");
  absl::StatusOr<ScanPlan> one = PlanScan(root, 1);
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one->folders, std::vector<std::string>{""});
  EXPECT_THAT(one->files, IsEmpty());
  absl::StatusOr<ScanPlan> two = PlanScan(root, 2);
  ASSERT_TRUE(two.ok());
  EXPECT_EQ(two->folders,
            (std::vector<std::string>{"20250101120000", "20250101120000_1"}));
  EXPECT_EQ(two->files, std::vector<std::string>{"acl.json"});
  absl::StatusOr<ScanPlan> many = PlanScan(root, 1000);
  ASSERT_TRUE(many.ok());
  EXPECT_EQ(many->folders.size(), 8u);  // 2 runs x 2 models x 2 iterations
  EXPECT_EQ(many->folders.front(), "20250101120000/0/net/1/0");
}

TEST(TreeShardTest, AScanInPartsIsTheWholeScan) {
  const std::string root = MakeTree("parts");
  absl::StatusOr<dump::DumpTree> whole = dump::ScanDumpTree(root);
  ASSERT_TRUE(whole.ok());
  ASSERT_EQ(whole->runs.size(), 9u);  // 8 model folders, the single-op one
  for (size_t want : {1, 2, 3, 8, 100}) {
    const dump::DumpTree parts = ScanInParts(root, want);
    EXPECT_EQ(Listing(parts), Listing(*whole)) << "want " << want;
    ASSERT_EQ(parts.runs.size(), whole->runs.size());
    for (size_t i = 0; i < parts.runs.size(); ++i) {
      EXPECT_EQ(parts.runs[i].directory, whole->runs[i].directory);
      EXPECT_EQ(parts.runs[i].files.size(), whole->runs[i].files.size());
    }
  }
}

TEST(TreeShardTest, AFileRootIsReadByTheClient) {
  const std::string root = MakeTree("file");
  const std::string file = root + "/acl.json";
  absl::StatusOr<ScanPlan> plan = PlanScan(file, 64);
  ASSERT_TRUE(plan.ok());
  EXPECT_THAT(plan->folders, IsEmpty());
  EXPECT_EQ(plan->files, std::vector<std::string>{""});
}

TEST(TreeShardTest, ListingsRoundTrip) {
  const std::string root = MakeTree("json");
  absl::StatusOr<dump::DumpTree> whole = dump::ScanDumpTree(root);
  ASSERT_TRUE(whole.ok());
  whole->problems.push_back("a pack could not be read");
  const nlohmann::json json = nlohmann::json::parse(TreeJson(*whole).dump());
  EXPECT_EQ(json["schema"], "acldump.ls/1");
  std::vector<dump::DumpEntry> entries;
  std::vector<std::string> problems;
  ASSERT_TRUE(EntriesFromJson(json, entries, problems).ok());
  EXPECT_EQ(problems, whole->problems);
  dump::DumpTree back = dump::BuildDumpTree(root, std::move(entries));
  back.problems = problems;
  EXPECT_EQ(Listing(back), Listing(*whole));
}

absl::Status Parse(const nlohmann::json& json) {
  std::vector<dump::DumpEntry> entries;
  std::vector<std::string> problems;
  return EntriesFromJson(json, entries, problems);
}

TEST(TreeShardTest, DamagedListingsAreRejected) {
  const std::string root = MakeTree("bad");
  absl::StatusOr<dump::DumpTree> tree =
      ScanPart(root, "20250101120000/0/net/1/0");
  ASSERT_TRUE(tree.ok());
  const nlohmann::json good = nlohmann::json::parse(TreeJson(*tree).dump());
  ASSERT_TRUE(Parse(good).ok());
  auto with = [&](auto change) {
    nlohmann::json j = good;
    change(j);
    return Parse(j);
  };
  EXPECT_THAT(Parse(nlohmann::json::array()).message(),
              HasSubstr("not a dump listing"));
  EXPECT_THAT(
      with([](auto& j) { j["schema"] = "acldump.compare/1"; }).message(),
      HasSubstr("not a dump listing"));
  absl::Status old = with([](auto& j) { j["version"] = "0.1.0"; });
  EXPECT_EQ(old.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(old.message(), HasSubstr(StrCat("another acldump release than ",
                                              ACLDUMP_VERSION_STRING)));
  EXPECT_THAT(with([](auto& j) { j.erase("entries"); }).message(),
              HasSubstr("without entries"));
  EXPECT_THAT(
      with([](auto& j) { j["entries"][0]["kind"] = "movie"; }).message(),
      HasSubstr("unknown kind 'movie'"));
  EXPECT_THAT(
      with([](auto& j) { j["entries"][0]["bytes"] = "many"; }).message(),
      HasSubstr("'bytes' is not an integer"));
  EXPECT_THAT(
      with([](auto& j) { j["entries"][0]["task_id"] = 1ull << 40; }).message(),
      HasSubstr("'task_id' out of range"));
  EXPECT_THAT(
      with([](auto& j) { j["entries"][0]["device"] = -1ll << 62; }).ok(), true);
  EXPECT_THAT(with([](auto& j) { j["entries"][0].erase("path"); }).message(),
              HasSubstr("entry without 'path'"));
  EXPECT_THAT(with([](auto& j) { j["entries"][0]["packed"] = 1; }).message(),
              HasSubstr("'packed' is not true/false"));
  EXPECT_THAT(with([](auto& j) { j["problems"][0] = 3; }).message(),
              HasSubstr("a problem is not text"));
}

// Tasks as a cluster would run them, here: each scans its folders and
// writes its listing; `skip` tasks write nothing, `damage` ones garbage.
std::vector<ScanTask> RunScanTasks(const std::string& root,
                                   const std::string& dir, size_t count,
                                   std::vector<std::string>& loose,
                                   const std::set<size_t>& skip = {},
                                   const std::set<size_t>& damage = {}) {
  absl::StatusOr<ScanPlan> plan = PlanScan(root, 1000);
  EXPECT_TRUE(plan.ok());
  loose = plan->files;
  std::vector<ScanTask> tasks(count);
  for (size_t i = 0; i < plan->folders.size(); ++i) {
    tasks[i * count / plan->folders.size()].folders.push_back(plan->folders[i]);
  }
  for (size_t k = 0; k < count; ++k) {
    const std::string list = StrCat(dir, "/scan-", k, ".json");
    tasks[k].task.output = StrCat(dir, "/scan-", k, ".out.json");
    EXPECT_TRUE(WriteJsonFile(list, tasks[k].folders).ok());
    if (skip.count(k)) continue;
    if (damage.count(k)) {
      WriteText(tasks[k].task.output, "{\"schema\": ");
      continue;
    }
    absl::StatusOr<dump::DumpTree> part = ScanTaskFolders(root, list);
    EXPECT_TRUE(part.ok()) << part.status();
    EXPECT_TRUE(WriteJsonFile(tasks[k].task.output, TreeJson(*part)).ok());
  }
  return tasks;
}

dump::DumpTree ClientPart(const std::string& root,
                          const std::vector<std::string>& loose) {
  dump::DumpTree part;
  for (const std::string& file : loose) {
    absl::StatusOr<dump::DumpTree> tree = ScanPart(root, file);
    EXPECT_TRUE(tree.ok());
    for (auto& e : tree->entries) part.entries.push_back(e);
  }
  return part;
}

TEST(TreeShardTest, MergedScanTasksAreTheWholeScan) {
  const std::string root = MakeTree("merge");
  const std::string dir = NewTempDir("merge_tasks");
  std::vector<std::string> loose;
  const std::vector<ScanTask> tasks = RunScanTasks(root, dir, 3, loose);
  const ClusterScan scan = MergeScanTasks(root, ClientPart(root, loose), tasks);
  EXPECT_THAT(scan.failed, IsEmpty());
  absl::StatusOr<dump::DumpTree> whole = dump::ScanDumpTree(root);
  ASSERT_TRUE(whole.ok());
  EXPECT_EQ(Listing(scan.tree), Listing(*whole));
}

TEST(TreeShardTest, FoldersOfFailedTasksAreReportedNotLost) {
  const std::string root = MakeTree("merge_failed");
  const std::string dir = NewTempDir("merge_failed_tasks");
  std::vector<std::string> loose;
  const std::vector<ScanTask> tasks =
      RunScanTasks(root, dir, 4, loose, /*skip=*/{1}, /*damage=*/{3});
  WriteText(tasks[1].task.output + ".error", "KilledWorker: died\n");
  std::vector<std::string> seen;
  const ClusterScan scan = MergeScanTasks(
      root, ClientPart(root, loose), tasks, [&](const nlohmann::json& j) {
        seen.push_back(j["entries"][0]["relative"]);
        return absl::OkStatus();
      });
  EXPECT_EQ(seen.size(), 2u);  // tasks 0 and 2
  const size_t lost = tasks[1].folders.size() + tasks[3].folders.size();
  ASSERT_EQ(scan.failed.size(), lost);
  EXPECT_THAT(scan.failed[0], HasSubstr(tasks[1].folders[0]));
  EXPECT_THAT(scan.failed[0], HasSubstr("KilledWorker: died"));
  EXPECT_THAT(scan.failed.back(), HasSubstr("not JSON"));
  EXPECT_EQ(scan.tree.problems.size(), lost);
  EXPECT_THAT(scan.tree.problems[0], HasSubstr("was not read: KilledWorker"));
  // What the other tasks found is all there.
  // One run per planned (iteration) folder, and the client's single-op one.
  EXPECT_EQ(scan.tree.runs.size(), 8 - lost + 1);
  // A task the command refuses (`on_shard`) adds nothing either.
  const ClusterScan refused = MergeScanTasks(
      root, ClientPart(root, loose), tasks,
      [](const nlohmann::json&) { return absl::DataLossError("no texts"); });
  EXPECT_EQ(refused.tree.runs.size(), 1u);  // the client's own
  EXPECT_EQ(refused.failed.size(), 8u);
}

TEST(TreeShardTest, ListingsOutsideTheirTaskAreRefused) {
  const std::string root = MakeTree("merge_outside");
  const std::string dir = NewTempDir("merge_outside_tasks");
  std::vector<std::string> loose;
  std::vector<ScanTask> tasks = RunScanTasks(root, dir, 2, loose);
  for (const char* relative :
       {"../elsewhere/x", "/etc/passwd", "20250101120000/./x", ""}) {
    absl::StatusOr<dump::DumpTree> part =
        ScanPart(root, tasks[0].folders.front());
    ASSERT_TRUE(part.ok());
    part->entries.front().relative = relative;
    ASSERT_TRUE(WriteJsonFile(tasks[0].task.output, TreeJson(*part)).ok());
    const ClusterScan scan =
        MergeScanTasks(root, ClientPart(root, loose), tasks);
    ASSERT_EQ(scan.failed.size(), tasks[0].folders.size()) << relative;
    EXPECT_THAT(scan.failed[0], HasSubstr("outside the folders of its task"));
  }
  // Another task's folder is outside too.
  absl::StatusOr<dump::DumpTree> other = ScanPart(root, tasks[1].folders[0]);
  ASSERT_TRUE(other.ok());
  ASSERT_TRUE(WriteJsonFile(tasks[0].task.output, TreeJson(*other)).ok());
  EXPECT_EQ(MergeScanTasks(root, ClientPart(root, loose), tasks).failed.size(),
            tasks[0].folders.size());
}

TEST(TreeShardTest, BadTaskListsAndUnsendableNamesFailTheTask) {
  const std::string root = MakeTree("task_lists");
  const std::string dir = NewTempDir("task_lists_files");
  const auto scan = [&](const std::string& text) {
    WriteText(dir + "/list.json", text);
    return ScanTaskFolders(root, dir + "/list.json").status();
  };
  EXPECT_TRUE(scan(R"(["20250101120000/0/net/1/0"])").ok());
  EXPECT_THAT(scan(R"({"a": 1})").message(), HasSubstr("not a JSON array"));
  EXPECT_THAT(scan("[1]").message(), HasSubstr("not text"));
  EXPECT_EQ(scan(R"(["no/such/folder"])").code(), absl::StatusCode::kNotFound);
  EXPECT_FALSE(ScanTaskFolders(root, dir + "/missing.json").ok());
  // A file name that JSON cannot carry: the task says which.
  WriteText(ModelFolder(root, 0, "net", "20250101120000") + "/r\xe9sum\xe9",
            "x");
  absl::Status latin1 = scan(R"(["20250101120000/0/net/1/0"])");
  EXPECT_EQ(latin1.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(latin1.message(), HasSubstr("is not UTF-8"));
}

TEST(TreeShardTest, TaskFoldersArePrivateAndRemoved) {
  const std::string scratch = NewTempDir("scratch");
  std::string path;
  {
    absl::StatusOr<TaskFolder> folder =
        TaskFolder::Create({"tcp://x:1", scratch}, "ls");
    ASSERT_TRUE(folder.ok()) << folder.status();
    path = folder->path();
    EXPECT_THAT(path, HasSubstr(scratch + "/acldump-ls-"));
    EXPECT_EQ(fs::status(path).permissions() & fs::perms::all,
              fs::perms::owner_all);
    WriteText(path + "/result", "x");
  }
  EXPECT_FALSE(fs::exists(path));
  absl::StatusOr<TaskFolder> nowhere =
      TaskFolder::Create({"tcp://x:1", scratch + "/no/such"}, "ls");
  EXPECT_THAT(nowhere.status().message(), HasSubstr("give --scratch"));
}

TEST(TreeShardTest, TasksSpreadSmallTreesAndCapLargeOnes) {
  EXPECT_EQ(TaskCount(1, 32), 1u);
  EXPECT_EQ(TaskCount(16, 32), 16u);  // a pair each: the cluster is used
  EXPECT_EQ(TaskCount(64, 32), 64u);
  EXPECT_EQ(TaskCount(2400, 32), 75u);  // 32 each
  EXPECT_EQ(TaskCount(1000000, 32), 512u);
  EXPECT_EQ(TaskCount(0, 32), 1u);
}

TEST(TreeShardTest, ShardFilesAreWholeOrAbsent) {
  const std::string dir = NewTempDir("write");
  ASSERT_TRUE(WriteJsonFile(dir + "/x.json", {{"a", 1}}).ok());
  EXPECT_TRUE(fs::exists(dir + "/x.json"));
  absl::Status missing = WriteJsonFile(dir + "/no/such/x.json", {{"a", 1}});
  EXPECT_THAT(missing.message(), HasSubstr("cannot create"));
  EXPECT_EQ(
      std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
}

}  // namespace
}  // namespace acldump::tools
