#include "dump/session_observer.h"

namespace acldump::dump {
namespace {

// Small jobs sent to the writer together: one lock per this many instead of
// one per node.
constexpr size_t kOutboxJobs = 32;

}  // namespace

SessionObserver::SessionObserver(std::shared_ptr<DumpSession> session,
                                 bool filter_steps)
    : session_(std::move(session)),
      writer_(session_->writer()),
      filter_steps_(filter_steps) {}

bool SessionObserver::BeginIteration(uint64_t iteration) {
  const auto& steps = session_->config().steps;
  if (filter_steps_ && steps && !steps->Contains(iteration)) return false;
  if (!session_->EnterExecution()) return false;
  inside_ = true;
  iteration_ = iteration;
  return true;
}

absl::Status SessionObserver::EndIteration(uint64_t) {
  if (inside_) {
    inside_ = false;
    OnIterationEnd();
    writer_.SubmitAll(outbox_);
    writer_.Kick();
    session_->ExitExecution();
  }
  return absl::OkStatus();
}

WriteJob SessionObserver::NewJob(
    const std::shared_ptr<const JobRenderer>& renderer, size_t bytes) const {
  WriteJob job;
  job.renderer = renderer;
  job.iteration = iteration_;
  job.timestamp_us = NowMicros();
  job.buffer = writer_.AcquireBuffer(bytes);
  return job;
}

void SessionObserver::Submit(WriteJob job) {
  if (DumpWriter::IsSmall(job.buffer)) {
    outbox_.push_back(std::move(job));
    if (outbox_.size() >= kOutboxJobs) writer_.SubmitAll(outbox_);
    return;
  }
  // The outbox holds no pooled memory, so a large job's wait for memory
  // never waits on it; it goes first to keep the records in order.
  writer_.SubmitAll(outbox_);
  writer_.Submit(std::move(job));
}

}  // namespace acldump::dump
