#include "kernels/threading.h"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <thread>

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

void ParallelFor(size_t n, size_t grain,
                 absl::FunctionRef<void(size_t, size_t)> fn) {
  grain = std::max<size_t>(grain, 1);
  const int threads = scoped_threads > 0 ? scoped_threads : IntraOpThreads();
  const size_t chunks = std::min<size_t>(threads, n / grain);
  if (chunks < 2) {
    if (n > 0) fn(0, n);
    return;
  }
  // Equal ranges, the first n % chunks one item longer.
  const size_t base = n / chunks;
  const size_t extra = n % chunks;
  auto range = [&](size_t k) {
    const size_t begin = k * base + std::min(k, extra);
    return std::pair<size_t, size_t>(begin, begin + base + (k < extra));
  };
#pragma omp parallel for num_threads(static_cast <int>(chunks)) \
    schedule(static, 1)
  for (size_t k = 0; k < chunks; ++k) {
    const auto [begin, end] = range(k);
    fn(begin, end);
  }
}

}  // namespace acldump
