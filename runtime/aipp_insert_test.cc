// --insert-op-conf: the SDK converter's AIPP configs become Aipp nodes whose
// model runs exactly as the unmodified model on the preprocessed input.
#include "runtime/aipp_insert.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "kernels/aipp.h"
#include "kernels/ops.h"
#include "runtime/compiled_model.h"
#include "runtime/converter.h"
#include "runtime/model_file.h"

namespace acldump {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kModel[] = "testdata/resnet_tiny.onnx";  // input [1,3,32,32]

// A YUV420SP camera frame 40x36, cropped to 32x30 at (4,2), padded by one row
// above and below, converted to RGB (BT.601), normalised per channel.
constexpr char kStaticConf[] = "testdata/aipp/yuv420sp_static.cfg";

std::string Message(const absl::Status& status) {
  return std::string(status.message());
}

absl::StatusOr<Graph> Converted() { return ConvertOnnxFile(kModel); }

std::vector<float> RunModel(CompiledModel& model, const void* input,
                            size_t bytes, size_t output) {
  std::vector<float> out(model.graph().outputs[output].info.NumElements());
  std::vector<std::vector<float>> all;
  std::vector<MutableHostBuffer> outs;
  for (const auto& o : model.graph().outputs) {
    all.emplace_back(o.info.NumElements());
    outs.push_back({all.back().data(), all.back().size() * 4});
  }
  const HostBuffer in[] = {{input, bytes}};
  EXPECT_TRUE(model.Execute(in, outs).ok());
  return all[output];
}

TEST(AippInsertTest, StaticConfigRunsAsTheModelOnThePreprocessedImage) {
  absl::StatusOr<Graph> graph = Converted();
  ASSERT_TRUE(graph.ok()) << graph.status();
  absl::Status inserted = ApplyInsertOpConf(*graph, kStaticConf);
  ASSERT_TRUE(inserted.ok()) << inserted;
  // The input keeps its name and takes the frame's bytes.
  EXPECT_EQ(graph->inputs[0].name, "input");
  EXPECT_EQ(graph->inputs[0].info.dtype, DType::kUInt8);
  EXPECT_THAT(graph->inputs[0].info.shape.dims(), ElementsAre(1, 54, 40, 1));
  const GraphNode* node = &graph->nodes[0];
  EXPECT_EQ(node->op_type, "Aipp");
  EXPECT_EQ(node->name, "aipp_input");
  EXPECT_THAT(node->outputs, ElementsAre("input_aipp"));
  // Through the model file, as a converted model is loaded.
  absl::StatusOr<Graph> loaded = ParseModel(SerializeModel(*graph));
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  auto with_aipp = CompiledModel::Compile(*loaded, BuiltinOps());
  ASSERT_TRUE(with_aipp.ok()) << with_aipp.status();
  std::vector<uint8_t> frame(40 * 36 * 3 / 2);
  std::mt19937 rng(7);
  for (uint8_t& b : frame) b = static_cast<uint8_t>(rng());
  // The reference: the preprocessing by hand, then the unmodified model.
  absl::StatusOr<aipp::Params> params = aipp::FromAttributes(node->attrs);
  ASSERT_TRUE(params.ok()) << params.status();
  std::vector<float> preprocessed(3 * 32 * 32);
  aipp::Apply(*params, frame.data(), frame.size(), 1, 3, 32, 32,
              preprocessed.data());
  EXPECT_FLOAT_EQ(preprocessed[0], 0.5f);  // the padding row
  auto plain = Converted();
  ASSERT_TRUE(plain.ok());
  auto without = CompiledModel::Compile(*plain, BuiltinOps());
  ASSERT_TRUE(without.ok()) << without.status();
  for (size_t output = 0; output < 2; ++output) {
    const std::vector<float> got =
        RunModel(**with_aipp, frame.data(), frame.size(), output);
    const std::vector<float> expected = RunModel(
        **without, preprocessed.data(), preprocessed.size() * 4, output);
    ASSERT_EQ(std::memcmp(got.data(), expected.data(), got.size() * 4), 0);
  }
}

TEST(AippInsertTest, DynamicConfigAddsTheParameterInput) {
  absl::StatusOr<Graph> graph = Converted();
  ASSERT_TRUE(graph.ok()) << graph.status();
  ASSERT_TRUE(InsertAippOps(*graph,
                            "aipp_op { aipp_mode: dynamic "
                            "max_src_image_size: 4096 }",
                            "dyn.cfg")
                  .ok());
  ASSERT_EQ(graph->inputs.size(), 2u);
  EXPECT_THAT(graph->inputs[0].info.shape.dims(), ElementsAre(1, 4096));
  EXPECT_EQ(graph->inputs[1].name, kDynamicAippInputName);
  EXPECT_THAT(graph->inputs[1].info.shape.dims(),
              ElementsAre(aipp::DynamicDataBytes(1)));
  EXPECT_TRUE(ParseModel(SerializeModel(*graph)).ok());
}

// Readers are renamed to the AIPP output; a subgraph reading the input would
// still see the raw image, so that is refused.
TEST(AippInsertTest, AnInputControlFlowReadsIsRefused) {
  absl::StatusOr<Graph> graph = Converted();
  ASSERT_TRUE(graph.ok()) << graph.status();
  auto branch = std::make_shared<Graph>();
  branch->outputs = {{"input", graph->inputs[0].info}};
  GraphNode node;
  node.name = "branch";
  node.op_type = "If";
  node.inputs = {"cond"};
  node.outputs = {"picked"};
  node.subgraphs = {{"then_branch", branch}, {"else_branch", branch}};
  node.implicit_inputs = ImplicitInputsOf(node);
  ASSERT_THAT(node.implicit_inputs, ElementsAre("input"));
  graph->nodes.push_back(node);
  const absl::Status status = InsertAippOps(
      *graph, "aipp_op { aipp_mode: static input_format: RGB888_U8 }",
      "cf.cfg");
  EXPECT_THAT(Message(status),
              HasSubstr("the subgraphs of node 'branch' (If) read it; AIPP is "
                        "not supported for an input that control flow reads"));
}

TEST(AippInsertTest, BadConfigsNameTheFileLineAndField) {
  const std::pair<const char*, const char*> cases[] = {
      {"aipp_op {\n  aipp_mode: static\n  input_fromat: RGB888_U8\n}",
       "bad.cfg: line 3 column 15: Message type \"acldump.conf.AippOpParams\" "
       "has no field named \"input_fromat\""},
      {"", "bad.cfg: no aipp_op { ... } section"},
      {"aipp_op { input_format: RGB888_U8 }",
       "aipp_op 1: aipp_mode: give static or dynamic"},
      {"aipp_op { aipp_mode: static input_format: YUV422SP_U8 }",
       "input_format YUV422SP_U8 is not one acldump preprocesses"},
      {"aipp_op { aipp_mode: static input_format: RGB888_U8 resize: true }",
       "resize is not supported"},
      {"aipp_op { aipp_mode: static input_format: RGB888_U8 "
       "related_input_rank: 3 }",
       "related_input_rank 3 is out of range: the model has 1 inputs"},
      {"aipp_op { aipp_mode: static input_format: RGB888_U8 csc_switch: true }",
       "csc_switch is true but no matrix_r0c0..matrix_r2c2 is given"},
      {"aipp_op { aipp_mode: static input_format: RGB888_U8 "
       "src_image_size_w: 30 }",
       "the image (30x32) is 30x32 (width x height); the model input is 32x32"},
      {"aipp_op { aipp_mode: dynamic }", "needs max_src_image_size"},
      {"aipp_op { aipp_mode: static input_format: RGB888_U8 }\n"
       "aipp_op { aipp_mode: static input_format: RGB888_U8 }",
       "aipp_op 2: input 0 is configured twice"},
      {"aipp_op { aipp_mode: static input_format: RGB888_U8 "
       "matrix_r0c0: 1 matrix_r0c0: 2 }",
       "matrix_r0c0 has 2 values"},
  };
  for (const auto& [text, reason] : cases) {
    absl::StatusOr<Graph> graph = Converted();
    ASSERT_TRUE(graph.ok());
    absl::Status status = InsertAippOps(*graph, text, "bad.cfg");
    ASSERT_FALSE(status.ok()) << text;
    EXPECT_THAT(Message(status), HasSubstr(reason)) << text;
  }
  // All or nothing: the first section's insertion is undone by the second's
  // error.
  absl::StatusOr<Graph> unchanged = Converted();
  ASSERT_TRUE(unchanged.ok());
  EXPECT_FALSE(InsertAippOps(*unchanged,
                             "aipp_op { aipp_mode: static input_format: "
                             "RGB888_U8 }\naipp_op { aipp_mode: dynamic }",
                             "two.cfg")
                   .ok());
  EXPECT_EQ(unchanged->inputs[0].info.dtype, DType::kFloat32);
  EXPECT_NE(unchanged->nodes[0].op_type, "Aipp");
  // A missing file is named.
  absl::StatusOr<Graph> graph = Converted();
  ASSERT_TRUE(graph.ok());
  EXPECT_THAT(Message(ApplyInsertOpConf(*graph, "no/such.cfg")),
              HasSubstr("no/such.cfg"));
}

}  // namespace
}  // namespace acldump
