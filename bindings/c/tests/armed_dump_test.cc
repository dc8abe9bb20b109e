// Dump armed on a loaded model through the C ABI (acldump extensions):
// aclmdlArmDump / aclmdlExecuteWithTag / aclmdlGetArmedDumpCount /
// aclmdlDisarmDump, without aclmdlInitDump or a reload, and their misuse.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "bindings/c/tests/test_models.h"
#include "kernels/npy.h"
#include "nlohmann/json.hpp"

namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kModel[] = "testdata/resnet_tiny.om";

std::string Message() { return aclGetRecentErrMsg(); }

using Io = acldump::testing::ResnetTinyIo;

class ArmedDumpTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(testing::TempDir()) /
           testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "out");
    config_ = (dir_ / "arm.json").string();
    std::ofstream(config_) << R"({"dump":{"dump_path":")"
                           << (dir_ / "out").string()
                           << R"(","dump_mode":"output",)"
                           << R"("dump_list":[{"model_name":"resnet_tiny"}]}})";
    ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
    ASSERT_EQ(aclmdlLoadFromFile(kModel, &id_), ACL_SUCCESS) << Message();
  }
  void TearDown() override { aclFinalize(); }

  // The request.json files below out/, by iteration: their request tags.
  std::map<uint64_t, std::string> Requests() const {
    std::map<uint64_t, std::string> tags;
    for (const auto& entry : fs::recursive_directory_iterator(dir_ / "out")) {
      if (entry.path().filename() != "request.json") continue;
      std::ifstream in(entry.path());
      const nlohmann::json request = nlohmann::json::parse(in);
      tags[request["iteration"].get<uint64_t>()] = request["request_tag"];
    }
    return tags;
  }

  fs::path dir_;
  std::string config_;
  uint32_t id_ = 0;
};

TEST_F(ArmedDumpTest, ArmsATagWithoutInitDumpOrReload) {
  Io io(1.0f);
  ASSERT_EQ(aclmdlExecute(id_, io.in, io.out), ACL_SUCCESS);  // 0
  ASSERT_EQ(aclmdlArmDump(id_, config_.c_str(), "req-7", 1), ACL_SUCCESS)
      << Message();
  uint64_t dumped = 99, remaining = 99;
  ASSERT_EQ(aclmdlGetArmedDumpCount(id_, "req-7", &dumped, &remaining),
            ACL_SUCCESS);
  EXPECT_EQ(dumped, 0u);
  EXPECT_EQ(remaining, 1u);
  EXPECT_EQ(aclmdlExecute(id_, io.in, io.out), ACL_SUCCESS);  // 1: untagged
  EXPECT_EQ(aclmdlExecuteWithTag(id_, "req-6", io.in, io.out), ACL_SUCCESS);
  EXPECT_EQ(aclmdlExecuteWithTag(id_, "req-7", io.in, io.out), ACL_SUCCESS);
  EXPECT_EQ(aclmdlExecuteWithTag(id_, "req-7", io.in, io.out), ACL_SUCCESS);
  ASSERT_EQ(aclmdlGetArmedDumpCount(id_, "req-7", &dumped, &remaining),
            ACL_SUCCESS);
  EXPECT_EQ(dumped, 1u);
  EXPECT_EQ(remaining, 0u);
  ASSERT_EQ(aclmdlDisarmDump(id_, "req-7"), ACL_SUCCESS) << Message();
  EXPECT_THAT(Requests(),
              ElementsAre(std::pair<const uint64_t, std::string>(3, "req-7")));
  EXPECT_EQ(aclmdlGetArmedDumpCount(id_, "req-7", &dumped, &remaining),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_THAT(Message(), HasSubstr("for tag 'req-7' does not exist"));
}

// A dump that lasts keeps only the newest iteration folders.
TEST_F(ArmedDumpTest, KeepIterationsBoundsALongArm) {
  const std::string config = (dir_ / "keep.json").string();
  std::ofstream(config) << R"({"dump":{"dump_path":")"
                        << (dir_ / "out").string()
                        << R"(","dump_keep_iterations":"2",)"
                        << R"("dump_list":[{"model_name":"resnet_tiny"}]}})";
  ASSERT_EQ(aclmdlArmDump(id_, config.c_str(), nullptr, 0), ACL_SUCCESS)
      << Message();
  Io io(3.0f);
  for (int i = 0; i < 5; ++i) {
    ASSERT_EQ(aclmdlExecute(id_, io.in, io.out), ACL_SUCCESS);
  }
  ASSERT_EQ(aclmdlDisarmDump(id_, nullptr), ACL_SUCCESS) << Message();
  EXPECT_THAT(Requests(),
              ElementsAre(std::pair<const uint64_t, std::string>(3, ""),
                          std::pair<const uint64_t, std::string>(4, "")));
  size_t folders = 0;
  for (const auto& entry : fs::recursive_directory_iterator(dir_ / "out")) {
    if (entry.is_directory() &&
        entry.path().parent_path().filename() == std::to_string(id_)) {
      ++folders;
      EXPECT_THAT(entry.path().filename().string(), ::testing::AnyOf("3", "4"));
    }
  }
  EXPECT_EQ(folders, 2u);
}

