// Writes the count gate's generated models as .om files at build time, so
// that count_cases, which runs under valgrind, does not spend minutes drawing
// their random weights: make_models OUT_DIR.
#include <cstdio>
#include <fstream>
#include <string>

#include "bench/resnet18.h"
#include "bench/zoo_graphs.h"

namespace {

// Far below the timed benchmarks' 224x224: the same operators and dump
// records at a small part of the instructions. Valgrind emulates each lane of
// an FMA instruction with a call, so convolutions run ~30x slower under it
// than the rest, and these sizes keep the gate within minutes.
constexpr int64_t kResNet18Image = 48;
constexpr int64_t kMobileNetV2Image = 64;

bool Write(const std::string& path, const std::string& bytes) {
  if (bytes.empty()) {
    std::fprintf(stderr, "make_models: building %s failed\n", path.c_str());
    return false;
  }
  std::ofstream out(path, std::ios::binary);
  out << bytes;
  out.close();
  if (!out)
    std::fprintf(stderr, "make_models: cannot write %s\n", path.c_str());
  return static_cast<bool>(out);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_models OUT_DIR\n");
    return 2;
  }
  const std::string dir = argv[1];
  using namespace acldump::bench;
  const bool ok =
      Write(dir + "/resnet18_48.om", ResNet18ModelBytes(kResNet18Image)) &&
      Write(dir + "/mobilenet_v2_64.om",
            MobileNetV2ModelBytes(kMobileNetV2Image)) &&
      Write(dir + "/transformer_encoder.om", TransformerEncoderModelBytes()) &&
      Write(dir + "/tiny_ops_1000.om", TinyOpsModelBytes(1000));
  return ok ? 0 : 1;
}
