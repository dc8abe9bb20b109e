#include "dump/writer.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstring>
#include <new>

#include "base/error_kind.h"
#include "base/status_macros.h"
#include "base/strings.h"
#include "dump/format/dump_names.h"
#include "dump/pack_appender.h"

namespace acldump::dump {
namespace {

constexpr size_t kPageSize = 4096;
// Failures kept in full; beyond this only counted.
constexpr size_t kMaxRecordedFailures = 10000;
constexpr size_t kReportedFailures = 5;
constexpr size_t kWakeBatch = 8;
constexpr size_t kWakeBytes = size_t{1} << 20;
constexpr auto kBatchWait = std::chrono::milliseconds(2);
constexpr size_t kLazyWakeJobs = 256;
// While work keeps coming (a batch ended less than kActiveWindow ago) the
// writer polls the queue every kPollWait instead of sleeping until woken:
// a wake-up is a system call and, on a virtual machine, an interrupt on the
// executing thread, which paid one per iteration.
constexpr auto kPollWait = std::chrono::microseconds(500);
constexpr auto kActiveWindow = std::chrono::milliseconds(50);
// Jobs the packed layout takes from the queue at once: consecutive records of
// one pack (or stats rows of one statistic.csv) become one append. Bytes are
// capped too: a batch's buffers return to producers only once it is written,
// and large tensors gain nothing from sharing a system call.
constexpr size_t kMaxBatchJobs = 256;
constexpr size_t kMaxBatchBytes = size_t{1} << 20;

}  // namespace

DumpWriter::DumpWriter(Options options)
    : options_(std::move(options)),
      fs_(options_.fs != nullptr ? *options_.fs : PosixFileSystem()),
      tree_(fs_, options_.root, options_.time_base) {
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

absl::Status ReportFileRenderer::Render(const WriteJob& job,
                                        RenderedFile& file) const {
  file.directory.assign(directory_);
  if (per_iteration_) {
    if (!file.directory.empty()) file.directory.push_back('/');
    StrAppend(file.directory, job.iteration);
  }
  file.name.assign(name_);
  file.form = RecordFile::kDumpFile;
  file.standalone = true;
  file.payloads.emplace_back(reinterpret_cast<const char*>(job.buffer.data()),
                             job.used);
  return absl::OkStatus();
}

WriteJob MakeReportJob(DumpWriter& writer,
                       std::shared_ptr<const JobRenderer> renderer,
                       std::string_view text, uint64_t iteration) {
  WriteJob job;
  job.renderer = std::move(renderer);
  job.iteration = iteration;
  job.timestamp_us = std::chrono::duration_cast<std::chrono::microseconds>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count();
  job.buffer = writer.AcquireBuffer(text.size());
  if (!text.empty()) std::memcpy(job.buffer.data(), text.data(), text.size());
  job.used = text.size();
  return job;
}

namespace {

uint64_t WaitedNs(std::chrono::steady_clock::time_point from) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now() - from)
      .count();
}

}  // namespace

AlignedBuffer DumpWriter::AcquireBuffer(size_t bytes) {
  if (bytes <= kSmallJobBytes) {
    return AlignedBuffer(std::max<size_t>(bytes, 1), /*zeroed=*/false);
  }
  return AcquirePooled(bytes, nullptr);
}

AlignedBuffer DumpWriter::TryAcquireBuffer(size_t bytes, Deadline deadline) {
  AlignedBuffer buffer = AcquirePooled(bytes, &deadline);
  if (buffer.size() == 0) CountDroppedLate(bytes);
  return buffer;
}

void DumpWriter::CountDroppedLate(size_t bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++stats_.records_dropped_late;
  stats_.bytes_dropped += bytes;
}

bool DumpWriter::ReserveBytes(size_t bytes) {
  if (options_.max_bytes == 0) return true;
  std::lock_guard<std::mutex> lock(mutex_);
  if (reserved_bytes_ + bytes > options_.max_bytes) {
    ++stats_.records_dropped_over_budget;
    stats_.bytes_dropped += bytes;
    return false;
  }
  reserved_bytes_ += bytes;
  return true;
}

