// The flight recorder through the C ABI (acldump extensions):
// aclmdlStartRecorder / aclmdlTriggerRecorder / aclmdlWaitRecorder /
// aclmdlGetRecorderCount / aclmdlGetRecorderLastReport / aclmdlStopRecorder:
// a planted NaN, a failed execution, a call and SIGUSR2 each write the ring
// and a replay that reproduces the execution bit for bit; and their misuse.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "bindings/c/tests/test_models.h"
#include "kernels/npy.h"
#include "nlohmann/json.hpp"
#include "runtime/graph.h"
#include "runtime/model_file.h"

namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr char kModel[] = "testdata/resnet_tiny.om";

std::string Message() { return aclGetRecentErrMsg(); }

using Io = acldump::testing::ResnetTinyIo;

nlohmann::json ReadJson(const fs::path& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

std::vector<std::string> FilesUnder(const fs::path& dir) {
  std::vector<std::string> files;
  if (!fs::exists(dir)) return files;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.is_regular_file()) {
      files.push_back(fs::relative(entry.path(), dir).string());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

class RecorderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(testing::TempDir()) /
           testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "out");
    config_ = WriteConfig("replay.json", "");
    ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
    ASSERT_EQ(aclmdlLoadFromFile(kModel, &id_), ACL_SUCCESS) << Message();
  }
  void TearDown() override { aclFinalize(); }

  // A dump config writing every output's tensors into out/, with `extra`
  // keys.
  std::string WriteConfig(const std::string& name, const std::string& extra) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path) << R"({"dump":{"dump_path":")"
                        << (dir_ / "out").string()
                        << R"(","dump_mode":"output",)" << extra
                        << R"("dump_list":[{}]}})";
    return path;
  }

  // The latest report's folder.
  fs::path LastReport(int32_t* reproduced, uint32_t id = 0) {
    if (id == 0) id = id_;
    EXPECT_EQ(aclmdlGetRecorderLastReport(id, reproduced, nullptr), ACL_SUCCESS)
        << Message();
    const char* path = aclmdlGetRecorderReportDir(id);
    EXPECT_NE(path, nullptr) << Message();
    return path == nullptr ? fs::path() : fs::path(path);
  }

  struct Counts {
    uint64_t recorded = 0, triggers = 0, reports = 0, reproduced = 0,
             skipped = 0;
  };
  Counts GetCounts() {
    Counts c;
    EXPECT_EQ(aclmdlGetRecorderCount(id_, &c.recorded, &c.triggers, &c.reports,
                                     &c.reproduced, &c.skipped),
              ACL_SUCCESS)
        << Message();
    return c;
  }

  fs::path dir_;
  std::string config_;
  uint32_t id_ = 0;
};

