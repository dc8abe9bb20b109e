// Elementwise operators: broadcasting binary and variadic arithmetic,
// comparisons and logic, Where, unary math and activations, Clip and Cast.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "kernels/kernel_util.h"
#include "kernels/op_families.h"
#include "kernels/threading.h"
#include "kernels/vector_math.h"

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
        if (r != 0 && ((r < 0) != (b < 0))) r += b;
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

absl::Status RunArithmetic(BinaryOp op, const BroadcastLoop& loop, DType a_type,
                           DType b_type, std::span<const TensorView> in,
                           std::span<const TensorView> out) {
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
  auto run = [op, loop = std::move(loop), a_type = a.dtype, b_type = b.dtype](
                 std::span<const TensorView> in,
                 std::span<const TensorView> out,
                 std::span<std::byte>) -> absl::Status {
    return RunArithmetic(op, loop, a_type, b_type, in, out);
  };
  return Prepared({TensorInfo{out_type, std::move(out_shape)}},
                  MakeKernel(std::move(run)));
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

// ---------------------------------------------------------------------------------------------
// Unary math and activations. Each functor maps a compute-type value
// (float/double/int) with the op's float parameters.

struct UnaryParams {
  float alpha = 0;
  float beta = 0;
  float gamma = 0;
};

template <typename F>
absl::StatusOr<PreparedKernel> PrepareUnaryWith(const OpContext& context,
                                                std::span<const DType> allowed,
                                                UnaryParams params, F fn) {
  RETURN_IF_ERROR(RequireDType(context.inputs[0], allowed, "input X"));
  const DType dtype = context.inputs[0].dtype;
  auto run = [dtype, params, fn](std::span<const TensorView> in,
                                 std::span<const TensorView> out,
                                 std::span<std::byte>) -> absl::Status {
    return VisitDType(dtype, [&]<typename T>() -> absl::Status {
      if constexpr (std::is_same_v<T, bool>) {
        return Unimplemented("bool input");
      } else {
        const T* x = in[0].as<const T>();
        T* y = out[0].as<T>();
        ParallelFor(in[0].NumElements(), kElementwiseGrain,
                    [&](size_t begin, size_t end) {
                      for (size_t i = begin; i < end; ++i) {
                        y[i] = Store<T>(fn(Load(x[i]), params));
                      }
                    });
        return absl::OkStatus();
      }
    });
  };
  return Prepared({context.inputs[0]}, MakeKernel(std::move(run)));
}

// A float32 array function y = f(x) run in parts on the intra-op threads.
template <typename F>
absl::StatusOr<PreparedKernel> PrepareFloat32Array(const OpContext& context,
                                                   F fn) {
  auto run = [fn](std::span<const TensorView> in,
                  std::span<const TensorView> out,
                  std::span<std::byte>) -> absl::Status {
    const float* x = in[0].as<const float>();
    float* y = out[0].as<float>();
    ParallelFor(in[0].NumElements(), kElementwiseGrain,
                [&](size_t begin, size_t end) {
                  fn(x + begin, y + begin, end - begin);
                });
    return absl::OkStatus();
  };
  return Prepared({context.inputs[0]}, MakeKernel(std::move(run)));
}

#define ACLDUMP_FLOAT_UNARY(NAME, EXPR)                                    \
  absl::StatusOr<PreparedKernel> Prepare##NAME(const OpContext& context) { \
    return PrepareUnaryWith(                                               \
        context, kFloatTypes, UnaryParams{},                               \
        [](auto x, const UnaryParams&) -> decltype(x) { return EXPR; });   \
  }

// float32 runs on the SIMD array functions (kernels/vector_math.h); the other
// float types on <cmath>.
#define ACLDUMP_VECTOR_UNARY(NAME, ARRAY_FN, EXPR)                         \
  absl::StatusOr<PreparedKernel> Prepare##NAME(const OpContext& context) { \
    if (context.inputs[0].dtype == DType::kFloat32) {                      \
      return PrepareFloat32Array(context, ARRAY_FN);                       \
    }                                                                      \
    return PrepareUnaryWith(                                               \
        context, kFloatTypes, UnaryParams{},                               \
        [](auto x, const UnaryParams&) -> decltype(x) { return EXPR; });   \
  }

