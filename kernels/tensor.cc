#include "kernels/tensor.h"

#include <cstring>
#include <new>

#include "base/strings.h"

namespace acldump {

std::string TensorInfo::ToString() const {
  return StrCat(DTypeName(dtype), shape.ToString());
}

AlignedBuffer::AlignedBuffer(size_t bytes, bool zeroed) : size_(bytes) {
  if (bytes == 0) return;
  const size_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
  void* p = std::aligned_alloc(kAlignment, rounded);
  if (p == nullptr) throw std::bad_alloc();
  if (zeroed) std::memset(p, 0, rounded);
  data_.reset(static_cast<std::byte*>(p));
}

Tensor::Tensor(DType dtype, Shape shape)
    : dtype_(dtype),
      shape_(std::move(shape)),
      buffer_(static_cast<size_t>(shape_.NumElements()) * DTypeSize(dtype)) {}

Tensor Tensor::Clone() const {
  Tensor copy(dtype_, shape_);
  if (ByteSize() > 0) std::memcpy(copy.data(), data(), ByteSize());
  return copy;
}

}  // namespace acldump
