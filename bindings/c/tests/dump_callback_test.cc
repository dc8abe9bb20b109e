// acl_dump.h through the C ABI: a model's dump delivered to a callback while
// threads execute it (run under TSan in CI) holds exactly what a file dump of
// the same executions writes, in both layouts, and no file is written; a
// refusing callback is reported by aclmdlFinalizeDump; the dump paths and the
// application's own exception tensors follow the SDK's rules and codes.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "acl/acl_dump.h"
#include "dump/format/dump_file.h"
#include "dump/format/dump_tree.h"
#include "dump/format/merged_stats.h"
#include "nlohmann/json.hpp"

namespace {

namespace fs = std::filesystem;

constexpr char kModel[] = "testdata/resnet_tiny.om";

struct Delivery {
  std::mutex mutex;
  std::map<std::string, std::string> files;  // bytes placed at offsets
  std::map<std::string, int64_t> next_offset;
  std::map<std::string, bool> ended;
  int chunks = 0;
  int bad_chunks = 0;  // broke an invariant
  std::atomic<int> refuse_after{-1};
};
Delivery* delivery = nullptr;

int32_t Collect(const acldumpChunk* chunk, int32_t length) {
  std::lock_guard<std::mutex> lock(delivery->mutex);
  const int index = delivery->chunks++;
  if (delivery->refuse_after >= 0 && index >= delivery->refuse_after) return 5;
  const std::string name = chunk->fileName;
  if (length != int32_t(sizeof(acldumpChunk) + chunk->bufLen) ||
      chunk->offset != delivery->next_offset[name] || chunk->flag != 0 ||
      name.empty() || name[0] != '/') {
    ++delivery->bad_chunks;
  }
  std::string& file = delivery->files[name];
  const size_t end = size_t(chunk->offset) + chunk->bufLen;
  if (file.size() < end) file.resize(end);
  std::memcpy(file.data() + chunk->offset, chunk->dataBuf, chunk->bufLen);
  delivery->next_offset[name] = int64_t(end);
  delivery->ended[name] = chunk->isLastChunk == 1;
  return 0;
}

int32_t Other(const acldumpChunk*, int32_t) { return 0; }

std::string TempRoot(const std::string& name) {
  const char* base = std::getenv("TEST_TMPDIR");
  const std::string root = std::string(base ? base : "/tmp") + "/" + name;
  fs::remove_all(root);
  fs::create_directories(root);
  return root;
}

std::string WriteConfig(const std::string& root, const std::string& dump_path,
                        const std::string& extra) {
  const std::string path =
      root + "/acl_" + std::to_string(std::rand()) + ".json";
  std::ofstream(path) << R"({"dump":{"dump_path":")" << dump_path
                      << R"(","dump_mode":"all",)" << extra
                      << R"("dump_list":[{"model_name":"resnet_tiny"}]}})";
  return path;
}

size_t RegularFiles(const std::string& root) {
  size_t files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(root))
    files += entry.is_regular_file();
  return files;
}

