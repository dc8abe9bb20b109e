// Dump armed on a loaded model: no reload, a count of executions, request
// tags under concurrent executions, beside what the model's load attached.
#include "dump/armed_dump.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <thread>

#include "base/error_kind.h"
#include "dump/dump_manager.h"
#include "dump/format/dump_file.h"
#include "dump/testing/model_runs.h"
#include "kernels/npy.h"
#include "nlohmann/json.hpp"
#include "runtime/request_tag.h"

namespace acldump::dump {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr char kResnet[] = "testdata/resnet_tiny.om";

class ArmedDumpTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = TempDir(
        ::testing::UnitTest::GetInstance()->current_test_info()->name());
  }
  // A config dumping into dir/<name>.
  std::string Config(const std::string& name, const std::string& body) {
    const std::string path = dir_ + "/" + name;
    fs::create_directories(path);
    const std::string config_dir = dir_ + "/config_" + name;
    fs::create_directories(config_dir);
    return WriteConfig(
        config_dir, R"({"dump":{"dump_path":")" + path + "\"," + body + "}}");
  }
  // Per iteration folder below dir/<name>: the files in it.
  std::map<uint64_t, std::vector<std::string>> Iterations(
      const std::string& name, uint32_t model_id) {
    std::map<uint64_t, std::vector<std::string>> out;
    const std::regex pattern("[0-9]{14}/0/resnet_tiny/" +
                             std::to_string(model_id) + "/([0-9]+)/(.+)");
    for (const std::string& file : FilesUnder(dir_ + "/" + name)) {
      std::smatch m;
      EXPECT_TRUE(std::regex_match(file, m, pattern)) << file;
      out[std::stoull(m[1].str())].push_back(m[2].str());
    }
    return out;
  }
  // The request.json of an iteration.
  nlohmann::json RequestFile(const std::string& name, uint32_t model_id,
                             uint64_t iteration) {
    for (const std::string& file : FilesUnder(dir_ + "/" + name)) {
      if (file.ends_with(
              StrCat("/", model_id, "/", iteration, "/", kRequestFileName))) {
        std::ifstream in(dir_ + "/" + name + "/" + file);
        return nlohmann::json::parse(in);
      }
    }
    ADD_FAILURE() << "no request file for iteration " << iteration;
    return {};
  }
  static std::string StrCat(const auto&... parts) {
    std::ostringstream out;
    (out << ... << parts);
    return out.str();
  }

  std::string dir_;
  ModelRegistry registry_;
};

TEST_F(ArmedDumpTest, ArmingTakesEffectOnTheNextExecutionAndStopsAfterN) {
  DumpManager manager;
  Loaded loaded = Load(manager, registry_, kResnet);
  ASSERT_TRUE(loaded.attach_status.ok());
  EXPECT_EQ(loaded.model->observer(), nullptr);
  RunModel(*loaded.model);  // iteration 0: not armed

  const std::string config = Config(
      "armed",
      R"("dump_mode":"output","dump_list":[{"model_name":"resnet_tiny"}])");
  ASSERT_TRUE(manager
                  .Arm(*registry_.Find(loaded.id), config, "", 2,
                       /*warnings=*/nullptr)
                  .ok());
  for (int i = 0; i < 4; ++i) RunModel(*loaded.model);  // iterations 1..4
  absl::StatusOr<DumpManager::ArmCounts> counts =
      manager.ArmStatus(loaded.id, "");
  ASSERT_TRUE(counts.ok()) << counts.status();
  EXPECT_EQ(counts->executions, 2u);
  EXPECT_EQ(counts->dumped, 2u);
  ASSERT_TRUE(manager
                  .Disarm(registry_.Find(loaded.id).get(), loaded.id,
                          /*tag=*/nullptr)
                  .ok());
  // Disarmed, the model is back to no observer at all.
  EXPECT_EQ(loaded.model->observer(), nullptr);

  const auto iterations = Iterations("armed", loaded.id);
  ASSERT_EQ(iterations.size(), 2u);
  EXPECT_TRUE(iterations.count(1) && iterations.count(2));
  const size_t steps = loaded.model->steps().size();
  for (const auto& [iteration, files] : iterations) {
    // Every step's file, the graph input's (a Data record), request.json.
    EXPECT_EQ(files.size(), steps + 2) << iteration;
    const nlohmann::json request = RequestFile("armed", loaded.id, iteration);
    EXPECT_EQ(request["iteration"], iteration);
    EXPECT_EQ(request["request_tag"], "");
    EXPECT_EQ(request["model_id"], loaded.id);
    EXPECT_EQ(request["arm"]["executions"], 2);
  }
  EXPECT_EQ(KindOf(manager.ArmStatus(loaded.id, "").status()),
            ErrorKind::kInvalidParam);
  absl::Status again =
      manager.Disarm(registry_.Find(loaded.id).get(), loaded.id, nullptr);
  EXPECT_EQ(KindOf(again), ErrorKind::kInvalidParam);
  EXPECT_THAT(again.message(), HasSubstr("is not armed"));
}

