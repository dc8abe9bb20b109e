#include "dump/stats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "hwy/targets.h"
#include "kernels/half.h"
#include "kernels/threading.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace acldump::dump {
namespace {

// Plain double reference.
TensorStats Reference(const std::vector<double>& values) {
  TensorStats s;
  s.count = values.size();
  for (double v : values) {
    if (std::isnan(v)) {
      ++s.nan;
    } else if (std::isinf(v)) {
      ++(v > 0 ? s.positive_inf : s.negative_inf);
    } else {
      s.max = s.finite ? std::max(s.max, v) : v;
      s.min = s.finite ? std::min(s.min, v) : v;
      ++s.finite;
      s.sum += v;
      s.sum_squares += v * v;
    }
  }
  return s;
}

void ExpectSameCounts(const TensorStats& got, const TensorStats& want) {
  EXPECT_EQ(got.count, want.count);
  EXPECT_EQ(got.finite, want.finite);
  EXPECT_EQ(got.nan, want.nan);
  EXPECT_EQ(got.positive_inf, want.positive_inf);
  EXPECT_EQ(got.negative_inf, want.negative_inf);
}

void ExpectStatsNear(const TensorStats& got, const TensorStats& want) {
  ExpectSameCounts(got, want);
  if (want.finite > 0) {
    EXPECT_EQ(got.max, want.max);
    EXPECT_EQ(got.min, want.min);
    EXPECT_NEAR(got.sum, want.sum, 1e-5 * (std::abs(want.sum) + want.finite));
    EXPECT_NEAR(got.sum_squares, want.sum_squares,
                1e-5 * want.sum_squares + 1e-6);
  }
}

TEST(StatsTest, Float32MatchesReferenceAcrossSizesAndSpecials) {
  std::mt19937 rng(3);
  std::normal_distribution<float> dist(0.5f, 3.0f);
  for (size_t n : {0u, 1u, 7u, 8u, 9u, 63u, 511u, 512u, 513u, 4096u, 100003u}) {
    for (int specials : {0, 1, 2}) {
      std::vector<float> data(n);
      for (float& v : data) v = dist(rng);
      if (specials > 0 && n > 0) {
        data[n / 2] = std::numeric_limits<float>::quiet_NaN();
        data[n - 1] = std::numeric_limits<float>::infinity();
        if (specials > 1) data[0] = -std::numeric_limits<float>::infinity();
      }
      std::vector<double> as_double(data.begin(), data.end());
      Tensor t(DType::kFloat32, Shape({static_cast<int64_t>(n)}));
      if (n > 0) std::memcpy(t.data(), data.data(), n * 4);
      SCOPED_TRACE(testing::Message() << "n=" << n << " specials=" << specials);
      ExpectStatsNear(ComputeStats(t.view()), Reference(as_double));
      EXPECT_EQ(HasNonFinite(t.view()), specials > 0 && n > 0);
    }
  }
}

TEST(StatsTest, AllNonFiniteHasNoFiniteStatistics) {
  Tensor t(DType::kFloat32, Shape({20}));
  for (int i = 0; i < 20; ++i) t.as<float>()[i] = i % 2 ? NAN : -INFINITY;
  TensorStats s = ComputeStats(t.view());
  EXPECT_EQ(s.finite, 0u);
  EXPECT_EQ(s.nan, 10u);
  EXPECT_EQ(s.negative_inf, 10u);
}

TEST(StatsTest, Float16ExtremesDoNotOverflow) {
  // 4096 copies of 65504 (float16 max): the sum (2.7e8) and sum of squares
  // (1.8e13) overflow float16 and lose precision in naive float32 accumulation
  // over one lane.
  const int n = 4096 + 5;
  Tensor t(DType::kFloat16, Shape({n}));
  for (int i = 0; i < n; ++i) t.as<Float16>()[i] = Float16(65504.0f);
  t.as<Float16>()[1] = Float16::FromBits(0x7C00);  // +Inf
  t.as<Float16>()[2] = Float16::FromBits(0xFC00);  // -Inf
  t.as<Float16>()[3] = Float16::FromBits(0x7E00);  // NaN
  t.as<Float16>()[4] = Float16::FromBits(0x0001);  // smallest subnormal
  TensorStats s = ComputeStats(t.view());
  EXPECT_EQ(s.count, static_cast<uint64_t>(n));
  EXPECT_EQ(s.finite, static_cast<uint64_t>(n - 3));
  EXPECT_EQ(s.positive_inf, 1u);
  EXPECT_EQ(s.negative_inf, 1u);
  EXPECT_EQ(s.nan, 1u);
  EXPECT_EQ(s.max, 65504.0);
  EXPECT_EQ(s.min, std::ldexp(1.0, -24));
  EXPECT_NEAR(s.sum, 65504.0 * (n - 4), 1.0);
  EXPECT_NEAR(s.sum_squares, 65504.0 * 65504.0 * (n - 4),
              1e-6 * 65504.0 * 65504.0 * n);
  EXPECT_TRUE(HasNonFinite(t.view()));
}

TEST(StatsTest, IntegerAndBoolTensors) {
  Tensor t(DType::kInt64, Shape({4}));
  int64_t values[] = {-5, 7, 0, 2};
  std::memcpy(t.data(), values, sizeof(values));
  TensorStats s = ComputeStats(t.view());
  EXPECT_EQ(s.max, 7);
  EXPECT_EQ(s.min, -5);
  EXPECT_EQ(s.sum, 4);
  EXPECT_EQ(s.sum_squares, 78);
  EXPECT_EQ(s.nan, 0u);
  EXPECT_FALSE(HasNonFinite(t.view()));
  Tensor b(DType::kBool, Shape({3}));
  b.as<bool>()[1] = true;
  s = ComputeStats(b.view());
  EXPECT_EQ(s.max, 1);
  EXPECT_EQ(s.min, 0);
  EXPECT_EQ(s.sum, 1);
}

TEST(StatsTest, UnsignedTensorsKeepValuesAboveTheSignedRange) {
  Tensor t(DType::kUInt64, Shape({3}));
  const uint64_t values[] = {uint64_t{1} << 63, 3, uint64_t{1} << 40};
  std::memcpy(t.data(), values, sizeof(values));
  TensorStats s = ComputeStats(t.view(), /*checksum=*/true);
  EXPECT_EQ(s.count, 3u);
  EXPECT_EQ(s.finite, 3u);
  EXPECT_EQ(s.max, 9223372036854775808.0);  // not negative, as int64 would read
  EXPECT_EQ(s.min, 3);
  EXPECT_EQ(s.sum, 9223372036854775808.0 + 3 + 1099511627776.0);
  EXPECT_EQ(s.nan, 0u);
  EXPECT_FALSE(HasNonFinite(t.view()));
  EXPECT_EQ(s.checksum, XXH3_64bits(t.data(), t.ByteSize()));
  Tensor u32(DType::kUInt32, Shape({2}));
  u32.as<uint32_t>()[0] = 4000000000u;
  u32.as<uint32_t>()[1] = 1;
  s = ComputeStats(u32.view());
  EXPECT_EQ(s.max, 4000000000.0);
  EXPECT_EQ(s.min, 1);
  Tensor u16(DType::kUInt16, Shape({2}));
  u16.as<uint16_t>()[0] = 65535;
  u16.as<uint16_t>()[1] = 2;
  s = ComputeStats(u16.view());
  EXPECT_EQ(s.max, 65535);
  EXPECT_EQ(s.sum, 65537);
}

// The one-shot hash of the whole buffer: what the checksum hashed block by
// block in the statistics' pass must equal.
uint64_t Whole(const Tensor& t) { return XXH3_64bits(t.data(), t.ByteSize()); }

TEST(StatsTest, TheChecksumIsXxh3OfTheBytesAtEverySize) {
  // XXH3-64 of nothing, as xxhsum -H3 prints it.
  EXPECT_EQ(TensorChecksum(Tensor(DType::kFloat32, Shape({0})).view()),
            0x2d06800538d394c2u);
  std::mt19937 rng(5);
  std::normal_distribution<float> dist(0, 2);
  // Around the statistics' block (1536 elements) and vector widths.
  for (size_t n : {0u, 1u, 15u, 16u, 17u, 1535u, 1536u, 1537u, 4609u, 70001u}) {
    Tensor t(DType::kFloat32, Shape({static_cast<int64_t>(n)}));
    for (size_t i = 0; i < n; ++i) t.as<float>()[i] = dist(rng);
    if (n > 2000) t.as<float>()[1600] = NAN;  // a block redone one by one
    SCOPED_TRACE(n);
    const TensorStats with = ComputeStats(t.view(), /*checksum=*/true);
    EXPECT_EQ(with.checksum, Whole(t));
    EXPECT_EQ(TensorChecksum(t.view()), Whole(t));
    const TensorStats without = ComputeStats(t.view());
    EXPECT_EQ(without.checksum, 0u);
    EXPECT_EQ(std::memcmp(&with, &without, offsetof(TensorStats, checksum)), 0);
  }
}

// The statistics' pass feeds XXH3 block by block (groups of its 6 KB blocks,
// the tail apart, one participant in order on more threads): at every byte
// count around XXH3's own boundaries (short inputs, 1 KB blocks, 64-byte
// stripes) and the pass's, on every SIMD target and thread count, the checksum
// is XXH3_64bits of the bytes and the statistics are those of the pass
// without a checksum.
TEST(StatsTest, TheChecksumIsXxh3OnEveryTargetAndBoundary) {
  std::mt19937 rng(17);
  std::uniform_int_distribution<uint32_t> bits;
  std::vector<size_t> sizes;  // in bytes
  for (size_t base : {size_t{240}, size_t{1024}, size_t{3072}, size_t{6144},
                      size_t{16384}, size_t{6144 * 3 + 1024}, size_t{49152}}) {
    for (int delta : {-66, -64, -62, -4, -2, 0, 2, 4, 62, 64, 66, 1024}) {
      sizes.push_back(base + delta);
    }
  }
  sizes.push_back(size_t{1} << 20);           // parallel at more threads
  sizes.push_back((size_t{1} << 20) + 1028);  // and a partial last block
  std::vector<int64_t> targets = hwy::SupportedAndGeneratedTargets();
  ASSERT_FALSE(targets.empty());
  for (int64_t target : targets) {
    hwy::SetSupportedTargetsForTest(target);
    for (size_t bytes : sizes) {
      for (DType dtype : {DType::kFloat32, DType::kFloat16}) {
        const size_t width = dtype == DType::kFloat32 ? 4 : 2;
        if (bytes % width != 0) continue;
        Tensor t(dtype, Shape({static_cast<int64_t>(bytes / width)}));
        // Any bit pattern: NaNs, infinities and subnormals included.
        for (size_t i = 0; i < bytes / 2; ++i) {
          t.as<uint16_t>()[i] = static_cast<uint16_t>(bits(rng));
        }
        for (int threads : {1, 2}) {
          SCOPED_TRACE(testing::Message()
                       << hwy::TargetName(target) << " " << bytes << " bytes "
                       << width << "-byte elements, threads " << threads);
          ScopedIntraOpThreads scope(threads);
          const TensorStats with = ComputeStats(t.view(), /*checksum=*/true);
          ASSERT_EQ(with.checksum, Whole(t));
          const TensorStats without = ComputeStats(t.view());
          ASSERT_EQ(
              std::memcmp(&with, &without, offsetof(TensorStats, checksum)), 0);
        }
      }
    }
  }
  hwy::SetSupportedTargetsForTest(0);
}

TEST(StatsTest, EveryTypeIsChecksummed) {
  Tensor half(DType::kFloat16, Shape({3001}));
  for (int i = 0; i < 3001; ++i) half.as<Float16>()[i] = Float16(i * 0.25f);
  EXPECT_EQ(ComputeStats(half.view(), true).checksum, Whole(half));
  Tensor bytes(DType::kInt8, Shape({5}));
  for (int i = 0; i < 5; ++i) bytes.as<int8_t>()[i] = static_cast<int8_t>(-i);
  EXPECT_EQ(ComputeStats(bytes.view(), true).checksum, Whole(bytes));
  Tensor wide(DType::kInt64, Shape({2, 3}));
  for (int i = 0; i < 6; ++i) wide.as<int64_t>()[i] = i * 1000003;
  EXPECT_EQ(ComputeStats(wide.view(), true).checksum, Whole(wide));
}

TEST(StatsTest, OneUlpChangesTheChecksum) {
  Tensor a(DType::kFloat32, Shape({4096}));
  for (int i = 0; i < 4096; ++i) a.as<float>()[i] = std::sin(i * 0.01f);
  Tensor b(DType::kFloat32, Shape({4096}));
  std::memcpy(b.data(), a.data(), a.ByteSize());
  b.as<float>()[2222] = std::nextafter(b.as<float>()[2222], 2.0f);
  const TensorStats sa = ComputeStats(a.view(), true);
  const TensorStats sb = ComputeStats(b.view(), true);
  EXPECT_NE(sa.checksum, sb.checksum);
  // The six-digit statistics cannot see it.
  EXPECT_EQ(sa.max, sb.max);
  EXPECT_EQ(sa.min, sb.min);
}

}  // namespace
}  // namespace acldump::dump

