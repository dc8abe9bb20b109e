// Builds ONNX-style graphs with seeded random weights for the benchmarks:
// nodes named as ONNX exports name them, weights as initializers.
#ifndef ACLDUMP_BENCH_GRAPH_BUILDER_H_
#define ACLDUMP_BENCH_GRAPH_BUILDER_H_

#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "runtime/graph.h"

namespace acldump::bench {

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
  // "{prefix}.bn{i}". `group` > 1: a grouped (depthwise when = cin) conv.
  std::string ConvBn(const std::string& x, const std::string& conv_name,
                     const std::string& bn_name, int64_t cin, int64_t cout,
                     int64_t k, int64_t stride, bool relu,
                     const std::string& relu_name, int64_t group = 1) {
    const int64_t fan_in = cin / group * k * k;
    const float scale = std::sqrt(2.0f / static_cast<float>(fan_in));
    Attributes attrs;
    attrs.Set("kernel_shape", std::vector<int64_t>{k, k});
    attrs.Set("strides", std::vector<int64_t>{stride, stride});
    const int64_t pad = k / 2;
    attrs.Set("pads", std::vector<int64_t>{pad, pad, pad, pad});
    if (group > 1) attrs.Set("group", group);
    std::string y = Node("Conv", conv_name,
                         {x, Weight(conv_name + ".weight",
                                    Shape({cout, cin / group, k, k}), scale)},
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
  // The classifier head of a CNN: GlobalAveragePool, Flatten and a Gemm
  // named `fc` to `classes` outputs; returns the logits.
  std::string Classifier(const std::string& x, const std::string& fc,
                         int64_t features, int64_t classes, float scale) {
    std::string y = Node("GlobalAveragePool", "avgpool", {x});
    Attributes flatten;
    flatten.Set("axis", int64_t{1});
    y = Node("Flatten", "flatten", {y}, flatten);
    Attributes gemm;
    gemm.Set("transB", int64_t{1});
    return Node("Gemm", fc,
                {y, Weight(fc + ".weight", Shape({classes, features}), scale),
                 Constant(fc + ".bias", classes, 0.0f, 0.01f)},
                gemm);
  }
  // An int64 initializer (shapes for Reshape, ...).
  std::string Int64s(const std::string& name, std::vector<int64_t> values) {
    auto t = std::make_shared<Tensor>(
        DType::kInt64, Shape({static_cast<int64_t>(values.size())}));
    for (size_t i = 0; i < values.size(); ++i) t->as<int64_t>()[i] = values[i];
    graph_.initializers[name] = t;
    return name;
  }
  // A float scalar initializer.
  std::string Scalar(const std::string& name, float value) {
    auto t = std::make_shared<Tensor>(DType::kFloat32, Shape());
    t->as<float>()[0] = value;
    graph_.initializers[name] = t;
    return name;
  }
  Graph& graph() { return graph_; }

 private:
  std::mt19937 rng_;
  Graph graph_;
};

}  // namespace acldump::bench

#endif  // ACLDUMP_BENCH_GRAPH_BUILDER_H_
