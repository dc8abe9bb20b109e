// Symbolic input dimensions pinned like the SDK converter's --input_shape,
// output shapes from shape inference, and the errors for bad shapes.
#include "runtime/onnx_import.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "kernels/ops.h"
#include "runtime/compiled_model.h"
#include "runtime/converter.h"
#include "runtime/passes.h"

namespace acldump {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string Message(const absl::Status& status) {
  return std::string(status.message());
}

TEST(ParseInputShapesTest, ParsesNamesAndDims) {
  absl::StatusOr<InputShapes> shapes =
      ParseInputShapes("x:1,3,640,640; y : 1, 16;");
  ASSERT_TRUE(shapes.ok()) << shapes.status();
  EXPECT_EQ(shapes->size(), 2u);
  EXPECT_THAT(shapes->at("x"), ElementsAre(1, 3, 640, 640));
  EXPECT_THAT(shapes->at("y"), ElementsAre(1, 16));
  // The name ends at the last ':' (TensorFlow-style names).
  shapes = ParseInputShapes("input:0:2,8");
  ASSERT_TRUE(shapes.ok()) << shapes.status();
  EXPECT_THAT(shapes->at("input:0"), ElementsAre(2, 8));
}

TEST(ParseInputShapesTest, RejectsBadShapesWithTheReason) {
  const std::pair<const char*, const char*> cases[] = {
      {"x", "is not name:dims"},
      {"", "is not name:dims"},
      {":1,2", "has no input name"},
      {"x:", "dimension '' of 'x' is not an integer"},
      {"x:1,,2", "dimension '' of 'x' is not an integer"},
      {"x:1,a", "dimension 'a' of 'x' is not an integer"},
      {"x:1.5", "dimension '1.5' of 'x' is not an integer"},
      {"x:0,3", "dimension 0 of 'x' is 0; dimensions must be positive"},
      {"x:1,-3", "dimension 1 of 'x' is -3; dimensions must be positive"},
      {"x:99999999999999999999", "is not a representable integer"},
      {"x:1048576,1048576,1048576", "x:1048576,1048576,1048576"},
      {"x:1;x:2", "input 'x' is given twice"},
      {"x:1;;y:2", "is not name:dims"},
  };
  for (const auto& [text, reason] : cases) {
    absl::StatusOr<InputShapes> shapes = ParseInputShapes(text);
    ASSERT_FALSE(shapes.ok()) << text;
    EXPECT_THAT(Message(shapes.status()), HasSubstr(reason)) << text;
  }
}

// A model with symbolic dims:
//   x [N, 3, H, W] -> Conv (4 filters 3x3, pads 1) -> Relu -> y [N, 4, H, W]
//   y -> Reshape(y, Concat(Shape(y)[0:1], [-1])) -> flat [N, 4*H*W]
// The reshape target is computed from Shape at run time in the file; with
// pinned inputs it folds into a constant.
void AddDim(onnx::TensorShapeProto* shape, const std::string& param) {
  shape->add_dim()->set_dim_param(param);
}
void AddDim(onnx::TensorShapeProto* shape, int64_t value) {
  shape->add_dim()->set_dim_value(value);
}

template <typename... Dims>
void SetValue(onnx::ValueInfoProto* value, const std::string& name,
              Dims... dims) {
  value->set_name(name);
  auto* type = value->mutable_type()->mutable_tensor_type();
  type->set_elem_type(onnx::TensorProto::FLOAT);
  auto* shape = type->mutable_shape();
  (AddDim(shape, dims), ...);
}

onnx::NodeProto* AddNode(onnx::GraphProto* graph, const std::string& op,
                         std::vector<std::string> inputs,
                         std::vector<std::string> outputs) {
  onnx::NodeProto* node = graph->add_node();
  node->set_op_type(op);
  node->set_name(outputs[0]);
  for (const auto& in : inputs) node->add_input(in);
  for (const auto& out : outputs) node->add_output(out);
  return node;
}

void AddInts(onnx::NodeProto* node, const std::string& name,
             std::vector<int64_t> values) {
  onnx::AttributeProto* attr = node->add_attribute();
  attr->set_name(name);
  attr->set_type(onnx::AttributeProto::INTS);
  for (int64_t v : values) attr->add_ints(v);
}

void AddInt(onnx::NodeProto* node, const std::string& name, int64_t value) {
  onnx::AttributeProto* attr = node->add_attribute();
  attr->set_name(name);
  attr->set_type(onnx::AttributeProto::INT);
  attr->set_i(value);
}

void AddInitializer(onnx::GraphProto* graph, const std::string& name,
                    std::vector<int64_t> dims, std::vector<float> values) {
  onnx::TensorProto* t = graph->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims) t->add_dims(d);
  for (float v : values) t->add_float_data(v);
}

