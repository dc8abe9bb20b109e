#include "dump/session_observer.h"

#include <algorithm>

namespace acldump::dump {
namespace {

// Small jobs sent to the writer together: one lock per this many instead of
// one per node.
constexpr size_t kOutboxJobs = 32;

}  // namespace

SessionObserver::SessionObserver(std::shared_ptr<DumpSession> session,
                                 bool filter_steps, uint32_t model_id)
    : session_(std::move(session)),
      writer_(session_->writer()),
      filter_steps_(filter_steps),
      model_id_(model_id),
      drop_when_behind_(session_->config().drop_when_behind),
      byte_budget_(session_->config().max_bytes > 0),
      limits_(drop_when_behind_ || byte_budget_) {}

bool SessionObserver::BeginIteration(uint64_t iteration) {
  const auto& steps = session_->config().steps;
  if (filter_steps_ && steps && !steps->Contains(iteration)) return false;
  if (!session_->EnterExecution()) return false;
  inside_ = true;
  iteration_ = iteration;
  if (drop_when_behind_) {
    // A timed wait wakes after its deadline (timer slack, the scheduler:
    // 100-250 us measured on a busy 2-core machine): aim a quarter of the
    // budget, at most 250 us, early so that the execution's whole wait
    // stays within the budget.
    const uint64_t budget = session_->config().wait_budget_us;
    const uint64_t slack = std::min<uint64_t>(budget / 4, 250);
    deadline_ = std::chrono::steady_clock::now() +
                std::chrono::microseconds(budget - slack);
  }
  return true;
}

absl::Status SessionObserver::EndIteration(uint64_t) {
  if (inside_) {
    inside_ = false;
    OnIterationEnd();
    SendOutbox();
    writer_.Kick();
    if (dropped_records_ > 0) {
      session_->CountDrops(model_id_, iteration_, dropped_records_,
                           dropped_bytes_);
      dropped_records_ = 0;
      dropped_bytes_ = 0;
    }
    session_->ExitExecution();
  }
  return absl::OkStatus();
}

WriteJob SessionObserver::NewJob(
    const std::shared_ptr<const JobRenderer>& renderer, size_t bytes) {
  WriteJob job;
  job.iteration = iteration_;
  job.timestamp_us = NowMicros();
  if (!limits_) {
    job.renderer = renderer;
    job.buffer = writer_.AcquireBuffer(bytes);
    return job;
  }
  bool dropped = byte_budget_ && !writer_.ReserveBytes(bytes);
  if (!dropped) {
    if (drop_when_behind_) {
      job.buffer = writer_.TryAcquireBuffer(bytes, deadline_);
      dropped = job.buffer.size() == 0;
    } else {
      job.buffer = writer_.AcquireBuffer(bytes);
    }
  }
  if (!dropped) {
    job.renderer = renderer;
  } else {
    // Counted as the writer counted it (the bytes asked for); no renderer:
    // filled as usual by the caller, and Submit drops it.
    CountDropped(bytes);
    if (scratch_.size() < std::max<size_t>(bytes, 1)) {
      scratch_ = AlignedBuffer(std::max<size_t>(bytes, 1), /*zeroed=*/false);
    }
    job.buffer = std::move(scratch_);
  }
  return job;
}

void SessionObserver::Submit(WriteJob job) {
  if (job.renderer == nullptr) {
    scratch_ = std::move(job.buffer);
    return;
  }
  if (DumpWriter::IsSmall(job.buffer)) {
    outbox_.push_back(std::move(job));
    if (outbox_.size() >= kOutboxJobs) SendOutbox();
    return;
  }
  // The outbox holds no pooled memory, so a large job's wait for memory
  // never waits on it; it goes first to keep the records in order.
  SendOutbox();
  if (!drop_when_behind_) {
    writer_.Submit(std::move(job));
    return;
  }
  const size_t bytes = job.used;
  if (!writer_.TrySubmit(std::move(job), deadline_)) CountDropped(bytes);
}

void SessionObserver::SendOutbox() {
  if (!drop_when_behind_) {
    writer_.SubmitAll(outbox_);
    return;
  }
  size_t bytes = 0;
  dropped_records_ += writer_.TrySubmitAll(outbox_, deadline_, &bytes);
  dropped_bytes_ += bytes;
}

}  // namespace acldump::dump
