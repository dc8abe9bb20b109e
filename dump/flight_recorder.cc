#include "dump/flight_recorder.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <utility>

#include "base/error_kind.h"
#include "base/strings.h"
#include "dump/stats.h"
#include "runtime/request_tag.h"

namespace acldump::dump {

std::string_view TriggerKindName(TriggerKind kind) {
  switch (kind) {
    case TriggerKind::kNonFiniteOutput:
      return "non_finite_output";
    case TriggerKind::kNonFiniteOperator:
      return "non_finite_operator";
    case TriggerKind::kExecutionError:
      return "execution_error";
    case TriggerKind::kCall:
      return "call";
    case TriggerKind::kSignal:
      return "signal";
  }
  return "";
}

FlightRecorder::FlightRecorder(uint32_t model_id, RecorderOptions options,
                               Reporter reporter)
    : model_id_(model_id),
      options_(options),
      reporter_(std::move(reporter)),
      ring_(std::max<uint32_t>(options.executions, 1)) {
  thread_ = std::thread([this] { Run(); });
}

FlightRecorder::~FlightRecorder() { Stop().IgnoreError(); }

FrozenRing FlightRecorder::FreezeLocked(Trigger trigger) {
  FrozenRing frozen;
  frozen.trigger = std::move(trigger);
  frozen.skipped_triggers = skipped_since_report_;
  skipped_since_report_ = 0;
  const size_t size = ring_.size();
  for (size_t k = 0; k < filled_; ++k) {
    frozen.executions.push_back(
        std::move(ring_[(next_ + size - filled_ + k) % size]));
  }
  ring_.assign(size, RecordedExecution{});
  next_ = 0;
  filled_ = 0;
  return frozen;
}

void FlightRecorder::Commit(RecordedExecution& execution,
                            std::optional<Trigger> trigger) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (stopping_) return;
  std::swap(ring_[next_], execution);
  next_ = (next_ + 1) % ring_.size();
  filled_ = std::min(filled_ + 1, ring_.size());
  ++counts_.recorded;
  if (!trigger) return;
  ++counts_.triggers;
  // A problem that persists triggers every execution: one report at a time,
  // and no more than the limit.
  if (reporting_ || !pending_.empty() ||
      automatic_reports_ >= options_.max_reports) {
    ++counts_.skipped;
    ++skipped_since_report_;
    return;
  }
  ++automatic_reports_;
  pending_.push_back(FreezeLocked(std::move(*trigger)));
  UpdateAcceptingLocked();
  changed_.notify_all();
}

void FlightRecorder::UpdateAcceptingLocked() {
  accepting_.store(!stopping_ && !reporting_ && pending_.empty() &&
                       automatic_reports_ < options_.max_reports,
                   std::memory_order_relaxed);
}

absl::StatusOr<RecorderReport> FlightRecorder::Report(FrozenRing ring) {
  std::lock_guard<std::mutex> serial(report_mutex_);
  try {
    return reporter_(std::move(ring));
  } catch (const std::exception& e) {
    return absl::InternalError(
        StrCat("the recorder of model ", model_id_,
               " could not write its report: ", e.what()));
  }
}

absl::StatusOr<RecorderReport> FlightRecorder::TriggerNow(TriggerKind kind,
                                                          std::string detail) {
  FrozenRing frozen;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_) {
      return KindError(ErrorKind::kInvalidParam,
                       StrCat("the recorder of model ", model_id_,
                              " was stopped; start it again"));
    }
    ++counts_.triggers;
    if (filled_ == 0) {
      ++counts_.skipped;
      return KindError(
          ErrorKind::kInvalidParam,
          StrCat("the recorder of model ", model_id_,
                 " holds no execution (none ran since it started or since "
                 "its last report); execute the model first"));
    }
    const size_t newest = (next_ + ring_.size() - 1) % ring_.size();
    frozen = FreezeLocked(Trigger{kind, ring_[newest].iteration, detail});
  }
  absl::StatusOr<RecorderReport> report = Report(std::move(frozen));
  std::lock_guard<std::mutex> lock(mutex_);
  if (report.ok()) {
    ++counts_.reports;
    if (report->reproduced) ++counts_.reproduced;
    last_report_ = *report;
  }
  return report;
}

