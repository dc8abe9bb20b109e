// Kernel throughput: Conv and Gemm GFLOP/s at ResNet-18 and MobileNet shapes,
// MaxPool, elementwise GB/s, and the transcendental activations.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <random>

#include "kernels/ops.h"
#include "kernels/threading.h"

namespace acldump::bench {
namespace {

struct Prepared {
  std::vector<Tensor> inputs;
  std::vector<Tensor> outputs;
  std::vector<TensorView> in, out;
  std::unique_ptr<Kernel> kernel;
  AlignedBuffer workspace;
};

// Inputs listed in `constant` are known at prepare time, as a model's
// weights are (kernels may pack them then).
Prepared Prepare(const std::string& op, std::vector<TensorInfo> inputs,
                 const Attributes& attrs, std::vector<size_t> constant = {}) {
  Prepared p;
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<const TensorView*> constants;
  for (const TensorInfo& info : inputs) {
    p.inputs.emplace_back(info.dtype, info.shape);
    for (int64_t i = 0; i < p.inputs.back().NumElements(); ++i) {
      p.inputs.back().as<float>()[i] = dist(rng);
    }
  }
  for (const Tensor& t : p.inputs) p.in.push_back(t.view());
  for (size_t i = 0; i < p.in.size(); ++i) {
    const bool known =
        std::find(constant.begin(), constant.end(), i) != constant.end();
    constants.push_back(known ? &p.in[i] : nullptr);
  }
  OpContext context{op, attrs, inputs, constants, 1};
  auto prepared = BuiltinOps().Prepare(context);
  if (!prepared.ok()) std::abort();
  for (const TensorInfo& info : prepared->outputs)
    p.outputs.emplace_back(info.dtype, info.shape);
  for (const Tensor& t : p.outputs) p.out.push_back(t.view());
  p.kernel = std::move(prepared->kernel);
  p.workspace = AlignedBuffer(p.kernel->WorkspaceBytes());
  return p;
}

void Run(benchmark::State& state, Prepared& p, double flops, double bytes) {
  std::span<std::byte> ws(p.workspace.data(), p.workspace.size());
  for (auto _ : state) {
    benchmark::DoNotOptimize(p.kernel->Run(p.in, p.out, ws));
    benchmark::ClobberMemory();
  }
  if (flops > 0) {
    state.counters["GFLOP/s"] = benchmark::Counter(
        flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  }
  if (bytes > 0)
    state.SetBytesProcessed(static_cast<int64_t>(bytes) * state.iterations());
}

// (channels_in, size, channels_out, kernel, stride) of ResNet-18's
// convolutions.
// Args: in channels, size, out channels, kernel, stride, groups (1 or
// depthwise), and whether the weights are constants, as a model's are (the
// 1x1 and depthwise kernels on NCHW need that; runtime weights go to
// oneDNN).
void BM_Conv(benchmark::State& state) {
  const int64_t cin = state.range(0), hw = state.range(1),
                cout = state.range(2), k = state.range(3),
                stride = state.range(4), group = state.range(5);
  Attributes attrs;
  attrs.Set("strides", std::vector<int64_t>{stride, stride});
  attrs.Set("pads", std::vector<int64_t>{k / 2, k / 2, k / 2, k / 2});
  attrs.Set("group", group);
  attrs.Set("fused_activation", std::string("Relu"));
  Prepared p = Prepare(
      "Conv",
      {{DType::kFloat32, Shape({1, cin, hw, hw})},
       {DType::kFloat32, Shape({cout, cin / group, k, k})},
       {DType::kFloat32, Shape({cout})}},
      attrs,
      state.range(6) ? std::vector<size_t>{1, 2} : std::vector<size_t>{});
  const double out_hw =
      static_cast<double>(p.outputs[0].shape()[2] * p.outputs[0].shape()[3]);
  Run(state, p, 2.0 * cout * (cin / group) * k * k * out_hw, 0);
}
BENCHMARK(BM_Conv)
    // ResNet-18
    ->Args({3, 224, 64, 7, 2, 1, 0})
    ->Args({64, 56, 64, 3, 1, 1, 0})
    ->Args({64, 56, 128, 3, 2, 1, 0})
    ->Args({128, 28, 128, 3, 1, 1, 0})
    ->Args({256, 14, 256, 3, 1, 1, 0})
    ->Args({512, 7, 512, 3, 1, 1, 0})
    ->Args({256, 14, 512, 1, 2, 1, 0})
    // MobileNetV2: 1x1 expand and project, depthwise 3x3; oneDNN vs NCHW
    ->ArgsProduct({{16}, {112}, {96}, {1}, {1}, {1}, {0, 1}})
    ->ArgsProduct({{144}, {56}, {24}, {1}, {1}, {1}, {0, 1}})
    ->ArgsProduct({{960}, {7}, {160}, {1}, {1}, {1}, {0, 1}})
    ->ArgsProduct({{96}, {112}, {96}, {3}, {2}, {96}, {0, 1}})
    ->ArgsProduct({{144}, {56}, {144}, {3}, {1}, {144}, {0, 1}})
    ->ArgsProduct({{32}, {112}, {32}, {3}, {1}, {32}, {0, 1}})
    ->ArgsProduct({{576}, {14}, {576}, {3}, {2}, {576}, {0, 1}})
    ->ArgsProduct({{384}, {14}, {384}, {3}, {1}, {384}, {0, 1}})
    ->ArgsProduct({{960}, {7}, {960}, {3}, {1}, {960}, {0, 1}})
    ->ArgsProduct({{32}, {112}, {16}, {1}, {1}, {1}, {0, 1}})
    ->ArgsProduct({{960}, {7}, {320}, {1}, {1}, {1}, {0, 1}})
    ->ArgsProduct({{320}, {7}, {1280}, {1}, {1}, {1}, {0, 1}})
    ->ArgsProduct({{96}, {14}, {576}, {1}, {1}, {1}, {0, 1}})
    // First layers: 3 input channels
    ->Args({3, 224, 16, 3, 2, 1, 0})
    ->Args({3, 224, 32, 3, 2, 1, 0})
    // MobileNetV3-small: 5x5 depthwise and 1x1 on 14x14 and 7x7 planes
    ->ArgsProduct({{240}, {14}, {240}, {5}, {1}, {240}, {0, 1}})
    ->ArgsProduct({{576}, {7}, {576}, {5}, {1}, {576}, {0, 1}})
    ->ArgsProduct({{96}, {7}, {576}, {1}, {1}, {1}, {0, 1}})
    ->ArgsProduct({{40}, {14}, {240}, {1}, {1}, {1}, {0, 1}})
    ->Unit(benchmark::kMicrosecond);

// Args: M, K, N, and whether B is a constant (packed once at prepare time,
// as model weights are) or a runtime input.
void BM_Gemm(benchmark::State& state) {
  const int64_t m = state.range(0), k = state.range(1), n = state.range(2);
  Attributes attrs;
  attrs.Set("transB", int64_t{1});
  Prepared p = Prepare(
      "Gemm",
      {{DType::kFloat32, Shape({m, k})},
       {DType::kFloat32, Shape({n, k})},
       {DType::kFloat32, Shape({n})}},
      attrs,
      state.range(3) ? std::vector<size_t>{1, 2} : std::vector<size_t>{});
  Run(state, p, 2.0 * m * n * k, 0);
}
BENCHMARK(BM_Gemm)
    ->ArgsProduct({{1}, {512}, {1000}, {0, 1}})
    ->ArgsProduct({{256}, {256}, {256}, {0, 1}})
    ->ArgsProduct({{64}, {1024}, {1024}, {0, 1}})
    ->ArgsProduct({{197}, {768}, {3072}, {0, 1}})
    ->ArgsProduct({{16}, {128}, {384}, {0, 1}})
    ->Unit(benchmark::kMicrosecond);

// Args: channels, size, kernel, stride, pad (ceil mode on): SqueezeNet's and
// GoogLeNet's downsampling and GoogLeNet's inception-branch pools.
void BM_MaxPool(benchmark::State& state) {
  const int64_t channels = state.range(0), hw = state.range(1),
                k = state.range(2), stride = state.range(3),
                pad = state.range(4);
  Attributes attrs;
  attrs.Set("kernel_shape", std::vector<int64_t>{k, k});
  attrs.Set("strides", std::vector<int64_t>{stride, stride});
  attrs.Set("pads", std::vector<int64_t>{pad, pad, pad, pad});
  attrs.Set("ceil_mode", int64_t{1});
  Prepared p = Prepare(
      "MaxPool", {{DType::kFloat32, Shape({1, channels, hw, hw})}}, attrs);
  Run(state, p, 0, 4.0 * channels * hw * hw);
}
BENCHMARK(BM_MaxPool)
    ->Args({64, 111, 3, 2, 0})
    ->Args({192, 56, 3, 2, 0})
    ->Args({192, 28, 3, 1, 1})
    ->Args({480, 14, 3, 1, 1})
    ->Unit(benchmark::kMicrosecond);

void BM_Add(benchmark::State& state) {
  const int64_t n = state.range(0);
  Prepared p = Prepare(
      "Add", {{DType::kFloat32, Shape({n})}, {DType::kFloat32, Shape({n})}},
      {});
  Run(state, p, 0, 3.0 * n * 4);  // two reads, one write
}
BENCHMARK(BM_Add)->Arg(1 << 16)->Arg(1 << 22);

void BM_Relu(benchmark::State& state) {
  const int64_t n = state.range(0);
  Prepared p = Prepare("Relu", {{DType::kFloat32, Shape({n})}}, {});
  Run(state, p, 0, 2.0 * n * 4);
}
BENCHMARK(BM_Relu)->Arg(1 << 16)->Arg(1 << 22);

// The transcendental activations (SIMD for float32), at the sizes of
// EfficientNet-B0's and ViT-B/16's activations.
void BM_Unary(benchmark::State& state, const char* op) {
  const int64_t n = state.range(0);
  Prepared p = Prepare(op, {{DType::kFloat32, Shape({n})}}, {});
  Run(state, p, 0, 2.0 * n * 4);
  state.SetItemsProcessed(n * state.iterations());
}
BENCHMARK_CAPTURE(BM_Unary, Sigmoid, "Sigmoid")->Arg(1 << 14)->Arg(1 << 20);
BENCHMARK_CAPTURE(BM_Unary, Tanh, "Tanh")->Arg(1 << 14)->Arg(1 << 20);
BENCHMARK_CAPTURE(BM_Unary, Erf, "Erf")->Arg(1 << 14)->Arg(1 << 20);
BENCHMARK_CAPTURE(BM_Unary, Exp, "Exp")->Arg(1 << 14)->Arg(1 << 20);
BENCHMARK_CAPTURE(BM_Unary, HardSwish, "HardSwish")->Arg(1 << 14)->Arg(1 << 20);
BENCHMARK_CAPTURE(BM_Unary, HardSigmoid, "HardSigmoid")
    ->Arg(1 << 14)
    ->Arg(1 << 20);
BENCHMARK_CAPTURE(BM_Unary, Relu, "Relu")->Arg(1 << 14)->Arg(1 << 20);

void BM_Softmax(benchmark::State& state) {
  const int64_t rows = state.range(0), cols = state.range(1);
  Prepared p = Prepare("Softmax", {{DType::kFloat32, Shape({rows, cols})}}, {});
  Run(state, p, 0, 2.0 * rows * cols * 4);
}
BENCHMARK(BM_Softmax)->Args({197 * 12, 197})->Args({1, 1000});

}  // namespace
}  // namespace acldump::bench

int main(int argc, char** argv) {
  // Single-thread kernel speed; kernels prepared here plan for this thread.
  acldump::ScopedIntraOpThreads one_thread(1);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
