#include "kernels/tensor.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <new>
#include <stdexcept>

namespace acldump {
namespace {

TEST(ShapeTest, NumElementsAndToString) {
  EXPECT_EQ(Shape().NumElements(), 1);
  EXPECT_EQ(Shape().ToString(), "[]");
  EXPECT_EQ(Shape({2, 3, 4}).NumElements(), 24);
  EXPECT_EQ(Shape({2, 0, 4}).NumElements(), 0);
  EXPECT_EQ(Shape({1, 3, 224, 224}).ToString(), "[1,3,224,224]");
}

TEST(ShapeTest, CheckedNumElementsRejectsNegativeAndHuge) {
  const int64_t ok[] = {2, 3};
  EXPECT_EQ(*CheckedNumElements(ok), 6);
  const int64_t negative[] = {2, -1};
  EXPECT_EQ(CheckedNumElements(negative).status().message(),
            "dimension 1 is negative (-1)");
  const int64_t huge[] = {int64_t{1} << 30, int64_t{1} << 30, 4};
  EXPECT_FALSE(CheckedNumElements(huge).ok());
  const int64_t overflow[] = {INT64_MAX, INT64_MAX};
  EXPECT_FALSE(CheckedNumElements(overflow).ok());
  const int64_t zero_then_huge[] = {0, INT64_MAX, INT64_MAX};
  EXPECT_EQ(*CheckedNumElements(zero_then_huge), 0);
}

TEST(ShapeTest, NormalizeAxis) {
  EXPECT_EQ(*NormalizeAxis(-1, 4), 3);
  EXPECT_EQ(*NormalizeAxis(2, 4), 2);
  EXPECT_EQ(NormalizeAxis(4, 4).status().message(),
            "axis 4 is out of range for rank 4 (expected -4..3)");
  EXPECT_FALSE(NormalizeAxis(-5, 4).ok());
}

TEST(ShapeTest, DenseStrides) {
  EXPECT_EQ(DenseStrides(Shape({2, 3, 4})), (std::vector<int64_t>{12, 4, 1}));
  EXPECT_TRUE(DenseStrides(Shape()).empty());
}

TEST(TensorTest, OwnsAlignedZeroedStorageAndClones) {
  Tensor t(DType::kFloat32, Shape({3, 5}));
  EXPECT_EQ(t.ByteSize(), 60u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(t.data()) % AlignedBuffer::kAlignment,
            0u);
  for (int i = 0; i < 15; ++i) EXPECT_EQ(t.as<float>()[i], 0.0f);
  t.as<float>()[7] = 2.5f;
  Tensor copy = t.Clone();
  EXPECT_NE(copy.data(), t.data());
  EXPECT_EQ(copy.as<float>()[7], 2.5f);
  EXPECT_EQ(copy.info().ToString(), "float32[3,5]");
  TensorView view = t.view();
  EXPECT_EQ(view.ByteSize(), 60u);
  EXPECT_EQ(view.as<float>()[7], 2.5f);
}

TEST(TensorTest, EmptyTensorHasNoStorage) {
  Tensor t(DType::kInt64, Shape({0, 4}));
  EXPECT_EQ(t.ByteSize(), 0u);
  EXPECT_EQ(t.data(), nullptr);
  Tensor copy = t.Clone();
  EXPECT_EQ(copy.ByteSize(), 0u);
}

// A shape with an unknown (-1) dimension has no size: allocating it throws
// instead of wrapping around to a tiny buffer behind a huge size.
TEST(TensorTest, UnknownDimensionsAndHugeSizesDoNotAllocate) {
  EXPECT_THROW(Tensor(DType::kFloat32, Shape({-1, 4})), std::length_error);
  EXPECT_THROW(Tensor(DType::kFloat32, Shape({-1, -1})), std::length_error);
  EXPECT_THROW(AlignedBuffer(SIZE_MAX - 10), std::bad_alloc);
  Tensor empty(DType::kFloat32, Shape({0, 4}));
  EXPECT_EQ(empty.ByteSize(), 0u);
}

}  // namespace
}  // namespace acldump
