// aclmdlConvertOnnx: converts as the `convert` tool does (byte for byte), the
// result loads and runs to PyTorch's output, and every bad input gets its
// code and a message naming what is wrong, leaving no file behind.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "kernels/npy.h"
#include "onnx/onnx.pb.h"

namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string Message() { return aclGetRecentErrMsg(); }

std::string ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

class ConvertTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(std::getenv("TEST_TMPDIR")) /
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  // A failed assertion must not leave the library initialised for the next
  // test.
  void TearDown() override { aclFinalize(); }
  std::string Out(const std::string& name) const {
    return (dir_ / name).string();
  }
  fs::path dir_;
};

TEST_F(ConvertTest, WritesWhatTheConvertToolWritesAndItRunsToPyTorchsOutput) {
  const std::string om = Out("resnet_tiny.om");
  ASSERT_EQ(aclmdlConvertOnnx("testdata/resnet_tiny.onnx", om.c_str(), nullptr),
            ACL_SUCCESS)
      << Message();
  EXPECT_EQ(ReadBytes(om), ReadBytes("testdata/resnet_tiny.om"));
  EXPECT_FALSE(fs::exists(om + ".tmp"));

  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  uint32_t id = 0;
  ASSERT_EQ(aclmdlLoadFromFile(om.c_str(), &id), ACL_SUCCESS) << Message();
  auto input = acldump::ReadNpyFile("testdata/resnet_tiny.input.input.npy");
  auto expected = acldump::ReadNpyFile("testdata/resnet_tiny.output.prob.npy");
  ASSERT_TRUE(input.ok() && expected.ok());
  aclmdlDesc* desc = aclmdlCreateDesc();
  ASSERT_EQ(aclmdlGetDesc(desc, id), ACL_SUCCESS);
  ASSERT_EQ(aclmdlGetInputSizeByIndex(desc, 0), input->ByteSize());
  aclmdlDataset* inputs = aclmdlCreateDataset();
  aclmdlDataset* outputs = aclmdlCreateDataset();
  aclmdlAddDatasetBuffer(
      inputs,
      aclCreateDataBuffer(const_cast<void*>(input->data()), input->ByteSize()));
  std::vector<std::vector<float>> out(aclmdlGetNumOutputs(desc));
  size_t prob = out.size();
  for (size_t i = 0; i < out.size(); ++i) {
    out[i].resize(aclmdlGetOutputSizeByIndex(desc, i) / sizeof(float));
    aclmdlAddDatasetBuffer(
        outputs,
        aclCreateDataBuffer(out[i].data(), out[i].size() * sizeof(float)));
    if (std::string(aclmdlGetOutputNameByIndex(desc, i)) == "prob") prob = i;
  }
  ASSERT_LT(prob, out.size()) << "no output named prob";
  ASSERT_EQ(aclmdlExecute(id, inputs, outputs), ACL_SUCCESS) << Message();
  const auto* want = static_cast<const float*>(expected->data());
  ASSERT_EQ(out[prob].size(), expected->NumElements());
  for (size_t i = 0; i < out[prob].size(); ++i) {
    EXPECT_NEAR(out[prob][i], want[i], 1e-5) << "prob[" << i << "]";
  }
  for (aclmdlDataset* dataset : {inputs, outputs}) {
    for (size_t i = 0; i < aclmdlGetDatasetNumBuffers(dataset); ++i)
      aclDestroyDataBuffer(aclmdlGetDatasetBuffer(dataset, i));
    aclmdlDestroyDataset(dataset);
  }
  aclmdlDestroyDesc(desc);
  EXPECT_EQ(aclmdlUnload(id), ACL_SUCCESS);
}

TEST_F(ConvertTest, InputShapePinsSymbolicDimensions) {
  const std::string om = Out("ocr_tiny.om");
  ASSERT_EQ(
      aclmdlConvertOnnx("testdata/ocr_tiny.onnx", om.c_str(), "x:2,3,16,16"),
      ACL_SUCCESS)
      << Message();
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  uint32_t id = 0;
  ASSERT_EQ(aclmdlLoadFromFile(om.c_str(), &id), ACL_SUCCESS) << Message();
  aclmdlDesc* desc = aclmdlCreateDesc();
  ASSERT_EQ(aclmdlGetDesc(desc, id), ACL_SUCCESS);
  aclmdlIODims dims;
  ASSERT_EQ(aclmdlGetInputDims(desc, 0, &dims), ACL_SUCCESS);
  EXPECT_THAT(std::vector<int64_t>(dims.dims, dims.dims + dims.dimCount),
              ElementsAre(2, 3, 16, 16));
  EXPECT_EQ(aclmdlGetInputSizeByIndex(desc, 0), 2 * 3 * 16 * 16 * 4u);
  aclmdlDestroyDesc(desc);
  EXPECT_EQ(aclmdlUnload(id), ACL_SUCCESS);
}

