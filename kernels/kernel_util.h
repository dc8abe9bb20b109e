// Helpers shared by the kernel implementations: dtype dispatch, kernels from
// lambdas, reading constant inputs, and error construction.
#ifndef ACLDUMP_KERNELS_KERNEL_UTIL_H_
#define ACLDUMP_KERNELS_KERNEL_UTIL_H_

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/status_macros.h"
#include "base/strings.h"
#include "kernels/half.h"
#include "kernels/op_registry.h"
#include "kernels/tensor.h"
#include "kernels/threading.h"

namespace acldump {

// Calls f.template operator()<T>() with the C++ element type of `dtype`.
template <typename F>
decltype(auto) VisitDType(DType dtype, F&& f) {
  switch (dtype) {
    case DType::kFloat32:
      return f.template operator()<float>();
    case DType::kFloat16:
      return f.template operator()<Float16>();
    case DType::kBFloat16:
      return f.template operator()<BFloat16>();
    case DType::kFloat64:
      return f.template operator()<double>();
    case DType::kInt8:
      return f.template operator()<int8_t>();
    case DType::kInt16:
      return f.template operator()<int16_t>();
    case DType::kInt32:
      return f.template operator()<int32_t>();
    case DType::kInt64:
      return f.template operator()<int64_t>();
    case DType::kUInt8:
      return f.template operator()<uint8_t>();
    case DType::kUInt16:
      return f.template operator()<uint16_t>();
    case DType::kUInt32:
      return f.template operator()<uint32_t>();
    case DType::kUInt64:
      return f.template operator()<uint64_t>();
    case DType::kBool:
    case DType::kUndefined:
      break;
  }
  return f.template operator()<bool>();
}

// VisitDType restricted to the floating types; others are Unimplemented.
template <typename F>
absl::Status VisitFloatDType(DType dtype, F&& f) {
  switch (dtype) {
    case DType::kFloat32:
      return f.template operator()<float>();
    case DType::kFloat16:
      return f.template operator()<Float16>();
    case DType::kBFloat16:
      return f.template operator()<BFloat16>();
    case DType::kFloat64:
      return f.template operator()<double>();
    default:
      return absl::UnimplementedError(StrCat("type ", DTypeName(dtype)));
  }
}

// max(acc, v) where a NaN wins, so a reduction over values holding a NaN is
// NaN (numpy's max, ONNX Runtime's MaxPool). Bitwise | keeps it branch-free.
template <typename C>
inline C NanPropagatingMax(C acc, C v) {
  if constexpr (std::is_floating_point_v<C>) {
    return ((v > acc) | (v != v)) ? v : acc;
  } else {
    return v > acc ? v : acc;
  }
}

template <typename T>
inline constexpr bool kIsHalfType =
    std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>;

// The type arithmetic is done in: float for the 16-bit floats, else T itself.
template <typename T>
using ComputeType = std::conditional_t<kIsHalfType<T>, float, T>;

template <typename T>
inline ComputeType<T> Load(T value) {
  if constexpr (kIsHalfType<T>) {
    return static_cast<float>(value);
  } else {
    return value;
  }
}

template <typename T, typename C>
inline T Store(C value) {
  if constexpr (kIsHalfType<T>) {
    return T(static_cast<float>(value));
  } else {
    return static_cast<T>(value);
  }
}

// A kernel whose Run is a lambda capturing what prepare computed.
template <typename F>
class LambdaKernel final : public Kernel {
 public:
  LambdaKernel(F run, size_t workspace_bytes,
               std::vector<std::pair<std::string, std::string>> launch_params)
      : run_(std::move(run)),
        workspace_bytes_(workspace_bytes),
        launch_params_(std::move(launch_params)) {}
  size_t WorkspaceBytes() const override { return workspace_bytes_; }
  absl::Status Run(std::span<const TensorView> inputs,
                   std::span<const TensorView> outputs,
                   std::span<std::byte> workspace) const override {
    return run_(inputs, outputs, workspace);
  }
  std::vector<std::pair<std::string, std::string>> LaunchParams()
      const override {
    return launch_params_;
  }

