// Index-driven and rearranging operators: GatherElements ScatterElements
// Scatter GatherND ScatterND Trilu OneHot EyeLike DepthToSpace SpaceToDepth
// CumSum TopK Dropout (inference).
//
// Every index read from a tensor is checked before it is used, so a bad index
// is an error naming it, never an out-of-bounds access.
#include <algorithm>
#include <cstring>
#include <functional>
#include <numeric>

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

std::string IndexPosition(int64_t flat, const Shape& shape) {
  Ints index(shape.rank());
  for (size_t k = shape.rank(); k-- > 0;) {
    index[k] = shape[k] == 0 ? 0 : flat % shape[k];
    flat = shape[k] == 0 ? 0 : flat / shape[k];
  }
  return StrCat("[", StrJoin(index, ","), "]");
}

// Reads index k of an int32/int64 tensor.
int64_t IndexAt(const TensorView& view, int64_t k) {
  return view.dtype == DType::kInt64 ? view.as<const int64_t>()[k]
                                     : view.as<const int32_t>()[k];
}

// Resolves a possibly negative index against `dim`.
absl::StatusOr<int64_t> CheckIndex(std::string_view op, int64_t value,
                                   int64_t dim, int64_t flat,
                                   const Shape& indices_shape, int64_t axis) {
  if (value < -dim || value >= dim) {
    return InvalidArgument(op, ": index ", value, " at position ",
                           IndexPosition(flat, indices_shape),
                           " of 'indices' is out of range for axis ", axis,
                           " of size ", dim, " (valid range ", -dim, "..",
                           dim - 1, ")");
  }
  return value < 0 ? value + dim : value;
}

// ---------------------------------------------------------------------------------------------
// GatherElements / ScatterElements (and the deprecated Scatter).

