// Threads executing models (the same and different ones) while another thread
// cycles InitDump / SetDump / load / unload / FinalizeDump; and aclFinalize /
// aclInit cycling while other threads load, execute, set dumps and use
// streams. For a bounded time each; run under TSan in CI (--config=tsan): no
// data race, no use after free, no deadlock, results always right, every dump
// file complete.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "dump/format/dump_file.h"

namespace {

namespace fs = std::filesystem;

struct Io {
  std::vector<std::vector<char>> memory;
  aclmdlDataset* inputs = nullptr;
  aclmdlDataset* outputs = nullptr;
};

Io MakeIo(uint32_t id, float fill) {
  Io io;
  aclmdlDesc* desc = aclmdlCreateDesc();
  EXPECT_EQ(aclmdlGetDesc(desc, id), ACL_SUCCESS);
  io.inputs = aclmdlCreateDataset();
  io.outputs = aclmdlCreateDataset();
  io.memory.reserve(8);
  for (size_t i = 0; i < aclmdlGetNumInputs(desc); ++i) {
    io.memory.emplace_back(aclmdlGetInputSizeByIndex(desc, i));
    auto* f = reinterpret_cast<float*>(io.memory.back().data());
    for (size_t k = 0; k < io.memory.back().size() / 4; ++k)
      f[k] = fill * ((k % 7) - 3);
    aclmdlAddDatasetBuffer(
        io.inputs,
        aclCreateDataBuffer(io.memory.back().data(), io.memory.back().size()));
  }
  for (size_t i = 0; i < aclmdlGetNumOutputs(desc); ++i) {
    io.memory.emplace_back(aclmdlGetOutputSizeByIndex(desc, i));
    aclmdlAddDatasetBuffer(
        io.outputs,
        aclCreateDataBuffer(io.memory.back().data(), io.memory.back().size()));
  }
  aclmdlDestroyDesc(desc);
  return io;
}

void FreeIo(Io& io) {
  for (aclmdlDataset* d : {io.inputs, io.outputs}) {
    for (size_t i = 0; i < aclmdlGetDatasetNumBuffers(d); ++i) {
      aclDestroyDataBuffer(aclmdlGetDatasetBuffer(d, i));
    }
    aclmdlDestroyDataset(d);
  }
}

std::vector<char> LastOutput(const Io& io) {
  aclDataBuffer* b = aclmdlGetDatasetBuffer(
      io.outputs, aclmdlGetDatasetNumBuffers(io.outputs) - 1);
  const char* p = static_cast<const char*>(aclGetDataBufferAddr(b));
  return std::vector<char>(p, p + aclGetDataBufferSizeV2(b));
}

TEST(ConcurrencyTest, ExecuteWhileDumpConfigChanges) {
  const char* base = std::getenv("TEST_TMPDIR");
  const std::string root = std::string(base ? base : "/tmp") + "/concurrency";
  fs::remove_all(root);
  fs::create_directories(root + "/dump");
  const std::string config = root + "/acl.json";
  std::ofstream(config)
      << R"({"dump":{"dump_path":")" << root
      << R"(/dump","dump_mode":"all","dump_list":[{"layer":["prob","attn","fc"]}]}})";
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  const char* models[] = {"testdata/resnet_tiny.om", "testdata/mlp_block.om"};

  // Reference outputs, computed before any concurrency.
  std::vector<std::vector<char>> expected;
  for (const char* path : models) {
    uint32_t id;
    ASSERT_EQ(aclmdlLoadFromFile(path, &id), ACL_SUCCESS)
        << aclGetRecentErrMsg();
    Io io = MakeIo(id, 0.25f);
    ASSERT_EQ(aclmdlExecute(id, io.inputs, io.outputs), ACL_SUCCESS);
    expected.push_back(LastOutput(io));
    FreeIo(io);
    aclmdlUnload(id);
  }

  std::atomic<bool> stop{false};
  std::atomic<int> executions{0}, wrong{0}, errors{0};
  std::vector<uint32_t> shared_ids(2);
  for (int m = 0; m < 2; ++m)
    ASSERT_EQ(aclmdlLoadFromFile(models[m], &shared_ids[m]), ACL_SUCCESS);

  auto executor = [&](int model, bool shared) {
    uint32_t id = shared_ids[model];
    if (!shared && aclmdlLoadFromFile(models[model], &id) != ACL_SUCCESS) {
      ++errors;
      return;
    }
    Io io = MakeIo(id, 0.25f);
    while (!stop.load()) {
      if (aclmdlExecute(id, io.inputs, io.outputs) != ACL_SUCCESS) {
        ++errors;
        continue;
      }
      ++executions;
      if (LastOutput(io) != expected[model]) ++wrong;
    }
    FreeIo(io);
    if (!shared) aclmdlUnload(id);
  };
  std::vector<std::thread> threads;
  threads.emplace_back(executor, 0, true);
  threads.emplace_back(executor, 0, true);   // the same model from two threads
  threads.emplace_back(executor, 1, false);  // a private model
  std::atomic<int> cycles{0};
  threads.emplace_back([&] {
    while (!stop.load()) {
      if (aclmdlInitDump() != ACL_SUCCESS ||
          aclmdlSetDump(config.c_str()) != ACL_SUCCESS) {
        ++errors;
        continue;
      }
      uint32_t id;
      if (aclmdlLoadFromFile(models[cycles % 2], &id) == ACL_SUCCESS) {
        Io io = MakeIo(id, 0.25f);
        if (aclmdlExecute(id, io.inputs, io.outputs) != ACL_SUCCESS) ++errors;
        FreeIo(io);
        if (aclmdlFinalizeDump() != ACL_SUCCESS) ++errors;
        if (aclmdlUnload(id) != ACL_SUCCESS) ++errors;
      } else {
        ++errors;
        aclmdlFinalizeDump();
      }
      ++cycles;
    }
  });
  std::this_thread::sleep_for(std::chrono::seconds(3));
  stop = true;
  for (std::thread& t : threads) t.join();
  for (uint32_t id : shared_ids) aclmdlUnload(id);
  ASSERT_EQ(aclFinalize(), ACL_SUCCESS) << aclGetRecentErrMsg();

  EXPECT_EQ(errors.load(), 0);
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_GT(executions.load(), 10);
  EXPECT_GT(cycles.load(), 2);
  // Every dump file is complete: it parses with exact sizes; nothing temporary
  // is left.
  int files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(root + "/dump")) {
    if (!entry.is_regular_file()) continue;
    ++files;
    EXPECT_NE(entry.path().extension(), ".tmp") << entry.path();
    auto contents = acldump::dump::ReadDumpFile(entry.path().string());
    EXPECT_TRUE(contents.ok()) << entry.path() << ": " << contents.status();
  }
  EXPECT_GE(files, cycles.load());
}

