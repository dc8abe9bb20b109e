#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kernels/testing/op_tester.h"
#include "kernels/testing/test_values.h"

namespace acldump {
namespace {

using ::acldump::testing::AsDoubles;
using ::acldump::testing::Convert;
using ::acldump::testing::Count;
using ::acldump::testing::Message;
using ::acldump::testing::OpTester;
using ::acldump::testing::RandomInts;
using ::acldump::testing::RandomValues;
using ::acldump::testing::RoundTrip;
using ::acldump::testing::Values;
using ::testing::HasSubstr;

struct PoolSpec {
  std::vector<int64_t> dims;  // N, C, spatial...
  std::vector<int64_t> kernel;
  std::vector<int64_t> strides;    // empty: attribute absent
  std::vector<int64_t> dilations;  // empty: attribute absent
  std::vector<int64_t> pads;       // empty: attribute absent
  std::string auto_pad;            // empty: attribute absent
  bool ceil_mode = false;
  bool count_include_pad = false;
  int64_t storage_order = 0;

  std::string ToString() const {
    return ::testing::PrintToString(dims) +
           " k=" + ::testing::PrintToString(kernel) +
           " s=" + ::testing::PrintToString(strides) +
           " d=" + ::testing::PrintToString(dilations) +
           " p=" + ::testing::PrintToString(pads) + " auto_pad=" + auto_pad +
           " ceil=" + std::to_string(ceil_mode) +
           " include_pad=" + std::to_string(count_include_pad) +
           " storage_order=" + std::to_string(storage_order);
  }
};

struct PoolResult {
  std::vector<int64_t> dims;
  std::vector<double> values;
  std::vector<int64_t> indices;
};

// Straightforward reference: every output position, every tap.
PoolResult ReferencePool(bool is_max, const PoolSpec& s,
                         const std::vector<double>& x) {
  const size_t rank = s.dims.size() - 2;
  std::vector<int64_t> in(s.dims.begin() + 2, s.dims.end()), out(rank),
      pb(rank), pe(rank);
  auto get = [&](const std::vector<int64_t>& v, size_t i, int64_t def) {
    return v.empty() ? def : v[i];
  };
  for (size_t i = 0; i < rank; ++i) {
    const int64_t st = get(s.strides, i, 1);
    const int64_t ext = (s.kernel[i] - 1) * get(s.dilations, i, 1) + 1;
    if (s.auto_pad == "SAME_UPPER" || s.auto_pad == "SAME_LOWER") {
      out[i] = (in[i] + st - 1) / st;
      const int64_t total =
          std::max<int64_t>(0, (out[i] - 1) * st + ext - in[i]);
      pb[i] = s.auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      pe[i] = total - pb[i];
    } else {
      pb[i] = s.auto_pad == "VALID" ? 0 : get(s.pads, i, 0);
      pe[i] = s.auto_pad == "VALID" ? 0 : get(s.pads, i + rank, 0);
      const int64_t span = in[i] + pb[i] + pe[i] - ext;
      if (s.ceil_mode && s.auto_pad != "VALID") {
        out[i] = (span + st - 1) / st + 1;
        if ((out[i] - 1) * st >= in[i] + pb[i]) --out[i];
      } else {
        out[i] = span / st + 1;
      }
    }
  }
  PoolResult r;
  r.dims = {s.dims[0], s.dims[1]};
  r.dims.insert(r.dims.end(), out.begin(), out.end());
  const int64_t planes = s.dims[0] * s.dims[1];
  const int64_t in_plane = Count(in);
  for (int64_t p = 0; p < planes; ++p) {
    std::vector<int64_t> o(rank, 0);
    for (int64_t k = 0; k < Count(out); ++k) {
      double best = 0, sum = 0;
      int64_t best_index = -1, count = 0;
      std::vector<int64_t> j(rank, 0);
      for (int64_t t = 0; t < Count(s.kernel); ++t) {
        bool valid = true, padded = true;
        int64_t row_major = 0, col_major = 0, scale = 1;
        for (size_t i = 0; i < rank; ++i) {
          const int64_t pos = o[i] * get(s.strides, i, 1) - pb[i] +
                              j[i] * get(s.dilations, i, 1);
          valid = valid && pos >= 0 && pos < in[i];
          padded = padded && pos < in[i] + pe[i];
          row_major = row_major * in[i] + pos;
          col_major += pos * scale;
          scale *= in[i];
        }
        if (valid) {
          const double v = x[p * in_plane + row_major];
          if (best_index < 0 || v > best) {
            best = v;
            best_index =
                p * in_plane + (s.storage_order == 1 ? col_major : row_major);
          }
          sum += v;
        }
        if (s.count_include_pad ? padded : valid) ++count;
        for (size_t i = rank; i-- > 0;) {
          if (++j[i] < s.kernel[i]) break;
          j[i] = 0;
        }
      }
      r.values.push_back(is_max ? best : sum / count);
      r.indices.push_back(best_index);
      for (size_t i = rank; i-- > 0;) {
        if (++o[i] < out[i]) break;
        o[i] = 0;
      }
    }
  }
  return r;
}

OpTester MakePool(const std::string& op, const PoolSpec& s,
                  size_t num_outputs = 1) {
  OpTester tester(op, num_outputs);
  tester.Attr("kernel_shape", s.kernel);
  if (!s.strides.empty()) tester.Attr("strides", s.strides);
  if (!s.dilations.empty()) tester.Attr("dilations", s.dilations);
  if (!s.pads.empty()) tester.Attr("pads", s.pads);
  if (!s.auto_pad.empty()) tester.Attr("auto_pad", s.auto_pad);
  if (s.ceil_mode) tester.Attr("ceil_mode", int64_t{1});
  if (op == "AveragePool")
    tester.Attr("count_include_pad", int64_t{s.count_include_pad});
  if (s.storage_order != 0) tester.Attr("storage_order", s.storage_order);
  return tester;
}

template <typename T>
void CheckPool(const std::string& op, const PoolSpec& s, uint32_t seed,
               bool with_indices = false, double tolerance = 1e-6) {
  SCOPED_TRACE(op + " " + s.ToString());
  const bool is_max = op == "MaxPool";
  const std::vector<double> x = RandomInts(Count(s.dims), seed);
  OpTester tester = MakePool(op, s, with_indices ? 2 : 1);
  tester.Input<T>(Shape(s.dims), Convert<T>(x));
  auto outputs = tester.Run();
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  const PoolResult expected = ReferencePool(is_max, s, x);
  ASSERT_EQ((*outputs)[0].shape(), Shape(expected.dims));
  EXPECT_EQ((*outputs)[0].dtype(), testing::DTypeOf<T>());
  const std::vector<double> actual = AsDoubles<T>((*outputs)[0]);
  ASSERT_EQ(actual.size(), expected.values.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    EXPECT_NEAR(actual[i], expected.values[i],
                tolerance * (1 + std::abs(expected.values[i])))
        << "element " << i;
  }
  if (with_indices) {
    ASSERT_EQ(outputs->size(), 2u);
    EXPECT_EQ((*outputs)[1].dtype(), DType::kInt64);
    EXPECT_EQ((*outputs)[1].shape(), Shape(expected.dims));
    EXPECT_EQ(Values<int64_t>((*outputs)[1]), expected.indices);
  }
}

// 2-D sweep over kernel, stride, pads, ceil_mode, auto_pad and
// count_include_pad. With float32 this exercises the fast path, with other
// types the generic loops.
template <typename T>
void Sweep2D(const std::string& op, double tolerance, bool with_indices = false,
             std::vector<int64_t> dilations = {}) {
  // The wider rows give the SIMD path whole vectors of windows and a last
  // partial one, at either stride.
  const std::vector<std::vector<int64_t>> inputs = {
      {1, 2, 5, 5}, {2, 1, 7, 6}, {1, 1, 4, 9}, {1, 1, 3, 23}, {1, 2, 2, 40}};
  const std::vector<std::vector<int64_t>> kernels = {
      {1, 1}, {2, 2}, {3, 3}, {2, 3}};
  const std::vector<std::vector<int64_t>> strides = {
      {}, {2, 2}, {1, 2}, {3, 3}};
  const std::vector<std::vector<int64_t>> pads = {
      {}, {1, 1, 1, 1}, {0, 1, 1, 0}, {2, 1, 0, 2}};
  uint32_t seed = 1;
  for (const auto& dims : inputs) {
    for (const auto& kernel : kernels) {
      for (const auto& stride : strides) {
        for (const char* auto_pad :
             {"", "NOTSET", "VALID", "SAME_UPPER", "SAME_LOWER"}) {
          const bool explicit_pads = std::string(auto_pad).empty() ||
                                     std::string(auto_pad) == "NOTSET";
          for (const auto& pad :
               explicit_pads ? pads : std::vector<std::vector<int64_t>>{{}}) {
            PoolSpec s{dims, kernel, stride, dilations, pad, auto_pad};
            // Skip what the kernel rightly rejects (see the Errors test).
            const bool same = std::string(auto_pad).starts_with("SAME");
            bool ok = true;
            for (size_t i = 0; i < 2; ++i) {
              const int64_t ext =
                  (kernel[i] - 1) * (dilations.empty() ? 1 : dilations[i]) + 1;
              const int64_t p0 = pad.empty() ? 0 : pad[i];
              const int64_t p1 = pad.empty() ? 0 : pad[i + 2];
              if (p0 >= ext || p1 >= ext ||
                  (!same && dims[i + 2] + p0 + p1 < ext))
                ok = false;
            }
            if (!ok) continue;
            for (int ceil = 0; ceil < 2; ++ceil) {
              for (int include = 0; include < (op == "AveragePool" ? 2 : 1);
                   ++include) {
                s.ceil_mode = ceil;
                s.count_include_pad = include;
                CheckPool<T>(op, s, seed++, with_indices, tolerance);
                for (int order = 1; with_indices && order < 2; ++order) {
                  s.storage_order = order;
                  CheckPool<T>(op, s, seed++, with_indices, tolerance);
                  s.storage_order = 0;
                }
              }
            }
          }
        }
      }
    }
  }
}

TEST(MaxPoolTest, Sweep2DFloat32FastPath) { Sweep2D<float>("MaxPool", 0); }
TEST(MaxPoolTest, Sweep2DFloat64) { Sweep2D<double>("MaxPool", 0); }
TEST(MaxPoolTest, Sweep2DFloat16) { Sweep2D<Float16>("MaxPool", 0); }
TEST(MaxPoolTest, Sweep2DInt8) { Sweep2D<int8_t>("MaxPool", 0); }
// 8-bit max pooling (quantized models pool their bytes) on its own SIMD
// path: every byte value, rows of several 32-byte vectors and a partial one,
// strides 1 to 3, pads and ceil_mode, against the float32 path on the same
// values (a maximum is exact in either type).
template <typename T>
void Sweep2DBytesAgainstFloat() {
  std::mt19937 rng(23);
  std::uniform_int_distribution<int> byte(std::numeric_limits<T>::lowest(),
                                          std::numeric_limits<T>::max());
  for (const std::vector<int64_t> dims : {std::vector<int64_t>{1, 3, 9, 150},
                                          {2, 2, 12, 65},
                                          {1, 1, 5, 31},
                                          {1, 2, 6, 13},
                                          {1, 2, 7, 7}}) {
    for (int64_t k : {2, 3, 5}) {
      for (int64_t stride : {1, 2, 3}) {
        for (int64_t pad : {0, 1}) {
          for (int64_t ceil = 0; ceil < 2; ++ceil) {
            if (pad >= k) continue;
            SCOPED_TRACE(::testing::Message()
                         << dims[3] << " wide, kernel " << k << " stride "
                         << stride << " pad " << pad << " ceil " << ceil);
            std::vector<T> bytes(Count(dims));
            for (T& b : bytes) b = static_cast<T>(byte(rng));
            const std::vector<float> floats(bytes.begin(), bytes.end());
            auto run = [&](auto values) {
              using V = typename decltype(values)::value_type;
              return OpTester("MaxPool")
                  .Input<V>(Shape(dims), values)
                  .Attr("kernel_shape", std::vector<int64_t>{k, k})
                  .Attr("strides", std::vector<int64_t>{stride, stride})
                  .Attr("pads", std::vector<int64_t>{pad, pad, pad, pad})
                  .Attr("ceil_mode", ceil)
                  .Run();
            };
            auto got = run(bytes);
            auto want = run(floats);
            ASSERT_TRUE(got.ok()) << got.status();
            ASSERT_TRUE(want.ok()) << want.status();
            ASSERT_EQ((*got)[0].shape(), (*want)[0].shape());
            const std::vector<T> got_values = Values<T>((*got)[0]);
            const std::vector<float> want_values = Values<float>((*want)[0]);
            int differing = 0;
            for (size_t i = 0; i < got_values.size(); ++i) {
              differing += static_cast<float>(got_values[i]) != want_values[i];
            }
            EXPECT_EQ(differing, 0) << "of " << got_values.size();
          }
        }
      }
    }
  }
}
TEST(MaxPoolTest, Uint8FastPathEqualsFloat32) {
  Sweep2DBytesAgainstFloat<uint8_t>();
}
TEST(MaxPoolTest, Int8FastPathEqualsFloat32) {
  Sweep2DBytesAgainstFloat<int8_t>();
}

TEST(MaxPoolTest, Sweep2DWithIndices) {
  Sweep2D<float>("MaxPool", 0, /*with_indices=*/true);
}
TEST(MaxPoolTest, Sweep2DDilated) {
  Sweep2D<float>("MaxPool", 0, /*with_indices=*/true, {2, 2});
  Sweep2D<float>("MaxPool", 0, /*with_indices=*/false, {1, 2});
}
TEST(AveragePoolTest, Sweep2DFloat32FastPath) {
  Sweep2D<float>("AveragePool", 1e-6);
}
TEST(AveragePoolTest, Sweep2DFloat64) { Sweep2D<double>("AveragePool", 1e-12); }
TEST(AveragePoolTest, Sweep2DFloat16) { Sweep2D<Float16>("AveragePool", 2e-3); }
TEST(AveragePoolTest, Sweep2DDilated) {
  Sweep2D<float>("AveragePool", 1e-6, false, {2, 1});
}

TEST(PoolTest, OneAndThreeDimensional) {
  uint32_t seed = 1000;
  for (const char* op : {"MaxPool", "AveragePool"}) {
    for (bool ceil : {false, true}) {
      for (bool include : {false, true}) {
        PoolSpec one{{2, 3, 9}, {3}, {2}, {}, {1, 2}};
        one.ceil_mode = ceil;
        one.count_include_pad = include;
        CheckPool<float>(op, one, seed++, std::string(op) == "MaxPool");
        PoolSpec three{
            {1, 2, 4, 5, 6}, {2, 3, 2}, {2, 1, 2}, {}, {1, 0, 1, 0, 2, 1}};
        three.ceil_mode = ceil;
        three.count_include_pad = include;
        CheckPool<float>(op, three, seed++, std::string(op) == "MaxPool");
        three.storage_order = 1;
        CheckPool<double>(op, three, seed++, std::string(op) == "MaxPool",
                          1e-12);
        PoolSpec dilated{{1, 1, 6, 5, 7}, {2, 2, 2}, {},
                         {2, 1, 3},       {},        "SAME_LOWER"};
        dilated.count_include_pad = include;
        CheckPool<float>(op, dilated, seed++, std::string(op) == "MaxPool");
      }
    }
  }
}

TEST(PoolTest, EmptyBatch) {
  for (const char* op : {"MaxPool", "AveragePool"}) {
    PoolSpec s{{0, 3, 5, 5}, {2, 2}};
    auto outputs = MakePool(op, s).Input<float>(Shape(s.dims), {}).Run();
    ASSERT_TRUE(outputs.ok()) << outputs.status();
    EXPECT_EQ((*outputs)[0].shape(), (Shape{0, 3, 4, 4}));
  }
}

// The ResNet stem: 3x3 stride 2 pad 1 on 112x112, through the fast path.
TEST(MaxPoolTest, ResNetStem) {
  PoolSpec s{{1, 4, 112, 112}, {3, 3}, {2, 2}, {}, {1, 1, 1, 1}};
  CheckPool<float>("MaxPool", s, 5);
}

// ONNX test_maxpool_with_argmax_2d_precomputed_strides (storage_order=1).
TEST(MaxPoolTest, OnnxArgmaxColumnMajor) {
  std::vector<float> x(25);
  for (int i = 0; i < 25; ++i) x[i] = i + 1;
  PoolSpec s{{1, 1, 5, 5}, {2, 2}, {2, 2}};
  s.storage_order = 1;
  auto outputs =
      MakePool("MaxPool", s, 2).Input<float>(Shape{1, 1, 5, 5}, x).Run();
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  EXPECT_EQ(Values<float>((*outputs)[0]), (std::vector<float>{7, 9, 17, 19}));
  EXPECT_EQ(Values<int64_t>((*outputs)[1]),
            (std::vector<int64_t>{6, 16, 8, 18}));
}

// ONNX test_maxpool_with_argmax_2d_precomputed_pads.
TEST(MaxPoolTest, OnnxArgmaxPads) {
  std::vector<float> x(25);
  for (int i = 0; i < 25; ++i) x[i] = i + 1;
  PoolSpec s{{1, 1, 5, 5}, {5, 5}, {}, {}, {2, 2, 2, 2}};
  auto outputs =
      MakePool("MaxPool", s, 2).Input<float>(Shape{1, 1, 5, 5}, x).Run();
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  EXPECT_EQ(
      Values<float>((*outputs)[0]),
      (std::vector<float>{13, 14, 15, 15, 15, 18, 19, 20, 20, 20, 23, 24, 25,
                          25, 25, 23, 24, 25, 25, 25, 23, 24, 25, 25, 25}));
  EXPECT_EQ(
      Values<int64_t>((*outputs)[1]),
      (std::vector<int64_t>{12, 13, 14, 14, 14, 17, 18, 19, 19, 19, 22, 23, 24,
                            24, 24, 22, 23, 24, 24, 24, 22, 23, 24, 24, 24}));
}

// ONNX test_averagepool_2d_ceil and test_maxpool_2d_ceil.
TEST(PoolTest, OnnxCeilMode) {
  std::vector<float> x(16);
  for (int i = 0; i < 16; ++i) x[i] = i + 1;
  PoolSpec s{{1, 1, 4, 4}, {3, 3}, {2, 2}};
  s.ceil_mode = true;
  auto avg =
      MakePool("AveragePool", s).Input<float>(Shape{1, 1, 4, 4}, x).Run();
  ASSERT_TRUE(avg.ok()) << avg.status();
  EXPECT_EQ(Values<float>((*avg)[0]), (std::vector<float>{6, 7.5, 12, 13.5}));
  auto max = MakePool("MaxPool", s).Input<float>(Shape{1, 1, 4, 4}, x).Run();
  ASSERT_TRUE(max.ok()) << max.status();
  EXPECT_EQ(Values<float>((*max)[0]), (std::vector<float>{11, 12, 15, 16}));
}

// ONNX test_maxpool_2d_dilations.
TEST(MaxPoolTest, OnnxDilations) {
  std::vector<float> x(16);
  for (int i = 0; i < 16; ++i) x[i] = i + 1;
  PoolSpec s{{1, 1, 4, 4}, {2, 2}, {1, 1}, {2, 2}};
  auto max = MakePool("MaxPool", s).Input<float>(Shape{1, 1, 4, 4}, x).Run();
  ASSERT_TRUE(max.ok()) << max.status();
  EXPECT_EQ(Values<float>((*max)[0]), (std::vector<float>{11, 12, 15, 16}));
}

TEST(MaxPoolTest, UInt8) {
  PoolSpec s{{1, 1, 3, 3}, {2, 2}};
  auto outputs =
      MakePool("MaxPool", s)
          .Input<uint8_t>(Shape{1, 1, 3, 3}, {1, 200, 3, 4, 5, 255, 7, 8, 9})
          .Run();
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  EXPECT_EQ(Values<uint8_t>((*outputs)[0]),
            (std::vector<uint8_t>{200, 255, 8, 255}));
}

TEST(MaxPoolTest, NaNPropagates) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  PoolSpec s{{1, 1, 2, 2}, {2, 2}};
  for (size_t outputs_count : {1u, 2u}) {
    auto outputs = MakePool("MaxPool", s, outputs_count)
                       .Input<float>(Shape{1, 1, 2, 2}, {1, nan, 3, 2})
                       .Run();
    ASSERT_TRUE(outputs.ok()) << outputs.status();
    EXPECT_TRUE(std::isnan(Values<float>((*outputs)[0])[0]));
    if (outputs_count == 2) {
      EXPECT_EQ(Values<int64_t>((*outputs)[1])[0], 1);
    }
  }
}

// The stride-2 rows run a vector of windows at a time (SqueezeNet's 3x3, stride
// 2, ceil mode): a NaN reaches exactly the windows that cover it, and every
// other output is the exact maximum, in every lane and in the scalar tail.
TEST(MaxPoolTest, StrideTwoNaNReachesItsWindowsOnly) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const int64_t h = 5, w = 23;
  PoolSpec s{{1, 1, h, w}, {3, 3}, {2, 2}};
  s.ceil_mode = 1;
  for (int64_t nan_col : {0, 5, 8, 13, 22}) {
    std::vector<float> x(h * w);
    for (int64_t i = 0; i < h * w; ++i)
      x[i] = static_cast<float>((i * 37) % 101);
    x[2 * w + nan_col] = nan;
    auto outputs =
        MakePool("MaxPool", s).Input<float>(Shape{1, 1, h, w}, x).Run();
    ASSERT_TRUE(outputs.ok()) << outputs.status();
    const std::vector<float> y = Values<float>((*outputs)[0]);
    const int64_t oh = 2, ow = 11;
    ASSERT_EQ(y.size(), static_cast<size_t>(oh * ow));
    for (int64_t r = 0; r < oh; ++r) {
      for (int64_t c = 0; c < ow; ++c) {
        float want = -std::numeric_limits<float>::infinity();
        bool has_nan = false;
        for (int64_t i = 2 * r; i < std::min(h, 2 * r + 3); ++i) {
          for (int64_t j = 2 * c; j < std::min(w, 2 * c + 3); ++j) {
            has_nan |= std::isnan(x[i * w + j]);
            if (!std::isnan(x[i * w + j])) want = std::max(want, x[i * w + j]);
          }
        }
        if (has_nan) {
          EXPECT_TRUE(std::isnan(y[r * ow + c]))
              << nan_col << ": " << r << "," << c;
        } else {
          EXPECT_EQ(y[r * ow + c], want) << nan_col << ": " << r << "," << c;
        }
      }
    }
  }
}