// Runs the model `executions` times from three threads under a dump config.
void DumpExecutions(const std::string& config, int executions) {
  ASSERT_EQ(aclmdlInitDump(), ACL_SUCCESS);
  ASSERT_EQ(aclmdlSetDump(config.c_str()), ACL_SUCCESS) << aclGetRecentErrMsg();
  uint32_t id = 0;
  ASSERT_EQ(aclmdlLoadFromFile(kModel, &id), ACL_SUCCESS)
      << aclGetRecentErrMsg();
  std::atomic<int> left{executions}, failed{0};
  auto run = [&] {
    aclmdlDesc* desc = aclmdlCreateDesc();
    aclmdlGetDesc(desc, id);
    std::vector<std::vector<float>> memory;
    aclmdlDataset* in = aclmdlCreateDataset();
    aclmdlDataset* out = aclmdlCreateDataset();
    for (size_t i = 0; i < aclmdlGetNumInputs(desc); ++i) {
      memory.emplace_back(aclmdlGetInputSizeByIndex(desc, i) / 4);
      for (size_t k = 0; k < memory.back().size(); ++k)
        memory.back()[k] = float(k % 11) * 0.1f;
      aclmdlAddDatasetBuffer(in, aclCreateDataBuffer(memory.back().data(),
                                                     memory.back().size() * 4));
    }
    for (size_t i = 0; i < aclmdlGetNumOutputs(desc); ++i) {
      memory.emplace_back(aclmdlGetOutputSizeByIndex(desc, i) / 4);
      aclmdlAddDatasetBuffer(
          out,
          aclCreateDataBuffer(memory.back().data(), memory.back().size() * 4));
    }
    while (left.fetch_sub(1) > 0) {
      if (aclmdlExecute(id, in, out) != ACL_SUCCESS) ++failed;
    }
    for (aclmdlDataset* d : {in, out}) {
      for (size_t i = 0; i < aclmdlGetDatasetNumBuffers(d); ++i)
        aclDestroyDataBuffer(aclmdlGetDatasetBuffer(d, i));
      aclmdlDestroyDataset(d);
    }
    aclmdlDestroyDesc(desc);
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t) threads.emplace_back(run);
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(failed.load(), 0);
  EXPECT_EQ(aclmdlUnload(id), ACL_SUCCESS);
}

// The tensors of each dumped operator execution, keyed without what differs
// between two runs (time folder, model id, timestamps).
std::multiset<std::string> DumpedTensors(const std::string& root) {
  absl::StatusOr<acldump::dump::DumpTree> tree =
      acldump::dump::ScanDumpTree(root);
  EXPECT_TRUE(tree.ok()) << tree.status();
  std::multiset<std::string> tensors;
  if (!tree.ok()) return tensors;
  for (const acldump::dump::DumpRun& run : tree->runs) {
    for (const acldump::dump::DumpEntry* found : run.files) {
      const acldump::dump::DumpEntry& entry = *found;
      if (entry.kind != acldump::dump::EntryKind::kTensor) continue;
      absl::StatusOr<std::string> bytes =
          acldump::dump::ReadDumpTreeFile(entry.path, uint64_t{1} << 30, "");
      EXPECT_TRUE(bytes.ok()) << bytes.status();
      if (!bytes.ok()) continue;
      absl::StatusOr<acldump::dump::DumpFileContents> file =
          acldump::dump::ParseDumpFile(*bytes);
      EXPECT_TRUE(file.ok()) << entry.path << ": " << file.status();
      if (!file.ok()) continue;
      std::string key = entry.name->op_type + "." + entry.name->op_name +
                        " iteration " + std::to_string(entry.iteration) + ":";
      for (const std::string& t : file->inputs) key += "|" + t;
      for (const std::string& t : file->outputs) key += "|" + t;
      tensors.insert(std::move(key));
    }
  }
  return tensors;
}

class DumpCallbackTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    delivery = new Delivery();
    ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  }
  void TearDown() override {
    acldumpUnregCallback();
    aclFinalize();
    delete delivery;
    delivery = nullptr;
  }
  std::string Layout() const {
    return GetParam() ? R"("dump_layout":"packed",)" : "";
  }
};

