#include "dump/observers.h"

#include <cstring>

#include "base/strings.h"
#include "dump/format/data_type.h"
#include "dump/format/dump_data.pb.h"
#include "dump/format/dump_file.h"
#include "dump/format/dump_names.h"
#include "dump/format/overflow_record.h"
#include "dump/format/stats_csv.h"
#include "dump/stats.h"

namespace acldump::dump {
namespace {

using DumpProto = toolkit::dumpdata::DumpData;

constexpr int32_t kFormatNchw = 0;
constexpr int32_t kFormatNd = 2;
// input_type of exception dumps (dump-format.md §1).
constexpr uint32_t kInputTypeInput = 2;
constexpr uint32_t kInputTypeWorkspace = 4;
constexpr uint32_t kInputTypeTilingData = 7;

int32_t FormatOf(const TensorInfo& info) {
  return info.shape.rank() == 4 ? kFormatNchw : kFormatNd;
}

template <typename ShapeProto>
void SetShape(const Shape& shape, ShapeProto* proto) {
  for (int64_t dim : shape.dims()) proto->add_dim(static_cast<uint64_t>(dim));
}

void AddInput(DumpProto& header, const TensorInfo& info, uint32_t arg_index) {
  auto* in = header.add_input();
  in->set_data_type(static_cast<toolkit::dumpdata::OutputDataType>(
      ToDumpDataType(info.dtype)));
  in->set_format(static_cast<toolkit::dumpdata::OutputFormat>(FormatOf(info)));
  SetShape(info.shape, in->mutable_shape());
  SetShape(info.shape, in->mutable_original_shape());
  in->set_size(info.ByteSize());
  in->set_arg_index(arg_index);
}

void AddOutput(DumpProto& header, const TensorInfo& info, uint32_t arg_index,
               const std::string& original_op) {
  auto* out = header.add_output();
  const auto dtype = static_cast<toolkit::dumpdata::OutputDataType>(
      ToDumpDataType(info.dtype));
  const auto format =
      static_cast<toolkit::dumpdata::OutputFormat>(FormatOf(info));
  out->set_data_type(dtype);
  out->set_format(format);
  SetShape(info.shape, out->mutable_shape());
  SetShape(info.shape, out->mutable_original_shape());
  out->set_size(info.ByteSize());
  out->set_arg_index(arg_index);
  auto* original = out->mutable_original_op();
  original->set_name(original_op);
  original->set_output_index(arg_index);
  original->set_data_type(dtype);
  original->set_format(format);
}

void AddAttr(DumpProto& header, std::string name, std::string value) {
  auto* attr = header.add_attr();
  attr->set_name(std::move(name));
  attr->set_value(std::move(value));
}

// Where and under which name a job's file goes.
struct FilePlace {
  std::string
      directory;  // complete, or the prefix the iteration number is appended to
  bool iteration_directory = false;
  std::string op_type;  // escaped
  std::string op_name;  // escaped
  uint32_t task_id = 0;
  bool task_id_from_job = false;  // single ops number their executions
  std::string suffix;             // ".csv" for stats

  void Fill(const WriteJob& job, RenderedFile& file) const {
    file.directory =
        iteration_directory ? StrCat(directory, job.iteration) : directory;
    file.name = DumpFileName(
        op_type, op_name,
        task_id_from_job ? static_cast<uint32_t>(job.sequence) : task_id,
        /*stream_id=*/0, job.timestamp_us);
    file.suffix = suffix;
  }
};

// A dump file (layout §2): header template + payloads packed in the job buffer.
class TensorFileRenderer final : public JobRenderer {
 public:
  TensorFileRenderer(FilePlace place, DumpProto header,
                     std::vector<size_t> sizes, int mode = 0644)
      : place_(std::move(place)),
        header_(std::move(header)),
        sizes_(std::move(sizes)),
        mode_(mode) {}
  absl::Status Render(const WriteJob& job, RenderedFile& file) const override {
    place_.Fill(job, file);
    file.mode = mode_;
    DumpProto header = header_;
    header.set_dump_time(job.timestamp_us);
    file.head = EncodeDumpFilePrefix(header);
    const char* data = reinterpret_cast<const char*>(job.buffer.data());
    size_t offset = 0;
    for (size_t size : sizes_) {
      file.payloads.emplace_back(data + offset, size);
      offset += size;
    }
    if (offset != job.used) {
      return absl::InternalError(
          StrCat("dump job holds ", job.used, " bytes, ", offset, " expected"));
    }
    return absl::OkStatus();
  }

