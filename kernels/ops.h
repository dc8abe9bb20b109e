// The registry of every built-in operator.
#ifndef ACLDUMP_KERNELS_OPS_H_
#define ACLDUMP_KERNELS_OPS_H_

#include "kernels/op_registry.h"

namespace acldump {

const OpRegistry& BuiltinOps();

}  // namespace acldump

#endif  // ACLDUMP_KERNELS_OPS_H_
