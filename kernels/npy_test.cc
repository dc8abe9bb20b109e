#include "kernels/npy.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kernels/half.h"

namespace acldump {
namespace {

using ::testing::HasSubstr;

TEST(NpyTest, ReadsFilesWrittenByNumpy) {
  // Written by numpy.save in testdata/generate_models.py.
  absl::StatusOr<Tensor> t =
      ReadNpyFile("testdata/resnet_tiny.input.input.npy");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->dtype(), DType::kFloat32);
  EXPECT_EQ(t->shape(), Shape({1, 3, 32, 32}));
  absl::StatusOr<Tensor> probs =
      ReadNpyFile("testdata/resnet_tiny.output.prob.npy");
  ASSERT_TRUE(probs.ok()) << probs.status();
  double sum = 0;
  for (int i = 0; i < 10; ++i) sum += probs->as<float>()[i];
  EXPECT_NEAR(sum, 1.0, 1e-5);  // a softmax
}

TEST(NpyTest, RoundTripsEveryDType) {
  for (DType dtype : kAllDTypes) {
    if (dtype == DType::kBFloat16) continue;
    Tensor t(dtype, Shape({2, 3}));
    for (size_t i = 0; i < t.ByteSize(); ++i)
      static_cast<uint8_t*>(t.data())[i] = i % 2;
    auto bytes = EncodeNpy(t.view());
    ASSERT_TRUE(bytes.ok());
    EXPECT_EQ((bytes->size() - t.ByteSize()) % 64,
              0u);  // data aligned like numpy does
    auto back = DecodeNpy(*bytes);
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(back->info(), t.info());
    EXPECT_EQ(std::memcmp(back->data(), t.data(), t.ByteSize()), 0);
  }
  Tensor scalar(DType::kInt64, Shape());
  *scalar.as<int64_t>() = 42;
  auto back = DecodeNpy(*EncodeNpy(scalar.view()));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->shape(), Shape());
  EXPECT_EQ(*back->as<int64_t>(), 42);
  Tensor vec(DType::kFloat32, Shape({5}));
  EXPECT_THAT(*EncodeNpy(vec.view()), HasSubstr("'shape': (5,)"));
}

TEST(NpyTest, UnsignedTypesUseNumpyDescrs) {
  struct Case {
    DType dtype;
    std::string_view descr;
  };
  for (const Case& c : {Case{DType::kUInt16, "'descr': '<u2'"},
                        Case{DType::kUInt32, "'descr': '<u4'"},
                        Case{DType::kUInt64, "'descr': '<u8'"}}) {
    Tensor t(c.dtype, Shape({2}));
    auto bytes = EncodeNpy(t.view());
    ASSERT_TRUE(bytes.ok()) << bytes.status();
    EXPECT_THAT(*bytes, HasSubstr(std::string(c.descr)));
  }
  // Values above int64's range survive.
  Tensor big(DType::kUInt64, Shape({2}));
  big.as<uint64_t>()[0] = 0xFFFFFFFFFFFFFFFFull;
  big.as<uint64_t>()[1] = uint64_t{1} << 63;
  auto back = DecodeNpy(*EncodeNpy(big.view()));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->dtype(), DType::kUInt64);
  EXPECT_EQ(back->as<uint64_t>()[0], 0xFFFFFFFFFFFFFFFFull);
  EXPECT_EQ(back->as<uint64_t>()[1], uint64_t{1} << 63);
  // numpy writes '=' for native order; big-endian multi-byte is refused.
  std::string native = *EncodeNpy(big.view());
  native.replace(native.find("<u8"), 3, "=u8");
  EXPECT_TRUE(DecodeNpy(native).ok());
  std::string big_endian = *EncodeNpy(big.view());
  big_endian.replace(big_endian.find("<u8"), 3, ">u8");
  EXPECT_FALSE(DecodeNpy(big_endian).ok());
}

TEST(NpyTest, BFloat16IsWidenedToFloat32) {
  Tensor t(DType::kBFloat16, Shape({2}));
  t.as<BFloat16>()[0] = BFloat16(1.5f);
  t.as<BFloat16>()[1] = BFloat16(-2.0f);
  auto back = DecodeNpy(*EncodeNpy(t.view()));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->dtype(), DType::kFloat32);
  EXPECT_EQ(back->as<float>()[0], 1.5f);
  EXPECT_EQ(back->as<float>()[1], -2.0f);
}

TEST(NpyTest, RejectsHostileFiles) {
  Tensor t(DType::kFloat32, Shape({4}));
  const std::string good = *EncodeNpy(t.view());
  EXPECT_THAT(DecodeNpy("hello").status().message(), HasSubstr("magic"));
  EXPECT_THAT(DecodeNpy(good.substr(0, good.size() - 1)).status().message(),
              HasSubstr("data is 15 bytes, float32[4] needs 16"));
  std::string big_header = good;
  big_header[8] = '\xff';
  big_header[9] = '\xff';
  EXPECT_THAT(DecodeNpy(big_header).status().message(),
              HasSubstr("exceeds the file"));
  std::string fortran = good;
  fortran.replace(fortran.find("False"), 5, "True ");
  EXPECT_THAT(DecodeNpy(fortran).status().message(), HasSubstr("Fortran"));
  std::string huge = good;
  huge.replace(huge.find("(4,)"), 4, "(9999999999999,)");
  EXPECT_FALSE(DecodeNpy(huge).ok());
  std::string complex = good;
  complex.replace(complex.find("<f4"), 3, "<c8");
  EXPECT_THAT(DecodeNpy(complex).status().message(),
              HasSubstr("'<c8' is not supported"));
  std::string big_endian = good;
  big_endian.replace(big_endian.find("<f4"), 3, ">f4");
  EXPECT_FALSE(DecodeNpy(big_endian).ok());
}

}  // namespace
}  // namespace acldump
