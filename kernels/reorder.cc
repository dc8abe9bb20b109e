// Operators that move elements to computed places: ReverseSequence (the
// first sequence_lens[b] steps of each batch entry reversed) and MaxUnpool
// (MaxPool's values put back where its indices say, zeros elsewhere).
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

}  // namespace

absl::Status RegisterReorderOps(OpRegistry& registry) {
  return registry.RegisterAll({
      {"ReverseSequence", 2, 2, 1, 1, PrepareReverseSequence},
      {"MaxUnpool", 2, 3, 1, 1, PrepareMaxUnpool},
  });
}

}  // namespace acldump