TEST_P(DumpCallbackTest, DeliversWhatAFileDumpWritesAndWritesNothing) {
  const std::string root = TempRoot(GetParam() ? "cb_packed" : "cb_sdk");
  fs::create_directories(root + "/callback");
  fs::create_directories(root + "/files");
  ASSERT_EQ(acldumpRegCallback(Collect, 0), ACL_SUCCESS);
  DumpExecutions(WriteConfig(root, root + "/callback", Layout()), 6);
  ASSERT_EQ(aclmdlFinalizeDump(), ACL_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(RegularFiles(root + "/callback"), 0u);
  acldumpUnregCallback();
  DumpExecutions(WriteConfig(root, root + "/files", Layout()), 6);
  ASSERT_EQ(aclmdlFinalizeDump(), ACL_SUCCESS) << aclGetRecentErrMsg();

  // The chunks, written where they say, make a dump tree like the file
  // dump's.
  EXPECT_EQ(delivery->bad_chunks, 0);
  ASSERT_FALSE(delivery->files.empty());
  for (const auto& [name, bytes] : delivery->files) {
    EXPECT_EQ(name.rfind(root + "/callback/", 0), 0u) << name;
    EXPECT_TRUE(delivery->ended[name]) << name << " never ended";
    std::ofstream(name, std::ios::binary) << bytes;
  }
  EXPECT_EQ(RegularFiles(root + "/callback"), RegularFiles(root + "/files"));
  const std::multiset<std::string> delivered =
      DumpedTensors(root + "/callback");
  EXPECT_FALSE(delivered.empty());
  EXPECT_EQ(delivered.size() % 6, 0u);  // every operator of 6 executions
  EXPECT_TRUE(delivered == DumpedTensors(root + "/files"))
      << "the delivered tensors differ from the file dump's";
}

TEST_P(DumpCallbackTest, ARefusedChunkFailsFinalizeDump) {
  const std::string root = TempRoot(GetParam() ? "refuse_packed" : "refuse");
  // Every chunk is refused: in the packed layout a refused index frame or end
  // mark alone loses no record and is not an error (as on disk).
  delivery->refuse_after = 0;
  ASSERT_EQ(acldumpRegCallback(Collect, 0), ACL_SUCCESS);
  DumpExecutions(WriteConfig(root, root, Layout()), 2);
  EXPECT_EQ(aclmdlFinalizeDump(), ACL_ERROR_WRITE_FILE);
  const std::string message = aclGetRecentErrMsg();
  EXPECT_NE(message.find("the callback returned 5"), std::string::npos)
      << message;
  EXPECT_EQ(RegularFiles(root), 1u);  // the config file only
}

INSTANTIATE_TEST_SUITE_P(Layouts, DumpCallbackTest, ::testing::Bool(),
                         [](const auto& info) {
                           return info.param ? "Packed" : "Sdk";
                         });

TEST(DumpCallbackRulesTest, RegistrationFollowsTheSdk) {
  delivery = new Delivery();
  EXPECT_EQ(acldumpRegCallback(nullptr, 0), ACL_ERROR_FAILURE);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("messageCallback is NULL"),
            std::string::npos);
  EXPECT_EQ(acldumpRegCallback(Collect, 1), ACL_ERROR_FAILURE);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("must be 0"),
            std::string::npos);
  // Before aclInit, and a second registration keeps the first.
  ASSERT_EQ(acldumpRegCallback(Collect, 0), ACL_SUCCESS);
  EXPECT_EQ(acldumpRegCallback(Other, 0), ACL_SUCCESS);
  const std::string root = TempRoot("rules");
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  DumpExecutions(WriteConfig(root, root, ""), 1);
  EXPECT_EQ(aclmdlFinalizeDump(), ACL_SUCCESS);
  EXPECT_GT(delivery->chunks, 0);
  acldumpUnregCallback();
  acldumpUnregCallback();  // nothing registered: nothing happens
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
  delete delivery;
  delivery = nullptr;
}

