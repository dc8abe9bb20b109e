// aclmdlConvertOnnx: the ONNX converter behind the C ABI, so every language
// can load an ONNX model without running the `convert` tool.
#include <string>

#include "absl/status/status.h"
#include "acl/acl_mdl.h"
#include "api_support.h"
#include "base/file_reader.h"
#include "base/strings.h"
#include "runtime/converter.h"
#include "runtime/model_file.h"
#include "runtime/onnx_import.h"

using acldump::capi::Fail;
using acldump::capi::FailWith;
using acldump::capi::GuardedCall;
using acldump::capi::NullArgument;

namespace {

// Read failures were reported before conversion began; here an operator or
// feature the runtime lacks is unsupported, and anything else is a model
// that does not convert.
aclError FailConversion(const absl::Status& status) {
  return FailWith(status, status.code() == absl::StatusCode::kUnimplemented
                              ? ACL_ERROR_FEATURE_UNSUPPORTED
                              : ACL_ERROR_PARSE_MODEL);
}

}  // namespace

extern "C" {

aclError aclmdlConvertOnnx(const char* onnxPath, const char* omPath,
                           const char* inputShape) {
  return GuardedCall([&] {
    if (onnxPath == nullptr) return NullArgument("onnxPath");
    if (omPath == nullptr) return NullArgument("omPath");
    acldump::ImportOptions import_options;
    if (inputShape != nullptr && inputShape[0] != '\0') {
      absl::StatusOr<acldump::InputShapes> shapes =
          acldump::ParseInputShapes(inputShape);
      if (!shapes.ok()) {
        return Fail(
            ACL_ERROR_INVALID_PARAM,
            acldump::StrCat("inputShape: ", shapes.status().message(),
                            " (expected \"name:d0,d1,...;name2:...\")"));
      }
      import_options.input_shapes = std::move(*shapes);
    }
    // Read first: whatever keeps the file from being read (missing, a
    // directory, unreadable, too large) is a read failure, as for .om models.
    absl::StatusOr<std::string> bytes = acldump::ReadRegularFile(
        onnxPath, acldump::kMaxOnnxFileBytes, "ONNX file");
    if (!bytes.ok()) {
      const absl::string_view message = bytes.status().message();
      return Fail(ACL_ERROR_READ_MODEL_FAILURE,
                  std::string_view(message.data(), message.size()));
    }
    absl::StatusOr<acldump::Graph> graph =
        acldump::ConvertOnnx(*bytes, {}, import_options);
    if (!graph.ok()) {
      return FailConversion(
          acldump::capi::WithContext(graph.status(), onnxPath));
    }
    absl::Status written = acldump::WriteModelFile(*graph, omPath);
    if (!written.ok()) return FailWith(written, ACL_ERROR_WRITE_FILE);
    return ACL_SUCCESS;
  });
}

}  // extern "C"
