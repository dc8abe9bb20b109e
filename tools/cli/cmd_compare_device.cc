// `dump compare-device`: a device (NPU) dump against this runtime's run of
// the original model, operator by original operator, as the SDK's compare
// script reports it.
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <map>

#include "base/strings.h"
#include "dump/format/dump_names.h"
#include "tools/cli/command.h"
#include "tools/cli/compare_on_cluster.h"
#include "tools/common/cli_util.h"
#include "tools/common/output_folder.h"
#include "tools/compare/compare.h"
#include "tools/device/device_compare.h"
#include "tools/device/device_graph.h"
#include "tools/reference/engine.h"
#include "tools/report/report.h"

namespace acldump::tools {
namespace {

namespace fs = std::filesystem;

class CompareDeviceCommand final : public Command {
 public:
  CLI::App* Setup(CLI::App& app) override {
    CLI::App* cmd = app.add_subcommand(
        "compare-device",
        "Compare a device (NPU) dump with this runtime's run of the original "
        "ONNX model on the same inputs: device tensors are read back from the "
        "device's layouts (NC1HWC0, FRACTAL_Z, FRACTAL_NZ, ...), matched to "
        "the original operators they stand for (the dump's original_op, or "
        "the converter graph with --graph), and the first diverging "
        "operator is named. Writes the SDK compare script's result CSV. Exit "
        "0 within tolerance, 1 outside, 2 when nothing could be compared.");
    cmd->add_option("DEVICE", device_,
                    "the device's dump tree, or any folder or file below it")
        ->required();
    cmd->add_option("--model,-m", model_, "the original .onnx model")
        ->required();
    cmd->add_option("--graph,-g", graph_,
                    "the converter's graph JSON (atc --mode=1 --om=model.om "
                    "--json=model.json): fused operators' original names, "
                    "and inputs matched through the device's Cast and "
                    "TransData operators");
    cmd->add_option("--input,-i", inputs_,
                    ".npy per model input (in order, or name=file.npy); by "
                    "default read from the device dump");
    cmd->add_option("--out,-o", out_,
                    "folder for the CPU run's ground truth, the inputs taken "
                    "from the dump and result_{time}.csv")
        ->capture_default_str();
    cmd->add_option("--engine", engine_,
                    "ground truth from acldump-unfused (this runtime without "
                    "fusion, float64 where it can), onnxruntime, or auto")
        ->check(CLI::IsMember({"auto", "onnxruntime", "acldump-unfused"}))
        ->capture_default_str();
    cmd->add_option("--ort-dir", ort_dir_,
                    "where onnxruntime-node is installed (--engine "
                    "onnxruntime)");
    cmd->add_option("--input-shape", input_shape_,
                    "static shapes for symbolic input dimensions, e.g. "
                    "\"x:1,3,224,224\"");
    cmd->add_option("--atol", atol_, "absolute tolerance")
        ->capture_default_str();
    cmd->add_option("--rtol", rtol_, "relative tolerance")
        ->capture_default_str();
    cmd->add_option("--report", report_, "write the HTML report here");
    cmd->add_option("--json", json_,
                    "write every result as JSON (schema acldump.compare/1); "
                    "- for stdout");
    cmd->add_flag("--verbose,-v", verbose_,
                  "print the tensors of every folder");
    AddFilterOptions(*cmd, filter_options_);
    AddClusterOptions(*cmd, cluster_);
    cmd->footer(
        "Example: dump compare-device npu_dump/ --model model.onnx --graph "
        "model.json --report device.html");
    return cmd;
  }

