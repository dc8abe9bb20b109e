#include "dump/armed_dump.h"

#include <algorithm>
#include <cstring>

#include "base/strings.h"
#include "nlohmann/json.hpp"
#include "runtime/request_tag.h"

namespace acldump::dump {

DumpArm::DumpArm(std::string tag, uint64_t executions,
                 std::shared_ptr<DumpSession> session)
    : tag_(std::move(tag)),
      executions_(executions),
      session_(std::move(session)) {}

bool DumpArm::Take() {
  uint64_t taken = taken_.load(std::memory_order_relaxed);
  do {
    if (executions_ != 0 && taken >= executions_) return false;
  } while (!taken_.compare_exchange_weak(taken, taken + 1,
                                         std::memory_order_acq_rel));
  return true;
}

uint64_t DumpArm::remaining() const {
  return executions_ == 0 ? UINT64_MAX : executions_ - taken();
}

namespace {

class ArmedObserver final : public ExecutionObserver {
 public:
  ArmedObserver(Attachment base, std::vector<std::shared_ptr<DumpArm>> arms,
                size_t plan, uint32_t model_id)
      : base_(std::move(base)),
        arms_(std::move(arms)),
        plan_(plan),
        model_id_(model_id) {
    for (const auto& arm : arms_) {
      renderers_.push_back(std::make_shared<ReportFileRenderer>(
          arm->directory, std::string(kRequestFileName),
          /*per_iteration=*/true));
    }
  }

  bool BeginIteration(uint64_t iteration) override {
    const std::string_view tag = CurrentRequestTag();
    arm_ = SIZE_MAX;
    if (!tag.empty()) arm_ = Claim(tag);
    if (arm_ == SIZE_MAX) arm_ = Claim("");
    active_ = arm_ == SIZE_MAX ? &base_ : &arms_[arm_]->plans[plan_];
    if (active_->observer == nullptr) {
      active_ = nullptr;
      return false;
    }
    observed_ = active_->observer->BeginIteration(iteration);
    if (observed_ && arm_ != SIZE_MAX) {
      tag_.assign(tag);
      arms_[arm_]->set_last_iteration(iteration);
    }
    return observed_;
  }

  void BeforeNode(const NodeEvent& event) override {
    if (Wants(event, kObserveBefore)) active_->observer->BeforeNode(event);
  }
  void AfterNode(const NodeEvent& event) override {
    if (Wants(event, kObserveAfter)) active_->observer->AfterNode(event);
  }
  void OnNodeFailure(const NodeEvent& event,
                     const absl::Status& status) override {
    if (active_ != nullptr) active_->observer->OnNodeFailure(event, status);
  }
  bool ObservesDynamicSteps() const override {
    return active_ != nullptr && active_->observer->ObservesDynamicSteps();
  }

  absl::Status EndIteration(uint64_t iteration) override {
    if (active_ == nullptr) return absl::OkStatus();
    // Inside the session's execution bracket still: the file is part of what
    // closing the arm flushes.
    if (observed_ && arm_ != SIZE_MAX) WriteRequestFile(iteration);
    Attachment* active = active_;
    active_ = nullptr;
    observed_ = false;
    return active->observer->EndIteration(iteration);
  }

 private:
  // The first arm for `tag` with executions left, claiming one; SIZE_MAX for
  // none.
  size_t Claim(std::string_view tag) {
    for (size_t i = 0; i < arms_.size(); ++i) {
      if (arms_[i]->tag() == tag && arms_[i]->Take()) return i;
    }
    return SIZE_MAX;
  }

  bool Wants(const NodeEvent& event, uint8_t bit) const {
    if (active_ == nullptr) return false;
    const std::vector<uint8_t>& flags = active_->step_flags;
    return event.step.task_id < flags.size() &&
           (flags[event.step.task_id] & bit) != 0;
  }

  void WriteRequestFile(uint64_t iteration) {
    const DumpArm& arm = *arms_[arm_];
    nlohmann::ordered_json record = {
        {"model_id", model_id_},
        {"iteration", iteration},
        {"request_tag", tag_},
        {"arm",
         {{"tag", arm.tag()},
          {"executions", arm.executions()},
          {"config", arm.session().config().source}}}};
    // Names and paths are bytes, not always UTF-8: never a throw here.
    const std::string text =
        record.dump(2, ' ', false,
                    nlohmann::ordered_json::error_handler_t::replace) +
        "\n";
    DumpWriter& writer = arm.session().writer();
    WriteJob job = MakeReportJob(writer, renderers_[arm_], text, iteration);
    if (!arm.session().config().drop_when_behind) {
      writer.Submit(std::move(job));
      return;
    }
    // The execution's wait budget is spent on its records: the request file
    // never waits, and is counted like them when the queue is full.
    if (!writer.TrySubmit(std::move(job), std::chrono::steady_clock::now())) {
      arm.session().CountDrops(model_id_, iteration, 1, text.size());
    }
  }

  Attachment base_;
  const std::vector<std::shared_ptr<DumpArm>> arms_;
  std::vector<std::shared_ptr<const JobRenderer>> renderers_;  // per arm
  const size_t plan_;
  const uint32_t model_id_;
  // The execution under way (executions of one plan are serialised).
  Attachment* active_ = nullptr;
  size_t arm_ = SIZE_MAX;
  bool observed_ = false;
  std::string tag_;
};

}  // namespace

Attachment MakeArmedAttachment(Attachment base,
                               std::vector<std::shared_ptr<DumpArm>> arms,
                               size_t plan, size_t num_steps,
                               uint32_t model_id) {
  std::vector<uint8_t> flags(num_steps, kObserveNothing);
  if (base.observer != nullptr) {
    for (size_t s = 0; s < std::min(num_steps, base.step_flags.size()); ++s) {
      flags[s] = base.step_flags[s];
    }
  }
  for (const auto& arm : arms) {
    const Attachment& armed = arm->plans[plan];
    if (armed.observer == nullptr) continue;
    for (size_t s = 0; s < std::min(num_steps, armed.step_flags.size()); ++s) {
      flags[s] |= armed.step_flags[s];
    }
  }
  auto observer = std::make_shared<ArmedObserver>(
      std::move(base), std::move(arms), plan, model_id);
  return Attachment{std::move(observer), std::move(flags)};
}

}  // namespace acldump::dump
