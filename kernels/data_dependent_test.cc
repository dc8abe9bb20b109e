// Operators whose output size depends on input values: hand-worked values,
// every ONNX backend node test of these operators, NaN and empty inputs, the
// errors, and the prepare contract (no values: NotKnownBeforeExecution; Run
// refuses values that no longer give the prepared shape).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>

#include "base/status_macros.h"
#include "kernels/testing/onnx_node_case.h"
#include "kernels/testing/op_tester.h"
#include "kernels/testing/test_values.h"

namespace acldump {
namespace {

using ::acldump::testing::Message;
using ::acldump::testing::OpTester;
using ::acldump::testing::Values;
using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

constexpr float kNan = std::numeric_limits<float>::quiet_NaN();

// Runs `tester` and returns its outputs, failing the test on an error.
std::vector<Tensor> RunOk(const OpTester& tester) {
  absl::StatusOr<std::vector<Tensor>> out = tester.Run();
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? std::move(*out) : std::vector<Tensor>{};
}

// The op's own prepare (what the runtime calls through the registry), every
// input's value unknown.
absl::Status PrepareWithoutValues(std::string_view op,
                                  const std::vector<Tensor>& inputs,
                                  const Attributes& attrs = {}) {
  std::vector<TensorInfo> infos;
  for (const Tensor& t : inputs) infos.push_back(t.info());
  std::vector<const TensorView*> constants(inputs.size(), nullptr);
  const OpContext context{op, attrs, infos, constants, 1};
  return BuiltinOps().Find(op)->prepare(context).status();
}

// Prepares with the values of `prepared_with`, then runs on `run_with`
// (same shapes): what happens when the values change after prepare.
absl::Status RunWithOtherValues(std::string_view op,
                                const std::vector<Tensor>& prepared_with,
                                const std::vector<Tensor>& run_with,
                                size_t num_outputs = 1) {
  std::vector<TensorInfo> infos;
  std::vector<TensorView> views, run_views;
  for (const Tensor& t : prepared_with) {
    infos.push_back(t.info());
    views.push_back(t.view());
  }
  for (const Tensor& t : run_with) run_views.push_back(t.view());
  std::vector<const TensorView*> constants;
  for (const TensorView& v : views) constants.push_back(&v);
  const Attributes attrs;
  const OpContext context{op, attrs, infos, constants, num_outputs};
  ASSIGN_OR_RETURN(PreparedKernel prepared, BuiltinOps().Prepare(context));
  std::vector<Tensor> outputs;
  std::vector<TensorView> output_views;
  for (const TensorInfo& info : prepared.outputs) {
    outputs.emplace_back(info.dtype, info.shape);
    output_views.push_back(outputs.back().view());
  }
  return prepared.kernel->Run(run_views, output_views, {});
}

using ::acldump::testing::MakeTensor;

// Tensors are move-only: no initializer lists of them.
template <typename... Ts>
std::vector<Tensor> Tensors(Ts&&... tensors) {
  std::vector<Tensor> out;
  (out.push_back(std::forward<Ts>(tensors)), ...);
  return out;
}

// ---------------------------------------------------------------------------------------------
// NonZero

TEST(NonZeroTest, GivesCoordinatesInRowMajorOrder) {
  OpTester t("NonZero");
  t.Input<float>({2, 3}, {0, 1, 0, 2, 0, 3});
  const auto out = RunOk(t);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].dtype(), DType::kInt64);
  EXPECT_EQ(out[0].shape(), (Shape{2, 3}));
  EXPECT_THAT(Values<int64_t>(out[0]), ElementsAre(0, 1, 1,  //
                                                   1, 0, 2));
}

TEST(NonZeroTest, ThreeDimensions) {
  OpTester t("NonZero");
  t.Input<int32_t>({2, 2, 2}, {0, 0, 0, 5, 7, 0, 0, 0});
  const auto out = RunOk(t);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape(), (Shape{3, 2}));
  EXPECT_THAT(Values<int64_t>(out[0]), ElementsAre(0, 1, 1, 0, 1, 0));
}

TEST(NonZeroTest, NanIsNonzeroAndNegativeZeroIsZero) {
  OpTester f32("NonZero");
  f32.Input<float>({4}, {kNan, -0.0f, 0.0f, 1e-30f});
  auto out = RunOk(f32);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_THAT(Values<int64_t>(out[0]), ElementsAre(0, 3));

  OpTester f16("NonZero");
  f16.Input<Float16>({3}, {Float16(-0.0f), Float16(kNan), Float16(2.0f)});
  out = RunOk(f16);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_THAT(Values<int64_t>(out[0]), ElementsAre(1, 2));

  OpTester f64("NonZero");
  f64.Input<double>({3}, {std::numeric_limits<double>::quiet_NaN(), 0.0, -0.0});
  out = RunOk(f64);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_THAT(Values<int64_t>(out[0]), ElementsAre(0));
}

template <typename T>
class NonZeroTypedTest : public ::testing::Test {};
using NonZeroTypes = ::testing::Types<float, Float16, BFloat16, double, int8_t,
                                      int16_t, int32_t, int64_t, uint8_t>;
