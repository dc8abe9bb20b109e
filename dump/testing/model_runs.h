// Test helpers for the dump engine's end-to-end tests: scratch folders,
// configs, loading a model the way the C ABI does (compile, register, ask the
// dump manager, attach) and running it on its testdata inputs.
#ifndef ACLDUMP_DUMP_TESTING_MODEL_RUNS_H_
#define ACLDUMP_DUMP_TESTING_MODEL_RUNS_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "dump/dump_manager.h"
#include "kernels/tensor.h"
#include "runtime/geared_model.h"
#include "runtime/model_registry.h"

namespace acldump::dump {

// $TEST_TMPDIR/name (or /tmp/name), emptied.
std::string TempDir(const std::string& name);
// Writes `json` to dir/acl.json; returns its path.
std::string WriteConfig(const std::string& dir, const std::string& json);
// All regular files below `root`, relative paths, sorted.
std::vector<std::string> FilesUnder(const std::string& root);

struct Loaded {
  std::shared_ptr<GearedModel> registered;
  CompiledModel* model;  // its one plan
  uint32_t id;
  std::vector<std::string> warnings;
  absl::Status attach_status;  // the dump manager's verdict on the load
};

// What the C ABI does on load: compile, register, ask the dump manager, attach.
Loaded Load(DumpManager& manager, ModelRegistry& registry,
            const std::string& path, bool from_memory = false,
            int32_t device = 0);

// Runs the model on its testdata inputs ("testdata/{graph}.input.{name}.npy"),
// changed by `change_input` when given; returns the outputs. A failed
// execution fails the test unless `status_out` takes the status.
std::vector<Tensor> RunModel(
    CompiledModel& model, absl::Status* status_out = nullptr,
    const std::function<void(Tensor&)>& change_input = nullptr);

}  // namespace acldump::dump

#endif  // ACLDUMP_DUMP_TESTING_MODEL_RUNS_H_
