// Integer bit operations: BitShift (unsigned, LEFT or RIGHT; shifting by the
// type's width or more gives 0, as numpy does for these types) and the opset
// 18 BitwiseAnd/Or/Xor/Not on every integer type, with numpy broadcasting.
#include <limits>
#include <type_traits>

#include "kernels/kernel_util.h"
#include "kernels/op_families.h"

namespace acldump {
namespace {

constexpr DType kIntegerTypes[] = {
    DType::kInt8,  DType::kInt16,  DType::kInt32,  DType::kInt64,
    DType::kUInt8, DType::kUInt16, DType::kUInt32, DType::kUInt64};
constexpr DType kUnsignedTypes[] = {DType::kUInt8, DType::kUInt16,
                                    DType::kUInt32, DType::kUInt64};

enum class BitOp { kShiftLeft, kShiftRight, kAnd, kOr, kXor };

template <typename T>
T Apply(BitOp op, T a, T b) {
  using U = std::make_unsigned_t<T>;
  constexpr T kWidth = static_cast<T>(std::numeric_limits<U>::digits);
  switch (op) {
    case BitOp::kShiftLeft:
      return b >= kWidth
                 ? T{0}
                 : static_cast<T>(static_cast<U>(a) << static_cast<U>(b));
    case BitOp::kShiftRight:
      return b >= kWidth
                 ? T{0}
                 : static_cast<T>(static_cast<U>(a) >> static_cast<U>(b));
    case BitOp::kAnd:
      return static_cast<T>(a & b);
    case BitOp::kOr:
      return static_cast<T>(a | b);
    case BitOp::kXor:
      return static_cast<T>(a ^ b);
  }
  return a;
}

absl::StatusOr<PreparedKernel> PrepareBitBinary(const OpContext& context,
                                                BitOp op) {
  const TensorInfo& a = context.inputs[0];
  const TensorInfo& b = context.inputs[1];
  if (op == BitOp::kShiftLeft || op == BitOp::kShiftRight) {
    RETURN_IF_ERROR(RequireDType(a, kUnsignedTypes, "input X"));
  } else {
    RETURN_IF_ERROR(RequireDType(a, kIntegerTypes, "input A"));
  }
  if (b.dtype != a.dtype) {
    return InvalidArgument("the inputs are ", DTypeName(a.dtype), " and ",
                           DTypeName(b.dtype), "; they must share one type");
  }
  const Shape shapes[] = {a.shape, b.shape};
  ASSIGN_OR_RETURN(Shape out_shape, BroadcastShapes(shapes));
  BroadcastLoop loop(out_shape, shapes);
  const DType dtype = a.dtype;
  auto run = [loop = std::move(loop), dtype, op](
                 std::span<const TensorView> in,
                 std::span<const TensorView> out,
                 std::span<std::byte>) -> absl::Status {
    VisitDType(dtype, [&]<typename T>() {
      if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
        const T* x = in[0].as<const T>();
        const T* y = in[1].as<const T>();
        T* z = out[0].as<T>();
        loop.ForEachRun([&](int64_t o, const int64_t* offsets, int64_t count,
                            const int64_t* strides) {
          for (int64_t i = 0; i < count; ++i) {
            z[o + i] = Apply<T>(op, x[offsets[0] + i * strides[0]],
                                y[offsets[1] + i * strides[1]]);
          }
        });
      }
    });
    return absl::OkStatus();
  };
  return Prepared({TensorInfo{dtype, out_shape}}, MakeKernel(std::move(run)));
}

absl::StatusOr<PreparedKernel> PrepareBitShift(const OpContext& context) {
  ASSIGN_OR_RETURN(std::string direction,
                   context.attrs.GetString("direction", ""));
  if (direction != "LEFT" && direction != "RIGHT") {
    return InvalidArgument("direction is '", direction,
                           "'; expected LEFT or RIGHT");
  }
  return PrepareBitBinary(
      context, direction == "LEFT" ? BitOp::kShiftLeft : BitOp::kShiftRight);
}

template <BitOp kOp>
absl::StatusOr<PreparedKernel> PrepareBitwise(const OpContext& context) {
  return PrepareBitBinary(context, kOp);
}

absl::StatusOr<PreparedKernel> PrepareBitwiseNot(const OpContext& context) {
  const TensorInfo& x = context.inputs[0];
  RETURN_IF_ERROR(RequireDType(x, kIntegerTypes, "input X"));
  const DType dtype = x.dtype;
  auto run = [dtype](std::span<const TensorView> in,
                     std::span<const TensorView> out,
                     std::span<std::byte>) -> absl::Status {
    VisitDType(dtype, [&]<typename T>() {
      if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
        const T* x = in[0].as<const T>();
        T* y = out[0].as<T>();
        for (int64_t i = 0; i < in[0].NumElements(); ++i)
          y[i] = static_cast<T>(~x[i]);
      }
    });
    return absl::OkStatus();
  };
  return Prepared({x}, MakeKernel(run));
}

}  // namespace

absl::Status RegisterBitwiseOps(OpRegistry& registry) {
  return registry.RegisterAll({
      {"BitShift", 2, 2, 1, 1, PrepareBitShift},
      {"BitwiseAnd", 2, 2, 1, 1, PrepareBitwise<BitOp::kAnd>},
      {"BitwiseOr", 2, 2, 1, 1, PrepareBitwise<BitOp::kOr>},
      {"BitwiseXor", 2, 2, 1, 1, PrepareBitwise<BitOp::kXor>},
      {"BitwiseNot", 1, 1, 1, 1, PrepareBitwiseNot},
  });
}

}  // namespace acldump
