// The execution observers that dump: model dump (tensors or stats), overflow
// checks (S20), exception dumps (S18) and single-operator dumps (S13). Each is
// built at model load (or per single-op call) from a DumpPlan and a
// DumpSession; on the hot path they only copy bytes (or compute statistics)
// into a pooled buffer and queue it.
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

}  // namespace acldump::dump

#endif  // ACLDUMP_DUMP_OBSERVERS_H_
