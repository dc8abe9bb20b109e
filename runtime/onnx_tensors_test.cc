// ONNX tensors of the unsigned types: uint16 in int32_data, uint32 and uint64
// in uint64_data, or raw_data; written back as raw_data.
#include "runtime/onnx_tensors.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>

namespace acldump {
namespace {

using ::testing::HasSubstr;

TEST(OnnxTensorsTest, UnsignedTypedFields) {
  onnx::TensorProto u16;
  u16.set_name("u16");
  u16.set_data_type(onnx::TensorProto::UINT16);
  u16.add_dims(2);
  u16.add_int32_data(65535);
  u16.add_int32_data(7);
  absl::StatusOr<Tensor> t = TensorFromOnnx(u16);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->dtype(), DType::kUInt16);
  EXPECT_EQ(t->as<uint16_t>()[0], 65535);
  EXPECT_EQ(t->as<uint16_t>()[1], 7);

  onnx::TensorProto u32;
  u32.set_data_type(onnx::TensorProto::UINT32);
  u32.add_dims(1);
  u32.add_uint64_data(0xFFFFFFFFu);
  t = TensorFromOnnx(u32);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->dtype(), DType::kUInt32);
  EXPECT_EQ(t->as<uint32_t>()[0], 0xFFFFFFFFu);

  onnx::TensorProto u64;
  u64.set_name("u64");
  u64.set_data_type(onnx::TensorProto::UINT64);
  u64.add_dims(2);
  u64.add_uint64_data(~uint64_t{0});
  u64.add_uint64_data(uint64_t{1} << 63);
  t = TensorFromOnnx(u64);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->dtype(), DType::kUInt64);
  EXPECT_EQ(t->as<uint64_t>()[0], ~uint64_t{0});
  EXPECT_EQ(t->as<uint64_t>()[1], uint64_t{1} << 63);

  // The count is checked against the field the type uses.
  u64.add_dims(2);
  EXPECT_THAT(TensorFromOnnx(u64).status().message(),
              HasSubstr("holds 2 values, shape [2,2] needs 4"));
}

TEST(OnnxTensorsTest, UnsignedRawDataRoundTrips) {
  Tensor t(DType::kUInt64, Shape({3}));
  const uint64_t values[] = {1, uint64_t{1} << 63, ~uint64_t{0}};
  std::memcpy(t.data(), values, sizeof(values));
  onnx::TensorProto proto;
  TensorToOnnx(t, &proto);
  EXPECT_EQ(proto.data_type(), onnx::TensorProto::UINT64);
  EXPECT_EQ(proto.raw_data().size(), sizeof(values));
  absl::StatusOr<Tensor> back = TensorFromOnnx(proto);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->info(), t.info());
  EXPECT_EQ(std::memcmp(back->data(), values, sizeof(values)), 0);

  Tensor u16(DType::kUInt16, Shape({2}));
  TensorToOnnx(u16, &proto);
  EXPECT_EQ(proto.data_type(), onnx::TensorProto::UINT16);
  Tensor u32(DType::kUInt32, Shape({2}));
  TensorToOnnx(u32, &proto);
  EXPECT_EQ(proto.data_type(), onnx::TensorProto::UINT32);
  proto.set_raw_data(std::string(7, '\0'));
  EXPECT_THAT(TensorFromOnnx(proto).status().message(),
              HasSubstr("raw_data has 7 bytes, uint32[2] needs 8"));
}

// RoiAlign before opset 16 samples without the half-pixel shift; its
// attribute's default is opset 16's, so the import writes the older one out.
TEST(OnnxTensorsTest, RoiAlignKeepsItsOpsetsCoordinateMode) {
  onnx::NodeProto node;
  node.set_op_type("RoiAlign");
  for (int64_t opset : {10, 13, 15}) {
    auto attrs = AttributesFromOnnx(node, opset);
    ASSERT_TRUE(attrs.ok()) << attrs.status();
    EXPECT_EQ(*attrs->GetString("coordinate_transformation_mode", ""),
              "output_half_pixel")
        << opset;
  }
  auto attrs = AttributesFromOnnx(node, 16);
  ASSERT_TRUE(attrs.ok());
  EXPECT_FALSE(attrs->Has("coordinate_transformation_mode"));
  // Given explicitly, it stays.
  onnx::AttributeProto* mode = node.add_attribute();
  mode->set_name("coordinate_transformation_mode");
  mode->set_type(onnx::AttributeProto::STRING);
  mode->set_s("half_pixel");
  attrs = AttributesFromOnnx(node, 13);
  ASSERT_TRUE(attrs.ok());
  EXPECT_EQ(*attrs->GetString("coordinate_transformation_mode", ""),
            "half_pixel");
}

}  // namespace
}  // namespace acldump
