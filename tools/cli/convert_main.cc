// bazel run //tools:convert -- model.onnx out.om [--json out.json]
// [--no-fusion] [--no-qdq-fusion] [--fuse-residual-add]
// [--fuse-conv-hard-swish]
// [--input-shape "x:1,3,640,640;y:1,16"]
// [--dynamic-batch-size 1,2,4,8 | --dynamic-image-size "224,224;320,320" |
//  --dynamic-dims "20,1;40,2"] [--insert-op-conf aipp.cfg]
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "CLI/CLI.hpp"
#include "acl/acl_version.h"
#include "base/strings.h"
#include "runtime/converter.h"
#include "runtime/model_file.h"

namespace {

// `bazel run` starts tools in the runfiles tree; relative paths mean the user's
// directory.
std::string UserPath(const std::string& path) {
  const char* cwd = std::getenv("BUILD_WORKING_DIRECTORY");
  if (path.empty() || path[0] == '/' || cwd == nullptr) return path;
  return std::string(cwd) + "/" + path;
}

// --dynamic-batch-size / --dynamic-image-size / --dynamic-dims (CLI11 allows
// one of them).
absl::StatusOr<acldump::GearOptions> GearOptionsOf(
    const std::string& batch_sizes, const std::string& image_sizes,
    const std::string& dims) {
  acldump::GearOptions gears;
  absl::StatusOr<acldump::GearValues> values;
  if (!batch_sizes.empty()) {
    gears.kind = acldump::GearKind::kBatch;
    values = acldump::ParseDynamicBatchSizes(batch_sizes);
  } else if (!image_sizes.empty()) {
    gears.kind = acldump::GearKind::kImageSize;
    values = acldump::ParseDynamicImageSizes(image_sizes);
  } else if (!dims.empty()) {
    gears.kind = acldump::GearKind::kDims;
    values = acldump::ParseDynamicDims(dims);
  } else {
    return gears;
  }
  if (!values.ok()) return values.status();
  gears.values = std::move(*values);
  return gears;
}

void PrintSummary(const acldump::Graph& graph, const std::string& output) {
  if (graph.dynamic()) {
    std::vector<std::string> values;
    for (const acldump::Gear& gear : graph.gears)
      values.push_back(
          acldump::StrCat("[", acldump::StrJoin(gear.values, ","), "]"));
    std::printf("converted '%s': %zu %s gears %s -> %s\n", graph.name.c_str(),
                graph.gears.size(),
                std::string(acldump::GearKindName(graph.gear_kind)).c_str(),
                acldump::StrJoin(values, " ").c_str(), output.c_str());
    return;
  }
  size_t fused = 0;
  size_t no_task = 0;
  for (const auto& node : graph.nodes) {
    fused += node.original_names.size() > 1;
    no_task += node.no_task;
  }
  std::printf(
      "converted '%s': %zu nodes (%zu fused, %zu no-task), %zu initializers -> "
      "%s\n",
      graph.name.c_str(), graph.nodes.size(), fused, no_task,
      graph.initializers.size(), output.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  // The example names the tool as it was started (acldump-convert installed).
  const std::string invocation = std::getenv("BUILD_WORKING_DIRECTORY")
                                     ? "bazel run //tools:convert --"
                                     : argv[0];
  CLI::App app{
      "Convert an ONNX model (opset 7-18) to an acldump .om model.\nExample: " +
      invocation + " testdata/resnet_tiny.onnx resnet.om --json resnet.json"};
  app.set_version_flag("--version",
                       "convert (acldump) " ACLDUMP_VERSION_STRING);
  std::string input, output, json_path, input_shape, batch_sizes, image_sizes,
      dims;
  bool no_fusion = false;
  app.add_option("model.onnx", input, "ONNX model to convert")->required();
  app.add_option("out.om", output, "where to write the .om model")->required();
  app.add_option("--json", json_path,
                 "also write the model as JSON (outer \"name\" first)");
  app.add_option(
      "--input-shape", input_shape,
      "static shapes for inputs with symbolic dimensions, as "
      "\"name:d0,d1,...;name2:...\" (e.g. \"x:1,3,640,640\"); output shapes "
      "follow by shape inference");
  auto* batch_option = app.add_option(
      "--dynamic-batch-size", batch_sizes,
      "compile one plan per batch size (2-100 of them, e.g. \"1,2,4,8\") "
      "for the inputs whose dimension 0 is -1 in --input-shape (or symbolic)");
  auto* image_option =
      app.add_option("--dynamic-image-size", image_sizes,
                     "compile one plan per image size (\"h,w;h,w;...\", e.g. "
                     "\"224,224;320,320\") for the 4-D inputs whose height "
                     "and width are -1 in --input-shape (or symbolic)")
          ->excludes(batch_option);
  app.add_option("--dynamic-dims", dims,
                 "compile one plan per set of dims (\"d,d,...;d,d,...\", e.g. "
                 "\"20,1;40,2\"): each gear has one value per -1 of the "
                 "inputs in --input-shape (or symbolic), taken by the inputs "
                 "in order")
      ->excludes(batch_option)
      ->excludes(image_option);
  std::string insert_op_conf;
  app.add_option("--insert-op-conf", insert_op_conf,
                 "AIPP image preprocessing in front of model inputs, from the "
                 "NPU SDK converter's config file (aipp_op { aipp_mode: "
                 "static input_format: YUV420SP_U8 ... }): the input then "
                 "takes 8-bit images");
  app.add_flag("--no-fusion", no_fusion,
               "keep every ONNX node (no BatchNorm folding, no Relu, Add, "
               "Sigmoid+Mul or quantized-group fusion)");
  bool no_qdq_fusion = false;
  app.add_flag("--no-qdq-fusion", no_qdq_fusion,
               "run a quantized (QDQ) model's Conv, Gemm, Add and "
               "GlobalAveragePool as written, in float between their "
               "DequantizeLinear and QuantizeLinear, instead of on the 8-bit "
               "values as ONNX Runtime and integer hardware do (their dumps "
               "then hold float tensors, comparable with the float model's)");
  bool fuse_residual_add = false;
  app.add_flag("--fuse-residual-add", fuse_residual_add,
               "also fuse Add(Conv, residual) and the activation after it into "
               "the Conv (faster; dumps then no longer show the convolution's "
               "output before the residual is added)");
  bool fuse_conv_hard_swish = false;
  app.add_flag("--fuse-conv-hard-swish", fuse_conv_hard_swish,
               "also fuse HardSwish into the Conv before it (off by default: "
               "slower than the separate HardSwish on the machines measured)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  acldump::PassOptions options =
      no_fusion ? acldump::PassOptions::Unfused() : acldump::PassOptions();
  if (fuse_residual_add && !no_fusion) options.fuse_conv_add = true;
  if (fuse_conv_hard_swish && !no_fusion) options.fuse_conv_hard_swish = true;
  if (no_qdq_fusion) options.fuse_qdq = false;
  acldump::ImportOptions import_options;
  if (!input_shape.empty()) {
    absl::StatusOr<acldump::InputShapes> shapes =
        acldump::ParseInputShapes(input_shape);
    if (!shapes.ok()) {
      std::fprintf(stderr, "convert: --input-shape: %s\n",
                   std::string(shapes.status().message()).c_str());
      return 2;
    }
    import_options.input_shapes = std::move(*shapes);
  }
  absl::StatusOr<acldump::GearOptions> gears =
      GearOptionsOf(batch_sizes, image_sizes, dims);
  if (!gears.ok()) {
    std::fprintf(stderr, "convert: %s\n",
                 std::string(gears.status().message()).c_str());
    return 2;
  }
  absl::StatusOr<acldump::Graph> graph = acldump::ConvertOnnxFile(
      UserPath(input), options, import_options, *gears);
  if (!graph.ok()) {
    std::fprintf(stderr, "convert: %s\n",
                 std::string(graph.status().message()).c_str());
    return 1;
  }
  if (!insert_op_conf.empty()) {
    absl::Status inserted =
        acldump::ApplyInsertOpConf(*graph, UserPath(insert_op_conf));
    if (!inserted.ok()) {
      std::fprintf(stderr, "convert: --insert-op-conf %s\n",
                   std::string(inserted.message()).c_str());
      return 1;
    }
  }
  absl::Status written = acldump::WriteModelFile(*graph, UserPath(output));
  if (!written.ok()) {
    std::fprintf(stderr, "convert: %s\n",
                 std::string(written.message()).c_str());
    return 1;
  }
  if (!json_path.empty()) {
    std::ofstream json(UserPath(json_path));
    json << acldump::ModelToJson(*graph) << "\n";
    if (!json) {
      std::fprintf(stderr, "convert: cannot write '%s'\n", json_path.c_str());
      return 1;
    }
  }
  PrintSummary(*graph, output);
  return 0;
}