TEST(MaxPoolTest, AllNegativeInfinity) {
  const float inf = std::numeric_limits<float>::infinity();
  PoolSpec s{{1, 1, 1, 3}, {1, 2}};
  auto outputs = MakePool("MaxPool", s, 2)
                     .Input<float>(Shape{1, 1, 1, 3}, {-inf, -inf, -inf})
                     .Run();
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  EXPECT_EQ(Values<float>((*outputs)[0]), (std::vector<float>{-inf, -inf}));
  EXPECT_EQ(Values<int64_t>((*outputs)[1]), (std::vector<int64_t>{0, 1}));
}

// ---------------------------------------------------------------------------------------------
// Global pools.

template <typename T>
void CheckGlobal(const std::vector<int64_t>& dims, double tolerance) {
  SCOPED_TRACE(::testing::PrintToString(dims));
  const std::vector<double> x =
      RandomInts(Count(dims), static_cast<uint32_t>(Count(dims)));
  int64_t size = 1;
  std::vector<int64_t> out_dims = {dims[0], dims[1]};
  for (size_t a = 2; a < dims.size(); ++a) {
    size *= dims[a];
    out_dims.push_back(1);
  }
  for (const char* op : {"GlobalAveragePool", "GlobalMaxPool"}) {
    auto outputs = OpTester(op).Input<T>(Shape(dims), Convert<T>(x)).Run();
    ASSERT_TRUE(outputs.ok()) << op << " " << outputs.status();
    EXPECT_EQ((*outputs)[0].shape(), Shape(out_dims));
    const std::vector<double> y = AsDoubles<T>((*outputs)[0]);
    for (int64_t p = 0; p < dims[0] * dims[1]; ++p) {
      double sum = 0, max = -INFINITY;
      for (int64_t i = 0; i < size; ++i) {
        sum += x[p * size + i];
        max = std::max(max, x[p * size + i]);
      }
      const double want = std::string(op) == "GlobalMaxPool" ? max : sum / size;
      EXPECT_NEAR(y[p], want, tolerance * (1 + std::abs(want)))
          << op << " plane " << p;
    }
  }
}

