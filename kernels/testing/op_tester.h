// Fluent test harness for one operator: build inputs and attributes, prepare
// through the built-in registry (inputs treated as known constants unless
// marked otherwise), run, inspect outputs.
#ifndef ACLDUMP_KERNELS_TESTING_OP_TESTER_H_
#define ACLDUMP_KERNELS_TESTING_OP_TESTER_H_

#include <cstring>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "kernels/attributes.h"
#include "kernels/half.h"
#include "kernels/op_registry.h"
#include "kernels/ops.h"
#include "kernels/tensor.h"

namespace acldump::testing {

template <typename T>
constexpr DType DTypeOf() {
  if constexpr (std::is_same_v<T, float>) return DType::kFloat32;
  if constexpr (std::is_same_v<T, Float16>) return DType::kFloat16;
  if constexpr (std::is_same_v<T, BFloat16>) return DType::kBFloat16;
  if constexpr (std::is_same_v<T, double>) return DType::kFloat64;
  if constexpr (std::is_same_v<T, int8_t>) return DType::kInt8;
  if constexpr (std::is_same_v<T, int16_t>) return DType::kInt16;
  if constexpr (std::is_same_v<T, int32_t>) return DType::kInt32;
  if constexpr (std::is_same_v<T, int64_t>) return DType::kInt64;
  if constexpr (std::is_same_v<T, uint8_t>) return DType::kUInt8;
  if constexpr (std::is_same_v<T, uint16_t>) return DType::kUInt16;
  if constexpr (std::is_same_v<T, uint32_t>) return DType::kUInt32;
  if constexpr (std::is_same_v<T, uint64_t>) return DType::kUInt64;
  if constexpr (std::is_same_v<T, bool>) return DType::kBool;
  return DType::kUndefined;
}

template <typename T>
Tensor MakeTensor(Shape shape, const std::vector<T>& values) {
  Tensor t(DTypeOf<T>(), std::move(shape));
  if constexpr (std::is_same_v<T, bool>) {
    for (size_t i = 0; i < values.size(); ++i) t.as<bool>()[i] = values[i];
  } else if (!values.empty()) {
    std::memcpy(t.data(), values.data(), values.size() * sizeof(T));
  }
  return t;
}

template <typename T>
std::vector<T> Values(const Tensor& t) {
  std::vector<T> out(static_cast<size_t>(t.NumElements()));
  for (size_t i = 0; i < out.size(); ++i) out[i] = t.as<T>()[i];
  return out;
}

class OpTester {
 public:
  explicit OpTester(std::string op_type, size_t num_outputs = 1)
      : op_type_(std::move(op_type)), num_outputs_(num_outputs) {}

  template <typename T>
  OpTester& Input(Shape shape, const std::vector<T>& values) {
    return AddInput(MakeTensor<T>(std::move(shape), values), /*constant=*/true);
  }
  // An input whose value the kernel may not look at before Run().
  template <typename T>
  OpTester& RuntimeInput(Shape shape, const std::vector<T>& values) {
    return AddInput(MakeTensor<T>(std::move(shape), values),
                    /*constant=*/false);
  }
  OpTester& AddInput(Tensor tensor, bool constant = true);
  OpTester& AbsentInput();
  OpTester& Attr(std::string name, AttrValue value) {
    attrs_.Set(std::move(name), std::move(value));
    return *this;
  }

  // Prepares only: output infos, or the prepare error.
  absl::StatusOr<std::vector<TensorInfo>> InferOutputs() const;
  // Prepares and runs; outputs in allocated tensors.
  absl::StatusOr<std::vector<Tensor>> Run() const;
  // Prepares only: the launch parameters the kernel chose (its path, sizes).
  absl::StatusOr<std::vector<std::pair<std::string, std::string>>>
  LaunchParams() const;

 private:
  absl::StatusOr<PreparedKernel> Prepare(std::vector<TensorView>& views) const;
  std::string op_type_;
  size_t num_outputs_;
  std::vector<Tensor> inputs_;
  std::vector<bool> constant_;
  std::vector<bool> absent_;
  Attributes attrs_;
};

}  // namespace acldump::testing

#endif  // ACLDUMP_KERNELS_TESTING_OP_TESTER_H_
