#include "tools/tree/show.h"

#include <time.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include "base/file_reader.h"
#include "base/status_macros.h"
#include "base/strings.h"
#include "dump/format/data_type.h"
#include "dump/format/dump_file.h"
#include "dump/format/merged_stats.h"
#include "dump/format/overflow_record.h"
#include "dump/format/stats_csv.h"
#include "dump/stats.h"
#include "kernels/dtype.h"
#include "tools/common/cli_util.h"
#include "tools/compare/metrics.h"

namespace acldump::tools {
namespace {

using toolkit::dumpdata::DumpData;

std::string LocalTime(uint64_t micros) {
  const std::time_t seconds = static_cast<std::time_t>(micros / 1000000);
  std::tm tm{};
  if (localtime_r(&seconds, &tm) == nullptr) return "?";
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%d %H:%M:%S", &tm);
  return fmt::format("{}.{:06d}", text, micros % 1000000);
}

template <typename ShapeProto>
std::string ShapeText(const ShapeProto& shape) {
  if (shape.dim_size() == 0) return "[] (scalar)";
  return StrCat("[", StrJoin(shape.dim(), ","), "]");
}

// Statistics and the first values of one tensor.
std::string DescribeLogical(const Tensor* tensor, size_t head) {
  const dump::TensorStats s = dump::ComputeStats(tensor->view());
  const std::vector<double> values = ToDoubles(tensor->view());
  size_t zeros = 0;
  for (double v : values) zeros += v == 0;
  std::string out = StrCat("      count ", s.count);
  if (s.finite > 0) {
    const double mean = s.sum / s.finite;
    const double variance =
        std::max(0.0, s.sum_squares / s.finite - mean * mean);
    StrAppend(out, "  min ", FormatNumber(s.min), "  max ", FormatNumber(s.max),
              "  mean ", FormatNumber(mean), "  std ",
              FormatNumber(std::sqrt(variance)), "  l2norm ",
              FormatNumber(std::sqrt(s.sum_squares)));
  }
  StrAppend(out, "\n      nan ", s.nan, "  -inf ", s.negative_inf, "  +inf ",
            s.positive_inf, "  zeros ", zeros);
  if (s.count > 0) {
    StrAppend(out, fmt::format(" ({:.1f}%)", 100.0 * zeros / s.count));
  }
  out += "\n";
  if (head > 0 && !values.empty()) {
    std::vector<std::string> shown;
    for (size_t i = 0; i < std::min(head, values.size()); ++i) {
      shown.push_back(FormatNumber(values[i]));
    }
    StrAppend(out, "      first ", shown.size(), ": ", StrJoin(shown, " "),
              values.size() > shown.size() ? " ..." : "", "\n");
  }
  return out;
}

// A payload's values; a device's tensor in the original model's layout.
template <typename TensorProto>
std::string DescribeValues(const TensorProto& t, const std::string& bytes,
                           size_t head) {
  absl::StatusOr<Tensor> tensor = dump::LogicalTensorOf(t, bytes);
  if (!tensor.ok()) {
    return StrCat("      (no statistics: ", tensor.status().message(), ")\n");
  }
  std::string out;
  const std::vector<int64_t>& logical = tensor->shape().dims();
  if (!std::equal(logical.begin(), logical.end(), t.shape().dim().begin(),
                  t.shape().dim().end())) {
    out =
        StrCat("      as the original tensor: [", StrJoin(logical, ","), "]\n");
  }
  return out + DescribeLogical(&*tensor, head);
}

template <typename Tensor>
std::string TensorLine(std::string_view kind, size_t i, const Tensor& t) {
  std::string line =
      StrCat("  ", kind, " ", i, ": ", DumpDataTypeName(t.data_type()), "  ",
             dump::FormatName(t.format()), "  shape ", ShapeText(t.shape()));
  const bool same = t.original_shape().dim_size() == t.shape().dim_size() &&
                    std::equal(t.shape().dim().begin(), t.shape().dim().end(),
                               t.original_shape().dim().begin());
  if (!same && t.original_shape().dim_size() > 0) {
    StrAppend(line, "  original shape ", ShapeText(t.original_shape()));
  }
  StrAppend(line, "  ", t.size(), " bytes  arg_index ", t.arg_index());
  return line;
}

std::string DescribeOverflow(const std::string& payload) {
  absl::StatusOr<dump::OverflowRecord> record =
      dump::DecodeOverflowPayload(payload);
  if (!record.ok()) {
    return StrCat("  overflow record: invalid (", record.status().message(),
                  ")\n");
  }
  std::vector<std::string> seen;
  if (record->status & dump::kOverflowStatusNan) seen.push_back("NaN");
  if (record->status & dump::kOverflowStatusPositiveInf) seen.push_back("+Inf");
  if (record->status & dump::kOverflowStatusNegativeInf) seen.push_back("-Inf");
  return StrCat("  overflow record: model_id ", record->model_id, ", task_id ",
                record->task_id, ", stream_id ", record->stream_id,
                ", acc_type ", record->acc_type, ", status ", record->status,
                seen.empty() ? "" : StrCat(" (", StrJoin(seen, ", "), ")"),
                "\n");
}

absl::StatusOr<std::string> DescribeStatsCsv(const std::string& path) {
  ASSIGN_OR_RETURN(
      std::string text,
      dump::ReadDumpTreeFile(path, dump::kMaxStatsCsvBytes, "stats CSV"));
  absl::StatusOr<dump::StatsTable> table = dump::ParseStatsCsv(text);
  if (!table.ok()) {
    return absl::InvalidArgumentError(
        StrCat(path, ": not a stats CSV: ", table.status().message()));
  }
  TextTable out(table->header);
  for (const auto& row : table->rows) out.AddRow(row);
  return StrCat("stats file ", path, " (", table->rows.size(),
                table->rows.size() == 1 ? " tensor" : " tensors", ")\n",
                out.Render("  "));
}

}  // namespace

absl::StatusOr<std::string> DescribeDumpFile(const std::string& path,
                                             const ShowOptions& options) {
  if (path.size() >= 4 && path.substr(path.size() - 4) == ".csv") {
    return DescribeStatsCsv(path);
  }
  ASSIGN_OR_RETURN(dump::DumpFileContents contents, dump::ReadDumpFile(path));
  const DumpData& h = contents.header;
  std::string type;
  std::string original_names;
  for (const auto& attr : h.attr()) {
    if (attr.name() == "op_type") type = attr.value();
    if (attr.name() == "original_names") original_names = attr.value();
  }
  uint64_t payload = 0;
  for (const auto& t : h.input()) payload += t.size();
  for (const auto& t : h.output()) payload += t.size();
  std::string out = StrCat("file     ", path, "\n");
  StrAppend(out, "format   version ", h.version().empty() ? "?" : h.version(),
            contents.legacy_format ? " (legacy: data inside the header)"
                                   : " (layout 2: header + raw payloads)",
            ", ", HumanBytes(payload), " of tensor data\n");
  StrAppend(out, "op       ", h.op_name(),
            type.empty() ? "" : StrCat("  (type ", type, ")"), "\n");
  if (!original_names.empty()) {
    StrAppend(out, "original ", original_names, "\n");
  }
  StrAppend(out, "time     ", LocalTime(h.dump_time()), "  (dump_time ",
            h.dump_time(), " us)\n");
  if (h.attr_size() > 0) {
    std::vector<std::string> attrs;
    for (const auto& attr : h.attr()) {
      attrs.push_back(StrCat(attr.name(), "=", attr.value()));
    }
    StrAppend(out, "attrs    ", StrJoin(attrs, "  "), "\n");
  }
  StrAppend(out, "tensors  ", h.input_size(), " input",
            h.input_size() == 1 ? "" : "s", ", ", h.output_size(), " output",
            h.output_size() == 1 ? "" : "s");
  if (h.buffer_size() > 0) StrAppend(out, ", ", h.buffer_size(), " buffers");
  if (h.space_size() > 0) StrAppend(out, ", ", h.space_size(), " workspaces");
  out += "\n";
  for (int i = 0; i < h.input_size(); ++i) {
    const auto& t = h.input(i);
    StrAppend(out, TensorLine("input", i, t));
    if (t.input_type() != 0) StrAppend(out, "  input_type ", t.input_type());
    out += "\n";
    out += DescribeValues(t, contents.inputs[i], options.head);
  }
  const bool overflow_record = h.op_name() == "Node_OpDebug";
  for (int i = 0; i < h.output_size(); ++i) {
    const auto& t = h.output(i);
    StrAppend(out, TensorLine("output", i, t));
    if (t.has_original_op()) {
      StrAppend(out, "  original op ", t.original_op().name(), ":",
                t.original_op().output_index());
    }
    out += "\n";
    if (overflow_record) {
      out += DescribeOverflow(contents.outputs[i]);
    } else {
      out += DescribeValues(t, contents.outputs[i], options.head);
    }
  }
  for (int i = 0; i < h.buffer_size(); ++i) {
    StrAppend(out, "  buffer ", i, ": type ", h.buffer(i).buffer_type(), "  ",
              h.buffer(i).size(), " bytes\n");
  }
  for (int i = 0; i < h.space_size(); ++i) {
    StrAppend(out, "  workspace ", i, ": ", h.space(i).size(),
              " bytes  arg_index ", h.space(i).arg_index(), "\n");
  }
  if (!h.dfx_message().empty()) {
    StrAppend(out, "message  ", h.dfx_message(), "\n");
  }
  return out;
}

}  // namespace acldump::tools
