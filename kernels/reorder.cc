// Operators that move elements to computed places: ReverseSequence (the
// first sequence_lens[b] steps of each batch entry reversed), MaxUnpool
// (MaxPool's values put back where its indices say, zeros elsewhere),
// CenterCropPad and Col2Im.
#include <algorithm>
#include <cstring>
#include <vector>

#include "kernels/kernel_util.h"
#include "kernels/op_families.h"

namespace acldump {
namespace {

absl::StatusOr<PreparedKernel> PrepareReverseSequence(
    const OpContext& context) {
  const TensorInfo& x = context.inputs[0];
  const TensorInfo& lens = context.inputs[1];
  RETURN_IF_ERROR(RequireDType(lens, kIndexTypes, "sequence_lens"));
  const int64_t rank = static_cast<int64_t>(x.shape.rank());
  if (rank < 2) {
    return InvalidArgument("input has shape ", x.shape.ToString(),
                           "; expected rank 2 or more");
  }
  ASSIGN_OR_RETURN(int64_t batch_axis, context.attrs.GetInt("batch_axis", 1));
  ASSIGN_OR_RETURN(int64_t time_axis, context.attrs.GetInt("time_axis", 0));
  if (!((batch_axis == 0 && time_axis == 1) ||
        (batch_axis == 1 && time_axis == 0))) {
    return InvalidArgument("batch_axis ", batch_axis, " and time_axis ",
                           time_axis, " must be 0 and 1 in either order");
  }
  const int64_t batch = x.shape[batch_axis], steps = x.shape[time_axis];
  if (lens.shape != Shape({batch})) {
    return InvalidArgument("sequence_lens has shape ", lens.shape.ToString(),
                           "; expected [", batch, "]");
  }
  int64_t inner = 1;
  for (int64_t a = 2; a < rank; ++a) inner *= x.shape[a];
  const size_t row_bytes = static_cast<size_t>(inner) * DTypeSize(x.dtype);
  auto run = [=](std::span<const TensorView> in,
                 std::span<const TensorView> out,
                 std::span<std::byte>) -> absl::Status {
    ASSIGN_OR_RETURN(std::vector<int64_t> lengths,
                     ReadInts(in[1], "sequence_lens"));
    for (int64_t b = 0; b < batch; ++b) {
      if (lengths[b] < 0 || lengths[b] > steps) {
        return InvalidArgument("sequence_lens[", b, "] is ", lengths[b],
                               "; expected 0..", steps);
      }
    }
    const std::byte* src = static_cast<const std::byte*>(in[0].data);
    std::byte* dst = static_cast<std::byte*>(out[0].data);
    auto row = [&](int64_t b, int64_t t) {
      return static_cast<size_t>(batch_axis == 0 ? b * steps + t
                                                 : t * batch + b) *
             row_bytes;
    };
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t t = 0; t < steps; ++t) {
        const int64_t from = t < lengths[b] ? lengths[b] - 1 - t : t;
        std::memcpy(dst + row(b, t), src + row(b, from), row_bytes);
      }
    }
    return absl::OkStatus();
  };
  return Prepared({x}, MakeKernel(std::move(run)));
}

