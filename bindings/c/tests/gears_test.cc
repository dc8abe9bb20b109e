// Dynamic models through the C ABI: gears described, selected with the SDK's
// calls and codes, run at every gear (checked against PyTorch's output and
// across gears), and dumped with each gear's shapes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "dump/format/dump_file.h"
#include "kernels/npy.h"

namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kBatchModel[] = "testdata/ocr_tiny_batch.om";  // gears 1, 2, 4
constexpr char kHwModel[] = "testdata/ocr_tiny_hw.om";        // 16x16, 32x24
// x: [-1,3,-1,-1], gears [1,16,16] and [2,32,24].
constexpr char kDimsModel[] = "testdata/ocr_tiny_dims.om";
constexpr size_t kImage = 3 * 16 * 16;  // one 16x16 input
constexpr size_t kProb = 4 * 24 * 24;   // its output

std::string Message() { return aclGetRecentErrMsg(); }

std::vector<float> Floats(const std::string& path) {
  auto tensor = acldump::ReadNpyFile(path);
  EXPECT_TRUE(tensor.ok()) << tensor.status();
  const auto* data = static_cast<const float*>(tensor->data());
  return std::vector<float>(data, data + tensor->NumElements());
}

// Buffers sized as the desc says (the largest gear), in host memory the model
// reads directly.
struct Io {
  aclmdlDesc* desc = aclmdlCreateDesc();
  aclmdlDataset* in = aclmdlCreateDataset();
  aclmdlDataset* out = aclmdlCreateDataset();
  std::vector<std::vector<std::byte>> memory;

  explicit Io(uint32_t id) {
    EXPECT_EQ(aclmdlGetDesc(desc, id), ACL_SUCCESS) << Message();
    for (size_t i = 0; i < aclmdlGetNumInputs(desc); ++i)
      Add(in, aclmdlGetInputSizeByIndex(desc, i));
    for (size_t i = 0; i < aclmdlGetNumOutputs(desc); ++i)
      Add(out, aclmdlGetOutputSizeByIndex(desc, i));
  }
  ~Io() {
    for (aclmdlDataset* dataset : {in, out}) {
      for (size_t i = 0; i < aclmdlGetDatasetNumBuffers(dataset); ++i)
        aclDestroyDataBuffer(aclmdlGetDatasetBuffer(dataset, i));
      aclmdlDestroyDataset(dataset);
    }
    aclmdlDestroyDesc(desc);
  }
  void Add(aclmdlDataset* dataset, size_t size) {
    memory.emplace_back(size);
    aclmdlAddDatasetBuffer(dataset,
                           aclCreateDataBuffer(memory.back().data(), size));
  }
  float* Input() { return reinterpret_cast<float*>(memory[0].data()); }
  const float* Output() const {
    return reinterpret_cast<const float*>(memory.back().data());
  }
  const std::byte* GearInput() const { return memory[1].data(); }
};

class GearsTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS); }
  void TearDown() override { aclFinalize(); }
};

TEST_F(GearsTest, BatchGearsAreDescribedAsTheSdkDoes) {
  uint32_t id = 0;
  ASSERT_EQ(aclmdlLoadFromFile(kBatchModel, &id), ACL_SUCCESS) << Message();
  Io io(id);
  ASSERT_EQ(aclmdlGetNumInputs(io.desc), 2u);  // x, then the gear input
  size_t index = 0;
  ASSERT_EQ(aclmdlGetInputIndexByName(io.desc, ACL_DYNAMIC_TENSOR_NAME, &index),
            ACL_SUCCESS);
  EXPECT_EQ(index, 1u);
  EXPECT_EQ(aclmdlGetInputDataType(io.desc, 1), ACL_INT64);
  EXPECT_EQ(aclmdlGetInputFormat(io.desc, 1), ACL_FORMAT_ND);
  EXPECT_EQ(aclmdlGetInputSizeByIndex(io.desc, 1), 8u);
  aclmdlIODims dims;
  ASSERT_EQ(aclmdlGetInputDims(io.desc, 0, &dims), ACL_SUCCESS);
  EXPECT_THAT(std::vector<int64_t>(dims.dims, dims.dims + dims.dimCount),
              ElementsAre(-1, 3, 16, 16));
  EXPECT_EQ(aclmdlGetInputSizeByIndex(io.desc, 0), 4 * kImage * 4);
  ASSERT_EQ(aclmdlGetOutputDims(io.desc, 0, &dims), ACL_SUCCESS);
  EXPECT_THAT(std::vector<int64_t>(dims.dims, dims.dims + dims.dimCount),
              ElementsAre(4, 4, 24, 24));
  EXPECT_EQ(aclmdlGetOutputSizeByIndex(io.desc, 0), 4 * kProb * 4);
  aclmdlBatch batch;
  ASSERT_EQ(aclmdlGetDynamicBatch(io.desc, &batch), ACL_SUCCESS);
  EXPECT_THAT(
      std::vector<uint64_t>(batch.batch, batch.batch + batch.batchCount),
      ElementsAre(1, 2, 4));
  aclmdlHW hw;
  ASSERT_EQ(aclmdlGetDynamicHW(io.desc, static_cast<size_t>(-1), &hw),
            ACL_SUCCESS);
  EXPECT_EQ(hw.hwCount, 0u);
  aclmdlUnload(id);
}