 private:
  F run_;
  size_t workspace_bytes_;
  std::vector<std::pair<std::string, std::string>> launch_params_;
};

// `run` has the signature of Kernel::Run.
template <typename F>
std::unique_ptr<Kernel> MakeKernel(
    F run, size_t workspace_bytes = 0,
    std::vector<std::pair<std::string, std::string>> params = {}) {
  return std::make_unique<LambdaKernel<F>>(std::move(run), workspace_bytes,
                                           std::move(params));
}

inline PreparedKernel Prepared(std::vector<TensorInfo> outputs,
                               std::unique_ptr<Kernel> kernel) {
  PreparedKernel prepared;
  prepared.outputs = std::move(outputs);
  prepared.kernel = std::move(kernel);
  return prepared;
}

template <typename... Args>
absl::Status InvalidArgument(const Args&... args) {
  return absl::InvalidArgumentError(StrCat(args...));
}

template <typename... Args>
absl::Status Unimplemented(const Args&... args) {
  return absl::UnimplementedError(StrCat(args...));
}

// Reads an integer tensor (int32 or int64) known before execution, e.g.
// Reshape's shape.
absl::StatusOr<std::vector<int64_t>> ReadConstantInts(
    const OpContext& context, size_t index, std::string_view input_name);
// Reads the values of an int32/int64 tensor.
absl::StatusOr<std::vector<int64_t>> ReadInts(const TensorView& view,
                                              std::string_view what);
// Reads a float scalar from a tensor view of any floating or integer dtype.
absl::StatusOr<double> ReadScalarAsDouble(const TensorView& view,
                                          std::string_view what);

// Fails unless `info` has one of the allowed dtypes.
absl::Status RequireDType(const TensorInfo& info,
                          std::span<const DType> allowed,
                          std::string_view what);
inline constexpr DType kFloatTypes[] = {DType::kFloat32, DType::kFloat16,
                                        DType::kBFloat16, DType::kFloat64};
inline constexpr DType kNumericTypes[] = {
    DType::kFloat32, DType::kFloat16, DType::kBFloat16, DType::kFloat64,
    DType::kInt8,    DType::kInt16,   DType::kInt32,    DType::kInt64,
    DType::kUInt8,   DType::kUInt16,  DType::kUInt32,   DType::kUInt64};
inline constexpr DType kIndexTypes[] = {DType::kInt32, DType::kInt64};

// Multidirectional (numpy) broadcasting of shapes.
absl::StatusOr<Shape> BroadcastShapes(std::span<const Shape> shapes);

// Iteration over an output shape with several broadcast inputs. Adjacent
// dimensions that broadcast the same way are merged, so the innermost run is as
// long as possible.
class BroadcastLoop {
 public:
  BroadcastLoop(const Shape& output, std::span<const Shape> inputs);
  // Calls f(out_offset, in_offsets, inner_count, inner_strides) for each
  // innermost run, where in_offsets/inner_strides hold one element
  // offset/stride per input (stride 0 = broadcast).
  template <typename F>
  void ForEachRun(F&& f) const;
  // The same calls, split over the intra-op threads (kernels/threading.h) in
  // parts of at least `grain` elements: whole runs, or parts of the single
  // run of same-shaped inputs. f must be safe to call concurrently on
  // disjoint outputs.
  template <typename F>
  void ParallelForEachRun(size_t grain, F&& f) const;
  int64_t inner_count() const { return dims_.empty() ? 1 : dims_.back(); }
  int64_t num_elements() const { return num_elements_; }

 private:
  // Per input or per dimension, on the stack for the usual few: an
  // elementwise node allocates nothing per execution.
  using Offsets = absl::InlinedVector<int64_t, 8>;

  // f for runs [begin, end) (rank >= 1).
  template <typename F>
  void RunsInRange(int64_t begin, int64_t end, F& f) const;

  std::vector<int64_t> dims_;                  // merged output dims
  std::vector<std::vector<int64_t>> strides_;  // per input, per merged dim
  int64_t num_elements_ = 1;
};

template <typename F>
void BroadcastLoop::ForEachRun(F&& f) const {
  if (num_elements_ == 0) return;
  if (dims_.empty()) {
    const Offsets zeros(strides_.size(), 0);
    f(int64_t{0}, zeros.data(), int64_t{1}, zeros.data());
    return;
  }
  RunsInRange(0, num_elements_ / dims_.back(), f);
}

template <typename F>
void BroadcastLoop::RunsInRange(int64_t begin, int64_t end, F& f) const {
  const size_t num_inputs = strides_.size();
  const size_t rank = dims_.size();
  Offsets offsets(num_inputs, 0), inner(num_inputs), counter(rank, 0);
  for (size_t i = 0; i < num_inputs; ++i) inner[i] = strides_[i][rank - 1];
  // The outer counter (dims 0..rank-2, the last fastest) of run `begin`.
  int64_t r = begin;
  for (size_t axis = rank - 1; axis-- > 0;) {
    counter[axis] = r % dims_[axis];
    r /= dims_[axis];
    for (size_t i = 0; i < num_inputs; ++i) {
      offsets[i] += counter[axis] * strides_[i][axis];
    }
  }
  const int64_t inner_count = dims_[rank - 1];
  int64_t out_offset = begin * inner_count;
  for (int64_t run = begin; run < end; ++run) {
    f(out_offset, offsets.data(), inner_count, inner.data());
    out_offset += inner_count;
    size_t axis = rank - 1;
    while (axis-- > 0) {
      ++counter[axis];
      for (size_t i = 0; i < num_inputs; ++i) offsets[i] += strides_[i][axis];
      if (counter[axis] < dims_[axis]) break;
      for (size_t i = 0; i < num_inputs; ++i) {
        offsets[i] -= strides_[i][axis] * dims_[axis];
      }
      counter[axis] = 0;
    }
  }
}

template <typename F>
void BroadcastLoop::ParallelForEachRun(size_t grain, F&& f) const {
  if (num_elements_ == 0) return;
  const size_t num_inputs = strides_.size();
  if (dims_.size() <= 1) {
    // One run: split it.
    Offsets inner(num_inputs, 0);
    for (size_t i = 0; i < num_inputs && !dims_.empty(); ++i) {
      inner[i] = strides_[i][0];
    }
    ParallelFor(num_elements_, grain, [&](size_t begin, size_t end) {
      Offsets offsets(num_inputs);
      for (size_t i = 0; i < num_inputs; ++i) {
        offsets[i] = static_cast<int64_t>(begin) * inner[i];
      }
      f(static_cast<int64_t>(begin), offsets.data(),
        static_cast<int64_t>(end - begin), inner.data());
    });
    return;
  }
  const int64_t inner_count = dims_.back();
  const size_t run_grain = std::max<size_t>(
      1, grain / static_cast<size_t>(std::max<int64_t>(1, inner_count)));
  ParallelFor(
      num_elements_ / inner_count, run_grain, [&](size_t begin, size_t end) {
        RunsInRange(static_cast<int64_t>(begin), static_cast<int64_t>(end), f);
      });
}

}  // namespace acldump

#endif  // ACLDUMP_KERNELS_KERNEL_UTIL_H_
