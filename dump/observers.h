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
#include <string>
#include <vector>

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
};
Attachment MakeModelDumpObserver(std::shared_ptr<DumpSession> session,
                                 const DumpPlan& plan,
                                 const CompiledModel& model,
                                 const ModelIdentity& identity);

// Overflow detection on every step whose outputs are floating point.
Attachment MakeOverflowObserver(std::shared_ptr<DumpSession> session,
                                const CompiledModel& model,
                                const ModelIdentity& identity);

// Exception dump: no step flags; writes a failing node's data synchronously.
Attachment MakeExceptionObserver(std::shared_ptr<DumpSession> session,
                                 const CompiledModel& model,
                                 const ModelIdentity& identity);

// For one single-op execution: dumps (dump_op_switch) or records failures
// (exception scene).
std::shared_ptr<ExecutionObserver> MakeSingleOpObserver(
    std::shared_ptr<DumpSession> session, int32_t device_id);

// Writes a failing node's exception dump and waits until it is on disk.
void WriteExceptionDump(DumpSession& session, int32_t device_id,
                        const NodeEvent& e, const absl::Status& status,
                        std::string_view model_name);

}  // namespace acldump::dump

#endif  // ACLDUMP_DUMP_OBSERVERS_H_
