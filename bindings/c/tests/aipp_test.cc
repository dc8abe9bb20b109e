// AIPP through the C ABI: what a model's inputs are to AIPP, the static
// configuration read back, and dynamic parameters checked, written and run.
#include "kernels/aipp.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "acl/acl.h"

namespace {

using ::testing::HasSubstr;

constexpr char kStatic[] = "testdata/resnet_tiny_aipp.om";
constexpr char kDynamic[] = "testdata/resnet_tiny_dynaipp.om";
constexpr char kPlain[] = "testdata/resnet_tiny.om";

std::string Message() { return aclGetRecentErrMsg(); }

class AippTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS); }
  void TearDown() override { aclFinalize(); }

  uint32_t Load(const char* path) {
    uint32_t id = 0;
    EXPECT_EQ(aclmdlLoadFromFile(path, &id), ACL_SUCCESS) << Message();
    return id;
  }
};

TEST_F(AippTest, InputsAreDescribedAsTheSdkDoes) {
  const uint32_t plain = Load(kPlain);
  const uint32_t fixed = Load(kStatic);
  const uint32_t dynamic = Load(kDynamic);
  aclmdlInputAippType type;
  size_t attached = 0;
  ASSERT_EQ(aclmdlGetAippType(plain, 0, &type, &attached), ACL_SUCCESS);
  EXPECT_EQ(type, ACL_DATA_WITHOUT_AIPP);
  EXPECT_EQ(attached, ACL_INVALID_NODE_INDEX);
  ASSERT_EQ(aclmdlGetAippType(fixed, 0, &type, &attached), ACL_SUCCESS);
  EXPECT_EQ(type, ACL_DATA_WITH_STATIC_AIPP);
  ASSERT_EQ(aclmdlGetAippType(dynamic, 0, &type, &attached), ACL_SUCCESS);
  EXPECT_EQ(type, ACL_DATA_WITH_DYNAMIC_AIPP);
  EXPECT_EQ(attached, 1u);
  ASSERT_EQ(aclmdlGetAippType(dynamic, 1, &type, &attached), ACL_SUCCESS);
  EXPECT_EQ(type, ACL_DYNAMIC_AIPP_NODE);
  EXPECT_EQ(aclmdlGetAippType(dynamic, 2, &type, &attached),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclmdlGetAippType(dynamic, 0, nullptr, &attached),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclmdlGetAippType(999, 0, &type, &attached),
            ACL_ERROR_GE_EXEC_MODEL_ID_INVALID);

  aclAippInfo info;
  EXPECT_EQ(aclmdlGetFirstAippInfo(plain, 0, &info),
            ACL_ERROR_GE_AIPP_NOT_EXIST);
  EXPECT_EQ(aclmdlGetFirstAippInfo(dynamic, 0, &info),
            ACL_ERROR_NOT_STATIC_AIPP);
  ASSERT_EQ(aclmdlGetFirstAippInfo(fixed, 0, &info), ACL_SUCCESS) << Message();
  EXPECT_EQ(info.inputFormat, ACL_YUV420SP_U8);
  EXPECT_EQ(info.srcImageSizeW, 40);
  EXPECT_EQ(info.cropSizeW, 32);
  EXPECT_EQ(info.topPaddingSize, 1);
  EXPECT_EQ(info.matrixR2C1, 454);
  EXPECT_EQ(info.inputBias1, 128);
  EXPECT_EQ(info.meanChn2, 104);
  EXPECT_FLOAT_EQ(info.varReciChn0, 0.0171f);
  EXPECT_EQ(info.srcDatatype, ACL_UINT8);
  EXPECT_EQ(info.outDims[0].srcSize, 40u * 36 * 3 / 2);
  EXPECT_EQ(info.outDims[0].aippOutSize, 3u * 32 * 32 * 4);
  // The image input's size is the frame's.
  aclmdlDesc* desc = aclmdlCreateDesc();
  ASSERT_EQ(aclmdlGetDesc(desc, fixed), ACL_SUCCESS);
  EXPECT_EQ(aclmdlGetInputSizeByIndex(desc, 0), 40u * 36 * 3 / 2);
  EXPECT_EQ(aclmdlGetInputDataType(desc, 0), ACL_UINT8);
  EXPECT_EQ(aclmdlGetInputFormat(desc, 0), ACL_FORMAT_NHWC);
  aclmdlDestroyDesc(desc);
  for (uint32_t id : {plain, fixed, dynamic}) aclmdlUnload(id);
}

