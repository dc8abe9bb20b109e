#include "tools/device/device_compare.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <ctime>
#include <map>
#include <set>

#include "base/status_macros.h"
#include "base/strings.h"
#include "dump/format/data_type.h"
#include "dump/format/dump_file.h"
#include "dump/format/dump_names.h"
#include "fmt/format.h"
#include "kernels/half.h"
#include "kernels/npy.h"
#include "tools/common/output_folder.h"
#include "tools/compare/metrics.h"

namespace acldump::tools {
namespace {

std::vector<std::string> Unique(const std::vector<std::string>& names) {
  std::vector<std::string> out;
  for (const std::string& n : names) {
    if (!n.empty() && std::find(out.begin(), out.end(), n) == out.end()) {
      out.push_back(n);
    }
  }
  return out;
}

// The original operators a dumped operator stands for.
std::vector<std::string> OriginalsOf(const OpRecord& op) {
  std::vector<std::string> names = op.original_names;
  for (const TensorRef& out : op.outputs) names.push_back(out.original_op);
  return Unique(names);
}

// `values` as a tensor of `dtype` and `shape` (numbers converted as a cast
// would convert them).
absl::StatusOr<Tensor> FromDoubles(const std::vector<double>& values,
                                   DType dtype, const Shape& shape) {
  Tensor t(dtype, shape);
  const size_t n = values.size();
  switch (dtype) {
    case DType::kFloat32:
      for (size_t i = 0; i < n; ++i) t.as<float>()[i] = float(values[i]);
      break;
    case DType::kFloat64:
      std::copy(values.begin(), values.end(), t.as<double>());
      break;
    case DType::kFloat16:
      for (size_t i = 0; i < n; ++i) {
        t.as<uint16_t>()[i] = FloatToHalfBits(float(values[i]));
      }
      break;
    case DType::kBFloat16:
      for (size_t i = 0; i < n; ++i) {
        t.as<uint16_t>()[i] = FloatToBFloat16Bits(float(values[i]));
      }
      break;
    case DType::kInt32:
      for (size_t i = 0; i < n; ++i) t.as<int32_t>()[i] = int32_t(values[i]);
      break;
    case DType::kInt64:
      for (size_t i = 0; i < n; ++i) t.as<int64_t>()[i] = int64_t(values[i]);
      break;
    case DType::kInt8:
      for (size_t i = 0; i < n; ++i) t.as<int8_t>()[i] = int8_t(values[i]);
      break;
    case DType::kUInt8:
      for (size_t i = 0; i < n; ++i) t.as<uint8_t>()[i] = uint8_t(values[i]);
      break;
    case DType::kUInt16:
      for (size_t i = 0; i < n; ++i) t.as<uint16_t>()[i] = uint16_t(values[i]);
      break;
    case DType::kUInt32:
      for (size_t i = 0; i < n; ++i) t.as<uint32_t>()[i] = uint32_t(values[i]);
      break;
    case DType::kUInt64:
      for (size_t i = 0; i < n; ++i) t.as<uint64_t>()[i] = uint64_t(values[i]);
      break;
    case DType::kBool:
      for (size_t i = 0; i < n; ++i) t.as<uint8_t>()[i] = values[i] != 0;
      break;
    default:
      return absl::InvalidArgumentError(
          StrCat("cannot convert to ", DTypeName(dtype)));
  }
  return t;
}

// The logical tensor of input `position` of a dumped operator.
absl::StatusOr<Tensor> ReadInput(const OpRecord& op, uint32_t position) {
  ASSIGN_OR_RETURN(dump::DumpFileContents contents,
                   dump::ReadDumpFile(op.path));
  if (position >= contents.inputs.size()) {
    return absl::NotFoundError(StrCat(op.path, " has no input ", position));
  }
  return dump::LogicalTensorOf(contents.header.input(position),
                               contents.inputs[position],
                               op.OriginalFormat(true, position));
}

absl::StatusOr<Tensor> ReadOutput0(const OpRecord& op) {
  ASSIGN_OR_RETURN(dump::DumpFileContents contents,
                   dump::ReadDumpFile(op.path));
  if (contents.outputs.empty()) {
    return absl::NotFoundError(StrCat(op.path, " has no output"));
  }
  return dump::LogicalTensorOf(contents.header.output(0), contents.outputs[0],
                               op.OriginalFormat(false, 0));
}

// The dump's tensor for a graph input, as the model takes it.
absl::StatusOr<Tensor> AsModelInput(Tensor found, const NamedTensorInfo& in,
                                    const std::string& where) {
  if (found.NumElements() != in.info.shape.NumElements()) {
    return absl::InvalidArgumentError(
        StrCat("input '", in.name, "' is ", in.info.ToString(), " but ", where,
               " holds ", found.info().ToString()));
  }
  if (found.dtype() == in.info.dtype) {
    Tensor reshaped(in.info.dtype, in.info.shape);
    std::memcpy(reshaped.data(), found.data(), found.ByteSize());
    return reshaped;
  }
  return FromDoubles(ToDoubles(found.view()), in.info.dtype, in.info.shape);
}

// The graph's original format of a tensor as a dump format number; -1 when
// it names none the dump format knows.
int32_t FormatOf(const DeviceGraphTensor& desc) {
  return dump::FormatNumber(desc.origin_format).value_or(-1);
}

}  // namespace

GraphApplication ApplyDeviceGraph(const DeviceGraph& graph,
                                  CompareTree& device) {
  GraphApplication applied;
  std::set<std::string> missing;
  for (CompareSide& folder : device.folders) {
    for (OpRecord& op : folder.ops) {
      const DeviceGraphOp* g = graph.Find(op.name);
      if (g == nullptr) {
        if (missing.insert(op.name).second) {
          applied.ops_missing.push_back(op.name);
        }
        continue;
      }
      ++applied.ops_found;
      if (op.type.empty()) op.type = g->type;
      if (!g->original_names.empty()) {
        op.original_names = Unique(g->original_names);
      }
      for (TensorRef& out : op.outputs) {
        if (out.position >= g->output_desc.size()) continue;
        const DeviceGraphTensor& desc = g->output_desc[out.position];
        // Used only where the dump file records no original format.
        out.original_format = FormatOf(desc);
        if (!out.original_op.empty()) continue;
        if (!desc.origin_name.empty()) {
          out.original_op = desc.origin_name;
          out.original_index = static_cast<uint32_t>(
              std::max<int64_t>(desc.origin_output_index, 0));
        } else if (!op.original_names.empty()) {
          // As the SDK compares a fused operator: at its last original.
          out.original_op = op.original_names.back();
          out.original_index = out.position;
        }
      }
      for (TensorRef& in : op.inputs) {
        if (in.position < g->input_desc.size()) {
          in.original_format = FormatOf(g->input_desc[in.position]);
        }
        const DeviceGraphEdge edge = OriginalInput(graph, *g, in.position);
        if (edge.op.empty()) continue;
        in.original_op = edge.op;
        in.original_index = static_cast<uint32_t>(edge.index);
      }
    }
  }
  return applied;
}

void MarkDeviceOnlyOperators(CompareTree& device) {
  for (CompareSide& folder : device.folders) {
    for (OpRecord& op : folder.ops) {
      if (!IsLayoutOrCastOp(op.type) || !op.original_names.empty()) continue;
      for (TensorRef& out : op.outputs) {
        out.original_op.clear();
        out.original_index = 0;
      }
    }
  }
}

std::string_view RelationName(Relation relation) {
  switch (relation) {
    case Relation::kOneToOne:
      return "one-to-one";
    case Relation::kManyToOne:
      return "many-to-one";
    case Relation::kOneToMany:
      return "one-to-many";
    case Relation::kManyToMany:
      return "many-to-many";
    case Relation::kDeviceOnly:
      return "device-only";
  }
  return "";
}

std::vector<OpRelation> ClassifyRelations(const CompareSide& device) {
  std::map<std::string, size_t> carriers;  // original -> device ops
  std::vector<OpRelation> relations(device.ops.size());
  for (size_t i = 0; i < device.ops.size(); ++i) {
    const OpRecord& op = device.ops[i];
    // A Cast or TransData without original names of its own is the device's:
    // its output merely carries on the tensor it converts.
    if (IsLayoutOrCastOp(op.type) && op.original_names.empty()) continue;
    relations[i].originals = OriginalsOf(op);
    for (const std::string& name : relations[i].originals) ++carriers[name];
  }
  for (OpRelation& r : relations) {
    if (r.originals.empty()) continue;  // device-only
    bool shared = false;
    for (const std::string& name : r.originals) shared |= carriers[name] > 1;
    if (r.originals.size() == 1) {
      r.relation = shared ? Relation::kOneToMany : Relation::kOneToOne;
    } else {
      r.relation = shared ? Relation::kManyToMany : Relation::kManyToOne;
    }
  }
  return relations;
}

absl::StatusOr<std::vector<std::string>> ExtractModelInputs(
    const CompareSide& device, const DeviceGraph* graph,
    const std::vector<NamedTensorInfo>& model_inputs,
    const std::string& folder) {
  ASSIGN_OR_RETURN(std::unique_ptr<OutputFolder> out,
                   OutputFolder::Open(folder));
  std::vector<std::string> assigned, missing;
  for (const NamedTensorInfo& in : model_inputs) {
    std::optional<Tensor> found;
    std::string where;
    for (const OpRecord& op : device.ops) {
      // The graph input's own operator (dumps of Data operators).
      if ((op.name == in.name || op.name == dump::EscapeNamePart(in.name)) &&
          op.type == "Data" && !op.outputs.empty()) {
        ASSIGN_OR_RETURN(Tensor t, ReadOutput0(op));
        found = std::move(t);
        where = StrCat(op.path, " output 0");
        break;
      }
      // An input of an operator the graph input feeds.
      for (const TensorRef& ref : op.inputs) {
        if (ref.original_op != in.name || ref.original_index != 0) continue;
        ASSIGN_OR_RETURN(Tensor t, ReadInput(op, ref.position));
        // A Cast's input is the graph input before the device's type change.
        if (!found || op.type == "Cast" || t.dtype() == in.info.dtype) {
          found = std::move(t);
          where = StrCat(op.path, " input ", ref.position);
        }
        break;
      }
      if (found && found->dtype() == in.info.dtype) break;
    }
    if (!found) {
      missing.push_back(in.name);
      continue;
    }
    ASSIGN_OR_RETURN(Tensor tensor, AsModelInput(std::move(*found), in, where));
    ASSIGN_OR_RETURN(std::string bytes, EncodeNpy(tensor.view()));
    ASSIGN_OR_RETURN(
        std::string path,
        out->Write(StrCat(dump::EscapeNamePart(in.name), ".npy"), bytes));
    assigned.push_back(StrCat(in.name, "=", path));
  }
  if (!missing.empty()) {
    return absl::NotFoundError(StrCat(
        "the device dump does not hold the model input",
        missing.size() == 1 ? " " : "s ", "'", StrJoin(missing, "', '"), "'",
        graph == nullptr
            ? " (without --graph only Data operators' dumps are read; give "
              "the converter graph, or the inputs)"
            : " (no dumped operator reads it)",
        ": give it as --input NAME=FILE.npy"));
  }
  return assigned;
}

namespace {

std::string Number(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return fmt::format("{:.6f}", v);
}

// The dump format's type name ("DT_FLOAT16") for a tensor type name as the
// comparison reports it ("float16"), as the SDK's CSV shows types.
std::string SdkTypeName(const std::string& name) {
  if (name.empty()) return "NaN";
  if (name.starts_with("DT_")) return name;
  for (DType dtype : kAllDTypes) {
    if (DTypeName(dtype) == name) {
      return std::string(DumpDataTypeName(ToDumpDataType(dtype)));
    }
  }
  return name;
}

void AppendRow(std::string& csv, const std::vector<std::string>& fields) {
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i) csv += ',';
    dump::AppendCsvField(csv, fields[i]);
  }
  csv += '\n';
}

}  // namespace

