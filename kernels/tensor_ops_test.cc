#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <numeric>
#include <optional>
#include <random>

#include "kernels/ops.h"
#include "kernels/testing/op_tester.h"

namespace acldump {

// Readable gtest failure messages.
void PrintTo(const Shape& shape, std::ostream* os) { *os << shape.ToString(); }
void PrintTo(const TensorInfo& info, std::ostream* os) {
  *os << info.ToString();
}

namespace {

using ::acldump::testing::MakeTensor;
using ::acldump::testing::OpTester;
using ::acldump::testing::Values;
using ::testing::HasSubstr;
using Ints = std::vector<int64_t>;

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();

// ---------------------------------------------------------------------------------------------
// Helpers: patterned tensors of any dtype and index-based references. A
// reference lists, per output element, the input element it holds (-1 = a pad
// constant), so one check covers every dtype byte for byte.

Tensor Pattern(DType dtype, const Shape& shape, int seed = 0) {
  Tensor t(dtype, shape);
  auto* bytes = static_cast<uint8_t*>(t.data());
  const size_t esize = DTypeSize(dtype);
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    for (size_t b = 0; b < esize; ++b) {
      bytes[i * esize + b] =
          dtype == DType::kBool
              ? static_cast<uint8_t>((i * 7 + seed) % 3 == 0)
              : static_cast<uint8_t>((i >> (8 * b)) * 37 + i * 11 + b * 101 +
                                     seed * 53 + 1);
    }
  }
  return t;
}

Ints Unravel(int64_t flat, const Ints& dims) {
  Ints index(dims.size());
  for (size_t k = dims.size(); k-- > 0;) {
    index[k] = flat % dims[k];
    flat /= dims[k];
  }
  return index;
}

int64_t Ravel(const Ints& index, const Ints& dims) {
  int64_t flat = 0;
  for (size_t k = 0; k < dims.size(); ++k) flat = flat * dims[k] + index[k];
  return flat;
}

int64_t Count(const Ints& dims) {
  return std::accumulate(dims.begin(), dims.end(), int64_t{1},
                         std::multiplies<int64_t>());
}

// Expects out element j to equal in element src[j] (or `constant` where src[j]
// < 0).
void ExpectElementsFrom(const Tensor& out, const Tensor& in, const Ints& src,
                        const void* constant = nullptr) {
  ASSERT_EQ(out.dtype(), in.dtype());
  ASSERT_EQ(out.NumElements(), static_cast<int64_t>(src.size()));
  const size_t esize = DTypeSize(in.dtype());
  const auto* out_bytes = static_cast<const uint8_t*>(out.data());
  const auto* in_bytes = static_cast<const uint8_t*>(in.data());
  for (size_t j = 0; j < src.size(); ++j) {
    const void* expected =
        src[j] < 0 ? constant
                   : static_cast<const void*>(in_bytes + src[j] * esize);
    ASSERT_NE(expected, nullptr);
    ASSERT_EQ(std::memcmp(out_bytes + j * esize, expected, esize), 0)
        << "output element " << j << " (dtype " << DTypeName(in.dtype())
        << ") should be input element " << src[j];
  }
}

bool SameBytes(const Tensor& a, const Tensor& b) {
  return a.ByteSize() == b.ByteSize() &&
         (a.ByteSize() == 0 ||
          std::memcmp(a.data(), b.data(), a.ByteSize()) == 0);
}

// Runs and returns the outputs, failing the test on error.
std::vector<Tensor> RunOk(const OpTester& tester) {
  absl::StatusOr<std::vector<Tensor>> outputs = tester.Run();
  EXPECT_TRUE(outputs.ok()) << outputs.status();
  if (!outputs.ok()) return {};
  return std::move(outputs).value();
}

template <typename T>
void ExpectError(const absl::StatusOr<T>& result, absl::StatusCode code,
                 std::string_view substring) {
  ASSERT_FALSE(result.ok())
      << "expected an error containing \"" << substring << "\"";
  EXPECT_EQ(result.status().code(), code) << result.status();
  EXPECT_THAT(std::string(result.status().message()),
              HasSubstr(std::string(substring)));
}

Tensor Int64s(const Ints& values) {
  return MakeTensor<int64_t>(Shape{static_cast<int64_t>(values.size())},
                             values);
}

Tensor Int32s(const Ints& values) {
  std::vector<int32_t> narrow(values.begin(), values.end());
  return MakeTensor<int32_t>(Shape{static_cast<int64_t>(values.size())},
                             narrow);
}

// ---------------------------------------------------------------------------------------------
// Registration.

TEST(TensorOpsTest, RegistersEveryOpWithCountsAndAliasing) {
  struct Expected {
    const char* type;
    int min_inputs, max_inputs, min_outputs;
    bool aliases;
  };
  const Expected expected[] = {
      {"Concat", 1, 1 << 16, 1, false},
      {"Split", 1, 2, 1, false},
      {"Slice", 1, 5, 1, false},
      {"Gather", 2, 2, 1, false},
      {"Reshape", 1, 2, 1, true},
      {"Flatten", 1, 1, 1, true},
      {"Transpose", 1, 1, 1, false},
      {"Squeeze", 1, 2, 1, true},
      {"Unsqueeze", 1, 2, 1, true},
      {"Identity", 1, 1, 1, true},
      {"Pad", 1, 4, 1, false},
      {"Shape", 1, 1, 1, false},
      {"Size", 1, 1, 1, false},
      {"Constant", 0, 0, 1, false},
      {"ConstantOfShape", 1, 1, 1, false},
      {"Expand", 2, 2, 1, false},
      {"Tile", 2, 2, 1, false},
      {"Range", 3, 3, 1, false},
  };
  for (const Expected& e : expected) {
    const OpDef* def = BuiltinOps().Find(e.type);
    ASSERT_NE(def, nullptr) << e.type;
    EXPECT_EQ(def->min_inputs, e.min_inputs) << e.type;
    EXPECT_EQ(def->max_inputs, e.max_inputs) << e.type;
    EXPECT_EQ(def->min_outputs, e.min_outputs) << e.type;
    EXPECT_EQ(def->output_aliases_input, e.aliases) << e.type;
  }
  EXPECT_GT(BuiltinOps().Find("Split")->max_outputs, 1);
}

// ---------------------------------------------------------------------------------------------
// Concat.

TEST(ConcatTest, SweepShapesAxesAndDTypes) {
  const std::vector<std::vector<Ints>> cases = {
      {{3}, {4}},
      {{2, 3}, {2, 1}, {2, 4}},
      {{2, 3, 4}, {2, 3, 4}},
      {{1, 2, 3, 2}, {1, 2, 1, 2}, {1, 2, 0, 2}, {1, 2, 2, 2}},
      {{0, 3}, {0, 2}},
  };
  for (DType dtype : kAllDTypes) {
    for (const auto& shapes : cases) {
      const int64_t rank = static_cast<int64_t>(shapes[0].size());
      for (int64_t axis = -rank; axis < rank; ++axis) {
        const int64_t a = axis < 0 ? axis + rank : axis;
        // Only the concat axis may differ: align the other dims on the first
        // shape.
        std::vector<Ints> dims = shapes;
        for (Ints& d : dims) {
          for (int64_t k = 0; k < rank; ++k) {
            if (k != a) d[k] = shapes[0][k];
          }
        }
        OpTester tester("Concat");
        tester.Attr("axis", axis);
        std::vector<Tensor> inputs;
        for (size_t i = 0; i < dims.size(); ++i) {
          inputs.push_back(Pattern(dtype, Shape(dims[i]), static_cast<int>(i)));
          tester.AddInput(inputs.back().Clone());
        }
        std::vector<Tensor> out = RunOk(tester);
        ASSERT_EQ(out.size(), 1u);
        // Reference: walk the output and find the input holding each element.
        Ints out_dims = dims[0];
        out_dims[a] = 0;
        for (const Ints& d : dims) out_dims[a] += d[a];
        ASSERT_EQ(out[0].shape(), Shape(out_dims));
        const size_t esize = DTypeSize(dtype);
        for (int64_t j = 0; j < Count(out_dims); ++j) {
          Ints index = Unravel(j, out_dims);
          size_t i = 0;
          while (index[a] >= dims[i][a]) index[a] -= dims[i++][a];
          const auto* expected = static_cast<const uint8_t*>(inputs[i].data()) +
                                 Ravel(index, dims[i]) * esize;
          ASSERT_EQ(std::memcmp(
                        static_cast<const uint8_t*>(out[0].data()) + j * esize,
                        expected, esize),
                    0)
              << "element " << j << " axis " << axis;
        }
      }
    }
  }
}

TEST(ConcatTest, Errors) {
  ExpectError(OpTester("Concat")
                  .Input<float>({2, 3}, std::vector<float>(6))
                  .InferOutputs(),
              absl::StatusCode::kInvalidArgument,
              "attribute 'axis' is required");
  ExpectError(OpTester("Concat")
                  .Attr("axis", int64_t{2})
                  .Input<float>({2, 3}, std::vector<float>(6))
                  .InferOutputs(),
              absl::StatusCode::kInvalidArgument,
              "attribute 'axis' 2 is out of range for rank 2");
  ExpectError(OpTester("Concat")
                  .Attr("axis", int64_t{1})
                  .Input<float>({2, 3}, std::vector<float>(6))
                  .Input<float>({3, 3}, std::vector<float>(9))
                  .InferOutputs(),
              absl::StatusCode::kInvalidArgument,
              "input 1 has shape [3,3], which differs from input 0's [2,3] "
              "outside axis 1");
  ExpectError(OpTester("Concat")
                  .Attr("axis", int64_t{0})
                  .Input<float>({2}, std::vector<float>(2))
                  .Input<int32_t>({2}, std::vector<int32_t>(2))
                  .InferOutputs(),
              absl::StatusCode::kInvalidArgument,
              "input 1 has type int32, input 0 has float32");
  ExpectError(OpTester("Concat")
                  .Attr("axis", int64_t{0})
                  .Input<float>({}, {1})
                  .InferOutputs(),
              absl::StatusCode::kInvalidArgument, "must have rank >= 1");
}

// ---------------------------------------------------------------------------------------------
// Split.

// Checks that `outputs` are consecutive chunks of `input` along `axis` with the
// given sizes.
void ExpectSplit(const Tensor& input, int64_t axis, const Ints& sizes,
                 const std::vector<Tensor>& outputs) {
  ASSERT_EQ(outputs.size(), sizes.size());
  const Ints& dims = input.shape().dims();
  int64_t offset = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    Ints out_dims = dims;
    out_dims[axis] = sizes[i];
    ASSERT_EQ(outputs[i].shape(), Shape(out_dims)) << "output " << i;
    Ints src;
    for (int64_t j = 0; j < Count(out_dims); ++j) {
      Ints index = Unravel(j, out_dims);
      index[axis] += offset;
      src.push_back(Ravel(index, dims));
    }
    ExpectElementsFrom(outputs[i], input, src);
    offset += sizes[i];
  }
}