void AddInt64Initializer(onnx::GraphProto* graph, const std::string& name,
                         std::vector<int64_t> values) {
  onnx::TensorProto* t = graph->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::INT64);
  t->add_dims(static_cast<int64_t>(values.size()));
  for (int64_t v : values) t->add_int64_data(v);
}

std::string SymbolicModel() {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.add_opset_import()->set_version(13);
  onnx::GraphProto* g = model.mutable_graph();
  g->set_name("symbolic");
  SetValue(g->add_input(), "x", "batch", int64_t{3}, "height", "width");
  SetValue(g->add_output(), "y", "batch", int64_t{4}, "height", "width");
  SetValue(g->add_output(), "flat", "batch", "features");
  std::vector<float> w(4 * 3 * 9);
  for (size_t i = 0; i < w.size(); ++i) w[i] = (i % 7) * 0.1f - 0.3f;
  AddInitializer(g, "w", {4, 3, 3, 3}, w);
  AddInitializer(g, "b", {4}, {0.1f, -0.2f, 0.3f, 0.0f});
  AddInt64Initializer(g, "zero", {0});
  AddInt64Initializer(g, "one", {1});
  AddInt64Initializer(g, "minus_one", {-1});
  onnx::NodeProto* conv = AddNode(g, "Conv", {"x", "w", "b"}, {"conv"});
  AddInts(conv, "pads", {1, 1, 1, 1});
  AddNode(g, "Relu", {"conv"}, {"y"});
  AddNode(g, "Shape", {"y"}, {"shape"});
  AddNode(g, "Slice", {"shape", "zero", "one"}, {"batch_dim"});
  AddInt(AddNode(g, "Concat", {"batch_dim", "minus_one"}, {"target"}), "axis",
         0);
  AddNode(g, "Reshape", {"y", "target"}, {"flat"});
  return model.SerializeAsString();
}

TEST(InputShapeTest, UnpinnedSymbolicInputNamesInputDimsAndOption) {
  absl::StatusOr<Graph> graph = ConvertOnnx(SymbolicModel());
  ASSERT_FALSE(graph.ok());
  EXPECT_THAT(
      Message(graph.status()),
      AllOf(HasSubstr("graph input 'x'"), HasSubstr("[batch,3,height,width]"),
            HasSubstr("--input-shape \"x:?,3,?,?\"")));
}

TEST(InputShapeTest, PinnedInputsGiveStaticOutputsAndFoldShapeArithmetic) {
  ImportOptions import;
  import.input_shapes["x"] = {2, 3, 5, 6};
  absl::StatusOr<Graph> graph = ConvertOnnx(SymbolicModel(), {}, import);
  ASSERT_TRUE(graph.ok()) << graph.status();
  ASSERT_EQ(graph->outputs.size(), 2u);
  EXPECT_EQ(graph->inputs[0].info.ToString(), "float32[2,3,5,6]");
  EXPECT_EQ(graph->outputs[0].info.ToString(), "float32[2,4,5,6]");
  EXPECT_EQ(graph->outputs[1].info.ToString(), "float32[2,120]");
  // Shape -> Slice -> Concat folded into the Reshape's constant target.
  for (const GraphNode& node : graph->nodes) {
    EXPECT_NE(node.op_type, "Shape");
    EXPECT_NE(node.op_type, "Concat");
  }
  auto model = CompiledModel::Compile(*graph, BuiltinOps());
  ASSERT_TRUE(model.ok()) << model.status();
  std::vector<float> x(2 * 3 * 5 * 6, 1.0f), y(2 * 4 * 30), flat(2 * 120);
  const HostBuffer in[] = {{x.data(), x.size() * 4}};
  const MutableHostBuffer out[] = {{y.data(), y.size() * 4},
                                   {flat.data(), flat.size() * 4}};
  ASSERT_TRUE((*model)->Execute(in, out).ok());
  EXPECT_EQ(y, flat);
  // Interior pixel of filter 0: sum of its 27 weights + bias, then Relu.
  double sum = 0.1;
  for (int i = 0; i < 27; ++i) sum += (i % 7) * 0.1 - 0.3;
  EXPECT_NEAR(y[1 * 6 + 1], std::max(sum, 0.0), 1e-5);
}

