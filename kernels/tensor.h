// Tensor metadata, non-owning views over dense row-major data, and an owning
// tensor.
#ifndef ACLDUMP_KERNELS_TENSOR_H_
#define ACLDUMP_KERNELS_TENSOR_H_

#include <cstddef>
#include <cstdlib>
#include <memory>
#include <string>

#include "kernels/dtype.h"
#include "kernels/shape.h"

namespace acldump {

// dtype + shape. A default TensorInfo (kUndefined) stands for an absent
// optional input.
struct TensorInfo {
  DType dtype = DType::kUndefined;
  Shape shape;

  bool present() const { return dtype != DType::kUndefined; }
  int64_t NumElements() const { return shape.NumElements(); }
  size_t ByteSize() const {
    return static_cast<size_t>(NumElements()) * DTypeSize(dtype);
  }
  // "float32[1,3,224,224]"
  std::string ToString() const;
  friend bool operator==(const TensorInfo& a, const TensorInfo& b) {
    return a.dtype == b.dtype && a.shape == b.shape;
  }
};

// A dense row-major tensor somebody else owns. Kernels read inputs and write
// outputs through views; a view never frees its data.
struct TensorView {
  DType dtype = DType::kUndefined;
  Shape shape;
  void* data = nullptr;

  bool present() const { return dtype != DType::kUndefined; }
  int64_t NumElements() const { return shape.NumElements(); }
  size_t ByteSize() const {
    return static_cast<size_t>(NumElements()) * DTypeSize(dtype);
  }
  TensorInfo info() const { return TensorInfo{dtype, shape}; }
  template <typename T>
  T* as() const {
    return static_cast<T*>(data);
  }
};

// Memory aligned for SIMD loads; zero-initialised.
class AlignedBuffer {
 public:
  static constexpr size_t kAlignment = 64;
  AlignedBuffer() = default;
  explicit AlignedBuffer(size_t bytes, bool zeroed = true);
  AlignedBuffer(AlignedBuffer&&) noexcept = default;
  AlignedBuffer& operator=(AlignedBuffer&&) noexcept = default;

  std::byte* data() const { return data_.get(); }
  size_t size() const { return size_; }

 private:
  struct Free {
    void operator()(std::byte* p) const { std::free(p); }
  };
  std::unique_ptr<std::byte, Free> data_;
  size_t size_ = 0;
};

// An owning dense tensor.
class Tensor {
 public:
  Tensor() = default;
  Tensor(DType dtype, Shape shape);
  // `zeroed` false: the caller writes every byte (a file's weights read in
  // place, without touching the memory twice).
  Tensor(DType dtype, Shape shape, bool zeroed);
  Tensor(Tensor&&) noexcept = default;
  Tensor& operator=(Tensor&&) noexcept = default;
  Tensor Clone() const;

  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  int64_t NumElements() const { return shape_.NumElements(); }
  size_t ByteSize() const { return buffer_.size(); }
  void* data() const { return buffer_.data(); }
  template <typename T>
  T* as() const {
    return reinterpret_cast<T*>(buffer_.data());
  }
  TensorView view() const { return TensorView{dtype_, shape_, buffer_.data()}; }
  TensorInfo info() const { return TensorInfo{dtype_, shape_}; }

 private:
  DType dtype_ = DType::kUndefined;
  Shape shape_;
  AlignedBuffer buffer_;
};

}  // namespace acldump

#endif  // ACLDUMP_KERNELS_TENSOR_H_
