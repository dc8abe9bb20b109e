#include "runtime/onnx_sequences.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

#include "base/status_macros.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kernels/ops.h"
#include "runtime/compiled_model.h"
#include "runtime/converter.h"
#include "runtime/onnx_import.h"
#include "runtime/onnx_tensors.h"
#include "runtime/onnx_test_builders.h"

namespace acldump {
namespace {

using ::acldump::testing::AddInt;
using ::acldump::testing::AddNode;
using ::acldump::testing::ReadTensorProto;

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

void SetTensor(onnx::ValueInfoProto* value, const std::string& name,
               onnx::TensorProto::DataType type, std::vector<int64_t> dims) {
  value->set_name(name);
  auto* tensor = value->mutable_type()->mutable_tensor_type();
  tensor->set_elem_type(type);
  auto* shape = tensor->mutable_shape();
  for (int64_t d : dims) shape->add_dim()->set_dim_value(d);
}

// A Constant node: an int64 scalar, or a bool scalar.
void AddScalar(onnx::GraphProto* graph, const std::string& name,
               int64_t value) {
  onnx::NodeProto* node = AddNode(graph, "Constant", {}, {name});
  onnx::AttributeProto* attr = node->add_attribute();
  attr->set_name("value");
  attr->set_type(onnx::AttributeProto::TENSOR);
  attr->mutable_t()->set_data_type(onnx::TensorProto::INT64);
  attr->mutable_t()->add_int64_data(value);
}

void AddTrue(onnx::GraphProto* graph, const std::string& name) {
  onnx::NodeProto* node = AddNode(graph, "Constant", {}, {name});
  onnx::AttributeProto* attr = node->add_attribute();
  attr->set_name("value");
  attr->set_type(onnx::AttributeProto::TENSOR);
  attr->mutable_t()->set_data_type(onnx::TensorProto::BOOL);
  attr->mutable_t()->add_int32_data(1);
}

struct LoopOptions {
  std::string trip_count = "trips";  // empty: none
  bool body_condition_computed = false;
  // The body's condition is a constant false: one iteration, and only
  // `first`, `last`, `stacked` and `count` are read.
  bool stop_after_first = false;
};

// What PyTorch writes for a list built in a loop: a Loop (3 iterations) that
// appends x + iteration to a sequence, then reads of the sequence:
//   first = seq[0], last = seq[-1], count = len(seq),
//   stacked = ConcatFromSequence(seq, axis 0, new_axis 1),
//   after_erase = Erase(seq, 1)[1] (x + 2), front = Insert(seq, x, 0)[0] (x),
//   erase_negative = Erase(seq, -2)[-1] (x + 2),
//   insert_negative = Insert(seq, x, -1)[2] (x).
onnx::ModelProto ListLoopModel(const LoopOptions& options = {}) {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.add_opset_import()->set_version(14);
  onnx::GraphProto* g = model.mutable_graph();
  g->set_name("list_loop");
  SetTensor(g->add_input(), "x", onnx::TensorProto::FLOAT, {4});
  if (options.trip_count != "trips") {
    SetTensor(g->add_input(), options.trip_count, onnx::TensorProto::INT64, {});
  }
  const bool all_reads = !options.stop_after_first;
  for (const char* out : {"first", "last", "after_erase", "front",
                          "erase_negative", "insert_negative"}) {
    if (all_reads || std::string(out) == "first" ||
        std::string(out) == "last") {
      SetTensor(g->add_output(), out, onnx::TensorProto::FLOAT, {4});
    }
  }
  SetTensor(g->add_output(), "stacked", onnx::TensorProto::FLOAT,
            {all_reads ? 3 : 1, 4});
  SetTensor(g->add_output(), "count", onnx::TensorProto::INT64, {});
  AddScalar(g, "trips", 3);
  AddTrue(g, "keep_going");
  AddScalar(g, "zero", 0);
  AddScalar(g, "one", 1);
  AddScalar(g, "minus_one", -1);
  AddScalar(g, "minus_two", -2);
  AddScalar(g, "two", 2);
  AddNode(g, "SequenceEmpty", {}, {"empty"});
  onnx::NodeProto* loop =
      AddNode(g, "Loop", {options.trip_count, "keep_going", "empty"}, {"seq"});
  loop->set_name("loop");
  onnx::AttributeProto* attr = loop->add_attribute();
  attr->set_name("body");
  attr->set_type(onnx::AttributeProto::GRAPH);
  onnx::GraphProto* body = attr->mutable_g();
  body->set_name("body");
  SetTensor(body->add_input(), "i", onnx::TensorProto::INT64, {});
  SetTensor(body->add_input(), "cond", onnx::TensorProto::BOOL, {});
  body->add_input()->set_name("seq_in");
  SetTensor(body->add_output(), "cond_out", onnx::TensorProto::BOOL, {});
  body->add_output()->set_name("seq_out");
  AddInt(AddNode(body, "Cast", {"i"}, {"i_float"}), "to",
         onnx::TensorProto::FLOAT);
  AddNode(body, "Add", {"x", "i_float"}, {"piece"})->set_name("add");
  AddNode(body, "SequenceInsert", {"seq_in", "piece"}, {"seq_out"});
  if (options.body_condition_computed) {
    AddNode(body, "Less", {"i", "trips"}, {"cond_out"});
  } else if (options.stop_after_first) {
    onnx::NodeProto* stop = AddNode(body, "Constant", {}, {"stop"});
    onnx::AttributeProto* value = stop->add_attribute();
    value->set_name("value");
    value->set_type(onnx::AttributeProto::TENSOR);
    value->mutable_t()->set_data_type(onnx::TensorProto::BOOL);
    value->mutable_t()->add_int32_data(0);
    AddNode(body, "Identity", {"stop"}, {"cond_out"});
  } else {
    AddNode(body, "Identity", {"cond"}, {"cond_out"});
  }
  AddNode(g, "SequenceAt", {"seq", "zero"}, {"first"});
  AddNode(g, "SequenceAt", {"seq", "minus_one"}, {"last"});
  AddNode(g, "SequenceLength", {"seq"}, {"count"});
  onnx::NodeProto* concat =
      AddNode(g, "ConcatFromSequence", {"seq"}, {"stacked"});
  AddInt(concat, "axis", 0);
  AddInt(concat, "new_axis", 1);
  if (!all_reads) return model;
  AddNode(g, "SequenceErase", {"seq", "one"}, {"erased"});
  AddNode(g, "SequenceAt", {"erased", "one"}, {"after_erase"});
  AddNode(g, "SequenceInsert", {"seq", "x", "zero"}, {"inserted"});
  AddNode(g, "SequenceAt", {"inserted", "zero"}, {"front"});
  AddNode(g, "SequenceErase", {"seq", "minus_two"}, {"erased_2"});
  AddNode(g, "SequenceAt", {"erased_2", "minus_one"}, {"erase_negative"});
  AddNode(g, "SequenceInsert", {"seq", "x", "minus_one"}, {"inserted_2"});
  AddNode(g, "SequenceAt", {"inserted_2", "two"}, {"insert_negative"});
  return model;
}

std::string Message(const absl::Status& status) {
  return std::string(status.message());
}

std::vector<float> Floats(const Tensor& t) {
  return {t.as<float>(), t.as<float>() + t.NumElements()};
}

// Converts and runs a model of one float32 input [4]; its outputs.
absl::StatusOr<std::vector<Tensor>> ConvertAndRun(
    const onnx::ModelProto& proto, const std::vector<float>& x_values) {
  ASSIGN_OR_RETURN(Graph graph, ConvertOnnx(proto.SerializeAsString()));
  ASSIGN_OR_RETURN(auto model, CompiledModel::Compile(graph, BuiltinOps()));
  Tensor x(DType::kFloat32, Shape({4}));
  std::copy(x_values.begin(), x_values.end(), x.as<float>());
  return model->ExecuteToTensors({&x, 1});
}

TEST(StaticSequencesTest, ListBuiltInALoopRunsAsTensors) {
  absl::StatusOr<std::vector<Tensor>> run =
      ConvertAndRun(ListLoopModel(), {1.5f, -2.0f, 0.0f, 8.25f});
  ASSERT_TRUE(run.ok()) << run.status();
  const std::vector<Tensor>& outputs = *run;
  EXPECT_THAT(Floats(outputs[0]), ElementsAre(1.5f, -2.0f, 0.0f, 8.25f));
  EXPECT_THAT(Floats(outputs[1]), ElementsAre(3.5f, 0.0f, 2.0f, 10.25f));
  EXPECT_THAT(Floats(outputs[2]), ElementsAre(3.5f, 0.0f, 2.0f, 10.25f));
  EXPECT_THAT(Floats(outputs[3]), ElementsAre(1.5f, -2.0f, 0.0f, 8.25f));
  EXPECT_THAT(Floats(outputs[4]), ElementsAre(3.5f, 0.0f, 2.0f, 10.25f));
  EXPECT_THAT(Floats(outputs[5]), ElementsAre(1.5f, -2.0f, 0.0f, 8.25f));
  ASSERT_EQ(outputs[6].shape(), Shape({3, 4}));
  EXPECT_THAT(Floats(outputs[6]),
              ElementsAreArray({1.5f, -2.0f, 0.0f, 8.25f, 2.5f, -1.0f, 1.0f,
                                9.25f, 3.5f, 0.0f, 2.0f, 10.25f}));
  ASSERT_EQ(outputs[7].dtype(), DType::kInt64);
  EXPECT_EQ(*outputs[7].as<int64_t>(), 3);
}

// The condition the body computes in iteration i decides whether i + 1 runs.
TEST(StaticSequencesTest, ALoopStopsWhereItsConditionIsFalse) {
  LoopOptions options;
  options.stop_after_first = true;
  absl::StatusOr<std::vector<Tensor>> run =
      ConvertAndRun(ListLoopModel(options), {0.25f, 0.25f, 0.25f, 0.25f});
  ASSERT_TRUE(run.ok()) << run.status();
  const std::vector<Tensor>& outputs = *run;
  EXPECT_THAT(Floats(outputs[1]), ElementsAre(0.25f, 0.25f, 0.25f, 0.25f));
  ASSERT_EQ(outputs[2].shape(), Shape({1, 4}));
  EXPECT_EQ(*outputs[3].as<int64_t>(), 1);
}

TEST(StaticSequencesTest, UnrolledBodyNodesAreNamedAsTheDumpNamesIterations) {
  absl::StatusOr<Graph> graph = ImportOnnx(ListLoopModel());
  ASSERT_TRUE(graph.ok()) << graph.status();
  std::vector<std::string> adds;
  for (const GraphNode& node : graph->nodes) {
    EXPECT_FALSE(IsSequenceOp(node.op_type)) << node.name;
    EXPECT_NE(node.op_type, "Loop");
    if (node.op_type != "Add") continue;
    adds.push_back(node.name);
    EXPECT_THAT(node.original_names, ElementsAre("add", "loop/body/add"));
  }
  EXPECT_THAT(adds, ElementsAre("loop/body/0/add", "loop/body/1/add",
                                "loop/body/2/add"));
}

// Names the pass makes do not take a name the model uses: a body value
// called "iteration" beside the iteration count's constant, and a Loop
// output passed on by Identity.
TEST(StaticSequencesTest, GeneratedNamesStayClearOfTheModels) {
  onnx::ModelProto model = ListLoopModel();
  for (onnx::NodeProto& node : *model.mutable_graph()->mutable_node()) {
    if (node.op_type() != "Loop") continue;
    for (onnx::NodeProto& inner :
         *node.mutable_attribute(0)->mutable_g()->mutable_node()) {
      for (std::string& name : *inner.mutable_input()) {
        if (name == "i_float") name = "iteration";
      }
      for (std::string& name : *inner.mutable_output()) {
        if (name == "i_float") name = "iteration";
      }
    }
  }
  // `seq` passed on by Identity is the same sequence.
  AddNode(model.mutable_graph(), "Identity", {"seq"}, {"seq_again"});
  AddNode(model.mutable_graph(), "SequenceLength", {"seq_again"},
          {"count_again"});
  SetTensor(model.mutable_graph()->add_output(), "count_again",
            onnx::TensorProto::INT64, {});
  absl::StatusOr<Graph> graph = ConvertOnnx(model.SerializeAsString());
  ASSERT_TRUE(graph.ok()) << graph.status();
  auto compiled = CompiledModel::Compile(*graph, BuiltinOps());
  ASSERT_TRUE(compiled.ok()) << compiled.status();
}

// A scalar split is a piece size: x [4] in pieces of 3 is [3] and [1].
TEST(StaticSequencesTest, AScalarSplitCutsAKnownLengthIntoPiecesOfThatSize) {
  onnx::ModelProto model = ListLoopModel();
  onnx::GraphProto* g = model.mutable_graph();
  AddScalar(g, "three", 3);
  AddNode(g, "SplitToSequence", {"x", "three"}, {"pieces"});
  AddNode(g, "SequenceAt", {"pieces", "minus_one"}, {"tail"});
  SetTensor(g->add_output(), "tail", onnx::TensorProto::FLOAT, {1});
  absl::StatusOr<std::vector<Tensor>> run =
      ConvertAndRun(model, {1.0f, 2.0f, 3.0f, 4.0f});
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_THAT(Floats(run->back()), ElementsAre(4.0f));
}

TEST(StaticSequencesTest, AGraphWithoutSequenceOpsIsLeftAlone) {
  onnx::GraphProto graph;
  AddNode(&graph, "Relu", {"x"}, {"y"});
  absl::StatusOr<std::optional<ResolvedSequences>> resolved =
      ResolveStaticSequences(graph, 14);
  ASSERT_TRUE(resolved.ok()) << resolved.status();
  EXPECT_FALSE(resolved->has_value());
}

TEST(StaticSequencesTest, WhatIsKnownOnlyAtRunTimeIsAClearError) {
  struct Case {
    const char* what;
    std::function<void(onnx::ModelProto&)> edit;
    const char* message;
  };
  const std::vector<Case> cases = {
      {"position from an input",
       [](onnx::ModelProto& m) {
         SetTensor(m.mutable_graph()->add_input(), "where",
                   onnx::TensorProto::INT64, {});
         AddNode(m.mutable_graph(), "SequenceAt", {"seq", "where"}, {"z"});
       },
       "position 'where' is known only when the model runs"},
      {"position out of range",
       [](onnx::ModelProto& m) {
         AddScalar(m.mutable_graph(), "five", 5);
         AddNode(m.mutable_graph(), "SequenceAt", {"seq", "five"}, {"z"});
       },
       "position 5 is outside [-3, 2] for a sequence of 3 tensors"},
      {"sequence as a graph output",
       [](onnx::ModelProto& m) {
         m.mutable_graph()->add_output()->set_name("seq");
       },
       "graph output 'seq' is a sequence"},
      {"sequence into another operator",
       [](onnx::ModelProto& m) {
         AddNode(m.mutable_graph(), "Add", {"seq", "x"}, {"z"});
       },
       "takes the sequence 'seq' as an input"},
      {"a Loop unrolled past its bound",
       [](onnx::ModelProto& m) {
         onnx::NodeProto* trips = m.mutable_graph()->mutable_node(0);
         ASSERT_EQ(trips->output(0), "trips");
         trips->mutable_attribute(0)->mutable_t()->set_int64_data(0, 5000);
       },
       "trip count 5000 is more than 4096 (the Loop is unrolled)"},
      {"a Loop unrolled into too many nodes",
       [](onnx::ModelProto& m) {
         onnx::GraphProto* g = m.mutable_graph();
         g->mutable_node(0)->mutable_attribute(0)->mutable_t()->set_int64_data(
             0, 4096);
         for (onnx::NodeProto& node : *g->mutable_node()) {
           if (node.op_type() != "Loop") continue;
           onnx::GraphProto* body = node.mutable_attribute(0)->mutable_g();
           for (int i = 0; i < 13; ++i) {
             AddNode(body, "Identity", {"piece"},
                     {"copy_" + std::to_string(i)});
           }
         }
       },
       "unrolling the Loops that build sequences would make more than 65536 "
       "nodes"},
      {"more work than the budget",
       [](onnx::ModelProto& m) {
         onnx::NodeProto* wide =
             AddNode(m.mutable_graph(), "SequenceConstruct", {}, {"wide_0"});
         for (int i = 0; i < 4096; ++i) wide->add_input("x");
         // Each insert copies the 4096-element list.
         for (int i = 1; i <= 300; ++i) {
           AddNode(m.mutable_graph(), "SequenceInsert",
                   {"wide_" + std::to_string(i - 1), "x"},
                   {"wide_" + std::to_string(i)});
         }
       },
       "resolving the model's sequences takes more than 1048576 nodes and "
       "copied elements"},
      {"a sequence op without an output",
       [](onnx::ModelProto& m) {
         AddNode(m.mutable_graph(), "SequenceLength", {"seq"}, {""});
       },
       "needs exactly one named output"},
      {"a sequence of sequences",
       [](onnx::ModelProto& m) {
         AddNode(m.mutable_graph(), "SequenceInsert", {"seq", "seq"}, {"z"});
       },
       "'seq' is a sequence: sequences of sequences are not supported"},
      {"split sizes from a computed value's shape",
       [](onnx::ModelProto& m) {
         AddNode(m.mutable_graph(), "Relu", {"x"}, {"relu_x"});
         AddNode(m.mutable_graph(), "SplitToSequence", {"relu_x"}, {"parts"});
       },
       "no split sizes are given: the number of pieces depends on the length "
       "of 'relu_x' along axis 0"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    onnx::ModelProto model = ListLoopModel();
    c.edit(model);
    absl::StatusOr<Graph> graph = ImportOnnx(model);
    ASSERT_FALSE(graph.ok());
    EXPECT_THAT(Message(graph.status()), HasSubstr(c.message));
  }
}

TEST(StaticSequencesTest, ALoopWhoseLengthIsKnownOnlyAtRunTimeIsNotUnrolled) {
  LoopOptions from_input;
  from_input.trip_count = "n";
  absl::StatusOr<Graph> graph = ImportOnnx(ListLoopModel(from_input));
  ASSERT_FALSE(graph.ok());
  EXPECT_THAT(Message(graph.status()),
              HasSubstr("node 'loop' (Loop): trip count 'n' is known only "
                        "when the model runs"));

  LoopOptions computed;
  computed.body_condition_computed = true;
  graph = ImportOnnx(ListLoopModel(computed));
  ASSERT_FALSE(graph.ok());
  EXPECT_THAT(Message(graph.status()),
              HasSubstr("its body computes its condition ('cond_out')"));

  // The converter lists the sequence operators it could not resolve, and why.
  absl::StatusOr<Graph> converted =
      ConvertOnnx(ListLoopModel(from_input).SerializeAsString());
  ASSERT_FALSE(converted.ok());
  EXPECT_THAT(Message(converted.status()),
              HasSubstr("op type 'SequenceEmpty' is not supported"));
  EXPECT_THAT(Message(converted.status()),
              HasSubstr("The sequences were not resolved: node 'loop' "
                        "(Loop): trip count 'n' is known only"));
}

// ONNX's own sequence models (Debian's libonnx-testdata): those whose
// positions are constants (initializers: the import takes an initializer that
// is also a graph input as a constant) run and give the reference outputs;
// those whose split sizes come from an input or from its shape are refused at
// convert time.
constexpr char kSimpleTests[] = "/usr/share/libonnx-testdata/data/simple/";

TEST(StaticSequencesTest, OnnxSequenceModelsWithConstantLayoutsRun) {
  for (const char* name :
       {"test_sequence_model1", "test_sequence_model2", "test_sequence_model3",
        "test_sequence_model4", "test_sequence_model5", "test_sequence_model6",
        "test_sequence_model7"}) {
    SCOPED_TRACE(name);
    const std::string dir = std::string(kSimpleTests) + name;
    absl::StatusOr<Graph> graph = ConvertOnnxFile(dir + "/model.onnx");
    ASSERT_TRUE(graph.ok()) << graph.status();
    auto model = CompiledModel::Compile(*graph, BuiltinOps());
    ASSERT_TRUE(model.ok()) << model.status();
    std::vector<Tensor> inputs;
    std::vector<HostBuffer> in;
    for (size_t i = 0; i < graph->inputs.size(); ++i) {
      absl::StatusOr<Tensor> t = ReadTensorProto(
          dir + "/test_data_set_0/input_" + std::to_string(i) + ".pb");
      ASSERT_TRUE(t.ok()) << t.status();
      inputs.push_back(std::move(*t));
    }
    for (const Tensor& t : inputs) in.push_back({t.data(), t.ByteSize()});
    absl::StatusOr<Tensor> expected =
        ReadTensorProto(dir + "/test_data_set_0/output_0.pb");
    ASSERT_TRUE(expected.ok()) << expected.status();
    Tensor output(graph->outputs[0].info.dtype, graph->outputs[0].info.shape);
    MutableHostBuffer out[] = {{output.data(), output.ByteSize()}};
    const absl::Status run = (*model)->Execute(in, out);
    ASSERT_TRUE(run.ok()) << run;
    ASSERT_EQ(output.info(), expected->info());
    // Byte for byte: model6 gives an int64 length, the others float32.
    ASSERT_EQ(output.ByteSize(), expected->ByteSize());
    EXPECT_EQ(std::memcmp(output.data(), expected->data(), output.ByteSize()),
              0);
  }
  for (auto [name, reason] : {std::pair<const char*, const char*>{
           "test_sequence_model8",
           "split 'Splits' is known only when the model runs"}}) {
    SCOPED_TRACE(name);
    absl::StatusOr<Graph> graph =
        ConvertOnnxFile(std::string(kSimpleTests) + name + "/model.onnx");
    ASSERT_FALSE(graph.ok());
    EXPECT_THAT(Message(graph.status()), HasSubstr(reason));
  }
}

}  // namespace
}  // namespace acldump