TEST(SplitTest, EqualAndExplicitSizesForEveryDType) {
  for (DType dtype : kAllDTypes) {
    const Tensor input = Pattern(dtype, Shape{2, 6, 3});
    // Equal parts, negative axis.
    ExpectSplit(input, 1, {2, 2, 2},
                RunOk(OpTester("Split", 3)
                          .Attr("axis", int64_t{-2})
                          .AddInput(input.Clone())));
    // Sizes as attribute (opset < 13).
    ExpectSplit(input, 1, {1, 0, 5},
                RunOk(OpTester("Split", 3)
                          .Attr("axis", int64_t{1})
                          .Attr("split", Ints{1, 0, 5})
                          .AddInput(input.Clone())));
    // Sizes as input (opset >= 13), int32 accepted too.
    ExpectSplit(input, 2, {1, 2},
                RunOk(OpTester("Split", 2)
                          .Attr("axis", int64_t{2})
                          .AddInput(input.Clone())
                          .AddInput(Int32s({1, 2}))));
    // Default axis 0.
    ExpectSplit(input, 0, {1, 1},
                RunOk(OpTester("Split", 2).AddInput(input.Clone())));
  }
}

TEST(SplitTest, NumOutputsAttributeAllowsSmallerLastChunk) {
  const Tensor input = Pattern(DType::kFloat32, Shape{7, 2});
  ExpectSplit(input, 0, {3, 3, 1},
              RunOk(OpTester("Split", 3)
                        .Attr("num_outputs", int64_t{3})
                        .AddInput(input.Clone())));
  ExpectSplit(input, 0, {4, 3},
              RunOk(OpTester("Split", 2)
                        .Attr("num_outputs", int64_t{2})
                        .AddInput(input.Clone())));
}

TEST(SplitTest, EmptySplitListMeansEqualParts) {
  const Tensor input = Pattern(DType::kInt16, Shape{4, 3});
  ExpectSplit(
      input, 0, {2, 2},
      RunOk(OpTester("Split", 2).AddInput(input.Clone()).AddInput(Int64s({}))));
}

TEST(SplitTest, ZeroSizeSplitsOfEmptyInput) {
  const Tensor input = Pattern(DType::kFloat32, Shape{0});
  ExpectSplit(input, 0, {0, 0, 0},
              RunOk(OpTester("Split", 3)
                        .AddInput(input.Clone())
                        .AddInput(Int64s({0, 0, 0}))));
}

TEST(SplitTest, Errors) {
  const std::vector<float> six(6);
  ExpectError(OpTester("Split", 4).Input<float>({6}, six).InferOutputs(),
              absl::StatusCode::kInvalidArgument,
              "axis 0 of size 6 cannot be split into 4 equal parts");
  ExpectError(OpTester("Split", 2)
                  .Input<float>({6}, six)
                  .AddInput(Int64s({2, 3}))
                  .InferOutputs(),
              absl::StatusCode::kInvalidArgument,
              "'split' [2,3] sums to 5, but axis 0 has size 6");
  ExpectError(OpTester("Split", 3)
                  .Input<float>({6}, six)
                  .AddInput(Int64s({2, 4}))
                  .InferOutputs(),
              absl::StatusCode::kInvalidArgument,
              "'split' [2,4] has 2 entries for 3 outputs");
  ExpectError(OpTester("Split", 2)
                  .Input<float>({6}, six)
                  .AddInput(Int64s({-1, 7}))
                  .InferOutputs(),
              absl::StatusCode::kInvalidArgument, "invalid size -1");
  ExpectError(OpTester("Split", 2)
                  .Attr("num_outputs", int64_t{3})
                  .Input<float>({6}, six)
                  .InferOutputs(),
              absl::StatusCode::kInvalidArgument,
              "attribute 'num_outputs' is 3, but the node has 2 outputs");
  ExpectError(OpTester("Split", 4)
                  .Attr("num_outputs", int64_t{4})
                  .Input<float>({5}, std::vector<float>(5))
                  .InferOutputs(),
              absl::StatusCode::kInvalidArgument,
              "axis 0 of size 5 cannot be split into 4 chunks of 2");
  ExpectError(OpTester("Split", 2)
                  .Input<float>({6}, six)
                  .RuntimeInput<int64_t>({2}, {3, 3})
                  .InferOutputs(),
              absl::StatusCode::kUnimplemented,
              "input 'split' must be known before execution");
}

// ---------------------------------------------------------------------------------------------
// Slice.

// ONNX Slice, written from the spec: per axis the list of input positions
// taken.
Ints RefSlice(const Ints& dims, const Ints& starts, const Ints& ends,
              const Ints& axes, const Ints& steps, Ints* out_dims) {
  const int64_t rank = static_cast<int64_t>(dims.size());
  std::vector<Ints> taken(rank);
  for (int64_t k = 0; k < rank; ++k) {
    for (int64_t i = 0; i < dims[k]; ++i) taken[k].push_back(i);
  }
  for (size_t i = 0; i < starts.size(); ++i) {
    const int64_t axis = axes[i] < 0 ? axes[i] + rank : axes[i];
    const __int128 dim = dims[axis];
    const __int128 step = steps[i];
    __int128 start = starts[i];
    __int128 end = ends[i];
    if (start < 0) start += dim;
    if (end < 0) end += dim;
    if (step > 0) {
      start = std::clamp<__int128>(start, 0, dim);
      end = std::clamp<__int128>(end, 0, dim);
    } else {
      start = std::clamp<__int128>(start, 0, std::max<__int128>(dim - 1, 0));
      end = std::clamp<__int128>(end, -1, std::max<__int128>(dim - 1, -1));
      if (dim == 0) start = end;  // nothing to take
    }
    taken[axis].clear();
    for (__int128 x = start; step > 0 ? x < end : x > end; x += step) {
      taken[axis].push_back(static_cast<int64_t>(x));
    }
  }
  out_dims->clear();
  for (const Ints& t : taken)
    out_dims->push_back(static_cast<int64_t>(t.size()));
  Ints src;
  for (int64_t j = 0; j < Count(*out_dims); ++j) {
    Ints index = Unravel(j, *out_dims);
    for (int64_t k = 0; k < rank; ++k) index[k] = taken[k][index[k]];
    src.push_back(Ravel(index, dims));
  }
  return src;
}