ACLDUMP_VECTOR_UNARY(Sigmoid, SigmoidFloat32,
                     x >= 0 ? 1 / (1 + std::exp(-x))
                            : std::exp(x) / (1 + std::exp(x)))
ACLDUMP_VECTOR_UNARY(Tanh, TanhFloat32, std::tanh(x))

// Swish (ONNX opset 24, and what the converter makes of Sigmoid + Mul):
// x * sigmoid(alpha * x).
absl::StatusOr<PreparedKernel> PrepareSwish(const OpContext& context) {
  ASSIGN_OR_RETURN(float alpha, context.attrs.GetFloat("alpha", 1.0f));
  if (context.inputs[0].dtype == DType::kFloat32 && alpha == 1.0f) {
    return PrepareFloat32Array(context, SwishFloat32);
  }
  return PrepareUnaryWith(context, kFloatTypes, UnaryParams{alpha},
                          [](auto x, const UnaryParams& p) -> decltype(x) {
                            using C = decltype(x);
                            const C z = static_cast<C>(p.alpha) * x;
                            return x * (z >= 0
                                            ? 1 / (1 + std::exp(-z))
                                            : std::exp(z) / (1 + std::exp(z)));
                          });
}
ACLDUMP_VECTOR_UNARY(Erf, ErfFloat32, std::erf(x))
ACLDUMP_VECTOR_UNARY(Exp, ExpFloat32, std::exp(x))
ACLDUMP_FLOAT_UNARY(Log, std::log(x))
ACLDUMP_FLOAT_UNARY(Sqrt, std::sqrt(x))
ACLDUMP_FLOAT_UNARY(Reciprocal, 1 / x)
ACLDUMP_FLOAT_UNARY(Floor, std::floor(x))
ACLDUMP_FLOAT_UNARY(Ceil, std::ceil(x))
ACLDUMP_FLOAT_UNARY(Round, std::nearbyint(x))
ACLDUMP_FLOAT_UNARY(Sin, std::sin(x))
ACLDUMP_FLOAT_UNARY(Cos, std::cos(x))
ACLDUMP_FLOAT_UNARY(Tan, std::tan(x))
ACLDUMP_FLOAT_UNARY(Softplus, x > 20 ? x : std::log1p(std::exp(x)))
ACLDUMP_FLOAT_UNARY(Softsign, x / (1 + std::abs(x)))
ACLDUMP_FLOAT_UNARY(Asin, std::asin(x))
ACLDUMP_FLOAT_UNARY(Acos, std::acos(x))
ACLDUMP_FLOAT_UNARY(Atan, std::atan(x))
ACLDUMP_FLOAT_UNARY(Sinh, std::sinh(x))
ACLDUMP_FLOAT_UNARY(Cosh, std::cosh(x))
ACLDUMP_FLOAT_UNARY(Asinh, std::asinh(x))
ACLDUMP_FLOAT_UNARY(Acosh, std::acosh(x))
ACLDUMP_FLOAT_UNARY(Atanh, std::atanh(x))
#undef ACLDUMP_FLOAT_UNARY

template <typename C>
C Signum(C x) {
  return static_cast<C>((C(0) < x) - (x < C(0)));
}

#define ACLDUMP_NUMERIC_UNARY(NAME, EXPR)                                  \
  absl::StatusOr<PreparedKernel> Prepare##NAME(const OpContext& context) { \
    return PrepareUnaryWith(                                               \
        context, kNumericTypes, UnaryParams{},                             \
        [](auto x, const UnaryParams&) -> decltype(x) { return EXPR; });   \
  }

// std::max (not a branch) so it vectorises; NaN stays NaN.
ACLDUMP_NUMERIC_UNARY(Relu, std::max<decltype(x)>(x, decltype(x)(0)))
ACLDUMP_NUMERIC_UNARY(Neg, -x)
ACLDUMP_NUMERIC_UNARY(Abs, x < 0 ? -x : x)
ACLDUMP_NUMERIC_UNARY(Sign, Signum(x))
#undef ACLDUMP_NUMERIC_UNARY