AlignedBuffer DumpWriter::AcquirePooled(size_t bytes,
                                        const Deadline* deadline) {
  if (bytes <= kSmallJobBytes) {
    return AlignedBuffer(std::max<size_t>(bytes, 1), /*zeroed=*/false);
  }
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
    const auto waited_from = std::chrono::steady_clock::now();
    // Past the deadline: no wait at all (a timed wait that returns at once
    // still costs a system call and the lock twice, per record).
    if (deadline != nullptr && waited_from >= *deadline) {
      ++stats_.back_pressure_waits;
      return AlignedBuffer();
    }
    waited = true;
    ++memory_waiters_;
    bool late = false;
    if (deadline == nullptr) {
      space_ready_.wait(lock);
    } else {
      late =
          space_ready_.wait_until(lock, *deadline) == std::cv_status::timeout;
    }
    stats_.back_pressure_wait_ns += WaitedNs(waited_from);
    --memory_waiters_;
    if (late) {
      ++stats_.back_pressure_waits;
      return AlignedBuffer();
    }
  }
  if (waited) ++stats_.back_pressure_waits;
  buffered_bytes_ += size;
  stats_.peak_buffered_bytes =
      std::max(stats_.peak_buffered_bytes, buffered_bytes_);
  lock.unlock();
  return AlignedBuffer(size, /*zeroed=*/false);
}

void DumpWriter::ReleaseBuffer(AlignedBuffer buffer) {
  if (IsSmall(buffer)) return;  // never pooled: freed here
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

[[gnu::always_inline]] inline bool DumpWriter::PushLocked(WriteJob&& job) {
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
  return writer_state_ == WriterState::kIdle ||
         (writer_state_ != WriterState::kRunning && BatchReady());
}

bool DumpWriter::WaitForRoomLocked(std::unique_lock<std::mutex>& lock,
                                   const Deadline* deadline) {
  ++stats_.back_pressure_waits;
  const auto waited_from = std::chrono::steady_clock::now();
  if (deadline != nullptr && waited_from >= *deadline) return false;
  // Resume once a quarter of the queue has drained: one wake-up per
  // batch of jobs instead of a ping-pong per job.
  ++queue_waiters_;
  // The writer may be asleep with jobs queued by SubmitAll before the wait.
  if (writer_state_ != WriterState::kRunning) work_ready_.notify_one();
  const auto room = [&] { return queue_size_ <= ResumeLevel(); };
  bool in_time = true;
  if (deadline == nullptr) {
    space_ready_.wait(lock, room);
  } else {
    in_time = space_ready_.wait_until(lock, *deadline, room) ||
              queue_size_ < options_.max_queued_jobs;
  }
  stats_.back_pressure_wait_ns += WaitedNs(waited_from);
  --queue_waiters_;
  return in_time;
}

bool DumpWriter::EnqueueLocked(WriteJob job,
                               std::unique_lock<std::mutex>& lock) {
  if (queue_size_ >= options_.max_queued_jobs) {
    WaitForRoomLocked(lock, nullptr);
  }
  return PushLocked(std::move(job));
}

bool DumpWriter::EnqueueBeforeLocked(WriteJob job,
                                     std::unique_lock<std::mutex>& lock,
                                     Deadline deadline, bool* queued) {
  *queued = queue_size_ < options_.max_queued_jobs ||
            WaitForRoomLocked(lock, &deadline);
  if (*queued) return PushLocked(std::move(job));
  ++stats_.records_dropped_late;
  stats_.bytes_dropped += job.used;
  // The buffer goes back as ReleaseBuffer would give it (mutex_ held).
  if (!IsSmall(job.buffer)) {
    const size_t size = job.buffer.size();
    buffered_bytes_ -= size;
    if (buffered_bytes_ + free_bytes_ + size <= options_.memory_budget) {
      free_bytes_ += size;
      free_buffers_.emplace(size, std::move(job.buffer));
    }
    if (memory_waiters_ > 0) space_ready_.notify_all();
  }
  return false;
}

void DumpWriter::Submit(WriteJob job) {
  bool wake;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    wake = EnqueueLocked(std::move(job), lock);
  }
  if (wake) work_ready_.notify_one();
}

bool DumpWriter::TrySubmit(WriteJob job, Deadline deadline) {
  bool wake, queued;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    wake = EnqueueBeforeLocked(std::move(job), lock, deadline, &queued);
  }
  if (wake) work_ready_.notify_one();
  return queued;
}