TEST(SliceTest, RandomSweepAgainstReference) {
  std::mt19937 rng(7);
  const std::vector<Ints> shapes = {{7},          {4, 5}, {3, 1, 6},
                                    {2, 3, 4, 5}, {0, 3}, {5, 0, 2}};
  const int64_t specials[] = {kInt64Max, kInt64Min, kInt64Max - 1, -kInt64Max};
  int cases = 0;
  for (const Ints& dims : shapes) {
    const int64_t rank = static_cast<int64_t>(dims.size());
    for (int trial = 0; trial < 60; ++trial) {
      // A random subset of axes in random order, some negative.
      Ints order(rank);
      std::iota(order.begin(), order.end(), 0);
      std::shuffle(order.begin(), order.end(), rng);
      const int64_t n = 1 + static_cast<int64_t>(rng() % rank);
      Ints axes, starts, ends, steps;
      for (int64_t i = 0; i < n; ++i) {
        const int64_t dim = dims[order[i]];
        axes.push_back(rng() % 2 ? order[i] : order[i] - rank);
        auto pick = [&]() -> int64_t {
          if (rng() % 6 == 0) return specials[rng() % 4];
          return static_cast<int64_t>(rng() % (2 * dim + 5)) - dim - 2;
        };
        starts.push_back(pick());
        ends.push_back(pick());
        int64_t step = static_cast<int64_t>(rng() % 7) - 3;
        if (step == 0) step = rng() % 2 ? kInt64Max : kInt64Min;
        steps.push_back(step);
      }
      const DType dtype = kAllDTypes[cases++ % std::size(kAllDTypes)];
      const Tensor input = Pattern(dtype, Shape(dims), trial);
      Ints out_dims;
      const Ints src = RefSlice(dims, starts, ends, axes, steps, &out_dims);
      std::vector<Tensor> out = RunOk(OpTester("Slice")
                                          .AddInput(input.Clone())
                                          .AddInput(Int64s(starts))
                                          .AddInput(Int64s(ends))
                                          .AddInput(Int64s(axes))
                                          .AddInput(Int64s(steps)));
      ASSERT_EQ(out.size(), 1u);
      ASSERT_EQ(out[0].shape(), Shape(out_dims))
          << "starts " << ::testing::PrintToString(starts) << " ends "
          << ::testing::PrintToString(ends) << " axes "
          << ::testing::PrintToString(axes) << " steps "
          << ::testing::PrintToString(steps);
      ExpectElementsFrom(out[0], input, src);
    }
  }
}

TEST(SliceTest, DefaultAxesAndStepsAndAttributeForm) {
  // The spec's examples.
  const std::vector<float> data = {1, 2, 3, 4, 5, 6, 7, 8};
  std::vector<Tensor> out = RunOk(OpTester("Slice")
                                      .Input<float>({2, 4}, data)
                                      .AddInput(Int64s({1, 0}))
                                      .AddInput(Int64s({2, 3}))
                                      .AddInput(Int64s({0, 1}))
                                      .AddInput(Int64s({1, 2})));
  EXPECT_EQ(out[0].shape(), Shape({1, 2}));
  EXPECT_EQ(Values<float>(out[0]), (std::vector<float>{5, 7}));
  out = RunOk(OpTester("Slice")
                  .Input<float>({2, 4}, data)
                  .AddInput(Int32s({0, 1}))
                  .AddInput(Int32s({-1, 1000})));
  EXPECT_EQ(out[0].shape(), Shape({1, 3}));
  EXPECT_EQ(Values<float>(out[0]), (std::vector<float>{2, 3, 4}));
  // Opset 1: attributes; absent optional inputs in between.
  out = RunOk(OpTester("Slice")
                  .Attr("starts", Ints{1})
                  .Attr("ends", Ints{kInt64Max})
                  .Attr("axes", Ints{-1})
                  .Input<float>({2, 4}, data));
  EXPECT_EQ(Values<float>(out[0]), (std::vector<float>{2, 3, 4, 6, 7, 8}));
  out = RunOk(OpTester("Slice")
                  .Input<float>({2, 4}, data)
                  .AddInput(Int64s({-1}))
                  .AddInput(Int64s({kInt64Min}))
                  .AbsentInput()
                  .AddInput(Int64s({-1})));
  EXPECT_EQ(out[0].shape(), Shape({2, 4}));
  EXPECT_EQ(Values<float>(out[0]),
            (std::vector<float>{5, 6, 7, 8, 1, 2, 3, 4}));
}

TEST(SliceTest, Errors) {
  const std::vector<float> data(8);
  ExpectError(OpTester("Slice")
                  .Input<float>({2, 4}, data)
                  .AddInput(Int64s({0}))
                  .AddInput(Int64s({1}))
                  .AddInput(Int64s({1}))
                  .AddInput(Int64s({0}))
                  .InferOutputs(),
              absl::StatusCode::kInvalidArgument,
              "'steps' entry 0 (axis 1) is 0");
  ExpectError(OpTester("Slice")
                  .Input<float>({2, 4}, data)
                  .AddInput(Int64s({0, 0}))
                  .AddInput(Int64s({1, 1}))
                  .AddInput(Int64s({1, -1}))
                  .InferOutputs(),
              absl::StatusCode::kInvalidArgument, "names axis 1 twice");
  ExpectError(OpTester("Slice")
                  .Input<float>({2, 4}, data)
                  .AddInput(Int64s({0}))
                  .AddInput(Int64s({1}))
                  .AddInput(Int64s({2}))
                  .InferOutputs(),
              absl::StatusCode::kInvalidArgument,
              "'axes' entry 2 is out of range for rank 2");
  ExpectError(OpTester("Slice")
                  .Input<float>({2, 4}, data)
                  .AddInput(Int64s({0, 0}))
                  .AddInput(Int64s({1}))
                  .InferOutputs(),
              absl::StatusCode::kInvalidArgument,
              "'ends' [1] and 'starts' [0,0] differ in length");
  ExpectError(OpTester("Slice")
                  .Input<float>({2, 4}, data)
                  .RuntimeInput<int64_t>({1}, {0})
                  .AddInput(Int64s({1}))
                  .InferOutputs(),
              absl::StatusCode::kUnimplemented,
              "input 'starts' must be known before execution");
  ExpectError(OpTester("Slice")
                  .Input<float>({2, 4}, data)
                  .Input<float>({1}, {0})
                  .AddInput(Int64s({1}))
                  .InferOutputs(),
              absl::StatusCode::kInvalidArgument, "must be int32 or int64");
}

// ---------------------------------------------------------------------------------------------
// Gather.

TEST(GatherTest, SweepAxesIndicesAndDTypes) {
  std::mt19937 rng(3);
  const std::vector<Ints> data_shapes = {{5}, {3, 4}, {2, 3, 4}, {4, 0, 2}};
  const std::vector<Ints> index_shapes = {{}, {3}, {2, 2}, {0}};
  int cases = 0;
  for (const Ints& dims : data_shapes) {
    const int64_t rank = static_cast<int64_t>(dims.size());
    for (int64_t axis = -rank; axis < rank; ++axis) {
      const int64_t a = axis < 0 ? axis + rank : axis;
      if (dims[a] == 0) continue;
      for (const Ints& index_dims : index_shapes) {
        for (bool int32_indices : {false, true}) {
          const DType dtype = kAllDTypes[cases++ % std::size(kAllDTypes)];
          const Tensor data = Pattern(dtype, Shape(dims), cases);
          Ints indices;
          for (int64_t i = 0; i < Count(index_dims); ++i) {
            indices.push_back(static_cast<int64_t>(rng() % (2 * dims[a])) -
                              dims[a]);
          }
          Tensor index_tensor(int32_indices ? DType::kInt32 : DType::kInt64,
                              Shape(index_dims));
          for (size_t i = 0; i < indices.size(); ++i) {
            if (int32_indices) {
              index_tensor.as<int32_t>()[i] = static_cast<int32_t>(indices[i]);
            } else {
              index_tensor.as<int64_t>()[i] = indices[i];
            }
          }
          // Indices are only known at run time.
          OpTester tester("Gather");
          tester.Attr("axis", axis)
              .AddInput(data.Clone())
              .AddInput(std::move(index_tensor), /*constant=*/false);
          std::vector<Tensor> out = RunOk(tester);
          Ints out_dims(dims.begin(), dims.begin() + a);
          out_dims.insert(out_dims.end(), index_dims.begin(), index_dims.end());
          out_dims.insert(out_dims.end(), dims.begin() + a + 1, dims.end());
          ASSERT_EQ(out[0].shape(), Shape(out_dims));
          Ints src;
          const size_t q = index_dims.size();
          for (int64_t j = 0; j < Count(out_dims); ++j) {
            const Ints o = Unravel(j, out_dims);
            Ints in_index(o.begin(), o.begin() + a);
            const Ints which(o.begin() + a, o.begin() + a + q);
            int64_t v = indices[Ravel(which, index_dims)];
            in_index.push_back(v < 0 ? v + dims[a] : v);
            in_index.insert(in_index.end(), o.begin() + a + q, o.end());
            src.push_back(Ravel(in_index, dims));
          }
          ExpectElementsFrom(out[0], data, src);
        }
      }
    }
  }
}

