// The elementwise family spans elementwise.cc (ops of several broadcast
// inputs) and elementwise_unary.cc (ops of one input); this joins their
// registration. Internal to that family.
#ifndef ACLDUMP_KERNELS_ELEMENTWISE_INTERNAL_H_
#define ACLDUMP_KERNELS_ELEMENTWISE_INTERNAL_H_

#include "absl/status/status.h"
#include "kernels/op_registry.h"

namespace acldump::elementwise {

// Unary math and activations, Clip, Cast, CastLike, IsNaN, IsInf.
absl::Status RegisterUnaryOps(OpRegistry& registry);

}  // namespace acldump::elementwise

#endif  // ACLDUMP_KERNELS_ELEMENTWISE_INTERNAL_H_