void FlightRecorder::TriggerInBackground(TriggerKind kind, std::string detail) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (stopping_) return;
  ++counts_.triggers;
  if (filled_ == 0 || reporting_ || !pending_.empty()) {
    ++counts_.skipped;
    ++skipped_since_report_;
    return;
  }
  const size_t newest = (next_ + ring_.size() - 1) % ring_.size();
  pending_.push_back(
      FreezeLocked(Trigger{kind, ring_[newest].iteration, std::move(detail)}));
  UpdateAcceptingLocked();
  changed_.notify_all();
}

void FlightRecorder::Record(absl::StatusOr<RecorderReport> report) {
  if (report.ok()) {
    ++counts_.reports;
    if (report->reproduced) ++counts_.reproduced;
    last_report_ = std::move(*report);
  } else {
    // Every failure is told; the first is also returned by WaitIdle.
    std::fprintf(stderr, "[acldump] warning: %s\n",
                 std::string(report.status().message()).c_str());
    if (failure_.ok()) failure_ = report.status();
  }
}

void FlightRecorder::Run() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    changed_.wait(lock, [&] { return stopping_ || !pending_.empty(); });
    if (pending_.empty()) break;  // stopping, nothing left
    FrozenRing frozen = std::move(pending_.front());
    pending_.pop_front();
    reporting_ = true;
    UpdateAcceptingLocked();
    lock.unlock();
    absl::StatusOr<RecorderReport> report = Report(std::move(frozen));
    lock.lock();
    Record(std::move(report));
    reporting_ = false;
    UpdateAcceptingLocked();
    changed_.notify_all();
  }
}

absl::Status FlightRecorder::WaitIdle(
    std::optional<std::chrono::steady_clock::time_point> deadline) {
  std::unique_lock<std::mutex> lock(mutex_);
  auto idle = [&] { return pending_.empty() && !reporting_; };
  if (deadline) {
    if (!changed_.wait_until(lock, *deadline, idle)) {
      return absl::DeadlineExceededError(
          StrCat("the recorder of model ", model_id_,
                 " is still writing a report; wait longer, or check the "
                 "dump_path's disk"));
    }
  } else {
    changed_.wait(lock, idle);
  }
  return std::exchange(failure_, absl::OkStatus());
}

absl::Status FlightRecorder::Stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
    UpdateAcceptingLocked();
    changed_.notify_all();
  }
  // Whoever stops a recorder holds a reference to it: a report's last
  // reference to the model never ends the recorder on its own thread.
  if (thread_.joinable()) thread_.join();
  // A call's report, written on its caller's thread, ends too.
  { std::lock_guard<std::mutex> serial(report_mutex_); }
  std::lock_guard<std::mutex> lock(mutex_);
  return std::exchange(failure_, absl::OkStatus());
}

RecorderCounts FlightRecorder::counts() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return counts_;
}

std::optional<RecorderReport> FlightRecorder::last_report() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return last_report_;
}

namespace {

bool IsFinite(const TensorStats& stats) {
  return stats.nan == 0 && stats.negative_inf == 0 && stats.positive_inf == 0;
}

std::string NonFiniteText(const TensorStats& stats) {
  return StrCat(stats.nan, " NaN, ", stats.negative_inf, " -Inf and ",
                stats.positive_inf, " +Inf");
}

int64_t NowUs() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

class RecorderObserver final : public ExecutionObserver {
 public:
  RecorderObserver(Attachment inner, std::shared_ptr<FlightRecorder> recorder,
                   size_t plan, const CompiledModel& model)
      : inner_(std::move(inner)),
        recorder_(std::move(recorder)),
        plan_(plan),
        model_(model) {
    const std::vector<StepInfo>& steps = model.steps();
    if (recorder_->options().operator_stats) {
      first_operator_.assign(steps.size() + 1, 0);
      for (size_t task = 0; task < steps.size(); ++task) {
        first_operator_[task] = operators_.size();
        if (steps[task].dynamic) continue;
        for (size_t j = 0; j < steps[task].output_infos.size(); ++j) {
          if (!steps[task].output_infos[j].present()) continue;
          operators_.push_back(OperatorOutputStats{
              static_cast<uint32_t>(task), static_cast<uint32_t>(j),
              steps[task].output_infos[j], TensorStats{}});
        }
      }
      first_operator_[steps.size()] = operators_.size();
    }
  }

