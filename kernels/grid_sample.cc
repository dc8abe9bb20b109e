// GridSample (opsets 16 and 20, 2-D): X [N, C, H, W] sampled at grid
// [N, H_out, W_out, 2] of normalized (x, y) in [-1, 1]; modes bilinear/linear,
// nearest (ties to even) and bicubic/cubic (A = -0.75); padding zeros, border
// or reflection; align_corners. Each tap is read as ONNX Runtime reads it, so
// the results match it to the rounding of the arithmetic.
#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/cubic.h"
#include "kernels/kernel_util.h"
#include "kernels/op_families.h"
#include "kernels/threading.h"

namespace acldump {
namespace {

enum class SampleMode { kLinear, kNearest, kCubic };
enum class Padding { kZeros, kBorder, kReflection };

struct GridSampleShape {
  int64_t n = 0, c = 0, h = 0, w = 0, out_h = 0, out_w = 0;
  SampleMode mode = SampleMode::kLinear;
  Padding padding = Padding::kZeros;
  bool align_corners = false;
};

// A normalized coordinate in [-1, 1] to a pixel coordinate.
inline float Denormalize(float v, int64_t length, bool align_corners) {
  return align_corners ? (v + 1) / 2 * static_cast<float>(length - 1)
                       : ((v + 1) * static_cast<float>(length) - 1) / 2;
}

// v folded into [lo, hi] by reflection at both ends.
inline float Reflect(float v, float lo, float hi) {
  const float range = hi - lo;
  // One pixel with aligned corners: every coordinate reflects onto it.
  if (!(range > 0)) return lo;
  if (v < lo) {
    const float d = lo - v;
    const int64_t k = static_cast<int64_t>(d / range);
    const float r = d - static_cast<float>(k) * range;
    return k % 2 == 0 ? lo + r : hi - r;
  }
  if (v > hi) {
    const float d = v - hi;
    const int64_t k = static_cast<int64_t>(d / range);
    const float r = d - static_cast<float>(k) * range;
    return k % 2 == 0 ? hi - r : lo + r;
  }
  return v;
}

struct Plane {
  const GridSampleShape& s;
  float lo_x, lo_y, hi_x, hi_y;  // the reflection bounds

