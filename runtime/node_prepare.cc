#include "runtime/node_prepare.h"

#include <algorithm>

#include "base/status_macros.h"
#include "base/strings.h"

namespace acldump {

std::string NodeLabel(const GraphNode& node) {
  return StrCat("node '", node.name, "' (", node.op_type, ")");
}

absl::StatusOr<PreparedKernel> PrepareNode(
    const GraphNode& node, const OpRegistry& registry,
    std::span<const TensorInfo> input_infos,
    std::span<const TensorView* const> constants) {
  if (registry.Find(node.op_type) == nullptr) {
    return absl::InvalidArgumentError(StrCat(
        NodeLabel(node), ": op type '", node.op_type, "' is not supported"));
  }
  OpContext context{node.op_type, node.attrs, input_infos, constants,
                    node.outputs.size()};
  absl::StatusOr<PreparedKernel> prepared = registry.Prepare(context);
  if (!prepared.ok()) return Annotate(prepared.status(), NodeLabel(node));
  for (size_t o = 0; o < prepared->outputs.size(); ++o) {
    const TensorInfo& info = prepared->outputs[o];
    const int64_t element = static_cast<int64_t>(DTypeSize(info.dtype));
    absl::StatusOr<int64_t> count = CheckedNumElements(
        info.shape.dims(),
        kMaxModelTensorBytes / std::max<int64_t>(element, 1));
    if (!count.ok()) {
      return Annotate(
          count.status(),
          StrCat(NodeLabel(node), ": output '",
                 o < node.outputs.size() ? node.outputs[o] : "", "'"));
    }
  }
  return prepared;
}

}  // namespace acldump
