// Elementwise operators of one input: unary math and activations, Clip and
// Cast. Registered by RegisterElementwiseOps (elementwise.cc).
#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/elementwise_internal.h"
#include "kernels/kernel_util.h"
#include "kernels/threading.h"
#include "kernels/vector_math.h"

namespace acldump::elementwise {
namespace {

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
// Mish (opset 18): x * tanh(softplus(x)).
ACLDUMP_FLOAT_UNARY(Mish, x* std::tanh(x > 20 ? x : std::log1p(std::exp(x))))
// fabs: std::abs is ambiguous for the unsigned types this is instantiated for.
ACLDUMP_FLOAT_UNARY(Softsign, x / (1 + std::fabs(x)))
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
      return NotKnownBeforeExecution(i == 1 ? "min" : "max");
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

absl::Status RegisterUnaryOps(OpRegistry& registry) {
  return registry.RegisterAll({
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
      {"Mish", 1, 1, 1, 1, PrepareMish},
      {"Softsign", 1, 1, 1, 1, PrepareSoftsign},
      {"Neg", 1, 1, 1, 1, PrepareNeg},
      {"Abs", 1, 1, 1, 1, PrepareAbs},
      {"Sign", 1, 1, 1, 1, PrepareSign},
      {"Clip", 1, 3, 1, 1, PrepareClip},
      {"Cast", 1, 1, 1, 1, PrepareCast},
      {"CastLike", 2, 2, 1, 1, PrepareCastLike},
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

}  // namespace acldump::elementwise