size_t DumpWriter::TrySubmitAll(std::vector<WriteJob>& jobs, Deadline deadline,
                                size_t* dropped_bytes) {
  if (jobs.empty()) return 0;
  size_t dropped = 0;
  bool wake;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    for (WriteJob& job : jobs) {
      bool queued;
      const size_t bytes = job.used;
      EnqueueBeforeLocked(std::move(job), lock, deadline, &queued);
      if (!queued) {
        ++dropped;
        *dropped_bytes += bytes;
      }
    }
    wake = writer_state_ != WriterState::kRunning &&
           (queue_size_ >= kLazyWakeJobs || queued_bytes_ >= kWakeBytes);
  }
  jobs.clear();
  if (wake) work_ready_.notify_one();
  return dropped;
}

void DumpWriter::SubmitAll(std::vector<WriteJob>& jobs) {
  if (jobs.empty()) return;
  bool wake;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    for (WriteJob& job : jobs) EnqueueLocked(std::move(job), lock);
    // A wake-up is a system call on the executing thread: small jobs wait
    // for a large batch, or for the producer's Kick.
    wake = writer_state_ != WriterState::kRunning &&
           (queue_size_ >= kLazyWakeJobs || queued_bytes_ >= kWakeBytes);
  }
  jobs.clear();
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
    // A polling writer finds the queue on its own.
    wake = (writer_state_ == WriterState::kIdle ||
            writer_state_ == WriterState::kBatching) &&
           queue_size_ > 0;
  }
  if (wake) work_ready_.notify_one();
}

void DumpWriter::Run() {
  std::vector<WriteJob> batch;
  while (true) {
    bool notify_space;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      busy_ = false;
      while (queue_size_ == 0) {
        if (flushing_ && packs_open_) {
          // A flush leaves every pack complete, its index appended.
          busy_ = true;
          lock.unlock();
          packs_->CloseAll();
          lock.lock();
          busy_ = false;
          packs_open_ = false;
          continue;
        }
        if (stopping_) return;  // nothing left (packs close with the writer)
        idle_.notify_all();
        auto has_work = [&] {
          return queue_size_ > 0 || stopping_ || (flushing_ && packs_open_);
        };
        if (std::chrono::steady_clock::now() - last_batch_end_ <
            kActiveWindow) {
          writer_state_ = WriterState::kPolling;
          work_ready_.wait_for(lock, kPollWait, has_work);
          writer_state_ = WriterState::kRunning;
          continue;  // queued jobs are taken as they are
        }
        writer_state_ = WriterState::kIdle;
        work_ready_.wait(lock, has_work);
        // The first job of a burst woke us: give producers a moment to queue
        // more, so the next wake-up covers a batch (a full batch, enough
        // bytes, Kick, Flush or the timeout ends this). Only after sleeping:
        // queued work is never left waiting.
        if (queue_size_ > 0 && !BatchReady() && !stopping_ && !flushing_) {
          writer_state_ = WriterState::kBatching;
          work_ready_.wait_for(lock, kBatchWait, [&] {
            return BatchReady() || stopping_ || flushing_;
          });
        }
        writer_state_ = WriterState::kRunning;
      }
      size_t batch_bytes = 0;
      do {
        WriteJob& job = queue_[queue_head_];
        queued_bytes_ -= job.used;
        batch_bytes += job.used;
        batch.push_back(std::move(job));
        queue_head_ = (queue_head_ + 1) % queue_.size();
        --queue_size_;
      } while (options_.packed && queue_size_ > 0 &&
               batch.size() < kMaxBatchJobs &&
               batch_bytes + queue_[queue_head_].used <= kMaxBatchBytes);
      busy_ = true;
      packs_open_ = options_.packed;
      notify_space = queue_waiters_ > 0 && queue_size_ <= ResumeLevel();
    }
    if (notify_space) space_ready_.notify_all();
    WriteBatch(batch);
    for (WriteJob& job : batch) ReleaseBuffer(std::move(job.buffer));
    batch.clear();
    last_batch_end_ = std::chrono::steady_clock::now();
  }
}

std::string DumpWriter::IntendedPath(const RenderedFile& file) const {
  std::string path = options_.root;
  if (!options_.time_base.empty()) {
    StrAppend(
        path, "/",
        tree_.time_folder().empty() ? options_.time_base : tree_.time_folder());
  }
  if (!file.directory.empty()) StrAppend(path, "/", file.directory);
  StrAppend(path, "/", file.name, file.suffix());
  return path;
}

