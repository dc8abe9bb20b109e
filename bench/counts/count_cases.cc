// The count gate's cases (bench/counts/gate.py runs this binary under
// callgrind). Each case sets up outside the measured region (model built and
// compiled, dump configured, one warm-up execution), then runs its region
// once with callgrind collecting on this thread only: the dump writer's
// thread collects nothing, so what a dump costs the file system shows as the
// instructions that hand it over, never as the writing itself. After the
// region, callgrind dumps its counts under the case's name.
//
// Natively (not under valgrind) the client requests do nothing and the cases
// simply run, which `--list` and the smoke test use.
//
//   count_cases [--cases=REGEX] [--list]
//
// Prints one line per case, "case NAME UNITS UNIT NODES", so the gate can
// report counts per MiB, per record or per dumped node.
#include <oneapi/dnnl/dnnl.h>
#include <valgrind/callgrind.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <mutex>
#include <random>
#include <regex>
#include <span>
#include <string>
#include <vector>

#include "base/strings.h"
#include "bench/bench_dir.h"
#include "bench/dump_fixture.h"
#include "dump/config.h"
#include "dump/file_system.h"
#include "dump/folder_tree.h"
#include "dump/pack_appender.h"
#include "dump/stats.h"
#include "hwy/targets.h"
#include "kernels/half.h"
#include "kernels/threading.h"
#include "runtime/model_loader.h"

namespace acldump::bench {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void Fail(const std::string& what) {
  std::fprintf(stderr, "count_cases: %s\n", what.c_str());
  std::exit(2);
}

// One measured region. `units`: what the count is divided by in the report
// (1 for "per execution"); `nodes`: the model's steps (0: not a model).
template <typename Fn>
void Measure(const std::string& name, double units, const char* unit,
             size_t nodes, Fn&& region) {
  std::printf("case %s %g %s %zu\n", name.c_str(), units, unit, nodes);
  std::fflush(stdout);
  // Outside regions valgrind runs the code uninstrumented: set-up and warm-up
  // take a fraction of the time.
  CALLGRIND_START_INSTRUMENTATION;
  CALLGRIND_TOGGLE_COLLECT;
  region();
  CALLGRIND_TOGGLE_COLLECT;
  CALLGRIND_DUMP_STATS_AT(name.c_str());
  CALLGRIND_STOP_INSTRUMENTATION;
}

struct Case {
  std::string name;
  std::function<void(const std::string& name)> run;
};

// `path` below ACLDUMP_COUNTS_DATA (the runfiles; the gate runs this binary
// in a folder of its own), or below the working directory.
std::string ReadModel(const std::string& relative) {
  const char* data = std::getenv("ACLDUMP_COUNTS_DATA");
  const std::string path = data ? StrCat(data, "/", relative) : relative;
  std::ifstream in(path, std::ios::binary);
  if (!in) Fail("cannot read " + path + " (run from the runfiles)");
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// The generated models (make_models, at build time) and testdata's own.
const std::string& ResNet18() {
  static const std::string* bytes =
      new std::string(ReadModel("bench/counts/resnet18_48.om"));
  return *bytes;
}
const std::string& MobileNetV2() {
  static const std::string* bytes =
      new std::string(ReadModel("bench/counts/mobilenet_v2_64.om"));
  return *bytes;
}
const std::string& Transformer() {
  static const std::string* bytes =
      new std::string(ReadModel("bench/counts/transformer_encoder.om"));
  return *bytes;
}
const std::string& TinyOps() {
  static const std::string* bytes =
      new std::string(ReadModel("bench/counts/tiny_ops_1000.om"));
  return *bytes;
}
const std::string& ResnetTiny() {
  static const std::string* bytes =
      new std::string(ReadModel("testdata/resnet_tiny.om"));
  return *bytes;
}

constexpr Mode kModes[] = {Mode::kNoObserver,  Mode::kDumpOff,
                           Mode::kNotSelected, Mode::kStepNotSelected,
                           Mode::kStats,       Mode::kTensorAll,
                           Mode::kStatsPacked, Mode::kTensorAllPacked};

bool Writes(Mode mode) {
  return mode == Mode::kStats || mode == Mode::kTensorAll ||
         mode == Mode::kStatsPacked || mode == Mode::kTensorAllPacked ||
         mode == Mode::kTensorFive;
}

// Keeps the dump writer busy, inside a write, while a region runs. What the
// executing thread does for a record depends on the writer's state (an idle
// writer is woken, a running one is not), and when a free-running writer
// changes state depends on the disk and the clock: held, it is in the same
// state at every record of every run. The region must not fill the writer's
// queue or memory budget (it would wait for the held writer): the hold gives
// up after a minute and the case fails.
class HoldingFileSystem final : public dump::ForwardingFileSystem {
 public:
  absl::StatusOr<size_t> Write(int fd, std::span<const iovec> data,
                               const std::string& path) override {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      if (held_) {
        holding_ = true;
        changed_.notify_all();
        if (!changed_.wait_for(lock, std::chrono::minutes(1),
                               [&] { return !held_; })) {
          timed_out_ = true;
          held_ = false;
        }
        holding_ = false;
      }
    }
    return ForwardingFileSystem::Write(fd, data, path);
  }

  // Submits a small file to `writer` and returns once the writer is blocked
  // writing it.
  void Hold(dump::DumpWriter& writer) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      held_ = true;
    }
    dump::WriteJob job;
    job.renderer = std::make_shared<PlugRenderer>();
    job.buffer = writer.AcquireBuffer(64);
    job.used = 64;
    std::memset(job.buffer.data(), 0, 64);
    writer.Submit(std::move(job));
    writer.Kick();
    std::unique_lock<std::mutex> lock(mutex_);
    if (!changed_.wait_for(lock, std::chrono::minutes(1),
                           [&] { return holding_; })) {
      Fail("the dump writer never reached its held write");
    }
  }

  void Release(const std::string& name) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (timed_out_) {
        Fail(name +
             ": the region filled the held writer's queue or memory budget");
      }
      held_ = false;
    }
    changed_.notify_all();
  }

 private:
  class PlugRenderer final : public dump::JobRenderer {
   public:
    absl::Status Render(const dump::WriteJob& job,
                        dump::RenderedFile& file) const override {
      static int plugs = 0;
      file.name = StrCat("count_gate_hold_", plugs++);
      file.payloads.emplace_back(
          reinterpret_cast<const char*>(job.buffer.data()), job.used);
      return absl::OkStatus();
    }
  };

  std::mutex mutex_;
  std::condition_variable changed_;
  bool held_ = false;
  bool holding_ = false;
  bool timed_out_ = false;
};