// For each element of `indices` (shape `ishape`, dense), the offset in a
// tensor of shape `dshape` with the axis coordinate replaced by the index.
absl::Status ForEachElementIndex(
    std::string_view op, const TensorView& indices, const Shape& dshape,
    int64_t axis, const std::function<void(int64_t flat, int64_t offset)>& f) {
  const Shape& ishape = indices.shape;
  const size_t rank = ishape.rank();
  const Ints dstrides = DenseStrides(dshape);
  const int64_t n = indices.NumElements();
  Ints counter(rank, 0);
  for (int64_t k = 0; k < n; ++k) {
    int64_t offset = 0;
    for (size_t d = 0; d < rank; ++d) {
      if (static_cast<int64_t>(d) != axis) offset += counter[d] * dstrides[d];
    }
    ASSIGN_OR_RETURN(int64_t v, CheckIndex(op, IndexAt(indices, k),
                                           dshape[axis], k, ishape, axis));
    f(k, offset + v * dstrides[axis]);
    for (size_t d = rank; d-- > 0;) {
      if (++counter[d] < ishape[d]) break;
      counter[d] = 0;
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<PreparedKernel> PrepareGatherElements(const OpContext& context) {
  const TensorInfo& data = context.inputs[0];
  const TensorInfo& indices = context.inputs[1];
  RETURN_IF_ERROR(RequireDType(indices, kIndexTypes, "input 'indices'"));
  const int64_t rank = static_cast<int64_t>(data.shape.rank());
  if (rank == 0 || indices.shape.rank() != data.shape.rank()) {
    return InvalidArgument("'data' ", data.shape.ToString(), " and 'indices' ",
                           indices.shape.ToString(),
                           " must have the same rank >= 1");
  }
  ASSIGN_OR_RETURN(int64_t axis_attr, context.attrs.GetInt("axis", 0));
  ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(axis_attr, rank, "axis"));
  for (int64_t d = 0; d < rank; ++d) {
    if (d != axis && indices.shape[d] > data.shape[d]) {
      return InvalidArgument("'indices' ", indices.shape.ToString(),
                             " is larger than 'data' ", data.shape.ToString(),
                             " on axis ", d);
    }
  }
  const size_t esize = DTypeSize(data.dtype);
  auto run = [axis, esize](std::span<const TensorView> in,
                           std::span<const TensorView> out,
                           std::span<std::byte>) -> absl::Status {
    const std::byte* src = in[0].as<const std::byte>();
    std::byte* dst = out[0].as<std::byte>();
    return ForEachElementIndex("GatherElements", in[1], in[0].shape, axis,
                               [&](int64_t k, int64_t offset) {
                                 std::memcpy(dst + k * esize,
                                             src + offset * esize, esize);
                               });
  };
  return Prepared({TensorInfo{data.dtype, indices.shape}},
                  MakeKernel(std::move(run)));
}

enum class Reduction { kNone, kAdd, kMul, kMax, kMin };

absl::StatusOr<Reduction> ReadReduction(const Attributes& attrs) {
  ASSIGN_OR_RETURN(std::string r, attrs.GetString("reduction", "none"));
  if (r == "none") return Reduction::kNone;
  if (r == "add") return Reduction::kAdd;
  if (r == "mul") return Reduction::kMul;
  if (r == "max") return Reduction::kMax;
  if (r == "min") return Reduction::kMin;
  return InvalidArgument("reduction '", r,
                         "' is not one of none, add, mul, max, min");
}

template <typename T>
void Reduce(Reduction reduction, T* dst, T value) {
  if constexpr (std::is_same_v<T, bool>) {
    *dst = value;
  } else {
    switch (reduction) {
      case Reduction::kNone:
        *dst = value;
        break;
      case Reduction::kAdd:
        *dst = Store<T>(Load(*dst) + Load(value));
        break;
      case Reduction::kMul:
        *dst = Store<T>(Load(*dst) * Load(value));
        break;
      case Reduction::kMax:
        *dst = Store<T>(std::max(Load(*dst), Load(value)));
        break;
      case Reduction::kMin:
        *dst = Store<T>(std::min(Load(*dst), Load(value)));
        break;
    }
  }
}

absl::StatusOr<PreparedKernel> PrepareScatterElements(
    const OpContext& context) {
  const TensorInfo& data = context.inputs[0];
  const TensorInfo& indices = context.inputs[1];
  const TensorInfo& updates = context.inputs[2];
  RETURN_IF_ERROR(RequireDType(indices, kIndexTypes, "input 'indices'"));
  const int64_t rank = static_cast<int64_t>(data.shape.rank());
  if (rank == 0 || indices.shape != updates.shape ||
      indices.shape.rank() != data.shape.rank() ||
      updates.dtype != data.dtype) {
    return InvalidArgument("'indices' ", indices.shape.ToString(),
                           " and 'updates' ", updates.ToString(),
                           " must have one shape, the rank of 'data' ",
                           data.ToString(), " (>= 1) and its type");
  }
  ASSIGN_OR_RETURN(int64_t axis_attr, context.attrs.GetInt("axis", 0));
  ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(axis_attr, rank, "axis"));
  ASSIGN_OR_RETURN(Reduction reduction, ReadReduction(context.attrs));
  const DType dtype = data.dtype;
  auto run = [axis, reduction, dtype](std::span<const TensorView> in,
                                      std::span<const TensorView> out,
                                      std::span<std::byte>) -> absl::Status {
    if (out[0].data != in[0].data && in[0].ByteSize() > 0)
      std::memcpy(out[0].data, in[0].data, in[0].ByteSize());
    return VisitDType(dtype, [&]<typename T>() -> absl::Status {
      const T* updates = in[2].as<const T>();
      T* y = out[0].as<T>();
      return ForEachElementIndex("ScatterElements", in[1], in[0].shape, axis,
                                 [&](int64_t k, int64_t offset) {
                                   Reduce(reduction, y + offset, updates[k]);
                                 });
    });
  };
  return Prepared({data}, MakeKernel(std::move(run)));
}

// ---------------------------------------------------------------------------------------------
// GatherND / ScatterND.

absl::StatusOr<PreparedKernel> PrepareGatherND(const OpContext& context) {
  const TensorInfo& data = context.inputs[0];
  const TensorInfo& indices = context.inputs[1];
  const DType kInt64Only[] = {DType::kInt64};
  RETURN_IF_ERROR(RequireDType(indices, kInt64Only, "input 'indices'"));
  ASSIGN_OR_RETURN(int64_t b, context.attrs.GetInt("batch_dims", 0));
  const int64_t r = static_cast<int64_t>(data.shape.rank());
  const int64_t q = static_cast<int64_t>(indices.shape.rank());
  if (q < 1 || r < 1 || b < 0 || b >= std::min(q, r)) {
    return InvalidArgument("batch_dims ", b, " must be below the ranks of ",
                           "'data' ", data.shape.ToString(), " and 'indices' ",
                           indices.shape.ToString());
  }
  const int64_t k = indices.shape[q - 1];
  if (k < 1 || k > r - b) {
    return InvalidArgument("the last dimension of 'indices' ",
                           indices.shape.ToString(), " must be in 1..", r - b);
  }
  for (int64_t d = 0; d < b; ++d) {
    if (data.shape[d] != indices.shape[d]) {
      return InvalidArgument("batch dimension ", d, " differs: 'data' ",
                             data.shape.ToString(), ", 'indices' ",
                             indices.shape.ToString());
    }
  }
  Ints out_dims(indices.shape.dims().begin(), indices.shape.dims().end() - 1);
  out_dims.insert(out_dims.end(), data.shape.dims().begin() + b + k,
                  data.shape.dims().end());
  const Ints strides = DenseStrides(data.shape);
  const int64_t batches = Product(std::span(data.shape.dims()).first(b));
  const int64_t batch_stride = b == 0 ? 0 : strides[b - 1];
  const int64_t tuples = Product(std::span(indices.shape.dims()).first(q - 1)) /
                         std::max<int64_t>(batches, 1);
  const int64_t slice = Product(std::span(data.shape.dims()).subspan(b + k));
  const size_t esize = DTypeSize(data.dtype);
  const Ints dims = data.shape.dims();
  auto run = [=](std::span<const TensorView> in,
                 std::span<const TensorView> out,
                 std::span<std::byte>) -> absl::Status {
    const int64_t* idx = in[1].as<const int64_t>();
    const std::byte* src = in[0].as<const std::byte>();
    std::byte* dst = out[0].as<std::byte>();
    for (int64_t bt = 0; bt < batches; ++bt) {
      for (int64_t t = 0; t < tuples; ++t) {
        const int64_t* tuple = idx + (bt * tuples + t) * k;
        int64_t offset = bt * batch_stride;
        for (int64_t j = 0; j < k; ++j) {
          const int64_t dim = dims[b + j];
          int64_t v = tuple[j];
          if (v < -dim || v >= dim) {
            return InvalidArgument("GatherND: index ", v, " of tuple ",
                                   bt * tuples + t, " is out of range for ",
                                   "axis ", b + j, " of size ", dim);
          }
          offset += (v < 0 ? v + dim : v) * strides[b + j];
        }
        std::memcpy(dst, src + offset * esize, slice * esize);
        dst += slice * esize;
      }
    }
    return absl::OkStatus();
  };
  return Prepared({TensorInfo{data.dtype, Shape(out_dims)}},
                  MakeKernel(std::move(run)));
}

absl::StatusOr<PreparedKernel> PrepareScatterND(const OpContext& context) {
  const TensorInfo& data = context.inputs[0];
  const TensorInfo& indices = context.inputs[1];
  const TensorInfo& updates = context.inputs[2];
  const DType kInt64Only[] = {DType::kInt64};
  RETURN_IF_ERROR(RequireDType(indices, kInt64Only, "input 'indices'"));
  ASSIGN_OR_RETURN(Reduction reduction, ReadReduction(context.attrs));
  const int64_t r = static_cast<int64_t>(data.shape.rank());
  const int64_t q = static_cast<int64_t>(indices.shape.rank());
  if (q < 1 || r < 1 || updates.dtype != data.dtype) {
    return InvalidArgument("'data' ", data.ToString(), ", 'indices' ",
                           indices.shape.ToString(), " and 'updates' ",
                           updates.ToString(), " do not fit together");
  }
  const int64_t k = indices.shape[q - 1];
  Ints expected(indices.shape.dims().begin(), indices.shape.dims().end() - 1);
  if (k >= 1 && k <= r) {
    expected.insert(expected.end(), data.shape.dims().begin() + k,
                    data.shape.dims().end());
  }
  if (k < 1 || k > r || Shape(expected) != updates.shape) {
    return InvalidArgument("'updates' ", updates.shape.ToString(),
                           " must have shape indices.shape[:-1] + ",
                           "data.shape[k:] for 'indices' ",
                           indices.shape.ToString(), " and 'data' ",
                           data.shape.ToString());
  }
  const Ints strides = DenseStrides(data.shape);
  const int64_t tuples = Product(std::span(indices.shape.dims()).first(q - 1));
  const int64_t slice = Product(std::span(data.shape.dims()).subspan(k));
  const Ints dims = data.shape.dims();
  const DType dtype = data.dtype;
  auto run = [=](std::span<const TensorView> in,
                 std::span<const TensorView> out,
                 std::span<std::byte>) -> absl::Status {
    if (out[0].data != in[0].data && in[0].ByteSize() > 0)
      std::memcpy(out[0].data, in[0].data, in[0].ByteSize());
    const int64_t* idx = in[1].as<const int64_t>();
    Ints offsets(tuples);
    for (int64_t t = 0; t < tuples; ++t) {
      int64_t offset = 0;
      for (int64_t j = 0; j < k; ++j) {
        const int64_t v = idx[t * k + j];
        if (v < -dims[j] || v >= dims[j]) {
          return InvalidArgument("ScatterND: index ", v, " of tuple ", t,
                                 " is out of range for axis ", j, " of size ",
                                 dims[j]);
        }
        offset += (v < 0 ? v + dims[j] : v) * strides[j];
      }
      offsets[t] = offset;
    }
    return VisitDType(dtype, [&]<typename T>() -> absl::Status {
      const T* u = in[2].as<const T>();
      T* y = out[0].as<T>();
      for (int64_t t = 0; t < tuples; ++t) {
        for (int64_t e = 0; e < slice; ++e)
          Reduce(reduction, y + offsets[t] + e, u[t * slice + e]);
      }
      return absl::OkStatus();
    });
  };
  return Prepared({data}, MakeKernel(std::move(run)));
}

// ---------------------------------------------------------------------------------------------
// Trilu, EyeLike, OneHot.

absl::StatusOr<PreparedKernel> PrepareTrilu(const OpContext& context) {
  const TensorInfo& input = context.inputs[0];
  if (input.shape.rank() < 2) {
    return InvalidArgument("input must have rank >= 2, got ",
                           input.shape.ToString());
  }
  ASSIGN_OR_RETURN(int64_t upper, context.attrs.GetInt("upper", 1));
  int64_t k = 0;
  if (context.has_input(1)) {
    ASSIGN_OR_RETURN(Ints values, ReadConstantInts(context, 1, "k"));
    if (values.size() != 1)
      return InvalidArgument("input 'k' must be a scalar");
    k = values[0];
  }
  const int64_t rows = input.shape[input.shape.rank() - 2];
  const int64_t cols = input.shape[input.shape.rank() - 1];
  const int64_t matrices =
      input.NumElements() / std::max<int64_t>(rows * cols, 1);
  const size_t esize = DTypeSize(input.dtype);
  auto run = [=](std::span<const TensorView> in,
                 std::span<const TensorView> out,
                 std::span<std::byte>) -> absl::Status {
    const std::byte* x = in[0].as<const std::byte>();
    std::byte* y = out[0].as<std::byte>();
    for (int64_t m = 0; m < matrices; ++m) {
      for (int64_t i = 0; i < rows; ++i) {
        for (int64_t j = 0; j < cols; ++j) {
          const size_t at = ((m * rows + i) * cols + j) * esize;
          const bool keep = upper ? j - i >= k : j - i <= k;
          if (keep) {
            std::memcpy(y + at, x + at, esize);
          } else {
            std::memset(y + at, 0, esize);
          }
        }
      }
    }
    return absl::OkStatus();
  };
  return Prepared({input}, MakeKernel(std::move(run)));
}

absl::StatusOr<PreparedKernel> PrepareEyeLike(const OpContext& context) {
  const TensorInfo& input = context.inputs[0];
  if (input.shape.rank() != 2) {
    return InvalidArgument("input must be 2-D, got ", input.shape.ToString());
  }
  DType dtype = input.dtype;
  if (context.attrs.Has("dtype")) {
    ASSIGN_OR_RETURN(int64_t onnx_type, context.attrs.GetInt("dtype", 0));
    std::optional<DType> t = FromOnnxDataType(static_cast<int32_t>(onnx_type));
    if (!t) return Unimplemented("dtype ", onnx_type, " is not supported");
    dtype = *t;
  }
  ASSIGN_OR_RETURN(int64_t k, context.attrs.GetInt("k", 0));
  const int64_t rows = input.shape[0], cols = input.shape[1];
  auto run = [=](std::span<const TensorView>, std::span<const TensorView> out,
                 std::span<std::byte>) -> absl::Status {
    VisitDType(dtype, [&]<typename T>() {
      T* y = out[0].as<T>();
      for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < cols; ++j) {
          if constexpr (std::is_same_v<T, bool>) {
            y[i * cols + j] = j - i == k;
          } else {
            y[i * cols + j] = Store<T>(j - i == k ? 1.0f : 0.0f);
          }
        }
    });
    return absl::OkStatus();
  };
  return Prepared({TensorInfo{dtype, input.shape}}, MakeKernel(std::move(run)));
}

