#include "dump/writer.h"

#include <algorithm>
#include <chrono>

#include "base/error_kind.h"
#include "base/strings.h"
#include "dump/format/dump_names.h"

namespace acldump::dump {
namespace {

constexpr size_t kPageSize = 4096;
// Failures kept in full; beyond this only counted.
constexpr size_t kMaxRecordedFailures = 10000;
constexpr size_t kReportedFailures = 5;
constexpr size_t kWakeBatch = 8;
constexpr size_t kWakeBytes = size_t{1} << 20;
constexpr auto kBatchWait = std::chrono::milliseconds(2);

}  // namespace

DumpWriter::DumpWriter(Options options)
    : options_(std::move(options)),
      fs_(options_.fs != nullptr ? *options_.fs : PosixFileSystem()) {
  queue_.resize(64);
  thread_ = std::thread([this] { Run(); });
}

DumpWriter::~DumpWriter() {
  {
    std::unique_lock<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  work_ready_.notify_all();
  thread_.join();
}

size_t DumpWriter::RoundedSize(size_t bytes) {
  return std::max<size_t>(kPageSize,
                          (bytes + kPageSize - 1) / kPageSize * kPageSize);
}

AlignedBuffer DumpWriter::AcquireBuffer(size_t bytes) {
  const size_t size = RoundedSize(bytes);
  std::unique_lock<std::mutex> lock(mutex_);
  // Reuse a free buffer of the same size class (steady state: no allocation).
  auto it = free_buffers_.lower_bound(size);
  if (it != free_buffers_.end() && it->first <= 2 * size) {
    AlignedBuffer buffer = std::move(it->second);
    free_bytes_ -= it->first;
    buffered_bytes_ += it->first;
    free_buffers_.erase(it);
    stats_.peak_buffered_bytes =
        std::max(stats_.peak_buffered_bytes, buffered_bytes_);
    return buffer;
  }
  bool waited = false;
  while (true) {
    // Make room by freeing cached buffers of other sizes first.
    while (buffered_bytes_ + free_bytes_ + size > options_.memory_budget &&
           !free_buffers_.empty()) {
      auto largest = std::prev(free_buffers_.end());
      free_bytes_ -= largest->first;
      free_buffers_.erase(largest);
    }
    const bool fits = buffered_bytes_ + size <= options_.memory_budget;
    if (fits || buffered_bytes_ == 0) break;
    waited = true;
    ++memory_waiters_;
    space_ready_.wait(lock);
    --memory_waiters_;
  }
  if (waited) ++stats_.back_pressure_waits;
  buffered_bytes_ += size;
  stats_.peak_buffered_bytes =
      std::max(stats_.peak_buffered_bytes, buffered_bytes_);
  lock.unlock();
  return AlignedBuffer(size, /*zeroed=*/false);
}

void DumpWriter::ReleaseBuffer(AlignedBuffer buffer) {
  const size_t size = buffer.size();
  bool notify;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    buffered_bytes_ -= size;
    if (buffered_bytes_ + free_bytes_ + size <= options_.memory_budget) {
      free_bytes_ += size;
      free_buffers_.emplace(size, std::move(buffer));
    }
    notify = memory_waiters_ > 0;
  }
  if (notify) space_ready_.notify_all();
}

void DumpWriter::Submit(WriteJob job) {
  bool wake = false;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    if (queue_size_ >= options_.max_queued_jobs) {
      ++stats_.back_pressure_waits;
      // Resume once a quarter of the queue has drained: one wake-up per
      // batch of jobs instead of a ping-pong per job.
      ++queue_waiters_;
      space_ready_.wait(lock, [&] { return queue_size_ <= ResumeLevel(); });
      --queue_waiters_;
    }
    if (queue_size_ == queue_.size()) {
      std::vector<WriteJob> bigger(queue_.size() * 2);
      for (size_t i = 0; i < queue_size_; ++i) {
        bigger[i] = std::move(queue_[(queue_head_ + i) % queue_.size()]);
      }
      queue_ = std::move(bigger);
      queue_head_ = 0;
    }
    queued_bytes_ += job.used;
    queue_[(queue_head_ + queue_size_) % queue_.size()] = std::move(job);
    ++queue_size_;
    ++stats_.jobs_submitted;
    // Waking a sleeping writer costs the producer a system call (and, on
    // virtual machines, an inter-processor interrupt): wake it for a batch or
    // enough bytes; a short timed wait picks up the rest.
    wake = writer_state_ == WriterState::kIdle ||
           (writer_state_ == WriterState::kBatching && BatchReady());
  }
  if (wake) work_ready_.notify_one();
}

