// `dump graph`: what a converter graph JSON says about each device operator:
// the original operators it stands for, and each tensor's device layout and
// original format and shape.
#include <cstdio>

#include "base/strings.h"
#include "nlohmann/json.hpp"
#include "tools/cli/command.h"
#include "tools/common/cli_util.h"
#include "tools/device/device_graph.h"

namespace acldump::tools {
namespace {

std::string Dims(const std::vector<int64_t>& dims) {
  return StrCat("[", StrJoin(dims, ","), "]");
}

std::string TensorText(const DeviceGraphTensor& t) {
  std::string text = StrCat(t.dtype.empty() ? "?" : t.dtype, " ",
                            t.layout.empty() ? "?" : t.layout, Dims(t.shape));
  if (!t.origin_format.empty() || !t.origin_shape.empty()) {
    StrAppend(text, " <- ", t.origin_format.empty() ? "?" : t.origin_format,
              Dims(t.origin_shape));
  }
  if (!t.origin_name.empty()) {
    StrAppend(text, " of ", t.origin_name, ":",
              std::max<int64_t>(t.origin_output_index, 0));
  }
  return text;
}

nlohmann::json TensorJson(const DeviceGraphTensor& t) {
  nlohmann::json j;
  j["dtype"] = t.dtype;
  j["layout"] = t.layout;
  j["shape"] = t.shape;
  j["origin_format"] = t.origin_format;
  j["origin_shape"] = t.origin_shape;
  if (!t.origin_name.empty()) {
    j["origin_name"] = t.origin_name;
    j["origin_output_index"] = std::max<int64_t>(t.origin_output_index, 0);
  }
  return j;
}

class GraphCommand final : public Command {
 public:
  CLI::App* Setup(CLI::App& app) override {
    CLI::App* cmd = app.add_subcommand(
        "graph",
        "Show a device model's converter graph (atc --mode=1 --om=model.om "
        "--json=model.json): per operator its original operators, input "
        "edges, and each tensor's device layout with its original format, "
        "shape and original output.");
    cmd->add_option("GRAPH", path_, "the converter's graph JSON")->required();
    cmd->add_flag("--json", json_, "print it as JSON (schema acldump.graph/1)");
    cmd->footer("Example: dump graph model.json");
    return cmd;
  }

  int Run(const ToolContext&) override {
    absl::StatusOr<DeviceGraph> graph = LoadDeviceGraph(path_);
    if (!graph.ok()) {
      return FailWith("graph", graph.status(), "", kExitUsage);
    }
    if (json_) {
      nlohmann::json out;
      out["schema"] = "acldump.graph/1";
      out["name"] = graph->name;
      out["ops"] = nlohmann::json::array();
      for (const DeviceGraphOp& op : graph->ops) {
        nlohmann::json j;
        j["name"] = op.name;
        j["type"] = op.type;
        j["original_names"] = op.original_names;
        j["inputs"] = nlohmann::json::array();
        for (const DeviceGraphEdge& e : op.inputs) {
          j["inputs"].push_back(StrCat(e.op, ":", e.index));
        }
        for (const auto* descs : {&op.input_desc, &op.output_desc}) {
          nlohmann::json list = nlohmann::json::array();
          for (const DeviceGraphTensor& t : *descs) {
            list.push_back(TensorJson(t));
          }
          j[descs == &op.input_desc ? "input_desc" : "output_desc"] = list;
        }
        if (op.l1_fusion_group >= 0) j["l1_fusion_group"] = op.l1_fusion_group;
        out["ops"].push_back(std::move(j));
      }
      std::printf("%s\n", out.dump(1).c_str());
      return 0;
    }
    size_t fused = 0, added = 0;
    for (const DeviceGraphOp& op : graph->ops) {
      fused += op.original_names.size() > 1;
      added += op.original_names.empty() && op.type != "Data" &&
               op.type != "Const" && op.type != "NetOutput";
    }
    std::printf(
        "model %s: %zu operators, %zu fused from several originals, "
        "%zu without original names\n",
        graph->name.c_str(), graph->ops.size(), fused, added);
    for (const DeviceGraphOp& op : graph->ops) {
      std::printf("%s (%s)", op.name.c_str(), op.type.c_str());
      if (!op.original_names.empty()) {
        std::printf("  originals: %s",
                    StrJoin(op.original_names, ", ").c_str());
      }
      std::printf("\n");
      for (size_t i = 0; i < op.inputs.size(); ++i) {
        std::printf("  input %zu  from %s:%lld", i, op.inputs[i].op.c_str(),
                    static_cast<long long>(op.inputs[i].index));
        if (i < op.input_desc.size()) {
          std::printf("  %s", TensorText(op.input_desc[i]).c_str());
        }
        std::printf("\n");
      }
      for (size_t i = 0; i < op.output_desc.size(); ++i) {
        std::printf("  output %zu  %s\n", i,
                    TensorText(op.output_desc[i]).c_str());
      }
    }
    return 0;
  }

 private:
  std::string path_;
  bool json_ = false;
};

}  // namespace

std::unique_ptr<Command> MakeGraphCommand() {
  return std::make_unique<GraphCommand>();
}

}  // namespace acldump::tools