TYPED_TEST_SUITE(NonZeroTypedTest, NonZeroTypes);

TYPED_TEST(NonZeroTypedTest, EveryNumericType) {
  OpTester t("NonZero");
  t.Input<TypeParam>({2, 2}, testing::Convert<TypeParam>({3, 0, 0, 1}));
  const auto out = RunOk(t);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape(), (Shape{2, 2}));
  EXPECT_THAT(Values<int64_t>(out[0]), ElementsAre(0, 1, 0, 1));
}

TEST(NonZeroTest, Bool) {
  OpTester t("NonZero");
  t.Input<bool>({3}, {false, true, true});
  const auto out = RunOk(t);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_THAT(Values<int64_t>(out[0]), ElementsAre(1, 2));
}

TEST(NonZeroTest, ScalarGivesOneCoordinateRowAsOnnxRuntime) {
  OpTester nonzero("NonZero");
  nonzero.Input<float>({}, {2.5f});
  auto out = RunOk(nonzero);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape(), (Shape{1, 1}));
  EXPECT_THAT(Values<int64_t>(out[0]), ElementsAre(0));

  OpTester zero("NonZero");
  zero.Input<float>({}, {0.0f});
  out = RunOk(zero);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape(), (Shape{1, 0}));
}

TEST(NonZeroTest, EmptyAndAllZeroInputs) {
  OpTester empty("NonZero");
  empty.Input<float>({2, 0, 3}, {});
  auto out = RunOk(empty);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape(), (Shape{3, 0}));

  OpTester zeros("NonZero");
  zeros.Input<int64_t>({2, 2}, {0, 0, 0, 0});
  out = RunOk(zeros);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape(), (Shape{2, 0}));
}

TEST(NonZeroTest, NeedsTheInputsValues) {
  const absl::Status status =
      PrepareWithoutValues("NonZero", Tensors(MakeTensor<float>({2}, {1, 0})));
  EXPECT_TRUE(IsNotKnownBeforeExecution(status)) << status;
  EXPECT_THAT(Message(status), HasSubstr("'X'"));
}

TEST(NonZeroTest, RunRefusesValuesThatChangeTheOutputSize) {
  const absl::Status status =
      RunWithOtherValues("NonZero", Tensors(MakeTensor<float>({3}, {1, 0, 0})),
                         Tensors(MakeTensor<float>({3}, {1, 2, 3})));
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(Message(status),
              HasSubstr("output 'Y' computed from the inputs has shape [1,3] "
                        "but was prepared as [1,1]"));
  // Other values of the same count are fine: Run computes them afresh.
  EXPECT_TRUE(RunWithOtherValues("NonZero",
                                 Tensors(MakeTensor<float>({3}, {1, 0, 0})),
                                 Tensors(MakeTensor<float>({3}, {0, 0, 4})))
                  .ok());
}

// ---------------------------------------------------------------------------------------------
// Compress

TEST(CompressTest, AlongEachAxis) {
  const std::vector<float> data = {1, 2, 3, 4, 5, 6};
  OpTester rows("Compress");
  rows.Input<float>({3, 2}, data)
      .Input<bool>({3}, {true, false, true})
      .Attr("axis", int64_t{0});
  auto out = RunOk(rows);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape(), (Shape{2, 2}));
  EXPECT_THAT(Values<float>(out[0]), ElementsAre(1, 2, 5, 6));

  OpTester columns("Compress");
  columns.Input<float>({3, 2}, data)
      .Input<bool>({2}, {true, false})
      .Attr("axis", int64_t{-1});
  out = RunOk(columns);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape(), (Shape{3, 1}));
  EXPECT_THAT(Values<float>(out[0]), ElementsAre(1, 3, 5));
}

TEST(CompressTest, MiddleAxisOfThree) {
  OpTester t("Compress");
  t.Input<int64_t>({2, 3, 2}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11})
      .Input<bool>({3}, {false, true, true})
      .Attr("axis", int64_t{1});
  const auto out = RunOk(t);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape(), (Shape{2, 2, 2}));
  EXPECT_THAT(Values<int64_t>(out[0]), ElementsAre(2, 3, 4, 5, 8, 9, 10, 11));
}

TEST(CompressTest, WithoutAxisTheInputIsFlattened) {
  OpTester t("Compress");
  t.Input<int8_t>({2, 2}, {1, 2, 3, 4})
      .Input<bool>({4}, {false, true, true, false});
  const auto out = RunOk(t);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape(), (Shape{2}));
  EXPECT_THAT(Values<int8_t>(out[0]), ElementsAre(2, 3));
}

TEST(CompressTest, AShortConditionDropsTheRestALongOneIsCutAsOnnxRuntime) {
  OpTester shorter("Compress");
  shorter.Input<float>({2, 3}, {1, 2, 3, 4, 5, 6})
      .Input<bool>({2}, {true, true})
      .Attr("axis", int64_t{1});
  auto out = RunOk(shorter);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape(), (Shape{2, 2}));
  EXPECT_THAT(Values<float>(out[0]), ElementsAre(1, 2, 4, 5));

  OpTester longer("Compress");
  longer.Input<float>({2}, {1, 2}).Input<bool>({4}, {false, true, true, true});
  out = RunOk(longer);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape(), (Shape{1}));
  EXPECT_THAT(Values<float>(out[0]), ElementsAre(2));
}