  bool BeginIteration(uint64_t iteration) override {
    recording_ = !CurrentRequestTag().starts_with(kReplayRequestTag);
    inner_observed_ = inner_.observer != nullptr &&
                      inner_.observer->BeginIteration(iteration);
    operators_on_ = recording_ && !operators_.empty();
    if (recording_) {
      execution_.iteration = iteration;
      execution_.plan = plan_;
      execution_.request_tag.assign(CurrentRequestTag());
      execution_.time_us = NowUs();
      // The steps a failure stops before are marked as not run.
      execution_.operators.resize(operators_.size());
      for (size_t k = 0; k < operators_.size(); ++k) {
        execution_.operators[k].task = operators_[k].task;
        execution_.operators[k].output = operators_[k].output;
        execution_.operators[k].ran = false;
      }
      non_finite_operator_ = SIZE_MAX;
    }
    return inner_observed_ || operators_on_;
  }

  void OnModelInputs(uint64_t iteration,
                     std::span<const HostBuffer> inputs) override {
    if (inner_.observer != nullptr) {
      inner_.observer->OnModelInputs(iteration, inputs);
    }
    if (!recording_) return;
    execution_.inputs.resize(inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i) {
      execution_.inputs[i].resize(inputs[i].size);
      if (inputs[i].size > 0) {
        std::memcpy(execution_.inputs[i].data(), inputs[i].data,
                    inputs[i].size);
      }
    }
  }

  void BeforeNode(const NodeEvent& event) override {
    if (InnerWants(event, kObserveBefore)) inner_.observer->BeforeNode(event);
  }

  void AfterNode(const NodeEvent& event) override {
    if (InnerWants(event, kObserveAfter)) inner_.observer->AfterNode(event);
    if (!operators_on_ || event.step.dynamic ||
        event.step.task_id + 1 >= first_operator_.size()) {
      return;
    }
    const size_t task = event.step.task_id;
    for (size_t k = first_operator_[task]; k < first_operator_[task + 1]; ++k) {
      const size_t j = operators_[k].output;
      OperatorOutputStats& out = execution_.operators[k];
      if (j >= event.outputs.size()) continue;
      // Assigned in place: the shape's memory is reused.
      out.info.dtype = event.outputs[j].dtype;
      out.info.shape = event.outputs[j].shape;
      out.stats = ComputeStats(event.outputs[j]);
      out.ran = true;
      if (non_finite_operator_ == SIZE_MAX && !IsFinite(out.stats)) {
        non_finite_operator_ = k;
      }
    }
  }

  void OnNodeFailure(const NodeEvent& event,
                     const absl::Status& status) override {
    if (inner_.observer != nullptr) {
      inner_.observer->OnNodeFailure(event, status);
    }
  }

  bool ObservesDynamicSteps() const override {
    return inner_observed_ && inner_.observer->ObservesDynamicSteps();
  }

  void OnModelOutputs(uint64_t iteration,
                      std::span<const MutableHostBuffer> outputs,
                      std::span<const TensorInfo> infos,
                      const absl::Status& status) override {
    if (inner_.observer != nullptr) {
      inner_.observer->OnModelOutputs(iteration, outputs, infos, status);
    }
    if (!recording_) return;
    execution_.status = status;
    execution_.output_sizes.resize(outputs.size());
    execution_.output_infos.resize(outputs.size());
    execution_.output_stats.assign(outputs.size(), TensorStats{});
    size_t non_finite_output = SIZE_MAX;
    for (size_t k = 0; k < outputs.size(); ++k) {
      execution_.output_sizes[k] = outputs[k].size;
      execution_.output_infos[k] = k < infos.size() ? infos[k] : TensorInfo{};
      const TensorInfo& info = execution_.output_infos[k];
      if (!status.ok() || !info.present() ||
          info.ByteSize() > outputs[k].size) {
        continue;
      }
      TensorView view{info.dtype, info.shape, outputs[k].data};
      execution_.output_stats[k] = ComputeStats(view, /*checksum=*/true);
      if (non_finite_output == SIZE_MAX &&
          !IsFinite(execution_.output_stats[k])) {
        non_finite_output = k;
      }
    }
    std::optional<Trigger> trigger = Check(iteration, non_finite_output);
    recorder_->Commit(execution_, std::move(trigger));
    recording_ = false;
  }

