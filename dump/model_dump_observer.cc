// Model dump: the tensors (or statistics) of the operators a DumpPlan selects,
// one record per operator execution, plus the graph inputs they read as "Data"
// records once per iteration.
#include <algorithm>

#include "base/strings.h"
#include "dump/observers.h"
#include "dump/payload.h"
#include "dump/session_observer.h"

namespace acldump::dump {
namespace {

class ModelDumpObserver final : public SessionObserver {
 public:
  struct DataOp {
    uint32_t slot;  // input slot of the step that reads the graph input
    int graph_input;
    size_t bytes;
    std::shared_ptr<const JobRenderer> renderer;
  };
  // A step's record: which of its tensors go in, in record order.
  struct Target {
    std::vector<uint32_t> input_slots;
    std::vector<uint32_t> outputs;  // output indices
    size_t tensors = 0;
    size_t bytes = 0;
    std::shared_ptr<const JobRenderer> renderer;  // null: nothing to record
    std::vector<DataOp> data_ops;
  };

  ModelDumpObserver(std::shared_ptr<DumpSession> session,
                    std::vector<Target> targets, size_t num_graph_inputs,
                    DumpPlan plan, std::string directory, uint32_t model_id)
      : SessionObserver(std::move(session), /*filter_steps=*/true, model_id),
        payload_(this->session().payload()),
        targets_(std::move(targets)),
        data_dumped_(num_graph_inputs, UINT64_MAX),
        plan_(std::move(plan)),
        directory_(std::move(directory)) {}

  bool ObservesDynamicSteps() const override { return true; }

  void BeforeNode(const NodeEvent& e) override {
    if (e.step.dynamic) {
      // Inputs only: a step that also dumps outputs records both after it
      // ran, when its output shapes are known.
      if (!plan_.dump_outputs[e.step.task_id]) DumpDynamic(e);
      return;
    }
    const Target& t = targets_[e.step.task_id];
    for (const DataOp& op : t.data_ops) DumpDataOp(op, e);
    if (t.input_slots.empty() || !t.renderer) return;
    pending_ = NewJob(t.renderer, t.bytes);
    payload_.Begin(t.tensors, pending_);
    size_t slot = 0;
    for (uint32_t input : t.input_slots) {
      payload_.Capture(slot++, e.inputs[input], pending_);
    }
    if (t.outputs.empty()) Submit(std::move(pending_));
  }

  void AfterNode(const NodeEvent& e) override {
    if (e.step.dynamic) {
      DumpDynamic(e);
      return;
    }
    const Target& t = targets_[e.step.task_id];
    if (t.outputs.empty() || !t.renderer) return;
    if (t.input_slots.empty()) {
      pending_ = NewJob(t.renderer, t.bytes);
      payload_.Begin(t.tensors, pending_);
    }
    size_t slot = t.input_slots.size();
    for (uint32_t o : t.outputs)
      payload_.Capture(slot++, e.outputs[o], pending_);
    Submit(std::move(pending_));
  }

 private:
  void DumpDataOp(const DataOp& op, const NodeEvent& e) {
    if (data_dumped_[op.graph_input] == iteration()) return;
    data_dumped_[op.graph_input] = iteration();
    WriteJob job = NewJob(op.renderer, op.bytes);
    payload_.Begin(1, job);
    payload_.Capture(0, e.inputs[op.slot], job);
    Submit(std::move(job));
  }

  // A dynamic step's record is planned from the event: its shapes are the
  // ones it ran with, its name holds the Loop/Scan iteration. It is filled
  // and sent in one call, as control-flow nodes run other nodes between
  // their Before and After.
  void DumpDynamic(const NodeEvent& e);

  // A failed node leaves a half-filled job: its data is incomplete, so it is
  // not written.
  void OnIterationEnd() override {
    if (pending_.renderer) {
      writer().ReturnBuffer(std::move(pending_.buffer));
      pending_ = WriteJob();
    }
  }

  const Payload& payload_;
  const std::vector<Target> targets_;
  std::vector<uint64_t> data_dumped_;  // per graph input: iteration last dumped
  WriteJob pending_;
  const DumpPlan plan_;
  const std::string directory_;
};

ModelDumpObserver::Target TargetFor(const StepInfo& step, const DumpPlan& plan,
                                    size_t s, const Payload& payload,
                                    const std::string& directory) {
  // The tensors the plan selects, less those a blacklist position excludes.
  auto without = [](std::vector<uint32_t> all,
                    const std::vector<uint32_t>& skipped) {
    std::erase_if(all, [&](uint32_t i) {
      return std::find(skipped.begin(), skipped.end(), i) != skipped.end();
    });
    return all;
  };
  ModelDumpObserver::Target t;
  if (plan.dump_inputs[s]) {
    t.input_slots = without(PresentInputs(step), plan.skipped_inputs[s]);
  }
  t.outputs =
      without(AllOutputs(step, plan.dump_outputs[s]), plan.skipped_outputs[s]);
  if (t.input_slots.empty() && t.outputs.empty()) return t;
  RecordSpec spec = StepRecord(step, directory, t.input_slots, t.outputs);
  t.tensors = spec.tensors.size();
  t.bytes = payload.JobBytes(spec);
  t.renderer = payload.MakeRenderer(std::move(spec));
  return t;
}

void ModelDumpObserver::DumpDynamic(const NodeEvent& e) {
  const uint32_t s = e.step.task_id;
  for (const DataOp& op : targets_[s].data_ops) DumpDataOp(op, e);
  Target t = TargetFor(e.step, plan_, s, payload_, directory_);
  if (!t.renderer) return;
  WriteJob job = NewJob(t.renderer, t.bytes);
  payload_.Begin(t.tensors, job);
  size_t slot = 0;
  for (uint32_t input : t.input_slots) {
    payload_.Capture(slot++, e.inputs[input], job);
  }
  for (uint32_t o : t.outputs) payload_.Capture(slot++, e.outputs[o], job);
  Submit(std::move(job));
}

}  // namespace

Attachment MakeModelDumpObserver(std::shared_ptr<DumpSession> session,
                                 const DumpPlan& plan,
                                 const CompiledModel& model,
                                 const ModelIdentity& identity) {
  const Payload& payload = session->payload();
  const std::string directory =
      ModelFolder(identity.device_id, plan.model_name, identity.model_id);
  const Graph& graph = model.graph();
  std::vector<ModelDumpObserver::Target> targets;
  targets.reserve(model.steps().size());
  for (size_t s = 0; s < model.steps().size(); ++s) {
    const StepInfo& step = model.steps()[s];
    // A dynamic step is planned when it runs, with its real infos.
    targets.push_back(step.dynamic
                          ? ModelDumpObserver::Target()
                          : TargetFor(step, plan, s, payload, directory));
    for (int g : plan.data_inputs[s]) {
      const NamedTensorInfo& input = graph.inputs[g];
      for (size_t slot = 0; slot < step.input_names.size(); ++slot) {
        if (step.input_names[slot] != input.name) continue;
        RecordSpec spec = DataRecord(input, directory, step.task_id);
        const size_t bytes = payload.JobBytes(spec);
        targets.back().data_ops.push_back(
            {static_cast<uint32_t>(slot), g, bytes,
             payload.MakeRenderer(std::move(spec))});
        break;
      }
    }
  }
  auto observer = std::make_shared<ModelDumpObserver>(
      std::move(session), std::move(targets), graph.inputs.size(), plan,
      directory, identity.model_id);
  return Attachment{std::move(observer), plan.step_flags};
}

}  // namespace acldump::dump