TEST(CompressTest, NothingSelectedAndEmptyInputs) {
  OpTester none("Compress");
  none.Input<float>({2, 2}, {1, 2, 3, 4})
      .Input<bool>({2}, {false, false})
      .Attr("axis", int64_t{0});
  auto out = RunOk(none);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape(), (Shape{0, 2}));

  OpTester empty("Compress");
  empty.Input<float>({0, 3}, {}).Input<bool>({0}, {});
  out = RunOk(empty);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape(), (Shape{0}));
}

TEST(CompressTest, BoolAndHalfData) {
  OpTester b("Compress");
  b.Input<bool>({3}, {true, false, true}).Input<bool>({3}, {false, true, true});
  auto out = RunOk(b);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_THAT(Values<bool>(out[0]), ElementsAre(false, true));

  OpTester h("Compress");
  h.Input<Float16>({2}, {Float16(1.5f), Float16(kNan)})
      .Input<bool>({2}, {false, true});
  out = RunOk(h);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_TRUE(std::isnan(static_cast<float>(Values<Float16>(out[0])[0])));
}

TEST(CompressTest, Errors) {
  OpTester not_bool("Compress");
  not_bool.Input<float>({2}, {1, 2}).Input<int64_t>({2}, {0, 1});
  EXPECT_THAT(Message(not_bool.Run().status()),
              HasSubstr("input 'condition' has unsupported type int64"));

  OpTester rank2("Compress");
  rank2.Input<float>({2}, {1, 2}).Input<bool>({1, 2}, {false, true});
  EXPECT_THAT(Message(rank2.Run().status()),
              HasSubstr("'condition' must be 1-D, got shape [1,2]"));

  OpTester bad_axis("Compress");
  bad_axis.Input<float>({2}, {1, 2})
      .Input<bool>({2}, {false, true})
      .Attr("axis", int64_t{1});
  EXPECT_THAT(Message(bad_axis.Run().status()), HasSubstr("axis"));
}

TEST(CompressTest, NeedsOnlyTheConditionsValues) {
  const std::vector<Tensor> inputs = Tensors(
      MakeTensor<float>({2}, {1, 2}), MakeTensor<bool>({2}, {true, false}));
  const absl::Status status = PrepareWithoutValues("Compress", inputs);
  EXPECT_TRUE(IsNotKnownBeforeExecution(status)) << status;
  EXPECT_THAT(Message(status), HasSubstr("'condition'"));

  OpTester data_at_run_time("Compress");
  data_at_run_time.RuntimeInput<float>({2}, {1, 2})
      .Input<bool>({2}, {true, false});
  const auto out = RunOk(data_at_run_time);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_THAT(Values<float>(out[0]), ElementsAre(1));
}

TEST(CompressTest, RunRefusesAConditionThatChangesTheOutputSize) {
  const absl::Status status =
      RunWithOtherValues("Compress",
                         Tensors(MakeTensor<float>({2}, {1, 2}),
                                 MakeTensor<bool>({2}, {true, false})),
                         Tensors(MakeTensor<float>({2}, {1, 2}),
                                 MakeTensor<bool>({2}, {true, true})));
  EXPECT_THAT(Message(status), HasSubstr("has shape [2] but was prepared as "
                                         "[1]"));
}

// ---------------------------------------------------------------------------------------------
// Unique

TEST(UniqueTest, SortedWithoutAxis) {
  OpTester t("Unique", 4);
  t.Input<float>({2, 3}, {2, 1, 1, 3, 4, 3});
  const auto out = RunOk(t);
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[0].shape(), (Shape{4}));
  EXPECT_THAT(Values<float>(out[0]), ElementsAre(1, 2, 3, 4));
  EXPECT_THAT(Values<int64_t>(out[1]), ElementsAre(1, 0, 3, 4));
  EXPECT_THAT(Values<int64_t>(out[2]), ElementsAre(1, 0, 0, 2, 3, 2));
  EXPECT_THAT(Values<int64_t>(out[3]), ElementsAre(2, 1, 2, 1));
}

TEST(UniqueTest, UnsortedKeepsTheOrderOfFirstOccurrence) {
  OpTester t("Unique", 4);
  t.Input<int64_t>({7}, {5, -1, 5, 7, -1, -1, 0}).Attr("sorted", int64_t{0});
  const auto out = RunOk(t);
  ASSERT_EQ(out.size(), 4u);
  EXPECT_THAT(Values<int64_t>(out[0]), ElementsAre(5, -1, 7, 0));
  EXPECT_THAT(Values<int64_t>(out[1]), ElementsAre(0, 1, 3, 6));
  EXPECT_THAT(Values<int64_t>(out[2]), ElementsAre(0, 1, 0, 2, 1, 1, 3));
  EXPECT_THAT(Values<int64_t>(out[3]), ElementsAre(2, 3, 1, 1));
}