TEST_F(ConvertTest, NullPathsAreInvalidParameters) {
  const std::string om = Out("x.om");
  EXPECT_EQ(aclmdlConvertOnnx(nullptr, om.c_str(), nullptr),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(Message(), "onnxPath is NULL");
  EXPECT_EQ(aclmdlConvertOnnx("testdata/resnet_tiny.onnx", nullptr, nullptr),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(Message(), "omPath is NULL");
  EXPECT_FALSE(fs::exists(om));
}

TEST_F(ConvertTest, AMalformedInputShapeSaysTheExpectedForm) {
  const std::string om = Out("x.om");
  EXPECT_EQ(aclmdlConvertOnnx("testdata/ocr_tiny.onnx", om.c_str(), "x=1,3"),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_THAT(Message(), HasSubstr("inputShape"));
  EXPECT_THAT(Message(), HasSubstr("name:d0,d1"));
  EXPECT_FALSE(fs::exists(om));
}

TEST_F(ConvertTest, AFileThatCannotBeReadIsAReadFailureNamingIt) {
  const std::string om = Out("x.om");
  EXPECT_EQ(
      aclmdlConvertOnnx("testdata/no_such_model.onnx", om.c_str(), nullptr),
      ACL_ERROR_READ_MODEL_FAILURE);
  EXPECT_THAT(Message(), HasSubstr("no_such_model.onnx"));
  EXPECT_THAT(Message(), HasSubstr("does not exist"));
  EXPECT_EQ(aclmdlConvertOnnx("testdata", om.c_str(), nullptr),
            ACL_ERROR_READ_MODEL_FAILURE);
  EXPECT_THAT(Message(), HasSubstr("not a regular file"));
  EXPECT_FALSE(fs::exists(om));
}

TEST_F(ConvertTest, BytesThatAreNotOnnxDoNotParse) {
  const std::string bad = Out("bad.onnx");
  std::ofstream(bad) << "this is not a protobuf message \xff\xff\xff";
  const std::string om = Out("x.om");
  EXPECT_EQ(aclmdlConvertOnnx(bad.c_str(), om.c_str(), nullptr),
            ACL_ERROR_PARSE_MODEL);
  EXPECT_THAT(Message(), HasSubstr("bad.onnx"));
  EXPECT_FALSE(fs::exists(om));
}

TEST_F(ConvertTest, WhatTheRuntimeLacksIsAnUnsupportedFeature) {
  // A valid ONNX model at an opset older than any the converter takes.
  onnx::ModelProto model;
  model.set_ir_version(3);
  auto* opset = model.add_opset_import();
  opset->set_domain("");
  opset->set_version(3);
  onnx::GraphProto* graph = model.mutable_graph();
  graph->set_name("old");
  onnx::NodeProto* node = graph->add_node();
  node->set_op_type("Relu");
  node->add_input("x");
  node->add_output("y");
  const std::string old = Out("old.onnx");
  std::string bytes;
  ASSERT_TRUE(model.SerializeToString(&bytes));
  std::ofstream(old, std::ios::binary) << bytes;
  const std::string om = Out("x.om");
  EXPECT_EQ(aclmdlConvertOnnx(old.c_str(), om.c_str(), nullptr),
            ACL_ERROR_FEATURE_UNSUPPORTED);
  EXPECT_THAT(Message(), HasSubstr("opset 3"));
  EXPECT_FALSE(fs::exists(om));
}

TEST_F(ConvertTest, AnUnwritableDestinationIsAWriteErrorAndLeavesNothing) {
  const std::string om = Out("missing_dir/x.om");
  EXPECT_EQ(aclmdlConvertOnnx("testdata/resnet_tiny.onnx", om.c_str(), nullptr),
            ACL_ERROR_WRITE_FILE);
  EXPECT_THAT(Message(), HasSubstr("missing_dir/x.om"));
  EXPECT_FALSE(fs::exists(om));
  EXPECT_FALSE(fs::exists(om + ".tmp"));
}

}  // namespace
