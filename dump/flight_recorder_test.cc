// The flight recorder's ring and triggers, without a model: what a frozen ring
// holds, how many reports automatic triggers may write, and what is counted.
#include "dump/flight_recorder.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <vector>

namespace acldump::dump {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// What the reporter was handed, report by report.
struct Reports {
  std::mutex mutex;
  std::vector<FrozenRing> rings;
  bool reproduce = true;

  FlightRecorder::Reporter Reporter() {
    return [this](FrozenRing ring) -> absl::StatusOr<RecorderReport> {
      std::lock_guard<std::mutex> lock(mutex);
      RecorderReport report;
      report.trigger = ring.trigger;
      report.directory = "report_" + std::to_string(rings.size());
      report.reproduced = reproduce;
      rings.push_back(std::move(ring));
      return report;
    };
  }
  std::vector<uint64_t> Iterations(size_t report) {
    std::lock_guard<std::mutex> lock(mutex);
    std::vector<uint64_t> out;
    for (const auto& e : rings[report].executions) out.push_back(e.iteration);
    return out;
  }
};

RecordedExecution Execution(uint64_t iteration) {
  RecordedExecution execution;
  execution.iteration = iteration;
  execution.inputs = {std::vector<std::byte>(16, std::byte{1})};
  return execution;
}

Trigger NonFinite(uint64_t iteration) {
  return Trigger{TriggerKind::kNonFiniteOutput, iteration, "output 0 holds"};
}

TEST(FlightRecorderTest, FrozenRingHoldsTheLastExecutionsOldestFirst) {
  Reports reports;
  FlightRecorder recorder(7, RecorderOptions{.executions = 3},
                          reports.Reporter());
  for (uint64_t i = 0; i < 5; ++i) {
    RecordedExecution execution = Execution(i);
    recorder.Commit(execution, std::nullopt);
  }
  RecordedExecution last = Execution(5);
  recorder.Commit(last, NonFinite(5));
  ASSERT_TRUE(recorder.WaitIdle(std::nullopt).ok());
  ASSERT_EQ(reports.rings.size(), 1u);
  EXPECT_THAT(reports.Iterations(0), ElementsAre(3, 4, 5));
  EXPECT_EQ(reports.rings[0].trigger.iteration, 5u);
  const RecorderCounts counts = recorder.counts();
  EXPECT_EQ(counts.recorded, 6u);
  EXPECT_EQ(counts.triggers, 1u);
  EXPECT_EQ(counts.reports, 1u);
  EXPECT_EQ(counts.reproduced, 1u);
  ASSERT_TRUE(recorder.last_report().has_value());
  EXPECT_EQ(recorder.last_report()->directory, "report_0");
  // The ring starts over: a call now has nothing to replay.
  absl::StatusOr<RecorderReport> call =
      recorder.TriggerNow(TriggerKind::kCall, "why");
  EXPECT_FALSE(call.ok());
  EXPECT_THAT(call.status().message(), HasSubstr("holds no execution"));
  RecordedExecution next = Execution(6);
  recorder.Commit(next, std::nullopt);
  call = recorder.TriggerNow(TriggerKind::kCall, "why");
  ASSERT_TRUE(call.ok()) << call.status();
  EXPECT_EQ(call->trigger.kind, TriggerKind::kCall);
  EXPECT_EQ(call->trigger.iteration, 6u);
  EXPECT_EQ(call->trigger.detail, "why");
  EXPECT_THAT(reports.Iterations(1), ElementsAre(6));
  EXPECT_EQ(recorder.counts().skipped, 1u);
}

// A commit hands back the memory of the execution it displaced, so a full
// ring records without allocating.
TEST(FlightRecorderTest, CommitReturnsTheDisplacedExecutionsMemory) {
  Reports reports;
  FlightRecorder recorder(1, RecorderOptions{.executions = 2},
                          reports.Reporter());
  RecordedExecution a = Execution(0), b = Execution(1), c = Execution(2);
  const std::byte* a_input = a.inputs[0].data();
  recorder.Commit(a, std::nullopt);
  recorder.Commit(b, std::nullopt);
  recorder.Commit(c, std::nullopt);  // displaces iteration 0
  ASSERT_EQ(c.inputs.size(), 1u);
  EXPECT_EQ(c.inputs[0].data(), a_input);
  EXPECT_EQ(c.iteration, 0u);
}

// A problem that persists triggers on every execution: one report at a time,
// at most max_reports of them; the rest are counted.
TEST(FlightRecorderTest, AutomaticReportsAreLimitedAndCounted) {
  std::mutex gate_mutex;
  std::condition_variable gate_changed;
  bool open = false;
  std::atomic<int> written{0};
  FlightRecorder recorder(
      1, RecorderOptions{.executions = 4, .max_reports = 2},
      [&](FrozenRing ring) -> absl::StatusOr<RecorderReport> {
        std::unique_lock<std::mutex> lock(gate_mutex);
        gate_changed.wait(lock, [&] { return open; });
        ++written;
        RecorderReport report;
        report.trigger = ring.trigger;
        return report;
      });
  RecordedExecution e0 = Execution(0);
  recorder.Commit(e0, NonFinite(0));  // queued; its report waits at the gate
  for (uint64_t i = 1; i < 4; ++i) {
    RecordedExecution e = Execution(i);
    recorder.Commit(e, NonFinite(i));  // one under way: skipped
  }
  EXPECT_EQ(recorder
                .WaitIdle(std::chrono::steady_clock::now() +
                          std::chrono::milliseconds(20))
                .code(),
            absl::StatusCode::kDeadlineExceeded);
  {
    std::lock_guard<std::mutex> lock(gate_mutex);
    open = true;
  }
  gate_changed.notify_all();
  ASSERT_TRUE(recorder.WaitIdle(std::nullopt).ok());
  for (uint64_t i = 4; i < 8; ++i) {
    RecordedExecution e = Execution(i);
    recorder.Commit(e, NonFinite(i));
    ASSERT_TRUE(recorder.WaitIdle(std::nullopt).ok());
  }
  EXPECT_EQ(written.load(), 2);
  const RecorderCounts counts = recorder.counts();
  EXPECT_EQ(counts.recorded, 8u);
  EXPECT_EQ(counts.triggers, 8u);
  EXPECT_EQ(counts.reports, 2u);
  EXPECT_EQ(counts.skipped, 6u);
  // Calls are not limited.
  RecordedExecution e8 = Execution(8);
  recorder.Commit(e8, std::nullopt);
  EXPECT_TRUE(recorder.TriggerNow(TriggerKind::kCall, "").ok());
  EXPECT_EQ(recorder.counts().reports, 3u);
}

TEST(FlightRecorderTest, FailedReportsAreReturnedOnceAndStopEndsRecording) {
  FlightRecorder recorder(1, RecorderOptions{.executions = 1},
                          [](FrozenRing) -> absl::StatusOr<RecorderReport> {
                            return absl::DataLossError("disk full");
                          });
  RecordedExecution e = Execution(0);
  recorder.Commit(e, NonFinite(0));
  absl::Status waited = recorder.WaitIdle(std::nullopt);
  EXPECT_EQ(waited.code(), absl::StatusCode::kDataLoss);
  EXPECT_TRUE(recorder.WaitIdle(std::nullopt).ok());
  EXPECT_EQ(recorder.counts().reports, 0u);
  EXPECT_TRUE(recorder.Stop().ok());
  RecordedExecution after = Execution(1);
  recorder.Commit(after, NonFinite(1));
  EXPECT_EQ(recorder.counts().recorded, 1u);
  EXPECT_FALSE(recorder.TriggerNow(TriggerKind::kCall, "").ok());
}

TEST(FlightRecorderTest, SignalTriggerReplaysTheNewestOrIsSkipped) {
  Reports reports;
  FlightRecorder recorder(1, RecorderOptions{.executions = 2},
                          reports.Reporter());
  recorder.TriggerInBackground(TriggerKind::kSignal, "SIGUSR2");
  EXPECT_EQ(recorder.counts().skipped, 1u);  // nothing recorded yet
  RecordedExecution e = Execution(41);
  recorder.Commit(e, std::nullopt);
  recorder.TriggerInBackground(TriggerKind::kSignal, "SIGUSR2");
  ASSERT_TRUE(recorder.WaitIdle(std::nullopt).ok());
  ASSERT_EQ(reports.rings.size(), 1u);
  EXPECT_EQ(reports.rings[0].trigger.kind, TriggerKind::kSignal);
  EXPECT_EQ(reports.rings[0].trigger.iteration, 41u);
  EXPECT_EQ(reports.rings[0].skipped_triggers, 1u);
  EXPECT_EQ(TriggerKindName(TriggerKind::kSignal), "signal");
}

}  // namespace
}  // namespace acldump::dump