TEST(UniqueTest, OptionalOutputsMayBeLeftOut) {
  OpTester one("Unique", 1);
  one.Input<int8_t>({4}, {3, 3, -2, 3});
  auto out = RunOk(one);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_THAT(Values<int8_t>(out[0]), ElementsAre(-2, 3));

  OpTester three("Unique", 3);
  three.Input<int8_t>({4}, {3, 3, -2, 3});
  out = RunOk(three);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_THAT(Values<int64_t>(out[1]), ElementsAre(2, 0));
  EXPECT_THAT(Values<int64_t>(out[2]), ElementsAre(1, 1, 0, 1));
}

TEST(UniqueTest, RowsAndColumnsSortedLexicographically) {
  // Rows [1,0,0] [1,0,0] [2,3,4]; columns [1,1,2] [0,0,3] [0,0,4].
  const std::vector<float> x = {1, 0, 0, 1, 0, 0, 2, 3, 4};
  OpTester rows("Unique", 4);
  rows.Input<float>({3, 3}, x).Attr("axis", int64_t{0});
  auto out = RunOk(rows);
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[0].shape(), (Shape{2, 3}));
  EXPECT_THAT(Values<float>(out[0]), ElementsAre(1, 0, 0, 2, 3, 4));
  EXPECT_THAT(Values<int64_t>(out[1]), ElementsAre(0, 2));
  EXPECT_THAT(Values<int64_t>(out[2]), ElementsAre(0, 0, 1));
  EXPECT_THAT(Values<int64_t>(out[3]), ElementsAre(2, 1));

  OpTester columns("Unique", 4);
  columns.Input<float>({3, 3}, x).Attr("axis", int64_t{-1});
  out = RunOk(columns);
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[0].shape(), (Shape{3, 3}));
  EXPECT_THAT(Values<float>(out[0]), ElementsAre(0, 0, 1, 0, 0, 1, 3, 4, 2));
  EXPECT_THAT(Values<int64_t>(out[1]), ElementsAre(1, 2, 0));
  EXPECT_THAT(Values<int64_t>(out[2]), ElementsAre(2, 0, 1));
  EXPECT_THAT(Values<int64_t>(out[3]), ElementsAre(1, 1, 1));
}

TEST(UniqueTest, UnsortedSlicesOfAThreeDimensionalInput) {
  // Axis 1 of [2,3,1]: slice k is (x[0,k,0], x[1,k,0]): (4,1) (2,2) (4,1).
  OpTester t("Unique", 4);
  t.Input<int32_t>({2, 3, 1}, {4, 2, 4, 1, 2, 1})
      .Attr("axis", int64_t{1})
      .Attr("sorted", int64_t{0});
  const auto out = RunOk(t);
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[0].shape(), (Shape{2, 2, 1}));
  EXPECT_THAT(Values<int32_t>(out[0]), ElementsAre(4, 2, 1, 2));
  EXPECT_THAT(Values<int64_t>(out[1]), ElementsAre(0, 1));
  EXPECT_THAT(Values<int64_t>(out[2]), ElementsAre(0, 1, 0));
  EXPECT_THAT(Values<int64_t>(out[3]), ElementsAre(2, 1));
}

TEST(UniqueTest, NansAreEqualAndSortLastAsNumpy) {
  OpTester sorted("Unique", 4);
  sorted.Input<float>({5}, {kNan, 1, kNan, 0, -kNan});
  auto out = RunOk(sorted);
  ASSERT_EQ(out.size(), 4u);
  const auto y = Values<float>(out[0]);
  ASSERT_EQ(y.size(), 3u);
  EXPECT_EQ(y[0], 0);
  EXPECT_EQ(y[1], 1);
  EXPECT_TRUE(std::isnan(y[2]));
  EXPECT_THAT(Values<int64_t>(out[1]), ElementsAre(3, 1, 0));
  EXPECT_THAT(Values<int64_t>(out[2]), ElementsAre(2, 1, 2, 0, 2));
  EXPECT_THAT(Values<int64_t>(out[3]), ElementsAre(1, 1, 3));

  OpTester unsorted("Unique", 4);
  unsorted.Input<double>({4}, {1, std::nan(""), 1, std::nan("")})
      .Attr("sorted", int64_t{0});
  out = RunOk(unsorted);
  ASSERT_EQ(out.size(), 4u);
  const auto y64 = Values<double>(out[0]);
  ASSERT_EQ(y64.size(), 2u);
  EXPECT_EQ(y64[0], 1);
  EXPECT_TRUE(std::isnan(y64[1]));
  EXPECT_THAT(Values<int64_t>(out[3]), ElementsAre(2, 2));

  // Slices holding NaN at the same place are equal too.
  OpTester rows("Unique", 4);
  rows.Input<float>({3, 2}, {kNan, 1, 0, 1, kNan, 1}).Attr("axis", int64_t{0});
  out = RunOk(rows);
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[0].shape(), (Shape{2, 2}));
  EXPECT_THAT(Values<int64_t>(out[1]), ElementsAre(1, 0));
  EXPECT_THAT(Values<int64_t>(out[3]), ElementsAre(1, 2));
}

