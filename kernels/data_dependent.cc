// Operators whose output size depends on input values: NonZero Compress Unique
// NonMaxSuppression.
//
// Prepare needs those values: without them it returns NotKnownBeforeExecution,
// and the runtime prepares the node again while the model runs. Run computes
// the result again from the inputs it is given and fails, writing nothing,
// when its size is not the prepared output shape.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <numeric>
#include <optional>

#include "kernels/kernel_util.h"
#include "kernels/op_families.h"

namespace acldump {
namespace {

using Ints = std::vector<int64_t>;

int64_t Product(std::span<const int64_t> dims) {
  int64_t p = 1;
  for (int64_t d : dims) p *= d;
  return p;
}

// The values computed at run time no longer give the prepared shape: the
// runtime prepared for other values (writing would overrun the output).
absl::Status CheckPreparedShape(std::string_view op, std::string_view output,
                                const TensorView& view, const Shape& computed) {
  if (view.shape == computed) return absl::OkStatus();
  return absl::FailedPreconditionError(StrCat(
      op, ": output '", output, "' computed from the inputs has shape ",
      computed.ToString(), " but was prepared as ", view.shape.ToString(),
      " (prepare the node again with these input values)"));
}

// The views prepare sees: the known values, or an absent view.
std::vector<TensorView> ConstantViews(const OpContext& context) {
  std::vector<TensorView> views(context.inputs.size());
  for (size_t i = 0; i < views.size(); ++i) {
    if (const TensorView* value = context.constant(i)) views[i] = *value;
  }
  return views;
}

// ---------------------------------------------------------------------------------------------
// NonZero: int64 [rank, n], the coordinates of the n nonzero elements in
// row-major order. NaN is nonzero, -0.0 is zero. A scalar gives [1, n] with
// coordinate 0 as ONNX Runtime does (the spec leaves scalars open).

int64_t CountNonZero(const TensorView& x) {
  return VisitDType(x.dtype, [&]<typename T>() -> int64_t {
    using C = ComputeType<T>;
    const T* data = x.as<const T>();
    const int64_t n = x.NumElements();
    int64_t count = 0;
    for (int64_t i = 0; i < n; ++i) count += Load(data[i]) != C{0};
    return count;
  });
}

Shape NonZeroShape(const Shape& x, int64_t count) {
  return Shape{std::max<int64_t>(1, static_cast<int64_t>(x.rank())), count};
}

void WriteNonZero(const TensorView& x, int64_t count, int64_t* out) {
  VisitDType(x.dtype, [&]<typename T>() {
    using C = ComputeType<T>;
    const T* data = x.as<const T>();
    const Shape& shape = x.shape;
    const int64_t n = x.NumElements();
    int64_t column = 0;
    for (int64_t i = 0; i < n; ++i) {
      if (Load(data[i]) == C{0}) continue;
      int64_t rest = i;
      for (size_t axis = shape.rank(); axis-- > 0;) {
        out[axis * count + column] = rest % shape[axis];
        rest /= shape[axis];
      }
      if (shape.rank() == 0) out[column] = 0;
      ++column;
    }
  });
}

absl::StatusOr<PreparedKernel> PrepareNonZero(const OpContext& context) {
  const TensorInfo& x = context.inputs[0];
  RETURN_IF_ERROR(RequireDType(x, kAllDTypes, "input 'X'"));
  const TensorView* value = context.constant(0);
  if (value == nullptr) return NotKnownBeforeExecution("X");
  const Shape out_shape = NonZeroShape(x.shape, CountNonZero(*value));
  auto run = [](std::span<const TensorView> in, std::span<const TensorView> out,
                std::span<std::byte>) -> absl::Status {
    const int64_t count = CountNonZero(in[0]);
    RETURN_IF_ERROR(CheckPreparedShape("NonZero", "Y", out[0],
                                       NonZeroShape(in[0].shape, count)));
    WriteNonZero(in[0], count, out[0].as<int64_t>());
    return absl::OkStatus();
  };
  return Prepared({TensorInfo{DType::kInt64, out_shape}},
                  MakeKernel(std::move(run)));
}

// ---------------------------------------------------------------------------------------------
// Compress: the slices along `axis` (or the elements of the flattened input)
// whose `condition` entry is true. A shorter condition drops the rest; entries
// past the end are ignored, as ONNX Runtime does.

struct CompressPlan {
  std::optional<int64_t> axis;  // none: the input flattened
  int64_t outer = 1;            // slices before the axis
  int64_t length = 0;           // entries along the axis
  int64_t inner = 1;            // elements per slice
};

CompressPlan PlanCompress(const Shape& data, std::optional<int64_t> axis) {
  CompressPlan plan;
  plan.axis = axis;
  if (!axis) {
    plan.length = data.NumElements();
    return plan;
  }
  const std::span<const int64_t> dims(data.dims());
  plan.outer = Product(dims.first(*axis));
  plan.length = data[*axis];
  plan.inner = Product(dims.subspan(*axis + 1));
  return plan;
}

int64_t CountSelected(const CompressPlan& plan, const TensorView& condition) {
  const bool* keep = condition.as<const bool>();
  const int64_t valid = std::min(plan.length, condition.NumElements());
  return std::count(keep, keep + valid, true);
}

Shape CompressShape(const CompressPlan& plan, const Shape& data,
                    int64_t count) {
  if (!plan.axis) return Shape{count};
  Shape shape = data;
  shape[*plan.axis] = count;
  return shape;
}

absl::StatusOr<PreparedKernel> PrepareCompress(const OpContext& context) {
  const TensorInfo& data = context.inputs[0];
  const TensorInfo& condition = context.inputs[1];
  RETURN_IF_ERROR(RequireDType(data, kAllDTypes, "input 'input'"));
  static constexpr DType kBoolOnly[] = {DType::kBool};
  RETURN_IF_ERROR(RequireDType(condition, kBoolOnly, "input 'condition'"));
  if (condition.shape.rank() != 1) {
    return InvalidArgument("input 'condition' must be 1-D, got shape ",
                           condition.shape.ToString());
  }
  std::optional<int64_t> axis;
  if (context.attrs.Has("axis")) {
    ASSIGN_OR_RETURN(int64_t axis_attr, context.attrs.GetInt("axis", 0));
    ASSIGN_OR_RETURN(axis, NormalizeAxis(axis_attr, data.shape.rank(), "axis"));
  }
  const TensorView* value = context.constant(1);
  if (value == nullptr) return NotKnownBeforeExecution("condition");
  const CompressPlan plan = PlanCompress(data.shape, axis);
  const Shape out_shape =
      CompressShape(plan, data.shape, CountSelected(plan, *value));
  const size_t esize = DTypeSize(data.dtype);
  auto run = [plan, esize](std::span<const TensorView> in,
                           std::span<const TensorView> out,
                           std::span<std::byte>) -> absl::Status {
    const int64_t count = CountSelected(plan, in[1]);
    RETURN_IF_ERROR(CheckPreparedShape(
        "Compress", "output", out[0], CompressShape(plan, in[0].shape, count)));
    const bool* keep = in[1].as<const bool>();
    const int64_t valid = std::min(plan.length, in[1].NumElements());
    const size_t slice_bytes = static_cast<size_t>(plan.inner) * esize;
    const std::byte* src = in[0].as<const std::byte>();
    std::byte* dst = out[0].as<std::byte>();
    for (int64_t o = 0; o < plan.outer; ++o) {
      for (int64_t j = 0; j < valid; ++j) {
        if (!keep[j]) continue;
        std::memcpy(dst, src + (o * plan.length + j) * slice_bytes,
                    slice_bytes);
        dst += slice_bytes;
      }
    }
    return absl::OkStatus();
  };
  return Prepared({TensorInfo{data.dtype, out_shape}},
                  MakeKernel(std::move(run)));
}

// ---------------------------------------------------------------------------------------------
// Unique: the distinct elements (no axis: of the flattened input) or the
// distinct slices along `axis`, sorted ascending (slices lexicographically) or
// in order of first occurrence; with the first occurrence of each, each
// input's position in Y, and the counts. NaNs are equal to each other and sort
// after every number (numpy's equal_nan); -0.0 equals 0.0 and Y keeps the
// first occurrence's bits.

inline constexpr DType kUniqueTypes[] = {
    DType::kFloat32, DType::kFloat16, DType::kFloat64, DType::kInt8,
    DType::kInt16,   DType::kInt32,   DType::kInt64,   DType::kUInt8,
    DType::kUInt16,  DType::kUInt32,  DType::kUInt64,  DType::kBool};

struct UniqueLayout {
  int64_t outer = 1;   // before the axis
  int64_t length = 0;  // candidates: slices along the axis, or elements
  int64_t inner = 1;   // after the axis
};

UniqueLayout LayoutOf(const Shape& x, std::optional<int64_t> axis) {
  if (!axis) return UniqueLayout{1, x.NumElements(), 1};
  const std::span<const int64_t> dims(x.dims());
  return UniqueLayout{Product(dims.first(*axis)), x[*axis],
                      Product(dims.subspan(*axis + 1))};
}

struct UniqueResult {
  Ints first;    // per unique entry, in output order
  Ints counts;   // per unique entry
  Ints inverse;  // per candidate
};

// -1, 0, 1 as a orders before, with or after b.
template <typename C>
int CompareValues(C a, C b) {
  if constexpr (std::is_floating_point_v<C>) {
    const bool na = std::isnan(a), nb = std::isnan(b);
    if (na || nb) return na == nb ? 0 : (na ? 1 : -1);
  }
  return a < b ? -1 : (b < a ? 1 : 0);
}

template <typename T>
UniqueResult ComputeUnique(const T* x, const UniqueLayout& layout,
                           bool sorted) {
  const int64_t n = layout.length;
  // Slice a against slice b, in row-major order of their elements.
  auto compare = [&](int64_t a, int64_t b) {
    for (int64_t o = 0; o < layout.outer; ++o) {
      const T* pa = x + (o * n + a) * layout.inner;
      const T* pb = x + (o * n + b) * layout.inner;
      for (int64_t i = 0; i < layout.inner; ++i) {
        const int c = CompareValues(Load(pa[i]), Load(pb[i]));
        if (c != 0) return c;
      }
    }
    return 0;
  };
  Ints order(n);
  std::iota(order.begin(), order.end(), 0);
  // Stable: each group of equal entries starts with its first occurrence.
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t a, int64_t b) { return compare(a, b) < 0; });
  UniqueResult result;
  Ints group_of(n);  // by position in `order`
  for (int64_t p = 0; p < n; ++p) {
    if (p == 0 || compare(order[p - 1], order[p]) != 0) {
      result.first.push_back(order[p]);
      result.counts.push_back(0);
    }
    group_of[p] = static_cast<int64_t>(result.first.size()) - 1;
    ++result.counts.back();
  }
  const int64_t groups = static_cast<int64_t>(result.first.size());
  Ints position(groups);  // group -> output position
  std::iota(position.begin(), position.end(), 0);
  if (!sorted) {
    Ints by_first(groups);
    std::iota(by_first.begin(), by_first.end(), 0);
    std::sort(by_first.begin(), by_first.end(), [&](int64_t a, int64_t b) {
      return result.first[a] < result.first[b];
    });
    Ints first(groups), counts(groups);
    for (int64_t k = 0; k < groups; ++k) {
      position[by_first[k]] = k;
      first[k] = result.first[by_first[k]];
      counts[k] = result.counts[by_first[k]];
    }
    result.first = std::move(first);
    result.counts = std::move(counts);
  }
  result.inverse.resize(n);
  for (int64_t p = 0; p < n; ++p) {
    result.inverse[order[p]] = position[group_of[p]];
  }
  return result;
}

