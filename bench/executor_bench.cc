// Model latency per dump mode, single thread, variants side by side so ratios
// come from one run: full-size ResNet-18 (random weights generated here) and
// the testdata models; and the per-node observer cost on a chain of 1,000 tiny
// ops.
#include <benchmark/benchmark.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <limits>
#include <sstream>
#include <thread>
#include <vector>

#include "bench/dump_fixture.h"
#include "bench/resnet18.h"
#include "bench/zoo_graphs.h"
#include "dump/file_system.h"
#include "kernels/threading.h"

namespace acldump::bench {
namespace {

const std::string& ResNet18() {
  static const std::string* bytes = new std::string(ResNet18ModelBytes());
  return *bytes;
}

const std::string& MobileNetV2() {
  static const std::string* bytes = new std::string(MobileNetV2ModelBytes());
  return *bytes;
}

const std::string& TransformerEncoder() {
  static const std::string* bytes =
      new std::string(TransformerEncoderModelBytes());
  return *bytes;
}

const std::string& TinyOps() {
  static const std::string* bytes = new std::string(TinyOpsModelBytes(1000));
  return *bytes;
}

// CPU time of the calling thread: what executing costs that thread, without
// the time it spends blocked (waiting for the writer to free a buffer).
double ThreadCpuSeconds() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

double Median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Times each iteration by hand so the final flush of queued dumps
// (FinalizeDump) counts: a dump mode is only as fast as the disk lets its data
// land.
void RunModel(benchmark::State& state, const std::string& bytes, Mode mode,
              std::vector<std::string> layers) {
  DumpedModel model(bytes, mode, std::move(layers));
  model.Run();  // warm-up: first-touch of arena and pools
  int64_t done = 0;
  double fastest = std::numeric_limits<double>::infinity();
  std::vector<double> exec_cpu;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    const double cpu_start = ThreadCpuSeconds();
    model.Run();
    exec_cpu.push_back(ThreadCpuSeconds() - cpu_start);
    ++done;
    if (done == state.max_iterations) model.Finish();
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    state.SetIterationTime(seconds);
    fastest = std::min(fastest, seconds);
  }
  // The fastest iteration: for modes that write nothing, the code's cost
  // without the machine's noise (other tenants, interrupts), which is what the
  // sub-percent gates compare.
  state.counters["fastest_us"] = done > 0 ? fastest * 1e6 : 0;
  // The executing thread's own CPU time per iteration (the final flush left
  // out): against no observer, what dumping costs the thread running the model.
  state.counters["exec_cpu_us"] = Median(exec_cpu) * 1e6;
  const uint64_t written = model.Finish();
  state.counters["dumped_MB_per_iter"] =
      done > 0
          ? static_cast<double>(written) / 1e6 / static_cast<double>(done + 1)
          : 0;
  state.counters["nodes"] = static_cast<double>(model.num_steps());
  state.SetItemsProcessed(state.iterations() *
                          static_cast<int64_t>(model.num_steps()));
}

// A disk that cannot keep up: every file takes 2 ms to create.
class SlowDisk final : public dump::ForwardingFileSystem {
 public:
  absl::StatusOr<int> CreateFileAt(int dir, int mode,
                                   const std::string& path) override {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    return ForwardingFileSystem::CreateFileAt(dir, mode, path);
  }
};

// A tensor dump of every output under the drop policy (1 ms budget) onto a
// disk far slower than the model: the time each execution spends blocked
// (wall minus its thread's CPU time) stays within the budget, whatever the
// backlog. Iteration time is the execution's wall time alone.
void RunDropLatency(benchmark::State& state, const std::string& bytes) {
  static SlowDisk* disk = new SlowDisk();
  // A writer memory budget of a few executions' tensors: the backlog reaches
  // it within the first iterations.
  setenv("ACLDUMP_WRITER_MEMORY_MB", "32", 1);
  DumpedModel model(bytes, Mode::kTensorAllDrop1ms, {}, disk);
  unsetenv("ACLDUMP_WRITER_MEMORY_MB");
  model.Run();
  std::vector<double> waited, blocked, wall;
  for (auto _ : state) {
    const uint64_t waited_before =
        model.writer()->stats().back_pressure_wait_ns;
    const auto start = std::chrono::steady_clock::now();
    const double cpu_start = ThreadCpuSeconds();
    model.Run();
    const double cpu = ThreadCpuSeconds() - cpu_start;
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    state.SetIterationTime(seconds);
    wall.push_back(seconds);
    blocked.push_back(std::max(0.0, seconds - cpu));
    waited.push_back(
        static_cast<double>(model.writer()->stats().back_pressure_wait_ns -
                            waited_before) *
        1e-9);
  }
  const auto p99 = [](std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return values.empty() ? 0.0 : values[(values.size() * 99) / 100];
  };
  // What the budget bounds: the execution's waits for the writer.
  state.counters["waited_p99_us"] = p99(waited) * 1e6;
  // Wall time off the thread's CPU: the waits plus whatever else held the
  // thread up (preemption on a busy machine).
  state.counters["blocked_p99_us"] = p99(blocked) * 1e6;
  state.counters["wall_median_us"] = Median(wall) * 1e6;
  state.counters["wall_p99_us"] = p99(wall) * 1e6;
  const dump::WriterStats stats = model.writer()->stats();
  state.counters["dropped_per_iter"] =
      static_cast<double>(stats.records_dropped_late) /
      static_cast<double>(state.iterations() + 1);
  model.Finish();
}

const std::vector<std::string> kResNet18Layers = {
    "conv1", "layer1.0.relu", "layer2.1.add", "layer4.1.conv2", "fc"};
const std::vector<std::string> kResnetTinyLayers = {"conv1", "pool1", "add1",
                                                    "conv5", "prob"};

constexpr Mode kModes[] = {
    Mode::kNoObserver,          Mode::kDumpOff,        Mode::kNotSelected,
    Mode::kStepNotSelected,     Mode::kStats,          Mode::kTensorAll,
    Mode::kTensorFive,          Mode::kStatsPacked,    Mode::kTensorAllPacked,
    Mode::kStatsChecksumPacked, Mode::kBaselinePacked, Mode::kRecorder};

// Every mode of one model family, and no observer once more under another
// name: an A/A pair whose ratio is the run's own noise, which the gate
// reports beside each ratio.
void RegisterFamily(const std::string& family,
                    std::function<void(benchmark::State&, Mode)> run,
                    benchmark::TimeUnit unit, double min_time = 0) {
  auto add = [&](const std::string& variant, Mode mode) {
    auto* bench = benchmark::RegisterBenchmark(
        (family + "/" + variant).c_str(),
        [run, mode](benchmark::State& s) { run(s, mode); });
    bench->UseManualTime()->Unit(unit);
    if (min_time > 0) bench->MinTime(min_time);
  };
  for (Mode mode : kModes) add(ModeName(mode), mode);
  add("no_observer_again", Mode::kNoObserver);
}

void RegisterAll() {
  RegisterFamily(
      "BM_ResNet18",
      [](benchmark::State& s, Mode mode) {
        RunModel(s, ResNet18(), mode, kResNet18Layers);
      },
      benchmark::kMillisecond, 0.5);
  // Models of many light operators, where each dump record's cost shows.
  RegisterFamily(
      "BM_MobileNetV2",
      [](benchmark::State& s, Mode mode) {
        RunModel(s, MobileNetV2(), mode,
                 {"features.0.0", "features.4.add", "features.10.conv.1.0",
                  "features.17.conv.2", "classifier.1"});
      },
      benchmark::kMillisecond, 0.5);
  RegisterFamily(
      "BM_TransformerEncoder",
      [](benchmark::State& s, Mode mode) {
        RunModel(s, TransformerEncoder(), mode,
                 {"layers.0.scores", "layers.0.softmax", "layers.0.norm1",
                  "layers.1.relu", "layers.1.norm2"});
      },
      benchmark::kMicrosecond);
  const std::string tiny = ReadFile("testdata/resnet_tiny.om");
  RegisterFamily(
      "BM_ResnetTiny",
      [tiny](benchmark::State& s, Mode mode) {
        RunModel(s, tiny, mode, kResnetTinyLayers);
      },
      benchmark::kMicrosecond);
  const std::string mlp = ReadFile("testdata/mlp_block.om");
  RegisterFamily(
      "BM_MlpBlock",
      [mlp](benchmark::State& s, Mode mode) {
        RunModel(s, mlp, mode, {"ln1", "fc1", "attn", "context", "pooled"});
      },
      benchmark::kMicrosecond);
  benchmark::RegisterBenchmark(
      "BM_DropPolicyLatency/ResNet18",
      [](benchmark::State& s) { RunDropLatency(s, ResNet18()); })
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond)
      ->MinTime(3);
  // Per-node cost: items/s here are nodes/s; ns per node = 1e9 /
  // items_per_second.
  RegisterFamily(
      "BM_TinyOps1000",
      [](benchmark::State& s, Mode mode) {
        RunModel(s, TinyOps(), mode,
                 {"add1", "add100", "add500", "add900", "add999"});
      },
      benchmark::kMicrosecond);
}

}  // namespace
}  // namespace acldump::bench

int main(int argc, char** argv) {
  // One execution thread, the dump writer on the other core: the gate's
  // ratios are about what dumping adds to that thread.
  acldump::SetIntraOpThreads(1);
  benchmark::Initialize(&argc, argv);
  acldump::bench::RegisterAll();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