TEST(GatherTest, OutOfRangeIndexFailsAtRunTime) {
  const std::vector<float> data(10);
  OpTester tester("Gather");
  tester.Input<float>({5, 2}, data).RuntimeInput<int64_t>({2, 2}, {0, 1, 7, 2});
  // Prepare cannot see the indices, so it succeeds; Run must catch the bad one.
  ASSERT_TRUE(tester.InferOutputs().ok());
  ExpectError(tester.Run(), absl::StatusCode::kInvalidArgument,
              "index 7 at position [1,0] of 'indices' is out of range for "
              "axis 0 of size 5 (valid range -5..4)");

  ExpectError(OpTester("Gather")
                  .Attr("axis", int64_t{-1})
                  .Input<float>({5, 2}, data)
                  .RuntimeInput<int32_t>({3}, {1, -3, 0})
                  .Run(),
              absl::StatusCode::kInvalidArgument,
              "index -3 at position [1] of 'indices' is out of range for axis "
              "1 of size 2 (valid range -2..1)");
  ExpectError(OpTester("Gather")
                  .Input<float>({0, 2}, {})
                  .RuntimeInput<int64_t>({1}, {0})
                  .Run(),
              absl::StatusCode::kInvalidArgument, "index 0 at position [0]");
}

TEST(GatherTest, PrepareErrors) {
  ExpectError(OpTester("Gather")
                  .Input<float>({2}, {1, 2})
                  .Input<float>({1}, {0})
                  .InferOutputs(),
              absl::StatusCode::kInvalidArgument,
              "input 'indices' has unsupported type float32");
  ExpectError(OpTester("Gather")
                  .Attr("axis", int64_t{1})
                  .Input<float>({2}, {1, 2})
                  .Input<int64_t>({1}, {0})
                  .InferOutputs(),
              absl::StatusCode::kInvalidArgument,
              "attribute 'axis' 1 is out of range for rank 1");
  ExpectError(OpTester("Gather")
                  .Input<float>({}, {1})
                  .Input<int64_t>({1}, {0})
                  .InferOutputs(),
              absl::StatusCode::kInvalidArgument, "must have rank >= 1");
}

// ---------------------------------------------------------------------------------------------
// Reshape, Flatten, Identity, Squeeze, Unsqueeze.

absl::StatusOr<Shape> ReshapeTo(const Ints& in_dims, const Ints& shape,
                                int64_t allowzero = 0) {
  OpTester tester("Reshape");
  tester.AddInput(Pattern(DType::kFloat32, Shape(in_dims)))
      .AddInput(Int64s(shape))
      .Attr("allowzero", allowzero);
  absl::StatusOr<std::vector<Tensor>> out = tester.Run();
  if (!out.ok()) return out.status();
  EXPECT_TRUE(SameBytes((*out)[0], Pattern(DType::kFloat32, Shape(in_dims))));
  return (*out)[0].shape();
}

TEST(ReshapeTest, ZeroCopiesMinusOneInfersAllowZeroKeeps) {
  EXPECT_EQ(*ReshapeTo({2, 3, 4}, {4, 2, 3}), Shape({4, 2, 3}));
  EXPECT_EQ(*ReshapeTo({2, 3, 4}, {0, -1}), Shape({2, 12}));
  EXPECT_EQ(*ReshapeTo({2, 3, 4}, {-1}), Shape({24}));
  EXPECT_EQ(*ReshapeTo({2, 3, 4}, {2, 0, 4, 1}), Shape({2, 3, 4, 1}));
  EXPECT_EQ(*ReshapeTo({2, 3, 4}, {-1, 2, 0}), Shape({3, 2, 4}));
  EXPECT_EQ(*ReshapeTo({1}, {}), Shape({}));
  EXPECT_EQ(*ReshapeTo({0, 3}, {3, -1}), Shape({3, 0}));
  EXPECT_EQ(*ReshapeTo({0, 3, 4}, {3, 4, 0}, 1), Shape({3, 4, 0}));
  EXPECT_EQ(*ReshapeTo({0, 3, 4}, {0, 4, 3}), Shape({0, 4, 3}));
  // Opset 1: shape as attribute; every dtype.
  for (DType dtype : kAllDTypes) {
    const Tensor input = Pattern(dtype, Shape{2, 3});
    std::vector<Tensor> out = RunOk(
        OpTester("Reshape").Attr("shape", Ints{3, 2}).AddInput(input.Clone()));
    ASSERT_EQ(out[0].shape(), Shape({3, 2}));
    EXPECT_TRUE(SameBytes(out[0], input));
  }
}

TEST(ReshapeTest, Errors) {
  ExpectError(ReshapeTo({2, 3}, {4, 2}), absl::StatusCode::kInvalidArgument,
              "cannot reshape input float32[2,3] (6 elements) to [4,2]");
  ExpectError(ReshapeTo({2, 3}, {-1, -1}), absl::StatusCode::kInvalidArgument,
              "'shape' [-1,-1] has more than one -1");
  ExpectError(ReshapeTo({2, 3}, {-1, 4}), absl::StatusCode::kInvalidArgument,
              "the -1 dimension cannot be inferred");
  ExpectError(ReshapeTo({0, 3}, {0, -1}), absl::StatusCode::kInvalidArgument,
              "the -1 dimension cannot be inferred");
  ExpectError(ReshapeTo({2, 3}, {2, -3}), absl::StatusCode::kInvalidArgument,
              "'shape' [2,-3] has invalid dimension -3");
  ExpectError(
      ReshapeTo({6}, {1, 0}), absl::StatusCode::kInvalidArgument,
      "copies input dimension 1 (0 at that position), but the input has "
      "rank 1");
  // Without allowzero the 0 copies input dimension 2 (4): 48 elements.
  ExpectError(ReshapeTo({0, 3, 4}, {3, 4, 0}),
              absl::StatusCode::kInvalidArgument,
              "(0 elements) to [3,4,0] (resolved [3,4,4])");
  ExpectError(ReshapeTo({0, 3}, {0, -1}, 1), absl::StatusCode::kInvalidArgument,
              "has both 0 and -1 with allowzero=1");
  ExpectError(ReshapeTo({2, 3}, {kInt64Max, 2}),
              absl::StatusCode::kInvalidArgument, "cannot reshape");
  ExpectError(OpTester("Reshape")
                  .Input<float>({2, 3}, std::vector<float>(6))
                  .RuntimeInput<int64_t>({1}, {6})
                  .InferOutputs(),
              absl::StatusCode::kUnimplemented,
              "input 'shape' must be known before execution");
  ExpectError(OpTester("Reshape")
                  .Input<float>({2, 3}, std::vector<float>(6))
                  .InferOutputs(),
              absl::StatusCode::kInvalidArgument, "'shape' is required");
}

TEST(FlattenTest, AllAxesIncludingNegative) {
  const Ints dims = {2, 3, 4};
  const int64_t expected_first[] = {1, 2, 6, 24};
  for (DType dtype : kAllDTypes) {
    const Tensor input = Pattern(dtype, Shape(dims));
    for (int64_t axis = -3; axis <= 3; ++axis) {
      std::vector<Tensor> out =
          RunOk(OpTester("Flatten").Attr("axis", axis).AddInput(input.Clone()));
      const int64_t first = expected_first[axis < 0 ? axis + 3 : axis];
      ASSERT_EQ(out[0].shape(), Shape({first, 24 / first})) << axis;
      EXPECT_TRUE(SameBytes(out[0], input));
    }
  }
  // Default axis 1; a scalar becomes [1,1] with axis 0.
  EXPECT_EQ(RunOk(OpTester("Flatten").AddInput(
                Pattern(DType::kInt8, Shape{2, 3, 4})))[0]
                .shape(),
            Shape({2, 12}));
  EXPECT_EQ(RunOk(OpTester("Flatten")
                      .Attr("axis", int64_t{0})
                      .AddInput(Pattern(DType::kInt8, Shape{})))[0]
                .shape(),
            Shape({1, 1}));
  EXPECT_EQ(
      RunOk(OpTester("Flatten").AddInput(Pattern(DType::kInt8, Shape{0, 3})))[0]
          .shape(),
      Shape({0, 3}));
  ExpectError(
      OpTester("Flatten")
          .Attr("axis", int64_t{-4})
          .AddInput(Pattern(DType::kFloat32, Shape(dims)))
          .InferOutputs(),
      absl::StatusCode::kInvalidArgument,
      "attribute 'axis' -4 is out of range for rank 3 (expected -3..3)");
}

TEST(IdentityTest, CopiesEveryDType) {
  for (DType dtype : kAllDTypes) {
    for (const Shape& shape : {Shape{}, Shape{0}, Shape{3, 5}}) {
      const Tensor input = Pattern(dtype, shape);
      std::vector<Tensor> out =
          RunOk(OpTester("Identity").AddInput(input.Clone()));
      ASSERT_EQ(out[0].info(), input.info());
      EXPECT_TRUE(SameBytes(out[0], input));
    }
  }
}