UniqueResult ComputeUniqueOf(const TensorView& x, const UniqueLayout& layout,
                             bool sorted) {
  return VisitDType(x.dtype, [&]<typename T>() {
    return ComputeUnique(x.as<const T>(), layout, sorted);
  });
}

std::vector<Shape> UniqueShapes(const Shape& x, std::optional<int64_t> axis,
                                const UniqueResult& result) {
  const int64_t count = static_cast<int64_t>(result.first.size());
  Shape y{count};
  if (axis) {
    y = x;
    y[*axis] = count;
  }
  return {y, Shape{count}, Shape{static_cast<int64_t>(result.inverse.size())},
          Shape{count}};
}

absl::StatusOr<PreparedKernel> PrepareUnique(const OpContext& context) {
  const TensorInfo& x = context.inputs[0];
  RETURN_IF_ERROR(RequireDType(x, kUniqueTypes, "input 'X'"));
  ASSIGN_OR_RETURN(bool sorted, context.attrs.GetFlag("sorted", true));
  std::optional<int64_t> axis;
  if (context.attrs.Has("axis")) {
    ASSIGN_OR_RETURN(int64_t axis_attr, context.attrs.GetInt("axis", 0));
    ASSIGN_OR_RETURN(axis, NormalizeAxis(axis_attr, x.shape.rank(), "axis"));
  }
  const TensorView* value = context.constant(0);
  if (value == nullptr) return NotKnownBeforeExecution("X");
  const UniqueLayout layout = LayoutOf(x.shape, axis);
  const std::vector<Shape> shapes =
      UniqueShapes(x.shape, axis, ComputeUniqueOf(*value, layout, sorted));
  std::vector<TensorInfo> outputs = {TensorInfo{x.dtype, shapes[0]}};
  for (size_t i = 1; i < context.num_outputs; ++i) {
    outputs.push_back(TensorInfo{DType::kInt64, shapes[i]});
  }
  const size_t esize = DTypeSize(x.dtype);
  auto run = [layout, axis, sorted, esize](
                 std::span<const TensorView> in,
                 std::span<const TensorView> out,
                 std::span<std::byte>) -> absl::Status {
    const UniqueResult result = ComputeUniqueOf(in[0], layout, sorted);
    const std::vector<Shape> computed = UniqueShapes(in[0].shape, axis, result);
    static constexpr const char* kNames[] = {"Y", "indices", "inverse_indices",
                                             "counts"};
    for (size_t i = 0; i < out.size(); ++i) {
      RETURN_IF_ERROR(
          CheckPreparedShape("Unique", kNames[i], out[i], computed[i]));
    }
    const int64_t count = static_cast<int64_t>(result.first.size());
    const size_t slice_bytes = static_cast<size_t>(layout.inner) * esize;
    const std::byte* src = in[0].as<const std::byte>();
    std::byte* dst = out[0].as<std::byte>();
    for (int64_t o = 0; o < layout.outer; ++o) {
      for (int64_t k = 0; k < count; ++k) {
        std::memcpy(dst + (o * count + k) * slice_bytes,
                    src + (o * layout.length + result.first[k]) * slice_bytes,
                    slice_bytes);
      }
    }
    const Ints* columns[] = {&result.first, &result.inverse, &result.counts};
    for (size_t i = 1; i < out.size(); ++i) {
      std::copy(columns[i - 1]->begin(), columns[i - 1]->end(),
                out[i].as<int64_t>());
    }
    return absl::OkStatus();
  };
  return Prepared(std::move(outputs), MakeKernel(std::move(run)));
}