TEST_F(GearsTest, EveryBatchGearRunsAndMatchesTheReference) {
  uint32_t id = 0;
  ASSERT_EQ(aclmdlLoadFromFile(kBatchModel, &id), ACL_SUCCESS) << Message();
  Io io(id);
  const std::vector<float> image = Floats("testdata/ocr_tiny.input.x.npy");
  const std::vector<float> expected =
      Floats("testdata/ocr_tiny.output.prob.npy");
  ASSERT_EQ(image.size(), kImage);
  ASSERT_EQ(expected.size(), kProb);
  aclmdlIODims dims;
  for (uint64_t batch : {1, 4, 2}) {
    SCOPED_TRACE(batch);
    // Each sample is the image scaled by its index, sample 0 the image itself.
    for (uint64_t b = 0; b < batch; ++b) {
      for (size_t i = 0; i < kImage; ++i)
        io.Input()[b * kImage + i] = image[i] * (1.0f + 0.5f * b);
    }
    ASSERT_EQ(aclmdlSetDynamicBatchSize(id, io.in, 1, batch), ACL_SUCCESS)
        << Message();
    uint64_t written = 0;
    std::memcpy(&written, io.GearInput(), 8);
    EXPECT_EQ(written, batch);
    ASSERT_EQ(aclmdlGetCurOutputDims(io.desc, 0, &dims), ACL_SUCCESS);
    EXPECT_THAT(std::vector<int64_t>(dims.dims, dims.dims + dims.dimCount),
                ElementsAre(batch, 4, 24, 24));
    ASSERT_EQ(aclmdlExecute(id, io.in, io.out), ACL_SUCCESS) << Message();
    for (size_t i = 0; i < kProb; ++i)
      ASSERT_NEAR(io.Output()[i], expected[i], 1e-5) << i;
  }
  // Sample b of gear 4 equals gear 1 run on that sample alone.
  std::vector<float> batched(io.Output(), io.Output() + 2 * kProb);
  for (uint64_t b = 0; b < 2; ++b) {
    for (size_t i = 0; i < kImage; ++i)
      io.Input()[i] = image[i] * (1.0f + 0.5f * b);
    ASSERT_EQ(aclmdlSetDynamicBatchSize(id, io.in, 1, 1), ACL_SUCCESS);
    ASSERT_EQ(aclmdlExecute(id, io.in, io.out), ACL_SUCCESS) << Message();
    for (size_t i = 0; i < kProb; ++i)
      ASSERT_EQ(io.Output()[i], batched[b * kProb + i]) << b << " " << i;
  }
  aclmdlUnload(id);
}