// The runtime may run an aliasing op with the output in the input's buffer.
TEST(AliasingOpsTest, RunInPlace) {
  Tensor data = Pattern(DType::kFloat32, Shape{2, 3});
  const Tensor original = data.Clone();
  const Tensor shape = Int64s({3, 2});
  const TensorView shape_view = shape.view();
  const TensorInfo infos[] = {data.info(), shape.info()};
  const TensorView* constants[] = {nullptr, &shape_view};
  Attributes attrs;
  OpContext context{"Reshape", attrs, infos, constants, 1};
  absl::StatusOr<PreparedKernel> prepared = BuiltinOps().Prepare(context);
  ASSERT_TRUE(prepared.ok()) << prepared.status();
  const TensorView inputs[] = {data.view(), shape_view};
  const TensorView outputs[] = {
      TensorView{DType::kFloat32, Shape{3, 2}, data.data()}};
  ASSERT_TRUE(prepared->kernel->Run(inputs, outputs, {}).ok());
  EXPECT_EQ(std::memcmp(data.data(), original.data(), data.ByteSize()), 0);
}

TEST(SqueezeTest, AxesFromAttributeInputOrAllOnes) {
  for (DType dtype : kAllDTypes) {
    const Tensor input = Pattern(dtype, Shape{1, 3, 1, 5});
    auto check = [&](std::vector<Tensor> out, const Shape& expected) {
      ASSERT_EQ(out.size(), 1u);
      ASSERT_EQ(out[0].shape(), expected);
      EXPECT_TRUE(SameBytes(out[0], input));
    };
    check(RunOk(OpTester("Squeeze").AddInput(input.Clone())), Shape{3, 5});
    check(
        RunOk(
            OpTester("Squeeze").AddInput(input.Clone()).AddInput(Int64s({-2}))),
        Shape{1, 3, 5});
    check(
        RunOk(OpTester("Squeeze").AddInput(input.Clone()).AddInput(Int64s({}))),
        Shape{3, 5});
    check(RunOk(OpTester("Squeeze")
                    .Attr("axes", Ints{0, 2})
                    .AddInput(input.Clone())),
          Shape{3, 5});
  }
  EXPECT_EQ(
      RunOk(OpTester("Squeeze").AddInput(Pattern(DType::kFloat32, Shape{1})))[0]
          .shape(),
      Shape({}));
}

TEST(SqueezeTest, Errors) {
  const Tensor input = Pattern(DType::kFloat32, Shape{1, 3});
  ExpectError(
      OpTester("Squeeze")
          .AddInput(input.Clone())
          .AddInput(Int64s({1}))
          .InferOutputs(),
      absl::StatusCode::kInvalidArgument,
      "cannot squeeze axis 1 of input float32[1,3]: its size is 3, not 1");
  ExpectError(OpTester("Squeeze")
                  .AddInput(input.Clone())
                  .AddInput(Int64s({2}))
                  .InferOutputs(),
              absl::StatusCode::kInvalidArgument,
              "'axes' entry 2 is out of range for rank 2");
  ExpectError(OpTester("Squeeze")
                  .AddInput(input.Clone())
                  .AddInput(Int64s({0, -2}))
                  .InferOutputs(),
              absl::StatusCode::kInvalidArgument,
              "'axes' [0,-2] names axis 0 twice");
  ExpectError(OpTester("Squeeze")
                  .AddInput(input.Clone())
                  .RuntimeInput<int64_t>({1}, {0})
                  .InferOutputs(),
              absl::StatusCode::kUnimplemented, "input 'axes' must be known");
}

TEST(UnsqueezeTest, AxesFromAttributeOrInputUnsortedAndNegative) {
  const Tensor input = Pattern(DType::kFloat16, Shape{3, 4, 5});
  struct Case {
    Ints axes;
    Shape expected;
  };
  const Case cases[] = {
      {{0}, Shape{1, 3, 4, 5}},        {{3}, Shape{3, 4, 5, 1}},
      {{-1}, Shape{3, 4, 5, 1}},       {{5, 4, 2}, Shape{3, 4, 1, 5, 1, 1}},
      {{0, -1}, Shape{1, 3, 4, 5, 1}},
  };
  for (const Case& c : cases) {
    std::vector<Tensor> out = RunOk(
        OpTester("Unsqueeze").AddInput(input.Clone()).AddInput(Int64s(c.axes)));
    ASSERT_EQ(out[0].shape(), c.expected);
    EXPECT_TRUE(SameBytes(out[0], input));
    out = RunOk(
        OpTester("Unsqueeze").Attr("axes", c.axes).AddInput(input.Clone()));
    ASSERT_EQ(out[0].shape(), c.expected);
  }
  for (DType dtype : kAllDTypes) {
    const Tensor scalar = Pattern(dtype, Shape{});
    std::vector<Tensor> out = RunOk(OpTester("Unsqueeze")
                                        .AddInput(scalar.Clone())
                                        .AddInput(Int64s({0, 1})));
    ASSERT_EQ(out[0].shape(), Shape({1, 1}));
    EXPECT_TRUE(SameBytes(out[0], scalar));
  }
}

TEST(UnsqueezeTest, Errors) {
  const Tensor input = Pattern(DType::kFloat32, Shape{3});
  ExpectError(OpTester("Unsqueeze").AddInput(input.Clone()).InferOutputs(),
              absl::StatusCode::kInvalidArgument, "'axes' is required");
  ExpectError(OpTester("Unsqueeze")
                  .AddInput(input.Clone())
                  .AddInput(Int64s({2}))
                  .InferOutputs(),
              absl::StatusCode::kInvalidArgument,
              "'axes' entry 2 is out of range for rank 2");
  ExpectError(OpTester("Unsqueeze")
                  .AddInput(input.Clone())
                  .AddInput(Int64s({1, -2}))
                  .InferOutputs(),
              absl::StatusCode::kInvalidArgument, "names axis 1 twice");
}

// ---------------------------------------------------------------------------------------------
// Transpose.

Ints RefTranspose(const Ints& dims, const Ints& perm, Ints* out_dims) {
  out_dims->clear();
  for (int64_t p : perm) out_dims->push_back(dims[p]);
  Ints src;
  for (int64_t j = 0; j < Count(*out_dims); ++j) {
    const Ints o = Unravel(j, *out_dims);
    Ints in(dims.size());
    for (size_t k = 0; k < perm.size(); ++k) in[perm[k]] = o[k];
    src.push_back(Ravel(in, dims));
  }
  return src;
}

TEST(TransposeTest, AllPermutationsUpToRank4) {
  const std::vector<Ints> shapes = {{},           {5},          {3, 4},
                                    {1, 4},       {2, 3, 4},    {3, 1, 5},
                                    {2, 3, 4, 5}, {2, 1, 3, 1}, {0, 3, 2}};
  int cases = 0;
  for (const Ints& dims : shapes) {
    Ints perm(dims.size());
    std::iota(perm.begin(), perm.end(), 0);
    do {
      const DType dtype = kAllDTypes[cases++ % std::size(kAllDTypes)];
      const Tensor input = Pattern(dtype, Shape(dims), cases);
      Ints out_dims;
      const Ints src = RefTranspose(dims, perm, &out_dims);
      std::vector<Tensor> out = RunOk(
          OpTester("Transpose").Attr("perm", perm).AddInput(input.Clone()));
      ASSERT_EQ(out[0].shape(), Shape(out_dims));
      ExpectElementsFrom(out[0], input, src);
    } while (std::next_permutation(perm.begin(), perm.end()));
  }
}

TEST(TransposeTest, LargerShapesExerciseTilingForEveryDType) {
  const std::vector<std::pair<Ints, Ints>> cases = {
      {{37, 53}, {1, 0}},
      {{3, 33, 17}, {2, 1, 0}},
      {{2, 19, 35, 3}, {0, 3, 1, 2}},
      {{5, 4, 40, 3, 2}, {4, 2, 0, 3, 1}},
      {{64, 64}, {1, 0}},
  };
  for (DType dtype : kAllDTypes) {
    for (const auto& [dims, perm] : cases) {
      const Tensor input = Pattern(dtype, Shape(dims));
      Ints out_dims;
      const Ints src = RefTranspose(dims, perm, &out_dims);
      std::vector<Tensor> out = RunOk(
          OpTester("Transpose").Attr("perm", perm).AddInput(input.Clone()));
      ASSERT_EQ(out[0].shape(), Shape(out_dims));
      ExpectElementsFrom(out[0], input, src);
    }
  }
}

TEST(TransposeTest, DefaultPermReversesAxes) {
  const Tensor input = Pattern(DType::kInt64, Shape{2, 3, 4});
  Ints out_dims;
  const Ints src = RefTranspose({2, 3, 4}, {2, 1, 0}, &out_dims);
  std::vector<Tensor> out =
      RunOk(OpTester("Transpose").AddInput(input.Clone()));
  ASSERT_EQ(out[0].shape(), Shape({4, 3, 2}));
  ExpectElementsFrom(out[0], input, src);
}

TEST(TransposeTest, Errors) {
  const Tensor input = Pattern(DType::kFloat32, Shape{2, 3});
  ExpectError(OpTester("Transpose")
                  .Attr("perm", Ints{0})
                  .AddInput(input.Clone())
                  .InferOutputs(),
              absl::StatusCode::kInvalidArgument,
              "attribute 'perm' [0] has 1 entries for input of rank 2");
  ExpectError(OpTester("Transpose")
                  .Attr("perm", Ints{1, 1})
                  .AddInput(input.Clone())
                  .InferOutputs(),
              absl::StatusCode::kInvalidArgument,
              "attribute 'perm' [1,1] is not a permutation of 0..1");
  ExpectError(OpTester("Transpose")
                  .Attr("perm", Ints{0, -1})
                  .AddInput(input.Clone())
                  .InferOutputs(),
              absl::StatusCode::kInvalidArgument, "is not a permutation");
}