  int Run(const ToolContext&) override {
    // With --json - the JSON alone goes to stdout; progress to stderr.
    info_ = json_ == "-" ? stderr : stdout;
    absl::StatusOr<DumpFilter> filter = DumpFilter::Create(filter_options_);
    if (!filter.ok()) {
      return FailWith("compare-device", filter.status(), "", kExitUsage);
    }
    absl::StatusOr<CompareTree> device =
        LoadCompareTree(device_, {*filter, ""});
    if (!device.ok()) {
      return FailWith("compare-device", device.status(),
                      "DEVICE must be the device's dump tree (dump_mode all)",
                      kExitUsage);
    }
    if (device->kind != SideKind::kDump) {
      return Fail("compare-device",
                  StrCat("'", device_, "' holds no tensor dumps"),
                  "dump on the device with dump_data tensor", kExitUsage);
    }
    std::optional<DeviceGraph> graph;
    if (!graph_.empty()) {
      absl::StatusOr<DeviceGraph> loaded = LoadDeviceGraph(graph_);
      if (!loaded.ok()) {
        return FailWith("compare-device", loaded.status(), "", kExitUsage);
      }
      graph = *std::move(loaded);
      const GraphApplication applied = ApplyDeviceGraph(*graph, *device);
      std::fprintf(info_, "graph     %s: %zu of %zu dumped operators found",
                   graph_.c_str(), applied.ops_found,
                   applied.ops_found + applied.ops_missing.size());
      if (!applied.ops_missing.empty()) {
        std::fprintf(
            info_, " (not in it: %s%s)",
            StrJoin(std::vector<std::string>(
                        applied.ops_missing.begin(),
                        applied.ops_missing.begin() +
                            std::min<size_t>(5, applied.ops_missing.size())),
                    ", ")
                .c_str(),
            applied.ops_missing.size() > 5 ? ", ..." : "");
      }
      std::fprintf(info_, "\n");
    }
    MarkDeviceOnlyOperators(*device);
    const std::string stem = fs::path(model_).stem().string();
    const std::string golden = StrCat(out_, "/", stem, ".golden");
    std::vector<std::string> inputs = inputs_;
    if (inputs.empty()) {
      absl::StatusOr<std::vector<NamedTensorInfo>> model_inputs =
          ModelInputs(model_, input_shape_);
      if (!model_inputs.ok()) {
        return FailWith("compare-device", model_inputs.status(), "",
                        kExitUsage);
      }
      absl::StatusOr<std::vector<std::string>> extracted =
          ExtractModelInputs(device->folders.front(), graph ? &*graph : nullptr,
                             *model_inputs, StrCat(out_, "/", stem, ".inputs"));
      if (!extracted.ok()) {
        return FailWith("compare-device", extracted.status(), "", kExitUsage);
      }
      inputs = *std::move(extracted);
      for (const std::string& in : inputs) {
        std::fprintf(info_, "input     %s (from the device dump)\n",
                     in.c_str());
      }
    }
    ReferenceOptions reference;
    reference.model = model_;
    reference.inputs = inputs;
    reference.out_dir = golden;
    reference.engine = engine_;
    reference.ort_dir = ort_dir_;
    reference.input_shape = input_shape_;
    absl::StatusOr<ReferenceSummary> written = WriteReferences(reference);
    if (!written.ok()) {
      return FailWith("compare-device", written.status(), "", kExitFailure);
    }
    std::fprintf(info_, "truth     %zu operators' outputs by %s in %s\n",
                 written->nodes, written->engine.c_str(), golden.c_str());
    absl::StatusOr<CompareTree> truth = LoadCompareTree(golden, {});
    if (!truth.ok()) {
      return FailWith("compare-device", truth.status(), "", kExitFailure);
    }
    CompareOptions options{atol_, rtol_, CompareBy::kTensors, {}};
    options.original_names_only = true;
    TreeCompareResult result;
    size_t failed = 0;
    if (cluster_.scheduler.empty()) {
      result = CompareTrees(*device, *truth, options, *filter);
    } else {
      absl::StatusOr<MergedCompare> merged = CompareTreesOnCluster(
          cluster_, *device, *truth, options, filter_options_);
      if (!merged.ok()) {
        return FailWith("compare-device", merged.status(), "", kExitFailure);
      }
      result = std::move(merged->result);
      failed = merged->failed.size();
    }
    return Report(result, *device, *truth, options, failed);
  }