void DumpWriter::WriteBatch(std::vector<WriteJob>& batch) {
  const size_t n = batch.size();
  if (rendered_.size() < n) rendered_.resize(n);
  results_.resize(n);
  paths_.resize(n);
  for (size_t i = 0; i < n; ++i) {
    RenderedFile& file = rendered_[i];
    file.directory.clear();
    file.name.clear();
    file.form = RecordFile::kDumpFile;
    file.head.clear();
    file.payloads.clear();
    file.mode = 0640;
    file.standalone = false;
    file.per_iteration = false;
    // The writer thread must outlive a failed allocation: the file fails.
    try {
      results_[i] = batch[i].renderer->Render(batch[i], file);
    } catch (const std::bad_alloc&) {
      results_[i] = WithKind(
          absl::ResourceExhaustedError("out of memory rendering the file"),
          ErrorKind::kOutOfMemory);
    }
    paths_[i].clear();  // set where the file went; else named on failure
    if (options_.keep_iterations > 0 && results_[i].ok()) {
      Retain(batch[i].iteration, file.directory);
    }
  }
  const std::span<const RenderedFile> files(rendered_.data(), n);
  // Records go to the packs in runs; standalone files between them alone.
  size_t begin = 0;
  while (begin < n) {
    size_t end = begin;
    while (end < n && options_.packed && !files[end].standalone) ++end;
    if (end > begin) {
      if (!packs_) {
        // Retention removes iteration folders: their records stay in them.
        PackAppender::ModelFolders model_folders;
        model_folders.enabled = options_.keep_iterations == 0;
        model_folders.pack_bytes = options_.model_folder_pack_bytes;
        model_folders.stats_bytes = options_.model_folder_stats_bytes;
        packs_ = std::make_unique<PackAppender>(fs_, tree_, model_folders);
      }
      packs_->AppendBatch(std::span(rendered_).subspan(begin, end - begin),
                          std::span(results_).subspan(begin, end - begin),
                          std::span(paths_).subspan(begin, end - begin));
      begin = end;
      continue;
    }
    if (results_[begin].ok()) {
      results_[begin] = WriteFile(files[begin], &paths_[begin]);
    }
    ++begin;
  }
  // After the batch's files: a folder given up in this batch may have had
  // files in it too.
  for (const auto& [parent, iteration] : removals_) {
    RemoveIterationFolder(parent, iteration);
  }
  removals_.clear();
  std::lock_guard<std::mutex> lock(mutex_);
  if (time_folder_.empty()) time_folder_ = tree_.time_folder();
  for (size_t i = 0; i < n; ++i) {
    if (results_[i].ok()) {
      ++stats_.files_written;
      stats_.bytes_written += files[i].head.size();
      for (std::string_view payload : files[i].payloads)
        stats_.bytes_written += payload.size();
      continue;
    }
    ++stats_.files_failed;
    if (failures_.size() < kMaxRecordedFailures) {
      failures_.push_back(
          {paths_[i].empty() ? IntendedPath(files[i]) : std::move(paths_[i]),
           std::string(results_[i].message())});
    }
  }
}

void DumpWriter::Retain(uint64_t iteration, std::string_view directory) {
  const size_t slash = directory.rfind('/');
  if (slash == std::string_view::npos) return;
  char digits[24];
  const auto [end, error] =
      std::to_chars(digits, digits + sizeof(digits), iteration);
  // Only an iteration folder: {model folder}/{iteration}.
  if (directory.substr(slash + 1) != std::string_view(digits, end - digits)) {
    return;
  }
  const std::string_view parent = directory.substr(0, slash);
  auto it = retained_.find(parent);
  if (it == retained_.end()) {
    it = retained_.emplace(std::string(parent), Retained()).first;
  }
  Retained& retained = it->second;
  std::set<uint64_t>& kept = retained.kept;
  if (kept.contains(iteration)) return;
  auto schedule = [&](uint64_t old) {
    const std::pair<std::string, uint64_t> folder(std::string(parent), old);
    if (std::find(removals_.begin(), removals_.end(), folder) ==
        removals_.end()) {
      removals_.push_back(folder);
    }
  };
  // A file of a folder already given up (its iteration's records are still
  // arriving): written, then removed with it.
  if (retained.evicted && iteration <= retained.evicted_up_to) {
    schedule(iteration);
    return;
  }
  // The newest by number are kept, whatever order they begin in.
  kept.insert(iteration);
  while (kept.size() > options_.keep_iterations) {
    const uint64_t old = *kept.begin();
    kept.erase(kept.begin());
    retained.evicted_up_to =
        retained.evicted ? std::max(retained.evicted_up_to, old) : old;
    retained.evicted = true;
    schedule(old);
  }
}