  absl::Status EndIteration(uint64_t iteration) override {
    if (inner_.observer == nullptr) return absl::OkStatus();
    return inner_.observer->EndIteration(iteration);
  }

 private:
  bool InnerWants(const NodeEvent& event, uint8_t bit) const {
    if (!inner_observed_) return false;
    const std::vector<uint8_t>& flags = inner_.step_flags;
    return event.step.task_id < flags.size() &&
           (flags[event.step.task_id] & bit) != 0;
  }

  // What this execution triggers, if anything: a failure first, then the
  // first non-finite operator output in execution order, then an output.
  // Without text when the recorder would not write it (it is only counted).
  std::optional<Trigger> Check(uint64_t iteration, size_t non_finite_output) {
    const RecorderOptions& options = recorder_->options();
    const bool accepting = recorder_->accepting();
    if (!execution_.status.ok()) {
      if (!options.trigger_error) return std::nullopt;
      if (!accepting) return Trigger{TriggerKind::kExecutionError, iteration};
      return Trigger{TriggerKind::kExecutionError, iteration,
                     std::string(execution_.status.message())};
    }
    if (!options.trigger_non_finite) return std::nullopt;
    if (non_finite_operator_ != SIZE_MAX) {
      if (!accepting)
        return Trigger{TriggerKind::kNonFiniteOperator, iteration};
      const OperatorOutputStats& op =
          execution_.operators[non_finite_operator_];
      const StepInfo& step = model_.steps()[op.task];
      const std::string value = op.output < step.output_names.size()
                                    ? step.output_names[op.output]
                                    : std::string();
      return Trigger{
          TriggerKind::kNonFiniteOperator, iteration,
          StrCat("operator '", step.name, "' (", step.op_type, ") output ",
                 op.output, " ('", value, "', ", op.info.ToString(), ") holds ",
                 NonFiniteText(op.stats))};
    }
    if (non_finite_output != SIZE_MAX) {
      if (!accepting) return Trigger{TriggerKind::kNonFiniteOutput, iteration};
      const auto& declared = model_.graph().outputs;
      const std::string name = non_finite_output < declared.size()
                                   ? declared[non_finite_output].name
                                   : std::string();
      return Trigger{
          TriggerKind::kNonFiniteOutput, iteration,
          StrCat("output ", non_finite_output, " ('", name, "', ",
                 execution_.output_infos[non_finite_output].ToString(),
                 ") holds ",
                 NonFiniteText(execution_.output_stats[non_finite_output]))};
    }
    return std::nullopt;
  }

  Attachment inner_;
  const std::shared_ptr<FlightRecorder> recorder_;
  const size_t plan_;
  const CompiledModel& model_;
  // Per recorded operator output, in execution order; first_operator_[task]
  // is the first of step `task`'s.
  std::vector<OperatorOutputStats> operators_;
  std::vector<size_t> first_operator_;

  // The execution under way (executions of one plan are serialised).
  bool recording_ = false;
  bool inner_observed_ = false;
  bool operators_on_ = false;
  size_t non_finite_operator_ = SIZE_MAX;
  RecordedExecution execution_;
};

}  // namespace

Attachment MakeRecorderAttachment(Attachment inner,
                                  std::shared_ptr<FlightRecorder> recorder,
                                  size_t plan, const CompiledModel& model) {
  const std::vector<StepInfo>& steps = model.steps();
  std::vector<uint8_t> flags(steps.size(), kObserveNothing);
  if (inner.observer != nullptr) {
    for (size_t s = 0; s < std::min(flags.size(), inner.step_flags.size());
         ++s) {
      flags[s] = inner.step_flags[s];
    }
  }
  if (recorder->options().operator_stats) {
    for (size_t s = 0; s < steps.size(); ++s) {
      if (!steps[s].dynamic && !steps[s].output_infos.empty()) {
        flags[s] |= kObserveAfter;
      }
    }
  }
  auto observer = std::make_shared<RecorderObserver>(
      std::move(inner), std::move(recorder), plan, model);
  return Attachment{std::move(observer), std::move(flags)};
}

}  // namespace acldump::dump