// ---------------------------------------------------------------------------------------------
// Pad.

// numpy.pad semantics after cropping negative pads; reflect by repeated
// mirroring.
Ints RefPad(const Ints& dims, const Ints& pads, const std::string& mode,
            Ints* out_dims) {
  const size_t rank = dims.size();
  std::vector<Ints> maps(rank);
  out_dims->clear();
  for (size_t k = 0; k < rank; ++k) {
    const int64_t b = pads[k], e = pads[k + rank];
    const int64_t lo = std::max<int64_t>(0, -b);
    const int64_t n = dims[k] - lo - std::max<int64_t>(0, -e);
    const int64_t pb = std::max<int64_t>(0, b);
    const int64_t size = dims[k] + b + e;
    out_dims->push_back(size);
    for (int64_t o = 0; o < size; ++o) {
      int64_t i = o - pb;
      if (i < 0 || i >= n) {
        if (mode == "constant") {
          i = -1;
        } else if (mode == "edge") {
          i = i < 0 ? 0 : n - 1;
        } else if (mode == "wrap") {
          while (i < 0) i += n;
          while (i >= n) i -= n;
        } else if (n == 1) {
          i = 0;
        } else {
          while (i < 0 || i >= n) i = i < 0 ? -i : 2 * (n - 1) - i;
        }
      }
      maps[k].push_back(i < 0 ? -1 : i + lo);
    }
  }
  Ints src;
  for (int64_t j = 0; j < Count(*out_dims); ++j) {
    Ints index = Unravel(j, *out_dims);
    bool constant = false;
    for (size_t k = 0; k < rank; ++k) {
      index[k] = maps[k][index[k]];
      constant = constant || index[k] < 0;
    }
    src.push_back(constant ? -1 : Ravel(index, dims));
  }
  return src;
}

TEST(PadTest, RandomSweepAllModesAgainstReference) {
  std::mt19937 rng(11);
  const std::vector<Ints> shapes = {
      {5}, {3, 4}, {2, 3, 4}, {1, 2, 3, 2}, {4, 1}};
  const std::string modes[] = {"constant", "reflect", "edge", "wrap"};
  int cases = 0;
  for (const Ints& dims : shapes) {
    const size_t rank = dims.size();
    for (const std::string& mode : modes) {
      for (int trial = 0; trial < 12; ++trial) {
        Ints pads(2 * rank);
        for (size_t i = 0; i < 2 * rank; ++i) {
          const int64_t dim = dims[i % rank];
          // Crops keep at least one element so every mode has something to
          // read.
          pads[i] = static_cast<int64_t>(rng() % (dim + 5)) - (dim - 1) / 2;
        }
        const DType dtype = kAllDTypes[cases++ % std::size(kAllDTypes)];
        const Tensor input = Pattern(dtype, Shape(dims), trial);
        const Tensor value = Pattern(dtype, Shape{}, 99);
        Ints out_dims;
        const Ints src = RefPad(dims, pads, mode, &out_dims);
        OpTester tester("Pad");
        tester.Attr("mode", mode)
            .AddInput(input.Clone())
            .AddInput(Int64s(pads));
        if (mode == "constant") tester.AddInput(value.Clone());
        std::vector<Tensor> out = RunOk(tester);
        ASSERT_EQ(out[0].shape(), Shape(out_dims))
            << mode << " pads " << ::testing::PrintToString(pads);
        ExpectElementsFrom(out[0], input, src, value.data());
      }
    }
  }
}

TEST(PadTest, SpecExamples) {
  const std::vector<float> data = {1.0f, 1.2f, 2.3f, 3.4f, 4.5f, 5.7f};
  auto pad = [&](const std::string& mode, const Ints& pads) {
    return Values<float>(RunOk(OpTester("Pad")
                                   .Attr("mode", mode)
                                   .Input<float>({3, 2}, data)
                                   .AddInput(Int64s(pads)))[0]);
  };
  EXPECT_EQ(pad("constant", {0, 2, 0, 0}),
            (std::vector<float>{0, 0, 1.0f, 1.2f, 0, 0, 2.3f, 3.4f, 0, 0, 4.5f,
                                5.7f}));
  EXPECT_EQ(pad("reflect", {0, 2, 0, 0}),
            (std::vector<float>{1.0f, 1.2f, 1.0f, 1.2f, 2.3f, 3.4f, 2.3f, 3.4f,
                                4.5f, 5.7f, 4.5f, 5.7f}));
  EXPECT_EQ(pad("edge", {0, 2, 0, 0}),
            (std::vector<float>{1.0f, 1.0f, 1.0f, 1.2f, 2.3f, 2.3f, 2.3f, 3.4f,
                                4.5f, 4.5f, 4.5f, 5.7f}));
  EXPECT_EQ(
      pad("wrap", {2, 1, 1, 1}),
      (std::vector<float>{3.4f, 2.3f, 3.4f, 2.3f, 5.7f, 4.5f, 5.7f, 4.5f,
                          1.2f, 1.0f, 1.2f, 1.0f, 3.4f, 2.3f, 3.4f, 2.3f,
                          5.7f, 4.5f, 5.7f, 4.5f, 1.2f, 1.0f, 1.2f, 1.0f}));
}

TEST(PadTest, ConstantValueSourcesAxesAndAttributeForm) {
  const std::vector<int32_t> data = {1, 2, 3, 4};
  // Opset <= 10: pads and value as attributes.
  std::vector<Tensor> out = RunOk(OpTester("Pad")
                                      .Attr("pads", Ints{0, 1, 0, 0})
                                      .Attr("value", 9.0f)
                                      .Input<int32_t>({2, 2}, data));
  EXPECT_EQ(Values<int32_t>(out[0]), (std::vector<int32_t>{9, 1, 2, 9, 3, 4}));
  // The constant may be known only at run time.
  out = RunOk(OpTester("Pad")
                  .Input<int32_t>({2, 2}, data)
                  .AddInput(Int64s({1, 0, 0, 0}))
                  .RuntimeInput<int32_t>({}, {-7}));
  EXPECT_EQ(Values<int32_t>(out[0]),
            (std::vector<int32_t>{-7, -7, 1, 2, 3, 4}));
  // Opset 18 axes (negative), constant input absent.
  out = RunOk(OpTester("Pad")
                  .Input<int32_t>({2, 2}, data)
                  .AddInput(Int64s({1, 1}))
                  .AbsentInput()
                  .AddInput(Int64s({-1})));
  EXPECT_EQ(out[0].shape(), Shape({2, 4}));
  EXPECT_EQ(Values<int32_t>(out[0]),
            (std::vector<int32_t>{0, 1, 2, 0, 0, 3, 4, 0}));
  // Scalars and empty tensors.
  out = RunOk(OpTester("Pad").Input<int32_t>({}, {5}).AddInput(Int64s({})));
  EXPECT_EQ(Values<int32_t>(out[0]), (std::vector<int32_t>{5}));
  out = RunOk(OpTester("Pad")
                  .Input<int32_t>({0, 2}, {})
                  .AddInput(Int64s({1, 0, 0, 0})));
  EXPECT_EQ(out[0].shape(), Shape({1, 2}));
  EXPECT_EQ(Values<int32_t>(out[0]), (std::vector<int32_t>{0, 0}));
  out = RunOk(OpTester("Pad")
                  .Input<int32_t>({2, 2}, data)
                  .AddInput(Int64s({-2, 0, 0, 0})));
  EXPECT_EQ(out[0].shape(), Shape({0, 2}));
  // Float constant attribute converted to the data type.
  out = RunOk(OpTester("Pad")
                  .Attr("pads", Ints{1, 0})
                  .Attr("value", 1.5f)
                  .Input<Float16>({1}, {Float16(2.0f)}));
  EXPECT_EQ(static_cast<float>(Values<Float16>(out[0])[0]), 1.5f);
}

