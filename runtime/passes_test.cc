#include "runtime/passes.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "kernels/npy.h"
#include "kernels/ops.h"
#include "runtime/compiled_model.h"
#include "runtime/converter.h"
#include "runtime/model_file.h"

namespace acldump {
namespace {

using ::testing::ElementsAre;

const GraphNode* FindNode(const Graph& graph, std::string_view name) {
  for (const GraphNode& node : graph.nodes) {
    if (node.name == name) return &node;
  }
  return nullptr;
}

std::vector<std::string> NodeNames(const Graph& graph) {
  std::vector<std::string> names;
  for (const GraphNode& node : graph.nodes) names.push_back(node.name);
  return names;
}

// A node `name` of `op` reading `inputs` and writing "{name}.out".
GraphNode MakeNode(std::string name, std::string op,
                   std::vector<std::string> inputs) {
  GraphNode n;
  n.original_names = {name};
  n.name = std::move(name);
  n.op_type = std::move(op);
  n.inputs = std::move(inputs);
  n.outputs = {n.name + ".out"};
  return n;
}

// A Constant node making `value` under its own name.
GraphNode ConstantNode(const std::string& name,
                       std::shared_ptr<const Tensor> value) {
  GraphNode n = MakeNode(name, "Constant", {});
  n.outputs = {name};
  n.attrs.Set("value", std::move(value));
  return n;
}

// `graph` optimized with `options` and with every fusion off, for tests that
// set a fused graph beside its unfused self.
struct GraphPair {
  Graph fused;
  Graph plain;
};
GraphPair OptimizeBothWays(Graph graph,
                           const PassOptions& options = PassOptions()) {
  GraphPair pair{graph, std::move(graph)};
  const absl::Status fused = OptimizeGraph(pair.fused, BuiltinOps(), options);
  const absl::Status plain =
      OptimizeGraph(pair.plain, BuiltinOps(), PassOptions::Unfused());
  EXPECT_TRUE(fused.ok()) << fused;
  EXPECT_TRUE(plain.ok()) << plain;
  return pair;
}

// The default fusions plus the opt-in Conv epilogues (residual Add and
// HardSwish).
PassOptions ConvEpilogueOptions() {
  PassOptions options;
  options.fuse_conv_add = true;
  options.fuse_conv_hard_swish = true;
  return options;
}

// A Constant node making the float32 scalar `value`.
GraphNode ScalarConstant(const std::string& name, float value) {
  auto t = std::make_shared<Tensor>(DType::kFloat32, Shape({}));
  t->as<float>()[0] = value;
  return ConstantNode(name, t);
}

TEST(ConverterTest, ResNetFusesConvBatchNormReluWithConcatenatedNames) {
  absl::StatusOr<Graph> graph = ConvertOnnxFile("testdata/resnet_tiny.onnx");
  ASSERT_TRUE(graph.ok()) << graph.status();
  EXPECT_EQ(graph->name, "resnet_tiny");
  EXPECT_THAT(
      NodeNames(*graph),
      ElementsAre("conv1bn1relu1", "pool1", "conv2bn2relu2", "conv3bn3", "add1",
                  "relu_add1", "conv4bn4relu4", "conv5bn5", "conv_scbn_sc",
                  "add2", "relu_add2", "gap", "flatten", "fc", "prob"));
  const GraphNode* stem = FindNode(*graph, "conv1bn1relu1");
  ASSERT_NE(stem, nullptr);
  EXPECT_THAT(stem->original_names, ElementsAre("conv1", "bn1", "relu1"));
  EXPECT_EQ(stem->op_type, "Conv");
  EXPECT_EQ(*stem->attrs.GetString("fused_activation", ""), "Relu");
  EXPECT_EQ(stem->inputs.size(), 3u);  // folded weights and bias
  EXPECT_THAT(FindNode(*graph, "conv3bn3")->original_names,
              ElementsAre("conv3", "bn3"));
  EXPECT_FALSE(FindNode(*graph, "conv3bn3")->attrs.Has("fused_activation"));
  EXPECT_TRUE(FindNode(*graph, "flatten")->no_task);
  EXPECT_FALSE(FindNode(*graph, "fc")->no_task);
  // The batch-norm parameters were folded away.
  EXPECT_EQ(graph->initializers.count("bn1.gamma"), 0u);
}

TEST(ConverterTest, ResidualAddJoinsTheLaterConvWhenAskedFor) {
  absl::StatusOr<Graph> graph =
      ConvertOnnxFile("testdata/resnet_tiny.onnx", ConvEpilogueOptions());
  ASSERT_TRUE(graph.ok()) << graph.status();
  EXPECT_THAT(
      NodeNames(*graph),
      ElementsAre("conv1bn1relu1", "pool1", "conv2bn2relu2",
                  "conv3bn3add1relu_add1", "conv4bn4relu4", "conv5bn5",
                  "conv_scbn_scadd2relu_add2", "gap", "flatten", "fc", "prob"));
  // The residual blocks' Add and Relu join the Conv that comes later: the
  // other operand of the Add (made earlier) is its input 3.
  const GraphNode* block = FindNode(*graph, "conv3bn3add1relu_add1");
  ASSERT_NE(block, nullptr);
  EXPECT_THAT(block->original_names,
              ElementsAre("conv3", "bn3", "add1", "relu_add1"));
  EXPECT_EQ(block->inputs.size(), 4u);
  EXPECT_EQ(block->inputs[3], FindNode(*graph, "pool1")->outputs[0]);
  EXPECT_EQ(*block->attrs.GetString("fused_activation", ""), "Relu");
  const GraphNode* shortcut = FindNode(*graph, "conv_scbn_scadd2relu_add2");
  ASSERT_NE(shortcut, nullptr);
  EXPECT_EQ(shortcut->inputs[3], FindNode(*graph, "conv5bn5")->outputs[0]);
  EXPECT_FALSE(FindNode(*graph, "conv5bn5")->attrs.Has("fused_activation"));
  // The same bits as the model converted without it.
  absl::StatusOr<Graph> plain = ConvertOnnxFile("testdata/resnet_tiny.onnx");
  ASSERT_TRUE(plain.ok()) << plain.status();
  auto fused_model = CompiledModel::Compile(*graph, BuiltinOps());
  auto plain_model = CompiledModel::Compile(*plain, BuiltinOps());
  ASSERT_TRUE(fused_model.ok()) << fused_model.status();
  ASSERT_TRUE(plain_model.ok()) << plain_model.status();
  std::vector<Tensor> in;
  in.emplace_back(graph->inputs[0].info.dtype, graph->inputs[0].info.shape);
  for (int64_t i = 0; i < in[0].NumElements(); ++i)
    in[0].as<float>()[i] = std::sin(0.01f * i);
  auto a = (*fused_model)->ExecuteToTensors(in);
  auto b = (*plain_model)->ExecuteToTensors(in);
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(std::memcmp((*a)[0].data(), (*b)[0].data(), (*a)[0].ByteSize()), 0);
}

TEST(ConverterTest, MlpFusesMatMulAddIntoGemmAndKeepsConstant) {
  absl::StatusOr<Graph> graph = ConvertOnnxFile("testdata/mlp_block.onnx");
  ASSERT_TRUE(graph.ok()) << graph.status();
  const GraphNode* fc1 = FindNode(*graph, "fc1fc1_bias");
  ASSERT_NE(fc1, nullptr);
  EXPECT_EQ(fc1->op_type, "Gemm");
  EXPECT_THAT(fc1->original_names, ElementsAre("fc1", "fc1_bias"));
  EXPECT_NE(FindNode(*graph, "fc2fc2_bias"), nullptr);
  // Attention MatMuls have no constant operand: not fused.
  EXPECT_EQ(FindNode(*graph, "scores")->op_type, "MatMul");
  const GraphNode* constant = FindNode(*graph, "split_shape");
  ASSERT_NE(constant, nullptr);
  EXPECT_EQ(constant->op_type, "Constant");
  EXPECT_TRUE(FindNode(*graph, "split_heads")->no_task);
}

TEST(ConverterTest, NoFusionKeepsEveryOnnxNode) {
  const PassOptions options = PassOptions::Unfused();
  absl::StatusOr<Graph> graph =
      ConvertOnnxFile("testdata/resnet_tiny.onnx", options);
  ASSERT_TRUE(graph.ok()) << graph.status();
  EXPECT_NE(FindNode(*graph, "bn1"), nullptr);
  EXPECT_NE(FindNode(*graph, "relu1"), nullptr);
  EXPECT_EQ(graph->nodes.size(), 24u);  // every node of the ONNX file
}

TEST(ConstantFoldingTest, FoldsShapeArithmeticIntoInitializers) {
  // y = Reshape(x, Concat(Shape(x)[0:1], [-1])): the shape subgraph folds to
  // one initializer.
  Graph graph;
  graph.name = "fold";
  graph.inputs.push_back({"x", {DType::kFloat32, Shape({2, 3, 4})}});
  graph.outputs.push_back({"y", {DType::kFloat32, Shape({2, 12})}});
  auto minus_one = std::make_shared<Tensor>(DType::kInt64, Shape({1}));
  minus_one->as<int64_t>()[0] = -1;
  graph.initializers["minus_one"] = minus_one;
  GraphNode shape{"shape", "Shape", {"x"}, {"s"}};
  GraphNode slice{"first", "Slice", {"s", "zero", "one"}, {"n"}};
  auto zero = std::make_shared<Tensor>(DType::kInt64, Shape({1}));
  auto one = std::make_shared<Tensor>(DType::kInt64, Shape({1}));
  one->as<int64_t>()[0] = 1;
  graph.initializers["zero"] = zero;
  graph.initializers["one"] = one;
  GraphNode concat{"concat", "Concat", {"n", "minus_one"}, {"target"}};
  concat.attrs.Set("axis", int64_t{0});
  GraphNode reshape{"reshape", "Reshape", {"x", "target"}, {"y"}};
  graph.nodes = {shape, slice, concat, reshape};
  ASSERT_TRUE(FoldConstants(graph, BuiltinOps()).ok());
  ASSERT_EQ(graph.nodes.size(), 1u);
  EXPECT_EQ(graph.nodes[0].name, "reshape");
  ASSERT_EQ(graph.initializers.count("target"), 1u);
  const Tensor& target = *graph.initializers.at("target");
  EXPECT_EQ(target.as<int64_t>()[0], 2);
  EXPECT_EQ(target.as<int64_t>()[1], -1);
  EXPECT_EQ(graph.initializers.count("minus_one"), 0u);  // unused now
}

// Fused and unfused graphs compute the same outputs.
TEST(ConverterTest, FusedAndUnfusedGraphsAgree) {
  for (const char* model : {"resnet_tiny", "mlp_block"}) {
    const std::string path = std::string("testdata/") + model + ".onnx";
    PassOptions plain = PassOptions::Unfused();
    plain.mark_no_task = false;
    auto fused = CompiledModel::Compile(*ConvertOnnxFile(path), BuiltinOps());
    auto unfused =
        CompiledModel::Compile(*ConvertOnnxFile(path, plain), BuiltinOps());
    ASSERT_TRUE(fused.ok() && unfused.ok());
    const Graph& g = (*fused)->graph();
    std::vector<Tensor> inputs;
    for (const auto& in : g.inputs) {
      auto t = ReadNpyFile(std::string("testdata/") + model + ".input." +
                           in.name + ".npy");
      ASSERT_TRUE(t.ok()) << t.status();
      inputs.push_back(std::move(*t));
    }
    auto out_a = (*fused)->ExecuteToTensors(inputs);
    auto out_b = (*unfused)->ExecuteToTensors(inputs);
    ASSERT_TRUE(out_a.ok() && out_b.ok());
    for (size_t i = 0; i < out_a->size(); ++i) {
      for (int64_t k = 0; k < (*out_a)[i].NumElements(); ++k) {
        EXPECT_NEAR((*out_a)[i].as<float>()[k], (*out_b)[i].as<float>()[k],
                    1e-5)
            << model;
      }
    }
  }
}

// ocr_tiny is written like paddle2onnx's exports: weights in Constant nodes,
// symbolic dims, Resize and ConvTranspose. Pinned with an input shape it
// converts, folds BatchNormalization into the Conv (as torch exports do) and
// matches PyTorch.
TEST(ConverterTest, PaddleStyleModelWithConstantWeightsFusesAndMatchesPyTorch) {
  absl::StatusOr<Graph> unpinned = ConvertOnnxFile("testdata/ocr_tiny.onnx");
  ASSERT_FALSE(unpinned.ok());
  EXPECT_THAT(std::string(unpinned.status().message()),
              ::testing::HasSubstr("--input-shape \"x:?,3,?,?\""));
  ImportOptions import;
  import.input_shapes["x"] = {1, 3, 16, 16};
  absl::StatusOr<Graph> graph =
      ConvertOnnxFile("testdata/ocr_tiny.onnx", PassOptions(), import);
  ASSERT_TRUE(graph.ok()) << graph.status();
  // Conv + BatchNormalization + Clip (ReLU6, bounds in Constant nodes): one
  // node named for all three.
  const GraphNode* stem = FindNode(*graph, "conv1bn1relu6");
  ASSERT_NE(stem, nullptr);
  EXPECT_THAT(stem->original_names, ElementsAre("conv1", "bn1", "relu6"));
  EXPECT_EQ(*stem->attrs.GetString("fused_activation", ""), "Clip");
  EXPECT_EQ(*stem->attrs.GetFloat("fused_clip_max", 0.0f), 6.0f);
  for (const GraphNode& node : graph->nodes) {
    EXPECT_NE(node.op_type, "BatchNormalization");
    EXPECT_NE(node.op_type, "Clip");
    EXPECT_NE(node.name, "bn1.scale");  // folded Constant nodes are gone
  }
  EXPECT_EQ(graph->outputs[0].info.ToString(), "float32[1,4,24,24]");
  auto model = CompiledModel::Compile(*graph, BuiltinOps());
  ASSERT_TRUE(model.ok()) << model.status();
  auto x = ReadNpyFile("testdata/ocr_tiny.input.x.npy");
  auto expected = ReadNpyFile("testdata/ocr_tiny.output.prob.npy");
  ASSERT_TRUE(x.ok() && expected.ok());
  Tensor y(DType::kFloat32, expected->shape());
  const HostBuffer in[] = {{x->data(), x->ByteSize()}};
  const MutableHostBuffer out[] = {{y.data(), y.ByteSize()}};
  ASSERT_TRUE((*model)->Execute(in, out).ok());
  for (int64_t k = 0; k < y.NumElements(); ++k) {
    const float e = expected->as<float>()[k];
    EXPECT_NEAR(y.as<float>()[k], e, 1e-4 * std::abs(e) + 1e-5) << k;
  }
}

// PaddlePaddle's HardSwish: y = Div(Mul(x, Clip(Add(x, 3), 0, 6)), 6), with
// the constants in Constant nodes and initializers. x is an intermediate
// value read twice: an Identity's output, or with `affine`, PP-LCNet's
// scalar multiply-add of it, and the same after the Div. With `spy`, a Neg
// also reads the pre-activation value (a second graph output).
struct ChainSpec {
  std::string divisor = "six";
  bool affine = false;
  bool spy = false;
};
Graph PaddleHardSwishGraph(const ChainSpec& spec) {
  Graph g;
  g.name = "hardswish_chain";
  const TensorInfo info{DType::kFloat32, Shape({2, 67})};
  g.inputs.push_back({"in", info});
  g.outputs.push_back({"y", info});
  auto scalar = [](float v) {
    auto t = std::make_shared<Tensor>(DType::kFloat32, Shape({}));
    t->as<float>()[0] = v;
    return t;
  };
  g.initializers["six"] = scalar(6.0f);
  g.initializers["s1"] = scalar(0.7f);
  g.initializers["b1"] = scalar(-0.3f);
  g.initializers["s2"] = scalar(1.3f);
  g.initializers["b2"] = scalar(0.1f);
  auto six_vector = std::make_shared<Tensor>(DType::kFloat32, Shape({67}));
  std::fill_n(six_vector->as<float>(), 67, 6.0f);
  g.initializers["six_vector"] = six_vector;
  g.nodes.push_back(MakeNode("x", "Identity", {"in"}));
  std::string x = "x.out";
  if (spec.affine) {
    g.nodes.push_back(MakeNode("scale1", "Mul", {"s1", "x.out"}));
    g.nodes.push_back(MakeNode("shift1", "Add", {"scale1.out", "b1"}));
    x = "shift1.out";
  }
  if (spec.spy) {
    g.nodes.push_back(MakeNode("spy", "Neg", {x}));
    g.outputs.push_back({"spy.out", info});
  }
  g.nodes.push_back(ScalarConstant("three", 3.0f));
  g.nodes.push_back(ScalarConstant("zero", 0.0f));
  g.nodes.push_back(ScalarConstant("six_max", 6.0f));
  g.nodes.push_back(MakeNode("add", "Add", {x, "three"}));
  g.nodes.push_back(MakeNode("clip", "Clip", {"add.out", "zero", "six_max"}));
  g.nodes.push_back(MakeNode("mul", "Mul", {"clip.out", x}));
  g.nodes.push_back(MakeNode("div", "Div", {"mul.out", spec.divisor}));
  if (spec.affine) {
    g.nodes.push_back(MakeNode("scale2", "Mul", {"s2", "div.out"}));
    g.nodes.push_back(MakeNode("shift2", "Add", {"scale2.out", "b2"}));
  }
  g.nodes.back().outputs = {"y"};
  return g;
}

// Runs both graphs on NaN, infinities, the clip edges and a sweep: every
// float32 output must have the same bits, NaN for NaN. A NaN's sign and
// payload are not compared: when both operands of an addition are NaN, the
// CPU returns the first one's, and a compiler may swap the operands of a
// commutative addition (an unfused Add built at -O1 does, at -O2 not).
void ExpectSameBits(const Graph& fused_graph, const Graph& plain_graph,
                    const Shape& shape = Shape({2, 67})) {
  auto fused = CompiledModel::Compile(fused_graph, BuiltinOps());
  auto plain = CompiledModel::Compile(plain_graph, BuiltinOps());
  ASSERT_TRUE(fused.ok()) << fused.status();
  ASSERT_TRUE(plain.ok()) << plain.status();
  Tensor x(DType::kFloat32, shape);
  const float inf = std::numeric_limits<float>::infinity();
  const float specials[] = {std::numeric_limits<float>::quiet_NaN(),
                            inf,
                            -inf,
                            -3.0f,
                            3.0f,
                            -3.0000002f,
                            2.9999998f,
                            0.0f,
                            -0.0f,
                            1e-40f,
                            3e38f,
                            -3e38f};
  for (int64_t i = 0; i < x.NumElements(); ++i) {
    // Later rows sit on a large offset: the mean's rounding shows there.
    x.as<float>()[i] =
        i < 12 ? specials[i] : std::sin(0.7f * i) * 5.0f + (i / 67) * 1e3f;
  }
  std::vector<Tensor> inputs;
  inputs.push_back(std::move(x));
  auto a = (*fused)->ExecuteToTensors(inputs);
  auto b = (*plain)->ExecuteToTensors(inputs);
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(b.ok()) << b.status();
  for (size_t i = 0; i < a->size(); ++i) {
    ASSERT_EQ((*a)[i].dtype(), DType::kFloat32);
    const float* fa = (*a)[i].as<float>();
    const float* fb = (*b)[i].as<float>();
    for (int64_t j = 0; j < (*a)[i].NumElements(); ++j) {
      if (std::isnan(fa[j]) && std::isnan(fb[j])) continue;
      ASSERT_EQ(std::bit_cast<uint32_t>(fa[j]), std::bit_cast<uint32_t>(fb[j]))
          << "output " << i << ", element " << j << ": " << fa[j] << " vs "
          << fb[j];
    }
  }
}

TEST(FuseHardSwishChainTest, OneNodeWithEveryNameAndTheBitsOfTheFourNodes) {
  auto [fused_graph, plain_graph] = OptimizeBothWays(PaddleHardSwishGraph({}));
  const GraphNode* chain = FindNode(fused_graph, "addclipmuldiv");
  ASSERT_NE(chain, nullptr) << ::testing::PrintToString(NodeNames(fused_graph));
  EXPECT_EQ(chain->op_type, "HardSwish");
  EXPECT_THAT(chain->original_names, ElementsAre("add", "clip", "mul", "div"));
  EXPECT_THAT(chain->inputs, ElementsAre("x.out"));
  EXPECT_THAT(chain->outputs, ElementsAre("y"));
  EXPECT_EQ(*chain->attrs.GetFloat("fused_shift", 0.0f), 3.0f);
  EXPECT_EQ(*chain->attrs.GetFloat("fused_divisor", 0.0f), 6.0f);
  EXPECT_FALSE(chain->attrs.Has("fused_pre_scale"));
  for (const GraphNode& node : fused_graph.nodes) {
    EXPECT_NE(node.op_type, "Constant") << node.name;
  }
  EXPECT_EQ(FindNode(plain_graph, "addclipmuldiv"), nullptr);
  ExpectSameBits(fused_graph, plain_graph);
  // What the fused node computes at the special values.
  auto model = CompiledModel::Compile(fused_graph, BuiltinOps());
  ASSERT_TRUE(model.ok());
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<Tensor> in;
  in.emplace_back(DType::kFloat32, Shape({2, 67}));
  std::fill_n(in[0].as<float>(), in[0].NumElements(), 1.0f);
  in[0].as<float>()[0] = std::numeric_limits<float>::quiet_NaN();
  in[0].as<float>()[1] = inf;
  in[0].as<float>()[2] = -inf;
  auto y = (*model)->ExecuteToTensors(in);
  ASSERT_TRUE(y.ok()) << y.status();
  const float* values = (*y)[0].as<float>();
  EXPECT_TRUE(std::isnan(values[0]));
  EXPECT_EQ(values[1], inf);
  EXPECT_TRUE(std::isnan(values[2]));  // -inf * 0
  EXPECT_EQ(values[3], 1.0f * 4.0f / 6.0f);
}

TEST(FuseHardSwishChainTest, TakesTheScalarMultiplyAddsAroundIt) {
  auto [fused_graph, plain_graph] =
      OptimizeBothWays(PaddleHardSwishGraph({.affine = true}));
  const GraphNode* chain =
      FindNode(fused_graph, "scale1shift1addclipmuldivscale2shift2");
  ASSERT_NE(chain, nullptr) << ::testing::PrintToString(NodeNames(fused_graph));
  EXPECT_THAT(chain->original_names,
              ElementsAre("scale1", "shift1", "add", "clip", "mul", "div",
                          "scale2", "shift2"));
  EXPECT_THAT(chain->inputs, ElementsAre("x.out"));
  EXPECT_EQ(*chain->attrs.GetFloat("fused_pre_scale", 0.0f), 0.7f);
  EXPECT_EQ(*chain->attrs.GetFloat("fused_pre_shift", 0.0f), -0.3f);
  EXPECT_EQ(*chain->attrs.GetFloat("fused_post_scale", 0.0f), 1.3f);
  EXPECT_EQ(*chain->attrs.GetFloat("fused_post_shift", 0.0f), 0.1f);
  EXPECT_EQ(fused_graph.nodes.size(), 2u);  // the Identity and the chain
  ExpectSameBits(fused_graph, plain_graph);
}

TEST(FuseHardSwishChainTest, APreActivationValueReadElsewhereStaysANode) {
  auto [fused_graph, plain_graph] =
      OptimizeBothWays(PaddleHardSwishGraph({.affine = true, .spy = true}));
  EXPECT_NE(FindNode(fused_graph, "scale1"), nullptr);
  EXPECT_NE(FindNode(fused_graph, "shift1"), nullptr);
  const GraphNode* chain = FindNode(fused_graph, "addclipmuldivscale2shift2");
  ASSERT_NE(chain, nullptr) << ::testing::PrintToString(NodeNames(fused_graph));
  EXPECT_THAT(chain->inputs, ElementsAre("shift1.out"));
  EXPECT_FALSE(chain->attrs.Has("fused_pre_shift"));
  ExpectSameBits(fused_graph, plain_graph);
}

TEST(FuseHardSwishChainTest, ADivisorThatIsNotAScalarIsLeftAlone) {
  Graph graph = PaddleHardSwishGraph({.divisor = "six_vector"});
  ASSERT_TRUE(OptimizeGraph(graph, BuiltinOps(), PassOptions()).ok());
  for (const GraphNode& node : graph.nodes) {
    EXPECT_NE(node.op_type, "HardSwish") << node.name;
  }
  EXPECT_NE(FindNode(graph, "div"), nullptr);
}

// nn.LayerNorm over the last axis as exported without the
// LayerNormalization op. The Pow exponent and the scale are Constant nodes
// placed after the first ReduceMean (as Paddle exports place them); the
// second ReduceMean takes its axes as an input (opset 18). With `spy`, a Neg
// also reads x - mean.
Graph DecomposedLayerNormGraph(bool spy) {
  Graph g;
  g.name = "layer_norm_chain";
  const int64_t size = 67;
  const TensorInfo info{DType::kFloat32, Shape({3, size})};
  g.inputs.push_back({"in", info});
  g.outputs.push_back({"y", info});
  auto vector = [&](float base) {
    auto t = std::make_shared<Tensor>(DType::kFloat32, Shape({size}));
    for (int64_t i = 0; i < size; ++i)
      t->as<float>()[i] = base + 0.01f * static_cast<float>(i);
    return t;
  };
  auto scalar = std::make_shared<Tensor>(DType::kFloat32, Shape({}));
  scalar->as<float>()[0] = 1e-5f;
  g.initializers["epsilon"] = scalar;
  g.initializers["bias"] = vector(-0.2f);
  auto axes = std::make_shared<Tensor>(DType::kInt64, Shape({1}));
  axes->as<int64_t>()[0] = -1;
  g.initializers["axes"] = axes;
  g.nodes.push_back(MakeNode("x", "Identity", {"in"}));
  g.nodes.push_back(MakeNode("mean", "ReduceMean", {"x.out"}));
  g.nodes.back().attrs.Set("axes", std::vector<int64_t>{-1});
  g.nodes.push_back(MakeNode("sub", "Sub", {"x.out", "mean.out"}));
  if (spy) {
    g.nodes.push_back(MakeNode("spy", "Neg", {"sub.out"}));
    g.outputs.push_back({"spy.out", info});
  }
  g.nodes.push_back(ScalarConstant("two", 2.0f));
  g.nodes.push_back(MakeNode("pow", "Pow", {"sub.out", "two"}));
  g.nodes.push_back(MakeNode("variance", "ReduceMean", {"pow.out", "axes"}));
  g.nodes.push_back(
      MakeNode("add_epsilon", "Add", {"epsilon", "variance.out"}));
  g.nodes.push_back(MakeNode("sqrt", "Sqrt", {"add_epsilon.out"}));
  g.nodes.push_back(MakeNode("div", "Div", {"sub.out", "sqrt.out"}));
  g.nodes.push_back(ConstantNode("scale", vector(0.9f)));
  g.nodes.push_back(MakeNode("mul", "Mul", {"div.out", "scale"}));
  g.nodes.push_back(MakeNode("add_bias", "Add", {"bias", "mul.out"}));
  g.nodes.back().outputs = {"y"};
  return g;
}

TEST(FuseLayerNormChainTest, OneNodeWithEveryNameAndTheBitsOfTheNineNodes) {
  auto [fused_graph, plain_graph] =
      OptimizeBothWays(DecomposedLayerNormGraph(/*spy=*/false));
  const GraphNode* chain =
      FindNode(fused_graph, "meansubpowvarianceadd_epsilonsqrtdivmuladd_bias");
  ASSERT_NE(chain, nullptr) << ::testing::PrintToString(NodeNames(fused_graph));
  EXPECT_EQ(chain->op_type, "LayerNormalization");
  EXPECT_THAT(chain->original_names,
              ElementsAre("mean", "sub", "pow", "variance", "add_epsilon",
                          "sqrt", "div", "mul", "add_bias"));
  EXPECT_THAT(chain->inputs, ElementsAre("x.out", "scale", "bias"));
  EXPECT_THAT(chain->outputs, ElementsAre("y"));
  EXPECT_EQ(*chain->attrs.GetFloat("epsilon", 0.0f), 1e-5f);
  EXPECT_EQ(*chain->attrs.GetInt("fused_decomposed", 0), 1);
  // The scale's Constant moved up before the node that reads it.
  EXPECT_THAT(NodeNames(fused_graph),
              ElementsAre("x", "scale",
                          "meansubpowvarianceadd_epsilonsqrtdivmuladd_bias"));
  EXPECT_EQ(plain_graph.nodes.size(), 12u);
  ExpectSameBits(fused_graph, plain_graph, Shape({3, 67}));
}

TEST(FuseLayerNormChainTest, ADeviationReadElsewhereLeavesTheChainAlone) {
  Graph graph = DecomposedLayerNormGraph(/*spy=*/true);
  ASSERT_TRUE(OptimizeGraph(graph, BuiltinOps(), PassOptions()).ok());
  for (const GraphNode& node : graph.nodes) {
    EXPECT_NE(node.op_type, "LayerNormalization") << node.name;
  }
  EXPECT_NE(FindNode(graph, "sub"), nullptr);
  EXPECT_NE(FindNode(graph, "pow"), nullptr);
}

TEST(FuseLayerNormChainTest, AMeanOverAnotherAxisLeavesTheChainAlone) {
  Graph graph = DecomposedLayerNormGraph(/*spy=*/false);
  graph.nodes[1].attrs.Set("axes", std::vector<int64_t>{0});  // "mean"
  auto [fused_graph, plain_graph] = OptimizeBothWays(graph);
  EXPECT_NE(FindNode(fused_graph, "mean"), nullptr)
      << ::testing::PrintToString(NodeNames(fused_graph));
  for (const GraphNode& node : fused_graph.nodes) {
    EXPECT_NE(node.op_type, "LayerNormalization") << node.name;
  }
  ExpectSameBits(fused_graph, plain_graph, Shape({3, 67}));
}

// GELU as PyTorch exports it below opset 20: Div by sqrt(2), Erf, Add 1, Mul
// by x, Mul by 0.5, the scalars as Constant nodes.
Graph ErfGeluGraph() {
  Graph g;
  g.name = "gelu_chain";
  const TensorInfo info{DType::kFloat32, Shape({2, 67})};
  g.inputs.push_back({"in", info});
  g.outputs.push_back({"y", info});
  g.nodes.push_back(MakeNode("x", "Identity", {"in"}));
  g.nodes.push_back(ScalarConstant("sqrt2", 1.41421354f));
  g.nodes.push_back(MakeNode("div", "Div", {"x.out", "sqrt2"}));
  g.nodes.push_back(MakeNode("erf", "Erf", {"div.out"}));
  g.nodes.push_back(ScalarConstant("one", 1.0f));
  g.nodes.push_back(MakeNode("add", "Add", {"erf.out", "one"}));
  g.nodes.push_back(MakeNode("mul", "Mul", {"x.out", "add.out"}));
  g.nodes.push_back(ScalarConstant("half", 0.5f));
  g.nodes.push_back(MakeNode("mul_half", "Mul", {"mul.out", "half"}));
  g.nodes.back().outputs = {"y"};
  return g;
}

TEST(FuseGeluChainTest, OneNodeWithEveryNameAndTheBitsOfTheFiveNodes) {
  auto [fused_graph, plain_graph] = OptimizeBothWays(ErfGeluGraph());
  EXPECT_THAT(NodeNames(fused_graph), ElementsAre("x", "diverfaddmulmul_half"));
  const GraphNode& chain = fused_graph.nodes[1];
  EXPECT_EQ(chain.op_type, "Gelu");
  EXPECT_THAT(chain.original_names,
              ElementsAre("div", "erf", "add", "mul", "mul_half"));
  EXPECT_THAT(chain.inputs, ElementsAre("x.out"));
  EXPECT_EQ(*chain.attrs.GetFloat("fused_divisor", 0.0f), 1.41421354f);
  EXPECT_EQ(*chain.attrs.GetFloat("fused_shift", 0.0f), 1.0f);
  EXPECT_EQ(*chain.attrs.GetFloat("fused_scale", 0.0f), 0.5f);
  ExpectSameBits(fused_graph, plain_graph);
}

// DenseNet's pre-activation: BatchNormalization then Relu, with no Conv to
// fold into, is one BatchNormalization node named for both.
TEST(FuseReluTest, BatchNormThenReluIsOneNodeWithTheSameBits) {
  Graph g;
  g.name = "bn_relu";
  const TensorInfo info{DType::kFloat32, Shape({2, 67})};
  g.inputs.push_back({"in", info});
  g.outputs.push_back({"y", info});
  g.nodes.push_back(MakeNode("x", "Identity", {"in"}));
  auto channel_values = [](float first, float step) {
    auto t = std::make_shared<Tensor>(DType::kFloat32, Shape({67}));
    for (int64_t i = 0; i < 67; ++i) t->as<float>()[i] = first + step * i;
    return t;
  };
  g.nodes.push_back(ConstantNode("scale", channel_values(-1.0f, 0.03f)));
  g.nodes.push_back(ConstantNode("bias", channel_values(0.5f, -0.01f)));
  g.nodes.push_back(ConstantNode("mean", channel_values(0.1f, 0.02f)));
  g.nodes.push_back(ConstantNode("var", channel_values(0.5f, 0.1f)));
  g.nodes.push_back(MakeNode("norm", "BatchNormalization",
                             {"x.out", "scale", "bias", "mean", "var"}));
  g.nodes.push_back(MakeNode("relu", "Relu", {"norm.out"}));
  g.nodes.back().outputs = {"y"};
  auto [fused_graph, plain_graph] = OptimizeBothWays(g);
  const GraphNode* fused = FindNode(fused_graph, "normrelu");
  ASSERT_NE(fused, nullptr) << ::testing::PrintToString(NodeNames(fused_graph));
  EXPECT_EQ(fused->op_type, "BatchNormalization");
  EXPECT_THAT(fused->original_names, ElementsAre("norm", "relu"));
  EXPECT_EQ(*fused->attrs.GetString("fused_activation", ""), "Relu");
  ExpectSameBits(fused_graph, plain_graph);
}

TEST(FuseGeluChainTest, AMulByAnotherValueIsLeftAlone) {
  Graph graph = ErfGeluGraph();
  graph.nodes[6].inputs = {"div.out", "add.out"};  // not x
  ASSERT_TRUE(OptimizeGraph(graph, BuiltinOps(), PassOptions()).ok());
  for (const GraphNode& node : graph.nodes) {
    EXPECT_NE(node.op_type, "Gelu") << node.name;
  }
}

// A Linear on [batch, tokens, features] as exported: MatMul by constant
// weights, then Add of the bias, here a Constant node placed after the Add's
// other input is made (as Paddle exports place them).
TEST(FuseMatMulAddTest, BatchedRowsTakeTheBiasAsAThirdInputWithTheSameBits) {
  Graph g;
  g.name = "linear";
  // Weights over the 1 MiB the converter folds: a Constant node still counts
  // as known, as it does when the model is compiled.
  const int64_t k = 67, n = 4001;
  g.inputs.push_back({"in", {DType::kFloat32, Shape({1, 2, k})}});
  g.outputs.push_back({"y", {DType::kFloat32, Shape({1, 2, n})}});
  auto weights = std::make_shared<Tensor>(DType::kFloat32, Shape({k, n}));
  for (int64_t i = 0; i < k * n; ++i)
    weights->as<float>()[i] = std::cos(0.3f * i) * 0.1f;
  auto bias = std::make_shared<Tensor>(DType::kFloat32, Shape({n}));
  for (int64_t i = 0; i < n; ++i) bias->as<float>()[i] = 0.5f - 0.05f * i;
  GraphNode add = MakeNode("linear/Add", "Add", {"linear/bias", "mm"});
  add.outputs = {"y"};
  GraphNode matmul = MakeNode("linear/MatMul", "MatMul", {"in", "w"});
  matmul.outputs = {"mm"};
  // The bias made between the MatMul and the Add: the fused node, in the
  // MatMul's place, needs it before it.
  g.nodes = {ConstantNode("w", weights), matmul,
             ConstantNode("linear/bias", bias), add};
  auto [fused_graph, plain_graph] = OptimizeBothWays(g);
  EXPECT_THAT(NodeNames(fused_graph),
              ElementsAre("w", "linear/bias", "linear/MatMullinear/Add"));
  const GraphNode& fused = fused_graph.nodes[2];
  EXPECT_EQ(fused.op_type, "MatMul");
  EXPECT_THAT(fused.inputs, ElementsAre("in", "w", "linear/bias"));
  EXPECT_THAT(fused.original_names, ElementsAre("linear/MatMul", "linear/Add"));
  ASSERT_TRUE(CompiledModel::Compile(fused_graph, BuiltinOps()).ok());
  ExpectSameBits(fused_graph, plain_graph, Shape({1, 2, k}));
}

// r = Neg(x), y = activation(Add(Conv(x), r)) on [1, 8, 9, 11] for each
// Conv path: pointwise (packed GEMM), depthwise and a 3x3 one (oneDNN).
Graph ConvAddGraph(const std::string& kind, const std::string& activation,
                   bool bias = true) {
  Graph g;
  g.name = "conv_add";
  const Shape shape({1, 8, 9, 11});
  g.inputs.push_back({"in", {DType::kFloat32, shape}});
  g.outputs.push_back({"y", {DType::kFloat32, shape}});
  const int64_t kernel = kind == "pointwise" ? 1 : 3;
  const int64_t in_per_group = kind == "depthwise" ? 1 : 8;
  auto w = std::make_shared<Tensor>(DType::kFloat32,
                                    Shape({8, in_per_group, kernel, kernel}));
  for (int64_t i = 0; i < w->NumElements(); ++i)
    w->as<float>()[i] = std::sin(0.9f * i) * 0.3f;
  auto b = std::make_shared<Tensor>(DType::kFloat32, Shape({8}));
  for (int64_t i = 0; i < 8; ++i) b->as<float>()[i] = 0.1f * i - 0.3f;
  g.initializers["w"] = w;
  g.initializers["b"] = b;
  g.nodes.push_back(MakeNode("r", "Neg", {"in"}));
  g.nodes.push_back(MakeNode("conv", "Conv", {"in", "w"}));
  if (bias) g.nodes.back().inputs.push_back("b");
  if (kernel == 3) {
    g.nodes.back().attrs.Set("pads", std::vector<int64_t>{1, 1, 1, 1});
  }
  if (kind == "depthwise") g.nodes.back().attrs.Set("group", int64_t{8});
  g.nodes.push_back(MakeNode("add", "Add", {"r.out", "conv.out"}));
  if (!activation.empty())
    g.nodes.push_back(MakeNode("act", activation, {"add.out"}));
  g.nodes.back().outputs = {"y"};
  return g;
}

TEST(FuseConvAddTest, EveryConvPathGivesTheBitsOfConvAddAndActivation) {
  for (const char* kind : {"pointwise", "depthwise", "dense"}) {
    for (const char* activation : {"", "Relu", "HardSwish"}) {
      SCOPED_TRACE(std::string(kind) + " " + activation);
      auto [fused_graph, plain_graph] = OptimizeBothWays(
          ConvAddGraph(kind, activation), ConvEpilogueOptions());
      ASSERT_EQ(fused_graph.nodes.size(), 2u)
          << ::testing::PrintToString(NodeNames(fused_graph));
      const GraphNode& conv = fused_graph.nodes[1];
      EXPECT_EQ(conv.op_type, "Conv");
      EXPECT_THAT(conv.inputs, ElementsAre("in", "w", "b", "r.out"));
      EXPECT_EQ(*conv.attrs.GetString("fused_activation", ""), activation);
      EXPECT_EQ(conv.original_names.size(), *activation ? 3u : 2u);
      ExpectSameBits(fused_graph, plain_graph, Shape({1, 8, 9, 11}));
    }
  }
}

TEST(FuseConvAddTest, ByDefaultTheAddAndAHardSwishStayNodes) {
  Graph graph = ConvAddGraph("pointwise", "HardSwish");
  ASSERT_TRUE(OptimizeGraph(graph, BuiltinOps(), PassOptions()).ok());
  EXPECT_THAT(NodeNames(graph), ElementsAre("r", "conv", "add", "act"));
  // A Relu after the Conv itself still fuses by default.
  Graph relu = ConvAddGraph("pointwise", "");
  relu.nodes[2] = MakeNode("relu", "Relu", {"conv.out"});
  relu.nodes[2].outputs = {"y"};
  ASSERT_TRUE(OptimizeGraph(relu, BuiltinOps(), PassOptions()).ok());
  EXPECT_THAT(NodeNames(relu), ElementsAre("r", "convrelu"));
}

TEST(FuseConvAddTest, AConvWithoutBiasTakesTheResidualAsInputThree) {
  auto [fused_graph, plain_graph] = OptimizeBothWays(
      ConvAddGraph("dense", "Relu", /*bias=*/false), ConvEpilogueOptions());
  ASSERT_EQ(fused_graph.nodes.size(), 2u);
  EXPECT_THAT(fused_graph.nodes[1].inputs, ElementsAre("in", "w", "", "r.out"));
  ExpectSameBits(fused_graph, plain_graph, Shape({1, 8, 9, 11}));
}

TEST(FuseConvAddTest, AnAddReadingTheConvTwiceOrAConstantIsLeftAlone) {
  Graph graph = ConvAddGraph("pointwise", "");
  // A constant of the output's shape: a bias, not a residual.
  graph.initializers["offset"] =
      std::make_shared<Tensor>(DType::kFloat32, Shape({1, 8, 9, 11}));
  graph.nodes[2].inputs = {"conv.out", "offset"};
  const PassOptions options = ConvEpilogueOptions();
  ASSERT_TRUE(OptimizeGraph(graph, BuiltinOps(), options).ok());
  EXPECT_NE(FindNode(graph, "add"), nullptr);
  Graph twice = ConvAddGraph("pointwise", "");
  twice.nodes[2].inputs = {"conv.out", "conv.out"};
  ASSERT_TRUE(OptimizeGraph(twice, BuiltinOps(), options).ok());
  EXPECT_NE(FindNode(twice, "add"), nullptr);
}

// Control flow in the main graph: an If whose then_branch reads values of the
// main graph that fusions, folding and dead-code removal would otherwise
// merge away or drop.
//   c = Conv(in, w, b); r = Relu(c)        (Conv + Relu would fuse, dropping c)
//   s = Sigmoid(r); m = Mul(r, s)          (would become one Swish, dropping s)
//   k = Constant, dims = Shape(in)         (k unread but by the branch; dims
//                                           folds into an initializer)
//   picked = If(cond): then Reshape(Add(Add(c, k), s) * only_sub, dims)
//                      else m
//   y = Relu(picked)                       (after the If: types known only
//                                           while the model runs)
Graph ControlFlowGraph(bool with_if) {
  Graph g = ConvAddGraph("dense", "");
  g.name = "control_flow";
  g.nodes.pop_back();  // the Add
  g.nodes.push_back(MakeNode("relu", "Relu", {"conv.out"}));
  g.nodes.push_back(MakeNode("sig", "Sigmoid", {"relu.out"}));
  g.nodes.push_back(MakeNode("mul", "Mul", {"relu.out", "sig.out"}));
  g.nodes.push_back(ScalarConstant("k", 0.5f));
  g.nodes.push_back(MakeNode("dims", "Shape", {"in"}));
  auto only_sub = std::make_shared<Tensor>(DType::kFloat32, Shape({11}));
  std::fill_n(only_sub->as<float>(), 11, 2.0f);
  g.initializers["only_sub"] = only_sub;
  const TensorInfo info{DType::kFloat32, Shape({1, 8, 9, 11})};
  g.outputs = {{"y", info}};
  if (!with_if) {
    g.nodes.push_back(MakeNode("y", "Relu", {"mul.out"}));
    g.nodes.back().outputs = {"y"};
    return g;
  }
  g.inputs.push_back({"cond", {DType::kBool, Shape({})}});
  auto then_branch = std::make_shared<Graph>();
  then_branch->nodes = {MakeNode("t1", "Add", {"conv.out", "k"}),
                        MakeNode("t2", "Add", {"t1.out", "sig.out"}),
                        MakeNode("t3", "Mul", {"t2.out", "only_sub"}),
                        MakeNode("t4", "Reshape", {"t3.out", "dims.out"})};
  then_branch->outputs = {{"t4.out", info}};
  auto else_branch = std::make_shared<Graph>();
  else_branch->outputs = {{"mul.out", info}};
  GraphNode branch = MakeNode("picked", "If", {"cond"});
  branch.subgraphs = {{"then_branch", then_branch},
                      {"else_branch", else_branch}};
  branch.implicit_inputs = ImplicitInputsOf(branch);
  g.nodes.push_back(std::move(branch));
  g.nodes.push_back(MakeNode("y", "Relu", {"picked.out"}));
  g.nodes.back().outputs = {"y"};
  return g;
}

TEST(ControlFlowPassesTest, ValuesASubgraphReadsSurviveEveryPass) {
  // Without the If, the passes do merge and drop these values.
  Graph plain = ControlFlowGraph(false);
  ASSERT_TRUE(OptimizeGraph(plain, BuiltinOps(), PassOptions()).ok());
  EXPECT_LT(plain.ProducerOf("conv.out"), 0);
  EXPECT_LT(plain.ProducerOf("sig.out"), 0);
  EXPECT_LT(plain.ProducerOf("k"), 0);
  EXPECT_EQ(plain.initializers.count("only_sub"), 0u);

  Graph graph = ControlFlowGraph(true);
  const GraphNode* branch = &graph.nodes[graph.nodes.size() - 2];
  ASSERT_THAT(branch->implicit_inputs,
              ElementsAre("conv.out", "k", "sig.out", "only_sub", "dims.out",
                          "mul.out"));
  EXPECT_EQ(SortTopologically(graph), absl::OkStatus());
  const absl::Status optimized =
      OptimizeGraph(graph, BuiltinOps(), PassOptions());
  ASSERT_TRUE(optimized.ok()) << optimized;
  const std::vector<std::string> names = NodeNames(graph);
  // Conv and Relu, Sigmoid and Mul stay apart: their values keep their names.
  EXPECT_THAT(names, ::testing::IsSupersetOf(
                         {"conv", "relu", "sig", "mul", "k", "picked", "y"}));
  EXPECT_GE(graph.ProducerOf("conv.out"), 0);
  EXPECT_GE(graph.ProducerOf("sig.out"), 0);
  EXPECT_FALSE(FindNode(graph, "conv")->attrs.Has("fused_activation"));
  // Shape folded into an initializer under the same name; the branch's own
  // weight kept.
  EXPECT_LT(graph.ProducerOf("dims.out"), 0);
  EXPECT_EQ(graph.initializers.count("dims.out"), 1u);
  EXPECT_EQ(graph.initializers.count("only_sub"), 1u);
  branch = FindNode(graph, "picked");
  ASSERT_NE(branch, nullptr);
  EXPECT_EQ(branch->implicit_inputs, ImplicitInputsOf(*branch));
  for (const std::string& value : branch->implicit_inputs) {
    EXPECT_TRUE(graph.ProducerOf(value) >= 0 ||
                graph.initializers.count(value) > 0)
        << value;
  }
  // What the If makes keeps its declared type, and the graph still reads back.
  absl::StatusOr<Graph> reparsed = ParseModel(SerializeModel(graph));
  ASSERT_TRUE(reparsed.ok()) << reparsed.status();
  EXPECT_EQ(reparsed->nodes.size(), graph.nodes.size());
}

// A reader of the value and a subgraph reading it are two readers: no
// single-consumer fusion.
TEST(ControlFlowPassesTest, AnImplicitReadIsARead) {
  Graph graph = ControlFlowGraph(true);
  EXPECT_THAT(graph.ConsumersOf("sig.out"), ElementsAre(4, 7));
  EXPECT_THAT(graph.ConsumersOf("only_sub"), ElementsAre(7));
  RemoveUnusedInitializers(graph);
  EXPECT_EQ(graph.initializers.count("only_sub"), 1u);
}

TEST(ControlFlowPassesTest, AnOutputOfControlFlowKeepsItsVaryingDims) {
  Graph graph = ControlFlowGraph(true);
  graph.outputs[0].info.shape = Shape({-1, 8, 9, 11});
  graph.outputs[0].infer_shape = true;
  ASSERT_TRUE(OptimizeGraph(graph, BuiltinOps(), PassOptions()).ok());
  EXPECT_EQ(graph.outputs[0].info.shape, Shape({-1, 8, 9, 11}));
  EXPECT_FALSE(graph.outputs[0].infer_shape);
  // The model file keeps the -1 of an output.
  absl::StatusOr<Graph> reparsed = ParseModel(SerializeModel(graph));
  ASSERT_TRUE(reparsed.ok()) << reparsed.status();
  EXPECT_EQ(reparsed->outputs[0].info.shape, Shape({-1, 8, 9, 11}));
}

TEST(ControlFlowPassesTest, AnOutputOfControlFlowNeedsADeclaredRank) {
  Graph graph = ControlFlowGraph(true);
  graph.outputs[0].info.shape = Shape();
  graph.outputs[0].infer_shape = true;
  const absl::Status status = OptimizeGraph(graph, BuiltinOps(), PassOptions());
  EXPECT_THAT(std::string(status.message()),
              ::testing::HasSubstr("output 'y' declares no shape, and "
                                   "its shape is known only while the model "
                                   "runs"));
}

}  // namespace
}  // namespace acldump