// What calls racing with aclFinalize may return: success, or the state they
// found gone (library, model, dump session, context, stream).
bool ExpectedDuringFinalize(aclError code) {
  switch (code) {
    case ACL_SUCCESS:
    case ACL_ERROR_UNINITIALIZE:
    case ACL_ERROR_INVALID_MODEL_ID:
    case ACL_ERROR_DUMP_NOT_RUN:
    case ACL_ERROR_REPEAT_INITIALIZE:
    case ACL_ERROR_RT_CONTEXT_NULL:
    case ACL_ERROR_RT_PARAM_INVALID:
      return true;
    default:
      return false;
  }
}

TEST(ConcurrencyTest, FinalizeWhileOtherCallsRun) {
  const char* base = std::getenv("TEST_TMPDIR");
  const std::string root = std::string(base ? base : "/tmp") + "/finalize";
  fs::remove_all(root);
  fs::create_directories(root + "/dump");
  const std::string config = root + "/acl.json";
  std::ofstream(config) << R"({"dump":{"dump_path":")" << root
                        << R"(/dump","dump_list":[{"layer":["prob"]}]}})";
  std::atomic<bool> stop{false};
  std::mutex mutex;
  std::set<std::string> unexpected;
  auto note = [&](const char* call, aclError code) {
    if (ExpectedDuringFinalize(code)) return;
    std::lock_guard<std::mutex> lock(mutex);
    unexpected.insert(std::string(call) + " -> " + std::to_string(code) + ": " +
                      aclGetRecentErrMsg());
  };
  std::atomic<int> executed{0};
  std::vector<std::thread> threads;
  threads.emplace_back([&] {  // load, execute, unload
    std::vector<float> input(3 * 32 * 32), fc(10), prob(10);
    aclmdlDataset* in = aclmdlCreateDataset();
    aclmdlDataset* out = aclmdlCreateDataset();
    aclmdlAddDatasetBuffer(in,
                           aclCreateDataBuffer(input.data(), input.size() * 4));
    aclmdlAddDatasetBuffer(out, aclCreateDataBuffer(fc.data(), 40));
    aclmdlAddDatasetBuffer(out, aclCreateDataBuffer(prob.data(), 40));
    while (!stop) {
      uint32_t id = 0;
      aclError e = aclmdlLoadFromFile("testdata/resnet_tiny.om", &id);
      note("load", e);
      if (e != ACL_SUCCESS) continue;
      e = aclmdlExecute(id, in, out);
      note("execute", e);
      if (e == ACL_SUCCESS) ++executed;
      note("unload", aclmdlUnload(id));
    }
    Io io;
    io.inputs = in;
    io.outputs = out;
    FreeIo(io);
  });
  threads.emplace_back([&] {  // dump sessions
    while (!stop) {
      note("init dump", aclmdlInitDump());
      note("set dump", aclmdlSetDump(config.c_str()));
      note("finalize dump", aclmdlFinalizeDump());
    }
  });
  threads.emplace_back([&] {  // streams
    while (!stop) {
      aclError e = aclrtSetDevice(0);
      note("set device", e);
      if (e != ACL_SUCCESS) continue;
      aclrtStream stream = nullptr;
      e = aclrtCreateStream(&stream);
      note("create stream", e);
      void* memory = nullptr;
      if (e == ACL_SUCCESS &&
          aclrtMalloc(&memory, 4096, ACL_MEM_MALLOC_HUGE_FIRST) ==
              ACL_SUCCESS) {
        note("memset async", aclrtMemsetAsync(memory, 4096, 1, 4096, stream));
        note("synchronize", aclrtSynchronizeStream(stream));
        note("destroy stream", aclrtDestroyStream(stream));
        aclrtFree(memory);
      }
      note("reset device", aclrtResetDevice(0));
    }
  });
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(3);
  int cycles = 0;
  while (std::chrono::steady_clock::now() < end) {
    ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS) << aclGetRecentErrMsg();
    std::this_thread::sleep_for(std::chrono::milliseconds(cycles % 7));
    const aclError e = aclFinalize();
    EXPECT_TRUE(e == ACL_SUCCESS) << e << ": " << aclGetRecentErrMsg();
    ++cycles;
  }
  stop = true;
  for (std::thread& t : threads) t.join();
  EXPECT_TRUE(unexpected.empty()) << *unexpected.begin();
  EXPECT_GT(cycles, 20);
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);  // still usable afterwards
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
}

}  // namespace
