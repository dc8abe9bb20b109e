// Misuse of the lifecycle, dump, model and handle calls: exact codes and
// message fragments, no crash. (The runtime calls: rt_test.cc.)
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "acl/acl.h"

namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

std::string Message() { return aclGetRecentErrMsg(); }

std::string TempFile(const std::string& name, const std::string& content) {
  const char* base = std::getenv("TEST_TMPDIR");
  const std::string path = std::string(base ? base : "/tmp") + "/" + name;
  std::ofstream(path) << content;
  return path;
}

std::string TempDir(const std::string& name) {
  const char* base = std::getenv("TEST_TMPDIR");
  const std::string path = std::string(base ? base : "/tmp") + "/" + name;
  fs::create_directories(path);
  return path;
}

class AclTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS) << Message();
  }
  void TearDown() override { aclFinalize(); }
};

TEST(AclLifecycleTest, CallsBeforeInitAreRefused) {
  uint32_t id = 0;
  int32_t device = 0;
  void* p = nullptr;
  EXPECT_EQ(aclmdlInitDump(), ACL_ERROR_UNINITIALIZE);
  EXPECT_THAT(Message(), HasSubstr("call aclInit first"));
  EXPECT_EQ(aclmdlSetDump("x.json"), ACL_ERROR_UNINITIALIZE);
  EXPECT_EQ(aclmdlFinalizeDump(), ACL_ERROR_UNINITIALIZE);
  EXPECT_EQ(aclmdlLoadFromFile("testdata/resnet_tiny.om", &id),
            ACL_ERROR_UNINITIALIZE);
  EXPECT_EQ(aclmdlExecute(1, nullptr, nullptr), ACL_ERROR_UNINITIALIZE);
  EXPECT_EQ(aclrtSetDevice(0), ACL_ERROR_UNINITIALIZE);
  EXPECT_EQ(aclrtGetDevice(&device), ACL_ERROR_UNINITIALIZE);
  EXPECT_EQ(aclrtMalloc(&p, 16, ACL_MEM_MALLOC_NORMAL_ONLY),
            ACL_ERROR_UNINITIALIZE);
  EXPECT_EQ(p, nullptr);  // outputs untouched on failure
  EXPECT_EQ(aclFinalize(), ACL_ERROR_REPEAT_FINALIZE);
}

TEST(AclLifecycleTest, InitTwiceAndReinitAfterFinalize) {
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  EXPECT_EQ(aclInit(nullptr), ACL_ERROR_REPEAT_INITIALIZE);
  EXPECT_THAT(Message(), HasSubstr("aclInit was already called"));
  ASSERT_EQ(aclFinalize(), ACL_SUCCESS);
  EXPECT_EQ(aclFinalize(), ACL_ERROR_REPEAT_FINALIZE);
  ASSERT_EQ(aclInit(""), ACL_SUCCESS);
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
  EXPECT_EQ(Message(), "");  // a successful call clears the message
}

// Config contents are checked in init_config_test (each case in a fresh
// process: the SDK accepts a later aclInit only with the first one's content).
TEST(AclLifecycleTest, MissingAclInitConfigLeavesLibraryUninitialised) {
  EXPECT_EQ(aclInit("/nonexistent/acl.json"), ACL_ERROR_INVALID_FILE);
  EXPECT_THAT(Message(), HasSubstr("/nonexistent/acl.json"));
  EXPECT_EQ(aclmdlInitDump(), ACL_ERROR_UNINITIALIZE);
}

