#include "tools/compare/compare.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <thread>
#include <tuple>

#include "base/status_macros.h"
#include "base/strings.h"
#include "base/text.h"
#include "dump/format/data_type.h"
#include "dump/format/dump_file.h"
#include "dump/format/dump_names.h"
#include "dump/format/dump_tree.h"
#include "kernels/dtype.h"
#include "tools/common/cli_util.h"
#include "tools/compare/internal.h"

namespace acldump::tools {
namespace {

using compare_internal::Compare;
using compare_internal::CompareStats;
using compare_internal::FolderKey;
using compare_internal::kDetailedTensors;
using compare_internal::KeyOf;
using compare_internal::TensorLoader;

Verdict VerdictOf(const std::vector<TensorComparison>& tensors, bool inputs) {
  Verdict verdict = Verdict::kNotCompared;
  for (const TensorComparison& t : tensors) {
    if (t.is_input != inputs) continue;
    if (!t.within()) return Verdict::kOutside;
    verdict = Verdict::kWithin;
  }
  return verdict;
}

std::string IndexText(const std::vector<int64_t>& index) {
  return StrCat("[", StrJoin(index, ","), "]");
}

std::string DescribeOutputs(const OpComparison& op) {
  for (const TensorComparison& t : op.tensors) {
    if (t.is_input || t.within()) continue;
    if (!t.problem.empty()) {
      return StrCat("output ", t.position, ": ", t.problem);
    }
    if (t.by != CompareBy::kTensors) {
      return StrCat("output ", t.position, " is not (", StatsDifferenceText(t),
                    ")");
    }
    std::string text =
        StrCat("output ", t.position, " is not (max |a-b| ",
               FormatNumber(t.metrics.max_abs), ", ", t.tolerance.violations,
               " of ", t.metrics.count, " elements outside");
    if (!t.worst.empty()) {
      const ElementDiff& w = t.worst.front();
      StrAppend(text, ", worst at ", IndexText(w.index), ": a ",
                FormatNumber(w.a), ", b ", FormatNumber(w.b));
    }
    return text + ")";
  }
  return "";
}

std::string OpIdentity(const OpRecord& op) {
  return op.type.empty()
             ? StrCat(op.name, " (task ", op.task_id, ")")
             : StrCat(op.name, " (", op.type, ", task ", op.task_id, ")");
}

// Why the op is named, in the words the basis allows, ending where the
// description of its outputs follows.
std::string DivergenceReason(const CompareResult& result,
                             const OpComparison& op, DivergenceBasis basis,
                             const std::vector<size_t>& not_compared) {
  switch (basis) {
    case DivergenceBasis::kInputsWithin:
      return StrCat(OpIdentity(*op.a),
                    ": its inputs are within the tolerance, ");
    case DivergenceBasis::kEarlierWithin:
      return StrCat(OpIdentity(*op.a),
                    ": its inputs were not compared, but every earlier "
                    "operator's outputs are within the tolerance; ");
    case DivergenceBasis::kEarlierNotCompared: {
      std::vector<std::string> names;
      for (size_t k = 0; k < not_compared.size() && k < 5; ++k) {
        const OpRecord& earlier = *result.ops[not_compared[k]].a;
        names.push_back(earlier.type.empty()
                            ? earlier.name
                            : StrCat(earlier.name, " (", earlier.type, ")"));
      }
      if (not_compared.size() > 5) names.push_back("...");
      return StrCat(OpIdentity(*op.a),
                    " is the first operator outside the tolerance, but "
                    "its inputs were not compared and ",
                    Plural(not_compared.size(), "earlier operator"),
                    not_compared.size() == 1 ? " was" : " were",
                    " not compared (", StrJoin(names, ", "),
                    "), so the divergence may start there; ");
    }
  }
  return "";
}

void NameDivergenceAt(CompareResult& result, size_t i, DivergenceBasis basis,
                      const std::vector<size_t>& not_compared) {
  const OpComparison& op = result.ops[i];
  result.first_divergence = i;
  result.basis = basis;
  if (basis == DivergenceBasis::kEarlierNotCompared) {
    result.earlier_not_compared = not_compared;
  }
  result.divergence_note = StrCat(
      DivergenceReason(result, op, basis, not_compared), DescribeOutputs(op));
  if (op.a->type == "Data") {
    StrAppend(result.divergence_note,
              "; this is a graph input: the two sides ran on different "
              "inputs (give both the same one, e.g. `dump run --input`)");
  }
}

// Why no op could be named; upstream is the first outside op whose inputs
// differ, if any.
void ExplainNoDivergence(CompareResult& result,
                         std::optional<size_t> upstream) {
  if (upstream) {
    const OpComparison& op = result.ops[*upstream];
    result.divergence_note = StrCat(
        "none could be named: the first operator with outputs outside "
        "the tolerance, ",
        OpIdentity(*op.a),
        ", has inputs outside it too, so the divergence starts upstream in "
        "an operator missing from the dump (dump with dump_mode all and no "
        "layer list)");
  } else if (result.tensors_compared == 0) {
    result.divergence_note = "none: no tensor of A has a counterpart in B";
  } else if (result.tensors_outside > 0) {
    // Only inputs differ (dump_mode input): their producer diverged.
    for (const OpComparison& op : result.ops) {
      if (op.inputs != Verdict::kOutside) continue;
      result.divergence_note = StrCat(
          "none could be named from outputs: the first tensor outside the "
          "tolerance is an input of ",
          OpIdentity(*op.a),
          ", so its producer diverges; dump outputs too (dump_mode all) to "
          "name it");
      break;
    }
  } else {
    result.divergence_note =
        "none: every compared tensor is within the tolerance";
    if (result.ops_not_compared > 0) {
      StrAppend(result.divergence_note, " (",
                Plural(result.ops_not_compared, "operator"),
                " of A not compared)");
    }
  }
}

void NameDivergence(CompareResult& result) {
  bool earlier_outside = false;
  std::vector<size_t> not_compared;
  std::optional<size_t> upstream;  // first outside op whose inputs differ
  for (size_t i = 0; i < result.ops.size(); ++i) {
    const OpComparison& op = result.ops[i];
    if (op.outputs == Verdict::kNotCompared) {
      not_compared.push_back(i);
      continue;
    }
    if (op.outputs != Verdict::kOutside) continue;
    if (op.inputs == Verdict::kWithin) {
      NameDivergenceAt(result, i, DivergenceBasis::kInputsWithin, not_compared);
      return;
    }
    if (op.inputs == Verdict::kNotCompared && !earlier_outside) {
      NameDivergenceAt(result, i,
                       not_compared.empty()
                           ? DivergenceBasis::kEarlierWithin
                           : DivergenceBasis::kEarlierNotCompared,
                       not_compared);
      return;
    }
    if (!upstream) upstream = i;
    earlier_outside = true;
  }
  ExplainNoDivergence(result, upstream);
}

}  // namespace

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

std::string_view VerdictName(Verdict verdict) {
  switch (verdict) {
    case Verdict::kNotCompared:
      return "not_compared";
    case Verdict::kWithin:
      return "within";
    case Verdict::kOutside:
      return "outside";
  }
  return "";
}

std::string_view DivergenceBasisName(DivergenceBasis basis) {
  switch (basis) {
    case DivergenceBasis::kInputsWithin:
      return "inputs_within";
    case DivergenceBasis::kEarlierWithin:
      return "earlier_within";
    case DivergenceBasis::kEarlierNotCompared:
      return "earlier_not_compared";
  }
  return "";
}

std::string ShapeText(const std::vector<int64_t>& shape) {
  return shape.empty() ? "[]" : StrJoin(shape, "x");
}

std::string FolderLabel(const CompareSide& side) {
  if (side.layout == dump::Layout::kModel) {
    return StrCat(side.model, " (id ", side.model_id, ") iteration ",
                  side.iteration, ", device ", side.device);
  }
  if (side.kind == SideKind::kReference) {
    return StrCat("references in ", side.directory);
  }
  return StrCat("files in ", side.directory);
}

namespace {

// B's operators by converted name (and escaped name), and B's outputs by
// producing op.
struct SideIndex {
  using OutputMap =
      std::map<std::pair<std::string, uint32_t>, std::pair<size_t, uint32_t>>;
  std::map<std::string, std::vector<size_t>, std::less<>> by_name;
  OutputMap by_output;

