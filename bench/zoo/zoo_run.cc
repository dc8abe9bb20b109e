// Runs a converted model on .npy inputs: the acldump side of the model zoo
// (run.sh).
//   zoo_run model.om out_dir input_0.npy [input_1.npy ...]
//     runs once and writes the outputs as out_dir/output_<k>.npy;
//   zoo_run --time RUNS --threads N model.om - input_0.npy ...
//     runs twice to warm up, then RUNS times, and prints the time of each run
//     in milliseconds as JSON: {"threads": N, "ms": [...]};
//   zoo_run --profile RUNS [--threads N] model.om - input_0.npy ...
//     runs RUNS times with an observer timing every node, and prints the time
//     per op type (fused nodes count under their type) to stderr, and per op
//     type as JSON to stdout: {"by_type": {"Conv": ms, ...}, "total_ms": ms};
//   zoo_run --first-run RUNS [--threads N] model.om - input_0.npy ...
//     what a service loading the model on demand sees, in a fresh process:
//     the load, the first execution, then RUNS more; prints as JSON the
//     milliseconds of the load and of the first execution, the resident
//     memory before the load and the peak at the end (MB).
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "base/strings.h"
#include "kernels/npy.h"
#include "kernels/threading.h"
#include "runtime/compiled_model.h"
#include "runtime/model_loader.h"

namespace acldump {
namespace {

// Times every node: where an execution's time goes, by op type and, where the
// kernel names one, its implementation (a Conv may be a GEMM, a depthwise
// kernel or oneDNN); then the slowest nodes, to set beside another engine's
// per-node profile.
// Untouched pages of a buffer cost no memory, so the room is generous.
constexpr size_t kVaryingOutputCapacity = size_t{1} << 30;

class ProfilingObserver final : public ExecutionObserver {
 public:
  bool BeginIteration(uint64_t) override { return true; }
  bool ObservesDynamicSteps() const override { return true; }
  // Control-flow nodes bracket the nodes of their subgraphs: each node is
  // charged its own time, without what ran inside it.
  void BeforeNode(const NodeEvent&) override {
    open_.push_back({Clock::now(), 0.0});
  }
  void AfterNode(const NodeEvent& event) override {
    if (open_.empty()) return;
    const Open opened = open_.back();
    open_.pop_back();
    const double elapsed =
        std::chrono::duration<double, std::milli>(Clock::now() - opened.start)
            .count();
    if (!open_.empty()) open_.back().inner_ms += elapsed;
    Charge(event, elapsed - opened.inner_ms);
  }
  void Charge(const NodeEvent& event, double ms) {
    std::string key = event.step.op_type;
    for (const auto& [param, value] : event.step.launch_params) {
      if (param == "implementation") StrAppend(key, " ", value);
    }
    Entry& entry = by_type_[key];
    entry.ms += ms;
    ++entry.nodes;
    Entry& node = by_node_[event.step.task_id];
    if (node.nodes++ == 0) {
      node.label = StrCat(event.step.name, " ", key, " -> ",
                          event.step.output_infos.empty()
                              ? std::string()
                              : event.step.output_infos[0].ToString());
    }
    node.ms += ms;
  }
  void Print(int runs) const {
    std::vector<std::pair<double, std::string>> rows;
    double total = 0;
    for (const auto& [type, entry] : by_type_) {
      rows.emplace_back(entry.ms / runs, type);
      total += entry.ms / runs;
    }
    std::sort(rows.rbegin(), rows.rend());
    for (const auto& [ms, type] : rows) {
      std::fprintf(stderr, "%-40s %9.3f ms %5.1f %% %5lld nodes\n",
                   type.c_str(), ms, 100 * ms / total,
                   static_cast<long long>(by_type_.at(type).nodes / runs));
    }
    std::fprintf(stderr, "%-40s %9.3f ms\n", "total", total);
    // By op type alone (an implementation's nodes under their op type), to
    // set beside another engine's profile.
    std::map<std::string, double> by_op;
    for (const auto& [type, entry] : by_type_) {
      by_op[type.substr(0, type.find(' '))] += entry.ms / runs;
    }
    std::printf("{\"by_type\": {");
    const char* separator = "";
    for (const auto& [op, ms] : by_op) {
      std::string escaped;
      for (char c : op) {
        if (c == '"' || c == '\\') escaped += '\\';
        escaped += c;
      }
      std::printf("%s\"%s\": %.4f", separator, escaped.c_str(), ms);
      separator = ", ";
    }
    std::printf("}, \"total_ms\": %.4f}\n", total);
    std::vector<const Entry*> nodes;
    for (const auto& [task, entry] : by_node_) nodes.push_back(&entry);
    const size_t shown = std::min<size_t>(kSlowestNodes, nodes.size());
    std::partial_sort(
        nodes.begin(), nodes.begin() + shown, nodes.end(),
        [](const Entry* a, const Entry* b) { return a->ms > b->ms; });
    std::fprintf(stderr, "slowest nodes:\n");
    for (size_t i = 0; i < shown; ++i) {
      std::fprintf(stderr, "%9.3f ms  %s\n", nodes[i]->ms / runs,
                   nodes[i]->label.c_str());
    }
  }