// MaxUnpool: X [N, C, spatial...], I (MaxPool's flat indices into the
// output), output_shape (optional): the output is zeros with X's values at
// their indices.
absl::StatusOr<PreparedKernel> PrepareMaxUnpool(const OpContext& context) {
  const TensorInfo& x = context.inputs[0];
  const TensorInfo& indices = context.inputs[1];
  RETURN_IF_ERROR(RequireDType(x, kNumericTypes, "input X"));
  const DType kInt64Only[] = {DType::kInt64};
  RETURN_IF_ERROR(RequireDType(indices, kInt64Only, "indices I"));
  if (indices.shape != x.shape) {
    return InvalidArgument("I has shape ", indices.shape.ToString(),
                           "; expected X's ", x.shape.ToString());
  }
  const size_t rank = x.shape.rank();
  if (rank < 3) {
    return InvalidArgument("X has shape ", x.shape.ToString(),
                           "; expected [N, C, spatial...]");
  }
  const size_t spatial = rank - 2;
  // The indices are flat positions in the unpooled shape the attributes
  // give; an output_shape larger than it pads each dimension at its end.
  std::vector<int64_t> unpooled = x.shape.dims();
  ASSIGN_OR_RETURN(std::vector<int64_t> kernel,
                   context.attrs.GetInts("kernel_shape", {}));
  if (kernel.size() != spatial) {
    return InvalidArgument("kernel_shape has ", kernel.size(),
                           " values; expected ", spatial);
  }
  ASSIGN_OR_RETURN(
      std::vector<int64_t> strides,
      context.attrs.GetInts("strides", std::vector<int64_t>(spatial, 1)));
  ASSIGN_OR_RETURN(
      std::vector<int64_t> pads,
      context.attrs.GetInts("pads", std::vector<int64_t>(2 * spatial, 0)));
  if (strides.size() != spatial || pads.size() != 2 * spatial) {
    return InvalidArgument("strides/pads have ", strides.size(), "/",
                           pads.size(), " values; expected ", spatial, "/",
                           2 * spatial);
  }
  for (size_t d = 0; d < spatial; ++d) {
    unpooled[2 + d] = (x.shape[2 + d] - 1) * strides[d] + kernel[d] - pads[d] -
                      pads[spatial + d];
    if (unpooled[2 + d] <= 0) {
      return InvalidArgument("output dimension ", d, " would be ",
                             unpooled[2 + d]);
    }
  }
  std::vector<int64_t> out_dims = unpooled;
  if (context.has_input(2)) {
    ASSIGN_OR_RETURN(out_dims, ReadConstantInts(context, 2, "output_shape"));
    bool fits = out_dims.size() == rank;
    for (size_t a = 0; fits && a < rank; ++a) {
      fits = a < 2 ? out_dims[a] == unpooled[a] : out_dims[a] >= unpooled[a];
    }
    if (!fits) {
      return InvalidArgument("output_shape [", StrJoin(out_dims, ","),
                             "] must keep X's N and C and be at least [",
                             StrJoin(unpooled, ","), "] (from the attributes)");
    }
  }
  const Shape out_shape(out_dims);
  const int64_t out_total = out_shape.NumElements();
  const int64_t unpooled_total = Shape(unpooled).NumElements();
  const DType dtype = x.dtype;
  auto run = [=](std::span<const TensorView> in,
                 std::span<const TensorView> out,
                 std::span<std::byte>) -> absl::Status {
    const int64_t* idx = in[1].as<const int64_t>();
    const int64_t n = in[0].NumElements();
    for (int64_t i = 0; i < n; ++i) {
      if (idx[i] < 0 || idx[i] >= unpooled_total) {
        return InvalidArgument("index ", idx[i], " at position ", i,
                               " of I is outside the unpooled tensor (",
                               unpooled_total, " elements)");
      }
    }
    // A flat index of the unpooled shape, re-flattened in the output's.
    auto place = [&](int64_t flat) {
      int64_t at = 0, stride = 1;
      for (size_t a = unpooled.size(); a-- > 0;) {
        at += (flat % unpooled[a]) * stride;
        flat /= unpooled[a];
        stride *= out_dims[a];
      }
      return at;
    };
    VisitDType(dtype, [&]<typename T>() {
      T* y = out[0].as<T>();
      const T* xs = in[0].as<const T>();
      std::fill(y, y + out_total, T{});
      for (int64_t i = 0; i < n; ++i) y[place(idx[i])] = xs[i];
    });
    return absl::OkStatus();
  };
  return Prepared({TensorInfo{dtype, out_shape}}, MakeKernel(std::move(run)));
}

