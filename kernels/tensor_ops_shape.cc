// Ops whose output is the input under another shape (Reshape Flatten
// Squeeze Unsqueeze Identity), Transpose, and those whose output is known at
// prepare time (Shape Size Constant ConstantOfShape Range).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <memory>
#include <optional>

#include "kernels/kernel_util.h"
#include "kernels/tensor_ops_internal.h"

namespace acldump::tensor_ops {
namespace {

// ---------------------------------------------------------------------------------------------
// Ops whose output is the input's bytes under another shape.

std::unique_ptr<Kernel> AliasCopyKernel() {
  return MakeKernel([](std::span<const TensorView> in,
                       std::span<const TensorView> out,
                       std::span<std::byte>) -> absl::Status {
    CopyAliasable(out[0].data, in[0].data, in[0].ByteSize());
    return absl::OkStatus();
  });
}

absl::StatusOr<PreparedKernel> PrepareReshape(const OpContext& context) {
  const TensorInfo& data = context.inputs[0];
  ASSIGN_OR_RETURN(std::optional<Ints> shape,
                   IntsFromAttrOrInput(context, "shape", 1));
  if (!shape) return InvalidArgument("'shape' is required");
  ASSIGN_OR_RETURN(int64_t allowzero, context.attrs.GetInt("allowzero", 0));
  const std::string requested = IntsToString(*shape);
  Ints dims = *shape;
  std::optional<size_t> infer;
  bool has_zero = false;
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t v = dims[i];
    if (v == -1) {
      if (infer)
        return InvalidArgument("'shape' ", requested, " has more than one -1");
      infer = i;
    } else if (v == 0) {
      has_zero = true;
      if (allowzero == 0) {
        if (i >= data.shape.rank()) {
          return InvalidArgument(
              "'shape' ", requested, " copies input dimension ", i,
              " (0 at that position), but the input has rank ",
              data.shape.rank());
        }
        dims[i] = data.shape[i];
      }
    } else if (v < -1) {
      return InvalidArgument("'shape' ", requested, " has invalid dimension ",
                             v);
    }
  }
  if (allowzero != 0 && has_zero && infer) {
    return InvalidArgument("'shape' ", requested,
                           " has both 0 and -1 with allowzero=1");
  }
  const int64_t total = data.NumElements();
  if (infer) {
    Ints known = dims;
    known.erase(known.begin() + static_cast<int64_t>(*infer));
    absl::StatusOr<int64_t> known_count = CheckedNumElements(known);
    if (!known_count.ok() || *known_count == 0 || total % *known_count != 0) {
      return InvalidArgument("cannot reshape input ", data.ToString(), " to ",
                             requested,
                             ": the -1 dimension cannot be inferred");
    }
    dims[*infer] = total / *known_count;
  }
  absl::StatusOr<int64_t> count = CheckedNumElements(dims);
  if (!count.ok() || *count != total) {
    return InvalidArgument("cannot reshape input ", data.ToString(), " (",
                           total, " elements) to ", requested, " (resolved ",
                           IntsToString(dims), ")");
  }
  return Prepared({TensorInfo{data.dtype, Shape(std::move(dims))}},
                  AliasCopyKernel());
}

absl::StatusOr<PreparedKernel> PrepareFlatten(const OpContext& context) {
  const TensorInfo& input = context.inputs[0];
  const int64_t rank = static_cast<int64_t>(input.shape.rank());
  ASSIGN_OR_RETURN(int64_t axis_attr, context.attrs.GetInt("axis", 1));
  const int64_t axis = axis_attr < 0 ? axis_attr + rank : axis_attr;
  if (axis < 0 || axis > rank) {
    return InvalidArgument("attribute 'axis' ", axis_attr,
                           " is out of range for rank ", rank, " (expected ",
                           -rank, "..", rank, ")");
  }
  const std::span<const int64_t> dims(input.shape.dims());
  Shape out_shape{Product(dims.first(axis)), Product(dims.subspan(axis))};
  return Prepared({TensorInfo{input.dtype, std::move(out_shape)}},
                  AliasCopyKernel());
}

absl::StatusOr<PreparedKernel> PrepareIdentity(const OpContext& context) {
  return Prepared({context.inputs[0]}, AliasCopyKernel());
}

absl::StatusOr<PreparedKernel> PrepareSqueeze(const OpContext& context) {
  const TensorInfo& input = context.inputs[0];
  const int64_t rank = static_cast<int64_t>(input.shape.rank());
  ASSIGN_OR_RETURN(std::optional<Ints> axes_given,
                   IntsFromAttrOrInput(context, "axes", 1));
  std::vector<bool> drop(rank, false);
  // An empty axes list squeezes every size-1 axis, as when it is absent.
  if (axes_given && !axes_given->empty()) {
    ASSIGN_OR_RETURN(Ints axes, NormalizeAxes(*axes_given, rank, "'axes'"));
    for (int64_t axis : axes) {
      if (input.shape[axis] != 1) {
        return InvalidArgument("cannot squeeze axis ", axis, " of input ",
                               input.ToString(), ": its size is ",
                               input.shape[axis], ", not 1");
      }
      drop[axis] = true;
    }
  } else {
    for (int64_t k = 0; k < rank; ++k) drop[k] = input.shape[k] == 1;
  }
  Ints dims;
  for (int64_t k = 0; k < rank; ++k) {
    if (!drop[k]) dims.push_back(input.shape[k]);
  }
  return Prepared({TensorInfo{input.dtype, Shape(std::move(dims))}},
                  AliasCopyKernel());
}

absl::StatusOr<PreparedKernel> PrepareUnsqueeze(const OpContext& context) {
  const TensorInfo& input = context.inputs[0];
  ASSIGN_OR_RETURN(std::optional<Ints> axes_given,
                   IntsFromAttrOrInput(context, "axes", 1));
  if (!axes_given) return InvalidArgument("'axes' is required");
  const int64_t out_rank =
      static_cast<int64_t>(input.shape.rank() + axes_given->size());
  ASSIGN_OR_RETURN(Ints axes, NormalizeAxes(*axes_given, out_rank, "'axes'"));
  std::vector<bool> inserted(out_rank, false);
  for (int64_t axis : axes) inserted[axis] = true;
  Ints dims;
  size_t next = 0;
  for (int64_t k = 0; k < out_rank; ++k)
    dims.push_back(inserted[k] ? 1 : input.shape[next++]);
  return Prepared({TensorInfo{input.dtype, Shape(std::move(dims))}},
                  AliasCopyKernel());
}

// ---------------------------------------------------------------------------------------------
// Transpose.

absl::StatusOr<PreparedKernel> PrepareTranspose(const OpContext& context) {
  const TensorInfo& input = context.inputs[0];
  const int64_t rank = static_cast<int64_t>(input.shape.rank());
  Ints perm;
  if (context.attrs.Has("perm")) {
    ASSIGN_OR_RETURN(perm, context.attrs.GetInts("perm"));
    if (static_cast<int64_t>(perm.size()) != rank) {
      return InvalidArgument("attribute 'perm' ", IntsToString(perm), " has ",
                             perm.size(), " entries for input of rank ", rank);
    }
    std::vector<bool> seen(rank, false);
    for (int64_t axis : perm) {
      if (axis < 0 || axis >= rank || seen[axis]) {
        return InvalidArgument("attribute 'perm' ", IntsToString(perm),
                               " is not a permutation of 0..", rank - 1);
      }
      seen[axis] = true;
    }
  } else {
    for (int64_t k = rank; k-- > 0;) perm.push_back(k);
  }
  const int64_t esize = static_cast<int64_t>(DTypeSize(input.dtype));
  const Ints strides = DenseStrides(input.shape);
  Ints out_dims(rank), src_strides(rank);
  for (int64_t k = 0; k < rank; ++k) {
    out_dims[k] = input.shape[perm[k]];
    src_strides[k] = strides[perm[k]] * esize;
  }
  CopyPlan plan = SimplifyCopy(out_dims, src_strides, esize);
  Params params = PlanParams(plan);
  auto run = [plan = std::move(plan)](std::span<const TensorView> in,
                                      std::span<const TensorView> out,
                                      std::span<std::byte>) -> absl::Status {
    RunCopyPlan(plan, in[0].as<const std::byte>(), out[0].as<std::byte>());
    return absl::OkStatus();
  };
  return Prepared({TensorInfo{input.dtype, Shape(std::move(out_dims))}},
                  MakeKernel(std::move(run), 0, std::move(params)));
}

// ---------------------------------------------------------------------------------------------
// Shape, Size, Constant, ConstantOfShape, Range: outputs known at prepare time.

// A kernel that writes fixed bytes.
std::unique_ptr<Kernel> ConstantKernel(std::shared_ptr<const Tensor> value) {
  return MakeKernel(
      [value = std::move(value)](std::span<const TensorView>,
                                 std::span<const TensorView> out,
                                 std::span<std::byte>) -> absl::Status {
        CopyRaw(out[0].as<std::byte>(),
                static_cast<const std::byte*>(value->data()),
                static_cast<int64_t>(value->ByteSize()));
        return absl::OkStatus();
      });
}

std::shared_ptr<const Tensor> Int64Tensor(Shape shape,
                                          std::span<const int64_t> values) {
  auto tensor = std::make_shared<Tensor>(DType::kInt64, std::move(shape));
  if (!values.empty())
    std::memcpy(tensor->data(), values.data(), values.size_bytes());
  return tensor;
}

absl::StatusOr<PreparedKernel> PrepareShape(const OpContext& context) {
  const Shape& shape = context.inputs[0].shape;
  const int64_t rank = static_cast<int64_t>(shape.rank());
  ASSIGN_OR_RETURN(int64_t start, context.attrs.GetInt("start", 0));
  ASSIGN_OR_RETURN(int64_t end, context.attrs.GetInt("end", rank));
  if (start < 0) start += rank;
  if (end < 0) end += rank;
  start = std::clamp<int64_t>(start, 0, rank);
  end = std::clamp<int64_t>(end, 0, rank);
  const std::span<const int64_t> dims(shape.dims());
  const std::span<const int64_t> selected =
      end > start ? dims.subspan(start, end - start)
                  : std::span<const int64_t>();
  std::shared_ptr<const Tensor> value =
      Int64Tensor(Shape{static_cast<int64_t>(selected.size())}, selected);
  return Prepared({value->info()}, ConstantKernel(value));
}

absl::StatusOr<PreparedKernel> PrepareSize(const OpContext& context) {
  const int64_t count = context.inputs[0].NumElements();
  std::shared_ptr<const Tensor> value =
      Int64Tensor(Shape{}, std::span(&count, 1));
  return Prepared({value->info()}, ConstantKernel(value));
}

absl::StatusOr<PreparedKernel> PrepareConstant(const OpContext& context) {
  static constexpr std::string_view kSupported[] = {
      "value", "value_float", "value_floats", "value_int", "value_ints"};
  static constexpr std::string_view kUnsupported[] = {
      "sparse_value", "value_string", "value_strings"};
  for (std::string_view name : kUnsupported) {
    if (context.attrs.Has(name)) {
      return Unimplemented("attribute '", name,
                           "' is not supported (no sparse or string tensors)");
    }
  }
  std::vector<std::string_view> given;
  for (std::string_view name : kSupported) {
    if (context.attrs.Has(name)) given.push_back(name);
  }
  if (given.size() != 1) {
    return InvalidArgument(
        "exactly one of value, value_float, value_floats, value_int, "
        "value_ints must be set, got ",
        given.empty() ? "none" : StrJoin(given, ", "));
  }
  std::shared_ptr<const Tensor> value;
  if (given[0] == "value") {
    ASSIGN_OR_RETURN(value, context.attrs.GetTensor("value"));
    if (value == nullptr)
      return InvalidArgument("attribute 'value' holds no tensor");
  } else if (given[0] == "value_float" || given[0] == "value_floats") {
    std::vector<float> floats;
    Shape shape;
    if (given[0] == "value_float") {
      ASSIGN_OR_RETURN(float f, context.attrs.GetFloat("value_float", 0));
      floats.push_back(f);
    } else {
      ASSIGN_OR_RETURN(floats, context.attrs.GetFloats("value_floats"));
      shape = Shape{static_cast<int64_t>(floats.size())};
    }
    auto tensor = std::make_shared<Tensor>(DType::kFloat32, std::move(shape));
    if (!floats.empty())
      std::memcpy(tensor->data(), floats.data(), floats.size() * sizeof(float));
    value = std::move(tensor);
  } else if (given[0] == "value_int") {
    ASSIGN_OR_RETURN(int64_t i, context.attrs.GetInt("value_int", 0));
    value = Int64Tensor(Shape{}, std::span(&i, 1));
  } else {
    ASSIGN_OR_RETURN(Ints ints, context.attrs.GetInts("value_ints"));
    value = Int64Tensor(Shape{static_cast<int64_t>(ints.size())}, ints);
  }
  return Prepared({value->info()}, ConstantKernel(value));
}

absl::StatusOr<PreparedKernel> PrepareConstantOfShape(
    const OpContext& context) {
  ASSIGN_OR_RETURN(Ints dims, ReadConstantInts(context, 0, "input"));
  RETURN_IF_ERROR(CheckShapeValues(dims, "input 'input' (the output shape)"));
  ASSIGN_OR_RETURN(std::shared_ptr<const Tensor> value,
                   context.attrs.GetTensor("value"));
  DType dtype = DType::kFloat32;
  std::array<std::byte, 8> pattern{};
  if (value != nullptr) {
    if (value->NumElements() != 1) {
      return InvalidArgument("attribute 'value' must hold one value, got ",
                             value->info().ToString());
    }
    dtype = value->dtype();
    std::memcpy(pattern.data(), value->data(), DTypeSize(dtype));
  }
  const size_t esize = DTypeSize(dtype);
  auto run = [pattern, esize](std::span<const TensorView>,
                              std::span<const TensorView> out,
                              std::span<std::byte>) -> absl::Status {
    CopyBlocks(out[0].as<std::byte>(), pattern.data(), out[0].NumElements(), 0,
               static_cast<int64_t>(esize));
    return absl::OkStatus();
  };
  return Prepared({TensorInfo{dtype, Shape(std::move(dims))}},
                  MakeKernel(std::move(run)));
}

absl::StatusOr<PreparedKernel> PrepareRange(const OpContext& context) {
  const DType dtype = context.inputs[0].dtype;
  RETURN_IF_ERROR(
      RequireDType(context.inputs[0], kNumericTypes, "input 'start'"));
  static constexpr std::string_view kNames[] = {"start", "limit", "delta"};
  for (size_t i = 0; i < 3; ++i) {
    const TensorInfo& info = context.inputs[i];
    if (info.dtype != dtype) {
      return InvalidArgument("input '", kNames[i], "' has type ",
                             DTypeName(info.dtype), ", 'start' has ",
                             DTypeName(dtype));
    }
    if (info.NumElements() != 1) {
      return InvalidArgument("input '", kNames[i],
                             "' must be a scalar, got shape ",
                             info.shape.ToString());
    }
    if (context.constant(i) == nullptr) {
      return NotKnownBeforeExecution(kNames[i]);
    }
  }
  return VisitDType(dtype, [&]<typename T>() -> absl::StatusOr<PreparedKernel> {
    if constexpr (std::is_same_v<T, bool>) {
      return InvalidArgument("bool is not supported");
    } else {
      using C = ComputeType<T>;
      const C start = Load(*context.constant(0)->template as<const T>());
      const C limit = Load(*context.constant(1)->template as<const T>());
      const C delta = Load(*context.constant(2)->template as<const T>());
      if (delta == C(0)) return InvalidArgument("input 'delta' is 0");
      int64_t count = 0;
      if constexpr (std::is_floating_point_v<C>) {
        const double n = std::ceil(
            (static_cast<double>(limit) - static_cast<double>(start)) /
            static_cast<double>(delta));
        if (std::isnan(n) || n > static_cast<double>(kMaxTensorElements)) {
          return InvalidArgument("range (", start, ", ", limit, ", ", delta,
                                 ") has too many elements");
        }
        count = n > 0 ? static_cast<int64_t>(n) : 0;
      } else {
        const __int128 span = static_cast<__int128>(limit) - start;
        const __int128 step = delta;
        __int128 n = 0;
        if ((span > 0 && step > 0) || (span < 0 && step < 0)) {
          n = (span + step + (step > 0 ? -1 : 1)) / step;
        }
        if (n > kMaxTensorElements) {
          return InvalidArgument("range (", static_cast<int64_t>(start), ", ",
                                 static_cast<int64_t>(limit), ", ",
                                 static_cast<int64_t>(delta),
                                 ") has too many elements");
        }
        count = static_cast<int64_t>(n);
      }
      auto run = [start, delta](std::span<const TensorView>,
                                std::span<const TensorView> out,
                                std::span<std::byte>) -> absl::Status {
        T* y = out[0].as<T>();
        const int64_t n = out[0].NumElements();
        for (int64_t i = 0; i < n; ++i) {
          y[i] = Store<T>(static_cast<C>(start + static_cast<C>(i) * delta));
        }
        return absl::OkStatus();
      };
      return Prepared({TensorInfo{dtype, Shape{count}}},
                      MakeKernel(std::move(run)));
    }
  });
}

}  // namespace

absl::Status RegisterShapeOps(OpRegistry& registry) {
  return registry.RegisterAll({
      {"Reshape", 1, 2, 1, 1, PrepareReshape, true},
      {"Flatten", 1, 1, 1, 1, PrepareFlatten, true},
      {"Transpose", 1, 1, 1, 1, PrepareTranspose},
      {"Squeeze", 1, 2, 1, 1, PrepareSqueeze, true},
      {"Unsqueeze", 1, 2, 1, 1, PrepareUnsqueeze, true},
      {"Identity", 1, 1, 1, 1, PrepareIdentity, true},
      {"Shape", 1, 1, 1, 1, PrepareShape},
      {"Size", 1, 1, 1, 1, PrepareSize},
      {"Constant", 0, 0, 1, 1, PrepareConstant},
      {"ConstantOfShape", 1, 1, 1, 1, PrepareConstantOfShape},
      {"Range", 3, 3, 1, 1, PrepareRange},
  });
}

}  // namespace acldump::tensor_ops
