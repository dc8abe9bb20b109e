// Executions queued with aclmdlExecuteAsync and not yet run when the dump
// session ends, the stream goes away, the model is unloaded or the library
// finalized: each is dumped as an aclmdlExecute would be, or reported, never
// lost quietly. Streams are held behind a blocking callback so the work is
// still queued when the call is made. Run under TSan too (--config=tsan).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "bindings/c/tests/stream_blocker.h"

namespace {

namespace fs = std::filesystem;
constexpr int kQueued = 50;

std::string Message() { return aclGetRecentErrMsg(); }

using Blocker = acldump::testing::StreamBlocker;

class QueuedAsyncTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::path(std::getenv("TEST_TMPDIR")) /
            ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(root_);
    fs::create_directories(root_ / "dump");
    config_ = (root_ / "acl.json").string();
    std::ofstream(config_) << R"({"dump":{"dump_path":")"
                           << (root_ / "dump").string()
                           << R"(","dump_list":[{"model_name":"resnet_tiny",)"
                           << R"("layer":["prob"]}]}})";
    ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
    ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
    ASSERT_EQ(aclmdlInitDump(), ACL_SUCCESS);
    ASSERT_EQ(aclmdlSetDump(config_.c_str()), ACL_SUCCESS) << Message();
    ASSERT_EQ(aclmdlLoadFromFile("testdata/resnet_tiny.om", &id_), ACL_SUCCESS)
        << Message();
    aclmdlDesc* desc = aclmdlCreateDesc();
    ASSERT_EQ(aclmdlGetDesc(desc, id_), ACL_SUCCESS);
    in_ = aclmdlCreateDataset();
    out_ = aclmdlCreateDataset();
    memory_.reserve(8);
    for (size_t i = 0; i < aclmdlGetNumInputs(desc); ++i) {
      memory_.emplace_back(aclmdlGetInputSizeByIndex(desc, i), 1);
      aclmdlAddDatasetBuffer(in_, aclCreateDataBuffer(memory_.back().data(),
                                                      memory_.back().size()));
    }
    for (size_t i = 0; i < aclmdlGetNumOutputs(desc); ++i) {
      memory_.emplace_back(aclmdlGetOutputSizeByIndex(desc, i), 0);
      aclmdlAddDatasetBuffer(out_, aclCreateDataBuffer(memory_.back().data(),
                                                       memory_.back().size()));
    }
    aclmdlDestroyDesc(desc);
    ASSERT_EQ(aclrtCreateStream(&stream_), ACL_SUCCESS);
  }

  void TearDown() override {
    for (aclmdlDataset* d : {in_, out_}) {
      for (size_t i = 0; i < aclmdlGetDatasetNumBuffers(d); ++i) {
        aclDestroyDataBuffer(aclmdlGetDatasetBuffer(d, i));
      }
      aclmdlDestroyDataset(d);
    }
    aclFinalize();
  }

  void Queue(int n) {
    for (int i = 0; i < n; ++i) {
      ASSERT_EQ(aclmdlExecuteAsync(id_, in_, out_, stream_), ACL_SUCCESS)
          << Message();
    }
  }

  // The dump files of the "prob" layer: one per dumped execution.
  size_t DumpedExecutions() const {
    size_t files = 0;
    for (const auto& e : fs::recursive_directory_iterator(root_ / "dump")) {
      if (e.is_regular_file() &&
          e.path().filename().string().find(".prob.") != std::string::npos) {
        ++files;
      }
    }
    return files;
  }

  fs::path root_;
  std::string config_;
  uint32_t id_ = 0;
  std::vector<std::vector<char>> memory_;
  aclmdlDataset* in_ = nullptr;
  aclmdlDataset* out_ = nullptr;
  aclrtStream stream_ = nullptr;
};

TEST_F(QueuedAsyncTest, FinalizeDumpWaitsForQueuedExecutionsAndDumpsThemAll) {
  Blocker blocker(stream_);
  Queue(kQueued);
  blocker.ReleaseAfter(std::chrono::milliseconds(300));
  ASSERT_EQ(aclmdlFinalizeDump(), ACL_SUCCESS) << Message();
  EXPECT_EQ(DumpedExecutions(), static_cast<size_t>(kQueued));
  // The stream's own synchronize still reports on its work.
  EXPECT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS) << Message();
}

TEST_F(QueuedAsyncTest, WorkThatCannotRunIsWaitedForABoundedTimeAndReported) {
  setenv("ACLDUMP_FINALIZE_WAIT_MS", "200", 1);
  Blocker blocker(stream_);
  Queue(kQueued);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(aclmdlFinalizeDump(), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
  const std::string message = Message();
  unsetenv("ACLDUMP_FINALIZE_WAIT_MS");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  EXPECT_NE(message.find("1 stream still had queued work after "
                         "aclmdlFinalizeDump waited 200 ms"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("run without dump"), std::string::npos) << message;
  // The work runs once released (without dump: the session has ended).
  blocker.Release();
  EXPECT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS) << Message();
  EXPECT_EQ(DumpedExecutions(), 0u);
}

TEST_F(QueuedAsyncTest, DestroyingTheStreamRunsAndDumpsItsWork) {
  {
    Blocker blocker(stream_);
    Queue(kQueued);
    blocker.ReleaseAfter(std::chrono::milliseconds(100));
    ASSERT_EQ(aclrtDestroyStream(stream_), ACL_SUCCESS) << Message();
  }
  ASSERT_EQ(aclmdlFinalizeDump(), ACL_SUCCESS) << Message();
  EXPECT_EQ(DumpedExecutions(), static_cast<size_t>(kQueued));
}

TEST_F(QueuedAsyncTest, UnloadingTheModelLetsItsQueuedExecutionsRunAndDump) {
  Blocker blocker(stream_);
  Queue(kQueued);
  ASSERT_EQ(aclmdlUnload(id_), ACL_SUCCESS) << Message();
  blocker.ReleaseAfter(std::chrono::milliseconds(100));
  ASSERT_EQ(aclmdlFinalizeDump(), ACL_SUCCESS) << Message();
  EXPECT_EQ(DumpedExecutions(), static_cast<size_t>(kQueued));
}

TEST_F(QueuedAsyncTest, AclFinalizeRunsAndDumpsQueuedExecutions) {
  Blocker blocker(stream_);
  Queue(kQueued);
  blocker.ReleaseAfter(std::chrono::milliseconds(100));
  ASSERT_EQ(aclFinalize(), ACL_SUCCESS) << Message();
  EXPECT_EQ(DumpedExecutions(), static_cast<size_t>(kQueued));
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);  // for TearDown
}

}  // namespace
