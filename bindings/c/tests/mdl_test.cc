// The model calls added for the SDK's samples: query size, load with caller
// memory (and that the model really runs there), execution on a stream,
// indexes by name, current output dims; and their misuse.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "bindings/c/tests/test_models.h"
#include "kernels/npy.h"
#include "runtime/graph.h"
#include "runtime/model_file.h"

namespace {

using ::testing::HasSubstr;

constexpr char kModel[] = "testdata/resnet_tiny.om";

std::string Message() { return aclGetRecentErrMsg(); }

std::vector<float> Floats(const std::string& path) {
  auto tensor = acldump::ReadNpyFile(path);
  EXPECT_TRUE(tensor.ok()) << tensor.status();
  const auto* data = static_cast<const float*>(tensor->data());
  return std::vector<float>(data, data + tensor->NumElements());
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

using acldump::testing::GatherModel;

// resnet_tiny's input in device memory and its outputs, as datasets.
struct Io {
  void* input = nullptr;
  void* outputs[2] = {nullptr, nullptr};
  aclmdlDataset* in = aclmdlCreateDataset();
  aclmdlDataset* out = aclmdlCreateDataset();

  Io() {
    const std::vector<float> image =
        Floats("testdata/resnet_tiny.input.input.npy");
    EXPECT_EQ(aclrtMalloc(&input, image.size() * 4, ACL_MEM_MALLOC_HUGE_FIRST),
              ACL_SUCCESS);
    EXPECT_EQ(aclrtMemcpy(input, image.size() * 4, image.data(),
                          image.size() * 4, ACL_MEMCPY_HOST_TO_DEVICE),
              ACL_SUCCESS)
        << Message();
    aclmdlAddDatasetBuffer(in, aclCreateDataBuffer(input, image.size() * 4));
    for (void*& output : outputs) {
      EXPECT_EQ(aclrtMalloc(&output, 40, ACL_MEM_MALLOC_HUGE_FIRST),
                ACL_SUCCESS);
      std::memset(output, 0, 40);
      aclmdlAddDatasetBuffer(out, aclCreateDataBuffer(output, 40));
    }
  }
  ~Io() {
    for (aclmdlDataset* dataset : {in, out}) {
      for (size_t i = 0; i < aclmdlGetDatasetNumBuffers(dataset); ++i)
        aclDestroyDataBuffer(aclmdlGetDatasetBuffer(dataset, i));
      aclmdlDestroyDataset(dataset);
    }
    for (void* p : {input, outputs[0], outputs[1]}) aclrtFree(p);
  }
  std::vector<float> Prob() const {
    std::vector<float> prob(10);
    EXPECT_EQ(
        aclrtMemcpy(prob.data(), 40, outputs[1], 40, ACL_MEMCPY_DEVICE_TO_HOST),
        ACL_SUCCESS);
    return prob;
  }
};

void ExpectReference(const std::vector<float>& prob) {
  const std::vector<float> expected =
      Floats("testdata/resnet_tiny.output.prob.npy");
  ASSERT_EQ(prob.size(), expected.size());
  for (size_t i = 0; i < prob.size(); ++i)
    EXPECT_NEAR(prob[i], expected[i], 1e-5);
}

class MdlTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
    ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  }
  void TearDown() override { aclFinalize(); }
};

