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
#include "nlohmann/json.hpp"
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

// What show reports of one tensor's values.
struct ValueSummary {
  dump::TensorStats stats;
  double mean = 0, std = 0, l2norm = 0;
  size_t zeros = 0;
  std::vector<double> first;  // the first `head` values
  size_t total = 0;
};

ValueSummary Summarise(const Tensor& tensor, size_t head) {
  ValueSummary v;
  v.stats = dump::ComputeStats(tensor.view());
  const std::vector<double> values = ToDoubles(tensor.view());
  for (double x : values) v.zeros += x == 0;
  const dump::TensorStats& s = v.stats;
  if (s.finite > 0) {
    v.mean = s.sum / s.finite;
    v.std =
        std::sqrt(std::max(0.0, s.sum_squares / s.finite - v.mean * v.mean));
    v.l2norm = std::sqrt(s.sum_squares);
  }
  v.total = values.size();
  v.first.assign(values.begin(),
                 values.begin() + std::min(head, values.size()));
  return v;
}

// Statistics and the first values of one tensor.
std::string DescribeLogical(const Tensor* tensor, size_t head) {
  const ValueSummary v = Summarise(*tensor, head);
  const dump::TensorStats& s = v.stats;
  std::string out = StrCat("      count ", s.count);
  if (s.finite > 0) {
    StrAppend(out, "  min ", FormatNumber(s.min), "  max ", FormatNumber(s.max),
              "  mean ", FormatNumber(v.mean), "  std ", FormatNumber(v.std),
              "  l2norm ", FormatNumber(v.l2norm));
  }
  StrAppend(out, "\n      nan ", s.nan, "  -inf ", s.negative_inf, "  +inf ",
            s.positive_inf, "  zeros ", v.zeros);
  if (s.count > 0) {
    StrAppend(out, fmt::format(" ({:.1f}%)", 100.0 * v.zeros / s.count));
  }
  out += "\n";
  if (!v.first.empty()) {
    std::vector<std::string> shown;
    for (double x : v.first) shown.push_back(FormatNumber(x));
    StrAppend(out, "      first ", shown.size(), ": ", StrJoin(shown, " "),
              v.total > shown.size() ? " ..." : "", "\n");
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

bool IsStatsCsv(const std::string& path) {
  return path.size() >= 4 && path.substr(path.size() - 4) == ".csv";
}

absl::StatusOr<dump::StatsTable> ReadStatsTable(const std::string& path) {
  ASSIGN_OR_RETURN(
      std::string text,
      dump::ReadDumpTreeFile(path, dump::kMaxStatsCsvBytes, "stats CSV"));
  absl::StatusOr<dump::StatsTable> table = dump::ParseStatsCsv(text);
  if (!table.ok()) {
    return absl::InvalidArgumentError(
        StrCat(path, ": not a stats CSV: ", table.status().message()));
  }
  return table;
}

absl::StatusOr<std::string> DescribeStatsCsv(const std::string& path) {
  ASSIGN_OR_RETURN(dump::StatsTable table, ReadStatsTable(path));
  TextTable out(table.header);
  for (const auto& row : table.rows) out.AddRow(row);
  return StrCat("stats file ", path, " (", table.rows.size(),
                table.rows.size() == 1 ? " tensor" : " tensors", ")\n",
                out.Render("  "));
}

using Json = nlohmann::ordered_json;

// A number JSON can hold; null for NaN and infinities.
Json Finite(double value) {
  return std::isfinite(value) ? Json(value) : Json(nullptr);
}

template <typename ShapeProto>
Json Dims(const ShapeProto& shape) {
  Json dims = Json::array();
  for (auto d : shape.dim()) dims.push_back(d);
  return dims;
}

// A tensor's description, its values as the original tensor and their
// statistics.
template <typename TensorProto>
Json TensorJson(size_t index, const TensorProto& t, const std::string& bytes,
                size_t head) {
  Json j;
  j["index"] = index;
  j["dtype"] = std::string(DumpDataTypeName(t.data_type()));
  j["format"] = dump::FormatName(t.format());
  j["shape"] = Dims(t.shape());
  j["original_shape"] = Dims(t.original_shape());
  j["bytes"] = t.size();
  j["arg_index"] = t.arg_index();
  absl::StatusOr<Tensor> tensor = dump::LogicalTensorOf(t, bytes);
  if (!tensor.ok()) {
    j["statistics_error"] = std::string(tensor.status().message());
    return j;
  }
  j["logical_shape"] = tensor->shape().dims();
  const ValueSummary v = Summarise(*tensor, head);
  const dump::TensorStats& s = v.stats;
  const bool any = s.finite > 0;
  j["stats"] = {{"count", s.count},
                {"min", any ? Finite(s.min) : Json(nullptr)},
                {"max", any ? Finite(s.max) : Json(nullptr)},
                {"mean", any ? Finite(v.mean) : Json(nullptr)},
                {"std", any ? Finite(v.std) : Json(nullptr)},
                {"l2norm", any ? Finite(v.l2norm) : Json(nullptr)},
                {"nan", s.nan},
                {"negative_inf", s.negative_inf},
                {"positive_inf", s.positive_inf},
                {"zeros", v.zeros}};
  if (head > 0) {
    Json first = Json::array();
    for (double x : v.first) first.push_back(Finite(x));
    j["first"] = std::move(first);
  }
  return j;
}

Json OverflowJson(const std::string& payload) {
  absl::StatusOr<dump::OverflowRecord> record =
      dump::DecodeOverflowPayload(payload);
  if (!record.ok()) {
    return {{"error", std::string(record.status().message())}};
  }
  return {{"model_id", record->model_id},
          {"task_id", record->task_id},
          {"stream_id", record->stream_id},
          {"acc_type", record->acc_type},
          {"status", record->status},
          {"nan", (record->status & dump::kOverflowStatusNan) != 0},
          {"positive_inf",
           (record->status & dump::kOverflowStatusPositiveInf) != 0},
          {"negative_inf",
           (record->status & dump::kOverflowStatusNegativeInf) != 0}};
}

}  // namespace

absl::StatusOr<std::string> DescribeDumpFile(const std::string& path,
                                             const ShowOptions& options) {
  if (IsStatsCsv(path)) return DescribeStatsCsv(path);
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

absl::StatusOr<std::string> DumpFileJson(const std::string& path,
                                         const ShowOptions& options) {
  Json j;
  j["schema"] = "acldump.show/1";
  j["file"] = path;
  if (IsStatsCsv(path)) {
    ASSIGN_OR_RETURN(dump::StatsTable table, ReadStatsTable(path));
    j["kind"] = "stats";
    j["header"] = table.header;
    j["rows"] = table.rows;
    return j.dump(1, ' ', false, Json::error_handler_t::replace) + "\n";
  }
  ASSIGN_OR_RETURN(dump::DumpFileContents contents, dump::ReadDumpFile(path));
  const DumpData& h = contents.header;
  j["kind"] = "dump";
  j["version"] = h.version();
  j["legacy_format"] = contents.legacy_format;
  j["op"] = h.op_name();
  Json attrs = Json::object();
  for (const auto& attr : h.attr()) attrs[attr.name()] = attr.value();
  j["type"] = attrs.value("op_type", "");
  j["original_names"] = Json::array();
  if (attrs.contains("original_names")) {
    const std::string names = attrs["original_names"];
    for (size_t start = 0; start <= names.size();) {
      const size_t comma = std::min(names.find(',', start), names.size());
      if (comma > start) {
        j["original_names"].push_back(names.substr(start, comma - start));
      }
      start = comma + 1;
    }
  }
  j["dump_time_us"] = h.dump_time();
  j["time"] = LocalTime(h.dump_time());
  j["attrs"] = attrs;
  Json inputs = Json::array(), outputs = Json::array();
  for (int i = 0; i < h.input_size(); ++i) {
    Json t = TensorJson(i, h.input(i), contents.inputs[i], options.head);
    t["input_type"] = h.input(i).input_type();
    inputs.push_back(std::move(t));
  }
  const bool overflow_record = h.op_name() == "Node_OpDebug";
  for (int i = 0; i < h.output_size(); ++i) {
    const auto& out = h.output(i);
    Json t =
        overflow_record
            ? Json{{"index", i},
                   {"dtype", std::string(DumpDataTypeName(out.data_type()))},
                   {"bytes", out.size()},
                   {"overflow", OverflowJson(contents.outputs[i])}}
            : TensorJson(i, out, contents.outputs[i], options.head);
    if (out.has_original_op()) {
      t["original_op"] = {{"name", out.original_op().name()},
                          {"output_index", out.original_op().output_index()}};
    }
    outputs.push_back(std::move(t));
  }
  j["inputs"] = std::move(inputs);
  j["outputs"] = std::move(outputs);
  Json buffers = Json::array(), workspaces = Json::array();
  for (const auto& b : h.buffer()) {
    buffers.push_back({{"type", b.buffer_type()}, {"bytes", b.size()}});
  }
  for (const auto& w : h.space()) {
    workspaces.push_back({{"bytes", w.size()}, {"arg_index", w.arg_index()}});
  }
  j["buffers"] = std::move(buffers);
  j["workspaces"] = std::move(workspaces);
  j["message"] = h.dfx_message();
  // Names that are not UTF-8 are written with U+FFFD.
  return j.dump(1, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace acldump::tools
