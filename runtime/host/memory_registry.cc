#include "runtime/host/memory_registry.h"

#include <cstdlib>

namespace acldump::host {

MemoryRegistry::Pins::~Pins() {
  if (registry_ != nullptr) registry_->Unpin(bases_);
}

void* MemoryRegistry::Allocate(size_t size, MemoryKind kind) {
  constexpr size_t kAlignment = 64;
  if (size == 0 || size > SIZE_MAX - kAlignment) return nullptr;
  void* pointer = std::aligned_alloc(
      kAlignment, (size + kAlignment - 1) / kAlignment * kAlignment);
  if (pointer == nullptr) return nullptr;
  std::lock_guard<std::mutex> lock(mutex_);
  allocations_[reinterpret_cast<uintptr_t>(pointer)] = Allocation{size, kind};
  return pointer;
}

MemoryRegistry::FreeResult MemoryRegistry::Free(void* pointer,
                                                MemoryKind kind) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = allocations_.find(reinterpret_cast<uintptr_t>(pointer));
    if (it == allocations_.end() || it->second.kind != kind) {
      return FreeResult::kUnknown;
    }
    if (it->second.pins > 0) return FreeResult::kInUse;
    allocations_.erase(it);
  }
  std::free(pointer);
  return FreeResult::kFreed;
}

std::map<uintptr_t, MemoryRegistry::Allocation>::const_iterator
MemoryRegistry::FindLocked(uintptr_t address) const {
  auto it = allocations_.upper_bound(address);
  if (it == allocations_.begin()) return allocations_.end();
  --it;
  if (address - it->first < it->second.size) return it;
  return allocations_.end();
}

bool MemoryRegistry::Contains(const void* pointer, size_t size,
                              MemoryKind kind) const {
  const uintptr_t address = reinterpret_cast<uintptr_t>(pointer);
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = FindLocked(address);
  if (it == allocations_.end() || it->second.kind != kind) return false;
  const size_t offset = address - it->first;
  return size <= it->second.size - offset;
}

bool MemoryRegistry::Holds(const void* pointer, MemoryKind kind) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = FindLocked(reinterpret_cast<uintptr_t>(pointer));
  return it != allocations_.end() && it->second.kind == kind;
}

std::shared_ptr<MemoryRegistry::Pins> MemoryRegistry::Pin(
    std::span<const void* const> pointers) {
  auto pins = std::make_shared<Pins>();
  pins->registry_ = this;
  std::lock_guard<std::mutex> lock(mutex_);
  for (const void* pointer : pointers) {
    auto it = FindLocked(reinterpret_cast<uintptr_t>(pointer));
    if (it == allocations_.end()) continue;
    ++allocations_[it->first].pins;
    pins->bases_.push_back(it->first);
  }
  return pins;
}

void MemoryRegistry::Unpin(const std::vector<uintptr_t>& bases) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (uintptr_t base : bases) {
    auto it = allocations_.find(base);
    if (it != allocations_.end() && it->second.pins > 0) --it->second.pins;
  }
}

MemoryRegistry& Memory() {
  static MemoryRegistry* const registry = new MemoryRegistry;
  return *registry;
}

}  // namespace acldump::host
