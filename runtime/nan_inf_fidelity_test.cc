// NaN/Inf fidelity of the converter's fusions: every fusion pattern, run
// fused and unfused with NaN, +Inf and -Inf injected at several positions,
// gives NaN and infinities exactly where a double-precision reference of the
// unfused ONNX semantics does, element by element.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <random>

#include "base/status_macros.h"
#include "base/strings.h"
#include "kernels/npy.h"
#include "kernels/ops.h"
#include "runtime/compiled_model.h"
#include "runtime/converter.h"
#include "runtime/passes.h"

namespace acldump {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

std::shared_ptr<const Tensor> Floats(Shape shape, const std::vector<float>& v) {
  auto t = std::make_shared<Tensor>(DType::kFloat32, std::move(shape));
  std::copy(v.begin(), v.end(), t->as<float>());
  return t;
}

std::vector<float> Random(size_t n, int seed, float lo = -1, float hi = 1) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

// One fusion pattern: a graph of ONNX nodes over one float input "x", and a
// double reference of what the unfused nodes compute.
struct Pattern {
  std::string name;
  Graph graph;
  size_t fused_nodes;  // nodes left after fusion
  std::function<std::vector<double>(const std::vector<float>&)> reference;
  // Clip turns infinities into its bounds: only NaN injections reach the
  // output.
  bool clamps_infinities = false;
};

const std::vector<float>& Values(const Graph& g, const std::string& name) {
  static std::map<const Tensor*, std::vector<float>> cache;
  const Tensor* t = g.initializers.at(name).get();
  auto& v = cache[t];
  if (v.empty()) v.assign(t->as<float>(), t->as<float>() + t->NumElements());
  return v;
}

// x [1, C, H, W] conv W [M, C, 3, 3] (pads 1) + B, in double.
std::vector<double> RefConv(const std::vector<float>& x,
                            const std::vector<float>& w,
                            const std::vector<float>& b, int64_t c, int64_t h,
                            int64_t wd, int64_t m) {
  std::vector<double> y(m * h * wd);
  for (int64_t o = 0; o < m; ++o)
    for (int64_t i = 0; i < h; ++i)
      for (int64_t j = 0; j < wd; ++j) {
        double sum = b[o];
        for (int64_t ci = 0; ci < c; ++ci)
          for (int64_t ky = 0; ky < 3; ++ky)
            for (int64_t kx = 0; kx < 3; ++kx) {
              const int64_t iy = i + ky - 1, ix = j + kx - 1;
              if (iy < 0 || iy >= h || ix < 0 || ix >= wd) continue;
              sum += double(x[(ci * h + iy) * wd + ix]) *
                     w[((o * c + ci) * 3 + ky) * 3 + kx];
            }
        y[(o * h + i) * wd + j] = sum;
      }
  return y;
}

std::vector<double> RefBatchNorm(std::vector<double> y, const Graph& g,
                                 int64_t channels) {
  const auto &scale = Values(g, "bn.scale"), &bias = Values(g, "bn.bias"),
             &mean = Values(g, "bn.mean"), &var = Values(g, "bn.var");
  const int64_t plane = static_cast<int64_t>(y.size()) / channels;
  for (int64_t c = 0; c < channels; ++c)
    for (int64_t k = 0; k < plane; ++k) {
      double& v = y[c * plane + k];
      v = (v - mean[c]) / std::sqrt(double(var[c]) + 1e-5) * scale[c] + bias[c];
    }
  return y;
}

std::vector<double> RefRelu(std::vector<double> y) {
  for (double& v : y) v = v < 0 ? 0 : v;  // NaN stays NaN
  return y;
}

// A [M, K] x B [K, N] + C [N], in double.
std::vector<double> RefGemm(const std::vector<float>& a,
                            const std::vector<float>& b,
                            const std::vector<float>* c, int64_t m, int64_t k,
                            int64_t n) {
  std::vector<double> y(m * n);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double sum = c ? (*c)[j] : 0.0;
      for (int64_t p = 0; p < k; ++p)
        sum += double(a[i * k + p]) * b[p * n + j];
      y[i * n + j] = sum;
    }
  return y;
}

constexpr int64_t kC = 3, kH = 6, kW = 7, kM = 4;
constexpr int64_t kRows = 5, kK = 6, kN = 4;

