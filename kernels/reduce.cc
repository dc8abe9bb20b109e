// Reductions: ReduceSum/Mean/Max/Min/Prod/SumSquare/L1/L2/LogSum/LogSumExp over
// a set of axes, and ArgMax/ArgMin along one axis. Float sums accumulate in
// double; float32 sums and means add each contiguous run as eight partial
// sums in a fixed order (kernels/plane_sum.h), so the bits do not depend on
// the thread count.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "kernels/kernel_util.h"
#include "kernels/op_families.h"
#include "kernels/plane_sum.h"
#include "kernels/threading.h"

namespace acldump {
namespace {

// Float to integer conversion without undefined behaviour: saturates, NaN -> 0.
template <typename T>
T SaturatingCast(double value) {
  if (std::isnan(value)) return T(0);
  if (value <= static_cast<double>(std::numeric_limits<T>::lowest())) {
    return std::numeric_limits<T>::lowest();
  }
  if (value >= static_cast<double>(std::numeric_limits<T>::max())) {
    return std::numeric_limits<T>::max();
  }
  return static_cast<T>(value);
}

// ---------------------------------------------------------------------------------------------
// Reduce*.

enum class ReduceKind {
  kSum,
  kMean,
  kMax,
  kMin,
  kProd,
  kSumSquare,
  kL1,
  kL2,
  kLogSum,
  kLogSumExp
};

// The input as alternating groups of kept and reduced dimensions (size-1 dims
// dropped, adjacent dims of one kind merged). The input is read in order; only
// the output offset jumps.
struct ReducePlan {
  std::vector<int64_t> dims;
  std::vector<int64_t> out_strides;  // 0 for a reduced group
  int64_t in_count = 1;
  int64_t out_count = 1;
  int64_t reduce_count = 1;
};

ReducePlan MakeReducePlan(const Shape& shape,
                          const std::vector<bool>& reduced) {
  ReducePlan plan;
  std::vector<bool> kinds;
  for (size_t axis = 0; axis < shape.rank(); ++axis) {
    const int64_t dim = shape[axis];
    plan.in_count *= dim;
    (reduced[axis] ? plan.reduce_count : plan.out_count) *= dim;
    if (dim == 1) continue;
    if (!kinds.empty() && kinds.back() == reduced[axis]) {
      plan.dims.back() *= dim;
    } else {
      plan.dims.push_back(dim);
      kinds.push_back(reduced[axis]);
    }
  }
  plan.out_strides.assign(plan.dims.size(), 0);
  int64_t stride = 1;
  for (size_t i = plan.dims.size(); i-- > 0;) {
    if (kinds[i]) continue;
    plan.out_strides[i] = stride;
    stride *= plan.dims[i];
  }
  return plan;
}

// Calls f(in_offset, out_offset, count, out_stride) for each innermost run;
// out_stride is 0 when the run reduces into one output element, else 1.
template <typename F>
void ForEachRunAt(const ReducePlan& plan, size_t depth, int64_t& in_offset,
                  int64_t out_offset, F& f) {
  const int64_t dim = plan.dims[depth];
  const int64_t stride = plan.out_strides[depth];
  if (depth + 1 == plan.dims.size()) {
    f(in_offset, out_offset, dim, stride);
    in_offset += dim;
    return;
  }
  for (int64_t i = 0; i < dim; ++i) {
    ForEachRunAt(plan, depth + 1, in_offset, out_offset + i * stride, f);
  }
}

template <typename F>
void ForEachRun(const ReducePlan& plan, F&& f) {
  if (plan.in_count == 0) return;
  if (plan.dims.empty()) {
    f(int64_t{0}, int64_t{0}, int64_t{1}, int64_t{0});
    return;
  }
  int64_t in_offset = 0;
  ForEachRunAt(plan, 0, in_offset, 0, f);
}

// Unsigned types accumulate in uint64_t: int64_t would misorder uint64 values
// of 2^63 and more for Max/Min.
template <ReduceKind K, typename T>
using AccType = std::conditional_t<
    std::is_floating_point_v<ComputeType<T>> || K == ReduceKind::kLogSumExp,
    double, std::conditional_t<std::is_unsigned_v<T>, uint64_t, int64_t>>;

// Integer sums and products wrap (as numpy's do) instead of overflowing into
// undefined behaviour.
template <typename A>
inline A Add(A a, A b) {
  if constexpr (std::is_integral_v<A>) {
    return static_cast<A>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
  } else {
    return a + b;
  }
}

template <typename A>
inline A Mul(A a, A b) {
  if constexpr (std::is_integral_v<A>) {
    return static_cast<A>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
  } else {
    return a * b;
  }
}

template <typename A>
inline A MinOf(A acc, A v) {
  if constexpr (std::is_floating_point_v<A>) {
    return (v < acc || v != v) ? v : acc;
  } else {
    return v < acc ? v : acc;
  }
}

template <ReduceKind K, typename T, typename A>
inline A Identity() {
  if constexpr (K == ReduceKind::kProd) {
    return A(1);
  } else if constexpr (K == ReduceKind::kMax) {
    if constexpr (std::is_floating_point_v<A>) {
      return -std::numeric_limits<A>::infinity();
    } else {
      return static_cast<A>(std::numeric_limits<T>::lowest());
    }
  } else if constexpr (K == ReduceKind::kMin) {
    if constexpr (std::is_floating_point_v<A>) {
      return std::numeric_limits<A>::infinity();
    } else {
      return static_cast<A>(std::numeric_limits<T>::max());
    }
  } else {
    return A(0);
  }
}

template <ReduceKind K, typename A>
inline A Combine(A acc, A v) {
  if constexpr (K == ReduceKind::kMax) {
    return NanPropagatingMax(acc, v);
  } else if constexpr (K == ReduceKind::kMin) {
    return MinOf(acc, v);
  } else if constexpr (K == ReduceKind::kProd) {
    return Mul(acc, v);
  } else {
    return Add(acc, v);
  }
}

// The per-element term; `shift` is LogSumExp's per-output maximum.
template <ReduceKind K, typename A, typename T>
inline A Term(T x, double shift) {
  const A v = static_cast<A>(Load(x));
  if constexpr (K == ReduceKind::kSumSquare || K == ReduceKind::kL2) {
    return Mul(v, v);
  } else if constexpr (K == ReduceKind::kL1) {
    if constexpr (std::is_integral_v<A>) {
      if constexpr (std::is_unsigned_v<A>) {
        return v;
      } else {
        return v < 0 ? static_cast<A>(uint64_t{0} - static_cast<uint64_t>(v))
                     : v;
      }
    } else {
      return std::abs(v);
    }
  } else if constexpr (K == ReduceKind::kLogSumExp) {
    return std::exp(v - shift);
  } else {
    return v;
  }
}

template <ReduceKind K, typename T, typename A>
inline T Finish(A acc, int64_t count, double shift) {
  using C = ComputeType<T>;
  if constexpr (K == ReduceKind::kMean || K == ReduceKind::kL2 ||
                K == ReduceKind::kLogSum || K == ReduceKind::kLogSumExp) {
    double r = static_cast<double>(acc);
    if constexpr (K == ReduceKind::kMean) {
      if constexpr (std::is_integral_v<C>) {
        if (count == 0) return T(0);
      }
      r /= static_cast<double>(count);  // an empty float mean is NaN
    } else if constexpr (K == ReduceKind::kL2) {
      r = std::sqrt(r);
    } else if constexpr (K == ReduceKind::kLogSum) {
      r = std::log(r);
    } else {
      r = std::log(r) + shift;
    }
    if constexpr (std::is_integral_v<C>) {
      return SaturatingCast<T>(r);
    } else {
      return Store<T>(r);
    }
  } else if constexpr (std::is_integral_v<C>) {
    return static_cast<T>(acc);  // wraps like the accumulation
  } else {
    return Store<T>(acc);
  }
}

template <ReduceKind K, typename T>
void RunReduce(const ReducePlan& plan, const T* x, T* y,
               std::span<std::byte> workspace) {
  using A = AccType<K, T>;
  A* acc = reinterpret_cast<A*>(workspace.data());
  double* shift = nullptr;
  const int64_t out_count = plan.out_count;
  if constexpr (K == ReduceKind::kLogSumExp) {
    // Pass 1: per-output max, so exp never overflows.
    shift = reinterpret_cast<double*>(workspace.data()) + out_count;
    for (int64_t o = 0; o < out_count; ++o)
      shift[o] = -std::numeric_limits<double>::infinity();
    ForEachRun(plan, [&](int64_t in, int64_t out, int64_t n, int64_t stride) {
      if (stride == 0) {
        double m = shift[out];
        for (int64_t i = 0; i < n; ++i)
          m = NanPropagatingMax(m, static_cast<double>(Load(x[in + i])));
        shift[out] = m;
      } else {
        for (int64_t i = 0; i < n; ++i) {
          shift[out + i] = NanPropagatingMax(
              shift[out + i], static_cast<double>(Load(x[in + i])));
        }
      }
    });
    // Infinite maxima (and empty sets) are not subtracted: exp(inf - inf) would
    // be NaN.
    for (int64_t o = 0; o < out_count; ++o) {
      if (!std::isfinite(shift[o])) shift[o] = 0;
    }
  }
  constexpr bool kPlainFloatSum =
      std::is_same_v<T, float> &&
      (K == ReduceKind::kSum || K == ReduceKind::kMean);
  if constexpr (kPlainFloatSum) {
    // Reducing the trailing axes only (LayerNorm's mean): each output sums
    // one contiguous run, so outputs can go to the intra-op threads.
    const size_t groups = plan.dims.size();
    if (groups > 0 && groups <= 2 && plan.out_strides[groups - 1] == 0) {
      const int64_t n = plan.reduce_count;
      const size_t grain = static_cast<size_t>(std::max<int64_t>(
          1, int64_t{kElementwiseGrain} / std::max<int64_t>(1, n)));
      ParallelFor(out_count, grain, [&](size_t begin, size_t end) {
        for (size_t o = begin; o < end; ++o) {
          y[o] = Finish<K, T>(SumFloat32AsDouble(x + o * n, n), n, 0.0);
        }
      });
      return;
    }
  }
  for (int64_t o = 0; o < out_count; ++o) acc[o] = Identity<K, T, A>();
  ForEachRun(plan, [&](int64_t in, int64_t out, int64_t n, int64_t stride) {
    if (stride == 0) {
      const double s = shift != nullptr ? shift[out] : 0.0;
      A local = Identity<K, T, A>();
      if constexpr (kPlainFloatSum) {
        // The same order as the path above, whichever path a shape takes.
        local = SumFloat32AsDouble(x + in, n);
      } else {
        for (int64_t i = 0; i < n; ++i)
          local = Combine<K>(local, Term<K, A>(x[in + i], s));
      }
      acc[out] = Combine<K>(acc[out], local);
    } else {
      A* a = acc + out;
      const T* v = x + in;
      for (int64_t i = 0; i < n; ++i) {
        const double s = shift != nullptr ? shift[out + i] : 0.0;
        a[i] = Combine<K>(a[i], Term<K, A>(v[i], s));
      }
    }
  });
  for (int64_t o = 0; o < out_count; ++o) {
    y[o] = Finish<K, T>(acc[o], plan.reduce_count,
                        shift != nullptr ? shift[o] : 0.0);
  }
}

// Axes from the attribute (opset < 18, except ReduceSum >= 13) or the optional
// constant input 1.
absl::StatusOr<std::vector<int64_t>> ReadAxes(const OpContext& context) {
  const bool has_attr = context.attrs.Has("axes");
  const bool has_input = context.has_input(1);
  if (has_attr && has_input) {
    return InvalidArgument(
        "axes are given both as an attribute and as input 1");
  }
  if (has_attr) return context.attrs.GetInts("axes");
  if (has_input) {
    RETURN_IF_ERROR(
        RequireDType(context.inputs[1], kIndexTypes, "input 'axes'"));
    if (context.inputs[1].shape.rank() > 1) {
      return InvalidArgument("input 'axes' must be 1-D, got shape ",
                             context.inputs[1].shape.ToString());
    }
    return ReadConstantInts(context, 1, "axes");
  }
  return std::vector<int64_t>{};
}

template <ReduceKind K>
absl::StatusOr<PreparedKernel> PrepareReduce(const OpContext& context) {
  const TensorInfo& data = context.inputs[0];
  RETURN_IF_ERROR(RequireDType(data, kNumericTypes, "input 'data'"));
  ASSIGN_OR_RETURN(bool keepdims, context.attrs.GetFlag("keepdims", true));
  ASSIGN_OR_RETURN(bool noop_with_empty_axes,
                   context.attrs.GetFlag("noop_with_empty_axes", false));
  ASSIGN_OR_RETURN(std::vector<int64_t> axes, ReadAxes(context));
  const int64_t rank = static_cast<int64_t>(data.shape.rank());
  const DType dtype = data.dtype;

  if (axes.empty() && noop_with_empty_axes) {
    auto run = [](std::span<const TensorView> in,
                  std::span<const TensorView> out,
                  std::span<std::byte>) -> absl::Status {
      if (in[0].ByteSize() > 0)
        std::memcpy(out[0].data, in[0].data, in[0].ByteSize());
      return absl::OkStatus();
    };
    return Prepared({data}, MakeKernel(run, 0, {{"noop", "true"}}));
  }

  std::vector<bool> reduced(rank, axes.empty());
  for (int64_t axis : axes) {
    ASSIGN_OR_RETURN(int64_t a, NormalizeAxis(axis, rank, "axes value"));
    if (reduced[a]) {
      return InvalidArgument("axes [", StrJoin(axes, ","), "] name axis ", a,
                             " twice");
    }
    reduced[a] = true;
  }
  std::vector<int64_t> out_dims;
  for (int64_t axis = 0; axis < rank; ++axis) {
    if (!reduced[axis]) {
      out_dims.push_back(data.shape[axis]);
    } else if (keepdims) {
      out_dims.push_back(1);
    }
  }
  ReducePlan plan = MakeReducePlan(data.shape, reduced);
  const bool is_float = IsFloating(dtype);
  // double, int64_t and uint64_t (AccType) are all 8 bytes.
  const size_t acc_size = (is_float || K == ReduceKind::kLogSumExp)
                              ? sizeof(double)
                              : sizeof(int64_t);
  const size_t workspace = static_cast<size_t>(plan.out_count) * acc_size *
                           (K == ReduceKind::kLogSumExp ? 2 : 1);
  std::vector<std::pair<std::string, std::string>> params = {
      {"out_count", StrCat(plan.out_count)},
      {"reduce_count", StrCat(plan.reduce_count)},
      {"groups", StrJoin(plan.dims, "x")}};
  auto run = [plan = std::move(plan), dtype](
                 std::span<const TensorView> in,
                 std::span<const TensorView> out,
                 std::span<std::byte> ws) -> absl::Status {
    return VisitDType(dtype, [&]<typename T>() -> absl::Status {
      if constexpr (std::is_same_v<T, bool>) {
        return Unimplemented("bool input");
      } else {
        RunReduce<K, T>(plan, in[0].as<const T>(), out[0].as<T>(), ws);
        return absl::OkStatus();
      }
    });
  };
  return Prepared({TensorInfo{dtype, Shape(std::move(out_dims))}},
                  MakeKernel(std::move(run), workspace, std::move(params)));
}

// ---------------------------------------------------------------------------------------------
// ArgMax / ArgMin.

// Whether v replaces the current best. NaN counts as the extreme (numpy's
// argmax/argmin return the first NaN); with select_last_index ties (and later
// NaNs) replace.
template <bool kMax, bool kLast, typename C>
inline bool Better(C v, C best) {
  if constexpr (std::is_floating_point_v<C>) {
    const bool v_nan = v != v;
    const bool best_nan = best != best;
    if (kLast) {
      if (v_nan) return true;
      if (best_nan) return false;
      return kMax ? v >= best : v <= best;
    }
    if (best_nan) return false;
    if (v_nan) return true;
  } else if (kLast) {
    return kMax ? v >= best : v <= best;
  }
  return kMax ? v > best : v < best;
}

template <bool kMax, bool kLast, typename T>
void RunArg(const T* x, int64_t* y, int64_t outer, int64_t count,
            int64_t inner) {
  for (int64_t o = 0; o < outer; ++o) {
    const T* block = x + o * count * inner;
    int64_t* idx = y + o * inner;
    if (inner == 1) {
      auto best = Load(block[0]);
      int64_t best_index = 0;
      for (int64_t r = 1; r < count; ++r) {
        const auto v = Load(block[r]);
        if (Better<kMax, kLast>(v, best)) {
          best = v;
          best_index = r;
        }
      }
      idx[0] = best_index;
      continue;
    }
    // The output row holds the running best indices, so no scratch is needed.
    for (int64_t j = 0; j < inner; ++j) idx[j] = 0;
    for (int64_t r = 1; r < count; ++r) {
      const T* row = block + r * inner;
      for (int64_t j = 0; j < inner; ++j) {
        if (Better<kMax, kLast>(Load(row[j]), Load(block[idx[j] * inner + j])))
          idx[j] = r;
      }
    }
  }
}

template <bool kMax>
absl::StatusOr<PreparedKernel> PrepareArg(const OpContext& context) {
  const TensorInfo& data = context.inputs[0];
  RETURN_IF_ERROR(RequireDType(data, kNumericTypes, "input 'data'"));
  ASSIGN_OR_RETURN(int64_t axis_attr, context.attrs.GetInt("axis", 0));
  ASSIGN_OR_RETURN(bool keepdims, context.attrs.GetFlag("keepdims", true));
  ASSIGN_OR_RETURN(bool last,
                   context.attrs.GetFlag("select_last_index", false));
  const int64_t rank = static_cast<int64_t>(data.shape.rank());
  ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(axis_attr, rank, "axis"));
  int64_t outer = 1;
  int64_t inner = 1;
  std::vector<int64_t> out_dims;
  for (int64_t a = 0; a < rank; ++a) {
    if (a < axis) outer *= data.shape[a];
    if (a > axis) inner *= data.shape[a];
    if (a != axis) {
      out_dims.push_back(data.shape[a]);
    } else if (keepdims) {
      out_dims.push_back(1);
    }
  }
  const int64_t count = data.shape[axis];
  if (count == 0 && outer * inner > 0) {
    return InvalidArgument("cannot take the index of an empty axis ", axis,
                           " of input shape ", data.shape.ToString());
  }
  const DType dtype = data.dtype;
  std::vector<std::pair<std::string, std::string>> params = {
      {"outer", StrCat(outer)},
      {"count", StrCat(count)},
      {"inner", StrCat(inner)}};
  auto run = [dtype, outer, count, inner, last](
                 std::span<const TensorView> in,
                 std::span<const TensorView> out,
                 std::span<std::byte>) -> absl::Status {
    if (count == 0) return absl::OkStatus();
    return VisitDType(dtype, [&]<typename T>() -> absl::Status {
      if constexpr (std::is_same_v<T, bool>) {
        return Unimplemented("bool input");
      } else {
        const T* x = in[0].as<const T>();
        int64_t* y = out[0].as<int64_t>();
        if (last) {
          RunArg<kMax, true>(x, y, outer, count, inner);
        } else {
          RunArg<kMax, false>(x, y, outer, count, inner);
        }
        return absl::OkStatus();
      }
    });
  };
  return Prepared({TensorInfo{DType::kInt64, Shape(std::move(out_dims))}},
                  MakeKernel(std::move(run), 0, std::move(params)));
}

}  // namespace