// CenterCropPad (opset 18): each of `axes` cropped (from the centre, the
// extra element at the end) or zero-padded (likewise) to `shape`.
absl::StatusOr<PreparedKernel> PrepareCenterCropPad(const OpContext& context) {
  const TensorInfo& x = context.inputs[0];
  const int64_t rank = static_cast<int64_t>(x.shape.rank());
  ASSIGN_OR_RETURN(std::vector<int64_t> target,
                   ReadConstantInts(context, 1, "shape"));
  std::vector<int64_t> all_axes(rank);
  for (int64_t a = 0; a < rank; ++a) all_axes[a] = a;
  ASSIGN_OR_RETURN(std::vector<int64_t> axes,
                   context.attrs.GetInts("axes", all_axes));
  if (target.size() != axes.size()) {
    return InvalidArgument("shape has ", target.size(), " values for ",
                           axes.size(), " axes");
  }
  std::vector<int64_t> out_dims = x.shape.dims();
  std::vector<int64_t> src_start(rank, 0), dst_start(rank, 0),
      extent = out_dims;
  std::vector<bool> seen(rank, false);
  for (size_t i = 0; i < axes.size(); ++i) {
    ASSIGN_OR_RETURN(int64_t a, NormalizeAxis(axes[i], rank, "axes"));
    if (seen[a]) return InvalidArgument("axis ", axes[i], " is given twice");
    seen[a] = true;
    if (target[i] < 0) {
      return InvalidArgument("shape[", i, "] is ", target[i],
                             "; expected >= 0");
    }
    const int64_t dim = x.shape[a];
    out_dims[a] = target[i];
    if (target[i] <= dim) {
      src_start[a] = (dim - target[i]) / 2;
      extent[a] = target[i];
    } else {
      dst_start[a] = (target[i] - dim) / 2;
      extent[a] = dim;
    }
  }
  const Shape out_shape(out_dims);
  const size_t element = DTypeSize(x.dtype);
  const std::vector<int64_t> in_dims = x.shape.dims();
  auto run = [=](std::span<const TensorView> in,
                 std::span<const TensorView> out,
                 std::span<std::byte>) -> absl::Status {
    std::byte* dst = static_cast<std::byte*>(out[0].data);
    const std::byte* src = static_cast<const std::byte*>(in[0].data);
    std::memset(dst, 0, static_cast<size_t>(out_shape.NumElements()) * element);
    int64_t region = 1;
    for (int64_t e : extent) region *= e;
    if (region == 0) return absl::OkStatus();
    if (rank == 0) {
      std::memcpy(dst, src, element);
      return absl::OkStatus();
    }
    // Rows of the last axis, copied whole.
    const int64_t rows = region / extent[rank - 1];
    const size_t row_bytes = static_cast<size_t>(extent[rank - 1]) * element;
    std::vector<int64_t> index(rank, 0);
    for (int64_t r = 0; r < rows; ++r) {
      int64_t s_off = 0, d_off = 0;
      for (int64_t a = 0; a < rank; ++a) {
        s_off = s_off * in_dims[a] + src_start[a] + index[a];
        d_off = d_off * out_dims[a] + dst_start[a] + index[a];
      }
      std::memcpy(dst + d_off * element, src + s_off * element, row_bytes);
      for (int64_t a = rank - 1; a-- > 0;) {
        if (++index[a] < extent[a]) break;
        index[a] = 0;
      }
    }
    return absl::OkStatus();
  };
  return Prepared({TensorInfo{x.dtype, out_shape}}, MakeKernel(std::move(run)));
}

