// Baseline diff (dump_baseline): each selected operator's tensors are reduced
// to the statistics of the baseline's record (the checksum alone when it has
// one) and compared with it as the operator finishes, while its inputs and
// outputs are still in memory. Only the first `baseline_tensors` operators
// that differ in an iteration have their tensors written (inputs and
// outputs), and an iteration with any difference gets a baseline_diff.json
// naming where it departed. Nothing is written when nothing differs.
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>

#include "base/error_kind.h"
#include "base/strings.h"
#include "base/text.h"
#include "dump/baseline.h"
#include "dump/format/dump_names.h"
#include "dump/format/stats_csv.h"
#include "dump/observers.h"
#include "dump/payload.h"
#include "dump/session_observer.h"
#include "dump/stats.h"
#include "nlohmann/json.hpp"

namespace acldump::dump {
namespace {

// One tensor compared with a baseline row.
struct Check {
  bool is_input = false;
  uint32_t slot = 0;  // input slot or output index of the step
  StatsRow row;       // ours, to format the statistics as the CSV writer does
  const BaselineRow* baseline = nullptr;
};

// A step's (or a graph input's) comparison in one baseline iteration.
struct Comparison {
  const BaselineRecord* record = nullptr;  // null: nothing to compare
  std::vector<Check> checks;
  // Set at load when the record cannot match (a shape, type or tensor that
  // differs): the operator differs in every iteration, for this reason.
  std::string static_difference;
};

// What is written for a differing operator.
struct Writable {
  std::shared_ptr<const JobRenderer> renderer;
  size_t bytes = 0;
  size_t tensors = 0;
  std::vector<uint32_t> input_slots;
  std::vector<uint32_t> outputs;
};

struct DataCheck {
  uint32_t slot = 0;  // the reading step's input slot
  int graph_input = 0;
};

// Per step, what does not depend on the iteration.
struct StepTarget {
  bool compared = false;
  Writable writable;
  std::vector<DataCheck> data;
};

struct Difference {
  std::string op_type;
  std::string op_name;
  uint32_t task_id = 0;
  std::vector<std::string> original_names;
  std::string tensor;  // "output 0"
  nlohmann::json detail;
  bool tensors_written = false;
};

std::string Hex(uint64_t value) {
  char text[17];
  std::snprintf(text, sizeof(text), "%016" PRIx64, value);
  return text;
}

// ",8,1.5,...\n" -> {"8", "1.5", ...}.
std::vector<std::string> SplitCells(std::string_view text) {
  if (!text.empty() && text.back() == '\n') text.remove_suffix(1);
  if (!text.empty() && text.front() == ',') text.remove_prefix(1);
  std::vector<std::string> cells;
  size_t begin = 0;
  while (true) {
    const size_t comma = text.find(',', begin);
    cells.emplace_back(text.substr(begin, comma - begin));
    if (comma == std::string_view::npos) return cells;
    begin = comma + 1;
  }
}

// Everything an observer needs, built at load.
struct BaselinePlan {
  std::vector<StepTarget> targets;  // per step (task id)
  // Per baseline iteration: per step / per graph input.
  std::map<int64_t, std::vector<Comparison>> steps;
  std::map<int64_t, std::vector<Comparison>> data;
  const BaselineModel* base = nullptr;   // the session keeps it
  std::vector<Writable> data_writables;  // per graph input
  std::vector<std::string> data_names;   // per graph input
  std::string model_name;
  std::string directory;  // this run's model folder
};

class BaselineObserver final : public SessionObserver {
 public:
  BaselineObserver(std::shared_ptr<DumpSession> session, BaselinePlan plan,
                   uint32_t model_id)
      : SessionObserver(std::move(session), /*filter_steps=*/true, model_id),
        payload_(this->session().payload()),
        limit_(this->session().config().baseline_tensors),
        plan_(std::move(plan)),
        data_seen_(plan_.data_names.size(), UINT64_MAX),
        summary_renderer_(std::make_shared<ReportFileRenderer>(
            plan_.directory, std::string(kBaselineSummaryFileName),
            /*per_iteration=*/true)) {}

  bool BeginIteration(uint64_t iteration) override {
    if (!SessionObserver::BeginIteration(iteration)) return false;
    const BaselineModel& base = *plan_.base;
    const int64_t key = base.every_iteration ? base.iterations.begin()->first
                                             : static_cast<int64_t>(iteration);
    current_ = base.For(key);
    current_steps_ = current_ ? &plan_.steps.at(key) : nullptr;
    current_data_ = current_ ? &plan_.data.at(key) : nullptr;
    differences_.clear();
    compared_ = 0;
    written_ = 0;
    return true;
  }