TEST_F(ArmedDumpTest, UntaggedArmLastsUntilDisarmed) {
  Io io(2.0f);
  ASSERT_EQ(aclmdlArmDump(id_, config_.c_str(), nullptr, 0), ACL_SUCCESS)
      << Message();
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(aclmdlExecuteWithTag(id_, i == 1 ? "some-request" : nullptr,
                                   io.in, io.out),
              ACL_SUCCESS);
  }
  uint64_t dumped = 0, remaining = 0;
  ASSERT_EQ(aclmdlGetArmedDumpCount(id_, "", &dumped, &remaining), ACL_SUCCESS);
  EXPECT_EQ(dumped, 3u);
  EXPECT_EQ(remaining, UINT64_MAX);
  ASSERT_EQ(aclmdlDisarmDump(id_, nullptr), ACL_SUCCESS) << Message();
  EXPECT_EQ(aclmdlExecute(id_, io.in, io.out), ACL_SUCCESS);  // not dumped
  const auto requests = Requests();
  ASSERT_EQ(requests.size(), 3u);
  EXPECT_EQ(requests.at(1), "some-request");
  EXPECT_EQ(requests.at(0), "");
}

// Unloading and aclFinalize close the arms: their files are all written.
TEST_F(ArmedDumpTest, UnloadAndFinalizeFlushTheArms) {
  Io io(3.0f);
  ASSERT_EQ(aclmdlArmDump(id_, config_.c_str(), nullptr, 1), ACL_SUCCESS);
  ASSERT_EQ(aclmdlExecute(id_, io.in, io.out), ACL_SUCCESS);
  ASSERT_EQ(aclmdlUnload(id_), ACL_SUCCESS);
  EXPECT_EQ(Requests().size(), 1u);
  uint32_t second = 0;
  ASSERT_EQ(aclmdlLoadFromFile(kModel, &second), ACL_SUCCESS);
  ASSERT_EQ(aclmdlArmDump(second, config_.c_str(), nullptr, 1), ACL_SUCCESS);
  ASSERT_EQ(aclmdlExecute(second, io.in, io.out), ACL_SUCCESS);
  ASSERT_EQ(aclFinalize(), ACL_SUCCESS);
  // Both executions' files, complete (no temporary file left), under each
  // model's own folder.
  std::vector<std::string> requests;
  size_t files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(dir_ / "out")) {
    if (!entry.is_regular_file()) continue;
    ++files;
    EXPECT_NE(entry.path().extension(), ".tmp") << entry.path();
    if (entry.path().filename() == "request.json") {
      requests.push_back(
          entry.path().parent_path().parent_path().filename().string());
    }
  }
  std::sort(requests.begin(), requests.end());
  EXPECT_THAT(requests,
              ElementsAre(std::to_string(id_), std::to_string(second)));
  EXPECT_GT(files, 2u);
}

// A byte budget drops records deterministically: the counts are queryable
// while the arm is open, and the arm's close reports them beside the files.
TEST_F(ArmedDumpTest, DroppedRecordsAreCountedAndReported) {
  Io io(5.0f);
  uint64_t records = 1, bytes = 1, iterations = 1;
  ASSERT_EQ(aclmdlGetDumpDropCount(id_, &records, &bytes, &iterations),
            ACL_SUCCESS);
  EXPECT_EQ(records + bytes + iterations, 0u);
  const std::string budget = (dir_ / "budget.json").string();
  std::ofstream(budget) << R"({"dump":{"dump_path":")"
                        << (dir_ / "out").string()
                        << R"(","dump_mode":"output","dump_max_bytes":"20000",)"
                        << R"("dump_list":[{"model_name":"resnet_tiny"}]}})";
  ASSERT_EQ(aclmdlArmDump(id_, budget.c_str(), nullptr, 0), ACL_SUCCESS)
      << Message();
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(aclmdlExecute(id_, io.in, io.out), ACL_SUCCESS);
  }
  ASSERT_EQ(aclmdlGetDumpDropCount(id_, &records, &bytes, nullptr),
            ACL_SUCCESS);
  EXPECT_GT(records, 0u);
  EXPECT_GT(bytes, 0u);
  ASSERT_EQ(aclmdlDisarmDump(id_, nullptr), ACL_SUCCESS) << Message();
  bool reported = false;
  for (const auto& entry : fs::recursive_directory_iterator(dir_ / "out")) {
    if (entry.path().filename() != "dump_dropped.json") continue;
    std::ifstream in(entry.path());
    const nlohmann::json report = nlohmann::json::parse(in);
    EXPECT_EQ(report["over_byte_budget"], records);
    EXPECT_EQ(report["by_model"][std::to_string(id_)]["bytes"], bytes);
    reported = true;
  }
  EXPECT_TRUE(reported);
  EXPECT_EQ(aclmdlGetDumpDropCount(id_ + 100, &records, &bytes, &iterations),
            ACL_ERROR_INVALID_MODEL_ID);
}