TEST(GlobalPoolTest, Sweep) {
  CheckGlobal<float>({2, 3, 4, 5}, 1e-6);
  CheckGlobal<float>({1, 2048, 7, 7}, 1e-6);
  CheckGlobal<float>({2, 3, 7}, 1e-6);
  CheckGlobal<float>({2, 3, 2, 3, 4}, 1e-6);
  CheckGlobal<double>({2, 3, 4, 5}, 1e-12);
  CheckGlobal<Float16>({2, 3, 4, 5}, 2e-3);
  CheckGlobal<BFloat16>({2, 3, 4, 5}, 1e-2);
}

// Float32 planes are summed on SIMD registers: element i into partial sum
// i % 8 in double, the partials added in order, then divided by the size.
TEST(GlobalPoolTest, AverageSumsEightPartialsInDoubleInOrder) {
  for (int64_t size : {1, 7, 8, 9, 49, 196, 3139}) {
    std::vector<float> x(2 * size);
    for (size_t i = 0; i < x.size(); ++i)
      x[i] = static_cast<float>(std::sin(0.37 * i) * 1e3 + 1e-3 * i);
    auto outputs = OpTester("GlobalAveragePool")
                       .Input<float>(Shape{1, 2, size, 1}, x)
                       .Run();
    ASSERT_TRUE(outputs.ok()) << outputs.status();
    const std::vector<float> y = Values<float>((*outputs)[0]);
    for (int64_t plane = 0; plane < 2; ++plane) {
      const double sum =
          testing::EightPartialSum(x.data() + plane * size, size);
      EXPECT_EQ(y[plane], static_cast<float>(sum / static_cast<double>(size)))
          << "size " << size << ", plane " << plane;
    }
  }
}

