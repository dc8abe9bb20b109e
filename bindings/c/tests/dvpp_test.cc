// The media-processing calls (acl/ops/acl_dvpp.h): media memory, every
// descriptor's round trip, the image information calls on the committed
// images, the size predictions, and the processing calls refused with
// ACL_ERROR_FEATURE_UNSUPPORTED.
#define ENABLE_DVPP_INTERFACE
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "acl/ops/acl_dvpp.h"

namespace {

using ::testing::HasSubstr;

std::string Message() { return aclGetRecentErrMsg(); }

std::vector<uint8_t> Image(const std::string& name) {
  std::ifstream in("testdata/images/" + name, std::ios::binary);
  EXPECT_TRUE(in.good()) << name;
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

#define ACL_OK(call) ASSERT_EQ((call), ACL_SUCCESS) << Message()

class DvppTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ACL_OK(aclInit(nullptr));
    ACL_OK(aclrtSetDevice(0));  // a current context, for aclrtMemcpy
  }
  void TearDown() override { aclFinalize(); }
};

// ---- Memory ----

TEST(DvppMemoryTest, MallocNeedsAclInit) {
  void* p = nullptr;
  EXPECT_EQ(acldvppMalloc(&p, 64), ACL_ERROR_UNINITIALIZE);
  EXPECT_EQ(p, nullptr);
}

TEST_F(DvppTest, MallocIsAlignedDeviceMemoryWithTheSdksRoom) {
  std::vector<void*> pointers;
  for (size_t size : {1, 100, 128, 4096, 100000}) {
    void* p = nullptr;
    ACL_OK(acldvppMalloc(&p, size));
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 128, 0u) << size;
    // Device memory for aclrtMemcpy, with size rounded up to 32 plus 32.
    const size_t room = (size + 31) / 32 * 32 + 32;
    std::vector<uint8_t> host(room, 0x5A);
    ACL_OK(aclrtMemcpy(p, room, host.data(), room, ACL_MEMCPY_HOST_TO_DEVICE));
    EXPECT_EQ(static_cast<uint8_t*>(p)[room - 1], 0x5A);
    pointers.push_back(p);
  }
  for (void* p : pointers) ACL_OK(acldvppFree(p));
}