// ---------------------------------------------------------------------------------------------
// NonMaxSuppression: per batch, per class, the boxes by descending score (ties:
// lower index first) that overlap no box already kept by IoU above the
// threshold, at most max_output_boxes_per_class of them. As ONNX Runtime: a
// score must exceed score_threshold (when given); no limit input, or a limit of
// 0 or less, selects nothing; IoU is computed in float with either corner
// first. NaN scores are never selected.

constexpr const char* kNmsInputNames[] = {"boxes", "scores",
                                          "max_output_boxes_per_class",
                                          "iou_threshold", "score_threshold"};

struct NmsParams {
  int64_t batches = 0;
  int64_t classes = 0;
  int64_t boxes = 0;
  bool center_point_box = false;
  int64_t max_per_class = 0;
  float iou_threshold = 0;
  std::optional<float> score_threshold;
};

absl::Status CheckNmsScalar(const TensorInfo& info, size_t index, DType dtype) {
  const std::string what = StrCat("input '", kNmsInputNames[index], "'");
  const DType allowed[] = {dtype};
  RETURN_IF_ERROR(RequireDType(info, allowed, what));
  if (info.shape.rank() > 1 || info.NumElements() != 1) {
    return InvalidArgument(what, " must hold one value, got shape ",
                           info.shape.ToString());
  }
  return absl::OkStatus();
}

