#include "tools/dump_compare.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "base/status_macros.h"
#include "base/strings.h"
#include "dump/format/data_type.h"
#include "dump/format/dump_file.h"
#include "dump/format/dump_names.h"
#include "dump/format/dump_tree.h"
#include "kernels/dtype.h"
#include "kernels/npy.h"
#include "tools/cli_util.h"

namespace acldump::tools {
namespace {

std::vector<std::string> SplitCommas(const std::string& text) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= text.size() && !text.empty()) {
    size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    if (end > start) parts.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

absl::StatusOr<OpRecord> RecordOfDumpFile(const dump::DumpEntry& entry) {
  ASSIGN_OR_RETURN(dump::DumpFileContents contents,
                   dump::ReadDumpFile(entry.path));
  const auto& h = contents.header;
  OpRecord op;
  op.name = h.op_name().empty() ? entry.name->op_name : h.op_name();
  op.type = entry.name->op_type;
  for (const auto& attr : h.attr()) {
    if (attr.name() == "op_type") op.type = attr.value();
    if (attr.name() == "original_names") {
      op.original_names = SplitCommas(attr.value());
    }
  }
  for (int i = 0; i < h.input_size(); ++i) {
    op.inputs.push_back({true, static_cast<uint32_t>(i), "", 0});
  }
  for (int i = 0; i < h.output_size(); ++i) {
    TensorRef ref{false, static_cast<uint32_t>(i), "",
                  static_cast<uint32_t>(i)};
    if (h.output(i).has_original_op() &&
        !h.output(i).original_op().name().empty()) {
      ref.original_op = h.output(i).original_op().name();
      ref.original_index = h.output(i).original_op().output_index();
    } else if (!op.original_names.empty()) {
      ref.original_op = op.original_names.back();
    }
    op.outputs.push_back(std::move(ref));
  }
  op.task_id = entry.name->task_id;
  op.timestamp_us = entry.name->timestamp_us;
  op.path = entry.path;
  return op;
}

absl::StatusOr<CompareSide> LoadDumpSide(const dump::DumpTree& tree,
                                         const SideSelection& selection) {
  std::vector<const dump::DumpRun*> candidates;
  std::vector<std::string> present;
  for (const dump::DumpRun& run : tree.runs) {
    const bool has_tensors = std::any_of(
        run.files.begin(), run.files.end(), [](const dump::DumpEntry* e) {
          return e->kind == dump::EntryKind::kTensor;
        });
    if (!has_tensors) continue;
    present.push_back(run.Describe());
    if (!selection.model.empty() && run.model != selection.model) continue;
    if (selection.iteration && run.iteration != *selection.iteration) continue;
    candidates.push_back(&run);
  }
  if (candidates.empty()) {
    return absl::NotFoundError(StrCat(
        "no folder of '", tree.root, "' matches the selection",
        selection.model.empty() ? "" : StrCat(" --model ", selection.model),
        selection.iteration ? StrCat(" --iteration ", *selection.iteration)
                            : "",
        " (present: ", StrJoin(present, "; "), ")"));
  }
  // Latest time first, then the lowest device, model, id and iteration.
  std::stable_sort(
      candidates.begin(), candidates.end(),
      [](const dump::DumpRun* a, const dump::DumpRun* b) {
        if (a->time != b->time) return a->time > b->time;
        return std::tie(a->device, a->model, a->model_id, a->iteration) <
               std::tie(b->device, b->model, b->model_id, b->iteration);
      });
  const dump::DumpRun& run = *candidates.front();
  CompareSide side;
  side.kind = SideKind::kDump;
  side.root = tree.root;
  side.description = StrCat(run.Describe(), " in ", run.directory);
  if (candidates.size() > 1) {
    side.notes.push_back(
        StrCat("'", tree.root, "' holds ", candidates.size(),
               " dump folders; comparing ", run.Describe(),
               " (pick another with --iteration, --model or a deeper path)"));
  }
  for (const dump::DumpEntry* entry : run.files) {
    if (entry->kind != dump::EntryKind::kTensor) continue;
    ASSIGN_OR_RETURN(OpRecord op, RecordOfDumpFile(*entry));
    side.ops.push_back(std::move(op));
  }
  return side;
}

CompareSide LoadNpySide(const dump::DumpTree& tree) {
  CompareSide side;
  side.kind = SideKind::kNpy;
  side.root = tree.root;
  std::map<std::string, size_t> by_key;  // folder + stem -> op
  size_t files = 0;
  for (const dump::DumpEntry& e : tree.entries) {
    const std::string& file = e.file_name;
    if (file.size() <= 4 || file.substr(file.size() - 4) != ".npy") continue;
    ++files;
    const std::string stem = file.substr(0, file.size() - 4);
    const std::string folder =
        e.path.substr(0, e.path.size() - file.size());  // keeps the '/'
    // "F.output.<i>" of a converted dump file F?
    std::optional<dump::DumpFileNameParts> converted;
    bool is_input = false;
    uint32_t position = 0;
    const size_t last = stem.rfind('.');
    const size_t middle = last == std::string::npos || last == 0
                              ? std::string::npos
                              : stem.rfind('.', last - 1);
    if (middle != std::string::npos) {
      const std::string kind = stem.substr(middle + 1, last - middle - 1);
      const std::string index = stem.substr(last + 1);
      if ((kind == "input" || kind == "output") && !index.empty() &&
          index.size() < 6 &&
          index.find_first_not_of("0123456789") == std::string::npos) {
        converted = dump::ParseDumpFileName(stem.substr(0, middle));
        is_input = kind == "input";
        position = static_cast<uint32_t>(std::stoul(index));
      }
    }
    const std::string key =
        folder + (converted ? stem.substr(0, middle) : stem);
    auto [it, added] = by_key.emplace(key, side.ops.size());
    if (added) {
      OpRecord op;
      op.name = converted ? converted->op_name : stem;
      op.type = converted ? converted->op_type : "";
      op.task_id = converted ? converted->task_id : 0;
      op.timestamp_us = converted ? converted->timestamp_us : 0;
      op.path = key;
      side.ops.push_back(std::move(op));
    }
    OpRecord& op = side.ops[it->second];
    auto& refs = is_input ? op.inputs : op.outputs;
    auto& paths = is_input ? op.input_files : op.output_files;
    if (refs.size() <= position) {
      refs.resize(position + 1);
      paths.resize(position + 1);
    }
    refs[position] = {is_input, position, is_input ? "" : op.name, position};
    paths[position] = e.path;
  }
  std::stable_sort(side.ops.begin(), side.ops.end(),
                   [](const OpRecord& a, const OpRecord& b) {
                     return std::tie(a.task_id, a.timestamp_us, a.name) <
                            std::tie(b.task_id, b.timestamp_us, b.name);
                   });
  side.description = StrCat(files, " .npy files in ", tree.root);
  return side;
}

struct LoadedTensor {
  std::vector<double> values;
  std::vector<int64_t> shape;
  std::string dtype;
  std::string error;
};

// Reads the tensors of one side's operators, keeping the current files.
class TensorLoader {
 public:
  explicit TensorLoader(const CompareSide& side) : side_(side) {}
  void Clear() { files_.clear(); }

  LoadedTensor Load(const OpRecord& op, bool is_input, uint32_t position) {
    LoadedTensor out;
    if (side_.kind == SideKind::kNpy) {
      const auto& paths = is_input ? op.input_files : op.output_files;
      if (position >= paths.size() || paths[position].empty()) {
        out.error = "no such tensor";
        return out;
      }
      absl::StatusOr<Tensor> tensor = ReadNpyFile(paths[position]);
      if (!tensor.ok()) {
        out.error = std::string(ToStd(tensor.status().message()));
        return out;
      }
      out.values = ToDoubles(tensor->view());
      out.shape = tensor->shape().dims();
      out.dtype = std::string(DTypeName(tensor->dtype()));
      return out;
    }
    auto it = files_.find(op.path);
    if (it == files_.end()) {
      it = files_.emplace(op.path, dump::ReadDumpFile(op.path)).first;
    }
    if (!it->second.ok()) {
      out.error = std::string(ToStd(it->second.status().message()));
      return out;
    }
    const dump::DumpFileContents& contents = *it->second;
    const auto& h = contents.header;
    const int count = is_input ? h.input_size() : h.output_size();
    if (static_cast<int>(position) >= count) {
      out.error = "no such tensor";
      return out;
    }
    const int32_t data_type = is_input ? h.input(position).data_type()
                                       : h.output(position).data_type();
    const auto& shape =
        is_input ? h.input(position).shape() : h.output(position).shape();
    const std::string& bytes =
        is_input ? contents.inputs[position] : contents.outputs[position];
    const std::optional<DType> dtype = FromDumpDataType(data_type);
    out.dtype =
        std::string(dtype ? DTypeName(*dtype) : DumpDataTypeName(data_type));
    for (uint64_t d : shape.dim()) out.shape.push_back(static_cast<int64_t>(d));
    absl::StatusOr<Tensor> tensor =
        dump::PayloadToTensor(data_type, shape, bytes);
    if (!tensor.ok()) {
      out.error = std::string(ToStd(tensor.status().message()));
      return out;
    }
    out.values = ToDoubles(tensor->view());
    return out;
  }

 private:
  const CompareSide& side_;
  std::map<std::string, absl::StatusOr<dump::DumpFileContents>> files_;
};

std::string ShapeText(const std::vector<int64_t>& shape) {
  return shape.empty() ? "[]" : StrJoin(shape, "x");
}

TensorComparison Compare(const LoadedTensor& a, const LoadedTensor& b,
                         const CompareOptions& options) {
  TensorComparison c;
  c.shape_a = ShapeText(a.shape);
  c.shape_b = ShapeText(b.shape);
  c.dtype_a = a.dtype;
  c.dtype_b = b.dtype;
  if (!a.error.empty()) {
    c.problem = StrCat("A: ", a.error);
  } else if (!b.error.empty()) {
    c.problem = StrCat("B: ", b.error);
  } else if (a.shape != b.shape) {
    c.problem = StrCat("shapes differ: ", c.shape_a, " vs ", c.shape_b);
  } else {
    c.metrics = ComputeMetrics(a.values, b.values);
    c.tolerance =
        CheckTolerance(a.values, b.values, options.atol, options.rtol);
  }
  return c;
}

Verdict VerdictOf(const std::vector<TensorComparison>& tensors, bool inputs) {
  Verdict verdict = Verdict::kNotCompared;
  for (const TensorComparison& t : tensors) {
    if (t.is_input != inputs) continue;
    if (!t.within()) return Verdict::kDiff;
    verdict = Verdict::kMatch;
  }
  return verdict;
}

std::string DescribeOutputs(const OpComparison& op) {
  for (const TensorComparison& t : op.tensors) {
    if (t.is_input || t.within()) continue;
    if (!t.problem.empty()) {
      return StrCat("output ", t.position, " ", t.problem);
    }
    return StrCat("output ", t.position, " is not (max |a-b| ",
                  FormatNumber(t.metrics.max_abs), ", ", t.tolerance.violations,
                  " of ", t.metrics.count, " elements outside, worst at ",
                  t.tolerance.worst_index, ")");
  }
  return "";
}

}  // namespace

absl::StatusOr<CompareSide> LoadCompareSide(const std::string& path,
                                            const SideSelection& selection) {
  ASSIGN_OR_RETURN(dump::DumpTree tree, dump::ScanDumpTree(path));
  if (tree.CountKind(dump::EntryKind::kTensor) > 0) {
    return LoadDumpSide(tree, selection);
  }
  if (tree.CountKind(dump::EntryKind::kStats) > 0) {
    return absl::InvalidArgumentError(StrCat(
        "'", path,
        "' holds stats dumps only (dump_data: stats); compare needs tensor "
        "dumps"));
  }
  CompareSide npy = LoadNpySide(tree);
  if (!npy.ops.empty()) return npy;
  return absl::NotFoundError(
      StrCat("no tensor dump files and no .npy files under '", path, "'"));
}

std::string_view MatchKindName(MatchKind kind) {
  switch (kind) {
    case MatchKind::kNone:
      return "-";
    case MatchKind::kConvertedName:
      return "name";
    case MatchKind::kOriginalName:
      return "original";
  }
  return "";
}

CompareResult CompareSides(const CompareSide& a, const CompareSide& b,
                           const CompareOptions& options) {
  // B's operators by converted name, and B's outputs by producing op.
  std::map<std::string, std::vector<size_t>, std::less<>> by_name;
  std::map<std::pair<std::string, uint32_t>, std::pair<size_t, uint32_t>>
      by_output;
  for (size_t i = 0; i < b.ops.size(); ++i) {
    const OpRecord& op = b.ops[i];
    by_name[op.name].push_back(i);
    for (const TensorRef& out : op.outputs) {
      if (!out.original_op.empty()) {
        by_output.emplace(std::make_pair(out.original_op, out.original_index),
                          std::make_pair(i, out.position));
      }
      by_output.emplace(std::make_pair(op.name, out.position),
                        std::make_pair(i, out.position));
    }
  }
  std::map<std::string, size_t> occurrences;
  std::vector<bool> used(b.ops.size(), false);
  TensorLoader load_a(a), load_b(b);
  CompareResult result;
  Progress progress("compare", a.ops.size());
  for (const OpRecord& op : a.ops) {
    progress.Update(result.ops.size() + 1, op.name);
    OpComparison cmp;
    cmp.a = &op;
    load_a.Clear();
    load_b.Clear();
    auto named = by_name.find(op.name);
    if (named == by_name.end())
      named = by_name.find(dump::EscapeNamePart(op.name));
    const size_t k = named == by_name.end() ? 0 : occurrences[named->first]++;
    if (named != by_name.end() && k < named->second.size()) {
      const OpRecord& other = b.ops[named->second[k]];
      used[named->second[k]] = true;
      cmp.match = MatchKind::kConvertedName;
      cmp.b_name = other.name;
      for (const auto* refs : {&op.inputs, &op.outputs}) {
        for (const TensorRef& t : *refs) {
          const auto& other_refs = t.is_input ? other.inputs : other.outputs;
          if (t.position >= other_refs.size()) continue;
          TensorComparison c =
              Compare(load_a.Load(op, t.is_input, t.position),
                      load_b.Load(other, t.is_input, t.position), options);
          c.is_input = t.is_input;
          c.position = t.position;
          c.b_label = StrCat(other.name, t.is_input ? " input " : " output ",
                             t.position);
          cmp.tensors.push_back(std::move(c));
        }
      }
    } else {
      std::vector<std::string> counterparts;
      for (const TensorRef& t : op.outputs) {
        const std::string producer =
            t.original_op.empty() ? op.name : t.original_op;
        auto it = by_output.find({producer, t.original_index});
        if (it == by_output.end()) continue;
        const auto [other_index, position] = it->second;
        const OpRecord& other = b.ops[other_index];
        used[other_index] = true;
        if (std::find(counterparts.begin(), counterparts.end(), other.name) ==
            counterparts.end()) {
          counterparts.push_back(other.name);
        }
        TensorComparison c =
            Compare(load_a.Load(op, false, t.position),
                    load_b.Load(other, false, position), options);
        c.position = t.position;
        c.b_label = StrCat(other.name, " output ", position);
        cmp.tensors.push_back(std::move(c));
      }
      if (!cmp.tensors.empty()) {
        cmp.match = MatchKind::kOriginalName;
        cmp.b_name = StrJoin(counterparts, ",");
      }
    }
    cmp.inputs = VerdictOf(cmp.tensors, true);
    cmp.outputs = VerdictOf(cmp.tensors, false);
    for (const TensorComparison& t : cmp.tensors) {
      ++result.tensors_compared;
      if (!t.within()) ++result.tensors_outside;
    }
    result.ops.push_back(std::move(cmp));
  }
  progress.Finish();
  for (size_t i = 0; i < b.ops.size(); ++i) {
    if (!used[i]) result.only_in_b.push_back(b.ops[i].name);
  }

  bool earlier_diff = false;
  std::optional<size_t> upstream;  // first diff whose inputs differ too
  for (size_t i = 0; i < result.ops.size(); ++i) {
    const OpComparison& op = result.ops[i];
    if (op.outputs == Verdict::kDiff) {
      const bool by_inputs = op.inputs == Verdict::kMatch;
      const bool by_order = op.inputs == Verdict::kNotCompared && !earlier_diff;
      if (by_inputs || by_order) {
        result.first_divergence = i;
        result.divergence_note = StrCat(
            op.a->name, " (", op.a->type, ", task ", op.a->task_id, "): ",
            by_inputs ? "its inputs are within tolerance, "
                      : "its inputs were not compared but every earlier "
                        "operator's outputs are within tolerance; ",
            DescribeOutputs(op));
        break;
      }
      if (!upstream) upstream = i;
      earlier_diff = true;
    }
  }
  if (!result.first_divergence) {
    if (upstream) {
      const OpComparison& op = result.ops[*upstream];
      result.divergence_note = StrCat(
          "none could be named: the first operator with outputs outside "
          "the tolerance, ",
          op.a->name, " (task ", op.a->task_id,
          "), has inputs outside it too, so the divergence starts "
          "upstream in an operator missing from the dump (dump with "
          "dump_mode all and no layer list)");
    } else if (result.tensors_compared == 0) {
      result.divergence_note = "none: no tensor of A has a counterpart in B";
    } else if (result.tensors_outside > 0) {
      // Only inputs differ (dump_mode input): their producer diverged.
      for (const OpComparison& op : result.ops) {
        if (op.inputs != Verdict::kDiff) continue;
        result.divergence_note = StrCat(
            "none could be named from outputs: the first tensor outside the "
            "tolerance is an input of ",
            op.a->name, " (task ", op.a->task_id,
            "), so its producer diverges; dump outputs too (dump_mode all) "
            "to name it");
        break;
      }
    } else {
      result.divergence_note =
          "none: every compared tensor is within tolerance";
    }
  }
  return result;
}

}  // namespace acldump::tools
