// Iteration bookkeeping every dump observer shares: the dump_step filter, the
// session's execution bracket (so FinalizeDump waits for running executions),
// and jobs for the session's writer.
#ifndef ACLDUMP_DUMP_SESSION_OBSERVER_H_
#define ACLDUMP_DUMP_SESSION_OBSERVER_H_

#include <chrono>
#include <cstdint>
#include <memory>
#include <vector>

#include "dump/session.h"
#include "runtime/observer.h"

namespace acldump::dump {

class SessionObserver : public ExecutionObserver {
 public:
  // `filter_steps`: iterations outside dump_step run unobserved. `model_id`
  // (0 for single operators) is whose records dropped ones are counted as.
  SessionObserver(std::shared_ptr<DumpSession> session, bool filter_steps,
                  uint32_t model_id = 0);

  bool BeginIteration(uint64_t iteration) override;
  absl::Status EndIteration(uint64_t iteration) override;

 protected:
  // Called at the end of an observed iteration, before the session is left
  // (e.g. to give back a half-filled job of a failed node).
  virtual void OnIterationEnd() {}

  // A job for `renderer` with a buffer of `bytes`, stamped with the current
  // iteration and time. Under the drop policy (or beyond the byte budget)
  // the job may come back dropped: it is filled like any other, and Submit
  // counts it instead of writing it.
  WriteJob NewJob(const std::shared_ptr<const JobRenderer>& renderer,
                  size_t bytes);

  // Hands `job` to the writer. Small jobs (stats) wait in an outbox that goes
  // to the writer in one locked step per kOutboxJobs and at the iteration's
  // end; any other job first sends the outbox, keeping the order.
  void Submit(WriteJob job);

  DumpSession& session() const { return *session_; }
  DumpWriter& writer() const { return writer_; }
  uint64_t iteration() const { return iteration_; }

 private:
  // The outbox to the writer, under the drop policy within the deadline.
  void SendOutbox();
  void CountDropped(size_t bytes) {
    ++dropped_records_;
    dropped_bytes_ += bytes;
  }

  const std::shared_ptr<DumpSession> session_;
  DumpWriter& writer_;
  const bool filter_steps_;
  const uint32_t model_id_;
  const bool drop_when_behind_;
  const bool byte_budget_;
  // Either of the two: NewJob's common path skips both checks.
  const bool limits_;
  uint64_t iteration_ = 0;
  bool inside_ = false;
  std::vector<WriteJob> outbox_;
  // The drop policy: when this execution stops waiting for the writer.
  DumpWriter::Deadline deadline_;
  // What dropped jobs are filled into (never the writer's memory).
  AlignedBuffer scratch_;
  // Dropped in the iteration under way.
  uint64_t dropped_records_ = 0;
  uint64_t dropped_bytes_ = 0;
};

}  // namespace acldump::dump

#endif  // ACLDUMP_DUMP_SESSION_OBSERVER_H_
