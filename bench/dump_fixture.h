// A model loaded the way the C ABI loads it (compile -> dump manager ->
// attach), in one of the dump modes the benchmarks compare.
#ifndef ACLDUMP_BENCH_DUMP_FIXTURE_H_
#define ACLDUMP_BENCH_DUMP_FIXTURE_H_

#include <memory>
#include <string>
#include <vector>

#include "dump/dump_manager.h"
#include "kernels/tensor.h"
#include "runtime/compiled_model.h"
#include "runtime/model_registry.h"

namespace acldump::bench {

enum class Mode {
  kNoObserver,  // the runtime alone, no dump code involved
  // The dump manager is there, dump never configured for this model; another
  // model of the process is armed for a request tag (aclmdlArmDump).
  kDumpOff,
  kNotSelected,      // a config is active but names another model
  kStepNotSelected,  // the model is selected but dump_step excludes these
                     // iterations
  kStats,            // stats of every output
  kTensorAll,        // full tensors of every output
  kTensorFive,       // full tensors of five layers
  // As kStats / kTensorAll, in the packed layout (one file per iteration).
  kStatsPacked,
  kTensorAllPacked,
  // kStatsPacked with the tensors' checksum taken in the same pass.
  kStatsChecksumPacked,
  // Every output compared with a checksum baseline of the same inputs
  // (dump_baseline at one iteration's folder): nothing differs, nothing is
  // written.
  kBaselinePacked,
  // kTensorAll under "dump_backpressure": "drop" with a 1 ms wait budget.
  kTensorAllDrop1ms,
  // A flight recorder keeping the last 8 executions' inputs, output
  // checksums and every operator output's statistics; nothing triggers.
  kRecorder,
};

const char* ModeName(Mode mode);

class DumpedModel {
 public:
  // `five_layers`: the layer names used by kTensorFive.
  // `fs`: what the dump writer writes through (default: POSIX); outlives
  // this.
  DumpedModel(const std::string& model_bytes, Mode mode,
              std::vector<std::string> five_layers,
              dump::FileSystem* fs = nullptr);
  // The same on a model compiled once and shared by the modes: `model`'s
  // observer is replaced by this mode's, and detached again on destruction.
  DumpedModel(std::shared_ptr<CompiledModel> model, Mode mode,
              std::vector<std::string> five_layers,
              dump::FileSystem* fs = nullptr);
  ~DumpedModel();

  // One execution on fixed random inputs.
  void Run();
  // Waits until the writer has written everything queued so far and taken
  // its buffers back (the dump stays on).
  void Drain();
  // Writes everything queued (FinalizeDump); returns the bytes written since
  // construction.
  uint64_t Finish();
  const CompiledModel& model() const { return *model_; }
  // The dump session's writer; null for the modes without one.
  dump::DumpWriter* writer() const {
    return session_ ? &session_->writer() : nullptr;
  }
  size_t num_steps() const { return model_->steps().size(); }

 private:
  std::string dir_;
  std::unique_ptr<dump::DumpManager> manager_;
  std::shared_ptr<CompiledModel> model_;
  std::vector<Tensor> inputs_;
  std::vector<Tensor> outputs_;
  std::vector<HostBuffer> in_;
  std::vector<MutableHostBuffer> out_;
  std::shared_ptr<dump::DumpSession> session_;
  bool finished_ = false;
  // kDumpOff: the other model, armed.
  ModelRegistry armed_elsewhere_;
  std::shared_ptr<dump::FlightRecorder> recorder_;  // kRecorder

  void ArmAnotherModel();

  void MakeInputs();
  // Dumps one execution with checksums into dir_/baseline; returns the
  // iteration's folder.
  std::string MakeBaseline();
};

}  // namespace acldump::bench

#endif  // ACLDUMP_BENCH_DUMP_FIXTURE_H_
