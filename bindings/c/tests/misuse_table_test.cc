// The misuse table (testdata/misuse_cases.json) through the C ABI: every case
// the C library itself detects ("source": "c_abi") gives the code and message
// the language bindings give for it. The cases a binding checks before calling
// C (inputs by name, typed tensors) have no C form.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "nlohmann/json.hpp"

namespace {

using ::testing::HasSubstr;

constexpr char kTable[] = "testdata/misuse_cases.json";

// Bytes of a dtype named as the table names them.
size_t ElementSize(const std::string& dtype) {
  if (dtype == "float64" || dtype == "int64" || dtype == "uint64") return 8;
  if (dtype == "float32" || dtype == "int32" || dtype == "uint32") return 4;
  if (dtype == "float16" || dtype == "int16" || dtype == "uint16") return 2;
  return 1;
}

// A dataset of zero-filled buffers of the given sizes.
struct Buffers {
  std::vector<std::vector<std::byte>> memory;
  aclmdlDataset* dataset = aclmdlCreateDataset();
  explicit Buffers(const std::vector<size_t>& sizes) {
    memory.reserve(sizes.size());
    for (size_t size : sizes) {
      memory.emplace_back(size);
      aclmdlAddDatasetBuffer(
          dataset,
          aclCreateDataBuffer(size ? memory.back().data() : nullptr, size));
    }
  }
  ~Buffers() {
    for (size_t i = 0; i < aclmdlGetDatasetNumBuffers(dataset); ++i)
      aclDestroyDataBuffer(aclmdlGetDatasetBuffer(dataset, i));
    aclmdlDestroyDataset(dataset);
  }
};

class MisuseTableTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::ifstream in(kTable);
    ASSERT_TRUE(in) << kTable;
    table_ = nlohmann::json::parse(in);
  }
  nlohmann::json table_;
};

TEST_F(MisuseTableTest, CasesTheCLibraryDetects) {
  int run = 0;
  for (const nlohmann::json& c : table_["cases"]) {
    if (c["source"] != "c_abi") continue;
    SCOPED_TRACE(c["name"].get<std::string>());
    ++run;
    ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
    uint32_t id = 0;
    ASSERT_EQ(
        aclmdlLoadFromFile(table_["model"].get<std::string>().c_str(), &id),
        ACL_SUCCESS)
        << aclGetRecentErrMsg();
    if (c.value("before", "") == "close_model") {
      ASSERT_EQ(aclmdlUnload(id), ACL_SUCCESS);
    }
    const nlohmann::json& args = c["args"];
    std::vector<size_t> inputs;
    const std::string action = c["action"];
    if (action == "run_positional") {
      for (const auto& spec : args["inputs"]) inputs.push_back(spec["bytes"]);
    } else if (action == "run_named") {
      for (const auto& [name, spec] : args["inputs"].items()) {
        size_t bytes = ElementSize(spec["dtype"]);
        for (int64_t d : spec["shape"]) bytes *= static_cast<size_t>(d);
        inputs.push_back(bytes);
      }
    } else {
      ASSERT_EQ(action, "execute_model_id");
      id = args["model_id"];
    }
    Buffers in(inputs), out({40, 40});
    const aclError code = aclmdlExecute(id, in.dataset, out.dataset);
    EXPECT_EQ(code, c["expect"]["code"].get<int>());
    EXPECT_THAT(aclGetRecentErrMsg(),
                HasSubstr(c["expect"]["message"].get<std::string>()));
    aclFinalize();
  }
  EXPECT_GE(run, 3);
}

}  // namespace