void AddModelCases(std::vector<Case>& cases, const char* family,
                   const std::string& (*bytes)()) {
  // One compiled model for every mode of a family: compiling (and the first
  // execution's kernel set-up) is what takes valgrind longest.
  auto shared = std::make_shared<std::shared_ptr<CompiledModel>>();
  for (Mode mode : kModes) {
    cases.push_back({StrCat(family, "/", ModeName(mode)),
                     [bytes, mode, shared](const std::string& name) {
                       const bool first = *shared == nullptr;
                       if (first) {
                         auto loaded =
                             LoadStaticModel(ModelSource::Memory(bytes()));
                         if (!loaded.ok()) Fail(name + ": cannot load");
                         *shared = std::move(*loaded);
                       }
                       HoldingFileSystem fs;
                       DumpedModel model(*shared, mode, {}, &fs);
                       dump::DumpWriter* writer = model.writer();
                       // Warm-up: the kernels' set-up and arena on the first
                       // mode; on each mode that writes, the dump's buffers and
                       // the writer's queue as the region will find them (the
                       // writer held). The others run what the first warmed.
                       if (first || Writes(mode)) {
                         if (writer) fs.Hold(*writer);
                         model.Run();
                         if (writer) fs.Release(name);
                       }
                       // The region starts with every earlier record written
                       // and the buffers back in the writer's pool.
                       model.Drain();
                       if (writer) fs.Hold(*writer);
                       Measure(name, 1, "execution", model.num_steps(),
                               [&] { model.Run(); });
                       if (writer) fs.Release(name);
                       model.Finish();
                     }});
  }
}

// Where the cases that name paths on the executing thread (pack folders,
// dump_path) put their files: the gate's folder, the same length on every
// machine, rather than the benchmarks' per-process one (its pid's digits
// would change the counts).
std::string FixedLengthRoot(const std::string& name) {
  const char* dir = std::getenv("ACLDUMP_BENCH_DIR");
  const std::string root = StrCat(dir ? dir : BenchRootPath(), "/", name);
  fs::create_directories(root);
  return root;
}

// Random values of a trained network's activations, a few non-finite ones.
template <typename T, typename Convert>
std::vector<T> ActivationLike(size_t n, Convert convert) {
  std::mt19937 rng(7);
  std::normal_distribution<float> dist(0.0f, 2.0f);
  std::vector<T> values(n);
  for (size_t i = 0; i < n; ++i) values[i] = convert(dist(rng));
  values[n / 3] = convert(std::numeric_limits<float>::quiet_NaN());
  values[n / 2] = convert(std::numeric_limits<float>::infinity());
  return values;
}