TEST_F(AippTest, ParametersAreCheckedWhenSet) {
  EXPECT_EQ(aclmdlCreateAIPP(0), nullptr);
  EXPECT_EQ(aclmdlCreateAIPP(128), nullptr);
  EXPECT_THAT(Message(), HasSubstr("batchSize 128 is out of range [1, 127]"));
  size_t size = 0;
  ASSERT_EQ(aclmdlGetAippDataSize(2, &size), ACL_SUCCESS);
  EXPECT_EQ(size, 64u + 2 * 96);
  EXPECT_EQ(aclmdlGetAippDataSize(0, &size), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclmdlGetAippDataSize(1, nullptr), ACL_ERROR_INVALID_PARAM);
  aclmdlAIPP* aipp = aclmdlCreateAIPP(1);
  ASSERT_NE(aipp, nullptr);
  EXPECT_EQ(aclmdlSetAIPPInputFormat(aipp, ACL_YUV422SP_U8),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclmdlSetAIPPSrcImageSize(aipp, 0, 16), ACL_ERROR_INVALID_PARAM);
  EXPECT_THAT(Message(), HasSubstr("srcImageSizeW 0 is out of range"));
  EXPECT_EQ(aclmdlSetAIPPCropParams(aipp, 1, 0, 0, 32, 32, 1),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_THAT(Message(), HasSubstr("batchIndex 1 is out of range"));
  EXPECT_EQ(aclmdlSetAIPPPaddingParams(aipp, 1, 33, 0, 0, 0, 0),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclmdlSetAIPPPixelVarReci(aipp, NAN, 1, 1, 1, 0),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclmdlSetAIPPDtcPixelMin(aipp, 256, 0, 0, 0, 0),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclmdlSetAIPPScfParams(aipp, 1, 64, 64, 32, 32, 0),
            ACL_ERROR_FEATURE_UNSUPPORTED);
  EXPECT_EQ(aclmdlSetAIPPScfParams(aipp, 0, 0, 0, 0, 0, 0), ACL_SUCCESS);
  EXPECT_EQ(aclmdlDestroyAIPP(aipp), ACL_SUCCESS);
  EXPECT_EQ(aclmdlDestroyAIPP(aipp), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclmdlSetAIPPRbuvSwapSwitch(aipp, 1), ACL_ERROR_INVALID_PARAM);
}

TEST_F(AippTest, DynamicParametersRunAsTheirPreprocessing) {
  // Parameters set per execution give the plain model's output on the image
  // preprocessed by hand with the same parameters, bit for bit.
  const uint32_t plain = Load(kPlain);
  const uint32_t dynamic = Load(kDynamic);
  std::vector<uint8_t> frame(40 * 36 * 3 / 2);
  for (size_t i = 0; i < frame.size(); ++i)
    frame[i] = static_cast<uint8_t>(i * 7 + 3);
  std::vector<uint8_t> images(4096);
  std::memcpy(images.data(), frame.data(), frame.size());
  std::vector<uint8_t> params(160);
  std::vector<float> fc(10), prob(10), fc2(10), prob2(10);
  const auto dataset = [](std::vector<std::pair<void*, size_t>> buffers) {
    aclmdlDataset* set = aclmdlCreateDataset();
    for (auto [data, size] : buffers)
      aclmdlAddDatasetBuffer(set, aclCreateDataBuffer(data, size));
    return set;
  };
  const auto destroy = [](aclmdlDataset* set) {
    for (size_t i = 0; i < aclmdlGetDatasetNumBuffers(set); ++i)
      aclDestroyDataBuffer(aclmdlGetDatasetBuffer(set, i));
    aclmdlDestroyDataset(set);
  };
  aclmdlDataset* in_dynamic =
      dataset({{images.data(), images.size()}, {params.data(), params.size()}});
  aclmdlDataset* out_dynamic = dataset({{fc2.data(), 40}, {prob2.data(), 40}});
  aclmdlAIPP* aipp = aclmdlCreateAIPP(1);
  ASSERT_EQ(aclmdlSetAIPPInputFormat(aipp, ACL_YUV420SP_U8), ACL_SUCCESS);
  ASSERT_EQ(aclmdlSetAIPPSrcImageSize(aipp, 40, 36), ACL_SUCCESS);
  ASSERT_EQ(aclmdlSetAIPPCscParams(aipp, 1, 256, 0, 359, 256, -88, -183, 256,
                                   454, 0, 0, 0, 0, 0, 128, 128),
            ACL_SUCCESS);
  ASSERT_EQ(aclmdlSetAIPPCropParams(aipp, 1, 4, 2, 32, 30, 0), ACL_SUCCESS);
  ASSERT_EQ(aclmdlSetAIPPPaddingParams(aipp, 1, 1, 1, 0, 0, 0), ACL_SUCCESS);
  ASSERT_EQ(aclmdlSetAIPPDtcPixelMean(aipp, 124, 117, 104, 0, 0), ACL_SUCCESS);
  ASSERT_EQ(aclmdlSetAIPPPixelVarReci(aipp, 0.5f, 0.25f, 0.125f, 1, 0),
            ACL_SUCCESS);
  // Not the parameter input; then the right one.
  EXPECT_EQ(aclmdlSetInputAIPP(dynamic, in_dynamic, 0, aipp),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_THAT(Message(), HasSubstr("is not its dynamic AIPP input"));
  // Parameters for another number of images, a buffer too small for them, and
  // an input without dynamic AIPP.
  aclmdlAIPP* two = aclmdlCreateAIPP(2);
  EXPECT_EQ(aclmdlSetInputAIPP(dynamic, in_dynamic, 1, two),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_THAT(Message(), HasSubstr("the AIPP parameters are for 2 images"));
  aclmdlDestroyAIPP(two);
  std::vector<uint8_t> small(100);
  aclmdlDataset* in_small =
      dataset({{images.data(), images.size()}, {small.data(), small.size()}});
  EXPECT_EQ(aclmdlSetInputAIPP(dynamic, in_small, 1, aipp),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_THAT(Message(), HasSubstr("holds 100 bytes; the AIPP parameters "
                                   "need 160"));
  destroy(in_small);
  const uint32_t fixed = Load(kStatic);
  EXPECT_EQ(aclmdlSetAIPPByInputIndex(fixed, in_dynamic, 0, aipp),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_THAT(Message(), HasSubstr("has no dynamic AIPP"));
  aclmdlUnload(fixed);
  ASSERT_EQ(aclmdlSetInputAIPP(dynamic, in_dynamic, 1, aipp), ACL_SUCCESS)
      << Message();
  ASSERT_EQ(aclmdlExecute(dynamic, in_dynamic, out_dynamic), ACL_SUCCESS)
      << Message();
  // The same preprocessing by hand.
  acldump::aipp::Params p;
  p.input_format = acldump::aipp::kYuv420Sp;
  p.src_width = 40;
  p.src_height = 36;
  p.csc = true;
  p.matrix = {256, 0, 359, 256, -88, -183, 256, 454, 0};
  p.input_bias = {0, 128, 128};
  p.batches[0].crop = true;
  p.batches[0].crop_x = 4;
  p.batches[0].crop_y = 2;
  p.batches[0].crop_width = 32;
  p.batches[0].crop_height = 30;
  p.batches[0].padding = true;
  p.batches[0].pad_top = 1;
  p.batches[0].pad_bottom = 1;
  p.batches[0].mean = {124, 117, 104, 0};
  p.batches[0].var_reci = {0.5f, 0.25f, 0.125f, 1};
  std::vector<float> preprocessed(3 * 32 * 32);
  acldump::aipp::Apply(p, frame.data(), frame.size(), 1, 3, 32, 32,
                       preprocessed.data());
  aclmdlDataset* in_plain =
      dataset({{preprocessed.data(), preprocessed.size() * 4}});
  aclmdlDataset* out_plain = dataset({{fc.data(), 40}, {prob.data(), 40}});
  ASSERT_EQ(aclmdlExecute(plain, in_plain, out_plain), ACL_SUCCESS)
      << Message();
  EXPECT_EQ(std::memcmp(fc.data(), fc2.data(), 40), 0);
  EXPECT_EQ(std::memcmp(prob.data(), prob2.data(), 40), 0);
  // A parameter block corrupted after it was set is refused at execution.
  params[4] = 9;  // the block's image count
  EXPECT_NE(aclmdlExecute(dynamic, in_dynamic, out_dynamic), ACL_SUCCESS);
  EXPECT_THAT(Message(), HasSubstr("is set for 9 images"));
  aclmdlDestroyAIPP(aipp);
  for (aclmdlDataset* set : {in_dynamic, out_dynamic, in_plain, out_plain})
    destroy(set);
  aclmdlUnload(plain);
  aclmdlUnload(dynamic);
}

}  // namespace