absl::StatusOr<PreparedKernel> PrepareLeakyRelu(const OpContext& context) {
  ASSIGN_OR_RETURN(float alpha, context.attrs.GetFloat("alpha", 0.01f));
  return PrepareUnaryWith(
      context, kFloatTypes, UnaryParams{alpha},
      [](auto x, const UnaryParams& p) -> decltype(x) {
        return x >= 0 ? x : x * static_cast<decltype(x)>(p.alpha);
      });
}

absl::StatusOr<PreparedKernel> PrepareElu(const OpContext& context) {
  ASSIGN_OR_RETURN(float alpha, context.attrs.GetFloat("alpha", 1.0f));
  return PrepareUnaryWith(
      context, kFloatTypes, UnaryParams{alpha},
      [](auto x, const UnaryParams& p) -> decltype(x) {
        return x >= 0 ? x : static_cast<decltype(x)>(p.alpha) * std::expm1(x);
      });
}

absl::StatusOr<PreparedKernel> PrepareSelu(const OpContext& context) {
  ASSIGN_OR_RETURN(float alpha,
                   context.attrs.GetFloat("alpha", 1.67326319217681884765625f));
  ASSIGN_OR_RETURN(float gamma,
                   context.attrs.GetFloat("gamma", 1.05070102214813232421875f));
  return PrepareUnaryWith(
      context, kFloatTypes, UnaryParams{alpha, 0, gamma},
      [](auto x, const UnaryParams& p) -> decltype(x) {
        using C = decltype(x);
        return static_cast<C>(p.gamma) *
               (x > 0 ? x : static_cast<C>(p.alpha) * std::expm1(x));
      });
}

absl::StatusOr<PreparedKernel> PrepareHardSigmoid(const OpContext& context) {
  ASSIGN_OR_RETURN(float alpha, context.attrs.GetFloat("alpha", 0.2f));
  ASSIGN_OR_RETURN(float beta, context.attrs.GetFloat("beta", 0.5f));
  if (context.inputs[0].dtype == DType::kFloat32) {
    return PrepareFloat32Array(
        context, [alpha, beta](const float* x, float* y, size_t n) {
          HardSigmoidFloat32(x, y, n, alpha, beta);
        });
  }
  return PrepareUnaryWith(
      context, kFloatTypes, UnaryParams{alpha, beta},
      [](auto x, const UnaryParams& p) -> decltype(x) {
        using C = decltype(x);
        return std::clamp<C>(
            static_cast<C>(p.alpha) * x + static_cast<C>(p.beta), C(0), C(1));
      });
}

absl::StatusOr<PreparedKernel> PrepareThresholdedRelu(
    const OpContext& context) {
  ASSIGN_OR_RETURN(float alpha, context.attrs.GetFloat("alpha", 1.0f));
  return PrepareUnaryWith(
      context, kFloatTypes, UnaryParams{alpha},
      [](auto x, const UnaryParams& p) -> decltype(x) {
        return x > static_cast<decltype(x)>(p.alpha) ? x : decltype(x)(0);
      });
}

