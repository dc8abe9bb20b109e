// Dynamic models: gear options parsed and checked as the SDK's converter does,
// one plan per gear in the model file, and a loaded model that runs each gear
// exactly as a static conversion at that shape.
#include "runtime/gears.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>

#include "base/error_kind.h"
#include "base/strings.h"
#include "kernels/ops.h"
#include "runtime/converter.h"
#include "runtime/geared_model.h"
#include "runtime/model.pb.h"
#include "runtime/model_file.h"
#include "runtime/model_loader.h"

namespace acldump {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kOcr[] = "testdata/ocr_tiny.onnx";  // x: [batch,3,height,width]

std::string Message(const absl::Status& status) {
  return std::string(status.message());
}

TEST(GearOptionsTest, ParsesTheConvertersForms) {
  absl::StatusOr<GearValues> batch = ParseDynamicBatchSizes(" 1,2, 4,8,");
  ASSERT_TRUE(batch.ok()) << batch.status();
  EXPECT_THAT(*batch, ElementsAre(ElementsAre(1), ElementsAre(2),
                                  ElementsAre(4), ElementsAre(8)));
  absl::StatusOr<GearValues> hw = ParseDynamicImageSizes("224,224; 320,256;");
  ASSERT_TRUE(hw.ok()) << hw.status();
  EXPECT_THAT(*hw, ElementsAre(ElementsAre(224, 224), ElementsAre(320, 256)));
}

TEST(GearOptionsTest, RejectsBadGearsWithTheReason) {
  const std::pair<const char*, const char*> batch_cases[] = {
      {"4", "1 gear given; give 2 to 100"},
      {"1,a", "'a' is not an integer"},
      {"1,,2", "'' is not an integer"},
      {"1,2,2", "gear [2] is given twice"},
      {"0,2", "gear 0 [0]: values must be positive"},
      {"-1,2", "values must be positive"},
      {"1.5,2", "'1.5' is not an integer"},
  };
  for (const auto& [text, reason] : batch_cases) {
    absl::StatusOr<GearValues> gears = ParseDynamicBatchSizes(text);
    ASSERT_FALSE(gears.ok()) << text;
    EXPECT_THAT(Message(gears.status()), HasSubstr(reason)) << text;
    EXPECT_THAT(Message(gears.status()), HasSubstr("--dynamic-batch-size"));
  }
  const std::pair<const char*, const char*> hw_cases[] = {
      {"224,224", "1 gear given"},
      {"224,224;320", "gear 1 has 1 values; each image size gear has 2"},
      {"224,224,3;320,320", "gear 0 has 3 values"},
      {"224,224;224,224", "gear [224,224] is given twice"},
  };
  for (const auto& [text, reason] : hw_cases) {
    absl::StatusOr<GearValues> gears = ParseDynamicImageSizes(text);
    ASSERT_FALSE(gears.ok()) << text;
    EXPECT_THAT(Message(gears.status()), HasSubstr(reason)) << text;
  }
  std::string many;
  for (int i = 1; i <= 101; ++i) many += std::to_string(i) + ",";
  EXPECT_THAT(Message(ParseDynamicBatchSizes(many).status()),
              HasSubstr("101 gears given; give 2 to 100"));
}

TEST(GearOptionsTest, DynamicDimensionsGoWhereTheKindAllows) {
  EXPECT_EQ(*CheckDynamicDims(GearKind::kBatch, "x", {-1, 3, 8, 8}), true);
  EXPECT_EQ(*CheckDynamicDims(GearKind::kBatch, "x", {1, 3, 8, 8}), false);
  EXPECT_THAT(
      Message(CheckDynamicDims(GearKind::kBatch, "x", {1, -1}).status()),
      HasSubstr("only dimension 0 (the batch) may be -1"));
  EXPECT_EQ(*CheckDynamicDims(GearKind::kImageSize, "x", {1, 3, -1, -1}), true);
  EXPECT_EQ(*CheckDynamicDims(GearKind::kImageSize, "x", {1, -1, -1, 3}), true);
  EXPECT_THAT(
      Message(
          CheckDynamicDims(GearKind::kImageSize, "x", {1, -1, -1}).status()),
      HasSubstr("4-D with -1 in height and width only"));
  EXPECT_THAT(
      Message(CheckDynamicDims(GearKind::kImageSize, "x", {-1, 3, -1, -1})
                  .status()),
      HasSubstr("input 'x' [-1,3,-1,-1]"));
  EXPECT_THAT(DimsForGear({-1, 3, 8, 8}, {4}), ElementsAre(4, 3, 8, 8));
  EXPECT_THAT(DimsForGear({1, 3, -1, -1}, {32, 24}), ElementsAre(1, 3, 32, 24));
  EXPECT_EQ(LargestGear({{8, 8}, {16, 8}, {4, 16}, {2, 2}, {8, 16}}), 1u);
}

GearOptions Batches(GearValues values) {
  return GearOptions{GearKind::kBatch, std::move(values)};
}

ImportOptions Shapes(const char* text) {
  ImportOptions options;
  options.input_shapes = *ParseInputShapes(text);
  return options;
}

TEST(ConvertGearsTest, BadRequestsAreClearErrors) {
  const struct {
    const char* shapes;
    GearOptions gears;
    const char* reason;
  } cases[] = {
      {"x:1,3,16,16", Batches({{1}, {2}}),
       "no input has a dynamic dimension; mark them -1 with --input-shape"},
      {"x:-1,3,-1,16", Batches({{1}, {2}}),
       "input 'x' [-1,3,-1,16]: with dynamic batch sizes only dimension 0"},
      {"x:1,3,-1,-1",
       {GearKind::kImageSize, {{3, 4}, {16, 16}}},
       "image size gear [3,4]: node 'fpn_add' (Add)"},
      {"x:-1,3,16,16", Batches({{1}}), "dynamic batch: 1 gear given"},
      {"y:-1,3,16,16", Batches({{1}, {2}}), "--input-shape names 'y'"},
      {"x:-1,3,16", Batches({{1}, {2}}), "gives input 'x' 3 dimensions"},
      {"x:-1,4,16,16", Batches({{1}, {2}}), "declares it static as 3"},
  };
  for (const auto& c : cases) {
    absl::StatusOr<Graph> graph =
        ConvertOnnxFile(kOcr, {}, Shapes(c.shapes), c.gears);
    ASSERT_FALSE(graph.ok()) << c.shapes;
    EXPECT_THAT(Message(graph.status()), HasSubstr(c.reason)) << c.shapes;
  }
  // -1 without gears.
  absl::StatusOr<Graph> graph =
      ConvertOnnxFile(kOcr, {}, Shapes("x:-1,3,16,16"));
  ASSERT_FALSE(graph.ok());
  EXPECT_THAT(Message(graph.status()),
              HasSubstr("= -1 (dynamic), which needs --dynamic-batch-size, "
                        "--dynamic-image-size or --dynamic-dims"));
}

absl::StatusOr<Graph> BatchModel() {
  return ConvertOnnxFile(kOcr, {}, Shapes("x:-1,3,16,16"),
                         Batches({{2}, {1}, {4}}));
}

TEST(ConvertGearsTest, OnePlanPerGearWithSharedWeights) {
  absl::StatusOr<Graph> graph = BatchModel();
  ASSERT_TRUE(graph.ok()) << graph.status();
  ASSERT_TRUE(graph->dynamic());
  ASSERT_EQ(graph->gears.size(), 3u);
  EXPECT_THAT(graph->inputs[0].info.shape.dims(), ElementsAre(-1, 3, 16, 16));
  // Outputs at the largest gear (4), gears in the order given.
  EXPECT_THAT(graph->outputs[0].info.shape.dims(), ElementsAre(4, 4, 24, 24));
  EXPECT_THAT(graph->gears[1].values, ElementsAre(1));
  EXPECT_THAT(graph->gears[1].graph->inputs[0].info.shape.dims(),
              ElementsAre(1, 3, 16, 16));
  // Weights are stored once in the file, not once per gear.
  const std::string bytes = SerializeModelVersion1(*graph);
  om::Model proto;
  ASSERT_TRUE(proto.ParseFromString(bytes.substr(kModelMagicV1.size())));
  EXPECT_EQ(proto.gear_kind(), om::GEAR_BATCH);
  ASSERT_EQ(proto.gears_size(), 3);
  EXPECT_GT(proto.initializers_size(), 0);
  for (const om::Gear& gear : proto.gears())
    EXPECT_EQ(gear.initializers_size(), 0);
  absl::StatusOr<Graph> reparsed = ParseModel(bytes);
  ASSERT_TRUE(reparsed.ok()) << reparsed.status();
  EXPECT_EQ(SerializeModelVersion1(*reparsed), bytes);
  // A gear's graph reads the shared weights: the same tensors in every gear.
  const auto& a = reparsed->gears[0].graph->initializers;
  const auto& b = reparsed->gears[2].graph->initializers;
  ASSERT_FALSE(a.empty());
  for (const auto& [name, tensor] : a) {
    ASSERT_TRUE(b.count(name)) << name;
    EXPECT_EQ(b.at(name).get(), tensor.get()) << name;
  }
}

// Byte-level edits of a valid dynamic model file must fail with the reason.
TEST(ConvertGearsTest, InconsistentDynamicModelFilesAreRejected) {
  absl::StatusOr<Graph> graph = BatchModel();
  ASSERT_TRUE(graph.ok()) << graph.status();
  om::Model valid;
  ASSERT_TRUE(valid.ParseFromString(
      SerializeModelVersion1(*graph).substr(kModelMagicV1.size())));
  const struct {
    const char* reason;
    void (*edit)(om::Model&);
  } cases[] = {
      {"unknown gear kind 7",
       [](om::Model& m) { m.set_gear_kind(static_cast<om::GearKind>(7)); }},
      {"gears: 1 gear given",
       [](om::Model& m) {
         m.mutable_gears()->RemoveLast(), m.mutable_gears()->RemoveLast();
       }},
      {"gear [1] is given twice",
       [](om::Model& m) { m.mutable_gears(0)->set_values(0, 1); }},
      {"gear 0: input 0 is 'x' float32[2,3,16,16], the gear needs 'x' "
       "float32[4,3,16,16]",
       [](om::Model& m) {
         m.mutable_gears(0)->set_values(0, 4);
         m.mutable_gears(2)->set_values(0, 2);
       }},
      {"only dimension 0 (the batch) may be -1",
       [](om::Model& m) { m.mutable_inputs(0)->set_dims(1, -1); }},
      {"no input with a -1 dimension",
       [](om::Model& m) { m.mutable_inputs(0)->set_dims(0, 2); }},
      {"keeps its nodes in its gears",
       [](om::Model& m) { *m.add_nodes() = m.gears(0).nodes(0); }},
      {"gear 0: initializer",
       [](om::Model& m) {
         *m.mutable_gears(0)->add_initializers() = m.initializers(0);
       }},
      {"its shape is not the largest gear's",
       [](om::Model& m) { m.mutable_outputs(0)->set_dims(0, 2); }},
      {"gear 1: node",
       [](om::Model& m) {
         m.mutable_gears(1)->mutable_nodes(0)->set_inputs(0, "nowhere");
       }},
  };
  for (const auto& c : cases) {
    om::Model edited = valid;
    c.edit(edited);
    std::string bytes(kModelMagicV1);
    edited.AppendToString(&bytes);
    absl::StatusOr<Graph> parsed = ParseModel(bytes);
    ASSERT_FALSE(parsed.ok()) << c.reason;
    EXPECT_THAT(Message(parsed.status()), HasSubstr(c.reason));
  }
}

std::vector<float> RandomInput(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal;
  std::vector<float> values(n);
  for (float& v : values) v = normal(rng);
  return values;
}

// Runs a static model on `input`; returns its one output.
std::vector<float> RunStatic(CompiledModel& model,
                             const std::vector<float>& input) {
  const TensorInfo& out = model.graph().outputs[0].info;
  std::vector<float> output(out.shape.NumElements());
  const HostBuffer in[] = {{input.data(), input.size() * 4}};
  const MutableHostBuffer outs[] = {{output.data(), output.size() * 4}};
  EXPECT_TRUE(model.Execute(in, outs).ok());
  return output;
}

TEST(GearedModelTest, EachGearRunsAsTheStaticConversionAtItsShape) {
  absl::StatusOr<Graph> graph = BatchModel();
  ASSERT_TRUE(graph.ok()) << graph.status();
  auto model = LoadModel(ModelSource::Memory(SerializeModel(*graph)));
  ASSERT_TRUE(model.ok()) << model.status();
  GearedModel& geared = **model;
  ASSERT_EQ(geared.num_plans(), 3u);
  EXPECT_EQ(geared.largest_gear(), 2u);
  EXPECT_EQ(geared.CallerInputs().back().name, kGearInputName);
  EXPECT_EQ(geared.CallerInputs().back().info.ByteSize(), 8u);
  std::vector<float> output(4 * 4 * 24 * 24);
  for (int64_t batch : {1, 4, 2}) {
    SCOPED_TRACE(batch);
    const std::vector<float> input = RandomInput(batch * 3 * 16 * 16, batch);
    const int64_t gear_value = batch;
    const HostBuffer in[] = {{input.data(), input.size() * 4},
                             {&gear_value, 8}};
    const MutableHostBuffer out[] = {{output.data(), output.size() * 4}};
    ASSERT_TRUE(geared.Execute(in, out).ok());
    auto reference = ConvertOnnxFile(
        kOcr, {}, Shapes(("x:" + std::to_string(batch) + ",3,16,16").c_str()));
    ASSERT_TRUE(reference.ok()) << reference.status();
    auto compiled = CompiledModel::Compile(*reference, BuiltinOps());
    ASSERT_TRUE(compiled.ok()) << compiled.status();
    const std::vector<float> expected = RunStatic(**compiled, input);
    ASSERT_EQ(std::memcmp(output.data(), expected.data(), expected.size() * 4),
              0);
  }
  // Iterations are numbered across the plans.
  EXPECT_EQ(geared.plan(0).iteration(), 3u);  // gear 2 ran last, as number 2
  EXPECT_EQ(geared.plan(1).iteration(), 1u);
  EXPECT_EQ(geared.plan(2).iteration(), 2u);
  // A rejected call (an output too small for gear 4) is no iteration.
  const std::vector<float> input(4 * 3 * 16 * 16);
  const int64_t four = 4;
  const HostBuffer in[] = {{input.data(), input.size() * 4}, {&four, 8}};
  const MutableHostBuffer small[] = {{output.data(), 4}};
  EXPECT_EQ(KindOf(geared.Execute(in, small)), ErrorKind::kModelOutputNotMatch);
  EXPECT_EQ(geared.plan(2).iteration(), 2u);
  const MutableHostBuffer out[] = {{output.data(), output.size() * 4}};
  ASSERT_TRUE(geared.Execute(in, out).ok());
  EXPECT_EQ(geared.plan(2).iteration(), 4u);  // number 3
}

TEST(GearedModelTest, TheGearInputSelectsThePlan) {
  absl::StatusOr<Graph> graph = BatchModel();
  ASSERT_TRUE(graph.ok()) << graph.status();
  auto model = GearedModel::Compile(*std::move(graph), BuiltinOps());
  ASSERT_TRUE(model.ok()) << model.status();
  const float x = 0;
  auto select = [&](const void* gear, size_t size) {
    const HostBuffer in[] = {{&x, 4}, {gear, size}};
    return (*model)->SelectPlan(in);
  };
  const uint64_t wide[] = {4};
  EXPECT_EQ(*select(wide, 8), 2u);
  const uint32_t narrow[] = {1};  // the SDK's 4-byte form
  EXPECT_EQ(*select(narrow, 4), 1u);
  const uint64_t zero[] = {0};  // never set: the largest gear
  EXPECT_EQ(*select(zero, 8), 2u);
  const uint64_t three[] = {3};
  absl::StatusOr<size_t> none = select(three, 8);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(KindOf(none.status()), ErrorKind::kGearInvalid);
  EXPECT_THAT(Message(none.status()),
              HasSubstr("selects batch [3], which model 'ocr_tiny' does not "
                        "have (gears: [2] [1] [4])"));
  absl::StatusOr<size_t> short_input = select(narrow, 2);
  ASSERT_FALSE(short_input.ok());
  EXPECT_EQ(KindOf(short_input.status()), ErrorKind::kModelInputNotMatch);
  const HostBuffer only_x[] = {{&x, 4}};
  EXPECT_EQ(KindOf((*model)->SelectPlan(only_x).status()),
            ErrorKind::kModelInputNotMatch);
}

TEST(GearedModelTest, CallerMemoryIsSharedWorkAndEveryPlansWeights) {
  absl::StatusOr<Graph> graph = BatchModel();
  ASSERT_TRUE(graph.ok()) << graph.status();
  auto model = GearedModel::Compile(*std::move(graph), BuiltinOps());
  ASSERT_TRUE(model.ok()) << model.status();
  GearedModel& geared = **model;
  size_t largest_work = 0;
  size_t weights = 0;
  for (size_t i = 0; i < geared.num_plans(); ++i) {
    largest_work =
        std::max(largest_work, geared.plan(i).memory_plan().work_bytes());
    weights += AlignToPlan(geared.plan(i).memory_plan().weight_bytes);
  }
  EXPECT_EQ(geared.work_bytes(), largest_work);
  EXPECT_EQ(geared.weight_bytes(), weights);
  EXPECT_THAT(Message(geared.BindMemory(nullptr, 0, &weights, 1)),
              HasSubstr("weight memory of 1 bytes is too small"));
  AlignedBuffer work(geared.work_bytes());
  AlignedBuffer weight_memory(geared.weight_bytes());
  ASSERT_TRUE(geared
                  .BindMemory(work.data(), work.size(), weight_memory.data(),
                              weight_memory.size())
                  .ok());
  const std::vector<float> input = RandomInput(2 * 3 * 16 * 16, 7);
  std::vector<float> output(4 * 4 * 24 * 24, -1.0f);
  const uint64_t two = 2;
  const HostBuffer in[] = {{input.data(), input.size() * 4}, {&two, 8}};
  const MutableHostBuffer out[] = {{output.data(), output.size() * 4}};
  ASSERT_TRUE(geared.Execute(in, out).ok());
  EXPECT_NE(output[0], -1.0f);
}

TEST(GearedModelTest, TheMemoryLimitCountsEveryGear) {
  absl::StatusOr<Graph> graph = BatchModel();
  ASSERT_TRUE(graph.ok()) << graph.status();
  auto model = GearedModel::Compile(*graph, BuiltinOps());
  ASSERT_TRUE(model.ok()) << model.status();
  // Enough for the largest plan alone, not for the model.
  size_t largest = 0;
  for (size_t i = 0; i < (*model)->num_plans(); ++i) {
    const MemoryPlanStats& stats = (*model)->plan(i).memory_plan();
    largest = std::max(largest, stats.arena_bytes + stats.workspace_bytes +
                                    stats.weight_bytes);
  }
  CompileOptions options;
  options.max_memory_bytes = largest;
  auto limited = GearedModel::Compile(*std::move(graph), BuiltinOps(), options);
  ASSERT_FALSE(limited.ok());
  EXPECT_EQ(KindOf(limited.status()), ErrorKind::kOutOfMemory);
  EXPECT_THAT(Message(limited.status()),
              HasSubstr("model 'ocr_tiny (3 gears)' needs"));
}

TEST(DimsGearsTest, ParsedAndSpreadOverTheInputsInOrder) {
  absl::StatusOr<GearValues> dims = ParseDynamicDims("20,20,1,1; 40,40,2,2;");
  ASSERT_TRUE(dims.ok()) << dims.status();
  EXPECT_THAT(
      *dims, ElementsAre(ElementsAre(20, 20, 1, 1), ElementsAre(40, 40, 2, 2)));
  const std::pair<const char*, const char*> bad[] = {
      {"20,1", "1 gear given"},
      {"20,1;40", "gear 1 has 1 values; each dims gear has 2"},
      {"20,1;20,1", "gear [20,1] is given twice"},
      {"20,0;40,2", "values must be positive"},
  };
  for (const auto& [text, reason] : bad) {
    absl::StatusOr<GearValues> gears = ParseDynamicDims(text);
    ASSERT_FALSE(gears.ok()) << text;
    EXPECT_THAT(Message(gears.status()), HasSubstr(reason)) << text;
    EXPECT_THAT(Message(gears.status()), HasSubstr("--dynamic-dims"));
  }
  // The SDK's example: data (1,1,40,-1), label (1,-1), mask (-1,-1).
  const std::vector<NamedTensorInfo> inputs = {
      {"data", TensorInfo{DType::kFloat32, Shape{1, 1, 40, -1}}},
      {"label", TensorInfo{DType::kFloat32, Shape{1, -1}}},
      {"mask", TensorInfo{DType::kFloat32, Shape{-1, -1}}},
  };
  EXPECT_EQ(CountDynamicDims(inputs), 4u);
  EXPECT_THAT(InputDimsForGear(GearKind::kDims, inputs, {20, 20, 1, 1}),
              ElementsAre(ElementsAre(1, 1, 40, 20), ElementsAre(1, 20),
                          ElementsAre(1, 1)));
  EXPECT_TRUE(CheckDimsGearArity(inputs, {{80, 60, 4, 4}, {1, 2, 3, 4}}).ok());
  EXPECT_THAT(Message(CheckDimsGearArity(inputs, {{1, 2}, {3, 4}})),
              HasSubstr("each dims gear has 2 values, but the inputs "
                        "(data:[1,1,40,-1] label:[1,-1] mask:[-1,-1]) have 4 "
                        "dynamic dimensions"));
  // Any -1 is allowed with dims gears.
  EXPECT_EQ(*CheckDynamicDims(GearKind::kDims, "x", {-1, 3, -1}), true);
}

absl::StatusOr<Graph> DimsModel() {
  return ConvertOnnxFile(kOcr, {}, Shapes("x:-1,3,-1,-1"),
                         {GearKind::kDims, {{1, 16, 16}, {2, 24, 16}}});
}

TEST(DimsGearsTest, ConvertedLoadedAndEachGearRunsAsTheStaticConversion) {
  absl::StatusOr<Graph> graph = DimsModel();
  ASSERT_TRUE(graph.ok()) << graph.status();
  EXPECT_EQ(graph->gear_kind, GearKind::kDims);
  const std::string bytes = SerializeModel(*graph);
  om::Model proto;
  ASSERT_TRUE(proto.ParseFromString(
      SerializeModelVersion1(*graph).substr(kModelMagicV1.size())));
  EXPECT_EQ(proto.gear_kind(), om::GEAR_DIMS);
  auto model = LoadModel(ModelSource::Memory(bytes));
  ASSERT_TRUE(model.ok()) << model.status();
  GearedModel& geared = **model;
  EXPECT_EQ(geared.gear_arity(), 3u);
  EXPECT_EQ(geared.CallerInputs().back().info.ByteSize(), 24u);
  EXPECT_EQ(geared.largest_gear(), 1u);
  for (const std::vector<int64_t>& gear : geared.gears()) {
    SCOPED_TRACE(gear[0]);
    const size_t n = gear[0] * 3 * gear[1] * gear[2];
    const std::vector<float> input = RandomInput(n, n);
    std::vector<float> output(
        geared.CallerOutputs()[0].info.shape.NumElements());
    const HostBuffer in[] = {{input.data(), input.size() * 4},
                             {gear.data(), 24}};
    const MutableHostBuffer out[] = {{output.data(), output.size() * 4}};
    ASSERT_TRUE(geared.Execute(in, out).ok());
    auto reference = ConvertOnnxFile(
        kOcr, {},
        Shapes(StrCat("x:", gear[0], ",3,", gear[1], ",", gear[2]).c_str()));
    ASSERT_TRUE(reference.ok()) << reference.status();
    auto compiled = CompiledModel::Compile(*reference, BuiltinOps());
    ASSERT_TRUE(compiled.ok()) << compiled.status();
    const std::vector<float> expected = RunStatic(**compiled, input);
    ASSERT_EQ(std::memcmp(output.data(), expected.data(), expected.size() * 4),
              0);
  }
  const int64_t missing[] = {1, 24, 24};
  const HostBuffer only[] = {{nullptr, 0}, {missing, 24}};
  absl::StatusOr<size_t> none = geared.SelectPlan(only);
  ASSERT_FALSE(none.ok());
  EXPECT_THAT(Message(none.status()),
              HasSubstr("selects dims [1,24,24], which model 'ocr_tiny' does "
                        "not have (gears: [1,16,16] [2,24,16]); set it with "
                        "aclmdlSetInputDynamicDims"));
  // Gears whose count of values is not the inputs' -1s.
  absl::StatusOr<Graph> wrong =
      ConvertOnnxFile(kOcr, {}, Shapes("x:1,3,-1,-1"),
                      {GearKind::kDims, {{1, 16, 16}, {2, 24, 16}}});
  ASSERT_FALSE(wrong.ok());
  EXPECT_THAT(Message(wrong.status()),
              HasSubstr("--dynamic-dims: each dims gear has 3 values, but the "
                        "inputs (x:[1,3,-1,-1]) have 2"));
}

// A two-input dims model: y = Concat(a [A,4], b [B,4]) for gears (A,B).
Graph ConcatDimsModel(const GearValues& gears) {
  const auto info = [](int64_t rows) {
    return TensorInfo{DType::kFloat32, Shape{rows, 4}};
  };
  Graph model;
  model.name = "concat";
  model.source_opset = 13;
  model.gear_kind = GearKind::kDims;
  model.inputs = {{"a", info(-1)}, {"b", info(-1)}};
  std::vector<std::vector<NamedTensorInfo>> outputs;
  for (const std::vector<int64_t>& gear : gears) {
    auto plan = std::make_shared<Graph>();
    plan->name = model.name;
    plan->source_opset = 13;
    plan->inputs = {{"a", info(gear[0])}, {"b", info(gear[1])}};
    plan->outputs = {{"y", info(gear[0] + gear[1])}};
    GraphNode concat;
    concat.name = "concat";
    concat.op_type = "Concat";
    concat.inputs = {"a", "b"};
    concat.outputs = {"y"};
    concat.attrs.Set("axis", int64_t{0});
    concat.original_names = {"concat"};
    plan->nodes = {concat};
    outputs.push_back(plan->outputs);
    model.gears.push_back(Gear{gear, std::move(plan)});
  }
  model.outputs = GearsEnvelope(GearKind::kDims, outputs, LargestGear(gears));
  return model;
}

TEST(DimsGearsTest, BuffersFitEveryGearWhenInputsDoNotGrowTogether) {
  // Gear [2,6] has the largest product, but gear [8,1] needs more rows of a
  // and of the output.
  const GearValues gears = {{8, 1}, {2, 6}};
  absl::StatusOr<Graph> parsed =
      ParseModel(SerializeModel(ConcatDimsModel(gears)));
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_THAT(parsed->outputs[0].info.shape.dims(), ElementsAre(9, 4));
  auto model = LoadModel(ModelSource::Memory(SerializeModel(*parsed)));
  ASSERT_TRUE(model.ok()) << model.status();
  GearedModel& geared = **model;
  const std::vector<NamedTensorInfo> inputs = geared.CallerInputs();
  EXPECT_THAT(inputs[0].info.shape.dims(), ElementsAre(8, 4));
  EXPECT_THAT(inputs[1].info.shape.dims(), ElementsAre(6, 4));
  EXPECT_THAT(geared.CallerOutputs()[0].info.shape.dims(), ElementsAre(9, 4));
  for (const std::vector<int64_t>& gear : gears) {
    SCOPED_TRACE(gear[0]);
    std::vector<float> a(8 * 4), b(6 * 4), y(9 * 4, -1);
    for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(i);
    for (size_t i = 0; i < b.size(); ++i) b[i] = 100.0f + i;
    const HostBuffer in[] = {
        {a.data(), a.size() * 4}, {b.data(), b.size() * 4}, {gear.data(), 16}};
    const MutableHostBuffer out[] = {{y.data(), y.size() * 4}};
    ASSERT_TRUE(geared.Execute(in, out).ok());
    // y = the gear's rows of a, then its rows of b.
    const size_t rows_a = gear[0] * 4, rows_b = gear[1] * 4;
    EXPECT_TRUE(std::equal(a.begin(), a.begin() + rows_a, y.begin()));
    EXPECT_TRUE(std::equal(b.begin(), b.begin() + rows_b, y.begin() + rows_a));
  }
  // The file's output must be that envelope.
  Graph wrong = ConcatDimsModel(gears);
  wrong.outputs[0].info.shape = Shape{8, 4};
  EXPECT_THAT(Message(ParseModel(SerializeModel(wrong)).status()),
              HasSubstr("its shape is not the largest of the gears'"));
  // Together the inputs may have at most 128 dimensions.
  std::vector<NamedTensorInfo> wide(
      33, {"x", TensorInfo{DType::kFloat32, Shape{1, 1, 1, -1}}});
  EXPECT_THAT(Message(CheckDimsGearArity(wide, {{1}, {2}})),
              HasSubstr("the inputs have 132 dimensions together"));
}

TEST(GearedModelTest, StaticToolsSayTheModelIsDynamic) {
  absl::StatusOr<Graph> graph = BatchModel();
  ASSERT_TRUE(graph.ok()) << graph.status();
  auto model = LoadStaticModel(ModelSource::Memory(SerializeModel(*graph)));
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(KindOf(model.status()), ErrorKind::kParseModel);
  EXPECT_THAT(Message(model.status()),
              HasSubstr("model 'ocr_tiny' is dynamic (3 batch gears)"));
}

}  // namespace
}  // namespace acldump
