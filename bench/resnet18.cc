#include "bench/resnet18.h"

#include "base/strings.h"
#include "bench/graph_builder.h"
#include "kernels/ops.h"
#include "runtime/model_file.h"
#include "runtime/passes.h"

namespace acldump::bench {
Graph MakeResNet18Graph(uint32_t seed, int64_t image_size) {
  Builder b(seed);
  Graph& g = b.graph();
  g.name = "resnet18";
  g.source_opset = 13;
  g.inputs.push_back(
      {"input", {DType::kFloat32, Shape({1, 3, image_size, image_size})}});
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
  x = b.Classifier(x, "fc", 512, 1000, 0.04f);
  g.outputs.push_back({x, {DType::kFloat32, Shape({1, 1000})}});
  return std::move(g);
}

std::string ResNet18ModelBytes(int64_t image_size) {
  Graph graph = MakeResNet18Graph(18, image_size);
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