// Gelu (opset 20): 0.5 * x * (1 + erf(x / sqrt(2))), or with approximate
// "tanh" 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3))). With
// fused_divisor set, the converter's fusion of the Div, Erf, Add, Mul and Mul
// nodes exporters write for it, computed step by step as those nodes would
// (GeluChainFloat32).
absl::StatusOr<PreparedKernel> PrepareGelu(const OpContext& context) {
  const absl::StatusOr<std::string> approximate_attr =
      context.attrs.GetString("approximate", "none");
  RETURN_IF_ERROR(approximate_attr.status());
  const std::string_view approximate = *approximate_attr;
  if (approximate != "none" && approximate != "tanh") {
    return InvalidArgument("approximate '", approximate,
                           "' is not supported ('none' or 'tanh')");
  }
  const bool fused = context.attrs.Has("fused_divisor");
  if (fused ||
      (approximate == "none" && context.inputs[0].dtype == DType::kFloat32)) {
    if (context.inputs[0].dtype != DType::kFloat32) {
      return InvalidArgument("a fused Gelu chain takes float32, got ",
                             DTypeName(context.inputs[0].dtype));
    }
    GeluChain chain;
    if (fused) {
      for (auto [name, value] : {std::pair{"fused_divisor", &chain.divisor},
                                 std::pair{"fused_shift", &chain.shift},
                                 std::pair{"fused_scale", &chain.scale}}) {
        if (!context.attrs.Has(name)) {
          return InvalidArgument("a fused Gelu chain needs attribute '", name,
                                 "'");
        }
        ASSIGN_OR_RETURN(*value, context.attrs.GetFloat(name, 0.0f));
      }
    }
    return PrepareFloat32Array(context,
                               [chain](const float* x, float* y, size_t n) {
                                 GeluChainFloat32(x, y, n, chain);
                               });
  }
  if (approximate == "tanh") {
    return PrepareUnaryWith(context, kFloatTypes, UnaryParams{},
                            [](auto x, const UnaryParams&) -> decltype(x) {
                              using C = decltype(x);
                              const C inner = C(0.7978845608028654) *
                                              (x + C(0.044715) * x * x * x);
                              return C(0.5) * x * (C(1) + std::tanh(inner));
                            });
  }
  return PrepareUnaryWith(context, kFloatTypes, UnaryParams{},
                          [](auto x, const UnaryParams&) -> decltype(x) {
                            using C = decltype(x);
                            return C(0.5) * x *
                                   (C(1) + std::erf(x / C(1.4142135623730951)));
                          });
}

// HardSwish, or, with fused_divisor set, the converter's fusion of
// PaddlePaddle's x * Clip(x + shift, min, max) / divisor (Add, Clip, Mul, Div
// nodes) and the scalar Mul/Add nodes around it, computed step by step as
// those nodes would (HardSwishChainFloat32).
absl::StatusOr<PreparedKernel> PrepareHardSwish(const OpContext& context) {
  if (context.attrs.Has("fused_divisor")) {
    if (context.inputs[0].dtype != DType::kFloat32) {
      return InvalidArgument("a fused HardSwish chain takes float32, got ",
                             DTypeName(context.inputs[0].dtype));
    }
    HardSwishChain chain;
    struct Required {
      const char* name;
      float* value;
    };
    for (const Required& r : {Required{"fused_shift", &chain.shift},
                              Required{"fused_clip_min", &chain.lo},
                              Required{"fused_clip_max", &chain.hi},
                              Required{"fused_divisor", &chain.divisor}}) {
      if (!context.attrs.Has(r.name)) {
        return InvalidArgument("a fused HardSwish chain needs attribute '",
                               r.name, "'");
      }
      ASSIGN_OR_RETURN(*r.value, context.attrs.GetFloat(r.name, 0.0f));
    }
    struct Optional {
      const char* name;
      bool* present;
      float* value;
    };
    for (const Optional& o :
         {Optional{"fused_pre_scale", &chain.has_pre_scale, &chain.pre_scale},
          Optional{"fused_pre_shift", &chain.has_pre_shift, &chain.pre_shift},
          Optional{"fused_post_scale", &chain.has_post_scale,
                   &chain.post_scale},
          Optional{"fused_post_shift", &chain.has_post_shift,
                   &chain.post_shift}}) {
      *o.present = context.attrs.Has(o.name);
      if (*o.present) {
        ASSIGN_OR_RETURN(*o.value, context.attrs.GetFloat(o.name, 0.0f));
      }
    }
    return PrepareFloat32Array(context,
                               [chain](const float* x, float* y, size_t n) {
                                 HardSwishChainFloat32(x, y, n, chain);
                               });
  }
  if (context.inputs[0].dtype == DType::kFloat32) {
    return PrepareFloat32Array(context, HardSwishFloat32);
  }
  return PrepareUnaryWith(context, kFloatTypes, UnaryParams{},
                          [](auto x, const UnaryParams&) -> decltype(x) {
                            using C = decltype(x);
                            return x *
                                   std::clamp<C>(x / C(6) + C(0.5), C(0), C(1));
                          });
}

