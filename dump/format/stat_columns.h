// The statistics a stats dump can record (dump_stats, the dump format) and
// their numbers.
#ifndef ACLDUMP_DUMP_FORMAT_STAT_COLUMNS_H_
#define ACLDUMP_DUMP_FORMAT_STAT_COLUMNS_H_

#include <cstdint>
#include <optional>
#include <string_view>

namespace acldump::dump {

// In the fixed order the CSV columns follow.
enum class StatColumn : uint8_t {
  kMax,
  kMin,
  kAvg,
  kNan,
  kNegativeInf,
  kPositiveInf,
  kL2norm,
  // acldump's own: the XXH3-64 hash of the tensor's bytes as they sit in
  // memory (seed 0), 16 hex digits. Equal bytes give equal checksums, so two
  // runs compare exactly without dumping tensors; SDK readers that look
  // columns up by name read the file as before.
  kChecksum,
};

inline constexpr StatColumn kAllStatColumns[] = {
    StatColumn::kMax,    StatColumn::kMin,         StatColumn::kAvg,
    StatColumn::kNan,    StatColumn::kNegativeInf, StatColumn::kPositiveInf,
    StatColumn::kL2norm, StatColumn::kChecksum};

// The dump_stats spelling: "Max", "Min", "Avg", "Nan", "Negative Inf",
// "Positive Inf", "L2norm", "Checksum".
constexpr std::string_view StatColumnConfigName(StatColumn column) {
  switch (column) {
    case StatColumn::kMax:
      return "Max";
    case StatColumn::kMin:
      return "Min";
    case StatColumn::kAvg:
      return "Avg";
    case StatColumn::kNan:
      return "Nan";
    case StatColumn::kNegativeInf:
      return "Negative Inf";
    case StatColumn::kPositiveInf:
      return "Positive Inf";
    case StatColumn::kL2norm:
      return "L2norm";
    case StatColumn::kChecksum:
      return "Checksum";
  }
  return "";
}

inline std::optional<StatColumn> StatColumnFromConfigName(
    std::string_view name) {
  for (StatColumn column : kAllStatColumns) {
    if (StatColumnConfigName(column) == name) return column;
  }
  return std::nullopt;
}

// One pass over a tensor (double accumulation). Non-float tensors count no
// NaN/Inf.
struct TensorStats {
  uint64_t count = 0;   // elements
  uint64_t finite = 0;  // elements that are neither NaN nor Inf
  double max = 0;       // over finite elements; meaningless when finite == 0
  double min = 0;
  double sum = 0;          // over finite elements
  double sum_squares = 0;  // over finite elements
  uint64_t nan = 0;
  uint64_t negative_inf = 0;
  uint64_t positive_inf = 0;
  uint64_t checksum = 0;  // when asked for (StatColumn::kChecksum)
};

}  // namespace acldump::dump

#endif  // ACLDUMP_DUMP_FORMAT_STAT_COLUMNS_H_
