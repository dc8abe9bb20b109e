// Reads the ONNX backend node tests (Debian's libonnx-testdata) for kernel
// tests: the single node of a case's model.onnx and its test data sets. A
// minimal protobuf decoder: the ONNX protos live in runtime/, which kernels do
// not depend on.
#ifndef ACLDUMP_KERNELS_TESTING_ONNX_NODE_CASE_H_
#define ACLDUMP_KERNELS_TESTING_ONNX_NODE_CASE_H_

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "kernels/attributes.h"
#include "kernels/tensor.h"

namespace acldump::testing {

inline constexpr char kOnnxNodeTestRoot[] =
    "/usr/share/libonnx-testdata/data/node";

struct OnnxNodeCase {
  std::string op_type;
  std::string domain;  // the node's; "" is the default domain
  Attributes attrs;    // int, float, string, ints, floats, strings
  std::vector<std::string> inputs, outputs;  // the node's ("" = absent)
  std::vector<std::string> graph_inputs, graph_outputs;
};

// One test_data_set_<n>: per node input its tensor (a default Tensor when
// absent), per node output the expected tensor.
struct OnnxNodeData {
  std::vector<Tensor> inputs;
  std::vector<bool> present;
  std::vector<Tensor> outputs;
};

// A TensorProto file: raw_data, or float/int32/int64/double data.
absl::StatusOr<Tensor> ReadOnnxTensor(const std::filesystem::path& path);

// The node of a single-node model (fails on several nodes or a graph
// attribute).
absl::StatusOr<OnnxNodeCase> ReadOnnxNodeCase(
    const std::filesystem::path& model_path);

// Every test_data_set_<n> of the case directory, in order.
absl::StatusOr<std::vector<OnnxNodeData>> ReadOnnxNodeData(
    const std::filesystem::path& dir, const OnnxNodeCase& node);

// The case directories under kOnnxNodeTestRoot whose names start with
// `prefix`, sorted.
std::vector<std::filesystem::path> OnnxNodeTestDirs(std::string_view prefix);

}  // namespace acldump::testing

#endif  // ACLDUMP_KERNELS_TESTING_ONNX_NODE_CASE_H_
