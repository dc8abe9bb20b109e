// One effective dump configuration (from aclmdlSetDump or aclInit): its config,
// the time folder fixed when it took effect, and the writer its dumps go
// through.
#ifndef ACLDUMP_DUMP_SESSION_H_
#define ACLDUMP_DUMP_SESSION_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "absl/status/statusor.h"
#include "dump/chunk_delivery.h"
#include "dump/config.h"
#include "dump/file_system.h"
#include "dump/payload.h"
#include "dump/writer.h"

namespace acldump::dump {

class Baseline;  // dump/baseline.h

struct SessionOptions {
  size_t writer_memory_budget = size_t{256} << 20;
  bool sync_files = false;
  FileSystem* fs = nullptr;  // default: POSIX
  // Files go to this router's consumer while one is registered; default: the
  // process's (acldumpRegCallback).
  ChunkRouter* chunk_router = nullptr;
  // Root of exception dumps; empty = $ASCEND_DUMP_PATH, $ASCEND_WORK_PATH,
  // the config's dump_path or the working directory (dump/exception_env.h).
  std::string exception_root;
};

// Options from the environment: ACLDUMP_WRITER_MEMORY_MB, ACLDUMP_FSYNC=1.
SessionOptions SessionOptionsFromEnvironment();

// Records a model's executions dropped (the drop policy, the byte budget).
struct DropCounts {
  uint64_t records = 0;
  uint64_t bytes = 0;
  uint64_t iterations = 0;  // iterations that lost at least one record
  uint64_t first_iteration = 0;
  uint64_t last_iteration = 0;
};

// Written into the time folder when a session closes having dropped records:
// how many, of which model, and why.
inline constexpr std::string_view kDroppedReportFileName = "dump_dropped.json";

class DumpSession {
 public:
  static absl::StatusOr<std::shared_ptr<DumpSession>> Create(
      DumpConfig config, const SessionOptions& options);
  ~DumpSession();

  const DumpConfig& config() const { return config_; }
  // What each record holds (tensors or statistics), chosen once.
  const Payload& payload() const { return *payload_; }
  // dump_baseline's stats dump, read when the session was made; null without.
  const std::shared_ptr<const Baseline>& baseline() const { return baseline_; }
  // The time folder ({YYYYMMDDHHMMSS}, local time when the config took
  // effect, "_N" appended when taken) once the first file created it; empty
  // before, and for exception dumps.
  std::string time_folder() const { return writer_->time_folder(); }
  // Where this session's files go: dump_path, or the exception root.
  const std::string& root() const { return writer_->root(); }
  DumpWriter& writer() { return *writer_; }
  bool closed() const { return closed_.load(std::memory_order_acquire); }
  uint64_t NextSingleOpTaskId() { return single_op_tasks_.fetch_add(1); }

  // An execution that dumps brackets itself with these; Enter fails once the
  // session is closed. Close waits for the executions inside, so their files
  // are part of its report.
  bool EnterExecution();
  void ExitExecution();

  // Stops new dumps, waits for running executions, writes everything queued and
  // returns the writer's report. Later calls return the same report. Records
  // dropped by the drop policy or the byte budget are reported beside the
  // files (kDroppedReportFileName) and in a warning on stderr; they are the
  // config's choice, not a failure.
  absl::Status Close();

  // An observer of model `model_id` (0: single operators) dropped `records`
  // (`bytes`) of iteration `iteration`.
  void CountDrops(uint32_t model_id, uint64_t iteration, uint64_t records,
                  uint64_t bytes);
  DropCounts DropsOf(uint32_t model_id) const;

 private:
  DumpSession() = default;
  // Writes the report of dropped records, if any (Close).
  void ReportDrops();
  DumpConfig config_;
  std::unique_ptr<const Payload> payload_;
  std::shared_ptr<const Baseline> baseline_;
  std::unique_ptr<CallbackFileSystem> fs_;  // outlives the writer
  std::unique_ptr<DumpWriter> writer_;
  std::atomic<bool> closed_{false};
  std::atomic<uint64_t> single_op_tasks_{0};
  std::atomic<int> active_executions_{0};
  std::mutex close_mutex_;
  std::condition_variable drained_;
  bool close_done_ = false;
  absl::Status close_status_;
  mutable std::mutex drops_mutex_;
  std::map<uint32_t, DropCounts> drops_;  // by model id
};

// Microseconds since the Unix epoch.
uint64_t NowMicros();

}  // namespace acldump::dump

#endif  // ACLDUMP_DUMP_SESSION_H_