void DumpWriter::RemoveIterationFolder(std::string_view parent,
                                       uint64_t iteration) {
  const std::string name = StrCat(iteration);
  tree_.Forget(StrCat(parent, "/", name));
  absl::StatusOr<FolderTree::Folder> folder = tree_.Open(parent);
  absl::Status status = folder.status();
  if (folder.ok()) {
    const std::string path = StrCat(folder->path, "/", name);
    if (packs_) packs_->Forget(path);
    status = RemoveTreeAt(fs_, folder->fd, name, path);
    // Gone already (removed by hand): nothing to keep either.
    if (absl::IsNotFound(status)) status = absl::OkStatus();
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (status.ok()) {
    ++stats_.iteration_folders_removed;
    return;
  }
  ++stats_.iteration_folder_removals_failed;
  if (stats_.retention_failure.empty()) {
    stats_.retention_failure = std::string(status.message());
  }
}

absl::Status DumpWriter::WriteFile(const RenderedFile& file,
                                   std::string* final_path) {
  absl::StatusOr<FolderTree::Folder> folder = tree_.Open(file.directory);
  absl::Status status =
      folder.ok() ? WriteInto(*folder, file, final_path) : folder.status();
  if (absl::IsNotFound(status)) {
    // A folder removed behind our back: forget what we knew and try once
    // more.
    tree_.Reset();
    folder = tree_.Open(file.directory);
    status =
        folder.ok() ? WriteInto(*folder, file, final_path) : folder.status();
  }
  return status;
}

// An unnamed file, written completely, then linked in under its name: a
// reader never sees a partial file, and a failed one leaves nothing.
absl::Status DumpWriter::WriteInto(const FolderTree::Folder& folder,
                                   const RenderedFile& file,
                                   std::string* final_path) {
  std::string name = StrCat(file.name, file.suffix());
  *final_path = StrCat(folder.path, "/", name);
  ASSIGN_OR_RETURN(int fd, fs_.CreateFileAt(folder.fd, file.mode, *final_path));
  iovecs_.clear();
  iovecs_.push_back({const_cast<char*>(file.head.data()), file.head.size()});
  for (std::string_view payload : file.payloads) {
    iovecs_.push_back({const_cast<char*>(payload.data()), payload.size()});
  }
  absl::Status status = WriteAll(fs_, fd, iovecs_, *final_path);
  if (status.ok() && options_.sync) status = fs_.Sync(fd, *final_path);
  if (status.ok()) status = fs_.LinkFileAt(fd, folder.fd, name, *final_path);
  if (IsNameTooLong(status)) {
    const std::string hashed = HashedName(*final_path);
    status = tree_.RecordMapping(folder, hashed, name);
    if (status.ok()) {
      *final_path = StrCat(folder.path, "/", hashed);
      status = fs_.LinkFileAt(fd, folder.fd, hashed, *final_path);
      name = hashed;
    }
  }
  const bool linked = status.ok();
  absl::Status closed = fs_.Close(fd, *final_path);
  if (status.ok()) status = closed;
  // A close that fails after the link (a delayed write error) must not leave
  // a file that may be incomplete.
  if (!status.ok() && linked) {
    fs_.RemoveAt(folder.fd, name, *final_path).IgnoreError();
  }
  return status;
}

absl::Status DumpWriter::Flush() {
  std::unique_lock<std::mutex> lock(mutex_);
  flushing_ = true;
  work_ready_.notify_one();
  idle_.wait(lock, [&] { return queue_size_ == 0 && !busy_ && !packs_open_; });
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

std::string DumpWriter::time_folder() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return time_folder_;
}

}  // namespace acldump::dump
