// Built with -mavx2 (dump/BUILD). Nothing else belongs here: any inline C++
// function emitted by this file could be picked by the linker for callers on
// CPUs without AVX2.
#include "dump/xxh3_avx2.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace acldump::dump {

void Xxh3UpdateAvx2(void* state, const void* bytes, size_t size) {
  XXH3_64bits_update(static_cast<XXH3_state_t*>(state), bytes, size);
}

uint64_t Xxh3HashAvx2(const void* bytes, size_t size) {
  return XXH3_64bits(bytes, size);
}

}  // namespace acldump::dump
