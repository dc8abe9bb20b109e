#include "kernels/kernel_util.h"

namespace acldump {

absl::StatusOr<std::vector<int64_t>> ReadInts(const TensorView& view,
                                              std::string_view what) {
  std::vector<int64_t> values;
  const int64_t count = view.NumElements();
  values.reserve(count);
  if (view.dtype == DType::kInt64) {
    const int64_t* data = view.as<const int64_t>();
    values.assign(data, data + count);
  } else if (view.dtype == DType::kInt32) {
    const int32_t* data = view.as<const int32_t>();
    values.assign(data, data + count);
  } else {
    return InvalidArgument(what, " must be int32 or int64, got ",
                           DTypeName(view.dtype));
  }
  return values;
}

absl::StatusOr<std::vector<int64_t>> ReadConstantInts(
    const OpContext& context, size_t index, std::string_view input_name) {
  const TensorView* value = context.constant(index);
  if (value == nullptr) return NotKnownBeforeExecution(input_name);
  return ReadInts(*value, StrCat("input '", input_name, "'"));
}

absl::StatusOr<double> ReadScalarAsDouble(const TensorView& view,
                                          std::string_view what) {
  if (view.NumElements() != 1) {
    return InvalidArgument(what, " must hold one value, got shape ",
                           view.shape.ToString());
  }
  if (view.dtype == DType::kBool || view.dtype == DType::kUndefined) {
    return InvalidArgument(what, " must be numeric, got ",
                           DTypeName(view.dtype));
  }
  return VisitDType(view.dtype, [&]<typename T>() -> absl::StatusOr<double> {
    return static_cast<double>(Load(*view.as<const T>()));
  });
}

absl::Status RequireDType(const TensorInfo& info,
                          std::span<const DType> allowed,
                          std::string_view what) {
  for (DType dtype : allowed) {
    if (info.dtype == dtype) return absl::OkStatus();
  }
  std::vector<std::string_view> names;
  for (DType dtype : allowed) names.push_back(DTypeName(dtype));
  return InvalidArgument(what, " has unsupported type ", DTypeName(info.dtype),
                         " (supported: ", StrJoin(names, ", "), ")");
}

absl::StatusOr<Shape> BroadcastShapes(std::span<const Shape> shapes) {
  size_t rank = 0;
  for (const Shape& shape : shapes) rank = std::max(rank, shape.rank());
  std::vector<int64_t> dims(rank, 1);
  for (size_t axis = 0; axis < rank; ++axis) {
    for (const Shape& shape : shapes) {
      const size_t offset = rank - shape.rank();
      if (axis < offset) continue;
      const int64_t dim = shape[axis - offset];
      if (dim == dims[axis] || dim == 1) continue;
      if (dims[axis] == 1) {
        dims[axis] = dim;
        continue;
      }
      std::vector<std::string> rendered;
      for (const Shape& s : shapes) rendered.push_back(s.ToString());
      return InvalidArgument("shapes ", StrJoin(rendered, " and "),
                             " cannot be broadcast (dimension ", axis, ": ",
                             dims[axis], " vs ", dim, ")");
    }
  }
  return Shape(std::move(dims));
}

BroadcastLoop::BroadcastLoop(const Shape& output,
                             std::span<const Shape> inputs) {
  num_elements_ = output.NumElements();
  const size_t rank = output.rank();
  // Per input, per output axis: the stride (0 where the input broadcasts).
  std::vector<std::vector<int64_t>> full(inputs.size(),
                                         std::vector<int64_t>(rank, 0));
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Shape& shape = inputs[i];
    const size_t offset = rank - shape.rank();
    int64_t stride = 1;
    for (size_t axis = rank; axis-- > offset;) {
      const int64_t dim = shape[axis - offset];
      full[i][axis] = dim == 1 ? 0 : stride;
      stride *= dim;
    }
  }
  strides_.assign(inputs.size(), {});
  for (size_t axis = 0; axis < rank; ++axis) {
    if (output[axis] == 1) continue;  // size-1 axes contribute nothing
    bool merge = !dims_.empty();
    for (size_t i = 0; merge && i < inputs.size(); ++i) {
      // The previous merged axis and this one merge when, for every input,
      // stepping the previous axis equals stepping this one dims[axis] times.
      merge = strides_[i].back() == full[i][axis] * output[axis];
    }
    if (merge) {
      dims_.back() *= output[axis];
      for (size_t i = 0; i < inputs.size(); ++i)
        strides_[i].back() = full[i][axis];
    } else {
      dims_.push_back(output[axis]);
      for (size_t i = 0; i < inputs.size(); ++i)
        strides_[i].push_back(full[i][axis]);
    }
  }
}

}  // namespace acldump