  OutputMap::const_iterator FindOutput(const std::string& producer,
                                       uint32_t index) const {
    auto it = by_output.find({producer, index});
    if (it == by_output.end()) {
      it = by_output.find({dump::EscapeNamePart(producer), index});
    }
    return it;
  }
};

SideIndex IndexSide(const CompareSide& b) {
  SideIndex index;
  for (size_t i = 0; i < b.ops.size(); ++i) {
    const OpRecord& op = b.ops[i];
    index.by_name[op.name].push_back(i);
    for (const TensorRef& out : op.outputs) {
      if (!out.original_op.empty()) {
        index.by_output.emplace(
            std::make_pair(out.original_op, out.original_index),
            std::make_pair(i, out.position));
      }
      index.by_output.emplace(std::make_pair(op.name, out.position),
                              std::make_pair(i, out.position));
    }
  }
  return index;
}

// Finds each op of A its counterpart in B and compares their tensors. What
// carries from op to op: how often each name was matched (repeated names
// pair up in order), which ops of B were used, and how many tensors got the
// detailed look.
class OpMatcher {
 public:
  OpMatcher(const CompareSide& a, const CompareSide& b,
            const CompareOptions& options)
      : a_(a),
        b_(b),
        options_(options),
        index_(IndexSide(b)),
        used_(b.ops.size(), false),
        load_a_(a),
        load_b_(b) {}

