#include "dump/format/device_layout.h"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <optional>

#include "base/status_macros.h"
#include "base/strings.h"
#include "dump/format/dump_data.pb.h"

namespace acldump::dump {
namespace {

using Dims = std::vector<int64_t>;

template <typename... Args>
absl::Status Bad(const Args&... args) {
  return absl::InvalidArgumentError(StrCat(args...));
}

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

std::string NameOf(int32_t format) {
  if (!toolkit::dumpdata::OutputFormat_IsValid(format)) {
    return StrCat("format ", format);
  }
  std::string_view name = toolkit::dumpdata::OutputFormat_Name(
      static_cast<toolkit::dumpdata::OutputFormat>(format));
  if (name.starts_with("FORMAT_")) name.remove_prefix(7);
  return std::string(name);
}

std::string DimsText(const Dims& dims) {
  std::string text = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    StrAppend(text, i ? "," : "", dims[i]);
  }
  return text + "]";
}

// For a plain 4-D or 5-D format: where each canonical axis (N, C, H, W or
// N, C, D, H, W) sits in it.
std::optional<std::vector<int>> CanonicalAxes(int32_t format) {
  switch (format) {
    case kFormatNchw:
      return std::vector<int>{0, 1, 2, 3};
    case kFormatNhwc:
      return std::vector<int>{0, 3, 1, 2};
    case kFormatHwcn:
      return std::vector<int>{3, 2, 0, 1};
    case kFormatChwn:
      return std::vector<int>{3, 0, 1, 2};
    case kFormatNcdhw:
      return std::vector<int>{0, 1, 2, 3, 4};
    case kFormatNdhwc:
      return std::vector<int>{0, 4, 1, 2, 3};
    case kFormatDhwcn:
      return std::vector<int>{4, 3, 0, 1, 2};
    default:
      return std::nullopt;
  }
}

bool IsPlain(int32_t format) {
  return format == kFormatNd || CanonicalAxes(format).has_value() ||
         format == 34 /* CN */ || format == 35 /* NC */ || format == 47;
}

// Calls f(T{}) with the unsigned type of `element_size` bytes.
template <typename F>
absl::StatusOr<std::string> BySize(size_t element_size, F&& f) {
  switch (element_size) {
    case 1:
      return f(uint8_t{});
    case 2:
      return f(uint16_t{});
    case 4:
      return f(uint32_t{});
    case 8:
      return f(uint64_t{});
    default:
      return Bad("elements of ", element_size,
                 " bytes cannot be rearranged (1, 2, 4 or 8 bytes)");
  }
}

int64_t Product(const Dims& dims, size_t begin = 0, size_t end = SIZE_MAX) {
  int64_t p = 1;
  for (size_t i = begin; i < std::min(end, dims.size()); ++i) p *= dims[i];
  return p;
}

// out[i...] = in[...] with out axis k = in axis perm[k].
template <typename T>
std::string Transpose(const T* in, const Dims& in_dims,
                      const std::vector<int>& perm) {
  const size_t rank = in_dims.size();
  Dims in_strides(rank, 1), out_dims(rank);
  for (size_t k = rank; k-- > 1;) {
    in_strides[k - 1] = in_strides[k] * in_dims[k];
  }
  Dims stride_of_out(rank);
  for (size_t k = 0; k < rank; ++k) {
    out_dims[k] = in_dims[perm[k]];
    stride_of_out[k] = in_strides[perm[k]];
  }
  const int64_t total = Product(in_dims);
  std::string out(static_cast<size_t>(total) * sizeof(T), '\0');
  T* dst = reinterpret_cast<T*>(out.data());
  Dims index(rank, 0);
  int64_t offset = 0;
  for (int64_t i = 0; i < total; ++i) {
    dst[i] = in[offset];
    for (size_t k = rank; k-- > 0;) {
      if (++index[k] < out_dims[k]) {
        offset += stride_of_out[k];
        break;
      }
      offset -= stride_of_out[k] * (out_dims[k] - 1);
      index[k] = 0;
    }
  }
  return out;
}

// Everything a transform needs about the tensor, in canonical order
// (N, C, H, W or N, C, D, H, W) where the format has one.
struct Plan {
  Dims device;    // device shape
  Dims original;  // original shape, empty when unknown
  int32_t original_format = -1;
  int32_t groups = 1;
  size_t element_size = 0;
};

// The original shape in canonical order, and the axes of the original format
// (for the way back). Rank `rank` is required.
absl::StatusOr<Dims> CanonicalOriginal(const Plan& p, size_t rank,
                                       std::vector<int>* axes) {
  const int32_t assumed = p.original_format >= 0
                              ? p.original_format
                              : (rank == 5 ? kFormatNcdhw : kFormatNchw);
  std::optional<std::vector<int>> found = CanonicalAxes(assumed);
  if (!found || found->size() != rank) {
    return Bad("original format ", NameOf(assumed), " is not a ", rank,
               "-D image format");
  }
  if (p.original.size() != rank) {
    return Bad("original shape ", DimsText(p.original), " is not ", rank, "-D");
  }
  *axes = *found;
  Dims canonical(rank);
  for (size_t i = 0; i < rank; ++i) canonical[i] = p.original[(*found)[i]];
  return canonical;
}

absl::Status ExpectDevice(const Plan& p, const Dims& expected,
                          std::string_view format, std::string_view how) {
  if (p.device == expected) return absl::OkStatus();
  return Bad(format, " shape ", DimsText(p.device), " does not hold original ",
             DimsText(p.original), ": expected ", DimsText(expected), " (", how,
             ")");
}

// NC1HWC0 / NC1HWC0_C04 [N, C1, H, W, C0] -> NCHW.
template <typename T>
absl::StatusOr<std::string> FromNc1hwc0(const Plan& p, const T* src,
                                        Dims* canonical) {
  if (p.device.size() != 5) {
    return Bad("NC1HWC0 shape ", DimsText(p.device), " is not 5-D");
  }
  const int64_t c0 = p.device[4];
  Dims dims{p.device[0], p.device[1] * c0, p.device[2], p.device[3]};
  if (!p.original.empty()) {
    std::vector<int> axes;
    ASSIGN_OR_RETURN(dims, CanonicalOriginal(p, 4, &axes));
    RETURN_IF_ERROR(
        ExpectDevice(p, {dims[0], CeilDiv(dims[1], c0), dims[2], dims[3], c0},
                     "NC1HWC0", "N, C/C0 rounded up, H, W, C0"));
  }
  const int64_t n_ = dims[0], c_ = dims[1], h_ = dims[2], w_ = dims[3];
  const int64_t c1 = p.device[1], hw = h_ * w_;
  std::string out(static_cast<size_t>(Product(dims)) * sizeof(T), '\0');
  T* dst = reinterpret_cast<T*>(out.data());
  for (int64_t n = 0; n < n_; ++n) {
    for (int64_t c = 0; c < c_; ++c) {
      const T* plane = src + ((n * c1 + c / c0) * hw) * c0 + c % c0;
      T* row = dst + (n * c_ + c) * hw;
      for (int64_t i = 0; i < hw; ++i) row[i] = plane[i * c0];
    }
  }
  *canonical = dims;
  return out;
}

// NDC1HWC0 [N, D, C1, H, W, C0] -> NCDHW.
template <typename T>
absl::StatusOr<std::string> FromNdc1hwc0(const Plan& p, const T* src,
                                         Dims* canonical) {
  if (p.device.size() != 6) {
    return Bad("NDC1HWC0 shape ", DimsText(p.device), " is not 6-D");
  }
  const int64_t c0 = p.device[5];
  Dims dims{p.device[0], p.device[2] * c0, p.device[1], p.device[3],
            p.device[4]};
  if (!p.original.empty()) {
    std::vector<int> axes;
    ASSIGN_OR_RETURN(dims, CanonicalOriginal(p, 5, &axes));
    RETURN_IF_ERROR(ExpectDevice(
        p, {dims[0], dims[2], CeilDiv(dims[1], c0), dims[3], dims[4], c0},
        "NDC1HWC0", "N, D, C/C0 rounded up, H, W, C0"));
  }
  const int64_t n_ = dims[0], c_ = dims[1], d_ = dims[2];
  const int64_t hw = dims[3] * dims[4], c1 = p.device[2];
  std::string out(static_cast<size_t>(Product(dims)) * sizeof(T), '\0');
  T* dst = reinterpret_cast<T*>(out.data());
  for (int64_t n = 0; n < n_; ++n) {
    for (int64_t c = 0; c < c_; ++c) {
      for (int64_t d = 0; d < d_; ++d) {
        const T* plane =
            src + (((n * d_ + d) * c1 + c / c0) * hw) * c0 + c % c0;
        T* row = dst + ((n * c_ + c) * d_ + d) * hw;
        for (int64_t i = 0; i < hw; ++i) row[i] = plane[i * c0];
      }
    }
  }
  *canonical = dims;
  return out;
}

// FRACTAL_NZ [..., W1, H1, H0, W0] -> ND [..., H, W].
template <typename T>
absl::StatusOr<std::string> FromFractalNz(const Plan& p, const T* src,
                                          Dims* logical) {
  const size_t rank = p.device.size();
  if (rank < 4) {
    return Bad("FRACTAL_NZ shape ", DimsText(p.device),
               " has fewer than 4 dimensions");
  }
  const int64_t w1 = p.device[rank - 4], h1 = p.device[rank - 3];
  const int64_t h0 = p.device[rank - 2], w0 = p.device[rank - 1];
  const Dims batch(p.device.begin(), p.device.end() - 4);
  Dims dims = batch;
  dims.push_back(h1 * h0);
  dims.push_back(w1 * w0);
  if (!p.original.empty()) {
    dims = p.original;
    int64_t h = 1, w = dims.back();
    Dims original_batch;
    if (dims.size() >= 2) {
      h = dims[dims.size() - 2];
      original_batch.assign(dims.begin(), dims.end() - 2);
    }
    Dims expected = original_batch;
    expected.insert(expected.end(), {CeilDiv(w, w0), CeilDiv(h, h0), h0, w0});
    if (Product(original_batch) != Product(batch) || p.device.size() < 4 ||
        !std::equal(expected.end() - 4, expected.end(), p.device.end() - 4)) {
      return Bad("FRACTAL_NZ shape ", DimsText(p.device),
                 " does not hold original ", DimsText(p.original),
                 ": expected ", DimsText(expected),
                 " (batch, W/W0 and H/H0 rounded up, H0, W0)");
    }
  }
  const int64_t h_ = dims.size() >= 2 ? dims[dims.size() - 2] : 1;
  const int64_t w_ = dims.back();
  const int64_t batches = Product(batch);
  std::string out(static_cast<size_t>(batches * h_ * w_) * sizeof(T), '\0');
  T* dst = reinterpret_cast<T*>(out.data());
  for (int64_t b = 0; b < batches; ++b) {
    const T* block = src + b * w1 * h1 * h0 * w0;
    for (int64_t h = 0; h < h_; ++h) {
      T* row = dst + (b * h_ + h) * w_;
      for (int64_t w = 0; w < w_; ++w) {
        row[w] = block[(((w / w0) * h1 + h / h0) * h0 + h % h0) * w0 + w % w0];
      }
    }
  }
  *logical = dims;
  return out;
}

// A 1-D tensor stored as an NZ column [1, ceil(W/16), 16, C0] (the device's
// shape inference appends a 1 to a vector): element w in row w, column 0.
template <typename T>
absl::StatusOr<std::string> FromNzColumn(const Plan& p, const T* src,
                                         Dims* logical) {
  const int64_t w_ = p.original[0], c0 = p.device[3];
  RETURN_IF_ERROR(
      ExpectDevice(p, {1, CeilDiv(w_, p.device[2]), p.device[2], c0},
                   "FRACTAL_NZ", "a column: 1, W/16 rounded up, 16, C0"));
  std::string out(static_cast<size_t>(w_) * sizeof(T), '\0');
  T* dst = reinterpret_cast<T*>(out.data());
  for (int64_t w = 0; w < w_; ++w) dst[w] = src[w * c0];
  *logical = p.original;
  return out;
}

absl::StatusOr<Dims> NeedOriginal(const Plan& p, size_t rank,
                                  std::string_view format) {
  if (p.original.empty()) {
    return Bad(format,
               " tensors can only be read back with their original "
               "shape, which the header does not record");
  }
  std::vector<int> axes;
  return CanonicalOriginal(p, rank, &axes);
}

// FRACTAL_Z [C1*H*W, N1, N0, C0] (one group) and FRACTAL_Z_3D
// [D*C1*H*W, N1, N0, C0] -> NCHW / NCDHW.
template <typename T>
absl::StatusOr<std::string> FromFractalZ(const Plan& p, const T* src,
                                         size_t rank, Dims* canonical) {
  const std::string_view format = rank == 5 ? "FRACTAL_Z_3D" : "FRACTAL_Z";
  ASSIGN_OR_RETURN(Dims dims, NeedOriginal(p, rank, format));
  if (p.device.size() != 4) {
    return Bad(format, " shape ", DimsText(p.device), " is not 4-D");
  }
  const int64_t n0 = p.device[2], c0 = p.device[3];
  const int64_t n_ = dims[0], c_ = dims[1];
  const int64_t d_ = rank == 5 ? dims[2] : 1;
  const int64_t hw = Product(dims, rank - 2);
  const int64_t c1 = CeilDiv(c_, c0), n1 = CeilDiv(n_, n0);
  RETURN_IF_ERROR(ExpectDevice(p, {d_ * c1 * hw, n1, n0, c0}, format,
                               "D·(C/C0 rounded up)·H·W, N/N0 rounded up, "
                               "N0, C0"));
  std::string out(static_cast<size_t>(Product(dims)) * sizeof(T), '\0');
  T* dst = reinterpret_cast<T*>(out.data());
  const int64_t column = n1 * n0 * c0;  // one (d, c1, h, w) position
  for (int64_t n = 0; n < n_; ++n) {
    for (int64_t c = 0; c < c_; ++c) {
      for (int64_t d = 0; d < d_; ++d) {
        const T* base = src + ((d * c1 + c / c0) * hw) * column +
                        (n / n0 * n0 + n % n0) * c0 + c % c0;
        T* row = dst + ((n * c_ + c) * d_ + d) * hw;
        for (int64_t i = 0; i < hw; ++i) row[i] = base[i * column];
      }
    }
  }
  *canonical = dims;
  return out;
}

// How a grouped convolution's weights [Cout, Cin/groups, H, W] are packed
// into FRACTAL_Z: `e_mult` groups share one diagonal block (so that a group
// of few channels does not waste a whole C0 x 16 cube), the blocks padded to
// cin_opt x cout_opt.
struct GroupPacking {
  int64_t e_mult = 1, cin_opt = 0, cout_opt = 0, c1 = 0, blocks = 0;
};

GroupPacking PackGroups(int64_t groups, int64_t cin, int64_t cout, int64_t c0,
                        int64_t n0) {
  GroupPacking g;
  const int64_t by_cin = std::lcm(cin, c0) / cin;
  const int64_t by_cout = std::lcm(cout, n0) / cout;
  g.e_mult = std::min(std::lcm(by_cin, by_cout), groups);
  g.cin_opt = CeilDiv(g.e_mult * cin, c0) * c0;
  g.cout_opt = CeilDiv(g.e_mult * cout, n0) * n0;
  g.c1 = g.cin_opt / c0;
  g.blocks = CeilDiv(groups, g.e_mult);
  return g;
}

// FRACTAL_Z of a grouped convolution -> NCHW [Cout, Cin/groups, H, W].
template <typename T>
absl::StatusOr<std::string> FromFractalZGroups(const Plan& p, const T* src,
                                               Dims* canonical) {
  ASSIGN_OR_RETURN(Dims dims, NeedOriginal(p, 4, "FRACTAL_Z"));
  if (p.device.size() != 4) {
    return Bad("FRACTAL_Z shape ", DimsText(p.device), " is not 4-D");
  }
  const int64_t n0 = p.device[2], c0 = p.device[3], groups = p.groups;
  const int64_t n_ = dims[0], c_ = dims[1], h_ = dims[2], w_ = dims[3];
  if (n_ % groups != 0 || c_ == 0 || n0 == 0 || c0 == 0) {
    return Bad("FRACTAL_Z with ", groups, " groups: original ",
               DimsText(p.original), " does not split into groups");
  }
  const int64_t cout = n_ / groups;
  const GroupPacking g = PackGroups(groups, c_, cout, c0, n0);
  RETURN_IF_ERROR(ExpectDevice(
      p, {g.blocks * g.c1 * h_ * w_, g.cout_opt / n0, n0, c0}, "FRACTAL_Z",
      StrCat(groups, " groups, ", g.e_mult,
             " per block: blocks·C1·H·W, "
             "Cout_opt/N0, N0, C0")));
  std::string out(static_cast<size_t>(Product(dims)) * sizeof(T), '\0');
  T* dst = reinterpret_cast<T*>(out.data());
  const int64_t hw = h_ * w_;
  for (int64_t n = 0; n < n_; ++n) {
    const int64_t group = n / cout, e = group % g.e_mult;
    const int64_t co = e * cout + n % cout;
    for (int64_t c = 0; c < c_; ++c) {
      const int64_t ci = e * c_ + c;
      const T* base =
          src + ((group / g.e_mult) * g.c1 + ci / c0) * hw * g.cout_opt * c0 +
          co * c0 + ci % c0;
      T* row = dst + (n * c_ + c) * hw;
      for (int64_t i = 0; i < hw; ++i) row[i] = base[i * g.cout_opt * c0];
    }
  }
  *canonical = dims;
  return out;
}

// C1HWNCoC0 [C1, H, W, N, C0, C0] -> NCHW: each channel sits on the diagonal
// of its C0 x C0 block.
template <typename T>
absl::StatusOr<std::string> FromC1hwncoc0(const Plan& p, const T* src,
                                          Dims* canonical) {
  ASSIGN_OR_RETURN(Dims dims, NeedOriginal(p, 4, "C1HWNCoC0"));
  if (p.device.size() != 6) {
    return Bad("C1HWNCoC0 shape ", DimsText(p.device), " is not 6-D");
  }
  const int64_t c0 = p.device[5];
  const int64_t n_ = dims[0], c_ = dims[1], h_ = dims[2], w_ = dims[3];
  RETURN_IF_ERROR(ExpectDevice(p, {CeilDiv(c_, c0), h_, w_, n_, c0, c0},
                               "C1HWNCoC0",
                               "C/C0 rounded up, H, W, N, Co = C0, C0"));
  std::string out(static_cast<size_t>(Product(dims)) * sizeof(T), '\0');
  T* dst = reinterpret_cast<T*>(out.data());
  for (int64_t n = 0; n < n_; ++n) {
    for (int64_t c = 0; c < c_; ++c) {
      for (int64_t h = 0; h < h_; ++h) {
        for (int64_t w = 0; w < w_; ++w) {
          const int64_t block = (((c / c0) * h_ + h) * w_ + w) * n_ + n;
          dst[((n * c_ + c) * h_ + h) * w_ + w] =
              src[(block * c0 + c % c0) * c0 + c % c0];
        }
      }
    }
  }
  *canonical = dims;
  return out;
}

// FRACTAL_Z_C04 [ceil(4·H·W / C0), N1, N0, C0]: C padded to 4, then
// (h, w, c) flattened and tiled by the cube's C0 -> NCHW.
template <typename T>
absl::StatusOr<std::string> FromFractalZC04(const Plan& p, const T* src,
                                            Dims* canonical) {
  ASSIGN_OR_RETURN(Dims dims, NeedOriginal(p, 4, "FRACTAL_Z_C04"));
  if (p.device.size() != 4) {
    return Bad("FRACTAL_Z_C04 shape ", DimsText(p.device), " is not 4-D");
  }
  const int64_t n0 = p.device[2], c0 = p.device[3];
  const int64_t n_ = dims[0], c_ = dims[1], h_ = dims[2], w_ = dims[3];
  if (c_ > 4) {
    return Bad("FRACTAL_Z_C04 holds at most 4 channels; original ",
               DimsText(p.original), " has ", c_);
  }
  const int64_t n1 = CeilDiv(n_, n0);
  RETURN_IF_ERROR(ExpectDevice(p, {CeilDiv(4 * h_ * w_, c0), n1, n0, c0},
                               "FRACTAL_Z_C04",
                               "4·H·W/C0 rounded up, N/N0 rounded up, N0, C0"));
  std::string out(static_cast<size_t>(Product(dims)) * sizeof(T), '\0');
  T* dst = reinterpret_cast<T*>(out.data());
  for (int64_t n = 0; n < n_; ++n) {
    for (int64_t c = 0; c < c_; ++c) {
      for (int64_t i = 0; i < h_ * w_; ++i) {
        const int64_t k = i * 4 + c;
        dst[(n * c_ + c) * h_ * w_ + i] =
            src[(k / c0) * n1 * n0 * c0 + n * c0 + k % c0];
      }
    }
  }
  *canonical = dims;
  return out;
}

// FRACTAL_ZN_LSTM [ceil(i/16) + ceil(h/16), 4·ceil(h/16), 16, 16]: an LSTM's
// weight of N = 4·hidden outputs (the gates in their order) and C = input +
// hidden inputs, each gate and each of the two input parts padded to 16. The
// original is [C, N] (or H, W, C, N with H = W = 1, as HWCN) or [N, C]; the
// device shape tells which.
template <typename T>
absl::StatusOr<std::string> FromFractalZnLstm(const Plan& p, const T* src,
                                              Dims* logical) {
  if (p.original.empty()) {
    return Bad(
        "FRACTAL_ZN_LSTM tensors can only be read back with their "
        "original shape, which the header does not record");
  }
  if (p.device.size() != 4 || p.device[2] != 16 || p.device[3] != 16) {
    return Bad("FRACTAL_ZN_LSTM shape ", DimsText(p.device),
               " is not [C1, N1, 16, 16]");
  }
  // Which original axes are C and N.
  const Dims& o = p.original;
  std::vector<std::pair<size_t, size_t>> candidates;  // (c axis, n axis)
  if (o.size() == 2) {
    candidates = {{0, 1}, {1, 0}};
  } else if (o.size() == 4 && o[0] == 1 && o[1] == 1) {
    candidates = {{2, 3}};  // HWCN
  } else if (o.size() == 4 && o[2] == 1 && o[3] == 1) {
    candidates = {{1, 0}};  // NCHW
  }
  for (auto [c_axis, n_axis] : candidates) {
    const int64_t n_ = o[n_axis], c_ = o[c_axis];
    if (n_ % 4 != 0 || c_ < n_ / 4) continue;
    const int64_t hidden = n_ / 4, input = c_ - hidden;
    const int64_t c1a = CeilDiv(input, 16), no = CeilDiv(hidden, 16);
    if (p.device != Dims{c1a + no, 4 * no, 16, 16}) continue;
    std::string out(static_cast<size_t>(Product(o)) * sizeof(T), '\0');
    T* dst = reinterpret_cast<T*>(out.data());
    const int64_t n_stride = c_axis < n_axis ? 1 : c_;
    const int64_t c_stride = c_axis < n_axis ? n_ : 1;
    for (int64_t c = 0; c < c_; ++c) {
      const int64_t cd = c < input ? c : c1a * 16 + (c - input);
      for (int64_t n = 0; n < n_; ++n) {
        const int64_t nd = (n / hidden) * no * 16 + n % hidden;
        dst[c * c_stride + n * n_stride] =
            src[(cd / 16) * 4 * no * 256 + nd * 16 + cd % 16];
      }
    }
    *logical = o;
    return out;
  }
  return Bad("FRACTAL_ZN_LSTM shape ", DimsText(p.device),
             " does not hold original ", DimsText(o),
             ": expected [ceil(input/16) + ceil(hidden/16), "
             "4·ceil(hidden/16), 16, 16] for a [input + hidden, 4·hidden] "
             "weight");
}

// A plain format (NHWC, HWCN, ...) -> the canonical order.
template <typename T>
absl::StatusOr<std::string> FromPlain(const Plan& p, int32_t format,
                                      const T* src, Dims* canonical) {
  const std::vector<int> axes = *CanonicalAxes(format);
  if (p.device.size() != axes.size()) {
    return Bad(NameOf(format), " shape ", DimsText(p.device), " is not ",
               axes.size(), "-D");
  }
  canonical->resize(axes.size());
  for (size_t i = 0; i < axes.size(); ++i) {
    (*canonical)[i] = p.device[axes[i]];
  }
  return Transpose(src, p.device, axes);
}

}  // namespace