TEST(InputShapeTest, BadPinsAreClearErrorsAtConvertTime) {
  const std::string model = SymbolicModel();
  struct Case {
    InputShapes shapes;
    const char* reason;
  };
  const Case cases[] = {
      {{{"x", {1, 3, 8, 8}}, {"z", {1}}},
       "--input-shape names 'z', which is not an input of the model (inputs: "
       "'x')"},
      {{{"x", {1, 3, 8}}},
       "gives input 'x' 3 dimensions [1,3,8], the model declares 4: "
       "[batch,3,height,width]"},
      {{{"x", {1, 4, 8, 8}}},
       "dimension 1 = 4, but the model declares it static as 3"},
      {{{"x", {1, 3, 0, 8}}}, "dimension 2 = 0; dimensions must be positive"},
      {{{"x", {1, 3, -8, 8}}}, "dimension 2 = -8; dimensions must be positive"},
      {{{"x", {1024, 3, 1024, 1024}}}, "more than 4294967296 bytes"},
  };
  for (const Case& c : cases) {
    ImportOptions import;
    import.input_shapes = c.shapes;
    absl::StatusOr<Graph> graph = ConvertOnnx(model, {}, import);
    ASSERT_FALSE(graph.ok()) << c.reason;
    EXPECT_THAT(Message(graph.status()), HasSubstr(c.reason));
  }
}

TEST(InputShapeTest, DeclaredOutputShapeContradictingInferenceIsAnError) {
  onnx::ModelProto model;
  ASSERT_TRUE(model.ParseFromString(SymbolicModel()));
  // Declare y with 5 channels: inference gives 4.
  model.mutable_graph()
      ->mutable_output(0)
      ->mutable_type()
      ->mutable_tensor_type()
      ->mutable_shape()
      ->mutable_dim(1)
      ->set_dim_value(5);
  ImportOptions import;
  import.input_shapes["x"] = {1, 3, 4, 4};
  absl::StatusOr<Graph> graph =
      ConvertOnnx(model.SerializeAsString(), {}, import);
  ASSERT_FALSE(graph.ok());
  EXPECT_THAT(Message(graph.status()),
              HasSubstr("output 'y' is declared as float32[?,5,?,?] but "
                        "computes float32[1,4,4,4]"));
}

// An LSTM exported for its final state only: Y is skipped ("") and Y_h
// named. The skipped output still gets a value name of its own.
TEST(OnnxImportTest, InnerSkippedOutputIsNamedAndTheModelConverts) {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.add_opset_import()->set_version(14);
  onnx::GraphProto* g = model.mutable_graph();
  g->set_name("final_state");
  SetValue(g->add_input(), "x", int64_t{2}, int64_t{1}, int64_t{3});
  SetValue(g->add_output(), "h", int64_t{1}, int64_t{1}, int64_t{2});
  AddInitializer(g, "w", {1, 8, 3}, std::vector<float>(24, 0.1f));
  AddInitializer(g, "r", {1, 8, 2}, std::vector<float>(16, -0.1f));
  onnx::NodeProto* lstm = AddNode(g, "LSTM", {"x", "w", "r"}, {"", "h"});
  lstm->set_name("lstm");
  AddInt(lstm, "hidden_size", 2);
  absl::StatusOr<Graph> graph = ConvertOnnx(model.SerializeAsString(), {}, {});
  ASSERT_TRUE(graph.ok()) << graph.status();
  const auto it = std::find_if(
      graph->nodes.begin(), graph->nodes.end(),
      [](const GraphNode& node) { return node.op_type == "LSTM"; });
  ASSERT_NE(it, graph->nodes.end());
  EXPECT_THAT(it->outputs, ElementsAre("lstm:unused_output_0", "h"));
}

// Every unsupported operator is named at once, before attributes such as If's
// subgraphs are read.
TEST(OnnxImportTest, UnsupportedOperatorsAreListedTogether) {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.add_opset_import()->set_version(14);
  onnx::GraphProto* g = model.mutable_graph();
  g->set_name("control_flow");
  SetValue(g->add_input(), "x", int64_t{2});
  SetValue(g->add_output(), "y", int64_t{2});
  onnx::NodeProto* branch = AddNode(g, "If", {"x"}, {"a"});
  onnx::AttributeProto* then_branch = branch->add_attribute();
  then_branch->set_name("then_branch");
  then_branch->set_type(onnx::AttributeProto::GRAPH);
  AddNode(g, "Relu", {"a"}, {"b"});
  AddNode(g, "Loop", {"b"}, {"c"});
  AddNode(g, "If", {"c"}, {"y"});
  absl::StatusOr<Graph> graph = ConvertOnnx(model.SerializeAsString(), {}, {});
  ASSERT_FALSE(graph.ok());
  EXPECT_THAT(Message(graph.status()),
              AllOf(HasSubstr("node 'a' (If): op type 'If' is not supported; "
                              "the model uses 2 unsupported op types: If (2 "
                              "nodes, first 'a'), Loop (1 node, first 'c')"),
                    HasSubstr("docs/operators.md lists the supported")));
}