TEST_F(RecorderTest, PlantedNanIsWrittenAndReplayedBitForBit) {
  ASSERT_EQ(
      aclmdlStartRecorder(id_, config_.c_str(), 3,
                          ACL_RECORDER_DEFAULT | ACL_RECORDER_OPERATOR_STATS),
      ACL_SUCCESS)
      << Message();
  for (float first : {1.0f, 2.0f, 3.0f, 4.0f}) {
    Io io(first);
    ASSERT_EQ(aclmdlExecute(id_, io.in, io.out), ACL_SUCCESS);
  }
  ASSERT_EQ(aclmdlWaitRecorder(id_, -1), ACL_SUCCESS) << Message();
  // Nothing went wrong: nothing is written.
  EXPECT_TRUE(FilesUnder(dir_ / "out").empty());
  Counts counts = GetCounts();
  EXPECT_EQ(counts.recorded, 4u);
  EXPECT_EQ(counts.triggers, 0u);

  Io bad(std::numeric_limits<float>::quiet_NaN());
  ASSERT_EQ(aclmdlExecute(id_, bad.in, bad.out), ACL_SUCCESS);  // iteration 4
  ASSERT_TRUE(std::isnan(bad.prob[0]));
  ASSERT_EQ(aclmdlWaitRecorder(id_, 60000), ACL_SUCCESS) << Message();
  counts = GetCounts();
  EXPECT_EQ(counts.recorded, 5u);
  EXPECT_EQ(counts.triggers, 1u);
  EXPECT_EQ(counts.reports, 1u);
  EXPECT_EQ(counts.reproduced, 1u);
  int32_t reproduced = -1;
  const fs::path report = LastReport(&reproduced);
  EXPECT_EQ(reproduced, 1);
  EXPECT_THAT(report.string(), StartsWith((dir_ / "out").string()));

  const nlohmann::json summary = ReadJson(report / "recorder.json");
  EXPECT_EQ(summary["model_id"], id_);
  // With operator statistics, the first operator that made a NaN is named.
  EXPECT_EQ(summary["trigger"]["kind"], "non_finite_operator");
  EXPECT_EQ(summary["trigger"]["iteration"], 4);
  EXPECT_THAT(summary["trigger"]["detail"].get<std::string>(),
              HasSubstr("holds"));
  // The ring: the last three executions, oldest first.
  ASSERT_EQ(summary["executions"].size(), 3u);
  EXPECT_EQ(summary["executions"][0]["iteration"], 2);
  EXPECT_EQ(summary["executions"][2]["iteration"], 4);
  EXPECT_EQ(summary["executions"][2]["outputs"][1]["name"], "prob");
  EXPECT_EQ(summary["executions"][2]["outputs"][1]["nan"], 10);
  EXPECT_EQ(summary["executions"][1]["outputs"][1]["nan"], 0);
  // Each execution's input, as it was.
  for (int k = 0; k < 3; ++k) {
    const nlohmann::json& entry = summary["executions"][k];
    auto input = acldump::ReadNpyFile(
        (report / entry["inputs"][0].get<std::string>()).string());
    ASSERT_TRUE(input.ok()) << input.status();
    Io expected(k == 2 ? std::numeric_limits<float>::quiet_NaN()
                       : static_cast<float>(k + 3));
    ASSERT_EQ(input->ByteSize(), expected.input.size() * sizeof(float));
    EXPECT_EQ(
        std::memcmp(input->data(), expected.input.data(), input->ByteSize()),
        0);
    EXPECT_TRUE(
        fs::exists(report / entry["operator_stats"].get<std::string>()));
  }
  // The replay reproduced the outputs and dumped every output of it.
  const nlohmann::json& replay = summary["replay"];
  EXPECT_TRUE(replay["replayed"]);
  EXPECT_TRUE(replay["reproduced"]);
  EXPECT_EQ(replay["iteration"], 5);
  EXPECT_THAT(replay["detail"].get<std::string>(), HasSubstr("bit-identical"));
  // {time folder}/0/resnet_tiny/{id}/recorder/trigger_4
  EXPECT_EQ(report.filename(), "trigger_4");
  const fs::path time_folder = report.parent_path()
                                   .parent_path()
                                   .parent_path()
                                   .parent_path()
                                   .parent_path();
  const fs::path replay_dir =
      time_folder / replay["dump_folder"].get<std::string>() / "5";
  const std::vector<std::string> dumped = FilesUnder(replay_dir);
  EXPECT_GT(dumped.size(), 3u) << ::testing::PrintToString(dumped);
  std::ifstream stats(report / "iteration_4" / "operator_stats.csv");
  std::string header;
  std::getline(stats, header);
  EXPECT_THAT(header, StartsWith("Op Name,Op Type,Task,Input/Output,"));

  ASSERT_EQ(aclmdlStopRecorder(id_), ACL_SUCCESS) << Message();
  EXPECT_EQ(aclmdlStopRecorder(id_), ACL_ERROR_INVALID_PARAM);
  EXPECT_THAT(Message(), HasSubstr("has no recorder"));
}

