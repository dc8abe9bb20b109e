// Tensor shapes: a list of non-negative int64 dimensions (rank 0 = scalar).
#ifndef ACLDUMP_KERNELS_SHAPE_H_
#define ACLDUMP_KERNELS_SHAPE_H_

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace acldump {

class Shape {
 public:
  Shape() = default;
  Shape(std::initializer_list<int64_t> dims) : dims_(dims) {}
  explicit Shape(std::vector<int64_t> dims) : dims_(std::move(dims)) {}
  explicit Shape(std::span<const int64_t> dims)
      : dims_(dims.begin(), dims.end()) {}

  size_t rank() const { return dims_.size(); }
  int64_t operator[](size_t axis) const { return dims_[axis]; }
  int64_t& operator[](size_t axis) { return dims_[axis]; }
  const std::vector<int64_t>& dims() const { return dims_; }
  std::vector<int64_t>& mutable_dims() { return dims_; }

  // Product of the dimensions; 1 for a scalar. Callers validate shapes before
  // trusting this (see CheckedNumElements).
  int64_t NumElements() const;
  // "[1,3,224,224]"; "[]" for a scalar.
  std::string ToString() const;

  friend bool operator==(const Shape& a, const Shape& b) {
    return a.dims_ == b.dims_;
  }
  friend bool operator!=(const Shape& a, const Shape& b) { return !(a == b); }

 private:
  std::vector<int64_t> dims_;
};

// The largest tensor any shape may describe, in elements: keeps element counts
// and byte sizes far from int64/size_t overflow whatever the element size.
inline constexpr int64_t kMaxTensorElements = int64_t{1} << 40;

// Number of elements, or an error when a dimension is negative or the product
// exceeds `limit`.
absl::StatusOr<int64_t> CheckedNumElements(std::span<const int64_t> dims,
                                           int64_t limit = kMaxTensorElements);

// Resolves a possibly negative axis against `rank`; error names `what` when out
// of range.
absl::StatusOr<int64_t> NormalizeAxis(int64_t axis, int64_t rank,
                                      std::string_view what = "axis");

// Row-major strides (in elements) of a dense tensor.
std::vector<int64_t> DenseStrides(const Shape& shape);

}  // namespace acldump

#endif  // ACLDUMP_KERNELS_SHAPE_H_
