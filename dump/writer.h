// The background dump writer. Producers (executing threads) take a buffer from
// a byte-bounded pool (a small one is allocated on its own), fill it and
// submit a job; one writer thread renders each job into a file (names,
// headers: all string and protobuf work happens here, off the hot path) and
// writes it atomically: a temporary name in the same folder, then a rename.
// When the pool is exhausted the producer waits (back-pressure): nothing is
// ever dropped. Failures are recorded per file and reported by Finish().
#ifndef ACLDUMP_DUMP_WRITER_H_
#define ACLDUMP_DUMP_WRITER_H_

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "dump/file_system.h"
#include "dump/folder_tree.h"
#include "dump/format/record_file.h"
#include "kernels/tensor.h"

namespace acldump::dump {

class PackAppender;

struct WriteJob;

// What a job becomes on disk.
struct RenderedFile {
  // Relative to the writer's base (its time folder, or its root without one):
  // "0/resnet/1/3"; "" = the base itself.
  std::string directory;
  // Final file name is `name` + suffix(); a name too long for the file system
  // is written as its hash, recorded in the folder's mapping.csv.
  std::string name;
  // The file's form (what the packed layout appends it to, its suffix).
  RecordFile form = RecordFile::kDumpFile;
  // Bytes written first (the dump file's 8-byte header length and header, or a
  // whole CSV text).
  std::string head;
  // Then these (views into the job's buffer).
  std::vector<std::string_view> payloads;
  int mode = 0640;
  // A file of its own in the packed layout too (a report beside the
  // records, not a record).
  bool standalone = false;
  // `directory` ends in the job's iteration folder: the packed layout may
  // append the record to its model folder's pack as "{iteration}/{name}".
  bool per_iteration = false;

  std::string_view suffix() const { return RecordFileSuffix(form); }
};

// Turns a job into a file. Runs on the writer thread; lives while jobs refer to
// it.
class JobRenderer {
 public:
  virtual ~JobRenderer() = default;
  virtual absl::Status Render(const WriteJob& job,
                              RenderedFile& file) const = 0;
};

struct WriteJob {
  // Null for a job a producer gave up before it had a buffer of the
  // writer's (the drop policy, the byte budget): its buffer is the
  // producer's scratch, and it is never submitted.
  std::shared_ptr<const JobRenderer> renderer;
  uint64_t iteration = 0;
  uint64_t timestamp_us = 0;
  uint64_t sequence = 0;  // free for the renderer (e.g. a single-op task id)
  AlignedBuffer buffer;   // from AcquireBuffer
  size_t used = 0;        // bytes of `buffer` filled
};

// A report written beside the records (a file of its own in the packed layout
// too): the job's bytes as `name` in `directory`, below it in the job's
// iteration folder when `per_iteration`.
class ReportFileRenderer final : public JobRenderer {
 public:
  ReportFileRenderer(std::string directory, std::string name,
                     bool per_iteration)
      : directory_(std::move(directory)),
        name_(std::move(name)),
        per_iteration_(per_iteration) {}
  absl::Status Render(const WriteJob& job, RenderedFile& file) const override;