// Col2Im (opset 18, 2-D images): [N, C * bh * bw, L] blocks summed back into
// [N, C, H, W], with dilations, pads and strides.
absl::StatusOr<PreparedKernel> PrepareCol2Im(const OpContext& context) {
  const TensorInfo& x = context.inputs[0];
  RETURN_IF_ERROR(RequireDType(x, kNumericTypes, "input"));
  ASSIGN_OR_RETURN(std::vector<int64_t> image,
                   ReadConstantInts(context, 1, "image_shape"));
  ASSIGN_OR_RETURN(std::vector<int64_t> block,
                   ReadConstantInts(context, 2, "block_shape"));
  if (image.size() != 2 || block.size() != 2) {
    return Unimplemented("image_shape and block_shape have ", image.size(),
                         " and ", block.size(),
                         " values; Col2Im is supported for 2-D images");
  }
  ASSIGN_OR_RETURN(std::vector<int64_t> dilations,
                   context.attrs.GetInts("dilations", {1, 1}));
  ASSIGN_OR_RETURN(std::vector<int64_t> strides,
                   context.attrs.GetInts("strides", {1, 1}));
  ASSIGN_OR_RETURN(std::vector<int64_t> pads,
                   context.attrs.GetInts("pads", {0, 0, 0, 0}));
  if (dilations.size() != 2 || strides.size() != 2 || pads.size() != 4) {
    return InvalidArgument(
        "dilations, strides and pads need 2, 2 and 4 "
        "values");
  }
  int64_t blocks[2];
  for (int d = 0; d < 2; ++d) {
    if (image[d] <= 0 || block[d] <= 0 || dilations[d] <= 0 ||
        strides[d] <= 0 || pads[d] < 0 || pads[d + 2] < 0) {
      return InvalidArgument(
          "image_shape, block_shape, dilations and "
          "strides must be positive, pads not negative");
    }
    const int64_t extent = dilations[d] * (block[d] - 1) + 1;
    const int64_t span = image[d] + pads[d] + pads[d + 2] - extent;
    blocks[d] = span < 0 ? 0 : span / strides[d] + 1;
  }
  const int64_t block_size = block[0] * block[1];
  if (x.shape.rank() != 3 || x.shape[1] % block_size != 0 ||
      x.shape[2] != blocks[0] * blocks[1]) {
    return InvalidArgument("input has shape ", x.shape.ToString(),
                           "; expected [N, C * ", block_size, ", ",
                           blocks[0] * blocks[1], "] for these blocks");
  }
  const int64_t n = x.shape[0], c = x.shape[1] / block_size;
  const Shape out_shape({n, c, image[0], image[1]});
  const DType dtype = x.dtype;
  auto run = [=](std::span<const TensorView> in,
                 std::span<const TensorView> out,
                 std::span<std::byte>) -> absl::Status {
    VisitDType(dtype, [&]<typename T>() {
      if constexpr (!std::is_same_v<T, bool>) {
        using C = ComputeType<T>;
        const T* xs = in[0].as<const T>();
        T* ys = out[0].as<T>();
        std::fill(ys, ys + out_shape.NumElements(), Store<T>(C(0)));
        for (int64_t b = 0; b < n; ++b)
          for (int64_t ch = 0; ch < c; ++ch)
            for (int64_t kh = 0; kh < block[0]; ++kh)
              for (int64_t kw = 0; kw < block[1]; ++kw) {
                const int64_t row = (ch * block[0] + kh) * block[1] + kw;
                const T* col = xs + (b * x.shape[1] + row) * x.shape[2];
                T* plane = ys + (b * c + ch) * image[0] * image[1];
                for (int64_t lh = 0; lh < blocks[0]; ++lh) {
                  const int64_t h =
                      lh * strides[0] - pads[0] + kh * dilations[0];
                  if (h < 0 || h >= image[0]) continue;
                  for (int64_t lw = 0; lw < blocks[1]; ++lw) {
                    const int64_t w =
                        lw * strides[1] - pads[1] + kw * dilations[1];
                    if (w < 0 || w >= image[1]) continue;
                    T& dst = plane[h * image[1] + w];
                    dst = Store<T>(Load(dst) + Load(col[lh * blocks[1] + lw]));
                  }
                }
              }
      }
    });
    return absl::OkStatus();
  };
  return Prepared({TensorInfo{dtype, out_shape}}, MakeKernel(std::move(run)));
}

}  // namespace

absl::Status RegisterReorderOps(OpRegistry& registry) {
  return registry.RegisterAll({
      {"ReverseSequence", 2, 2, 1, 1, PrepareReverseSequence},
      {"MaxUnpool", 2, 3, 1, 1, PrepareMaxUnpool},
      {"CenterCropPad", 2, 2, 1, 1, PrepareCenterCropPad},
      {"Col2Im", 3, 3, 1, 1, PrepareCol2Im},
  });
}

}  // namespace acldump