 private:
  FilePlace place_;
  DumpProto header_;
  std::vector<size_t> sizes_;
  int mode_;
};

// A stats CSV (§4): row templates + TensorStats packed in the job buffer.
class StatsFileRenderer final : public JobRenderer {
 public:
  StatsFileRenderer(FilePlace place, std::vector<StatsRow> rows,
                    std::vector<StatColumn> columns)
      : place_(std::move(place)),
        rows_(std::move(rows)),
        columns_(std::move(columns)) {}
  absl::Status Render(const WriteJob& job, RenderedFile& file) const override {
    place_.Fill(job, file);
    if (job.used != rows_.size() * sizeof(TensorStats)) {
      return absl::InternalError("stats job does not match its rows");
    }
    std::vector<StatsRow> rows = rows_;
    for (size_t i = 0; i < rows.size(); ++i) {
      std::memcpy(&rows[i].stats, job.buffer.data() + i * sizeof(TensorStats),
                  sizeof(TensorStats));
    }
    file.head = FormatStatsCsv(rows, columns_);
    return absl::OkStatus();
  }

 private:
  FilePlace place_;
  std::vector<StatsRow> rows_;
  std::vector<StatColumn> columns_;
};

StatsRow RowFor(const TensorInfo& info, bool is_input, uint32_t index) {
  StatsRow row;
  row.is_input = is_input;
  row.index = index;
  row.data_size = info.ByteSize();
  row.data_type = ToDumpDataType(info.dtype);
  row.format = FormatOf(info);
  row.shape = info.shape.dims();
  row.numeric = info.dtype != DType::kUndefined;
  return row;
}

std::string ModelDirectory(const DumpSession& session,
                           const ModelIdentity& identity,
                           const std::string& model_name) {
  return StrCat(session.root(), "/", session.time_folder(), "/",
                identity.device_id, "/", EscapeNamePart(model_name), "/",
                identity.model_id, "/");
}

// Which step inputs are real tensors (absent optional inputs are skipped).
std::vector<uint32_t> PresentInputs(const StepInfo& step) {
  std::vector<uint32_t> slots;
  for (size_t i = 0; i < step.input_infos.size(); ++i) {
    if (step.input_infos[i].present())
      slots.push_back(static_cast<uint32_t>(i));
  }
  return slots;
}

DumpProto HeaderFor(const StepInfo& step,
                    const std::vector<uint32_t>& input_slots, bool outputs) {
  DumpProto header;
  header.set_version("2.0");
  header.set_op_name(step.name);
  for (uint32_t slot : input_slots)
    AddInput(header, step.input_infos[slot], slot);
  if (outputs) {
    for (size_t o = 0; o < step.output_infos.size(); ++o) {
      AddOutput(
          header, step.output_infos[o], static_cast<uint32_t>(o),
          step.original_names.empty() ? step.name : step.original_names.back());
    }
  }
  AddAttr(header, "op_type", step.op_type);
  AddAttr(header, "original_names", StrJoin(step.original_names, ","));
  return header;
}

// Appends a tensor's bytes to the job buffer.
inline void Append(WriteJob& job, const TensorView& view) {
  const size_t bytes = view.ByteSize();
  if (bytes > 0) std::memcpy(job.buffer.data() + job.used, view.data, bytes);
  job.used += bytes;
}

class ModelDumpObserver final : public ExecutionObserver {
 public:
  struct DataOp {
    uint32_t slot;  // input slot of the step that reads the graph input
    int graph_input;
    size_t bytes;
    std::shared_ptr<const JobRenderer> renderer;
  };
  struct Target {
    bool inputs = false;
    bool outputs = false;
    std::vector<uint32_t> input_slots;
    size_t input_bytes = 0;
    size_t output_bytes = 0;
    std::shared_ptr<const JobRenderer> renderer;
    std::vector<DataOp> data_ops;
  };