TEST_F(RecorderTest, CallReplaysTheNewestExecution) {
  ASSERT_EQ(aclmdlStartRecorder(id_, config_.c_str(), 2, 0), ACL_SUCCESS)
      << Message();
  int32_t reproduced = -1;
  EXPECT_EQ(aclmdlTriggerRecorder(id_, "before any", &reproduced),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_THAT(Message(), HasSubstr("holds no execution"));
  EXPECT_EQ(aclmdlGetRecorderReportDir(id_), nullptr);
  EXPECT_THAT(Message(), HasSubstr("has written no report yet"));
  Io io(5.0f);
  ASSERT_EQ(aclmdlExecute(id_, io.in, io.out), ACL_SUCCESS);
  ASSERT_EQ(aclmdlExecuteWithTag(id_, "req-9", io.in, io.out), ACL_SUCCESS);
  ASSERT_EQ(aclmdlTriggerRecorder(id_, nullptr, nullptr), ACL_SUCCESS);
  const fs::path first = LastReport(&reproduced);
  // The ring starts over after a report.
  ASSERT_EQ(aclmdlExecuteWithTag(id_, "req-10", io.in, io.out), ACL_SUCCESS);
  reproduced = -1;
  ASSERT_EQ(aclmdlTriggerRecorder(id_, "user asked", &reproduced), ACL_SUCCESS)
      << Message();
  EXPECT_EQ(reproduced, 1);
  uint64_t trigger_iteration = 0;
  ASSERT_EQ(aclmdlGetRecorderLastReport(id_, nullptr, &trigger_iteration),
            ACL_SUCCESS);
  EXPECT_EQ(trigger_iteration, 3u);
  const fs::path path = LastReport(&reproduced);
  EXPECT_NE(path, first);
  const nlohmann::json summary = ReadJson(path / "recorder.json");
  EXPECT_EQ(summary["trigger"]["kind"], "call");
  EXPECT_EQ(summary["trigger"]["detail"], "user asked");
  // Iteration 2 was the first call's replay.
  EXPECT_EQ(summary["trigger"]["iteration"], 3);
  ASSERT_EQ(summary["executions"].size(), 1u);
  EXPECT_EQ(summary["executions"][0]["request_tag"], "req-10");
  EXPECT_EQ(summary["replay"]["iteration"], 4);
  // Without operator statistics there is no operator_stats.csv.
  EXPECT_FALSE(summary["executions"][0].contains("operator_stats"));
  const Counts counts = GetCounts();
  EXPECT_EQ(counts.triggers, 3u);
  EXPECT_EQ(counts.reports, 2u);
  EXPECT_EQ(counts.skipped, 1u);
  // The replays are not recorded.
  EXPECT_EQ(counts.recorded, 3u);
}

// A failed execution: its replay fails the same way, which reproduces it.
TEST_F(RecorderTest, FailedExecutionIsReplayed) {
  const std::string model = acldump::testing::GatherModel();
  uint32_t id = 0;
  ASSERT_EQ(aclmdlLoadFromMem(model.data(), model.size(), &id), ACL_SUCCESS);
  ASSERT_EQ(aclmdlStartRecorder(id, config_.c_str(), 4, ACL_RECORDER_DEFAULT),
            ACL_SUCCESS)
      << Message();
  float data[4] = {1, 2, 3, 4}, y = 0;
  int64_t index = 2;
  aclmdlDataset* in = aclmdlCreateDataset();
  aclmdlDataset* out = aclmdlCreateDataset();
  aclDataBuffer* buffers[] = {aclCreateDataBuffer(data, sizeof(data)),
                              aclCreateDataBuffer(&index, sizeof(index)),
                              aclCreateDataBuffer(&y, sizeof(y))};
  aclmdlAddDatasetBuffer(in, buffers[0]);
  aclmdlAddDatasetBuffer(in, buffers[1]);
  aclmdlAddDatasetBuffer(out, buffers[2]);
  EXPECT_EQ(aclmdlExecute(id, in, out), ACL_SUCCESS);
  index = 7;
  EXPECT_EQ(aclmdlExecute(id, in, out), ACL_ERROR_FAILURE);
  ASSERT_EQ(aclmdlWaitRecorder(id, 60000), ACL_SUCCESS) << Message();
  int32_t reproduced = -1;
  const fs::path path = LastReport(&reproduced, id);
  EXPECT_EQ(reproduced, 1);
  const nlohmann::json summary = ReadJson(path / "recorder.json");
  EXPECT_EQ(summary["trigger"]["kind"], "execution_error");
  EXPECT_THAT(summary["trigger"]["detail"].get<std::string>(),
              HasSubstr("gather"));
  ASSERT_EQ(summary["executions"].size(), 2u);
  EXPECT_EQ(summary["executions"][0]["status"], "ok");
  EXPECT_THAT(summary["replay"]["detail"].get<std::string>(),
              HasSubstr("the replay failed as the execution did"));
  auto index_file =
      acldump::ReadNpyFile((path / "iteration_1" / "input_1.npy").string());
  ASSERT_TRUE(index_file.ok()) << index_file.status();
  EXPECT_EQ(*static_cast<const int64_t*>(index_file->data()), 7);
  for (aclDataBuffer* buffer : buffers) aclDestroyDataBuffer(buffer);
  aclmdlDestroyDataset(in);
  aclmdlDestroyDataset(out);
  EXPECT_EQ(aclmdlUnload(id), ACL_SUCCESS);
}

// A dynamic-batch model: each execution is recorded with its gear, and the
// replay runs the same gear again.
TEST_F(RecorderTest, GearedModelIsReplayedOnItsGear) {
  uint32_t id = 0;
  ASSERT_EQ(aclmdlLoadFromFile("testdata/ocr_tiny_batch.om", &id), ACL_SUCCESS)
      << Message();  // gears 1, 2, 4
  ASSERT_EQ(aclmdlStartRecorder(id, config_.c_str(), 4, ACL_RECORDER_DEFAULT),
            ACL_SUCCESS)
      << Message();
  aclmdlDesc* desc = aclmdlCreateDesc();
  ASSERT_EQ(aclmdlGetDesc(desc, id), ACL_SUCCESS);
  std::vector<std::vector<float>> memory;
  aclmdlDataset* in = aclmdlCreateDataset();
  aclmdlDataset* out = aclmdlCreateDataset();
  auto add = [&](aclmdlDataset* dataset, size_t size) {
    memory.emplace_back((size + 3) / 4, 0.5f);
    aclmdlAddDatasetBuffer(dataset,
                           aclCreateDataBuffer(memory.back().data(), size));
  };
  for (size_t i = 0; i < aclmdlGetNumInputs(desc); ++i)
    add(in, aclmdlGetInputSizeByIndex(desc, i));
  for (size_t i = 0; i < aclmdlGetNumOutputs(desc); ++i)
    add(out, aclmdlGetOutputSizeByIndex(desc, i));
  for (size_t i = 0; i < memory[0].size(); ++i) memory[0][i] = 0.001f * i;
  ASSERT_EQ(aclmdlSetDynamicBatchSize(id, in, 1, 4), ACL_SUCCESS) << Message();
  ASSERT_EQ(aclmdlExecute(id, in, out), ACL_SUCCESS) << Message();
  ASSERT_EQ(aclmdlSetDynamicBatchSize(id, in, 1, 2), ACL_SUCCESS) << Message();
  ASSERT_EQ(aclmdlExecute(id, in, out), ACL_SUCCESS) << Message();
  int32_t reproduced = -1;
  ASSERT_EQ(aclmdlTriggerRecorder(id, "gear", &reproduced), ACL_SUCCESS)
      << Message();
  EXPECT_EQ(reproduced, 1);
  const fs::path report = LastReport(&reproduced, id);
  const nlohmann::json summary = ReadJson(report / "recorder.json");
  ASSERT_EQ(summary["executions"].size(), 2u);
  EXPECT_EQ(summary["executions"][0]["gear"], 2);  // batch 4
  EXPECT_EQ(summary["executions"][1]["gear"], 1);  // batch 2
  EXPECT_THAT(summary["executions"][1]["outputs"][0]["type"].get<std::string>(),
              StartsWith("float32[2,"));
  // The input as the gear read it: two samples.
  auto input = acldump::ReadNpyFile(
      (report / summary["executions"][1]["inputs"][0].get<std::string>())
          .string());
  ASSERT_TRUE(input.ok()) << input.status();
  EXPECT_EQ(input->shape().dims()[0], 2);
  EXPECT_EQ(std::memcmp(input->data(), memory[0].data(), input->ByteSize()), 0);
  EXPECT_TRUE(summary["replay"]["reproduced"]);
  for (aclmdlDataset* dataset : {in, out}) {
    for (size_t i = 0; i < aclmdlGetDatasetNumBuffers(dataset); ++i)
      aclDestroyDataBuffer(aclmdlGetDatasetBuffer(dataset, i));
    aclmdlDestroyDataset(dataset);
  }
  aclmdlDestroyDesc(desc);
  EXPECT_EQ(aclmdlUnload(id), ACL_SUCCESS);
}

// Names and reasons are bytes: a reason that is not UTF-8 is written with
// replacement characters, never a failure.
TEST_F(RecorderTest, ReasonThatIsNotUtf8IsWrittenReplaced) {
  ASSERT_EQ(aclmdlStartRecorder(id_, config_.c_str(), 1, 0), ACL_SUCCESS)
      << Message();
  Io io(7.0f);
  ASSERT_EQ(aclmdlExecute(id_, io.in, io.out), ACL_SUCCESS);
  int32_t reproduced = -1;
  ASSERT_EQ(aclmdlTriggerRecorder(id_, "bad \xff\xfe bytes", &reproduced),
            ACL_SUCCESS)
      << Message();
  EXPECT_EQ(reproduced, 1);
  const nlohmann::json summary =
      ReadJson(LastReport(&reproduced) / "recorder.json");
  EXPECT_EQ(summary["trigger"]["detail"], "bad \ufffd\ufffd bytes");
}

TEST_F(RecorderTest, SignalTriggersAReport) {
  ASSERT_EQ(
      aclmdlStartRecorder(id_, config_.c_str(), 2, ACL_RECORDER_TRIGGER_SIGNAL),
      ACL_SUCCESS)
      << Message();
  Io io(6.0f);
  ASSERT_EQ(aclmdlExecute(id_, io.in, io.out), ACL_SUCCESS);
  ASSERT_EQ(std::raise(SIGUSR2), 0);
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (GetCounts().reports == 0 &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_EQ(aclmdlWaitRecorder(id_, -1), ACL_SUCCESS) << Message();
  int32_t reproduced = -1;
  const nlohmann::json summary =
      ReadJson(LastReport(&reproduced) / "recorder.json");
  EXPECT_EQ(reproduced, 1);
  EXPECT_EQ(summary["trigger"]["kind"], "signal");
  EXPECT_EQ(aclmdlUnload(id_), ACL_SUCCESS);
  // The previous disposition is back once no recorder listens.
  struct sigaction now {};
  ASSERT_EQ(sigaction(SIGUSR2, nullptr, &now), 0);
  EXPECT_EQ(now.sa_handler, SIG_DFL);
}

// Executions on several threads while reports are written: every execution
// is recorded once, every report reproduces its execution.
TEST_F(RecorderTest, ConcurrentExecutionsAndTriggers) {
  ASSERT_EQ(aclmdlStartRecorder(id_, config_.c_str(), 8, ACL_RECORDER_DEFAULT),
            ACL_SUCCESS)
      << Message();
  constexpr int kThreads = 4, kRuns = 25;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int r = 0; r < kRuns; ++r) {
        Io io(static_cast<float>(t * 100 + r));
        EXPECT_EQ(aclmdlExecute(id_, io.in, io.out), ACL_SUCCESS);
      }
    });
  }
  int reports = 0;
  for (int k = 0; k < 5; ++k) {
    int32_t reproduced = -1;
    const aclError e = aclmdlTriggerRecorder(id_, "probe", &reproduced);
    if (e == ACL_SUCCESS) {
      ++reports;
      EXPECT_EQ(reproduced, 1);
    } else {
      EXPECT_EQ(e, ACL_ERROR_INVALID_PARAM) << Message();
    }
  }
  for (std::thread& thread : threads) thread.join();
  const Counts counts = GetCounts();
  EXPECT_EQ(counts.recorded, uint64_t{kThreads * kRuns});
  EXPECT_EQ(counts.reports, static_cast<uint64_t>(reports));
  EXPECT_EQ(counts.reproduced, counts.reports);
}

