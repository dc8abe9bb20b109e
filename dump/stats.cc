#include "dump/stats.h"

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <type_traits>
#include <vector>

#ifndef ACLDUMP_STATS_XXHASH_
#define ACLDUMP_STATS_XXHASH_
// Header-only: nothing to link, nothing for a release to ship.
#define XXH_INLINE_ALL
#include <xxhash.h>

namespace acldump::dump {
// Where each block's bytes go once its statistics are taken (the checksum).
// Two types rather than a null check so that the plain stats pass compiles to
// exactly what it was before checksums existed.
struct HashSink {
  XXH3_state_t* state;
  void (*update)(void* state, const void* bytes, size_t size);
  void operator()(const void* bytes, size_t size) const {
    update(state, bytes, size);
  }
};
struct NoSink {
  void operator()(const void*, size_t) const {}
};
// Tensors from this many elements take their statistics on the intra-op
// threads (a checksum still hashes the bytes in order, on one of them).
inline constexpr size_t kParallelMinElements = size_t{1} << 17;
}  // namespace acldump::dump
#endif  // ACLDUMP_STATS_XXHASH_

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "dump/stats.cc"
#include "dump/xxh3_avx2.h"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "kernels/half.h"
#include "kernels/threading.h"

HWY_BEFORE_NAMESPACE();
namespace acldump::dump::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Elements per block: partial sums stay in float32 lanes for one block (64
// additions per lane of the three accumulator sets, so little rounding), then
// move to double.
constexpr size_t kBlock = 1536;
// Each intra-op thread of a parallel pass takes runs of at least this many
// blocks (about 64K elements: far more work than waking a thread).
constexpr size_t kParallelGrainBlocks = 42;
// Blocks hashed per call of the checksum's sink: XXH3's streaming update costs
// about a quarter more per byte when fed one 6 KB block at a time.
constexpr size_t kHashBlocks = 8;

// Scalar fallback for a block that holds a NaN or an infinity.
inline void AccumulateScalar(const float* p, size_t n, TensorStats& s) {
  for (size_t i = 0; i < n; ++i) {
    const float v = p[i];
    if (std::isnan(v)) {
      ++s.nan;
    } else if (std::isinf(v)) {
      ++(v > 0 ? s.positive_inf : s.negative_inf);
    } else {
      if (s.finite == 0) {
        s.max = s.min = v;
      } else {
        s.max = std::max<double>(s.max, v);
        s.min = std::min<double>(s.min, v);
      }
      ++s.finite;
      s.sum += v;
      s.sum_squares += static_cast<double>(v) * v;
    }
  }
}

// One accumulator set of a block: sums, sums of squares, maxima, minima.
template <class D>
struct BlockSums {
  using V = hn::Vec<D>;
  BlockSums(D d, V max_start, V min_start)
      : sum(hn::Zero(d)),
        sum_squares(hn::Zero(d)),
        max(max_start),
        min(min_start) {}
  void Take(V v) {
    sum = hn::Add(sum, v);
    sum_squares = hn::MulAdd(v, v, sum_squares);
    max = hn::Max(max, v);
    min = hn::Min(min, v);
  }
  void Merge(const BlockSums& other) {
    sum = hn::Add(sum, other.sum);
    sum_squares = hn::Add(sum_squares, other.sum_squares);
    max = hn::Max(max, other.max);
    min = hn::Min(min, other.min);
  }
  V sum, sum_squares, max, min;
};

// The elements [i, block_end) into the three accumulator sets, in the one
// order both passes share (their results are the same bits because of it).
template <class Load, class Sums>
HWY_INLINE void TakeBlock(const Load& load, size_t i, size_t block_end,
                          size_t lanes, Sums& p0, Sums& p1, Sums& p2) {
  size_t j = i;
  for (; j + 3 * lanes <= block_end; j += 3 * lanes) {
    p0.Take(load(j));
    p1.Take(load(j + lanes));
    p2.Take(load(j + 2 * lanes));
  }
  for (; j < block_end; j += lanes) p0.Take(load(j));
}

// Stats over float32 values produced by `load(i)` (one vector at element i),
// for the first n - n % Lanes elements; the caller handles the tail.
//
// Three independent sets of accumulators hide the add latency, and finiteness
// is checked once per block, on its sums: a NaN or an infinity makes them
// non-finite (so does a sum that overflows float; that block is redone
// element by element in double, which is exact anyway).
template <class D, class Load, class Sink>
void StatsBlocks(D d, size_t n, Load load, TensorStats& s, float* scratch,
                 const Sink& sink, const char* bytes, size_t width) {
  const size_t lanes = hn::Lanes(d);
  const size_t vector_end = n - n % lanes;
  auto vmax = hn::Set(d, -std::numeric_limits<float>::infinity());
  auto vmin = hn::Set(d, std::numeric_limits<float>::infinity());
  double vector_sum = 0, vector_sum_squares = 0;
  uint64_t vector_count = 0;
  size_t hashed = 0;
  for (size_t i = 0; i < vector_end;) {
    const size_t block_end = std::min(vector_end, i + kBlock);
    BlockSums<D> p0(d, vmax, vmin), p1(d, vmax, vmin), p2(d, vmax, vmin);
    TakeBlock(load, i, block_end, lanes, p0, p1, p2);
    p0.Merge(p1);
    p0.Merge(p2);
    const auto sum = p0.sum;
    const auto sum_sq = p0.sum_squares;
    if (hn::AllTrue(d, hn::And(hn::IsFinite(sum), hn::IsFinite(sum_sq)))) {
      vector_sum += static_cast<double>(hn::GetLane(hn::SumOfLanes(d, sum)));
      vector_sum_squares +=
          static_cast<double>(hn::GetLane(hn::SumOfLanes(d, sum_sq)));
      vector_count += block_end - i;
      vmax = p0.max;
      vmin = p0.min;
    } else {
      // Redo this block element by element (NaN/Inf are rare: overflow is what
      // users look for).
      for (size_t k = i; k < block_end; k += lanes) {
        hn::StoreU(load(k), d, scratch);
        AccumulateScalar(scratch, lanes, s);
      }
    }
    i = block_end;
    if (i == vector_end || i - hashed >= kHashBlocks * kBlock) {
      sink(bytes + hashed * width, (i - hashed) * width);
      hashed = i;
    }
  }
  if (vector_count > 0) {
    const double vector_max = hn::GetLane(hn::MaxOfLanes(d, vmax));
    const double vector_min = hn::GetLane(hn::MinOfLanes(d, vmin));
    s.max = s.finite > 0 ? std::max(s.max, vector_max) : vector_max;
    s.min = s.finite > 0 ? std::min(s.min, vector_min) : vector_min;
    s.finite += vector_count;
    s.sum += vector_sum;
    s.sum_squares += vector_sum_squares;
  }
}

// StatsBlocks on the intra-op threads, with the same result bit for bit on
// any thread count: each block's partial sums are taken on its own (as
// StatsBlocks takes them), then added in block order on the calling thread,
// and blocks with a NaN or an infinity are redone there, in order. The
// maxima and minima too: StatsBlocks starts a block's three accumulator sets
// from the running extremes; a chain started from -inf and then taken with
// the running maximum (Max returns its second operand on a tie, +0 against
// -0) ends on the same lanes, so the three chains of each block are kept and
// merged in block order exactly as StatsBlocks merges them.
//
// With a hash sink the bytes must still be hashed in order, so one
// participant walks the blocks from the front, taking each block's statistics
// unless another took them, then hashing it (from L1), while the others take
// statistics from the back; they meet where the hash's cost and the
// statistics' balance. Who took a block never changes its partial sums.
template <class D, class Load, class Sink = NoSink>
void StatsBlocksParallel(D d, size_t n, Load load, TensorStats& s,
                         float* scratch, const Sink& sink = NoSink{},
                         const char* bytes = nullptr, size_t width = 0) {
  struct BlockPartial {
    double sum, sum_squares;
    bool finite;
  };
  const size_t lanes = hn::Lanes(d);
  const size_t vector_end = n - n % lanes;
  const size_t blocks = (vector_end + kBlock - 1) / kBlock;
  thread_local std::vector<BlockPartial> partials;
  // Per block: the three sets' maxima, then their minima, `lanes` each.
  thread_local std::vector<float> extremes;
  if (partials.size() < blocks) partials.resize(blocks);
  if (extremes.size() < blocks * 6 * lanes) extremes.resize(blocks * 6 * lanes);
  BlockPartial* out = partials.data();
  float* lanes_out = extremes.data();
  const float inf = std::numeric_limits<float>::infinity();
  const auto take_block = [&](size_t b) {
    {
      const size_t i = b * kBlock;
      const size_t block_end = std::min(vector_end, i + kBlock);
      const auto low = hn::Set(d, -inf), high = hn::Set(d, inf);
      BlockSums<D> p0(d, low, high), p1(d, low, high), p2(d, low, high);
      TakeBlock(load, i, block_end, lanes, p0, p1, p2);
      float* extreme = lanes_out + b * 6 * lanes;
      hn::StoreU(p0.max, d, extreme);
      hn::StoreU(p1.max, d, extreme + lanes);
      hn::StoreU(p2.max, d, extreme + 2 * lanes);
      hn::StoreU(p0.min, d, extreme + 3 * lanes);
      hn::StoreU(p1.min, d, extreme + 4 * lanes);
      hn::StoreU(p2.min, d, extreme + 5 * lanes);
      p0.Merge(p1);
      p0.Merge(p2);
      BlockPartial& partial = out[b];
      partial.finite = hn::AllTrue(
          d, hn::And(hn::IsFinite(p0.sum), hn::IsFinite(p0.sum_squares)));
      if (!partial.finite) return;
      partial.sum = static_cast<double>(hn::GetLane(hn::SumOfLanes(d, p0.sum)));
      partial.sum_squares =
          static_cast<double>(hn::GetLane(hn::SumOfLanes(d, p0.sum_squares)));
    }
  };
  if constexpr (std::is_same_v<Sink, NoSink>) {
    ParallelFor(blocks, kParallelGrainBlocks, [&](size_t first, size_t last) {
      for (size_t b = first; b < last; ++b) take_block(b);
    });
  } else {
    thread_local std::unique_ptr<std::atomic<bool>[]> claims;
    thread_local size_t claims_size = 0;
    if (claims_size < blocks) {
      claims = std::make_unique<std::atomic<bool>[]>(blocks);
      claims_size = blocks;
    }
    std::atomic<bool>* claimed = claims.get();
    for (size_t b = 0; b < blocks; ++b) {
      claimed[b].store(false, std::memory_order_relaxed);
    }
    std::atomic<int64_t> back{static_cast<int64_t>(blocks)};
    const auto participants = static_cast<size_t>(CurrentIntraOpThreads());
    ParallelFor(participants, 1, [&](size_t first, size_t last) {
      for (size_t w = first; w < last; ++w) {
        if (w == 0) {
          for (size_t group = 0; group < blocks; group += kHashBlocks) {
            const size_t group_end = std::min(blocks, group + kHashBlocks);
            for (size_t b = group; b < group_end; ++b) {
              if (!claimed[b].exchange(true, std::memory_order_relaxed)) {
                take_block(b);
              }
            }
            const size_t i = group * kBlock;
            const size_t end = std::min(vector_end, group_end * kBlock);
            sink(bytes + i * width, (end - i) * width);
          }
          continue;
        }
        // Runs of blocks from the back, each read forwards (the prefetchers
        // follow a forward stream, not a backward one).
        for (bool met = false; !met;) {
          const int64_t run_end =
              back.fetch_sub(kHashBlocks, std::memory_order_relaxed);
          if (run_end <= 0) break;
          const auto run_begin = static_cast<size_t>(
              std::max<int64_t>(0, run_end - int64_t{kHashBlocks}));
          for (size_t b = run_begin; b < static_cast<size_t>(run_end); ++b) {
            if (claimed[b].exchange(true, std::memory_order_relaxed)) {
              met = true;
            } else {
              take_block(b);
            }
          }
        }
      }
    });
  }
  double vector_sum = 0, vector_sum_squares = 0;
  uint64_t vector_count = 0;
  auto vmax = hn::Set(d, -inf);
  auto vmin = hn::Set(d, inf);
  for (size_t b = 0; b < blocks; ++b) {
    const size_t i = b * kBlock;
    const size_t block_end = std::min(vector_end, i + kBlock);
    const BlockPartial& partial = out[b];
    if (partial.finite) {
      vector_sum += partial.sum;
      vector_sum_squares += partial.sum_squares;
      vector_count += block_end - i;
      const float* extreme = lanes_out + b * 6 * lanes;
      // As StatsBlocks: each set from the running extreme, then merged.
      vmax = hn::Max(hn::Max(hn::Max(vmax, hn::LoadU(d, extreme)),
                             hn::Max(vmax, hn::LoadU(d, extreme + lanes))),
                     hn::Max(vmax, hn::LoadU(d, extreme + 2 * lanes)));
      vmin = hn::Min(hn::Min(hn::Min(vmin, hn::LoadU(d, extreme + 3 * lanes)),
                             hn::Min(vmin, hn::LoadU(d, extreme + 4 * lanes))),
                     hn::Min(vmin, hn::LoadU(d, extreme + 5 * lanes)));
    } else {
      for (size_t k = i; k < block_end; k += lanes) {
        hn::StoreU(load(k), d, scratch);
        AccumulateScalar(scratch, lanes, s);
      }
    }
  }
  if (vector_count > 0) {
    const double vector_max = hn::GetLane(hn::MaxOfLanes(d, vmax));
    const double vector_min = hn::GetLane(hn::MinOfLanes(d, vmin));
    s.max = s.finite > 0 ? std::max(s.max, vector_max) : vector_max;
    s.min = s.finite > 0 ? std::min(s.min, vector_min) : vector_min;
    s.finite += vector_count;
    s.sum += vector_sum;
    s.sum_squares += vector_sum_squares;
  }
}

// kParallel: StatsBlocksParallel, else StatsBlocks.
template <class Sink, bool kParallel = false>
void Float32Stats(const float* data, size_t n, TensorStats* out,
                  const Sink& sink) {
  const hn::ScalableTag<float> d;
  HWY_ALIGN float scratch[hn::MaxLanes(d)];
  TensorStats s;
  const auto load = [&](size_t i) { return hn::LoadU(d, data + i); };
  if constexpr (kParallel) {
    StatsBlocksParallel(d, n, load, s, scratch, sink,
                        reinterpret_cast<const char*>(data), sizeof(float));
  } else {
    StatsBlocks(d, n, load, s, scratch, sink,
                reinterpret_cast<const char*>(data), sizeof(float));
  }
  const size_t tail = n - n % hn::Lanes(d);
  AccumulateScalar(data + tail, n - tail, s);
  sink(data + tail, (n - tail) * sizeof(float));
  s.count = n;
  *out = s;
}

template <class Sink, bool kParallel = false>
void Float16Stats(const uint16_t* data, size_t n, TensorStats* out,
                  const Sink& sink) {
  const hn::ScalableTag<float> d;
  const hn::Rebind<hwy::float16_t, decltype(d)> dh;
  HWY_ALIGN float scratch[hn::MaxLanes(d)];
  TensorStats s;
  const auto* halves = reinterpret_cast<const hwy::float16_t*>(data);
  const auto load = [&](size_t i) {
    return hn::PromoteTo(d, hn::LoadU(dh, halves + i));
  };
  if constexpr (kParallel) {
    StatsBlocksParallel(d, n, load, s, scratch, sink,
                        reinterpret_cast<const char*>(data), sizeof(uint16_t));
  } else {
    StatsBlocks(d, n, load, s, scratch, sink,
                reinterpret_cast<const char*>(data), sizeof(uint16_t));
  }
  const size_t tail = n - n % hn::Lanes(d);
  for (size_t i = tail; i < n; ++i) {
    scratch[0] = HalfBitsToFloat(data[i]);
    AccumulateScalar(scratch, 1, s);
  }
  sink(data + tail, (n - tail) * sizeof(uint16_t));
  s.count = n;
  *out = s;
}

void StatsFloat32(const float* data, size_t n, TensorStats* out) {
  Float32Stats(data, n, out, NoSink{});
}
void StatsFloat32Hashed(const float* data, size_t n, TensorStats* out,
                        const HashSink* sink) {
  Float32Stats(data, n, out, *sink);
}
void StatsFloat16(const uint16_t* data, size_t n, TensorStats* out) {
  Float16Stats(data, n, out, NoSink{});
}
void StatsFloat32Parallel(const float* data, size_t n, TensorStats* out) {
  Float32Stats<NoSink, true>(data, n, out, NoSink{});
}
void StatsFloat16Parallel(const uint16_t* data, size_t n, TensorStats* out) {
  Float16Stats<NoSink, true>(data, n, out, NoSink{});
}
void StatsFloat16Hashed(const uint16_t* data, size_t n, TensorStats* out,
                        const HashSink* sink) {
  Float16Stats(data, n, out, *sink);
}
void StatsFloat32HashedParallel(const float* data, size_t n, TensorStats* out,
                                const HashSink* sink) {
  Float32Stats<HashSink, true>(data, n, out, *sink);
}
void StatsFloat16HashedParallel(const uint16_t* data, size_t n,
                                TensorStats* out, const HashSink* sink) {
  Float16Stats<HashSink, true>(data, n, out, *sink);
}

bool NonFiniteFloat32(const float* data, size_t n) {
  const hn::ScalableTag<float> d;
  const size_t lanes = hn::Lanes(d);
  size_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    if (!hn::AllTrue(d, hn::IsFinite(hn::LoadU(d, data + i)))) return true;
  }
  for (; i < n; ++i) {
    if (!std::isfinite(data[i])) return true;
  }
  return false;
}

}  // namespace acldump::dump::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace acldump::dump {