  ModelDumpObserver(std::shared_ptr<DumpSession> session,
                    std::vector<Target> targets, size_t num_graph_inputs,
                    size_t max_tensors_per_step)
      : session_(std::move(session)),
        writer_(session_->writer()),
        stats_mode_(session_->config().data == DumpData::kStats),
        steps_(session_->config().steps),
        targets_(std::move(targets)),
        data_dumped_(num_graph_inputs, UINT64_MAX),
        pending_stats_(std::max<size_t>(max_tensors_per_step, 1)) {}

  bool BeginIteration(uint64_t iteration) override {
    if (steps_ && !steps_->Contains(iteration)) return false;
    if (!session_->EnterExecution()) return false;
    inside_ = true;
    iteration_ = iteration;
    return true;
  }

  void BeforeNode(const NodeEvent& e) override {
    const Target& t = targets_[e.step.task_id];
    for (const DataOp& op : t.data_ops) {
      if (data_dumped_[op.graph_input] == iteration_) continue;
      data_dumped_[op.graph_input] = iteration_;
      const TensorView& view = e.inputs[op.slot];
      if (stats_mode_) {
        SubmitStats(op.renderer, &view, 1);
      } else {
        WriteJob job = NewJob(op.renderer, op.bytes);
        Append(job, view);
        writer_.Submit(std::move(job));
      }
    }
    if (!t.inputs) return;
    if (stats_mode_) {
      pending_stats_count_ = 0;
      for (uint32_t slot : t.input_slots) {
        pending_stats_[pending_stats_count_++] = ComputeStats(e.inputs[slot]);
      }
      if (!t.outputs) FlushStats(t);
      return;
    }
    pending_ =
        NewJob(t.renderer, t.input_bytes + (t.outputs ? t.output_bytes : 0));
    for (uint32_t slot : t.input_slots) Append(pending_, e.inputs[slot]);
    if (!t.outputs) writer_.Submit(std::move(pending_));
  }

  void AfterNode(const NodeEvent& e) override {
    const Target& t = targets_[e.step.task_id];
    if (!t.outputs) return;
    if (stats_mode_) {
      if (!t.inputs) pending_stats_count_ = 0;
      for (const TensorView& out : e.outputs) {
        pending_stats_[pending_stats_count_++] = ComputeStats(out);
      }
      FlushStats(t);
      return;
    }
    if (!t.inputs) pending_ = NewJob(t.renderer, t.output_bytes);
    for (const TensorView& out : e.outputs) Append(pending_, out);
    writer_.Submit(std::move(pending_));
  }

  absl::Status EndIteration(uint64_t) override {
    if (inside_) {
      inside_ = false;
      // A failed node leaves a half-filled job: its data is incomplete, so it
      // is not written.
      if (pending_.renderer) {
        writer_.ReturnBuffer(std::move(pending_.buffer));
        pending_ = WriteJob();
      }
      writer_.Kick();
      session_->ExitExecution();
    }
    return absl::OkStatus();
  }

 private:
  WriteJob NewJob(const std::shared_ptr<const JobRenderer>& renderer,
                  size_t bytes) {
    WriteJob job;
    job.renderer = renderer;
    job.iteration = iteration_;
    job.timestamp_us = NowMicros();
    job.buffer = writer_.AcquireBuffer(bytes);
    return job;
  }

  void SubmitStats(const std::shared_ptr<const JobRenderer>& renderer,
                   const TensorView* views, size_t count) {
    WriteJob job = NewJob(renderer, count * sizeof(TensorStats));
    for (size_t i = 0; i < count; ++i) {
      const TensorStats s = ComputeStats(views[i]);
      std::memcpy(job.buffer.data() + job.used, &s, sizeof(s));
      job.used += sizeof(s);
    }
    writer_.Submit(std::move(job));
  }

  void FlushStats(const Target& t) {
    WriteJob job =
        NewJob(t.renderer, pending_stats_count_ * sizeof(TensorStats));
    std::memcpy(job.buffer.data(), pending_stats_.data(),
                pending_stats_count_ * sizeof(TensorStats));
    job.used = pending_stats_count_ * sizeof(TensorStats);
    writer_.Submit(std::move(job));
  }

