// Quantized tensors: QuantizeLinear and DequantizeLinear (per tensor or per
// axis, int8/uint8, opsets 10-21 without blocked quantization),
// DynamicQuantizeLinear, MatMulInteger and QLinearMatMul. Rounding and the
// order of float operations follow ONNX Runtime (x / scale, round half to
// even, add the zero point, saturate), so quantized values match it exactly;
// integer products are summed exactly in int32.
#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

#include "kernels/integer_gemm.h"
#include "kernels/kernel_util.h"
#include "kernels/op_families.h"
#include "kernels/quantization.h"
#include "kernels/quantize_simd.h"
#include "kernels/threading.h"

namespace acldump {
namespace {

// [outer, channels, inner] around `axis`; the whole tensor as one channel
// when the parameters are per tensor.
struct AxisBlocks {
  int64_t outer = 1, channels = 1, inner = 1;
};

AxisBlocks BlocksAround(const Shape& shape, int64_t axis, bool per_axis) {
  AxisBlocks b;
  if (!per_axis) {
    b.inner = shape.NumElements();
    return b;
  }
  for (int64_t a = 0; a < static_cast<int64_t>(shape.rank()); ++a) {
    if (a < axis) {
      b.outer *= shape[a];
    } else if (a == axis) {
      b.channels = shape[a];
    } else {
      b.inner *= shape[a];
    }
  }
  return b;
}

// The axis of per-axis parameters, checked; `per_axis` false when the scale
// holds one value (the axis is then ignored, as ONNX says).
struct QuantAxis {
  bool per_axis = false;
  int64_t axis = 0;
  int64_t channels = 0;
};

absl::StatusOr<QuantAxis> ReadQuantAxis(const OpContext& context,
                                        const TensorInfo& data,
                                        const TensorInfo& scale) {
  QuantAxis q;
  ASSIGN_OR_RETURN(int64_t block_size, context.attrs.GetInt("block_size", 0));
  if (block_size != 0) {
    return Unimplemented("blocked quantization (block_size ", block_size,
                         ") is not supported; per-tensor and per-axis are");
  }
  q.per_axis = scale.shape.NumElements() != 1 || scale.shape.rank() > 1;
  if (!q.per_axis) return q;
  ASSIGN_OR_RETURN(int64_t axis_attr, context.attrs.GetInt("axis", 1));
  ASSIGN_OR_RETURN(
      q.axis, NormalizeAxis(axis_attr, static_cast<int64_t>(data.shape.rank()),
                            "axis"));
  q.channels = data.shape[q.axis];
  return q;
}

// The quantized type of QuantizeLinear's output: the zero point's, else
// output_dtype (opset 21), else uint8.
absl::StatusOr<DType> QuantizedOutputType(const OpContext& context) {
  ASSIGN_OR_RETURN(int64_t output_dtype,
                   context.attrs.GetInt("output_dtype", 0));
  std::optional<DType> from_attr;
  if (output_dtype != 0) {
    from_attr = FromOnnxDataType(static_cast<int32_t>(output_dtype));
    if (!from_attr.has_value() ||
        (*from_attr != DType::kUInt8 && *from_attr != DType::kInt8)) {
      return Unimplemented("output_dtype ", output_dtype,
                           " is not supported (uint8 = 2, int8 = 3 are)");
    }
  }
  if (context.has_input(2)) {
    const TensorInfo& zp = context.inputs[2];
    RETURN_IF_ERROR(RequireDType(zp, kQuantizedTypes, "y_zero_point"));
    if (from_attr.has_value() && *from_attr != zp.dtype) {
      return InvalidArgument("output_dtype is ", DTypeName(*from_attr),
                             " but y_zero_point is ", DTypeName(zp.dtype));
    }
    return zp.dtype;
  }
  return from_attr.value_or(DType::kUInt8);
}

absl::StatusOr<PreparedKernel> PrepareQuantizeLinear(const OpContext& context) {
  const TensorInfo& x = context.inputs[0];
  const TensorInfo& scale = context.inputs[1];
  constexpr DType kInputs[] = {DType::kFloat32, DType::kFloat16,
                               DType::kBFloat16, DType::kInt32};
  RETURN_IF_ERROR(RequireDType(x, kInputs, "input x"));
  RETURN_IF_ERROR(RequireDType(scale, kFloatTypes, "y_scale"));
  ASSIGN_OR_RETURN(QuantAxis q, ReadQuantAxis(context, x, scale));
  RETURN_IF_ERROR(CheckQuantParam(scale, "y_scale", q.channels));
  ASSIGN_OR_RETURN(DType out_type, QuantizedOutputType(context));
  const bool has_zp = context.has_input(2);
  if (has_zp) {
    RETURN_IF_ERROR(
        CheckQuantParam(context.inputs[2], "y_zero_point", q.channels));
  }
  const AxisBlocks blocks = BlocksAround(x.shape, q.axis, q.per_axis);
  const DType x_type = x.dtype;
  auto run = [blocks, x_type, out_type, has_zp](
                 std::span<const TensorView> in,
                 std::span<const TensorView> out,
                 std::span<std::byte>) -> absl::Status {
    const TensorView* zp = has_zp ? &in[2] : nullptr;
    VisitDType(x_type, [&]<typename T>() {
      if constexpr (std::is_same_v<T, bool>) {
        return;
      } else {
        const T* xs = in[0].as<const T>();
        VisitQuantized(out_type, [&]<typename Q>() {
          Q* ys = out[0].as<Q>();
          if constexpr (std::is_same_v<T, float>) {
            // Vectorised; a per-tensor one split over the intra-op threads.
            if (blocks.outer * blocks.channels == 1) {
              const float s = ParamAsFloat(in[1], 0);
              const int32_t z = ZeroPointAt(zp, 0);
              ParallelFor(static_cast<size_t>(blocks.inner), kElementwiseGrain,
                          [&](size_t begin, size_t end) {
                            QuantizeFloat32(xs + begin,
                                            static_cast<int64_t>(end - begin),
                                            s, z, ys + begin);
                          });
              return;
            }
          }
          for (int64_t o = 0; o < blocks.outer; ++o) {
            for (int64_t c = 0; c < blocks.channels; ++c) {
              const float s = ParamAsFloat(in[1], c);
              const int32_t z = ZeroPointAt(zp, c);
              const int64_t base = (o * blocks.channels + c) * blocks.inner;
              if constexpr (std::is_same_v<T, float>) {
                QuantizeFloat32(xs + base, blocks.inner, s, z, ys + base);
                continue;
              }
              for (int64_t i = base; i < base + blocks.inner; ++i) {
                ys[i] =
                    QuantizeValue<Q>(static_cast<float>(Load(xs[i])) / s, z);
              }
            }
          }
        });
      }
    });
    return absl::OkStatus();
  };
  return Prepared({TensorInfo{out_type, x.shape}}, MakeKernel(std::move(run)));
}

absl::StatusOr<PreparedKernel> PrepareDequantizeLinear(
    const OpContext& context) {
  const TensorInfo& x = context.inputs[0];
  const TensorInfo& scale = context.inputs[1];
  constexpr DType kInputs[] = {DType::kUInt8, DType::kInt8, DType::kInt32};
  RETURN_IF_ERROR(RequireDType(x, kInputs, "input x"));
  RETURN_IF_ERROR(RequireDType(scale, kFloatTypes, "x_scale"));
  ASSIGN_OR_RETURN(QuantAxis q, ReadQuantAxis(context, x, scale));
  RETURN_IF_ERROR(CheckQuantParam(scale, "x_scale", q.channels));
  const bool has_zp = context.has_input(2);
  if (has_zp) {
    const TensorInfo& zp = context.inputs[2];
    if (zp.dtype != x.dtype) {
      return InvalidArgument("x_zero_point is ", DTypeName(zp.dtype),
                             "; it must have x's type ", DTypeName(x.dtype));
    }
    RETURN_IF_ERROR(CheckQuantParam(zp, "x_zero_point", q.channels));
  }
  const AxisBlocks blocks = BlocksAround(x.shape, q.axis, q.per_axis);
  const DType x_type = x.dtype;
  const DType out_type = scale.dtype;
  auto run = [blocks, x_type, out_type, has_zp](
                 std::span<const TensorView> in,
                 std::span<const TensorView> out,
                 std::span<std::byte>) -> absl::Status {
    const TensorView* zp = has_zp ? &in[2] : nullptr;
    return VisitFloatDType(out_type, [&]<typename F>() -> absl::Status {
      F* ys = out[0].as<F>();
      auto dequantize = [&]<typename T>() {
        const T* xs = in[0].as<const T>();
        for (int64_t o = 0; o < blocks.outer; ++o) {
          for (int64_t c = 0; c < blocks.channels; ++c) {
            const float s = ParamAsFloat(in[1], c);
            const int32_t z = ZeroPointAt(zp, c);
            const int64_t base = (o * blocks.channels + c) * blocks.inner;
            for (int64_t i = base; i < base + blocks.inner; ++i) {
              const int32_t v = static_cast<int32_t>(xs[i]) - z;
              ys[i] = Store<F>(static_cast<float>(v) * s);
            }
          }
        }
      };
      if (x_type == DType::kInt32) {
        dequantize.template operator()<int32_t>();
      } else {
        VisitQuantized(x_type, dequantize);
      }
      return absl::OkStatus();
    });
  };
  return Prepared({TensorInfo{out_type, x.shape}}, MakeKernel(std::move(run)));
}

// uint8 with the scale and zero point that map [min(x, 0), max(x, 0)] onto
// [0, 255], as ONNX Runtime computes them.
absl::StatusOr<PreparedKernel> PrepareDynamicQuantizeLinear(
    const OpContext& context) {
  const TensorInfo& x = context.inputs[0];
  const DType kFloat32Only[] = {DType::kFloat32};
  RETURN_IF_ERROR(RequireDType(x, kFloat32Only, "input x"));
  auto run = [](std::span<const TensorView> in, std::span<const TensorView> out,
                std::span<std::byte>) -> absl::Status {
    const float* xs = in[0].as<const float>();
    const int64_t n = in[0].NumElements();
    float lo = 0.0f, hi = 0.0f;
    RangeWithZeroFloat32(xs, n, &lo, &hi);
    const float scale = hi == lo ? 1.0f : (hi - lo) / 255.0f;
    const float initial = 0.0f - lo / scale;
    const uint8_t zero_point =
        static_cast<uint8_t>(std::nearbyint(std::clamp(initial, 0.0f, 255.0f)));
    QuantizeFloat32(xs, n, scale, zero_point, out[0].as<uint8_t>());
    *out[1].as<float>() = scale;
    *out[2].as<uint8_t>() = zero_point;
    return absl::OkStatus();
  };
  return Prepared(
      {TensorInfo{DType::kUInt8, x.shape}, TensorInfo{DType::kFloat32, Shape()},
       TensorInfo{DType::kUInt8, Shape()}},
      MakeKernel(run));
}

// A [..., M, K] x B [..., K, N] of 8-bit values, batch dims broadcast.
struct IntegerMatMul {
  int64_t m = 0, n = 0, k = 0;
  std::vector<int64_t> a_index, b_index;  // per output batch, in matrices
  std::vector<int64_t> out_dims;
  DType a_type = DType::kUInt8, b_type = DType::kUInt8;
  // B stored [N, K] (Gemm's transB) instead of [K, N].
  bool b_transposed = false;
  // B less its zero point, packed for IntegerGemm (PackedIntegerSize(k, n)
  // per B matrix), made once when both are known at load (weights); else each
  // execution makes it.
  std::shared_ptr<const std::vector<int16_t>> b_prepared;
  int64_t PackedB() const { return PackedIntegerSize(k, n); }
  // Scratch: A less its zero point [M, PackedDepth(K)], B less its zero point
  // packed, as int16.
  size_t WorkspaceBytes() const {
    return static_cast<size_t>(m * PackedDepth(k) + PackedB()) *
           sizeof(int16_t);
  }
};

// out = a [K, N] matrix of 8-bit values less zero point j of each column j,
// packed for IntegerGemm (from a [N, K] one when `transposed`).
void PackLessZeroPoint(DType b_type, const void* b, const TensorView* b_zp,
                       int64_t k, int64_t n, int16_t* out,
                       bool transposed = false) {
  const int64_t depth = PackedDepth(k);
  std::fill(out, out + PackedIntegerSize(k, n), int16_t{0});
  VisitQuantized(b_type, [&]<typename TB>() {
    const TB* bs = static_cast<const TB*>(b);
    for (int64_t j = 0; j < n; ++j) {
      const int32_t z = ZeroPointAt(b_zp, j);
      for (int64_t q = 0; q < k; ++q) {
        out[PackedIntegerIndex(depth, q, j)] = static_cast<int16_t>(
            (transposed ? bs[j * k + q] : bs[q * n + j]) - z);
      }
    }
  });
}

// Sets p.b_prepared when B (input `b_slot`) and its zero point (input
// `zp_slot`, if present) are constants.
void PrepareConstantB(const OpContext& context, size_t b_slot, size_t zp_slot,
                      IntegerMatMul& p) {
  const TensorView* b = context.constant(b_slot);
  const bool has_zp = context.has_input(zp_slot);
  const TensorView* zp = has_zp ? context.constant(zp_slot) : nullptr;
  if (b == nullptr || (has_zp && zp == nullptr)) return;
  const int64_t matrices = b->NumElements() / std::max<int64_t>(1, p.k * p.n);
  auto prepared = std::make_shared<std::vector<int16_t>>(
      static_cast<size_t>(matrices * p.PackedB()));
  const size_t element = DTypeSize(p.b_type);
  for (int64_t i = 0; i < matrices; ++i) {
    PackLessZeroPoint(
        p.b_type,
        static_cast<const std::byte*>(b->data) + i * p.k * p.n * element, zp,
        p.k, p.n, prepared->data() + i * p.PackedB(), p.b_transposed);
  }
  p.b_prepared = std::move(prepared);
}

absl::StatusOr<IntegerMatMul> PlanIntegerMatMul(const TensorInfo& a,
                                                const TensorInfo& b) {
  RETURN_IF_ERROR(RequireDType(a, kQuantizedTypes, "input A"));
  RETURN_IF_ERROR(RequireDType(b, kQuantizedTypes, "input B"));
  if (a.shape.rank() < 2 || b.shape.rank() < 2) {
    return Unimplemented("A ", a.shape.ToString(), " and B ",
                         b.shape.ToString(),
                         " must both have rank 2 or more (1-D operands are "
                         "not supported)");
  }
  IntegerMatMul p;
  p.a_type = a.dtype;
  p.b_type = b.dtype;
  const size_t ra = a.shape.rank(), rb = b.shape.rank();
  p.m = a.shape[ra - 2];
  p.k = a.shape[ra - 1];
  p.n = b.shape[rb - 1];
  if (b.shape[rb - 2] != p.k) {
    return InvalidArgument("A ", a.shape.ToString(), " has K = ", p.k,
                           " but B ", b.shape.ToString(),
                           " has K = ", b.shape[rb - 2]);
  }
  const Shape a_batch(
      std::vector<int64_t>(a.shape.dims().begin(), a.shape.dims().end() - 2));
  const Shape b_batch(
      std::vector<int64_t>(b.shape.dims().begin(), b.shape.dims().end() - 2));
  const Shape batches[] = {a_batch, b_batch};
  ASSIGN_OR_RETURN(Shape batch, BroadcastShapes(batches));
  BroadcastLoop loop(batch, batches);
  loop.ForEachRun([&](int64_t, const int64_t* offsets, int64_t count,
                      const int64_t* strides) {
    for (int64_t i = 0; i < count; ++i) {
      p.a_index.push_back(offsets[0] + i * strides[0]);
      p.b_index.push_back(offsets[1] + i * strides[1]);
    }
  });
  p.out_dims = batch.dims();
  p.out_dims.push_back(p.m);
  p.out_dims.push_back(p.n);
  return p;
}

// int32 products of every batch into `acc`; zero points per tensor, per row
// of A or per column of B.
void RunIntegerMatMul(const IntegerMatMul& p, const TensorView& a,
                      const TensorView* a_zp, const TensorView& b,
                      const TensorView* b_zp, int32_t* acc,
                      std::span<std::byte> workspace) {
  const int64_t depth = PackedDepth(p.k);
  int16_t* a16 = reinterpret_cast<int16_t*>(workspace.data());
  int16_t* b16 = a16 + p.m * depth;
  const size_t b_element = DTypeSize(p.b_type);
  VisitQuantized(p.a_type, [&]<typename TA>() {
    for (size_t batch = 0; batch < p.a_index.size(); ++batch) {
      const TA* as = a.as<const TA>() + p.a_index[batch] * p.m * p.k;
      for (int64_t i = 0; i < p.m; ++i) {
        const int32_t z = ZeroPointAt(a_zp, i);
        for (int64_t q = 0; q < p.k; ++q)
          a16[i * depth + q] = static_cast<int16_t>(as[i * p.k + q] - z);
        if (depth != p.k) a16[i * depth + p.k] = 0;
      }
      const int16_t* packed = b16;
      if (p.b_prepared != nullptr) {
        packed = p.b_prepared->data() + p.b_index[batch] * p.PackedB();
      } else {
        PackLessZeroPoint(p.b_type,
                          static_cast<const std::byte*>(b.data) +
                              p.b_index[batch] * p.k * p.n * b_element,
                          b_zp, p.k, p.n, b16, p.b_transposed);
      }
      IntegerGemm(p.m, p.n, p.k, a16, depth, packed,
                  acc + static_cast<int64_t>(batch) * p.m * p.n, p.n);
    }
  });
}

absl::StatusOr<PreparedKernel> PrepareMatMulInteger(const OpContext& context) {
  ASSIGN_OR_RETURN(IntegerMatMul p,
                   PlanIntegerMatMul(context.inputs[0], context.inputs[1]));
  RETURN_IF_ERROR(
      CheckZeroPoint(context, 2, context.inputs[0].dtype, "a_zero_point", p.m));
  RETURN_IF_ERROR(
      CheckZeroPoint(context, 3, context.inputs[1].dtype, "b_zero_point", p.n));
  PrepareConstantB(context, 1, 3, p);
  const bool has_a_zp = context.has_input(2), has_b_zp = context.has_input(3);
  const size_t workspace = p.WorkspaceBytes();
  std::vector<std::pair<std::string, std::string>> params = {
      {"M", StrCat(p.m)},
      {"N", StrCat(p.n)},
      {"K", StrCat(p.k)},
      {"batches", StrCat(p.a_index.size())}};
  const Shape out_shape(p.out_dims);
  auto run = [p = std::move(p), has_a_zp, has_b_zp](
                 std::span<const TensorView> in,
                 std::span<const TensorView> out,
                 std::span<std::byte> ws) -> absl::Status {
    RunIntegerMatMul(p, in[0], has_a_zp ? &in[2] : nullptr, in[1],
                     has_b_zp ? &in[3] : nullptr, out[0].as<int32_t>(), ws);
    return absl::OkStatus();
  };
  return Prepared({TensorInfo{DType::kInt32, out_shape}},
                  MakeKernel(std::move(run), workspace, std::move(params)));
}

// QLinearMatMul: a, a_scale, a_zero_point, b, b_scale, b_zero_point,
// y_scale, y_zero_point.
absl::StatusOr<PreparedKernel> PrepareQLinearMatMul(const OpContext& context) {
  const TensorInfo& a = context.inputs[0];
  const TensorInfo& b = context.inputs[3];
  ASSIGN_OR_RETURN(IntegerMatMul p, PlanIntegerMatMul(a, b));
  const DType kFloat32Only[] = {DType::kFloat32};
  for (auto [slot, name] : {std::pair<size_t, const char*>{1, "a_scale"},
                            {4, "b_scale"},
                            {6, "y_scale"}}) {
    RETURN_IF_ERROR(RequireDType(context.inputs[slot], kFloat32Only, name));
  }
  RETURN_IF_ERROR(CheckQuantParam(context.inputs[1], "a_scale", p.m));
  RETURN_IF_ERROR(CheckQuantParam(context.inputs[4], "b_scale", p.n));
  RETURN_IF_ERROR(CheckQuantParam(context.inputs[6], "y_scale", 0));
  RETURN_IF_ERROR(CheckZeroPoint(context, 2, a.dtype, "a_zero_point", p.m));
  RETURN_IF_ERROR(CheckZeroPoint(context, 5, b.dtype, "b_zero_point", p.n));
  PrepareConstantB(context, 3, 5, p);
  const TensorInfo& y_zp = context.inputs[7];
  RETURN_IF_ERROR(RequireDType(y_zp, kQuantizedTypes, "y_zero_point"));
  RETURN_IF_ERROR(CheckQuantParam(y_zp, "y_zero_point", 0));
  const DType out_type = y_zp.dtype;
  const size_t acc_bytes =
      static_cast<size_t>(p.a_index.size() * p.m * p.n) * sizeof(int32_t);
  // Then b's scale per column, read once per execution.
  const size_t scales_bytes = static_cast<size_t>(p.n) * sizeof(float);
  const size_t workspace = acc_bytes + scales_bytes + p.WorkspaceBytes();
  const Shape out_shape(p.out_dims);
  auto run = [p = std::move(p), out_type, acc_bytes, scales_bytes](
                 std::span<const TensorView> in,
                 std::span<const TensorView> out,
                 std::span<std::byte> ws) -> absl::Status {
    int32_t* acc = reinterpret_cast<int32_t*>(ws.data());
    float* b_scales = reinterpret_cast<float*>(ws.data() + acc_bytes);
    for (int64_t j = 0; j < p.n; ++j) b_scales[j] = ParamAsFloat(in[4], j);
    RunIntegerMatMul(p, in[0], &in[2], in[3], &in[5], acc,
                     ws.subspan(acc_bytes + scales_bytes));
    const float y_scale = ParamAsFloat(in[6], 0);
    const int32_t y_zp = ParamAsInt(in[7], 0);
    VisitQuantized(out_type, [&]<typename Q>() {
      Q* ys = out[0].as<Q>();
      const int64_t batches = static_cast<int64_t>(p.a_index.size());
      for (int64_t i = 0; i < batches * p.m; ++i) {
        const float a_scale = ParamAsFloat(in[1], i % p.m);
        for (int64_t j = 0; j < p.n; ++j) {
          const float multiplier = a_scale * b_scales[j] / y_scale;
          ys[i * p.n + j] = QuantizeValue<Q>(
              static_cast<float>(acc[i * p.n + j]) * multiplier, y_zp);
        }
      }
    });
    return absl::OkStatus();
  };
  return Prepared({TensorInfo{out_type, out_shape}},
                  MakeKernel(std::move(run), workspace));
}

// QGemm (ONNX Runtime's fusion of DequantizeLinear -> Gemm ->
// QuantizeLinear): a, a_scale, a_zero_point, b, b_scale, b_zero_point,
// C (int32 [N], optional), y_scale, y_zero_point; alpha, transB (transA 0).
// The int32 product plus C, times alpha * a_scale * b_scale / y_scale,
// rounded and saturated as QLinearMatMul's.
absl::StatusOr<PreparedKernel> PrepareQGemm(const OpContext& context) {
  ASSIGN_OR_RETURN(int64_t trans_a, context.attrs.GetInt("transA", 0));
  ASSIGN_OR_RETURN(int64_t trans_b, context.attrs.GetInt("transB", 0));
  ASSIGN_OR_RETURN(float alpha, context.attrs.GetFloat("alpha", 1.0f));
  if (trans_a != 0) return Unimplemented("QGemm with transA is not supported");
  if (!context.has_input(7) || !context.has_input(8)) {
    return Unimplemented(
        "QGemm without y_scale and y_zero_point (a float output) is not "
        "supported");
  }
  const TensorInfo& a = context.inputs[0];
  TensorInfo b = context.inputs[3];
  if (a.shape.rank() != 2 || b.shape.rank() != 2) {
    return InvalidArgument("QGemm takes 2-D A and B; got A ",
                           a.shape.ToString(), ", B ", b.shape.ToString());
  }
  if (trans_b != 0) b.shape = Shape({b.shape[1], b.shape[0]});
  ASSIGN_OR_RETURN(IntegerMatMul p, PlanIntegerMatMul(a, b));
  p.b_transposed = trans_b != 0;
  const DType kFloat32Only[] = {DType::kFloat32};
  for (auto [slot, name] : {std::pair<size_t, const char*>{1, "a_scale"},
                            {4, "b_scale"},
                            {7, "y_scale"}}) {
    RETURN_IF_ERROR(RequireDType(context.inputs[slot], kFloat32Only, name));
  }
  RETURN_IF_ERROR(CheckQuantParam(context.inputs[1], "a_scale", 0));
  RETURN_IF_ERROR(CheckQuantParam(context.inputs[4], "b_scale", p.n));
  RETURN_IF_ERROR(CheckQuantParam(context.inputs[7], "y_scale", 0));
  RETURN_IF_ERROR(CheckZeroPoint(context, 2, a.dtype, "a_zero_point", 0));
  RETURN_IF_ERROR(CheckZeroPoint(context, 5, b.dtype, "b_zero_point", p.n));
  const bool has_c = context.has_input(6);
  if (has_c) {
    const DType kInt32Only[] = {DType::kInt32};
    RETURN_IF_ERROR(RequireDType(context.inputs[6], kInt32Only, "C"));
    if (context.inputs[6].shape.NumElements() != p.n ||
        context.inputs[6].shape.rank() > 2) {
      return InvalidArgument("C has shape ", context.inputs[6].shape.ToString(),
                             "; expected one value per column, [", p.n, "]");
    }
  }
  PrepareConstantB(context, 3, 5, p);
  const TensorInfo& y_zp = context.inputs[8];
  RETURN_IF_ERROR(RequireDType(y_zp, kQuantizedTypes, "y_zero_point"));
  RETURN_IF_ERROR(CheckQuantParam(y_zp, "y_zero_point", 0));
  const DType out_type = y_zp.dtype;
  const size_t acc_bytes = static_cast<size_t>(p.m * p.n) * sizeof(int32_t);
  const size_t workspace = acc_bytes + p.WorkspaceBytes();
  const Shape out_shape(p.out_dims);
  auto run = [p = std::move(p), out_type, acc_bytes, alpha, has_c](
                 std::span<const TensorView> in,
                 std::span<const TensorView> out,
                 std::span<std::byte> ws) -> absl::Status {
    int32_t* acc = reinterpret_cast<int32_t*>(ws.data());
    RunIntegerMatMul(p, in[0], &in[2], in[3], &in[5], acc,
                     ws.subspan(acc_bytes));
    const float a_scale = ParamAsFloat(in[1], 0);
    const float y_scale = ParamAsFloat(in[7], 0);
    const int32_t y_zp = ParamAsInt(in[8], 0);
    const int32_t* c = has_c ? in[6].as<const int32_t>() : nullptr;
    VisitQuantized(out_type, [&]<typename Q>() {
      Q* ys = out[0].as<Q>();
      for (int64_t j = 0; j < p.n; ++j) {
        // ONNX Runtime's order: (alpha * a_scale * b_scale) / y_scale.
        const float multiplier =
            alpha * a_scale * ParamAsFloat(in[4], j) / y_scale;
        const int32_t bias = c == nullptr ? 0 : c[j];
        for (int64_t i = 0; i < p.m; ++i) {
          ys[i * p.n + j] = QuantizeValue<Q>(
              static_cast<float>(int64_t{acc[i * p.n + j]} + bias) * multiplier,
              y_zp);
        }
      }
    });
    return absl::OkStatus();
  };
  return Prepared({TensorInfo{out_type, out_shape}},
                  MakeKernel(std::move(run), workspace));
}

}  // namespace

absl::Status RegisterQuantizeOps(OpRegistry& registry) {
  return registry.RegisterAll({
      {"QuantizeLinear", 2, 3, 1, 1, PrepareQuantizeLinear},
      {"DequantizeLinear", 2, 3, 1, 1, PrepareDequantizeLinear},
      {"DynamicQuantizeLinear", 1, 1, 3, 3, PrepareDynamicQuantizeLinear},
      {"MatMulInteger", 2, 4, 1, 1, PrepareMatMulInteger},
      {"QLinearMatMul", 8, 8, 1, 1, PrepareQLinearMatMul},
      {"QGemm", 6, 9, 1, 1, PrepareQGemm},
  });
}

}  // namespace acldump