TEST_F(MdlTest, QuerySizeAndLoadWithCallerMemory) {
  size_t work_size = 0, weight_size = 0;
  ASSERT_EQ(aclmdlQuerySize(kModel, &work_size, &weight_size), ACL_SUCCESS)
      << Message();
  EXPECT_GT(work_size, 64u);
  EXPECT_GT(weight_size, 64u);
  const std::string bytes = ReadFile(kModel);
  size_t mem_work = 0, mem_weight = 0;
  ASSERT_EQ(aclmdlQuerySizeFromMem(bytes.data(), bytes.size(), &mem_work,
                                   &mem_weight),
            ACL_SUCCESS);
  EXPECT_EQ(mem_work, work_size);
  EXPECT_EQ(mem_weight, weight_size);
  void* work = nullptr;
  void* weights = nullptr;
  ASSERT_EQ(aclrtMalloc(&work, work_size, ACL_MEM_MALLOC_HUGE_FIRST),
            ACL_SUCCESS);
  ASSERT_EQ(aclrtMalloc(&weights, weight_size, ACL_MEM_MALLOC_HUGE_FIRST),
            ACL_SUCCESS);
  std::memset(work, 0xAB, work_size);
  std::memset(weights, 0xAB, weight_size);
  uint32_t id = 0;
  ASSERT_EQ(aclmdlLoadFromFileWithMem(kModel, &id, work, work_size, weights,
                                      weight_size),
            ACL_SUCCESS)
      << Message();
  // The weights were copied into the caller's memory at load.
  EXPECT_NE(static_cast<unsigned char*>(weights)[0], 0xAB);
  {
    Io io;
    ASSERT_EQ(aclmdlExecute(id, io.in, io.out), ACL_SUCCESS) << Message();
    ExpectReference(io.Prob());
  }
  // Activations went into the caller's work memory.
  const auto* w = static_cast<const unsigned char*>(work);
  EXPECT_NE(std::count(w, w + work_size, 0xAB), static_cast<long>(work_size));
  // Memory a loaded model uses cannot be freed.
  EXPECT_EQ(aclrtFree(work), ACL_ERROR_RT_MEMORY_FREE);
  EXPECT_THAT(Message(), HasSubstr("unload the model"));
  ASSERT_EQ(aclmdlUnload(id), ACL_SUCCESS);
  EXPECT_EQ(aclrtFree(work), ACL_SUCCESS);
  EXPECT_EQ(aclrtFree(weights), ACL_SUCCESS);
}

TEST_F(MdlTest, LoadFromMemWithMemAndSystemManagedParts) {
  const std::string bytes = ReadFile(kModel);
  size_t work_size = 0, weight_size = 0;
  ASSERT_EQ(aclmdlQuerySize(kModel, &work_size, &weight_size), ACL_SUCCESS);
  void* work = nullptr;
  ASSERT_EQ(aclrtMalloc(&work, work_size, ACL_MEM_MALLOC_HUGE_FIRST),
            ACL_SUCCESS);
  uint32_t id = 0;
  // NULL weight memory: the model keeps its own (the size is ignored).
  ASSERT_EQ(aclmdlLoadFromMemWithMem(bytes.data(), bytes.size(), &id, work,
                                     work_size, nullptr, 12345),
            ACL_SUCCESS)
      << Message();
  {
    Io io;
    ASSERT_EQ(aclmdlExecute(id, io.in, io.out), ACL_SUCCESS) << Message();
    ExpectReference(io.Prob());
  }
  ASSERT_EQ(aclmdlUnload(id), ACL_SUCCESS);
  EXPECT_EQ(aclrtFree(work), ACL_SUCCESS);
}