  OpComparison Match(size_t index) {
    const OpRecord& op = a_.ops[index];
    OpComparison cmp;
    cmp.a = &op;
    cmp.index = index;
    load_a_.Clear();
    load_b_.Clear();
    auto named = index_.by_name.find(op.name);
    if (named == index_.by_name.end()) {
      named = index_.by_name.find(dump::EscapeNamePart(op.name));
    }
    const size_t k =
        named == index_.by_name.end() ? 0 : occurrences_[named->first]++;
    if (!options_.original_names_only && named != index_.by_name.end() &&
        k < named->second.size()) {
      MatchByName(cmp, named->second[k]);
    } else {
      MatchByOutputs(cmp);
    }
    cmp.inputs = VerdictOf(cmp.tensors, true);
    cmp.outputs = VerdictOf(cmp.tensors, false);
    return cmp;
  }

  const std::vector<bool>& used() const { return used_; }

 private:
  void CompareTensor(OpComparison& cmp, const OpRecord& other, bool is_input,
                     uint32_t pa, uint32_t pb) {
    CompareTensor(cmp, other, is_input, is_input, pa, pb);
  }

  // A's tensor (input or output `pa`) with B's (input or output `pb`).
  void CompareTensor(OpComparison& cmp, const OpRecord& other, bool is_input,
                     bool b_is_input, uint32_t pa, uint32_t pb) {
    TensorComparison c;
    const bool by_tensors =
        options_.by == CompareBy::kTensors ||
        (options_.by == CompareBy::kAuto && a_.kind != SideKind::kStats &&
         b_.kind != SideKind::kStats);
    if (by_tensors) {
      bool detail = detailed_ < kDetailedTensors;
      c = Compare(load_a_.Load(*cmp.a, is_input, pa),
                  load_b_.Load(other, b_is_input, pb), options_, &detail);
      if (c.detail) ++detailed_;
    } else {
      const auto sa = load_a_.LoadStats(*cmp.a, is_input, pa);
      const auto sb = load_b_.LoadStats(other, b_is_input, pb);
      CompareBy by = options_.by;
      if (by == CompareBy::kAuto) {
        by = sa.ok() && sb.ok() && sa->checksum && sb->checksum
                 ? CompareBy::kChecksum
                 : CompareBy::kStats;
      }
      c = CompareStats(sa, sb, by, options_);
    }
    c.is_input = is_input;
    c.position = pa;
    c.b_label = StrCat(other.name, b_is_input ? " input " : " output ", pb);
    cmp.tensors.push_back(std::move(c));
  }

