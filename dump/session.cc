#include "dump/session.h"

#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <system_error>

#include "base/error_kind.h"
#include "base/status_macros.h"
#include "base/strings.h"
#include "dump/baseline.h"
#include "dump/exception_env.h"
#include "dump/format/dump_names.h"
#include "nlohmann/json.hpp"

namespace acldump::dump {

SessionOptions SessionOptionsFromEnvironment() {
  SessionOptions options;
  if (const char* mb = std::getenv("ACLDUMP_WRITER_MEMORY_MB")) {
    const long value = std::atol(mb);
    if (value >= 1 && value <= (1L << 20))
      options.writer_memory_budget = size_t(value) << 20;
  }
  if (const char* sync = std::getenv("ACLDUMP_FSYNC"))
    options.sync_files = sync[0] == '1';
  return options;
}

uint64_t NowMicros() {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000u +
         static_cast<uint64_t>(ts.tv_nsec) / 1000u;
}

absl::StatusOr<std::shared_ptr<DumpSession>> DumpSession::Create(
    DumpConfig config, const SessionOptions& options) {
  std::shared_ptr<DumpSession> session(new DumpSession());
  DumpWriter::Options writer;
  writer.memory_budget = options.writer_memory_budget;
  writer.sync = options.sync_files;
  session->fs_ = std::make_unique<CallbackFileSystem>(
      options.fs != nullptr ? *options.fs : PosixFileSystem(),
      options.chunk_router != nullptr ? *options.chunk_router
                                      : GlobalChunkRouter());
  writer.fs = session->fs_.get();
  writer.packed = config.layout == DumpLayout::kPacked;
  writer.max_bytes = config.max_bytes;
  writer.keep_iterations = config.keep_iterations;
  if (config.scene == DumpScene::kException) {
    writer.root = options.exception_root;
    if (writer.root.empty()) {
      ExceptionEnvironment environment = ReadExceptionEnvironment();
      writer.root = ExceptionRoot(environment, config);
      for (std::string& warning : environment.warnings) {
        config.warnings.push_back(std::move(warning));
      }
    }
  } else {
    writer.root = config.dump_path_resolved;
  }
  while (writer.root.size() > 1 && writer.root.back() == '/')
    writer.root.pop_back();
  if (config.scene != DumpScene::kException) {
    // Fixed now, created with the first file.
    writer.time_base = DumpTimeFolderName(std::time(nullptr));
  }
  session->payload_ = config.payload().make(PayloadOptions{config.stats});
  if (!config.baseline.empty()) {
    ASSIGN_OR_RETURN(session->baseline_, Baseline::Load(config.baseline));
  }
  session->config_ = std::move(config);
  try {
    session->writer_ = std::make_unique<DumpWriter>(std::move(writer));
  } catch (const std::system_error& e) {
    // No thread can be started (process or memory limits).
    return WithKind(absl::ResourceExhaustedError(StrCat(
                        "cannot start the dump writer thread: ", e.what(),
                        "; raise the process's limits "
                        "(ulimit -u, ulimit -v)")),
                    ErrorKind::kOutOfMemory);
  }
  return session;
}

DumpSession::~DumpSession() { Close().IgnoreError(); }

bool DumpSession::EnterExecution() {
  active_executions_.fetch_add(1, std::memory_order_acq_rel);
  if (closed_.load(std::memory_order_acquire)) {
    ExitExecution();
    return false;
  }
  return true;
}

void DumpSession::ExitExecution() {
  if (active_executions_.fetch_sub(1, std::memory_order_acq_rel) == 1 &&
      closed_.load(std::memory_order_acquire)) {
    std::lock_guard<std::mutex> lock(close_mutex_);
    drained_.notify_all();
  }
}

absl::Status DumpSession::Close() {
  std::unique_lock<std::mutex> lock(close_mutex_);
  closed_.store(true, std::memory_order_release);
  if (close_done_) return close_status_;
  drained_.wait(lock, [&] {
    return active_executions_.load(std::memory_order_acquire) == 0;
  });
  if (writer_) ReportDrops();
  close_status_ = writer_ ? writer_->Flush() : absl::OkStatus();
  if (writer_) {
    const WriterStats stats = writer_->stats();
    if (stats.iteration_folder_removals_failed > 0) {
      std::fprintf(stderr,
                   "[acldump] warning: %s: dump_keep_iterations could not "
                   "remove %llu old iteration folders (first: %s); they "
                   "still take disk space: give the process write access "
                   "to them, or remove them by hand\n",
                   config_.source.c_str(),
                   static_cast<unsigned long long>(
                       stats.iteration_folder_removals_failed),
                   stats.retention_failure.c_str());
    }
  }
  close_done_ = true;
  return close_status_;
}

void DumpSession::CountDrops(uint32_t model_id, uint64_t iteration,
                             uint64_t records, uint64_t bytes) {
  std::lock_guard<std::mutex> lock(drops_mutex_);
  DropCounts& counts = drops_[model_id];
  if (counts.iterations == 0) counts.first_iteration = iteration;
  if (counts.iterations == 0 || iteration != counts.last_iteration) {
    ++counts.iterations;
  }
  counts.last_iteration = iteration;
  counts.records += records;
  counts.bytes += bytes;
}

DropCounts DumpSession::DropsOf(uint32_t model_id) const {
  std::lock_guard<std::mutex> lock(drops_mutex_);
  auto it = drops_.find(model_id);
  return it == drops_.end() ? DropCounts() : it->second;
}

void DumpSession::ReportDrops() {
  const WriterStats stats = writer_->stats();
  const uint64_t records =
      stats.records_dropped_late + stats.records_dropped_over_budget;
  if (records == 0) return;
  nlohmann::ordered_json models = nlohmann::ordered_json::object();
  {
    std::lock_guard<std::mutex> lock(drops_mutex_);
    for (const auto& [id, counts] : drops_) {
      models[std::to_string(id)] = {{"records", counts.records},
                                    {"bytes", counts.bytes},
                                    {"iterations", counts.iterations},
                                    {"first_iteration", counts.first_iteration},
                                    {"last_iteration", counts.last_iteration}};
    }
  }
  nlohmann::ordered_json report = {
      {"config", config_.source},
      {"records_dropped", records},
      {"bytes_dropped", stats.bytes_dropped},
      {"late", stats.records_dropped_late},
      {"over_byte_budget", stats.records_dropped_over_budget},
      {"dump_backpressure", config_.drop_when_behind ? "drop" : "wait"},
      {"dump_wait_budget_us", config_.wait_budget_us},
      {"dump_max_bytes", config_.max_bytes},
      {"by_model", models}};
  const std::string text =
      report.dump(2, ' ', false,
                  nlohmann::ordered_json::error_handler_t::replace) +
      "\n";
  std::fprintf(
      stderr,
      "[acldump] warning: %s: %llu dump records (%llu bytes) were "
      "dropped: %llu the writer could not take within the wait "
      "budget, %llu beyond dump_max_bytes; see %s in %s\n",
      config_.source.c_str(), static_cast<unsigned long long>(records),
      static_cast<unsigned long long>(stats.bytes_dropped),
      static_cast<unsigned long long>(stats.records_dropped_late),
      static_cast<unsigned long long>(stats.records_dropped_over_budget),
      std::string(kDroppedReportFileName).c_str(), writer_->root().c_str());
  writer_->Submit(MakeReportJob(
      *writer_,
      std::make_shared<ReportFileRenderer>(
          "", std::string(kDroppedReportFileName), /*per_iteration=*/false),
      text, /*iteration=*/0));
}

}  // namespace acldump::dump
