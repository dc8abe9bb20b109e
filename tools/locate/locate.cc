#include "tools/locate/locate.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "base/status_macros.h"
#include "base/strings.h"
#include "dump/dump_manager.h"
#include "fmt/format.h"
#include "kernels/ops.h"
#include "nlohmann/json.hpp"
#include "runtime/model_loader.h"
#include "tools/common/array_files.h"
#include "tools/common/cli_util.h"
#include "tools/compare/compare.h"
#include "tools/reference/engine.h"
#include "tools/replay/replay.h"
#include "tools/run/run.h"

namespace acldump::tools {
namespace {

namespace fs = std::filesystem;

// The graph inputs' values: files (in order or name=file), the rest seeded
// random as `dump run` and `dump reference` make them.
absl::StatusOr<std::vector<Tensor>> MakeInputs(const Graph& graph,
                                               const LocateOptions& options) {
  std::vector<std::string> names;
  for (const NamedTensorInfo& in : graph.inputs) names.push_back(in.name);
  ASSIGN_OR_RETURN(std::vector<InputFile> files,
                   AssignInputFiles(options.inputs, names));
  std::vector<std::optional<Tensor>> given(graph.inputs.size());
  for (const InputFile& file : files) {
    ASSIGN_OR_RETURN(Tensor tensor, ReadArrayFile(file.path));
    const TensorInfo& want = graph.inputs[file.index].info;
    if (tensor.info() != want) {
      return absl::InvalidArgumentError(
          StrCat("input '", names[file.index], "' is ", want.ToString(),
                 " but '", file.path, "' holds ", tensor.info().ToString()));
    }
    given[file.index] = std::move(tensor);
  }
  std::vector<Tensor> inputs;
  for (size_t i = 0; i < graph.inputs.size(); ++i) {
    if (given[i]) {
      inputs.push_back(*std::move(given[i]));
      continue;
    }
    Tensor tensor(graph.inputs[i].info.dtype, graph.inputs[i].info.shape);
    FillRandom(tensor.view(), options.seed + i);
    inputs.push_back(std::move(tensor));
  }
  return inputs;
}

// What a step's comparison says: within, outside (with why), or nothing
// compared.
struct Outcome {
  Verdict verdict = Verdict::kNotCompared;
  std::string detail;
};

std::string Describe(const TensorComparison& t) {
  if (!t.problem.empty()) return t.problem;
  return StrCat(t.b_label.empty() ? "" : StrCat("against ", t.b_label, ": "),
                "max |diff| ", fmt::format("{:.3g}", t.metrics.max_abs),
                ", cosine ", fmt::format("{:.6f}", t.metrics.cosine), ", ",
                t.tolerance.violations, " of ", t.metrics.count,
                " elements outside");
}

// Runs the model with one operator's outputs dumped, and compares them.
class Prober {
 public:
  Prober(CompiledModel& model, const std::vector<Tensor>& inputs,
         const CompareTree& reference, const LocateOptions& options,
         std::string work)
      : model_(model),
        inputs_(inputs),
        reference_(reference),
        options_(options),
        work_(std::move(work)) {}

  absl::StatusOr<Outcome> Probe(size_t position) {
    const StepInfo& step = model_.steps()[position];
    const std::string dir = StrCat(work_, "/step_", ++probes_);
    fs::create_directories(dir + "/dump");
    const std::string config = dir + "/acl.json";
    nlohmann::json json = {
        {"dump",
         {{"dump_path", dir + "/dump"},
          {"dump_list",
           {{{"model_name", model_.graph().name}, {"layer", {step.name}}}}}}}};
    std::ofstream(config) << json.dump();
    RETURN_IF_ERROR(RunDumped(config));
    ASSIGN_OR_RETURN(CompareTree dumped, LoadCompareTree(dir + "/dump", {}));
    const TreeCompareResult result =
        CompareTrees(dumped, reference_, {options_.atol, options_.rtol});
    Outcome outcome;
    for (const FolderPair& pair : result.pairs) {
      for (const OpComparison& op : pair.result.ops) {
        if (op.a == nullptr || op.a->name != step.name) continue;
        outcome.verdict = op.outputs;
        for (const TensorComparison& t : op.tensors) {
          if (t.is_input) continue;
          if (outcome.detail.empty() || !t.within()) {
            outcome.detail = StrCat("output ", t.position, " ", Describe(t));
          }
          if (!t.within()) break;
        }
      }
    }
    return outcome;
  }

