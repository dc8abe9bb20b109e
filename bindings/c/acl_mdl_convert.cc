// aclmdlConvertOnnx: the ONNX converter behind the C ABI, so every language
// can load an ONNX model without running the `convert` tool.
#include <string>

#include "absl/status/status.h"
#include "acl/acl_mdl.h"
#include "api_support.h"
#include "base/strings.h"
#include "runtime/converter.h"
#include "runtime/model_file.h"
#include "runtime/onnx_import.h"

using acldump::capi::Fail;
using acldump::capi::FailWith;
using acldump::capi::GuardedCall;
using acldump::capi::NullArgument;

namespace {

// A file the reader tagged keeps its kind's code; otherwise a missing or
// unreadable file is a read failure, an operator or feature the runtime lacks
// is unsupported, and anything else is a model that does not convert.
aclError FailConversion(const absl::Status& status) {
  aclError code = ACL_ERROR_PARSE_MODEL;
  if (status.code() == absl::StatusCode::kNotFound ||
      status.code() == absl::StatusCode::kPermissionDenied) {
    code = ACL_ERROR_READ_MODEL_FAILURE;
  } else if (status.code() == absl::StatusCode::kUnimplemented) {
    code = ACL_ERROR_FEATURE_UNSUPPORTED;
  }
  return FailWith(status, code);
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
    absl::StatusOr<acldump::Graph> graph =
        acldump::ConvertOnnxFile(onnxPath, {}, import_options);
    if (!graph.ok()) return FailConversion(graph.status());
    absl::Status written = acldump::WriteModelFile(*graph, omPath);
    if (!written.ok()) return FailWith(written, ACL_ERROR_WRITE_FILE);
    return ACL_SUCCESS;
  });
}

}  // extern "C"
