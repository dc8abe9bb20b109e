#include "kernels/tensor.h"

#include <sys/mman.h>

#include <cstdint>
#include <cstring>
#include <new>
#include <stdexcept>

#include "base/strings.h"

namespace acldump {

std::string TensorInfo::ToString() const {
  return StrCat(DTypeName(dtype), shape.ToString());
}

// Buffers this large (arenas, packed weights) go on 2 MiB pages where the
// kernel allows it: kernels walk NCHW planes a page or more apart, and with
// 4 KiB pages every such step misses the TLB.
constexpr size_t kHugePage = size_t{2} << 20;

AlignedBuffer::AlignedBuffer(size_t bytes, bool zeroed) : size_(bytes) {
  if (bytes == 0) return;
  const bool huge = bytes >= kHugePage;
  const size_t alignment = huge ? kHugePage : kAlignment;
  // A size near SIZE_MAX (a negative count cast) would round to a small
  // allocation behind a huge size().
  if (bytes > SIZE_MAX - alignment) throw std::bad_alloc();
  const size_t rounded = (bytes + alignment - 1) / alignment * alignment;
  void* p = std::aligned_alloc(alignment, rounded);
  if (p == nullptr) throw std::bad_alloc();
  // Advice only: without transparent huge pages nothing changes.
  if (huge) madvise(p, rounded, MADV_HUGEPAGE);
  if (zeroed) std::memset(p, 0, rounded);
  data_.reset(static_cast<std::byte*>(p));
}

namespace {

// An unknown (-1) dimension has no size: such a shape is a caller's bug, and
// allocating it must not wrap around.
size_t TensorBytes(const Shape& shape, DType dtype) {
  const int64_t count = shape.NumElements();
  bool unknown = false;
  for (int64_t dim : shape.dims()) unknown |= dim < 0;
  if (unknown) {
    throw std::length_error("a tensor of shape " + shape.ToString() +
                            " (an unknown dimension) has no size");
  }
  const size_t element = DTypeSize(dtype);
  if (element != 0 && static_cast<uint64_t>(count) > SIZE_MAX / element) {
    throw std::bad_alloc();
  }
  return static_cast<size_t>(count) * element;
}

}  // namespace

Tensor::Tensor(DType dtype, Shape shape)
    : dtype_(dtype),
      shape_(std::move(shape)),
      buffer_(TensorBytes(shape_, dtype)) {}

Tensor::Tensor(DType dtype, Shape shape, bool zeroed)
    : dtype_(dtype),
      shape_(std::move(shape)),
      buffer_(TensorBytes(shape_, dtype), zeroed) {}

Tensor Tensor::Clone() const {
  Tensor copy(dtype_, shape_);
  if (ByteSize() > 0) std::memcpy(copy.data(), data(), ByteSize());
  return copy;
}

}  // namespace acldump
