// What dumping every operator output costs on the zoo models (run.sh): each
// model runs without an observer and with stats or full tensors of every
// output, in the SDK and the packed layout, in one process.
//   zoo_dump_cost [--rounds R] [--seconds S] [--only MODE[,MODE...]] model.om
// prints one JSON line: per mode, the milliseconds per execution including
// the final flush (a dump is only as fast as its data lands), the fastest of
// R rounds (modes in rotating order within a round), and the bytes written per
// execution. One intra-op thread: the writer has the other core.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "base/file_reader.h"
#include "bench/dump_fixture.h"
#include "kernels/threading.h"

namespace acldump::bench {
namespace {

// The zoo's largest model (vit_b_16) is ~350 MB.
constexpr size_t kMaxModelBytes = size_t{4} << 30;

constexpr Mode kModes[] = {Mode::kNoObserver, Mode::kStats, Mode::kTensorAll,
                           Mode::kStatsPacked, Mode::kTensorAllPacked};

// `only`: the modes named and the no-observer baseline; empty, every mode.
bool Timed(Mode mode, const std::vector<std::string>& only) {
  return only.empty() || mode == Mode::kNoObserver ||
         std::find(only.begin(), only.end(), ModeName(mode)) != only.end();
}

struct Measured {
  double ms = 0;
  double mb = 0;
  size_t nodes = 0;
};

// `runs` executions after one warm-up, plus the final flush.
Measured TimeMode(const std::string& bytes, Mode mode, int runs) {
  DumpedModel model(bytes, mode, {});
  model.Run();  // first touch of arena and buffer pools
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < runs; ++i) model.Run();
  const uint64_t written = model.Finish();
  const double ms = std::chrono::duration<double, std::milli>(
                        std::chrono::steady_clock::now() - start)
                        .count();
  // The warm-up's dumps count in `written`.
  return {ms / runs, static_cast<double>(written) / 1e6 / (runs + 1),
          model.num_steps()};
}

int Main(int argc, char** argv) {
  int rounds = 3;
  double seconds = 1.0;
  // --only MODES: time those modes and the no-observer baseline only.
  std::string only;
  int arg = 1;
  for (; arg + 1 < argc && std::strncmp(argv[arg], "--", 2) == 0; arg += 2) {
    if (std::strcmp(argv[arg], "--only") == 0) {
      only = argv[arg + 1];
      continue;
    }
    char* end = nullptr;
    const double value = std::strtod(argv[arg + 1], &end);
    const bool number = *end == '\0' && value > 0 && value <= 1000;
    if (std::strcmp(argv[arg], "--rounds") == 0 && number) {
      rounds = static_cast<int>(value);
    } else if (std::strcmp(argv[arg], "--seconds") == 0 && number) {
      seconds = value;
    } else {
      std::fprintf(stderr, "zoo_dump_cost: bad option %s %s\n", argv[arg],
                   argv[arg + 1]);
      return 2;
    }
  }
  // Every name in --only must be a mode: a typo would time nothing.
  std::vector<std::string> only_modes;
  for (size_t begin = 0; !only.empty() && begin <= only.size();) {
    const size_t comma = std::min(only.find(',', begin), only.size());
    const std::string name = only.substr(begin, comma - begin);
    begin = comma + 1;
    if (std::none_of(std::begin(kModes), std::end(kModes),
                     [&](Mode mode) { return name == ModeName(mode); })) {
      std::fprintf(stderr, "zoo_dump_cost: --only: '%s' is not one of",
                   name.c_str());
      for (Mode mode : kModes) std::fprintf(stderr, " %s", ModeName(mode));
      std::fprintf(stderr, " (comma-separated)\n");
      return 2;
    }
    only_modes.emplace_back(name);
  }
  if (argc - arg != 1 || rounds < 1) {
    std::fprintf(stderr,
                 "usage: %s [--rounds R] [--seconds S] [--only MODE[,MODE...]] "
                 "model.om\n",
                 argv[0]);
    return 2;
  }
  absl::StatusOr<std::string> bytes =
      ReadRegularFile(argv[arg], kMaxModelBytes, "model");
  if (!bytes.ok()) {
    std::fprintf(stderr, "zoo_dump_cost: %s\n",
                 std::string(bytes.status().message()).c_str());
    return 1;
  }
  SetIntraOpThreads(1);

  // Sizes the timed runs from the model's own speed: ~`seconds` per mode
  // without dumping, at least 3.
  const Measured probe = TimeMode(*bytes, Mode::kNoObserver, 3);
  const int runs = std::clamp(
      static_cast<int>(seconds * 1000 / std::max(probe.ms, 1e-3)), 3, 500);
  const size_t nodes = probe.nodes;
  // Dumping every output writes a file per node and run in the SDK layout:
  // at most ~20,000 per mode keeps a model of hundreds of light operators
  // from taking minutes per mode.
  const int dump_runs =
      std::clamp(static_cast<int>(20000 / std::max<size_t>(nodes, 1)), 3, runs);
  std::map<Mode, Measured> best;
  for (Mode mode : kModes) {
    best[mode].ms = std::numeric_limits<double>::infinity();
  }
  constexpr size_t kCount = std::size(kModes);
  for (int round = 0; round < rounds; ++round) {
    for (size_t i = 0; i < kCount; ++i) {
      const Mode mode = kModes[(i + round) % kCount];
      if (!Timed(mode, only_modes)) continue;
      const Measured m =
          TimeMode(*bytes, mode, mode == Mode::kNoObserver ? runs : dump_runs);
      if (m.ms < best[mode].ms) best[mode] = m;
    }
  }
  std::printf("{\"nodes\": %zu, \"runs\": %d, \"dump_runs\": %d", nodes, runs,
              dump_runs);
  for (Mode mode : kModes) {
    if (!Timed(mode, only_modes)) continue;
    std::printf(", \"%s_ms\": %.4f, \"%s_mb\": %.4f", ModeName(mode),
                best[mode].ms, ModeName(mode), best[mode].mb);
  }
  std::printf("}\n");
  return 0;
}

}  // namespace
}  // namespace acldump::bench

int main(int argc, char** argv) { return acldump::bench::Main(argc, argv); }