  std::shared_ptr<DumpSession> session_;
  DumpWriter& writer_;
  const bool stats_mode_;
  const std::optional<StepSet> steps_;
  const std::vector<Target> targets_;
  std::vector<uint64_t> data_dumped_;  // per graph input: iteration last dumped
  uint64_t iteration_ = 0;
  bool inside_ = false;
  WriteJob pending_;
  // Sized for the largest step at construction (no allocation while running).
  std::vector<TensorStats> pending_stats_;
  size_t pending_stats_count_ = 0;
};

}  // namespace

Attachment MakeModelDumpObserver(std::shared_ptr<DumpSession> session,
                                 const DumpPlan& plan,
                                 const CompiledModel& model,
                                 const ModelIdentity& identity) {
  const DumpConfig& config = session->config();
  const bool stats = config.data == DumpData::kStats;
  const std::string directory =
      ModelDirectory(*session, identity, plan.model_name);
  const Graph& graph = model.graph();
  std::vector<ModelDumpObserver::Target> targets(model.steps().size());
  size_t max_tensors = 1;
  for (size_t s = 0; s < model.steps().size(); ++s) {
    const StepInfo& step = model.steps()[s];
    ModelDumpObserver::Target& t = targets[s];
    t.inputs = plan.dump_inputs[s];
    t.outputs = plan.dump_outputs[s];
    FilePlace place{directory, true, EscapeNamePart(step.op_type),
                    EscapeNamePart(step.name), step.task_id};
    if (t.inputs) t.input_slots = PresentInputs(step);
    for (uint32_t slot : t.input_slots)
      t.input_bytes += step.input_infos[slot].ByteSize();
    if (t.outputs) {
      for (const TensorInfo& info : step.output_infos)
        t.output_bytes += info.ByteSize();
    }
    max_tensors =
        std::max(max_tensors, t.input_slots.size() + step.output_infos.size());
    if (t.inputs || t.outputs) {
      if (stats) {
        std::vector<StatsRow> rows;
        for (uint32_t slot : t.input_slots)
          rows.push_back(RowFor(step.input_infos[slot], true, slot));
        if (t.outputs) {
          for (size_t o = 0; o < step.output_infos.size(); ++o) {
            rows.push_back(
                RowFor(step.output_infos[o], false, static_cast<uint32_t>(o)));
          }
        }
        place.suffix = ".csv";
        t.renderer = std::make_shared<StatsFileRenderer>(place, std::move(rows),
                                                         config.stats);
      } else {
        std::vector<size_t> sizes;
        for (uint32_t slot : t.input_slots)
          sizes.push_back(step.input_infos[slot].ByteSize());
        if (t.outputs) {
          for (const TensorInfo& info : step.output_infos)
            sizes.push_back(info.ByteSize());
        }
        t.renderer = std::make_shared<TensorFileRenderer>(
            place, HeaderFor(step, t.input_slots, t.outputs), std::move(sizes));
      }
    }
    for (int g : plan.data_inputs[s]) {
      const NamedTensorInfo& input = graph.inputs[g];
      for (size_t slot = 0; slot < step.input_names.size(); ++slot) {
        if (step.input_names[slot] != input.name) continue;
        FilePlace data_place{directory, true, "Data",
                             EscapeNamePart(input.name), step.task_id};
        std::shared_ptr<const JobRenderer> renderer;
        if (stats) {
          data_place.suffix = ".csv";
          renderer = std::make_shared<StatsFileRenderer>(
              data_place, std::vector<StatsRow>{RowFor(input.info, false, 0)},
              config.stats);
        } else {
          DumpProto header;
          header.set_version("2.0");
          header.set_op_name(input.name);
          AddOutput(header, input.info, 0, input.name);
          AddAttr(header, "op_type", "Data");
          renderer = std::make_shared<TensorFileRenderer>(
              data_place, std::move(header),
              std::vector<size_t>{input.info.ByteSize()});
        }
        t.data_ops.push_back({static_cast<uint32_t>(slot), g,
                              input.info.ByteSize(), std::move(renderer)});
        break;
      }
    }
  }
  auto observer = std::make_shared<ModelDumpObserver>(
      std::move(session), std::move(targets), graph.inputs.size(), max_tensors);
  return Attachment{std::move(observer), plan.step_flags};
}

// ---------------------------------------------------------------------------------------------

namespace {

class OverflowObserver final : public ExecutionObserver {
 public:
  struct Target {
    std::shared_ptr<const JobRenderer> op_file;
    std::shared_ptr<const JobRenderer> record;
    std::vector<uint32_t> input_slots;
    size_t bytes = 0;
  };
  OverflowObserver(std::shared_ptr<DumpSession> session,
                   std::vector<Target> targets, const ModelIdentity& identity)
      : session_(std::move(session)),
        targets_(std::move(targets)),
        identity_(identity) {}

