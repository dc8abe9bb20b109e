// `dump reference`: every node's outputs of an ONNX model, from an engine
// other than the one under test, as files `dump compare` reads:
//   {node}.output.{i}.npy   output i of ONNX node {node} (its name escaped
//                           as dump file names escape it; unnamed nodes get
//                           "{op_type}_{index}", as the converter names them)
//   {input}.output.0.npy    each graph input (the Data operator of a dump)
//   reference.json          what made them: engine, model, inputs, files
// Engines:
//   onnxruntime       ONNX Runtime (CPU, graph optimisations off) through
//                     `node` and the npm package onnxruntime-node, every
//                     intermediate value marked as a graph output;
//   acldump-unfused   this runtime without fusion or no-task nodes, in
//                     float64 wherever a kernel accepts it (ops without a
//                     float64 kernel, such as Conv, run in float32 between
//                     casts); results are written in the model's types;
//   auto              onnxruntime when it is found, else acldump-unfused.
#ifndef ACLDUMP_TOOLS_REFERENCE_ENGINE_H_
#define ACLDUMP_TOOLS_REFERENCE_ENGINE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/graph.h"

namespace acldump::tools {

// The one command that installs what the onnxruntime engine needs.
inline constexpr char kOrtInstallCommand[] =
    "npm install --ignore-scripts onnxruntime-node@1.30.0";

struct ReferenceOptions {
  std::string model;                // .onnx
  std::vector<std::string> inputs;  // .npy per input, in order or name=file
  std::string out_dir;
  std::string engine = "auto";
  std::string ort_dir;      // where onnxruntime-node is installed
  std::string input_shape;  // "x:1,3,224,224" for symbolic dimensions
  uint64_t seed = 0;        // random inputs, as `dump run --seed`
};

struct ReferenceSummary {
  std::string engine;       // "onnxruntime" or "acldump-unfused"
  std::string engine_note;  // versions, or why auto chose acldump-unfused
  std::vector<std::string> inputs;  // "input float32[1,3,32,32] from x.npy"
  size_t nodes = 0;                 // nodes whose outputs were written
  size_t files = 0;
  uint64_t bytes = 0;
  size_t float64_nodes = 0;  // acldump-unfused: nodes run in float64
  std::vector<std::string> float32_types;  // op types that stayed float32
  std::vector<std::string> skipped;  // outputs not written, with the reason
};

// Where onnxruntime-node was found.
struct OrtLocation {
  std::string node;         // the node executable
  std::string modules_dir;  // a node_modules folder holding onnxruntime-node
};

// Looks for `node` on PATH and onnxruntime-node in `ort_dir` (the folder
// npm ran in, its node_modules, or the package itself), $NODE_PATH, and
// ./node_modules. The error says what is missing, where it looked, and
// how to install it.
absl::StatusOr<OrtLocation> FindOnnxRuntime(const std::string& ort_dir);

absl::StatusOr<ReferenceSummary> WriteReferences(
    const ReferenceOptions& options);

// The graph inputs of an ONNX model (names, types, shapes), `input_shape`
// fixing symbolic dimensions as ReferenceOptions::input_shape does.
absl::StatusOr<std::vector<NamedTensorInfo>> ModelInputs(
    const std::string& model, const std::string& input_shape);

// `graph` with every node that has a float64 kernel run in float64, casts
// around the others; graph inputs and outputs keep their types (outputs are
// the float64 results rounded once). Counts go to summary.float64_nodes and
// summary.float32_types.
absl::StatusOr<Graph> PromoteToFloat64(const Graph& graph,
                                       ReferenceSummary& summary);

}  // namespace acldump::tools

#endif  // ACLDUMP_TOOLS_REFERENCE_ENGINE_H_