bool NeedsLayoutTransform(const DeviceTensorLayout& layout) {
  if (!IsPlain(layout.format)) return true;
  if (!layout.original_shape.empty() && layout.original_shape != layout.shape) {
    return true;
  }
  return layout.original_format >= 0 &&
         layout.original_format != layout.format &&
         CanonicalAxes(layout.format).has_value() &&
         CanonicalAxes(layout.original_format).has_value();
}

absl::StatusOr<LogicalTensorBytes> DeviceToLogical(
    const DeviceTensorLayout& layout, size_t element_size,
    std::string_view bytes) {
  Plan p;
  p.element_size = element_size;
  p.original_format = layout.original_format;
  p.groups = layout.sub_format > 1 ? layout.sub_format : 1;
  for (uint64_t d : layout.shape) p.device.push_back(static_cast<int64_t>(d));
  for (uint64_t d : layout.original_shape) {
    p.original.push_back(static_cast<int64_t>(d));
  }
  for (const Dims* dims : {&p.device, &p.original}) {
    for (int64_t d : *dims) {
      if (d < 0 || d > (int64_t{1} << 40)) {
        return Bad("dimension ", static_cast<uint64_t>(d), " of ",
                   DimsText(*dims), " is out of range");
      }
    }
  }
  // Products of untrusted shapes: checked before any is used.
  auto checked_product = [](const Dims& dims) -> std::optional<int64_t> {
    int64_t product = 1;
    for (int64_t d : dims) {
      if (__builtin_mul_overflow(product, d, &product) ||
          product > (int64_t{1} << 48)) {
        return std::nullopt;
      }
    }
    return product;
  };
  const std::optional<int64_t> device_count = checked_product(p.device);
  const std::optional<int64_t> original_count = checked_product(p.original);
  if (!device_count || !original_count) {
    return Bad("shape ", DimsText(device_count ? p.original : p.device),
               " has more elements than a dump can hold");
  }
  // Every layout pads: the original tensor never has more elements.
  if (*original_count > *device_count) {
    return Bad(NameOf(layout.format), " shape ", DimsText(p.device),
               " cannot hold original ", DimsText(p.original), " (",
               *original_count, " elements in ", *device_count, ")");
  }
  const int64_t device_elements = *device_count;
  if (static_cast<uint64_t>(device_elements) * element_size != bytes.size()) {
    return Bad(NameOf(layout.format), " shape ", DimsText(p.device), " needs ",
               static_cast<uint64_t>(device_elements) * element_size,
               " bytes of ", element_size, "-byte elements; the data has ",
               bytes.size());
  }
  if (device_elements == 0 || Product(p.original) == 0) {
    LogicalTensorBytes empty;
    empty.shape = p.original.empty() ? p.device : p.original;
    empty.format =
        layout.original_format >= 0 ? layout.original_format : layout.format;
    return empty;
  }
  LogicalTensorBytes result;
  if (p.device == p.original && p.device.size() < 4) {
    // A vector or matrix the device kept as it was, whatever its format tag.
    result.shape = p.device;
    result.format = kFormatNd;
    result.bytes = std::string(bytes);
    return result;
  }
  Dims canonical;             // shape in canonical order, before the way back
  size_t canonical_rank = 0;  // 0: the result is already logical (ND)
  const int32_t format = layout.format;
  auto run = [&](auto zero) -> absl::StatusOr<std::string> {
    using T = decltype(zero);
    const T* src = reinterpret_cast<const T*>(bytes.data());
    switch (format) {
      case kFormatNc1hwc0:
      case kFormatNc1hwc0C04:
        canonical_rank = 4;
        return FromNc1hwc0(p, src, &canonical);
      case kFormatNdc1hwc0:
        canonical_rank = 5;
        return FromNdc1hwc0(p, src, &canonical);
      case kFormatFractalZ:
        canonical_rank = 4;
        if (p.groups > 1) return FromFractalZGroups(p, src, &canonical);
        return FromFractalZ(p, src, 4, &canonical);
      case kFormatFractalZ3d:
        canonical_rank = 5;
        return FromFractalZ(p, src, 5, &canonical);
      case kFormatC1hwncoc0:
        canonical_rank = 4;
        return FromC1hwncoc0(p, src, &canonical);
      case kFormatFractalZC04:
        canonical_rank = 4;
        return FromFractalZC04(p, src, &canonical);
      case kFormatFractalZnLstm:
        return FromFractalZnLstm(p, src, &result.shape);
      case kFormatFractalNz:
        if (p.original.size() == 1 && p.device.size() == 4 &&
            p.device[0] == 1 && p.device[1] > 1) {
          return FromNzColumn(p, src, &result.shape);
        }
        return FromFractalNz(p, src, &result.shape);
      default:
        break;
    }
    if (std::optional<std::vector<int>> axes = CanonicalAxes(format)) {
      // Without a recorded original format, a tensor whose original shape
      // is not the device's is taken as NCHW (NCDHW): an ONNX model's.
      const int32_t assumed = axes->size() == 5 ? kFormatNcdhw : kFormatNchw;
      const int32_t original =
          p.original_format >= 0
              ? p.original_format
              : (!p.original.empty() && p.original != p.device ? assumed
                                                               : format);
      std::optional<std::vector<int>> original_axes = CanonicalAxes(original);
      if (original_axes && original_axes->size() == axes->size() &&
          original != format) {
        canonical_rank = axes->size();
        return FromPlain(p, format, src, &canonical);
      }
    }
    if (!IsPlain(format)) {
      return Bad("device format ", NameOf(format),
                 " cannot be read back (supported: ",
                 StrJoin(SupportedDeviceFormats(), ", "), ")");
    }
    // A plain tensor: the original shape as a view of the same elements, or
    // the leading corner of a padded one.
    result.shape = p.device;
    if (p.original.empty() || p.original == p.device) {
      return std::string(bytes);
    }
    if (Product(p.original) == device_elements) {
      result.shape = p.original;
      return std::string(bytes);
    }
    if (p.original.size() != p.device.size()) {
      return Bad(NameOf(format), " shape ", DimsText(p.device),
                 " does not hold original ", DimsText(p.original));
    }
    for (size_t k = 0; k < p.device.size(); ++k) {
      if (p.original[k] > p.device[k]) {
        return Bad(NameOf(format), " shape ", DimsText(p.device),
                   " does not hold original ", DimsText(p.original));
      }
    }
    result.shape = p.original;
    const int64_t inner = p.original.back();
    std::string out(static_cast<size_t>(Product(p.original)) * sizeof(T), '\0');
    T* dst = reinterpret_cast<T*>(out.data());
    const int64_t rows = Product(p.original) / std::max<int64_t>(inner, 1);
    Dims index(p.original.size() - 1, 0);
    for (int64_t r = 0; r < rows; ++r) {
      int64_t offset = 0;
      for (size_t k = 0; k + 1 < p.device.size(); ++k) {
        offset = offset * p.device[k] + index[k];
      }
      offset *= p.device.back();
      std::memcpy(dst + r * inner, src + offset, inner * sizeof(T));
      for (size_t k = index.size(); k-- > 0;) {
        if (++index[k] < p.original[k]) break;
        index[k] = 0;
      }
    }
    return out;
  };
  ASSIGN_OR_RETURN(std::string data, BySize(element_size, run));
  if (canonical_rank == 0) {
    result.format =
        layout.original_format >= 0 ? layout.original_format : kFormatNd;
    result.bytes = std::move(data);
    return result;
  }
  // Canonical order back to the original format's order.
  const int32_t target =
      layout.original_format >= 0 &&
              CanonicalAxes(layout.original_format).has_value() &&
              CanonicalAxes(layout.original_format)->size() == canonical_rank
          ? layout.original_format
          : (canonical_rank == 5 ? kFormatNcdhw : kFormatNchw);
  const std::vector<int> axes = *CanonicalAxes(target);
  result.format = target;
  if (target == kFormatNchw || target == kFormatNcdhw) {
    result.shape = canonical;
    result.bytes = std::move(data);
    return result;
  }
  std::vector<int> back(axes.size());
  for (size_t i = 0; i < axes.size(); ++i) back[axes[i]] = static_cast<int>(i);
  result.shape.resize(axes.size());
  for (size_t j = 0; j < axes.size(); ++j) result.shape[j] = canonical[back[j]];
  auto transpose = [&](auto zero) -> absl::StatusOr<std::string> {
    using T = decltype(zero);
    return Transpose(reinterpret_cast<const T*>(data.data()), canonical, back);
  };
  ASSIGN_OR_RETURN(result.bytes, BySize(element_size, transpose));
  return result;
}

std::vector<std::string> SupportedDeviceFormats() {
  return {"ND",
          "NCHW",
          "NHWC",
          "HWCN",
          "CHWN",
          "NCDHW",
          "NDHWC",
          "DHWCN",
          "NC1HWC0",
          "NC1HWC0_C04",
          "NDC1HWC0",
          "FRACTAL_Z",
          "FRACTAL_Z_C04",
          "FRACTAL_Z_3D",
          "FRACTAL_NZ",
          "C1HWNCoC0",
          "FRACTAL_ZN_LSTM"};
}

}  // namespace acldump::dump