  size_t probes() const { return probes_; }

 private:
  absl::Status RunDumped(const std::string& config) {
    dump::DumpManager manager;
    RETURN_IF_ERROR(manager.InitDump());
    RETURN_IF_ERROR(manager.SetDump(config));
    dump::Attachment attachment =
        manager.OnModelLoad(model_, dump::ModelIdentity{1, "", 0}, nullptr);
    RETURN_IF_ERROR(attachment.status);
    RETURN_IF_ERROR(
        model_.AttachObserver(attachment.observer, attachment.step_flags));
    absl::Status executed = model_.ExecuteToTensors(inputs_).status();
    absl::Status finalized = manager.FinalizeDump();
    RETURN_IF_ERROR(model_.AttachObserver(nullptr, {}));
    RETURN_IF_ERROR(executed);
    return finalized;
  }

  CompiledModel& model_;
  const std::vector<Tensor>& inputs_;
  const CompareTree& reference_;
  const LocateOptions& options_;
  const std::string work_;
  size_t probes_ = 0;
};

// Steps whose output has a counterpart among the reference's operators (by
// converted name, or by the original operator that made the output).
std::vector<size_t> ComparableSteps(const CompiledModel& model,
                                    const CompareTree& reference) {
  std::set<std::string> names;
  for (const CompareSide& side : reference.folders) {
    for (const OpRecord& op : side.ops) {
      names.insert(op.name);
      for (const std::string& original : op.original_names) {
        names.insert(original);
      }
    }
  }
  std::vector<size_t> steps;
  for (size_t s = 0; s < model.steps().size(); ++s) {
    const StepInfo& step = model.steps()[s];
    if (names.count(step.name) || (!step.original_names.empty() &&
                                   names.count(step.original_names.back()))) {
      steps.push_back(s);
    }
  }
  return steps;
}

// The reference folder: given, or written by the engine from the inputs.
absl::StatusOr<std::string> ReferenceFolder(const LocateOptions& options,
                                            const std::string& work,
                                            std::string& description) {
  if (!options.reference.empty()) {
    description = DisplayPath(options.reference);
    return options.reference;
  }
  if (!IsOnnxModel(options.model)) {
    return absl::InvalidArgumentError(StrCat(
        options.model,
        " is not an ONNX model: the reference engines run ONNX models; give "
        "--model model.onnx, or --reference with a reference folder or a "
        "dump tree"));
  }
  ReferenceOptions reference;
  reference.model = options.model;
  reference.inputs = options.inputs;
  reference.out_dir = work + "/reference";
  reference.engine = options.engine;
  reference.ort_dir = options.ort_dir;
  reference.input_shape = options.input_shape;
  reference.seed = options.seed;
  ASSIGN_OR_RETURN(ReferenceSummary summary, WriteReferences(reference));
  description = StrCat(summary.engine, " on the same inputs",
                       summary.engine_note.empty()
                           ? ""
                           : StrCat(" (", summary.engine_note, ")"));
  return reference.out_dir;
}

// Bisection: the first comparable step outside the tolerance, assuming that
// every later one is outside too.
absl::Status Bisect(CompiledModel& model, Prober& prober,
                    std::vector<size_t> candidates, LocateResult& result) {
  std::map<size_t, LocateStep> probed;
  // Probes candidates[i]; nullopt when nothing was compared (it is dropped).
  auto probe = [&](size_t i) -> absl::StatusOr<std::optional<bool>> {
    const size_t position = candidates[i];
    ASSIGN_OR_RETURN(Outcome outcome, prober.Probe(position));
    const StepInfo& step = model.steps()[position];
    LocateStep s{position, step.name, step.op_type,
                 outcome.verdict == Verdict::kWithin, outcome.detail};
    if (outcome.verdict == Verdict::kNotCompared) {
      s.detail = "not compared: no counterpart in the reference";
    }
    result.steps.push_back(s);
    if (outcome.verdict == Verdict::kNotCompared) {
      candidates.erase(candidates.begin() + static_cast<ptrdiff_t>(i));
      return std::optional<bool>();
    }
    probed[position] = s;
    return std::optional<bool>(s.within);
  };
  // The last comparable operator: within means nothing departs.
  while (!candidates.empty()) {
    ASSIGN_OR_RETURN(std::optional<bool> last, probe(candidates.size() - 1));
    if (!last) continue;
    if (*last) return absl::OkStatus();
    break;
  }
  if (candidates.empty()) return absl::OkStatus();
  size_t lo = 0, hi = candidates.size() - 1;
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    ASSIGN_OR_RETURN(std::optional<bool> within, probe(mid));
    if (!within) {
      --hi;  // candidates shifted down by one
      continue;
    }
    if (*within) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  result.first = probed.at(candidates[lo]);
  if (lo > 0) result.before = probed.at(candidates[lo - 1]);
  return absl::OkStatus();
}

nlohmann::ordered_json StepJson(const LocateStep& s) {
  return {{"position", s.position},
          {"op_name", s.op_name},
          {"op_type", s.op_type},
          {"within", s.within},
          {"detail", s.detail}};
}

}  // namespace

absl::StatusOr<LocateResult> Locate(const LocateOptions& options) {
  std::unique_ptr<TempDir> temp;
  std::string work = options.work_dir;
  if (work.empty()) {
    ASSIGN_OR_RETURN(temp, TempDir::Create("acldump-locate"));
    work = temp->path();
  }
  fs::create_directories(work);
  LocateResult result;
  ASSIGN_OR_RETURN(Graph graph,
                   ReadModelGraph(options.model, options.input_shape, true));
  if (graph.dynamic()) {
    return absl::InvalidArgumentError(
        StrCat(options.model,
               " is a dynamic model: locate runs one static plan; convert it "
               "with fixed input shapes (--input-shape)"));
  }
  ASSIGN_OR_RETURN(std::vector<Tensor> inputs, MakeInputs(graph, options));
  ASSIGN_OR_RETURN(std::string reference_dir,
                   ReferenceFolder(options, work, result.reference));
  ASSIGN_OR_RETURN(CompareTree reference, LoadCompareTree(reference_dir, {}));
  ASSIGN_OR_RETURN(
      std::unique_ptr<CompiledModel> model,
      CompiledModel::Compile(std::move(graph), options.registry != nullptr
                                                   ? *options.registry
                                                   : BuiltinOps()));
  result.operators = model->steps().size();
  const std::vector<size_t> candidates = ComparableSteps(*model, reference);
  result.comparable = candidates.size();
  if (candidates.empty()) {
    return absl::InvalidArgumentError(
        StrCat("no operator of ", options.model, " has a counterpart in ",
               result.reference,
               ": give references of this model (`dump reference`)"));
  }
  Prober prober(*model, inputs, reference, options, work + "/steps");
  RETURN_IF_ERROR(Bisect(*model, prober, candidates, result));
  return result;
}

std::string FormatLocate(const LocateResult& r) {
  std::string out =
      StrCat("locate: ", r.operators, " operators, ", r.comparable,
             " with a reference counterpart; reference ", r.reference, "\n");
  for (size_t i = 0; i < r.steps.size(); ++i) {
    const LocateStep& s = r.steps[i];
    StrAppend(out, fmt::format("  step {:<3} ", i + 1), s.op_name, " (",
              s.op_type, ", position ", s.position, "): ",
              s.detail.starts_with("not compared")
                  ? s.detail
                  : StrCat(s.within ? "within" : "OUTSIDE", "; ", s.detail),
              "\n");
  }
  if (!r.first) {
    StrAppend(out,
              "result: the last comparable operator is within the tolerance: "
              "nothing departs\n");
    return out;
  }
  StrAppend(out,
            "result: first operator outside the tolerance: ", r.first->op_name,
            " (", r.first->op_type, ", position ", r.first->position, ")");
  if (r.before) {
    StrAppend(out, "; ", r.before->op_name, " (position ", r.before->position,
              ") before it is within");
  } else {
    StrAppend(out, "; it is the first comparable operator");
  }
  StrAppend(out, "\n  found in ", r.steps.size(), " runs, each dumping one ",
            "operator's outputs\n");
  return out;
}

std::string LocateJson(const LocateResult& r) {
  nlohmann::ordered_json steps = nlohmann::ordered_json::array();
  for (const LocateStep& s : r.steps) steps.push_back(StepJson(s));
  nlohmann::ordered_json json = {{"schema", "acldump.locate/1"},
                                 {"operators", r.operators},
                                 {"comparable", r.comparable},
                                 {"reference", r.reference},
                                 {"steps", std::move(steps)}};
  json["first"] = r.first ? StepJson(*r.first) : nlohmann::ordered_json();
  json["before"] = r.before ? StepJson(*r.before) : nlohmann::ordered_json();
  return json.dump(2) + "\n";
}

}  // namespace acldump::tools