TEST_F(AclTest, DumpCallsOutOfOrder) {
  EXPECT_EQ(aclmdlSetDump("whatever.json"), ACL_ERROR_DUMP_NOT_RUN);
  EXPECT_THAT(Message(), HasSubstr("aclmdlInitDump first"));
  EXPECT_EQ(aclmdlFinalizeDump(), ACL_ERROR_DUMP_NOT_RUN);
  ASSERT_EQ(aclmdlInitDump(), ACL_SUCCESS);
  EXPECT_EQ(aclmdlInitDump(), ACL_ERROR_REPEAT_INITIALIZE);
  EXPECT_EQ(aclmdlSetDump(nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_THAT(Message(), HasSubstr("dumpCfgPath is NULL"));
  EXPECT_EQ(aclmdlSetDump(""), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclmdlSetDump("/nonexistent/cfg.json"), ACL_ERROR_INVALID_FILE);
  const std::string unknown_key = TempFile(
      "typo.json",
      R"({"dump":{"dump_pth":"/tmp","dump_list":[{"model_name":"m"}]}})");
  EXPECT_EQ(aclmdlSetDump(unknown_key.c_str()), ACL_ERROR_INVALID_DUMP_CONFIG);
  EXPECT_THAT(Message(), HasSubstr("did you mean 'dump_path'?"));
  const std::string overflow_and_list =
      TempFile("s21.json",
               R"({"dump":{"dump_path":")" + TempDir("s21") +
                   R"(","dump_debug":"on","dump_list":[{"model_name":"m"}]}})");
  EXPECT_EQ(aclmdlSetDump(overflow_and_list.c_str()),
            ACL_ERROR_INVALID_DUMP_CONFIG);
  const std::string bad_step =
      TempFile("step.json",
               R"({"dump":{"dump_path":")" + TempDir("step") +
                   R"(","dump_step":"5-3","dump_list":[{"model_name":"m"}]}})");
  EXPECT_EQ(aclmdlSetDump(bad_step.c_str()), ACL_ERROR_INVALID_DUMP_CONFIG);
  EXPECT_THAT(Message(), HasSubstr("dump.dump_step"));
  EXPECT_EQ(aclmdlFinalizeDump(), ACL_SUCCESS);
}

TEST_F(AclTest, ModelLoadErrors) {
  uint32_t id = 12345;
  EXPECT_EQ(aclmdlLoadFromFile(nullptr, &id), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclmdlLoadFromFile("testdata/resnet_tiny.om", nullptr),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclmdlLoadFromFile("/nonexistent.om", &id),
            ACL_ERROR_READ_MODEL_FAILURE);
  EXPECT_THAT(Message(), HasSubstr("cannot open model file '/nonexistent.om'"));
  const std::string garbage = TempFile("garbage.om", "definitely not a model");
  EXPECT_EQ(aclmdlLoadFromFile(garbage.c_str(), &id), ACL_ERROR_PARSE_MODEL);
  EXPECT_THAT(Message(), HasSubstr("not an acldump model"));
  const std::string truncated =
      TempFile("truncated.om", std::string("ACLDMOM1\x0a\xff", 10));
  EXPECT_EQ(aclmdlLoadFromFile(truncated.c_str(), &id), ACL_ERROR_PARSE_MODEL);
  EXPECT_EQ(aclmdlLoadFromMem(nullptr, 10, &id), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclmdlLoadFromMem("ACLDMOM1", 8, &id), ACL_ERROR_PARSE_MODEL);
  EXPECT_EQ(id, 12345u);  // never written on failure
}

TEST_F(AclTest, UnknownModelIds) {
  aclmdlDataset* in = aclmdlCreateDataset();
  aclmdlDataset* out = aclmdlCreateDataset();
  EXPECT_EQ(aclmdlExecute(999, in, out), ACL_ERROR_INVALID_MODEL_ID);
  EXPECT_THAT(Message(), HasSubstr("model id 999 is not loaded"));
  EXPECT_EQ(aclmdlUnload(999), ACL_ERROR_INVALID_MODEL_ID);
  aclmdlDesc* desc = aclmdlCreateDesc();
  EXPECT_EQ(aclmdlGetDesc(desc, 999), ACL_ERROR_INVALID_MODEL_ID);
  uint32_t id = 0;
  ASSERT_EQ(aclmdlLoadFromFile("testdata/resnet_tiny.om", &id), ACL_SUCCESS)
      << Message();
  ASSERT_EQ(aclmdlUnload(id), ACL_SUCCESS);
  EXPECT_EQ(aclmdlUnload(id), ACL_ERROR_INVALID_MODEL_ID);  // twice
  EXPECT_EQ(aclmdlExecute(id, in, out), ACL_ERROR_INVALID_MODEL_ID);
  aclmdlDestroyDesc(desc);
  aclmdlDestroyDataset(in);
  aclmdlDestroyDataset(out);
}