TEST(UniqueTest, NegativeZeroEqualsZeroAndKeepsTheFirstOccurrence) {
  OpTester t("Unique", 4);
  t.Input<float>({3}, {-0.0f, 0.0f, -1.0f});
  const auto out = RunOk(t);
  ASSERT_EQ(out.size(), 4u);
  const auto y = Values<float>(out[0]);
  ASSERT_EQ(y.size(), 2u);
  EXPECT_EQ(y[0], -1.0f);
  EXPECT_TRUE(std::signbit(y[1]));
  EXPECT_THAT(Values<int64_t>(out[3]), ElementsAre(1, 2));
}

TEST(UniqueTest, OtherTypes) {
  OpTester b("Unique", 4);
  b.Input<bool>({4}, {true, false, true, true});
  auto out = RunOk(b);
  ASSERT_EQ(out.size(), 4u);
  EXPECT_THAT(Values<bool>(out[0]), ElementsAre(false, true));
  EXPECT_THAT(Values<int64_t>(out[3]), ElementsAre(1, 3));

  OpTester u8("Unique", 2);
  u8.Input<uint8_t>({4}, {200, 7, 200, 255}).Attr("sorted", int64_t{1});
  out = RunOk(u8);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_THAT(Values<uint8_t>(out[0]), ElementsAre(7, 200, 255));
  EXPECT_THAT(Values<int64_t>(out[1]), ElementsAre(1, 0, 3));

  OpTester f16("Unique");
  f16.Input<Float16>({3}, {Float16(2.0f), Float16(-1.0f), Float16(2.0f)});
  out = RunOk(f16);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_THAT(testing::AsDoubles<Float16>(out[0]), ElementsAre(-1, 2));
}

TEST(UniqueTest, EmptyAndScalarInputs) {
  OpTester empty("Unique", 4);
  empty.Input<float>({0, 2}, {});
  auto out = RunOk(empty);
  ASSERT_EQ(out.size(), 4u);
  for (const Tensor& t : out) EXPECT_EQ(t.shape(), (Shape{0}));

  OpTester no_rows("Unique", 4);
  no_rows.Input<float>({0, 2}, {}).Attr("axis", int64_t{0});
  out = RunOk(no_rows);
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[0].shape(), (Shape{0, 2}));
  EXPECT_EQ(out[2].shape(), (Shape{0}));

  OpTester scalar("Unique", 4);
  scalar.Input<int64_t>({}, {9});
  out = RunOk(scalar);
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[0].shape(), (Shape{1}));
  EXPECT_THAT(Values<int64_t>(out[0]), ElementsAre(9));
  EXPECT_THAT(Values<int64_t>(out[3]), ElementsAre(1));
}

TEST(UniqueTest, Errors) {
  OpTester bad_axis("Unique");
  bad_axis.Input<float>({2, 2}, {1, 2, 3, 4}).Attr("axis", int64_t{2});
  EXPECT_THAT(Message(bad_axis.Run().status()), HasSubstr("axis"));

  OpTester bf16("Unique");
  bf16.Input<BFloat16>({1}, {BFloat16(1.0f)});
  EXPECT_THAT(Message(bf16.Run().status()),
              HasSubstr("input 'X' has unsupported type bfloat16"));

  OpTester sorted("Unique");
  sorted.Input<float>({1}, {1}).Attr("sorted", int64_t{2});
  EXPECT_THAT(Message(sorted.Run().status()), HasSubstr("sorted"));
}

TEST(UniqueTest, NeedsTheInputsValues) {
  const absl::Status status =
      PrepareWithoutValues("Unique", Tensors(MakeTensor<float>({2}, {1, 1})));
  EXPECT_TRUE(IsNotKnownBeforeExecution(status)) << status;
  EXPECT_THAT(Message(status), HasSubstr("'X'"));
}

TEST(UniqueTest, RunRefusesValuesThatChangeTheOutputSize) {
  const absl::Status status =
      RunWithOtherValues("Unique", Tensors(MakeTensor<float>({3}, {1, 1, 1})),
                         Tensors(MakeTensor<float>({3}, {1, 2, 1})), 4);
  EXPECT_THAT(Message(status), HasSubstr("output 'Y'"));
  EXPECT_TRUE(RunWithOtherValues("Unique",
                                 Tensors(MakeTensor<float>({3}, {1, 1, 2})),
                                 Tensors(MakeTensor<float>({3}, {5, 4, 4})), 4)
                  .ok());
}

// ---------------------------------------------------------------------------------------------
// NonMaxSuppression

OpTester Nms(Shape boxes_shape, const std::vector<float>& boxes,
             Shape scores_shape, const std::vector<float>& scores,
             int64_t max_per_class, float iou, std::optional<float> score) {
  OpTester t("NonMaxSuppression");
  t.Input<float>(std::move(boxes_shape), boxes)
      .Input<float>(std::move(scores_shape), scores)
      .Input<int64_t>({1}, {max_per_class})
      .Input<float>({1}, {iou});
  if (score) t.Input<float>({}, {*score});
  return t;
}