 private:
  using Clock = std::chrono::steady_clock;
  static constexpr size_t kSlowestNodes = 20;
  struct Entry {
    double ms = 0;
    int64_t nodes = 0;
    std::string label;
  };
  struct Open {
    Clock::time_point start;
    double inner_ms;
  };
  std::vector<Open> open_;
  std::map<std::string, Entry> by_type_;
  std::map<uint32_t, Entry> by_node_;
};

// The process's resident memory now, in MB (0 if /proc cannot tell).
double ResidentMb() {
  std::FILE* statm = std::fopen("/proc/self/statm", "r");
  if (statm == nullptr) return 0;
  long size = 0, resident = 0;
  const int read = std::fscanf(statm, "%ld %ld", &size, &resident);
  std::fclose(statm);
  return read == 2 ? resident * static_cast<double>(sysconf(_SC_PAGESIZE)) / 1e6
                   : 0;
}

// The process's peak resident memory so far, in MB.
double PeakResidentMb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss * 1024.0 / 1e6;  // KiB on Linux
}

double MsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - start)
      .count();
}

int Fail(const absl::Status& status) {
  std::fprintf(stderr, "zoo_run: %s\n", std::string(status.message()).c_str());
  return 1;
}

// A positive count from a flag's value, or 0.
int ParseCount(const char* text) {
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  return (*end == '\0' && value > 0 && value <= 100000)
             ? static_cast<int>(value)
             : 0;
}