// Shapes and types; the values are read by ReadNmsValues.
absl::StatusOr<NmsParams> CheckNmsInputs(const OpContext& context) {
  const TensorInfo& boxes = context.inputs[0];
  const TensorInfo& scores = context.inputs[1];
  static constexpr DType kFloat32Only[] = {DType::kFloat32};
  RETURN_IF_ERROR(RequireDType(boxes, kFloat32Only, "input 'boxes'"));
  RETURN_IF_ERROR(RequireDType(scores, kFloat32Only, "input 'scores'"));
  if (boxes.shape.rank() != 3 || boxes.shape[2] != 4) {
    return InvalidArgument(
        "input 'boxes' must be [num_batches, num_boxes, 4], got shape ",
        boxes.shape.ToString());
  }
  if (scores.shape.rank() != 3) {
    return InvalidArgument(
        "input 'scores' must be [num_batches, num_classes, num_boxes], got "
        "shape ",
        scores.shape.ToString());
  }
  if (boxes.shape[0] != scores.shape[0] || boxes.shape[1] != scores.shape[2]) {
    return InvalidArgument("'boxes' ", boxes.shape.ToString(), " and 'scores' ",
                           scores.shape.ToString(),
                           " disagree on the number of batches or boxes");
  }
  if (context.has_input(2)) {
    RETURN_IF_ERROR(CheckNmsScalar(context.inputs[2], 2, DType::kInt64));
  }
  for (size_t i = 3; i < 5; ++i) {
    if (context.has_input(i)) {
      RETURN_IF_ERROR(CheckNmsScalar(context.inputs[i], i, DType::kFloat32));
    }
  }
  ASSIGN_OR_RETURN(int64_t center, context.attrs.GetInt("center_point_box", 0));
  if (center != 0 && center != 1) {
    return InvalidArgument("center_point_box must be 0 or 1, got ", center);
  }
  NmsParams params;
  params.batches = boxes.shape[0];
  params.classes = scores.shape[1];
  params.boxes = boxes.shape[1];
  params.center_point_box = center == 1;
  return params;
}

