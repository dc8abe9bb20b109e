// `compare --json` (schema "acldump.compare/1").
#include "nlohmann/json.hpp"

#include <cmath>

#include "base/strings.h"
#include "tools/report/report.h"
#include "tools/report/rows.h"

namespace acldump::tools {
namespace {

using namespace report_internal;  // NOLINT: the renderers' shared rows
using Json = nlohmann::ordered_json;

Json Num(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

Json FolderJson(const CompareSide& side) {
  Json j;
  j["path"] = side.directory;
  const bool placed = side.layout == dump::Layout::kModel;
  j["model"] = placed ? Json(side.model) : Json(nullptr);
  j["model_id"] = placed ? Json(side.model_id) : Json(nullptr);
  j["iteration"] = placed ? Json(side.iteration) : Json(nullptr);
  j["device"] = placed ? Json(side.device) : Json(nullptr);
  j["time"] = placed ? Json(side.time) : Json(nullptr);
  return j;
}

Json TensorJson(const TensorComparison& t) {
  Json j;
  j["tensor"] = TensorName(&t);
  j["io"] = t.is_input ? "input" : "output";
  j["position"] = t.position;
  j["b"] = t.b_label;
  j["shape_a"] = t.shape_a;
  j["shape_b"] = t.shape_b;
  j["dtype_a"] = t.dtype_a;
  j["dtype_b"] = t.dtype_b;
  j["status"] = t.within() ? "within" : "outside";
  j["problem"] = t.problem;
  if (!t.problem.empty()) {
    j["count"] = nullptr;
    j["ignored"] = nullptr;
    j["violations"] = nullptr;
    j["metrics"] = nullptr;
  } else if (t.by != CompareBy::kTensors) {
    j["count"] = t.metrics.count;
    j["ignored"] = nullptr;
    j["violations"] = t.tolerance.violations;
    j["metrics"] = nullptr;
  } else {
    j["count"] = t.metrics.count;
    j["ignored"] = t.metrics.ignored;
    j["violations"] = t.tolerance.violations;
    Json metrics = Json::object();
    for (Metric m : kAllMetrics) {
      metrics[std::string(MetricName(m))] = Num(MetricValue(t.metrics, m));
    }
    j["metrics"] = std::move(metrics);
  }
  Json worst = Json::array();
  for (const ElementDiff& w : t.worst) {
    worst.push_back({{"index", w.index},
                     {"flat", w.flat},
                     {"a", Num(w.a)},
                     {"b", Num(w.b)},
                     {"abs_diff", Num(w.abs_diff)}});
  }
  j["worst"] = std::move(worst);
  j["by"] = CompareByName(t.by);
  Json stats = Json::array();
  for (const StatDiff& d : t.stats) {
    stats.push_back(
        {{"column", d.column}, {"a", d.a}, {"b", d.b}, {"within", d.within}});
  }
  j["stats"] = std::move(stats);
  return j;
}

Json OpJson(const OpComparison& op) {
  Json j;
  j["index"] = op.index;
  j["name"] = op.a->name;
  j["type"] = op.a->type;
  j["task"] = op.a->task_id;
  j["timestamp"] = op.a->timestamp_us;
  j["original_names"] = op.a->original_names;
  j["match"] = op.match == MatchKind::kNone ? "none" : MatchKindName(op.match);
  j["b"] = op.b_name;
  j["inputs"] = VerdictName(op.inputs);
  j["outputs"] = VerdictName(op.outputs);
  Json tensors = Json::array();
  for (const TensorComparison& t : op.tensors) tensors.push_back(TensorJson(t));
  j["tensors"] = std::move(tensors);
  return j;
}

}  // namespace

std::string CompareJson(const TreeCompareResult& result,
                        const ReportContext& context) {
  Json j;
  j["schema"] = "acldump.compare/1";
  auto side = [](const CompareTree& tree) {
    Json s;
    s["path"] = tree.root;
    s["kind"] = tree.kind == SideKind::kDump
                    ? "dump"
                    : (tree.kind == SideKind::kStats ? "stats" : "reference");
    s["folders"] = tree.folders.size();
    s["operators_filtered_out"] = tree.ops_filtered_out;
    return s;
  };
  j["a"] = side(*context.a);
  j["b"] = side(*context.b);
  j["tolerance"] = {{"atol", Num(context.options.atol)},
                    {"rtol", Num(context.options.rtol)}};
  j["filters"] = context.filters;
  j["verdict"] = result.tensors_compared == 0
                     ? "nothing_compared"
                     : (result.within() ? "pass" : "fail");
  j["exit_code"] = result.exit_code();
  j["tensors_compared"] = result.tensors_compared;
  j["tensors_outside"] = result.tensors_outside;
  j["operators_not_compared"] = result.ops_not_compared;
  Json first = nullptr;
  if (result.first_pair) {
    const FolderPair& pair = result.pairs[*result.first_pair];
    if (pair.result.first_divergence) {
      const OpComparison& op = pair.result.ops[*pair.result.first_divergence];
      first = {{"pair", *result.first_pair},
               {"operator", op.index},
               {"name", op.a->name},
               {"type", op.a->type},
               {"task", op.a->task_id},
               {"basis", DivergenceBasisName(pair.result.basis)},
               {"folder", FolderJson(*pair.a)}};
    }
  }
  j["first_divergence"] = std::move(first);
  j["divergence_note"] = TreeDivergenceNote(result);
  j["notes"] = result.notes;
  Json only_a = Json::array(), only_b = Json::array();
  for (const CompareSide* f : result.only_in_a)
    only_a.push_back(FolderJson(*f));
  for (const CompareSide* f : result.only_in_b)
    only_b.push_back(FolderJson(*f));
  j["only_in_a"] = std::move(only_a);
  j["only_in_b"] = std::move(only_b);
  Json pairs = Json::array();
  for (const FolderPair& p : result.pairs) {
    const CompareResult& r = p.result;
    Json pj;
    pj["a"] = FolderJson(*p.a);
    pj["b"] = FolderJson(*p.b);
    pj["tensors_compared"] = r.tensors_compared;
    pj["tensors_outside"] = r.tensors_outside;
    pj["operators_not_compared"] = r.ops_not_compared;
    pj["first_divergence"] =
        r.first_divergence ? Json(*r.first_divergence) : Json(nullptr);
    pj["basis"] =
        r.first_divergence ? Json(DivergenceBasisName(r.basis)) : Json(nullptr);
    pj["earlier_not_compared"] = r.earlier_not_compared;
    pj["divergence_note"] = r.divergence_note;
    pj["only_in_b"] = r.only_in_b;
    Json ops = Json::array();
    for (const OpComparison& op : r.ops) ops.push_back(OpJson(op));
    pj["operators"] = std::move(ops);
    pairs.push_back(std::move(pj));
  }
  j["pairs"] = std::move(pairs);
  j["by"] = CompareByName(context.options.by);
  Json stat_tolerances = Json::object();
  for (const StatTolerance& t : context.options.stat_tolerances) {
    stat_tolerances[t.column] = {{"atol", Num(t.atol)}, {"rtol", Num(t.rtol)}};
  }
  j["stat_tolerances"] = std::move(stat_tolerances);
  return j.dump(1) + "\n";
}

}  // namespace acldump::tools
