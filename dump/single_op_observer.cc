// Single-operator dump (dump_op_switch on): each execution of an operator
// through the single-op API becomes one record in {time}/{device}/, numbered
// by a per-session task id; under the exception scene, failures are dumped
// instead.
#include "base/strings.h"
#include "dump/observers.h"
#include "dump/payload.h"
#include "dump/session_observer.h"

namespace acldump::dump {
namespace {

class SingleOpObserver final : public SessionObserver {
 public:
  SingleOpObserver(std::shared_ptr<DumpSession> session, int32_t device_id)
      : SessionObserver(std::move(session), /*filter_steps=*/false),
        device_id_(device_id) {}

  bool BeginIteration(uint64_t iteration) override {
    if (!session().config().single_op_dump()) return false;
    return SessionObserver::BeginIteration(iteration);
  }

  // Inputs are still intact after a single op ran: one record with both, per
  // dump_mode.
  void AfterNode(const NodeEvent& e) override {
    const DumpConfig& config = session().config();
    const bool inputs = config.mode != DumpMode::kOutput;
    const bool outputs = config.mode != DumpMode::kInput;
    const std::vector<uint32_t> slots =
        inputs ? PresentInputs(e.step) : std::vector<uint32_t>{};
    RecordSpec spec = StepRecord(e.step, StrCat(device_id_), slots,
                                 AllOutputs(e.step, outputs));
    spec.per_iteration = false;
    spec.task_id_from_job = true;
    const Payload& payload = session().payload();
    const size_t tensors = spec.tensors.size();
    const size_t bytes = payload.JobBytes(spec);
    WriteJob job = NewJob(payload.MakeRenderer(std::move(spec)), bytes);
    job.sequence = session().NextSingleOpTaskId();
    payload.Begin(tensors, job);
    size_t slot = 0;
    for (uint32_t input : slots) payload.Capture(slot++, e.inputs[input], job);
    if (outputs) {
      for (const TensorView& out : e.outputs) payload.Capture(slot++, out, job);
    }
    Submit(std::move(job));
  }

  void OnNodeFailure(const NodeEvent& e, const absl::Status& status) override {
    if (session().config().scene != DumpScene::kException) return;
    if (!session().EnterExecution()) return;
    WriteExceptionDump(session(), device_id_, e, status, "(single op)");
    session().ExitExecution();
  }

 private:
  const int32_t device_id_;
};

}  // namespace

std::shared_ptr<ExecutionObserver> MakeSingleOpObserver(
    std::shared_ptr<DumpSession> session, int32_t device_id) {
  return std::make_shared<SingleOpObserver>(std::move(session), device_id);
}

}  // namespace acldump::dump
