// What a dump record's file holds, chosen once per session: full tensors
// (dump_data tensor) or statistics (dump_data stats). Observers fill jobs
// through this interface without knowing which; adding a payload is one new
// file plus one line in MakePayload.
#ifndef ACLDUMP_DUMP_PAYLOAD_H_
#define ACLDUMP_DUMP_PAYLOAD_H_

#include <cstddef>
#include <cstdint>
#include <memory>

#include "dump/config.h"
#include "dump/record.h"
#include "dump/writer.h"

namespace acldump::dump {

class Payload {
 public:
  virtual ~Payload() = default;
  // Bytes of a job for `spec` (at load).
  virtual size_t JobBytes(const RecordSpec& spec) const = 0;
  // Prepares a fresh job for a record of `tensors` tensors (hot path).
  virtual void Begin(size_t tensors, WriteJob& job) const = 0;
  // Adds the record's tensor number `slot` (its position in spec.tensors) to
  // the job. Hot path: no allocation, no string work.
  virtual void Capture(size_t slot, const TensorView& view,
                       WriteJob& job) const = 0;
  // Turns jobs for `spec` into files (at load, once per record).
  virtual std::shared_ptr<const JobRenderer> MakeRenderer(
      RecordSpec spec) const = 0;
};

// The payload a config asks for.
std::unique_ptr<const Payload> MakePayload(const DumpConfig& config);

// Payload implementations (one file each).
std::unique_ptr<const Payload> MakeTensorPayload();
std::unique_ptr<const Payload> MakeStatsPayload(const DumpConfig& config);

}  // namespace acldump::dump

#endif  // ACLDUMP_DUMP_PAYLOAD_H_
