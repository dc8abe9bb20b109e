// Two models of the real-model zoo rebuilt for the benchmarks (no download,
// nothing committed): MobileNetV2 (1x3x224x224, ~100 operators, depthwise
// convolutions, ReLU6 as Clip, residual Adds) and a 2-layer
// nn.TransformerEncoder (d_model 128, 4 heads, feed-forward 512, sequence
// 16, ~60 operators), with seeded random weights and ONNX-export node names,
// converted by the real passes.
#ifndef ACLDUMP_BENCH_ZOO_GRAPHS_H_
#define ACLDUMP_BENCH_ZOO_GRAPHS_H_

#include <string>

namespace acldump::bench {

// `image_size`: the input's height and width (a multiple of 32).
std::string MobileNetV2ModelBytes(int64_t image_size = 224);
std::string TransformerEncoderModelBytes();

}  // namespace acldump::bench

#endif  // ACLDUMP_BENCH_ZOO_GRAPHS_H_
