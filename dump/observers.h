// The execution observers that dump, one file each: model dump
// (model_dump_observer.cc), overflow checks (overflow_observer.cc), exception
// dumps (exception_observer.cc) and single-operator dumps
// (single_op_observer.cc). Each is built at model load (or per single-op call)
// from a DumpPlan and a DumpSession; on the hot path they only hand tensors to
// the session's payload (copy or statistics) and queue the job.
#ifndef ACLDUMP_DUMP_OBSERVERS_H_
#define ACLDUMP_DUMP_OBSERVERS_H_

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "dump/policy.h"
#include "dump/session.h"
#include "runtime/compiled_model.h"
#include "runtime/observer.h"

namespace acldump::dump {

struct ModelIdentity {
  uint32_t model_id = 0;
  std::string file_stem;  // empty for a model loaded from memory
  int32_t device_id = 0;
};

// Model dump (tensor or stats). Returns the observer and the per-step flags to
// attach.
struct Attachment {
  std::shared_ptr<ExecutionObserver> observer;
  std::vector<uint8_t> step_flags;
  // Not OK: the model cannot be dumped as configured; its load fails.
  absl::Status status;
};
Attachment MakeModelDumpObserver(std::shared_ptr<DumpSession> session,
                                 const DumpPlan& plan,
                                 const CompiledModel& model,
                                 const ModelIdentity& identity);

// Baseline diff (dump_baseline): each operator the plan selects is compared
// with its record in the session's baseline as it finishes; the tensors
// (inputs and outputs) of the first config.baseline_tensors operators that
// differ in an iteration are written, and a summary (kBaselineSummaryFileName)
// in each iteration that differs. An error when the baseline holds no run of
// the model; warnings name operators the baseline has no record of.
absl::StatusOr<Attachment> MakeBaselineObserver(
    std::shared_ptr<DumpSession> session, const DumpPlan& plan,
    const CompiledModel& model, const ModelIdentity& identity,
    std::vector<std::string>* warnings);

// Overflow detection on every step whose outputs are floating point.
Attachment MakeOverflowObserver(std::shared_ptr<DumpSession> session,
                                const CompiledModel& model,
                                const ModelIdentity& identity);

// Exception dump: no step flags; writes a failing node's data synchronously.
Attachment MakeExceptionObserver(std::shared_ptr<DumpSession> session,
                                 const CompiledModel& model,
                                 const ModelIdentity& identity);

// Watcher dump: the watcher nodes' outputs after each layer operator and after
// themselves. Warnings name watcher nodes and layers that match nothing.
// Empty when no watcher node is in the model.
Attachment MakeWatcherObserver(std::shared_ptr<DumpSession> session,
                               const CompiledModel& model,
                               const ModelIdentity& identity,
                               std::vector<std::string>* warnings);

// `inner` (may be empty) plus the exception dump of `exception_session`: a
// failing node is recorded there whatever `inner` does (exception dump turned
// on by the environment runs beside a config's model or single-op dump).
Attachment WithExceptionDump(Attachment inner,
                             std::shared_ptr<DumpSession> exception_session,
                             int32_t device_id, std::string model_name,
                             size_t num_steps);

// For one single-op execution: dumps (dump_op_switch) or records failures
// (exception scene).
std::shared_ptr<ExecutionObserver> MakeSingleOpObserver(
    std::shared_ptr<DumpSession> session, int32_t device_id);

// Writes a failing node's exception dump and waits until it is on disk.
void WriteExceptionDump(DumpSession& session, int32_t device_id,
                        const NodeEvent& e, const absl::Status& status,
                        std::string_view model_name);

// A tensor the application saves beside an exception dump.
struct CustomTensor {
  enum class Kind { kInput, kOutput, kWorkspace };
  Kind kind = Kind::kInput;
  DType dtype = DType::kFloat32;  // inputs and outputs
  int32_t format = 2;             // FORMAT_ND
  std::vector<uint64_t> shape;
  std::vector<uint64_t> original_shape;
  const void* data = nullptr;
  size_t bytes = 0;
};

// OK for a relative file name without "..", else InvalidArgument.
absl::Status CheckCustomFileName(std::string_view relative);

// Saves `tensors` as a dump file named
// {root}/extra-info/data-dump/{device}/{relative}.custom.{time}, read-only:
// op_name its base name, `user_tag` (when not empty) its "user_tag"
// attribute. `relative` is a relative path without "..". Waits until the file
// is written; returns its path.
absl::StatusOr<std::string> SaveCustomExceptionFile(
    DumpSession& session, int32_t device_id, std::string_view relative,
    std::string_view user_tag, std::span<const CustomTensor> tensors);

}  // namespace acldump::dump

#endif  // ACLDUMP_DUMP_OBSERVERS_H_