absl::StatusOr<NmsParams> ReadNmsValues(NmsParams params,
                                        std::span<const TensorView> in) {
  auto present = [&](size_t i) { return i < in.size() && in[i].present(); };
  params.max_per_class =
      present(2) ? std::max<int64_t>(0, *in[2].as<const int64_t>()) : 0;
  if (present(3)) {
    params.iou_threshold = *in[3].as<const float>();
    if (!(params.iou_threshold >= 0 && params.iou_threshold <= 1)) {
      return InvalidArgument("iou_threshold ", params.iou_threshold,
                             " is outside [0, 1]");
    }
  }
  if (present(4)) params.score_threshold = *in[4].as<const float>();
  return params;
}

// A box's corners in order and its area, computed once per box rather than
// once per pair (the same float operations, so the same bits).
struct Corners {
  float x0, x1, y0, y1, area;
};

std::vector<Corners> CornersOf(const float* boxes, int64_t count,
                               bool center_point_box) {
  std::vector<Corners> corners(static_cast<size_t>(count));
  auto order = [](float p, float q, float& lo, float& hi) {
    if (p >= q) {
      lo = q, hi = p;
    } else {
      lo = p, hi = q;
    }
  };
  for (int64_t i = 0; i < count; ++i) {
    const float* a = boxes + 4 * i;
    Corners& c = corners[i];
    if (center_point_box) {  // [x_center, y_center, width, height]
      c.x0 = a[0] - a[2] / 2, c.x1 = a[0] + a[2] / 2;
      c.y0 = a[1] - a[3] / 2, c.y1 = a[1] + a[3] / 2;
    } else {  // [y1, x1, y2, x2], either corner first
      order(a[1], a[3], c.x0, c.x1);
      order(a[0], a[2], c.y0, c.y1);
    }
    c.area = (c.x1 - c.x0) * (c.y1 - c.y0);
  }
  return corners;
}

// Whether IoU(box a, box b) exceeds the threshold, with ONNX Runtime's float
// arithmetic and early exits (so results agree to the last bit).
bool Overlaps(const Corners& a, const Corners& b, float threshold) {
  const float ix0 = std::max(a.x0, b.x0), ix1 = std::min(a.x1, b.x1);
  if (ix1 <= ix0) return false;
  const float iy0 = std::max(a.y0, b.y0), iy1 = std::min(a.y1, b.y1);
  if (iy1 <= iy0) return false;
  const float intersection = (ix1 - ix0) * (iy1 - iy0);
  if (intersection <= 0.0f) return false;
  const float union_area = a.area + b.area - intersection;
  if (a.area <= 0.0f || b.area <= 0.0f || union_area <= 0.0f) return false;
  return intersection / union_area > threshold;
}

