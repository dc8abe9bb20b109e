// Models over the per-model memory limit (ACLDUMP_MAX_MODEL_MEMORY_MB, set
// here to 1 MiB before anything reads it) are refused with
// ACL_ERROR_BAD_ALLOC before anything is allocated; no std::bad_alloc
// escapes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "acl/acl.h"
#include "runtime/graph.h"
#include "runtime/model_file.h"

namespace {

using ::testing::HasSubstr;

// x -> Relu -> a -> Relu -> b -> Relu -> y over 2^20 floats: 8 MiB of
// activations between the caller's input and output.
std::string LargeModel() {
  acldump::Graph graph;
  graph.name = "large";
  const acldump::TensorInfo info{acldump::DType::kFloat32, {1, 1 << 20}};
  graph.inputs = {{"x", info}};
  graph.outputs = {{"y", info}};
  const char* values[] = {"x", "a", "b", "y"};
  for (int i = 0; i < 3; ++i) {
    acldump::GraphNode node;
    node.name = std::string("relu") + std::to_string(i);
    node.op_type = "Relu";
    node.inputs = {values[i]};
    node.outputs = {values[i + 1]};
    graph.nodes.push_back(node);
  }
  return acldump::SerializeModel(graph);
}

TEST(MemoryLimitTest, ModelsOverTheLimitAreBadAlloc) {
  ASSERT_EQ(setenv("ACLDUMP_MAX_MODEL_MEMORY_MB", "1", 1), 0);
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  const std::string model = LargeModel();
  uint32_t id = 0;
  EXPECT_EQ(aclmdlLoadFromMem(model.data(), model.size(), &id),
            ACL_ERROR_BAD_ALLOC);
  EXPECT_THAT(aclGetRecentErrMsg(), HasSubstr("ACLDUMP_MAX_MODEL_MEMORY_MB"));
  size_t work = 0, weight = 0;
  EXPECT_EQ(aclmdlQuerySizeFromMem(model.data(), model.size(), &work, &weight),
            ACL_ERROR_BAD_ALLOC);
  void* memory = nullptr;
  ASSERT_EQ(aclrtMalloc(&memory, 16 << 20, ACL_MEM_MALLOC_HUGE_FIRST),
            ACL_SUCCESS);
  EXPECT_EQ(aclmdlLoadFromMemWithMem(model.data(), model.size(), &id, memory,
                                     16 << 20, nullptr, 0),
            ACL_ERROR_BAD_ALLOC);
  EXPECT_EQ(aclrtFree(memory), ACL_SUCCESS);
  // A model within the limit still loads.
  EXPECT_EQ(aclmdlLoadFromFile("testdata/resnet_tiny.om", &id), ACL_SUCCESS)
      << aclGetRecentErrMsg();
  EXPECT_EQ(aclmdlUnload(id), ACL_SUCCESS);
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
}

}  // namespace