absl::StatusOr<PreparedKernel> PrepareOneHot(const OpContext& context) {
  const TensorInfo& indices = context.inputs[0];
  const TensorInfo& values = context.inputs[2];
  RETURN_IF_ERROR(RequireDType(indices, kNumericTypes, "input 'indices'"));
  const TensorView* depth_view = context.constant(1);
  if (depth_view == nullptr) {
    return NotKnownBeforeExecution("depth");
  }
  ASSIGN_OR_RETURN(double depth_value,
                   ReadScalarAsDouble(*depth_view, "depth"));
  const int64_t depth = static_cast<int64_t>(depth_value);
  if (depth < 1 || depth > kMaxTensorElements) {
    return InvalidArgument("depth ", depth_value, " must be positive");
  }
  if (values.NumElements() != 2) {
    return InvalidArgument("input 'values' must hold [off, on], got ",
                           values.shape.ToString());
  }
  const int64_t rank = static_cast<int64_t>(indices.shape.rank()) + 1;
  ASSIGN_OR_RETURN(int64_t axis_attr, context.attrs.GetInt("axis", -1));
  ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(axis_attr, rank, "axis"));
  Ints out_dims = indices.shape.dims();
  out_dims.insert(out_dims.begin() + axis, depth);
  RETURN_IF_ERROR(CheckedNumElements(out_dims).status());
  const int64_t outer = Product(std::span(indices.shape.dims()).first(axis));
  const int64_t inner = Product(std::span(indices.shape.dims()).subspan(axis));
  const size_t esize = DTypeSize(values.dtype);
  const DType index_type = indices.dtype;
  auto run = [=](std::span<const TensorView> in,
                 std::span<const TensorView> out,
                 std::span<std::byte>) -> absl::Status {
    const std::byte* off = in[2].as<const std::byte>();
    const std::byte* on = off + esize;
    std::byte* y = out[0].as<std::byte>();
    for (int64_t i = 0; i < outer * depth * inner; ++i)
      std::memcpy(y + i * esize, off, esize);
    VisitDType(index_type, [&]<typename I>() {
      const I* idx = in[0].as<const I>();
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t i = 0; i < inner; ++i) {
          const auto raw = Load(idx[o * inner + i]);
          // uint64 indices past int64 are out of range, not negative.
          if constexpr (std::is_unsigned_v<decltype(raw)>) {
            if (raw >= static_cast<uint64_t>(depth)) continue;
          }
          int64_t v = static_cast<int64_t>(raw);
          if (v < 0) v += depth;
          if (v < 0 || v >= depth) continue;  // out of range: all "off"
          std::memcpy(y + ((o * depth + v) * inner + i) * esize, on, esize);
        }
    });
    return absl::OkStatus();
  };
  return Prepared({TensorInfo{values.dtype, Shape(out_dims)}},
                  MakeKernel(std::move(run)));
}