size_t DumpWriter::ResumeLevel() const {
  const size_t max = std::max<size_t>(options_.max_queued_jobs, 1);
  return max - std::max<size_t>(max / 4, 1);
}

bool DumpWriter::BatchReady() const {
  return queue_size_ >= kWakeBatch || queued_bytes_ >= kWakeBytes;
}

void DumpWriter::Kick() {
  bool wake;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    wake = writer_state_ != WriterState::kRunning && queue_size_ > 0;
  }
  if (wake) work_ready_.notify_one();
}

void DumpWriter::Run() {
  while (true) {
    WriteJob job;
    bool notify_space;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      busy_ = false;
      if (queue_size_ == 0) {
        idle_.notify_all();
        writer_state_ = WriterState::kIdle;
        work_ready_.wait(lock, [&] { return queue_size_ > 0 || stopping_; });
        // The first job of a burst woke us: give producers a moment to queue
        // more, so the next wake-up covers a batch (a full batch, enough
        // bytes, Kick, Flush or the timeout ends this). Only after sleeping:
        // queued work is never left waiting.
        if (!BatchReady() && !stopping_ && !flushing_) {
          writer_state_ = WriterState::kBatching;
          work_ready_.wait_for(lock, kBatchWait, [&] {
            return BatchReady() || stopping_ || flushing_;
          });
        }
        writer_state_ = WriterState::kRunning;
      }
      if (queue_size_ == 0) return;  // stopping with nothing left
      job = std::move(queue_[queue_head_]);
      queue_head_ = (queue_head_ + 1) % queue_.size();
      --queue_size_;
      queued_bytes_ -= job.used;
      busy_ = true;
      notify_space = queue_waiters_ > 0 && queue_size_ <= ResumeLevel();
    }
    if (notify_space) space_ready_.notify_all();
    WriteOne(job);
    ReleaseBuffer(std::move(job.buffer));
  }
}

void DumpWriter::WriteOne(WriteJob& job) {
  scratch_.directory.clear();
  scratch_.name.clear();
  scratch_.suffix.clear();
  scratch_.head.clear();
  scratch_.payloads.clear();
  scratch_.mode = 0644;
  absl::Status status = job.renderer->Render(job, scratch_);
  std::string path =
      StrCat(scratch_.directory, "/", scratch_.name, scratch_.suffix);
  if (status.ok()) status = WriteFile(scratch_, &path);
  std::lock_guard<std::mutex> lock(mutex_);
  if (status.ok()) {
    ++stats_.files_written;
    stats_.bytes_written += scratch_.head.size();
    for (std::string_view payload : scratch_.payloads)
      stats_.bytes_written += payload.size();
    return;
  }
  ++stats_.files_failed;
  if (failures_.size() < kMaxRecordedFailures) {
    failures_.push_back({std::move(path), std::string(status.message())});
  }
}

absl::Status DumpWriter::EnsureDirectory(const std::string& directory) {
  if (known_directories_.count(directory)) return absl::OkStatus();
  const std::string& root = options_.root;
  if (directory.compare(0, root.size(), root) != 0 ||
      (directory.size() > root.size() && directory[root.size()] != '/')) {
    return absl::InternalError(
        StrCat("'", directory, "' is outside the dump root '", root, "'"));
  }
  // The root is the user's dump_path: if it disappeared, say so instead of
  // re-creating it.
  if (!fs_.IsDirectory(root)) {
    return absl::NotFoundError(
        StrCat("dump_path '", root, "' no longer exists"));
  }
  size_t pos = root.size();
  while (pos < directory.size()) {
    const size_t next = directory.find('/', pos + 1);
    const std::string prefix = directory.substr(0, next);
    pos = next == std::string::npos ? directory.size() : next;
    if (known_directories_.count(prefix)) continue;
    absl::Status made = fs_.MakeDirectory(prefix);
    if (!made.ok() && !absl::IsAlreadyExists(made)) return made;
  }
  known_directories_.insert(directory);
  return absl::OkStatus();
}