  void AfterNode(const NodeEvent& e) override {
    const uint32_t task = e.step.task_id;
    const StepTarget& target = plan_.targets[task];
    for (const DataCheck& d : target.data) CompareDataInput(d, e);
    if (!target.compared || current_steps_ == nullptr) return;
    const Comparison& c = (*current_steps_)[task];
    if (c.record == nullptr) return;
    ++compared_;
    auto view = [&](const Check& check) -> const TensorView& {
      return check.is_input ? e.inputs[check.slot] : e.outputs[check.slot];
    };
    std::optional<Difference> found = Compare(c, view);
    if (!found) return;
    found->op_type = e.step.op_type;
    found->op_name = e.step.name;
    found->task_id = task;
    found->original_names = e.step.original_names;
    if (written_ < limit_) {
      ++written_;
      found->tensors_written = true;
      const Writable& w = target.writable;
      WriteJob job = NewJob(w.renderer, w.bytes);
      payload_.Begin(w.tensors, job);
      size_t slot = 0;
      for (uint32_t input : w.input_slots)
        payload_.Capture(slot++, e.inputs[input], job);
      for (uint32_t o : w.outputs) payload_.Capture(slot++, e.outputs[o], job);
      Submit(std::move(job));
    }
    differences_.push_back(*std::move(found));
  }

 private:
  // The first tensor of `c` that departs from its baseline row.
  template <typename ViewOf>
  std::optional<Difference> Compare(const Comparison& c, ViewOf&& view) {
    if (!c.static_difference.empty()) {
      Difference d;
      d.tensor = "record";
      d.detail = {{"reason", c.static_difference}};
      return d;
    }
    for (const Check& check : c.checks) {
      // The checksum alone decides where the baseline has one.
      const std::optional<uint64_t>& expected = check.baseline->checksum;
      if (c.record->checksum && expected) {
        const uint64_t checksum = TensorChecksum(view(check));
        if (checksum == *expected) continue;
        Difference d;
        d.tensor = TensorName(check);
        d.detail = {{"column", "Checksum"},
                    {"baseline", Hex(*expected)},
                    {"run", Hex(checksum)}};
        return d;
      }
      const TensorStats stats = ComputeStats(view(check), c.record->checksum);
      scratch_.clear();
      AppendStatsCsvCells(scratch_, check.row, stats, c.record->columns);
      if (scratch_ == check.baseline->cells) continue;
      Difference d;
      d.tensor = TensorName(check);
      d.detail = CellDifferences(*c.record, check.baseline->cells, scratch_);
      return d;
    }
    return std::nullopt;
  }

  static std::string TensorName(const Check& check) {
    return StrCat(check.is_input ? "input " : "output ", check.slot);
  }

  // The statistic columns whose cells differ (cold path).
  static nlohmann::json CellDifferences(const BaselineRecord& record,
                                        std::string_view baseline,
                                        std::string_view run) {
    const std::vector<std::string> a = SplitCells(baseline);
    const std::vector<std::string> b = SplitCells(run);
    nlohmann::json columns = nlohmann::json::array();
    for (size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
      const std::string x = i < a.size() ? a[i] : "";
      const std::string y = i < b.size() ? b[i] : "";
      if (x == y) continue;
      columns.push_back(
          {{"column", i < record.headers.size() ? record.headers[i]
                                                : StrCat("column ", i + 1)},
           {"baseline", x},
           {"run", y}});
    }
    return {{"columns", std::move(columns)}};
  }

  // A graph input, compared once per iteration (by its first reader).
  void CompareDataInput(const DataCheck& d, const NodeEvent& e) {
    if (data_seen_[d.graph_input] == iteration()) return;
    data_seen_[d.graph_input] = iteration();
    if (current_data_ == nullptr) return;
    const Comparison& c = (*current_data_)[d.graph_input];
    if (c.record == nullptr) return;
    ++compared_;
    std::optional<Difference> found = Compare(
        c, [&](const Check&) -> const TensorView& { return e.inputs[d.slot]; });
    if (!found) return;
    const Writable& w = plan_.data_writables[d.graph_input];
    found->op_type = "Data";
    found->op_name = plan_.data_names[d.graph_input];
    found->task_id = e.step.task_id;
    if (written_ < limit_) {
      ++written_;
      found->tensors_written = true;
      WriteJob job = NewJob(w.renderer, w.bytes);
      payload_.Begin(1, job);
      payload_.Capture(0, e.inputs[d.slot], job);
      Submit(std::move(job));
    }
    differences_.push_back(*std::move(found));
  }

