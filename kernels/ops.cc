#include "kernels/ops.h"

#include <cstdio>
#include <string>

#include "base/status_macros.h"
#include "kernels/op_families.h"

namespace acldump {
namespace {

absl::Status RegisterAll(OpRegistry& registry) {
  RETURN_IF_ERROR(RegisterAippOps(registry));
  RETURN_IF_ERROR(RegisterBitwiseOps(registry));
  RETURN_IF_ERROR(RegisterConvOps(registry));
  RETURN_IF_ERROR(RegisterDataDependentOps(registry));
  RETURN_IF_ERROR(RegisterEinsumOps(registry));
  RETURN_IF_ERROR(RegisterElementwiseOps(registry));
  RETURN_IF_ERROR(RegisterFeatureNormOps(registry));
  RETURN_IF_ERROR(RegisterGridSampleOps(registry));
  RETURN_IF_ERROR(RegisterIndexingOps(registry));
  RETURN_IF_ERROR(RegisterLinalgOps(registry));
  RETURN_IF_ERROR(RegisterLossOps(registry));
  RETURN_IF_ERROR(RegisterLpPoolOps(registry));
  RETURN_IF_ERROR(RegisterMatMulOps(registry));
  RETURN_IF_ERROR(RegisterNormalizationOps(registry));
  RETURN_IF_ERROR(RegisterOptimizerOps(registry));
  RETURN_IF_ERROR(RegisterPoolOps(registry));
  RETURN_IF_ERROR(RegisterQLinearOps(registry));
  RETURN_IF_ERROR(RegisterQuantizeOps(registry));
  RETURN_IF_ERROR(RegisterRecurrentOps(registry));
  RETURN_IF_ERROR(RegisterReduceOps(registry));
  RETURN_IF_ERROR(RegisterReorderOps(registry));
  RETURN_IF_ERROR(RegisterResizeOps(registry));
  RETURN_IF_ERROR(RegisterRoiAlignOps(registry));
  RETURN_IF_ERROR(RegisterSignalOps(registry));
  RETURN_IF_ERROR(RegisterSoftmaxOps(registry));
  RETURN_IF_ERROR(RegisterTensorOps(registry));
  RETURN_IF_ERROR(RegisterTfIdfOps(registry));
  return absl::OkStatus();
}

}  // namespace

const OpRegistry& BuiltinOps() {
  static const OpRegistry* const registry = [] {
    auto* r = new OpRegistry;
    absl::Status status = RegisterAll(*r);
    if (!status.ok()) {
      // Two families registering one type is a programming error caught by
      // every test.
      fprintf(stderr, "acldump: built-in op registration failed: %s\n",
              std::string(status.message()).c_str());
    }
    return r;
  }();
  return *registry;
}

}  // namespace acldump