HWY_EXPORT(StatsFloat32);
HWY_EXPORT(StatsFloat32Hashed);
HWY_EXPORT(StatsFloat16);
HWY_EXPORT(StatsFloat16Hashed);
HWY_EXPORT(StatsFloat32Parallel);
HWY_EXPORT(StatsFloat16Parallel);
HWY_EXPORT(StatsFloat32HashedParallel);
HWY_EXPORT(StatsFloat16HashedParallel);
HWY_EXPORT(NonFiniteFloat32);

namespace {

template <typename T>
TensorStats ScalarStats(const T* data, size_t n) {
  TensorStats s;
  s.count = n;
  for (size_t i = 0; i < n; ++i) {
    double v;
    if constexpr (std::is_same_v<T, BFloat16>) {
      v = static_cast<float>(data[i]);
    } else {
      v = static_cast<double>(data[i]);
    }
    if (std::isnan(v)) {
      ++s.nan;
      continue;
    }
    if (std::isinf(v)) {
      ++(v > 0 ? s.positive_inf : s.negative_inf);
      continue;
    }
    if (s.finite == 0) {
      s.max = s.min = v;
    } else {
      s.max = std::max(s.max, v);
      s.min = std::min(s.min, v);
    }
    ++s.finite;
    s.sum += v;
    s.sum_squares += v * v;
  }
  return s;
}

// Large tensors take their statistics on the intra-op threads; with one
// thread, the one-thread pass, without the parallel one's bookkeeping.
inline bool OnIntraOpThreads(size_t n) {
  return n >= kParallelMinElements && CurrentIntraOpThreads() > 1;
}

// `sink` null: no checksum.
[[gnu::always_inline]] inline TensorStats StatsOf(const TensorView& view,
                                                  const HashSink* sink) {
  const size_t n = static_cast<size_t>(view.NumElements());
  const void* data = view.data;
  TensorStats s;
  switch (view.dtype) {
    case DType::kFloat32: {
      const bool parallel = OnIntraOpThreads(n);
      if (sink == nullptr && parallel) {
        HWY_DYNAMIC_DISPATCH(StatsFloat32Parallel)
        (static_cast<const float*>(data), n, &s);
      } else if (sink == nullptr) {
        HWY_DYNAMIC_DISPATCH(StatsFloat32)
        (static_cast<const float*>(data), n, &s);
      } else if (parallel) {
        HWY_DYNAMIC_DISPATCH(StatsFloat32HashedParallel)
        (static_cast<const float*>(data), n, &s, sink);
      } else {
        HWY_DYNAMIC_DISPATCH(StatsFloat32Hashed)
        (static_cast<const float*>(data), n, &s, sink);
      }
      return s;
    }
    case DType::kFloat16: {
      const bool parallel = OnIntraOpThreads(n);
      if (sink == nullptr && parallel) {
        HWY_DYNAMIC_DISPATCH(StatsFloat16Parallel)
        (static_cast<const uint16_t*>(data), n, &s);
      } else if (sink == nullptr) {
        HWY_DYNAMIC_DISPATCH(StatsFloat16)
        (static_cast<const uint16_t*>(data), n, &s);
      } else if (parallel) {
        HWY_DYNAMIC_DISPATCH(StatsFloat16HashedParallel)
        (static_cast<const uint16_t*>(data), n, &s, sink);
      } else {
        HWY_DYNAMIC_DISPATCH(StatsFloat16Hashed)
        (static_cast<const uint16_t*>(data), n, &s, sink);
      }
      return s;
    }
    case DType::kBFloat16:
      return ScalarStats(static_cast<const BFloat16*>(data), n);
    case DType::kFloat64:
      return ScalarStats(static_cast<const double*>(data), n);
    case DType::kInt8:
      return ScalarStats(static_cast<const int8_t*>(data), n);
    case DType::kInt16:
      return ScalarStats(static_cast<const int16_t*>(data), n);
    case DType::kInt32:
      return ScalarStats(static_cast<const int32_t*>(data), n);
    case DType::kInt64:
      return ScalarStats(static_cast<const int64_t*>(data), n);
    case DType::kUInt8:
      return ScalarStats(static_cast<const uint8_t*>(data), n);
    case DType::kUInt16:
      return ScalarStats(static_cast<const uint16_t*>(data), n);
    case DType::kUInt32:
      return ScalarStats(static_cast<const uint32_t*>(data), n);
    case DType::kUInt64:
      return ScalarStats(static_cast<const uint64_t*>(data), n);
    case DType::kBool:
      return ScalarStats(static_cast<const uint8_t*>(data), n);
    case DType::kUndefined:
      break;
  }
  return s;
}

// A tensor's bytes (none for an undefined one).
size_t DataBytes(const TensorView& view) {
  return view.dtype == DType::kUndefined ? 0 : view.ByteSize();
}

void Xxh3UpdateBaseline(void* state, const void* bytes, size_t size) {
  XXH3_64bits_update(static_cast<XXH3_state_t*>(state), bytes, size);
}

uint64_t Xxh3HashBaseline(const void* bytes, size_t size) {
  return XXH3_64bits(bytes, size);
}

bool HasAvx2() { return (hwy::SupportedTargets() & HWY_AVX2) != 0; }

// Out of line: the hash state (over half a kilobyte, 64-byte aligned) would
// otherwise cost every plain stats call a realigned frame.
[[gnu::noinline]] TensorStats ChecksummedStats(const TensorView& view) {
  // Aligned by hand: sanitizer builds move locals to a fake stack that does
  // not honour the state's 64-byte alignment.
  constexpr size_t kAlign = alignof(XXH3_state_t);
  unsigned char raw[sizeof(XXH3_state_t) + kAlign];
  auto* state = reinterpret_cast<XXH3_state_t*>(
      (reinterpret_cast<uintptr_t>(raw) + kAlign - 1) & ~(kAlign - 1));
  XXH3_INITSTATE(state);
  XXH3_64bits_reset(state);
  static const auto update = HasAvx2() ? Xxh3UpdateAvx2 : Xxh3UpdateBaseline;
  const HashSink sink{state, update};
  TensorStats s = StatsOf(view, &sink);
  // The scalar types were not hashed on the way: hash them now.
  if (view.dtype != DType::kFloat32 && view.dtype != DType::kFloat16) {
    update(state, view.data, DataBytes(view));
  }
  s.checksum = XXH3_64bits_digest(state);
  return s;
}

}  // namespace