  void OnIterationEnd() override {
    if (differences_.empty()) return;
    const std::string text = SummaryText();
    WriteJob job = NewJob(summary_renderer_, text.size());
    std::memcpy(job.buffer.data(), text.data(), text.size());
    job.used = text.size();
    Submit(std::move(job));
    differences_.clear();
  }

  std::string SummaryText() const {
    auto entry = [](const Difference& d) {
      nlohmann::json out = {
          {"op_name", d.op_name}, {"op_type", d.op_type},
          {"task_id", d.task_id}, {"original_names", d.original_names},
          {"tensor", d.tensor},   {"tensors_written", d.tensors_written}};
      for (auto& [key, value] : d.detail.items()) out[key] = value;
      return out;
    };
    nlohmann::json differing = nlohmann::json::array();
    for (const Difference& d : differences_) differing.push_back(entry(d));
    nlohmann::json summary = {
        {"model", plan_.model_name},
        {"iteration", iteration()},
        {"baseline", current_->directory},
        {"records_compared", compared_},
        {"operators_differing", differences_.size()},
        {"tensors_written_for", written_},
        {"first_difference", entry(differences_.front())},
        {"differences", std::move(differing)},
    };
    return summary.dump(2, ' ', false,
                        nlohmann::ordered_json::error_handler_t::replace) +
           "\n";
  }

  const Payload& payload_;
  const uint32_t limit_;
  const BaselinePlan plan_;
  std::vector<uint64_t> data_seen_;  // per graph input: iteration compared
  const std::shared_ptr<const JobRenderer> summary_renderer_;

