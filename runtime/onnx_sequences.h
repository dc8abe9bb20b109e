// Sequences whose contents the converter can know. acldump has no run-time
// sequence type; exporters use sequences mostly as lists of tensors built
// and read at fixed places (PyTorch's split/unbind with a list of sizes
// becomes a Loop that inserts each piece into a sequence, then SequenceAt
// with constant positions). Those are rewritten into plain tensor values
// before the graph is imported:
// - SequenceEmpty, SequenceConstruct, SequenceInsert, SequenceErase: the list
//   of element values is tracked, the nodes disappear;
// - SequenceAt -> Identity of the element, SequenceLength -> a constant,
//   ConcatFromSequence -> Concat (Unsqueeze first with new_axis),
//   SplitToSequence -> Split (sizes constant, or derived from a length the
//   converter knows);
// - a Loop that carries a sequence, with a constant trip count and a
//   condition that stays true, is unrolled: each iteration's body nodes
//   become main-graph nodes named `<loop>/body/<iteration>/<node>`, as the
//   dump names a Loop body node's executions.
// Positions and trip counts must be constants (Constant nodes or
// initializers); anything else is an error that names the node and says
// what is known only at run time.
#ifndef ACLDUMP_RUNTIME_ONNX_SEQUENCES_H_
#define ACLDUMP_RUNTIME_ONNX_SEQUENCES_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "onnx/onnx.pb.h"

namespace acldump {

struct ResolvedSequences {
  // The main graph's nodes (only its nodes).
  onnx::GraphProto graph;
  // The names `layer` selects an unrolled node by, besides its own: the body
  // node's ONNX name and its path without the iteration ("loop/body/add"),
  // as for a Loop body node that runs as control flow.
  std::map<std::string, std::vector<std::string>> original_names;
};

// The main graph with its sequences resolved, or nullopt when no node of the
// main graph is a sequence operator (nothing to do). `opset` is the model's
// default-domain opset (Unsqueeze's axes moved to an input at 13).
absl::StatusOr<std::optional<ResolvedSequences>> ResolveStaticSequences(
    const onnx::GraphProto& graph, int64_t opset);

// Whether op_type is one of ONNX's sequence operators.
bool IsSequenceOp(const std::string& op_type);

}  // namespace acldump

#endif  // ACLDUMP_RUNTIME_ONNX_SEQUENCES_H_