std::string SdkResultCsv(const TreeCompareResult& result) {
  std::string csv;
  AppendRow(csv, {"Index",
                  "OpType",
                  "NPUDump",
                  "DataType",
                  "Address",
                  "GroundTruth",
                  "DataType",
                  "Address",
                  "TensorIndex",
                  "Shape",
                  "CosineSimilarity",
                  "MaxAbsoluteError",
                  "AccumulatedRelativeError",
                  "RelativeEuclideanDistance",
                  "KullbackLeiblerDivergence",
                  "StandardDeviation",
                  "MeanAbsoluteError",
                  "RootMeanSquareError",
                  "MaxRelativeError",
                  "MeanRelativeError",
                  "CompareFailReason"});
  size_t index = 0;
  for (const FolderPair& pair : result.pairs) {
    for (const OpComparison& op : pair.result.ops) {
      const OpRecord& a = *op.a;
      // The header's types and shapes for tensors without a counterpart.
      std::optional<dump::DumpFileContents> header;
      auto described = [&](bool is_input, uint32_t position) {
        if (!header) {
          absl::StatusOr<dump::DumpFileContents> read =
              dump::ReadDumpFileHeader(a.path);
          header = read.ok() ? *std::move(read) : dump::DumpFileContents{};
        }
        const auto& h = header->header;
        const int count = is_input ? h.input_size() : h.output_size();
        if (position >= static_cast<uint32_t>(count)) {
          return std::make_pair(std::string("NaN"), std::string("NaN"));
        }
        const auto& shape =
            is_input ? h.input(position).shape() : h.output(position).shape();
        std::vector<int64_t> dims(shape.dim().begin(), shape.dim().end());
        return std::make_pair(std::string(DumpDataTypeName(
                                  is_input ? h.input(position).data_type()
                                           : h.output(position).data_type())),
                              StrCat("[", StrJoin(dims, ","), "]"));
      };
      for (const auto* refs : {&a.inputs, &a.outputs}) {
        for (const TensorRef& ref : *refs) {
          const TensorComparison* found = nullptr;
          for (const TensorComparison& t : op.tensors) {
            if (t.is_input == ref.is_input && t.position == ref.position) {
              found = &t;
            }
          }
          const std::string tensor_index = StrCat(
              a.name, ref.is_input ? ":input:" : ":output:", ref.position);
          std::vector<std::string> row{StrCat(index++), a.type, a.name};
          if (found == nullptr) {
            const auto [dtype, shape] = described(ref.is_input, ref.position);
            row.insert(row.end(),
                       {dtype, "NaN", "*", "NaN", "NaN", tensor_index, shape});
            for (int k = 0; k < 10; ++k) row.push_back("NaN");
            row.push_back(ref.original_op.empty() && !ref.is_input
                              ? "no original operator (added by the device)"
                              : "no ground truth for this tensor");
            AppendRow(csv, row);
            continue;
          }
          // "relu1 output 0": the ground truth's operator.
          const size_t cut = std::min(found->b_label.rfind(" output "),
                                      found->b_label.rfind(" input "));
          const std::string b_name = found->b_label.substr(0, cut);
          row.insert(row.end(),
                     {SdkTypeName(found->dtype_a), "NaN", b_name,
                      SdkTypeName(found->dtype_b), "NaN", tensor_index,
                      StrCat("[", StrJoin(found->shape_a, ","), "]")});
          const TensorMetrics& m = found->metrics;
          if (!found->problem.empty()) {
            for (int k = 0; k < 10; ++k) row.push_back("NaN");
            row.push_back(found->problem);
          } else {
            row.insert(
                row.end(),
                {Number(m.cosine), Number(m.max_abs), Number(m.acc_rel),
                 Number(m.rel_euclidean), Number(m.kl),
                 StrCat("(", Number(m.mean_a), ";", Number(m.std_a), "),(",
                        Number(m.mean_b), ";", Number(m.std_b), ")"),
                 Number(m.mean_abs), Number(m.rmse), Number(m.max_rel),
                 Number(m.mean_rel), ""});
          }
          AppendRow(csv, row);
        }
      }
    }
  }
  return csv;
}

}  // namespace acldump::tools
