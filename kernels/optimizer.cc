// The optimizers of domain ai.onnx.preview.training (version 1): Momentum
// (standard and Nesterov), Adagrad and Adam. Inputs: R (learning rate, a
// float or double scalar), T (update count, an int64 scalar), then the n
// optimized tensors X, their n gradients G and their n states of each kind
// (Momentum: V; Adagrad: H; Adam: V then H). Outputs: the n new X, then the
// new states in the same order. Each tuple is updated on its own (the spec's
// "concatenation" of several X gives the same result).
//
// G and the states must have X's shape and type: the spec's broadcasting
// would give a state a shape other than the one its output keeps. The
// arithmetic follows the ONNX reference implementation (which made the node
// tests): the scalar learning-rate factor in double, then each element in
// X's type, in the reference's order of operations.
#include <array>
#include <cmath>
#include <string>

#include "kernels/kernel_util.h"
#include "kernels/op_families.h"

namespace acldump {
namespace {

enum class Method { kMomentum, kNesterov, kAdagrad, kAdam };

struct Coefficients {
  Method method = Method::kMomentum;
  float alpha = 0, beta = 0;  // Momentum, Adam
  float norm_coefficient = 0;
  float epsilon = 0;                // Adagrad, Adam
  float decay_factor = 0;           // Adagrad
  float norm_coefficient_post = 0;  // Adam
};

// The state inputs each optimized tensor has, in input order.
std::vector<std::string_view> StateNames(Method method) {
  switch (method) {
    case Method::kMomentum:
    case Method::kNesterov:
      return {"V"};
    case Method::kAdagrad:
      return {"H"};
    case Method::kAdam:
      return {"V", "H"};
  }
  return {};
}

absl::StatusOr<float> RequiredFloat(const Attributes& attrs,
                                    std::string_view name) {
  if (!attrs.Has(name)) {
    return InvalidArgument("attribute '", name, "' is required");
  }
  return attrs.GetFloat(name, 0);
}

absl::StatusOr<Coefficients> ReadCoefficients(std::string_view op,
                                              const Attributes& attrs) {
  Coefficients c;
  if (op == "Momentum") {
    ASSIGN_OR_RETURN(c.alpha, RequiredFloat(attrs, "alpha"));
    ASSIGN_OR_RETURN(c.beta, RequiredFloat(attrs, "beta"));
    ASSIGN_OR_RETURN(c.norm_coefficient,
                     RequiredFloat(attrs, "norm_coefficient"));
    if (!attrs.Has("mode")) {
      return InvalidArgument(
          "attribute 'mode' is required (\"standard\" or \"nesterov\")");
    }
    ASSIGN_OR_RETURN(const std::string mode, attrs.GetString("mode", ""));
    if (mode == "standard") {
      c.method = Method::kMomentum;
    } else if (mode == "nesterov") {
      c.method = Method::kNesterov;
    } else {
      return InvalidArgument("attribute 'mode' is \"", mode,
                             "\"; expected \"standard\" or \"nesterov\"");
    }
  } else if (op == "Adagrad") {
    c.method = Method::kAdagrad;
    ASSIGN_OR_RETURN(c.epsilon, attrs.GetFloat("epsilon", 1e-6f));
    ASSIGN_OR_RETURN(c.decay_factor, attrs.GetFloat("decay_factor", 0.0f));
    ASSIGN_OR_RETURN(c.norm_coefficient,
                     attrs.GetFloat("norm_coefficient", 0.0f));
  } else {
    c.method = Method::kAdam;
    ASSIGN_OR_RETURN(c.alpha, attrs.GetFloat("alpha", 0.9f));
    ASSIGN_OR_RETURN(c.beta, attrs.GetFloat("beta", 0.999f));
    ASSIGN_OR_RETURN(c.epsilon, attrs.GetFloat("epsilon", 1e-6f));
    ASSIGN_OR_RETURN(c.norm_coefficient,
                     attrs.GetFloat("norm_coefficient", 0.0f));
    ASSIGN_OR_RETURN(c.norm_coefficient_post,
                     attrs.GetFloat("norm_coefficient_post", 0.0f));
  }
  return c;
}

// "X" for a single tensor, else "X_1", "X_2", ... as the spec's examples.
std::string TupleName(std::string_view kind, int64_t i, int64_t n) {
  return n == 1 ? std::string(kind) : StrCat(kind, "_", i + 1);
}

std::string InputLabel(size_t index, std::string_view name) {
  return StrCat("input ", index, " ('", name, "')");
}

absl::Status CheckScalar(const TensorInfo& info, size_t index,
                         std::string_view name, std::span<const DType> types,
                         std::string_view what) {
  RETURN_IF_ERROR(RequireDType(info, types, InputLabel(index, name)));
  if (info.NumElements() != 1) {
    return InvalidArgument(InputLabel(index, name), " (", what,
                           ") must be a scalar, got shape ",
                           info.shape.ToString());
  }
  return absl::OkStatus();
}

inline constexpr DType kOptimizerTypes[] = {DType::kFloat32, DType::kFloat64};
inline constexpr DType kInt64Only[] = {DType::kInt64};

template <typename C>
struct Scalars {
  C r;     // the learning rate as the update uses it
  C beta;  // Momentum: beta, or 1 on the first update (T == 0)
  C one_minus_alpha, one_minus_beta, post;  // Adam
};

template <typename C>
Scalars<C> ComputeScalars(const Coefficients& c, double r, int64_t t) {
  Scalars<C> s{};
  switch (c.method) {
    case Method::kMomentum:
    case Method::kNesterov:
      s.r = static_cast<C>(r);
      s.beta = t > 0 ? static_cast<C>(c.beta) : C{1};
      break;
    case Method::kAdagrad:
      s.r = static_cast<C>(r / (1.0 + static_cast<double>(t) *
                                          static_cast<double>(c.decay_factor)));
      break;
    case Method::kAdam: {
      double adjusted = r;
      if (t > 0) {
        // Bias correction of both running averages.
        const double td = static_cast<double>(t);
        adjusted = r * std::sqrt(1.0 - std::pow(double{c.beta}, td)) /
                   (1.0 - std::pow(double{c.alpha}, td));
      }
      s.r = static_cast<C>(adjusted);
      s.one_minus_alpha = static_cast<C>(1.0 - double{c.alpha});
      s.one_minus_beta = static_cast<C>(1.0 - double{c.beta});
      s.post = static_cast<C>(1.0 - double{c.norm_coefficient_post});
      break;
    }
  }
  return s;
}

// One tuple over elements [begin, end). Each element's inputs are read before
// its outputs are written, so outputs may alias their inputs.
template <typename C>
void UpdateRange(const Coefficients& c, const Scalars<C>& s, size_t begin,
                 size_t end, const C* x, const C* g, const C* state0,
                 const C* state1, C* x_out, C* state0_out, C* state1_out) {
  const C norm = static_cast<C>(c.norm_coefficient);
  const C alpha = static_cast<C>(c.alpha);
  const C beta = static_cast<C>(c.beta);
  const C epsilon = static_cast<C>(c.epsilon);
  for (size_t i = begin; i < end; ++i) {
    const C xi = x[i];
    const C g_reg = norm * xi + g[i];
    switch (c.method) {
      case Method::kMomentum: {
        const C v_new = alpha * state0[i] + s.beta * g_reg;
        x_out[i] = xi - s.r * v_new;
        state0_out[i] = v_new;
        break;
      }
      case Method::kNesterov: {
        const C v_new = alpha * state0[i] + s.beta * g_reg;
        x_out[i] = xi - s.r * (g_reg + alpha * v_new);
        state0_out[i] = v_new;
        break;
      }
      case Method::kAdagrad: {
        const C h_new = state0[i] + g_reg * g_reg;
        const C h_adaptive = std::sqrt(h_new) + epsilon;
        x_out[i] = xi - s.r * g_reg / h_adaptive;
        state0_out[i] = h_new;
        break;
      }
      case Method::kAdam: {
        const C v_new = alpha * state0[i] + s.one_minus_alpha * g_reg;
        const C h_new = beta * state1[i] + s.one_minus_beta * (g_reg * g_reg);
        const C h_sqrt = std::sqrt(h_new) + epsilon;
        const C x_new = xi - s.r * (v_new / h_sqrt);
        x_out[i] = s.post * x_new;
        state0_out[i] = v_new;
        state1_out[i] = h_new;
        break;
      }
    }
  }
}

struct OptimizerPlan {
  std::string op;
  Coefficients coefficients;
  int64_t tensors = 0;  // n
  int64_t states = 0;   // per tensor
  DType dtype = DType::kFloat32;
  std::vector<int64_t> sizes;  // elements per tuple
};

template <typename C>
absl::Status RunOptimizer(const OptimizerPlan& plan,
                          std::span<const TensorView> in,
                          std::span<const TensorView> out) {
  if (in[0].NumElements() != 1 || in[1].NumElements() != 1) {
    return absl::FailedPreconditionError(
        StrCat(plan.op, ": run with R ", in[0].shape.ToString(), " and T ",
               in[1].shape.ToString(), "; scalars were prepared"));
  }
  const double r = in[0].dtype == DType::kFloat64
                       ? *in[0].as<const double>()
                       : static_cast<double>(*in[0].as<const float>());
  const int64_t t = *in[1].as<const int64_t>();
  const Scalars<C> s = ComputeScalars<C>(plan.coefficients, r, t);
  const int64_t n = plan.tensors;
  for (int64_t i = 0; i < n; ++i) {
    const size_t size = static_cast<size_t>(plan.sizes[i]);
    // Shapes were checked at prepare; these are the buffers Run was given.
    const std::array<const TensorView*, 4> views = {
        &in[2 + i], &in[2 + n + i], &in[2 + 2 * n + i],
        plan.states > 1 ? &in[2 + 3 * n + i] : nullptr};
    for (const TensorView* v : views) {
      if (v != nullptr && static_cast<size_t>(v->NumElements()) != size) {
        return absl::FailedPreconditionError(StrCat(
            plan.op, ": run with an input of shape ", v->shape.ToString(),
            " where ", size, " elements were prepared"));
      }
    }
    for (int64_t k = 0; k <= plan.states; ++k) {
      if (static_cast<size_t>(out[k * n + i].NumElements()) != size) {
        return absl::FailedPreconditionError(
            StrCat(plan.op, ": run with output ", k * n + i, " of shape ",
                   out[k * n + i].shape.ToString(), " where ", size,
                   " elements were prepared"));
      }
    }
    const C* x = views[0]->as<const C>();
    const C* g = views[1]->as<const C>();
    const C* state0 = views[2]->as<const C>();
    const C* state1 = views[3] ? views[3]->as<const C>() : nullptr;
    C* x_out = out[i].as<C>();
    C* state0_out = out[n + i].as<C>();
    C* state1_out = plan.states > 1 ? out[2 * n + i].as<C>() : nullptr;
    ParallelFor(size, kElementwiseGrain, [&](size_t begin, size_t end) {
      UpdateRange<C>(plan.coefficients, s, begin, end, x, g, state0, state1,
                     x_out, state0_out, state1_out);
    });
  }
  return absl::OkStatus();
}

absl::StatusOr<PreparedKernel> PrepareOptimizer(const OpContext& context) {
  OptimizerPlan plan;
  plan.op = std::string(context.op_type);
  ASSIGN_OR_RETURN(plan.coefficients,
                   ReadCoefficients(context.op_type, context.attrs));
  const std::vector<std::string_view> state_names =
      StateNames(plan.coefficients.method);
  plan.states = static_cast<int64_t>(state_names.size());
  const int64_t per_tensor = 2 + plan.states;  // X, G, states
  const int64_t variadic = static_cast<int64_t>(context.inputs.size()) - 2;
  std::vector<std::string> kinds = {"X", "G"};
  for (std::string_view s : state_names) kinds.emplace_back(s);
  if (variadic < per_tensor || variadic % per_tensor != 0) {
    return InvalidArgument("takes R, T, then for n optimized tensors the n ",
                           StrJoin(kinds, ", n "), " (", per_tensor,
                           " inputs per tensor); got ", variadic,
                           " inputs after R and T");
  }
  plan.tensors = variadic / per_tensor;
  const int64_t n = plan.tensors;
  const int64_t expected_outputs = n * (1 + plan.states);
  if (static_cast<int64_t>(context.num_outputs) != expected_outputs) {
    std::vector<std::string> new_kinds = {"X"};
    for (std::string_view s : state_names) new_kinds.emplace_back(s);
    return InvalidArgument("has ", n, " optimized tensor(s), so ",
                           expected_outputs, " outputs (the new ",
                           StrJoin(new_kinds, ", then the new "), "); got ",
                           context.num_outputs);
  }
  for (size_t i = 0; i < context.inputs.size(); ++i) {
    if (!context.has_input(i)) {
      return InvalidArgument("input ", i,
                             " is missing; every input is required");
    }
  }
  RETURN_IF_ERROR(CheckScalar(context.inputs[0], 0, "R", kOptimizerTypes,
                              "the learning rate"));
  RETURN_IF_ERROR(
      CheckScalar(context.inputs[1], 1, "T", kInt64Only, "the update count"));

  std::vector<TensorInfo> outputs(expected_outputs);
  const TensorInfo& first_x = context.inputs[2];
  RETURN_IF_ERROR(RequireDType(first_x, kOptimizerTypes,
                               InputLabel(2, TupleName("X", 0, n))));
  plan.dtype = first_x.dtype;
  int64_t total = 0;
  for (int64_t i = 0; i < n; ++i) {
    const size_t x_index = static_cast<size_t>(2 + i);
    const TensorInfo& x = context.inputs[x_index];
    if (x.dtype != plan.dtype) {
      return InvalidArgument(InputLabel(x_index, TupleName("X", i, n)), " is ",
                             DTypeName(x.dtype), "; expected ",
                             DTypeName(plan.dtype),
                             " like the first optimized tensor (one type for "
                             "every X, G and state)");
    }
    for (int64_t k = 1; k < per_tensor; ++k) {
      const size_t index = static_cast<size_t>(2 + k * n + i);
      const TensorInfo& other = context.inputs[index];
      if (other != x) {
        return InvalidArgument(InputLabel(index, TupleName(kinds[k], i, n)),
                               " is ", other.ToString(), "; expected ",
                               x.ToString(), " like ",
                               InputLabel(x_index, TupleName("X", i, n)));
      }
    }
    ASSIGN_OR_RETURN(const int64_t size, CheckedNumElements(x.shape.dims()));
    plan.sizes.push_back(size);
    total += size;
    for (int64_t k = 0; k <= plan.states; ++k) outputs[k * n + i] = x;
  }
  std::vector<std::pair<std::string, std::string>> params = {
      {"tensors", StrCat(n)}, {"elements", StrCat(total)}};
  auto run = [plan](std::span<const TensorView> in,
                    std::span<const TensorView> out,
                    std::span<std::byte>) -> absl::Status {
    if (plan.dtype == DType::kFloat64)
      return RunOptimizer<double>(plan, in, out);
    return RunOptimizer<float>(plan, in, out);
  };
  return Prepared(std::move(outputs),
                  MakeKernel(std::move(run), 0, std::move(params)));
}

}  // namespace

absl::Status RegisterOptimizerOps(OpRegistry& registry) {
  constexpr int kMany = 1 << 16;
  return registry.RegisterAll({
      {"Momentum", 5, kMany, 2, kMany, PrepareOptimizer},
      {"Adagrad", 5, kMany, 2, kMany, PrepareOptimizer},
      {"Adam", 6, kMany, 3, kMany, PrepareOptimizer},
  });
}

}  // namespace acldump