namespace acldump::dump {
namespace {

void ExpectSameBits(const TensorStats& got, const TensorStats& want) {
  ExpectSameCounts(got, want);
  // Bitwise: the same additions in the same order.
  EXPECT_EQ(std::memcmp(&got.sum, &want.sum, 8), 0);
  EXPECT_EQ(std::memcmp(&got.sum_squares, &want.sum_squares, 8), 0);
  EXPECT_EQ(std::memcmp(&got.max, &want.max, 8), 0);
  EXPECT_EQ(std::memcmp(&got.min, &want.min, 8), 0);
  EXPECT_EQ(got.checksum, want.checksum);
}

// Large tensors take their statistics, and their checksum, on the intra-op
// threads: the same bits as the one-thread pass on any thread count, NaN and
// infinity blocks included, and the checksum still XXH3 of the whole tensor.
TEST(StatsTest, ParallelChecksumPassGivesTheOneThreadBits) {
  std::mt19937 rng(11);
  std::normal_distribution<float> values(-0.25f, 4.0f);
  for (size_t n : {size_t{1} << 17, (size_t{1} << 17) + 7, size_t{999983}}) {
    for (DType dtype : {DType::kFloat32, DType::kFloat16}) {
      Tensor t(dtype, Shape({static_cast<int64_t>(n)}));
      for (size_t i = 0; i < n; ++i) {
        const float v = values(rng);
        if (dtype == DType::kFloat32) {
          t.as<float>()[i] = v;
        } else {
          t.as<Float16>()[i] = Float16(v);
        }
      }
      // A NaN block, an infinity block and one in the last hashed group.
      for (size_t at : {n / 5, n / 2, n - 3}) {
        if (dtype == DType::kFloat32) {
          t.as<float>()[at] = at == n / 5 ? NAN : INFINITY;
        } else {
          t.as<Float16>()[at] = Float16(at == n / 5 ? NAN : -INFINITY);
        }
      }
      TensorStats one_thread;
      {
        ScopedIntraOpThreads scope(1);
        one_thread = ComputeStats(t.view(), /*checksum=*/true);
      }
      EXPECT_EQ(one_thread.checksum, Whole(t));
      for (int threads : {2, 3, 4}) {
        SCOPED_TRACE(testing::Message()
                     << n << " " << static_cast<int>(dtype) << " " << threads);
        ScopedIntraOpThreads scope(threads);
        ExpectSameBits(ComputeStats(t.view(), /*checksum=*/true), one_thread);
      }
    }
  }
}

// Large tensors take their statistics on the intra-op threads: the same bits
// as the one-thread pass on any thread count, NaN and infinity blocks
// included.
TEST(StatsTest, ParallelPassGivesTheSequentialBitsOnAnyThreadCount) {
  std::mt19937 rng(7);
  std::normal_distribution<float> values(0.5f, 3.0f);
  for (size_t n : {size_t{1} << 17, (size_t{1} << 17) + 1, size_t{1000003}}) {
    for (bool specials : {false, true}) {
      std::vector<float> data(n);
      for (float& v : data) v = values(rng);
      if (specials) {
        data[n / 3] = std::numeric_limits<float>::quiet_NaN();
        data[n / 2] = std::numeric_limits<float>::infinity();
        data[n - 1] = -std::numeric_limits<float>::infinity();
      }
      TensorView view{DType::kFloat32, Shape({static_cast<int64_t>(n)}),
                      data.data()};
      TensorStats sequential;
      {
        ScopedIntraOpThreads scope(1);
        sequential = ComputeStats(view);
      }
      for (int threads : {2, 3}) {
        SCOPED_TRACE(testing::Message()
                     << n << " " << specials << " " << threads);
        ScopedIntraOpThreads scope(threads);
        ExpectSameBits(ComputeStats(view), sequential);
      }
    }
  }
}

// Ties between +0 and -0 are broken as the one-thread pass breaks them (its
// vector max keeps the later operand), so the sign of a zero max or min is
// the same bits too.
TEST(StatsTest, ParallelPassBreaksSignedZeroTiesAsTheSequentialOne) {
  const size_t n = size_t{1} << 18;
  for (int pattern = 0; pattern < 4; ++pattern) {
    std::vector<float> data(n, -1.0f);
    for (size_t i = 0; i < n; ++i) {
      const size_t block = i / 1536;
      if (pattern == 0) data[i] = block % 2 == 0 ? 0.0f : -0.0f;
      if (pattern == 1) data[i] = block % 2 == 0 ? -0.0f : 0.0f;
      if (pattern == 2 && block < 2) data[i] = block == 0 ? 0.0f : -0.0f;
      if (pattern == 3)
        data[i] = (i % 7 == 0) ? 0.0f : (i % 5 == 0 ? -0.0f : 1.0f);
    }
    if (pattern == 3) {
      for (float& v : data) v = -v;  // zeros now the maximum
    }
    TensorView view{DType::kFloat32, Shape({static_cast<int64_t>(n)}),
                    data.data()};
    TensorStats sequential;
    {
      ScopedIntraOpThreads scope(1);
      sequential = ComputeStats(view);
    }
    for (int threads : {2, 3}) {
      SCOPED_TRACE(testing::Message() << pattern << " " << threads);
      ScopedIntraOpThreads scope(threads);
      const TensorStats parallel = ComputeStats(view);
      EXPECT_EQ(std::memcmp(&parallel.max, &sequential.max, 8), 0)
          << parallel.max << " " << sequential.max;
      EXPECT_EQ(std::memcmp(&parallel.min, &sequential.min, 8), 0)
          << parallel.min << " " << sequential.min;
    }
  }
}

}  // namespace
}  // namespace acldump::dump
