#include "bench/zoo_graphs.h"

#include "base/strings.h"
#include "bench/graph_builder.h"
#include "kernels/ops.h"
#include "runtime/model_file.h"
#include "runtime/passes.h"

namespace acldump::bench {
namespace {

std::string Convert(Graph graph) {
  absl::Status optimized = OptimizeGraph(graph, BuiltinOps(), PassOptions{});
  if (!optimized.ok()) return "";
  return SerializeModel(graph);
}

// ReLU6 as torch exports it: Clip(x, 0, 6).
std::string Relu6(Builder& b, const std::string& x, const std::string& name) {
  return b.Node("Clip", name, {x, "relu6.min", "relu6.max"});
}

}  // namespace

std::string MobileNetV2ModelBytes(int64_t image_size) {
  Builder b(2);
  Graph& g = b.graph();
  g.name = "mobilenet_v2";
  g.source_opset = 13;
  g.inputs.push_back(
      {"input", {DType::kFloat32, Shape({1, 3, image_size, image_size})}});
  b.Scalar("relu6.min", 0.0f);
  b.Scalar("relu6.max", 6.0f);
  std::string x =
      b.ConvBn("input", "features.0.0", "features.0.1", 3, 32, 3, 2, false, "");
  x = Relu6(b, x, "features.0.2");
  // (expansion, output channels, repeats, first stride), as torchvision.
  const int64_t settings[][4] = {{1, 16, 1, 1}, {6, 24, 2, 2}, {6, 32, 3, 2},
                                 {6, 64, 4, 2}, {6, 96, 3, 1}, {6, 160, 3, 2},
                                 {6, 320, 1, 1}};
  int64_t channels = 32;
  int feature = 1;
  for (const auto& [t, c, n, s] : settings) {
    for (int64_t i = 0; i < n; ++i, ++feature) {
      const std::string p = StrCat("features.", feature, ".conv");
      const int64_t stride = i == 0 ? s : 1;
      const int64_t hidden = channels * t;
      std::string y = x;
      int part = 0;
      if (t != 1) {
        y = b.ConvBn(y, StrCat(p, ".0.0"), StrCat(p, ".0.1"), channels, hidden,
                     1, 1, false, "");
        y = Relu6(b, y, StrCat(p, ".0.2"));
        ++part;
      }
      y = b.ConvBn(y, StrCat(p, ".", part, ".0"), StrCat(p, ".", part, ".1"),
                   hidden, hidden, 3, stride, false, "", hidden);
      y = Relu6(b, y, StrCat(p, ".", part, ".2"));
      y = b.ConvBn(y, StrCat(p, ".", part + 1), StrCat(p, ".", part + 2),
                   hidden, c, 1, 1, false, "");
      if (stride == 1 && channels == c) {
        y = b.Node("Add", StrCat("features.", feature, ".add"), {x, y});
      }
      x = y;
      channels = c;
    }
  }
  x = b.ConvBn(x, "features.18.0", "features.18.1", channels, 1280, 1, 1, false,
               "");
  x = Relu6(b, x, "features.18.2");
  x = b.Classifier(x, "classifier.1", 1280, 1000, 0.03f);
  g.outputs.push_back({x, {DType::kFloat32, Shape({1, 1000})}});
  return Convert(std::move(g));
}

std::string TransformerEncoderModelBytes() {
  constexpr int64_t kSeq = 16, kModel = 128, kHeads = 4, kFeedForward = 512;
  constexpr int64_t kHead = kModel / kHeads;
  Builder b(16);
  Graph& g = b.graph();
  g.name = "transformer_encoder";
  g.source_opset = 17;
  g.inputs.push_back({"src", {DType::kFloat32, Shape({kSeq, kModel})}});
  b.Int64s("heads_shape", {kSeq, kHeads, kHead});
  b.Int64s("model_shape", {kSeq, kModel});
  b.Scalar("attn_scale", 1.0f / std::sqrt(static_cast<float>(kHead)));
  auto linear = [&](const std::string& x, const std::string& name, int64_t in,
                    int64_t out) {
    const std::string y =
        b.Node("MatMul", name + ".matmul",
               {x, b.Weight(name + ".weight", Shape({in, out}),
                            1.0f / std::sqrt(static_cast<float>(in)))});
    return b.Node("Add", name + ".add",
                  {y, b.Constant(name + ".bias", out, 0.0f, 0.02f)});
  };
  auto transpose = [&](const std::string& x, const std::string& name,
                       std::vector<int64_t> perm) {
    Attributes attrs;
    attrs.Set("perm", std::move(perm));
    return b.Node("Transpose", name, {x}, attrs);
  };
  auto layer_norm = [&](const std::string& x, const std::string& name) {
    Attributes attrs;
    attrs.Set("axis", int64_t{-1});
    attrs.Set("epsilon", 1e-5f);
    return b.Node("LayerNormalization", name,
                  {x, b.Constant(name + ".weight", kModel, 1.0f, 0.05f),
                   b.Constant(name + ".bias", kModel, 0.0f, 0.05f)},
                  attrs);
  };
  std::string x = "src";
  for (int layer = 0; layer < 2; ++layer) {
    const std::string p = StrCat("layers.", layer);
    auto heads = [&](const std::string& name, std::vector<int64_t> perm) {
      const std::string y =
          linear(x, StrCat(p, ".self_attn.", name), kModel, kModel);
      const std::string r = b.Node("Reshape", StrCat(p, ".", name, ".reshape"),
                                   {y, "heads_shape"});
      return transpose(r, StrCat(p, ".", name, ".transpose"), std::move(perm));
    };
    const std::string q = heads("q_proj", {1, 0, 2});
    const std::string k = heads("k_proj", {1, 2, 0});
    const std::string v = heads("v_proj", {1, 0, 2});
    std::string s = b.Node("MatMul", p + ".scores", {q, k});
    s = b.Node("Mul", p + ".scale", {s, "attn_scale"});
    Attributes softmax;
    softmax.Set("axis", int64_t{-1});
    s = b.Node("Softmax", p + ".softmax", {s}, softmax);
    std::string c = b.Node("MatMul", p + ".context", {s, v});
    c = transpose(c, p + ".context.transpose", {1, 0, 2});
    c = b.Node("Reshape", p + ".context.reshape", {c, "model_shape"});
    c = linear(c, p + ".self_attn.out_proj", kModel, kModel);
    x = layer_norm(b.Node("Add", p + ".residual1", {x, c}), p + ".norm1");
    std::string f = linear(x, p + ".linear1", kModel, kFeedForward);
    f = b.Node("Relu", p + ".relu", {f});
    f = linear(f, p + ".linear2", kFeedForward, kModel);
    x = layer_norm(b.Node("Add", p + ".residual2", {x, f}), p + ".norm2");
  }
  g.outputs.push_back({x, {DType::kFloat32, Shape({kSeq, kModel})}});
  return Convert(std::move(g));
}

}  // namespace acldump::bench
