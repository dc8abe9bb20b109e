#include "dump/policy.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>

#include "base/strings.h"
#include "kernels/ops.h"
#include "runtime/converter.h"

namespace acldump::dump {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// x, y -> add1 (Add) -> relu1 (Relu) -> split1 (Split, 2 outputs) ->
// mul1 (Mul, fused from mul_a and mul_b) -> neg1 (Neg) -> out.
std::unique_ptr<CompiledModel> ChainModel() {
  Graph graph;
  graph.name = "chain";
  graph.inputs.push_back({"x", {DType::kFloat32, Shape({4})}});
  graph.inputs.push_back({"y", {DType::kFloat32, Shape({4})}});
  graph.outputs.push_back({"out", {DType::kFloat32, Shape({2})}});
  graph.nodes = {
      {"add1", "Add", {"x", "y"}, {"a"}, {}, {"add1"}},
      {"relu1", "Relu", {"a"}, {"r"}, {}, {"relu1"}},
      {"split1", "Split", {"r"}, {"s0", "s1"}, {}, {"split1"}},
      {"mul1", "Mul", {"s0", "s1"}, {"m"}, {}, {"mul_a", "mul_b"}},
      {"neg1", "Neg", {"m"}, {"out"}, {}, {"neg1"}},
  };
  absl::StatusOr<std::unique_ptr<CompiledModel>> model =
      CompiledModel::Compile(graph, BuiltinOps());
  EXPECT_TRUE(model.ok()) << model.status();
  return std::move(*model);
}

enum Step { kAdd, kRelu, kSplit, kMul, kNeg };

// A model-dump config over `dump_list` (the config parser is not involved:
// these are the policy's inputs as the parser builds them).
DumpConfig ModelDump(std::vector<DumpListEntry> dump_list,
                     DumpMode mode = DumpMode::kAll) {
  DumpConfig config;
  config.scene = DumpScene::kModel;
  config.mode = mode;
  config.level = DumpLevel::kOp;
  config.dump_list = std::move(dump_list);
  return config;
}

DumpListEntry Model(std::string name) {
  DumpListEntry entry;
  entry.model_name = std::move(name);
  return entry;
}

OpFilter Filter(std::string name, std::vector<std::string> positions = {}) {
  return OpFilter{std::move(name), std::move(positions)};
}

// The steps a plan dumps, by index.
std::vector<size_t> Dumped(const DumpPlan& plan) {
  std::vector<size_t> out;
  for (size_t s = 0; s < plan.dump_inputs.size(); ++s) {
    if (plan.dump_inputs[s] || plan.dump_outputs[s]) out.push_back(s);
  }
  return out;
}

class PolicyTest : public ::testing::Test {
 protected:
  std::unique_ptr<CompiledModel> model_ = ChainModel();
};

TEST_F(PolicyTest, WholeModelDumpsEveryStepAndItsDataInputs) {
  const DumpPlan plan = BuildDumpPlan(ModelDump({Model("chain")}), *model_, "");
  ASSERT_EQ(model_->steps().size(), 5u);
  EXPECT_TRUE(plan.selected);
  EXPECT_EQ(plan.model_name, "chain");
  EXPECT_EQ(plan.num_selected_steps, 5u);
  EXPECT_THAT(Dumped(plan), ElementsAre(kAdd, kRelu, kSplit, kMul, kNeg));
  for (size_t s = 0; s < 5; ++s) {
    EXPECT_EQ(plan.step_flags[s], kObserveBefore | kObserveAfter);
    EXPECT_THAT(plan.skipped_inputs[s], IsEmpty());
    EXPECT_THAT(plan.skipped_outputs[s], IsEmpty());
  }
  EXPECT_THAT(plan.data_inputs[kAdd], ElementsAre(0, 1));
  EXPECT_THAT(plan.data_inputs[kRelu], IsEmpty());
  EXPECT_THAT(plan.warnings, IsEmpty());
}

TEST_F(PolicyTest, NotSelectedWhenNoEntryNamesTheModel) {
  const DumpPlan plan = BuildDumpPlan(ModelDump({Model("other")}), *model_, "");
  EXPECT_FALSE(plan.selected);
  EXPECT_THAT(Dumped(plan), IsEmpty());
  EXPECT_EQ(plan.step_flags.size(), 5u);
  EXPECT_EQ(plan.skipped_inputs.size(), 5u);
  EXPECT_EQ(plan.skipped_outputs.size(), 5u);
}

TEST_F(PolicyTest, LayersByConvertedOrOriginalName) {
  DumpListEntry entry = Model("chain");
  entry.layers = {"relu1", "mul_b"};
  const DumpPlan plan =
      BuildDumpPlan(ModelDump({entry}, DumpMode::kOutput), *model_, "");
  EXPECT_THAT(Dumped(plan), ElementsAre(kRelu, kMul));
  EXPECT_EQ(plan.step_flags[kRelu], kObserveAfter);
  EXPECT_THAT(plan.warnings, IsEmpty());
}

TEST_F(PolicyTest, ALayerThatMatchesNothingSuggestsTheNearestNames) {
  DumpListEntry entry = Model("chain");
  entry.layers = {"relu2", "mul_c", "zzzzzzzz"};
  const DumpPlan plan = BuildDumpPlan(ModelDump({entry}), *model_, "chain");
  EXPECT_FALSE(plan.selected);
  ASSERT_EQ(plan.warnings.size(), 3u);
  EXPECT_EQ(plan.warnings[0],
            "layer 'relu2' matches no operator of model 'chain' (file "
            "'chain'); did you mean 'relu1'?; `dump check-config --model` "
            "lists the converted and original names");
  EXPECT_THAT(plan.warnings[1], HasSubstr("did you mean 'mul_a', 'mul_b'"));
  EXPECT_THAT(plan.warnings[2], ::testing::Not(HasSubstr("did you mean")));
}

TEST_F(PolicyTest, ManyUnmatchedLayersAreCounted) {
  DumpListEntry entry = Model("chain");
  entry.layers.emplace();
  for (int i = 0; i < 1000; ++i) entry.layers->push_back(StrCat("nosuch", i));
  entry.layers->push_back("neg1");
  const DumpPlan plan = BuildDumpPlan(ModelDump({entry}), *model_, "");
  EXPECT_THAT(Dumped(plan), ElementsAre(kNeg));
  ASSERT_EQ(plan.warnings.size(), 21u);
  EXPECT_EQ(plan.warnings.back(),
            "and 980 more layers match no operator of model 'chain'");
}

TEST_F(PolicyTest, OptypeBlacklistTakesWholeOperatorsOut) {
  DumpListEntry entry = Model("chain");
  entry.optype_blacklist = {Filter("Relu"), Filter("Neg", {})};
  const DumpPlan plan = BuildDumpPlan(ModelDump({entry}), *model_, "");
  EXPECT_THAT(Dumped(plan), ElementsAre(kAdd, kSplit, kMul));
  EXPECT_EQ(plan.step_flags[kRelu], kObserveNothing);
  EXPECT_EQ(plan.num_selected_steps, 3u);
}

TEST_F(PolicyTest, OpnameBlacklistMatchesConvertedAndOriginalNames) {
  DumpListEntry entry = Model("chain");
  entry.opname_blacklist = {Filter("mul_a"), Filter("add1")};
  const DumpPlan plan = BuildDumpPlan(ModelDump({entry}), *model_, "");
  EXPECT_THAT(Dumped(plan), ElementsAre(kRelu, kSplit, kNeg));
  // add1 is not dumped, so its graph inputs are not either.
  EXPECT_THAT(plan.data_inputs[kAdd], IsEmpty());
}

TEST_F(PolicyTest, PositionsTakeSingleTensorsOut) {
  DumpListEntry entry = Model("chain");
  entry.optype_blacklist = {Filter("Split", {"output1"}),
                            Filter("Add", {"input1", "input7"})};
  const DumpPlan plan = BuildDumpPlan(ModelDump({entry}), *model_, "");
  EXPECT_THAT(Dumped(plan), ElementsAre(kAdd, kRelu, kSplit, kMul, kNeg));
  EXPECT_THAT(plan.skipped_outputs[kSplit], ElementsAre(1u));
  EXPECT_THAT(plan.skipped_inputs[kSplit], IsEmpty());
  // Positions past the operator's tensors are ignored.
  EXPECT_THAT(plan.skipped_inputs[kAdd], ElementsAre(1u));
  EXPECT_THAT(plan.skipped_outputs[kAdd], IsEmpty());
  EXPECT_EQ(plan.dump_inputs[kAdd], 1);
  EXPECT_EQ(plan.dump_outputs[kSplit], 1);
}

TEST_F(PolicyTest, ExcludingEveryTensorOfASideTurnsThatSideOff) {
  DumpListEntry entry = Model("chain");
  entry.opname_blacklist = {Filter("mul_b", {"input0", "input1"}),
                            Filter("relu1", {"output0"})};
  const DumpPlan plan = BuildDumpPlan(ModelDump({entry}), *model_, "");
  EXPECT_EQ(plan.dump_inputs[kMul], 0);
  EXPECT_EQ(plan.dump_outputs[kMul], 1);
  EXPECT_THAT(plan.skipped_inputs[kMul], IsEmpty());
  EXPECT_EQ(plan.step_flags[kMul], kObserveAfter);
  EXPECT_EQ(plan.dump_inputs[kRelu], 1);
  EXPECT_EQ(plan.dump_outputs[kRelu], 0);
  EXPECT_EQ(plan.step_flags[kRelu], kObserveBefore);
  // With outputs only, a step whose only output is excluded dumps nothing.
  const DumpPlan outputs =
      BuildDumpPlan(ModelDump({entry}, DumpMode::kOutput), *model_, "");
  EXPECT_THAT(Dumped(outputs), ElementsAre(kAdd, kSplit, kMul, kNeg));
  EXPECT_EQ(outputs.num_selected_steps, 4u);
}

TEST_F(PolicyTest, PositionsOfAnotherFormOrWithoutANameExcludeNothing) {
  DumpListEntry entry = Model("chain");
  entry.optype_blacklist = {Filter("Relu", {"workspace0", "input_0", ""}),
                            Filter("", {"output0"}), Filter("")};
  const DumpPlan plan = BuildDumpPlan(ModelDump({entry}), *model_, "");
  EXPECT_THAT(Dumped(plan), ElementsAre(kAdd, kRelu, kSplit, kMul, kNeg));
  for (size_t s = 0; s < 5; ++s) {
    EXPECT_THAT(plan.skipped_inputs[s], IsEmpty());
    EXPECT_THAT(plan.skipped_outputs[s], IsEmpty());
  }
}

TEST_F(PolicyTest, DataOpsAreExcludedByTypeDataOrByInputName) {
  DumpListEntry by_type = Model("chain");
  by_type.optype_blacklist = {Filter("Data")};
  EXPECT_THAT(
      BuildDumpPlan(ModelDump({by_type}), *model_, "").data_inputs[kAdd],
      IsEmpty());
  DumpListEntry by_name = Model("chain");
  by_name.opname_blacklist = {Filter("x", {"output0"})};
  const DumpPlan plan = BuildDumpPlan(ModelDump({by_name}), *model_, "");
  EXPECT_THAT(plan.data_inputs[kAdd], ElementsAre(1));
  EXPECT_THAT(plan.warnings, IsEmpty());
}

TEST_F(PolicyTest, RangesSelectOperatorsInExecutionOrder) {
  DumpListEntry entry = Model("chain");
  entry.opname_range = {{"relu1", "mul_a"}};
  const DumpPlan plan = BuildDumpPlan(ModelDump({entry}), *model_, "");
  EXPECT_THAT(Dumped(plan), ElementsAre(kRelu, kSplit, kMul));
  EXPECT_THAT(plan.data_inputs[kAdd], IsEmpty());
  EXPECT_THAT(plan.warnings, IsEmpty());
  // Several ranges, and layers besides, are a union.
  entry.opname_range = {{"add1", "add1"}, {"mul_b", "neg1"}};
  entry.layers = {"relu1"};
  EXPECT_THAT(Dumped(BuildDumpPlan(ModelDump({entry}), *model_, "")),
              ElementsAre(kAdd, kRelu, kMul, kNeg));
}

TEST_F(PolicyTest, ARangeWithAnUnmatchedEndDumpsNothingAndSaysWhy) {
  DumpListEntry entry = Model("chain");
  entry.opname_range = {{"relu1", "mul_z"}, {"x", "relu1"}, {"neg1", "add1"}};
  const DumpPlan plan = BuildDumpPlan(ModelDump({entry}), *model_, "");
  EXPECT_FALSE(plan.selected);
  ASSERT_EQ(plan.warnings.size(), 3u);
  EXPECT_THAT(plan.warnings[0],
              HasSubstr("dump_list[0].opname_range[0] ('relu1' to 'mul_z') of "
                        "model 'chain': end 'mul_z' matches no operator; did "
                        "you mean 'mul_a', 'mul_b'"));
  EXPECT_THAT(plan.warnings[0], HasSubstr("the range dumps nothing"));
  EXPECT_THAT(plan.warnings[1],
              HasSubstr("begin 'x' is a graph input (a Data op), which cannot "
                        "bound a range; the range dumps nothing"));
  EXPECT_THAT(plan.warnings[2],
              HasSubstr("begin runs after end (task 4 after task 0); the "
                        "range dumps nothing: swap begin and end"));
}

TEST_F(PolicyTest, EntriesWithoutModelNameApplyToEveryModel) {
  DumpListEntry global;  // every operator of every model, minus Neg
  global.optype_blacklist = {Filter("Neg")};
  DumpListEntry other = Model("other");
  other.optype_blacklist = {Filter("Relu")};  // another model's: ignored
  const DumpPlan plan =
      BuildDumpPlan(ModelDump({other, global}), *model_, "chain");
  EXPECT_TRUE(plan.selected);
  EXPECT_EQ(plan.model_name, "chain");
  EXPECT_THAT(Dumped(plan), ElementsAre(kAdd, kRelu, kSplit, kMul));
  // A global layer list plus the named entry's layers.
  DumpListEntry layers;
  layers.layers = {"split1"};
  DumpListEntry named = Model("chain");
  named.layers = {"neg1"};
  EXPECT_THAT(Dumped(BuildDumpPlan(ModelDump({layers, named}), *model_, "")),
              ElementsAre(kSplit, kNeg));
}

TEST_F(PolicyTest, BlacklistNamesThatMatchNothingAreWarnedAbout) {
  DumpListEntry entry = Model("chain");
  entry.optype_blacklist = {Filter("Conv2D")};
  entry.opname_blacklist = {Filter("relu_1")};
  const DumpPlan plan = BuildDumpPlan(ModelDump({entry}), *model_, "");
  EXPECT_EQ(plan.num_selected_steps, 5u);
  EXPECT_THAT(plan.warnings,
              Contains(HasSubstr("optype_blacklist type 'Conv2D' matches no "
                                 "operator of model 'chain'")));
  EXPECT_THAT(plan.warnings,
              Contains(HasSubstr("opname_blacklist name 'relu_1' matches no "
                                 "operator of model 'chain'; did you mean "
                                 "'relu1'?")));
}

TEST_F(PolicyTest, OnlyModelDumpConfigsPlanAnything) {
  DumpConfig config = ModelDump({Model("chain")});
  config.scene = DumpScene::kOverflow;
  EXPECT_FALSE(BuildDumpPlan(config, *model_, "").selected);
  config.scene = DumpScene::kOff;
  EXPECT_FALSE(BuildDumpPlan(config, *model_, "").selected);
}

// The bundled ResNet-style model, converted with fusion: conv1 + bn1 + relu1
// is one operator.
TEST(PolicyResnetTest, RangeAndBlacklistOnAConvertedModel) {
  absl::StatusOr<Graph> graph = ConvertOnnxFile("testdata/resnet_tiny.onnx");
  ASSERT_TRUE(graph.ok()) << graph.status();
  auto model = CompiledModel::Compile(*graph, BuiltinOps());
  ASSERT_TRUE(model.ok()) << model.status();
  const std::vector<StepInfo>& steps = (*model)->steps();
  const auto step_of = [&steps](std::string_view name) {
    for (size_t s = 0; s < steps.size(); ++s) {
      if (steps[s].name == name) return s;
      for (const std::string& original : steps[s].original_names) {
        if (original == name) return s;
      }
    }
    ADD_FAILURE() << name;
    return size_t{0};
  };
  const size_t first = step_of("relu1");  // fused into conv1bn1relu1
  const size_t last = step_of("relu2");
  ASSERT_LT(first, last);

  DumpListEntry entry = Model("resnet_tiny");
  entry.opname_range = {{"relu1", "relu2"}};
  entry.optype_blacklist = {Filter("MaxPool")};
  const DumpPlan plan =
      BuildDumpPlan(ModelDump({entry}), **model, "resnet_tiny");
  EXPECT_THAT(plan.warnings, IsEmpty());
  for (size_t s = 0; s < steps.size(); ++s) {
    const bool in_range = s >= first && s <= last;
    const bool dumped = plan.dump_inputs[s] || plan.dump_outputs[s];
    EXPECT_EQ(dumped, in_range && steps[s].op_type != "MaxPool")
        << steps[s].name;
  }
  // The first operator reads the graph input: dumped as a data op.
  EXPECT_THAT(plan.data_inputs[first], ElementsAre(0));
  // flatten is a no-task node: it cannot bound a range.
  entry.opname_range = {{"flatten", "fc"}};
  const DumpPlan no_task =
      BuildDumpPlan(ModelDump({entry}), **model, "resnet_tiny");
  EXPECT_FALSE(no_task.selected);
  ASSERT_EQ(no_task.warnings.size(), 1u);
  EXPECT_THAT(no_task.warnings[0],
              HasSubstr("begin 'flatten' is a Flatten node that does not run"));
}

}  // namespace
}  // namespace acldump::dump
