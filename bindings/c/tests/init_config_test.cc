// aclInit's config and the dump calls' order of checks, as the SDK has them.
// The SDK accepts a later aclInit only with the first one's config content, so
// each case runs in a fresh process (a death test that must exit 0).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "bindings/c/tests/test_models.h"
#include "runtime/graph.h"
#include "runtime/model_file.h"

namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

constexpr char kModel[] = "testdata/resnet_tiny.om";

std::string Message() { return aclGetRecentErrMsg(); }

std::string TempPath(const std::string& name) {
  const char* base = std::getenv("TEST_TMPDIR");
  return std::string(base ? base : "/tmp") + "/" + name;
}

std::string WriteFile(const std::string& name, const std::string& content) {
  const std::string path = TempPath(name);
  std::ofstream(path) << content;
  return path;
}

// A config dumping `layer` of resnet_tiny into a fresh folder `name`.
std::string DumpConfig(const std::string& name, const std::string& layer) {
  const std::string dir = TempPath(name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return WriteFile(
      name + ".json",
      R"({"dump":{"dump_path":")" + dir +
          R"(","dump_list":[{"model_name":"resnet_tiny","layer":[")" + layer +
          R"("]}]}})");
}

int CountFiles(const std::string& name, const std::string& prefix) {
  int count = 0;
  for (const auto& entry : fs::recursive_directory_iterator(TempPath(name))) {
    if (entry.is_regular_file() &&
        entry.path().filename().string().rfind(prefix, 0) == 0) {
      ++count;
    }
  }
  return count;
}

// Loads resnet_tiny and runs it once on zeros; returns the model id.
uint32_t LoadAndRun() {
  uint32_t id = 0;
  EXPECT_EQ(aclmdlLoadFromFile(kModel, &id), ACL_SUCCESS) << Message();
  std::vector<float> input(3 * 32 * 32), fc(10), prob(10);
  aclmdlDataset* in = aclmdlCreateDataset();
  aclmdlDataset* out = aclmdlCreateDataset();
  aclDataBuffer* buffers[] = {
      aclCreateDataBuffer(input.data(), input.size() * 4),
      aclCreateDataBuffer(fc.data(), 40), aclCreateDataBuffer(prob.data(), 40)};
  aclmdlAddDatasetBuffer(in, buffers[0]);
  aclmdlAddDatasetBuffer(out, buffers[1]);
  aclmdlAddDatasetBuffer(out, buffers[2]);
  EXPECT_EQ(aclmdlExecute(id, in, out), ACL_SUCCESS) << Message();
  for (aclDataBuffer* buffer : buffers) aclDestroyDataBuffer(buffer);
  aclmdlDestroyDataset(in);
  aclmdlDestroyDataset(out);
  return id;
}

// Loads a one-Gather model and runs it with an index out of range (it
// fails), then in range.
void RunGatherFailingOnce() {
  const std::string model = acldump::testing::GatherModel();
  uint32_t id = 0;
  ASSERT_EQ(aclmdlLoadFromMem(model.data(), model.size(), &id), ACL_SUCCESS)
      << Message();
  float data[4] = {1, 2, 3, 4}, y = 0;
  int64_t index = 7;
  aclmdlDataset* in = aclmdlCreateDataset();
  aclmdlDataset* out = aclmdlCreateDataset();
  aclDataBuffer* buffers[] = {aclCreateDataBuffer(data, sizeof(data)),
                              aclCreateDataBuffer(&index, sizeof(index)),
                              aclCreateDataBuffer(&y, sizeof(y))};
  aclmdlAddDatasetBuffer(in, buffers[0]);
  aclmdlAddDatasetBuffer(in, buffers[1]);
  aclmdlAddDatasetBuffer(out, buffers[2]);
  EXPECT_EQ(aclmdlExecute(id, in, out), ACL_ERROR_FAILURE);
  index = 2;
  EXPECT_EQ(aclmdlExecute(id, in, out), ACL_SUCCESS) << Message();
  EXPECT_EQ(y, 3.0f);
  for (aclDataBuffer* buffer : buffers) aclDestroyDataBuffer(buffer);
  aclmdlDestroyDataset(in);
  aclmdlDestroyDataset(out);
  EXPECT_EQ(aclmdlUnload(id), ACL_SUCCESS);
}

