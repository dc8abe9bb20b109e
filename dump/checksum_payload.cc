// dump_data checksum: each record is a stats CSV with Count and Checksum only
// (the XXH3-64 hash of each tensor's bytes). The cheapest answer to "did
// anything change?": no statistics are computed, and two runs compare exactly.
#include <cstring>

#include "dump/payload.h"
#include "dump/stats.h"

namespace acldump::dump {
namespace {

constexpr StatColumn kColumns[] = {StatColumn::kChecksum};

class ChecksumPayload final : public Payload {
 public:
  size_t JobBytes(const RecordSpec& spec) const override {
    return spec.tensors.size() * sizeof(TensorStats);
  }
  void Begin(size_t tensors, WriteJob& job) const override {
    job.used = tensors * sizeof(TensorStats);
  }
  void Capture(size_t slot, const TensorView& view,
               WriteJob& job) const override {
    TensorStats stats;
    stats.count = static_cast<uint64_t>(view.NumElements());
    stats.checksum = TensorChecksum(view);
    std::memcpy(job.buffer.data() + slot * sizeof(TensorStats), &stats,
                sizeof(stats));
  }
  std::shared_ptr<const JobRenderer> MakeRenderer(
      RecordSpec spec) const override {
    return StatsCsvRenderer(std::move(spec),
                            {std::begin(kColumns), std::end(kColumns)});
  }
};

std::unique_ptr<const Payload> MakeChecksumPayload(const PayloadOptions&) {
  return std::make_unique<ChecksumPayload>();
}

// The CSV header, then a short row per tensor.
uint64_t EstimateChecksumCsv(const RecordEstimate& record) {
  return 80 + 80 * record.tensors;
}

}  // namespace

// extern: payload.cc registers it.
extern const PayloadKind kChecksumPayload = {
    .name = "checksum",
    .file = RecordFile::kStatsCsv,
    .estimate_bytes = EstimateChecksumCsv,
    .make = MakeChecksumPayload,
};

}  // namespace acldump::dump