// 8 threads execute one model for requests of their own; two requests are
// armed. Exactly those two dump, each with its own input and its tag.
TEST_F(ArmedDumpTest, TaggedRequestsDumpOnlyThemselvesUnderConcurrency) {
  DumpManager manager;
  Loaded loaded = Load(manager, registry_, kResnet);
  const std::string config =
      Config("tagged",
             R"("dump_mode":"all","dump_list":[{"model_name":"resnet_tiny"}])");
  auto model = registry_.Find(loaded.id);
  ASSERT_TRUE(manager.Arm(*model, config, "req-3-5", 1, nullptr).ok());
  ASSERT_TRUE(manager.Arm(*model, config, "req-6-1", 1, nullptr).ok());
  constexpr int kThreads = 8, kRequests = 8;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int k = 0; k < kRequests; ++k) {
        const std::string tag = StrCat("req-", t, "-", k);
        ScopedRequestTag scoped(tag);
        RunModel(*loaded.model, nullptr, [&](Tensor& input) {
          float* data = static_cast<float*>(input.data());
          data[0] = static_cast<float>(t * 100 + k);
        });
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(manager.ArmStatus(loaded.id, "req-3-5")->dumped, 1u);
  EXPECT_EQ(manager.ArmStatus(loaded.id, "req-6-1")->dumped, 1u);
  ASSERT_TRUE(manager.Disarm(model.get(), loaded.id, nullptr).ok());

  const auto iterations = Iterations("tagged", loaded.id);
  ASSERT_EQ(iterations.size(), 2u);
  std::vector<std::string> tags;
  for (const auto& [iteration, files] : iterations) {
    const nlohmann::json request = RequestFile("tagged", loaded.id, iteration);
    const std::string tag = request["request_tag"];
    tags.push_back(tag);
    EXPECT_EQ(request["arm"]["tag"], tag);
    // The dumped graph input is that request's own.
    const float expected = tag == "req-3-5" ? 305.0f : 601.0f;
    ASSERT_EQ(std::count_if(files.begin(), files.end(),
                            [](const std::string& file) {
                              return file.starts_with("Data.input.");
                            }),
              1)
        << iteration;
    std::string data_file;
    for (const std::string& file : FilesUnder(dir_ + "/tagged")) {
      if (file.find(StrCat("/", iteration, "/Data.input.")) !=
          std::string::npos) {
        data_file = dir_ + "/tagged/" + file;
      }
    }
    auto contents = ReadDumpFile(data_file);
    ASSERT_TRUE(contents.ok()) << contents.status();
    ASSERT_EQ(contents->outputs.size(), 1u);
    float first;
    std::memcpy(&first, contents->outputs[0].data(), sizeof first);
    EXPECT_EQ(first, expected) << tag;
  }
  std::sort(tags.begin(), tags.end());
  EXPECT_THAT(tags, ElementsAre("req-3-5", "req-6-1"));
}