TEST_F(AclTest, ExecuteWithWrongBuffers) {
  uint32_t id = 0;
  ASSERT_EQ(aclmdlLoadFromFile("testdata/resnet_tiny.om", &id), ACL_SUCCESS)
      << Message();
  aclmdlDataset* in = aclmdlCreateDataset();
  aclmdlDataset* out = aclmdlCreateDataset();
  EXPECT_EQ(aclmdlExecute(id, nullptr, out), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclmdlExecute(id, in, out), ACL_ERROR_MODEL_INPUT_NOT_MATCH);
  EXPECT_THAT(Message(), HasSubstr("has 1 inputs, got 0"));
  std::vector<float> small(10), x(3 * 32 * 32), y1(10), y2(10);
  aclDataBuffer* small_buffer =
      aclCreateDataBuffer(small.data(), small.size() * 4);
  ASSERT_EQ(aclmdlAddDatasetBuffer(in, small_buffer), ACL_SUCCESS);
  aclDataBuffer* o1 = aclCreateDataBuffer(y1.data(), 40);
  aclDataBuffer* o2 = aclCreateDataBuffer(y2.data(), 40);
  ASSERT_EQ(aclmdlAddDatasetBuffer(out, o1), ACL_SUCCESS);
  ASSERT_EQ(aclmdlAddDatasetBuffer(out, o2), ACL_SUCCESS);
  EXPECT_EQ(aclmdlExecute(id, in, out), ACL_ERROR_MODEL_INPUT_NOT_MATCH);
  EXPECT_THAT(Message(), HasSubstr("needs 12288 bytes, the buffer has 40"));
  ASSERT_EQ(aclUpdateDataBuffer(small_buffer, x.data(), x.size() * 4),
            ACL_SUCCESS);
  EXPECT_EQ(aclmdlExecute(id, in, out), ACL_SUCCESS) << Message();
  // A buffer destroyed while still in a dataset is caught, not used.
  ASSERT_EQ(aclDestroyDataBuffer(o2), ACL_SUCCESS);
  EXPECT_EQ(aclmdlExecute(id, in, out), ACL_ERROR_INVALID_PARAM);
  EXPECT_THAT(Message(), HasSubstr("output buffer 1 was destroyed"));
  aclDestroyDataBuffer(small_buffer);
  aclDestroyDataBuffer(o1);
  aclmdlDestroyDataset(in);
  aclmdlDestroyDataset(out);
  aclmdlUnload(id);
}

