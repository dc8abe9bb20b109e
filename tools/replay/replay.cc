#include "tools/replay/replay.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <set>

#include "base/status_macros.h"
#include "base/strings.h"
#include "dump/format/dump_file.h"
#include "fmt/format.h"
#include "kernels/half.h"
#include "nlohmann/json.hpp"
#include "runtime/converter.h"
#include "runtime/model_loader.h"
#include "runtime/onnx_import.h"
#include "runtime/passes.h"
#include "tools/compare/metrics.h"
#include "tools/reference/engine.h"

namespace acldump::tools {
namespace {

struct Dumped {
  std::string op_name;
  std::string op_type;
  std::vector<std::string> original_names;
  std::vector<Tensor> inputs;
  std::vector<Tensor> outputs;
};

std::vector<std::string> SplitCommas(const std::string& text) {
  std::vector<std::string> parts;
  size_t begin = 0;
  while (true) {
    const size_t comma = text.find(',', begin);
    parts.push_back(text.substr(begin, comma - begin));
    if (comma == std::string::npos) return parts;
    begin = comma + 1;
  }
}

absl::Status NotReplayable(std::string_view message) {
  return absl::InvalidArgumentError(std::string(message));
}

absl::StatusOr<Dumped> ReadDumped(const std::string& path) {
  ASSIGN_OR_RETURN(dump::DumpFileContents contents, dump::ReadDumpFile(path));
  const auto& header = contents.header;
  Dumped d;
  d.op_name = header.op_name();
  for (const auto& attr : header.attr()) {
    if (attr.name() == "op_type") d.op_type = attr.value();
    if (attr.name() == "original_names" && !attr.value().empty()) {
      d.original_names = SplitCommas(attr.value());
    }
  }
  if (contents.inputs.empty()) {
    return NotReplayable(StrCat(
        path, ": holds no inputs of '", d.op_name,
        "' (a dump of dump_mode \"output\"); replay needs a dump of "
        "\"dump_mode\": \"all\" (add \"layer\": [\"",
        d.op_name, "\"] to its dump_list entry to dump only this operator)"));
  }
  for (int i = 0; i < header.input_size(); ++i) {
    const auto& in = header.input(i);
    absl::StatusOr<Tensor> tensor =
        dump::PayloadToTensor(in.data_type(), in.shape(), contents.inputs[i]);
    if (!tensor.ok()) {
      return NotReplayable(
          StrCat(path, ": input ", i, ": ", ToStd(tensor.status().message())));
    }
    d.inputs.push_back(*std::move(tensor));
  }
  for (int o = 0; o < header.output_size(); ++o) {
    const auto& out = header.output(o);
    absl::StatusOr<Tensor> tensor = dump::PayloadToTensor(
        out.data_type(), out.shape(), contents.outputs[o]);
    if (!tensor.ok()) {
      return NotReplayable(
          StrCat(path, ": output ", o, ": ", ToStd(tensor.status().message())));
    }
    d.outputs.push_back(*std::move(tensor));
  }
  return d;
}

absl::StatusOr<Graph> ModelGraph(const ReplayOptions& options, bool fused) {
  return ReadModelGraph(options.model, options.input_shape, fused);
}

// The node named `name` and the graph holding it (a dynamic model's gears
// hold theirs).
struct FoundNode {
  const Graph* graph = nullptr;
  const GraphNode* node = nullptr;
};

FoundNode FindNode(const Graph& graph, const std::string& name,
                   const std::vector<Tensor>& dumped_inputs) {
  std::vector<const Graph*> graphs = {&graph};
  for (const Gear& gear : graph.gears) graphs.push_back(gear.graph.get());
  for (const Graph* g : graphs) {
    for (const GraphNode& node : g->nodes) {
      if (node.name != name) continue;
      // A gear's node reads the dumped shapes where it reads a constant.
      bool fits = true;
      size_t k = 0;
      for (const std::string& input : node.inputs) {
        if (input.empty()) continue;
        auto constant = g->initializers.find(input);
        if (k < dumped_inputs.size() && constant != g->initializers.end() &&
            constant->second->info() != dumped_inputs[k].info()) {
          fits = false;
        }
        ++k;
      }
      if (fits) return {g, &node};
    }
  }
  return {};
}

std::vector<std::string> PresentInputs(const GraphNode& node) {
  std::vector<std::string> names;
  for (const std::string& input : node.inputs) {
    if (!input.empty()) names.push_back(input);
  }
  return names;
}

std::vector<std::string> PresentOutputs(const GraphNode& node) {
  std::vector<std::string> names;
  for (const std::string& output : node.outputs) {
    if (!output.empty()) names.push_back(output);
  }
  return names;
}

// Compiles `graph` and runs it on `feeds` (one per graph input, in order).
absl::StatusOr<std::vector<Tensor>> RunGraph(
    Graph graph, const std::vector<const Tensor*>& feeds) {
  ASSIGN_OR_RETURN(std::unique_ptr<CompiledModel> model,
                   CompileStaticModel(std::move(graph)));
  std::vector<HostBuffer> in;
  for (const Tensor* t : feeds) in.push_back({t->data(), t->ByteSize()});
  std::vector<Tensor> outputs;
  std::vector<MutableHostBuffer> out;
  for (const NamedTensorInfo& output : model->graph().outputs) {
    outputs.emplace_back(output.info.dtype, output.info.shape);
  }
  for (Tensor& t : outputs) out.push_back({t.data(), t.ByteSize()});
  RETURN_IF_ERROR(model->Execute(in, out));
  return outputs;
}

// A float's position on the line of representable values of its type.
int64_t OrderedBits(const Tensor& t, int64_t i) {
  auto order = [](int64_t bits, int64_t sign_bit) {
    return (bits & sign_bit) ? -(bits & (sign_bit - 1)) : bits;
  };
  switch (t.dtype()) {
    case DType::kFloat32:
      return order(t.as<uint32_t>()[i], int64_t{1} << 31);
    case DType::kFloat64:
      return order(static_cast<int64_t>(t.as<uint64_t>()[i] >> 1),
                   int64_t{1} << 62);
    case DType::kFloat16:
    case DType::kBFloat16:
      return order(t.as<uint16_t>()[i], 1 << 15);
    default:
      return 0;
  }
}

// Bits first (a faithful replay differs nowhere); the metrics of `dump
// compare` (`b` the reference) and the distance in representable values.
Distance Measure(const Tensor& a, const Tensor& b) {
  Distance d;
  d.elements = static_cast<uint64_t>(a.NumElements());
  const size_t size = DTypeSize(a.dtype());
  const auto* pa = static_cast<const std::byte*>(a.data());
  const auto* pb = static_cast<const std::byte*>(b.data());
  for (int64_t i = 0; i < a.NumElements(); ++i) {
    if (std::memcmp(pa + i * size, pb + i * size, size) == 0) continue;
    ++d.differing;
    const int64_t steps = OrderedBits(a, i) - OrderedBits(b, i);
    d.max_ulps =
        std::max(d.max_ulps, static_cast<uint64_t>(steps < 0 ? -steps : steps));
  }
  if (d.differing == 0) return d;
  const std::vector<double> x = ToDoubles(a.view()), y = ToDoubles(b.view());
  const TensorMetrics metrics = ComputeMetrics(x, y);
  d.nonfinite_mismatch = metrics.nonfinite_mismatch;
  d.max_abs = metrics.max_abs;
  d.max_rel = metrics.max_rel;
  d.cosine = metrics.cosine;
  return d;
}

std::string Describe(const std::string& name, const Tensor& t) {
  return StrCat(name, " ", t.info().ToString());
}

// The operator alone, as the model compiled it: its constants from the
// model, the rest from the dump.
absl::StatusOr<std::vector<Tensor>> ReplayFused(const ReplayOptions& options,
                                                const Dumped& d,
                                                const FoundNode& found,
                                                ReplayResult& result) {
  const GraphNode& node = *found.node;
  const Graph& graph = *found.graph;
  const std::vector<std::string> inputs = PresentInputs(node);
  const std::vector<std::string> outputs = PresentOutputs(node);
  if (inputs.size() != d.inputs.size() || outputs.size() != d.outputs.size()) {
    return NotReplayable(StrCat(
        "'", d.op_name, "' has ", inputs.size(), " inputs and ", outputs.size(),
        " outputs in the model, the dump ", d.inputs.size(), " and ",
        d.outputs.size(),
        "; replay needs every tensor (dump_mode \"all\", no input or output "
        "excluded by a blacklist position)"));
  }
  Graph one;
  one.name = graph.name;
  one.source_opset = graph.source_opset;
  one.nodes.push_back(node);
  std::vector<const Tensor*> feeds;
  std::set<std::string> fed;
  for (size_t k = 0; k < inputs.size(); ++k) {
    result.inputs.push_back(Describe(inputs[k], d.inputs[k]));
    auto constant = found.graph->initializers.find(inputs[k]);
    if (constant != found.graph->initializers.end()) {
      const Tensor& value = *constant->second;
      if (value.info() != d.inputs[k].info() ||
          std::memcmp(value.data(), d.inputs[k].data(), value.ByteSize()) !=
              0) {
        return NotReplayable(
            StrCat("input ", k, " of '", d.op_name, "' ('", inputs[k],
                   "') is a constant of the model that differs from the dumped "
                   "one: was the dump made from ",
                   options.model, "?"));
      }
      one.initializers[inputs[k]] = constant->second;
      continue;
    }
    if (!fed.insert(inputs[k]).second) continue;
    one.inputs.push_back({inputs[k], d.inputs[k].info()});
    feeds.push_back(&d.inputs[k]);
  }
  for (size_t o = 0; o < outputs.size(); ++o) {
    one.outputs.push_back({outputs[o], d.outputs[o].info()});
  }
  return RunGraph(std::move(one), feeds);
}

// The original operators the dumped one stands for, in float64 where a
// kernel accepts it; fed the dumped values their first operators read.
absl::StatusOr<std::vector<Tensor>> ReplayUnfused(
    const ReplayOptions& options, const Dumped& d,
    const std::vector<std::string>& fused_inputs,
    const std::vector<std::string>& fused_outputs, ReplayResult& result) {
  ASSIGN_OR_RETURN(Graph unfused, ModelGraph(options, /*fused=*/false));
  const std::vector<std::string> originals =
      d.original_names.empty() ? std::vector<std::string>{d.op_name}
                               : d.original_names;
  const std::set<std::string> wanted(originals.begin(), originals.end());
  Graph sub;
  sub.name = unfused.name;
  sub.source_opset = unfused.source_opset;
  std::set<std::string> produced;
  for (const GraphNode& node : unfused.nodes) {
    if (!wanted.count(node.name)) continue;
    sub.nodes.push_back(node);
    result.float64_operators.push_back(node.name);
    for (const std::string& out : node.outputs) produced.insert(out);
  }
  if (sub.nodes.empty()) {
    return NotReplayable(StrCat("the unfused model has no operator named ",
                                StrJoin(originals, ", ")));
  }
  std::vector<const Tensor*> feeds;
  std::set<std::string> fed;
  for (const GraphNode& node : sub.nodes) {
    for (const std::string& input : node.inputs) {
      if (input.empty() || produced.count(input) || fed.count(input)) continue;
      auto constant = unfused.initializers.find(input);
      if (constant != unfused.initializers.end()) {
        sub.initializers[input] = constant->second;
        continue;
      }
      size_t k = 0;
      while (k < fused_inputs.size() && fused_inputs[k] != input) ++k;
      if (k == fused_inputs.size()) {
        return NotReplayable(StrCat("'", node.name, "' reads '", input,
                                    "', which the dumped operator does not"));
      }
      fed.insert(input);
      sub.inputs.push_back({input, d.inputs[k].info()});
      feeds.push_back(&d.inputs[k]);
    }
  }
  for (size_t o = 0; o < fused_outputs.size(); ++o) {
    if (!produced.count(fused_outputs[o])) {
      return NotReplayable(StrCat("output '", fused_outputs[o],
                                  "' is not made by the original operators"));
    }
    sub.outputs.push_back({fused_outputs[o], d.outputs[o].info()});
  }
  ReferenceSummary summary;
  ASSIGN_OR_RETURN(Graph promoted, PromoteToFloat64(sub, summary));
  result.float64_nodes = summary.float64_nodes;
  if (!summary.float32_types.empty()) {
    result.float64_note = StrCat("in float32 (no float64 kernel): ",
                                 StrJoin(summary.float32_types, ", "));
  }
  return RunGraph(std::move(promoted), feeds);
}

nlohmann::ordered_json DistanceJson(const Distance& d) {
  return {{"elements", d.elements},
          {"differing", d.differing},
          {"max_abs", d.max_abs},
          {"max_rel", d.max_rel},
          {"cosine", d.cosine},
          {"max_ulps", d.max_ulps},
          {"nonfinite_mismatch", d.nonfinite_mismatch}};
}

std::string DistanceText(const Distance& d) {
  if (d.differing == 0) return "identical";
  return StrCat(d.differing, " of ", d.elements,
                " elements differ, max |diff| ",
                fmt::format("{:.3g}", d.max_abs), " (relative ",
                fmt::format("{:.3g}", d.max_rel), ", ", d.max_ulps, " ulp)",
                d.nonfinite_mismatch ? ", NaN/Inf where the other is not" : "");
}

}  // namespace

bool IsOnnxModel(const std::string& path) {
  return path.size() > 5 && path.compare(path.size() - 5, 5, ".onnx") == 0;
}

absl::StatusOr<Graph> ReadModelGraph(const std::string& model,
                                     const std::string& input_shape,
                                     bool fused) {
  if (!IsOnnxModel(model)) return ReadModel(ModelSource::File(model));
  PassOptions passes;
  if (!fused) {
    passes = PassOptions::Unfused();
    passes.mark_no_task = false;
  }
  ImportOptions import;
  if (!input_shape.empty()) {
    ASSIGN_OR_RETURN(import.input_shapes, ParseInputShapes(input_shape));
  }
  return ConvertOnnxFile(model, passes, import);
}

absl::StatusOr<ReplayResult> Replay(const ReplayOptions& options) {
  ASSIGN_OR_RETURN(Dumped d, ReadDumped(options.dump_file));
  ReplayResult result;
  result.op_name = d.op_name;
  result.op_type = d.op_type;
  result.original_names = d.original_names;
  ASSIGN_OR_RETURN(Graph graph, ModelGraph(options, /*fused=*/true));
  const FoundNode found = FindNode(graph, d.op_name, d.inputs);
  if (found.node == nullptr) {
    return NotReplayable(StrCat(options.model, " has no operator named '",
                                d.op_name,
                                "': give the model the dump was made from"));
  }
  ASSIGN_OR_RETURN(std::vector<Tensor> fused,
                   ReplayFused(options, d, found, result));
  result.reproduced = true;
  for (size_t o = 0; o < fused.size(); ++o) {
    ReplayOutput out;
    out.index = static_cast<uint32_t>(o);
    out.tensor = d.outputs[o].info().ToString();
    out.fused_vs_dump = Measure(fused[o], d.outputs[o]);
    result.reproduced = result.reproduced && out.fused_vs_dump.differing == 0;
    result.outputs.push_back(out);
  }
  if (!IsOnnxModel(options.model)) {
    result.float64_note =
        "not run: the original operators need the ONNX model (--model "
        "model.onnx)";
    return result;
  }
  // The fused node's value names feed and read the original operators.
  absl::StatusOr<std::vector<Tensor>> reference =
      ReplayUnfused(options, d, PresentInputs(*found.node),
                    PresentOutputs(*found.node), result);
  if (!reference.ok()) {
    result.float64_operators.clear();
    result.float64_note =
        StrCat("not run: ", ToStd(reference.status().message()));
    return result;
  }
  for (size_t o = 0; o < fused.size(); ++o) {
    result.outputs[o].dump_vs_float64 = Measure(d.outputs[o], (*reference)[o]);
    result.outputs[o].fused_vs_float64 = Measure(fused[o], (*reference)[o]);
  }
  return result;
}

std::string FormatReplay(const ReplayResult& r) {
  std::string out = StrCat("replay of ", r.op_name, " (", r.op_type);
  if (!r.original_names.empty() &&
      !(r.original_names.size() == 1 && r.original_names[0] == r.op_name)) {
    StrAppend(out, "; from ", StrJoin(r.original_names, ", "));
  }
  out += ")\n";
  for (const std::string& input : r.inputs) {
    StrAppend(out, "  input      ", input, "\n");
  }
  for (const ReplayOutput& o : r.outputs) {
    StrAppend(out, "  output ", o.index, "   ", o.tensor, "\n");
    StrAppend(out, "    fused kernel vs dump     ",
              o.fused_vs_dump.differing == 0 ? "reproduced bit for bit"
                                             : DistanceText(o.fused_vs_dump),
              "\n");
    if (o.dump_vs_float64) {
      StrAppend(out, "    dump vs float64          ",
                DistanceText(*o.dump_vs_float64), "\n");
      StrAppend(out, "    fused replay vs float64  ",
                DistanceText(*o.fused_vs_float64), "\n");
    }
  }
  if (!r.float64_operators.empty()) {
    StrAppend(out, "  float64    ", StrJoin(r.float64_operators, ", "), " (",
              r.float64_nodes, " in float64",
              r.float64_note.empty() ? "" : StrCat("; ", r.float64_note),
              ")\n");
  } else if (!r.float64_note.empty()) {
    StrAppend(out, "  float64    ", r.float64_note, "\n");
  }
  StrAppend(out, "result: ",
            r.reproduced ? "the dumped outputs are reproduced bit for bit"
                         : "the replay does NOT reproduce the dumped outputs",
            "\n");
  return out;
}

std::string ReplayJson(const ReplayResult& r) {
  nlohmann::ordered_json outputs = nlohmann::ordered_json::array();
  for (const ReplayOutput& o : r.outputs) {
    nlohmann::ordered_json out = {
        {"index", o.index},
        {"tensor", o.tensor},
        {"fused_vs_dump", DistanceJson(o.fused_vs_dump)}};
    if (o.dump_vs_float64) {
      out["dump_vs_float64"] = DistanceJson(*o.dump_vs_float64);
      out["fused_vs_float64"] = DistanceJson(*o.fused_vs_float64);
    }
    outputs.push_back(std::move(out));
  }
  nlohmann::ordered_json json = {
      {"schema", "acldump.replay/1"},
      {"op_name", r.op_name},
      {"op_type", r.op_type},
      {"original_names", r.original_names},
      {"inputs", r.inputs},
      {"outputs", std::move(outputs)},
      {"reproduced", r.reproduced},
      {"float64_operators", r.float64_operators},
      {"float64_nodes", r.float64_nodes},
      {"float64_note", r.float64_note},
  };
  return json.dump(2) + "\n";
}

}  // namespace acldump::tools
