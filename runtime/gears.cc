#include "runtime/gears.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <set>

#include "base/status_macros.h"
#include "base/strings.h"
#include "base/text.h"

namespace acldump {
namespace {

absl::StatusOr<int64_t> ParseGearValue(std::string_view option,
                                       std::string_view text) {
  const std::string_view value = TrimWhitespace(text);
  int64_t parsed = 0;
  const auto [end, error] =
      std::from_chars(value.data(), value.data() + value.size(), parsed);
  if (value.empty() || error != std::errc() ||
      end != value.data() + value.size()) {
    return absl::InvalidArgumentError(
        StrCat(option, ": '", value, "' is not an integer"));
  }
  return parsed;
}

std::string Render(const std::vector<int64_t>& dims) {
  std::vector<std::string> parts;
  for (int64_t dim : dims) parts.push_back(dim < 0 ? "-1" : StrCat(dim));
  return StrCat("[", StrJoin(parts, ","), "]");
}

// Gears separated by `gear_separator`, each values separated by ','; one
// trailing separator is accepted, as by the SDK's converter.
absl::StatusOr<GearValues> ParseGearList(std::string_view option, GearKind kind,
                                         std::string_view text,
                                         char gear_separator) {
  std::string_view list = TrimWhitespace(text);
  if (!list.empty() && list.back() == gear_separator) list.remove_suffix(1);
  GearValues gears;
  for (std::string_view group : SplitOn(list, gear_separator)) {
    std::vector<int64_t> values;
    for (std::string_view part : SplitOn(group, ',')) {
      ASSIGN_OR_RETURN(int64_t value, ParseGearValue(option, part));
      values.push_back(value);
    }
    gears.push_back(std::move(values));
  }
  RETURN_IF_ERROR(Annotate(CheckGearValues(kind, gears),
                           StrCat(option, " \"", text, "\"")));
  return gears;
}

}  // namespace

std::string_view GearKindName(GearKind kind) {
  switch (kind) {
    case GearKind::kBatch:
      return "batch";
    case GearKind::kImageSize:
      return "image size";
    case GearKind::kDims:
      return "dims";
    case GearKind::kNone:
      break;
  }
  return "none";
}

std::string_view GearOptionName(GearKind kind) {
  switch (kind) {
    case GearKind::kBatch:
      return "--dynamic-batch-size";
    case GearKind::kImageSize:
      return "--dynamic-image-size";
    case GearKind::kDims:
      return "--dynamic-dims";
    case GearKind::kNone:
      break;
  }
  return "";
}

size_t GearArity(GearKind kind) {
  switch (kind) {
    case GearKind::kImageSize:
      return 2;
    case GearKind::kDims:
      return 0;
    default:
      return 1;
  }
}

absl::StatusOr<GearValues> ParseDynamicBatchSizes(std::string_view text) {
  // Gears are single values separated by ','.
  return ParseGearList("--dynamic-batch-size", GearKind::kBatch, text, ',');
}

absl::StatusOr<GearValues> ParseDynamicImageSizes(std::string_view text) {
  return ParseGearList("--dynamic-image-size", GearKind::kImageSize, text, ';');
}

absl::StatusOr<GearValues> ParseDynamicDims(std::string_view text) {
  return ParseGearList("--dynamic-dims", GearKind::kDims, text, ';');
}

absl::Status CheckGearValues(GearKind kind, const GearValues& gears) {
  if (gears.size() < kMinGears || gears.size() > kMaxGears) {
    return absl::InvalidArgumentError(
        StrCat(gears.size(), gears.size() == 1 ? " gear" : " gears",
               " given; give ", kMinGears, " to ", kMaxGears));
  }
  const size_t arity =
      kind == GearKind::kDims ? gears[0].size() : GearArity(kind);
  if (kind == GearKind::kDims && arity > kMaxDimsGearValues) {
    return absl::InvalidArgumentError(
        StrCat("gear 0 has ", arity, " values; a dims gear has at most ",
               kMaxDimsGearValues));
  }
  std::set<std::vector<int64_t>> seen;
  for (size_t i = 0; i < gears.size(); ++i) {
    const std::vector<int64_t>& gear = gears[i];
    if (gear.size() != arity) {
      return absl::InvalidArgumentError(
          StrCat("gear ", i, " has ", gear.size(), " values; each ",
                 GearKindName(kind), " gear has ", arity,
                 kind == GearKind::kImageSize
                     ? " (height,width; gears separated by ';')"
                 : kind == GearKind::kDims
                     ? " (as gear 0: one value per -1 of the inputs; gears "
                       "separated by ';')"
                     : ""));
    }
    for (int64_t value : gear) {
      if (value <= 0) {
        return absl::InvalidArgumentError(
            StrCat("gear ", i, " ", Render(gear), ": values must be positive"));
      }
    }
    if (!seen.insert(gear).second) {
      return absl::InvalidArgumentError(
          StrCat("gear ", Render(gear), " is given twice"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<bool> CheckDynamicDims(GearKind kind, std::string_view name,
                                      const std::vector<int64_t>& dims) {
  std::vector<size_t> dynamic;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0) dynamic.push_back(i);
  }
  if (dynamic.empty()) return false;
  const std::string where = StrCat("input '", name, "' ", Render(dims));
  if (kind == GearKind::kBatch) {
    if (dynamic.size() != 1 || dynamic[0] != 0) {
      return absl::InvalidArgumentError(
          StrCat(where,
                 ": with dynamic batch sizes only dimension 0 (the "
                 "batch) may be -1; give the others with --input-shape"));
    }
    return true;
  }
  if (kind == GearKind::kImageSize) {
    const bool nchw = dynamic == std::vector<size_t>{2, 3};
    const bool nhwc = dynamic == std::vector<size_t>{1, 2};
    if (dims.size() != 4 || !(nchw || nhwc)) {
      return absl::InvalidArgumentError(
          StrCat(where,
                 ": with dynamic image sizes an input is 4-D with -1 in "
                 "height and width only (NCHW [n,c,-1,-1] or NHWC "
                 "[n,-1,-1,c]); give the others with --input-shape"));
    }
    return true;
  }
  if (kind == GearKind::kDims) return true;
  return absl::InvalidArgumentError(
      StrCat(where,
             ": -1 marks a dynamic dimension, which needs "
             "--dynamic-batch-size, --dynamic-image-size or --dynamic-dims"));
}

std::vector<int64_t> DimsForGear(const std::vector<int64_t>& dims,
                                 const std::vector<int64_t>& gear) {
  std::vector<int64_t> out = dims;
  size_t next = 0;
  for (int64_t& dim : out) {
    if (dim >= 0) continue;
    dim = gear[std::min(next, gear.size() - 1)];
    ++next;
  }
  return out;
}

size_t CountDynamicDims(const std::vector<NamedTensorInfo>& inputs) {
  size_t count = 0;
  for (const NamedTensorInfo& in : inputs) {
    for (int64_t dim : in.info.shape.dims()) count += dim < 0;
  }
  return count;
}

std::vector<std::vector<int64_t>> InputDimsForGear(
    GearKind kind, const std::vector<NamedTensorInfo>& inputs,
    const std::vector<int64_t>& gear) {
  std::vector<std::vector<int64_t>> result;
  size_t next = 0;
  for (const NamedTensorInfo& in : inputs) {
    if (kind != GearKind::kDims) {
      result.push_back(DimsForGear(in.info.shape.dims(), gear));
      continue;
    }
    std::vector<int64_t> dims = in.info.shape.dims();
    for (int64_t& dim : dims) {
      if (dim < 0 && next < gear.size()) dim = gear[next++];
    }
    result.push_back(std::move(dims));
  }
  return result;
}

absl::Status CheckDimsGearArity(const std::vector<NamedTensorInfo>& inputs,
                                const GearValues& gears) {
  size_t rank = 0;
  for (const NamedTensorInfo& in : inputs) rank += in.info.shape.rank();
  if (rank > kMaxDimsGearValues) {
    return absl::InvalidArgumentError(
        StrCat("the inputs have ", rank,
               " dimensions together; a dims model's "
               "gears list them all, at most ",
               kMaxDimsGearValues));
  }
  const size_t needed = CountDynamicDims(inputs);
  if (!gears.empty() && gears[0].size() != needed) {
    std::vector<std::string> shapes;
    for (const NamedTensorInfo& in : inputs)
      shapes.push_back(StrCat(in.name, ":", Render(in.info.shape.dims())));
    return absl::InvalidArgumentError(StrCat(
        "each dims gear has ", gears[0].size(), " values, but the inputs (",
        StrJoin(shapes, " "), ") have ", needed,
        " dynamic dimensions (-1); give one value per -1, in "
        "input order"));
  }
  return absl::OkStatus();
}

std::vector<NamedTensorInfo> GearsEnvelope(
    GearKind kind, const std::vector<std::vector<NamedTensorInfo>>& per_gear,
    size_t largest) {
  std::vector<NamedTensorInfo> envelope = per_gear.at(largest);
  if (kind != GearKind::kDims) return envelope;
  for (const std::vector<NamedTensorInfo>& gear : per_gear) {
    for (size_t i = 0; i < envelope.size() && i < gear.size(); ++i) {
      const std::vector<int64_t>& dims = gear[i].info.shape.dims();
      std::vector<int64_t> widest = envelope[i].info.shape.dims();
      if (dims.size() != widest.size()) continue;  // checked by the caller
      for (size_t d = 0; d < dims.size(); ++d)
        widest[d] = std::max(widest[d], dims[d]);
      envelope[i].info.shape = Shape(std::move(widest));
    }
  }
  return envelope;
}

size_t LargestGear(const GearValues& gears) {
  size_t best = 0;
  int64_t best_product = -1;
  for (size_t i = 0; i < gears.size(); ++i) {
    int64_t product = 1;
    for (int64_t value : gears[i]) {
      if (__builtin_mul_overflow(product, value, &product)) product = INT64_MAX;
    }
    if (product > best_product) {
      best = i;
      best_product = product;
    }
  }
  return best;
}

}  // namespace acldump
