// Gears of a dynamic model, as the SDK's converter makes them: a model whose
// inputs have dynamic dimensions (-1) is compiled once per batch size
// (--dynamic-batch-size "1,2,4,8": -1 only in dimension 0) or per image size
// (--dynamic-image-size "224,224;320,320": 4-D inputs, -1 in height and width)
// or per set of dims (--dynamic-dims "20,1;40,2": any -1s of any inputs, each
// gear one value per -1, taken by the inputs in order).
// These rules are shared by the converter and the model file reader.
#ifndef ACLDUMP_RUNTIME_GEARS_H_
#define ACLDUMP_RUNTIME_GEARS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/graph.h"

namespace acldump {

inline constexpr size_t kMinGears = 2;
inline constexpr size_t kMaxGears = 100;
// A dims gear's values (the -1s across all inputs) at most.
inline constexpr size_t kMaxDimsGearValues = 128;

using GearValues = std::vector<std::vector<int64_t>>;

// "batch", "image size", "dims"
std::string_view GearKindName(GearKind kind);
// The converter option that builds `kind` ("--dynamic-batch-size"...).
std::string_view GearOptionName(GearKind kind);
// The number of values per gear: 1 (batch), 2 (height, width), 0 for dims
// (as many as the model's -1s: see CountDynamicDims).
size_t GearArity(GearKind kind);

// "1,2,4,8" -> {{1},{2},{4},{8}}; "224,224;320,320" -> {{224,224},{320,320}}.
// Both are then checked with CheckGearValues.
absl::StatusOr<GearValues> ParseDynamicBatchSizes(std::string_view text);
absl::StatusOr<GearValues> ParseDynamicImageSizes(std::string_view text);
// "20,1;40,2" -> {{20,1},{40,2}}.
absl::StatusOr<GearValues> ParseDynamicDims(std::string_view text);

// kMinGears..kMaxGears gears, each of GearArity values (dims: all of one
// count, 1..kMaxDimsGearValues), all positive, none repeated.
absl::Status CheckGearValues(GearKind kind, const GearValues& gears);

// Whether input `name` with `dims` (-1: dynamic) is a dynamic input, and an
// error when its -1s are where `kind` does not allow them.
absl::StatusOr<bool> CheckDynamicDims(GearKind kind, std::string_view name,
                                      const std::vector<int64_t>& dims);

// `dims` with its -1s replaced by the gear's values: every -1 by the batch,
// or the two -1s by height then width.
std::vector<int64_t> DimsForGear(const std::vector<int64_t>& dims,
                                 const std::vector<int64_t>& gear);

// The -1s across `inputs` (a dims gear has one value for each).
size_t CountDynamicDims(const std::vector<NamedTensorInfo>& inputs);

// Every input's dims at `gear`: batch and image size gears fill each input's
// -1s alike; a dims gear's values fill the -1s of all inputs in order.
std::vector<std::vector<int64_t>> InputDimsForGear(
    GearKind kind, const std::vector<NamedTensorInfo>& inputs,
    const std::vector<int64_t>& gear);

// A dims model's gears must have one value per -1 of its inputs.
absl::Status CheckDimsGearArity(const std::vector<NamedTensorInfo>& inputs,
                                const GearValues& gears);

// Each value's shape every gear fits in, from the gears' shapes of it
// (`per_gear[g][i]`: value i in gear g): the largest gear's for batch and image
// size gears; for dims gears, whose values need not grow together, each
// dimension's largest across the gears.
std::vector<NamedTensorInfo> GearsEnvelope(
    GearKind kind, const std::vector<std::vector<NamedTensorInfo>>& per_gear,
    size_t largest);

// The gear with the largest product of values (the first of equals): its
// shapes are what a batch or image size model reports for sizes and outputs.
size_t LargestGear(const GearValues& gears);

}  // namespace acldump

#endif  // ACLDUMP_RUNTIME_GEARS_H_
