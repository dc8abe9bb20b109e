// The C ABI and `dump check-config` load a model through the same loader: for
// a dynamic model, the files check-config predicts per gear are the files a
// run through aclmdlLoadFromFile writes at that gear, operator for operator.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "dump/format/dump_tree.h"
#include "tools/run/check_config.h"

namespace acldump::tools {
namespace {

namespace fs = std::filesystem;

constexpr char kBatchModel[] = "testdata/ocr_tiny_batch.om";  // gears 1, 2, 4

struct Io {
  aclmdlDesc* desc = aclmdlCreateDesc();
  aclmdlDataset* in = aclmdlCreateDataset();
  aclmdlDataset* out = aclmdlCreateDataset();
  std::vector<std::vector<std::byte>> memory;

  explicit Io(uint32_t id) {
    EXPECT_EQ(aclmdlGetDesc(desc, id), ACL_SUCCESS) << aclGetRecentErrMsg();
    for (size_t i = 0; i < aclmdlGetNumInputs(desc); ++i)
      Add(in, aclmdlGetInputSizeByIndex(desc, i));
    for (size_t i = 0; i < aclmdlGetNumOutputs(desc); ++i)
      Add(out, aclmdlGetOutputSizeByIndex(desc, i));
  }
  ~Io() {
    for (aclmdlDataset* dataset : {in, out}) {
      for (size_t i = 0; i < aclmdlGetDatasetNumBuffers(dataset); ++i)
        aclDestroyDataBuffer(aclmdlGetDatasetBuffer(dataset, i));
      aclmdlDestroyDataset(dataset);
    }
    aclmdlDestroyDesc(desc);
  }
  void Add(aclmdlDataset* dataset, size_t size) {
    memory.emplace_back(size);
    aclmdlAddDatasetBuffer(dataset,
                           aclCreateDataBuffer(memory.back().data(), size));
  }
};

// The operator names of each iteration's files.
std::map<int64_t, std::multiset<std::string>> DumpedOps(const fs::path& root) {
  absl::StatusOr<dump::DumpTree> tree = dump::ScanDumpTree(root.string());
  EXPECT_TRUE(tree.ok()) << tree.status();
  std::map<int64_t, std::multiset<std::string>> ops;
  for (const dump::DumpRun& run : tree->runs) {
    for (const dump::DumpEntry* file : run.files) {
      ops[run.iteration].insert(file->name->op_name);
    }
  }
  return ops;
}

class LoadPathTest : public ::testing::TestWithParam<const char*> {};

TEST_P(LoadPathTest, CheckConfigPredictsWhatTheApiDumpsAtEveryGear) {
  const fs::path dir =
      fs::path(testing::TempDir()) /
      (GetParam()[0] == '\0' ? "load_path_all" : "load_path_some");
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string config = (dir / "acl.json").string();
  std::ofstream(config) << R"({"dump": {"dump_path": ")" << dir.string()
                        << R"(", "dump_list": [{"model_name": )"
                        << R"("ocr_tiny_batch")" << GetParam() << "}]}}";

  absl::StatusOr<ConfigCheck> check = CheckConfig(config, kBatchModel);
  ASSERT_TRUE(check.ok()) << check.status();
  ASSERT_TRUE(check->valid) << check->report;
  ASSERT_TRUE(check->plan.has_value());
  const ModelPlan& plan = *check->plan;
  ASSERT_TRUE(plan.selected) << check->report;
  EXPECT_EQ(plan.gear, "batch [4]");
  ASSERT_EQ(plan.gears.size(), 3u);
  EXPECT_THAT(check->report,
              ::testing::HasSubstr("dynamic model with 3 gears"));

  // The same model and config through the C ABI, one iteration per gear.
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  ASSERT_EQ(aclmdlInitDump(), ACL_SUCCESS);
  ASSERT_EQ(aclmdlSetDump(config.c_str()), ACL_SUCCESS) << aclGetRecentErrMsg();
  uint32_t id = 0;
  ASSERT_EQ(aclmdlLoadFromFile(kBatchModel, &id), ACL_SUCCESS)
      << aclGetRecentErrMsg();
  const uint64_t batches[] = {1, 2, 4};  // the model's gear order
  {
    Io io(id);
    for (uint64_t batch : batches) {
      ASSERT_EQ(aclmdlSetDynamicBatchSize(id, io.in, 1, batch), ACL_SUCCESS);
      ASSERT_EQ(aclmdlExecute(id, io.in, io.out), ACL_SUCCESS)
          << aclGetRecentErrMsg();
    }
  }
  ASSERT_EQ(aclmdlFinalizeDump(), ACL_SUCCESS) << aclGetRecentErrMsg();
  aclmdlUnload(id);
  aclFinalize();

  const auto dumped = DumpedOps(dir);
  ASSERT_EQ(dumped.size(), 3u);
  for (size_t g = 0; g < 3; ++g) {
    SCOPED_TRACE(plan.gears[g].gear);
    EXPECT_EQ(plan.gears[g].gear, "batch [" + std::to_string(batches[g]) + "]");
    EXPECT_EQ(dumped.at(g).size(), plan.gears[g].files_per_iteration);
  }
  // The table (the largest gear's) names the files of the gear-4 iteration.
  std::multiset<std::string> predicted;
  for (const PlanRow& row : plan.rows) predicted.insert(row.op);
  EXPECT_EQ(dumped.at(2), predicted);
  fs::remove_all(dir);
}

// Every operator, and a layer list that selects two of them.
INSTANTIATE_TEST_SUITE_P(Configs, LoadPathTest,
                         ::testing::Values("", R"(, "layer": ["x", "prob"])"),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                           return std::string(info.param[0] == '\0'
                                                  ? "every_operator"
                                                  : "layers");
                         });

}  // namespace
}  // namespace acldump::tools