// `checksum`: the statistics and the tensor's checksum, in the same pass.
void StatsKernelCase(const std::string& name, DType dtype, bool checksum) {
  constexpr size_t kMiB = 4;
  const size_t bytes = kMiB << 20;
  std::vector<float> f32;
  std::vector<uint16_t> f16;
  TensorView view;
  view.dtype = dtype;
  if (dtype == DType::kFloat32) {
    f32 = ActivationLike<float>(bytes / 4, [](float v) { return v; });
    view.data = f32.data();
    view.shape = Shape({static_cast<int64_t>(f32.size())});
  } else {
    f16 = ActivationLike<uint16_t>(bytes / 2, FloatToHalfBits);
    view.data = f16.data();
    view.shape = Shape({static_cast<int64_t>(f16.size())});
  }
  dump::TensorStats stats = dump::ComputeStats(view, checksum);  // warm-up
  Measure(name, kMiB, "MiB", 0,
          [&] { stats = dump::ComputeStats(view, checksum); });
  if (stats.nan != 1) Fail(name + ": the planted NaN was not counted");
  if (checksum && stats.checksum != dump::TensorChecksum(view)) {
    Fail(name + ": the checksum differs from the tensor's own");
  }
}

// Records as a tensor dump renders them: the SDK file's header and 4 KiB of
// data each, named as operator dump files are, appended 64 per batch, each
// batch an iteration of one model (all in the model folder's pack).
void PackAppendCase(const std::string& name) {
  const std::string root = FixedLengthRoot("pack_append");
  dump::FileSystem& file_system = dump::PosixFileSystem();
  dump::FolderTree tree(file_system, root, "20261204000000");
  dump::PackAppender::ModelFolders model_folders;
  model_folders.enabled = true;
  model_folders.pack_bytes = uint64_t{1} << 30;
  model_folders.stats_bytes = uint64_t{32} << 20;
  dump::PackAppender appender(file_system, tree, model_folders);
  constexpr size_t kBatch = 64;
  constexpr size_t kBatches = 4;
  const std::string data(4096, '\x5a');
  auto batch_of = [&](size_t batch) {
    std::vector<dump::RenderedFile> files(kBatch);
    for (size_t i = 0; i < kBatch; ++i) {
      dump::RenderedFile& file = files[i];
      file.directory = StrCat("0/resnet_tiny/1/", batch);
      file.per_iteration = true;
      file.name = StrCat("Conv.layer", i, ".conv", i % 3, ".", i, ".0.",
                         1764806400000000 + i);
      file.head = std::string(8, '\0') + std::string(180, 'h');
      file.payloads.push_back(data);
    }
    return files;
  };
  auto append = [&](std::vector<dump::RenderedFile>& files) {
    std::vector<absl::Status> results(files.size());
    std::vector<std::string> paths(files.size());
    appender.AppendBatch(files, results, paths);
    for (const absl::Status& status : results) {
      if (!status.ok()) Fail(name + ": " + std::string(status.message()));
    }
  };
  // Warm-up: the time folder, the model folder and its pack. Each measured
  // batch is a new iteration, as each execution of a packed dump is.
  std::vector<dump::RenderedFile> warm = batch_of(kBatches);
  append(warm);
  std::vector<std::vector<dump::RenderedFile>> batches;
  for (size_t b = 0; b < kBatches; ++b) batches.push_back(batch_of(b));
  Measure(name, kBatch * kBatches, "record", 0, [&] {
    for (auto& files : batches) append(files);
  });
  appender.CloseAll();
}

// An acl.json of the kind users write: two models, layers by original and
// fused names, stats with their columns, steps.
void ConfigParseCase(const std::string& name) {
  const std::string dir = FixedLengthRoot("config_parse");
  const std::string text = StrCat(R"({
  "dump": {
    "dump_path": ")",
                                  dir, R"(",
    "dump_mode": "all",
    "dump_data": "stats",
    "dump_stats": ["Max", "Min", "Avg", "Nan", "Negative Inf", "Positive Inf", "L2norm"],
    "dump_step": "0|5-10|20",
    "dump_list": [
      {"model_name": "resnet18",
       "layer": ["conv1", "layer1.0.conv1", "layer1.0.bn1", "layer2.1.add",
                 "layer3.0.downsample.0", "layer4.1.relu_1", "fc"]},
      {"model_name": "mobilenet_v2",
       "layer": ["features.0.0", "features.4.add", "features.17.conv.2"]}
    ]
  }
})");
  // Warm-up: the parser's static tables.
  if (!dump::ParseDumpConfig(text, "acl.json").ok()) Fail(name + " warm-up");
  bool ok = false;
  Measure(name, 1, "parse", 0,
          [&] { ok = dump::ParseDumpConfig(text, "acl.json").ok(); });
  if (!ok) Fail(name + ": the config did not parse");
}

