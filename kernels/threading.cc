#include "kernels/threading.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <thread>

// libgomp (oneDNN's OpenMP runtime), declared here rather than through
// <omp.h> and "#pragma omp": GOMP_parallel is what GCC emits for a parallel
// region, called directly so the team is oneDNN's whichever compiler built
// this file (clang lowers OpenMP pragmas for another runtime).
extern "C" {
void GOMP_parallel(void (*fn)(void*), void* data, unsigned num_threads,
                   unsigned flags);
int omp_get_thread_num(void);
int omp_get_num_threads(void);
void omp_set_num_threads(int num_threads);
}

// libgomp is not built with ThreadSanitizer, so the ordering its barriers give
// (the caller's writes before a region, the team's writes before its end) is
// invisible to it. Under TSan a ParallelFor states that ordering itself.
#if defined(__SANITIZE_THREAD__)
#define ACLDUMP_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define ACLDUMP_TSAN 1
#endif
#endif
#if defined(ACLDUMP_TSAN)
extern "C" {
void __tsan_acquire(void* addr);
void __tsan_release(void* addr);
}
#define ACLDUMP_TSAN_ACQUIRE(addr) \
  __tsan_acquire(const_cast<void*>(static_cast<const void*>(addr)))
#define ACLDUMP_TSAN_RELEASE(addr) \
  __tsan_release(const_cast<void*>(static_cast<const void*>(addr)))
#else
#define ACLDUMP_TSAN_ACQUIRE(addr) static_cast<void>(addr)
#define ACLDUMP_TSAN_RELEASE(addr) static_cast<void>(addr)
#endif

namespace acldump {

int MachineCores() {
  const unsigned cores = std::thread::hardware_concurrency();
  return cores == 0
             ? 1
             : static_cast<int>(std::min<unsigned>(cores, kMaxIntraOpThreads));
}

int DefaultIntraOpThreads() {
  if (const char* env = std::getenv("ACLDUMP_INTRA_OP_THREADS")) {
    char* end = nullptr;
    const long parsed = std::strtol(env, &end, 10);
    if (end != env && *end == '\0' && parsed >= 1 &&
        parsed <= kMaxIntraOpThreads) {
      return static_cast<int>(parsed);
    }
  }
  return MachineCores();
}

namespace {

std::atomic<int>& Setting() {
  static std::atomic<int> threads{DefaultIntraOpThreads()};
  return threads;
}

// Chunk k of a ParallelFor: equal ranges, the first n % chunks one item
// longer.
struct ParallelJob {
  size_t n;
  size_t chunks;
  absl::FunctionRef<void(size_t, size_t)> fn;
  char done = 0;  // only an address: the team's release, the caller's acquire
};

void RunChunks(void* data) {
  ACLDUMP_TSAN_ACQUIRE(data);
  const ParallelJob& job = *static_cast<const ParallelJob*>(data);
  const size_t base = job.n / job.chunks;
  const size_t extra = job.n % job.chunks;
  // A team smaller than asked for (a nested region) still covers every chunk.
  const size_t team = static_cast<size_t>(omp_get_num_threads());
  for (size_t k = static_cast<size_t>(omp_get_thread_num()); k < job.chunks;
       k += team) {
    const size_t begin = k * base + std::min(k, extra);
    job.fn(begin, begin + base + (k < extra));
  }
  ACLDUMP_TSAN_RELEASE(&job.done);
}

// The innermost ScopedIntraOpThreads of this thread (0: none) and what this
// thread last gave OpenMP (0: nothing yet).
thread_local int scoped_threads = 0;
thread_local int applied_threads = 0;

void GiveOpenMp(int threads) {
  if (threads == applied_threads) return;
  omp_set_num_threads(threads);
  applied_threads = threads;
}

}  // namespace

void SetIntraOpThreads(int threads) {
  threads = std::clamp(threads, 0, kMaxIntraOpThreads);
  Setting().store(threads == 0 ? MachineCores() : threads,
                  std::memory_order_relaxed);
}

int IntraOpThreads() { return Setting().load(std::memory_order_relaxed); }

ScopedIntraOpThreads::ScopedIntraOpThreads(int threads)
    : previous_(scoped_threads) {
  scoped_threads = std::clamp(threads, 1, kMaxIntraOpThreads);
  GiveOpenMp(scoped_threads);
}

ScopedIntraOpThreads::~ScopedIntraOpThreads() {
  scoped_threads = previous_;
  if (previous_ > 0) GiveOpenMp(previous_);
}

namespace {
// Inlined into ParallelFor: a call per kernel shows in small models' counts.
[[gnu::always_inline]] inline int ResolvedThreads() {
  return scoped_threads > 0 ? scoped_threads : IntraOpThreads();
}
}  // namespace

int CurrentIntraOpThreads() { return ResolvedThreads(); }

void ParallelFor(size_t n, size_t grain,
                 absl::FunctionRef<void(size_t, size_t)> fn) {
  grain = std::max<size_t>(grain, 1);
  const int threads = ResolvedThreads();
  const size_t chunks = std::min<size_t>(threads, n / grain);
  if (chunks < 2) {
    if (n > 0) fn(0, n);
    return;
  }
  ParallelJob job{n, chunks, fn};
  ACLDUMP_TSAN_RELEASE(&job);
  GOMP_parallel(RunChunks, &job, static_cast<unsigned>(chunks), 0);
  ACLDUMP_TSAN_ACQUIRE(&job.done);
}

}  // namespace acldump