TEST(PadTest, Errors) {
  const std::vector<float> data(6);
  ExpectError(OpTester("Pad")
                  .Attr("mode", std::string("mirror"))
                  .Input<float>({2, 3}, data)
                  .AddInput(Int64s({0, 0, 0, 0}))
                  .InferOutputs(),
              absl::StatusCode::kInvalidArgument,
              "attribute 'mode' must be constant, reflect, edge or wrap, got "
              "\"mirror\"");
  ExpectError(
      OpTester("Pad")
          .Input<float>({2, 3}, data)
          .AddInput(Int64s({1, 1}))
          .InferOutputs(),
      absl::StatusCode::kInvalidArgument,
      "'pads' [1,1] has 2 entries; expected 4 (begin and end for 2 axes)");
  ExpectError(OpTester("Pad")
                  .Input<float>({2, 3}, data)
                  .AddInput(Int64s({0, -2, 0, -2}))
                  .InferOutputs(),
              absl::StatusCode::kInvalidArgument,
              "'pads' [0,-2,0,-2] crop axis 1 of size 3 to a negative size -1");
  ExpectError(
      OpTester("Pad")
          .Attr("mode", std::string("reflect"))
          .Input<float>({2, 3}, data)
          .AddInput(Int64s({0, -3, 0, 1}))
          .InferOutputs(),
      absl::StatusCode::kInvalidArgument,
      "mode 'reflect' cannot pad axis 1, which is empty after cropping");
  ExpectError(OpTester("Pad")
                  .Input<float>({2, 3}, data)
                  .AddInput(Int64s({0, 0, 0, 0}))
                  .Input<int32_t>({}, {1})
                  .InferOutputs(),
              absl::StatusCode::kInvalidArgument,
              "input 'constant_value' has type int32, data has float32");
  ExpectError(OpTester("Pad")
                  .Input<float>({2, 3}, data)
                  .AddInput(Int64s({0, 0, 0, 0}))
                  .Input<float>({2}, {1, 2})
                  .InferOutputs(),
              absl::StatusCode::kInvalidArgument,
              "input 'constant_value' must hold one value, got shape [2]");
  ExpectError(OpTester("Pad")
                  .Input<float>({2, 3}, data)
                  .RuntimeInput<int64_t>({4}, {0, 0, 0, 0})
                  .InferOutputs(),
              absl::StatusCode::kUnimplemented,
              "input 'pads' must be known before execution");
  ExpectError(OpTester("Pad")
                  .Input<float>({2, 3}, data)
                  .AddInput(Int64s({0, kInt64Max, 0, 0}))
                  .InferOutputs(),
              absl::StatusCode::kInvalidArgument, "out-of-range value");
}

// ---------------------------------------------------------------------------------------------
// Shape, Size, Constant, ConstantOfShape, Range.

TEST(ShapeTest, StartAndEndClampLikePythonSlicing) {
  const Ints dims = {3, 4, 5};
  for (int64_t start = -5; start <= 5; ++start) {
    for (int64_t end = -5; end <= 5; ++end) {
      const int64_t s =
          std::clamp<int64_t>(start < 0 ? start + 3 : start, 0, 3);
      const int64_t e = std::clamp<int64_t>(end < 0 ? end + 3 : end, 0, 3);
      const Ints expected =
          e > s ? Ints(dims.begin() + s, dims.begin() + e) : Ints{};
      std::vector<Tensor> out =
          RunOk(OpTester("Shape")
                    .Attr("start", start)
                    .Attr("end", end)
                    .AddInput(Pattern(DType::kBool, Shape(dims))));
      ASSERT_EQ(out[0].info(),
                (TensorInfo{DType::kInt64,
                            Shape{static_cast<int64_t>(expected.size())}}));
      EXPECT_EQ(Values<int64_t>(out[0]), expected) << start << ".." << end;
    }
  }
  std::vector<Tensor> out =
      RunOk(OpTester("Shape").AddInput(Pattern(DType::kFloat32, Shape(dims))));
  EXPECT_EQ(Values<int64_t>(out[0]), dims);
  out = RunOk(OpTester("Shape").AddInput(Pattern(DType::kFloat32, Shape{})));
  EXPECT_EQ(out[0].shape(), Shape({0}));
}

TEST(SizeTest, CountsElements) {
  for (const Shape& shape : {Shape{}, Shape{0, 3}, Shape{2, 3, 4}}) {
    std::vector<Tensor> out =
        RunOk(OpTester("Size").AddInput(Pattern(DType::kInt8, shape)));
    ASSERT_EQ(out[0].info(), (TensorInfo{DType::kInt64, Shape{}}));
    EXPECT_EQ(Values<int64_t>(out[0])[0], shape.NumElements());
  }
}

TEST(ConstantTest, EveryValueAttribute) {
  auto tensor =
      std::make_shared<Tensor>(MakeTensor<int32_t>({2, 2}, {1, 2, 3, 4}));
  std::vector<Tensor> out = RunOk(OpTester("Constant").Attr("value", tensor));
  ASSERT_EQ(out[0].info(), tensor->info());
  EXPECT_EQ(Values<int32_t>(out[0]), (std::vector<int32_t>{1, 2, 3, 4}));

  out = RunOk(OpTester("Constant").Attr("value_float", 2.5f));
  ASSERT_EQ(out[0].info(), (TensorInfo{DType::kFloat32, Shape{}}));
  EXPECT_EQ(Values<float>(out[0])[0], 2.5f);

  out = RunOk(
      OpTester("Constant").Attr("value_floats", std::vector<float>{1.5f, -2}));
  ASSERT_EQ(out[0].info(), (TensorInfo{DType::kFloat32, Shape{2}}));
  EXPECT_EQ(Values<float>(out[0]), (std::vector<float>{1.5f, -2}));

  out = RunOk(OpTester("Constant").Attr("value_int", int64_t{-3}));
  ASSERT_EQ(out[0].info(), (TensorInfo{DType::kInt64, Shape{}}));
  EXPECT_EQ(Values<int64_t>(out[0])[0], -3);

  out = RunOk(OpTester("Constant").Attr("value_ints", Ints{4, 5, 6}));
  ASSERT_EQ(out[0].info(), (TensorInfo{DType::kInt64, Shape{3}}));
  EXPECT_EQ(Values<int64_t>(out[0]), (Ints{4, 5, 6}));

  out = RunOk(OpTester("Constant").Attr("value_ints", Ints{}));
  ASSERT_EQ(out[0].info(), (TensorInfo{DType::kInt64, Shape{0}}));
}

TEST(ConstantTest, Errors) {
  ExpectError(
      OpTester("Constant").InferOutputs(), absl::StatusCode::kInvalidArgument,
      "exactly one of value, value_float, value_floats, value_int, value_ints "
      "must be set, got none");
  ExpectError(OpTester("Constant")
                  .Attr("value_int", int64_t{1})
                  .Attr("value_float", 1.0f)
                  .InferOutputs(),
              absl::StatusCode::kInvalidArgument, "got value_float, value_int");
  ExpectError(OpTester("Constant")
                  .Attr("value_string", std::string("x"))
                  .InferOutputs(),
              absl::StatusCode::kUnimplemented,
              "attribute 'value_string' is not supported");
  ExpectError(OpTester("Constant").Attr("value", int64_t{1}).InferOutputs(),
              absl::StatusCode::kInvalidArgument,
              "attribute 'value' must be of type tensor, got int");
}

TEST(ConstantOfShapeTest, FillsWithValueOrFloatZero) {
  std::vector<Tensor> out =
      RunOk(OpTester("ConstantOfShape").AddInput(Int64s({2, 3})));
  ASSERT_EQ(out[0].info(), (TensorInfo{DType::kFloat32, Shape{2, 3}}));
  EXPECT_EQ(Values<float>(out[0]), std::vector<float>(6, 0.0f));

  for (DType dtype : kAllDTypes) {
    auto value = std::make_shared<Tensor>(Pattern(dtype, Shape{1}, 5));
    out = RunOk(OpTester("ConstantOfShape")
                    .Attr("value", value)
                    .AddInput(Int32s({3, 1, 2})));
    ASSERT_EQ(out[0].info(), (TensorInfo{dtype, Shape{3, 1, 2}}));
    ExpectElementsFrom(out[0], *value, Ints(6, 0));
  }
  auto value = std::make_shared<Tensor>(MakeTensor<int32_t>({1}, {7}));
  out = RunOk(
      OpTester("ConstantOfShape").Attr("value", value).AddInput(Int64s({})));
  ASSERT_EQ(out[0].info(), (TensorInfo{DType::kInt32, Shape{}}));
  EXPECT_EQ(Values<int32_t>(out[0])[0], 7);
  out = RunOk(
      OpTester("ConstantOfShape").Attr("value", value).AddInput(Int64s({0})));
  ASSERT_EQ(out[0].info(), (TensorInfo{DType::kInt32, Shape{0}}));
}

TEST(ConstantOfShapeTest, Errors) {
  ExpectError(
      OpTester("ConstantOfShape").AddInput(Int64s({2, -1})).InferOutputs(),
      absl::StatusCode::kInvalidArgument, "dimension 1 is negative (-1)");
  ExpectError(OpTester("ConstantOfShape")
                  .Attr("value", std::make_shared<Tensor>(
                                     MakeTensor<float>({2}, {1, 2})))
                  .AddInput(Int64s({2}))
                  .InferOutputs(),
              absl::StatusCode::kInvalidArgument,
              "attribute 'value' must hold one value, got float32[2]");
  ExpectError(OpTester("ConstantOfShape")
                  .RuntimeInput<int64_t>({1}, {2})
                  .InferOutputs(),
              absl::StatusCode::kUnimplemented,
              "must be known before execution");
  ExpectError(OpTester("ConstantOfShape")
                  .AddInput(Int64s({1 << 30, 1 << 30, 1 << 30}))
                  .InferOutputs(),
              absl::StatusCode::kInvalidArgument, "has more than");
}