TEST_F(DvppTest, FreeRefusesWhatMallocDidNotReturn) {
  void* p = nullptr;
  ACL_OK(acldvppMalloc(&p, 100));
  // aclrtFree refuses media memory.
  EXPECT_EQ(aclrtFree(p), ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_THAT(Message(), HasSubstr("freed with acldvppFree"));
  ACL_OK(acldvppFree(p));
  EXPECT_EQ(acldvppFree(p), ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_THAT(Message(), HasSubstr("devPtr was not returned by acldvppMalloc "
                                   "or was freed already"));

  void* device = nullptr;
  ACL_OK(aclrtMalloc(&device, 64, ACL_MEM_MALLOC_HUGE_FIRST));
  EXPECT_EQ(acldvppFree(device), ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_THAT(Message(), HasSubstr("free that with aclrtFree"));
  ACL_OK(aclrtFree(device));

  int on_stack = 0;
  EXPECT_EQ(acldvppFree(&on_stack), ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_EQ(acldvppFree(nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(acldvppMalloc(nullptr, 8), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(acldvppMalloc(&p, 0), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(acldvppMalloc(&p, SIZE_MAX), ACL_ERROR_BAD_ALLOC);
}

// Model inputs and outputs in media memory run as in aclrtMalloc memory.
TEST_F(DvppTest, MediaMemoryServesAsModelBuffers) {
  uint32_t id = 0;
  ACL_OK(aclmdlLoadFromFile("testdata/resnet_tiny.om", &id));
  aclmdlDesc* desc = aclmdlCreateDesc();
  ACL_OK(aclmdlGetDesc(desc, id));
  const size_t in_size = aclmdlGetInputSizeByIndex(desc, 0);
  std::vector<float> input(in_size / sizeof(float));
  for (size_t i = 0; i < input.size(); ++i) input[i] = (i % 17) * 0.125f - 1;
  std::vector<std::vector<uint8_t>> results[2];
  for (bool media : {false, true}) {
    auto allocate = [&](size_t size) {
      void* p = nullptr;
      EXPECT_EQ(media ? acldvppMalloc(&p, size)
                      : aclrtMalloc(&p, size, ACL_MEM_MALLOC_HUGE_FIRST),
                ACL_SUCCESS);
      return p;
    };
    std::vector<void*> memory = {allocate(in_size)};
    ACL_OK(aclrtMemcpy(memory[0], in_size, input.data(), in_size,
                       ACL_MEMCPY_HOST_TO_DEVICE));
    aclmdlDataset* inputs = aclmdlCreateDataset();
    aclmdlDataset* outputs = aclmdlCreateDataset();
    ACL_OK(aclmdlAddDatasetBuffer(inputs,
                                  aclCreateDataBuffer(memory[0], in_size)));
    for (size_t i = 0; i < aclmdlGetNumOutputs(desc); ++i) {
      const size_t size = aclmdlGetOutputSizeByIndex(desc, i);
      memory.push_back(allocate(size));
      ACL_OK(aclmdlAddDatasetBuffer(outputs,
                                    aclCreateDataBuffer(memory.back(), size)));
    }
    ACL_OK(aclmdlExecute(id, inputs, outputs));
    for (size_t i = 0; i < aclmdlGetNumOutputs(desc); ++i) {
      const size_t size = aclmdlGetOutputSizeByIndex(desc, i);
      std::vector<uint8_t> host(size);
      ACL_OK(aclrtMemcpy(host.data(), size, memory[i + 1], size,
                         ACL_MEMCPY_DEVICE_TO_HOST));
      results[media].push_back(host);
    }
    for (aclmdlDataset* dataset : {inputs, outputs}) {
      for (size_t i = 0; i < aclmdlGetDatasetNumBuffers(dataset); ++i) {
        aclDestroyDataBuffer(aclmdlGetDatasetBuffer(dataset, i));
      }
      aclmdlDestroyDataset(dataset);
    }
    for (void* p : memory) ACL_OK(media ? acldvppFree(p) : aclrtFree(p));
  }
  ASSERT_EQ(results[0].size(), 2u);
  EXPECT_EQ(results[0], results[1]);
  aclmdlDestroyDesc(desc);
  ACL_OK(aclmdlUnload(id));
}

// ---- Descriptors (no aclInit needed) ----
// (Enum arguments outside an enum's range, which only C may pass:
// dvpp_c_test.c.)

TEST(DvppDescTest, PictureRoundTrip) {
  acldvppPicDesc* pic = acldvppCreatePicDesc();
  ASSERT_NE(pic, nullptr);
  EXPECT_EQ(acldvppGetPicDescData(pic), nullptr);
  EXPECT_EQ(acldvppGetPicDescFormat(pic), PIXEL_FORMAT_YUV_400);
  EXPECT_EQ(acldvppGetPicDescWidth(pic), 0u);
  int buffer = 0;
  ACL_OK(acldvppSetPicDescData(pic, &buffer));
  ACL_OK(acldvppSetPicDescSize(pic, 6144));
  ACL_OK(acldvppSetPicDescFormat(pic, PIXEL_FORMAT_YVU_SEMIPLANAR_420));
  ACL_OK(acldvppSetPicDescWidth(pic, 33));
  ACL_OK(acldvppSetPicDescHeight(pic, 17));
  ACL_OK(acldvppSetPicDescWidthStride(pic, 128));
  ACL_OK(acldvppSetPicDescHeightStride(pic, 32));
  ACL_OK(acldvppSetPicDescRetCode(pic, 7));
  EXPECT_EQ(acldvppGetPicDescData(pic), &buffer);
  EXPECT_EQ(acldvppGetPicDescSize(pic), 6144u);
  EXPECT_EQ(acldvppGetPicDescFormat(pic), PIXEL_FORMAT_YVU_SEMIPLANAR_420);
  EXPECT_EQ(acldvppGetPicDescWidth(pic), 33u);
  EXPECT_EQ(acldvppGetPicDescHeight(pic), 17u);
  EXPECT_EQ(acldvppGetPicDescWidthStride(pic), 128u);
  EXPECT_EQ(acldvppGetPicDescHeightStride(pic), 32u);
  EXPECT_EQ(acldvppGetPicDescRetCode(pic), 7u);
  EXPECT_EQ(Message(), "");
  ACL_OK(acldvppSetPicDescFormat(pic, PIXEL_FORMAT_UNKNOWN));
  EXPECT_EQ(acldvppGetPicDescFormat(pic), PIXEL_FORMAT_UNKNOWN);
  EXPECT_EQ(acldvppSetPicDescFormat(pic, static_cast<acldvppPixelFormat>(45)),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_THAT(Message(), HasSubstr("format 45 is not an acldvppPixelFormat"));
  EXPECT_EQ(acldvppGetPicDescFormat(pic), PIXEL_FORMAT_UNKNOWN);
  ACL_OK(acldvppDestroyPicDesc(pic));

  // A destroyed (or never created) handle is an error, never a crash.
  EXPECT_EQ(acldvppSetPicDescWidth(pic, 1), ACL_ERROR_INVALID_PARAM);
  EXPECT_THAT(Message(), HasSubstr("picDesc is not an acldvppPicDesc from "
                                   "acldvppCreatePicDesc"));
  EXPECT_EQ(acldvppGetPicDescWidth(pic), 0u);
  EXPECT_THAT(Message(), HasSubstr("destroyed"));
  EXPECT_EQ(acldvppDestroyPicDesc(pic), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(acldvppGetPicDescSize(nullptr), 0u);
  EXPECT_THAT(Message(), HasSubstr("picDesc is NULL"));
  EXPECT_EQ(acldvppSetPicDescSize(nullptr, 1), ACL_ERROR_INVALID_PARAM);
  ACL_OK(acldvppDestroyPicDesc(nullptr));
  // A descriptor of another type is refused.
  acldvppStreamDesc* stream = acldvppCreateStreamDesc();
  EXPECT_EQ(
      acldvppSetPicDescWidth(reinterpret_cast<acldvppPicDesc*>(stream), 1),
      ACL_ERROR_INVALID_PARAM);
  ACL_OK(acldvppDestroyStreamDesc(stream));
}

TEST(DvppDescTest, BatchPictures) {
  EXPECT_EQ(acldvppCreateBatchPicDesc(0), nullptr);
  EXPECT_THAT(Message(), HasSubstr("batchSize 0 is not 1.."));
  acldvppBatchPicDesc* batch = acldvppCreateBatchPicDesc(3);
  ASSERT_NE(batch, nullptr);
  acldvppPicDesc* pics[3];
  for (uint32_t i = 0; i < 3; ++i) {
    pics[i] = acldvppGetPicDesc(batch, i);
    ASSERT_NE(pics[i], nullptr);
    ACL_OK(acldvppSetPicDescWidth(pics[i], 10 + i));
  }
  for (uint32_t i = 0; i < 3; ++i) {
    EXPECT_EQ(acldvppGetPicDescWidth(acldvppGetPicDesc(batch, i)), 10 + i);
  }
  EXPECT_EQ(acldvppGetPicDesc(batch, 3), nullptr);
  EXPECT_THAT(Message(), HasSubstr("index 3 is past the batch of 3"));
  EXPECT_EQ(acldvppDestroyPicDesc(pics[1]), ACL_ERROR_INVALID_PARAM);
  EXPECT_THAT(Message(), HasSubstr("acldvppDestroyBatchPicDesc"));
  ACL_OK(acldvppDestroyBatchPicDesc(batch));
  EXPECT_EQ(acldvppGetPicDescWidth(pics[0]), 0u);
  EXPECT_THAT(Message(), HasSubstr("destroyed"));
  EXPECT_EQ(acldvppDestroyBatchPicDesc(batch), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(acldvppGetPicDesc(nullptr, 0), nullptr);
}

TEST(DvppDescTest, RegionsResizeBordersAndJpegEncoding) {
  acldvppRoiConfig* roi = acldvppCreateRoiConfig(0, 31, 2, 17);
  ASSERT_NE(roi, nullptr);
  ACL_OK(acldvppSetRoiConfigLeft(roi, 4));
  ACL_OK(acldvppSetRoiConfigRight(roi, 9));
  ACL_OK(acldvppSetRoiConfigTop(roi, 6));
  ACL_OK(acldvppSetRoiConfigBottom(roi, 11));
  ACL_OK(acldvppSetRoiConfig(roi, 0, 1, 2, 3));
  EXPECT_EQ(acldvppSetRoiConfig(nullptr, 0, 1, 2, 3), ACL_ERROR_INVALID_PARAM);
  ACL_OK(acldvppDestroyRoiConfig(roi));
  EXPECT_EQ(acldvppSetRoiConfigLeft(roi, 4), ACL_ERROR_INVALID_PARAM);

  acldvppResizeConfig* resize = acldvppCreateResizeConfig();
  EXPECT_EQ(acldvppGetResizeConfigInterpolation(resize), 0u);
  ACL_OK(acldvppSetResizeConfigInterpolation(resize, 4));
  EXPECT_EQ(acldvppGetResizeConfigInterpolation(resize), 4u);
  EXPECT_EQ(acldvppSetResizeConfigInterpolation(resize, 5),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_THAT(Message(), HasSubstr("interpolation 5 is not 0..4"));
  EXPECT_EQ(acldvppGetResizeConfigInterpolation(resize), 4u);
  ACL_OK(acldvppDestroyResizeConfig(resize));

  acldvppJpegeConfig* jpege = acldvppCreateJpegeConfig();
  ACL_OK(acldvppSetJpegeConfigLevel(jpege, 100));
  EXPECT_EQ(acldvppGetJpegeConfigLevel(jpege), 100u);
  EXPECT_EQ(acldvppSetJpegeConfigLevel(jpege, 101), ACL_ERROR_INVALID_PARAM);
  ACL_OK(acldvppDestroyJpegeConfig(jpege));

  acldvppBorderConfig* border = acldvppCreateBorderConfig();
  EXPECT_EQ(acldvppGetBorderConfigBorderType(border), BORDER_CONSTANT);
  for (uint32_t i = 0; i < 4; ++i) {
    ACL_OK(acldvppSetBorderConfigValue(border, i, 0.5 * i));
  }
  for (uint32_t i = 0; i < 4; ++i) {
    EXPECT_EQ(acldvppGetBorderConfigValue(border, i), 0.5 * i);
  }
  EXPECT_EQ(acldvppSetBorderConfigValue(border, 4, 1), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(acldvppGetBorderConfigValue(border, 4), 0.0);
  EXPECT_THAT(Message(), HasSubstr("index 4 is not 0..3"));
  ACL_OK(acldvppSetBorderConfigBorderType(border, BORDER_REFLECT_101));
  ACL_OK(acldvppSetBorderConfigTop(border, 1));
  ACL_OK(acldvppSetBorderConfigBottom(border, 2));
  ACL_OK(acldvppSetBorderConfigLeft(border, 3));
  ACL_OK(acldvppSetBorderConfigRight(border, 4));
  EXPECT_EQ(acldvppGetBorderConfigBorderType(border), BORDER_REFLECT_101);
  EXPECT_EQ(acldvppGetBorderConfigTop(border), 1u);
  EXPECT_EQ(acldvppGetBorderConfigBottom(border), 2u);
  EXPECT_EQ(acldvppGetBorderConfigLeft(border), 3u);
  EXPECT_EQ(acldvppGetBorderConfigRight(border), 4u);
  ACL_OK(acldvppDestroyBorderConfig(border));
}

TEST(DvppDescTest, LutMapsAndHistograms) {
  acldvppLutMap* lut = acldvppCreateLutMap();
  EXPECT_EQ(acldvppGetLutMapDims(lut), 3u);
  for (uint32_t dim = 0; dim < 3; ++dim) {
    uint8_t* data = nullptr;
    uint32_t len = 0;
    ACL_OK(acldvppGetLutMapData(lut, dim, &data, &len));
    ASSERT_EQ(len, 256u);
    EXPECT_EQ(data[255], 0);
    for (uint32_t i = 0; i < len; ++i) data[i] = static_cast<uint8_t>(255 - i);
  }
  uint8_t* data = nullptr;
  uint32_t len = 0;
  ACL_OK(acldvppGetLutMapData(lut, 1, &data, &len));
  EXPECT_EQ(data[0], 255);
  EXPECT_EQ(acldvppGetLutMapData(lut, 3, &data, &len), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(acldvppGetLutMapData(lut, 0, nullptr, &len),
            ACL_ERROR_INVALID_PARAM);
  ACL_OK(acldvppDestroyLutMap(lut));
  EXPECT_EQ(acldvppGetLutMapDims(lut), 0u);

  acldvppHist* hist = acldvppCreateHist();
  EXPECT_EQ(acldvppGetHistDims(hist), 3u);
  EXPECT_EQ(acldvppGetHistRetCode(hist), 0u);
  uint32_t* counts = nullptr;
  uint16_t count_len = 0;
  ACL_OK(acldvppGetHistData(hist, 2, &counts, &count_len));
  ASSERT_EQ(count_len, 256);
  counts[7] = 42;
  ACL_OK(acldvppGetHistData(hist, 2, &counts, &count_len));
  EXPECT_EQ(counts[7], 42u);
  ACL_OK(acldvppClearHist(hist));
  EXPECT_EQ(counts[7], 0u);
  EXPECT_EQ(acldvppGetHistData(hist, 3, &counts, &count_len),
            ACL_ERROR_INVALID_PARAM);
  ACL_OK(acldvppDestroyHist(hist));
}

TEST(DvppDescTest, ImageChannelDescriptionAndItsParameters) {
  acldvppChannelDesc* channel = acldvppCreateChannelDesc();
  ASSERT_NE(channel, nullptr);
  EXPECT_EQ(acldvppGetChannelDescChannelId(channel), 0u);
  uint32_t mode = 0;
  size_t size = 0;
  ACL_OK(acldvppGetChannelDescParam(channel, ACL_DVPP_MODE_UINT32, sizeof(mode),
                                    &size, &mode));
  EXPECT_EQ(size, sizeof(uint32_t));
  EXPECT_EQ(mode, 7u);  // VPC | JPEGD | JPEGE
  ACL_OK(acldvppSetChannelDescMode(channel, DVPP_CHNMODE_PNGD));
  ACL_OK(acldvppGetChannelDescParam(channel, ACL_DVPP_MODE_UINT32, sizeof(mode),
                                    &size, &mode));
  EXPECT_EQ(mode, 8u);
  EXPECT_EQ(acldvppSetChannelDescMode(channel, 16), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(acldvppSetChannelDescMode(channel, 0), ACL_ERROR_INVALID_PARAM);

  const uint32_t width = 1920;
  ACL_OK(acldvppSetChannelDescParam(channel, ACL_DVPP_CHANNEL_WIDTH_UINT32,
                                    sizeof(width), &width));
  uint64_t wide[2] = {0, 0};
  ACL_OK(acldvppGetChannelDescParam(channel, ACL_DVPP_CHANNEL_WIDTH_UINT32,
                                    sizeof(wide), &size, wide));
  EXPECT_EQ(size, 4u);
  uint32_t read = 0;
  std::memcpy(&read, wide, sizeof(read));
  EXPECT_EQ(read, 1920u);
  const acldvppJpegdPrecisionMode precision = ACL_YUVOUT_ALIGN_UP;
  ACL_OK(acldvppSetChannelDescParam(channel, ACL_DVPP_JPEGD_PRECISION_MODE_ENUM,
                                    sizeof(precision), &precision));
  const uint32_t bad_matrix = 6;
  EXPECT_EQ(acldvppSetChannelDescParam(channel, ACL_DVPP_CSC_MATRIX_UINT32,
                                       sizeof(bad_matrix), &bad_matrix),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_THAT(Message(), HasSubstr("the value 6 is not an acldvppCscMatrix"));
  const uint64_t id = 5;
  EXPECT_EQ(acldvppSetChannelDescParam(channel, ACL_DVPP_CHANNEL_ID_UINT64,
                                       sizeof(id), &id),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_THAT(Message(), HasSubstr("cannot be set"));
  uint64_t got_id = 9;
  ACL_OK(acldvppGetChannelDescParam(channel, ACL_DVPP_CHANNEL_ID_UINT64,
                                    sizeof(got_id), &size, &got_id));
  EXPECT_EQ(got_id, 0u);
  EXPECT_EQ(acldvppSetChannelDescParam(channel, ACL_DVPP_CHANNEL_WIDTH_UINT32,
                                       8, wide),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_THAT(Message(), HasSubstr("length 8 is not the size of paramType 4"));
  EXPECT_EQ(acldvppGetChannelDescParam(channel, ACL_DVPP_CHANNEL_ID_UINT64, 4,
                                       &size, &got_id),
            ACL_ERROR_INVALID_PARAM);
  ACL_OK(acldvppDestroyChannelDesc(channel));
}

TEST(DvppDescTest, StreamDescription) {
  acldvppStreamDesc* stream = acldvppCreateStreamDesc();
  EXPECT_EQ(acldvppGetStreamDescFormat(stream), H265_MAIN_LEVEL);
  char bytes[4];
  ACL_OK(acldvppSetStreamDescData(stream, bytes));
  ACL_OK(acldvppSetStreamDescSize(stream, 4));
  ACL_OK(acldvppSetStreamDescFormat(stream, H264_HIGH_LEVEL));
  ACL_OK(acldvppSetStreamDescTimestamp(stream, 1ull << 40));
  ACL_OK(acldvppSetStreamDescRetCode(stream, 3));
  ACL_OK(acldvppSetStreamDescEos(stream, 1));
  EXPECT_EQ(acldvppGetStreamDescData(stream), bytes);
  EXPECT_EQ(acldvppGetStreamDescSize(stream), 4u);
  EXPECT_EQ(acldvppGetStreamDescFormat(stream), H264_HIGH_LEVEL);
  EXPECT_EQ(acldvppGetStreamDescTimestamp(stream), 1ull << 40);
  EXPECT_EQ(acldvppGetStreamDescRetCode(stream), 3u);
  EXPECT_EQ(acldvppGetStreamDescEos(stream), 1);
  ACL_OK(acldvppDestroyStreamDesc(stream));
}

void OnFrame(acldvppStreamDesc*, acldvppPicDesc*, void*) {}
void OnStream(acldvppPicDesc*, acldvppStreamDesc*, void*) {}

TEST(DvppDescTest, VideoDecodingDescription) {
  aclvdecChannelDesc* vdec = aclvdecCreateChannelDesc();
  EXPECT_EQ(aclvdecGetChannelDescOutPicFormat(vdec),
            PIXEL_FORMAT_YUV_SEMIPLANAR_420);
  EXPECT_EQ(aclvdecGetChannelDescCallback(vdec), nullptr);
  ACL_OK(aclvdecSetChannelDescChannelId(vdec, 15));
  ACL_OK(aclvdecSetChannelDescThreadId(vdec, 1234567890123ull));
  ACL_OK(aclvdecSetChannelDescCallback(vdec, OnFrame));
  ACL_OK(aclvdecSetChannelDescEnType(vdec, H264_MAIN_LEVEL));
  ACL_OK(
      aclvdecSetChannelDescOutPicFormat(vdec, PIXEL_FORMAT_YVU_SEMIPLANAR_420));
  ACL_OK(aclvdecSetChannelDescOutPicWidth(vdec, 1920));
  ACL_OK(aclvdecSetChannelDescOutPicHeight(vdec, 1080));
  ACL_OK(aclvdecSetChannelDescRefFrameNum(vdec, 4));
  ACL_OK(aclvdecSetChannelDescBitDepth(vdec, 10));
  ACL_OK(aclvdecSetChannelDescOutMode(vdec, 1));
  EXPECT_EQ(aclvdecGetChannelDescChannelId(vdec), 15u);
  EXPECT_EQ(aclvdecGetChannelDescThreadId(vdec), 1234567890123ull);
  EXPECT_EQ(aclvdecGetChannelDescCallback(vdec), &OnFrame);
  EXPECT_EQ(aclvdecGetChannelDescEnType(vdec), H264_MAIN_LEVEL);
  EXPECT_EQ(aclvdecGetChannelDescOutPicFormat(vdec),
            PIXEL_FORMAT_YVU_SEMIPLANAR_420);
  EXPECT_EQ(aclvdecGetChannelDescOutPicWidth(vdec), 1920u);
  EXPECT_EQ(aclvdecGetChannelDescOutPicHeight(vdec), 1080u);
  EXPECT_EQ(aclvdecGetChannelDescRefFrameNum(vdec), 4u);
  EXPECT_EQ(aclvdecGetChannelDescBitDepth(vdec), 10u);
  EXPECT_EQ(aclvdecGetChannelDescOutMode(vdec), 1u);
  // The parameters are the same fields.
  uint32_t value = 0;
  size_t size = 0;
  ACL_OK(aclvdecGetChannelDescParam(vdec, ACL_VDEC_OUT_PIC_WIDTH_UINT32,
                                    sizeof(value), &size, &value));
  EXPECT_EQ(value, 1920u);
  aclvdecCallback callback = nullptr;
  ACL_OK(aclvdecGetChannelDescParam(vdec, ACL_VDEC_CALLBACK_PTR,
                                    sizeof(callback), &size, &callback));
  EXPECT_EQ(callback, &OnFrame);
  value = PIXEL_FORMAT_RGB_888;
  ACL_OK(aclvdecSetChannelDescParam(vdec, ACL_VDEC_OUT_PIC_FORMAT_UINT32,
                                    sizeof(value), &value));
  EXPECT_EQ(aclvdecGetChannelDescOutPicFormat(vdec), PIXEL_FORMAT_RGB_888);
  value = 12345;
  EXPECT_EQ(aclvdecSetChannelDescParam(vdec, ACL_VDEC_OUT_PIC_FORMAT_UINT32,
                                       sizeof(value), &value),
            ACL_ERROR_INVALID_PARAM);
  value = 2;
  ACL_OK(aclvdecSetChannelDescParam(vdec, ACL_VDEC_CSC_MATRIX_UINT32,
                                    sizeof(value), &value));
  uint64_t thread = 0;
  ACL_OK(aclvdecGetChannelDescParam(vdec, ACL_VDEC_THREAD_ID_UINT64,
                                    sizeof(thread), &size, &thread));
  EXPECT_EQ(thread, 1234567890123ull);
  ACL_OK(aclvdecDestroyChannelDesc(vdec));

  aclvdecFrameConfig* frame = aclvdecCreateFrameConfig();
  ASSERT_NE(frame, nullptr);
  ACL_OK(aclvdecDestroyFrameConfig(frame));
  EXPECT_EQ(aclvdecDestroyFrameConfig(frame), ACL_ERROR_INVALID_PARAM);
}

TEST(DvppDescTest, VideoEncodingDescription) {
  aclvencChannelDesc* venc = aclvencCreateChannelDesc();
  int buffer = 0;
  ACL_OK(aclvencSetChannelDescThreadId(venc, 77));
  ACL_OK(aclvencSetChannelDescCallback(venc, OnStream));
  ACL_OK(aclvencSetChannelDescEnType(venc, H264_BASELINE_LEVEL));
  ACL_OK(aclvencSetChannelDescPicFormat(venc, PIXEL_FORMAT_YVU_SEMIPLANAR_420));
  ACL_OK(aclvencSetChannelDescPicWidth(venc, 640));
  ACL_OK(aclvencSetChannelDescPicHeight(venc, 480));
  ACL_OK(aclvencSetChannelDescKeyFrameInterval(venc, 30));
  ACL_OK(aclvencSetChannelDescBufAddr(venc, &buffer));
  ACL_OK(aclvencSetChannelDescBufSize(venc, 4096));
  ACL_OK(aclvencSetChannelDescRcMode(venc, 1));
  ACL_OK(aclvencSetChannelDescSrcRate(venc, 25));
  ACL_OK(aclvencSetChannelDescMaxBitRate(venc, 8000));
  EXPECT_EQ(aclvencGetChannelDescChannelId(venc), 0u);
  EXPECT_EQ(aclvencGetChannelDescThreadId(venc), 77u);
  EXPECT_EQ(aclvencGetChannelDescCallback(venc), &OnStream);
  EXPECT_EQ(aclvencGetChannelDescEnType(venc), H264_BASELINE_LEVEL);
  EXPECT_EQ(aclvencGetChannelDescPicFormat(venc),
            PIXEL_FORMAT_YVU_SEMIPLANAR_420);
  EXPECT_EQ(aclvencGetChannelDescPicWidth(venc), 640u);
  EXPECT_EQ(aclvencGetChannelDescPicHeight(venc), 480u);
  EXPECT_EQ(aclvencGetChannelDescKeyFrameInterval(venc), 30u);
  EXPECT_EQ(aclvencGetChannelDescBufAddr(venc), &buffer);
  EXPECT_EQ(aclvencGetChannelDescBufSize(venc), 4096u);
  EXPECT_EQ(aclvencGetChannelDescRcMode(venc), 1u);
  EXPECT_EQ(aclvencGetChannelDescSrcRate(venc), 25u);
  EXPECT_EQ(aclvencGetChannelDescMaxBitRate(venc), 8000u);
  const uint32_t proportion = 80;
  ACL_OK(aclvencSetChannelDescParam(venc, ACL_VENC_MAX_IP_PROP_UINT32,
                                    sizeof(proportion), &proportion));
  uint32_t value = 0;
  size_t size = 0;
  ACL_OK(aclvencGetChannelDescParam(venc, ACL_VENC_MAX_IP_PROP_UINT32,
                                    sizeof(value), &size, &value));
  EXPECT_EQ(value, 80u);
  void* address = nullptr;
  ACL_OK(aclvencGetChannelDescParam(venc, ACL_VENC_BUF_ADDR_PTR,
                                    sizeof(address), &size, &address));
  EXPECT_EQ(address, &buffer);
  EXPECT_EQ(size, sizeof(void*));
  EXPECT_EQ(aclvencGetChannelDescParam(venc, ACL_VENC_BUF_ADDR_PTR,
                                       sizeof(address), nullptr, &address),
            ACL_ERROR_INVALID_PARAM);
  ACL_OK(aclvencDestroyChannelDesc(venc));
  EXPECT_EQ(aclvencGetChannelDescPicWidth(venc), 0u);

  aclvencFrameConfig* frame = aclvencCreateFrameConfig();
  EXPECT_EQ(aclvencGetFrameConfigForceIFrame(frame), 0);
  ACL_OK(aclvencSetFrameConfigForceIFrame(frame, 1));
  ACL_OK(aclvencSetFrameConfigEos(frame, 1));
  EXPECT_EQ(aclvencGetFrameConfigForceIFrame(frame), 1);
  EXPECT_EQ(aclvencGetFrameConfigEos(frame), 1);
  ACL_OK(aclvencDestroyFrameConfig(frame));
}

// ---- Image information ----

struct JpegCase {
  const char* file;
  uint32_t width, height;
  int32_t components;
  acldvppJpegFormat format;
  uint32_t yuv420_size;      // acldvppJpegPredictDecSize, YUV420SP
  uint32_t own_format_size;  // PIXEL_FORMAT_UNKNOWN; 0: FORMAT_NOT_MATCH
};

// Sizes: width rounded up to 128, height to 16, times 3/2 (4:2:0, gray),
// 2 (4:2:2, 4:4:0) or 3 (4:4:4).
const JpegCase kJpegs[] = {
    {"baseline_420.jpg", 33, 17, 3, ACL_JPEG_CSS_420, 128 * 32 * 3 / 2,
     128 * 32 * 3 / 2},
    {"baseline_444.jpg", 16, 8, 3, ACL_JPEG_CSS_444, 128 * 16 * 3 / 2,
     128 * 16 * 3},
    {"baseline_422.jpg", 24, 10, 3, ACL_JPEG_CSS_422, 128 * 16 * 3 / 2,
     128 * 16 * 2},
    {"baseline_440.jpg", 16, 16, 3, ACL_JPEG_CSS_440, 128 * 16 * 3 / 2,
     128 * 16 * 2},
    {"baseline_411.jpg", 32, 8, 3, ACL_JPEG_CSS_411, 128 * 16 * 3 / 2, 0},
    {"gray.jpg", 20, 12, 1, ACL_JPEG_CSS_GRAY, 128 * 16 * 3 / 2,
     128 * 16 * 3 / 2},
    {"progressive_420.jpg", 40, 24, 3, ACL_JPEG_CSS_420, 128 * 32 * 3 / 2,
     128 * 32 * 3 / 2},
    {"exif_orientation_6.jpg", 16, 48, 3, ACL_JPEG_CSS_420, 128 * 48 * 3 / 2,
     128 * 48 * 3 / 2},
};

TEST(DvppImageTest, JpegInformationAndDecodedSizes) {
  for (const JpegCase& c : kJpegs) {
    SCOPED_TRACE(c.file);
    const std::vector<uint8_t> data = Image(c.file);
    const uint32_t n = static_cast<uint32_t>(data.size());
    uint32_t width = 0, height = 0, size = 0;
    int32_t components = 0;
    acldvppJpegFormat format = ACL_JPEG_CSS_UNKNOWN;
    ACL_OK(
        acldvppJpegGetImageInfo(data.data(), n, &width, &height, &components));
    EXPECT_EQ(width, c.width);
    EXPECT_EQ(height, c.height);
    EXPECT_EQ(components, c.components);
    width = height = 0;
    ACL_OK(acldvppJpegGetImageInfoV2(data.data(), n, &width, &height,
                                     &components, &format));
    EXPECT_EQ(width, c.width);
    EXPECT_EQ(height, c.height);
    EXPECT_EQ(format, c.format);
    for (acldvppPixelFormat f :
         {PIXEL_FORMAT_YUV_SEMIPLANAR_420, PIXEL_FORMAT_YVU_SEMIPLANAR_420}) {
      ACL_OK(acldvppJpegPredictDecSize(data.data(), n, f, &size));
      EXPECT_EQ(size, c.yuv420_size);
    }
    if (c.own_format_size != 0) {
      ACL_OK(acldvppJpegPredictDecSize(data.data(), n, PIXEL_FORMAT_UNKNOWN,
                                       &size));
      EXPECT_EQ(size, c.own_format_size);
    } else {
      EXPECT_EQ(acldvppJpegPredictDecSize(data.data(), n, PIXEL_FORMAT_UNKNOWN,
                                          &size),
                ACL_ERROR_FORMAT_NOT_MATCH);
      EXPECT_THAT(Message(), HasSubstr("cannot be decoded to"));
    }
    // Not a JPEG output format at all.
    EXPECT_EQ(
        acldvppJpegPredictDecSize(data.data(), n, PIXEL_FORMAT_RGB_888, &size),
        ACL_ERROR_FORMAT_NOT_MATCH);
    // Cut before the first scan: ACL_ERROR_FAILURE with where and why.
    EXPECT_EQ(
        acldvppJpegGetImageInfo(data.data(), 100, &width, &height, &components),
        ACL_ERROR_FAILURE);
    EXPECT_THAT(Message(), HasSubstr("JPEG at byte "));
  }
}

TEST(DvppImageTest, JpegDecodingToTheSourcesOwnSubsampling) {
  const std::vector<uint8_t> yuv444 = Image("baseline_444.jpg");
  const std::vector<uint8_t> yuv422 = Image("baseline_422.jpg");
  const std::vector<uint8_t> gray = Image("gray.jpg");
  uint32_t size = 0;
  ACL_OK(acldvppJpegPredictDecSize(yuv444.data(), yuv444.size(),
                                   PIXEL_FORMAT_YVU_SEMIPLANAR_444, &size));
  EXPECT_EQ(size, 128u * 16 * 3);
  ACL_OK(acldvppJpegPredictDecSize(yuv422.data(), yuv422.size(),
                                   PIXEL_FORMAT_YUV_SEMIPLANAR_422, &size));
  EXPECT_EQ(size, 128u * 16 * 2);
  EXPECT_EQ(acldvppJpegPredictDecSize(yuv444.data(), yuv444.size(),
                                      PIXEL_FORMAT_YUV_SEMIPLANAR_422, &size),
            ACL_ERROR_FORMAT_NOT_MATCH);
  // A grayscale image decodes to 4:2:0 whatever is asked.
  ACL_OK(acldvppJpegPredictDecSize(gray.data(), gray.size(),
                                   PIXEL_FORMAT_YUV_SEMIPLANAR_444, &size));
  EXPECT_EQ(size, 128u * 16 * 3 / 2);
}

TEST(DvppImageTest, JpegArguments) {
  const std::vector<uint8_t> data = Image("baseline_420.jpg");
  uint32_t width = 0, size = 0;
  // Outputs are optional, as in the SDK.
  ACL_OK(acldvppJpegGetImageInfo(data.data(), data.size(), &width, nullptr,
                                 nullptr));
  EXPECT_EQ(width, 33u);
  const char garbage[] = "not an image";
  ACL_OK(acldvppJpegGetImageInfoV2(garbage, sizeof(garbage), nullptr, nullptr,
                                   nullptr, nullptr));
  EXPECT_EQ(acldvppJpegGetImageInfo(garbage, sizeof(garbage), &width, nullptr,
                                    nullptr),
            ACL_ERROR_FAILURE);
  EXPECT_THAT(Message(), HasSubstr("JPEG at byte 0: not a JPEG"));
  EXPECT_EQ(acldvppJpegGetImageInfo(nullptr, 10, &width, nullptr, nullptr),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(acldvppJpegPredictDecSize(data.data(), data.size(),
                                      PIXEL_FORMAT_YUV_SEMIPLANAR_420, nullptr),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(acldvppJpegPredictDecSize(nullptr, 0,
                                      PIXEL_FORMAT_YUV_SEMIPLANAR_420, &size),
            ACL_ERROR_INVALID_PARAM);
}

struct PngCase {
  const char* file;
  uint32_t width, height;
  int32_t components;
  uint32_t rgb_size, rgba_size;
};

// Width rounded up to 128 times 3 or 4 bytes (twice for 16 bits), times the
// height rounded up to 16.
const PngCase kPngs[] = {
    {"rgb.png", 7, 5, 3, 128 * 3 * 16, 128 * 4 * 16},
    {"rgba.png", 6, 4, 4, 128 * 3 * 16, 128 * 4 * 16},
    {"gray.png", 5, 3, 1, 128 * 3 * 16, 128 * 4 * 16},
    {"gray_alpha.png", 3, 3, 2, 128 * 3 * 16, 128 * 4 * 16},
    {"gray16.png", 4, 2, 1, 128 * 6 * 16, 128 * 8 * 16},
    {"palette.png", 4, 4, 3, 128 * 3 * 16, 128 * 4 * 16},
};

TEST(DvppImageTest, PngInformationAndDecodedSizes) {
  for (const PngCase& c : kPngs) {
    SCOPED_TRACE(c.file);
    const std::vector<uint8_t> data = Image(c.file);
    const uint32_t n = static_cast<uint32_t>(data.size());
    uint32_t width = 0, height = 0, size = 0;
    int32_t components = 0;
    ACL_OK(
        acldvppPngGetImageInfo(data.data(), n, &width, &height, &components));
    EXPECT_EQ(width, c.width);
    EXPECT_EQ(height, c.height);
    EXPECT_EQ(components, c.components);
    ACL_OK(
        acldvppPngPredictDecSize(data.data(), n, PIXEL_FORMAT_RGB_888, &size));
    EXPECT_EQ(size, c.rgb_size);
    ACL_OK(acldvppPngPredictDecSize(data.data(), n, PIXEL_FORMAT_RGBA_8888,
                                    &size));
    EXPECT_EQ(size, c.rgba_size);
    ACL_OK(
        acldvppPngPredictDecSize(data.data(), n, PIXEL_FORMAT_UNKNOWN, &size));
    EXPECT_EQ(size, c.rgba_size);
    EXPECT_EQ(acldvppPngPredictDecSize(data.data(), n,
                                       PIXEL_FORMAT_YUV_SEMIPLANAR_420, &size),
              ACL_ERROR_FORMAT_NOT_MATCH);
    EXPECT_EQ(
        acldvppPngGetImageInfo(data.data(), 20, &width, &height, &components),
        ACL_ERROR_FAILURE);
    EXPECT_THAT(Message(), HasSubstr("PNG at byte 20: the data ends inside"));
    EXPECT_EQ(
        acldvppPngGetImageInfo(data.data(), n, &width, nullptr, &components),
        ACL_ERROR_INVALID_PARAM);
  }
  const std::vector<uint8_t> jpeg = Image("gray.jpg");
  uint32_t width = 0, height = 0;
  int32_t components = 0;
  EXPECT_EQ(acldvppPngGetImageInfo(jpeg.data(), jpeg.size(), &width, &height,
                                   &components),
            ACL_ERROR_FAILURE);
  EXPECT_THAT(Message(), HasSubstr("not a PNG"));
}

TEST(DvppImageTest, JpegEncodedSize) {
  acldvppPicDesc* pic = acldvppCreatePicDesc();
  acldvppJpegeConfig* config = acldvppCreateJpegeConfig();
  uint32_t size = 0;
  ACL_OK(acldvppSetPicDescFormat(pic, PIXEL_FORMAT_YUV_SEMIPLANAR_420));
  EXPECT_EQ(acldvppJpegPredictEncSize(pic, config, &size),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_THAT(Message(), HasSubstr("the picture is 0x0"));
  ACL_OK(acldvppSetPicDescWidth(pic, 8192));
  ACL_OK(acldvppSetPicDescHeight(pic, 8192));
  ACL_OK(acldvppSetPicDescWidthStride(pic, 8192));
  ACL_OK(acldvppSetPicDescHeightStride(pic, 8192));
  ACL_OK(acldvppJpegPredictEncSize(pic, config, &size));
  EXPECT_EQ(size, 49u << 21);  // 8192 * 8192 * 3 / 2 + 768, up to 2 MiB
  ACL_OK(acldvppSetPicDescWidth(pic, 60));
  ACL_OK(acldvppSetPicDescHeight(pic, 30));
  ACL_OK(acldvppSetPicDescWidthStride(pic, 64));
  ACL_OK(acldvppSetPicDescHeightStride(pic, 32));
  ACL_OK(acldvppJpegPredictEncSize(pic, config, &size));
  EXPECT_EQ(size, 2u << 20);
  ACL_OK(acldvppSetPicDescWidthStride(pic, 56));
  EXPECT_EQ(acldvppJpegPredictEncSize(pic, config, &size),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_THAT(Message(), HasSubstr("widthStride 56 does not fit width 60"));
  ACL_OK(acldvppSetPicDescWidthStride(pic, 64));
  ACL_OK(acldvppSetPicDescHeightStride(pic, 31));
  EXPECT_EQ(acldvppJpegPredictEncSize(pic, config, &size),
            ACL_ERROR_INVALID_PARAM);
  ACL_OK(acldvppSetPicDescHeightStride(pic, 30));
  ACL_OK(acldvppJpegPredictEncSize(pic, config, &size));
  // Packed 4:2:2: widthStride is twice the width rounded up to 16.
  ACL_OK(acldvppSetPicDescFormat(pic, PIXEL_FORMAT_YUYV_PACKED_422));
  EXPECT_EQ(acldvppJpegPredictEncSize(pic, config, &size),
            ACL_ERROR_INVALID_PARAM);
  ACL_OK(acldvppSetPicDescWidthStride(pic, 128));
  ACL_OK(acldvppJpegPredictEncSize(pic, config, &size));
  ACL_OK(acldvppSetPicDescFormat(pic, PIXEL_FORMAT_RGB_888));
  EXPECT_EQ(acldvppJpegPredictEncSize(pic, config, &size),
            ACL_ERROR_FORMAT_NOT_MATCH);
  EXPECT_EQ(acldvppJpegPredictEncSize(pic, nullptr, &size),
            ACL_ERROR_INVALID_PARAM);
  ACL_OK(acldvppDestroyJpegeConfig(config));
  ACL_OK(acldvppDestroyPicDesc(pic));
}

// ---- The processing: refused, saying why and what to do ----

TEST(DvppUnsupportedTest, ProcessingCallsSayTheCpuHasNoMediaProcessor) {
  acldvppChannelDesc* channel = acldvppCreateChannelDesc();
  acldvppPicDesc* in = acldvppCreatePicDesc();
  acldvppPicDesc* out = acldvppCreatePicDesc();
  acldvppRoiConfig* roi = acldvppCreateRoiConfig(0, 15, 0, 15);
  acldvppResizeConfig* resize = acldvppCreateResizeConfig();
  acldvppJpegeConfig* jpege = acldvppCreateJpegeConfig();
  acldvppBatchPicDesc* batch = acldvppCreateBatchPicDesc(1);
  acldvppRoiConfig* rois[] = {roi};
  acldvppBorderConfig* border = acldvppCreateBorderConfig();
  acldvppBorderConfig* borders[] = {border};
  acldvppLutMap* lut = acldvppCreateLutMap();
  acldvppHist* hist = acldvppCreateHist();
  aclvdecChannelDesc* vdec = aclvdecCreateChannelDesc();
  aclvencChannelDesc* venc = aclvencCreateChannelDesc();
  acldvppStreamDesc* stream = acldvppCreateStreamDesc();
  aclvdecFrameConfig* vdec_frame = aclvdecCreateFrameConfig();
  aclvencFrameConfig* venc_frame = aclvencCreateFrameConfig();
  const std::vector<uint8_t> jpeg = Image("baseline_420.jpg");
  uint32_t nums[] = {1};
  uint32_t size = 0;
  const std::vector<std::pair<const char*, std::function<aclError()>>> calls = {
      {"acldvppCreateChannel", [&] { return acldvppCreateChannel(channel); }},
      {"acldvppDestroyChannel", [&] { return acldvppDestroyChannel(channel); }},
      {"acldvppJpegDecodeAsync",
       [&] {
         return acldvppJpegDecodeAsync(channel, jpeg.data(), jpeg.size(), out,
                                       nullptr);
       }},
      {"acldvppJpegEncodeAsync",
       [&] {
         return acldvppJpegEncodeAsync(channel, in, jpeg.data(), &size, jpege,
                                       nullptr);
       }},
      {"acldvppPngDecodeAsync",
       [&] {
         return acldvppPngDecodeAsync(channel, jpeg.data(), jpeg.size(), out,
                                      nullptr);
       }},
      {"acldvppVpcResizeAsync",
       [&] {
         return acldvppVpcResizeAsync(channel, in, out, resize, nullptr);
       }},
      {"acldvppVpcCropAsync",
       [&] { return acldvppVpcCropAsync(channel, in, out, roi, nullptr); }},
      {"acldvppVpcCropResizeAsync",
       [&] {
         return acldvppVpcCropResizeAsync(channel, in, out, roi, resize,
                                          nullptr);
       }},
      {"acldvppVpcBatchCropAsync",
       [&] {
         return acldvppVpcBatchCropAsync(channel, batch, nums, 1, batch, rois,
                                         nullptr);
       }},
      {"acldvppVpcBatchCropResizeAsync",
       [&] {
         return acldvppVpcBatchCropResizeAsync(channel, batch, nums, 1, batch,
                                               rois, resize, nullptr);
       }},
      {"acldvppVpcCropAndPasteAsync",
       [&] {
         return acldvppVpcCropAndPasteAsync(channel, in, out, roi, roi,
                                            nullptr);
       }},
      {"acldvppVpcCropResizePasteAsync",
       [&] {
         return acldvppVpcCropResizePasteAsync(channel, in, out, roi, roi,
                                               resize, nullptr);
       }},
      {"acldvppVpcBatchCropAndPasteAsync",
       [&] {
         return acldvppVpcBatchCropAndPasteAsync(channel, batch, nums, 1, batch,
                                                 rois, rois, nullptr);
       }},
      {"acldvppVpcBatchCropResizePasteAsync",
       [&] {
         return acldvppVpcBatchCropResizePasteAsync(
             channel, batch, nums, 1, batch, rois, rois, resize, nullptr);
       }},
      {"acldvppVpcBatchCropResizeMakeBorderAsync",
       [&] {
         return acldvppVpcBatchCropResizeMakeBorderAsync(
             channel, batch, nums, 1, batch, rois, borders, resize, nullptr);
       }},
      {"acldvppVpcConvertColorAsync",
       [&] { return acldvppVpcConvertColorAsync(channel, in, out, nullptr); }},
      {"acldvppVpcPyrDownAsync",
       [&] {
         return acldvppVpcPyrDownAsync(channel, in, out, nullptr, nullptr);
       }},
      {"acldvppVpcEqualizeHistAsync",
       [&] {
         return acldvppVpcEqualizeHistAsync(channel, in, out, lut, nullptr);
       }},
      {"acldvppVpcMakeBorderAsync",
       [&] {
         return acldvppVpcMakeBorderAsync(channel, in, out, border, nullptr);
       }},
      {"acldvppVpcCalcHistAsync",
       [&] {
         return acldvppVpcCalcHistAsync(channel, in, hist, nullptr, nullptr);
       }},
      {"aclvdecCreateChannel", [&] { return aclvdecCreateChannel(vdec); }},
      {"aclvdecDestroyChannel", [&] { return aclvdecDestroyChannel(vdec); }},
      {"aclvdecSendFrame",
       [&] {
         return aclvdecSendFrame(vdec, stream, out, vdec_frame, nullptr);
       }},
      {"aclvdecSendSkippedFrame",
       [&] {
         return aclvdecSendSkippedFrame(vdec, stream, vdec_frame, nullptr);
       }},
      {"aclvencCreateChannel", [&] { return aclvencCreateChannel(venc); }},
      {"aclvencDestroyChannel", [&] { return aclvencDestroyChannel(venc); }},
      {"aclvencSendFrame",
       [&] {
         return aclvencSendFrame(venc, in, nullptr, venc_frame, nullptr);
       }},
  };
  for (const auto& [name, call] : calls) {
    SCOPED_TRACE(name);
    EXPECT_EQ(call(), ACL_ERROR_FEATURE_UNSUPPORTED);
    const std::string message = Message();
    EXPECT_THAT(message, HasSubstr(std::string(name) + ": acldump runs on the "
                                                       "CPU and has no media "
                                                       "processor (DVPP)"));
    EXPECT_THAT(message, HasSubstr("on the host"));
  }
  EXPECT_EQ(calls.size(), 27u);
  ACL_OK(acldvppDestroyChannelDesc(channel));
  ACL_OK(acldvppDestroyPicDesc(in));
  ACL_OK(acldvppDestroyPicDesc(out));
  ACL_OK(acldvppDestroyRoiConfig(roi));
  ACL_OK(acldvppDestroyResizeConfig(resize));
  ACL_OK(acldvppDestroyJpegeConfig(jpege));
  ACL_OK(acldvppDestroyBatchPicDesc(batch));
  ACL_OK(acldvppDestroyBorderConfig(border));
  ACL_OK(acldvppDestroyLutMap(lut));
  ACL_OK(acldvppDestroyHist(hist));
  ACL_OK(aclvdecDestroyChannelDesc(vdec));
  ACL_OK(aclvencDestroyChannelDesc(venc));
  ACL_OK(acldvppDestroyStreamDesc(stream));
  ACL_OK(aclvdecDestroyFrameConfig(vdec_frame));
  ACL_OK(aclvencDestroyFrameConfig(venc_frame));
}

}  // namespace
