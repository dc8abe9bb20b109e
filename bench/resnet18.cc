#include "bench/resnet18.h"

#include <cmath>
#include <random>

#include "base/strings.h"
#include "kernels/ops.h"
#include "runtime/model_file.h"
#include "runtime/passes.h"

namespace acldump::bench {
namespace {

class Builder {
 public:
  explicit Builder(uint32_t seed) : rng_(seed) {}

  std::string Weight(const std::string& name, Shape shape, float scale) {
    auto t = std::make_shared<Tensor>(DType::kFloat32, std::move(shape));
    std::normal_distribution<float> dist(0.0f, scale);
    for (int64_t i = 0; i < t->NumElements(); ++i)
      t->as<float>()[i] = dist(rng_);
    graph_.initializers[name] = t;
    return name;
  }
  std::string Constant(const std::string& name, int64_t n, float base,
                       float spread) {
    auto t = std::make_shared<Tensor>(DType::kFloat32, Shape({n}));
    std::uniform_real_distribution<float> dist(base - spread, base + spread);
    for (int64_t i = 0; i < n; ++i) t->as<float>()[i] = dist(rng_);
    graph_.initializers[name] = t;
    return name;
  }
  std::string Node(const std::string& op, const std::string& name,
                   std::vector<std::string> inputs, Attributes attrs = {}) {
    GraphNode node{name,  op, std::move(inputs), {name}, std::move(attrs),
                   {name}};
    graph_.nodes.push_back(std::move(node));
    return name;
  }
  // conv (no bias) + batchnorm (+ relu): ONNX names "{prefix}.conv{i}",
  // "{prefix}.bn{i}".
  std::string ConvBn(const std::string& x, const std::string& conv_name,
                     const std::string& bn_name, int64_t cin, int64_t cout,
                     int64_t k, int64_t stride, bool relu,
                     const std::string& relu_name) {
    const float scale = std::sqrt(2.0f / static_cast<float>(cin * k * k));
    Attributes attrs;
    attrs.Set("kernel_shape", std::vector<int64_t>{k, k});
    attrs.Set("strides", std::vector<int64_t>{stride, stride});
    const int64_t pad = k / 2;
    attrs.Set("pads", std::vector<int64_t>{pad, pad, pad, pad});
    std::string y = Node(
        "Conv", conv_name,
        {x, Weight(conv_name + ".weight", Shape({cout, cin, k, k}), scale)},
        attrs);
    Attributes bn_attrs;
    bn_attrs.Set("epsilon", 1e-5f);
    y = Node("BatchNormalization", bn_name,
             {y, Constant(bn_name + ".weight", cout, 1.0f, 0.1f),
              Constant(bn_name + ".bias", cout, 0.0f, 0.1f),
              Constant(bn_name + ".running_mean", cout, 0.0f, 0.1f),
              Constant(bn_name + ".running_var", cout, 1.0f, 0.1f)},
             bn_attrs);
    if (relu) y = Node("Relu", relu_name, {y});
    return y;
  }
  Graph& graph() { return graph_; }

 private:
  std::mt19937 rng_;
  Graph graph_;
};

}  // namespace

Graph MakeResNet18Graph(uint32_t seed) {
  Builder b(seed);
  Graph& g = b.graph();
  g.name = "resnet18";
  g.source_opset = 13;
  g.inputs.push_back({"input", {DType::kFloat32, Shape({1, 3, 224, 224})}});
  std::string x = b.ConvBn("input", "conv1", "bn1", 3, 64, 7, 2, true, "relu");
  Attributes pool;
  pool.Set("kernel_shape", std::vector<int64_t>{3, 3});
  pool.Set("strides", std::vector<int64_t>{2, 2});
  pool.Set("pads", std::vector<int64_t>{1, 1, 1, 1});
  x = b.Node("MaxPool", "maxpool", {x}, pool);
  int64_t channels = 64;
  const int64_t widths[] = {64, 128, 256, 512};
  for (int layer = 0; layer < 4; ++layer) {
    for (int block = 0; block < 2; ++block) {
      const std::string p = StrCat("layer", layer + 1, ".", block);
      const int64_t out = widths[layer];
      const int64_t stride = (layer > 0 && block == 0) ? 2 : 1;
      std::string y = b.ConvBn(x, p + ".conv1", p + ".bn1", channels, out, 3,
                               stride, true, p + ".relu");
      y = b.ConvBn(y, p + ".conv2", p + ".bn2", out, out, 3, 1, false, "");
      std::string shortcut = x;
      if (stride != 1 || channels != out) {
        shortcut = b.ConvBn(x, p + ".downsample.0", p + ".downsample.1",
                            channels, out, 1, stride, false, "");
      }
      x = b.Node("Add", p + ".add", {y, shortcut});
      x = b.Node("Relu", p + ".relu_1", {x});
      channels = out;
    }
  }
  x = b.Node("GlobalAveragePool", "avgpool", {x});
  Attributes flatten;
  flatten.Set("axis", int64_t{1});
  x = b.Node("Flatten", "flatten", {x}, flatten);
  Attributes gemm;
  gemm.Set("transB", int64_t{1});
  x = b.Node("Gemm", "fc",
             {x, b.Weight("fc.weight", Shape({1000, 512}), 0.04f),
              b.Constant("fc.bias", 1000, 0.0f, 0.01f)},
             gemm);
  g.outputs.push_back({x, {DType::kFloat32, Shape({1, 1000})}});
  return std::move(g);
}

std::string ResNet18ModelBytes() {
  Graph graph = MakeResNet18Graph();
  absl::Status optimized = OptimizeGraph(graph, BuiltinOps(), PassOptions{});
  if (!optimized.ok()) return "";
  return SerializeModel(graph);
}

std::string TinyOpsModelBytes(int nodes) {
  Graph g;
  g.name = "tiny_ops";
  g.inputs.push_back({"x", {DType::kFloat32, Shape({16})}});
  auto one = std::make_shared<Tensor>(DType::kFloat32, Shape({16}));
  for (int i = 0; i < 16; ++i) one->as<float>()[i] = 1e-3f;
  g.initializers["step"] = one;
  std::string prev = "x";
  for (int i = 0; i < nodes; ++i) {
    const std::string name = StrCat("add", i);
    g.nodes.push_back(
        GraphNode{name, "Add", {prev, "step"}, {name}, {}, {name}});
    prev = name;
  }
  g.outputs.push_back({prev, {DType::kFloat32, Shape({16})}});
  return SerializeModel(g);
}

}  // namespace acldump::bench