// ---------------------------------------------------------------------------------------------
// DepthToSpace / SpaceToDepth: a 6-D transpose.

absl::StatusOr<PreparedKernel> PrepareDepthSpace(const OpContext& context,
                                                 bool to_space) {
  const TensorInfo& input = context.inputs[0];
  if (input.shape.rank() != 4) {
    return InvalidArgument("input must be [N, C, H, W], got ",
                           input.shape.ToString());
  }
  ASSIGN_OR_RETURN(int64_t bs, context.attrs.GetInt("blocksize", 0));
  ASSIGN_OR_RETURN(std::string mode, context.attrs.GetString("mode", "DCR"));
  if (mode != "DCR" && mode != "CRD") {
    return InvalidArgument("mode '", mode, "' is not DCR or CRD");
  }
  const int64_t n = input.shape[0], c = input.shape[1], h = input.shape[2],
                w = input.shape[3];
  if (bs < 1 || (to_space && c % (bs * bs) != 0) ||
      (!to_space && (h % bs != 0 || w % bs != 0))) {
    return InvalidArgument("blocksize ", bs, " does not divide ",
                           to_space ? "the channels of " : "H and W of ",
                           input.shape.ToString());
  }
  // Source view dims/strides (in elements) in output order.
  Ints dims, strides;
  Shape out_shape;
  if (to_space) {
    const int64_t oc = c / (bs * bs);
    out_shape = Shape({n, oc, h * bs, w * bs});
    // Output [n, oc, h, b1, w, b2] reads input channel
    // DCR: (b1 * bs + b2) * oc + c';  CRD: c' * bs * bs + b1 * bs + b2.
    const int64_t hw = h * w;
    const int64_t s_c = mode == "DCR" ? hw : bs * bs * hw;
    const int64_t s_b1 = mode == "DCR" ? bs * oc * hw : bs * hw;
    const int64_t s_b2 = mode == "DCR" ? oc * hw : hw;
    dims = {n, oc, h, bs, w, bs};
    strides = {c * hw, s_c, w, s_b1, 1, s_b2};
  } else {
    const int64_t oh = h / bs, ow = w / bs;
    out_shape = Shape({n, c * bs * bs, oh, ow});
    // Output channel (b1 * bs + b2) * c + c' at [oh, ow] reads
    // input [c', oh * bs + b1, ow * bs + b2].
    dims = {n, bs, bs, c, oh, ow};
    strides = {c * h * w, w, 1, h * w, bs * w, bs};
  }
  const size_t esize = DTypeSize(input.dtype);
  auto run = [dims, strides, esize](std::span<const TensorView> in,
                                    std::span<const TensorView> out,
                                    std::span<std::byte>) -> absl::Status {
    const std::byte* x = in[0].as<const std::byte>();
    std::byte* y = out[0].as<std::byte>();
    Ints counter(6, 0);
    const int64_t total = Product(dims);
    int64_t src = 0;
    for (int64_t k = 0; k < total; ++k) {
      std::memcpy(y + k * esize, x + src * esize, esize);
      for (size_t d = 6; d-- > 0;) {
        src += strides[d];
        if (++counter[d] < dims[d]) break;
        src -= strides[d] * dims[d];
        counter[d] = 0;
      }
    }
    return absl::OkStatus();
  };
  return Prepared({TensorInfo{input.dtype, std::move(out_shape)}},
                  MakeKernel(std::move(run)));
}