 private:
  int Report(const TreeCompareResult& result, const CompareTree& device,
             const CompareTree& truth, const CompareOptions& options,
             size_t failed) {
    const ReportContext context{&device,
                                &truth,
                                options,
                                std::vector<Metric>(std::begin(kDefaultMetrics),
                                                    std::end(kDefaultMetrics)),
                                "",
                                verbose_};
    const bool quiet = json_ == "-";
    if (!quiet) {
      std::fputs(FormatCompareText(result, context).c_str(), stdout);
      std::fputs(RelationSummary(result).c_str(), stdout);
    }
    absl::StatusOr<std::unique_ptr<OutputFolder>> out =
        OutputFolder::Open(out_);
    if (!out.ok()) return FailWith("compare-device", out.status(), "", 2);
    char stamp[32];
    const std::time_t now = std::time(nullptr);
    std::tm tm{};
    localtime_r(&now, &tm);
    std::strftime(stamp, sizeof(stamp), "%Y%m%d%H%M%S", &tm);
    absl::StatusOr<std::string> csv =
        (*out)->Write(StrCat("result_", stamp, ".csv"), SdkResultCsv(result));
    if (!csv.ok()) return FailWith("compare-device", csv.status(), "", 1);
    if (!quiet) std::printf("csv       %s\n", csv->c_str());
    for (const auto& [path, text] :
         {std::pair{report_, report_.empty()
                                 ? std::string()
                                 : RenderCompareHtml(result, context)},
          std::pair{json_, json_.empty() ? std::string()
                                         : CompareJson(result, context)}}) {
      if (path.empty()) continue;
      if (absl::Status written = WriteTextOutput(path, text); !written.ok()) {
        return Fail("compare-device", std::string(written.message()), "",
                    kExitUsage);
      }
      if (!quiet && path != "-") std::printf("wrote     %s\n", path.c_str());
    }
    if (failed > 0) {
      return Fail("compare-device",
                  StrCat(failed, " folder pairs were not compared"),
                  "the results above hold the other pairs", kExitIncomplete);
    }
    if (result.tensors_compared == 0) {
      return Fail("compare-device",
                  "no device tensor has a counterpart in the CPU run",
                  "device operators are matched by the original operator "
                  "their outputs name (original_op); give the converter "
                  "graph with --graph",
                  kExitUsage);
    }
    return result.exit_code();
  }

  // How device operators stand to the original ones, and the ones the
  // device added (never silently dropped).
  static std::string RelationSummary(const TreeCompareResult& result) {
    std::string text;
    for (const FolderPair& pair : result.pairs) {
      const std::vector<OpRelation> relations = ClassifyRelations(*pair.a);
      std::map<Relation, size_t> counts;
      std::vector<std::string> device_only;
      for (size_t i = 0; i < relations.size(); ++i) {
        ++counts[relations[i].relation];
        if (relations[i].relation == Relation::kDeviceOnly) {
          device_only.push_back(pair.a->ops[i].name);
        }
      }
      std::vector<std::string> parts;
      for (const auto& [relation, count] : counts) {
        parts.push_back(StrCat(count, " ", RelationName(relation)));
      }
      StrAppend(text, "operators ", StrJoin(parts, ", "), "\n");
      if (!device_only.empty()) {
        const size_t shown = std::min<size_t>(device_only.size(), 8);
        StrAppend(text, "device-only (no ground truth): ",
                  StrJoin(std::vector<std::string>(device_only.begin(),
                                                   device_only.begin() + shown),
                          ", "),
                  device_only.size() > shown ? ", ..." : "", "\n");
      }
    }
    return text;
  }

  std::string device_, model_, graph_, out_ = "acldump_output/compare-device",
                                       engine_ = "acldump-unfused", ort_dir_,
                                       input_shape_, report_, json_;
  std::vector<std::string> inputs_;
  FILE* info_ = stdout;
  double atol_ = 1e-3, rtol_ = 1e-3;
  bool verbose_ = false;
  FilterOptions filter_options_;
  ClusterOptions cluster_;
};

}  // namespace

std::unique_ptr<Command> MakeCompareDeviceCommand() {
  return std::make_unique<CompareDeviceCommand>();
}

}  // namespace acldump::tools
