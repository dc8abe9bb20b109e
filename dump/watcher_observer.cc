// Watcher dump (dump_scene watcher): after each layer operator runs, the
// outputs of every watcher node are dumped as they are in memory at that
// moment, in files named {watcher op_type}.{layer}_To_{watcher}.{layer
// task}.0.{time}, and each watcher node's own outputs when it runs, in the
// usual file. An operator that writes memory it does not own shows as the
// first layer after which a watcher's dump differs from the watcher's own.
//
// As in the SDK: layers and watcher nodes of all dump_list entries are taken
// together, an entry without a layer makes every operator a layer, watcher
// nodes are named after fusion (the name of a fused-away operator dumps
// nothing; a warning names the operator it became), and an operator that is
// both a layer and a watcher node writes only its own file.
#include "base/strings.h"
#include "dump/observers.h"
#include "dump/payload.h"
#include "dump/policy.h"
#include "dump/session_observer.h"

namespace acldump::dump {
namespace {

struct WatchedRecord {
  size_t tensors = 0;
  size_t bytes = 0;
  std::shared_ptr<const JobRenderer> renderer;
};

class WatcherObserver final : public SessionObserver {
 public:
  WatcherObserver(std::shared_ptr<DumpSession> session,
                  const CompiledModel& model, std::vector<uint32_t> watchers,
                  std::vector<WatchedRecord> own,
                  std::vector<std::vector<WatchedRecord>> after_layer,
                  uint32_t model_id)
      : SessionObserver(std::move(session), /*filter_steps=*/true, model_id),
        payload_(this->session().payload()),
        model_(model),
        watchers_(std::move(watchers)),
        own_(std::move(own)),
        after_layer_(std::move(after_layer)) {}

  void AfterNode(const NodeEvent& e) override {
    const uint32_t task = e.step.task_id;
    if (own_[task].renderer) Record(own_[task], e.outputs);
    const std::vector<WatchedRecord>& records = after_layer_[task];
    for (size_t w = 0; w < records.size(); ++w) {
      Record(records[w], model_.StepOutputs(watchers_[w]));
    }
  }

 private:
  void Record(const WatchedRecord& record,
              std::span<const TensorView> outputs) {
    WriteJob job = NewJob(record.renderer, record.bytes);
    payload_.Begin(record.tensors, job);
    for (size_t o = 0; o < outputs.size(); ++o) {
      payload_.Capture(o, outputs[o], job);
    }
    Submit(std::move(job));
  }

  const Payload& payload_;
  // The observer belongs to the model it watches.
  const CompiledModel& model_;
  const std::vector<uint32_t> watchers_;  // their tasks
  const std::vector<WatchedRecord> own_;  // per step
  // Per step: one record per watcher (empty for steps that are not layers).
  const std::vector<std::vector<WatchedRecord>> after_layer_;
};

WatchedRecord MakeRecord(const Payload& payload, RecordSpec spec) {
  WatchedRecord record;
  record.tensors = spec.tensors.size();
  record.bytes = payload.JobBytes(spec);
  record.renderer = payload.MakeRenderer(std::move(spec));
  return record;
}

}  // namespace

Attachment MakeWatcherObserver(std::shared_ptr<DumpSession> session,
                               const CompiledModel& model,
                               const ModelIdentity& identity,
                               std::vector<std::string>* warnings) {
  const std::vector<StepInfo>& steps = model.steps();
  WatcherPlan plan = BuildWatcherPlan(session->config(), model);
  if (warnings != nullptr) {
    warnings->insert(warnings->end(), plan.warnings.begin(),
                     plan.warnings.end());
  }
  if (plan.watchers.empty()) return {};
  const std::string& model_name = model.graph().name;
  const std::vector<uint32_t>& watchers = plan.watchers;
  const Payload& payload = session->payload();
  const std::string directory =
      ModelFolder(identity.device_id, model_name, identity.model_id);
  std::vector<WatchedRecord> own(steps.size());
  std::vector<std::vector<WatchedRecord>> after_layer(steps.size());
  std::vector<uint8_t> flags(steps.size(), kObserveNothing);
  for (uint32_t w : watchers) {
    own[w] = MakeRecord(
        payload, StepRecord(steps[w], directory, {}, AllOutputs(steps[w])));
    flags[w] = kObserveAfter;
  }
  for (uint32_t task : plan.layers) {
    const StepInfo& layer = steps[task];
    for (uint32_t w : watchers) {
      RecordSpec spec =
          StepRecord(steps[w], directory, {}, AllOutputs(steps[w]));
      spec.op_name = StrCat(layer.name, "_To_", steps[w].name);
      spec.task_id = layer.task_id;
      after_layer[task].push_back(MakeRecord(payload, std::move(spec)));
    }
    flags[task] = kObserveAfter;
  }
  return Attachment{
      std::make_shared<WatcherObserver>(
          std::move(session), model, std::move(watchers), std::move(own),
          std::move(after_layer), identity.model_id),
      std::move(flags)};
}

}  // namespace acldump::dump
