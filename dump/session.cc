#include "dump/session.h"

#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <system_error>

#include "base/error_kind.h"
#include "base/strings.h"
#include "base/status_macros.h"
#include "dump/baseline.h"
#include "dump/exception_env.h"
#include "dump/format/dump_names.h"

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
  close_status_ = writer_ ? writer_->Flush() : absl::OkStatus();
  close_done_ = true;
  return close_status_;
}

}  // namespace acldump::dump
