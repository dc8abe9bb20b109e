// Builders of ONNX protos for the import and converter tests, and a reader of
// the ONNX test data's tensor files.
#ifndef ACLDUMP_RUNTIME_ONNX_TEST_BUILDERS_H_
#define ACLDUMP_RUNTIME_ONNX_TEST_BUILDERS_H_

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "kernels/tensor.h"
#include "onnx/onnx.pb.h"
#include "runtime/onnx_tensors.h"

namespace acldump::testing {

// A node named after its first output.
inline onnx::NodeProto* AddNode(onnx::GraphProto* graph, const std::string& op,
                                std::vector<std::string> inputs,
                                std::vector<std::string> outputs) {
  onnx::NodeProto* node = graph->add_node();
  node->set_op_type(op);
  node->set_name(outputs[0]);
  for (const auto& in : inputs) node->add_input(in);
  for (const auto& out : outputs) node->add_output(out);
  return node;
}

inline void AddInts(onnx::NodeProto* node, const std::string& name,
                    std::vector<int64_t> values) {
  onnx::AttributeProto* attr = node->add_attribute();
  attr->set_name(name);
  attr->set_type(onnx::AttributeProto::INTS);
  for (int64_t v : values) attr->add_ints(v);
}

inline void AddInt(onnx::NodeProto* node, const std::string& name,
                   int64_t value) {
  onnx::AttributeProto* attr = node->add_attribute();
  attr->set_name(name);
  attr->set_type(onnx::AttributeProto::INT);
  attr->set_i(value);
}

// A TensorProto file (the ONNX test data's input_<i>.pb, output_<i>.pb).
inline absl::StatusOr<Tensor> ReadTensorProto(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  onnx::TensorProto proto;
  if (!in || !proto.ParseFromIstream(&in)) return absl::NotFoundError(path);
  return TensorFromOnnx(proto);
}

}  // namespace acldump::testing

#endif  // ACLDUMP_RUNTIME_ONNX_TEST_BUILDERS_H_
