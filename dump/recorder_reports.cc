// DumpManager's flight recorders: starting and stopping them, and writing a
// report (the frozen ring, the replay of the triggering execution with a
// dump, recorder.json).
#include <cstring>

#include "base/error_kind.h"
#include "base/status_macros.h"
#include "base/strings.h"
#include "dump/dump_manager.h"
#include "dump/format/data_type.h"
#include "dump/format/stats_csv.h"
#include "dump/policy.h"
#include "dump/record.h"
#include "dump/stats.h"
#include "kernels/npy.h"
#include "nlohmann/json.hpp"
#include "runtime/request_tag.h"

namespace acldump::dump {

namespace {

std::string Hex64(uint64_t value) {
  char text[17];
  std::snprintf(text, sizeof(text), "%016llx",
                static_cast<unsigned long long>(value));
  return text;
}

std::string StatusText(const absl::Status& status) {
  return status.ok() ? "ok" : std::string(status.message());
}

// A CSV cell: quoted when it holds a comma, a quote or a line break.
std::string CsvCell(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) {
    return std::string(text);
  }
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out.push_back('"');
    out.push_back(c);
  }
  out.push_back('"');
  return out;
}

// Input `i` of `execution` as an .npy file: the model's declared type and
// shape when the bytes hold it, else the bytes as a flat array of the type.
absl::StatusOr<std::string> InputNpy(const RecordedExecution& execution,
                                     size_t i, const CompiledModel& plan) {
  const std::vector<std::byte>& bytes = execution.inputs[i];
  TensorView view;
  view.data = const_cast<std::byte*>(bytes.data());
  const auto& declared = plan.graph().inputs;
  TensorInfo info = i < declared.size() ? declared[i].info : TensorInfo{};
  bool known = info.present() && info.shape.rank() > 0;
  for (size_t d = 0; known && d < info.shape.rank(); ++d) {
    known = info.shape[d] >= 0;
  }
  if (known && info.ByteSize() <= bytes.size()) {
    view.dtype = info.dtype;
    view.shape = info.shape;
  } else {
    view.dtype = info.present() ? info.dtype : DType::kUInt8;
    const size_t element = DTypeSize(view.dtype);
    view.shape = Shape(
        {static_cast<int64_t>(element == 0 ? 0 : bytes.size() / element)});
  }
  absl::StatusOr<std::string> npy = EncodeNpy(view);
  if (npy.ok()) return npy;
  // A type .npy cannot hold: the bytes as they are.
  view.dtype = DType::kUInt8;
  view.shape = Shape({static_cast<int64_t>(bytes.size())});
  return EncodeNpy(view);
}

std::string OperatorStatsCsv(const RecordedExecution& execution,
                             const CompiledModel& plan) {
  static constexpr StatColumn kColumns[] = {
      StatColumn::kMax,   StatColumn::kMin,         StatColumn::kAvg,
      StatColumn::kNan,   StatColumn::kNegativeInf, StatColumn::kPositiveInf,
      StatColumn::kL2norm};
  std::string out =
      StrCat("Op Name,Op Type,Task,", StatsCsvHeader(kColumns), "\n");
  for (const OperatorOutputStats& op : execution.operators) {
    if (!op.ran || op.task >= plan.steps().size()) continue;
    const StepInfo& step = plan.steps()[op.task];
    StatsRow row;
    row.index = op.output;
    row.data_size = op.info.ByteSize();
    row.data_type = ToDumpDataType(op.info.dtype);
    row.shape = op.info.shape.dims();
    StrAppend(out, CsvCell(step.name), ",", CsvCell(step.op_type), ",", op.task,
              ",", StatsCsvRowLead(row));
    AppendStatsCsvCells(out, row, op.stats, kColumns);
  }
  return out;
}

// The replay's inputs: the recorded ones, and a dynamic model's gear input
// naming the gear the execution ran.
struct ReplayBuffers {
  std::vector<std::vector<std::byte>> owned;
  std::vector<HostBuffer> inputs;
  std::vector<MutableHostBuffer> outputs;
};

ReplayBuffers MakeReplayBuffers(const GearedModel& model,
                                const RecordedExecution& execution) {
  ReplayBuffers buffers;
  for (const auto& input : execution.inputs) {
    buffers.inputs.push_back(HostBuffer{input.data(), input.size()});
  }
  if (model.dynamic() && execution.plan < model.gears().size()) {
    const auto& values = model.gears()[execution.plan];
    std::vector<std::byte>& gear =
        buffers.owned.emplace_back(values.size() * sizeof(int64_t));
    GearedModel::WriteGearInput(values, gear.data(), gear.size());
    buffers.inputs.push_back(HostBuffer{gear.data(), gear.size()});
  }
  for (size_t size : execution.output_sizes) {
    std::vector<std::byte>& output = buffers.owned.emplace_back(size);
    buffers.outputs.push_back(MutableHostBuffer{output.data(), size});
  }
  return buffers;
}