TensorStats ComputeStats(const TensorView& view, bool checksum) {
  if (checksum) return ChecksummedStats(view);
  return StatsOf(view, nullptr);
}

uint64_t TensorChecksum(const TensorView& view) {
  static const auto hash = HasAvx2() ? Xxh3HashAvx2 : Xxh3HashBaseline;
  return hash(view.data, DataBytes(view));
}

bool HasNonFinite(const TensorView& view) {
  const size_t n = static_cast<size_t>(view.NumElements());
  switch (view.dtype) {
    case DType::kFloat32:
      return HWY_DYNAMIC_DISPATCH(NonFiniteFloat32)(view.as<const float>(), n);
    case DType::kFloat16:
      for (size_t i = 0; i < n; ++i) {
        if ((view.as<const uint16_t>()[i] & 0x7C00u) == 0x7C00u) return true;
      }
      return false;
    case DType::kBFloat16:
      for (size_t i = 0; i < n; ++i) {
        if ((view.as<const uint16_t>()[i] & 0x7F80u) == 0x7F80u) return true;
      }
      return false;
    case DType::kFloat64:
      for (size_t i = 0; i < n; ++i) {
        if (!std::isfinite(view.as<const double>()[i])) return true;
      }
      return false;
    default:
      return false;
  }
}

}  // namespace acldump::dump
#endif  // HWY_ONCE