TEST_F(AclTest, HandlesAreNullSafeAndDoubleDestroyIsAnError) {
  EXPECT_EQ(aclDestroyDataBuffer(nullptr), ACL_SUCCESS);
  EXPECT_EQ(aclmdlDestroyDataset(nullptr), ACL_SUCCESS);
  EXPECT_EQ(aclmdlDestroyDesc(nullptr), ACL_SUCCESS);
  aclDestroyTensorDesc(nullptr);
  aclopDestroyAttr(nullptr);
  EXPECT_EQ(aclrtFree(nullptr), ACL_ERROR_INVALID_PARAM);  // as the SDK
  aclDataBuffer* buffer = aclCreateDataBuffer(nullptr, 0);
  ASSERT_NE(buffer, nullptr);
  EXPECT_EQ(aclDestroyDataBuffer(buffer), ACL_SUCCESS);
  EXPECT_EQ(aclDestroyDataBuffer(buffer), ACL_ERROR_INVALID_PARAM);
  EXPECT_THAT(Message(), HasSubstr("destroyed already"));
  EXPECT_EQ(aclCreateDataBuffer(nullptr, 8), nullptr);
  EXPECT_EQ(aclGetDataBufferAddr(nullptr), nullptr);
  EXPECT_EQ(aclGetDataBufferSizeV2(nullptr), 0u);
  EXPECT_THAT(Message(), HasSubstr("NULL"));
  aclmdlDataset* dataset = aclmdlCreateDataset();
  EXPECT_EQ(aclmdlAddDatasetBuffer(dataset, nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclmdlGetDatasetBuffer(dataset, 0), nullptr);
  EXPECT_THAT(Message(), HasSubstr("out of range"));
  EXPECT_EQ(aclmdlDestroyDataset(dataset), ACL_SUCCESS);
  EXPECT_EQ(aclmdlDestroyDataset(dataset), ACL_ERROR_INVALID_PARAM);
  void* p = nullptr;
  ASSERT_EQ(aclrtMalloc(&p, 100, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u);
  EXPECT_EQ(aclrtFree(p), ACL_SUCCESS);
  EXPECT_EQ(aclrtFree(p), ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_THAT(Message(), HasSubstr("or was freed already"));
  int stack_value = 0;
  EXPECT_EQ(aclrtFree(&stack_value), ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_EQ(aclrtMalloc(&p, 0, ACL_MEM_MALLOC_HUGE_FIRST),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMalloc(nullptr, 8, ACL_MEM_MALLOC_HUGE_FIRST),
            ACL_ERROR_INVALID_PARAM);
}

TEST_F(AclTest, ModelDescription) {
  uint32_t id = 0;
  ASSERT_EQ(aclmdlLoadFromFile("testdata/resnet_tiny.om", &id), ACL_SUCCESS)
      << Message();
  aclmdlDesc* desc = aclmdlCreateDesc();
  ASSERT_EQ(aclmdlGetDesc(desc, id), ACL_SUCCESS);
  EXPECT_EQ(aclmdlGetNumInputs(desc), 1u);
  EXPECT_EQ(aclmdlGetNumOutputs(desc), 2u);
  EXPECT_STREQ(aclmdlGetInputNameByIndex(desc, 0), "input");
  EXPECT_STREQ(aclmdlGetOutputNameByIndex(desc, 1), "prob");
  EXPECT_EQ(aclmdlGetInputSizeByIndex(desc, 0), 3u * 32 * 32 * 4);
  EXPECT_EQ(aclmdlGetInputDataType(desc, 0), ACL_FLOAT);
  EXPECT_EQ(aclmdlGetInputFormat(desc, 0), ACL_FORMAT_NCHW);
  EXPECT_EQ(aclmdlGetOutputFormat(desc, 0), ACL_FORMAT_ND);
  aclmdlIODims dims;
  ASSERT_EQ(aclmdlGetInputDims(desc, 0, &dims), ACL_SUCCESS);
  EXPECT_STREQ(dims.name, "input");
  ASSERT_EQ(dims.dimCount, 4u);
  EXPECT_EQ(dims.dims[1], 3);
  EXPECT_EQ(aclmdlGetInputDims(desc, 5, &dims), ACL_ERROR_INVALID_PARAM);
  EXPECT_THAT(Message(), HasSubstr("input index 5 is out of range"));
  EXPECT_EQ(aclmdlGetOutputSizeByIndex(desc, 2), 0u);
  EXPECT_EQ(aclmdlGetInputNameByIndex(nullptr, 0), nullptr);
  int32_t major = 0, minor = -1, patch = -1;
  EXPECT_EQ(aclrtGetVersion(&major, &minor, &patch), ACL_SUCCESS);
  EXPECT_EQ(major, ACL_MAJOR_VERSION);
  aclmdlDestroyDesc(desc);
  aclmdlUnload(id);
}

TEST_F(AclTest, Devices) {
  int32_t device = -1;
  // Before aclrtSetDevice the thread has no context: the SDK's code.
  EXPECT_EQ(aclrtGetDevice(&device), ACL_ERROR_RT_CONTEXT_NULL);
  EXPECT_EQ(device, -1);
  EXPECT_EQ(aclrtSetDevice(3), ACL_SUCCESS);
  EXPECT_EQ(aclrtGetDevice(&device), ACL_SUCCESS);
  EXPECT_EQ(device, 3);
  EXPECT_EQ(aclrtSetDevice(-1), ACL_ERROR_RT_INVALID_DEVICEID);
  EXPECT_EQ(aclrtSetDevice(ACL_MAX_DEVICE_ID + 1),
            ACL_ERROR_RT_INVALID_DEVICEID);
  EXPECT_EQ(aclrtGetDevice(nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtResetDevice(3), ACL_SUCCESS);
}

TEST_F(AclTest, SingleOpExecution) {
  const int64_t dims[] = {2, 2};
  aclTensorDesc* a_desc =
      aclCreateTensorDesc(ACL_FLOAT, 2, dims, ACL_FORMAT_ND);
  aclTensorDesc* b_desc =
      aclCreateTensorDesc(ACL_FLOAT, 2, dims, ACL_FORMAT_ND);
  aclTensorDesc* y_desc =
      aclCreateTensorDesc(ACL_FLOAT, 2, dims, ACL_FORMAT_ND);
  ASSERT_NE(a_desc, nullptr);
  EXPECT_EQ(aclGetTensorDescSize(a_desc), 16u);
  float a[] = {1, 2, 3, 4}, b[] = {10, 20, 30, 40}, y[4] = {};
  aclDataBuffer* a_buf = aclCreateDataBuffer(a, sizeof(a));
  aclDataBuffer* b_buf = aclCreateDataBuffer(b, sizeof(b));
  aclDataBuffer* y_buf = aclCreateDataBuffer(y, sizeof(y));
  aclTensorDesc* in_desc[] = {a_desc, b_desc};
  aclDataBuffer* in_buf[] = {a_buf, b_buf};
  aclTensorDesc* out_desc[] = {y_desc};
  aclDataBuffer* out_buf[] = {y_buf};
  ASSERT_EQ(aclopExecuteV2("Add", 2, in_desc, in_buf, 1, out_desc, out_buf,
                           nullptr, nullptr),
            ACL_SUCCESS)
      << Message();
  EXPECT_EQ(y[3], 44.0f);
  EXPECT_EQ(aclopExecuteV2("Frobnicate", 2, in_desc, in_buf, 1, out_desc,
                           out_buf, nullptr, nullptr),
            ACL_ERROR_OP_NOT_FOUND);
  EXPECT_THAT(Message(), HasSubstr("op type 'Frobnicate' is not supported"));
  const int64_t wrong[] = {4};
  aclTensorDesc* wrong_desc =
      aclCreateTensorDesc(ACL_FLOAT, 1, wrong, ACL_FORMAT_ND);
  aclTensorDesc* wrong_out[] = {wrong_desc};
  EXPECT_EQ(aclopExecuteV2("Add", 2, in_desc, in_buf, 1, wrong_out, out_buf,
                           nullptr, nullptr),
            ACL_ERROR_OP_OUTPUT_NOT_MATCH);
  EXPECT_THAT(
      Message(),
      HasSubstr("described as float32[4] but the op produces float32[2,2]"));
  aclopAttr* attr = aclopCreateAttr();
  ASSERT_EQ(aclopSetAttrFloat(attr, "alpha", 0.5f), ACL_SUCCESS);
  ASSERT_EQ(aclopSetAttrListInt(attr, "perm", 2, dims), ACL_SUCCESS);
  ASSERT_EQ(aclopSetAttrString(attr, "mode", "x"), ACL_SUCCESS);
  ASSERT_EQ(aclopSetAttrBool(attr, "flag", 1), ACL_SUCCESS);
  EXPECT_EQ(aclopSetAttrInt(attr, nullptr, 1), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclopSetAttrListFloat(attr, "f", -1, nullptr),
            ACL_ERROR_INVALID_PARAM);
  aclTensorDesc* x_in[] = {a_desc};
  aclDataBuffer* x_buf[] = {a_buf};
  EXPECT_EQ(aclopExecuteV2("LeakyRelu", 1, x_in, x_buf, 1, out_desc, out_buf,
                           attr, nullptr),
            ACL_SUCCESS)
      << Message();
  // A buffer smaller than its description.
  aclDataBuffer* tiny = aclCreateDataBuffer(a, 4);
  aclDataBuffer* tiny_in[] = {tiny, b_buf};
  EXPECT_EQ(aclopExecuteV2("Add", 2, in_desc, tiny_in, 1, out_desc, out_buf,
                           nullptr, nullptr),
            ACL_ERROR_OP_INPUT_NOT_MATCH);
  EXPECT_EQ(aclCreateTensorDesc(ACL_FLOAT, -1, nullptr, ACL_FORMAT_ND),
            nullptr);
  EXPECT_EQ(aclCreateTensorDesc(ACL_FLOAT, 2, nullptr, ACL_FORMAT_ND), nullptr);
  const int64_t negative[] = {-2};
  EXPECT_EQ(aclCreateTensorDesc(ACL_FLOAT, 1, negative, ACL_FORMAT_ND),
            nullptr);
  aclTensorDesc* strings =
      aclCreateTensorDesc(ACL_STRING, 2, dims, ACL_FORMAT_ND);
  aclTensorDesc* string_in[] = {strings, b_desc};
  EXPECT_EQ(aclopExecuteV2("Add", 2, string_in, in_buf, 1, out_desc, out_buf,
                           nullptr, nullptr),
            ACL_ERROR_UNSUPPORTED_DATA_TYPE);
  for (aclTensorDesc* d : {a_desc, b_desc, y_desc, wrong_desc, strings})
    aclDestroyTensorDesc(d);
  for (aclDataBuffer* d : {a_buf, b_buf, y_buf, tiny}) aclDestroyDataBuffer(d);
  aclopDestroyAttr(attr);
}

TEST_F(AclTest, CastBetweenDescriptions) {
  const int64_t dims[] = {2, 3};
  aclTensorDesc* f32 = aclCreateTensorDesc(ACL_FLOAT, 2, dims, ACL_FORMAT_ND);
  aclTensorDesc* f16 = aclCreateTensorDesc(ACL_FLOAT16, 2, dims, ACL_FORMAT_ND);
  aclTensorDesc* i32 = aclCreateTensorDesc(ACL_INT32, 2, dims, ACL_FORMAT_ND);
  aclTensorDesc* c64 =
      aclCreateTensorDesc(ACL_COMPLEX64, 2, dims, ACL_FORMAT_ND);
  const int64_t other_dims[] = {6};
  aclTensorDesc* flat =
      aclCreateTensorDesc(ACL_INT32, 1, other_dims, ACL_FORMAT_ND);
  float x[] = {1.5f, -2.7f, 3.9f, -0.5f, 65504.0f, 1e-8f};
  uint16_t half[6] = {};
  int32_t ints[6] = {};
  aclDataBuffer* x_buf = aclCreateDataBuffer(x, sizeof(x));
  aclDataBuffer* half_buf = aclCreateDataBuffer(half, sizeof(half));
  aclDataBuffer* int_buf = aclCreateDataBuffer(ints, sizeof(ints));
  ASSERT_EQ(aclopCast(f32, x_buf, f16, half_buf, 0, nullptr), ACL_SUCCESS)
      << Message();
  // IEEE half: 1.5 = 0x3E00, -0.5 = 0xB800, 65504 = 0x7BFF, 1e-8 -> 0.
  EXPECT_EQ(half[0], 0x3E00);
  EXPECT_EQ(half[3], 0xB800);
  EXPECT_EQ(half[4], 0x7BFF);
  EXPECT_EQ(half[5], 0);
  // Toward zero, with truncate 0 or 1.
  for (uint8_t truncate : {0, 1}) {
    ASSERT_EQ(aclopCast(f32, x_buf, i32, int_buf, truncate, nullptr),
              ACL_SUCCESS)
        << Message();
    EXPECT_EQ(ints[0], 1);
    EXPECT_EQ(ints[1], -2);
    EXPECT_EQ(ints[2], 3);
    EXPECT_EQ(ints[4], 65504);
  }
  EXPECT_EQ(aclopCast(f32, x_buf, flat, int_buf, 0, nullptr),
            ACL_ERROR_OP_OUTPUT_NOT_MATCH);
  EXPECT_THAT(Message(), HasSubstr("int32[2,3]"));
  EXPECT_EQ(aclopCast(f32, x_buf, c64, int_buf, 0, nullptr),
            ACL_ERROR_OP_ATTR_NOT_MATCH);
  EXPECT_THAT(Message(), HasSubstr("aclopCast: cannot cast to data type 16"));
  EXPECT_EQ(aclopCast(nullptr, x_buf, i32, int_buf, 0, nullptr),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_THAT(Message(), HasSubstr("must not be NULL"));
  aclTensorDesc* gone = aclCreateTensorDesc(ACL_INT32, 2, dims, ACL_FORMAT_ND);
  aclDestroyTensorDesc(gone);
  EXPECT_EQ(aclopCast(f32, x_buf, gone, int_buf, 0, nullptr),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_THAT(Message(), HasSubstr("tensor desc is NULL or was destroyed"));
  for (aclTensorDesc* d : {f32, f16, i32, c64, flat}) aclDestroyTensorDesc(d);
  for (aclDataBuffer* d : {x_buf, half_buf, int_buf}) aclDestroyDataBuffer(d);
}

TEST_F(AclTest, UnsignedTypesHaveSizesAndCast) {
  EXPECT_EQ(aclDataTypeSize(ACL_UINT16), 2u);
  EXPECT_EQ(aclDataTypeSize(ACL_UINT32), 4u);
  EXPECT_EQ(aclDataTypeSize(ACL_UINT64), 8u);
  const int64_t dims[] = {4};
  aclTensorDesc* f32 = aclCreateTensorDesc(ACL_FLOAT, 1, dims, ACL_FORMAT_ND);
  aclTensorDesc* u32 = aclCreateTensorDesc(ACL_UINT32, 1, dims, ACL_FORMAT_ND);
  aclTensorDesc* u64 = aclCreateTensorDesc(ACL_UINT64, 1, dims, ACL_FORMAT_ND);
  float x[] = {1.9f, -3.0f, 4e9f, 1e20f};
  uint32_t words[4] = {};
  uint64_t wide[4] = {1, uint64_t{1} << 40, 0, 7};
  float back[4] = {};
  aclDataBuffer* x_buf = aclCreateDataBuffer(x, sizeof(x));
  aclDataBuffer* words_buf = aclCreateDataBuffer(words, sizeof(words));
  aclDataBuffer* wide_buf = aclCreateDataBuffer(wide, sizeof(wide));
  aclDataBuffer* back_buf = aclCreateDataBuffer(back, sizeof(back));
  ASSERT_EQ(aclopCast(f32, x_buf, u32, words_buf, 0, nullptr), ACL_SUCCESS)
      << Message();
  // Toward zero; out of range saturates (negative to 0).
  EXPECT_EQ(words[0], 1u);
  EXPECT_EQ(words[1], 0u);
  EXPECT_EQ(words[2], 4000000000u);
  EXPECT_EQ(words[3], 0xFFFFFFFFu);
  ASSERT_EQ(aclopCast(u64, wide_buf, f32, back_buf, 0, nullptr), ACL_SUCCESS)
      << Message();
  EXPECT_EQ(back[1], 1099511627776.0f);
  EXPECT_EQ(back[3], 7.0f);
  for (aclTensorDesc* d : {f32, u32, u64}) aclDestroyTensorDesc(d);
  for (aclDataBuffer* d : {x_buf, words_buf, wide_buf, back_buf})
    aclDestroyDataBuffer(d);
}

TEST_F(AclTest, ConstantInputFromItsDescription) {
  const int64_t dims[] = {2};
  aclTensorDesc* x_desc =
      aclCreateTensorDesc(ACL_FLOAT, 1, dims, ACL_FORMAT_ND);
  aclTensorDesc* c_desc =
      aclCreateTensorDesc(ACL_FLOAT, 1, dims, ACL_FORMAT_ND);
  aclTensorDesc* y_desc =
      aclCreateTensorDesc(ACL_FLOAT, 1, dims, ACL_FORMAT_ND);
  float x[] = {1, 2}, constant[] = {10, 20}, other[] = {100, 200}, y[2] = {};
  aclDataBuffer* x_buf = aclCreateDataBuffer(x, sizeof(x));
  aclDataBuffer* other_buf = aclCreateDataBuffer(other, sizeof(other));
  aclDataBuffer* y_buf = aclCreateDataBuffer(y, sizeof(y));
  aclTensorDesc* in_desc[] = {x_desc, c_desc};
  aclTensorDesc* out_desc[] = {y_desc};
  aclDataBuffer* out_buf[] = {y_buf};
  aclDataBuffer* no_buffer[] = {x_buf, nullptr};
  // Not a constant yet: the missing buffer is an error.
  EXPECT_EQ(aclopExecuteV2("Add", 2, in_desc, no_buffer, 1, out_desc, out_buf,
                           nullptr, nullptr),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclSetTensorConst(c_desc, constant, 4), ACL_ERROR_INVALID_PARAM);
  EXPECT_THAT(Message(), HasSubstr("length 4 is not the described tensor's 8"));
  EXPECT_EQ(aclSetTensorConst(c_desc, nullptr, 8), ACL_ERROR_INVALID_PARAM);
  ASSERT_EQ(aclSetTensorConst(c_desc, constant, sizeof(constant)), ACL_SUCCESS);
  constant[0] = -1;  // the desc holds a copy
  ASSERT_EQ(aclopExecuteV2("Add", 2, in_desc, no_buffer, 1, out_desc, out_buf,
                           nullptr, nullptr),
            ACL_SUCCESS)
      << Message();
  EXPECT_EQ(y[0], 11.0f);
  EXPECT_EQ(y[1], 22.0f);
  // A buffer given wins over the constant.
  aclDataBuffer* with_buffer[] = {x_buf, other_buf};
  ASSERT_EQ(aclopExecuteV2("Add", 2, in_desc, with_buffer, 1, out_desc, out_buf,
                           nullptr, nullptr),
            ACL_SUCCESS)
      << Message();
  EXPECT_EQ(y[1], 202.0f);
  for (aclTensorDesc* d : {x_desc, c_desc, y_desc}) aclDestroyTensorDesc(d);
  for (aclDataBuffer* d : {x_buf, other_buf, y_buf}) aclDestroyDataBuffer(d);
}

TEST(AclOpModelDirTest, AReadableFolderOncePerProcess) {
  EXPECT_EQ(aclopSetModelDir(nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclopSetModelDir("/nonexistent/op_models"),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_THAT(Message(), HasSubstr("'/nonexistent/op_models' is not a folder"));
  const std::string dir = ::testing::TempDir();
  EXPECT_EQ(aclopSetModelDir(dir.c_str()), ACL_SUCCESS) << Message();
  EXPECT_EQ(aclopSetModelDir(dir.c_str()), ACL_ERROR_REPEAT_INITIALIZE);
  EXPECT_THAT(Message(), HasSubstr("set once per process"));
}

TEST_F(AclTest, FailingKernelReportsTheOpAndReason) {
  const int64_t data_dims[] = {4};
  const int64_t index_dims[] = {1};
  aclTensorDesc* data =
      aclCreateTensorDesc(ACL_FLOAT, 1, data_dims, ACL_FORMAT_ND);
  aclTensorDesc* idx =
      aclCreateTensorDesc(ACL_INT64, 1, index_dims, ACL_FORMAT_ND);
  aclTensorDesc* out =
      aclCreateTensorDesc(ACL_FLOAT, 1, index_dims, ACL_FORMAT_ND);
  float values[4] = {1, 2, 3, 4}, result[1];
  int64_t index[1] = {7};
  aclDataBuffer* bufs[] = {aclCreateDataBuffer(values, 16),
                           aclCreateDataBuffer(index, 8)};
  aclDataBuffer* out_buf[] = {aclCreateDataBuffer(result, 4)};
  aclTensorDesc* in_desc[] = {data, idx};
  aclTensorDesc* out_desc[] = {out};
  EXPECT_EQ(aclopExecuteV2("Gather", 2, in_desc, bufs, 1, out_desc, out_buf,
                           nullptr, nullptr),
            ACL_ERROR_FAILURE);  // the kernel checks indices as it runs
  EXPECT_THAT(Message(), HasSubstr("single op 'Gather' (Gather) failed"));
  EXPECT_THAT(Message(), HasSubstr("index 7"));
  for (aclTensorDesc* d : {data, idx, out}) aclDestroyTensorDesc(d);
  for (aclDataBuffer* b : {bufs[0], bufs[1], out_buf[0]})
    aclDestroyDataBuffer(b);
}

}  // namespace