// Whether the replay reproduced the execution: the same failure, or outputs
// with the same bytes.
bool Reproduced(const RecordedExecution& execution,
                const absl::Status& replayed, const ReplayBuffers& buffers,
                std::string* detail) {
  if (!execution.status.ok() || !replayed.ok()) {
    if (execution.status == replayed) {
      *detail = StrCat("the replay failed as the execution did: ",
                       replayed.message());
      return true;
    }
    *detail = StrCat("the execution ended with '", StatusText(execution.status),
                     "', the replay with '", StatusText(replayed), "'");
    return false;
  }
  for (size_t k = 0; k < execution.output_infos.size(); ++k) {
    const TensorInfo& info = execution.output_infos[k];
    if (!info.present() || info.ByteSize() > buffers.outputs[k].size) {
      continue;
    }
    const uint64_t checksum = TensorChecksum(
        TensorView{info.dtype, info.shape, buffers.outputs[k].data});
    if (checksum != execution.output_stats[k].checksum) {
      *detail = StrCat("output ", k, " differs: checksum ", Hex64(checksum),
                       " in the replay, ",
                       Hex64(execution.output_stats[k].checksum), " recorded");
      return false;
    }
  }
  *detail = StrCat("every output (", execution.output_infos.size(),
                   ") is bit-identical to the recorded execution's");
  return true;
}

}  // namespace