using Selection = std::vector<std::array<int64_t, 3>>;

Selection SelectBoxes(const NmsParams& p, const float* boxes,
                      const float* scores) {
  Selection selected;
  if (p.max_per_class == 0) return selected;
  Ints candidates, kept;
  for (int64_t b = 0; b < p.batches; ++b) {
    const std::vector<Corners> corners =
        CornersOf(boxes + b * p.boxes * 4, p.boxes, p.center_point_box);
    for (int64_t c = 0; c < p.classes; ++c) {
      const float* s = scores + (b * p.classes + c) * p.boxes;
      candidates.clear();
      for (int64_t i = 0; i < p.boxes; ++i) {
        if (std::isnan(s[i])) continue;
        if (p.score_threshold && !(s[i] > *p.score_threshold)) continue;
        candidates.push_back(i);
      }
      std::stable_sort(candidates.begin(), candidates.end(),
                       [s](int64_t i, int64_t j) { return s[i] > s[j]; });
      kept.clear();
      for (int64_t i : candidates) {
        if (static_cast<int64_t>(kept.size()) >= p.max_per_class) break;
        const Corners& box = corners[i];
        const bool suppressed =
            std::any_of(kept.begin(), kept.end(), [&](int64_t k) {
              return Overlaps(corners[k], box, p.iou_threshold);
            });
        if (suppressed) continue;
        kept.push_back(i);
        selected.push_back({b, c, i});
      }
    }
  }
  return selected;
}

absl::StatusOr<PreparedKernel> PrepareNonMaxSuppression(
    const OpContext& context) {
  ASSIGN_OR_RETURN(const NmsParams shapes, CheckNmsInputs(context));
  for (size_t i = 0; i < context.inputs.size(); ++i) {
    if (context.has_input(i) && context.constant(i) == nullptr) {
      return NotKnownBeforeExecution(kNmsInputNames[i]);
    }
  }
  const std::vector<TensorView> values = ConstantViews(context);
  ASSIGN_OR_RETURN(const NmsParams params, ReadNmsValues(shapes, values));
  auto prepared = std::make_shared<const Selection>(SelectBoxes(
      params, values[0].as<const float>(), values[1].as<const float>()));
  const int64_t count = static_cast<int64_t>(prepared->size());
  // The values a kernel is prepared with are its inputs' values: run on the
  // same memory, it writes the selection prepare made instead of making it
  // again (the runtime prepares such a node right before running it).
  std::vector<const void*> prepared_on;
  for (const TensorView& view : values) prepared_on.push_back(view.data);
  auto run = [shapes, prepared, prepared_on](
                 std::span<const TensorView> in,
                 std::span<const TensorView> out,
                 std::span<std::byte>) -> absl::Status {
    bool same = in.size() == prepared_on.size();
    for (size_t i = 0; same && i < in.size(); ++i) {
      same = in[i].data == prepared_on[i];
    }
    Selection computed;
    if (!same) {
      ASSIGN_OR_RETURN(const NmsParams params, ReadNmsValues(shapes, in));
      computed =
          SelectBoxes(params, in[0].as<const float>(), in[1].as<const float>());
    }
    const Selection& selected = same ? *prepared : computed;
    RETURN_IF_ERROR(
        CheckPreparedShape("NonMaxSuppression", "selected_indices", out[0],
                           Shape{static_cast<int64_t>(selected.size()), 3}));
    int64_t* dst = out[0].as<int64_t>();
    for (const auto& triple : selected)
      dst = std::copy_n(triple.data(), 3, dst);
    return absl::OkStatus();
  };
  return Prepared({TensorInfo{DType::kInt64, Shape{count, 3}}},
                  MakeKernel(std::move(run)));
}

}  // namespace

absl::Status RegisterDataDependentOps(OpRegistry& registry) {
  return registry.RegisterAll({
      {"NonZero", 1, 1, 1, 1, PrepareNonZero},
      {"Compress", 2, 2, 1, 1, PrepareCompress},
      {"Unique", 1, 1, 1, 4, PrepareUnique},
      {"NonMaxSuppression", 2, 5, 1, 1, PrepareNonMaxSuppression},
  });
}

}  // namespace acldump
