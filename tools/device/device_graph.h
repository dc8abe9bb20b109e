// The device model's graph as the SDK's model converter writes it in JSON
// (`atc --mode=1 --om=model.om --json=model.json`): every device operator with
// its input edges, the original operators fused into it and, per output, the
// original operator and output it stands for, the device layout and the
// original format and shape. It is what maps a device dump back to the
// original model.
#ifndef ACLDUMP_TOOLS_DEVICE_DEVICE_GRAPH_H_
#define ACLDUMP_TOOLS_DEVICE_DEVICE_GRAPH_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace acldump::tools {

// Largest converter JSON read (a large model's graph is a few hundred MB).
inline constexpr size_t kMaxDeviceGraphBytes = size_t{2} << 30;

struct DeviceGraphTensor {
  std::string dtype;   // "DT_FLOAT16"; "" when not given
  std::string layout;  // device format: "NC1HWC0"
  std::vector<int64_t> shape;
  std::string origin_format;  // "NCHW"
  std::vector<int64_t> origin_shape;
  // Outputs: the original operator and output this one stands for.
  std::string origin_name;
  int64_t origin_output_index = -1;
};

struct DeviceGraphEdge {
  std::string op;     // producing operator
  int64_t index = 0;  // its output
};

struct DeviceGraphOp {
  std::string name, type;
  std::vector<std::string> original_names;  // _datadump_original_op_names
  std::vector<DeviceGraphEdge> inputs;      // data edges, in input order
  size_t control_inputs = 0;                // ":-1" edges
  std::vector<DeviceGraphTensor> input_desc, output_desc;
  int64_t l1_fusion_group = -1;  // _L1_fusion_sub_graph_no; -1 none
};

struct DeviceGraph {
  std::string name;  // the model's name (a dump config's model_name)
  std::vector<DeviceGraphOp> ops;  // every graph of the file, in file order
  std::map<std::string, size_t, std::less<>> by_name;

  // By name, or by the name as a dump file escapes it ('/', '.', ' ', '\'
  // as '_'); nullptr when absent.
  const DeviceGraphOp* Find(std::string_view name) const;
};

// Errors name the file and the JSON path of the bad field
// ("graph[0].op[3].input[1]: 'conv1' is not 'name:index'").
absl::StatusOr<DeviceGraph> ParseDeviceGraph(std::string_view json,
                                             std::string_view source);
absl::StatusOr<DeviceGraph> LoadDeviceGraph(const std::string& path);

// The original tensor a device operator's input carries: the producer's
// output followed upstream through operators the device added (Cast,
// TransData: no original names of their own), to an output that names its
// original operator, or to a graph input (a Data operator: its own name,
// output 0). Empty `op` when the edge leads nowhere original.
DeviceGraphEdge OriginalInput(const DeviceGraph& graph, const DeviceGraphOp& op,
                              size_t input);

// True for operators the device inserts to change a tensor's type or layout.
bool IsLayoutOrCastOp(std::string_view type);

}  // namespace acldump::tools

#endif  // ACLDUMP_TOOLS_DEVICE_DEVICE_GRAPH_H_
