// ONNX import + converter passes + compile check (untrusted ONNX files).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "kernels/ops.h"
#include "runtime/compiled_model.h"
#include "runtime/onnx_import.h"
#include "runtime/passes.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto graph = acldump::ImportOnnxBytes(
      std::string_view(reinterpret_cast<const char*>(data), size));
  if (!graph.ok()) return 0;
  if (!acldump::OptimizeGraph(*graph, acldump::BuiltinOps(),
                              acldump::PassOptions{})
           .ok())
    return 0;
  acldump::CompileOptions options;
  options.max_memory_bytes = size_t{64} << 20;
  (void)acldump::CompiledModel::Compile(std::move(*graph),
                                        acldump::BuiltinOps(), options);
  return 0;
}