TEST_F(MdlTest, LoadWithMemMisuse) {
  size_t work_size = 0, weight_size = 0;
  ASSERT_EQ(aclmdlQuerySize(kModel, &work_size, &weight_size), ACL_SUCCESS);
  void* work = nullptr;
  void* weights = nullptr;
  ASSERT_EQ(aclrtMalloc(&work, work_size, ACL_MEM_MALLOC_HUGE_FIRST),
            ACL_SUCCESS);
  ASSERT_EQ(aclrtMalloc(&weights, weight_size, ACL_MEM_MALLOC_HUGE_FIRST),
            ACL_SUCCESS);
  uint32_t id = 777;
  EXPECT_EQ(aclmdlLoadFromFileWithMem(kModel, &id, work, work_size - 1, weights,
                                      weight_size),
            ACL_ERROR_GE_PARAM_INVALID);
  EXPECT_THAT(Message(), HasSubstr("work memory of"));
  EXPECT_THAT(Message(), HasSubstr("too small"));
  EXPECT_EQ(aclmdlLoadFromFileWithMem(kModel, &id, work, work_size, weights,
                                      weight_size / 2),
            ACL_ERROR_GE_PARAM_INVALID);
  EXPECT_THAT(Message(), HasSubstr("weight memory of"));
  // Claiming more than was allocated, or memory not from aclrtMalloc.
  EXPECT_EQ(aclmdlLoadFromFileWithMem(kModel, &id, work, work_size * 2, weights,
                                      weight_size),
            ACL_ERROR_GE_PARAM_INVALID);
  EXPECT_THAT(Message(), HasSubstr("not inside one allocation of aclrtMalloc"));
  std::vector<char> heap(work_size);
  EXPECT_EQ(aclmdlLoadFromFileWithMem(kModel, &id, heap.data(), heap.size(),
                                      weights, weight_size),
            ACL_ERROR_GE_PARAM_INVALID);
  EXPECT_EQ(aclmdlLoadFromFileWithMem(nullptr, &id, work, work_size, weights,
                                      weight_size),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclmdlLoadFromFileWithMem(kModel, nullptr, work, work_size, weights,
                                      weight_size),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclmdlLoadFromMemWithMem(nullptr, 10, &id, work, work_size, weights,
                                     weight_size),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclmdlLoadFromFileWithMem("/nonexistent.om", &id, work, work_size,
                                      weights, weight_size),
            ACL_ERROR_READ_MODEL_FAILURE);
  EXPECT_EQ(id, 777u);  // never written on failure
  // Failed loads pinned nothing.
  EXPECT_EQ(aclrtFree(work), ACL_SUCCESS);
  EXPECT_EQ(aclrtFree(weights), ACL_SUCCESS);
}

