// MatMul (numpy semantics) and Gemm. Float32 with constant weights runs on
// the packed-weight GEMM (kernels/gemm.h); the rest on oneDNN's GEMM, which
// picks its kernels for this CPU at run time and reports allocation failures
// as errors, one GEMM per thread. A MatMul may carry the converter's fused
// bias (a third input along the last axis), added to the finished product as
// the Add it replaces.
#include <cstring>
#include <mutex>

#include "kernels/gemm.h"
#include "kernels/kernel_util.h"
#include "kernels/matmul_internal.h"
#include "kernels/op_families.h"
#include "kernels/threading.h"

namespace acldump {
namespace {

constexpr DType kMatMulTypes[] = {DType::kFloat32, DType::kFloat64,
                                  DType::kFloat16, DType::kBFloat16,
                                  DType::kInt32,   DType::kInt64};

absl::StatusOr<bool> ReadFusedRelu(const Attributes& attrs) {
  ASSIGN_OR_RETURN(std::string activation,
                   attrs.GetString("fused_activation", ""));
  if (activation.empty()) return false;
  if (activation == "Relu") return true;
  return InvalidArgument("fused_activation '", activation,
                         "' is not supported (only Relu)");
}

template <typename T>
void ApplyRelu(T* data, int64_t count) {
  for (int64_t i = 0; i < count; ++i) {
    if (Load(data[i]) < 0) data[i] = Store<T>(0.0f);
  }
}

// Below this many rows of A the packed kernel's few accumulator chains wait
// on FMA latency; the general GEMM does better on matrix-vector products.
constexpr int64_t kMinPackedRows = 4;

// MatMul with constant 2-D float32 weights: every row of A, across all its
// batch dimensions, against B packed once.
absl::StatusOr<PreparedKernel> PrepareMatMulPackedB(const TensorView& b,
                                                    Shape out_shape, int64_t m,
                                                    int64_t n, int64_t k,
                                                    bool relu, bool has_bias) {
  auto packed = std::make_shared<const PackedMatrixB>(
      PackedMatrixB::Pack(b.as<const float>(), k, n, n, false));
  // A's rows are contiguous with stride K across its batch dimensions.
  const int64_t all_rows = n > 0 ? out_shape.NumElements() / n : 0;
  auto run = [packed, all_rows, n, k, relu, has_bias](
                 std::span<const TensorView> in,
                 std::span<const TensorView> out,
                 std::span<std::byte>) -> absl::Status {
    float* c = out[0].as<float>();
    const float* bias = has_bias ? in[2].as<const float>() : nullptr;
    if (all_rows < kMinPackedRows && k > 0) {
      RETURN_IF_ERROR(Gemm<float>(false, false, all_rows, n, k, 1.0f,
                                  in[0].as<const float>(), k,
                                  in[1].as<const float>(), n, 0.0f, c, n));
      for (int64_t r = 0; bias != nullptr && r < all_rows; ++r) {
        for (int64_t j = 0; j < n; ++j) c[r * n + j] += bias[j];
      }
    } else {
      GemmPackedB(all_rows, in[0].as<const float>(), k, *packed, c, n, 1.0f,
                  0.0f, bias);
    }
    if (relu) ApplyRelu(c, out[0].NumElements());
    return absl::OkStatus();
  };
  std::vector<std::pair<std::string, std::string>> params = {
      {"M", StrCat(m)},  {"N", StrCat(n)},
      {"K", StrCat(k)},  {"rows", StrCat(all_rows)},
      {"packed_b", "1"}, {"fused_bias", has_bias ? "1" : "0"}};
  return Prepared({TensorInfo{DType::kFloat32, std::move(out_shape)}},
                  MakeKernel(std::move(run), 0, std::move(params)));
}

// MatMul's operands checked and its shapes inferred, numpy style.
struct MatMulShape {
  int64_t m = 0, n = 0, k = 0;
  Shape a_batch, b_batch;  // the batch dimensions of each operand
  Shape batch;             // their broadcast
  std::vector<int64_t> out_dims;
};

absl::StatusOr<MatMulShape> InferMatMulShape(const TensorInfo& a,
                                             const TensorInfo& b) {
  RETURN_IF_ERROR(RequireDType(a, kMatMulTypes, "input A"));
  if (a.dtype != b.dtype) {
    return InvalidArgument("A and B have different types (", DTypeName(a.dtype),
                           " and ", DTypeName(b.dtype), ")");
  }
  if (a.shape.rank() == 0 || b.shape.rank() == 0) {
    return InvalidArgument("MatMul inputs must have rank >= 1, got ",
                           a.shape.ToString(), " and ", b.shape.ToString());
  }
  // numpy: a 1-D A is a row vector, a 1-D B a column vector; the added axis is
  // removed again.
  std::vector<int64_t> a_dims = a.shape.dims();
  std::vector<int64_t> b_dims = b.shape.dims();
  const bool a_vector = a_dims.size() == 1;
  const bool b_vector = b_dims.size() == 1;
  if (a_vector) a_dims.insert(a_dims.begin(), 1);
  if (b_vector) b_dims.push_back(1);
  MatMulShape s;
  s.m = a_dims[a_dims.size() - 2];
  s.k = a_dims.back();
  s.n = b_dims.back();
  if (b_dims[b_dims.size() - 2] != s.k) {
    return InvalidArgument("inner dimensions differ: A ", a.shape.ToString(),
                           " has K=", s.k, ", B ", b.shape.ToString(),
                           " has K=", b_dims[b_dims.size() - 2]);
  }
  s.a_batch = Shape(std::vector<int64_t>(a_dims.begin(), a_dims.end() - 2));
  s.b_batch = Shape(std::vector<int64_t>(b_dims.begin(), b_dims.end() - 2));
  const Shape batches[] = {s.a_batch, s.b_batch};
  ASSIGN_OR_RETURN(s.batch, BroadcastShapes(batches));
  s.out_dims = s.batch.dims();
  if (!a_vector) s.out_dims.push_back(s.m);
  if (!b_vector) s.out_dims.push_back(s.n);
  return s;
}

// The converter's MatMul + Add of a bias along the last axis (input 2), which
// only the packed path runs.
absl::Status CheckMatMulBias(const OpContext& context, int64_t n) {
  if (!context.has_input(2)) return absl::OkStatus();
  const TensorInfo& a = context.inputs[0];
  const TensorInfo& b = context.inputs[1];
  const TensorInfo& bias = context.inputs[2];
  const TensorView* constant_b = context.constant(1);
  if (a.dtype != DType::kFloat32 || constant_b == nullptr ||
      b.shape.rank() != 2 || bias.dtype != DType::kFloat32 ||
      bias.shape.NumElements() != n || bias.shape.rank() == 0 ||
      bias.shape[bias.shape.rank() - 1] != n) {
    return InvalidArgument(
        "a MatMul with a fused bias needs float32 A, constant 2-D B and a "
        "float32 bias of N=",
        n, " elements along the last axis; got A ", DTypeName(a.dtype), " ",
        a.shape.ToString(), ", B ", b.shape.ToString(),
        constant_b == nullptr ? " (not constant)" : "", ", bias ",
        DTypeName(bias.dtype), " ", bias.shape.ToString());
  }
  return absl::OkStatus();
}

// Any MatMul on the general GEMM: one GEMM per output batch.
absl::StatusOr<PreparedKernel> PrepareMatMulBatched(DType dtype,
                                                    const MatMulShape& s,
                                                    bool relu) {
  const int64_t m = s.m, n = s.n, k = s.k;
  // Offsets (in matrices) of A and B for each output batch.
  std::vector<int64_t> a_index;
  std::vector<int64_t> b_index;
  const Shape batches[] = {s.a_batch, s.b_batch};
  BroadcastLoop loop(s.batch, batches);
  loop.ForEachRun([&](int64_t, const int64_t* offsets, int64_t count,
                      const int64_t* strides) {
    for (int64_t i = 0; i < count; ++i) {
      a_index.push_back(offsets[0] + i * strides[0]);
      b_index.push_back(offsets[1] + i * strides[1]);
    }
  });
  auto run = [=](std::span<const TensorView> in,
                 std::span<const TensorView> out,
                 std::span<std::byte>) -> absl::Status {
    return VisitDType(dtype, [&]<typename T>() -> absl::Status {
      if constexpr (!kHasMatMulKernel<T>) {
        return Unimplemented("MatMul on ", DTypeName(dtype));
      } else {
        const T* pa = in[0].as<const T>();
        const T* pb = in[1].as<const T>();
        T* pc = out[0].as<T>();
        RETURN_IF_ERROR(BatchedGemm<T>(
            a_index.size(), m, n, k,
            [&](size_t i) { return pa + a_index[i] * m * k; },
            [&](size_t i) { return pb + b_index[i] * k * n; }, pc));
        if (relu) ApplyRelu(pc, out[0].NumElements());
        return absl::OkStatus();
      }
    });
  };

  std::vector<std::pair<std::string, std::string>> params = {
      {"M", StrCat(m)},
      {"N", StrCat(n)},
      {"K", StrCat(k)},
      {"batches", StrCat(a_index.size())}};
  return Prepared({TensorInfo{dtype, Shape(s.out_dims)}},
                  MakeKernel(std::move(run), 0, std::move(params)));
}

absl::StatusOr<PreparedKernel> PrepareMatMul(const OpContext& context) {
  const TensorInfo& a = context.inputs[0];
  const TensorInfo& b = context.inputs[1];
  ASSIGN_OR_RETURN(MatMulShape s, InferMatMulShape(a, b));
  ASSIGN_OR_RETURN(bool relu, ReadFusedRelu(context.attrs));
  RETURN_IF_ERROR(CheckMatMulBias(context, s.n));
  const TensorView* constant_b = context.constant(1);
  if (a.dtype == DType::kFloat32 && constant_b != nullptr &&
      b.shape.rank() == 2) {
    return PrepareMatMulPackedB(*constant_b, Shape(s.out_dims), s.m, s.n, s.k,
                                relu, context.has_input(2));
  }
  return PrepareMatMulBatched(a.dtype, s, relu);
}

// Gemm's attributes.
struct GemmAttributes {
  int64_t trans_a = 0, trans_b = 0;
  float alpha = 1.0f, beta = 1.0f;
  bool relu = false;
};

absl::StatusOr<GemmAttributes> ParseGemmAttributes(const Attributes& attrs) {
  GemmAttributes g;
  ASSIGN_OR_RETURN(g.trans_a, attrs.GetInt("transA", 0));
  ASSIGN_OR_RETURN(g.trans_b, attrs.GetInt("transB", 0));
  ASSIGN_OR_RETURN(g.alpha, attrs.GetFloat("alpha", 1.0f));
  ASSIGN_OR_RETURN(g.beta, attrs.GetFloat("beta", 1.0f));
  ASSIGN_OR_RETURN(g.relu, ReadFusedRelu(attrs));
  return g;
}

// The loop reading the optional C (input 2) broadcast to the output; nullopt
// without C.
absl::StatusOr<std::optional<BroadcastLoop>> GemmCLoop(const OpContext& context,
                                                       const Shape& out_shape) {
  if (!context.has_input(2)) return std::optional<BroadcastLoop>();
  const TensorInfo& a = context.inputs[0];
  const TensorInfo& c = context.inputs[2];
  if (c.dtype != a.dtype) {
    return InvalidArgument("C has type ", DTypeName(c.dtype), ", A has ",
                           DTypeName(a.dtype));
  }
  const Shape shapes[] = {out_shape, c.shape};
  absl::StatusOr<Shape> broadcast = BroadcastShapes(shapes);
  if (!broadcast.ok() || *broadcast != out_shape) {
    return InvalidArgument("C of shape ", c.shape.ToString(),
                           " does not broadcast to the output shape ",
                           out_shape.ToString());
  }
  const Shape c_only[] = {c.shape};
  return std::optional<BroadcastLoop>(std::in_place, out_shape, c_only);
}

// What a prepared Gemm runs with.
struct GemmPlan {
  GemmAttributes attrs;
  int64_t m = 0, n = 0, k = 0;
  DType dtype = DType::kFloat32;
  std::optional<BroadcastLoop> c_loop;  // set when C is given
  std::shared_ptr<const PackedMatrixB> packed;
};

absl::Status RunGemm(const GemmPlan& p, std::span<const TensorView> in,
                     std::span<const TensorView> out) {
  const int64_t m = p.m, n = p.n, k = p.k;
  const bool relu = p.attrs.relu;
  return VisitDType(p.dtype, [&]<typename T>() -> absl::Status {
    if constexpr (!kHasMatMulKernel<T>) {
      return Unimplemented("Gemm on ", DTypeName(p.dtype));
    } else {
      T* y = out[0].as<T>();
      // Y = beta * C first, then GEMM accumulates alpha * A * B into it.
      float gemm_beta = 0.0f;
      if (p.c_loop.has_value() && p.attrs.beta != 0.0f) {
        const T* c = in[2].as<const T>();
        p.c_loop->ForEachRun([&](int64_t o, const int64_t* off, int64_t count,
                                 const int64_t* st) {
          for (int64_t i = 0; i < count; ++i) y[o + i] = c[off[0] + i * st[0]];
        });
        gemm_beta = p.attrs.beta;
      }
      if constexpr (std::is_same_v<T, float>) {
        if (p.packed != nullptr && m >= kMinPackedRows) {
          GemmPackedB(m, in[0].as<const float>(), in[0].shape[1], *p.packed, y,
                      n, p.attrs.alpha, gemm_beta);
          if (relu) ApplyRelu(y, m * n);
          return absl::OkStatus();
        }
      }
      if (k == 0) {
        for (int64_t i = 0; i < m * n; ++i)
          y[i] = Store<T>(gemm_beta * Load(y[i]));
      } else {
        RETURN_IF_ERROR(Gemm<T>(
            p.attrs.trans_a != 0, p.attrs.trans_b != 0, m, n, k,
            Store<T>(p.attrs.alpha), in[0].as<const T>(), in[0].shape[1],
            in[1].as<const T>(), in[1].shape[1], Store<T>(gemm_beta), y, n));
      }
      if (relu) ApplyRelu(y, m * n);
      return absl::OkStatus();
    }
  });
}

absl::StatusOr<PreparedKernel> PrepareGemm(const OpContext& context) {
  const TensorInfo& a = context.inputs[0];
  const TensorInfo& b = context.inputs[1];
  RETURN_IF_ERROR(RequireDType(a, kMatMulTypes, "input A"));
  if (a.dtype != b.dtype) {
    return InvalidArgument("A and B have different types (", DTypeName(a.dtype),
                           " and ", DTypeName(b.dtype), ")");
  }
  if (a.shape.rank() != 2 || b.shape.rank() != 2) {
    return InvalidArgument("A and B must be 2-D, got ", a.shape.ToString(),
                           " and ", b.shape.ToString());
  }
  GemmPlan p;
  ASSIGN_OR_RETURN(p.attrs, ParseGemmAttributes(context.attrs));
  const bool trans_a = p.attrs.trans_a != 0, trans_b = p.attrs.trans_b != 0;
  p.m = trans_a ? a.shape[1] : a.shape[0];
  p.k = trans_a ? a.shape[0] : a.shape[1];
  const int64_t kb = trans_b ? b.shape[1] : b.shape[0];
  p.n = trans_b ? b.shape[0] : b.shape[1];
  if (p.k != kb) {
    return InvalidArgument("inner dimensions differ: A ", a.shape.ToString(),
                           trans_a ? " (transposed)" : "", " gives K=", p.k,
                           ", B ", b.shape.ToString(),
                           trans_b ? " (transposed)" : "", " gives K=", kb);
  }
  const Shape out_shape({p.m, p.n});
  ASSIGN_OR_RETURN(p.c_loop, GemmCLoop(context, out_shape));
  p.dtype = a.dtype;
  // Constant float32 weights are packed once (A transposed keeps the general
  // GEMM: it would need A packed on every call).
  const TensorView* constant_b = context.constant(1);
  if (p.dtype == DType::kFloat32 && constant_b != nullptr && !trans_a) {
    p.packed = std::make_shared<const PackedMatrixB>(PackedMatrixB::Pack(
        constant_b->as<const float>(), p.k, p.n, b.shape[1], trans_b));
  }
  std::vector<std::pair<std::string, std::string>> params = {
      {"M", StrCat(p.m)},
      {"N", StrCat(p.n)},
      {"K", StrCat(p.k)},
      {"transA", StrCat(p.attrs.trans_a)},
      {"transB", StrCat(p.attrs.trans_b)},
      {"packed_b", p.packed != nullptr ? "1" : "0"}};
  auto run = [p = std::move(p)](std::span<const TensorView> in,
                                std::span<const TensorView> out,
                                std::span<std::byte>) -> absl::Status {
    return RunGemm(p, in, out);
  };
  return Prepared({TensorInfo{a.dtype, out_shape}},
                  MakeKernel(std::move(run), 0, std::move(params)));
}

}  // namespace

absl::Status RegisterMatMulOps(OpRegistry& registry) {
  return registry.RegisterAll({
      {"MatMul", 2, 3, 1, 1, PrepareMatMul},
      {"Gemm", 2, 3, 1, 1, PrepareGemm},
  });
}

}  // namespace acldump