// Two overlapping unit boxes with IoU 1/3 ([0,0,1,1] and [0,0.5,1,1.5]) and a
// far one; corners as [y1, x1, y2, x2].
const std::vector<float> kBoxes = {0, 0, 1, 1, 0, 0.5f, 1, 1.5f, 5, 5, 6, 6};

TEST(NonMaxSuppressionTest, SuppressesByIouAboveTheThreshold) {
  auto out = RunOk(
      Nms({1, 3, 4}, kBoxes, {1, 1, 3}, {0.5f, 0.9f, 0.1f}, 10, 0.3f, {}));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape(), (Shape{2, 3}));
  EXPECT_THAT(Values<int64_t>(out[0]), ElementsAre(0, 0, 1, 0, 0, 2));

  out = RunOk(
      Nms({1, 3, 4}, kBoxes, {1, 1, 3}, {0.5f, 0.9f, 0.1f}, 10, 0.34f, {}));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_THAT(Values<int64_t>(out[0]), ElementsAre(0, 0, 1, 0, 0, 0, 0, 0, 2));
}

TEST(NonMaxSuppressionTest, AnIouEqualToTheThresholdDoesNotSuppress) {
  // IoU of [0,0,1,1] and [0,0,1,2] is 1 / 2 exactly.
  const std::vector<float> boxes = {0, 0, 1, 1, 0, 0, 1, 2};
  auto out = RunOk(Nms({1, 2, 4}, boxes, {1, 1, 2}, {0.9f, 0.8f}, 5, 0.5f, {}));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape(), (Shape{2, 3}));
  out = RunOk(Nms({1, 2, 4}, boxes, {1, 1, 2}, {0.9f, 0.8f}, 5, 0.49f, {}));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_THAT(Values<int64_t>(out[0]), ElementsAre(0, 0, 0));
}

TEST(NonMaxSuppressionTest, CenterPointBoxes) {
  // The same boxes as kBoxes as [x_center, y_center, width, height].
  const std::vector<float> centers = {0.5f, 0.5f, 1,    1,    1, 0.5f,
                                      1,    1,    5.5f, 5.5f, 1, 1};
  OpTester t =
      Nms({1, 3, 4}, centers, {1, 1, 3}, {0.5f, 0.9f, 0.1f}, 10, 0.3f, {});
  t.Attr("center_point_box", int64_t{1});
  const auto out = RunOk(t);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_THAT(Values<int64_t>(out[0]), ElementsAre(0, 0, 1, 0, 0, 2));
}

TEST(NonMaxSuppressionTest, FlippedCornersGiveTheSameResult) {
  const std::vector<float> flipped = {1, 1, 0, 0, 1, 0.5f, 0, 1.5f, 6, 5, 5, 6};
  const auto out = RunOk(
      Nms({1, 3, 4}, flipped, {1, 1, 3}, {0.5f, 0.9f, 0.1f}, 10, 0.3f, {}));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_THAT(Values<int64_t>(out[0]), ElementsAre(0, 0, 1, 0, 0, 2));
}

TEST(NonMaxSuppressionTest, TiesKeepTheLowerIndexFirst) {
  const std::vector<float> far = {0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5};
  const auto out =
      RunOk(Nms({1, 3, 4}, far, {1, 1, 3}, {0.5f, 0.7f, 0.5f}, 10, 0.5f, {}));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_THAT(Values<int64_t>(out[0]), ElementsAre(0, 0, 1, 0, 0, 0, 0, 0, 2));
}

TEST(NonMaxSuppressionTest, ScoreThresholdIsStrict) {
  const std::vector<float> far = {0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5};
  const auto out =
      RunOk(Nms({1, 3, 4}, far, {1, 1, 3}, {0.4f, 0.7f, 0.5f}, 10, 0.5f, 0.5f));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_THAT(Values<int64_t>(out[0]), ElementsAre(0, 0, 1));
}

TEST(NonMaxSuppressionTest, PerBatchThenPerClass) {
  // Two batches of the same three boxes; two classes whose scores rank them
  // differently.
  std::vector<float> boxes = kBoxes;
  boxes.insert(boxes.end(), kBoxes.begin(), kBoxes.end());
  const std::vector<float> scores = {0.5f, 0.9f, 0.1f, 0.9f, 0.2f, 0.3f,
                                     0.1f, 0.2f, 0.3f, 0.3f, 0.2f, 0.1f};
  const auto out = RunOk(Nms({2, 3, 4}, boxes, {2, 2, 3}, scores, 2, 0.3f, {}));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape(), (Shape{8, 3}));
  EXPECT_THAT(Values<int64_t>(out[0]), ElementsAre(0, 0, 1, 0, 0, 2,  //
                                                   0, 1, 0, 0, 1, 2,  //
                                                   1, 0, 2, 1, 0, 1,  //
                                                   1, 1, 0, 1, 1, 2));
}