TEST_F(MdlTest, QuerySizeMisuse) {
  size_t work = 1, weight = 1;
  EXPECT_EQ(aclmdlQuerySize(nullptr, &work, &weight), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclmdlQuerySize(kModel, nullptr, &weight), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclmdlQuerySize(kModel, &work, nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclmdlQuerySize("/nonexistent.om", &work, &weight),
            ACL_ERROR_READ_MODEL_FAILURE);
  EXPECT_EQ(aclmdlQuerySize("/tmp", &work, &weight),
            ACL_ERROR_READ_MODEL_FAILURE);
  EXPECT_THAT(Message(), HasSubstr("it is a directory"));
  EXPECT_EQ(aclmdlQuerySizeFromMem("garbage", 7, &work, &weight),
            ACL_ERROR_PARSE_MODEL);
  EXPECT_EQ(aclmdlQuerySizeFromMem(nullptr, 7, &work, &weight),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(work, 1u);
  EXPECT_EQ(weight, 1u);
}

TEST_F(MdlTest, LoadingADirectorySaysSo) {
  uint32_t id = 0;
  EXPECT_EQ(aclmdlLoadFromFile("/tmp", &id), ACL_ERROR_READ_MODEL_FAILURE);
  EXPECT_THAT(Message(),
              HasSubstr("is not a regular file (it is a directory)"));
}

TEST_F(MdlTest, ExecuteAsyncOnAStream) {
  uint32_t id = 0;
  ASSERT_EQ(aclmdlLoadFromFile(kModel, &id), ACL_SUCCESS) << Message();
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  Io io;
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(aclmdlExecuteAsync(id, io.in, io.out, stream), ACL_SUCCESS)
        << Message();
  }
  // The caller's memory stays pinned until the queued work has run.
  ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS) << Message();
  ExpectReference(io.Prob());
  // The default stream (NULL) too.
  ASSERT_EQ(aclmdlExecuteAsync(id, io.in, io.out, nullptr), ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  // Misuse is caught when the work is queued.
  EXPECT_EQ(aclmdlExecuteAsync(999, io.in, io.out, stream),
            ACL_ERROR_INVALID_MODEL_ID);
  EXPECT_EQ(aclmdlExecuteAsync(id, nullptr, io.out, stream),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclmdlExecuteAsync(id, io.out, io.out, stream),
            ACL_ERROR_MODEL_INPUT_NOT_MATCH);
  EXPECT_THAT(Message(), HasSubstr("has 1 inputs, got 2"));
  EXPECT_EQ(aclmdlExecuteAsync(id, io.in, io.in, stream),
            ACL_ERROR_MODEL_OUTPUT_NOT_MATCH);
  int not_a_stream = 0;
  EXPECT_EQ(aclmdlExecuteAsync(id, io.in, io.out, &not_a_stream),
            ACL_ERROR_RT_PARAM_INVALID);
  std::thread([&] {  // a thread without a context
    EXPECT_EQ(aclmdlExecuteAsync(id, io.in, io.out, nullptr),
              ACL_ERROR_RT_CONTEXT_NULL);
  })
      .join();
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
  EXPECT_EQ(aclmdlUnload(id), ACL_SUCCESS);
}

// A failure of queued work is returned by the next synchronize (once); work
// queued after it still runs.
TEST_F(MdlTest, SynchronizeReturnsTheFirstFailure) {
  const std::string model = GatherModel();
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
  void* flag = nullptr;
  ASSERT_EQ(aclrtMalloc(&flag, 1, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  ASSERT_EQ(aclrtMemset(flag, 1, 0, 1), ACL_SUCCESS);
  ASSERT_EQ(aclmdlExecuteAsync(id, in, out, nullptr), ACL_SUCCESS);
  ASSERT_EQ(aclrtMemsetAsync(flag, 1, 1, 1, nullptr), ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStream(nullptr), ACL_ERROR_FAILURE);
  EXPECT_THAT(Message(), HasSubstr("aclmdlExecuteAsync of model"));
  EXPECT_THAT(Message(), HasSubstr("index 7"));
  EXPECT_EQ(*static_cast<char*>(flag), 1);                  // later work ran
  EXPECT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);  // reported once
  index = 2;
  ASSERT_EQ(aclmdlExecuteAsync(id, in, out, nullptr), ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeDevice(), ACL_SUCCESS);
  EXPECT_EQ(y, 3.0f);
  for (aclDataBuffer* buffer : buffers) aclDestroyDataBuffer(buffer);
  aclmdlDestroyDataset(in);
  aclmdlDestroyDataset(out);
  aclrtFree(flag);
  aclmdlUnload(id);
}

TEST_F(MdlTest, DescriptionAdditions) {
  uint32_t id = 0;
  ASSERT_EQ(aclmdlLoadFromFile(kModel, &id), ACL_SUCCESS) << Message();
  aclmdlDesc* desc = aclmdlCreateDesc();
  ASSERT_EQ(aclmdlGetDesc(desc, id), ACL_SUCCESS);
  size_t index = 99;
  EXPECT_EQ(aclmdlGetInputIndexByName(desc, "input", &index), ACL_SUCCESS);
  EXPECT_EQ(index, 0u);
  EXPECT_EQ(aclmdlGetOutputIndexByName(desc, "prob", &index), ACL_SUCCESS);
  EXPECT_EQ(index, 1u);
  EXPECT_EQ(aclmdlGetInputIndexByName(desc, ACL_DYNAMIC_TENSOR_NAME, &index),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_THAT(Message(), HasSubstr("no input named 'ascend_mbatch_shape_data' "
                                   "(it has 'input')"));
  EXPECT_EQ(index, 1u);
  EXPECT_EQ(aclmdlGetOutputIndexByName(desc, nullptr, &index),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclmdlGetOutputIndexByName(desc, "prob", nullptr),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclmdlGetOutputIndexByName(nullptr, "prob", &index),
            ACL_ERROR_INVALID_PARAM);
  aclmdlIODims dims;
  ASSERT_EQ(aclmdlGetCurOutputDims(desc, 1, &dims), ACL_SUCCESS);
  EXPECT_STREQ(dims.name, "prob");
  ASSERT_EQ(dims.dimCount, 2u);
  EXPECT_EQ(dims.dims[1], 10);
  EXPECT_EQ(aclmdlGetCurOutputDims(desc, 2, &dims), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclmdlGetCurOutputDims(desc, 0, nullptr), ACL_ERROR_INVALID_PARAM);
  ASSERT_EQ(aclmdlGetInputDimsV2(desc, 0, &dims), ACL_SUCCESS);
  EXPECT_EQ(dims.dimCount, 4u);
  EXPECT_EQ(dims.dims[3], 32);
  aclmdlBatch batch;
  batch.batchCount = 5;
  EXPECT_EQ(aclmdlGetDynamicBatch(desc, &batch), ACL_SUCCESS);
  EXPECT_EQ(batch.batchCount, 0u);
  aclmdlHW hw;
  hw.hwCount = 5;
  EXPECT_EQ(aclmdlGetDynamicHW(desc, 0, &hw), ACL_SUCCESS);
  EXPECT_EQ(hw.hwCount, 0u);
  EXPECT_EQ(aclmdlGetDynamicHW(desc, 0, nullptr), ACL_ERROR_INVALID_PARAM);
  aclmdlDestroyDesc(desc);
  EXPECT_EQ(aclmdlGetInputIndexByName(desc, "input", &index),
            ACL_ERROR_INVALID_PARAM);  // destroyed
  EXPECT_THAT(Message(), HasSubstr("destroyed"));
  aclmdlUnload(id);
}

TEST_F(MdlTest, DataBufferSizeV1AndHalfConversions) {
  char memory[8];
  aclDataBuffer* buffer = aclCreateDataBuffer(memory, sizeof(memory));
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  EXPECT_EQ(aclGetDataBufferSize(buffer), 8u);
  EXPECT_EQ(aclGetDataBufferSize(nullptr), 0u);
#pragma GCC diagnostic pop
  aclDestroyDataBuffer(buffer);
  EXPECT_EQ(aclFloatToFloat16(1.0f), 0x3C00);
  EXPECT_EQ(aclFloat16ToFloat(0xC000), -2.0f);
}

TEST_F(MdlTest, TensorDescGetters) {
  const int64_t dims[] = {2, 3};
  // (An unknown data type number: enum_args_test.c, in C, where any int may be
  // passed for an enum.)
  aclTensorDesc* desc =
      aclCreateTensorDesc(ACL_FLOAT16, 2, dims, ACL_FORMAT_NCHW);
  ASSERT_NE(desc, nullptr);
  EXPECT_EQ(aclGetTensorDescFormat(desc), ACL_FORMAT_NCHW);
  EXPECT_EQ(aclGetTensorDescElementCount(desc), 6u);
  EXPECT_EQ(aclGetTensorDescSize(desc), 12u);
  int64_t dim = 0;
  EXPECT_EQ(aclGetTensorDescDimV2(desc, 1, &dim), ACL_SUCCESS);
  EXPECT_EQ(dim, 3);
  EXPECT_EQ(aclGetTensorDescDimV2(desc, 2, &dim), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclGetTensorDescDimV2(desc, 0, nullptr), ACL_ERROR_INVALID_PARAM);
  aclDestroyTensorDesc(desc);
  EXPECT_EQ(aclGetTensorDescDimV2(desc, 0, &dim), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclGetTensorDescFormat(desc), ACL_FORMAT_UNDEFINED);
}

// Outputs whose size depends on the input (NMS picks the boxes): the desc
// gives them -1 dims and size 0, an execution into buffers with room for the
// largest result fills them, and aclmdlGetCurOutputDims says how much.
TEST_F(MdlTest, OutputsWhoseSizeVariesReportTheirDimsPerExecution) {
  uint32_t id = 0;
  ASSERT_EQ(aclmdlLoadFromFile("testdata/postprocess_tiny.om", &id),
            ACL_SUCCESS)
      << Message();
  aclmdlDesc* desc = aclmdlCreateDesc();
  ASSERT_EQ(aclmdlGetDesc(desc, id), ACL_SUCCESS);
  aclmdlIODims dims;
  ASSERT_EQ(aclmdlGetOutputDims(desc, 0, &dims), ACL_SUCCESS);
  ASSERT_EQ(dims.dimCount, 2u);
  EXPECT_EQ(dims.dims[0], -1);
  EXPECT_EQ(dims.dims[1], 4);
  EXPECT_EQ(aclmdlGetOutputSizeByIndex(desc, 0), 0u);
  EXPECT_EQ(aclmdlGetOutputSizeByIndex(desc, 1), 4u);  // best: a scalar
  const std::vector<float> scores =
      Floats("testdata/postprocess_tiny.input.scores.npy");
  const std::vector<float> boxes =
      Floats("testdata/postprocess_tiny.input.boxes.npy");
  aclmdlDataset* inputs = aclmdlCreateDataset();
  aclmdlDataset* outputs = aclmdlCreateDataset();
  std::vector<aclDataBuffer*> buffers;
  auto add = [&](aclmdlDataset* set, void* data, size_t size) {
    buffers.push_back(aclCreateDataBuffer(data, size));
    ASSERT_EQ(aclmdlAddDatasetBuffer(set, buffers.back()), ACL_SUCCESS);
  };
  add(inputs, const_cast<float*>(scores.data()), scores.size() * 4);
  add(inputs, const_cast<float*>(boxes.data()), boxes.size() * 4);
  std::vector<std::vector<float>> room(4, std::vector<float>(24, -1));
  for (auto& r : room) add(outputs, r.data(), r.size() * 4);
  ASSERT_EQ(aclmdlExecute(id, inputs, outputs), ACL_SUCCESS) << Message();
  ASSERT_EQ(aclmdlGetCurOutputDims(desc, 0, &dims), ACL_SUCCESS);
  ASSERT_EQ(dims.dimCount, 2u);
  EXPECT_EQ(dims.dims[0], 4);  // four boxes kept
  EXPECT_EQ(dims.dims[1], 4);
  const std::vector<float> expected =
      Floats("testdata/postprocess_tiny.output.boxes_out.npy");
  EXPECT_EQ(std::vector<float>(room[0].begin(), room[0].begin() + 16),
            expected);
  ASSERT_EQ(aclmdlGetCurOutputDims(desc, 3, &dims), ACL_SUCCESS);
  EXPECT_EQ(dims.dimCount, 2u);
  EXPECT_EQ(dims.dims[1], 4);  // four scores above 0.5
  // A buffer too small for this execution's result.
  aclDataBuffer* small = aclCreateDataBuffer(room[0].data(), 32);
  aclmdlDataset* small_outputs = aclmdlCreateDataset();
  ASSERT_EQ(aclmdlAddDatasetBuffer(small_outputs, small), ACL_SUCCESS);
  for (size_t k = 1; k < 4; ++k) {
    ASSERT_EQ(aclmdlAddDatasetBuffer(small_outputs, buffers[2 + k]),
              ACL_SUCCESS);
  }
  EXPECT_EQ(aclmdlExecute(id, inputs, small_outputs),
            ACL_ERROR_MODEL_OUTPUT_NOT_MATCH);
  EXPECT_THAT(Message(), HasSubstr("needs 64 bytes"));
  aclmdlDestroyDataset(small_outputs);
  aclDestroyDataBuffer(small);
  for (aclDataBuffer* b : buffers) aclDestroyDataBuffer(b);
  aclmdlDestroyDataset(inputs);
  aclmdlDestroyDataset(outputs);
  aclmdlDestroyDesc(desc);
  ASSERT_EQ(aclmdlUnload(id), ACL_SUCCESS);
}

}  // namespace