TEST_F(RecorderTest, Misuse) {
  EXPECT_EQ(aclmdlStartRecorder(999, config_.c_str(), 4, 0),
            ACL_ERROR_INVALID_MODEL_ID);
  EXPECT_EQ(aclmdlStartRecorder(id_, nullptr, 4, 0), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclmdlStartRecorder(id_, config_.c_str(), 0, 0),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_THAT(Message(), HasSubstr("keeps 1 to 1024 executions, not 0"));
  EXPECT_EQ(aclmdlStartRecorder(id_, config_.c_str(), 1025, 0),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclmdlStartRecorder(id_, config_.c_str(), 4, 0x100),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_THAT(Message(), HasSubstr("unknown bits (256)"));
  const std::string stepped = WriteConfig("step.json", R"("dump_step":"0",)");
  EXPECT_EQ(aclmdlStartRecorder(id_, stepped.c_str(), 4, 0),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_THAT(Message(), HasSubstr("leave dump_step out"));
  EXPECT_EQ(aclmdlStartRecorder(id_, "/nonexistent.json", 4, 0),
            ACL_ERROR_INVALID_FILE);
  EXPECT_EQ(aclmdlStopRecorder(id_), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclmdlTriggerRecorder(id_, nullptr, nullptr),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclmdlWaitRecorder(id_, -2), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(
      aclmdlGetRecorderCount(id_, nullptr, nullptr, nullptr, nullptr, nullptr),
      ACL_ERROR_INVALID_PARAM);
  ASSERT_EQ(aclmdlStartRecorder(id_, config_.c_str(), 4, 0), ACL_SUCCESS);
  EXPECT_EQ(aclmdlStartRecorder(id_, config_.c_str(), 4, 0),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_THAT(Message(), HasSubstr("already has a recorder"));
  EXPECT_EQ(aclmdlGetRecorderLastReport(id_, nullptr, nullptr),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_THAT(Message(), HasSubstr("has written no report yet"));
  // Arms and the recorder live side by side; unload ends both.
  ASSERT_EQ(aclmdlArmDump(id_, config_.c_str(), "t", 1), ACL_SUCCESS);
  ASSERT_EQ(aclmdlDisarmDump(id_, nullptr), ACL_SUCCESS);
  Io io(1.0f);
  ASSERT_EQ(aclmdlExecute(id_, io.in, io.out), ACL_SUCCESS);
  EXPECT_EQ(GetCounts().recorded, 1u);
  EXPECT_EQ(aclmdlUnload(id_), ACL_SUCCESS);
  EXPECT_EQ(aclmdlStopRecorder(id_), ACL_ERROR_INVALID_MODEL_ID);
}

}  // namespace