absl::StatusOr<PreparedKernel> PrepareDepthToSpace(const OpContext& context) {
  return PrepareDepthSpace(context, true);
}
absl::StatusOr<PreparedKernel> PrepareSpaceToDepth(const OpContext& context) {
  return PrepareDepthSpace(context, false);
}

// ---------------------------------------------------------------------------------------------
// CumSum.

absl::StatusOr<PreparedKernel> PrepareCumSum(const OpContext& context) {
  const TensorInfo& x = context.inputs[0];
  RETURN_IF_ERROR(RequireDType(x, kNumericTypes, "input 'x'"));
  ASSIGN_OR_RETURN(Ints axis_values, ReadConstantInts(context, 1, "axis"));
  if (axis_values.size() != 1)
    return InvalidArgument("'axis' must be a scalar");
  const int64_t rank = static_cast<int64_t>(x.shape.rank());
  ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(axis_values[0], rank, "axis"));
  ASSIGN_OR_RETURN(int64_t exclusive, context.attrs.GetInt("exclusive", 0));
  ASSIGN_OR_RETURN(int64_t reverse, context.attrs.GetInt("reverse", 0));
  const int64_t outer = Product(std::span(x.shape.dims()).first(axis));
  const int64_t count = x.shape[axis];
  const int64_t inner = Product(std::span(x.shape.dims()).subspan(axis + 1));
  const DType dtype = x.dtype;
  auto run = [=](std::span<const TensorView> in,
                 std::span<const TensorView> out,
                 std::span<std::byte>) -> absl::Status {
    return VisitDType(dtype, [&]<typename T>() -> absl::Status {
      if constexpr (!std::is_same_v<T, bool>) {
        // Unsigned sums wrap in uint64_t, where wrapping is defined.
        using C = std::conditional_t<
            std::is_floating_point_v<ComputeType<T>>, double,
            std::conditional_t<std::is_unsigned_v<T>, uint64_t, int64_t>>;
        const T* xs = in[0].as<const T>();
        T* ys = out[0].as<T>();
        for (int64_t o = 0; o < outer; ++o)
          for (int64_t i = 0; i < inner; ++i) {
            C sum = 0;
            for (int64_t step = 0; step < count; ++step) {
              const int64_t r = reverse ? count - 1 - step : step;
              const int64_t at = (o * count + r) * inner + i;
              const C v = static_cast<C>(Load(xs[at]));
              if (!exclusive) sum += v;
              ys[at] = Store<T>(sum);
              if (exclusive) sum += v;
            }
          }
      }
      return absl::OkStatus();
    });
  };
  return Prepared({x}, MakeKernel(std::move(run)));
}

