#include <algorithm>
#include <cmath>
#include <limits>

#include "base/status_macros.h"
#include "base/strings.h"
#include "base/text.h"
#include "dump/format/data_type.h"
#include "kernels/dtype.h"
#include "tools/common/array_files.h"
#include "tools/compare/internal.h"

namespace acldump::tools::compare_internal {
namespace {

constexpr size_t kWorstElements = 5;
constexpr size_t kSampleSize = 2000;
constexpr size_t kHistogramBins = 40;

LoadedTensor FromTensor(absl::StatusOr<Tensor> tensor) {
  LoadedTensor out;
  if (!tensor.ok()) {
    out.error = std::string(ToStd(tensor.status().message()));
    return out;
  }
  out.values = ToDoubles(tensor->view());
  out.shape = tensor->shape().dims();
  out.dtype = std::string(DTypeName(tensor->dtype()));
  return out;
}

std::vector<int64_t> Unravel(uint64_t flat, const std::vector<int64_t>& shape) {
  std::vector<int64_t> index(shape.size(), 0);
  for (size_t d = shape.size(); d-- > 0;) {
    if (shape[d] <= 0) continue;
    index[d] = static_cast<int64_t>(flat % static_cast<uint64_t>(shape[d]));
    flat /= static_cast<uint64_t>(shape[d]);
  }
  return index;
}

// Quantized codes (dtype names of the tensor files and of the dump files).
bool IsEightBit(std::string_view dtype) {
  return dtype == "uint8" || dtype == "int8" || dtype == "DT_UINT8" ||
         dtype == "DT_INT8";
}

bool IsReal(std::string_view dtype) {
  for (std::string_view name : {"float", "FLOAT", "double", "DOUBLE", "BF16"}) {
    if (dtype.find(name) != std::string_view::npos) return true;
  }
  return false;
}

bool SameNonFinite(double x, double y) {
  if (std::isnan(x) || std::isnan(y)) return std::isnan(x) && std::isnan(y);
  return std::isinf(x) && x == y;
}

// An element outside the tolerance; how far past it decides its rank.
struct Candidate {
  double excess;
  uint64_t flat;
};

// Furthest past the tolerance first; ties go to the lower index so the
// listing is stable.
bool RanksBefore(const Candidate& x, const Candidate& y) {
  return x.excess > y.excess || (x.excess == y.excess && x.flat < y.flat);
}

// The nonzero finite differences, whose range sets the histogram's bins.
struct DiffRange {
  double min_diff = std::numeric_limits<double>::infinity();
  double max_diff = 0;
  uint64_t nonzero = 0;
};

// The kWorstElements elements furthest past the tolerance, ranked.
std::vector<Candidate> FindWorst(const std::vector<double>& a,
                                 const std::vector<double>& b,
                                 const CompareOptions& options,
                                 DiffRange& range) {
  std::vector<Candidate> worst;
  for (size_t i = 0; i < a.size(); ++i) {
    double excess;
    if (std::isfinite(a[i]) && std::isfinite(b[i])) {
      const double diff = std::fabs(a[i] - b[i]);
      if (diff > 0) {
        ++range.nonzero;
        range.min_diff = std::min(range.min_diff, diff);
        range.max_diff = std::max(range.max_diff, diff);
      }
      excess = diff - (options.atol + options.rtol * std::fabs(b[i]));
      if (excess <= 0) continue;
    } else if (SameNonFinite(a[i], b[i])) {
      continue;
    } else {
      excess = std::numeric_limits<double>::infinity();
    }
    const Candidate candidate{excess, i};
    if (worst.size() < kWorstElements) {
      worst.push_back(candidate);
      std::sort(worst.begin(), worst.end(), RanksBefore);
    } else if (RanksBefore(candidate, worst.back())) {
      worst.back() = candidate;
      std::sort(worst.begin(), worst.end(), RanksBefore);
    }
  }
  return worst;
}

ElementDiff DescribeElement(uint64_t flat, const std::vector<double>& a,
                            const std::vector<double>& b,
                            const std::vector<int64_t>& shape) {
  ElementDiff e;
  e.flat = flat;
  e.index = Unravel(flat, shape);
  e.a = a[flat];
  e.b = b[flat];
  e.abs_diff = std::isfinite(e.a) && std::isfinite(e.b)
                   ? std::fabs(e.a - e.b)
                   : std::numeric_limits<double>::infinity();
  return e;
}

// The histogram of differences on log-spaced bins, and a strided sample of
// (reference, value) pairs with the worst elements added so they show.
ErrorDetail BuildDetail(const std::vector<double>& a,
                        const std::vector<double>& b, const DiffRange& range,
                        const std::vector<ElementDiff>& worst) {
  ErrorDetail detail;
  if (range.nonzero > 0) {
    detail.bin_low = std::floor(std::log10(range.min_diff));
    detail.bin_high =
        std::max(std::ceil(std::log10(range.max_diff)), detail.bin_low + 1);
  }
  detail.bins.assign(kHistogramBins, 0);
  const double width = (detail.bin_high - detail.bin_low) / kHistogramBins;
  const size_t stride =
      std::max<size_t>(1, (a.size() + kSampleSize - 1) / kSampleSize);
  for (size_t i = 0; i < a.size(); ++i) {
    if (!(std::isfinite(a[i]) && std::isfinite(b[i]))) {
      if (!SameNonFinite(a[i], b[i])) ++detail.nonfinite;
      continue;
    }
    const double diff = std::fabs(a[i] - b[i]);
    if (diff == 0) {
      ++detail.zero;
    } else {
      const double position = (std::log10(diff) - detail.bin_low) / width;
      const size_t bin = std::min<size_t>(
          kHistogramBins - 1, static_cast<size_t>(std::max(0.0, position)));
      ++detail.bins[bin];
    }
    if (i % stride == 0) detail.sample.emplace_back(b[i], a[i]);
  }
  for (const ElementDiff& e : worst) {
    if (std::isfinite(e.a) && std::isfinite(e.b)) {
      detail.sample.emplace_back(e.b, e.a);
    }
  }
  return detail;
}

// The worst elements outside the tolerance (by how far past it, then by
// index) and, when asked, the histogram and sample the report plots.
void Examine(const std::vector<double>& a, const std::vector<double>& b,
             const std::vector<int64_t>& shape, const CompareOptions& options,
             bool detailed, TensorComparison& c) {
  DiffRange range;
  for (const Candidate& w : FindWorst(a, b, options, range)) {
    c.worst.push_back(DescribeElement(w.flat, a, b, shape));
  }
  if (!detailed) return;
  c.detail = BuildDetail(a, b, range, c.worst);
}

}  // namespace

absl::StatusOr<Tensor> TensorLoader::Read(const OpRecord& op, bool is_input,
                                          uint32_t position,
                                          std::vector<int64_t>* shape,
                                          std::string* dtype_name) {
  if (side_.kind == SideKind::kReference) {
    const auto& sources = is_input ? op.input_files : op.output_files;
    if (position >= sources.size() || sources[position].empty()) {
      return absl::NotFoundError("no such tensor");
    }
    const ArraySource& source = sources[position];
    return source.member ? ReadNpzMember(source.path, *source.member)
                         : ReadArrayFile(source.path);
  }
  auto it = files_.find(op.path);
  if (it == files_.end()) {
    it = files_.emplace(op.path, dump::ReadDumpFile(op.path)).first;
  }
  if (!it->second.ok()) return it->second.status();
  const dump::DumpFileContents& contents = *it->second;
  const auto& h = contents.header;
  const int count = is_input ? h.input_size() : h.output_size();
  if (count < 0 || position >= static_cast<uint32_t>(count)) {
    return absl::NotFoundError("no such tensor");
  }
  const int32_t data_type =
      is_input ? h.input(position).data_type() : h.output(position).data_type();
  const auto& dims =
      is_input ? h.input(position).shape() : h.output(position).shape();
  const std::optional<DType> dtype = FromDumpDataType(data_type);
  for (uint64_t d : dims.dim()) shape->push_back(static_cast<int64_t>(d));
  *dtype_name =
      std::string(dtype ? DTypeName(*dtype) : DumpDataTypeName(data_type));
  const std::string& bytes =
      is_input ? contents.inputs[position] : contents.outputs[position];
  // A device's tensor comes back in the original model's layout and shape.
  const int32_t original_format = op.OriginalFormat(is_input, position);
  absl::StatusOr<Tensor> tensor =
      is_input
          ? dump::LogicalTensorOf(h.input(position), bytes, original_format)
          : dump::LogicalTensorOf(h.output(position), bytes, original_format);
  if (tensor.ok()) *shape = tensor->shape().dims();
  return tensor;
}

LoadedTensor TensorLoader::Load(const OpRecord& op, bool is_input,
                                uint32_t position) {
  std::vector<int64_t> shape;
  std::string dtype;
  LoadedTensor loaded =
      FromTensor(Read(op, is_input, position, &shape, &dtype));
  // A dump's header says the shape and type even when its data is unreadable.
  if (side_.kind != SideKind::kReference) {
    loaded.shape = std::move(shape);
    loaded.dtype = std::move(dtype);
  }
  return loaded;
}

absl::StatusOr<TensorStatsRecord> TensorLoader::LoadStats(const OpRecord& op,
                                                          bool is_input,
                                                          uint32_t position) {
  if (side_.kind == SideKind::kStats) {
    const auto& stats = is_input ? op.input_stats : op.output_stats;
    if (position >= stats.size()) return absl::NotFoundError("no such tensor");
    return stats[position];
  }
  std::vector<int64_t> shape;
  std::string dtype;
  ASSIGN_OR_RETURN(Tensor tensor, Read(op, is_input, position, &shape, &dtype));
  return StatsRecordOfTensor(tensor.view());
}

TensorComparison Compare(const LoadedTensor& a, const LoadedTensor& b,
                         const CompareOptions& options, bool* detail_budget) {
  TensorComparison c;
  c.shape_a = a.shape;
  c.shape_b = b.shape;
  c.dtype_a = a.dtype;
  c.dtype_b = b.dtype;
  if (!a.error.empty()) {
    c.problem = StrCat("A: ", a.error);
  } else if (!b.error.empty()) {
    c.problem = StrCat("B: ", b.error);
  } else if (a.shape != b.shape) {
    c.problem = StrCat("shapes differ: ", ShapeText(a.shape), " vs ",
                       ShapeText(b.shape));
  } else if ((IsEightBit(a.dtype) && IsReal(b.dtype)) ||
             (IsEightBit(b.dtype) && IsReal(a.dtype))) {
    c.problem = StrCat(
        "types differ: ", a.dtype, " vs ", b.dtype,
        " (8-bit values are quantization codes, not comparable with real "
        "values; convert the quantized model with --no-qdq-fusion to dump "
        "its operators' float outputs)");
  } else {
    c.metrics = ComputeMetrics(a.values, b.values);
    c.tolerance =
        CheckTolerance(a.values, b.values, options.atol, options.rtol);
    if (!c.tolerance.within) {
      Examine(a.values, b.values, a.shape, options, *detail_budget, c);
    }
  }
  return c;
}

}  // namespace acldump::tools::compare_internal