void ModelLoadCase(const std::string& name, const std::string& bytes) {
  if (!LoadStaticModel(ModelSource::Memory(bytes)).ok())
    Fail(name + " warm-up");
  bool ok = false;
  Measure(name, 1, "load", 0,
          [&] { ok = LoadStaticModel(ModelSource::Memory(bytes)).ok(); });
  if (!ok) Fail(name + ": the model did not load");
}

std::vector<Case> AllCases() {
  std::vector<Case> cases;
  // First, while no dump writer has run: what these cases count depends on
  // the heap's layout (memcmp and memcpy take other paths at other
  // alignments), which a writer thread's frees leave different in every run.
  cases.push_back({"stats_kernel/f32", [](const std::string& name) {
                     StatsKernelCase(name, DType::kFloat32, false);
                   }});
  cases.push_back({"stats_kernel/f32_checksum", [](const std::string& name) {
                     StatsKernelCase(name, DType::kFloat32, true);
                   }});
  cases.push_back({"stats_kernel/f16", [](const std::string& name) {
                     StatsKernelCase(name, DType::kFloat16, false);
                   }});
  cases.push_back({"stats_kernel/f16_checksum", [](const std::string& name) {
                     StatsKernelCase(name, DType::kFloat16, true);
                   }});
  cases.push_back({"pack_append/tensor_record", PackAppendCase});
  cases.push_back({"config_parse/acl_json", ConfigParseCase});
  cases.push_back({"model_load/resnet_tiny", [](const std::string& name) {
                     ModelLoadCase(name, ResnetTiny());
                   }});
  cases.push_back({"model_load/mobilenet_v2", [](const std::string& name) {
                     ModelLoadCase(name, MobileNetV2());
                   }});
  AddModelCases(cases, "resnet18", ResNet18);
  AddModelCases(cases, "mobilenet_v2", MobileNetV2);
  AddModelCases(cases, "transformer", Transformer);
  AddModelCases(cases, "resnet_tiny", ResnetTiny);
  AddModelCases(cases, "tiny_ops_1000", TinyOps);
  return cases;
}

// The same vector code and the same oneDNN kernels on every machine: AVX2,
// which valgrind executes (it does not run AVX-512) and every machine of this
// project's kind has.
void PinSimdTargets() {
  if ((hwy::SupportedTargets() & HWY_AVX2) == 0) {
    Fail("this CPU (or valgrind) does not offer AVX2, the pinned target");
  }
  hwy::SetSupportedTargetsForTest(HWY_AVX2);
  if (dnnl_set_max_cpu_isa(dnnl_cpu_isa_avx2) != dnnl_success) {
    Fail("oneDNN refused AVX2 as its maximum ISA (set before any primitive)");
  }
}

}  // namespace
}  // namespace acldump::bench

int main(int argc, char** argv) {
  std::string pattern = ".*";
  bool list = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--cases=", 8) == 0) {
      pattern = argv[i] + 8;
    } else if (std::strcmp(argv[i], "--list") == 0) {
      list = true;
    } else {
      std::fprintf(stderr, "usage: count_cases [--cases=REGEX] [--list]\n");
      return 2;
    }
  }
  std::regex selected;
  try {
    selected = std::regex(pattern);
  } catch (const std::regex_error& e) {
    std::fprintf(stderr, "count_cases: --cases=%s is not a regex: %s\n",
                 pattern.c_str(), e.what());
    return 2;
  }
  acldump::SetIntraOpThreads(1);
  acldump::bench::PinSimdTargets();
  int matched = 0;
  for (const auto& c : acldump::bench::AllCases()) {
    if (!std::regex_search(c.name, selected)) continue;
    ++matched;
    if (list) {
      std::printf("%s\n", c.name.c_str());
      continue;
    }
    c.run(c.name);
  }
  if (matched == 0) {
    std::fprintf(stderr, "count_cases: no case matches --cases=%s\n",
                 pattern.c_str());
    return 2;
  }
  return 0;
}
