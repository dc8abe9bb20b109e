// Dump file reader (files from other tools and runs are untrusted).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "dump/format/dump_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto contents = acldump::dump::ParseDumpFile(
      std::string_view(reinterpret_cast<const char*>(data), size));
  if (!contents.ok()) return 0;
  // What the tools do next with a parsed file.
  for (int i = 0; i < contents->header.output_size(); ++i) {
    const auto& out = contents->header.output(i);
    (void)acldump::dump::PayloadToTensor(out.data_type(), out.shape(),
                                         contents->outputs[i]);
    // Device layouts back to the original tensor (format, original_shape,
    // sub_format and original_op.format are the file's).
    (void)acldump::dump::LogicalTensorOf(out, contents->outputs[i]);
  }
  for (int i = 0; i < contents->header.input_size(); ++i) {
    const auto& in = contents->header.input(i);
    (void)acldump::dump::PayloadToTensor(in.data_type(), in.shape(),
                                         contents->inputs[i]);
    (void)acldump::dump::LogicalTensorOf(in, contents->inputs[i]);
  }
  return 0;
}