absl::Status DumpWriter::WriteFile(const RenderedFile& file,
                                   std::string* final_path) {
  absl::Status dir = EnsureDirectory(file.directory);
  if (!dir.ok()) {
    // A directory removed behind our back: forget what we knew and try once
    // more.
    known_directories_.clear();
    dir = EnsureDirectory(file.directory);
    if (!dir.ok()) return dir;
  }
  std::string name = file.name;
  if (NeedsHashedName(name)) {
    const std::string hashed = HashedFileName(name);
    const std::string key = StrCat(file.directory, "/", hashed, file.suffix);
    if (!mapped_names_.count(key)) {
      const std::string mapping = StrCat(file.directory, "/mapping.csv");
      absl::StatusOr<int> fd = fs_.OpenForAppend(mapping);
      if (!fd.ok()) return fd.status();
      absl::Status wrote = WriteAll(
          fs_, *fd, MappingCsvLine(hashed + file.suffix, name + file.suffix),
          mapping);
      absl::Status closed = fs_.Close(*fd);
      if (!wrote.ok()) return wrote;
      if (!closed.ok()) return closed;
      mapped_names_.insert(key);
    }
    name = hashed;
  }
  *final_path = StrCat(file.directory, "/", name, file.suffix);
  const std::string temp = StrCat(*final_path, ".tmp");
  // Exception dumps are read-only (0400): creating them so loses nothing, the
  // temporary name keeps them invisible until complete.
  absl::StatusOr<int> fd = fs_.CreateFile(temp, file.mode);
  if (!fd.ok() && absl::IsAlreadyExists(fd.status())) {
    // A leftover from a crashed run: it never was a complete file.
    fs_.Remove(temp).IgnoreError();
    fd = fs_.CreateFile(temp, file.mode);
  }
  if (!fd.ok()) return fd.status();
  absl::Status status = WriteAll(fs_, *fd, file.head, temp);
  for (size_t i = 0; status.ok() && i < file.payloads.size(); ++i) {
    status = WriteAll(fs_, *fd, file.payloads[i], temp);
  }
  if (status.ok() && options_.sync) status = fs_.Sync(*fd);
  absl::Status closed = fs_.Close(*fd);
  if (status.ok()) status = closed;
  if (status.ok()) status = fs_.Rename(temp, *final_path);
  if (!status.ok()) fs_.Remove(temp).IgnoreError();
  return status;
}

absl::Status DumpWriter::Flush() {
  std::unique_lock<std::mutex> lock(mutex_);
  flushing_ = true;
  work_ready_.notify_one();
  idle_.wait(lock, [&] { return queue_size_ == 0 && !busy_; });
  flushing_ = false;
  if (stats_.files_failed == 0) return absl::OkStatus();
  std::string message =
      StrCat(stats_.files_failed, " of ", stats_.jobs_submitted,
             " dump files could not be written under '", options_.root, "':");
  for (size_t i = 0; i < failures_.size() && i < kReportedFailures; ++i) {
    StrAppend(message, " [", failures_[i].path, ": ", failures_[i].reason, "]");
  }
  if (stats_.files_failed > kReportedFailures) {
    StrAppend(message, " and ", stats_.files_failed - kReportedFailures,
              " more");
  }
  return WithKind(absl::DataLossError(message), ErrorKind::kWriteFile);
}

WriterStats DumpWriter::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

std::vector<WriteFailure> DumpWriter::failures() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return failures_;
}

}  // namespace acldump::dump
