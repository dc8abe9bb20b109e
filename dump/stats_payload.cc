// dump_data stats: each record is a stats CSV ("{file}.csv") with one row per
// tensor. The job holds one TensorStats per tensor, computed on the executing
// thread in one pass; the writer formats them.
#include <algorithm>
#include <cstring>

#include "dump/format/data_type.h"
#include "dump/format/stats_csv.h"
#include "dump/payload.h"
#include "dump/stats.h"

namespace acldump::dump {

StatsRow StatsRowOf(const RecordTensor& tensor) {
  StatsRow row;
  row.is_input = tensor.is_input;
  row.index = tensor.index;
  row.data_size = tensor.info.ByteSize();
  row.data_type = ToDumpDataType(tensor.info.dtype);
  row.format = FormatOf(tensor.info);
  row.shape = tensor.info.shape.dims();
  row.numeric = tensor.info.dtype != DType::kUndefined;
  return row;
}

namespace {

class StatsRecordRenderer final : public JobRenderer {
 public:
  // Everything but the statistics is known before the first job.
  StatsRecordRenderer(RecordSpec spec, std::vector<StatColumn> columns)
      : spec_(std::move(spec)),
        columns_(std::move(columns)),
        header_(StatsCsvHeader(columns_) + "\n") {
    for (const RecordTensor& tensor : spec_.tensors) {
      rows_.push_back(StatsRowOf(tensor));
      leads_.push_back(StatsCsvRowLead(rows_.back()));
    }
  }

  absl::Status Render(const WriteJob& job, RenderedFile& file) const override {
    spec_.Place(job, RecordFile::kStatsCsv, file);
    if (job.used != rows_.size() * sizeof(TensorStats)) {
      return absl::InternalError("stats job does not match its rows");
    }
    file.head.assign(header_);
    for (size_t i = 0; i < rows_.size(); ++i) {
      TensorStats stats;
      std::memcpy(&stats, job.buffer.data() + i * sizeof(TensorStats),
                  sizeof(TensorStats));
      file.head += leads_[i];
      AppendStatsCsvCells(file.head, rows_[i], stats, columns_);
    }
    return absl::OkStatus();
  }

 private:
  const RecordSpec spec_;
  const std::vector<StatColumn> columns_;
  const std::string header_;
  std::vector<StatsRow> rows_;
  std::vector<std::string> leads_;  // per row: the cells before the stats
};

class StatsPayload final : public Payload {
 public:
  explicit StatsPayload(std::vector<StatColumn> columns)
      : columns_(std::move(columns)),
        checksum_(std::find(columns_.begin(), columns_.end(),
                            StatColumn::kChecksum) != columns_.end()) {}

  size_t JobBytes(const RecordSpec& spec) const override {
    return spec.tensors.size() * sizeof(TensorStats);
  }
  void Begin(size_t tensors, WriteJob& job) const override {
    job.used = tensors * sizeof(TensorStats);
  }
  void Capture(size_t slot, const TensorView& view,
               WriteJob& job) const override {
    const TensorStats stats = ComputeStats(view, checksum_);
    std::memcpy(job.buffer.data() + slot * sizeof(TensorStats), &stats,
                sizeof(stats));
  }
  std::shared_ptr<const JobRenderer> MakeRenderer(
      RecordSpec spec) const override {
    return StatsCsvRenderer(std::move(spec), columns_);
  }

 private:
  const std::vector<StatColumn> columns_;
  const bool checksum_;  // computed in the statistics' pass
};

std::unique_ptr<const Payload> MakeStatsPayload(const PayloadOptions& options) {
  return std::make_unique<StatsPayload>(options.stats);
}

// The CSV header, then a row per tensor.
uint64_t EstimateStatsCsv(const RecordEstimate& record) {
  return 160 + 110 * record.tensors;
}

}  // namespace

std::shared_ptr<const JobRenderer> StatsCsvRenderer(
    RecordSpec spec, std::vector<StatColumn> columns) {
  return std::make_shared<StatsRecordRenderer>(std::move(spec),
                                               std::move(columns));
}

// extern: payload.cc registers it.
extern const PayloadKind kStatsPayload = {
    .name = "stats",
    .file = RecordFile::kStatsCsv,
    .takes_stats_columns = true,
    .estimate_bytes = EstimateStatsCsv,
    .make = MakeStatsPayload,
};

}  // namespace acldump::dump
