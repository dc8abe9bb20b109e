// The C++ shape of the public ACL samples (resnet50 image classification and
// its async variant): a SampleProcess owning device, context and stream, a
// ModelProcess owning the model loaded into caller memory and its datasets; a
// callback thread processing reports while executions run on the stream. Dump
// through aclInit(acl.json) and through aclmdlInitDump/SetDump/FinalizeDump,
// each in a fresh process; outputs and dump files are checked.
#include <gtest/gtest.h>
#include <pthread.h>

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "acl/acl.h"

namespace {

namespace fs = std::filesystem;

constexpr char kModel[] = "testdata/resnet_tiny.om";

#define ACL_OK(call) ASSERT_EQ((call), ACL_SUCCESS) << aclGetRecentErrMsg()

std::vector<float> ReadNpy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string bytes(std::istreambuf_iterator<char>(in), {});
  const size_t start = 10 + (static_cast<unsigned char>(bytes[8]) |
                             static_cast<unsigned char>(bytes[9]) << 8);
  std::vector<float> values((bytes.size() - start) / 4);
  std::memcpy(values.data(), bytes.data() + start, values.size() * 4);
  return values;
}

std::string TempPath(const std::string& name) {
  const char* base = std::getenv("TEST_TMPDIR");
  return std::string(base ? base : "/tmp") + "/" + name;
}

// A config dumping every operator of resnet_tiny into a fresh folder.
std::string DumpConfig(const std::string& name) {
  fs::remove_all(TempPath(name));
  fs::create_directories(TempPath(name));
  const std::string path = TempPath(name + ".json");
  std::ofstream(path) << R"({"dump":{"dump_path":")" << TempPath(name)
                      << R"(","dump_list":[{"model_name":"resnet_tiny"}]}})";
  return path;
}

// The ModelProcess of the samples.
class ModelProcess {
 public:
  ~ModelProcess() { Unload(); }