 private:
  const std::string directory_;
  const std::string name_;
  const bool per_iteration_;
};

class DumpWriter;

// A job holding `text` for `renderer` (a report file), stamped now.
WriteJob MakeReportJob(DumpWriter& writer,
                       std::shared_ptr<const JobRenderer> renderer,
                       std::string_view text, uint64_t iteration);

struct WriteFailure {
  std::string path;
  std::string reason;
};

struct WriterStats {
  uint64_t jobs_submitted = 0;
  uint64_t files_written = 0;
  uint64_t bytes_written = 0;
  uint64_t files_failed = 0;
  // Times a producer waited for memory or for room in the queue, and how
  // long in all.
  uint64_t back_pressure_waits = 0;
  uint64_t back_pressure_wait_ns = 0;
  // Records given up by a producer that could not hand them over in time
  // (TryAcquireBuffer, TrySubmit), or beyond the byte budget (ReserveBytes).
  // Iteration folders removed by retention (Options::keep_iterations), and
  // removals that failed (the first failure's text in retention_failure).
  uint64_t iteration_folders_removed = 0;
  uint64_t iteration_folder_removals_failed = 0;
  std::string retention_failure;
  uint64_t records_dropped_late = 0;
  uint64_t records_dropped_over_budget = 0;
  uint64_t bytes_dropped = 0;
  size_t peak_buffered_bytes = 0;
};

class DumpWriter {
 public:
  struct Options {
    std::string root;  // dump files go here or below; the writer never creates
                       // the root itself
    // The time folder's name (without "_N"); empty: files go straight below
    // the root.
    std::string time_base;
    // Buffers acquired and cached for reuse together stay below this. Cached
    // buffers are kept until the writer goes away: fresh memory would cost page
    // faults on every copy.
    size_t memory_budget = size_t{256} << 20;
    bool sync = false;  // fsync each file before the rename
    // Queued jobs beyond this make Submit wait too: many small files (stats)
    // must not build an unbounded backlog of job records even when their bytes
    // fit the budget.
    size_t max_queued_jobs = 4096;
    FileSystem* fs = nullptr;  // default: PosixFileSystem()
    // The packed layout: records appended to one dump.pack per folder (stats
    // rows to one statistic.csv) instead of one file each.
    bool packed = false;
    // The packed layout without retention: a model folder's dump.pack and
    // statistic.csv take the records of its iterations while below these
    // sizes; later records go to their iteration folders.
    uint64_t model_folder_pack_bytes = uint64_t{1} << 30;
    uint64_t model_folder_stats_bytes = uint64_t{32} << 20;
    // The most payload bytes ReserveBytes grants in all; 0 = no limit.
    uint64_t max_bytes = 0;
    // Retention: only the newest this many iteration folders of each model
    // folder are kept (older ones are removed with all they hold, as a newer
    // one begins); 0 = every one.
    uint64_t keep_iterations = 0;
  };
  using Deadline = std::chrono::steady_clock::time_point;

  explicit DumpWriter(Options options);
  ~DumpWriter();  // finishes every queued job
  DumpWriter(const DumpWriter&) = delete;
  DumpWriter& operator=(const DumpWriter&) = delete;

  // Jobs of at most this many bytes (stats of a node, a tiny tensor) get a
  // buffer of their own, outside the pool and its lock: the queue's job limit
  // bounds them.
  static constexpr size_t kSmallJobBytes = 1024;
  static bool IsSmall(const AlignedBuffer& buffer) {
    return buffer.size() <= kSmallJobBytes;
  }

  // Producer side. Waits while the buffered bytes would exceed the budget (a
  // single job larger than the budget waits for the queue to drain, then
  // proceeds alone).
  AlignedBuffer AcquireBuffer(size_t bytes);
  void Submit(WriteJob job);
  // The same, waiting no later than `deadline`: an empty buffer when the
  // budget has no room by then; false when the queue has none (the job's
  // buffer is then released). Either is counted as a record dropped late.
  AlignedBuffer TryAcquireBuffer(size_t bytes, Deadline deadline);
  bool TrySubmit(WriteJob job, Deadline deadline);
  // SubmitAll with a deadline: returns the jobs dropped (counted as late),
  // their bytes added to `*dropped_bytes`.
  size_t TrySubmitAll(std::vector<WriteJob>& jobs, Deadline deadline,
                      size_t* dropped_bytes);
  // Takes `bytes` from the byte budget (Options::max_bytes): false, and the
  // record counted as dropped over budget, when they do not fit.
  bool ReserveBytes(size_t bytes);
  // Counts a record given up for lack of time before it had a buffer.
  void CountDroppedLate(size_t bytes);
  // Submits `jobs` in order, taking the queue's lock once; leaves `jobs`
  // empty. Wakes the writer only for a large backlog: the producer calls Kick
  // when it is done for a while.
  void SubmitAll(std::vector<WriteJob>& jobs);
  // Wakes the writer for whatever is queued (a producer calls it when it has
  // submitted all it will for a while, e.g. at the end of an iteration).
  void Kick();
  // Gives back a buffer that will not be submitted (e.g. a node failed before
  // its dump was complete).
  void ReturnBuffer(AlignedBuffer buffer) { ReleaseBuffer(std::move(buffer)); }

  // Waits until every submitted job is on disk (or failed). Returns OK, or a
  // kWriteFile error naming how many files are missing and the first few with
  // their reasons.
  absl::Status Flush();
  WriterStats stats() const;
  const std::string& root() const { return options_.root; }
  // The time folder once the first file created it ("" before, and for a
  // writer without one).
  std::string time_folder() const;

