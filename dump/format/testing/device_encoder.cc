#include "dump/format/testing/device_encoder.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <numeric>
#include <optional>

namespace acldump::dump::testing {
namespace {

using Dims = std::vector<int64_t>;
using Source = std::function<std::optional<int64_t>(const Dims&)>;

int64_t Up(int64_t a, int64_t b) { return (a + b - 1) / b; }

int64_t Flat(const Dims& index, const Dims& dims) {
  int64_t flat = 0;
  for (size_t k = 0; k < dims.size(); ++k) flat = flat * dims[k] + index[k];
  return flat;
}

// Fills the device tensor position by position from `source`.
EncodedDeviceTensor Fill(const Dims& device, size_t element_size,
                         std::string_view logical, const Source& source) {
  EncodedDeviceTensor out;
  int64_t total = 1;
  for (int64_t d : device) {
    out.shape.push_back(static_cast<uint64_t>(d));
    total *= d;
  }
  out.bytes.assign(static_cast<size_t>(total) * element_size, '\0');
  Dims index(device.size(), 0);
  for (int64_t flat = 0; flat < total; ++flat) {
    if (std::optional<int64_t> from = source(index)) {
      std::memcpy(out.bytes.data() + flat * element_size,
                  logical.data() + *from * element_size, element_size);
    }
    for (size_t k = device.size(); k-- > 0;) {
      if (++index[k] < device[k]) break;
      index[k] = 0;
    }
  }
  return out;
}

[[noreturn]] void Fail(const char* what) {
  std::fprintf(stderr, "EncodeDeviceLayout: %s\n", what);
  std::abort();
}

}  // namespace

EncodedDeviceTensor EncodeDeviceLayout(int32_t format, const Dims& shape,
                                       size_t element_size,
                                       std::string_view logical, int64_t c0,
                                       int64_t groups) {
  switch (format) {
    case 3:     // NC1HWC0
    case 12: {  // NC1HWC0_C04
      const int64_t n = shape[0], c = shape[1], h = shape[2], w = shape[3];
      return Fill({n, Up(c, c0), h, w, c0}, element_size, logical,
                  [&](const Dims& i) -> std::optional<int64_t> {
                    const int64_t channel = i[1] * c0 + i[4];
                    if (channel >= c) return std::nullopt;
                    return Flat({i[0], channel, i[2], i[3]}, shape);
                  });
    }
    case 32: {  // NDC1HWC0 from NCDHW
      const int64_t n = shape[0], c = shape[1], d = shape[2], h = shape[3],
                    w = shape[4];
      return Fill({n, d, Up(c, c0), h, w, c0}, element_size, logical,
                  [&](const Dims& i) -> std::optional<int64_t> {
                    const int64_t channel = i[2] * c0 + i[5];
                    if (channel >= c) return std::nullopt;
                    return Flat({i[0], channel, i[1], i[3], i[4]}, shape);
                  });
    }
    case 29: {  // FRACTAL_NZ from [..., H, W]
      const size_t rank = shape.size();
      const int64_t h = rank >= 2 ? shape[rank - 2] : 1, w = shape[rank - 1];
      Dims device(shape.begin(), shape.end() - (rank >= 2 ? 2 : 1));
      const size_t batch_rank = device.size();
      device.insert(device.end(), {Up(w, c0), Up(h, 16), 16, c0});
      return Fill(device, element_size, logical,
                  [&](const Dims& i) -> std::optional<int64_t> {
                    const int64_t row =
                        i[batch_rank + 1] * 16 + i[batch_rank + 2];
                    const int64_t col = i[batch_rank] * c0 + i[batch_rank + 3];
                    if (row >= h || col >= w) return std::nullopt;
                    int64_t batch = 0;
                    for (size_t k = 0; k < batch_rank; ++k) {
                      batch = batch * shape[k] + i[k];
                    }
                    return (batch * h + row) * w + col;
                  });
    }
    case 4:  // FRACTAL_Z from NCHW [Cout, Cin/groups, H, W], grouped
      if (groups > 1) {
        // e groups share one block on its diagonal; blocks padded to
        // cin_opt x cout_opt (C0 and 16 multiples).
        const int64_t n = shape[0], cin = shape[1], h = shape[2], w = shape[3];
        const int64_t cout = n / groups;
        const int64_t e = std::min(std::lcm(std::lcm(cin, c0) / cin,
                                            std::lcm(cout, int64_t{16}) / cout),
                                   groups);
        const int64_t cin_opt = Up(e * cin, c0) * c0;
        const int64_t cout_opt = Up(e * cout, 16) * 16;
        const int64_t c1 = cin_opt / c0, blocks = Up(groups, e);
        return Fill(
            {blocks * c1 * h * w, cout_opt / 16, 16, c0}, element_size, logical,
            [&](const Dims& i) -> std::optional<int64_t> {
              int64_t rest = i[0];
              const int64_t x = rest % w;
              rest /= w;
              const int64_t y = rest % h;
              rest /= h;
              const int64_t row_block = rest % c1, block = rest / c1;
              const int64_t ci = row_block * c0 + i[3];
              const int64_t co = i[1] * 16 + i[2];
              if (ci >= e * cin || co >= e * cout) return std::nullopt;
              if (ci / cin != co / cout) return std::nullopt;
              const int64_t group = block * e + ci / cin;
              if (group >= groups) return std::nullopt;
              return Flat({group * cout + co % cout, ci % cin, y, x}, shape);
            });
      }
      [[fallthrough]];
    case 33: {  // FRACTAL_Z_3D from NCDHW
      const bool three_d = format == 33;
      const int64_t n = shape[0], c = shape[1];
      const int64_t d = three_d ? shape[2] : 1;
      const int64_t h = shape[shape.size() - 2], w = shape.back();
      const int64_t c1 = Up(c, c0);
      return Fill({d * c1 * h * w, Up(n, 16), 16, c0}, element_size, logical,
                  [&](const Dims& i) -> std::optional<int64_t> {
                    // Row i[0] walks (d, c1, h, w), w fastest.
                    int64_t rest = i[0];
                    const int64_t x = rest % w;
                    rest /= w;
                    const int64_t y = rest % h;
                    rest /= h;
                    const int64_t block = rest % c1;
                    const int64_t depth = rest / c1;
                    const int64_t out = i[1] * 16 + i[2];
                    const int64_t in = block * c0 + i[3];
                    if (out >= n || in >= c) return std::nullopt;
                    return three_d ? Flat({out, in, depth, y, x}, shape)
                                   : Flat({out, in, y, x}, shape);
                  });
    }
    case 25: {  // C1HWNCoC0 from NCHW
      const int64_t n = shape[0], c = shape[1], h = shape[2], w = shape[3];
      return Fill({Up(c, c0), h, w, n, c0, c0}, element_size, logical,
                  [&](const Dims& i) -> std::optional<int64_t> {
                    const int64_t channel = i[0] * c0 + i[5];
                    if (i[4] != i[5] || channel >= c) return std::nullopt;
                    return Flat({i[3], channel, i[1], i[2]}, shape);
                  });
    }
    case 13: {  // FRACTAL_Z_C04 from NCHW, C <= 4
      const int64_t n = shape[0], c = shape[1], h = shape[2], w = shape[3];
      return Fill({Up(4 * h * w, c0), Up(n, 16), 16, c0}, element_size, logical,
                  [&](const Dims& i) -> std::optional<int64_t> {
                    const int64_t k = i[0] * c0 + i[3];  // over (h, w, c4)
                    const int64_t out = i[1] * 16 + i[2];
                    const int64_t channel = k % 4, pixel = k / 4;
                    if (out >= n || channel >= c || pixel >= h * w) {
                      return std::nullopt;
                    }
                    return Flat({out, channel, pixel / w, pixel % w}, shape);
                  });
    }
    case 38: {  // FRACTAL_ZN_LSTM from the [input + hidden, 4·hidden] weight
      const int64_t c = shape[0], n = shape[1], hidden = n / 4;
      const int64_t input = c - hidden;
      const int64_t c1a = Up(input, 16), no = Up(hidden, 16);
      return Fill({c1a + no, 4 * no, 16, 16}, element_size, logical,
                  [&](const Dims& i) -> std::optional<int64_t> {
                    const int64_t cd = i[0] * 16 + i[3];
                    const int64_t nd = i[1] * 16 + i[2];
                    int64_t channel;
                    if (cd < c1a * 16) {
                      if (cd >= input) return std::nullopt;
                      channel = cd;
                    } else {
                      if (cd - c1a * 16 >= hidden) return std::nullopt;
                      channel = input + (cd - c1a * 16);
                    }
                    const int64_t gate = nd / (no * 16), j = nd % (no * 16);
                    if (j >= hidden) return std::nullopt;
                    return Flat({channel, gate * hidden + j}, shape);
                  });
    }
    default:
      Fail("format not known to the test encoder");
  }
}

}  // namespace acldump::dump::testing
