// The memory aclrtMalloc ("device") and aclrtMallocHost hand out: address
// ranges, so copies can check which side is device memory and that a range
// stays inside its allocation, and pins, so memory a loaded model or queued
// stream work still uses cannot be freed under it. Process-wide (memory
// outlives aclFinalize until the caller frees it) and thread-safe.
#ifndef ACLDUMP_RUNTIME_HOST_MEMORY_REGISTRY_H_
#define ACLDUMP_RUNTIME_HOST_MEMORY_REGISTRY_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

namespace acldump::host {

enum class MemoryKind { kDevice, kHost };

class MemoryRegistry {
 public:
  // Keeps the allocations holding some addresses from being freed while it
  // lives.
  class Pins {
   public:
    Pins() = default;
    ~Pins();
    Pins(const Pins&) = delete;
    Pins& operator=(const Pins&) = delete;

   private:
    friend class MemoryRegistry;
    MemoryRegistry* registry_ = nullptr;
    std::vector<uintptr_t> bases_;
  };

  enum class FreeResult { kFreed, kUnknown, kInUse };

  // 64-byte aligned memory of `size` (> 0) bytes, or null when it cannot be
  // allocated.
  void* Allocate(size_t size, MemoryKind kind);
  FreeResult Free(void* pointer, MemoryKind kind);

  // Whether [pointer, pointer + size) lies inside one allocation of `kind`.
  bool Contains(const void* pointer, size_t size, MemoryKind kind) const;
  // Whether `pointer` points into an allocation of `kind`.
  bool Holds(const void* pointer, MemoryKind kind) const;
  // Pins the allocations the addresses point into (others are ignored: memory
  // acldump did not allocate is the caller's to keep valid).
  std::shared_ptr<Pins> Pin(std::span<const void* const> pointers);

 private:
  struct Allocation {
    size_t size = 0;
    MemoryKind kind = MemoryKind::kDevice;
    int pins = 0;
  };
  // The allocation holding `address`, or end(); mutex_ held.
  std::map<uintptr_t, Allocation>::const_iterator FindLocked(
      uintptr_t address) const;
  void Unpin(const std::vector<uintptr_t>& bases);

  mutable std::mutex mutex_;
  std::map<uintptr_t, Allocation> allocations_;  // by base address
};

// The process's registry (never destroyed: usable during exit).
MemoryRegistry& Memory();

}  // namespace acldump::host

#endif  // ACLDUMP_RUNTIME_HOST_MEMORY_REGISTRY_H_
