// Models and datasets the C ABI tests share.
#ifndef ACLDUMP_BINDINGS_C_TESTS_TEST_MODELS_H_
#define ACLDUMP_BINDINGS_C_TESTS_TEST_MODELS_H_

#include <string>
#include <vector>

#include "acl/acl.h"
#include "kernels/npy.h"
#include "runtime/graph.h"
#include "runtime/model_file.h"

namespace acldump::testing {

// A model whose Gather fails when it runs with an index out of range: inputs
// "data" float32[4] and "index" int64[1], output "y" float32[1].
inline std::string GatherModel() {
  Graph graph;
  graph.name = "gather_model";
  graph.inputs = {{"data", {DType::kFloat32, {4}}},
                  {"index", {DType::kInt64, {1}}}};
  graph.outputs = {{"y", {DType::kFloat32, {1}}}};
  GraphNode node;
  node.name = "gather";
  node.op_type = "Gather";
  node.inputs = {"data", "index"};
  node.outputs = {"y"};
  graph.nodes.push_back(node);
  return SerializeModel(graph);
}

// testdata/resnet_tiny.om's input (its reference input, element 0 set to
// `first`) and outputs as host datasets.
struct ResnetTinyIo {
  std::vector<float> input;
  std::vector<float> fc = std::vector<float>(10), prob = std::vector<float>(10);
  aclmdlDataset* in = aclmdlCreateDataset();
  aclmdlDataset* out = aclmdlCreateDataset();

  explicit ResnetTinyIo(float first) {
    auto tensor = ReadNpyFile("testdata/resnet_tiny.input.input.npy");
    const auto* data = static_cast<const float*>(tensor->data());
    input.assign(data, data + tensor->NumElements());
    input[0] = first;
    aclmdlAddDatasetBuffer(
        in, aclCreateDataBuffer(input.data(), input.size() * sizeof(float)));
    aclmdlAddDatasetBuffer(out, aclCreateDataBuffer(fc.data(), 40));
    aclmdlAddDatasetBuffer(out, aclCreateDataBuffer(prob.data(), 40));
  }
  ~ResnetTinyIo() {
    for (aclmdlDataset* dataset : {in, out}) {
      for (size_t i = 0; i < aclmdlGetDatasetNumBuffers(dataset); ++i)
        aclDestroyDataBuffer(aclmdlGetDatasetBuffer(dataset, i));
      aclmdlDestroyDataset(dataset);
    }
  }
  ResnetTinyIo(const ResnetTinyIo&) = delete;
  ResnetTinyIo& operator=(const ResnetTinyIo&) = delete;
};

}  // namespace acldump::testing

#endif  // ACLDUMP_BINDINGS_C_TESTS_TEST_MODELS_H_
