#include "runtime/host/stream.h"

#include <exception>
#include <new>
#include <string>

#include "base/error_kind.h"

namespace acldump::host {
namespace {

// Work must not throw, but a std::bad_alloc deep inside is turned into a
// failure of that work rather than the end of the process.
absl::Status RunGuarded(const Stream::Work& work) {
  try {
    return work();
  } catch (const std::bad_alloc&) {
    return WithKind(absl::ResourceExhaustedError("out of memory"),
                    ErrorKind::kOutOfMemory);
  } catch (const std::exception& e) {
    return absl::InternalError(std::string("internal error: ") + e.what());
  } catch (...) {
    return absl::InternalError("internal error: unknown exception");
  }
}

}  // namespace

Stream::Stream(const void* context) : context_(context) {}

Stream::~Stream() { Stop(); }

absl::Status Stream::Enqueue(Work work) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (stopping_) {
    return absl::FailedPreconditionError("the stream was destroyed");
  }
  if (!worker_.joinable()) worker_ = std::thread([this] { RunWorker(); });
  queue_.push_back(std::move(work));
  ++queued_;
  wake_.notify_one();
  return absl::OkStatus();
}

void Stream::RunWorker() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    wake_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, and everything has run
    Work work = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    absl::Status status = RunGuarded(work);
    work = nullptr;  // releases what the work held (pins, models) now
    lock.lock();
    if (!status.ok() && first_failure_.ok()) first_failure_ = std::move(status);
    ++finished_;
    done_.notify_all();
  }
}

absl::Status Stream::Synchronize(
    std::optional<std::chrono::milliseconds> timeout, bool* timed_out) {
  std::unique_lock<std::mutex> lock(mutex_);
  const uint64_t target = queued_;
  auto reached = [&] { return finished_ >= target; };
  if (timeout) {
    if (!done_.wait_for(lock, *timeout, reached)) {
      if (timed_out != nullptr) *timed_out = true;
      return absl::DeadlineExceededError("the stream's work is still running");
    }
  } else {
    done_.wait(lock, reached);
  }
  if (timed_out != nullptr) *timed_out = false;
  absl::Status failure = std::move(first_failure_);
  first_failure_ = absl::OkStatus();
  return failure;
}

bool Stream::Idle() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return finished_ == queued_;
}

bool Stream::WaitQueued(std::chrono::steady_clock::time_point deadline) {
  std::unique_lock<std::mutex> lock(mutex_);
  const uint64_t target = queued_;
  return done_.wait_until(lock, deadline, [&] { return finished_ >= target; });
}

bool Stream::OnWorkerThread() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return worker_.joinable() && worker_.get_id() == std::this_thread::get_id();
}

void Stream::Stop() {
  std::thread worker;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
    wake_.notify_one();
    worker.swap(worker_);
  }
  // Work never holds its own stream, so this is not the worker itself.
  if (worker.joinable()) worker.join();
}

uint64_t Event::BeginRecord() {
  std::lock_guard<std::mutex> lock(sync_->mutex);
  return ++recorded_;
}

void Event::Complete(uint64_t generation) {
  std::lock_guard<std::mutex> lock(sync_->mutex);
  if (generation > completed_) completed_ = generation;
  if (generation == recorded_) completed_at_ = Clock::now();
  sync_->changed.notify_all();
}

void Event::Reset() {
  std::lock_guard<std::mutex> lock(sync_->mutex);
  forgotten_ = recorded_;
  sync_->changed.notify_all();
}

Event::State Event::state() const {
  std::lock_guard<std::mutex> lock(sync_->mutex);
  if (recorded_ == forgotten_) return State::kNeverRecorded;
  return completed_ >= recorded_ ? State::kComplete : State::kPending;
}

uint64_t Event::latest() const {
  std::lock_guard<std::mutex> lock(sync_->mutex);
  return recorded_ == forgotten_ ? 0 : recorded_;
}

void Event::Wait(uint64_t generation) const {
  std::unique_lock<std::mutex> lock(sync_->mutex);
  sync_->changed.wait(lock, [&] {
    return completed_ >= generation || forgotten_ >= generation ||
           sync_->stopping;
  });
}

std::optional<Event::Clock::time_point> Event::completed_at() const {
  std::lock_guard<std::mutex> lock(sync_->mutex);
  if (recorded_ == forgotten_ || completed_ < recorded_) return std::nullopt;
  return completed_at_;
}

}  // namespace acldump::host
