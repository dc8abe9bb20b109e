// Internal to tools/compare: where a folder sits (what pairs folders), the
// tensors of one side read for comparing (tensor_diff.cc), and one tensor pair
// compared: metrics, tolerance, worst elements, detail.
#ifndef ACLDUMP_TOOLS_COMPARE_INTERNAL_H_
#define ACLDUMP_TOOLS_COMPARE_INTERNAL_H_

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "absl/status/statusor.h"
#include "dump/format/dump_file.h"
#include "kernels/tensor.h"
#include "tools/compare/compare.h"

namespace acldump::tools::compare_internal {

// A folder's place: (device, or -1 when devices are left out; model; rank of
// its model id among its model's; iteration).
using FolderKey = std::tuple<int64_t, std::string, int64_t, int64_t>;
inline FolderKey KeyOf(const CompareSide& s, bool with_device) {
  return {with_device ? s.device : -1, s.model, s.model_rank, s.iteration};
}

// Tensors with worst elements and the |a-b| detail, per folder pair.
inline constexpr size_t kDetailedTensors = 20;

struct LoadedTensor {
  std::vector<double> values;
  std::vector<int64_t> shape;
  std::string dtype;
  std::string error;
};

// Reads the tensors of one side's operators, keeping the current files.
class TensorLoader {
 public:
  explicit TensorLoader(const CompareSide& side) : side_(side) {}
  void Clear() { files_.clear(); }
  LoadedTensor Load(const OpRecord& op, bool is_input, uint32_t position);
  // The tensor's statistics: a stats side's record, or computed from the
  // tensor (checksum included).
  absl::StatusOr<TensorStatsRecord> LoadStats(const OpRecord& op, bool is_input,
                                              uint32_t position);

 private:
  // The tensor; a dump's header shape and type go to `shape`, `dtype_name`.
  absl::StatusOr<Tensor> Read(const OpRecord& op, bool is_input,
                              uint32_t position, std::vector<int64_t>* shape,
                              std::string* dtype_name);

  const CompareSide& side_;
  std::map<std::string, absl::StatusOr<dump::DumpFileContents>> files_;
};

// One tensor pair; the worst elements when outside the tolerance, and the
// detail (histogram, scatter sample) while *detail_budget holds.
TensorComparison Compare(const LoadedTensor& a, const LoadedTensor& b,
                         const CompareOptions& options, bool* detail_budget);

// The statistics a stats dump of `view` would record (every column), with
// the CSV writer's rounding.
TensorStatsRecord StatsRecordOfTensor(const TensorView& view);

// The rows of a stats CSV, each with its tensor's statistics.
struct StatsCsvTensor {
  bool is_input = false;
  uint32_t index = 0;
  TensorStatsRecord stats;
};
absl::StatusOr<std::vector<StatsCsvTensor>> ReadStatsCsvTensors(
    std::string_view csv_text);

// One tensor pair by statistics or by checksum (`by`: kStats or kChecksum).
TensorComparison CompareStats(const absl::StatusOr<TensorStatsRecord>& a,
                              const absl::StatusOr<TensorStatsRecord>& b,
                              CompareBy by, const CompareOptions& options);

}  // namespace acldump::tools::compare_internal

#endif  // ACLDUMP_TOOLS_COMPARE_INTERNAL_H_