absl::Status RegisterReduceOps(OpRegistry& registry) {
  return registry.RegisterAll({
      {"ReduceSum", 1, 2, 1, 1, PrepareReduce<ReduceKind::kSum>},
      {"ReduceMean", 1, 2, 1, 1, PrepareReduce<ReduceKind::kMean>},
      {"ReduceMax", 1, 2, 1, 1, PrepareReduce<ReduceKind::kMax>},
      {"ReduceMin", 1, 2, 1, 1, PrepareReduce<ReduceKind::kMin>},
      {"ReduceProd", 1, 2, 1, 1, PrepareReduce<ReduceKind::kProd>},
      {"ReduceSumSquare", 1, 2, 1, 1, PrepareReduce<ReduceKind::kSumSquare>},
      {"ReduceL1", 1, 2, 1, 1, PrepareReduce<ReduceKind::kL1>},
      {"ReduceL2", 1, 2, 1, 1, PrepareReduce<ReduceKind::kL2>},
      {"ReduceLogSum", 1, 2, 1, 1, PrepareReduce<ReduceKind::kLogSum>},
      {"ReduceLogSumExp", 1, 2, 1, 1, PrepareReduce<ReduceKind::kLogSumExp>},
      {"ArgMax", 1, 1, 1, 1, PrepareArg<true>},
      {"ArgMin", 1, 1, 1, 1, PrepareArg<false>},
  });
}

}  // namespace acldump
