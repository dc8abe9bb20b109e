// What a dump record's file holds: full tensors (dump_data "tensor"),
// statistics ("stats"), ... Each payload is one file that defines its
// PayloadKind: its dump_data value, the file form its records take, what the
// plan preview estimates for it, and how to make it. payloads.cc lists them;
// the config's accepted values, the plan preview, the packed layout and the
// readers all ask the kind, so a new payload is its file, its test and one
// registration line.
#ifndef ACLDUMP_DUMP_PAYLOAD_H_
#define ACLDUMP_DUMP_PAYLOAD_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "dump/format/record_file.h"
#include "dump/format/stat_columns.h"
#include "dump/format/stats_csv.h"
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

// What a config gives the payload it selects.
struct PayloadOptions {
  std::vector<StatColumn> stats;  // dump_stats; empty = the default columns
};

// A record as the plan preview sees it, before anything runs.
struct RecordEstimate {
  size_t tensors = 0;
  uint64_t data_bytes = 0;    // the tensors' bytes
  uint64_t header_bytes = 0;  // a dump file header's rough size
};

struct PayloadKind {
  std::string_view name;  // the dump_data value
  RecordFile file;        // the form its records take on disk
  // dump_stats chooses its columns.
  bool takes_stats_columns = false;
  // Its files hold the tensors' bytes (the preview reports those apart).
  bool holds_tensor_data = false;
  // The plan preview's estimate of one record file's bytes.
  uint64_t (*estimate_bytes)(const RecordEstimate& record) = nullptr;
  std::unique_ptr<const Payload> (*make)(const PayloadOptions& options) =
      nullptr;
};

// Every payload, the default ("tensor") first.
std::span<const PayloadKind* const> Payloads();
const PayloadKind& DefaultPayload();
// The payload a dump_data value names; null for none.
const PayloadKind* FindPayload(std::string_view name);

// A record tensor's stats CSV row, statistics not yet filled in.
StatsRow StatsRowOf(const RecordTensor& tensor);

// For payloads whose records are stats CSVs: renders jobs that hold one
// TensorStats per tensor of `spec` into its CSV with `columns`.
std::shared_ptr<const JobRenderer> StatsCsvRenderer(
    RecordSpec spec, std::vector<StatColumn> columns);

}  // namespace acldump::dump

#endif  // ACLDUMP_DUMP_PAYLOAD_H_
