// One execution on several threads gives the bits of one thread: every
// kernel that splits its work splits items whose results do not depend on
// the split (rows of a GEMM, elements, planes).
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "kernels/ops.h"
#include "kernels/threading.h"
#include "runtime/compiled_model.h"
#include "runtime/passes.h"

namespace acldump {
namespace {

std::shared_ptr<const Tensor> RandomFloats(Shape shape, int seed) {
  auto t = std::make_shared<Tensor>(DType::kFloat32, std::move(shape));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1, 1);
  for (int64_t i = 0; i < t->NumElements(); ++i) t->as<float>()[i] = dist(rng);
  return t;
}

// Large enough that every split kernel splits: Conv -> Sigmoid * x (Swish)
// -> HardSwish -> Clip -> Reshape -> MatMul with constant weights, plus a
// global average pool of the convolution.
Graph SplitGraph() {
  Graph g;
  g.name = "split";
  g.inputs.push_back({"x", {DType::kFloat32, Shape({1, 8, 64, 64})}});
  g.outputs.push_back({"y", {DType::kFloat32, Shape({1024, 256})}});
  g.outputs.push_back({"pooled", {DType::kFloat32, Shape({1, 16, 1, 1})}});
  g.initializers["w"] = RandomFloats(Shape({16, 8, 3, 3}), 1);
  g.initializers["b"] = RandomFloats(Shape({16}), 2);
  g.initializers["m"] = RandomFloats(Shape({64, 256}), 3);
  auto shape = std::make_shared<Tensor>(DType::kInt64, Shape({2}));
  shape->as<int64_t>()[0] = 1024;
  shape->as<int64_t>()[1] = 64;
  g.initializers["shape"] = shape;
  GraphNode conv{"conv", "Conv", {"x", "w", "b"}, {"c"}};
  conv.attrs.Set("pads", std::vector<int64_t>{1, 1, 1, 1});
  GraphNode clip{"clip", "Clip", {"h"}, {"k"}};
  clip.attrs.Set("min", -0.25f);
  clip.attrs.Set("max", 0.5f);
  g.nodes = {conv,
             {"sigmoid", "Sigmoid", {"c"}, {"s"}},
             {"mul", "Mul", {"c", "s"}, {"silu"}},
             {"hardswish", "HardSwish", {"silu"}, {"h"}},
             clip,
             {"reshape", "Reshape", {"k", "shape"}, {"r"}},
             {"matmul", "MatMul", {"r", "m"}, {"y"}},
             {"pool", "GlobalAveragePool", {"c"}, {"pooled"}}};
  for (GraphNode& node : g.nodes) node.original_names = {node.name};
  return g;
}

// Every step's outputs, in order.
class CapturingObserver final : public ExecutionObserver {
 public:
  bool BeginIteration(uint64_t) override { return true; }
  void AfterNode(const NodeEvent& event) override {
    for (const TensorView& out : event.outputs) {
      const auto* bytes = static_cast<const std::byte*>(out.data);
      outputs.emplace_back(bytes, bytes + out.ByteSize());
    }
  }
  std::vector<std::vector<std::byte>> outputs;
};

struct Outcome {
  std::vector<float> y, pooled;
  std::vector<std::vector<std::byte>> steps;
};

Outcome RunOn(int threads, const std::vector<float>& x) {
  Graph graph = SplitGraph();
  EXPECT_TRUE(OptimizeGraph(graph, BuiltinOps(), PassOptions()).ok());
  CompileOptions options;
  options.intra_op_threads = threads;
  auto model = CompiledModel::Compile(graph, BuiltinOps(), options);
  EXPECT_TRUE(model.ok()) << model.status();
  EXPECT_EQ((*model)->intra_op_threads(), threads);
  auto observer = std::make_shared<CapturingObserver>();
  EXPECT_TRUE((*model)
                  ->AttachObserver(
                      observer, std::vector<uint8_t>((*model)->steps().size(),
                                                     kObserveAfter))
                  .ok());
  Outcome run;
  run.y.resize(1024 * 256);
  run.pooled.resize(16);
  const HostBuffer in[] = {{x.data(), x.size() * sizeof(float)}};
  const MutableHostBuffer out[] = {
      {run.y.data(), run.y.size() * sizeof(float)},
      {run.pooled.data(), run.pooled.size() * sizeof(float)}};
  EXPECT_TRUE((*model)->Execute(in, out).ok());
  run.steps = std::move(observer->outputs);
  return run;
}

TEST(IntraOpThreadsTest, OneTwoAndThreeThreadsGiveTheSameBits) {
  std::vector<float> x(8 * 64 * 64);
  std::mt19937 rng(4);
  std::uniform_real_distribution<float> dist(-3, 3);
  for (float& v : x) v = dist(rng);
  const Outcome one = RunOn(1, x);
  ASSERT_EQ(one.steps.size(), 6u);  // Sigmoid + Mul fused; Reshape aliased
  for (int threads : {2, 3}) {
    const Outcome many = RunOn(threads, x);
    EXPECT_EQ(
        std::memcmp(one.y.data(), many.y.data(), one.y.size() * sizeof(float)),
        0)
        << threads << " threads";
    EXPECT_EQ(std::memcmp(one.pooled.data(), many.pooled.data(),
                          one.pooled.size() * sizeof(float)),
              0)
        << threads << " threads";
    ASSERT_EQ(many.steps.size(), one.steps.size());
    for (size_t i = 0; i < one.steps.size(); ++i) {
      EXPECT_TRUE(one.steps[i] == many.steps[i])
          << "step " << i << " differs on " << threads << " threads";
    }
  }
}

TEST(IntraOpThreadsTest, ModelsTakeTheProcessSettingWhenCompiled) {
  const int before = IntraOpThreads();
  SetIntraOpThreads(3);
  Graph graph = SplitGraph();
  auto model = CompiledModel::Compile(graph, BuiltinOps());
  ASSERT_TRUE(model.ok());
  EXPECT_EQ((*model)->intra_op_threads(), 3);
  SetIntraOpThreads(0);
  EXPECT_EQ(IntraOpThreads(), MachineCores());
  EXPECT_EQ((*model)->intra_op_threads(), 3);  // fixed at compile time
  SetIntraOpThreads(before);
}

TEST(IntraOpThreadsTest, ParallelForCoversEveryItemOnce) {
  for (int threads : {1, 2, 5}) {
    ScopedIntraOpThreads scope(threads);
    for (size_t n : {0, 1, 7, 100, 1001}) {
      for (size_t grain : {1, 3, 64}) {
        std::vector<std::atomic<int>> seen(n);
        ParallelFor(n, grain, [&](size_t begin, size_t end) {
          EXPECT_LT(begin, end);
          for (size_t i = begin; i < end; ++i) seen[i]++;
        });
        for (size_t i = 0; i < n; ++i) {
          ASSERT_EQ(seen[i].load(), 1) << n << "/" << grain << "/" << i;
        }
      }
    }
  }
}

TEST(IntraOpThreadsTest, ScopesNestAndRestore) {
  ScopedIntraOpThreads outer(2);
  {
    ScopedIntraOpThreads inner(1);
    int calls = 0;
    ParallelFor(1000, 1, [&](size_t, size_t) { ++calls; });
    EXPECT_EQ(calls, 1);  // one thread: one range
  }
  std::atomic<int> calls = 0;
  ParallelFor(1000, 1, [&](size_t, size_t) { ++calls; });
  EXPECT_EQ(calls.load(), 2);
}

}  // namespace
}  // namespace acldump