  bool BeginIteration(uint64_t iteration) override {
    const auto& steps = session_->config().steps;
    if (steps && !steps->Contains(iteration)) return false;
    if (!session_->EnterExecution()) return false;
    inside_ = true;
    iteration_ = iteration;
    return true;
  }

  void AfterNode(const NodeEvent& e) override {
    bool overflow = false;
    for (const TensorView& out : e.outputs) overflow |= HasNonFinite(out);
    if (!overflow) return;
    // Inf/NaN that came in through the inputs is not this op's overflow.
    for (const TensorView& in : e.inputs) {
      if (in.present() && HasNonFinite(in)) return;
    }
    const Target& t = targets_[e.step.task_id];
    DumpWriter& writer = session_->writer();
    const uint64_t now = NowMicros();
    WriteJob job;
    job.renderer = t.op_file;
    job.iteration = iteration_;
    job.timestamp_us = now;
    job.buffer = writer.AcquireBuffer(t.bytes);
    for (uint32_t slot : t.input_slots) Append(job, e.inputs[slot]);
    for (const TensorView& out : e.outputs) Append(job, out);
    writer.Submit(std::move(job));
    OverflowRecord record;
    record.model_id = identity_.model_id;
    record.task_id = e.step.task_id;
    record.stream_id = 0;
    const std::string payload = EncodeOverflowPayload(record);
    WriteJob debug;
    debug.renderer = t.record;
    debug.iteration = iteration_;
    debug.timestamp_us = now;
    debug.buffer = writer.AcquireBuffer(payload.size());
    std::memcpy(debug.buffer.data(), payload.data(), payload.size());
    debug.used = payload.size();
    writer.Submit(std::move(debug));
  }

  absl::Status EndIteration(uint64_t) override {
    if (inside_) {
      inside_ = false;
      session_->ExitExecution();
    }
    return absl::OkStatus();
  }