int Main(int argc, char** argv) {
  int runs = 0;
  int profile_runs = 0;
  int first_runs = 0;
  int threads = 1;
  int arg = 1;
  for (; arg + 1 < argc && std::strncmp(argv[arg], "--", 2) == 0; arg += 2) {
    const int value = ParseCount(argv[arg + 1]);
    if (std::strcmp(argv[arg], "--time") == 0 && value > 0) {
      runs = value;
    } else if (std::strcmp(argv[arg], "--profile") == 0 && value > 0) {
      profile_runs = value;
    } else if (std::strcmp(argv[arg], "--first-run") == 0 && value > 0) {
      first_runs = value;
    } else if (std::strcmp(argv[arg], "--threads") == 0 && value > 0) {
      threads = value;
    } else {
      std::fprintf(stderr, "zoo_run: bad option %s %s\n", argv[arg],
                   argv[arg + 1]);
      return 2;
    }
  }
  if (argc - arg < 3) {
    std::fprintf(stderr,
                 "usage: %s [--time RUNS | --profile RUNS | --first-run RUNS] "
                 "[--threads N] "
                 "model.om out_dir "
                 "input.npy...\n",
                 argv[0]);
    return 2;
  }
  SetIntraOpThreads(threads);
  // The inputs first, so that the load's time and memory are the model's.
  std::vector<Tensor> inputs;
  std::vector<HostBuffer> in;
  for (int i = arg + 2; i < argc; ++i) {
    absl::StatusOr<Tensor> t = ReadNpyFile(argv[i]);
    if (!t.ok()) return Fail(t.status());
    inputs.push_back(std::move(*t));
  }
  for (const Tensor& t : inputs) in.push_back({t.data(), t.ByteSize()});
  const double rss_before_mb = ResidentMb();
  const auto load_start = std::chrono::steady_clock::now();
  absl::StatusOr<std::unique_ptr<CompiledModel>> model =
      LoadStaticModel(ModelSource::File(argv[arg]));
  if (!model.ok()) return Fail(model.status());
  const double load_ms = MsSince(load_start);
  const std::string out_dir = argv[arg + 1];
  // An output whose size depends on the input (-1 dims) gets room for the
  // largest result; it is written with the shape the execution computed.
  std::vector<AlignedBuffer> outputs;
  std::vector<MutableHostBuffer> out;
  for (size_t k = 0; k < (*model)->graph().outputs.size(); ++k) {
    const TensorInfo& info = (*model)->graph().outputs[k].info;
    outputs.emplace_back((*model)->output_is_dynamic(k)
                             ? kVaryingOutputCapacity
                             : std::max<size_t>(info.ByteSize(), 1),
                         /*zeroed=*/false);
    out.push_back({outputs.back().data(), outputs.back().size()});
  }

  if (first_runs > 0) {
    const auto first_start = std::chrono::steady_clock::now();
    absl::Status status = (*model)->Execute(in, out);
    const double first_ms = MsSince(first_start);
    for (int i = 0; status.ok() && i < first_runs; ++i) {
      status = (*model)->Execute(in, out);
    }
    if (!status.ok()) return Fail(status);
    std::printf(
        "{\"threads\": %d, \"load_ms\": %.3f, \"first_run_ms\": %.3f, "
        "\"rss_before_mb\": %.2f, \"peak_rss_mb\": %.2f}\n",
        threads, load_ms, first_ms, rss_before_mb, PeakResidentMb());
    return 0;
  }
  if (profile_runs > 0) {
    absl::Status status = (*model)->Execute(in, out);  // warm-up
    if (!status.ok()) return Fail(status);
    auto profiler = std::make_shared<ProfilingObserver>();
    status = (*model)->AttachObserver(
        profiler, std::vector<uint8_t>((*model)->steps().size(),
                                       kObserveBefore | kObserveAfter));
    if (!status.ok()) return Fail(status);
    for (int i = 0; i < profile_runs; ++i) {
      status = (*model)->Execute(in, out);
      if (!status.ok()) return Fail(status);
    }
    profiler->Print(profile_runs);
    return 0;
  }
  if (runs > 0) {
    std::vector<double> ms;
    for (int i = 0; i < runs + 2; ++i) {
      const auto start = std::chrono::steady_clock::now();
      absl::Status status = (*model)->Execute(in, out);
      const auto stop = std::chrono::steady_clock::now();
      if (!status.ok()) return Fail(status);
      if (i >= 2) {
        ms.push_back(
            std::chrono::duration<double, std::milli>(stop - start).count());
      }
    }
    std::printf("{\"threads\": %d, \"ms\": [", threads);
    for (size_t i = 0; i < ms.size(); ++i) {
      std::printf("%s%.4f", i ? ", " : "", ms[i]);
    }
    std::printf("]}\n");
    return 0;
  }
  absl::Status status = (*model)->Execute(in, out);
  if (!status.ok()) return Fail(status);
  const std::vector<TensorInfo> computed = (*model)->CurrentOutputInfos();
  for (size_t k = 0; k < outputs.size(); ++k) {
    const TensorView view{computed[k].dtype, computed[k].shape,
                          outputs[k].data()};
    status = WriteNpyFile(StrCat(out_dir, "/output_", k, ".npy"), view);
    if (!status.ok()) return Fail(status);
  }
  return 0;
}

}  // namespace
}  // namespace acldump

int main(int argc, char** argv) { return acldump::Main(argc, argv); }