  const BaselineIteration* current_ = nullptr;
  const std::vector<Comparison>* current_steps_ = nullptr;
  const std::vector<Comparison>* current_data_ = nullptr;
  std::vector<Difference> differences_;
  uint64_t compared_ = 0;
  uint32_t written_ = 0;
  std::string scratch_;
};

// The checks of `record` against a step's (or graph input's) tensors, or why
// it cannot match.
Comparison MakeComparison(const BaselineRecord& record,
                          const std::vector<TensorInfo>& inputs,
                          const std::vector<TensorInfo>& outputs) {
  Comparison c;
  c.record = &record;
  for (const BaselineRow& row : record.rows) {
    const std::vector<TensorInfo>& infos = row.is_input ? inputs : outputs;
    const char* kind = row.is_input ? "input " : "output ";
    if (row.index >= infos.size() || !infos[row.index].present()) {
      c.static_difference = StrCat("the baseline has ", kind, row.index,
                                   ", which this run's operator does not");
      return c;
    }
    Check check;
    check.is_input = row.is_input;
    check.slot = row.index;
    check.row = StatsRowOf({row.is_input, row.index, infos[row.index], ""});
    check.baseline = &row;
    const std::string lead = StatsCsvRowLead(check.row);
    if (lead != row.lead) {
      c.static_difference =
          StrCat(kind, row.index, " is ", Quote(lead), " in this run, ",
                 Quote(row.lead), " in the baseline");
      return c;
    }
    c.checks.push_back(std::move(check));
  }
  return c;
}

Writable MakeWritable(const Payload& payload, RecordSpec spec,
                      std::vector<uint32_t> input_slots,
                      std::vector<uint32_t> outputs) {
  Writable w;
  w.tensors = spec.tensors.size();
  w.bytes = payload.JobBytes(spec);
  w.renderer = payload.MakeRenderer(std::move(spec));
  w.input_slots = std::move(input_slots);
  w.outputs = std::move(outputs);
  return w;
}

// The graph input `g` read by `step`: its input slot.
std::optional<uint32_t> SlotOfGraphInput(const StepInfo& step,
                                         const std::string& name) {
  for (size_t slot = 0; slot < step.input_names.size(); ++slot) {
    if (step.input_names[slot] == name) return static_cast<uint32_t>(slot);
  }
  return std::nullopt;
}

// Per step: what it writes when it differs, the graph inputs it compares.
void PlanTargets(const DumpPlan& plan, const CompiledModel& model,
                 const Payload& payload, BaselinePlan& p,
                 std::vector<uint8_t>& flags) {
  const Graph& graph = model.graph();
  const size_t n = model.steps().size();
  p.targets.resize(n);
  p.data_writables.resize(graph.inputs.size());
  for (const NamedTensorInfo& input : graph.inputs) {
    p.data_names.push_back(input.name);
  }
  flags.assign(n, kObserveNothing);
  for (size_t s = 0; s < n; ++s) {
    const StepInfo& step = model.steps()[s];
    StepTarget& t = p.targets[s];
    if (plan.dump_inputs[s] || plan.dump_outputs[s]) {
      std::vector<uint32_t> inputs = PresentInputs(step);
      std::vector<uint32_t> outputs = AllOutputs(step);
      t.compared = true;
      t.writable =
          MakeWritable(payload, StepRecord(step, p.directory, inputs, outputs),
                       inputs, outputs);
      flags[s] |= kObserveAfter;
    }
    for (int g : plan.data_inputs[s]) {
      const std::optional<uint32_t> slot =
          SlotOfGraphInput(step, graph.inputs[g].name);
      if (!slot) continue;
      t.data.push_back({*slot, g});
      flags[s] |= kObserveAfter;
      if (!p.data_writables[g].renderer) {
        p.data_writables[g] = MakeWritable(
            payload, DataRecord(graph.inputs[g], p.directory, step.task_id), {},
            {0});
      }
    }
  }
}

// Per baseline iteration, the comparison of every compared step and graph
// input; warns about compared operators the baseline has no record of.
void PlanComparisons(const CompiledModel& model, const BaselineModel& base,
                     BaselinePlan& p, std::vector<std::string>* warnings) {
  const Graph& graph = model.graph();
  const size_t n = model.steps().size();
  std::vector<uint8_t> found(n, 0);
  for (const auto& [iteration, records] : base.iterations) {
    std::vector<Comparison>& steps = p.steps[iteration];
    std::vector<Comparison>& data = p.data[iteration];
    steps.resize(n);
    data.resize(graph.inputs.size());
    for (size_t s = 0; s < n; ++s) {
      const StepInfo& step = model.steps()[s];
      if (p.targets[s].compared) {
        const BaselineRecord* record =
            records.Find(BaselineKey(step.op_type, step.name));
        if (record != nullptr) {
          found[s] = 1;
          steps[s] =
              MakeComparison(*record, step.input_infos, step.output_infos);
        }
      }
      for (const DataCheck& d : p.targets[s].data) {
        const NamedTensorInfo& input = graph.inputs[d.graph_input];
        const BaselineRecord* record =
            records.Find(BaselineKey("Data", input.name));
        if (record != nullptr) {
          data[d.graph_input] = MakeComparison(*record, {}, {input.info});
        }
      }
    }
  }
  size_t missing = 0;
  std::string first;
  for (size_t s = 0; s < n; ++s) {
    if (!p.targets[s].compared || found[s]) continue;
    if (missing++ == 0) first = model.steps()[s].name;
  }
  if (missing > 0 && warnings != nullptr) {
    warnings->push_back(StrCat(
        "dump_baseline: ", missing, " operator", missing == 1 ? "" : "s",
        " of model '", p.model_name, "' (first '", first,
        "') have no record in the baseline and are not compared; was the "
        "baseline dumped from the same model with the same dump_list?"));
  }
}

}  // namespace

absl::StatusOr<Attachment> MakeBaselineObserver(
    std::shared_ptr<DumpSession> session, const DumpPlan& plan,
    const CompiledModel& model, const ModelIdentity& identity,
    std::vector<std::string>* warnings) {
  const Baseline& baseline = *session->baseline();
  const BaselineModel* base =
      baseline.FindModel(EscapeNamePart(plan.model_name));
  if (base == nullptr) {
    return WithKind(
        absl::InvalidArgumentError(StrCat(
            "dump_baseline '", baseline.root(), "' holds no run of model '",
            plan.model_name, "' (it holds ", baseline.DescribeModels(),
            "); make the baseline with a stats dump of this model, or take "
            "the model out of dump_list")),
        ErrorKind::kInvalidDumpConfig);
  }
  BaselinePlan p;
  p.model_name = plan.model_name;
  p.base = base;
  p.directory =
      ModelFolder(identity.device_id, plan.model_name, identity.model_id);
  std::vector<uint8_t> flags;
  PlanTargets(plan, model, session->payload(), p, flags);
  PlanComparisons(model, *base, p, warnings);
  auto observer = std::make_shared<BaselineObserver>(
      std::move(session), std::move(p), identity.model_id);
  return Attachment{std::move(observer), std::move(flags)};
}

}  // namespace acldump::dump