 private:
  std::shared_ptr<DumpSession> session_;
  const std::vector<Target> targets_;
  ModelIdentity identity_;
  uint64_t iteration_ = 0;
  bool inside_ = false;
};

// The Opdebug record file: a dump file with one DT_UINT8 [2048] output.
class OverflowRecordRenderer final : public JobRenderer {
 public:
  OverflowRecordRenderer(std::string directory, uint32_t task_id)
      : directory_(std::move(directory)), task_id_(task_id) {}
  absl::Status Render(const WriteJob& job, RenderedFile& file) const override {
    file.directory = StrCat(directory_, job.iteration);
    file.name =
        OverflowRecordFileName(task_id_, /*stream_id=*/0, job.timestamp_us);
    DumpProto header;
    header.set_version("2.0");
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
  const std::string directory =
      ModelDirectory(*session, identity, model.graph().name);
  std::vector<OverflowObserver::Target> targets(model.steps().size());
  std::vector<uint8_t> flags(model.steps().size(), kObserveNothing);
  for (size_t s = 0; s < model.steps().size(); ++s) {
    const StepInfo& step = model.steps()[s];
    if (!HasFloatOutput(step)) continue;
    flags[s] = kObserveAfter;
    OverflowObserver::Target& t = targets[s];
    t.input_slots = PresentInputs(step);
    std::vector<size_t> sizes;
    for (uint32_t slot : t.input_slots)
      sizes.push_back(step.input_infos[slot].ByteSize());
    for (const TensorInfo& info : step.output_infos)
      sizes.push_back(info.ByteSize());
    for (size_t size : sizes) t.bytes += size;
    FilePlace place{directory, true, EscapeNamePart(step.op_type),
                    EscapeNamePart(step.name), step.task_id};
    t.op_file = std::make_shared<TensorFileRenderer>(
        place, HeaderFor(step, t.input_slots, true), std::move(sizes));
    t.record =
        std::make_shared<OverflowRecordRenderer>(directory, step.task_id);
  }
  return Attachment{std::make_shared<OverflowObserver>(
                        std::move(session), std::move(targets), identity),
                    std::move(flags)};
}

// ---------------------------------------------------------------------------------------------

namespace {

// Writes the failing node's inputs, outputs, workspace and launch parameters
// (S18, §6), then waits for the file, so it exists even if the process ends
// right after the failure.
void WriteExceptionDump(DumpSession& session, int32_t device_id,
                        const NodeEvent& e, const absl::Status& status,
                        std::string_view model_name) {
  DumpProto header;
  header.set_version("2.0");
  const uint64_t now = NowMicros();
  header.set_dump_time(now);
  header.set_op_name(e.step.name);
  std::vector<std::string_view> payloads;
  for (size_t i = 0; i < e.inputs.size(); ++i) {
    if (!e.inputs[i].present()) continue;
    AddInput(header, e.inputs[i].info(), static_cast<uint32_t>(i));
    header.mutable_input(header.input_size() - 1)
        ->set_input_type(kInputTypeInput);
    payloads.emplace_back(static_cast<const char*>(e.inputs[i].data),
                          e.inputs[i].ByteSize());
  }
  std::string tiling;
  for (const auto& [name, value] : e.step.launch_params)
    StrAppend(tiling, name, "=", value, ";");
  if (!tiling.empty()) {
    auto* in = header.add_input();
    in->set_data_type(toolkit::dumpdata::DT_UINT8);
    in->set_format(toolkit::dumpdata::FORMAT_ND);
    in->mutable_shape()->add_dim(tiling.size());
    in->set_size(tiling.size());
    in->set_input_type(kInputTypeTilingData);
    payloads.emplace_back(tiling);
  }
  for (size_t o = 0; o < e.outputs.size(); ++o) {
    AddOutput(header, e.outputs[o].info(), static_cast<uint32_t>(o),
              e.step.original_names.empty() ? e.step.name
                                            : e.step.original_names.back());
    payloads.emplace_back(static_cast<const char*>(e.outputs[o].data),
                          e.outputs[o].ByteSize());
  }
  if (!e.workspace.empty()) {
    auto* space = header.add_space();
    space->set_size(e.workspace.size());
    space->set_arg_index(kInputTypeWorkspace);
    payloads.emplace_back(reinterpret_cast<const char*>(e.workspace.data()),
                          e.workspace.size());
  }
  AddAttr(header, "op_type", e.step.op_type);
  AddAttr(header, "original_names", StrJoin(e.step.original_names, ","));
  if (e.step.attrs != nullptr) {
    for (const auto& [name, value] : e.step.attrs->values()) {
      AddAttr(header, name, AttrValueToString(value));
    }
  }
  for (const auto& [name, value] : e.step.launch_params)
    AddAttr(header, "launch." + name, value);
  header.set_dfx_message(StrCat("model '", model_name, "', iteration ",
                                e.iteration, ", task ", e.step.task_id, ": ",
                                status.message()));
  // Packed payload copy: the writer renders from the job buffer.
  size_t total = 0;
  for (std::string_view p : payloads) total += p.size();
  DumpWriter& writer = session.writer();
  WriteJob job;
  job.timestamp_us = now;
  job.buffer = writer.AcquireBuffer(total);
  std::vector<size_t> sizes;
  for (std::string_view p : payloads) {
    if (!p.empty())
      std::memcpy(job.buffer.data() + job.used, p.data(), p.size());
    job.used += p.size();
    sizes.push_back(p.size());
  }
  FilePlace place{StrCat(session.root(), "/extra-info/data-dump/", device_id),
                  false, EscapeNamePart(e.step.op_type),
                  EscapeNamePart(e.step.name), e.step.task_id};
  job.renderer = std::make_shared<TensorFileRenderer>(place, std::move(header),
                                                      std::move(sizes), 0400);
  writer.Submit(std::move(job));
  writer.Flush()
      .IgnoreError();  // failures stay recorded for the session's report
}

class ExceptionObserver final : public ExecutionObserver {
 public:
  ExceptionObserver(std::shared_ptr<DumpSession> session, int32_t device_id,
                    std::string model)
      : session_(std::move(session)),
        device_id_(device_id),
        model_(std::move(model)) {}
  bool BeginIteration(uint64_t) override {
    return false;
  }  // only failures matter
  void OnNodeFailure(const NodeEvent& e, const absl::Status& status) override {
    if (!session_->EnterExecution()) return;
    WriteExceptionDump(*session_, device_id_, e, status, model_);
    session_->ExitExecution();
  }