Graph ConvGraph(bool bn, bool relu, bool constant_nodes) {
  Graph g;
  g.name = "conv";
  g.inputs.push_back({"x", {DType::kFloat32, Shape({1, kC, kH, kW})}});
  g.outputs.push_back({"y", {DType::kFloat32, Shape({1, kM, kH, kW})}});
  g.initializers["w"] = Floats({kM, kC, 3, 3}, Random(kM * kC * 9, 1));
  g.initializers["b"] = Floats({kM}, Random(kM, 2));
  GraphNode conv{"conv", "Conv", {"x", "w", "b"}, {"conv_out"}};
  conv.attrs.Set("pads", std::vector<int64_t>{1, 1, 1, 1});
  conv.original_names = {"conv"};
  g.nodes.push_back(conv);
  std::string last = "conv_out";
  if (bn) {
    g.initializers["bn.scale"] = Floats({kM}, Random(kM, 3, 0.5f, 1.5f));
    g.initializers["bn.bias"] = Floats({kM}, Random(kM, 4));
    g.initializers["bn.mean"] = Floats({kM}, Random(kM, 5));
    g.initializers["bn.var"] = Floats({kM}, Random(kM, 6, 0.5f, 1.5f));
    GraphNode node{"bn",
                   "BatchNormalization",
                   {last, "bn.scale", "bn.bias", "bn.mean", "bn.var"},
                   {"bn_out"}};
    node.original_names = {"bn"};
    g.nodes.push_back(node);
    last = "bn_out";
  }
  if (relu) {
    GraphNode node{"relu", "Relu", {last}, {"relu_out"}};
    node.original_names = {"relu"};
    g.nodes.push_back(node);
    last = "relu_out";
  }
  g.nodes.back().outputs = {"y"};
  if (constant_nodes) {
    // Paddle style: every weight is a Constant node, not an initializer.
    std::vector<GraphNode> constants;
    for (const auto& [name, tensor] : g.initializers) {
      GraphNode node{"const_" + name, "Constant", {}, {name}};
      node.attrs.Set("value", tensor);
      node.original_names = {node.name};
      constants.push_back(node);
    }
    g.nodes.insert(g.nodes.begin(), constants.begin(), constants.end());
    g.initializers.clear();
  }
  return g;
}

