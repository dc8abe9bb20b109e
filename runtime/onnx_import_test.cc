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
#include "runtime/onnx_tensors.h"
#include "runtime/onnx_test_builders.h"
#include "runtime/passes.h"

namespace acldump {
namespace {

using ::acldump::testing::AddInt;
using ::acldump::testing::AddInts;
using ::acldump::testing::AddNode;
using ::acldump::testing::ReadTensorProto;

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

// Every unsupported operator is named at once, before attributes are read;
// control flow is supported and its subgraphs are searched, their nodes named
// by path.
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
  then_branch->mutable_g()->add_node()->set_op_type("Frobnicate");
  AddNode(g, "Relu", {"a"}, {"b"});
  AddNode(g, "Frobnicate", {"b"}, {"c"});
  AddNode(g, "Blend", {"c"}, {"y"});
  absl::StatusOr<Graph> graph = ConvertOnnx(model.SerializeAsString(), {}, {});
  ASSERT_FALSE(graph.ok());
  EXPECT_THAT(
      Message(graph.status()),
      AllOf(HasSubstr("node 'a/then_branch/Frobnicate_0' (Frobnicate): op "
                      "type 'Frobnicate' is not supported; the model uses 2 "
                      "unsupported op types: Frobnicate (2 nodes, first "
                      "'a/then_branch/Frobnicate_0'), Blend (1 node, first "
                      "'y')"),
            HasSubstr("docs/operators.md lists the supported")));
}

// Control flow: subgraphs by attribute, what they read from outside.

void SetTyped(onnx::ValueInfoProto* value, const std::string& name,
              onnx::TensorProto::DataType type, std::vector<int64_t> dims) {
  value->set_name(name);
  auto* tensor = value->mutable_type()->mutable_tensor_type();
  tensor->set_elem_type(type);
  auto* shape = tensor->mutable_shape();
  for (int64_t d : dims) {
    if (d < 0) {
      shape->add_dim()->set_dim_param("n");
    } else {
      shape->add_dim()->set_dim_value(d);
    }
  }
}

// A value with a type and no shape at all (unknown rank).
void SetUnshaped(onnx::ValueInfoProto* value, const std::string& name,
                 onnx::TensorProto::DataType type) {
  value->set_name(name);
  value->mutable_type()->mutable_tensor_type()->set_elem_type(type);
}

onnx::GraphProto* AddGraph(onnx::NodeProto* node, const std::string& name) {
  onnx::AttributeProto* attr = node->add_attribute();
  attr->set_name(name);
  attr->set_type(onnx::AttributeProto::GRAPH);
  attr->mutable_g()->set_name(name + "_graph");
  return attr->mutable_g();
}

onnx::NodeProto* AddUnnamed(onnx::GraphProto* graph, const std::string& op,
                            std::vector<std::string> inputs,
                            std::vector<std::string> outputs) {
  onnx::NodeProto* node = AddNode(graph, op, inputs, outputs);
  node->clear_name();
  return node;
}

// y = If(cond) then x + w else x (the outer x returned as it is), then Relu.
onnx::ModelProto IfModel() {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.add_opset_import()->set_version(14);
  onnx::GraphProto* g = model.mutable_graph();
  g->set_name("branches");
  SetTyped(g->add_input(), "cond", onnx::TensorProto::BOOL, {});
  SetValue(g->add_input(), "x", int64_t{2});
  SetValue(g->add_output(), "y", int64_t{2});
  AddInitializer(g, "w", {2}, {1.0f, 2.0f});
  onnx::NodeProto* branch = AddNode(g, "If", {"cond"}, {"picked"});
  onnx::GraphProto* then_branch = AddGraph(branch, "then_branch");
  AddUnnamed(then_branch, "Add", {"x", "w"}, {"sum"});
  SetTyped(then_branch->add_output(), "sum", onnx::TensorProto::FLOAT, {-1});
  onnx::GraphProto* else_branch = AddGraph(branch, "else_branch");
  SetUnshaped(else_branch->add_output(), "x", onnx::TensorProto::FLOAT);
  AddNode(g, "Relu", {"picked"}, {"y"});
  return model;
}

const GraphNode& NodeOf(const Graph& graph, const std::string& op) {
  for (const GraphNode& node : graph.nodes) {
    if (node.op_type == op) return node;
  }
  ADD_FAILURE() << "no " << op << " node";
  static const GraphNode none;
  return none;
}

std::vector<std::string> SubgraphNames(const GraphNode& node) {
  std::vector<std::string> names;
  for (const auto& [attribute, graph] : node.subgraphs)
    names.push_back(attribute);
  return names;
}

TEST(ControlFlowImportTest, IfBranchesReadTheOuterScope) {
  absl::StatusOr<Graph> graph = ImportOnnx(IfModel());
  ASSERT_TRUE(graph.ok()) << graph.status();
  EXPECT_TRUE(IsControlFlowOp("If"));
  EXPECT_TRUE(IsControlFlowOp("Loop"));
  EXPECT_TRUE(IsControlFlowOp("Scan"));
  EXPECT_FALSE(IsControlFlowOp("Relu"));
  const GraphNode& node = NodeOf(*graph, "If");
  EXPECT_EQ(node.name, "picked");
  EXPECT_THAT(node.inputs, ElementsAre("cond"));
  EXPECT_THAT(node.outputs, ElementsAre("picked"));
  EXPECT_THAT(SubgraphNames(node), ElementsAre("then_branch", "else_branch"));
  EXPECT_THAT(node.implicit_inputs, ElementsAre("x", "w"));
  EXPECT_FALSE(node.attrs.Has("then_branch"));
  const Graph& then_branch = *node.subgraphs[0].second;
  EXPECT_EQ(then_branch.name, "then_branch_graph");
  EXPECT_TRUE(then_branch.inputs.empty());
  ASSERT_EQ(then_branch.nodes.size(), 1u);
  EXPECT_EQ(then_branch.nodes[0].name, "Add_0");
  EXPECT_THAT(then_branch.nodes[0].inputs, ElementsAre("x", "w"));
  ASSERT_EQ(then_branch.outputs.size(), 1u);
  EXPECT_EQ(then_branch.outputs[0].name, "sum");
  EXPECT_EQ(then_branch.outputs[0].info.ToString(), "float32[-1]");
  EXPECT_TRUE(then_branch.outputs[0].infer_shape);
  const Graph& else_branch = *node.subgraphs[1].second;
  EXPECT_TRUE(else_branch.nodes.empty());
  ASSERT_EQ(else_branch.outputs.size(), 1u);
  EXPECT_EQ(else_branch.outputs[0].name, "x");
  EXPECT_EQ(else_branch.outputs[0].info.ToString(), "float32[]");
  EXPECT_TRUE(else_branch.outputs[0].infer_shape);  // unknown rank
  // The If reads x and w: dead-code and fusion passes see it.
  EXPECT_THAT(graph->ConsumersOf("w"), ElementsAre(0));
}

// v = Loop(M, cond, v0) whose body scales v by the outer `scale` and, when
// the outer `flag` is set, adds the outer `bias` in a nested If; the body also
// emits each scaled value (a scan output).
onnx::ModelProto LoopModel() {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.add_opset_import()->set_version(14);
  onnx::GraphProto* g = model.mutable_graph();
  g->set_name("loop");
  SetTyped(g->add_input(), "M", onnx::TensorProto::INT64, {});
  SetTyped(g->add_input(), "cond", onnx::TensorProto::BOOL, {});
  SetTyped(g->add_input(), "flag", onnx::TensorProto::BOOL, {});
  SetValue(g->add_input(), "v0", int64_t{2});
  SetValue(g->add_output(), "v", int64_t{2});
  SetValue(g->add_output(), "scans", int64_t{3}, int64_t{2});
  AddInitializer(g, "scale", {2}, {0.5f, 2.0f});
  AddInitializer(g, "bias", {2}, {1.0f, -1.0f});
  onnx::NodeProto* loop =
      AddNode(g, "Loop", {"M", "cond", "v0"}, {"v", "scans"});
  loop->set_name("loop");
  onnx::GraphProto* body = AddGraph(loop, "body");
  SetTyped(body->add_input(), "i", onnx::TensorProto::INT64, {});
  SetTyped(body->add_input(), "c_in", onnx::TensorProto::BOOL, {});
  SetValue(body->add_input(), "v_in", "n");
  // Listed before its input's producer: the import orders the body.
  AddNode(body, "Identity", {"scaled"}, {"scan_out"});
  AddNode(body, "Mul", {"v_in", "scale"}, {"scaled"});
  onnx::NodeProto* nested = AddNode(body, "If", {"flag"}, {"v_out"});
  onnx::GraphProto* then_branch = AddGraph(nested, "then_branch");
  AddNode(then_branch, "Add", {"scaled", "bias"}, {"biased"});
  SetValue(then_branch->add_output(), "biased", "n");
  onnx::GraphProto* else_branch = AddGraph(nested, "else_branch");
  AddNode(else_branch, "Identity", {"scaled"}, {"same"});
  SetValue(else_branch->add_output(), "same", "n");
  AddNode(body, "Identity", {"c_in"}, {"c_out"});
  SetTyped(body->add_output(), "c_out", onnx::TensorProto::BOOL, {});
  SetValue(body->add_output(), "v_out", "n");
  SetUnshaped(body->add_output(), "scan_out", onnx::TensorProto::FLOAT);
  return model;
}

TEST(ControlFlowImportTest, LoopBodyWithANestedIfReadsEveryEnclosingScope) {
  absl::StatusOr<Graph> graph = ImportOnnx(LoopModel());
  ASSERT_TRUE(graph.ok()) << graph.status();
  ASSERT_EQ(graph->nodes.size(), 1u);
  const GraphNode& loop = graph->nodes[0];
  EXPECT_THAT(SubgraphNames(loop), ElementsAre("body"));
  // In first-use order over the ordered body: Mul reads scale, the If flag,
  // its branches bias (scaled is the body's own).
  EXPECT_THAT(loop.implicit_inputs, ElementsAre("scale", "flag", "bias"));
  const Graph& body = *loop.subgraphs[0].second;
  std::vector<std::string> order;
  for (const GraphNode& node : body.nodes) order.push_back(node.name);
  EXPECT_THAT(order, ElementsAre("scaled", "scan_out", "v_out", "c_out"));
  ASSERT_EQ(body.inputs.size(), 3u);
  EXPECT_EQ(body.inputs[0].info.ToString(), "int64[]");
  EXPECT_FALSE(body.inputs[0].infer_shape);
  EXPECT_EQ(body.inputs[2].info.ToString(), "float32[-1]");
  EXPECT_TRUE(body.inputs[2].infer_shape);
  const GraphNode& nested = body.nodes[2];
  EXPECT_EQ(nested.op_type, "If");
  EXPECT_THAT(nested.implicit_inputs, ElementsAre("scaled", "bias"));
  const Graph& then_branch = *nested.subgraphs[0].second;
  EXPECT_THAT(then_branch.nodes[0].inputs, ElementsAre("scaled", "bias"));
  EXPECT_THAT(OuterScopeReads(body), ElementsAre("scale", "flag", "bias"));
}

TEST(ControlFlowImportTest, OuterReadsMustExistSomewhereAbove) {
  onnx::ModelProto model = LoopModel();
  // The nested then_branch adds `nowhere` instead of the outer bias.
  onnx::GraphProto* then_branch = model.mutable_graph()
                                      ->mutable_node(0)
                                      ->mutable_attribute(0)
                                      ->mutable_g()
                                      ->mutable_node(2)
                                      ->mutable_attribute(0)
                                      ->mutable_g();
  then_branch->mutable_node(0)->set_input(1, "nowhere");
  absl::StatusOr<Graph> graph = ImportOnnx(model);
  ASSERT_FALSE(graph.ok());
  EXPECT_THAT(Message(graph.status()),
              HasSubstr("node 'loop/body/v_out/then_branch/biased' reads "
                        "'nowhere', which neither its subgraph nor any "
                        "enclosing graph defines"));
}

TEST(ControlFlowImportTest, SubgraphsNeedTypesAndTheirAttributes) {
  {
    onnx::ModelProto model = IfModel();
    // A then_branch output without an element type.
    model.mutable_graph()
        ->mutable_node(0)
        ->mutable_attribute(0)
        ->mutable_g()
        ->mutable_output(0)
        ->mutable_type()
        ->mutable_tensor_type()
        ->set_elem_type(0);
    absl::StatusOr<Graph> graph = ImportOnnx(model);
    ASSERT_FALSE(graph.ok());
    EXPECT_THAT(Message(graph.status()),
                AllOf(HasSubstr("subgraph 'picked/then_branch' output 0"),
                      HasSubstr("'sum' has ONNX data type 0")));
  }
  {
    onnx::ModelProto model = IfModel();
    // No else_branch.
    model.mutable_graph()->mutable_node(0)->mutable_attribute()->RemoveLast();
    absl::StatusOr<Graph> graph = ImportOnnx(model);
    ASSERT_FALSE(graph.ok());
    EXPECT_THAT(Message(graph.status()),
                HasSubstr("node 'picked' (If): If needs the subgraphs "
                          "then_branch and else_branch"));
  }
  {
    onnx::ModelProto model = IfModel();
    // A graph attribute on an op that takes none.
    AddGraph(model.mutable_graph()->mutable_node(1), "body");
    absl::StatusOr<Graph> graph = ImportOnnx(model);
    ASSERT_FALSE(graph.ok());
    EXPECT_THAT(Message(graph.status()),
                HasSubstr("node 'y' (Relu): attribute 'body' is a graph; "
                          "only If, Loop and Scan take subgraphs"));
  }
}

// `depth` Ifs, each in the then_branch of the one before, the innermost
// returning x.
onnx::ModelProto NestedIfModel(int depth) {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.add_opset_import()->set_version(14);
  onnx::GraphProto* g = model.mutable_graph();
  g->set_name("nested");
  SetTyped(g->add_input(), "cond", onnx::TensorProto::BOOL, {});
  SetValue(g->add_input(), "x", int64_t{2});
  SetValue(g->add_output(), "y", int64_t{2});
  onnx::GraphProto* level = g;
  std::string out = "y";
  for (int d = 0; d < depth; ++d) {
    onnx::NodeProto* node = AddNode(level, "If", {"cond"}, {out});
    node->set_name("if");
    onnx::GraphProto* else_branch = AddGraph(node, "else_branch");
    SetValue(else_branch->add_output(), "x", int64_t{2});
    onnx::GraphProto* then_branch = AddGraph(node, "then_branch");
    out = "y" + std::to_string(d + 1);
    SetValue(then_branch->add_output(), d + 1 < depth ? out : "x", int64_t{2});
    level = then_branch;
  }
  return model;
}

TEST(ControlFlowImportTest, NestingIsBounded) {
  absl::StatusOr<Graph> graph =
      ImportOnnxBytes(NestedIfModel(kMaxSubgraphDepth).SerializeAsString());
  ASSERT_TRUE(graph.ok()) << graph.status();
  // else_branch comes first in the file: it returns x.
  EXPECT_THAT(graph->nodes[0].implicit_inputs, ElementsAre("x", "cond"));
  graph =
      ImportOnnxBytes(NestedIfModel(kMaxSubgraphDepth + 1).SerializeAsString());
  ASSERT_FALSE(graph.ok());
  EXPECT_THAT(Message(graph.status()),
              AllOf(HasSubstr("node 'if/then_branch/if/then_branch/"),
                    HasSubstr("subgraphs nest more than 32 deep")));
  // Far deeper than protobuf parses: an error, no crash.
  graph = ImportOnnxBytes(NestedIfModel(200).SerializeAsString());
  ASSERT_FALSE(graph.ok());
  EXPECT_THAT(Message(graph.status()), HasSubstr("does not parse"));
}

// Bytes after a stray end tag are not silently ignored.
TEST(ControlFlowImportTest, TrailingGarbageDoesNotParse) {
  std::string bytes = IfModel().SerializeAsString();
  ASSERT_TRUE(ImportOnnxBytes(bytes).ok());
  bytes += std::string("\0garbage", 8);
  EXPECT_FALSE(ParseOnnx(bytes).ok());
}

// The ONNX backend node tests' models (Debian's libonnx-testdata).
constexpr char kNodeTests[] = "/usr/share/libonnx-testdata/data/node/";

absl::StatusOr<onnx::ModelProto> ReadNodeTest(const std::string& name) {
  std::ifstream in(kNodeTests + name + "/model.onnx", std::ios::binary);
  if (!in) return absl::NotFoundError(name);
  const std::string bytes((std::istreambuf_iterator<char>(in)), {});
  return ParseOnnx(bytes);
}

// Converted (passes, model file, compile) and run on the backend tests' data.
TEST(ControlFlowImportTest, OnnxBackendModelsConvertAndRun) {
  for (const char* name : {"test_if", "test_loop11", "test_scan9_sum"}) {
    SCOPED_TRACE(name);
    const std::string dir = std::string(kNodeTests) + name;
    absl::StatusOr<Graph> graph = ConvertOnnxFile(dir + "/model.onnx");
    ASSERT_TRUE(graph.ok()) << graph.status();
    auto model = CompiledModel::Compile(*graph, BuiltinOps());
    ASSERT_TRUE(model.ok()) << model.status();
    std::vector<Tensor> inputs, outputs, expected;
    std::vector<HostBuffer> in;
    std::vector<MutableHostBuffer> out;
    for (size_t i = 0; i < graph->inputs.size(); ++i) {
      absl::StatusOr<Tensor> t = ReadTensorProto(
          dir + "/test_data_set_0/input_" + std::to_string(i) + ".pb");
      ASSERT_TRUE(t.ok()) << t.status();
      inputs.push_back(std::move(*t));
    }
    for (size_t o = 0; o < graph->outputs.size(); ++o) {
      absl::StatusOr<Tensor> t = ReadTensorProto(
          dir + "/test_data_set_0/output_" + std::to_string(o) + ".pb");
      ASSERT_TRUE(t.ok()) << t.status();
      expected.push_back(std::move(*t));
      outputs.emplace_back(graph->outputs[o].info.dtype,
                           graph->outputs[o].info.shape);
    }
    for (const Tensor& t : inputs) in.push_back({t.data(), t.ByteSize()});
    for (Tensor& t : outputs) out.push_back({t.data(), t.ByteSize()});
    const absl::Status run = (*model)->Execute(in, out);
    ASSERT_TRUE(run.ok()) << run;
    for (size_t o = 0; o < outputs.size(); ++o) {
      ASSERT_EQ(outputs[o].info(), expected[o].info());
      const float* got = outputs[o].as<float>();
      const float* want = expected[o].as<float>();
      for (int64_t i = 0; i < outputs[o].NumElements(); ++i) {
        EXPECT_NEAR(got[i], want[i], 1e-6)
            << "output " << o << " [" << i << "]";
      }
    }
  }
}

TEST(ControlFlowImportTest, OnnxBackendModelsImport) {
  absl::StatusOr<onnx::ModelProto> proto = ReadNodeTest("test_if");
  ASSERT_TRUE(proto.ok()) << proto.status();
  absl::StatusOr<Graph> graph = ImportOnnx(*proto);
  ASSERT_TRUE(graph.ok()) << graph.status();
  const GraphNode& branch = graph->nodes[0];
  EXPECT_EQ(branch.name, "If_0");
  // Attribute order as in the file: else_branch first.
  EXPECT_THAT(SubgraphNames(branch), ElementsAre("else_branch", "then_branch"));
  EXPECT_TRUE(branch.implicit_inputs.empty());
  const Graph& else_branch = *branch.subgraphs[0].second;
  ASSERT_EQ(else_branch.nodes.size(), 1u);
  EXPECT_EQ(else_branch.nodes[0].name, "Constant_0");
  EXPECT_EQ(else_branch.outputs[0].info.ToString(), "float32[5]");
  EXPECT_FALSE(else_branch.outputs[0].infer_shape);

  proto = ReadNodeTest("test_loop11");
  ASSERT_TRUE(proto.ok()) << proto.status();
  graph = ImportOnnx(*proto);
  ASSERT_TRUE(graph.ok()) << graph.status();
  const GraphNode& loop = graph->nodes[0];
  EXPECT_EQ(loop.op_type, "Loop");
  EXPECT_THAT(loop.outputs, ElementsAre("res_y", "res_scan"));
  EXPECT_TRUE(loop.implicit_inputs.empty());
  const Graph& body = *loop.subgraphs[0].second;
  EXPECT_EQ(body.name, "loop_body");
  EXPECT_EQ(body.inputs.size(), 3u);
  EXPECT_EQ(body.outputs.size(), 3u);
  EXPECT_EQ(body.nodes.size(), 9u);

  proto = ReadNodeTest("test_scan9_sum");
  ASSERT_TRUE(proto.ok()) << proto.status();
  graph = ImportOnnx(*proto);
  ASSERT_TRUE(graph.ok()) << graph.status();
  const GraphNode& scan = graph->nodes[0];
  EXPECT_EQ(scan.op_type, "Scan");
  EXPECT_EQ(*scan.attrs.GetInt("num_scan_inputs", 0), 1);
  EXPECT_THAT(SubgraphNames(scan), ElementsAre("body"));
  EXPECT_EQ(scan.subgraphs[0].second->inputs[1].info.ToString(), "float32[2]");

  // Sequences are not tensors: a clear error.
  proto = ReadNodeTest("test_loop13_seq");
  ASSERT_TRUE(proto.ok()) << proto.status();
  graph = ImportOnnx(*proto);
  ASSERT_FALSE(graph.ok());
  EXPECT_THAT(Message(graph.status()), HasSubstr("is not a tensor"));
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