absl::StatusOr<PreparedKernel> PrepareCelu(const OpContext& context) {
  ASSIGN_OR_RETURN(float alpha, context.attrs.GetFloat("alpha", 1.0f));
  if (alpha == 0) return InvalidArgument("alpha must not be 0");
  return PrepareUnaryWith(context, kFloatTypes, UnaryParams{alpha},
                          [](auto x, const UnaryParams& p) -> decltype(x) {
                            using C = decltype(x);
                            const C a = static_cast<C>(p.alpha);
                            // max(0, x) + min(0, alpha * (exp(x / alpha) - 1));
                            // NaN stays NaN.
                            return x > 0 ? x
                                         : (x <= 0 ? a * std::expm1(x / a) : x);
                          });
}

absl::StatusOr<PreparedKernel> PrepareShrink(const OpContext& context) {
  ASSIGN_OR_RETURN(float lambd, context.attrs.GetFloat("lambd", 0.5f));
  ASSIGN_OR_RETURN(float bias, context.attrs.GetFloat("bias", 0.0f));
  return PrepareUnaryWith(
      context, kNumericTypes, UnaryParams{lambd, bias},
      [](auto x, const UnaryParams& p) -> decltype(x) {
        using C = decltype(x);
        // The ONNX reference's where(x < -lambd, x + bias, where(x > lambd,
        // x - bias, 0)): NaN becomes 0.
        if (static_cast<double>(x) < -static_cast<double>(p.alpha))
          return static_cast<C>(static_cast<double>(x) + p.beta);
        if (static_cast<double>(x) > static_cast<double>(p.alpha))
          return static_cast<C>(static_cast<double>(x) - p.beta);
        return C(0);
      });
}

// IsNaN, IsInf: bool outputs.
template <bool kNaN>
absl::StatusOr<PreparedKernel> PrepareIsSpecial(const OpContext& context) {
  RETURN_IF_ERROR(RequireDType(context.inputs[0], kFloatTypes, "input X"));
  ASSIGN_OR_RETURN(int64_t negative,
                   context.attrs.GetInt("detect_negative", 1));
  ASSIGN_OR_RETURN(int64_t positive,
                   context.attrs.GetInt("detect_positive", 1));
  const DType dtype = context.inputs[0].dtype;
  auto run = [dtype, negative, positive](std::span<const TensorView> in,
                                         std::span<const TensorView> out,
                                         std::span<std::byte>) -> absl::Status {
    return VisitDType(dtype, [&]<typename T>() -> absl::Status {
      if constexpr (!std::is_same_v<T, bool>) {
        const T* x = in[0].as<const T>();
        bool* y = out[0].as<bool>();
        const int64_t n = in[0].NumElements();
        for (int64_t i = 0; i < n; ++i) {
          const double v = static_cast<double>(Load(x[i]));
          y[i] = kNaN
                     ? std::isnan(v)
                     : std::isinf(v) && (v > 0 ? positive != 0 : negative != 0);
        }
      }
      return absl::OkStatus();
    });
  };
  return Prepared({TensorInfo{DType::kBool, context.inputs[0].shape}},
                  MakeKernel(std::move(run)));
}