std::vector<Pattern> Patterns() {
  std::vector<Pattern> patterns;
  for (bool constant_nodes : {false, true}) {
    for (auto [bn, relu] : {std::pair{false, true}, std::pair{true, false},
                            std::pair{true, true}}) {
      Pattern p;
      p.name =
          StrCat("Conv", bn ? "+BatchNormalization" : "", relu ? "+Relu" : "",
                 constant_nodes ? " (Constant-node weights)" : "");
      p.graph = ConvGraph(bn, relu, constant_nodes);
      p.fused_nodes = 1;
      // The reference reads the weights from a graph with initializers.
      Graph weights = ConvGraph(bn, relu, false);
      p.reference = [weights, bn = bn,
                     relu = relu](const std::vector<float>& x) {
        std::vector<double> y = RefConv(x, Values(weights, "w"),
                                        Values(weights, "b"), kC, kH, kW, kM);
        if (bn) y = RefBatchNorm(std::move(y), weights, kM);
        if (relu) y = RefRelu(std::move(y));
        return y;
      };
      patterns.push_back(std::move(p));
    }
  }
  // Conv + Clip (bounds as inputs, opset 11 and later).
  {
    Pattern p;
    p.name = "Conv+Clip";
    p.clamps_infinities = true;
    p.graph = ConvGraph(false, false, false);
    Graph& g = p.graph;
    g.initializers["lo"] = Floats(Shape({}), {-0.5f});
    g.initializers["hi"] = Floats(Shape({}), {0.75f});
    g.nodes.back().outputs = {"conv_out"};
    GraphNode clip{"clip", "Clip", {"conv_out", "lo", "hi"}, {"y"}};
    clip.original_names = {"clip"};
    g.nodes.push_back(clip);
    p.fused_nodes = 1;
    Graph weights = g;
    p.reference = [weights](const std::vector<float>& x) {
      std::vector<double> y = RefConv(x, Values(weights, "w"),
                                      Values(weights, "b"), kC, kH, kW, kM);
      for (double& v : y) v = v < -0.5 ? -0.5 : (v > 0.75 ? 0.75 : v);
      return y;
    };
    patterns.push_back(std::move(p));
  }
  // Sigmoid(x) * x, either operand order of the Mul.
  for (bool sigmoid_first : {true, false}) {
    Pattern p;
    p.name = sigmoid_first ? "Sigmoid+Mul(s, x)" : "Sigmoid+Mul(x, s)";
    Graph& g = p.graph;
    g.name = "swish";
    g.inputs.push_back({"x", {DType::kFloat32, Shape({kRows, kK})}});
    g.outputs.push_back({"y", {DType::kFloat32, Shape({kRows, kK})}});
    g.nodes.push_back({"sigmoid", "Sigmoid", {"x"}, {"s"}});
    g.nodes.push_back({"mul",
                       "Mul",
                       sigmoid_first ? std::vector<std::string>{"s", "x"}
                                     : std::vector<std::string>{"x", "s"},
                       {"y"}});
    for (GraphNode& node : g.nodes) node.original_names = {node.name};
    p.fused_nodes = 1;
    p.reference = [](const std::vector<float>& x) {
      std::vector<double> y(x.size());
      for (size_t i = 0; i < x.size(); ++i) {
        const double v = x[i];
        y[i] = v * (1.0 / (1.0 + std::exp(-v)));
      }
      return y;
    };
    patterns.push_back(std::move(p));
  }
  // Gemm / MatMul (+ Add) (+ Relu) over A = x [kRows, kK].
  struct MatrixCase {
    const char* name;
    bool gemm, add, relu;
  };
  for (const MatrixCase& c :
       {MatrixCase{"Gemm+Relu", true, false, true},
        MatrixCase{"MatMul+Relu", false, false, true},
        MatrixCase{"MatMul+Add", false, true, false},
        MatrixCase{"MatMul+Add+Relu", false, true, true}}) {
    Pattern p;
    p.name = c.name;
    Graph& g = p.graph;
    g.name = "matrix";
    g.inputs.push_back({"x", {DType::kFloat32, Shape({kRows, kK})}});
    g.outputs.push_back({"y", {DType::kFloat32, Shape({kRows, kN})}});
    g.initializers["B"] = Floats({kK, kN}, Random(kK * kN, 7));
    g.initializers["C"] = Floats({kN}, Random(kN, 8));
    std::string last = "mm";
    if (c.gemm) {
      g.nodes.push_back({"gemm", "Gemm", {"x", "B", "C"}, {"mm"}});
    } else {
      g.nodes.push_back({"matmul", "MatMul", {"x", "B"}, {"mm"}});
    }
    if (c.add) {
      g.nodes.push_back({"add", "Add", {"mm", "C"}, {"add_out"}});
      last = "add_out";
    }
    if (c.relu) g.nodes.push_back({"relu", "Relu", {last}, {"relu_out"}});
    g.nodes.back().outputs = {"y"};
    for (GraphNode& node : g.nodes) node.original_names = {node.name};
    p.fused_nodes = 1;
    p.reference = [g, c](const std::vector<float>& x) {
      const bool bias = c.gemm || c.add;
      std::vector<double> y = RefGemm(
          x, Values(g, "B"), bias ? &Values(g, "C") : nullptr, kRows, kK, kN);
      return c.relu ? RefRelu(std::move(y)) : y;
    };
    patterns.push_back(std::move(p));
  }
  return patterns;
}

absl::StatusOr<std::vector<float>> RunGraph(Graph graph,
                                            const PassOptions& options,
                                            const std::vector<float>& x,
                                            size_t* nodes) {
  RETURN_IF_ERROR(OptimizeGraph(graph, BuiltinOps(), options));
  *nodes = 0;
  for (const GraphNode& node : graph.nodes)
    *nodes += node.op_type != "Constant";
  ASSIGN_OR_RETURN(auto model, CompiledModel::Compile(graph, BuiltinOps()));
  const TensorInfo out = graph.outputs[0].info;
  std::vector<float> y(out.NumElements());
  const HostBuffer in[] = {{x.data(), x.size() * sizeof(float)}};
  const MutableHostBuffer outs[] = {{y.data(), y.size() * sizeof(float)}};
  RETURN_IF_ERROR(model->Execute(in, outs));
  return y;
}

// NaN where the reference has NaN, the same infinity where it has one, and
// finite values within tolerance.
void ExpectSameSpecials(const std::vector<float>& got,
                        const std::vector<double>& want,
                        const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    const double g = got[i], w = want[i];
    if (std::isnan(w)) {
      EXPECT_TRUE(std::isnan(g)) << what << " element " << i << ": got " << g
                                 << ", the reference has NaN";
    } else if (std::isinf(w)) {
      EXPECT_EQ(g, w) << what << " element " << i;
    } else {
      EXPECT_NEAR(g, w, 1e-4 + 1e-4 * std::abs(w)) << what << " element " << i;
    }
  }
}