TEST(DumpPathTest, DataAndExceptionPaths) {
  const std::string root = TempRoot("paths");
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  EXPECT_EQ(acldumpGetPath(DATA_DUMP), nullptr);
  EXPECT_EQ(acldumpGetPath(static_cast<acldumpType>(9)), nullptr);
  EXPECT_EQ(aclmdlInitDump(), ACL_SUCCESS);
  ASSERT_EQ(aclmdlSetDump(WriteConfig(root, root, "").c_str()), ACL_SUCCESS);
  ASSERT_NE(acldumpGetPath(DATA_DUMP), nullptr);
  EXPECT_EQ(std::string(acldumpGetPath(DATA_DUMP)), root);
  EXPECT_EQ(std::string(acldumpGetPath(OVERFLOW_DUMP)), root);
  EXPECT_EQ(acldumpGetPath(AIC_ERR_NORM_DUMP), nullptr);
  char path[ACL_DUMP_MAX_FILE_PATH_LENGTH];
  EXPECT_EQ(acldumpGetExceptionInfoPath(path, sizeof(path)), ACL_ERROR_FAILURE);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("needs exception dump"),
            std::string::npos);

  const std::string exception_config = root + "/exception.json";
  std::ofstream(exception_config) << R"({"dump":{"dump_path":")" << root
                                  << R"(","dump_scene":"aic_err_norm_dump"}})";
  ASSERT_EQ(aclmdlSetDump(exception_config.c_str()), ACL_SUCCESS)
      << aclGetRecentErrMsg();
  EXPECT_EQ(acldumpGetPath(DATA_DUMP), nullptr);
  ASSERT_NE(acldumpGetPath(AIC_ERR_BRIEF_DUMP), nullptr);
  EXPECT_EQ(std::string(acldumpGetPath(AIC_ERR_NORM_DUMP)),
            root + "/extra-info/data-dump");
  EXPECT_TRUE(fs::is_directory(root + "/extra-info/data-dump"));
  ASSERT_EQ(acldumpGetExceptionInfoPath(path, sizeof(path)), ACL_SUCCESS);
  EXPECT_EQ(std::string(path), root + "/extra-info/data-dump/0");
  EXPECT_EQ(acldumpGetExceptionInfoPath(path, 5), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("needs"), std::string::npos);
  EXPECT_EQ(acldumpGetExceptionInfoPath(path, 1), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(acldumpGetExceptionInfoPath(nullptr, 10), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclmdlFinalizeDump(), ACL_SUCCESS);
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
}

acldumpTensorInfo TensorOf(acldumpTensorType type, float* data, size_t count) {
  acldumpTensorInfo info{};
  info.type = type;
  info.tensorSize = count * sizeof(float);
  info.format = 2;  // ND
  info.dataType = ACL_FLOAT;
  info.tensorAddr = reinterpret_cast<int64_t*>(data);
  info.addrType = ACL_DUMP_ADDR_RAW;
  info.placement = ACL_DUMP_PLACEMENT_DEVICE;
  info.shapeNum = 2;
  info.shape[0] = 2;
  info.shape[1] = count / 2;
  return info;
}

