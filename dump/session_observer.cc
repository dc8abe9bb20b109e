#include "dump/session_observer.h"

namespace acldump::dump {

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

}  // namespace acldump::dump
