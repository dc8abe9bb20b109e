// Overflow dump (dump_debug on): an operator whose floating-point outputs hold
// Inf/NaN although its inputs were finite gets its tensors dumped, plus an
// Opdebug.Node_OpDebug record in the same folder pairing with it by task id.
#include <cstring>

#include "base/strings.h"
#include "dump/format/dump_data.pb.h"
#include "dump/format/dump_file.h"
#include "dump/format/overflow_record.h"
#include "dump/observers.h"
#include "dump/payload.h"
#include "dump/session_observer.h"
#include "dump/stats.h"

namespace acldump::dump {
namespace {

// The Opdebug record file: a dump file with one DT_UINT8 [2048] output.
class OverflowRecordRenderer final : public JobRenderer {
 public:
  OverflowRecordRenderer(std::string directory, uint32_t task_id)
      : directory_(std::move(directory)), task_id_(task_id) {}
  absl::Status Render(const WriteJob& job, RenderedFile& file) const override {
    file.directory = StrCat(directory_, "/", job.iteration);
    file.per_iteration = true;
    file.name =
        OverflowRecordFileName(task_id_, /*stream_id=*/0, job.timestamp_us);
    toolkit::dumpdata::DumpData header;
    header.set_version(std::string(kDumpFormatVersion));
    header.set_dump_time(job.timestamp_us);
    header.set_op_name("Node_OpDebug");
    auto* out = header.add_output();
    out->set_data_type(toolkit::dumpdata::DT_UINT8);
    out->set_format(toolkit::dumpdata::FORMAT_ND);
    out->mutable_shape()->add_dim(job.used);
    out->set_size(job.used);
    file.head = EncodeDumpFilePrefix(header);
    file.payloads.emplace_back(reinterpret_cast<const char*>(job.buffer.data()),
                               job.used);
    return absl::OkStatus();
  }

 private:
  std::string directory_;
  uint32_t task_id_;
};

class OverflowObserver final : public SessionObserver {
 public:
  struct Target {
    std::shared_ptr<const JobRenderer> op_file;
    std::shared_ptr<const JobRenderer> record;
    std::vector<uint32_t> input_slots;
    size_t tensors = 0;
    size_t bytes = 0;
  };
  OverflowObserver(std::shared_ptr<DumpSession> session,
                   std::unique_ptr<const Payload> payload,
                   std::vector<Target> targets, uint32_t model_id)
      : SessionObserver(std::move(session), /*filter_steps=*/true, model_id),
        payload_(std::move(payload)),
        targets_(std::move(targets)),
        model_id_(model_id) {}

  void AfterNode(const NodeEvent& e) override {
    bool overflow = false;
    for (const TensorView& out : e.outputs) overflow |= HasNonFinite(out);
    if (!overflow) return;
    // Inf/NaN that came in through the inputs is not this op's overflow.
    for (const TensorView& in : e.inputs) {
      if (in.present() && HasNonFinite(in)) return;
    }
    const Target& t = targets_[e.step.task_id];
    WriteJob job = NewJob(t.op_file, t.bytes);
    payload_->Begin(t.tensors, job);
    size_t slot = 0;
    for (uint32_t input : t.input_slots) {
      payload_->Capture(slot++, e.inputs[input], job);
    }
    for (const TensorView& out : e.outputs) {
      payload_->Capture(slot++, out, job);
    }
    const uint64_t timestamp = job.timestamp_us;
    Submit(std::move(job));
    OverflowRecord record;
    record.model_id = model_id_;
    record.task_id = e.step.task_id;
    record.stream_id = 0;
    const std::string bytes = EncodeOverflowPayload(record);
    WriteJob debug = NewJob(t.record, bytes.size());
    debug.timestamp_us = timestamp;
    std::memcpy(debug.buffer.data(), bytes.data(), bytes.size());
    debug.used = bytes.size();
    Submit(std::move(debug));
  }

 private:
  const std::unique_ptr<const Payload> payload_;
  const std::vector<Target> targets_;
  const uint32_t model_id_;
};

bool HasFloatOutput(const StepInfo& step) {
  for (const TensorInfo& info : step.output_infos) {
    if (IsFloating(info.dtype)) return true;
  }
  return false;
}

}  // namespace

Attachment MakeOverflowObserver(std::shared_ptr<DumpSession> session,
                                const CompiledModel& model,
                                const ModelIdentity& identity) {
  // The operator's file always holds full tensors (the default payload):
  // they are what an overflow is analysed with.
  std::unique_ptr<const Payload> payload = DefaultPayload().make({});
  const std::string directory =
      ModelFolder(identity.device_id, model.graph().name, identity.model_id);
  std::vector<OverflowObserver::Target> targets(model.steps().size());
  std::vector<uint8_t> flags(model.steps().size(), kObserveNothing);
  for (size_t s = 0; s < model.steps().size(); ++s) {
    const StepInfo& step = model.steps()[s];
    if (!HasFloatOutput(step)) continue;
    flags[s] = kObserveAfter;
    OverflowObserver::Target& t = targets[s];
    t.input_slots = PresentInputs(step);
    RecordSpec spec =
        StepRecord(step, directory, t.input_slots, AllOutputs(step));
    t.tensors = spec.tensors.size();
    t.bytes = payload->JobBytes(spec);
    t.op_file = payload->MakeRenderer(std::move(spec));
    t.record =
        std::make_shared<OverflowRecordRenderer>(directory, step.task_id);
  }
  return Attachment{
      std::make_shared<OverflowObserver>(std::move(session), std::move(payload),
                                         std::move(targets), identity.model_id),
      std::move(flags)};
}

}  // namespace acldump::dump