  void MatchByName(OpComparison& cmp, size_t other_index) {
    const OpRecord& op = *cmp.a;
    const OpRecord& other = b_.ops[other_index];
    used_[other_index] = true;
    cmp.match = MatchKind::kConvertedName;
    cmp.b_name = other.name;
    for (const auto* refs : {&op.inputs, &op.outputs}) {
      for (const TensorRef& t : *refs) {
        const auto& other_refs = t.is_input ? other.inputs : other.outputs;
        const auto& other_files =
            t.is_input ? other.input_files : other.output_files;
        if (t.position >= other_refs.size()) continue;
        // A reference side may lack some tensors of an op.
        if (b_.kind == SideKind::kReference &&
            (t.position >= other_files.size() ||
             other_files[t.position].empty())) {
          continue;
        }
        CompareTensor(cmp, other, t.is_input, t.position, t.position);
      }
    }
  }

  void MatchByOutputs(OpComparison& cmp) {
    const OpRecord& op = *cmp.a;
    std::vector<std::string> counterparts;
    for (const TensorRef& t : op.outputs) {
      const std::string producer =
          t.original_op.empty() ? op.name : t.original_op;
      auto it = index_.FindOutput(producer, t.original_index);
      if (it == index_.by_output.end()) continue;
      const auto [other_index, position] = it->second;
      const OpRecord& other = b_.ops[other_index];
      used_[other_index] = true;
      if (std::find(counterparts.begin(), counterparts.end(), other.name) ==
          counterparts.end()) {
        counterparts.push_back(other.name);
      }
      CompareTensor(cmp, other, false, t.position, position);
    }
    // Inputs whose original producer is known (a device graph's edges):
    // compared with that producer's output in B.
    for (const TensorRef& t : op.inputs) {
      if (t.original_op.empty()) continue;
      auto it = index_.FindOutput(t.original_op, t.original_index);
      if (it == index_.by_output.end()) continue;
      const auto [other_index, position] = it->second;
      CompareTensor(cmp, b_.ops[other_index], true, false, t.position,
                    position);
    }
    if (!cmp.tensors.empty()) {
      cmp.match = MatchKind::kOriginalName;
      cmp.b_name = StrJoin(counterparts, ",");
    }
  }