absl::StatusOr<RecorderReport> DumpManager::WriteRecorderReport(
    const std::weak_ptr<const LoadedModel>& weak_model,
    const DumpConfig& config, FrozenRing ring) {
  std::shared_ptr<const LoadedModel> model = weak_model.lock();
  if (model == nullptr) {
    return KindError(ErrorKind::kInvalidParam,
                     "the model was unloaded before its recorder's report "
                     "was written");
  }
  ASSIGN_OR_RETURN(std::shared_ptr<DumpSession> session,
                   DumpSession::Create(config, options_));
  const std::string model_folder = ModelFolder(
      model->device,
      BuildDumpPlan(config, model->model->plan(0), model->file_stem).model_name,
      model->id);
  // Named by the triggering iteration, unique for the model: reports in one
  // second share their time folder.
  const std::string directory =
      StrCat(model_folder, "/recorder/trigger_", ring.trigger.iteration);
  DumpWriter& writer = session->writer();
  auto submit = [&](const std::string& folder, std::string name,
                    std::string_view bytes) {
    auto renderer = std::make_shared<ReportFileRenderer>(
        folder, std::move(name), /*per_iteration=*/false);
    writer.Submit(MakeReportJob(writer, std::move(renderer), bytes, 0));
  };

  nlohmann::ordered_json executions = nlohmann::ordered_json::array();
  const RecordedExecution* triggering = nullptr;
  for (const RecordedExecution& execution : ring.executions) {
    if (execution.iteration == ring.trigger.iteration) triggering = &execution;
    const CompiledModel& plan = model->model->plan(
        std::min(execution.plan, model->model->num_plans() - 1));
    const std::string execution_folder =
        StrCat("iteration_", execution.iteration);
    const std::string folder = StrCat(directory, "/", execution_folder);
    nlohmann::ordered_json inputs = nlohmann::ordered_json::array();
    for (size_t i = 0; i < execution.inputs.size(); ++i) {
      absl::StatusOr<std::string> npy = InputNpy(execution, i, plan);
      if (!npy.ok()) {
        session->Close().IgnoreError();
        return npy.status();
      }
      const std::string name = StrCat("input_", i, ".npy");
      submit(folder, name, *npy);
      inputs.push_back(StrCat(execution_folder, "/", name));
    }
    nlohmann::ordered_json outputs = nlohmann::ordered_json::array();
    const auto& declared = plan.graph().outputs;
    for (size_t k = 0; k < execution.output_infos.size(); ++k) {
      const TensorStats& stats = execution.output_stats[k];
      outputs.push_back({{"index", k},
                         {"name", k < declared.size() ? declared[k].name : ""},
                         {"type", execution.output_infos[k].ToString()},
                         {"checksum", Hex64(stats.checksum)},
                         {"nan", stats.nan},
                         {"negative_inf", stats.negative_inf},
                         {"positive_inf", stats.positive_inf}});
    }
    nlohmann::ordered_json entry = {{"iteration", execution.iteration},
                                    {"request_tag", execution.request_tag},
                                    {"time_us", execution.time_us},
                                    {"status", StatusText(execution.status)},
                                    {"inputs", std::move(inputs)},
                                    {"outputs", std::move(outputs)}};
    if (!execution.operators.empty()) {
      submit(folder, "operator_stats.csv", OperatorStatsCsv(execution, plan));
      entry["operator_stats"] = StrCat(execution_folder, "/operator_stats.csv");
    }
    if (model->model->dynamic()) entry["gear"] = execution.plan;
    executions.push_back(std::move(entry));
  }

  // The replay: the triggering execution again, from its inputs, dumped by
  // an arm of this session that only the replay's request tag claims.
  RecorderReport report;
  report.trigger = ring.trigger;
  nlohmann::ordered_json replay;
  if (triggering == nullptr) {
    report.replay_detail = "the triggering execution is not in the ring";
  } else {
    std::vector<std::string> warnings;
    absl::StatusOr<std::shared_ptr<DumpArm>> arm =
        MakeArm(*model, session, std::string(kReplayRequestTag), 1, &warnings);
    std::vector<std::shared_ptr<DumpArm>> replaced;
    absl::Status installed =
        arm.ok() ? Install(*model, *arm, &replaced) : arm.status();
    if (!installed.ok()) {
      report.replay_detail = StrCat("not replayed: ", installed.message());
    } else {
      ReplayBuffers buffers = MakeReplayBuffers(*model->model, *triggering);
      absl::Status replayed;
      {
        ScopedRequestTag tag(kReplayRequestTag);
        replayed = model->model->Execute(buffers.inputs, buffers.outputs);
      }
      const std::string replay_tag(kReplayRequestTag);
      RemoveArms(model.get(), model->id, &replay_tag).IgnoreError();
      report.replayed = true;
      report.reproduced =
          Reproduced(*triggering, replayed, buffers, &report.replay_detail);
      // The arm claims the replay only where its config selects the gear
      // the execution ran.
      const std::optional<uint64_t> dumped = (*arm)->last_iteration();
      replay["dumped"] = dumped.has_value();
      if (dumped) {
        replay["iteration"] = *dumped;
        replay["dump_folder"] = model_folder;
      }
      replay["status"] = StatusText(replayed);
    }
  }
  replay["replayed"] = report.replayed;
  replay["reproduced"] = report.reproduced;
  replay["detail"] = report.replay_detail;

  nlohmann::ordered_json summary = {
      {"model_id", model->id},
      {"model_name", model->model->plan(0).graph().name},
      {"trigger",
       {{"kind", TriggerKindName(ring.trigger.kind)},
        {"iteration", ring.trigger.iteration},
        {"detail", ring.trigger.detail}}},
      {"skipped_triggers", ring.skipped_triggers},
      {"replay", std::move(replay)},
      {"executions", std::move(executions)}};
  // Last: a report with recorder.json is complete.
  // Node names and the reason are bytes, not always UTF-8: never a throw.
  submit(directory, "recorder.json",
         summary.dump(2, ' ', false,
                      nlohmann::ordered_json::error_handler_t::replace) +
             "\n");
  RETURN_IF_ERROR(session->Close());
  report.directory =
      StrCat(session->root(), "/", session->time_folder(), "/", directory);
  return report;
}

std::shared_ptr<FlightRecorder> DumpManager::FindRecorder(
    uint32_t model_id) const {
  std::lock_guard<std::mutex> lock(arms_mutex_);
  auto it = arms_.find(model_id);
  return it == arms_.end() ? nullptr : it->second.recorder;
}

