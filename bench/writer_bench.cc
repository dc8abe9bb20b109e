// The dump writer's throughput against plain sequential write() calls of the
// same bytes into the same folder (one file per tensor either way, so both pay
// for file creation), and against the floor of writing them safely: the
// fastest loop that keeps each file complete or absent (an unnamed O_TMPFILE
// inode, written, then linked under its name; no fsync, like the writer).
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <vector>

#include "base/strings.h"
#include "bench/bench_dir.h"
#include "dump/writer.h"

namespace acldump::bench {
namespace {

namespace fs = std::filesystem;

// Per iteration 64 x 4 KiB (file creation bound), 64 x 256 KiB or 16 x 4 MiB:
// small enough to stay in the page cache's dirty budget, so both variants
// measure the same thing (the page cache, not disk writeback).
size_t FilesFor(size_t bytes) { return bytes >= (size_t{1} << 20) ? 16 : 64; }

// One source per file, as a model's tensors are: neither variant gets to write
// the same cache-hot buffer over and over.
std::vector<AlignedBuffer> Sources(size_t bytes) {
  std::vector<AlignedBuffer> sources;
  for (size_t i = 0; i < FilesFor(bytes); ++i) {
    sources.emplace_back(bytes, /*zeroed=*/false);
    std::memset(sources.back().data(), static_cast<int>(i + 1), bytes);
  }
  return sources;
}

std::string Folder(const char* name) {
  const std::string dir = StrCat(BenchRootPath(), "/writer_bench_", name);
  fs::create_directories(dir + "/spent");
  return dir;
}

// Files straight below the writer's root.
class RawRenderer final : public dump::JobRenderer {
 public:
  absl::Status Render(const dump::WriteJob& job,
                      dump::RenderedFile& file) const override {
    file.name = StrCat("t", job.sequence);
    file.payloads.emplace_back(reinterpret_cast<const char*>(job.buffer.data()),
                               job.used);
    return absl::OkStatus();
  }
};

// Moves the files of one way aside, emptied, for the next iteration to create
// them again: deleting them would slow every file created in the next minutes
// (see bench_dir.h), the floor's most of all.
void RetireFiles(const std::string& dir, size_t bytes) {
  static uint64_t retired = 0;
  for (size_t i = 0; i < FilesFor(bytes); ++i) {
    const std::string file = StrCat(dir, "/t", i);
    ::truncate(file.c_str(), 0);
    std::rename(file.c_str(), StrCat(dir, "/spent/", retired++).c_str());
  }
}

void WriteFully(int fd, const AlignedBuffer& source, size_t bytes) {
  size_t off = 0;
  while (off < bytes) {
    const ssize_t n = ::write(fd, source.data() + off, bytes - off);
    if (n <= 0) std::abort();
    off += static_cast<size_t>(n);
  }
}

void RawWriteAll(const std::string& dir,
                 const std::vector<AlignedBuffer>& sources, size_t bytes) {
  for (size_t i = 0; i < sources.size(); ++i) {
    const std::string path = StrCat(dir, "/t", i);
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) std::abort();
    WriteFully(fd, sources[i], bytes);
    ::close(fd);
  }
}

// The floor of complete-or-absent files: O_TMPFILE in the folder (kept open),
// write, linkat through /proc/self/fd, close. A reader never sees a partial
// file; nothing cheaper keeps that promise.
void SafeWriteAll(int dir_fd, const std::vector<AlignedBuffer>& sources,
                  size_t bytes) {
  for (size_t i = 0; i < sources.size(); ++i) {
    const int fd =
        ::openat(dir_fd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
    if (fd < 0) std::abort();
    WriteFully(fd, sources[i], bytes);
    const std::string proc = StrCat("/proc/self/fd/", fd);
    if (::linkat(AT_FDCWD, proc.c_str(), dir_fd, StrCat("t", i).c_str(),
                 AT_SYMLINK_FOLLOW) != 0) {
      std::abort();
    }
    ::close(fd);
  }
}

// The producer fills pooled buffers (as an observer does) and the writer thread
// renders and writes them atomically (temporary name + rename); done when
// everything is on disk.
void WriteAllThroughWriter(dump::DumpWriter& writer,
                           const std::shared_ptr<RawRenderer>& renderer,
                           const std::vector<AlignedBuffer>& sources,
                           size_t bytes) {
  for (size_t i = 0; i < sources.size(); ++i) {
    dump::WriteJob job;
    job.renderer = renderer;
    job.sequence = i;
    job.buffer = writer.AcquireBuffer(bytes);
    std::memcpy(job.buffer.data(), sources[i].data(), bytes);
    job.used = bytes;
    writer.Submit(std::move(job));
  }
  absl::Status flushed = writer.Flush();
  if (!flushed.ok()) {
    std::fprintf(stderr, "writer_bench: %s\n",
                 std::string(flushed.message()).c_str());
    std::abort();
  }
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

// Each iteration writes the same files three ways (raw, floor, writer) back to
// back, in rotating order: on a VM whose I/O speed drifts by 2-5x over
// seconds, only runs taken moments apart compare the code rather than the
// moment. The ratios are medians over iterations: raw time / writer time
// (`writer_vs_raw`) and writer time / floor time (`writer_vs_floor`). A
// fourth way writes raw again into a folder of its own: its ratio to the
// first (`raw_vs_raw`, an A/A pair) is the run's own noise.
void BM_WriterVsRawWrite(benchmark::State& state) {
  const size_t bytes = static_cast<size_t>(state.range(0));
  const std::string raw_dir = Folder("raw");
  const std::string raw_again_dir = Folder("raw_again");
  const std::string floor_dir = Folder("floor");
  const std::string writer_dir = Folder("writer");
  const int floor_fd = ::open(floor_dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (floor_fd < 0) std::abort();
  dump::DumpWriter::Options options;
  options.root = writer_dir;
  dump::DumpWriter writer(options);
  auto renderer = std::make_shared<RawRenderer>();
  const std::vector<AlignedBuffer> sources = Sources(bytes);
  // Warm-up, every way: a dump session fills its buffer pool once (first-touch
  // page faults cost ~12 us per page on this VM), then reuses it for every
  // tensor.
  WriteAllThroughWriter(writer, renderer, sources, bytes);
  RetireFiles(writer_dir, bytes);
  RawWriteAll(raw_dir, sources, bytes);
  RetireFiles(raw_dir, bytes);
  RawWriteAll(raw_again_dir, sources, bytes);
  RetireFiles(raw_again_dir, bytes);
  SafeWriteAll(floor_fd, sources, bytes);
  RetireFiles(floor_dir, bytes);

  using Clock = std::chrono::steady_clock;
  auto seconds = [](Clock::duration d) {
    return std::chrono::duration<double>(d).count();
  };
  std::vector<double> raw_times, floor_times, writer_times, vs_raw, vs_floor,
      raw_vs_raw;
  for (auto _ : state) {
    double raw_s = 0, raw_again_s = 0, floor_s = 0, writer_s = 0;
    for (int turn = 0; turn < 4; ++turn) {
      const int way = static_cast<int>((turn + raw_times.size()) % 4);
      const auto start = Clock::now();
      if (way == 0) {
        RawWriteAll(raw_dir, sources, bytes);
        raw_s = seconds(Clock::now() - start);
        RetireFiles(raw_dir, bytes);
      } else if (way == 1) {
        SafeWriteAll(floor_fd, sources, bytes);
        floor_s = seconds(Clock::now() - start);
        RetireFiles(floor_dir, bytes);
      } else if (way == 2) {
        WriteAllThroughWriter(writer, renderer, sources, bytes);
        writer_s = seconds(Clock::now() - start);
        RetireFiles(writer_dir, bytes);
      } else {
        RawWriteAll(raw_again_dir, sources, bytes);
        raw_again_s = seconds(Clock::now() - start);
        RetireFiles(raw_again_dir, bytes);
      }
    }
    raw_times.push_back(raw_s);
    floor_times.push_back(floor_s);
    writer_times.push_back(writer_s);
    vs_raw.push_back(raw_s / writer_s);
    vs_floor.push_back(writer_s / floor_s);
    raw_vs_raw.push_back(raw_s / raw_again_s);
    state.SetIterationTime(raw_s + floor_s + writer_s + raw_again_s);
  }
  const double total = static_cast<double>(FilesFor(bytes) * bytes);
  state.counters["raw_GBps"] = total / Median(raw_times) / 1e9;
  state.counters["floor_GBps"] = total / Median(floor_times) / 1e9;
  state.counters["writer_GBps"] = total / Median(writer_times) / 1e9;
  state.counters["writer_vs_raw"] = Median(vs_raw);
  state.counters["writer_vs_floor"] = Median(vs_floor);
  state.counters["raw_vs_raw"] = Median(raw_vs_raw);
  state.SetBytesProcessed(
      static_cast<int64_t>(state.iterations() * FilesFor(bytes) * bytes));
  ::close(floor_fd);
  fs::remove_all(raw_dir);
  fs::remove_all(raw_again_dir);
  fs::remove_all(floor_dir);
  fs::remove_all(writer_dir);
}
BENCHMARK(BM_WriterVsRawWrite)
    ->Arg(4 << 10)
    ->Arg(256 << 10)
    ->Arg(4 << 20)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace acldump::bench

BENCHMARK_MAIN();
