// Pad, and Expand and Tile: copies that repeat or make up source elements.
#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <optional>

#include "kernels/kernel_util.h"
#include "kernels/tensor_ops_internal.h"

namespace acldump::tensor_ops {
namespace {

// ---------------------------------------------------------------------------------------------
// Pad.

enum class PadMode { kConstant, kReflect, kEdge, kWrap };

// Position in an axis of length n (> 0) that padding position `rel` (any
// integer) reads.
int64_t PadSource(PadMode mode, int64_t rel, int64_t n) {
  if (rel >= 0 && rel < n) return rel;
  switch (mode) {
    case PadMode::kConstant:
      return -1;
    case PadMode::kEdge:
      return rel < 0 ? 0 : n - 1;
    case PadMode::kWrap: {
      const int64_t r = rel % n;
      return r < 0 ? r + n : r;
    }
    case PadMode::kReflect: {
      if (n == 1) return 0;
      const int64_t period = 2 * (n - 1);
      int64_t r = rel % period;
      if (r < 0) r += period;
      return r >= n ? period - r : r;
    }
  }
  return -1;
}

// Bytes of a scalar of `dtype` holding `value`.
std::array<std::byte, 8> ScalarBytes(DType dtype, double value) {
  std::array<std::byte, 8> bytes{};
  VisitDType(dtype, [&]<typename T>() {
    T typed;
    if constexpr (std::is_same_v<T, bool>) {
      typed = value != 0.0;
    } else {
      typed = Store<T>(static_cast<ComputeType<T>>(value));
    }
    std::memcpy(bytes.data(), &typed, sizeof(T));
  });
  return bytes;
}

// What a prepared Pad copies where: per output axis the source position (or
// -1 for the constant), and the innermost stretch copied verbatim.
struct PadPlan {
  int64_t rank = 0, esize = 0;
  Ints out_dims, strides;
  std::vector<Ints> maps;
  int64_t mid_begin = 0, mid_end = 0, mid_src = 0;
  std::array<std::byte, 8> constant_bytes{};
  bool constant_from_input = false;  // input 2, read at run time
};

absl::Status RunPad(const PadPlan& p, std::span<const TensorView> in,
                    std::span<const TensorView> out) {
  std::array<std::byte, 8> value = p.constant_bytes;
  if (p.constant_from_input) std::memcpy(value.data(), in[2].data, p.esize);
  const std::byte* src = in[0].as<const std::byte>();
  std::byte* dst = out[0].as<std::byte>();
  if (out[0].NumElements() == 0) return absl::OkStatus();
  if (p.rank == 0) {
    CopyRaw(dst, src, p.esize);
    return absl::OkStatus();
  }
  VisitElementSize(static_cast<size_t>(p.esize), [&]<size_t N>() {
    constexpr int64_t kN = N;
    const size_t last = static_cast<size_t>(p.rank - 1);
    const Ints& row_map = p.maps[last];
    const int64_t row = p.out_dims[last];
    std::vector<int64_t> counter(last, 0);
    // partial[k]: byte offset selected by axes < k, or -1 once one of them
    // reads the constant.
    std::vector<int64_t> partial(last + 1, 0);
    auto refresh = [&](size_t from) {
      for (size_t k = from; k < last; ++k) {
        const int64_t m = p.maps[k][counter[k]];
        partial[k + 1] =
            partial[k] < 0 || m < 0 ? -1 : partial[k] + m * p.strides[k] * kN;
      }
    };
    refresh(0);
    while (true) {
      if (partial[last] < 0) {
        for (int64_t j = 0; j < row; ++j)
          std::memcpy(dst + j * N, value.data(), N);
      } else {
        const std::byte* base = src + partial[last];
        auto element = [&](int64_t j) {
          const int64_t m = row_map[j];
          std::memcpy(dst + j * N, m < 0 ? value.data() : base + m * N, N);
        };
        for (int64_t j = 0; j < p.mid_begin && j < row; ++j) element(j);
        CopyRaw(dst + p.mid_begin * N, base + p.mid_src,
                (p.mid_end - p.mid_begin) * N);
        for (int64_t j = p.mid_end; j < row; ++j) element(j);
      }
      dst += row * N;
      size_t axis = last;
      while (axis-- > 0) {
        if (++counter[axis] < p.out_dims[axis]) break;
        counter[axis] = 0;
      }
      if (axis == static_cast<size_t>(-1)) return;
      refresh(axis);
    }
  });
  return absl::OkStatus();
}

absl::StatusOr<PadMode> ParsePadMode(std::string_view name) {
  if (name == "constant") return PadMode::kConstant;
  if (name == "reflect") return PadMode::kReflect;
  if (name == "edge") return PadMode::kEdge;
  if (name == "wrap") return PadMode::kWrap;
  return InvalidArgument(
      "attribute 'mode' must be constant, reflect, edge or wrap, got \"", name,
      "\"");
}

// Pad amounts per axis of the data, from the 'pads' attribute (opset <= 10)
// or inputs 1 and 3 (pads, axes).
struct PadAmounts {
  Ints pads;        // as given, for messages
  Ints begin, end;  // per data axis; negative values crop
};

absl::StatusOr<PadAmounts> ReadPadAmounts(const OpContext& context,
                                          int64_t rank) {
  ASSIGN_OR_RETURN(std::optional<Ints> pads,
                   IntsFromAttrOrInput(context, "pads", 1));
  if (!pads) return InvalidArgument("'pads' is required");
  Ints axes;
  if (!context.attrs.Has("pads") && context.has_input(3)) {
    ASSIGN_OR_RETURN(Ints given, ReadConstantInts(context, 3, "axes"));
    ASSIGN_OR_RETURN(axes, NormalizeAxes(given, rank, "'axes'"));
  } else {
    for (int64_t k = 0; k < rank; ++k) axes.push_back(k);
  }
  if (pads->size() != 2 * axes.size()) {
    return InvalidArgument("'pads' ", IntsToString(*pads), " has ",
                           pads->size(), " entries; expected ", 2 * axes.size(),
                           " (begin and end for ", axes.size(), " axes)");
  }
  PadAmounts amounts{*pads, Ints(rank, 0), Ints(rank, 0)};
  for (size_t i = 0; i < axes.size(); ++i) {
    amounts.begin[axes[i]] = (*pads)[i];
    amounts.end[axes[i]] = (*pads)[i + axes.size()];
  }
  return amounts;
}

// Pad's constant: from the 'value' attribute (opset <= 10) or input 2, which
// is read at run time (it need not be known before execution).
struct PadConstant {
  std::array<std::byte, 8> bytes{};
  bool from_input = false;
};

absl::StatusOr<PadConstant> ReadPadConstant(const OpContext& context) {
  const TensorInfo& data = context.inputs[0];
  PadConstant constant;
  if (context.attrs.Has("value")) {
    ASSIGN_OR_RETURN(float value, context.attrs.GetFloat("value", 0));
    constant.bytes = ScalarBytes(data.dtype, value);
  } else if (context.has_input(2) && !context.attrs.Has("pads")) {
    const TensorInfo& value = context.inputs[2];
    if (value.dtype != data.dtype) {
      return InvalidArgument("input 'constant_value' has type ",
                             DTypeName(value.dtype), ", data has ",
                             DTypeName(data.dtype));
    }
    if (value.NumElements() != 1) {
      return InvalidArgument(
          "input 'constant_value' must hold one value, got shape ",
          value.shape.ToString());
    }
    constant.from_input = true;
  }
  return constant;
}

// Per axis: the output size, and the part of the input left after cropping
// (its first position and length).
struct PadShape {
  Ints out_dims, lo, len;
};

// Negative pads crop the input first; positive ones then pad what is left.
absl::StatusOr<PadShape> InferPadShape(const Shape& shape,
                                       const PadAmounts& amounts, PadMode mode,
                                       std::string_view mode_name) {
  const int64_t rank = static_cast<int64_t>(shape.rank());
  const Ints& begin = amounts.begin;
  const Ints& end = amounts.end;
  const Ints* pads = &amounts.pads;
  PadShape s{Ints(rank), Ints(rank), Ints(rank)};
  for (int64_t k = 0; k < rank; ++k) {
    const int64_t dim = shape[k];
    for (int64_t pad : {begin[k], end[k]}) {
      if (pad > kMaxTensorElements || pad < -kMaxTensorElements) {
        return InvalidArgument("'pads' ", IntsToString(*pads),
                               " has out-of-range value ", pad);
      }
    }
    s.lo[k] = std::max<int64_t>(0, -begin[k]);
    s.len[k] = dim - s.lo[k] - std::max<int64_t>(0, -end[k]);
    s.out_dims[k] = dim + begin[k] + end[k];
    if (s.out_dims[k] < 0) {
      return InvalidArgument("'pads' ", IntsToString(*pads), " crop axis ", k,
                             " of size ", dim, " to a negative size ",
                             s.out_dims[k]);
    }
    if (s.len[k] < 0) s.len[k] = 0;
    if (mode != PadMode::kConstant && s.len[k] == 0 && s.out_dims[k] > 0) {
      return InvalidArgument("mode '", mode_name, "' cannot pad axis ", k,
                             ", which is empty after cropping");
    }
  }
  RETURN_IF_ERROR(CheckShapeValues(s.out_dims, "output shape"));
  return s;
}

absl::StatusOr<PreparedKernel> PreparePad(const OpContext& context) {
  const TensorInfo& data = context.inputs[0];
  const int64_t rank = static_cast<int64_t>(data.shape.rank());
  ASSIGN_OR_RETURN(std::string mode_name,
                   context.attrs.GetString("mode", "constant"));
  ASSIGN_OR_RETURN(PadMode mode, ParsePadMode(mode_name));
  ASSIGN_OR_RETURN(PadAmounts amounts, ReadPadAmounts(context, rank));
  ASSIGN_OR_RETURN(PadConstant constant, ReadPadConstant(context));
  ASSIGN_OR_RETURN(PadShape shape,
                   InferPadShape(data.shape, amounts, mode, mode_name));
  const Ints& begin = amounts.begin;
  const Ints& out_dims = shape.out_dims;
  const Ints& lo = shape.lo;
  const Ints& len = shape.len;
  const int64_t esize = static_cast<int64_t>(DTypeSize(data.dtype));
  const Ints strides = DenseStrides(data.shape);
  // Per axis: output position -> input position, or -1 for the constant.
  std::vector<Ints> maps(rank);
  for (int64_t k = 0; k < rank; ++k) {
    const int64_t pad_begin = std::max<int64_t>(0, begin[k]);
    maps[k].resize(out_dims[k]);
    for (int64_t o = 0; o < out_dims[k]; ++o) {
      const int64_t s = PadSource(mode, o - pad_begin, len[k]);
      maps[k][o] = s < 0 ? -1 : lo[k] + s;
    }
  }
  // Innermost axis: the stretch copied verbatim from the input.
  const int64_t mid_begin =
      rank > 0 ? std::max<int64_t>(0, begin[rank - 1]) : 0;
  const int64_t mid_end = rank > 0 ? mid_begin + len[rank - 1] : 0;
  const int64_t mid_src = rank > 0 ? lo[rank - 1] * esize : 0;
  PadPlan plan{
      rank,      esize,   out_dims, strides,        std::move(maps),
      mid_begin, mid_end, mid_src,  constant.bytes, constant.from_input};
  auto run = [plan = std::move(plan)](std::span<const TensorView> in,
                                      std::span<const TensorView> out,
                                      std::span<std::byte>) {
    return RunPad(plan, in, out);
  };
  return Prepared({TensorInfo{data.dtype, Shape(out_dims)}},
                  MakeKernel(std::move(run)));
}

// ---------------------------------------------------------------------------------------------
// Expand, Tile: strided copies with broadcast (stride 0) source axes.

std::unique_ptr<Kernel> CopyPlanKernel(CopyPlan plan) {
  Params params = PlanParams(plan);
  return MakeKernel(
      [plan = std::move(plan)](std::span<const TensorView> in,
                               std::span<const TensorView> out,
                               std::span<std::byte>) -> absl::Status {
        RunCopyPlan(plan, in[0].as<const std::byte>(), out[0].as<std::byte>());
        return absl::OkStatus();
      },
      0, std::move(params));
}

absl::StatusOr<PreparedKernel> PrepareExpand(const OpContext& context) {
  const TensorInfo& input = context.inputs[0];
  ASSIGN_OR_RETURN(Ints shape, ReadConstantInts(context, 1, "shape"));
  RETURN_IF_ERROR(CheckShapeValues(shape, "input 'shape'"));
  const Shape shapes[] = {input.shape, Shape(shape)};
  ASSIGN_OR_RETURN(Shape out_shape, BroadcastShapes(shapes));
  RETURN_IF_ERROR(CheckShapeValues(out_shape.dims(), "output shape"));
  const size_t rank = out_shape.rank();
  const size_t offset = rank - input.shape.rank();
  const int64_t esize = static_cast<int64_t>(DTypeSize(input.dtype));
  const Ints strides = DenseStrides(input.shape);
  Ints src_strides(rank, 0);
  for (size_t k = offset; k < rank; ++k) {
    if (input.shape[k - offset] != 1)
      src_strides[k] = strides[k - offset] * esize;
  }
  CopyPlan plan = SimplifyCopy(out_shape.dims(), src_strides, esize);
  return Prepared({TensorInfo{input.dtype, std::move(out_shape)}},
                  CopyPlanKernel(std::move(plan)));
}

absl::StatusOr<PreparedKernel> PrepareTile(const OpContext& context) {
  const TensorInfo& input = context.inputs[0];
  const size_t rank = input.shape.rank();
  ASSIGN_OR_RETURN(Ints repeats, ReadConstantInts(context, 1, "repeats"));
  if (repeats.size() != rank) {
    return InvalidArgument("input 'repeats' ", IntsToString(repeats), " has ",
                           repeats.size(), " entries for input of rank ", rank);
  }
  // Tiling axis k is broadcasting [1, d] to [r, d]: the output row-major over
  // (r, d) is the tiled axis of length r * d.
  Ints dims, src_strides;
  const int64_t esize = static_cast<int64_t>(DTypeSize(input.dtype));
  const Ints strides = DenseStrides(input.shape);
  Ints out_dims(rank);
  for (size_t k = 0; k < rank; ++k) {
    if (repeats[k] < 0) {
      return InvalidArgument("input 'repeats' ", IntsToString(repeats),
                             " has negative entry ", repeats[k]);
    }
    dims.push_back(repeats[k]);
    dims.push_back(input.shape[k]);
    src_strides.push_back(0);
    src_strides.push_back(strides[k] * esize);
  }
  RETURN_IF_ERROR(CheckShapeValues(dims, "tiled shape"));
  for (size_t k = 0; k < rank; ++k) out_dims[k] = repeats[k] * input.shape[k];
  CopyPlan plan = SimplifyCopy(dims, src_strides, esize);
  return Prepared({TensorInfo{input.dtype, Shape(std::move(out_dims))}},
                  CopyPlanKernel(std::move(plan)));
}

}  // namespace

absl::Status RegisterPadOps(OpRegistry& registry) {
  return registry.RegisterAll({
      {"Pad", 1, 4, 1, 1, PreparePad},
      {"Expand", 2, 2, 1, 1, PrepareExpand},
      {"Tile", 2, 2, 1, 1, PrepareTile},
  });
}

}  // namespace acldump::tensor_ops