absl::Status DumpManager::StartRecorder(
    const std::shared_ptr<const LoadedModel>& model,
    const std::string& config_path, RecorderOptions options) {
  if (options.executions == 0 || options.executions > kMaxRecorderExecutions) {
    return KindError(ErrorKind::kInvalidParam,
                     StrCat("a recorder keeps 1 to ", kMaxRecorderExecutions,
                            " executions, not ", options.executions));
  }
  ASSIGN_OR_RETURN(DumpConfig config, LoadDumpConfigFile(config_path));
  if (!config.enabled()) {
    return KindError(ErrorKind::kInvalidParam,
                     StrCat(config.source,
                            ": its dump section turns no dump on (set "
                            "dump_path and dump_list); a recorder writes its "
                            "reports and replays where it says"));
  }
  if (config.steps.has_value()) {
    return KindError(ErrorKind::kInvalidParam,
                     StrCat(config.source,
                            ": dump_step would skip the replay (a replay is "
                            "one execution); leave dump_step out"));
  }
  {
    // Checked now, so that a config that dumps nothing of the model fails
    // here rather than in every report.
    ASSIGN_OR_RETURN(std::shared_ptr<DumpSession> probe,
                     DumpSession::Create(config, options_));
    std::vector<std::string> found;
    absl::StatusOr<std::shared_ptr<DumpArm>> arm =
        MakeArm(*model, probe, "", 1, &found);
    probe->Close().IgnoreError();
    RETURN_IF_ERROR(arm.status());
  }
  std::weak_ptr<const LoadedModel> weak = model;
  auto recorder = std::make_shared<FlightRecorder>(
      model->id, options,
      [this, weak, config = std::move(config)](FrozenRing ring) {
        return WriteRecorderReport(weak, config, std::move(ring));
      });
  std::lock_guard<std::mutex> lock(arms_mutex_);
  if (auto it = arms_.find(model->id);
      it != arms_.end() && it->second.recorder != nullptr) {
    return KindError(
        ErrorKind::kInvalidParam,
        StrCat("model ", model->id, " already has a recorder; stop it first"));
  }
  std::unique_ptr<SignalSubscription> signal;
  if (options.trigger_signal) {
    // Held weakly: a signal under way may outlive the recorder.
    std::weak_ptr<FlightRecorder> target = recorder;
    ASSIGN_OR_RETURN(signal, SubscribeToSignal([target] {
                       if (auto r = target.lock()) {
                         r->TriggerInBackground(TriggerKind::kSignal,
                                                "SIGUSR2");
                       }
                     }));
  }
  ModelArms& entry = EntryLocked(*model);
  entry.recorder = recorder;
  entry.signal = std::move(signal);
  absl::Status attached = Reattach(*model, entry);
  if (!attached.ok()) {
    entry.recorder.reset();
    entry.signal.reset();
    Reattach(*model, entry).IgnoreError();
    if (entry.empty()) arms_.erase(model->id);
  }
  return attached;
}

absl::Status DumpManager::StopRecorder(const LoadedModel* model,
                                       uint32_t model_id) {
  std::shared_ptr<FlightRecorder> recorder;
  std::unique_ptr<SignalSubscription> signal;
  absl::Status attached;
  {
    std::lock_guard<std::mutex> lock(arms_mutex_);
    auto it = arms_.find(model_id);
    if (it == arms_.end() || it->second.recorder == nullptr) {
      return KindError(ErrorKind::kInvalidParam,
                       StrCat("model ", model_id, " has no recorder"));
    }
    recorder = std::move(it->second.recorder);
    signal = std::move(it->second.signal);
    if (model != nullptr) attached = Reattach(*model, it->second);
    if (it->second.empty()) arms_.erase(it);
  }
  // Stopped even when the model could not be reattached: its observer then
  // keeps recording nothing, and no thread is left behind.
  signal.reset();
  absl::Status stopped = recorder->Stop();
  return attached.ok() ? stopped : attached;
}

absl::StatusOr<RecorderReport> DumpManager::TriggerRecorder(
    uint32_t model_id, std::string reason) {
  std::shared_ptr<FlightRecorder> recorder = FindRecorder(model_id);
  if (recorder == nullptr) {
    return KindError(ErrorKind::kInvalidParam,
                     StrCat("model ", model_id, " has no recorder"));
  }
  return recorder->TriggerNow(TriggerKind::kCall, std::move(reason));
}

absl::StatusOr<RecorderCounts> DumpManager::RecorderStatus(
    uint32_t model_id, std::optional<RecorderReport>* last) const {
  std::shared_ptr<FlightRecorder> recorder = FindRecorder(model_id);
  if (recorder == nullptr) {
    return KindError(ErrorKind::kInvalidParam,
                     StrCat("model ", model_id, " has no recorder"));
  }
  if (last != nullptr) *last = recorder->last_report();
  return recorder->counts();
}

absl::Status DumpManager::WaitRecorder(
    uint32_t model_id,
    std::optional<std::chrono::steady_clock::time_point> deadline) {
  std::shared_ptr<FlightRecorder> recorder = FindRecorder(model_id);
  if (recorder == nullptr) {
    return KindError(ErrorKind::kInvalidParam,
                     StrCat("model ", model_id, " has no recorder"));
  }
  return recorder->WaitIdle(deadline);
}

}  // namespace acldump::dump
