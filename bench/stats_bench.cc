// The stats kernel (one pass: max, min, sum, sum of squares, NaN/Inf counts)
// against a plain memcpy of the same bytes, in one binary so the ratio comes
// from one run.
#include <benchmark/benchmark.h>

#include <cstring>
#include <random>

#include "dump/stats.h"
#include "kernels/half.h"

namespace acldump::bench {
namespace {

constexpr int64_t kBytes = 16 << 20;

// A tensor of the size of one of MobileNetV2's smaller activations, read from
// the core's L2 cache: what the kernel itself costs, without memory's limit.
constexpr int64_t kInCacheBytes = 256 << 10;

Tensor RandomTensor(DType dtype, int64_t bytes = kBytes) {
  const int64_t n = bytes / static_cast<int64_t>(DTypeSize(dtype));
  Tensor t(dtype, Shape({n}));
  std::mt19937 rng(5);
  std::normal_distribution<float> dist(0, 2);
  for (int64_t i = 0; i < n; ++i) {
    if (dtype == DType::kFloat32) {
      t.as<float>()[i] = dist(rng);
    } else {
      t.as<Float16>()[i] = Float16(dist(rng));
    }
  }
  return t;
}

void BM_Memcpy(benchmark::State& state) {
  AlignedBuffer src(kBytes), dst(kBytes);
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), kBytes);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * kBytes);
}
BENCHMARK(BM_Memcpy);

// The same copy again: an A/A pair whose ratio is the run's own noise.
void BM_MemcpyAgain(benchmark::State& state) { BM_Memcpy(state); }
BENCHMARK(BM_MemcpyAgain);

void BM_StatsFloat32(benchmark::State& state) {
  const Tensor t = RandomTensor(DType::kFloat32);
  for (auto _ : state) benchmark::DoNotOptimize(dump::ComputeStats(t.view()));
  state.SetBytesProcessed(state.iterations() * kBytes);
}
BENCHMARK(BM_StatsFloat32);

void BM_StatsInCacheFloat32(benchmark::State& state) {
  const Tensor t = RandomTensor(DType::kFloat32, kInCacheBytes);
  for (auto _ : state) benchmark::DoNotOptimize(dump::ComputeStats(t.view()));
  state.SetBytesProcessed(state.iterations() * kInCacheBytes);
}
BENCHMARK(BM_StatsInCacheFloat32);

// The statistics with the tensor's checksum taken in the same pass.
void BM_StatsChecksumFloat32(benchmark::State& state) {
  const Tensor t = RandomTensor(DType::kFloat32);
  for (auto _ : state) {
    benchmark::DoNotOptimize(dump::ComputeStats(t.view(), /*checksum=*/true));
  }
  state.SetBytesProcessed(state.iterations() * kBytes);
}
BENCHMARK(BM_StatsChecksumFloat32);

void BM_StatsChecksumInCacheFloat32(benchmark::State& state) {
  const Tensor t = RandomTensor(DType::kFloat32, kInCacheBytes);
  for (auto _ : state) {
    benchmark::DoNotOptimize(dump::ComputeStats(t.view(), /*checksum=*/true));
  }
  state.SetBytesProcessed(state.iterations() * kInCacheBytes);
}
BENCHMARK(BM_StatsChecksumInCacheFloat32);

// The checksum alone (dump_data "checksum").
void BM_ChecksumFloat32(benchmark::State& state) {
  const Tensor t = RandomTensor(DType::kFloat32);
  for (auto _ : state) benchmark::DoNotOptimize(dump::TensorChecksum(t.view()));
  state.SetBytesProcessed(state.iterations() * kBytes);
}
BENCHMARK(BM_ChecksumFloat32);

void BM_ChecksumInCacheFloat32(benchmark::State& state) {
  const Tensor t = RandomTensor(DType::kFloat32, kInCacheBytes);
  for (auto _ : state) benchmark::DoNotOptimize(dump::TensorChecksum(t.view()));
  state.SetBytesProcessed(state.iterations() * kInCacheBytes);
}
BENCHMARK(BM_ChecksumInCacheFloat32);

void BM_StatsFloat16(benchmark::State& state) {
  const Tensor t = RandomTensor(DType::kFloat16);
  for (auto _ : state) benchmark::DoNotOptimize(dump::ComputeStats(t.view()));
  state.SetBytesProcessed(state.iterations() * kBytes);
}
BENCHMARK(BM_StatsFloat16);

void BM_HasNonFiniteFloat32(benchmark::State& state) {
  const Tensor t = RandomTensor(DType::kFloat32);
  for (auto _ : state) benchmark::DoNotOptimize(dump::HasNonFinite(t.view()));
  state.SetBytesProcessed(state.iterations() * kBytes);
}
BENCHMARK(BM_HasNonFiniteFloat32);

}  // namespace
}  // namespace acldump::bench

BENCHMARK_MAIN();
