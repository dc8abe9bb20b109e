// A full-size ResNet-18 (1x3x224x224 -> 1000 classes) with seeded random
// weights, built as an ONNX-style graph (Conv, BatchNormalization, Relu, ...
// with ONNX node names such as "layer1.0.conv1") and converted by the real
// passes. Generated at bench time, never committed.
#ifndef ACLDUMP_BENCH_RESNET18_H_
#define ACLDUMP_BENCH_RESNET18_H_

#include <string>

#include "runtime/graph.h"

namespace acldump::bench {

// `image_size`: the input's height and width (a multiple of 32).
Graph MakeResNet18Graph(uint32_t seed = 18, int64_t image_size = 224);
// The converted (fused) model as .om bytes.
std::string ResNet18ModelBytes(int64_t image_size = 224);

// A chain of `nodes` tiny Add ops on a [16] tensor: per-node overhead
// dominates.
std::string TinyOpsModelBytes(int nodes);

}  // namespace acldump::bench

#endif  // ACLDUMP_BENCH_RESNET18_H_