// The files below `dir`, relative to it.
std::vector<std::string> FilesUnder(const std::string& dir) {
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

// Runs `body` in a fresh process; its failures fail the test.
#define IN_FRESH_PROCESS(body)                            \
  EXPECT_EXIT(                                            \
      {                                                   \
        body;                                             \
        std::exit(::testing::Test::HasFailure() ? 1 : 0); \
      },                                                  \
      ::testing::ExitedWithCode(0), "")

class InitConfigTest : public ::testing::Test {
 protected:
  void SetUp() override { GTEST_FLAG_SET(death_test_style, "threadsafe"); }
};

TEST_F(InitConfigTest, BadConfigsLeaveTheLibraryUninitialised) {
  IN_FRESH_PROCESS({
    const std::string bad =
        WriteFile("bad_init.json", R"({"dump":{"dump_mode":"sometimes"}})");
    EXPECT_EQ(aclInit(bad.c_str()), ACL_ERROR_INVALID_DUMP_CONFIG);
    EXPECT_THAT(Message(), HasSubstr("dump.dump_mode"));
    EXPECT_EQ(aclmdlInitDump(), ACL_ERROR_UNINITIALIZE);
  });
  IN_FRESH_PROCESS({
    // Text that is not JSON: a parse error through aclInit (through
    // aclmdlSetDump it is an invalid dump config).
    const std::string broken = WriteFile("broken.json", "{\"dump\": [");
    EXPECT_EQ(aclInit(broken.c_str()), ACL_ERROR_PARSE_FILE);
    EXPECT_EQ(aclmdlInitDump(), ACL_ERROR_UNINITIALIZE);
  });
  IN_FRESH_PROCESS({
    EXPECT_EQ(aclInit(TempPath("").c_str()), ACL_ERROR_INVALID_FILE);
    EXPECT_THAT(Message(), HasSubstr("directory"));
  });
}

// {"acldump": {"intra_op_threads": N}}: the threads one model execution
// uses (0: the machine's cores); anything else there is refused with the key.
TEST_F(InitConfigTest, IntraOpThreadsSetting) {
  for (const char* threads : {"0", "1", "2"}) {
    IN_FRESH_PROCESS({
      const std::string config = WriteFile(
          "threads.json",
          std::string(R"({"acldump":{"intra_op_threads":)") + threads + "}}");
      ASSERT_EQ(aclInit(config.c_str()), ACL_SUCCESS) << Message();
      LoadAndRun();
      EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
    });
  }
  struct Bad {
    const char* config;
    const char* message;
  };
  for (const Bad& bad :
       {Bad{R"({"acldump": 2})", "\"acldump\" must be an object"},
        Bad{R"({"acldump": {"intra_op_threads": -1}})",
            "\"acldump.intra_op_threads\" is -1: it must be an integer from 0"},
        Bad{R"({"acldump": {"intra_op_threads": 257}})", "is 257"},
        Bad{R"({"acldump": {"intra_op_threads": "2"}})", "is \"2\""},
        Bad{R"({"acldump": {"intra_op_threads": 1.5}})", "is 1.5"},
        Bad{R"({"acldump": {"threads": 2}})",
            "\"acldump\" has no key \"threads\" (known: "
            "\"intra_op_threads\")"}}) {
    IN_FRESH_PROCESS({
      const std::string config = WriteFile("bad_threads.json", bad.config);
      EXPECT_EQ(aclInit(config.c_str()), ACL_ERROR_INVALID_FILE) << bad.config;
      EXPECT_THAT(Message(), HasSubstr(bad.message));
      EXPECT_THAT(Message(), HasSubstr("bad_threads.json"));
      EXPECT_EQ(aclmdlInitDump(), ACL_ERROR_UNINITIALIZE);
    });
  }
}

TEST_F(InitConfigTest, LaterAclInitNeedsTheFirstContent) {
  IN_FRESH_PROCESS({
    const std::string config = DumpConfig("same", "prob");
    const std::string copy = WriteFile(
        "copy.json",
        std::string(
            std::istreambuf_iterator<char>(std::ifstream(config).rdbuf()), {}));
    ASSERT_EQ(aclInit(config.c_str()), ACL_SUCCESS) << Message();
    ASSERT_EQ(aclFinalize(), ACL_SUCCESS);
    // Another file with the same content is the same config.
    ASSERT_EQ(aclInit(copy.c_str()), ACL_SUCCESS) << Message();
    ASSERT_EQ(aclFinalize(), ACL_SUCCESS);
    EXPECT_EQ(aclInit(nullptr), ACL_ERROR_INVALID_PARAM);
    EXPECT_THAT(Message(), HasSubstr("differs from that of the first aclInit"));
    EXPECT_EQ(aclInit(DumpConfig("other", "fc").c_str()),
              ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(aclmdlInitDump(), ACL_ERROR_UNINITIALIZE);
  });
  IN_FRESH_PROCESS({
    ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
    ASSERT_EQ(aclFinalize(), ACL_SUCCESS);
    // No config, "" and an empty file are all empty content.
    ASSERT_EQ(aclInit(""), ACL_SUCCESS);
    ASSERT_EQ(aclFinalize(), ACL_SUCCESS);
    ASSERT_EQ(aclInit(WriteFile("empty.json", "").c_str()), ACL_SUCCESS)
        << Message();
    ASSERT_EQ(aclFinalize(), ACL_SUCCESS);
    EXPECT_EQ(aclInit(DumpConfig("late", "prob").c_str()),
              ACL_ERROR_INVALID_PARAM);
  });
}

// aclmdlInitDump after aclInit's dump config succeeds; models loaded get
// aclInit's config until aclmdlSetDump sets one, and again after
// aclmdlFinalizeDump.
TEST_F(InitConfigTest, InitDumpAfterAclInitConfig) {
  IN_FRESH_PROCESS({
    ASSERT_EQ(aclInit(DumpConfig("from_init", "prob").c_str()), ACL_SUCCESS)
        << Message();
    ASSERT_EQ(aclmdlInitDump(), ACL_SUCCESS) << Message();
    EXPECT_EQ(aclmdlInitDump(), ACL_ERROR_REPEAT_INITIALIZE);
    const uint32_t first = LoadAndRun();  // aclInit's config: prob
    ASSERT_EQ(aclmdlSetDump(DumpConfig("from_set", "fc").c_str()), ACL_SUCCESS)
        << Message();
    const uint32_t second = LoadAndRun();  // SetDump's config: fc
    ASSERT_EQ(aclmdlFinalizeDump(), ACL_SUCCESS) << Message();
    const uint32_t third = LoadAndRun();  // aclInit's config again
    for (uint32_t id : {first, second, third}) aclmdlUnload(id);
    ASSERT_EQ(aclFinalize(), ACL_SUCCESS) << Message();
    EXPECT_EQ(CountFiles("from_init", "Softmax.prob."), 2);
    EXPECT_EQ(CountFiles("from_init", "Gemm."), 0);
    EXPECT_EQ(CountFiles("from_set", "Gemm.fc."), 1);
    EXPECT_EQ(CountFiles("from_set", "Softmax."), 0);
  });
}

// ACLDUMP_CONFIG dumps a program that calls aclInit(NULL), without a code
// edit; it replaces the dump section of a config the program passes; a bad
// file fails aclInit naming the variable.
TEST_F(InitConfigTest, DumpFromTheEnvironmentWithoutCodeEdits) {
  IN_FRESH_PROCESS({
    setenv("ACLDUMP_CONFIG", DumpConfig("from_env", "prob").c_str(), 1);
    ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS) << Message();
    aclmdlUnload(LoadAndRun());
    ASSERT_EQ(aclFinalize(), ACL_SUCCESS) << Message();
    EXPECT_EQ(CountFiles("from_env", "Softmax.prob."), 1);
  });
  IN_FRESH_PROCESS({
    setenv("ACLDUMP_CONFIG", DumpConfig("env_wins", "fc").c_str(), 1);
    ASSERT_EQ(aclInit(DumpConfig("program_own", "prob").c_str()), ACL_SUCCESS)
        << Message();
    aclmdlUnload(LoadAndRun());
    ASSERT_EQ(aclFinalize(), ACL_SUCCESS) << Message();
    EXPECT_EQ(CountFiles("env_wins", "Gemm.fc."), 1);
    EXPECT_EQ(CountFiles("program_own", "Softmax."), 0);
  });
  IN_FRESH_PROCESS({
    setenv("ACLDUMP_CONFIG",
           WriteFile("env_bad.json", R"({"dump":{"dump_path":"/nonexistent/x",)"
                                     R"("dump_list":[]}})")
               .c_str(),
           1);
    EXPECT_NE(aclInit(nullptr), ACL_SUCCESS);
    EXPECT_THAT(Message(), HasSubstr("ACLDUMP_CONFIG="));
    EXPECT_THAT(Message(), HasSubstr("/nonexistent/x"));
    setenv("ACLDUMP_CONFIG", TempPath("missing.json").c_str(), 1);
    EXPECT_NE(aclInit(nullptr), ACL_SUCCESS);
    EXPECT_THAT(Message(), HasSubstr("missing.json"));
  });
}

// aclmdlSetDump checks aclInit, then aclmdlInitDump, then the path, then the
// file; aclmdlFinalizeDump aclInit, then aclmdlInitDump.
TEST_F(InitConfigTest, DumpCallOrderOfChecks) {
  IN_FRESH_PROCESS({
    EXPECT_EQ(aclmdlSetDump(nullptr), ACL_ERROR_UNINITIALIZE);
    EXPECT_EQ(aclmdlFinalizeDump(), ACL_ERROR_UNINITIALIZE);
    ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
    EXPECT_EQ(aclmdlSetDump(nullptr), ACL_ERROR_DUMP_NOT_RUN);
    EXPECT_EQ(aclmdlSetDump("/nonexistent.json"), ACL_ERROR_DUMP_NOT_RUN);
    EXPECT_EQ(aclmdlFinalizeDump(), ACL_ERROR_DUMP_NOT_RUN);
    ASSERT_EQ(aclmdlInitDump(), ACL_SUCCESS);
    EXPECT_EQ(aclmdlSetDump(nullptr), ACL_ERROR_INVALID_PARAM);
    EXPECT_THAT(Message(), HasSubstr("dumpCfgPath is NULL"));
    EXPECT_EQ(aclmdlSetDump("/nonexistent.json"), ACL_ERROR_INVALID_FILE);
    EXPECT_EQ(aclmdlFinalizeDump(), ACL_SUCCESS);
    EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
  });
}

// ASCEND_DUMP_SCENE turns exception dump on with no config; ASCEND_DUMP_PATH
// names where its files go; an acl.json exception scene then yields to it
// while the same file's model dump still runs.
TEST_F(InitConfigTest, ExceptionDumpFromTheEnvironment) {
  IN_FRESH_PROCESS({
    const std::string dir = TempPath("env_norm");
    fs::remove_all(dir);
    setenv("ASCEND_DUMP_SCENE", "aic_err_norm_dump", 1);
    setenv("ASCEND_DUMP_PATH", dir.c_str(), 1);
    unsetenv("ASCEND_WORK_PATH");
    unsetenv("NPU_COLLECT_PATH");
    ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS) << Message();
    RunGatherFailingOnce();
    ASSERT_EQ(aclFinalize(), ACL_SUCCESS) << Message();
    const std::vector<std::string> files = FilesUnder(dir);
    ASSERT_EQ(files.size(), 1u) << ::testing::PrintToString(files);
    EXPECT_EQ(files[0].rfind("extra-info/data-dump/0/Gather.gather.0.", 0), 0u)
        << files[0];
  });
  IN_FRESH_PROCESS({
    const std::string dir = TempPath("env_brief");
    fs::remove_all(dir);
    setenv("ASCEND_DUMP_SCENE", "aic_err_brief_dump", 1);
    setenv("ASCEND_WORK_PATH", dir.c_str(), 1);
    unsetenv("ASCEND_DUMP_PATH");
    unsetenv("NPU_COLLECT_PATH");
    // acl.json asks for the norm scene into its own folder: ignored.
    const std::string config_dir = TempPath("env_brief_config");
    fs::remove_all(config_dir);
    fs::create_directories(config_dir);
    const std::string config = WriteFile(
        "env_brief.json", R"({"dump":{"dump_scene":"aic_err_norm_dump",)"
                          R"("dump_path":")" +
                              config_dir + R"("}})");
    ASSERT_EQ(aclInit(config.c_str()), ACL_SUCCESS) << Message();
    RunGatherFailingOnce();
    ASSERT_EQ(aclFinalize(), ACL_SUCCESS) << Message();
    EXPECT_TRUE(FilesUnder(config_dir).empty());
    const std::vector<std::string> files = FilesUnder(dir);
    ASSERT_EQ(files.size(), 1u) << ::testing::PrintToString(files);
    EXPECT_EQ(files[0].rfind("extra-info/data-dump/0/exception_info.0.0.", 0),
              0u)
        << files[0];
  });
}

}  // namespace
