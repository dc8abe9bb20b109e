// Signal processing (opset 17): DFT, STFT, the Hann/Hamming/Blackman windows
// and MelWeightMatrix, as audio front ends export them. Transforms compute in
// double: radix-2 FFT for power-of-two lengths, the direct sum otherwise.
#include <cmath>
#include <complex>
#include <numbers>
#include <vector>

#include "kernels/kernel_util.h"
#include "kernels/op_families.h"
#include "kernels/threading.h"

namespace acldump {
namespace {

using Complex = std::complex<double>;

// In-place transform of `data` (length n): forward e^{-2 pi i k t / n}, or
// inverse e^{+...} divided by n.
void Transform(std::vector<Complex>& data, bool inverse,
               std::vector<Complex>& scratch) {
  const size_t n = data.size();
  if (n == 0) return;
  const double sign = inverse ? 1.0 : -1.0;
  if ((n & (n - 1)) == 0) {
    // Iterative radix-2 Cooley-Tukey.
    for (size_t i = 1, j = 0; i < n; ++i) {
      size_t bit = n >> 1;
      for (; j & bit; bit >>= 1) j ^= bit;
      j ^= bit;
      if (i < j) std::swap(data[i], data[j]);
    }
    for (size_t len = 2; len <= n; len <<= 1) {
      const double angle =
          sign * 2 * std::numbers::pi / static_cast<double>(len);
      for (size_t start = 0; start < n; start += len) {
        for (size_t k = 0; k < len / 2; ++k) {
          const Complex w = std::polar(1.0, angle * static_cast<double>(k));
          const Complex u = data[start + k];
          const Complex v = data[start + k + len / 2] * w;
          data[start + k] = u + v;
          data[start + k + len / 2] = u - v;
        }
      }
    }
  } else {
    scratch.assign(n, Complex(0, 0));
    for (size_t k = 0; k < n; ++k) {
      Complex sum(0, 0);
      for (size_t t = 0; t < n; ++t) {
        // (k * t) mod n keeps the angle small and exact.
        const double angle = sign * 2 * std::numbers::pi *
                             static_cast<double>((k * t) % n) /
                             static_cast<double>(n);
        sum += data[t] * std::polar(1.0, angle);
      }
      scratch[k] = sum;
    }
    data.swap(scratch);
  }
  if (inverse) {
    for (Complex& v : data) v /= static_cast<double>(n);
  }
}

// The first `count` bins as (real, imaginary) pairs, `stride` elements
// apart.
template <typename T>
void StoreBins(const std::vector<Complex>& data, int64_t count, T* out,
               int64_t stride) {
  for (int64_t k = 0; k < count; ++k) {
    out[k * stride] = Store<T>(static_cast<ComputeType<T>>(data[k].real()));
    out[k * stride + 1] = Store<T>(static_cast<ComputeType<T>>(data[k].imag()));
  }
}

absl::StatusOr<int64_t> ScalarInput(const OpContext& context, size_t index,
                                    std::string_view name) {
  ASSIGN_OR_RETURN(std::vector<int64_t> values,
                   ReadConstantInts(context, index, name));
  if (values.size() != 1) {
    return InvalidArgument("input '", name, "' must hold one value, got ",
                           values.size());
  }
  return values[0];
}

// DFT: X [batch, ..., n, ..., 1 or 2] -> [..., m, ..., 2] along `axis`.
absl::StatusOr<PreparedKernel> PrepareDft(const OpContext& context) {
  const TensorInfo& x = context.inputs[0];
  RETURN_IF_ERROR(RequireDType(x, kFloatTypes, "input"));
  const int64_t rank = static_cast<int64_t>(x.shape.rank());
  if (rank < 2 || (x.shape[rank - 1] != 1 && x.shape[rank - 1] != 2)) {
    return InvalidArgument("input has shape ", x.shape.ToString(),
                           "; expected [..., 1] (real) or [..., 2] (complex)");
  }
  int64_t axis_attr = 1;
  if (context.has_input(2)) {
    ASSIGN_OR_RETURN(axis_attr, ScalarInput(context, 2, "axis"));
  } else {
    ASSIGN_OR_RETURN(axis_attr, context.attrs.GetInt("axis", 1));
  }
  // The last axis holds the real/imaginary pair: not a signal axis.
  ASSIGN_OR_RETURN(
      int64_t axis,
      NormalizeAxis(axis_attr < 0 ? axis_attr - 1 : axis_attr, rank, "axis"));
  if (axis == rank - 1) {
    return InvalidArgument("axis ", axis_attr,
                           " is the real/imaginary axis; name a signal axis");
  }
  ASSIGN_OR_RETURN(bool inverse, context.attrs.GetFlag("inverse", false));
  ASSIGN_OR_RETURN(bool onesided, context.attrs.GetFlag("onesided", false));
  if (inverse && onesided) {
    return Unimplemented("inverse with onesided is not supported");
  }
  int64_t length = x.shape[axis];
  if (context.has_input(1)) {
    ASSIGN_OR_RETURN(length, ScalarInput(context, 1, "dft_length"));
    if (length <= 0) {
      return InvalidArgument("dft_length is ", length, "; expected > 0");
    }
  }
  const int64_t out_length = onesided ? length / 2 + 1 : length;
  std::vector<int64_t> out_dims = x.shape.dims();
  out_dims[axis] = out_length;
  out_dims[rank - 1] = 2;
  int64_t outer = 1, inner = 1;
  for (int64_t a = 0; a < axis; ++a) outer *= x.shape[a];
  for (int64_t a = axis + 1; a < rank - 1; ++a) inner *= x.shape[a];
  const int64_t in_length = x.shape[axis];
  const int64_t parts = x.shape[rank - 1];
  const DType dtype = x.dtype;
  auto run = [=](std::span<const TensorView> in,
                 std::span<const TensorView> out,
                 std::span<std::byte>) -> absl::Status {
    return VisitFloatDType(dtype, [&]<typename T>() -> absl::Status {
      const T* xs = in[0].as<const T>();
      T* ys = out[0].as<T>();
      ParallelFor(
          static_cast<size_t>(outer * inner), 1, [&](size_t lo, size_t hi) {
            std::vector<Complex> data, scratch;
            for (size_t oi = lo; oi < hi; ++oi) {
              const int64_t o = static_cast<int64_t>(oi) / inner;
              const int64_t i = static_cast<int64_t>(oi) % inner;
              data.assign(static_cast<size_t>(length), Complex(0, 0));
              for (int64_t t = 0; t < std::min(length, in_length); ++t) {
                const int64_t at = ((o * in_length + t) * inner + i) * parts;
                data[t] =
                    Complex(Load(xs[at]), parts == 2 ? Load(xs[at + 1]) : 0);
              }
              Transform(data, inverse, scratch);
              StoreBins(data, out_length, ys + (o * out_length * inner + i) * 2,
                        inner * 2);
            }
          });
      return absl::OkStatus();
    });
  };
  return Prepared({TensorInfo{dtype, Shape(out_dims)}},
                  MakeKernel(std::move(run)));
}

// STFT: signal [batch, length, 1 or 2], frame_step, window?, frame_length?
// -> [batch, frames, bins, 2].
absl::StatusOr<PreparedKernel> PrepareStft(const OpContext& context) {
  const TensorInfo& signal = context.inputs[0];
  RETURN_IF_ERROR(RequireDType(signal, kFloatTypes, "signal"));
  if (signal.shape.rank() != 3 ||
      (signal.shape[2] != 1 && signal.shape[2] != 2)) {
    return InvalidArgument("signal has shape ", signal.shape.ToString(),
                           "; expected [batch, length, 1 or 2]");
  }
  ASSIGN_OR_RETURN(int64_t step, ScalarInput(context, 1, "frame_step"));
  int64_t frame_length = -1;
  if (context.has_input(2)) {
    const TensorInfo& window = context.inputs[2];
    if (window.shape.rank() != 1 || window.dtype != signal.dtype) {
      return InvalidArgument("window is ", DTypeName(window.dtype),
                             window.shape.ToString(), "; expected ",
                             DTypeName(signal.dtype), "[frame_length]");
    }
    frame_length = window.shape[0];
  }
  if (context.has_input(3)) {
    ASSIGN_OR_RETURN(int64_t given, ScalarInput(context, 3, "frame_length"));
    if (frame_length >= 0 && given != frame_length) {
      return InvalidArgument("frame_length is ", given, " but the window has ",
                             frame_length, " values");
    }
    frame_length = given;
  }
  if (frame_length < 0) {
    return InvalidArgument("give a window or frame_length");
  }
  const int64_t batch = signal.shape[0], length = signal.shape[1];
  if (step <= 0 || frame_length <= 0 || frame_length > length) {
    return InvalidArgument("frame_step ", step,
                           " must be positive and "
                           "frame_length ",
                           frame_length, " in 1..", length,
                           " (the signal's length)");
  }
  ASSIGN_OR_RETURN(bool onesided, context.attrs.GetFlag("onesided", true));
  const int64_t frames = (length - frame_length) / step + 1;
  const int64_t bins = onesided ? frame_length / 2 + 1 : frame_length;
  const int64_t parts = signal.shape[2];
  const bool has_window = context.has_input(2);
  const DType dtype = signal.dtype;
  auto run = [=](std::span<const TensorView> in,
                 std::span<const TensorView> out,
                 std::span<std::byte>) -> absl::Status {
    return VisitFloatDType(dtype, [&]<typename T>() -> absl::Status {
      const T* xs = in[0].as<const T>();
      const T* window = has_window ? in[2].as<const T>() : nullptr;
      T* ys = out[0].as<T>();
      ParallelFor(
          static_cast<size_t>(batch * frames), 1, [&](size_t lo, size_t hi) {
            std::vector<Complex> data, scratch;
            for (size_t bf = lo; bf < hi; ++bf) {
              const int64_t b = static_cast<int64_t>(bf) / frames;
              const int64_t f = static_cast<int64_t>(bf) % frames;
              data.resize(static_cast<size_t>(frame_length));
              for (int64_t k = 0; k < frame_length; ++k) {
                const int64_t at = (b * length + f * step + k) * parts;
                const double w = window == nullptr ? 1.0 : Load(window[k]);
                data[k] = Complex(Load(xs[at]) * w,
                                  parts == 2 ? Load(xs[at + 1]) * w : 0.0);
              }
              Transform(data, false, scratch);
              StoreBins(data, bins, ys + (b * frames + f) * bins * 2, 2);
            }
          });
      return absl::OkStatus();
    });
  };
  return Prepared({TensorInfo{dtype, Shape({batch, frames, bins, 2})}},
                  MakeKernel(std::move(run)));
}

// A kernel writing values computed at prepare time (windows and filter
// banks depend only on constant inputs) in `dtype`.
PreparedKernel ValuesKernel(std::vector<double> values, DType dtype,
                            Shape shape) {
  auto run = [values = std::move(values), dtype](
                 std::span<const TensorView>, std::span<const TensorView> out,
                 std::span<std::byte>) -> absl::Status {
    VisitDType(dtype, [&]<typename T>() {
      T* ys = out[0].as<T>();
      for (size_t i = 0; i < values.size(); ++i) {
        ys[i] = Store<T>(static_cast<ComputeType<T>>(values[i]));
      }
    });
    return absl::OkStatus();
  };
  return Prepared({TensorInfo{dtype, std::move(shape)}},
                  MakeKernel(std::move(run)));
}

absl::StatusOr<DType> OutputDataType(const OpContext& context) {
  ASSIGN_OR_RETURN(int64_t code, context.attrs.GetInt("output_datatype", 1));
  const std::optional<DType> dtype =
      FromOnnxDataType(static_cast<int32_t>(code));
  if (!dtype.has_value() || *dtype == DType::kBool) {
    return InvalidArgument("output_datatype ", code,
                           " is not a numeric type acldump has");
  }
  return *dtype;
}

// A generalized cosine window: sum_k (-1)^k a_k cos(2 pi k n / N), N = size
// (periodic) or size - 1 (symmetric).
template <int kTerms>
absl::StatusOr<PreparedKernel> PrepareCosineWindow(
    const OpContext& context, const double (&coefficients)[kTerms]) {
  ASSIGN_OR_RETURN(int64_t size, ScalarInput(context, 0, "size"));
  if (size < 0) return InvalidArgument("size is ", size, "; expected >= 0");
  ASSIGN_OR_RETURN(DType dtype, OutputDataType(context));
  ASSIGN_OR_RETURN(bool periodic, context.attrs.GetFlag("periodic", true));
  std::vector<double> values(static_cast<size_t>(size));
  const double denominator = static_cast<double>(periodic ? size : size - 1);
  for (int64_t n = 0; n < size; ++n) {
    double v = 0;
    for (int k = 0; k < kTerms; ++k) {
      const double term =
          coefficients[k] * std::cos(2 * std::numbers::pi * k *
                                     static_cast<double>(n) / denominator);
      v += k % 2 == 0 ? term : -term;
    }
    values[n] = denominator == 0 ? 1.0 : v;
  }
  return ValuesKernel(std::move(values), dtype, Shape({size}));
}

absl::StatusOr<PreparedKernel> PrepareHannWindow(const OpContext& context) {
  static constexpr double kHann[] = {0.5, 0.5};
  return PrepareCosineWindow(context, kHann);
}
absl::StatusOr<PreparedKernel> PrepareHammingWindow(const OpContext& context) {
  static constexpr double kHamming[] = {25.0 / 46, 21.0 / 46};
  return PrepareCosineWindow(context, kHamming);
}
absl::StatusOr<PreparedKernel> PrepareBlackmanWindow(const OpContext& context) {
  static constexpr double kBlackman[] = {0.42, 0.5, 0.08};
  return PrepareCosineWindow(context, kBlackman);
}

absl::StatusOr<double> ScalarAsDouble(const OpContext& context, size_t index,
                                      std::string_view name) {
  const TensorView* view = context.constant(index);
  if (view == nullptr) {
    return NotKnownBeforeExecution(name);
  }
  return ReadScalarAsDouble(*view, name);
}

// Triangular mel filters, exactly as the ONNX reference builds them (its
// integer bin edges included): [dft_length / 2 + 1, num_mel_bins].
absl::StatusOr<PreparedKernel> PrepareMelWeightMatrix(
    const OpContext& context) {
  ASSIGN_OR_RETURN(int64_t mel_bins, ScalarInput(context, 0, "num_mel_bins"));
  ASSIGN_OR_RETURN(int64_t dft_length, ScalarInput(context, 1, "dft_length"));
  ASSIGN_OR_RETURN(int64_t sample_rate, ScalarInput(context, 2, "sample_rate"));
  ASSIGN_OR_RETURN(double lower,
                   ScalarAsDouble(context, 3, "lower_edge_hertz"));
  ASSIGN_OR_RETURN(double upper,
                   ScalarAsDouble(context, 4, "upper_edge_hertz"));
  if (mel_bins <= 0 || dft_length <= 0 || sample_rate <= 0 || lower < 0 ||
      upper <= lower) {
    return InvalidArgument(
        "num_mel_bins ", mel_bins, ", dft_length ", dft_length,
        ", sample_rate ", sample_rate,
        " must be positive and 0 <= lower_edge_hertz < upper_edge_hertz (",
        lower, ", ", upper, ")");
  }
  ASSIGN_OR_RETURN(DType dtype, OutputDataType(context));
  const int64_t spectrogram_bins = dft_length / 2 + 1;
  const double low_mel = 2595 * std::log10(1 + lower / 700);
  const double high_mel = 2595 * std::log10(1 + upper / 700);
  const double mel_step =
      (high_mel - low_mel) / static_cast<double>(mel_bins + 2);
  std::vector<int64_t> edges(static_cast<size_t>(mel_bins + 2));
  for (int64_t i = 0; i < mel_bins + 2; ++i) {
    const double mel = static_cast<double>(i) * mel_step + low_mel;
    const double hz = 700 * (std::pow(10.0, mel / 2595) - 1);
    edges[i] =
        static_cast<int64_t>(std::floor(static_cast<double>(dft_length + 1) *
                                        hz / static_cast<double>(sample_rate)));
  }
  std::vector<double> values(static_cast<size_t>(spectrogram_bins * mel_bins));
  auto set = [&](int64_t row, int64_t col, double v) -> absl::Status {
    if (row < 0 || row >= spectrogram_bins) {
      return InvalidArgument("mel filter ", col, " reaches spectrogram bin ",
                             row, " of ", spectrogram_bins,
                             ": upper_edge_hertz is above sample_rate / 2");
    }
    values[row * mel_bins + col] = v;
    return absl::OkStatus();
  };
  for (int64_t i = 0; i < mel_bins; ++i) {
    const int64_t left = edges[i], center = edges[i + 1], right = edges[i + 2];
    if (center == left) {
      RETURN_IF_ERROR(set(center, i, 1.0));
    } else {
      for (int64_t j = left; j <= center; ++j) {
        RETURN_IF_ERROR(set(j, i,
                            static_cast<double>(j - left) /
                                static_cast<double>(center - left)));
      }
    }
    for (int64_t j = center; j < right; ++j) {
      RETURN_IF_ERROR(set(j, i,
                          static_cast<double>(right - j) /
                              static_cast<double>(right - center)));
    }
  }
  return ValuesKernel(std::move(values), dtype,
                      Shape({spectrogram_bins, mel_bins}));
}

}  // namespace

absl::Status RegisterSignalOps(OpRegistry& registry) {
  return registry.RegisterAll({
      {"DFT", 1, 3, 1, 1, PrepareDft},
      {"STFT", 2, 4, 1, 1, PrepareStft},
      {"HannWindow", 1, 1, 1, 1, PrepareHannWindow},
      {"HammingWindow", 1, 1, 1, 1, PrepareHammingWindow},
      {"BlackmanWindow", 1, 1, 1, 1, PrepareBlackmanWindow},
      {"MelWeightMatrix", 5, 5, 1, 1, PrepareMelWeightMatrix},
  });
}

}  // namespace acldump