  const CompareSide& a_;
  const CompareSide& b_;
  const CompareOptions& options_;
  const SideIndex index_;
  std::map<std::string, size_t> occurrences_;
  std::vector<bool> used_;
  TensorLoader load_a_;
  TensorLoader load_b_;
  size_t detailed_ = 0;
};

}  // namespace

CompareResult CompareSides(const CompareSide& a, const CompareSide& b,
                           const CompareOptions& options,
                           const DumpFilter& filter) {
  OpMatcher matcher(a, b, options);
  CompareResult result;
  Progress progress("compare", a.ops.size());
  for (size_t index = 0; index < a.ops.size(); ++index) {
    progress.Update(index + 1, a.ops[index].name);
    OpComparison cmp = matcher.Match(index);
    for (const TensorComparison& t : cmp.tensors) {
      ++result.tensors_compared;
      if (!t.within()) ++result.tensors_outside;
    }
    if (cmp.tensors.empty()) ++result.ops_not_compared;
    result.ops.push_back(std::move(cmp));
  }
  progress.Finish();
  for (size_t i = 0; i < b.ops.size(); ++i) {
    if (matcher.used()[i]) continue;
    const OpRecord& op = b.ops[i];
    if (!filter.MatchesType(op.type) ||
        !filter.MatchesName(op.name, op.original_names)) {
      continue;
    }
    result.only_in_b.push_back(op.name);
  }
  NameDivergence(result);
  return result;
}

FolderPlan PairFolders(const CompareTree& a, const CompareTree& b) {
  FolderPlan plan;
  for (const std::string& note : a.notes) plan.notes.push_back("A: " + note);
  for (const std::string& note : b.notes) plan.notes.push_back("B: " + note);
  auto& pairs = plan.pairs;
  const bool b_flat =
      b.folders.size() == 1 && b.folders[0].layout != dump::Layout::kModel;
  if (a.folders.size() == 1 && b.folders.size() == 1) {
    pairs.emplace_back(&a.folders[0], &b.folders[0]);
    const CompareSide &fa = a.folders[0], &fb = b.folders[0];
    if (fa.layout == dump::Layout::kModel &&
        fb.layout == dump::Layout::kModel &&
        KeyOf(fa, true) != KeyOf(fb, true)) {
      plan.notes.push_back(StrCat("comparing two different folders: ",
                                  FolderLabel(fa), " with ", FolderLabel(fb)));
    }
  } else if (b_flat) {
    for (const CompareSide& fa : a.folders)
      pairs.emplace_back(&fa, &b.folders[0]);
    plan.notes.push_back(StrCat("every folder of A (", a.folders.size(),
                                ") is compared with the references in ",
                                b.root));
  } else {
    std::set<int64_t> devices_a, devices_b;
    for (const CompareSide& f : a.folders) devices_a.insert(f.device);
    for (const CompareSide& f : b.folders) devices_b.insert(f.device);
    const bool with_device = !(devices_a.size() == 1 && devices_b.size() == 1);
    if (!with_device && devices_a != devices_b) {
      plan.notes.push_back(StrCat("device ", *devices_a.begin(),
                                  " of A is paired with device ",
                                  *devices_b.begin(), " of B"));
    }
    std::map<FolderKey, const CompareSide*> in_b;
    for (const CompareSide& f : b.folders) {
      if (f.layout == dump::Layout::kModel) in_b[KeyOf(f, with_device)] = &f;
    }
    std::set<const CompareSide*> paired_b;
    for (const CompareSide& f : a.folders) {
      auto it = f.layout == dump::Layout::kModel
                    ? in_b.find(KeyOf(f, with_device))
                    : in_b.end();
      if (it == in_b.end()) {
        plan.only_in_a.push_back(&f);
        continue;
      }
      pairs.emplace_back(&f, it->second);
      paired_b.insert(it->second);
    }
    for (const CompareSide& f : b.folders) {
      if (!paired_b.count(&f)) plan.only_in_b.push_back(&f);
    }
  }
  // By iteration, then by when the folder's first operator ran.
  auto first_time = [](const CompareSide* s) {
    return s->ops.empty() ? 0 : s->ops.front().timestamp_us;
  };
  std::stable_sort(
      pairs.begin(), pairs.end(), [&](const auto& x, const auto& y) {
        return std::make_tuple(x.first->iteration, first_time(x.first),
                               x.first->model) <
               std::make_tuple(y.first->iteration, first_time(y.first),
                               y.first->model);
      });
  return plan;
}

TreeCompareResult StartTreeResult(const FolderPlan& plan) {
  TreeCompareResult result;
  result.notes = plan.notes;
  result.only_in_a = plan.only_in_a;
  result.only_in_b = plan.only_in_b;
  for (const auto& [fa, fb] : plan.pairs) {
    result.pairs.push_back(FolderPair{fa, fb, {}});
  }
  return result;
}

void TotalTreeResult(TreeCompareResult& result) {
  result.tensors_compared = result.tensors_outside = 0;
  result.ops_not_compared = 0;
  result.first_pair.reset();
  for (size_t i = 0; i < result.pairs.size(); ++i) {
    const CompareResult& r = result.pairs[i].result;
    result.tensors_compared += r.tensors_compared;
    result.tensors_outside += r.tensors_outside;
    result.ops_not_compared += r.ops_not_compared;
    if (r.tensors_outside > 0 && !result.first_pair) result.first_pair = i;
  }
}

TreeCompareResult CompareTrees(const CompareTree& a, const CompareTree& b,
                               const CompareOptions& options,
                               const DumpFilter& filter) {
  TreeCompareResult result = StartTreeResult(PairFolders(a, b));
  for (FolderPair& pair : result.pairs) {
    pair.result = CompareSides(*pair.a, *pair.b, options, filter);
  }
  TotalTreeResult(result);
  return result;
}

std::string TreeDivergenceNote(const TreeCompareResult& result) {
  if (result.first_pair) {
    const FolderPair& pair = result.pairs[*result.first_pair];
    if (result.pairs.size() == 1) return pair.result.divergence_note;
    return StrCat("in ", FolderLabel(*pair.a), ": ",
                  pair.result.divergence_note);
  }
  if (result.tensors_compared == 0) {
    return "none: no tensor of A has a counterpart in B";
  }
  std::string note = "none: every compared tensor is within the tolerance";
  if (result.ops_not_compared > 0) {
    StrAppend(note, " (", Plural(result.ops_not_compared, "operator"),
              " of A not compared)");
  }
  return note;
}

}  // namespace acldump::tools