TEST_F(ArmedDumpTest, FinalizeInBackgroundThenWait) {
  Io io(6.0f);
  EXPECT_EQ(aclmdlFinalizeDumpInBackground(), ACL_ERROR_DUMP_NOT_RUN);
  EXPECT_THAT(Message(), HasSubstr("needs aclmdlInitDump first"));
  ASSERT_EQ(aclmdlInitDump(), ACL_SUCCESS);
  ASSERT_EQ(aclmdlSetDump(config_.c_str()), ACL_SUCCESS) << Message();
  uint32_t dumped = 0;
  ASSERT_EQ(aclmdlLoadFromFile(kModel, &dumped), ACL_SUCCESS);
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(aclmdlExecute(dumped, io.in, io.out), ACL_SUCCESS);
  }
  ASSERT_EQ(aclmdlFinalizeDumpInBackground(), ACL_SUCCESS) << Message();
  // The dump has ended: a new one may start at once.
  ASSERT_EQ(aclmdlInitDump(), ACL_SUCCESS) << Message();
  ASSERT_EQ(aclmdlWaitDumpFinalized(-1), ACL_SUCCESS) << Message();
  size_t files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(dir_ / "out")) {
    if (!entry.is_regular_file()) continue;
    ++files;
    EXPECT_NE(entry.path().extension(), ".tmp") << entry.path();
  }
  EXPECT_GT(files, 3u);
  EXPECT_EQ(aclmdlWaitDumpFinalized(0), ACL_SUCCESS);  // nothing pending
  EXPECT_EQ(aclmdlWaitDumpFinalized(-2), ACL_ERROR_INVALID_PARAM);
  EXPECT_THAT(Message(), HasSubstr("timeoutMs is -2"));
  ASSERT_EQ(aclmdlFinalizeDump(), ACL_SUCCESS);
}

TEST_F(ArmedDumpTest, MisuseGivesClearErrors) {
  Io io(4.0f);
  EXPECT_EQ(aclmdlArmDump(id_ + 100, config_.c_str(), nullptr, 1),
            ACL_ERROR_INVALID_MODEL_ID);
  EXPECT_THAT(Message(), HasSubstr("is not loaded"));
  uint64_t dumped = 0, left = 0;
  EXPECT_EQ(aclmdlDisarmDump(id_ + 100, nullptr), ACL_ERROR_INVALID_MODEL_ID);
  EXPECT_EQ(aclmdlGetArmedDumpCount(id_ + 100, nullptr, &dumped, &left),
            ACL_ERROR_INVALID_MODEL_ID);
  EXPECT_EQ(aclmdlExecuteWithTag(id_ + 100, "t", io.in, io.out),
            ACL_ERROR_INVALID_MODEL_ID);
  EXPECT_THAT(Message(), HasSubstr("is not loaded"));
  EXPECT_EQ(aclmdlDisarmDump(id_, "bad\ttag"), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclmdlArmDump(id_, nullptr, nullptr, 1), ACL_ERROR_INVALID_PARAM);
  EXPECT_THAT(Message(), HasSubstr("dumpCfgPath"));
  EXPECT_EQ(aclmdlArmDump(id_, (dir_ / "missing.json").c_str(), nullptr, 1),
            ACL_ERROR_INVALID_FILE);
  EXPECT_EQ(aclmdlArmDump(id_, config_.c_str(), "bad\ntag", 1),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_THAT(Message(), HasSubstr("printable ASCII (10 at offset 3)"));
  const std::string long_tag(129, 'x');
  EXPECT_EQ(aclmdlExecuteWithTag(id_, long_tag.c_str(), io.in, io.out),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_THAT(Message(), HasSubstr("longer than 128 bytes"));
  EXPECT_EQ(aclmdlDisarmDump(id_, nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_THAT(Message(), HasSubstr("is not armed"));
  uint64_t count = 0;
  EXPECT_EQ(aclmdlGetArmedDumpCount(id_, nullptr, nullptr, &count),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_THAT(Message(), HasSubstr("dumped"));
  // A config that dumps another model arms nothing.
  const std::string other = (dir_ / "other.json").string();
  std::ofstream(other) << R"({"dump":{"dump_path":")" << (dir_ / "out").string()
                       << R"(","dump_list":[{"model_name":"another"}]}})";
  EXPECT_EQ(aclmdlArmDump(id_, other.c_str(), nullptr, 1),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_THAT(Message(), HasSubstr("selects nothing of model"));
  ASSERT_EQ(aclmdlExecute(id_, io.in, io.out), ACL_SUCCESS);
  EXPECT_TRUE(Requests().empty());
}

}  // namespace