// A model loaded under a dump config keeps it for the executions no arm
// claims; the armed one goes to the arm's folder only.
TEST_F(ArmedDumpTest, ArmsRunBesideWhatTheLoadAttached) {
  DumpManager manager;
  ASSERT_TRUE(manager.InitDump().ok());
  ASSERT_TRUE(
      manager
          .SetDump(Config("loaded",
                          R"("dump_data":"stats",)"
                          R"("dump_list":[{"model_name":"resnet_tiny"}])"))
          .ok());
  Loaded loaded = Load(manager, registry_, kResnet);
  ASSERT_NE(loaded.model->observer(), nullptr);
  auto model = registry_.Find(loaded.id);
  ASSERT_TRUE(
      manager
          .Arm(*model,
               Config("armed", R"("dump_mode":"output",)"
                               R"("dump_list":[{"model_name":"resnet_tiny"}])"),
               "bad-request", 0, nullptr)
          .ok());
  RunModel(*loaded.model);  // 0: the load's stats
  {
    ScopedRequestTag tag("bad-request");
    RunModel(*loaded.model);  // 1: armed
  }
  {
    ScopedRequestTag tag("other");
    RunModel(*loaded.model);  // 2: the load's stats
  }
  EXPECT_EQ(manager.ArmStatus(loaded.id, "bad-request")->dumped, 1u);
  ASSERT_TRUE(manager.Disarm(model.get(), loaded.id, nullptr).ok());
  RunModel(*loaded.model);  // 3: the load's stats
  ASSERT_TRUE(manager.FinalizeDump().ok());

  const auto armed = Iterations("armed", loaded.id);
  ASSERT_EQ(armed.size(), 1u);
  EXPECT_TRUE(armed.count(1));
  std::vector<uint64_t> stats;
  for (const auto& [iteration, files] : Iterations("loaded", loaded.id)) {
    stats.push_back(iteration);
  }
  EXPECT_THAT(stats, ElementsAre(0, 2, 3));
}

TEST_F(ArmedDumpTest, ArmingErrorsSayWhatToFix) {
  DumpManager manager;
  Loaded loaded = Load(manager, registry_, kResnet);
  auto model = registry_.Find(loaded.id);
  absl::Status other = manager.Arm(
      *model, Config("other", R"("dump_list":[{"model_name":"not_this_one"}])"),
      "", 1, nullptr);
  EXPECT_EQ(KindOf(other), ErrorKind::kInvalidParam);
  EXPECT_THAT(other.message(), HasSubstr("selects nothing of model"));
  EXPECT_EQ(KindOf(manager.Arm(*model, dir_ + "/missing.json", "", 1, nullptr)),
            ErrorKind::kInvalidFile);
  // Nothing was armed by the failures.
  EXPECT_EQ(loaded.model->observer(), nullptr);
  const std::string tag = "never-armed";
  EXPECT_EQ(KindOf(manager.Disarm(model.get(), loaded.id, &tag)),
            ErrorKind::kInvalidParam);
  // Re-arming a tag replaces its arm (the old one is flushed and closed).
  const std::string config = Config(
      "replaced",
      R"("dump_mode":"output","dump_list":[{"model_name":"resnet_tiny"}])");
  ASSERT_TRUE(manager.Arm(*model, config, "t", 5, nullptr).ok());
  ASSERT_TRUE(manager.Arm(*model, config, "t", 1, nullptr).ok());
  EXPECT_EQ(manager.ArmStatus(loaded.id, "t")->executions, 1u);
  // Unloading closes the model's arms.
  ASSERT_TRUE(manager.OnModelUnloaded(loaded.id).ok());
  EXPECT_EQ(KindOf(manager.ArmStatus(loaded.id, "t").status()),
            ErrorKind::kInvalidParam);
}

}  // namespace
}  // namespace acldump::dump