TEST(SaveExceptionInfoTest, WritesTheTensorsBesideTheExceptionDump) {
  const std::string root = TempRoot("custom");
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  float in[6] = {1, 2, 3, 4, 5, 6}, out[4] = {-1, -2, -3, -4};
  acldumpTensorInfo tensors[2] = {TensorOf(ACL_DUMP_TENSOR_INPUT, in, 6),
                                  TensorOf(ACL_DUMP_TENSOR_OUTPUT, out, 4)};
  EXPECT_EQ(acldumpSaveExceptionInfo("info", "tag", tensors, 2),
            ACL_ERROR_FAILURE);  // no exception dump
  ASSERT_EQ(aclmdlInitDump(), ACL_SUCCESS);
  const std::string config = root + "/exception.json";
  std::ofstream(config) << R"({"dump":{"dump_path":")" << root
                        << R"(","dump_scene":"aic_err_brief_dump"}})";
  ASSERT_EQ(aclmdlSetDump(config.c_str()), ACL_SUCCESS) << aclGetRecentErrMsg();

  EXPECT_EQ(acldumpSaveExceptionInfo(nullptr, "", tensors, 2),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(acldumpSaveExceptionInfo("", "", tensors, 2),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(acldumpSaveExceptionInfo("a/../b", "", tensors, 2),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("'..'"), std::string::npos);
  EXPECT_EQ(acldumpSaveExceptionInfo("info", "", nullptr, 2),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(acldumpSaveExceptionInfo("info", "", tensors, 0),
            ACL_ERROR_INVALID_PARAM);
  acldumpTensorInfo bad = tensors[1];
  bad.addrType = ACL_DUMP_ADDR_PTR;
  EXPECT_EQ(acldumpSaveExceptionInfo("info", "", &bad, 1),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("tensors[0].addrType"),
            std::string::npos);
  bad = tensors[1];
  bad.shapeNum = ACL_DUMP_MAX_SHAPE_NUM + 1;
  EXPECT_EQ(acldumpSaveExceptionInfo("info", "", &bad, 1),
            ACL_ERROR_INVALID_PARAM);
  bad = tensors[1];
  bad.tensorSize = 0;
  EXPECT_EQ(acldumpSaveExceptionInfo("info", "", &bad, 1),
            ACL_ERROR_INVALID_PARAM);

  ASSERT_EQ(acldumpSaveExceptionInfo("step3/info", "tag", tensors, 2),
            ACL_SUCCESS)
      << aclGetRecentErrMsg();
  const std::string folder = root + "/extra-info/data-dump/0/step3";
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(folder))
    files.push_back(entry.path());
  ASSERT_EQ(files.size(), 1u);
  const std::string name = files[0].filename().string();
  ASSERT_EQ(name.rfind("info.custom.", 0), 0u) << name;
  EXPECT_EQ(name.size(), std::string("info.custom.").size() + 17) << name;
  struct stat st;
  ASSERT_EQ(stat(files[0].c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0400u);
  absl::StatusOr<acldump::dump::DumpFileContents> file =
      acldump::dump::ReadDumpFile(files[0].string());
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_EQ(file->header.op_name(), "info");
  ASSERT_EQ(file->header.attr_size(), 1);
  EXPECT_EQ(file->header.attr(0).name(), "user_tag");
  EXPECT_EQ(file->header.attr(0).value(), "tag");
  ASSERT_EQ(file->inputs.size(), 1u);
  ASSERT_EQ(file->outputs.size(), 1u);
  EXPECT_EQ(file->inputs[0], std::string(reinterpret_cast<char*>(in), 24));
  EXPECT_EQ(file->outputs[0], std::string(reinterpret_cast<char*>(out), 16));
  EXPECT_EQ(file->header.input(0).shape().dim_size(), 2);
  EXPECT_EQ(file->header.input(0).shape().dim(1), 3u);
  EXPECT_EQ(aclmdlFinalizeDump(), ACL_SUCCESS);
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
}

TEST(OpArgsDumpTest, RecordsEachSingleOperatorsArguments) {
  const std::string root = TempRoot("op_args");
  EXPECT_EQ(aclopStartDumpArgs(ACL_OP_DUMP_OP_AICORE_ARGS, nullptr),
            ACL_ERROR_FAILURE);
  EXPECT_EQ(aclopStartDumpArgs(0, root.c_str()), ACL_ERROR_FAILURE);
  EXPECT_NE(
      std::string(aclGetRecentErrMsg()).find("ACL_OP_DUMP_OP_AICORE_ARGS"),
      std::string::npos);
  EXPECT_EQ(aclopStartDumpArgs(ACL_OP_DUMP_OP_AICORE_ARGS, ""),
            ACL_ERROR_FAILURE);
  std::ofstream(root + "/a_file") << "x";
  EXPECT_EQ(aclopStartDumpArgs(ACL_OP_DUMP_OP_AICORE_ARGS,
                               (root + "/a_file").c_str()),
            ACL_ERROR_FAILURE);
  EXPECT_EQ(aclopStopDumpArgs(ACL_OP_DUMP_OP_AICORE_ARGS), ACL_SUCCESS);  // off
  // Before aclInit, into a folder that does not exist yet.
  const std::string folder = root + "/args/deeper";
  ASSERT_EQ(aclopStartDumpArgs(ACL_OP_DUMP_OP_AICORE_ARGS, folder.c_str()),
            ACL_SUCCESS)
      << aclGetRecentErrMsg();
  EXPECT_EQ(aclopStartDumpArgs(ACL_OP_DUMP_OP_AICORE_ARGS, folder.c_str()),
            ACL_ERROR_FAILURE);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("already on"),
            std::string::npos);
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  const int64_t dims[] = {2, 2}, wrong[] = {4};
  aclTensorDesc* desc =
      aclCreateTensorDesc(ACL_FLOAT, 2, dims, ACL_FORMAT_NCHW);
  aclTensorDesc* wrong_desc =
      aclCreateTensorDesc(ACL_FLOAT, 1, wrong, ACL_FORMAT_ND);
  float a[] = {1, 2, 3, 4}, y[4] = {};
  aclDataBuffer* a_buf = aclCreateDataBuffer(a, sizeof(a));
  aclDataBuffer* y_buf = aclCreateDataBuffer(y, sizeof(y));
  aclTensorDesc* in_desc[] = {desc, desc};
  aclDataBuffer* in_buf[] = {a_buf, a_buf};
  aclTensorDesc* out_desc[] = {desc};
  aclTensorDesc* wrong_out[] = {wrong_desc};
  aclDataBuffer* out_buf[] = {y_buf};
  aclopAttr* attr = aclopCreateAttr();
  ASSERT_EQ(aclopSetAttrFloat(attr, "alpha", 0.5f), ACL_SUCCESS);
  ASSERT_EQ(aclopExecuteV2("Add", 2, in_desc, in_buf, 1, out_desc, out_buf,
                           attr, nullptr),
            ACL_SUCCESS)
      << aclGetRecentErrMsg();
  EXPECT_EQ(aclopExecuteV2("Add", 2, in_desc, in_buf, 1, wrong_out, out_buf,
                           nullptr, nullptr),
            ACL_ERROR_OP_OUTPUT_NOT_MATCH);
  EXPECT_EQ(aclopStopDumpArgs(0), ACL_SUCCESS);  // not the args type: stays on
  ASSERT_EQ(aclopStopDumpArgs(ACL_OP_DUMP_OP_AICORE_ARGS), ACL_SUCCESS);
  // Off: not recorded.
  ASSERT_EQ(aclopExecuteV2("Add", 2, in_desc, in_buf, 1, out_desc, out_buf,
                           nullptr, nullptr),
            ACL_SUCCESS);
  aclopDestroyAttr(attr);
  for (aclDataBuffer* b : {a_buf, y_buf}) aclDestroyDataBuffer(b);
  aclDestroyTensorDesc(desc);
  aclDestroyTensorDesc(wrong_desc);
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);

  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(folder))
    files.push_back(entry.path());
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].filename().string(),
            "op_args." + std::to_string(getpid()) + ".jsonl");
  std::ifstream in(files[0]);
  std::vector<nlohmann::json> lines;
  for (std::string line; std::getline(in, line);)
    lines.push_back(nlohmann::json::parse(line));
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0]["op_type"], "Add");
  EXPECT_EQ(lines[0]["sequence"], 0);
  EXPECT_EQ(lines[0]["status"], "ok");
  ASSERT_EQ(lines[0]["inputs"].size(), 2u);
  EXPECT_EQ(lines[0]["inputs"][0]["dtype"], "float32");
  EXPECT_EQ(lines[0]["inputs"][0]["shape"], nlohmann::json::array({2, 2}));
  EXPECT_EQ(lines[0]["inputs"][0]["format"], ACL_FORMAT_NCHW);
  EXPECT_EQ(lines[0]["inputs"][0]["bytes"], 16);
  EXPECT_EQ(lines[0]["attrs"]["alpha"], "0.5");
  EXPECT_EQ(lines[1]["sequence"], 1);
  EXPECT_NE(lines[1]["status"].get<std::string>().find("float32[4]"),
            std::string::npos);
}

}  // namespace