  template <typename T>
  float At(const T* image, int64_t row, int64_t col) const {
    switch (s.padding) {
      case Padding::kZeros:
        if (col < 0 || col >= s.w || row < 0 || row >= s.h) return 0.0f;
        break;
      case Padding::kBorder:
        col = std::clamp<int64_t>(col, 0, s.w - 1);
        row = std::clamp<int64_t>(row, 0, s.h - 1);
        break;
      case Padding::kReflection:
        col =
            static_cast<int64_t>(Reflect(static_cast<float>(col), lo_x, hi_x));
        row =
            static_cast<int64_t>(Reflect(static_cast<float>(row), lo_y, hi_y));
        col = std::clamp<int64_t>(col, 0, s.w - 1);
        row = std::clamp<int64_t>(row, 0, s.h - 1);
        break;
    }
    return static_cast<float>(Load(image[row * s.w + col]));
  }
};

template <typename T>
float Sample(const Plane& plane, const T* image, float x, float y) {
  const GridSampleShape& s = plane.s;
  if (x != x || y != y) return std::numeric_limits<float>::quiet_NaN();
  // Far outside the image every tap is padding; the bound keeps the tap
  // indices representable (and inf finite).
  constexpr float kFar = 4194304.0f;  // 2^22: x + 1 is still exact
  x = std::clamp(x, -kFar, kFar);
  y = std::clamp(y, -kFar, kFar);
  if (s.padding == Padding::kReflection && s.mode != SampleMode::kCubic) {
    x = Reflect(x, plane.lo_x, plane.hi_x);
    y = Reflect(y, plane.lo_y, plane.hi_y);
  }
  switch (s.mode) {
    case SampleMode::kNearest:
      return plane.At(image, static_cast<int64_t>(std::nearbyint(y)),
                      static_cast<int64_t>(std::nearbyint(x)));
    case SampleMode::kLinear: {
      const float fx = std::floor(x), fy = std::floor(y);
      const int64_t x1 = static_cast<int64_t>(fx),
                    y1 = static_cast<int64_t>(fy);
      const float dx1 = x - fx, dx2 = fx + 1 - x;
      const float dy1 = y - fy, dy2 = fy + 1 - y;
      const float p11 = plane.At(image, y1, x1);
      const float p12 = plane.At(image, y1, x1 + 1);
      const float p21 = plane.At(image, y1 + 1, x1);
      const float p22 = plane.At(image, y1 + 1, x1 + 1);
      return dy2 * (dx2 * p11 + dx1 * p12) + dy1 * (dx2 * p21 + dx1 * p22);
    }
    case SampleMode::kCubic: {
      const float fx = std::floor(x) - 1, fy = std::floor(y) - 1;
      const int64_t x0 = static_cast<int64_t>(fx),
                    y0 = static_cast<int64_t>(fy);
      float cx[4], cy[4], rows[4];
      CubicCoefficients(x - fx - 1, -0.75f, cx);
      CubicCoefficients(y - fy - 1, -0.75f, cy);
      for (int64_t i = 0; i < 4; ++i) {
        rows[i] = 0;
        for (int64_t j = 0; j < 4; ++j)
          rows[i] += cx[j] * plane.At(image, y0 + i, x0 + j);
      }
      return cy[0] * rows[0] + cy[1] * rows[1] + cy[2] * rows[2] +
             cy[3] * rows[3];
    }
  }
  return 0.0f;
}

absl::StatusOr<GridSampleShape> ReadGridSample(const OpContext& context) {
  const TensorInfo& x = context.inputs[0];
  const TensorInfo& grid = context.inputs[1];
  RETURN_IF_ERROR(RequireDType(x, kFloatTypes, "input X"));
  RETURN_IF_ERROR(RequireDType(grid, kFloatTypes, "grid"));
  if (x.shape.rank() != 4) {
    return Unimplemented(
        "X has shape ", x.shape.ToString(),
        "; GridSample is supported on 2-D images [N, C, H, W]");
  }
  GridSampleShape s;
  s.n = x.shape[0];
  s.c = x.shape[1];
  s.h = x.shape[2];
  s.w = x.shape[3];
  if (grid.shape.rank() != 4 || grid.shape[0] != s.n || grid.shape[3] != 2) {
    return InvalidArgument("grid has shape ", grid.shape.ToString(),
                           "; expected [", s.n, ", H_out, W_out, 2]");
  }
  s.out_h = grid.shape[1];
  s.out_w = grid.shape[2];
  ASSIGN_OR_RETURN(std::string mode, context.attrs.GetString("mode", "linear"));
  if (mode == "bilinear" || mode == "linear") {
    s.mode = SampleMode::kLinear;
  } else if (mode == "nearest") {
    s.mode = SampleMode::kNearest;
  } else if (mode == "bicubic" || mode == "cubic") {
    s.mode = SampleMode::kCubic;
  } else {
    return InvalidArgument("mode '", mode,
                           "' is not one of linear (bilinear), nearest, "
                           "cubic (bicubic)");
  }
  ASSIGN_OR_RETURN(std::string padding,
                   context.attrs.GetString("padding_mode", "zeros"));
  if (padding == "zeros") {
    s.padding = Padding::kZeros;
  } else if (padding == "border") {
    s.padding = Padding::kBorder;
  } else if (padding == "reflection") {
    s.padding = Padding::kReflection;
  } else {
    return InvalidArgument("padding_mode '", padding,
                           "' is not one of zeros, border, reflection");
  }
  ASSIGN_OR_RETURN(s.align_corners,
                   context.attrs.GetFlag("align_corners", false));
  return s;
}

absl::StatusOr<PreparedKernel> PrepareGridSample(const OpContext& context) {
  ASSIGN_OR_RETURN(GridSampleShape s, ReadGridSample(context));
  const DType x_type = context.inputs[0].dtype;
  const DType grid_type = context.inputs[1].dtype;
  auto run = [s, x_type, grid_type](std::span<const TensorView> in,
                                    std::span<const TensorView> out,
                                    std::span<std::byte>) -> absl::Status {
    return VisitFloatDType(x_type, [&]<typename T>() -> absl::Status {
      return VisitFloatDType(grid_type, [&]<typename G>() -> absl::Status {
        const T* x = in[0].as<const T>();
        const G* grid = in[1].as<const G>();
        T* y = out[0].as<T>();
        // The reflection bounds: the outer pixels' centres, or edges.
        const float margin = s.align_corners ? 0.0f : 0.5f;
        const Plane plane{s, -margin, -margin,
                          static_cast<float>(s.w - 1) + margin,
                          static_cast<float>(s.h - 1) + margin};
        const int64_t points = s.out_h * s.out_w;
        // (batch, channel) planes on the intra-op threads.
        ParallelFor(
            static_cast<size_t>(s.n * s.c), 1, [&](size_t begin, size_t end) {
              for (size_t nc = begin; nc < end; ++nc) {
                const int64_t n = static_cast<int64_t>(nc) / s.c;
                const T* image = x + static_cast<int64_t>(nc) * s.h * s.w;
                const G* g = grid + n * points * 2;
                T* dst = y + static_cast<int64_t>(nc) * points;
                for (int64_t p = 0; p < points; ++p) {
                  const float gx = static_cast<float>(Load(g[2 * p]));
                  const float gy = static_cast<float>(Load(g[2 * p + 1]));
                  dst[p] = Store<T>(Sample(
                      plane, image, Denormalize(gx, s.w, s.align_corners),
                      Denormalize(gy, s.h, s.align_corners)));
                }
              }
            });
        return absl::OkStatus();
      });
    });
  };
  return Prepared({TensorInfo{x_type, Shape({s.n, s.c, s.out_h, s.out_w})}},
                  MakeKernel(std::move(run)));
}

}  // namespace

absl::Status RegisterGridSampleOps(OpRegistry& registry) {
  return registry.RegisterAll({
      {"GridSample", 2, 2, 1, 1, PrepareGridSample},
  });
}

}  // namespace acldump