std::vector<double> ToDouble(const std::vector<float>& v) {
  return std::vector<double>(v.begin(), v.end());
}

TEST(NanInfFidelityTest, EveryFusionKeepsNanAndInfWhereUnfusedOnnxHasThem) {
  const PassOptions unfused = PassOptions::Unfused();
  for (Pattern& p : Patterns()) {
    const size_t n = p.graph.inputs[0].info.NumElements();
    // Injections: one special value at the first, a middle and the last
    // element; +Inf and -Inf in one window (NaN through a sum); all three.
    const std::vector<std::vector<std::pair<size_t, float>>> injections = {
        {{0, kNaN}},
        {{n / 2, kNaN}},
        {{n - 1, kNaN}},
        {{0, kInf}},
        {{n / 2, kInf}},
        {{n - 1, -kInf}},
        {{n / 2, -kInf}},
        {{1, kInf}, {2, -kInf}},
        {{3, kNaN}, {n / 3, kInf}, {n - 2, -kInf}},
    };
    for (size_t k = 0; k < injections.size(); ++k) {
      std::vector<float> x = Random(n, 100 + static_cast<int>(k));
      for (auto [at, value] : injections[k]) x[at] = value;
      const std::string what = StrCat(p.name, ", injection ", k);
      size_t fused_nodes = 0, unfused_nodes = 0;
      absl::StatusOr<std::vector<float>> fused =
          RunGraph(p.graph, PassOptions(), x, &fused_nodes);
      absl::StatusOr<std::vector<float>> plain =
          RunGraph(p.graph, unfused, x, &unfused_nodes);
      ASSERT_TRUE(fused.ok()) << what << ": " << fused.status();
      ASSERT_TRUE(plain.ok()) << what << ": " << plain.status();
      EXPECT_EQ(fused_nodes, p.fused_nodes) << what << ": not fused";
      EXPECT_GT(unfused_nodes, fused_nodes) << what;
      const std::vector<double> reference = p.reference(x);
      size_t specials = 0;
      for (double v : reference) specials += !std::isfinite(v);
      if (!p.clamps_infinities) {
        EXPECT_GT(specials, 0u) << what << ": the injection reached no output";
      }
      ExpectSameSpecials(*plain, reference, what + " (unfused)");
      ExpectSameSpecials(*fused, reference, what + " (fused)");
      ExpectSameSpecials(*fused, ToDouble(*plain),
                         what + " (fused vs unfused)");
    }
  }
}

size_t CountNaN(const Tensor& t) {
  size_t count = 0;
  for (int64_t i = 0; i < t.NumElements(); ++i)
    count += std::isnan(t.as<float>()[i]);
  return count;
}

// One NaN pixel reaches every logit: fused and unfused report the same NaN
// counts (as ONNX Runtime does at every optimisation level).
TEST(NanInfFidelityTest, ResNetWithOneNanInputPixelHasTheSameNanCountsFused) {
  absl::StatusOr<Tensor> input =
      ReadNpyFile("testdata/resnet_tiny.input.input.npy");
  ASSERT_TRUE(input.ok()) << input.status();
  input->as<float>()[5 * 32 + 5] = kNaN;  // element [0, 0, 5, 5]
  const PassOptions unfused = PassOptions::Unfused();
  for (const PassOptions& options : {PassOptions(), unfused}) {
    absl::StatusOr<Graph> graph =
        ConvertOnnxFile("testdata/resnet_tiny.onnx", options);
    ASSERT_TRUE(graph.ok()) << graph.status();
    auto model = CompiledModel::Compile(*graph, BuiltinOps());
    ASSERT_TRUE(model.ok()) << model.status();
    Tensor fc(DType::kFloat32, Shape({1, 10}));
    Tensor prob(DType::kFloat32, Shape({1, 10}));
    const HostBuffer in[] = {{input->data(), input->ByteSize()}};
    const MutableHostBuffer out[] = {{fc.data(), fc.ByteSize()},
                                     {prob.data(), prob.ByteSize()}};
    ASSERT_TRUE((*model)->Execute(in, out).ok());
    EXPECT_EQ(CountNaN(fc), 10u) << graph->nodes.size() << " nodes";
    EXPECT_EQ(CountNaN(prob), 10u) << graph->nodes.size() << " nodes";
  }
}

}  // namespace
}  // namespace acldump
