#include "tools/tree/stats.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "base/file_reader.h"
#include "base/status_macros.h"
#include "base/strings.h"
#include "dump/format/dump_file.h"
#include "dump/format/merged_stats.h"
#include "dump/format/stats_csv.h"
#include "dump/stats.h"
#include "nlohmann/json.hpp"
#include "tools/common/cli_util.h"

namespace acldump::tools {
namespace {

constexpr double kFloat16Max = 65504;

std::string CsvField(const std::string& field) {
  if (field.find_first_of(",\"\r\n") == std::string::npos) return field;
  std::string out = "\"";
  for (char c : field) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

absl::StatusOr<std::string> ReadText(const std::string& path) {
  return dump::ReadDumpTreeFile(path, dump::kMaxStatsCsvBytes, "stats CSV");
}

// The stats CSV rows a tensor dump would have had (default columns).
absl::StatusOr<std::string> StatsCsvOfTensorFile(const std::string& path) {
  ASSIGN_OR_RETURN(dump::DumpFileContents contents, dump::ReadDumpFile(path));
  std::vector<dump::StatsRow> rows;
  auto add = [&](const auto& t, const std::string& bytes, bool is_input) {
    dump::StatsRow row;
    row.is_input = is_input;
    row.index = t.arg_index();
    row.data_size = t.size();
    row.data_type = t.data_type();
    row.format = t.format();
    for (uint64_t d : t.shape().dim())
      row.shape.push_back(static_cast<int64_t>(d));
    absl::StatusOr<Tensor> tensor =
        dump::LogicalTensorOf(t, bytes);
    row.numeric = tensor.ok();
    if (tensor.ok()) row.stats = dump::ComputeStats(tensor->view());
    rows.push_back(std::move(row));
  };
  const auto& h = contents.header;
  for (int i = 0; i < h.input_size(); ++i)
    add(h.input(i), contents.inputs[i], true);
  for (int i = 0; i < h.output_size(); ++i) {
    add(h.output(i), contents.outputs[i], false);
  }
  return dump::FormatStatsCsv(rows, {});
}

std::vector<std::string> PrefixCells(const dump::DumpEntry& e) {
  auto number = [](int64_t v) { return v < 0 ? std::string() : StrCat(v); };
  return {e.time,
          number(e.device),
          e.model,
          number(e.model_id),
          number(e.iteration),
          e.name->op_type,
          e.name->op_name,
          StrCat(e.name->task_id),
          StrCat(e.name->stream_id),
          StrCat(e.name->timestamp_us)};
}

absl::Status AddTable(const dump::DumpEntry& entry,
                      const dump::StatsTable& table, MergedStats& merged) {
  // Where each CSV column goes in the merged header.
  std::vector<size_t> target;
  for (const std::string& column : table.header) {
    auto it = std::find(merged.header.begin(), merged.header.end(), column);
    if (it == merged.header.end()) {
      merged.header.push_back(column);
      it = merged.header.end() - 1;
    }
    target.push_back(it - merged.header.begin());
  }
  for (size_t r = 0; r < table.rows.size(); ++r) {
    MergedRow row;
    row.entry = &entry;
    ASSIGN_OR_RETURN(std::string_view io, table.Cell(r, "Input/Output"));
    row.is_input = io == "Input";
    ASSIGN_OR_RETURN(std::optional<uint64_t> index, table.Uint64(r, "Index"));
    row.index = index.value_or(0);
    if (table.ColumnIndex("Data Type")) {
      row.data_type = std::string(*table.Cell(r, "Data Type"));
    }
    if (table.ColumnIndex("Shape"))
      row.shape = std::string(*table.Cell(r, "Shape"));
    auto number = [&](std::string_view column,
                      std::optional<double>& out) -> absl::Status {
      if (!table.ColumnIndex(column)) return absl::OkStatus();
      ASSIGN_OR_RETURN(out, table.Double(r, column));
      return absl::OkStatus();
    };
    auto count = [&](std::string_view column, uint64_t& out) -> absl::Status {
      if (!table.ColumnIndex(column)) return absl::OkStatus();
      ASSIGN_OR_RETURN(std::optional<uint64_t> value, table.Uint64(r, column));
      out = value.value_or(0);
      return absl::OkStatus();
    };
    RETURN_IF_ERROR(number("Max Value", row.max));
    RETURN_IF_ERROR(number("Min Value", row.min));
    RETURN_IF_ERROR(number("Avg Value", row.avg));
    RETURN_IF_ERROR(count("Nan Count", row.nan));
    RETURN_IF_ERROR(count("Negative Inf Count", row.negative_inf));
    RETURN_IF_ERROR(count("Positive Inf Count", row.positive_inf));
    std::vector<std::string> cells = PrefixCells(entry);
    cells.resize(merged.header.size());
    for (size_t c = 0; c < table.header.size(); ++c) {
      cells[target[c]] = table.rows[r][c];
    }
    merged.cells.push_back(std::move(cells));
    merged.rows.push_back(std::move(row));
  }
  return absl::OkStatus();
}

double AbsMax(const MergedRow& row) {
  double m = 0;
  if (row.max) m = std::max(m, std::fabs(*row.max));
  if (row.min) m = std::max(m, std::fabs(*row.min));
  return m;
}

uint64_t NonFinite(const MergedRow& row) {
  return row.nan + row.negative_inf + row.positive_inf;
}

std::string Where(const MergedRow& row) {
  std::string where = StrCat(row.is_input ? "input " : "output ", row.index);
  if (row.entry->iteration >= 0) {
    StrAppend(where, " (iteration ", row.entry->iteration, ")");
  }
  return where;
}

std::string Optional(const std::optional<double>& v) {
  return v ? FormatNumber(*v) : "NA";
}

}  // namespace

absl::StatusOr<std::string> StatsTextOfFile(const dump::DumpEntry& entry) {
  return entry.kind == dump::EntryKind::kStats
             ? ReadText(entry.path)
             : StatsCsvOfTensorFile(entry.path);
}

absl::StatusOr<MergedStats> MergeStats(const dump::DumpTree& tree,
                                       const StatsTextSource& source) {
  MergedStats merged;
  for (const char* column : kMergedPrefixColumns)
    merged.header.push_back(column);
  // What the scan skipped (a torn pack, a record named outside its folder)
  // is reported with what the merge skips.
  merged.problems = tree.problems;
  size_t total = 0;
  for (const dump::DumpRun& run : tree.runs) total += run.files.size();
  Progress progress("stats", total);
  size_t done = 0;
  for (const dump::DumpRun& run : tree.runs) {
    for (const dump::DumpEntry* entry : run.files) {
      progress.Update(++done, entry->file_name);
      if (entry->kind != dump::EntryKind::kStats &&
          entry->kind != dump::EntryKind::kTensor) {
        continue;
      }
      absl::StatusOr<std::string> text = source(*entry);
      absl::StatusOr<dump::StatsTable> table =
          text.ok() ? dump::ParseStatsCsv(*text)
                    : absl::StatusOr<dump::StatsTable>(text.status());
      absl::Status added =
          table.ok() ? AddTable(*entry, *table, merged) : table.status();
      if (!added.ok()) {
        merged.problems.push_back(
            StrCat(entry->path, ": ", ToStd(added.message())));
        continue;
      }
      ++(entry->kind == dump::EntryKind::kStats ? merged.stats_files
                                                : merged.tensor_files);
    }
  }
  progress.Finish();
  if (merged.stats_files + merged.tensor_files == 0) {
    if (!merged.problems.empty()) {
      return absl::InvalidArgumentError(
          StrCat("no readable dump file: ", merged.problems.front()));
    }
    return absl::NotFoundError(
        StrCat("no stats CSV or tensor dump under '", tree.root, "'"));
  }
  for (auto& cells : merged.cells) cells.resize(merged.header.size());
  return merged;
}

std::string MergedStatsCsv(const MergedStats& stats) {
  std::string out;
  auto line = [&](const std::vector<std::string>& cells) {
    for (size_t i = 0; i < cells.size(); ++i) {
      if (i > 0) out += ',';
      out += CsvField(cells[i]);
    }
    out += '\n';
  };
  line(stats.header);
  for (const auto& cells : stats.cells) line(cells);
  return out;
}

size_t CountNonFiniteRows(const MergedStats& stats) {
  return std::count_if(stats.rows.begin(), stats.rows.end(),
                       [](const MergedRow& r) { return NonFinite(r) > 0; });
}

StatsAnalysis AnalyseStats(const MergedStats& stats,
                           const StatsReportOptions& options) {
  StatsAnalysis analysis;
  for (size_t i = 0; i < stats.rows.size(); ++i) {
    const MergedRow& r = stats.rows[i];
    if (NonFinite(r) > 0) analysis.nonfinite_rows.push_back(i);
    if (AbsMax(r) >= options.extreme) analysis.extreme_rows.push_back(i);
  }
  // One entry per operator (type, name): its worst output (inputs when it
  // has none).
  struct OpSummary {
    std::string name, type;
    uint32_t task_id = 0;
    const MergedRow* worst = nullptr;
    uint64_t nonfinite = 0;
    bool outputs = false;
  };
  std::map<std::pair<std::string, std::string>, OpSummary> ops;
  for (const MergedRow& r : stats.rows) {
    OpSummary& op = ops[{r.entry->name->op_type, r.entry->name->op_name}];
    op.name = r.entry->name->op_name;
    op.type = r.entry->name->op_type;
    op.task_id = r.entry->name->task_id;
    if (op.outputs && r.is_input) continue;
    if (!op.outputs && !r.is_input) {
      op.outputs = true;
      op.worst = nullptr;
      op.nonfinite = 0;
    }
    op.nonfinite += NonFinite(r);
    if (op.worst == nullptr || AbsMax(r) > AbsMax(*op.worst)) op.worst = &r;
  }
  for (const auto& [key, op] : ops) {
    RankedOp ranked;
    ranked.name = op.name;
    ranked.type = op.type;
    ranked.task_id = op.task_id;
    ranked.worst = op.worst;
    ranked.nonfinite = op.nonfinite;
    ranked.max_abs = AbsMax(*op.worst);
    if (op.nonfinite > 0) ranked.flags.push_back("NaN/Inf");
    if (ranked.max_abs >= kFloat16Max) {
      ranked.flags.push_back("beyond float16 range");
    } else if (ranked.max_abs >= options.extreme) {
      ranked.flags.push_back("extreme");
    }
    analysis.ranking.push_back(std::move(ranked));
  }
  std::stable_sort(analysis.ranking.begin(), analysis.ranking.end(),
                   [](const RankedOp& a, const RankedOp& b) {
                     if (a.nonfinite != b.nonfinite) {
                       return a.nonfinite > b.nonfinite;
                     }
                     if (a.max_abs != b.max_abs) return a.max_abs > b.max_abs;
                     return a.task_id < b.task_id;
                   });
  return analysis;
}

std::string FormatStatsReport(const dump::DumpTree& tree,
                              const MergedStats& stats,
                              const StatsReportOptions& options) {
  std::string out =
      StrCat("stats of ", stats.rows.size(), " tensors from ",
             stats.stats_files + stats.tensor_files, " files under ", tree.root,
             " (", stats.stats_files, " stats CSV, ", stats.tensor_files,
             " computed from tensor dumps)\n");
  size_t shown_runs = 0;
  for (const dump::DumpRun& run : tree.runs) {
    if (++shown_runs > 5) {
      StrAppend(out, "  ... and ", tree.runs.size() - 5, " more folders\n");
      break;
    }
    StrAppend(out, "  ", run.Describe(), "\n");
  }
  for (const std::string& problem : stats.problems) {
    StrAppend(out, "skipped: ", problem, "\n");
  }
  const StatsAnalysis analysis = AnalyseStats(stats, options);

  auto row_cells = [](const MergedRow& r) -> std::vector<std::string> {
    return {r.entry->name->op_name,
            r.entry->name->op_type,
            Where(r),
            r.data_type,
            r.shape,
            Optional(r.min),
            Optional(r.max),
            Optional(r.avg),
            StrCat(r.nan),
            StrCat(r.negative_inf + r.positive_inf)};
  };
  const std::vector<std::string> row_header = {
      "op",  "type", "tensor", "dtype", "shape",
      "min", "max",  "avg",    "nan",   "inf"};

  TextTable nonfinite(row_header);
  TextTable extreme(row_header);
  for (size_t i : analysis.nonfinite_rows) {
    nonfinite.AddRow(row_cells(stats.rows[i]));
  }
  for (size_t i : analysis.extreme_rows) {
    extreme.AddRow(row_cells(stats.rows[i]));
  }
  out += "\n";
  if (nonfinite.size() == 0) {
    out += "NaN/Inf: none\n";
  } else {
    StrAppend(out, "NaN/Inf: ", nonfinite.size(), " tensors\n",
              nonfinite.Render("  "));
  }
  if (extreme.size() == 0) {
    StrAppend(out, "extreme values (|x| >= ", FormatNumber(options.extreme),
              "): none\n");
  } else {
    StrAppend(out, "extreme values (|x| >= ", FormatNumber(options.extreme),
              "): ", extreme.size(), " tensors\n", extreme.Render("  "));
  }
  const size_t top = std::min(options.top, analysis.ranking.size());
  StrAppend(out,
            "\noperators ranked by NaN/Inf count, then largest |value| (top ",
            top, " of ", analysis.ranking.size(), "):\n");
  TextTable ranking({"rank", "op", "type", "task", "max |x|", "at", "min",
                     "max", "avg", "nan+inf", "flags"});
  for (size_t i = 0; i < top; ++i) {
    const RankedOp& op = analysis.ranking[i];
    const MergedRow& w = *op.worst;
    ranking.AddRow({StrCat(i + 1), op.name, op.type, StrCat(op.task_id),
                    FormatNumber(op.max_abs), Where(w), Optional(w.min),
                    Optional(w.max), Optional(w.avg), StrCat(op.nonfinite),
                    StrJoin(op.flags, ", ")});
  }
  out += ranking.Render("  ");
  return out;
}

std::string StatsJson(const dump::DumpTree& tree, const MergedStats& stats,
                      const StatsReportOptions& options) {
  using Json = nlohmann::ordered_json;
  auto num = [](const std::optional<double>& v) -> Json {
    if (!v) return nullptr;
    if (std::isnan(*v)) return "nan";
    if (std::isinf(*v)) return *v > 0 ? "inf" : "-inf";
    return *v;
  };
  auto optional_int = [](int64_t v) -> Json {
    return v < 0 ? Json(nullptr) : Json(v);
  };
  const StatsAnalysis analysis = AnalyseStats(stats, options);
  Json j;
  j["schema"] = "acldump.stats/1";
  j["path"] = tree.root;
  j["stats_files"] = stats.stats_files;
  j["tensor_files"] = stats.tensor_files;
  j["problems"] = stats.problems;
  j["extreme"] = options.extreme;
  Json rows = Json::array();
  for (const MergedRow& r : stats.rows) {
    const dump::DumpEntry& e = *r.entry;
    rows.push_back({{"time", e.time},
                    {"device", optional_int(e.device)},
                    {"model", e.model},
                    {"model_id", optional_int(e.model_id)},
                    {"iteration", optional_int(e.iteration)},
                    {"op_type", e.name->op_type},
                    {"op_name", e.name->op_name},
                    {"task", e.name->task_id},
                    {"stream", e.name->stream_id},
                    {"timestamp", e.name->timestamp_us},
                    {"io", r.is_input ? "input" : "output"},
                    {"index", r.index},
                    {"data_type", r.data_type},
                    {"shape", r.shape},
                    {"min", num(r.min)},
                    {"max", num(r.max)},
                    {"avg", num(r.avg)},
                    {"nan", r.nan},
                    {"negative_inf", r.negative_inf},
                    {"positive_inf", r.positive_inf},
                    {"file", e.path}});
  }
  j["rows"] = std::move(rows);
  j["nonfinite_rows"] = analysis.nonfinite_rows;
  j["extreme_rows"] = analysis.extreme_rows;
  Json ranking = Json::array();
  for (size_t i = 0; i < analysis.ranking.size(); ++i) {
    const RankedOp& op = analysis.ranking[i];
    ranking.push_back(
        {{"rank", i + 1},
         {"op", op.name},
         {"type", op.type},
         {"task", op.task_id},
         {"max_abs", num(op.max_abs)},
         {"worst_row", static_cast<size_t>(op.worst - stats.rows.data())},
         {"nonfinite", op.nonfinite},
         {"flags", op.flags}});
  }
  j["ranking"] = std::move(ranking);
  return j.dump(1) + "\n";
}

}  // namespace acldump::tools