TEST(NonMaxSuppressionTest, NoLimitOrALimitOfZeroSelectsNothing) {
  OpTester absent("NonMaxSuppression");
  absent.Input<float>({1, 3, 4}, kBoxes).Input<float>({1, 1, 3}, {1, 1, 1});
  auto out = RunOk(absent);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape(), (Shape{0, 3}));

  for (int64_t limit : {0, -3}) {
    out = RunOk(Nms({1, 3, 4}, kBoxes, {1, 1, 3}, {1, 1, 1}, limit, 0, {}));
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].shape(), (Shape{0, 3})) << limit;
  }
}

TEST(NonMaxSuppressionTest, AbsentOptionalInputsInTheMiddle) {
  // No iou_threshold: 0, so any overlap suppresses.
  OpTester t("NonMaxSuppression");
  t.Input<float>({1, 3, 4}, kBoxes)
      .Input<float>({1, 1, 3}, {0.5f, 0.9f, 0.1f})
      .Input<int64_t>({}, {5})
      .AbsentInput()
      .Input<float>({1}, {0.2f});
  const auto out = RunOk(t);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_THAT(Values<int64_t>(out[0]), ElementsAre(0, 0, 1));
}

TEST(NonMaxSuppressionTest, NanScoresAreNeverSelected) {
  const std::vector<float> far = {0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5};
  const auto out =
      RunOk(Nms({1, 3, 4}, far, {1, 1, 3}, {kNan, 0.7f, 0.5f}, 10, 0.5f, {}));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_THAT(Values<int64_t>(out[0]), ElementsAre(0, 0, 1, 0, 0, 2));
}

TEST(NonMaxSuppressionTest, EmptyInputs) {
  const auto out = RunOk(Nms({2, 0, 4}, {}, {2, 3, 0}, {}, 10, 0.5f, 0.0f));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape(), (Shape{0, 3}));
}

TEST(NonMaxSuppressionTest, Errors) {
  auto message = [](const OpTester& t) { return Message(t.Run().status()); };
  EXPECT_THAT(message(Nms({1, 3, 4}, kBoxes, {1, 1, 2}, {1, 1}, 1, 0.5f, {})),
              HasSubstr("'boxes' [1,3,4] and 'scores' [1,1,2] disagree on the "
                        "number of batches or boxes"));
  EXPECT_THAT(message(Nms({2, 3, 2}, kBoxes, {2, 1, 3}, {1, 1, 1, 1, 1, 1}, 1,
                          0.5f, {})),
              HasSubstr("'boxes' must be [num_batches, num_boxes, 4], got "
                        "shape [2,3,2]"));
  EXPECT_THAT(message(Nms({1, 3, 4}, kBoxes, {3}, {1, 1, 1}, 1, 0.5f, {})),
              HasSubstr("'scores' must be [num_batches, num_classes, "
                        "num_boxes], got shape [3]"));
  EXPECT_THAT(
      message(Nms({1, 3, 4}, kBoxes, {1, 1, 3}, {1, 1, 1}, 1, 1.5f, {})),
      HasSubstr("iou_threshold 1.5 is outside [0, 1]"));

  OpTester f64("NonMaxSuppression");
  f64.Input<double>({1, 1, 4}, {0, 0, 1, 1}).Input<float>({1, 1, 1}, {1});
  EXPECT_THAT(message(f64),
              HasSubstr("input 'boxes' has unsupported type float64"));

  OpTester int32_limit("NonMaxSuppression");
  int32_limit.Input<float>({1, 1, 4}, {0, 0, 1, 1})
      .Input<float>({1, 1, 1}, {1})
      .Input<int32_t>({1}, {1});
  EXPECT_THAT(message(int32_limit),
              HasSubstr("input 'max_output_boxes_per_class' has unsupported "
                        "type int32"));

  OpTester two_limits("NonMaxSuppression");
  two_limits.Input<float>({1, 1, 4}, {0, 0, 1, 1})
      .Input<float>({1, 1, 1}, {1})
      .Input<int64_t>({2}, {1, 2});
  EXPECT_THAT(message(two_limits), HasSubstr("must hold one value"));

  OpTester center = Nms({1, 3, 4}, kBoxes, {1, 1, 3}, {1, 1, 1}, 1, 0.5f, {});
  center.Attr("center_point_box", int64_t{2});
  EXPECT_THAT(message(center), HasSubstr("center_point_box must be 0 or 1"));
}

TEST(NonMaxSuppressionTest, NeedsEveryInputsValues) {
  const std::vector<Tensor> inputs =
      Tensors(MakeTensor<float>({1, 1, 4}, {0, 0, 1, 1}),
              MakeTensor<float>({1, 1, 1}, {1}), MakeTensor<int64_t>({1}, {1}));
  const absl::Status status = PrepareWithoutValues("NonMaxSuppression", inputs);
  EXPECT_TRUE(IsNotKnownBeforeExecution(status)) << status;
  EXPECT_THAT(Message(status), HasSubstr("'boxes'"));
  // Shape errors come first: they do not depend on values.
  const std::vector<Tensor> mismatched =
      Tensors(MakeTensor<float>({1, 2, 4}, {0, 0, 1, 1, 0, 0, 1, 1}),
              MakeTensor<float>({1, 1, 1}, {1}));
  EXPECT_FALSE(IsNotKnownBeforeExecution(
      PrepareWithoutValues("NonMaxSuppression", mismatched)));

  OpTester limit_at_run_time("NonMaxSuppression");
  limit_at_run_time.Input<float>({1, 1, 4}, {0, 0, 1, 1})
      .Input<float>({1, 1, 1}, {1})
      .RuntimeInput<int64_t>({1}, {1});
  EXPECT_THAT(Message(limit_at_run_time.Run().status()),
              HasSubstr("'max_output_boxes_per_class' must be known"));
}