 private:
  void Run();
  // Enough queued work to be worth a wake-up; mutex_ held.
  bool BatchReady() const;
  // Queue length at which producers blocked on a full queue resume.
  size_t ResumeLevel() const;
  // Renders and writes the jobs taken from the queue together (one for the
  // SDK layout; the packed layout appends runs of records per system call).
  void WriteBatch(std::vector<WriteJob>& batch);
  // Where `file` was meant to go, for failure reports.
  std::string IntendedPath(const RenderedFile& file) const;
  absl::Status WriteFile(const RenderedFile& file, std::string* final_path);
  // Retention: a file for folder `directory` of iteration `iteration` is
  // about to be written; when that begins a new iteration folder of its
  // model folder, the oldest beyond keep_iterations are removed.
  void Retain(uint64_t iteration, std::string_view directory);
  void RemoveIterationFolder(std::string_view parent, uint64_t iteration);
  absl::Status WriteInto(const FolderTree::Folder& folder,
                         const RenderedFile& file, std::string* final_path);
  void ReleaseBuffer(AlignedBuffer buffer);
  // Queues one job (mutex_ held via `lock`, which a full queue waits on);
  // returns whether the writer should be woken.
  bool EnqueueLocked(WriteJob job, std::unique_lock<std::mutex>& lock);
  // EnqueueLocked giving up at `deadline` when the queue is still full then
  // (`*queued` false, the job's buffer released, the drop counted).
  bool EnqueueBeforeLocked(WriteJob job, std::unique_lock<std::mutex>& lock,
                           Deadline deadline, bool* queued);
  // A full queue: waits for room (until `deadline`, when given); returns
  // whether there is room.
  bool WaitForRoomLocked(std::unique_lock<std::mutex>& lock,
                         const Deadline* deadline);
  // Queues `job` (there is room); returns whether to wake the writer.
  bool PushLocked(WriteJob&& job);
  AlignedBuffer AcquirePooled(size_t bytes, const Deadline* deadline);
  static size_t RoundedSize(size_t bytes);

  Options options_;
  FileSystem& fs_;

  mutable std::mutex mutex_;
  std::condition_variable work_ready_;
  std::condition_variable space_ready_;
  std::condition_variable idle_;
  std::vector<WriteJob> queue_;  // ring buffer
  size_t queue_head_ = 0;
  size_t queue_size_ = 0;
  size_t queued_bytes_ = 0;    // payload bytes of the queued jobs
  size_t queue_waiters_ = 0;   // producers blocked on a full queue
  size_t memory_waiters_ = 0;  // producers blocked on the memory budget
  bool busy_ = false;          // the writer thread holds a job
  bool packs_open_ = false;    // packed records appended since the last flush
  // kIdle: asleep until woken. kBatching: woken, waiting briefly for more.
  // kPolling: dumping is under way, so the writer looks at the queue on its
  // own every few hundred microseconds and producers need not wake it.
  enum class WriterState { kRunning, kIdle, kBatching, kPolling };
  WriterState writer_state_ = WriterState::kRunning;
  bool flushing_ = false;
  bool stopping_ = false;
  // When the writer thread last finished a batch (only it reads this).
  std::chrono::steady_clock::time_point last_batch_end_;
  size_t buffered_bytes_ = 0;    // acquired and not yet released
  uint64_t reserved_bytes_ = 0;  // granted by ReserveBytes
  std::multimap<size_t, AlignedBuffer> free_buffers_;
  size_t free_bytes_ = 0;
  WriterStats stats_;
  std::vector<WriteFailure> failures_;

  std::string time_folder_;  // copied from the tree under mutex_

  // Writer-thread only.
  FolderTree tree_;
  std::unique_ptr<PackAppender>
      packs_;  // the packed layout's, made at first use
  std::vector<RenderedFile> rendered_;
  std::vector<absl::Status> results_;
  std::vector<std::string> paths_;
  std::vector<iovec> iovecs_;
  // Retention, per model folder: the iteration folders kept (oldest first)
  // and the newest one given up; the folders to remove after the batch.
  struct Retained {
    std::set<uint64_t> kept;
    bool evicted = false;
    uint64_t evicted_up_to = 0;
  };
  std::map<std::string, Retained, std::less<>> retained_;
  std::vector<std::pair<std::string, uint64_t>> removals_;

  std::thread thread_;
};

}  // namespace acldump::dump

#endif  // ACLDUMP_DUMP_WRITER_H_
