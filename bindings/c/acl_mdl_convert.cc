// aclmdlConvertOnnx: the ONNX converter behind the C ABI, so every language
// can load an ONNX model without running the `convert` tool.
#include <string>

#include "absl/status/status.h"
#include "acl/acl_mdl.h"
#include "api_support.h"
#include "base/strings.h"
#include "runtime/model_loader.h"

using acldump::capi::Fail;
using acldump::capi::GuardedCall;
using acldump::capi::NullArgument;
using acldump::capi::Translate;

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
    return Translate(
        acldump::ConvertOnnxToModelFile(onnxPath, omPath, import_options),
        ACL_ERROR_PARSE_MODEL);
  });
}

}  // extern "C"