TEST(RangeTest, FloatAndIntegerRanges) {
  std::vector<Tensor> out = RunOk(OpTester("Range")
                                      .Input<float>({}, {1})
                                      .Input<float>({}, {5})
                                      .Input<float>({}, {2}));
  EXPECT_EQ(Values<float>(out[0]), (std::vector<float>{1, 3}));
  out = RunOk(OpTester("Range")
                  .Input<int32_t>({}, {10})
                  .Input<int32_t>({}, {6})
                  .Input<int32_t>({}, {-3}));
  EXPECT_EQ(Values<int32_t>(out[0]), (std::vector<int32_t>{10, 7}));
  out = RunOk(OpTester("Range")
                  .Input<int64_t>({}, {0})
                  .Input<int64_t>({}, {5})
                  .Input<int64_t>({}, {1}));
  EXPECT_EQ(Values<int64_t>(out[0]), (Ints{0, 1, 2, 3, 4}));
  out = RunOk(OpTester("Range")
                  .Input<int64_t>({}, {5})
                  .Input<int64_t>({}, {0})
                  .Input<int64_t>({}, {1}));
  EXPECT_EQ(out[0].shape(), Shape({0}));
  out = RunOk(OpTester("Range")
                  .Input<double>({}, {0.5})
                  .Input<double>({}, {1.0})
                  .Input<double>({}, {0.125}));
  EXPECT_EQ(Values<double>(out[0]),
            (std::vector<double>{0.5, 0.625, 0.75, 0.875}));
}

TEST(RangeTest, Errors) {
  ExpectError(OpTester("Range")
                  .Input<float>({}, {1})
                  .Input<float>({}, {5})
                  .Input<float>({}, {0})
                  .Run(),
              absl::StatusCode::kInvalidArgument, "input 'delta' is 0");
  ExpectError(OpTester("Range")
                  .Input<float>({}, {1})
                  .Input<int32_t>({}, {5})
                  .Input<float>({}, {1})
                  .Run(),
              absl::StatusCode::kInvalidArgument,
              "input 'limit' has type int32, 'start' has float32");
  ExpectError(OpTester("Range")
                  .Input<float>({}, {1})
                  .RuntimeInput<float>({}, {5})
                  .Input<float>({}, {1})
                  .Run(),
              absl::StatusCode::kUnimplemented,
              "input 'limit' must be known before execution");
  ExpectError(OpTester("Range")
                  .Input<float>({2}, {1, 2})
                  .Input<float>({}, {5})
                  .Input<float>({}, {1})
                  .Run(),
              absl::StatusCode::kInvalidArgument,
              "input 'start' must be a scalar, got shape [2]");
  ExpectError(OpTester("Range")
                  .Input<int64_t>({}, {kInt64Min})
                  .Input<int64_t>({}, {kInt64Max})
                  .Input<int64_t>({}, {1})
                  .Run(),
              absl::StatusCode::kInvalidArgument, "has too many elements");
}

// ---------------------------------------------------------------------------------------------
// Expand, Tile.

TEST(ExpandTest, BidirectionalBroadcastSweep) {
  const std::vector<std::pair<Ints, Ints>> cases = {
      {{3, 1}, {2, 1, 6}},
      {{3, 1}, {3, 4}},
      {{1}, {2, 3}},
      {{2, 3}, {1}},
      {{}, {4}},
      {{1, 4, 1}, {3, 1, 5}},
      {{2, 1, 3}, {2, 4, 3}},
      {{1, 3}, {0, 3}},
      {{0, 1}, {0, 5}},
      {{5}, {}},
  };
  int n = 0;
  for (const auto& [in_dims, shape] : cases) {
    for (DType dtype : kAllDTypes) {
      const Tensor input = Pattern(dtype, Shape(in_dims), n++);
      std::vector<Tensor> out = RunOk(
          OpTester("Expand").AddInput(input.Clone()).AddInput(Int64s(shape)));
      const size_t rank = std::max(in_dims.size(), shape.size());
      Ints out_dims(rank);
      for (size_t k = 0; k < rank; ++k) {
        const int64_t a =
            k + in_dims.size() >= rank ? in_dims[k + in_dims.size() - rank] : 1;
        const int64_t b =
            k + shape.size() >= rank ? shape[k + shape.size() - rank] : 1;
        out_dims[k] = a == 1 ? b : a;
      }
      ASSERT_EQ(out[0].shape(), Shape(out_dims));
      Ints src;
      for (int64_t j = 0; j < Count(out_dims); ++j) {
        const Ints o = Unravel(j, out_dims);
        Ints in(in_dims.size());
        for (size_t k = 0; k < in.size(); ++k) {
          in[k] = in_dims[k] == 1 ? 0 : o[k + rank - in_dims.size()];
        }
        src.push_back(Ravel(in, in_dims));
      }
      ExpectElementsFrom(out[0], input, src);
    }
  }
}

TEST(ExpandTest, Errors) {
  const Tensor input = Pattern(DType::kFloat32, Shape{2, 3});
  ExpectError(OpTester("Expand")
                  .AddInput(input.Clone())
                  .AddInput(Int64s({4, 3}))
                  .InferOutputs(),
              absl::StatusCode::kInvalidArgument, "cannot be broadcast");
  ExpectError(OpTester("Expand")
                  .AddInput(input.Clone())
                  .AddInput(Int64s({-1, 3}))
                  .InferOutputs(),
              absl::StatusCode::kInvalidArgument,
              "input 'shape' [-1,3]: dimension 0 is negative (-1)");
  ExpectError(OpTester("Expand")
                  .AddInput(input.Clone())
                  .RuntimeInput<int64_t>({2}, {2, 3})
                  .InferOutputs(),
              absl::StatusCode::kUnimplemented,
              "input 'shape' must be known before execution");
}

TEST(TileTest, SweepRepeatsAndDTypes) {
  const std::vector<std::pair<Ints, Ints>> cases = {
      {{2, 2}, {2, 2}},
      {{3}, {4}},
      {{2, 3, 4}, {1, 2, 1}},
      {{2, 1, 3}, {3, 4, 2}},
      {{2, 3}, {0, 2}},
      {{0, 3}, {2, 2}},
      {{}, {}},
      {{5, 7}, {1, 1}},
  };
  int n = 0;
  for (const auto& [in_dims, repeats] : cases) {
    for (DType dtype : kAllDTypes) {
      const Tensor input = Pattern(dtype, Shape(in_dims), n++);
      std::vector<Tensor> out = RunOk(
          OpTester("Tile").AddInput(input.Clone()).AddInput(Int64s(repeats)));
      Ints out_dims;
      for (size_t k = 0; k < in_dims.size(); ++k)
        out_dims.push_back(in_dims[k] * repeats[k]);
      ASSERT_EQ(out[0].shape(), Shape(out_dims));
      Ints src;
      for (int64_t j = 0; j < Count(out_dims); ++j) {
        Ints index = Unravel(j, out_dims);
        for (size_t k = 0; k < index.size(); ++k) index[k] %= in_dims[k];
        src.push_back(Ravel(index, in_dims));
      }
      ExpectElementsFrom(out[0], input, src);
    }
  }
  // The ONNX backend test "tile_precomputed".
  std::vector<Tensor> out = RunOk(OpTester("Tile")
                                      .Input<float>({2, 2}, {0, 1, 2, 3})
                                      .AddInput(Int64s({2, 2})));
  EXPECT_EQ(
      Values<float>(out[0]),
      (std::vector<float>{0, 1, 0, 1, 2, 3, 2, 3, 0, 1, 0, 1, 2, 3, 2, 3}));
}

TEST(TileTest, Errors) {
  const Tensor input = Pattern(DType::kFloat32, Shape{2, 3});
  ExpectError(OpTester("Tile")
                  .AddInput(input.Clone())
                  .AddInput(Int64s({2}))
                  .InferOutputs(),
              absl::StatusCode::kInvalidArgument,
              "input 'repeats' [2] has 1 entries for input of rank 2");
  ExpectError(OpTester("Tile")
                  .AddInput(input.Clone())
                  .AddInput(Int64s({2, -1}))
                  .InferOutputs(),
              absl::StatusCode::kInvalidArgument,
              "input 'repeats' [2,-1] has negative entry -1");
  ExpectError(OpTester("Tile")
                  .AddInput(input.Clone())
                  .AddInput(Int64s({kInt64Max, kInt64Max}))
                  .InferOutputs(),
              absl::StatusCode::kInvalidArgument, "has more than");
  ExpectError(OpTester("Tile")
                  .AddInput(input.Clone())
                  .RuntimeInput<int64_t>({2}, {1, 1})
                  .InferOutputs(),
              absl::StatusCode::kUnimplemented,
              "input 'repeats' must be known");
}

}  // namespace
}  // namespace acldump
