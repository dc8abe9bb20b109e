// Runs a converted model once on .npy inputs and writes its outputs as
// output_<k>.npy: the acldump side of the model zoo comparison (run.sh).
//   zoo_run model.om out_dir input_0.npy [input_1.npy ...]
#include <cstdio>
#include <string>
#include <vector>

#include "base/strings.h"
#include "kernels/npy.h"
#include "runtime/compiled_model.h"
#include "runtime/model_registry.h"

int main(int argc, char** argv) {
  using namespace acldump;
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s model.om out_dir input.npy...\n", argv[0]);
    return 2;
  }
  auto fail = [](const absl::Status& status) {
    std::fprintf(stderr, "zoo_run: %s\n",
                 std::string(status.message()).c_str());
    return 1;
  };
  absl::StatusOr<std::unique_ptr<CompiledModel>> model =
      LoadModelFromFile(argv[1]);
  if (!model.ok()) return fail(model.status());
  std::vector<Tensor> inputs;
  std::vector<HostBuffer> in;
  for (int i = 3; i < argc; ++i) {
    absl::StatusOr<Tensor> t = ReadNpyFile(argv[i]);
    if (!t.ok()) return fail(t.status());
    inputs.push_back(std::move(*t));
  }
  for (const Tensor& t : inputs) in.push_back({t.data(), t.ByteSize()});
  std::vector<Tensor> outputs;
  std::vector<MutableHostBuffer> out;
  for (const auto& output : (*model)->graph().outputs) {
    outputs.emplace_back(output.info.dtype, output.info.shape);
  }
  for (Tensor& t : outputs) out.push_back({t.data(), t.ByteSize()});
  absl::Status status = (*model)->Execute(in, out);
  if (!status.ok()) return fail(status);
  for (size_t k = 0; k < outputs.size(); ++k) {
    status =
        WriteNpyFile(StrCat(argv[2], "/output_", k, ".npy"), outputs[k].view());
    if (!status.ok()) return fail(status);
  }
  return 0;
}
