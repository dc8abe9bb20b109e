// Intra-op threads: how many threads one model execution may use. oneDNN
// (convolution, GEMM) runs on OpenMP, and so do the kernels that split their
// work with ParallelFor, so one thread team serves both and nothing is
// oversubscribed.
#ifndef ACLDUMP_KERNELS_THREADING_H_
#define ACLDUMP_KERNELS_THREADING_H_

#include <cstddef>

#include "absl/functional/function_ref.h"

namespace acldump {

// The largest setting accepted.
inline constexpr int kMaxIntraOpThreads = 256;

// The machine's cores (at most kMaxIntraOpThreads).
int MachineCores();
// ACLDUMP_INTRA_OP_THREADS from the environment when that is a number in
// [1, kMaxIntraOpThreads], else the machine's cores.
int DefaultIntraOpThreads();

// Sets the process-wide number of intra-op threads; 0 means the machine's
// cores. Values outside [0, kMaxIntraOpThreads] are clamped.
void SetIntraOpThreads(int threads);
// The current setting, resolved (>= 1); DefaultIntraOpThreads() until
// SetIntraOpThreads is called.
int IntraOpThreads();
// The threads the calling thread's kernels run on now: its
// ScopedIntraOpThreads' count inside one, else IntraOpThreads().
int CurrentIntraOpThreads();

// Runs the calling thread's kernels on `threads` threads while in scope:
// OpenMP's thread count is per thread, and oneDNN fixes a primitive's thread
// count when the primitive is created, so a model holds one of these both
// while it prepares its kernels and while it executes.
class ScopedIntraOpThreads {
 public:
  explicit ScopedIntraOpThreads(int threads);
  ~ScopedIntraOpThreads();
  ScopedIntraOpThreads(const ScopedIntraOpThreads&) = delete;
  ScopedIntraOpThreads& operator=(const ScopedIntraOpThreads&) = delete;

 private:
  int previous_;
};

// Items of a cheap elementwise loop below which a second thread costs more
// than it saves (waking an OpenMP thread takes microseconds).
inline constexpr size_t kElementwiseGrain = 16384;

// Calls fn(begin, end) on disjoint ranges covering [0, n), on up to the
// scope's threads (IntraOpThreads() outside any scope), each range at least
// `grain` items long (one call on the calling thread when n < 2 * grain).
// Ranges depend only on n, grain and the thread count, and each item is handled
// once, so kernels whose items are independent give the same bits on any thread
// count.
void ParallelFor(size_t n, size_t grain,
                 absl::FunctionRef<void(size_t, size_t)> fn);

}  // namespace acldump

#endif  // ACLDUMP_KERNELS_THREADING_H_
