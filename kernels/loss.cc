// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss: evaluation losses
// that exported models compute beside their predictions. Input [N, C] or
// [N, C, d1, ...], class indices [N] or [N, d1, ...] (int32/int64), optional
// class weights [C], ignore_index, reduction none / sum / mean (mean divides
// by the summed weights of the elements not ignored, as ONNX says). Sums are
// in double, in element order, so the bits do not depend on threads.
#include <cmath>
#include <optional>
#include <vector>

#include "kernels/kernel_util.h"
#include "kernels/op_families.h"

namespace acldump {
namespace {

enum class Reduction { kNone, kSum, kMean };

struct LossShape {
  int64_t batch = 0, classes = 0, inner = 1;  // inner: product of d1...
  Shape target_shape;
  Reduction reduction = Reduction::kMean;
  std::optional<int64_t> ignore_index;
};

absl::StatusOr<LossShape> ReadLossShape(const OpContext& context,
                                        std::string_view input_name,
                                        std::string_view target_name) {
  const TensorInfo& input = context.inputs[0];
  const TensorInfo& target = context.inputs[1];
  RETURN_IF_ERROR(RequireDType(input, kFloatTypes, input_name));
  RETURN_IF_ERROR(RequireDType(target, kIndexTypes, target_name));
  if (input.shape.rank() < 2) {
    return InvalidArgument(input_name, " has shape ", input.shape.ToString(),
                           "; expected [N, C] or [N, C, d1, ...]");
  }
  LossShape s;
  s.batch = input.shape[0];
  s.classes = input.shape[1];
  std::vector<int64_t> target_dims = {s.batch};
  for (size_t a = 2; a < input.shape.rank(); ++a) {
    s.inner *= input.shape[a];
    target_dims.push_back(input.shape[a]);
  }
  s.target_shape = Shape(target_dims);
  if (target.shape != s.target_shape) {
    return InvalidArgument(target_name, " has shape ", target.shape.ToString(),
                           "; expected ", s.target_shape.ToString(),
                           " (the input's shape without its class axis)");
  }
  if (context.has_input(2)) {
    const TensorInfo& weight = context.inputs[2];
    if (weight.dtype != input.dtype || weight.shape != Shape({s.classes})) {
      return InvalidArgument("weights are ", DTypeName(weight.dtype),
                             weight.shape.ToString(), "; expected ",
                             DTypeName(input.dtype), "[", s.classes, "]");
    }
  }
  ASSIGN_OR_RETURN(std::string reduction,
                   context.attrs.GetString("reduction", "mean"));
  if (reduction == "none") {
    s.reduction = Reduction::kNone;
  } else if (reduction == "sum") {
    s.reduction = Reduction::kSum;
  } else if (reduction != "mean") {
    return InvalidArgument("reduction is '", reduction,
                           "'; expected none, sum or mean");
  }
  if (context.attrs.Has("ignore_index")) {
    ASSIGN_OR_RETURN(int64_t ignore, context.attrs.GetInt("ignore_index", 0));
    s.ignore_index = ignore;
  }
  return s;
}

Shape LossOutputShape(const LossShape& s) {
  return s.reduction == Reduction::kNone ? s.target_shape : Shape();
}

// loss = -log_prob[n, target, d] * weight[target], reduced. `log_prob` is
// [N, C, inner] in T.
template <typename T>
absl::Status NegativeLogLikelihood(const LossShape& s, const T* log_prob,
                                   const TensorView& target, const T* weight,
                                   T* out) {
  using C = ComputeType<T>;
  double total = 0, weight_total = 0;
  return VisitDType(target.dtype, [&]<typename I>() -> absl::Status {
    if constexpr (!std::is_same_v<I, int32_t> && !std::is_same_v<I, int64_t>) {
      return Unimplemented("target type ", DTypeName(target.dtype));
    } else {
      const I* labels = target.as<const I>();
      for (int64_t n = 0; n < s.batch; ++n) {
        for (int64_t d = 0; d < s.inner; ++d) {
          const int64_t at = n * s.inner + d;
          const int64_t label = static_cast<int64_t>(labels[at]);
          C loss = 0;
          if (!(s.ignore_index.has_value() && label == *s.ignore_index)) {
            if (label < 0 || label >= s.classes) {
              return InvalidArgument("target value ", label, " at position ",
                                     at, " is not a class index in [0, ",
                                     s.classes, ") nor ignore_index");
            }
            const C w = weight == nullptr ? C(1) : Load(weight[label]);
            loss = -Load(log_prob[(n * s.classes + label) * s.inner + d]) * w;
            weight_total += static_cast<double>(w);
          }
          if (s.reduction == Reduction::kNone) {
            out[at] = Store<T>(loss);
          } else {
            total += static_cast<double>(loss);
          }
        }
      }
      if (s.reduction == Reduction::kSum) {
        out[0] = Store<T>(static_cast<C>(total));
      } else if (s.reduction == Reduction::kMean) {
        // All ignored: 0 / 0, NaN, as ONNX Runtime and PyTorch give.
        out[0] = Store<T>(static_cast<C>(total / weight_total));
      }
      return absl::OkStatus();
    }
  });
}

absl::StatusOr<PreparedKernel> PrepareNegativeLogLikelihoodLoss(
    const OpContext& context) {
  ASSIGN_OR_RETURN(LossShape s, ReadLossShape(context, "input", "target"));
  const DType dtype = context.inputs[0].dtype;
  const bool has_weight = context.has_input(2);
  auto run = [s, dtype, has_weight](std::span<const TensorView> in,
                                    std::span<const TensorView> out,
                                    std::span<std::byte>) -> absl::Status {
    return VisitFloatDType(dtype, [&]<typename T>() -> absl::Status {
      return NegativeLogLikelihood<T>(
          s, in[0].as<const T>(), in[1],
          has_weight ? in[2].as<const T>() : nullptr, out[0].as<T>());
    });
  };
  return Prepared({TensorInfo{dtype, LossOutputShape(s)}},
                  MakeKernel(std::move(run)));
}

// LogSoftmax over the class axis of [N, C, inner], in double.
template <typename T>
void LogSoftmaxOverClasses(const LossShape& s, const T* x, T* y) {
  for (int64_t n = 0; n < s.batch; ++n) {
    for (int64_t d = 0; d < s.inner; ++d) {
      auto at = [&](int64_t c) { return (n * s.classes + c) * s.inner + d; };
      double max = -INFINITY;
      for (int64_t c = 0; c < s.classes; ++c)
        max = std::max(max, static_cast<double>(Load(x[at(c)])));
      double sum = 0;
      for (int64_t c = 0; c < s.classes; ++c)
        sum += std::exp(static_cast<double>(Load(x[at(c)])) - max);
      const double log_sum = std::log(sum);
      for (int64_t c = 0; c < s.classes; ++c) {
        y[at(c)] = Store<T>(static_cast<ComputeType<T>>(
            static_cast<double>(Load(x[at(c)])) - max - log_sum));
      }
    }
  }
}

absl::StatusOr<PreparedKernel> PrepareSoftmaxCrossEntropyLoss(
    const OpContext& context) {
  ASSIGN_OR_RETURN(LossShape s, ReadLossShape(context, "scores", "labels"));
  const DType dtype = context.inputs[0].dtype;
  const TensorInfo& scores = context.inputs[0];
  const bool has_weight = context.has_input(2);
  const bool log_prob_output = context.num_outputs > 1;
  // Without the log_prob output, it is computed in the workspace.
  const size_t workspace =
      log_prob_output
          ? 0
          : static_cast<size_t>(scores.shape.NumElements()) * DTypeSize(dtype);
  auto run = [s, dtype, has_weight, log_prob_output](
                 std::span<const TensorView> in,
                 std::span<const TensorView> out,
                 std::span<std::byte> ws) -> absl::Status {
    return VisitFloatDType(dtype, [&]<typename T>() -> absl::Status {
      T* log_prob =
          log_prob_output ? out[1].as<T>() : reinterpret_cast<T*>(ws.data());
      LogSoftmaxOverClasses<T>(s, in[0].as<const T>(), log_prob);
      return NegativeLogLikelihood<T>(
          s, log_prob, in[1], has_weight ? in[2].as<const T>() : nullptr,
          out[0].as<T>());
    });
  };
  std::vector<TensorInfo> outputs = {TensorInfo{dtype, LossOutputShape(s)}};
  if (log_prob_output) outputs.push_back(scores);
  return Prepared(std::move(outputs), MakeKernel(std::move(run), workspace));
}

}  // namespace

absl::Status RegisterLossOps(OpRegistry& registry) {
  return registry.RegisterAll({
      {"NegativeLogLikelihoodLoss", 2, 3, 1, 1,
       PrepareNegativeLogLikelihoodLoss},
      {"SoftmaxCrossEntropyLoss", 2, 3, 1, 2, PrepareSoftmaxCrossEntropyLoss},
  });
}

}  // namespace acldump
