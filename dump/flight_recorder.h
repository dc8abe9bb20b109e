// A flight recorder for a loaded model (an acldump extension): a bounded ring,
// in memory, of its last N executions (their inputs, the checksums and
// non-finite counts of their outputs and, optionally, the statistics of every
// operator output). A trigger (a NaN or infinity in an output, or in any
// operator output when those are recorded; a failed execution; a call;
// SIGUSR2) freezes the ring and hands it to a background thread, which
// writes it out and replays the triggering execution from its saved inputs
// with a dump (see DumpManager). Executions are bit-identical, so a replay
// that reproduces the recorded outputs proves its dump is of that execution.
#ifndef ACLDUMP_DUMP_FLIGHT_RECORDER_H_
#define ACLDUMP_DUMP_FLIGHT_RECORDER_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "dump/format/stat_columns.h"
#include "dump/observers.h"
#include "runtime/compiled_model.h"

namespace acldump::dump {

struct RecorderOptions {
  uint32_t executions = 8;  // the ring's size, 1..kMaxRecorderExecutions
  // Statistics of every operator output in the ring; a NaN or infinity in
  // any of them triggers (with trigger_non_finite).
  bool operator_stats = false;
  bool trigger_non_finite = true;  // in an output (or operator output)
  bool trigger_error = true;       // a failed execution
  bool trigger_signal = false;     // SIGUSR2
  // Reports the automatic triggers may write (calls and signals, asked for
  // by a person, are not limited);
  // later triggers are counted, not written.
  uint32_t max_reports = 16;
};

inline constexpr uint32_t kMaxRecorderExecutions = 1024;

enum class TriggerKind {
  kNonFiniteOutput,
  kNonFiniteOperator,
  kExecutionError,
  kCall,
  kSignal,
};
// "non_finite_output", "non_finite_operator", "execution_error", "call",
// "signal".
std::string_view TriggerKindName(TriggerKind kind);

struct Trigger {
  TriggerKind kind = TriggerKind::kCall;
  uint64_t iteration = 0;  // the execution to replay
  std::string detail;      // what was found, or the caller's reason
};

// One operator output's statistics in a recorded execution.
struct OperatorOutputStats {
  uint32_t task = 0;
  uint32_t output = 0;
  TensorInfo info;
  TensorStats stats;
  bool ran = false;  // false: a failure stopped the execution before it
};

// One recorded execution.
struct RecordedExecution {
  uint64_t iteration = 0;
  size_t plan = 0;  // the gear of a dynamic model
  std::string request_tag;
  int64_t time_us = 0;  // when it began (microseconds since the epoch)
  absl::Status status;  // how it ended
  std::vector<std::vector<std::byte>> inputs;
  std::vector<size_t> output_sizes;  // the caller's buffers
  std::vector<TensorInfo> output_infos;
  std::vector<TensorStats> output_stats;  // with checksums
  std::vector<OperatorOutputStats> operators;
};

// A ring handed over by a trigger: oldest execution first.
struct FrozenRing {
  Trigger trigger;
  std::vector<RecordedExecution> executions;
  uint64_t skipped_triggers = 0;  // since the previous report
};

// What a report wrote and found.
struct RecorderReport {
  std::string directory;  // holds recorder.json
  Trigger trigger;
  bool replayed = false;
  bool reproduced = false;
  std::string replay_detail;
};

struct RecorderCounts {
  uint64_t recorded = 0;  // executions recorded
  uint64_t triggers = 0;  // triggers seen (calls included)
  uint64_t reports = 0;   // reports written
  uint64_t reproduced = 0;
  uint64_t skipped = 0;  // triggers not written (one under way, limit)
};

class FlightRecorder {
 public:
  // Writes one report; runs on the recorder's thread (or a caller's).
  using Reporter = std::function<absl::StatusOr<RecorderReport>(FrozenRing)>;

  FlightRecorder(uint32_t model_id, RecorderOptions options, Reporter reporter);
  ~FlightRecorder();  // Stop()

  const RecorderOptions& options() const { return options_; }
  uint32_t model_id() const { return model_id_; }

  // A call: freezes the ring, writes the report on the calling thread and
  // returns it. kInvalidParam when nothing was recorded since the recorder
  // started or since its last report.
  absl::StatusOr<RecorderReport> TriggerNow(TriggerKind kind,
                                            std::string detail);
  // Waits until the automatic triggers seen so far are written (no later than
  // `deadline`: DeadlineExceeded then) and returns the first failure among
  // their reports since the previous call.
  absl::Status WaitIdle(
      std::optional<std::chrono::steady_clock::time_point> deadline);
  // Ends the background thread after the reports under way; returns the
  // first report failure not yet returned. Recording stops.
  absl::Status Stop();

  // A signal: as a call, written on the recorder's thread; skipped (and
  // counted) when nothing was recorded or a report is under way.
  void TriggerInBackground(TriggerKind kind, std::string detail);

  RecorderCounts counts() const;
  std::optional<RecorderReport> last_report() const;

  // An observer's execution enters the ring (the oldest one's memory comes
  // back in `execution`, for reuse); with a trigger, the ring is frozen and
  // queued for a report.
  void Commit(RecordedExecution& execution, std::optional<Trigger> trigger);
  // Whether an automatic trigger now would be written (none under way, the
  // limit not reached): an observer builds a trigger's text only then, so a
  // problem that persists costs no allocation per execution.
  bool accepting() const { return accepting_.load(std::memory_order_relaxed); }

 private:
  // Takes the ring (oldest first) with the trigger; the ring starts over.
  FrozenRing FreezeLocked(Trigger trigger);
  void Run();
  void Record(absl::StatusOr<RecorderReport> report);
  // reporter_, turning an escaping exception into a failure.
  absl::StatusOr<RecorderReport> Report(FrozenRing ring);
  void UpdateAcceptingLocked();

  const uint32_t model_id_;
  const RecorderOptions options_;
  const Reporter reporter_;

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<RecordedExecution> ring_;
  size_t next_ = 0;          // the slot the next execution takes
  size_t filled_ = 0;        // slots holding executions since the last freeze
  std::mutex report_mutex_;  // one report at a time
  std::deque<FrozenRing> pending_;
  bool reporting_ = false;  // the thread writes a report
  bool stopping_ = false;
  uint64_t automatic_reports_ = 0;
  uint64_t skipped_since_report_ = 0;
  RecorderCounts counts_;
  std::optional<RecorderReport> last_report_;
  absl::Status failure_;  // first report failure not yet returned
  std::atomic<bool> accepting_{true};
  std::thread thread_;
};

// The observer (and step flags) of plan `plan` of `model`: records each
// execution into `recorder`, and passes everything on to `inner` (what else
// observes the model). Executions run with kReplayRequestTag are not recorded.
Attachment MakeRecorderAttachment(Attachment inner,
                                  std::shared_ptr<FlightRecorder> recorder,
                                  size_t plan, const CompiledModel& model);

// The request tag of a replay: no request of a caller can carry it (a tag
// must be printable ASCII), so only the replay claims the replay's arm.
inline constexpr std::string_view kReplayRequestTag = "\x01recorder-replay";

}  // namespace acldump::dump

#endif  // ACLDUMP_DUMP_FLIGHT_RECORDER_H_
