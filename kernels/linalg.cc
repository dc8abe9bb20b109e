// Det: the determinant of each square matrix [..., M, M], by LU
// decomposition with partial pivoting in double.
#include <cmath>
#include <utility>
#include <vector>

#include "kernels/kernel_util.h"
#include "kernels/op_families.h"

namespace acldump {
namespace {

double Determinant(std::vector<double>& a, int64_t m) {
  double det = 1;
  for (int64_t col = 0; col < m; ++col) {
    int64_t pivot = col;
    for (int64_t r = col + 1; r < m; ++r) {
      if (std::fabs(a[r * m + col]) > std::fabs(a[pivot * m + col])) pivot = r;
    }
    if (a[pivot * m + col] == 0) return 0;
    if (pivot != col) {
      for (int64_t k = 0; k < m; ++k)
        std::swap(a[col * m + k], a[pivot * m + k]);
      det = -det;
    }
    const double p = a[col * m + col];
    det *= p;
    for (int64_t r = col + 1; r < m; ++r) {
      const double f = a[r * m + col] / p;
      for (int64_t k = col; k < m; ++k) a[r * m + k] -= f * a[col * m + k];
    }
  }
  return det;
}

absl::StatusOr<PreparedKernel> PrepareDet(const OpContext& context) {
  const TensorInfo& x = context.inputs[0];
  RETURN_IF_ERROR(RequireDType(x, kFloatTypes, "input X"));
  const size_t rank = x.shape.rank();
  if (rank < 2 || x.shape[rank - 1] != x.shape[rank - 2]) {
    return InvalidArgument("X has shape ", x.shape.ToString(),
                           "; expected [..., M, M] (square matrices)");
  }
  const int64_t m = x.shape[rank - 1];
  const std::vector<int64_t> out_dims(x.shape.dims().begin(),
                                      x.shape.dims().end() - 2);
  const Shape out_shape(out_dims);
  const int64_t count = out_shape.NumElements();
  const DType dtype = x.dtype;
  auto run = [=](std::span<const TensorView> in,
                 std::span<const TensorView> out,
                 std::span<std::byte>) -> absl::Status {
    return VisitFloatDType(dtype, [&]<typename T>() -> absl::Status {
      const T* xs = in[0].as<const T>();
      T* ys = out[0].as<T>();
      std::vector<double> a(static_cast<size_t>(m * m));
      for (int64_t i = 0; i < count; ++i) {
        for (int64_t k = 0; k < m * m; ++k) a[k] = Load(xs[i * m * m + k]);
        ys[i] = Store<T>(static_cast<ComputeType<T>>(Determinant(a, m)));
      }
      return absl::OkStatus();
    });
  };
  return Prepared({TensorInfo{dtype, out_shape}}, MakeKernel(std::move(run)));
}

}  // namespace

absl::Status RegisterLinalgOps(OpRegistry& registry) {
  return registry.RegisterAll({
      {"Det", 1, 1, 1, 1, PrepareDet},
  });
}

}  // namespace acldump