 private:
  std::shared_ptr<DumpSession> session_;
  int32_t device_id_;
  std::string model_;
};

class SingleOpObserver final : public ExecutionObserver {
 public:
  SingleOpObserver(std::shared_ptr<DumpSession> session, int32_t device_id)
      : session_(std::move(session)), device_id_(device_id) {}

  bool BeginIteration(uint64_t) override {
    if (!session_->config().single_op_dump()) return false;
    if (!session_->EnterExecution()) return false;
    inside_ = true;
    task_id_ = session_->NextSingleOpTaskId();
    return true;
  }
  void BeforeNode(const NodeEvent&) override {}
  void AfterNode(const NodeEvent& e) override {
    // Inputs are still intact after a single op ran: one file with both, per
    // dump_mode.
    const DumpConfig& config = session_->config();
    const bool inputs = config.mode != DumpMode::kOutput;
    const bool outputs = config.mode != DumpMode::kInput;
    const std::vector<uint32_t> slots =
        inputs ? PresentInputs(e.step) : std::vector<uint32_t>{};
    FilePlace place{
        StrCat(session_->root(), "/", session_->time_folder(), "/", device_id_),
        false, EscapeNamePart(e.step.op_type), EscapeNamePart(e.step.name),
        static_cast<uint32_t>(task_id_)};
    std::vector<TensorView> views;
    for (uint32_t slot : slots) views.push_back(e.inputs[slot]);
    if (outputs) views.insert(views.end(), e.outputs.begin(), e.outputs.end());
    DumpWriter& writer = session_->writer();
    WriteJob job;
    job.iteration = 0;
    job.timestamp_us = NowMicros();
    if (config.data == DumpData::kStats) {
      std::vector<StatsRow> rows;
      for (uint32_t slot : slots)
        rows.push_back(RowFor(e.inputs[slot].info(), true, slot));
      if (outputs) {
        for (size_t o = 0; o < e.outputs.size(); ++o) {
          rows.push_back(
              RowFor(e.outputs[o].info(), false, static_cast<uint32_t>(o)));
        }
      }
      place.suffix = ".csv";
      job.buffer = writer.AcquireBuffer(views.size() * sizeof(TensorStats));
      for (const TensorView& view : views) {
        const TensorStats s = ComputeStats(view);
        std::memcpy(job.buffer.data() + job.used, &s, sizeof(s));
        job.used += sizeof(s);
      }
      job.renderer = std::make_shared<StatsFileRenderer>(place, std::move(rows),
                                                         config.stats);
    } else {
      std::vector<size_t> sizes;
      size_t total = 0;
      for (const TensorView& view : views) {
        sizes.push_back(view.ByteSize());
        total += view.ByteSize();
      }
      job.buffer = writer.AcquireBuffer(total);
      for (const TensorView& view : views) Append(job, view);
      job.renderer = std::make_shared<TensorFileRenderer>(
          place, HeaderFor(e.step, slots, outputs), std::move(sizes));
    }
    writer.Submit(std::move(job));
  }
  void OnNodeFailure(const NodeEvent& e, const absl::Status& status) override {
    if (session_->config().scene != DumpScene::kException) return;
    if (!session_->EnterExecution()) return;
    WriteExceptionDump(*session_, device_id_, e, status, "(single op)");
    session_->ExitExecution();
  }
  absl::Status EndIteration(uint64_t) override {
    if (inside_) {
      inside_ = false;
      session_->ExitExecution();
    }
    return absl::OkStatus();
  }

 private:
  std::shared_ptr<DumpSession> session_;
  int32_t device_id_;
  bool inside_ = false;
  uint64_t task_id_ = 0;
};

}  // namespace

Attachment MakeExceptionObserver(std::shared_ptr<DumpSession> session,
                                 const CompiledModel& model,
                                 const ModelIdentity& identity) {
  return Attachment{
      std::make_shared<ExceptionObserver>(
          std::move(session), identity.device_id, model.graph().name),
      std::vector<uint8_t>(model.steps().size(), kObserveNothing)};
}

std::shared_ptr<ExecutionObserver> MakeSingleOpObserver(
    std::shared_ptr<DumpSession> session, int32_t device_id) {
  return std::make_shared<SingleOpObserver>(std::move(session), device_id);
}

}  // namespace acldump::dump