TEST(GlobalPoolTest, EmptyAndErrors) {
  auto empty =
      OpTester("GlobalAveragePool").Input<float>(Shape{0, 3, 2, 2}, {}).Run();
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ((*empty)[0].shape(), (Shape{0, 3, 1, 1}));
  auto rank1 =
      OpTester("GlobalMaxPool").Input<float>(Shape{3}, {1, 2, 3}).Run();
  EXPECT_EQ(rank1.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(rank1.status()),
              HasSubstr("input 'X' must have rank >= 2"));
  auto ints = OpTester("GlobalAveragePool")
                  .Input<int32_t>(Shape{1, 1, 2}, {1, 2})
                  .Run();
  EXPECT_THAT(Message(ints.status()),
              HasSubstr("input 'X' has unsupported type int32"));
}

// ---------------------------------------------------------------------------------------------
// Errors.

absl::Status PoolError(
    const std::string& op, const PoolSpec& s,
    const std::vector<std::pair<std::string, AttrValue>>& extra = {}) {
  OpTester tester = MakePool(op, s);
  for (const auto& [name, value] : extra) tester.Attr(name, value);
  tester.Input<float>(Shape(s.dims), std::vector<float>(Count(s.dims)));
  return tester.Run().status();
}

TEST(PoolTest, Errors) {
  const std::vector<int64_t> dims = {1, 1, 5, 5};
  absl::Status status = OpTester("MaxPool")
                            .Input<float>(Shape(dims), std::vector<float>(25))
                            .Run()
                            .status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(status),
              HasSubstr("attribute 'kernel_shape' is required"));

  status = PoolError("MaxPool", PoolSpec{dims, {3}});
  EXPECT_THAT(
      Message(status),
      HasSubstr("attribute 'kernel_shape' = [3] has 1 values, expected 2 "
                "(one per spatial dimension of input shape [1,1,5,5])"));

  status = PoolError("AveragePool", PoolSpec{dims, {0, 2}});
  EXPECT_THAT(Message(status),
              HasSubstr("attribute 'kernel_shape' = [0,2] must be positive"));

  status = PoolError("MaxPool",
                     PoolSpec{dims, {4, 2}, {}, {int64_t{1} << 39, 1 << 20}});
  EXPECT_THAT(Message(status),
              HasSubstr("the dilated kernel of spatial dimension 0 (kernel 4, "
                        "dilation 549755813888) is too large"));

  status = PoolError("MaxPool", PoolSpec{dims, {2, 2}, {int64_t{1} << 62, 1}});
  EXPECT_THAT(Message(status), HasSubstr("has a value above 1099511627776"));

  status = PoolError("MaxPool", PoolSpec{dims, {2, 2}, {1, 0}});
  EXPECT_THAT(Message(status),
              HasSubstr("attribute 'strides' = [1,0] has a value below 1"));

  status = PoolError("MaxPool", PoolSpec{dims, {2, 2}, {}, {}, {0, -1, 0, 0}});
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(status),
              HasSubstr("attribute 'pads' = [0,-1,0,0] has a value below 0"));

  status = PoolError("MaxPool", PoolSpec{dims, {2, 2}, {}, {}, {1, 1}});
  EXPECT_THAT(Message(status),
              HasSubstr("attribute 'pads' has 2 values [1,1], expected 4 "
                        "(begin and end per spatial dimension)"));

  status =
      PoolError("AveragePool", PoolSpec{dims, {2, 2}, {}, {}, {2, 0, 0, 0}});
  EXPECT_THAT(Message(status),
              HasSubstr("pads of spatial dimension 0 must be smaller than the "
                        "(dilated) kernel size 2"));

  status = PoolError("MaxPool", PoolSpec{dims, {2, 2}, {}, {1, 0}});
  EXPECT_THAT(Message(status),
              HasSubstr("attribute 'dilations' = [1,0] has a value below 1"));

  status = PoolError("MaxPool", PoolSpec{dims, {2, 2}, {}, {}, {}, "SAME"});
  EXPECT_THAT(Message(status),
              HasSubstr("attribute 'auto_pad' = \"SAME\" is not one of"));

  status = PoolError("MaxPool", PoolSpec{dims, {6, 2}});
  EXPECT_THAT(
      Message(status),
      HasSubstr("kernel size 6 of spatial dimension 0 exceeds the padded "
                "input size 5"));

  status = PoolError("MaxPool", PoolSpec{dims, {2, 2}},
                     {{"storage_order", int64_t{2}}});
  EXPECT_THAT(Message(status),
              HasSubstr("'storage_order' must be 0 (row major) or 1"));

  status = PoolError("AveragePool", PoolSpec{dims, {2, 2}},
                     {{"count_include_pad", int64_t{3}}});
  EXPECT_THAT(Message(status),
              HasSubstr("'count_include_pad' must be 0 or 1, got 3"));

  status = PoolError("MaxPool", PoolSpec{{1, 5}, {2}});
  EXPECT_THAT(Message(status), HasSubstr("input 'X' must have rank >= 3"));

  status = OpTester("AveragePool")
               .Attr("kernel_shape", std::vector<int64_t>{2})
               .Input<int8_t>(Shape{1, 1, 4}, {1, 2, 3, 4})
               .Run()
               .status();
  EXPECT_THAT(Message(status),
              HasSubstr("input 'X' has unsupported type int8"));

  status = OpTester("AveragePool", 2)
               .Attr("kernel_shape", std::vector<int64_t>{2})
               .Input<float>(Shape{1, 1, 4}, {1, 2, 3, 4})
               .Run()
               .status();
  EXPECT_THAT(Message(status),
              HasSubstr("AveragePool produces 1..1 outputs, 2 requested"));
}

}  // namespace
}  // namespace acldump
