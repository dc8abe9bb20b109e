// A model quantized as PyTorch exports it, converted: its DequantizeLinear ->
// op -> QuantizeLinear groups run on 8-bit values and give ONNX Runtime's
// outputs bit for bit (testdata/qdq: ONNX Runtime's outputs for its input).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "base/status_macros.h"
#include "kernels/npy.h"
#include "kernels/ops.h"
#include "onnx/onnx.pb.h"
#include "runtime/compiled_model.h"
#include "runtime/converter.h"
#include "runtime/passes.h"

namespace acldump {
namespace {

using ::testing::Contains;
using ::testing::IsSupersetOf;
using ::testing::UnorderedElementsAre;

constexpr char kModel[] = "testdata/qdq/qdq_resnet.onnx";

std::map<std::string, int> OpCounts(const Graph& graph) {
  std::map<std::string, int> counts;
  for (const GraphNode& node : graph.nodes) ++counts[node.op_type];
  return counts;
}

const GraphNode* NodeOf(const Graph& graph, const std::string& op) {
  for (const GraphNode& node : graph.nodes) {
    if (node.op_type == op) return &node;
  }
  return nullptr;
}

// Runs `graph` on the model's test input; its outputs by name.
absl::StatusOr<std::map<std::string, Tensor>> RunOnTestInput(
    const Graph& graph) {
  ASSIGN_OR_RETURN(Tensor x,
                   ReadNpyFile("testdata/qdq/qdq_resnet.input.x.npy"));
  ASSIGN_OR_RETURN(auto model, CompiledModel::Compile(graph, BuiltinOps()));
  ASSIGN_OR_RETURN(std::vector<Tensor> outputs,
                   model->ExecuteToTensors({&x, 1}));
  std::map<std::string, Tensor> named;
  for (size_t i = 0; i < outputs.size(); ++i) {
    named.emplace(graph.outputs[i].name, std::move(outputs[i]));
  }
  return named;
}

void ExpectSameBytes(const Tensor& actual, const std::string& reference) {
  absl::StatusOr<Tensor> expected = ReadNpyFile(reference);
  ASSERT_TRUE(expected.ok()) << expected.status();
  ASSERT_EQ(actual.shape(), expected->shape()) << reference;
  ASSERT_EQ(actual.ByteSize(), expected->ByteSize()) << reference;
  int differing = 0;
  for (int64_t i = 0; i < actual.NumElements(); ++i) {
    differing += actual.as<float>()[i] != expected->as<float>()[i];
  }
  EXPECT_EQ(differing, 0) << reference << ": " << differing << " of "
                          << actual.NumElements() << " values differ";
}

TEST(QdqFusionTest, GroupsRunOnEightBitValuesAsOnnxRuntimeDoes) {
  absl::StatusOr<Graph> graph = ConvertOnnxFile(kModel);
  ASSERT_TRUE(graph.ok()) << graph.status();
  const std::map<std::string, int> ops = OpCounts(*graph);
  EXPECT_EQ(ops.count("QLinearConv") ? ops.at("QLinearConv") : 0, 2);
  EXPECT_EQ(ops.count("QLinearAdd"), 1u);
  EXPECT_EQ(ops.count("QLinearGlobalAveragePool"), 1u);
  EXPECT_EQ(ops.count("QGemm"), 1u);
  for (const char* gone :
       {"Conv", "Add", "Gemm", "GlobalAveragePool", "Cast"}) {
    EXPECT_EQ(ops.count(gone), 0u) << gone;
  }
  // The Relus went into the QuantizeLinear after them (zero point 0), the
  // no-op Casts into the QuantizeLinear before them; the second Relu's group
  // is the QLinearAdd.
  EXPECT_EQ(ops.count("Relu"), 0u);
  const GraphNode* add = NodeOf(*graph, "QLinearAdd");
  ASSERT_NE(add, nullptr);
  EXPECT_THAT(
      add->original_names,
      UnorderedElementsAre("residual", "relu2", "relu2_q", "relu2_cast"));
  const GraphNode* conv = NodeOf(*graph, "QLinearConv");
  ASSERT_NE(conv, nullptr);
  EXPECT_THAT(conv->original_names,
              UnorderedElementsAre("conv1", "relu1", "relu1_q", "relu1_cast"));
  // Weights and biases are read as the int8 / int32 values the file holds.
  EXPECT_EQ(graph->initializers.at(conv->inputs[3])->dtype(), DType::kInt8);
  EXPECT_EQ(graph->initializers.at(conv->inputs[8])->dtype(), DType::kInt32);

  absl::StatusOr<std::map<std::string, Tensor>> out = RunOnTestInput(*graph);
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectSameBytes(out->at("logits"),
                  "testdata/qdq/qdq_resnet.output.logits.npy");
  ExpectSameBytes(out->at("features"),
                  "testdata/qdq/qdq_resnet.output.features.npy");
}

TEST(QdqFusionTest, UnfusedKeepsTheFloatOperators) {
  absl::StatusOr<Graph> graph = ConvertOnnxFile(kModel, PassOptions::Unfused());
  ASSERT_TRUE(graph.ok()) << graph.status();
  const std::map<std::string, int> ops = OpCounts(*graph);
  EXPECT_EQ(ops.count("QLinearConv"), 0u);
  EXPECT_EQ(ops.at("Conv"), 2);
  EXPECT_EQ(ops.at("QuantizeLinear"), 6);
  absl::StatusOr<std::map<std::string, Tensor>> out = RunOnTestInput(*graph);
  ASSERT_TRUE(out.ok()) << out.status();
  // No value of this model lies on a rounding boundary of its float path.
  ExpectSameBytes(out->at("logits"),
                  "testdata/qdq/qdq_resnet.output.logits.npy");
}

// The model with `edit` applied to its proto, converted.
absl::StatusOr<Graph> ConvertEdited(
    const std::function<void(onnx::ModelProto&)>& edit) {
  std::ifstream file(kModel, std::ios::binary);
  std::stringstream bytes;
  bytes << file.rdbuf();
  onnx::ModelProto proto;
  if (!proto.ParseFromString(bytes.str())) {
    return absl::InternalError("cannot parse the test model");
  }
  edit(proto);
  return ConvertOnnx(proto.SerializeAsString());
}

onnx::TensorProto* Initializer(onnx::ModelProto& proto,
                               const std::string& name) {
  for (onnx::TensorProto& t : *proto.mutable_graph()->mutable_initializer()) {
    if (t.name() == name) return &t;
  }
  return nullptr;
}

// Multiplies the first float of a raw-data tensor by `factor`.
void ScaleFirstFloat(onnx::TensorProto* tensor, float factor) {
  std::string raw = tensor->raw_data();
  float value;
  std::memcpy(&value, raw.data(), sizeof(float));
  value *= factor;
  std::memcpy(raw.data(), &value, sizeof(float));
  tensor->set_raw_data(raw);
}

onnx::NodeProto MakeNode(const std::string& op, const std::string& name,
                         const std::vector<std::string>& inputs,
                         const std::string& output) {
  onnx::NodeProto node;
  node.set_op_type(op);
  node.set_name(name);
  for (const std::string& input : inputs) node.add_input(input);
  node.add_output(output);
  return node;
}

TEST(QdqFusionTest, GroupsWhoseIntegersWouldDifferStayFloat) {
  // A bias whose scale is not x_scale * w_scale: its int32 values cannot be
  // added to the integer sum, so conv1 stays a float Conv.
  absl::StatusOr<Graph> graph = ConvertEdited([](onnx::ModelProto& proto) {
    onnx::TensorProto* scale = Initializer(proto, "conv1.b_scale");
    ASSERT_NE(scale, nullptr);
    ScaleFirstFloat(scale, 2.0f);
  });
  ASSERT_TRUE(graph.ok()) << graph.status();
  std::map<std::string, int> ops = OpCounts(*graph);
  EXPECT_EQ(ops.at("QLinearConv"), 1);
  EXPECT_EQ(ops.at("Conv"), 1);
  EXPECT_TRUE(RunOnTestInput(*graph).ok());

  // A Relu before a QuantizeLinear whose zero point is not the lowest value
  // clamps differently: it stays, and so does its Conv's float group.
  graph = ConvertEdited([](onnx::ModelProto& proto) {
    onnx::TensorProto* zero = Initializer(proto, "relu1.zero_point");
    ASSERT_NE(zero, nullptr);
    zero->set_raw_data(std::string(1, '\x05'));
  });
  ASSERT_TRUE(graph.ok()) << graph.status();
  ops = OpCounts(*graph);
  EXPECT_EQ(ops.at("QLinearConv"), 1);
  EXPECT_THAT(ops, Contains(std::pair<const std::string, int>("Conv", 1)));
  const GraphNode* conv = NodeOf(*graph, "Conv");
  ASSERT_NE(conv, nullptr);
  EXPECT_THAT(conv->original_names, IsSupersetOf({"conv1", "relu1"}));
  EXPECT_TRUE(RunOnTestInput(*graph).ok());

  // Gemm's alpha scales the product, not the bias: with a bias and alpha 2
  // the classifier stays a float Gemm.
  graph = ConvertEdited([](onnx::ModelProto& proto) {
    for (onnx::NodeProto& node : *proto.mutable_graph()->mutable_node()) {
      if (node.op_type() != "Gemm") continue;
      onnx::AttributeProto* alpha = node.add_attribute();
      alpha->set_name("alpha");
      alpha->set_type(onnx::AttributeProto::FLOAT);
      alpha->set_f(2.0f);
    }
  });
  ASSERT_TRUE(graph.ok()) << graph.status();
  ops = OpCounts(*graph);
  EXPECT_EQ(ops.count("QGemm"), 0u);
  EXPECT_EQ(ops.at("Gemm"), 1);
  EXPECT_TRUE(RunOnTestInput(*graph).ok());
}

// The model with a 3x3 MaxPool quantized as PyTorch writes it (DQ -> MaxPool
// -> Q -> DQ, relu1's scale and zero point on both sides) between relu1 and
// conv2; with `float_reader`, a graph output reads the float maximum too.
absl::StatusOr<Graph> WithMaxPool(bool float_reader, bool other_scale = false) {
  return ConvertEdited([&](onnx::ModelProto& proto) {
    onnx::GraphProto* graph = proto.mutable_graph();
    int conv2 = -1;
    for (int i = 0; i < graph->node_size(); ++i) {
      if (graph->node(i).name() == "conv2") conv2 = i;
    }
    ASSERT_GE(conv2, 0);
    ASSERT_EQ(graph->node(conv2).input(0), "relu1_dq");
    if (other_scale) {
      onnx::TensorProto* scale = graph->add_initializer();
      *scale = *Initializer(proto, "relu1.scale");
      scale->set_name("mp.scale");
      ScaleFirstFloat(scale, 1.5f);
    }
    const std::string scale = other_scale ? "mp.scale" : "relu1.scale";
    const std::string zero = "relu1.zero_point";
    std::vector<onnx::NodeProto> added = {
        MakeNode("MaxPool", "mp", {"relu1_dq"}, "mp"),
        MakeNode("QuantizeLinear", "mp_q", {"mp", scale, zero}, "mp_q"),
        MakeNode("DequantizeLinear", "mp_dq", {"mp_q", scale, zero}, "mp_dq")};
    for (const char* name : {"kernel_shape", "pads"}) {
      onnx::AttributeProto* attr = added[0].add_attribute();
      attr->set_name(name);
      attr->set_type(onnx::AttributeProto::INTS);
      for (int v : name == std::string("pads") ? std::vector<int>{1, 1, 1, 1}
                                               : std::vector<int>{3, 3}) {
        attr->add_ints(v);
      }
    }
    graph->mutable_node(conv2)->set_input(0, "mp_dq");
    // Insert before conv2, keeping the nodes in order.
    std::vector<onnx::NodeProto> nodes(graph->node().begin(),
                                       graph->node().end());
    nodes.insert(nodes.begin() + conv2, added.begin(), added.end());
    graph->clear_node();
    for (onnx::NodeProto& node : nodes) *graph->add_node() = std::move(node);
    if (float_reader) {
      onnx::ValueInfoProto* out = graph->add_output();
      *out = graph->output(0);
      out->set_name("mp");
      out->mutable_type()->mutable_tensor_type()->clear_shape();
    }
  });
}

// DequantizeLinear -> MaxPool -> QuantizeLinear with one scale and zero
// point pools the 8-bit values (as ONNX Runtime does): the same outputs, bit
// for bit, as pooling the dequantized floats and quantizing them back.
TEST(QdqFusionTest, MaxPoolBetweenEqualQuantizationsPoolsTheBytes) {
  absl::StatusOr<Graph> fused = WithMaxPool(/*float_reader=*/false);
  ASSERT_TRUE(fused.ok()) << fused.status();
  const GraphNode* pool = NodeOf(*fused, "MaxPool");
  ASSERT_NE(pool, nullptr);
  EXPECT_THAT(pool->original_names, IsSupersetOf({"mp", "mp_q"}));
  // Its input is relu1's 8-bit output, its output the one conv2 reads.
  const GraphNode* conv2 = nullptr;
  for (const GraphNode& node : fused->nodes) {
    for (const std::string& name : node.original_names) {
      if (name == "conv2") conv2 = &node;
    }
  }
  ASSERT_NE(conv2, nullptr);
  EXPECT_EQ(conv2->op_type, "QLinearConv");
  EXPECT_EQ(conv2->inputs[0], pool->outputs[0]);

  // A second reader of the float maximum keeps the float MaxPool group.
  absl::StatusOr<Graph> unfused = WithMaxPool(/*float_reader=*/true);
  ASSERT_TRUE(unfused.ok()) << unfused.status();
  const GraphNode* float_pool = NodeOf(*unfused, "MaxPool");
  ASSERT_NE(float_pool, nullptr);
  EXPECT_EQ(OpCounts(*unfused).at("QuantizeLinear"),
            OpCounts(*fused).at("QuantizeLinear") + 1);

  absl::StatusOr<std::map<std::string, Tensor>> a = RunOnTestInput(*fused);
  absl::StatusOr<std::map<std::string, Tensor>> b = RunOnTestInput(*unfused);
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(b.ok()) << b.status();
  for (const char* output : {"logits", "features"}) {
    const Tensor& x = a->at(output);
    const Tensor& y = b->at(output);
    ASSERT_EQ(x.ByteSize(), y.ByteSize()) << output;
    EXPECT_EQ(std::memcmp(x.data(), y.data(), x.ByteSize()), 0) << output;
  }

  // A QuantizeLinear with another scale requantizes: the group stays float.
  absl::StatusOr<Graph> rescaled =
      WithMaxPool(/*float_reader=*/false, /*other_scale=*/true);
  ASSERT_TRUE(rescaled.ok()) << rescaled.status();
  bool requantized = false;
  for (const GraphNode& node : rescaled->nodes) {
    requantized |= node.op_type == "QuantizeLinear" &&
                   node.original_names == std::vector<std::string>{"mp_q"};
  }
  EXPECT_TRUE(requantized);
  EXPECT_TRUE(RunOnTestInput(*rescaled).ok());
}

}  // namespace
}  // namespace acldump