TEST(NonMaxSuppressionTest, RunRefusesValuesThatChangeTheOutputSize) {
  const std::vector<float> far = {0, 0, 1, 1, 2, 2, 3, 3};
  auto inputs = [&](float score) {
    std::vector<Tensor> t;
    t.push_back(MakeTensor<float>({1, 2, 4}, far));
    t.push_back(MakeTensor<float>({1, 1, 2}, {0.9f, score}));
    t.push_back(MakeTensor<int64_t>({1}, {5}));
    t.push_back(MakeTensor<float>({1}, {0.5f}));
    t.push_back(MakeTensor<float>({1}, {0.5f}));
    return t;
  };
  const absl::Status status =
      RunWithOtherValues("NonMaxSuppression", inputs(0.1f), inputs(0.8f));
  EXPECT_THAT(Message(status),
              HasSubstr("output 'selected_indices' computed from the inputs "
                        "has shape [2,3] but was prepared as [1,3]"));
}

// ---------------------------------------------------------------------------------------------
// The ONNX backend node tests of these operators (Debian's libonnx-testdata),
// read with kernels/testing/onnx_node_case.h.

void RunNodeCase(const std::filesystem::path& dir) {
  SCOPED_TRACE(dir.filename().string());
  absl::StatusOr<testing::OnnxNodeCase> c =
      testing::ReadOnnxNodeCase(dir / "model.onnx");
  ASSERT_TRUE(c.ok()) << c.status();
  absl::StatusOr<std::vector<testing::OnnxNodeData>> sets =
      testing::ReadOnnxNodeData(dir, *c);
  ASSERT_TRUE(sets.ok()) << sets.status();
  EXPECT_FALSE(sets->empty()) << "no test_data_set_<n>";
  for (const testing::OnnxNodeData& set : *sets) {
    OpTester tester(c->op_type, c->outputs.size());
    for (const auto& [name, value] : c->attrs.values()) {
      tester.Attr(name, value);
    }
    for (size_t i = 0; i < set.inputs.size(); ++i) {
      if (set.present[i]) {
        tester.AddInput(set.inputs[i].Clone());
      } else {
        tester.AbsentInput();
      }
    }
    const auto out = RunOk(tester);
    ASSERT_EQ(out.size(), c->outputs.size());
    ASSERT_EQ(set.outputs.size(), c->outputs.size());
    for (size_t i = 0; i < out.size(); ++i) {
      const Tensor& expected = set.outputs[i];
      EXPECT_EQ(out[i].info(), expected.info()) << c->outputs[i];
      if (out[i].info() != expected.info()) continue;
      // Copies and indices: bit-exact.
      EXPECT_EQ(
          std::memcmp(out[i].data(), expected.data(), expected.ByteSize()), 0)
          << c->outputs[i];
    }
    // Without the values, prepare asks for them (an absent input: a default
    // tensor's info, as the OpTester passes it).
    std::vector<TensorInfo> infos;
    for (const Tensor& t : set.inputs) infos.push_back(t.info());
    const std::vector<const TensorView*> unknown(set.inputs.size(), nullptr);
    const OpContext context{c->op_type, c->attrs, infos, unknown,
                            c->outputs.size()};
    const absl::Status status =
        BuiltinOps().Find(c->op_type)->prepare(context).status();
    EXPECT_TRUE(IsNotKnownBeforeExecution(status)) << status;
  }
}

TEST(OnnxNodeTest, EveryBackendTestOfTheseOperatorsPasses) {
  ASSERT_TRUE(std::filesystem::exists(testing::kOnnxNodeTestRoot))
      << testing::kOnnxNodeTestRoot << " is missing: install libonnx-testdata";
  std::map<std::string, int> cases;  // per operator prefix
  for (const char* prefix : {"test_nonzero", "test_compress", "test_unique",
                             "test_nonmaxsuppression"}) {
    for (const std::filesystem::path& dir : testing::OnnxNodeTestDirs(prefix)) {
      ++cases[prefix];
      RunNodeCase(dir);
    }
  }
  // libonnx-testdata 1.12: 1 + 4 + 5 + 9 cases.
  EXPECT_GE(cases["test_nonzero"], 1);
  EXPECT_GE(cases["test_compress"], 4);
  EXPECT_GE(cases["test_unique"], 5);
  EXPECT_GE(cases["test_nonmaxsuppression"], 9);
}

}  // namespace
}  // namespace acldump