// ---------------------------------------------------------------------------------------------
// TopK: values and int64 indices of the k largest (or smallest) along an axis,
// sorted; ties keep the lower index first. NaN counts as larger than any number
// (as numpy sorts it).

absl::StatusOr<PreparedKernel> PrepareTopK(const OpContext& context) {
  const TensorInfo& x = context.inputs[0];
  RETURN_IF_ERROR(RequireDType(x, kNumericTypes, "input 'X'"));
  ASSIGN_OR_RETURN(Ints k_values, ReadConstantInts(context, 1, "K"));
  if (k_values.size() != 1) return InvalidArgument("'K' must hold one value");
  const int64_t rank = static_cast<int64_t>(x.shape.rank());
  ASSIGN_OR_RETURN(int64_t axis_attr, context.attrs.GetInt("axis", -1));
  ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(axis_attr, rank, "axis"));
  ASSIGN_OR_RETURN(int64_t largest, context.attrs.GetInt("largest", 1));
  const int64_t k = k_values[0];
  const int64_t count = x.shape[axis];
  if (k < 0 || k > count) {
    return InvalidArgument("K = ", k, " is outside 0..", count, " (axis ", axis,
                           " of ", x.shape.ToString(), ")");
  }
  Shape out_shape = x.shape;
  out_shape[axis] = k;
  const int64_t outer = Product(std::span(x.shape.dims()).first(axis));
  const int64_t inner = Product(std::span(x.shape.dims()).subspan(axis + 1));
  const DType dtype = x.dtype;
  auto run = [=](std::span<const TensorView> in,
                 std::span<const TensorView> out,
                 std::span<std::byte>) -> absl::Status {
    return VisitDType(dtype, [&]<typename T>() -> absl::Status {
      if constexpr (!std::is_same_v<T, bool>) {
        using C = ComputeType<T>;
        const T* xs = in[0].as<const T>();
        T* values = out[0].as<T>();
        int64_t* indices = out[1].as<int64_t>();
        std::vector<int64_t> order(count);
        for (int64_t o = 0; o < outer; ++o)
          for (int64_t i = 0; i < inner; ++i) {
            auto at = [&](int64_t r) {
              return Load(xs[(o * count + r) * inner + i]);
            };
            std::iota(order.begin(), order.end(), 0);
            auto before = [&](int64_t a, int64_t b) {
              const C va = at(a), vb = at(b);
              if constexpr (std::is_floating_point_v<C>) {
                const bool na = va != va, nb = vb != vb;
                if (na || nb) {
                  if (na && nb) return a < b;
                  return largest ? na : nb;
                }
              }
              if (va != vb) return largest ? va > vb : va < vb;
              return a < b;
            };
            std::partial_sort(order.begin(), order.begin() + k, order.end(),
                              before);
            for (int64_t j = 0; j < k; ++j) {
              const int64_t dst = (o * k + j) * inner + i;
              values[dst] = xs[(o * count + order[j]) * inner + i];
              indices[dst] = order[j];
            }
          }
      }
      return absl::OkStatus();
    });
  };
  return Prepared(
      {TensorInfo{dtype, out_shape}, TensorInfo{DType::kInt64, out_shape}},
      MakeKernel(std::move(run)));
}

