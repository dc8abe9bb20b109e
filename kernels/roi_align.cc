// RoiAlign (opsets 10 and 16): for each region [x1, y1, x2, y2] of the image
// its batch index names, an output_height x output_width grid of bins, each
// the average (or maximum) of bilinear samples (sampling_ratio per bin side,
// or adaptive), as ONNX Runtime and torchvision compute them, including
// ONNX Runtime's max mode (the largest weighted tap). Coordinates are
// "half_pixel" (opset 16's default) or "output_half_pixel" (opset 10's).
#include <algorithm>
#include <cmath>
#include <vector>

#include "kernels/kernel_util.h"
#include "kernels/op_families.h"
#include "kernels/threading.h"

namespace acldump {
namespace {

struct RoiAlignAttributes {
  int64_t out_h = 1, out_w = 1, sampling_ratio = 0;
  float spatial_scale = 1.0f;
  bool half_pixel = true;
  bool max_mode = false;
};

// One bilinear sample: four taps and their weights (all zero outside).
struct Tap4 {
  int64_t pos[4] = {0, 0, 0, 0};
  float w[4] = {0, 0, 0, 0};
};

Tap4 BilinearTaps(float y, float x, int64_t height, int64_t width) {
  Tap4 t;
  if (y < -1.0f || y > static_cast<float>(height) || x < -1.0f ||
      x > static_cast<float>(width)) {
    return t;
  }
  y = std::max(y, 0.0f);
  x = std::max(x, 0.0f);
  int64_t y_low = static_cast<int64_t>(y), x_low = static_cast<int64_t>(x);
  int64_t y_high, x_high;
  if (y_low >= height - 1) {
    y_high = y_low = height - 1;
    y = static_cast<float>(y_low);
  } else {
    y_high = y_low + 1;
  }
  if (x_low >= width - 1) {
    x_high = x_low = width - 1;
    x = static_cast<float>(x_low);
  } else {
    x_high = x_low + 1;
  }
  const float ly = y - static_cast<float>(y_low),
              lx = x - static_cast<float>(x_low);
  const float hy = 1.0f - ly, hx = 1.0f - lx;
  t.w[0] = hy * hx;
  t.w[1] = hy * lx;
  t.w[2] = ly * hx;
  t.w[3] = ly * lx;
  t.pos[0] = y_low * width + x_low;
  t.pos[1] = y_low * width + x_high;
  t.pos[2] = y_high * width + x_low;
  t.pos[3] = y_high * width + x_high;
  return t;
}

// One region of one channel plane into out[out_h * out_w].
template <typename T>
void PoolRegion(const RoiAlignAttributes& a, const float roi[4], const T* plane,
                int64_t height, int64_t width, T* out) {
  const float offset = a.half_pixel ? 0.5f : 0.0f;
  const float start_w = roi[0] * a.spatial_scale - offset;
  const float start_h = roi[1] * a.spatial_scale - offset;
  float roi_w = roi[2] * a.spatial_scale - offset - start_w;
  float roi_h = roi[3] * a.spatial_scale - offset - start_h;
  if (!a.half_pixel) {
    roi_w = std::max(roi_w, 1.0f);
    roi_h = std::max(roi_h, 1.0f);
  }
  const float bin_h = roi_h / static_cast<float>(a.out_h);
  const float bin_w = roi_w / static_cast<float>(a.out_w);
  const int64_t grid_h = a.sampling_ratio > 0
                             ? a.sampling_ratio
                             : static_cast<int64_t>(std::ceil(
                                   roi_h / static_cast<float>(a.out_h)));
  const int64_t grid_w = a.sampling_ratio > 0
                             ? a.sampling_ratio
                             : static_cast<int64_t>(std::ceil(
                                   roi_w / static_cast<float>(a.out_w)));
  const float count = static_cast<float>(std::max<int64_t>(grid_h * grid_w, 1));
  for (int64_t ph = 0; ph < a.out_h; ++ph) {
    for (int64_t pw = 0; pw < a.out_w; ++pw) {
      float value = 0.0f;
      bool first = true;
      for (int64_t iy = 0; iy < grid_h; ++iy) {
        const float y = start_h + static_cast<float>(ph) * bin_h +
                        (static_cast<float>(iy) + 0.5f) * bin_h /
                            static_cast<float>(grid_h);
        for (int64_t ix = 0; ix < grid_w; ++ix) {
          const float x = start_w + static_cast<float>(pw) * bin_w +
                          (static_cast<float>(ix) + 0.5f) * bin_w /
                              static_cast<float>(grid_w);
          const Tap4 t = BilinearTaps(y, x, height, width);
          float v[4];
          for (int k = 0; k < 4; ++k)
            v[k] = t.w[k] * static_cast<float>(Load(plane[t.pos[k]]));
          if (a.max_mode) {
            const float m =
                std::max(std::max(v[0], v[1]), std::max(v[2], v[3]));
            value = first ? m : std::max(value, m);
          } else {
            value += v[0] + v[1] + v[2] + v[3];
          }
          first = false;
        }
      }
      out[ph * a.out_w + pw] = Store<T>(a.max_mode ? value : value / count);
    }
  }
}

absl::StatusOr<RoiAlignAttributes> ReadRoiAlign(const OpContext& context) {
  RoiAlignAttributes a;
  const Attributes& attrs = context.attrs;
  ASSIGN_OR_RETURN(a.out_h, attrs.GetInt("output_height", 1));
  ASSIGN_OR_RETURN(a.out_w, attrs.GetInt("output_width", 1));
  ASSIGN_OR_RETURN(a.sampling_ratio, attrs.GetInt("sampling_ratio", 0));
  ASSIGN_OR_RETURN(a.spatial_scale, attrs.GetFloat("spatial_scale", 1.0f));
  if (a.out_h <= 0 || a.out_w <= 0 || a.sampling_ratio < 0) {
    return InvalidArgument("output_height ", a.out_h, ", output_width ",
                           a.out_w, " must be positive and sampling_ratio ",
                           a.sampling_ratio, " not negative");
  }
  ASSIGN_OR_RETURN(std::string mode, attrs.GetString("mode", "avg"));
  if (mode != "avg" && mode != "max") {
    return InvalidArgument("mode '", mode, "' is not avg or max");
  }
  a.max_mode = mode == "max";
  ASSIGN_OR_RETURN(
      std::string transform,
      attrs.GetString("coordinate_transformation_mode", "half_pixel"));
  if (transform != "half_pixel" && transform != "output_half_pixel") {
    return InvalidArgument("coordinate_transformation_mode '", transform,
                           "' is not half_pixel or output_half_pixel");
  }
  a.half_pixel = transform == "half_pixel";
  return a;
}

absl::StatusOr<PreparedKernel> PrepareRoiAlign(const OpContext& context) {
  const TensorInfo& x = context.inputs[0];
  const TensorInfo& rois = context.inputs[1];
  const TensorInfo& batch = context.inputs[2];
  RETURN_IF_ERROR(RequireDType(x, kFloatTypes, "input X"));
  RETURN_IF_ERROR(RequireDType(batch, kIndexTypes, "batch_indices"));
  if (rois.dtype != x.dtype) {
    return InvalidArgument("rois are ", DTypeName(rois.dtype), "; X is ",
                           DTypeName(x.dtype), " (they share one type)");
  }
  if (x.shape.rank() != 4) {
    return InvalidArgument("X has shape ", x.shape.ToString(),
                           "; expected [N, C, H, W]");
  }
  if (rois.shape.rank() != 2 || rois.shape[1] != 4) {
    return InvalidArgument("rois have shape ", rois.shape.ToString(),
                           "; expected [num_rois, 4]");
  }
  const int64_t num_rois = rois.shape[0];
  if (batch.shape != Shape({num_rois})) {
    return InvalidArgument("batch_indices have shape ", batch.shape.ToString(),
                           "; expected [", num_rois, "]");
  }
  ASSIGN_OR_RETURN(RoiAlignAttributes a, ReadRoiAlign(context));
  const int64_t n = x.shape[0], c = x.shape[1], h = x.shape[2], w = x.shape[3];
  const DType dtype = x.dtype;
  auto run = [=](std::span<const TensorView> in,
                 std::span<const TensorView> out,
                 std::span<std::byte>) -> absl::Status {
    ASSIGN_OR_RETURN(std::vector<int64_t> indices,
                     ReadInts(in[2], "batch_indices"));
    for (int64_t r = 0; r < num_rois; ++r) {
      if (indices[r] < 0 || indices[r] >= n) {
        return InvalidArgument("batch_indices[", r, "] is ", indices[r],
                               "; X has ", n, " images");
      }
    }
    return VisitFloatDType(dtype, [&]<typename T>() -> absl::Status {
      const T* xs = in[0].as<const T>();
      const T* boxes = in[1].as<const T>();
      T* ys = out[0].as<T>();
      ParallelFor(
          static_cast<size_t>(num_rois * c), 1, [&](size_t lo, size_t hi) {
            for (size_t rc = lo; rc < hi; ++rc) {
              const int64_t r = static_cast<int64_t>(rc) / c;
              const int64_t ch = static_cast<int64_t>(rc) % c;
              float roi[4];
              for (int k = 0; k < 4; ++k)
                roi[k] = static_cast<float>(Load(boxes[r * 4 + k]));
              PoolRegion(a, roi, xs + (indices[r] * c + ch) * h * w, h, w,
                         ys + static_cast<int64_t>(rc) * a.out_h * a.out_w);
            }
          });
      return absl::OkStatus();
    });
  };
  return Prepared({TensorInfo{dtype, Shape({num_rois, c, a.out_h, a.out_w})}},
                  MakeKernel(std::move(run)));
}

}  // namespace

absl::Status RegisterRoiAlignOps(OpRegistry& registry) {
  return registry.RegisterAll({
      {"RoiAlign", 3, 3, 1, 1, PrepareRoiAlign},
  });
}

}  // namespace acldump
