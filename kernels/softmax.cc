// Softmax, LogSoftmax and Hardmax. Opset 13 normalizes along one axis (default
// -1); before opset 13 (attribute "onnx_opset" < 13, set by the importer) the
// input is coerced to 2-D at `axis` (default 1) and each row of the 2-D view is
// normalized. Rows go to the intra-op threads whole; a float32 row sums its
// exponentials in double in a fixed order (kernels/plane_sum.h), so the bits
// do not depend on the thread count.
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "kernels/kernel_util.h"
#include "kernels/op_families.h"
#include "kernels/plane_sum.h"
#include "kernels/threading.h"
#include "kernels/vector_math.h"

namespace acldump {
namespace {

enum class SoftmaxKind { kSoftmax, kLogSoftmax, kHardmax };

// Hardmax picks the first maximum; a NaN counts as the maximum (numpy's
// argmax).
template <typename C>
inline bool Beats(C v, C best) {
  if (best != best) return false;
  return v > best || v != v;
}

// One contiguous row of `n` elements.
template <SoftmaxKind K, typename T>
void RunRow(const T* x, T* y, int64_t n) {
  using C = ComputeType<T>;
  if constexpr (K == SoftmaxKind::kHardmax) {
    C best = Load(x[0]);
    int64_t best_index = 0;
    for (int64_t i = 1; i < n; ++i) {
      const C v = Load(x[i]);
      if (Beats(v, best)) {
        best = v;
        best_index = i;
      }
    }
    for (int64_t i = 0; i < n; ++i) y[i] = Store<T>(C(i == best_index ? 1 : 0));
    return;
  } else {
    C max = Load(x[0]);
    if constexpr (std::is_same_v<T, float>) {
      max = MaxFloat32(x, n);
    } else {
      for (int64_t i = 1; i < n; ++i) max = NanPropagatingMax(max, Load(x[i]));
    }
    double sum = 0;
    if constexpr (K == SoftmaxKind::kSoftmax && std::is_same_v<T, C>) {
      // Full-precision output buffer: keep the exponentials there for the
      // scaling pass.
      if constexpr (std::is_same_v<T, float>) {
        for (int64_t i = 0; i < n; ++i) y[i] = x[i] - max;
        ExpFloat32(y, y, static_cast<size_t>(n));
        sum = SumFloat32AsDouble(y, n);
      } else {
        for (int64_t i = 0; i < n; ++i) {
          const C e = std::exp(x[i] - max);
          y[i] = e;
          sum += e;
        }
      }
      const C scale = static_cast<C>(1.0 / sum);
      for (int64_t i = 0; i < n; ++i) y[i] *= scale;
    } else {
      for (int64_t i = 0; i < n; ++i) sum += std::exp(Load(x[i]) - max);
      if constexpr (K == SoftmaxKind::kSoftmax) {
        const C scale = static_cast<C>(1.0 / sum);
        for (int64_t i = 0; i < n; ++i)
          y[i] = Store<T>(std::exp(Load(x[i]) - max) * scale);
      } else {
        // x - max first: adding log(sum) to a large max would round it away.
        const C log_sum = static_cast<C>(std::log(sum));
        for (int64_t i = 0; i < n; ++i)
          y[i] = Store<T>((Load(x[i]) - max) - log_sum);
      }
    }
  }
}

// `count` rows of `inner` elements, normalized down the columns. The workspace
// holds one column maximum (as C) and one column sum or argmax (8 bytes) per
// column.
template <SoftmaxKind K, typename T>
void RunColumns(const T* x, T* y, int64_t count, int64_t inner,
                std::byte* workspace) {
  using C = ComputeType<T>;
  C* max = reinterpret_cast<C*>(workspace);
  double* sum = reinterpret_cast<double*>(workspace + inner * sizeof(double));
  int64_t* best = reinterpret_cast<int64_t*>(sum);
  for (int64_t j = 0; j < inner; ++j) {
    max[j] = Load(x[j]);
    if constexpr (K == SoftmaxKind::kHardmax) best[j] = 0;
  }
  for (int64_t r = 1; r < count; ++r) {
    const T* row = x + r * inner;
    for (int64_t j = 0; j < inner; ++j) {
      const C v = Load(row[j]);
      if constexpr (K == SoftmaxKind::kHardmax) {
        if (Beats(v, max[j])) {
          max[j] = v;
          best[j] = r;
        }
      } else {
        max[j] = NanPropagatingMax(max[j], v);
      }
    }
  }
  if constexpr (K == SoftmaxKind::kHardmax) {
    for (int64_t r = 0; r < count; ++r) {
      T* out = y + r * inner;
      for (int64_t j = 0; j < inner; ++j)
        out[j] = Store<T>(C(best[j] == r ? 1 : 0));
    }
    return;
  } else {
    for (int64_t j = 0; j < inner; ++j) sum[j] = 0;
    for (int64_t r = 0; r < count; ++r) {
      const T* row = x + r * inner;
      for (int64_t j = 0; j < inner; ++j)
        sum[j] += std::exp(Load(row[j]) - max[j]);
    }
    if constexpr (K == SoftmaxKind::kSoftmax) {
      for (int64_t j = 0; j < inner; ++j) sum[j] = 1.0 / sum[j];
    } else {
      for (int64_t j = 0; j < inner; ++j) sum[j] = std::log(sum[j]);
    }
    for (int64_t r = 0; r < count; ++r) {
      const T* row = x + r * inner;
      T* out = y + r * inner;
      for (int64_t j = 0; j < inner; ++j) {
        if constexpr (K == SoftmaxKind::kSoftmax) {
          out[j] = Store<T>(std::exp(Load(row[j]) - max[j]) *
                            static_cast<C>(sum[j]));
        } else {
          out[j] = Store<T>((Load(row[j]) - max[j]) - static_cast<C>(sum[j]));
        }
      }
    }
  }
}

template <SoftmaxKind K>
absl::StatusOr<PreparedKernel> PrepareSoftmax(const OpContext& context) {
  const TensorInfo& input = context.inputs[0];
  RETURN_IF_ERROR(RequireDType(input, kFloatTypes, "input"));
  ASSIGN_OR_RETURN(int64_t opset, context.attrs.GetInt("onnx_opset", 13));
  const bool legacy = opset < 13;
  ASSIGN_OR_RETURN(int64_t axis_attr,
                   context.attrs.GetInt("axis", legacy ? 1 : -1));
  const int64_t rank = static_cast<int64_t>(input.shape.rank());
  ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(axis_attr, rank, "axis"));
  int64_t outer = 1;
  int64_t count = 1;
  int64_t inner = 1;
  for (int64_t a = 0; a < rank; ++a) {
    if (a < axis) {
      outer *= input.shape[a];
    } else if (a == axis || legacy) {
      count *= input.shape[a];
    } else {
      inner *= input.shape[a];
    }
  }
  const size_t workspace =
      inner > 1 ? static_cast<size_t>(inner) * 2 * sizeof(double) : 0;
  const DType dtype = input.dtype;
  std::vector<std::pair<std::string, std::string>> params = {
      {"outer", StrCat(outer)},
      {"count", StrCat(count)},
      {"inner", StrCat(inner)},
      {"legacy_2d", StrCat(legacy)}};
  auto run = [dtype, outer, count, inner](
                 std::span<const TensorView> in,
                 std::span<const TensorView> out,
                 std::span<std::byte> ws) -> absl::Status {
    if (outer * count * inner == 0) return absl::OkStatus();
    return VisitFloatDType(dtype, [&]<typename T>() -> absl::Status {
      const T* x = in[0].as<const T>();
      T* y = out[0].as<T>();
      const int64_t block = count * inner;
      if (inner == 1) {
        // Rows on the intra-op threads: each row is computed whole by one.
        const size_t grain = static_cast<size_t>(
            std::max<int64_t>(1, int64_t{kElementwiseGrain} / count));
        ParallelFor(outer, grain, [&](size_t begin, size_t end) {
          for (size_t o = begin; o < end; ++o) {
            RunRow<K>(x + o * block, y + o * block, count);
          }
        });
        return absl::OkStatus();
      }
      for (int64_t o = 0; o < outer; ++o) {
        RunColumns<K>(x + o * block, y + o * block, count, inner, ws.data());
      }
      return absl::OkStatus();
    });
  };
  return Prepared({input},
                  MakeKernel(std::move(run), workspace, std::move(params)));
}

}  // namespace

absl::Status RegisterSoftmaxOps(OpRegistry& registry) {
  return registry.RegisterAll({
      {"Softmax", 1, 1, 1, 1, PrepareSoftmax<SoftmaxKind::kSoftmax>},
      {"LogSoftmax", 1, 1, 1, 1, PrepareSoftmax<SoftmaxKind::kLogSoftmax>},
      {"Hardmax", 1, 1, 1, 1, PrepareSoftmax<SoftmaxKind::kHardmax>},
  });
}

}  // namespace acldump
