// Comparing a device (NPU) dump with a CPU run of the original model, as the
// SDK's compare script does it: each device operator's outputs are matched to
// the original operators they stand for (the dump's original_op, or the
// converter graph), its inputs to the outputs of their original producers
// (the graph's edges, through the Cast and TransData operators the device
// adds), and every pair is compared in the original layout.
#ifndef ACLDUMP_TOOLS_DEVICE_DEVICE_COMPARE_H_
#define ACLDUMP_TOOLS_DEVICE_DEVICE_COMPARE_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/graph.h"
#include "tools/compare/compare.h"
#include "tools/device/device_graph.h"

namespace acldump::tools {

// What the converter graph added to a device side.
struct GraphApplication {
  size_t ops_found = 0;                  // dumped operators the graph has
  std::vector<std::string> ops_missing;  // dumped operators it has not
};

// Sets, for every dumped operator the graph has: its original names (the
// graph's list, duplicates removed), each output's original operator where
// the dump file does not name one (the graph's origin name, else the last of
// the operator's original names), and each input's original producer.
GraphApplication ApplyDeviceGraph(const DeviceGraph& graph,
                                  CompareTree& device);

// The Cast and TransData operators a device adds (no original names of
// their own) carry no ground truth: whatever original operator their outputs
// name (the converter may give them their consumer's), they are left
// unmatched and reported as device-only.
void MarkDeviceOnlyOperators(CompareTree& device);

// How a device operator stands to the original operators.
enum class Relation {
  kOneToOne,    // one original operator, which no other device op carries
  kManyToOne,   // several fused into this one (compared at the one its
                // output names, the last)
  kOneToMany,   // one original split over several device operators
  kManyToMany,  // fused, and some of its originals also elsewhere
  kDeviceOnly,  // added by the device (Cast, TransData, ...): no original
};
std::string_view RelationName(Relation relation);  // "one-to-one", ...

struct OpRelation {
  Relation relation = Relation::kDeviceOnly;
  std::vector<std::string> originals;
};

// One per operator of `device` (a folder), in its order.
std::vector<OpRelation> ClassifyRelations(const CompareSide& device);

// The original model's inputs, as found in a device dump: a Data operator's
// output, or (with the graph) an input of an operator fed by the graph input,
// read in the original layout and converted to the model's type when the
// device held it in another (float16 for a float32 input). Each is written
// as {folder}/{name}.npy; returns "name=path" per input. An input that is not
// in the dump is an error naming it and saying how to give it.
absl::StatusOr<std::vector<std::string>> ExtractModelInputs(
    const CompareSide& device, const DeviceGraph* graph,
    const std::vector<NamedTensorInfo>& model_inputs,
    const std::string& folder);

// The SDK compare script's result CSV (result_{time}.csv) of the folder
// pairs: Index, OpType, NPUDump, DataType, Address, GroundTruth, DataType,
// Address, TensorIndex, Shape, the ten metrics, CompareFailReason; one row per
// device tensor, "*" as GroundTruth for tensors without one (device-only
// operators, inputs whose producer is unknown), "NaN" where a metric does
// not apply.
std::string SdkResultCsv(const TreeCompareResult& result);

}  // namespace acldump::tools

#endif  // ACLDUMP_TOOLS_DEVICE_DEVICE_COMPARE_H_