// y = x + w, with w stored outside the model file (as exporters write
// models over 2 GB, or on request). Returns the model's path.
std::string WriteExternalDataModel(const std::string& dir,
                                   const std::string& location,
                                   const std::string& offset,
                                   const std::string& length) {
  std::filesystem::create_directories(dir);
  const float w[] = {0.5f, -1.5f, 2.0f};
  std::ofstream(dir + "/weights.bin", std::ios::binary)
      .write("PAD!", 4)
      .write(reinterpret_cast<const char*>(w), sizeof(w));
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.add_opset_import()->set_version(14);
  onnx::GraphProto* g = model.mutable_graph();
  g->set_name("external");
  SetValue(g->add_input(), "x", int64_t{3});
  SetValue(g->add_output(), "y", int64_t{3});
  onnx::TensorProto* t = g->add_initializer();
  t->set_name("w");
  t->set_data_type(onnx::TensorProto::FLOAT);
  t->add_dims(3);
  t->set_data_location(onnx::TensorProto::EXTERNAL);
  for (auto [key, value] :
       {std::pair<std::string, std::string>{"location", location},
        {"offset", offset},
        {"length", length}}) {
    if (value.empty()) continue;
    onnx::StringStringEntryProto* entry = t->add_external_data();
    entry->set_key(key);
    entry->set_value(value);
  }
  AddNode(g, "Add", {"x", "w"}, {"y"});
  const std::string path = dir + "/model.onnx";
  std::ofstream(path, std::ios::binary) << model.SerializeAsString();
  return path;
}

std::string TestDir(const std::string& name) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  return std::string(tmp ? tmp : "/tmp") + "/" + name;
}

TEST(OnnxImportTest, ExternalDataIsReadBesideTheModelFile) {
  const std::string path =
      WriteExternalDataModel(TestDir("external_ok"), "weights.bin", "4", "12");
  absl::StatusOr<Graph> graph = ConvertOnnxFile(path);
  ASSERT_TRUE(graph.ok()) << graph.status();
  const auto it = graph->initializers.find("w");
  ASSERT_NE(it, graph->initializers.end());
  const float* w = it->second->as<float>();
  EXPECT_EQ(w[0], 0.5f);
  EXPECT_EQ(w[1], -1.5f);
  EXPECT_EQ(w[2], 2.0f);
}

TEST(OnnxImportTest, BadExternalDataIsExplained) {
  struct Case {
    std::string location, offset, length, reason;
  };
  const Case cases[] = {
      {"../weights.bin", "4", "12",
       "must be a relative path inside the model's folder"},
      {"/etc/passwd", "", "",
       "must be a relative path inside the model's folder"},
      {"missing.bin", "", "", "external data file"},
      {"weights.bin", "8", "12", "lies past the end of"},
      {"weights.bin", "0", "8", "external data length 8, float32[3] needs 12"},
      {"weights.bin", "-4", "12", "offset '-4' is not a non-negative integer"},
  };
  int i = 0;
  for (const Case& c : cases) {
    const std::string path =
        WriteExternalDataModel(TestDir("external_bad_" + std::to_string(i++)),
                               c.location, c.offset, c.length);
    absl::StatusOr<Graph> graph = ConvertOnnxFile(path);
    ASSERT_FALSE(graph.ok()) << c.location;
    EXPECT_THAT(Message(graph.status()), HasSubstr(c.reason)) << c.location;
  }
  // From memory there is no folder to read it from.
  std::ifstream in(WriteExternalDataModel(TestDir("external_memory"),
                                          "weights.bin", "4", "12"),
                   std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), {});
  absl::StatusOr<Graph> graph = ConvertOnnx(bytes, {}, {});
  ASSERT_FALSE(graph.ok());
  EXPECT_THAT(Message(graph.status()),
              HasSubstr("is stored as external data ('weights.bin'): convert "
                        "the model from its .onnx file"));
}

TEST(OnnxImportTest, AModelTooLargeForAModelFileIsRefusedBySize) {
  absl::StatusOr<Graph> graph = ConvertOnnxFile(
      WriteExternalDataModel(TestDir("too_large"), "weights.bin", "4", "12"));
  ASSERT_TRUE(graph.ok()) << graph.status();
  EXPECT_TRUE(CheckFitsModelFile(*graph).ok());
  const absl::Status status = CheckFitsModelFile(*graph, 12);
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(Message(status),
              HasSubstr("the model's weights take 12 bytes (0 MiB); a "
                        "converted model file holds at most 0 MiB"));
}

}  // namespace
}  // namespace acldump