// ---------------------------------------------------------------------------------------------
// Dropout in inference (or training with ratio 0): the identity, and an
// all-true mask.

absl::StatusOr<PreparedKernel> PrepareDropout(const OpContext& context) {
  const TensorInfo& x = context.inputs[0];
  if (context.has_input(2)) {
    const TensorView* training = context.constant(2);
    if (training == nullptr) {
      return NotKnownBeforeExecution("training_mode");
    }
    if (training->NumElements() != 1 || training->dtype != DType::kBool) {
      return InvalidArgument("input 'training_mode' must be a bool scalar");
    }
    if (*training->as<const bool>()) {
      // Exporters leave training_mode on for attention dropouts whose ratio
      // is 0 (Swin): that keeps every element, so it is still the identity.
      const TensorView* ratio = context.constant(1);
      if (!context.has_input(1) || ratio == nullptr) {
        return Unimplemented(
            "training_mode = true needs a 'ratio' input known before "
            "execution; acldump runs inference only and supports a ratio of "
            "0 there (re-export the model in eval mode otherwise)");
      }
      ASSIGN_OR_RETURN(double ratio_value, ReadScalarAsDouble(*ratio, "ratio"));
      if (ratio_value != 0) {
        return Unimplemented(
            "training_mode = true with ratio ", ratio_value,
            " (random dropout) is not supported: acldump runs inference "
            "only; re-export the model in eval mode");
      }
    }
  }
  std::vector<TensorInfo> outputs = {x};
  if (context.num_outputs > 1) {
    outputs.push_back(TensorInfo{DType::kBool, x.shape});
  }
  auto run = [](std::span<const TensorView> in, std::span<const TensorView> out,
                std::span<std::byte>) -> absl::Status {
    if (out[0].data != in[0].data && in[0].ByteSize() > 0)
      std::memcpy(out[0].data, in[0].data, in[0].ByteSize());
    if (out.size() > 1) {
      std::fill(out[1].as<bool>(), out[1].as<bool>() + out[1].NumElements(),
                true);
    }
    return absl::OkStatus();
  };
  return Prepared(std::move(outputs), MakeKernel(run));
}

}  // namespace

absl::Status RegisterIndexingOps(OpRegistry& registry) {
  return registry.RegisterAll({
      {"GatherElements", 2, 2, 1, 1, PrepareGatherElements},
      {"ScatterElements", 3, 3, 1, 1, PrepareScatterElements},
      {"Scatter", 3, 3, 1, 1, PrepareScatterElements},
      {"GatherND", 2, 2, 1, 1, PrepareGatherND},
      {"ScatterND", 3, 3, 1, 1, PrepareScatterND},
      {"Trilu", 1, 2, 1, 1, PrepareTrilu},
      {"EyeLike", 1, 1, 1, 1, PrepareEyeLike},
      {"OneHot", 3, 3, 1, 1, PrepareOneHot},
      {"DepthToSpace", 1, 1, 1, 1, PrepareDepthToSpace},
      {"SpaceToDepth", 1, 1, 1, 1, PrepareSpaceToDepth},
      {"CumSum", 2, 2, 1, 1, PrepareCumSum},
      {"TopK", 2, 2, 2, 2, PrepareTopK},
      {"Dropout", 1, 3, 1, 2, PrepareDropout},
  });
}

}  // namespace acldump
