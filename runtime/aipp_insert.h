// The converter's --insert-op-conf: the SDK converter's AIPP configuration
// (protobuf text, see insert_op.proto) turned into Aipp nodes in front of
// model inputs. A configured input then takes uint8 images (static AIPP:
// [batch, height, width, channels] of the configured image; dynamic AIPP:
// [batch, max_src_image_size] bytes, with the parameters in one more input,
// "ascend_dynamic_aipp_data", last), and the Aipp node's output, named
// "<input>_aipp", is what the model read before: dumps show it.
#ifndef ACLDUMP_RUNTIME_AIPP_INSERT_H_
#define ACLDUMP_RUNTIME_AIPP_INSERT_H_

#include <string_view>

#include "absl/status/status.h"
#include "runtime/graph.h"

namespace acldump {

// The SDK's name of the dynamic AIPP parameter input.
inline constexpr std::string_view kDynamicAippInputName =
    "ascend_dynamic_aipp_data";

// Inserts the Aipp nodes `conf_text` configures into a static graph. Errors
// name the file (`conf_name`), the line and the field.
absl::Status InsertAippOps(Graph& graph, std::string_view conf_text,
                           std::string_view conf_name);

}  // namespace acldump

#endif  // ACLDUMP_RUNTIME_AIPP_INSERT_H_