// Clip: bounds from inputs 1/2 (opset >= 11, must be known before execution) or
// from the min/max attributes (opset 6).
absl::StatusOr<PreparedKernel> PrepareClip(const OpContext& context) {
  RETURN_IF_ERROR(RequireDType(context.inputs[0], kNumericTypes, "input X"));
  const DType dtype = context.inputs[0].dtype;
  double lo = -std::numeric_limits<double>::infinity();
  double hi = std::numeric_limits<double>::infinity();
  if (context.attrs.Has("min")) {
    ASSIGN_OR_RETURN(float v, context.attrs.GetFloat("min", 0));
    lo = v;
  }
  if (context.attrs.Has("max")) {
    ASSIGN_OR_RETURN(float v, context.attrs.GetFloat("max", 0));
    hi = v;
  }
  for (size_t i = 1; i < 3; ++i) {
    if (!context.has_input(i)) continue;
    if (context.inputs[i].dtype != dtype) {
      return InvalidArgument(i == 1 ? "min" : "max", " has type ",
                             DTypeName(context.inputs[i].dtype), ", X has ",
                             DTypeName(dtype));
    }
    const TensorView* bound = context.constant(i);
    if (bound == nullptr) {
      return Unimplemented(i == 1 ? "min" : "max",
                           " must be known before execution");
    }
    ASSIGN_OR_RETURN(double v,
                     ReadScalarAsDouble(*bound, i == 1 ? "min" : "max"));
    (i == 1 ? lo : hi) = v;
  }
  if (dtype == DType::kFloat32) {
    const float l = ClipBoundFloat32(lo);
    const float h = ClipBoundFloat32(hi);
    return PrepareFloat32Array(context,
                               [l, h](const float* x, float* y, size_t n) {
                                 ClipFloat32(x, y, n, l, h);
                               });
  }
  auto run = [dtype, lo, hi](std::span<const TensorView> in,
                             std::span<const TensorView> out,
                             std::span<std::byte>) -> absl::Status {
    return VisitDType(dtype, [&]<typename T>() -> absl::Status {
      if constexpr (!std::is_same_v<T, bool>) {
        using C = ComputeType<T>;
        // Bounds beyond the type's range clip nothing.
        const double lowest =
            static_cast<double>(std::numeric_limits<C>::lowest());
        const double highest =
            static_cast<double>(std::numeric_limits<C>::max());
        const C l = static_cast<C>(std::clamp(lo, lowest, highest));
        const C h = static_cast<C>(std::clamp(hi, lowest, highest));
        const T* x = in[0].as<const T>();
        T* y = out[0].as<T>();
        const int64_t n = in[0].NumElements();
        for (int64_t i = 0; i < n; ++i) {
          C v = Load(x[i]);
          v = v < l ? l : v;
          v = v > h ? h : v;
          y[i] = Store<T>(v);
        }
      }
      return absl::OkStatus();
    });
  };
  return Prepared({context.inputs[0]}, MakeKernel(std::move(run)));
}

// ---------------------------------------------------------------------------------------------
// Cast.

template <typename To, typename From>
To CastValue(From value) {
  if constexpr (std::is_same_v<To, bool>) {
    return static_cast<double>(Load(value)) != 0.0;
  } else if constexpr (kIsHalfType<To>) {
    if constexpr (std::is_same_v<From, double>) {
      // Round double -> half directly would double-round via float only in rare
      // ties; the ONNX reference goes through float as well.
      return To(static_cast<float>(value));
    } else {
      return To(static_cast<float>(Load(value)));
    }
  } else if constexpr (std::is_integral_v<To>) {
    const auto v = Load(value);
    if constexpr (std::is_floating_point_v<decltype(v)>) {
      if (std::isnan(v)) return To(0);
      // Saturate rather than invoke undefined behaviour for out-of-range
      // floats.
      const double d = static_cast<double>(v);
      if (d <= static_cast<double>(std::numeric_limits<To>::lowest())) {
        return std::numeric_limits<To>::lowest();
      }
      if (d >= static_cast<double>(std::numeric_limits<To>::max())) {
        return std::numeric_limits<To>::max();
      }
    }
    return static_cast<To>(v);
  } else {
    return static_cast<To>(Load(value));
  }
}

absl::StatusOr<PreparedKernel> PrepareCastTo(const OpContext& context,
                                             DType to_type) {
  const DType from = context.inputs[0].dtype;
  auto run = [from, to_type](std::span<const TensorView> in,
                             std::span<const TensorView> out,
                             std::span<std::byte>) -> absl::Status {
    const int64_t n = in[0].NumElements();
    VisitDType(from, [&]<typename F>() {
      VisitDType(to_type, [&]<typename T>() {
        const F* x = in[0].as<const F>();
        T* y = out[0].as<T>();
        for (int64_t i = 0; i < n; ++i) y[i] = CastValue<T>(x[i]);
      });
    });
    return absl::OkStatus();
  };
  return Prepared({TensorInfo{to_type, context.inputs[0].shape}},
                  MakeKernel(std::move(run)));
}

