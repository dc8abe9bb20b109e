// Resize (opset 10, 11, 13: nearest / linear / cubic over any axes, every
// coordinate transformation mode and nearest mode) and Upsample (opset 7, 9).
//
// Each output coordinate of each axis maps to a few input taps with weights,
// computed once at prepare time exactly as the ONNX reference does (edge
// padding, the window of the n nearest inputs, exclude_outside
// renormalisation); the output is the separable product over the axes. Taps of
// weight 0 are never read, so a NaN or an infinity in the input reaches only
// the outputs it contributes to.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "kernels/cubic.h"
#include "kernels/kernel_util.h"
#include "kernels/op_families.h"
#include "kernels/threading.h"

namespace acldump {
namespace {

enum class Mode { kNearest, kLinear, kCubic };
enum class Transform {
  kHalfPixel,
  kPytorchHalfPixel,
  kAlignCorners,
  kAsymmetric,
  kTfHalfPixelForNn,
  kTfCropAndResize
};
enum class NearestMode { kRoundPreferFloor, kRoundPreferCeil, kFloor, kCeil };

struct ResizeParams {
  Mode mode = Mode::kNearest;
  Transform transform = Transform::kHalfPixel;
  NearestMode nearest = NearestMode::kRoundPreferFloor;
  double cubic_a = -0.75;
  bool exclude_outside = false;
  double extrapolation = 0.0;
};

// The taps of one axis: for output coordinate o, taps [begin[o], begin[o+1])
// of index/weight; outside[o] when tf_crop_and_resize maps it outside the
// input (the output is the extrapolation value).
struct AxisTaps {
  std::vector<int64_t> begin;
  std::vector<int64_t> index;
  std::vector<double> weight;
  std::vector<bool> outside;
  bool identity = true;  // one tap of weight 1 at index o everywhere
  bool single = true;    // one tap of weight 1 everywhere (a gather)
};

// x_original for output coordinate `x` of an axis of `in` elements resized by
// `scale` (output length `scale * in`, as the reference computes it).
double Original(const ResizeParams& p, int64_t x, int64_t in, double scale,
                double roi_start, double roi_end) {
  const double out_width = scale * static_cast<double>(in);
  const double xd = static_cast<double>(x);
  switch (p.transform) {
    case Transform::kHalfPixel:
      return (xd + 0.5) / scale - 0.5;
    case Transform::kPytorchHalfPixel:
      return out_width == 1 ? -0.5 : (xd + 0.5) / scale - 0.5;
    case Transform::kAlignCorners:
      return out_width == 1
                 ? 0.0
                 : xd * static_cast<double>(in - 1) / (out_width - 1);
    case Transform::kAsymmetric:
      return xd / scale;
    case Transform::kTfHalfPixelForNn:
      return (xd + 0.5) / scale;
    case Transform::kTfCropAndResize: {
      const double span = (roi_end - roi_start) * static_cast<double>(in - 1);
      const double base = roi_start * static_cast<double>(in - 1);
      return out_width == 1 ? span / 2 + base
                            : xd * span / (out_width - 1) + base;
    }
  }
  return xd;
}

AxisTaps MakeAxisTaps(const ResizeParams& p, int64_t in, int64_t out,
                      double scale, double roi_start, double roi_end) {
  AxisTaps taps;
  auto add = [&](int64_t index, double weight) {
    taps.index.push_back(std::clamp<int64_t>(index, 0, in - 1));
    taps.weight.push_back(weight);
  };
  for (int64_t o = 0; o < out; ++o) {
    taps.begin.push_back(static_cast<int64_t>(taps.index.size()));
    const double x = Original(p, o, in, scale, roi_start, roi_end);
    const bool outside =
        p.transform == Transform::kTfCropAndResize &&
        (x < 0 || x > static_cast<double>(in - 1) || std::isnan(x));
    taps.outside.push_back(outside);
    if (outside || in == 0) {
      taps.identity = taps.single = false;
      continue;
    }
    const bool integral = x == std::floor(x);
    // The reference prefers the inputs left of x: ratio in (0, 1].
    const int64_t left = static_cast<int64_t>(std::ceil(x)) - 1;
    const double ratio = x - static_cast<double>(left);
    if (p.mode == Mode::kNearest) {
      bool right = true;
      if (!integral) {
        switch (p.nearest) {
          case NearestMode::kRoundPreferFloor:
            right = ratio > 0.5;
            break;
          case NearestMode::kRoundPreferCeil:
            right = ratio >= 0.5;
            break;
          case NearestMode::kFloor:
            right = false;
            break;
          case NearestMode::kCeil:
            right = true;
            break;
        }
      }
      add(right ? left + 1 : left, 1.0);
      continue;
    }
    const int n = p.mode == Mode::kLinear ? 2 : 4;
    double coeffs[4];
    if (p.mode == Mode::kLinear) {
      coeffs[0] = 1 - ratio;
      coeffs[1] = ratio;
    } else {
      CubicCoefficients(ratio, p.cubic_a, coeffs);
    }
    // The n nearest inputs of the edge-padded axis (padding n/2): a window
    // that starts at left - (n/2 - 1), moved inside the padded axis.
    const int64_t pad = n / 2;
    const int64_t start =
        std::clamp<int64_t>(left - (n / 2 - 1) + pad, 0, in + 2 * pad - n) -
        pad;
    if (p.exclude_outside) {
      double sum = 0;
      for (int i = 0; i < n; ++i) {
        const int64_t index = start + i;
        if (index < 0 || index >= in) coeffs[i] = 0;
        sum += coeffs[i];
      }
      for (int i = 0; i < n; ++i) coeffs[i] /= sum;
    }
    for (int i = 0; i < n; ++i) {
      if (coeffs[i] != 0) add(start + i, coeffs[i]);
    }
  }
  taps.begin.push_back(static_cast<int64_t>(taps.index.size()));
  for (int64_t o = 0; o < out && taps.single; ++o) {
    const int64_t b = taps.begin[o];
    taps.single = taps.begin[o + 1] - b == 1 && taps.weight[b] == 1.0;
    taps.identity = taps.identity && taps.single && taps.index[b] == o;
  }
  taps.identity = taps.identity && taps.single && in == out;
  return taps;
}

struct ResizePlan {
  std::vector<int64_t> in_dims, out_dims, in_strides;
  std::vector<AxisTaps> axes;
  ResizeParams params;
  bool gather = true;  // every axis single-tap
};

template <typename T>
void RunGather(const ResizePlan& plan, const T* x, T* y) {
  const size_t rank = plan.out_dims.size();
  if (rank == 0) {
    y[0] = x[0];
    return;
  }
  for (int64_t d : plan.out_dims) {
    if (d == 0) return;
  }
  const AxisTaps& last = plan.axes[rank - 1];
  const int64_t row = plan.out_dims[rank - 1];
  std::vector<int64_t> counter(rank, 0);
  std::vector<int64_t> partial(rank, 0);  // offset of axes < k
  auto refresh = [&](size_t from) {
    for (size_t k = from; k + 1 < rank; ++k) {
      const AxisTaps& a = plan.axes[k];
      partial[k + 1] =
          partial[k] + a.index[a.begin[counter[k]]] * plan.in_strides[k];
    }
  };
  refresh(0);
  while (true) {
    const T* src = x + partial[rank - 1];
    for (int64_t j = 0; j < row; ++j) y[j] = src[last.index[last.begin[j]]];
    y += row;
    size_t axis = rank - 1;
    while (axis-- > 0) {
      if (++counter[axis] < plan.out_dims[axis]) break;
      counter[axis] = 0;
    }
    if (axis == static_cast<size_t>(-1)) return;
    refresh(axis);
  }
}

// Weighted taps: for each output row (all axes but the last), the product of
// the outer axes' taps, each weighting a weighted sum along the last axis.
template <typename T>
void RunInterpolate(const ResizePlan& plan, const T* x, T* y, double* acc) {
  const size_t rank = plan.out_dims.size();
  for (int64_t d : plan.out_dims) {
    if (d == 0) return;
  }
  const AxisTaps& last = plan.axes[rank - 1];
  const int64_t row = plan.out_dims[rank - 1];
  const T extrapolation = Store<T>(plan.params.extrapolation);
  std::vector<int64_t> counter(rank, 0);
  std::vector<std::pair<int64_t, double>> combos, next;
  while (true) {
    combos.assign(1, {0, 1.0});
    bool outside = false;
    for (size_t k = 0; k + 1 < rank; ++k) {
      const AxisTaps& a = plan.axes[k];
      const int64_t o = counter[k];
      outside = outside || a.outside[o];
      next.clear();
      for (const auto& [offset, weight] : combos) {
        for (int64_t t = a.begin[o]; t < a.begin[o + 1]; ++t) {
          next.emplace_back(offset + a.index[t] * plan.in_strides[k],
                            weight * a.weight[t]);
        }
      }
      combos.swap(next);
    }
    if (outside) {
      std::fill(y, y + row, extrapolation);
    } else {
      std::fill(acc, acc + row, 0.0);
      for (const auto& [offset, weight] : combos) {
        const T* src = x + offset;
        for (int64_t j = 0; j < row; ++j) {
          double sum = 0;
          for (int64_t t = last.begin[j]; t < last.begin[j + 1]; ++t) {
            sum +=
                last.weight[t] * static_cast<double>(Load(src[last.index[t]]));
          }
          acc[j] += weight * sum;
        }
      }
      for (int64_t j = 0; j < row; ++j) {
        y[j] = last.outside[j] ? extrapolation : Store<T>(acc[j]);
      }
    }
    y += row;
    size_t axis = rank - 1;
    while (axis-- > 0) {
      if (++counter[axis] < plan.out_dims[axis]) break;
      counter[axis] = 0;
    }
    if (axis == static_cast<size_t>(-1)) return;
  }
}

// Float32 with only the last two axes resized (images, segmentation heads
// upsampling): RunInterpolate's sums in its order, so the same bits, but each
// input row interpolated along the last axis once per plane (an upsampled row
// is shared by the output rows reading it) and the planes on the intra-op
// threads.
bool PlanarFloat32(const ResizePlan& plan, DType dtype) {
  const size_t rank = plan.out_dims.size();
  if (dtype != DType::kFloat32 || rank < 2 || plan.gather) return false;
  for (size_t k = 0; k + 2 < rank; ++k) {
    if (!plan.axes[k].identity) return false;
  }
  for (size_t k = rank - 2; k < rank; ++k) {
    const std::vector<bool>& outside = plan.axes[k].outside;
    if (std::find(outside.begin(), outside.end(), true) != outside.end()) {
      return false;
    }
  }
  return true;
}

void RunPlanarFloat32(const ResizePlan& plan, const float* x, float* y) {
  const size_t rank = plan.out_dims.size();
  const int64_t in_h = plan.in_dims[rank - 2], in_w = plan.in_dims[rank - 1];
  const int64_t out_h = plan.out_dims[rank - 2];
  const int64_t out_w = plan.out_dims[rank - 1];
  int64_t planes = 1;
  for (size_t k = 0; k + 2 < rank; ++k) planes *= plan.out_dims[k];
  if (planes == 0 || out_h == 0 || out_w == 0) return;
  const AxisTaps& rows = plan.axes[rank - 2];
  const AxisTaps& cols = plan.axes[rank - 1];
  const size_t grain = static_cast<size_t>(std::max<int64_t>(
      1, static_cast<int64_t>(kElementwiseGrain) / (out_h * out_w)));
  // An input row interpolated along the last axis into `row`.
  const auto interpolate = [&](const float* src, double* row) {
    for (int64_t j = 0; j < out_w; ++j) {
      double sum = 0;
      for (int64_t c = cols.begin[j]; c < cols.begin[j + 1]; ++c) {
        sum += cols.weight[c] * static_cast<double>(src[cols.index[c]]);
      }
      row[j] = sum;
    }
  };
  ParallelFor(
      static_cast<size_t>(planes), grain, [&](size_t first, size_t last) {
        // Per thread: the last few input rows interpolated (an output row reads
        // at most four, and the rows read only move down as the output rows
        // do), which input row each slot holds, and the output row's sums: a
        // few output rows of memory, whatever the sizes.
        constexpr int kSlots = 4;
        thread_local std::vector<double> interpolated, acc;
        interpolated.resize(static_cast<size_t>(kSlots * out_w));
        acc.resize(static_cast<size_t>(out_w));
        for (size_t p = first; p < last; ++p) {
          const float* plane = x + static_cast<int64_t>(p) * in_h * in_w;
          float* out = y + static_cast<int64_t>(p) * out_h * out_w;
          int64_t held[kSlots] = {-1, -1, -1, -1};
          int oldest = 0;
          for (int64_t oh = 0; oh < out_h; ++oh) {
            std::fill(acc.begin(), acc.end(), 0.0);
            for (int64_t t = rows.begin[oh]; t < rows.begin[oh + 1]; ++t) {
              const int64_t ih = rows.index[t];
              int slot = 0;
              while (slot < kSlots && held[slot] != ih) ++slot;
              if (slot == kSlots) {
                // The oldest row goes (a miss would only compute it again).
                slot = oldest;
                oldest = (oldest + 1) % kSlots;
                held[slot] = ih;
                interpolate(plane + ih * in_w,
                            interpolated.data() + slot * out_w);
              }
              const double* row = interpolated.data() + slot * out_w;
              const double weight = rows.weight[t];
              for (int64_t j = 0; j < out_w; ++j) acc[j] += weight * row[j];
            }
            for (int64_t j = 0; j < out_w; ++j) {
              out[oh * out_w + j] = static_cast<float>(acc[j]);
            }
          }
        }
      });
}

absl::StatusOr<PreparedKernel> MakeResizeKernel(
    const TensorInfo& x, const ResizeParams& params,
    const std::vector<int64_t>& out_dims, const std::vector<double>& scales,
    const std::vector<double>& roi) {
  const size_t rank = x.shape.rank();
  ResizePlan plan;
  plan.params = params;
  plan.in_dims = x.shape.dims();
  plan.out_dims = out_dims;
  plan.in_strides = DenseStrides(x.shape);
  RETURN_IF_ERROR(CheckedNumElements(out_dims).status());
  for (size_t d = 0; d < rank; ++d) {
    if (plan.in_dims[d] == 0 && out_dims[d] > 0) {
      return InvalidArgument("cannot resize an empty axis ", d, " of ",
                             x.shape.ToString(), " to ", out_dims[d]);
    }
    const double roi_start = roi.empty() ? 0.0 : roi[d];
    const double roi_end = roi.empty() ? 1.0 : roi[rank + d];
    plan.axes.push_back(MakeAxisTaps(params, plan.in_dims[d], out_dims[d],
                                     scales[d], roi_start, roi_end));
    plan.gather = plan.gather && plan.axes.back().single;
  }
  if (!plan.gather) {
    RETURN_IF_ERROR(RequireDType(x, kFloatTypes, "input X"));
  } else {
    RETURN_IF_ERROR(RequireDType(x, kNumericTypes, "input X"));
  }
  if (rank == 0) return InvalidArgument("input X must have rank >= 1");
  const bool planar = PlanarFloat32(plan, x.dtype);
  const size_t workspace =
      plan.gather || planar
          ? 0
          : static_cast<size_t>(out_dims.back()) * sizeof(double);
  std::vector<std::pair<std::string, std::string>> launch = {
      {"output", StrCat("[", StrJoin(out_dims, ","), "]")},
      {"scales", StrJoin(scales, ",")},
      {"path", plan.gather ? "gather"
               : planar    ? "planar"
                           : "interpolate"}};
  const DType dtype = x.dtype;
  auto run = [plan = std::move(plan), dtype, planar](
                 std::span<const TensorView> in,
                 std::span<const TensorView> out,
                 std::span<std::byte> ws) -> absl::Status {
    return VisitDType(dtype, [&]<typename T>() -> absl::Status {
      if constexpr (std::is_same_v<T, bool>) {
        return Unimplemented("bool input");
      } else {
        if (plan.gather) {
          RunGather(plan, in[0].as<const T>(), out[0].as<T>());
        } else if constexpr (std::is_same_v<T, float>) {
          if (planar) {
            RunPlanarFloat32(plan, in[0].as<const float>(), out[0].as<float>());
          } else {
            RunInterpolate(plan, in[0].as<const T>(), out[0].as<T>(),
                           reinterpret_cast<double*>(ws.data()));
          }
        } else {
          RunInterpolate(plan, in[0].as<const T>(), out[0].as<T>(),
                         reinterpret_cast<double*>(ws.data()));
        }
        return absl::OkStatus();
      }
    });
  };
  return Prepared({TensorInfo{dtype, Shape(out_dims)}},
                  MakeKernel(std::move(run), workspace, std::move(launch)));
}

absl::StatusOr<std::vector<double>> ReadConstantFloats(const OpContext& context,
                                                       size_t index,
                                                       std::string_view name) {
  const TensorView* value = context.constant(index);
  if (value == nullptr) {
    return NotKnownBeforeExecution(name);
  }
  std::vector<double> values;
  if (value->dtype != DType::kFloat32 && value->dtype != DType::kFloat64 &&
      value->dtype != DType::kFloat16) {
    return InvalidArgument("input '", name, "' must be float, got ",
                           DTypeName(value->dtype));
  }
  for (int64_t i = 0; i < value->NumElements(); ++i) {
    VisitDType(value->dtype, [&]<typename T>() {
      values.push_back(static_cast<double>(Load(value->as<const T>()[i])));
    });
  }
  return values;
}

// Output dims from scales: floor(in * scale), scaled by the roi span for
// tf_crop_and_resize.
absl::StatusOr<std::vector<int64_t>> DimsFromScales(
    const Shape& shape, const std::vector<double>& scales,
    const std::vector<double>& roi) {
  std::vector<int64_t> dims;
  for (size_t d = 0; d < shape.rank(); ++d) {
    if (!(scales[d] > 0) || !std::isfinite(scales[d])) {
      return InvalidArgument("scales [", StrJoin(scales, ","),
                             "] must be positive and finite");
    }
    const double span = roi.empty() ? 1.0 : roi[shape.rank() + d] - roi[d];
    const double size =
        std::floor(static_cast<double>(shape[d]) * span * scales[d]);
    if (!(size >= 0) || size > static_cast<double>(kMaxTensorElements)) {
      return InvalidArgument("scales [", StrJoin(scales, ","),
                             "] give an invalid output size for input ",
                             shape.ToString());
    }
    dims.push_back(static_cast<int64_t>(size));
  }
  return dims;
}

absl::StatusOr<ResizeParams> ReadParams(const Attributes& attrs,
                                        int64_t opset) {
  ResizeParams p;
  ASSIGN_OR_RETURN(std::string mode, attrs.GetString("mode", "nearest"));
  if (mode == "nearest") {
    p.mode = Mode::kNearest;
  } else if (mode == "linear" || mode == "bilinear") {
    p.mode = Mode::kLinear;
  } else if (mode == "cubic" && opset >= 11) {
    p.mode = Mode::kCubic;
  } else {
    return InvalidArgument("mode '", mode, "' is not one of nearest, linear",
                           opset >= 11 ? ", cubic" : "");
  }
  if (opset < 11) {
    // Upsample and Resize-10: asymmetric coordinates, nearest rounds down.
    p.transform = Transform::kAsymmetric;
    p.nearest = NearestMode::kFloor;
    return p;
  }
  ASSIGN_OR_RETURN(
      std::string transform,
      attrs.GetString("coordinate_transformation_mode", "half_pixel"));
  static const std::pair<const char*, Transform> kTransforms[] = {
      {"half_pixel", Transform::kHalfPixel},
      {"pytorch_half_pixel", Transform::kPytorchHalfPixel},
      {"align_corners", Transform::kAlignCorners},
      {"asymmetric", Transform::kAsymmetric},
      {"tf_half_pixel_for_nn", Transform::kTfHalfPixelForNn},
      {"tf_crop_and_resize", Transform::kTfCropAndResize}};
  bool found = false;
  for (const auto& [name, value] : kTransforms) {
    if (transform == name) {
      p.transform = value;
      found = true;
    }
  }
  if (!found) {
    return InvalidArgument("coordinate_transformation_mode '", transform,
                           "' is not supported");
  }
  ASSIGN_OR_RETURN(std::string nearest,
                   attrs.GetString("nearest_mode", "round_prefer_floor"));
  static const std::pair<const char*, NearestMode> kNearest[] = {
      {"round_prefer_floor", NearestMode::kRoundPreferFloor},
      {"round_prefer_ceil", NearestMode::kRoundPreferCeil},
      {"floor", NearestMode::kFloor},
      {"ceil", NearestMode::kCeil}};
  found = false;
  for (const auto& [name, value] : kNearest) {
    if (nearest == name) {
      p.nearest = value;
      found = true;
    }
  }
  if (!found) {
    return InvalidArgument("nearest_mode '", nearest, "' is not supported");
  }
  ASSIGN_OR_RETURN(float a, attrs.GetFloat("cubic_coeff_a", -0.75f));
  ASSIGN_OR_RETURN(int64_t exclude, attrs.GetInt("exclude_outside", 0));
  ASSIGN_OR_RETURN(float extrapolation,
                   attrs.GetFloat("extrapolation_value", 0.0f));
  p.cubic_a = a;
  p.exclude_outside = exclude != 0;
  p.extrapolation = extrapolation;
  for (const char* name : {"antialias", "axes", "keep_aspect_ratio_policy"}) {
    if (attrs.Has(name)) {
      return Unimplemented("attribute '", name,
                           "' (opset 18) is not supported");
    }
  }
  return p;
}

absl::StatusOr<PreparedKernel> PrepareResize(const OpContext& context) {
  const TensorInfo& x = context.inputs[0];
  ASSIGN_OR_RETURN(int64_t opset, context.attrs.GetInt("onnx_opset", 13));
  ASSIGN_OR_RETURN(ResizeParams params, ReadParams(context.attrs, opset));
  const size_t rank = x.shape.rank();
  std::vector<double> scales, roi;
  std::vector<int64_t> sizes;
  if (opset < 11) {
    if (!context.has_input(1))
      return InvalidArgument("input 'scales' is missing");
    ASSIGN_OR_RETURN(scales, ReadConstantFloats(context, 1, "scales"));
  } else {
    if (context.has_input(2)) {
      ASSIGN_OR_RETURN(scales, ReadConstantFloats(context, 2, "scales"));
    }
    if (context.has_input(3)) {
      ASSIGN_OR_RETURN(sizes, ReadConstantInts(context, 3, "sizes"));
    }
    if (params.transform == Transform::kTfCropAndResize) {
      if (!context.has_input(1)) {
        return InvalidArgument(
            "tf_crop_and_resize needs input 'roi' (starts and ends per axis)");
      }
      ASSIGN_OR_RETURN(roi, ReadConstantFloats(context, 1, "roi"));
      if (roi.size() != 2 * rank) {
        return InvalidArgument("roi has ", roi.size(), " values, expected ",
                               2 * rank, " (starts and ends per axis)");
      }
    }
  }
  if (!scales.empty() && !sizes.empty()) {
    return InvalidArgument("only one of 'scales' and 'sizes' may be given");
  }
  std::vector<int64_t> out_dims;
  if (!sizes.empty()) {
    if (sizes.size() != rank) {
      return InvalidArgument("sizes [", StrJoin(sizes, ","), "] has ",
                             sizes.size(), " values for input ",
                             x.shape.ToString());
    }
    for (size_t d = 0; d < rank; ++d) {
      if (sizes[d] < 0) {
        return InvalidArgument("sizes [", StrJoin(sizes, ","),
                               "] must not be negative");
      }
      scales.push_back(x.shape[d] == 0 ? 1.0
                                       : static_cast<double>(sizes[d]) /
                                             static_cast<double>(x.shape[d]));
    }
    out_dims = sizes;
  } else {
    if (scales.size() != rank) {
      return InvalidArgument("scales [", StrJoin(scales, ","), "] has ",
                             scales.size(), " values for input ",
                             x.shape.ToString(),
                             scales.empty() ? " (give scales or sizes)" : "");
    }
    ASSIGN_OR_RETURN(out_dims, DimsFromScales(x.shape, scales, roi));
  }
  return MakeResizeKernel(x, params, out_dims, scales, roi);
}

absl::StatusOr<PreparedKernel> PrepareUpsample(const OpContext& context) {
  const TensorInfo& x = context.inputs[0];
  ASSIGN_OR_RETURN(ResizeParams params, ReadParams(context.attrs, 9));
  std::vector<double> scales;
  if (context.has_input(1)) {
    ASSIGN_OR_RETURN(scales, ReadConstantFloats(context, 1, "scales"));
  } else {
    ASSIGN_OR_RETURN(std::vector<float> attr,
                     context.attrs.GetFloats("scales"));
    scales.assign(attr.begin(), attr.end());
  }
  if (scales.size() != x.shape.rank()) {
    return InvalidArgument("scales [", StrJoin(scales, ","), "] has ",
                           scales.size(), " values for input ",
                           x.shape.ToString());
  }
  ASSIGN_OR_RETURN(std::vector<int64_t> out_dims,
                   DimsFromScales(x.shape, scales, {}));
  return MakeResizeKernel(x, params, out_dims, scales, {});
}

}  // namespace

absl::Status RegisterResizeOps(OpRegistry& registry) {
  return registry.RegisterAll({
      {"Resize", 1, 4, 1, 1, PrepareResize},
      {"Upsample", 1, 2, 1, 1, PrepareUpsample},
  });
}

}  // namespace acldump
