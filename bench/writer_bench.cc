// The dump writer's throughput against plain sequential write() calls of the
// same bytes into the same folder (one file per tensor either way, so both pay
// for file creation).
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <vector>

#include "dump/writer.h"
#include "kernels/strings.h"

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
  const char* base = std::getenv("ACLDUMP_BENCH_DIR");
  const std::string dir =
      StrCat(base ? base : fs::temp_directory_path().string(),
             "/acldump_writer_bench_", getpid(), "_", name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

class RawRenderer final : public dump::JobRenderer {
 public:
  explicit RawRenderer(std::string dir) : dir_(std::move(dir)) {}
  absl::Status Render(const dump::WriteJob& job,
                      dump::RenderedFile& file) const override {
    file.directory = dir_;
    file.name = StrCat("t", job.sequence);
    file.payloads.emplace_back(reinterpret_cast<const char*>(job.buffer.data()),
                               job.used);
    return absl::OkStatus();
  }

 private:
  std::string dir_;
};

void RemoveFiles(const std::string& dir, size_t bytes) {
  for (size_t i = 0; i < FilesFor(bytes); ++i)
    std::remove(StrCat(dir, "/t", i).c_str());
}

void BM_RawWrite(benchmark::State& state) {
  const size_t bytes = static_cast<size_t>(state.range(0));
  const std::string dir = Folder("raw");
  const std::vector<AlignedBuffer> sources = Sources(bytes);
  for (auto _ : state) {
    for (size_t i = 0; i < FilesFor(bytes); ++i) {
      const std::string path = StrCat(dir, "/t", i);
      const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      size_t off = 0;
      while (off < bytes) {
        const ssize_t n = ::write(fd, sources[i].data() + off, bytes - off);
        if (n <= 0) std::abort();
        off += static_cast<size_t>(n);
      }
      ::close(fd);
    }
    state.PauseTiming();
    RemoveFiles(dir, bytes);
    state.ResumeTiming();
  }
  state.SetBytesProcessed(
      static_cast<int64_t>(state.iterations() * FilesFor(bytes) * bytes));
  fs::remove_all(dir);
}
BENCHMARK(BM_RawWrite)
    ->Arg(4 << 10)
    ->Arg(256 << 10)
    ->Arg(4 << 20)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

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
  if (!writer.Flush().ok()) std::abort();
}

// The producer fills pooled buffers (as an observer does) and the writer thread
// renders and writes them atomically (temporary name + rename); timed until
// everything is on disk.
void BM_DumpWriter(benchmark::State& state) {
  const size_t bytes = static_cast<size_t>(state.range(0));
  const std::string dir = Folder("writer");
  dump::DumpWriter::Options options;
  options.root = dir;
  dump::DumpWriter writer(options);
  auto renderer = std::make_shared<RawRenderer>(dir);
  const std::vector<AlignedBuffer> sources = Sources(bytes);
  // Warm-up: a dump session's buffer pool is filled once (first-touch page
  // faults are slow on this VM: ~12 us per page), then reused for every later
  // tensor.
  WriteAllThroughWriter(writer, renderer, sources, bytes);
  RemoveFiles(dir, bytes);
  for (auto _ : state) {
    WriteAllThroughWriter(writer, renderer, sources, bytes);
    state.PauseTiming();
    RemoveFiles(dir, bytes);
    state.ResumeTiming();
  }
  state.SetBytesProcessed(
      static_cast<int64_t>(state.iterations() * FilesFor(bytes) * bytes));
  fs::remove_all(dir);
}
BENCHMARK(BM_DumpWriter)
    ->Arg(4 << 10)
    ->Arg(256 << 10)
    ->Arg(4 << 20)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace acldump::bench

BENCHMARK_MAIN();