absl::StatusOr<PreparedKernel> PrepareCast(const OpContext& context) {
  ASSIGN_OR_RETURN(int64_t to, context.attrs.GetInt("to", 0));
  std::optional<DType> target = FromOnnxDataType(static_cast<int32_t>(to));
  if (!target)
    return Unimplemented("cast to ONNX data type ", to, " is not supported");
  return PrepareCastTo(context, *target);
}

// CastLike: Cast to the type of input 1.
absl::StatusOr<PreparedKernel> PrepareCastLike(const OpContext& context) {
  return PrepareCastTo(context, context.inputs[1].dtype);
}

}  // namespace

absl::Status RegisterElementwiseOps(OpRegistry& registry) {
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
      {"Relu", 1, 1, 1, 1, PrepareRelu},
      {"LeakyRelu", 1, 1, 1, 1, PrepareLeakyRelu},
      {"Elu", 1, 1, 1, 1, PrepareElu},
      {"Selu", 1, 1, 1, 1, PrepareSelu},
      {"HardSigmoid", 1, 1, 1, 1, PrepareHardSigmoid},
      {"HardSwish", 1, 1, 1, 1, PrepareHardSwish},
      {"Gelu", 1, 1, 1, 1, PrepareGelu},
      {"Swish", 1, 1, 1, 1, PrepareSwish},
      {"ThresholdedRelu", 1, 1, 1, 1, PrepareThresholdedRelu},
      {"Sigmoid", 1, 1, 1, 1, PrepareSigmoid},
      {"Tanh", 1, 1, 1, 1, PrepareTanh},
      {"Erf", 1, 1, 1, 1, PrepareErf},
      {"Exp", 1, 1, 1, 1, PrepareExp},
      {"Log", 1, 1, 1, 1, PrepareLog},
      {"Sqrt", 1, 1, 1, 1, PrepareSqrt},
      {"Reciprocal", 1, 1, 1, 1, PrepareReciprocal},
      {"Floor", 1, 1, 1, 1, PrepareFloor},
      {"Ceil", 1, 1, 1, 1, PrepareCeil},
      {"Round", 1, 1, 1, 1, PrepareRound},
      {"Sin", 1, 1, 1, 1, PrepareSin},
      {"Cos", 1, 1, 1, 1, PrepareCos},
      {"Tan", 1, 1, 1, 1, PrepareTan},
      {"Softplus", 1, 1, 1, 1, PrepareSoftplus},
      {"Softsign", 1, 1, 1, 1, PrepareSoftsign},
      {"Neg", 1, 1, 1, 1, PrepareNeg},
      {"Abs", 1, 1, 1, 1, PrepareAbs},
      {"Sign", 1, 1, 1, 1, PrepareSign},
      {"Clip", 1, 3, 1, 1, PrepareClip},
      {"Cast", 1, 1, 1, 1, PrepareCast},
      {"CastLike", 2, 2, 1, 1, PrepareCastLike},
      {"PRelu", 2, 2, 1, 1, PrepareBinary<BinaryOp::kPRelu>},
      {"Celu", 1, 1, 1, 1, PrepareCelu},
      {"Shrink", 1, 1, 1, 1, PrepareShrink},
      {"IsNaN", 1, 1, 1, 1, PrepareIsSpecial<true>},
      {"IsInf", 1, 1, 1, 1, PrepareIsSpecial<false>},
      {"Asin", 1, 1, 1, 1, PrepareAsin},
      {"Acos", 1, 1, 1, 1, PrepareAcos},
      {"Atan", 1, 1, 1, 1, PrepareAtan},
      {"Sinh", 1, 1, 1, 1, PrepareSinh},
      {"Cosh", 1, 1, 1, 1, PrepareCosh},
      {"Asinh", 1, 1, 1, 1, PrepareAsinh},
      {"Acosh", 1, 1, 1, 1, PrepareAcosh},
      {"Atanh", 1, 1, 1, 1, PrepareAtanh},
  });
}

}  // namespace acldump
