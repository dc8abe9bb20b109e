#include "kernels/shape.h"

#include "base/strings.h"

namespace acldump {

int64_t Shape::NumElements() const {
  int64_t count = 1;
  for (int64_t dim : dims_) count *= dim;
  return count;
}

std::string Shape::ToString() const {
  return StrCat("[", StrJoin(dims_, ","), "]");
}

absl::StatusOr<int64_t> CheckedNumElements(std::span<const int64_t> dims,
                                           int64_t limit) {
  int64_t count = 1;
  bool has_zero = false;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0) {
      return absl::InvalidArgumentError(
          StrCat("dimension ", i, " is negative (", dims[i], ")"));
    }
    if (dims[i] == 0) has_zero = true;
  }
  if (has_zero) return 0;
  for (int64_t dim : dims) {
    if (dim > limit / count) {
      return absl::InvalidArgumentError(StrCat("shape [", StrJoin(dims, ","),
                                               "] has more than ", limit,
                                               " elements"));
    }
    count *= dim;
  }
  return count;
}

absl::StatusOr<int64_t> NormalizeAxis(int64_t axis, int64_t rank,
                                      std::string_view what) {
  const int64_t normalized = axis < 0 ? axis + rank : axis;
  if (normalized < 0 || normalized >= rank) {
    return absl::InvalidArgumentError(
        StrCat(what, " ", axis, " is out of range for rank ", rank,
               " (expected ", -rank, "..", rank - 1, ")"));
  }
  return normalized;
}

std::vector<int64_t> DenseStrides(const Shape& shape) {
  std::vector<int64_t> strides(shape.rank(), 1);
  for (size_t i = shape.rank(); i-- > 1;)
    strides[i - 1] = strides[i] * shape[i];
  return strides;
}

}  // namespace acldump