TEST_F(GearsTest, SetDynamicBatchSizeChecksInTheSdkOrder) {
  uint32_t id = 0;
  ASSERT_EQ(aclmdlLoadFromFile(kBatchModel, &id), ACL_SUCCESS) << Message();
  Io io(id);
  EXPECT_EQ(aclmdlSetDynamicBatchSize(id, nullptr, 1, 3),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclmdlSetDynamicBatchSize(id, io.in, 1, 0),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_THAT(Message(), HasSubstr("batchSize must not be 0"));
  EXPECT_EQ(aclmdlSetDynamicBatchSize(id, io.in, 2, 2),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_THAT(Message(), HasSubstr("index 2 is out of range"));
  EXPECT_EQ(aclmdlSetDynamicBatchSize(id + 100, io.in, 1, 2),
            ACL_ERROR_GE_EXEC_MODEL_ID_INVALID);
  EXPECT_EQ(aclmdlSetDynamicBatchSize(id, io.in, 1, 3),
            ACL_ERROR_GE_DYNAMIC_BATCH_SIZE_INVALID);
  EXPECT_THAT(Message(), HasSubstr("batch [3] is not a gear of model"));
  EXPECT_THAT(Message(), HasSubstr("[1] [2] [4]"));
  EXPECT_EQ(aclmdlSetDynamicHWSize(id, io.in, 1, 16, 16),
            ACL_ERROR_GE_DYNAMIC_BATCH_SIZE_INVALID);
  // Sizes past int64 are values that are no gear, in the same place of the
  // order (they were once refused as parameters, before the model's checks).
  for (uint64_t huge : {(uint64_t{1} << 63) + 2, UINT64_MAX}) {
    EXPECT_EQ(aclmdlSetDynamicBatchSize(id, io.in, 1, huge),
              ACL_ERROR_GE_DYNAMIC_BATCH_SIZE_INVALID);
    EXPECT_THAT(Message(), HasSubstr("batch [" + std::to_string(huge) +
                                     "] is not a gear"));
    EXPECT_EQ(aclmdlSetDynamicBatchSize(id + 100, io.in, 1, huge),
              ACL_ERROR_GE_EXEC_MODEL_ID_INVALID);
    EXPECT_EQ(aclmdlSetDynamicHWSize(id, io.in, 1, huge, 16),
              ACL_ERROR_GE_DYNAMIC_BATCH_SIZE_INVALID);
  }
  // A gear input too short for a value.
  aclmdlDataset* small = aclmdlCreateDataset();
  uint16_t two_bytes = 0;
  aclDataBuffer* tiny = aclCreateDataBuffer(&two_bytes, 2);
  aclmdlAddDatasetBuffer(small, tiny);
  EXPECT_EQ(aclmdlSetDynamicBatchSize(id, small, 0, 2),
            ACL_ERROR_GE_DYNAMIC_INPUT_LENGTH_INVALID);
  // 4 bytes hold a 4-byte value, as in the SDK.
  uint32_t four_bytes = 0;
  aclmdlDataset* narrow = aclmdlCreateDataset();
  aclDataBuffer* narrow_buffer = aclCreateDataBuffer(&four_bytes, 4);
  aclmdlAddDatasetBuffer(narrow, narrow_buffer);
  EXPECT_EQ(aclmdlSetDynamicBatchSize(id, narrow, 0, 2), ACL_SUCCESS);
  EXPECT_EQ(four_bytes, 2u);
  for (aclmdlDataset* d : {small, narrow}) aclmdlDestroyDataset(d);
  aclDestroyDataBuffer(tiny);
  aclDestroyDataBuffer(narrow_buffer);
  aclmdlUnload(id);
}

TEST_F(GearsTest, ExecuteChoosesTheGearFromTheGearInput) {
  uint32_t id = 0;
  ASSERT_EQ(aclmdlLoadFromFile(kBatchModel, &id), ACL_SUCCESS) << Message();
  Io io(id);
  // Never set (zeros): the largest gear, as the SDK runs it.
  EXPECT_EQ(aclmdlExecute(id, io.in, io.out), ACL_SUCCESS) << Message();
  // Written by hand with a value that is no gear.
  const uint64_t three = 3;
  std::memcpy(io.memory[1].data(), &three, 8);
  EXPECT_EQ(aclmdlExecute(id, io.in, io.out),
            ACL_ERROR_GE_DYNAMIC_BATCH_SIZE_INVALID);
  EXPECT_THAT(Message(), HasSubstr("selects batch [3]"));
  EXPECT_THAT(Message(), HasSubstr("aclmdlSetDynamicBatchSize"));
  // Without the gear input.
  aclmdlDataset* one = aclmdlCreateDataset();
  aclmdlAddDatasetBuffer(one, aclmdlGetDatasetBuffer(io.in, 0));
  EXPECT_EQ(aclmdlExecute(id, one, io.out), ACL_ERROR_MODEL_INPUT_NOT_MATCH);
  EXPECT_THAT(Message(), HasSubstr("the last is the gear input "
                                   "'ascend_mbatch_shape_data'"));
  aclmdlDestroyDataset(one);
  // Buffers sized for the gear that runs are enough; smaller ones are not.
  ASSERT_EQ(aclmdlSetDynamicBatchSize(id, io.in, 1, 1), ACL_SUCCESS);
  aclmdlDataset* exact = aclmdlCreateDataset();
  aclDataBuffer* x = aclCreateDataBuffer(io.memory[0].data(), kImage * 4);
  aclDataBuffer* gear = aclCreateDataBuffer(io.memory[1].data(), 8);
  aclmdlAddDatasetBuffer(exact, x);
  aclmdlAddDatasetBuffer(exact, gear);
  EXPECT_EQ(aclmdlExecute(id, exact, io.out), ACL_SUCCESS) << Message();
  ASSERT_EQ(aclmdlSetDynamicBatchSize(id, exact, 1, 2), ACL_SUCCESS);
  EXPECT_EQ(aclmdlExecute(id, exact, io.out), ACL_ERROR_MODEL_INPUT_NOT_MATCH);
  EXPECT_THAT(Message(), HasSubstr("[2,3,16,16]"));
  aclmdlDestroyDataset(exact);
  aclDestroyDataBuffer(x);
  aclDestroyDataBuffer(gear);
  aclmdlUnload(id);
}

TEST_F(GearsTest, ImageSizeGears) {
  uint32_t id = 0;
  ASSERT_EQ(aclmdlLoadFromFile(kHwModel, &id), ACL_SUCCESS) << Message();
  Io io(id);
  EXPECT_EQ(aclmdlGetInputSizeByIndex(io.desc, 1), 16u);
  aclmdlIODims dims;
  ASSERT_EQ(aclmdlGetInputDims(io.desc, 0, &dims), ACL_SUCCESS);
  EXPECT_THAT(std::vector<int64_t>(dims.dims, dims.dims + dims.dimCount),
              ElementsAre(1, 3, -1, -1));
  aclmdlHW hw;
  ASSERT_EQ(aclmdlGetDynamicHW(io.desc, static_cast<size_t>(-1), &hw),
            ACL_SUCCESS);
  ASSERT_EQ(hw.hwCount, 2u);
  EXPECT_THAT(std::vector<uint64_t>(
                  {hw.hw[0][0], hw.hw[0][1], hw.hw[1][0], hw.hw[1][1]}),
              ElementsAre(16, 16, 32, 24));
  aclmdlBatch batch;
  ASSERT_EQ(aclmdlGetDynamicBatch(io.desc, &batch), ACL_SUCCESS);
  EXPECT_EQ(batch.batchCount, 0u);
  // Before any gear is set: the largest gear's output dims.
  ASSERT_EQ(aclmdlGetCurOutputDims(io.desc, 0, &dims), ACL_SUCCESS);
  EXPECT_THAT(std::vector<int64_t>(dims.dims, dims.dims + dims.dimCount),
              ElementsAre(1, 4, 48, 36));
  EXPECT_EQ(aclmdlSetDynamicHWSize(id, io.in, 1, 16, 0),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclmdlSetDynamicHWSize(id, io.in, 1, 24, 32),
            ACL_ERROR_GE_DYNAMIC_BATCH_SIZE_INVALID);
  EXPECT_EQ(aclmdlSetDynamicBatchSize(id, io.in, 1, 1),
            ACL_ERROR_GE_DYNAMIC_BATCH_SIZE_INVALID);
  const std::vector<float> image = Floats("testdata/ocr_tiny.input.x.npy");
  const std::vector<float> expected =
      Floats("testdata/ocr_tiny.output.prob.npy");
  std::memcpy(io.Input(), image.data(), kImage * 4);
  ASSERT_EQ(aclmdlSetDynamicHWSize(id, io.in, 1, 16, 16), ACL_SUCCESS);
  uint64_t written[2] = {0, 0};
  std::memcpy(written, io.GearInput(), 16);
  EXPECT_THAT(written, ElementsAre(16, 16));
  ASSERT_EQ(aclmdlGetCurOutputDims(io.desc, 0, &dims), ACL_SUCCESS);
  EXPECT_THAT(std::vector<int64_t>(dims.dims, dims.dims + dims.dimCount),
              ElementsAre(1, 4, 24, 24));
  ASSERT_EQ(aclmdlExecute(id, io.in, io.out), ACL_SUCCESS) << Message();
  for (size_t i = 0; i < kProb; ++i)
    ASSERT_NEAR(io.Output()[i], expected[i], 1e-5) << i;
  ASSERT_EQ(aclmdlSetDynamicHWSize(id, io.in, 1, 32, 24), ACL_SUCCESS);
  ASSERT_EQ(aclmdlExecute(id, io.in, io.out), ACL_SUCCESS) << Message();
  aclmdlUnload(id);
  // The desc outlives its model: the current dims need the model.
  EXPECT_EQ(aclmdlGetCurOutputDims(io.desc, 0, &dims),
            ACL_ERROR_GE_EXEC_MODEL_ID_INVALID);
}

aclmdlIODims IoDims(std::initializer_list<int64_t> values) {
  aclmdlIODims dims{};
  dims.dimCount = values.size();
  std::copy(values.begin(), values.end(), dims.dims);
  return dims;
}

TEST_F(GearsTest, DimsGearsAsTheSdkDescribesAndSetsThem) {
  uint32_t id = 0;
  ASSERT_EQ(aclmdlLoadFromFile(kDimsModel, &id), ACL_SUCCESS) << Message();
  Io io(id);
  // The gear input holds one int64 per -1.
  EXPECT_EQ(aclmdlGetInputSizeByIndex(io.desc, 1), 24u);
  size_t count = 0;
  ASSERT_EQ(
      aclmdlGetInputDynamicGearCount(io.desc, static_cast<size_t>(-1), &count),
      ACL_SUCCESS);
  ASSERT_EQ(count, 2u);
  aclmdlIODims gears[2];
  ASSERT_EQ(
      aclmdlGetInputDynamicDims(io.desc, static_cast<size_t>(-1), gears, 2),
      ACL_SUCCESS);
  EXPECT_THAT(
      std::vector<int64_t>(gears[0].dims, gears[0].dims + gears[0].dimCount),
      ElementsAre(1, 3, 16, 16));
  EXPECT_THAT(
      std::vector<int64_t>(gears[1].dims, gears[1].dims + gears[1].dimCount),
      ElementsAre(2, 3, 32, 24));
  EXPECT_EQ(
      aclmdlGetInputDynamicDims(io.desc, static_cast<size_t>(-1), gears, 1),
      ACL_ERROR_INVALID_PARAM);
  EXPECT_THAT(Message(), HasSubstr("gearCount 1 is less than the model's 2"));
  // Errors: the model's kind, the count, a fixed dimension, a missing gear.
  EXPECT_EQ(aclmdlSetDynamicBatchSize(id, io.in, 1, 1),
            ACL_ERROR_GE_DYNAMIC_BATCH_SIZE_INVALID);
  EXPECT_EQ(aclmdlSetInputDynamicDims(id, io.in, 1, nullptr),
            ACL_ERROR_INVALID_PARAM);
  aclmdlIODims dims = IoDims({1, 3, 16});
  EXPECT_EQ(aclmdlSetInputDynamicDims(id, io.in, 1, &dims),
            ACL_ERROR_GE_DYNAMIC_BATCH_SIZE_INVALID);
  EXPECT_THAT(Message(), HasSubstr("dims has 3 values, the inputs 4"));
  dims = IoDims({1, 4, 16, 16});
  EXPECT_EQ(aclmdlSetInputDynamicDims(id, io.in, 1, &dims),
            ACL_ERROR_GE_DYNAMIC_BATCH_SIZE_INVALID);
  EXPECT_THAT(Message(), HasSubstr("dims[1] is 4, but that dimension of "
                                   "input 'x' is fixed at 3"));
  dims = IoDims({1, 3, 32, 24});
  EXPECT_EQ(aclmdlSetInputDynamicDims(id, io.in, 1, &dims),
            ACL_ERROR_GE_DYNAMIC_BATCH_SIZE_INVALID);
  EXPECT_THAT(Message(), HasSubstr("dims [1,32,24] (the values at the -1s) is "
                                   "not a gear of model"));
  EXPECT_THAT(Message(), HasSubstr("its dims gears: [1,16,16] [2,32,24]"));
  // A gear set: the values at the -1s are in the gear input, the current
  // output dims are the gear's, and the output is PyTorch's.
  const std::vector<float> image = Floats("testdata/ocr_tiny.input.x.npy");
  const std::vector<float> expected =
      Floats("testdata/ocr_tiny.output.prob.npy");
  std::memcpy(io.Input(), image.data(), kImage * 4);
  dims = IoDims({1, 3, 16, 16});
  ASSERT_EQ(aclmdlSetInputDynamicDims(id, io.in, 1, &dims), ACL_SUCCESS)
      << Message();
  int64_t written[3] = {};
  std::memcpy(written, io.GearInput(), 24);
  EXPECT_THAT(written, ElementsAre(1, 16, 16));
  aclmdlIODims out;
  ASSERT_EQ(aclmdlGetCurOutputDims(io.desc, 0, &out), ACL_SUCCESS);
  EXPECT_THAT(std::vector<int64_t>(out.dims, out.dims + out.dimCount),
              ElementsAre(1, 4, 24, 24));
  ASSERT_EQ(aclmdlExecute(id, io.in, io.out), ACL_SUCCESS) << Message();
  for (size_t i = 0; i < kProb; ++i)
    ASSERT_NEAR(io.Output()[i], expected[i], 1e-5) << i;
  dims = IoDims({2, 3, 32, 24});
  ASSERT_EQ(aclmdlSetInputDynamicDims(id, io.in, 1, &dims), ACL_SUCCESS);
  ASSERT_EQ(aclmdlExecute(id, io.in, io.out), ACL_SUCCESS) << Message();
  ASSERT_EQ(aclmdlGetCurOutputDims(io.desc, 0, &out), ACL_SUCCESS);
  EXPECT_THAT(std::vector<int64_t>(out.dims, out.dims + out.dimCount),
              ElementsAre(2, 4, 48, 36));
  aclmdlUnload(id);
}

TEST_F(GearsTest, OtherModelsHaveNoDimsGears) {
  uint32_t id = 0;
  ASSERT_EQ(aclmdlLoadFromFile(kHwModel, &id), ACL_SUCCESS) << Message();
  Io io(id);
  size_t count = 7;
  ASSERT_EQ(
      aclmdlGetInputDynamicGearCount(io.desc, static_cast<size_t>(-1), &count),
      ACL_SUCCESS);
  EXPECT_EQ(count, 0u);
  aclmdlIODims gears[1];
  EXPECT_EQ(
      aclmdlGetInputDynamicDims(io.desc, static_cast<size_t>(-1), gears, 1),
      ACL_ERROR_INVALID_PARAM);
  EXPECT_THAT(Message(), HasSubstr("the model has no dims gears"));
  aclmdlIODims dims = IoDims({1, 3, 16, 16});
  EXPECT_EQ(aclmdlSetInputDynamicDims(id, io.in, 1, &dims),
            ACL_ERROR_GE_DYNAMIC_BATCH_SIZE_INVALID);
  EXPECT_THAT(Message(), HasSubstr("is not a gear of model"));
  aclmdlUnload(id);
}

// Output dims of the "prob" dump file of each iteration of a dump tree.
std::map<uint64_t, std::vector<uint64_t>> ProbDims(const fs::path& root) {
  std::map<uint64_t, std::vector<uint64_t>> dims;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    const std::string name = entry.path().filename().string();
    if (!entry.is_regular_file() || name.rfind("Sigmoid.prob.", 0) != 0)
      continue;
    auto contents = acldump::dump::ReadDumpFile(entry.path().string());
    EXPECT_TRUE(contents.ok()) << contents.status();
    const auto& shape = contents->header.output(0).shape().dim();
    dims[std::stoull(entry.path().parent_path().filename().string())] =
        std::vector<uint64_t>(shape.begin(), shape.end());
  }
  return dims;
}

TEST_F(GearsTest, DumpFilesCarryTheShapesOfTheGearThatRan) {
  const fs::path dir = fs::path(testing::TempDir()) / "gears_dump";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string config = (dir / "acl.json").string();
  std::ofstream(config)
      << R"({"dump": {"dump_path": ")" << dir.string()
      << R"(", "dump_list": [{"model_name": "ocr_tiny_batch"}]}})";
  ASSERT_EQ(aclmdlInitDump(), ACL_SUCCESS);
  ASSERT_EQ(aclmdlSetDump(config.c_str()), ACL_SUCCESS) << Message();
  uint32_t id = 0;
  ASSERT_EQ(aclmdlLoadFromFile(kBatchModel, &id), ACL_SUCCESS) << Message();
  {
    Io io(id);
    for (uint64_t batch : {2, 4, 1}) {
      ASSERT_EQ(aclmdlSetDynamicBatchSize(id, io.in, 1, batch), ACL_SUCCESS);
      ASSERT_EQ(aclmdlExecute(id, io.in, io.out), ACL_SUCCESS) << Message();
    }
  }
  ASSERT_EQ(aclmdlFinalizeDump(), ACL_SUCCESS) << Message();
  aclmdlUnload(id);
  const auto dims = ProbDims(dir);
  ASSERT_EQ(dims.size(), 3u);  // iterations 0, 1, 2 across the gears
  EXPECT_THAT(dims.at(0), ElementsAre(2, 4, 24, 24));
  EXPECT_THAT(dims.at(1), ElementsAre(4, 4, 24, 24));
  EXPECT_THAT(dims.at(2), ElementsAre(1, 4, 24, 24));
}

}  // namespace