  void Load(const char* path) {
    size_t work_size = 0, weight_size = 0;
    ACL_OK(aclmdlQuerySize(path, &work_size, &weight_size));
    ACL_OK(aclrtMalloc(&work_, work_size, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMalloc(&weight_, weight_size, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclmdlLoadFromFileWithMem(path, &id_, work_, work_size, weight_,
                                     weight_size));
    loaded_ = true;
    desc_ = aclmdlCreateDesc();
    ACL_OK(aclmdlGetDesc(desc_, id_));
  }

  void CreateInput(const std::vector<float>& image) {
    size_t index = 99;
    ACL_OK(aclmdlGetInputIndexByName(desc_, "input", &index));
    const size_t size = aclmdlGetInputSizeByIndex(desc_, index);
    ASSERT_EQ(size, image.size() * sizeof(float));
    void* device = nullptr;
    ACL_OK(aclrtMalloc(&device, size, ACL_MEM_MALLOC_NORMAL_ONLY));
    ACL_OK(aclrtMemcpy(device, size, image.data(), size,
                       ACL_MEMCPY_HOST_TO_DEVICE));
    input_ = aclmdlCreateDataset();
    ACL_OK(aclmdlAddDatasetBuffer(input_, aclCreateDataBuffer(device, size)));
  }

  void CreateOutput() {
    output_ = aclmdlCreateDataset();
    for (size_t i = 0; i < aclmdlGetNumOutputs(desc_); ++i) {
      const size_t size = aclmdlGetOutputSizeByIndex(desc_, i);
      void* device = nullptr;
      ACL_OK(aclrtMalloc(&device, size, ACL_MEM_MALLOC_NORMAL_ONLY));
      ACL_OK(
          aclmdlAddDatasetBuffer(output_, aclCreateDataBuffer(device, size)));
    }
  }

  aclError Execute() { return aclmdlExecute(id_, input_, output_); }
  aclError ExecuteAsync(aclrtStream stream) {
    return aclmdlExecuteAsync(id_, input_, output_, stream);
  }

  // The prob output, copied to host and reshaped with aclmdlGetCurOutputDims.
  std::vector<float> Prob() {
    size_t index = 99;
    EXPECT_EQ(aclmdlGetOutputIndexByName(desc_, "prob", &index), ACL_SUCCESS);
    aclmdlIODims dims;
    EXPECT_EQ(aclmdlGetCurOutputDims(desc_, index, &dims), ACL_SUCCESS);
    EXPECT_EQ(dims.dimCount, 2u);
    aclDataBuffer* buffer = aclmdlGetDatasetBuffer(output_, index);
    const size_t size = aclGetDataBufferSizeV2(buffer);
    EXPECT_EQ(size, dims.dims[0] * dims.dims[1] * sizeof(float));
    void* host = nullptr;
    EXPECT_EQ(aclrtMallocHost(&host, size), ACL_SUCCESS);
    EXPECT_EQ(aclrtMemcpy(host, size, aclGetDataBufferAddr(buffer), size,
                          ACL_MEMCPY_DEVICE_TO_HOST),
              ACL_SUCCESS);
    std::vector<float> prob(static_cast<float*>(host),
                            static_cast<float*>(host) + size / 4);
    EXPECT_EQ(aclrtFreeHost(host), ACL_SUCCESS);
    return prob;
  }

  void Unload() {
    for (aclmdlDataset* dataset : {input_, output_}) {
      if (dataset == nullptr) continue;
      for (size_t i = 0; i < aclmdlGetDatasetNumBuffers(dataset); ++i) {
        aclDataBuffer* buffer = aclmdlGetDatasetBuffer(dataset, i);
        EXPECT_EQ(aclrtFree(aclGetDataBufferAddr(buffer)), ACL_SUCCESS);
        EXPECT_EQ(aclDestroyDataBuffer(buffer), ACL_SUCCESS);
      }
      EXPECT_EQ(aclmdlDestroyDataset(dataset), ACL_SUCCESS);
    }
    input_ = output_ = nullptr;
    if (loaded_) {
      EXPECT_EQ(aclmdlUnload(id_), ACL_SUCCESS);
    }
    loaded_ = false;
    if (desc_ != nullptr) {
      EXPECT_EQ(aclmdlDestroyDesc(desc_), ACL_SUCCESS);
    }
    desc_ = nullptr;
    for (void** memory : {&work_, &weight_}) {
      if (*memory != nullptr) {
        EXPECT_EQ(aclrtFree(*memory), ACL_SUCCESS);
      }
      *memory = nullptr;
    }
  }

 private:
  uint32_t id_ = 0;
  bool loaded_ = false;
  void* work_ = nullptr;
  void* weight_ = nullptr;
  aclmdlDesc* desc_ = nullptr;
  aclmdlDataset* input_ = nullptr;
  aclmdlDataset* output_ = nullptr;
};

// The async sample's callback thread: set the context, process reports until
// told to stop.
class CallbackThread {
 public:
  explicit CallbackThread(aclrtContext context) {
    thread_ = std::thread([this, context] {
      aclrtSetCurrentContext(context);
      id_ = static_cast<uint64_t>(pthread_self());
      while (!stop_) aclrtProcessReport(20);
    });
    while (id_ == 0) std::this_thread::yield();
  }
  ~CallbackThread() {
    stop_ = true;
    thread_.join();
  }
  uint64_t id() const { return id_; }

 private:
  std::thread thread_;
  std::atomic<uint64_t> id_{0};
  std::atomic<bool> stop_{false};
};

struct Executed {
  std::atomic<int> count{0};
  std::atomic<uint64_t> thread{0};
};

void OnExecuted(void* data) {
  auto* executed = static_cast<Executed*>(data);
  executed->thread = static_cast<uint64_t>(pthread_self());
  ++executed->count;
}

// InitResource .. Process .. DestroyResource; returns the prob output.
void RunSample(const char* init_config, const char* set_dump,
               std::vector<float>* prob) {
  aclrtContext context = nullptr;
  aclrtStream stream = nullptr;
  ACL_OK(aclInit(init_config));
  ACL_OK(aclrtSetDevice(0));
  ACL_OK(aclrtCreateContext(&context, 0));
  ACL_OK(aclrtCreateStream(&stream));
  if (set_dump != nullptr) {
    ACL_OK(aclmdlInitDump());
    ACL_OK(aclmdlSetDump(set_dump));
  }
  const std::vector<float> expected =
      ReadNpy("testdata/resnet_tiny.output.prob.npy");
  {
    ModelProcess model;
    ASSERT_NO_FATAL_FAILURE(model.Load(kModel));
    ASSERT_NO_FATAL_FAILURE(
        model.CreateInput(ReadNpy("testdata/resnet_tiny.input.input.npy")));
    ASSERT_NO_FATAL_FAILURE(model.CreateOutput());
    ACL_OK(model.Execute());
    *prob = model.Prob();
    for (size_t i = 0; i < expected.size(); ++i)
      EXPECT_NEAR((*prob)[i], expected[i], 1e-5);
    // The async sample: executions on the stream, a callback after each.
    CallbackThread callbacks(context);
    Executed executed;
    ACL_OK(aclrtSubscribeReport(callbacks.id(), stream));
    for (int i = 0; i < 3; ++i) {
      ACL_OK(model.ExecuteAsync(stream));
      ACL_OK(aclrtLaunchCallback(OnExecuted, &executed, ACL_CALLBACK_BLOCK,
                                 stream));
    }
    ACL_OK(aclrtSynchronizeStream(stream));
    EXPECT_EQ(executed.count, 3);
    EXPECT_EQ(executed.thread, callbacks.id());
    ACL_OK(aclrtUnSubscribeReport(callbacks.id(), stream));
    EXPECT_EQ(model.Prob(), *prob);  // bit-identical to the sync run
  }
  if (set_dump != nullptr) {
    ACL_OK(aclmdlFinalizeDump());
  }
  ACL_OK(aclrtDestroyStream(stream));
  ACL_OK(aclrtDestroyContext(context));
  ACL_OK(aclrtResetDevice(0));
  ACL_OK(aclFinalize());
}

// {iteration: files} of the one model dump under `name`.
std::map<std::string, std::vector<std::string>> Iterations(
    const std::string& name) {
  std::map<std::string, std::vector<std::string>> found;
  for (const auto& entry : fs::recursive_directory_iterator(TempPath(name))) {
    if (!entry.is_regular_file()) continue;
    const fs::path iteration = entry.path().parent_path();
    EXPECT_EQ(iteration.parent_path().parent_path().filename(), "resnet_tiny");
    found[iteration.filename()].push_back(entry.path().filename());
  }
  return found;
}

void CheckDumps(const std::string& name, const std::vector<float>& prob) {
  const auto iterations = Iterations(name);
  ASSERT_EQ(iterations.size(), 4u);  // one sync, three async executions
  for (const auto& [iteration, files] : iterations) {
    EXPECT_EQ(files.size(), iterations.begin()->second.size()) << iteration;
  }
  for (const auto& entry : fs::recursive_directory_iterator(TempPath(name))) {
    if (entry.path().filename().string().rfind("Softmax.prob.", 0) != 0)
      continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::string bytes(std::istreambuf_iterator<char>(in), {});
    ASSERT_GE(bytes.size(), 40u);
    EXPECT_EQ(std::memcmp(bytes.data() + bytes.size() - 40, prob.data(), 40),
              0);
  }
}

class SampleFlowTest : public ::testing::Test {
 protected:
  void SetUp() override { GTEST_FLAG_SET(death_test_style, "threadsafe"); }
};

TEST_F(SampleFlowTest, DumpThroughAclInitConfig) {
  EXPECT_EXIT(
      {
        std::vector<float> prob;
        RunSample(DumpConfig("cc_init").c_str(), nullptr, &prob);
        CheckDumps("cc_init", prob);
        std::exit(::testing::Test::HasFailure() ? 1 : 0);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST_F(SampleFlowTest, DumpThroughSetDump) {
  EXPECT_EXIT(
      {
        const std::string init = TempPath("acl.json");
        std::ofstream(init) << "{}";  // the samples' acl.json
        std::vector<float> prob;
        RunSample(init.c_str(), DumpConfig("cc_set").c_str(), &prob);
        CheckDumps("cc_set", prob);
        std::exit(::testing::Test::HasFailure() ? 1 : 0);
      },
      ::testing::ExitedWithCode(0), "");
}

}  // namespace
