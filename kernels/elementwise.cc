// Elementwise operators of several inputs, broadcast: binary and variadic
// arithmetic, comparisons and logic (and Not), Where. Those of one input are in
// elementwise_unary.cc.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "kernels/elementwise_internal.h"
#include "kernels/kernel_util.h"
#include "kernels/op_families.h"
#include "kernels/threading.h"

namespace acldump {
namespace {

// ---------------------------------------------------------------------------------------------
// Binary and variadic ops with broadcasting.

enum class BinaryOp {
  kAdd,
  kSub,
  kMul,
  kDiv,
  kPow,
  kMin,
  kMax,
  kMod,
  kFmod,
  kPRelu
};
enum class CompareOp { kEqual, kLess, kLessOrEqual, kGreater, kGreaterOrEqual };
enum class LogicOp { kAnd, kOr, kXor };

template <typename C>
inline C ApplyBinary(BinaryOp op, C a, C b) {
  switch (op) {
    case BinaryOp::kAdd:
      return a + b;
    case BinaryOp::kSub:
      return a - b;
    case BinaryOp::kMul:
      return a * b;
    case BinaryOp::kDiv:
      return a / b;  // integer zero divisors are rejected before this runs
    case BinaryOp::kPow:
      return static_cast<C>(
          std::pow(static_cast<double>(a), static_cast<double>(b)));
    case BinaryOp::kMin:
      if constexpr (std::is_floating_point_v<C>) {
        if (std::isnan(a) || std::isnan(b))
          return std::numeric_limits<C>::quiet_NaN();
      }
      return std::min(a, b);
    case BinaryOp::kMax:
      if constexpr (std::is_floating_point_v<C>) {
        if (std::isnan(a) || std::isnan(b))
          return std::numeric_limits<C>::quiet_NaN();
      }
      return std::max(a, b);
    case BinaryOp::kPRelu:
      return a < C(0) ? a * b : a;  // NaN is not below 0: it stays NaN
    case BinaryOp::kFmod:
      if constexpr (std::is_floating_point_v<C>) {
        return std::fmod(a, b);
      } else {
        return a % b;  // truncated: the sign of the dividend, like C
      }
    case BinaryOp::kMod:
      if constexpr (std::is_floating_point_v<C>) {
        return std::fmod(a, b);
      } else {
        C r = a % b;  // Python-style (sign of divisor), as ONNX Mod with fmod=0
        if constexpr (std::is_signed_v<C>) {
          if (r != 0 && ((r < 0) != (b < 0))) r += b;
        }
        return r;
      }
  }
  return a;
}

// Runs `body(a_run, a_stride, b_run, b_stride, out_run, n)` over the broadcast
// runs, with the common stride patterns spelled out so the compiler vectorises
// them.
template <typename A, typename B, typename O, typename F>
void BinaryBroadcast(const BroadcastLoop& loop, const A* a, const B* b, O* out,
                     F&& element) {
  loop.ParallelForEachRun(
      kElementwiseGrain, [&](int64_t out_offset, const int64_t* offsets,
                             int64_t count, const int64_t* strides) {
        const A* pa = a + offsets[0];
        const B* pb = b + offsets[1];
        O* po = out + out_offset;
        if (strides[0] == 1 && strides[1] == 1) {
          for (int64_t i = 0; i < count; ++i) po[i] = element(pa[i], pb[i]);
        } else if (strides[0] == 1 && strides[1] == 0) {
          const B vb = *pb;
          for (int64_t i = 0; i < count; ++i) po[i] = element(pa[i], vb);
        } else if (strides[0] == 0 && strides[1] == 1) {
          const A va = *pa;
          for (int64_t i = 0; i < count; ++i) po[i] = element(va, pb[i]);
        } else {
          for (int64_t i = 0; i < count; ++i)
            po[i] = element(pa[i * strides[0]], pb[i * strides[1]]);
        }
      });
}

// Pow of float32 by a constant scalar 2 (LayerNorm's variance in exported
// transformers): x * x is the correctly rounded square, which is also what the
// general path's double-precision pow rounds to, so the bits do not change.
std::optional<PreparedKernel> PrepareFloat32Square(const OpContext& context) {
  const TensorView* exponent = context.constant(1);
  if (context.inputs[0].dtype != DType::kFloat32 || exponent == nullptr ||
      exponent->NumElements() != 1 ||
      context.inputs[1].shape.rank() > context.inputs[0].shape.rank()) {
    return std::nullopt;
  }
  absl::StatusOr<double> value = ReadScalarAsDouble(*exponent, "exponent");
  if (!value.ok() || *value != 2.0) return std::nullopt;
  auto run = [](std::span<const TensorView> in, std::span<const TensorView> out,
                std::span<std::byte>) -> absl::Status {
    const float* x = in[0].as<const float>();
    float* y = out[0].as<float>();
    ParallelFor(in[0].NumElements(), kElementwiseGrain,
                [&](size_t begin, size_t end) {
                  for (size_t i = begin; i < end; ++i) y[i] = x[i] * x[i];
                });
    return absl::OkStatus();
  };
  return Prepared({context.inputs[0]}, MakeKernel(std::move(run)));
}

// Mod becomes Fmod when its fmod attribute says so; then the operand types
// are checked for the op (Pow's exponent may differ in type).
absl::StatusOr<BinaryOp> CheckArithmeticOperands(const OpContext& context,
                                                 BinaryOp op) {
  if (op == BinaryOp::kMod) {
    ASSIGN_OR_RETURN(int64_t fmod, context.attrs.GetInt("fmod", 0));
    if (IsFloating(context.inputs[0].dtype) && fmod != 1) {
      return InvalidArgument("fmod must be 1 for floating-point inputs");
    }
    if (fmod == 1) op = BinaryOp::kFmod;
  }
  const TensorInfo& a = context.inputs[0];
  const TensorInfo& b = context.inputs[1];
  RETURN_IF_ERROR(RequireDType(a, kNumericTypes, "input A"));
  if (op == BinaryOp::kPow) {
    RETURN_IF_ERROR(RequireDType(b, kNumericTypes, "input Y (exponent)"));
  } else if (a.dtype != b.dtype) {
    return InvalidArgument("inputs have different types (", DTypeName(a.dtype),
                           " and ", DTypeName(b.dtype), ")");
  }
  return op;
}

// Integer division and modulo reject a zero divisor rather than trap.
template <typename T>
absl::Status CheckIntegerDivisors(BinaryOp op, const TensorView& divisors) {
  if (op != BinaryOp::kDiv && op != BinaryOp::kMod && op != BinaryOp::kFmod) {
    return absl::OkStatus();
  }
  const T* divisor = divisors.as<const T>();
  const int64_t n = divisors.NumElements();
  for (int64_t i = 0; i < n; ++i) {
    if (divisor[i] == 0) {
      return InvalidArgument("integer division by zero: divisor element ", i,
                             " of shape ", divisors.shape.ToString(), " is 0");
    }
  }
  return absl::OkStatus();
}

// The kernel itself rather than a function a kernel lambda calls: passing its
// state as arguments cost the count gate 15 instructions per execution (1% of
// a model of tiny elementwise operators).
struct ArithmeticKernel {
  BinaryOp op;
  BroadcastLoop loop;
  DType a_type;
  DType b_type;
  absl::Status operator()(std::span<const TensorView> in,
                          std::span<const TensorView> out,
                          std::span<std::byte>) const;
};

absl::Status ArithmeticKernel::operator()(std::span<const TensorView> in,
                                          std::span<const TensorView> out,
                                          std::span<std::byte>) const {
  return VisitDType(a_type, [&]<typename T>() -> absl::Status {
    using C = ComputeType<T>;
    if constexpr (std::is_same_v<T, bool>) {
      return Unimplemented("bool arithmetic");
    } else {
      if constexpr (std::is_integral_v<C>) {
        RETURN_IF_ERROR(CheckIntegerDivisors<T>(op, in[1]));
      }
      if (op == BinaryOp::kPow && b_type != a_type) {
        return VisitDType(b_type, [&]<typename E>() -> absl::Status {
          if constexpr (std::is_same_v<E, bool>) {
            return Unimplemented("bool exponent");
          } else {
            BinaryBroadcast(
                loop, in[0].as<const T>(), in[1].as<const E>(), out[0].as<T>(),
                [](T x, E y) {
                  return Store<T>(std::pow(static_cast<double>(Load(x)),
                                           static_cast<double>(Load(y))));
                });
            return absl::OkStatus();
          }
        });
      }
      switch (op) {
#define ACLDUMP_BINARY_CASE(OP)                                              \
  case OP:                                                                   \
    BinaryBroadcast(loop, in[0].as<const T>(), in[1].as<const T>(),          \
                    out[0].as<T>(), [](T x, T y) {                           \
                      return Store<T>(ApplyBinary<C>(OP, Load(x), Load(y))); \
                    });                                                      \
    break;
        ACLDUMP_BINARY_CASE(BinaryOp::kAdd)
        ACLDUMP_BINARY_CASE(BinaryOp::kSub)
        ACLDUMP_BINARY_CASE(BinaryOp::kMul)
        ACLDUMP_BINARY_CASE(BinaryOp::kDiv)
        ACLDUMP_BINARY_CASE(BinaryOp::kPow)
        ACLDUMP_BINARY_CASE(BinaryOp::kMin)
        ACLDUMP_BINARY_CASE(BinaryOp::kMax)
        ACLDUMP_BINARY_CASE(BinaryOp::kMod)
        ACLDUMP_BINARY_CASE(BinaryOp::kFmod)
        ACLDUMP_BINARY_CASE(BinaryOp::kPRelu)
#undef ACLDUMP_BINARY_CASE
      }
      return absl::OkStatus();
    }
  });
}

absl::StatusOr<PreparedKernel> PrepareArithmetic(const OpContext& context,
                                                 BinaryOp op) {
  if (op == BinaryOp::kPow) {
    if (std::optional<PreparedKernel> square = PrepareFloat32Square(context)) {
      return std::move(*square);
    }
  }
  ASSIGN_OR_RETURN(op, CheckArithmeticOperands(context, op));
  const TensorInfo& a = context.inputs[0];
  const TensorInfo& b = context.inputs[1];
  const Shape shapes[] = {a.shape, b.shape};
  ASSIGN_OR_RETURN(Shape out_shape, BroadcastShapes(shapes));
  const DType out_type = a.dtype;
  BroadcastLoop loop(out_shape, shapes);
  return Prepared(
      {TensorInfo{out_type, std::move(out_shape)}},
      MakeKernel(ArithmeticKernel{op, std::move(loop), a.dtype, b.dtype}));
}

template <BinaryOp kOp>
absl::StatusOr<PreparedKernel> PrepareBinary(const OpContext& context) {
  return PrepareArithmetic(context, kOp);
}

// Sum, Mean, Min, Max over 1..N broadcast inputs, folded pairwise into the
// output.
template <BinaryOp kOp, bool kMean>
absl::StatusOr<PreparedKernel> PrepareVariadic(const OpContext& context) {
  const DType dtype = context.inputs[0].dtype;
  RETURN_IF_ERROR(RequireDType(context.inputs[0], kNumericTypes, "input 0"));
  std::vector<Shape> shapes;
  for (size_t i = 0; i < context.inputs.size(); ++i) {
    if (context.inputs[i].dtype != dtype) {
      return InvalidArgument("input ", i, " has type ",
                             DTypeName(context.inputs[i].dtype),
                             ", input 0 has ", DTypeName(dtype));
    }
    shapes.push_back(context.inputs[i].shape);
  }
  ASSIGN_OR_RETURN(Shape out_shape, BroadcastShapes(shapes));
  std::vector<BroadcastLoop>
      loops;  // loops[i]: output (as accumulator) op input i
  for (const Shape& shape : shapes) {
    const Shape pair[] = {out_shape, shape};
    loops.emplace_back(out_shape, pair);
  }
  const Shape first[] = {shapes[0]};
  BroadcastLoop copy_loop(out_shape, first);
  auto run = [loops = std::move(loops), copy_loop = std::move(copy_loop),
              dtype](std::span<const TensorView> in,
                     std::span<const TensorView> out,
                     std::span<std::byte>) -> absl::Status {
    return VisitDType(dtype, [&]<typename T>() -> absl::Status {
      using C = ComputeType<T>;
      T* acc = out[0].as<T>();
      const T* src = in[0].as<const T>();
      copy_loop.ForEachRun(
          [&](int64_t o, const int64_t* off, int64_t n, const int64_t* st) {
            for (int64_t i = 0; i < n; ++i)
              acc[o + i] = src[off[0] + i * st[0]];
          });
      if constexpr (!std::is_same_v<T, bool>) {
        for (size_t k = 1; k < in.size(); ++k) {
          BinaryBroadcast(
              loops[k], acc, in[k].as<const T>(), acc, [](T x, T y) {
                return Store<T>(ApplyBinary<C>(kOp, Load(x), Load(y)));
              });
        }
        if constexpr (kMean) {
          const int64_t n = out[0].NumElements();
          const C count = static_cast<C>(in.size());
          for (int64_t i = 0; i < n; ++i)
            acc[i] = Store<T>(Load(acc[i]) / count);
        }
      }
      return absl::OkStatus();
    });
  };
  return Prepared({TensorInfo{dtype, std::move(out_shape)}},
                  MakeKernel(std::move(run)));
}

template <CompareOp kOp>
absl::StatusOr<PreparedKernel> PrepareCompare(const OpContext& context) {
  const TensorInfo& a = context.inputs[0];
  const TensorInfo& b = context.inputs[1];
  if (a.dtype != b.dtype) {
    return InvalidArgument("inputs have different types (", DTypeName(a.dtype),
                           " and ", DTypeName(b.dtype), ")");
  }
  if (kOp != CompareOp::kEqual)
    RETURN_IF_ERROR(RequireDType(a, kNumericTypes, "input A"));
  const Shape shapes[] = {a.shape, b.shape};
  ASSIGN_OR_RETURN(Shape out_shape, BroadcastShapes(shapes));
  BroadcastLoop loop(out_shape, shapes);
  auto run = [loop = std::move(loop), dtype = a.dtype](
                 std::span<const TensorView> in,
                 std::span<const TensorView> out,
                 std::span<std::byte>) -> absl::Status {
    return VisitDType(dtype, [&]<typename T>() -> absl::Status {
      BinaryBroadcast(loop, in[0].as<const T>(), in[1].as<const T>(),
                      out[0].as<bool>(), [](T x, T y) {
                        const auto l = Load(x);
                        const auto r = Load(y);
                        switch (kOp) {
                          case CompareOp::kEqual:
                            return l == r;
                          case CompareOp::kLess:
                            return l < r;
                          case CompareOp::kLessOrEqual:
                            return l <= r;
                          case CompareOp::kGreater:
                            return l > r;
                          case CompareOp::kGreaterOrEqual:
                            return l >= r;
                        }
                        return false;
                      });
      return absl::OkStatus();
    });
  };
  return Prepared({TensorInfo{DType::kBool, std::move(out_shape)}},
                  MakeKernel(std::move(run)));
}

template <LogicOp kOp>
absl::StatusOr<PreparedKernel> PrepareLogic(const OpContext& context) {
  const DType kBoolOnly[] = {DType::kBool};
  RETURN_IF_ERROR(RequireDType(context.inputs[0], kBoolOnly, "input A"));
  RETURN_IF_ERROR(RequireDType(context.inputs[1], kBoolOnly, "input B"));
  const Shape shapes[] = {context.inputs[0].shape, context.inputs[1].shape};
  ASSIGN_OR_RETURN(Shape out_shape, BroadcastShapes(shapes));
  BroadcastLoop loop(out_shape, shapes);
  auto run = [loop = std::move(loop)](std::span<const TensorView> in,
                                      std::span<const TensorView> out,
                                      std::span<std::byte>) -> absl::Status {
    BinaryBroadcast(loop, in[0].as<const bool>(), in[1].as<const bool>(),
                    out[0].as<bool>(), [](bool x, bool y) {
                      switch (kOp) {
                        case LogicOp::kAnd:
                          return x && y;
                        case LogicOp::kOr:
                          return x || y;
                        case LogicOp::kXor:
                          return x != y;
                      }
                      return false;
                    });
    return absl::OkStatus();
  };
  return Prepared({TensorInfo{DType::kBool, std::move(out_shape)}},
                  MakeKernel(std::move(run)));
}

absl::StatusOr<PreparedKernel> PrepareWhere(const OpContext& context) {
  const DType kBoolOnly[] = {DType::kBool};
  RETURN_IF_ERROR(RequireDType(context.inputs[0], kBoolOnly, "condition"));
  const TensorInfo& x = context.inputs[1];
  const TensorInfo& y = context.inputs[2];
  if (x.dtype != y.dtype) {
    return InvalidArgument("X and Y have different types (", DTypeName(x.dtype),
                           " and ", DTypeName(y.dtype), ")");
  }
  const Shape shapes[] = {context.inputs[0].shape, x.shape, y.shape};
  ASSIGN_OR_RETURN(Shape out_shape, BroadcastShapes(shapes));
  BroadcastLoop loop(out_shape, shapes);
  const size_t element_size = DTypeSize(x.dtype);
  auto run = [loop = std::move(loop), element_size](
                 std::span<const TensorView> in,
                 std::span<const TensorView> out,
                 std::span<std::byte>) -> absl::Status {
    const bool* cond = in[0].as<const bool>();
    const std::byte* xs = in[1].as<const std::byte>();
    const std::byte* ys = in[2].as<const std::byte>();
    std::byte* o = out[0].as<std::byte>();
    loop.ForEachRun([&](int64_t out_offset, const int64_t* off, int64_t n,
                        const int64_t* st) {
      for (int64_t i = 0; i < n; ++i) {
        const bool pick_x = cond[off[0] + i * st[0]];
        const std::byte* src = pick_x
                                   ? xs + (off[1] + i * st[1]) * element_size
                                   : ys + (off[2] + i * st[2]) * element_size;
        std::memcpy(o + (out_offset + i) * element_size, src, element_size);
      }
    });
    return absl::OkStatus();
  };
  return Prepared({TensorInfo{x.dtype, std::move(out_shape)}},
                  MakeKernel(std::move(run)));
}

absl::StatusOr<PreparedKernel> PrepareNot(const OpContext& context) {
  const DType kBoolOnly[] = {DType::kBool};
  RETURN_IF_ERROR(RequireDType(context.inputs[0], kBoolOnly, "input X"));
  auto run = [](std::span<const TensorView> in, std::span<const TensorView> out,
                std::span<std::byte>) -> absl::Status {
    const bool* x = in[0].as<const bool>();
    bool* y = out[0].as<bool>();
    const int64_t n = in[0].NumElements();
    for (int64_t i = 0; i < n; ++i) y[i] = !x[i];
    return absl::OkStatus();
  };
  return Prepared({context.inputs[0]}, MakeKernel(run));
}

}  // namespace

absl::Status RegisterElementwiseOps(OpRegistry& registry) {
  RETURN_IF_ERROR(elementwise::RegisterUnaryOps(registry));
  return registry.RegisterAll({
      {"Add", 2, 2, 1, 1, PrepareBinary<BinaryOp::kAdd>},
      {"Sub", 2, 2, 1, 1, PrepareBinary<BinaryOp::kSub>},
      {"Mul", 2, 2, 1, 1, PrepareBinary<BinaryOp::kMul>},
      {"Div", 2, 2, 1, 1, PrepareBinary<BinaryOp::kDiv>},
      {"Pow", 2, 2, 1, 1, PrepareBinary<BinaryOp::kPow>},
      {"Mod", 2, 2, 1, 1, PrepareBinary<BinaryOp::kMod>},
      {"Sum", 1, 1 << 16, 1, 1, PrepareVariadic<BinaryOp::kAdd, false>},
      {"Mean", 1, 1 << 16, 1, 1, PrepareVariadic<BinaryOp::kAdd, true>},
      {"Min", 1, 1 << 16, 1, 1, PrepareVariadic<BinaryOp::kMin, false>},
      {"Max", 1, 1 << 16, 1, 1, PrepareVariadic<BinaryOp::kMax, false>},
      {"Equal", 2, 2, 1, 1, PrepareCompare<CompareOp::kEqual>},
      {"Less", 2, 2, 1, 1, PrepareCompare<CompareOp::kLess>},
      {"LessOrEqual", 2, 2, 1, 1, PrepareCompare<CompareOp::kLessOrEqual>},
      {"Greater", 2, 2, 1, 1, PrepareCompare<CompareOp::kGreater>},
      {"GreaterOrEqual", 2, 2, 1, 1,
       PrepareCompare<CompareOp::kGreaterOrEqual>},
      {"And", 2, 2, 1, 1, PrepareLogic<LogicOp::kAnd>},
      {"Or", 2, 2, 1, 1, PrepareLogic<LogicOp::kOr>},
      {"Xor", 2, 2, 1, 1, PrepareLogic<LogicOp::kXor>},
      {"Not", 1, 1, 1, 1, PrepareNot},
      {"Where", 3, 3, 1, 1, PrepareWhere},
      {"PRelu", 2, 2, 1, 1, PrepareBinary<BinaryOp::kPRelu>},
  });
}

}  // namespace acldump
