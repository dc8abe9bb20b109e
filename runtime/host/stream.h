// Streams and events of the C ABI's runtime (acl_rt.h) on the host: a stream
// is an in-order queue of work run by its own worker thread, an event marks a
// point in a stream's work.
#ifndef ACLDUMP_RUNTIME_HOST_STREAM_H_
#define ACLDUMP_RUNTIME_HOST_STREAM_H_

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "absl/status/status.h"

namespace acldump::host {

// The lock and wake-up that work blocked on something outside its stream (an
// event of another stream, a callback another thread runs) waits on, and the
// flag that releases every such wait when the runtime shuts down.
struct SyncPoint {
  std::mutex mutex;
  std::condition_variable changed;
  bool stopping = false;  // guarded by mutex
};

class Stream {
 public:
  using Work = std::function<absl::Status()>;

  // `context` identifies the owning context (never dereferenced here).
  explicit Stream(const void* context);
  ~Stream();  // Stop()
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  const void* context() const { return context_; }

  // Queues `work`; it runs after everything queued before it. Fails
  // (FailedPrecondition) once the stream is stopped.
  absl::Status Enqueue(Work work);

  // Waits until the work queued before the call has run (at most `timeout`
  // when given; `*timed_out` says whether it ran out), then returns and clears
  // the first failure of the stream's work.
  absl::Status Synchronize(std::optional<std::chrono::milliseconds> timeout,
                           bool* timed_out);
  // No work is queued or running.
  bool Idle() const;
  // Waits until the work queued before the call has run, or `deadline`;
  // false when work is left. Unlike Synchronize, failures stay for the
  // stream's own synchronize to report.
  bool WaitQueued(std::chrono::steady_clock::time_point deadline);
  // The calling thread is this stream's worker (running its work).
  bool OnWorkerThread() const;

  // Runs the queued work and ends the worker thread; later Enqueue calls fail.
  // Idempotent.
  void Stop();

 private:
  void RunWorker();

  const void* const context_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;  // work queued, or stopping
  std::condition_variable done_;  // work finished
  std::deque<Work> queue_;
  uint64_t queued_ = 0;    // work ever queued
  uint64_t finished_ = 0;  // work ever finished
  absl::Status first_failure_;
  bool stopping_ = false;
  std::thread worker_;  // started by the first Enqueue
};

// Event records: each aclrtRecordEvent starts a record (a generation) that
// completes when the stream reaches it.
class Event {
 public:
  using Clock = std::chrono::steady_clock;
  enum class State { kNeverRecorded, kPending, kComplete };

  explicit Event(std::shared_ptr<SyncPoint> sync) : sync_(std::move(sync)) {}

  // Starts a record; returns the generation for Complete / Wait.
  uint64_t BeginRecord();
  void Complete(uint64_t generation);
  // Forgets every record (records still queued then complete nothing).
  void Reset();
  State state() const;
  // The latest record's generation (0: never recorded).
  uint64_t latest() const;
  // Waits until record `generation` has completed (or Reset / shutdown).
  void Wait(uint64_t generation) const;
  // When the latest record completed, if it has.
  std::optional<Clock::time_point> completed_at() const;

 private:
  // Generations only grow; all guarded by sync_->mutex.
  const std::shared_ptr<SyncPoint> sync_;
  uint64_t recorded_ = 0;   // the latest record
  uint64_t completed_ = 0;  // the latest record that completed
  uint64_t forgotten_ = 0;  // records up to this one were Reset
  Clock::time_point completed_at_;
};

}  // namespace acldump::host

#endif  // ACLDUMP_RUNTIME_HOST_STREAM_H_
