// ConvInteger (8-bit inputs, int32 output) and QLinearConv (8-bit in and out,
// with scales): 1 to 3 spatial dimensions, pads, strides, dilations, groups,
// auto_pad; zero points per tensor (X) and per output channel (W). Each group
// is W less its zero point times an im2col of X less its zero point (padding
// is then exactly 0), summed exactly in int32; QLinearConv then adds its
// int32 bias and requantizes as ONNX Runtime does. The im2col is made a few
// panels of output positions at a time, straight into IntegerGemm's packed
// layout, by the thread that multiplies them: it stays in cache.
#include <algorithm>
#include <array>
#include <cstdlib>
#include <limits>
#include <memory>
#include <optional>
#include <type_traits>
#include <vector>

#include "kernels/conv_internal.h"
#include "kernels/integer_gemm.h"
#include "kernels/kernel_util.h"
#include "kernels/quantization.h"
#include "kernels/quantize_simd.h"
#include "kernels/threading.h"

namespace acldump {
namespace conv {
namespace {

struct IntegerConv {
  ConvGeometry g;
  DType x_type = DType::kUInt8, w_type = DType::kUInt8;
  // depth: one group's window (group_in x kernel); packed_depth: it rounded
  // up to even, the row stride of the weights and the depth of the panels.
  int64_t group_in = 0, group_out = 0, depth = 0, packed_depth = 0,
          positions = 0;
  // Spatial sizes padded to 3 dimensions with leading ones; `padded`: the
  // input with its pads, as far as the windows reach.
  std::array<int64_t, 3> in{1, 1, 1}, padded{1, 1, 1}, out{1, 1, 1},
      kernel{1, 1, 1}, stride{1, 1, 1}, dilation{1, 1, 1}, pad{0, 0, 0};
  bool has_pad = false;
  // Each window element's offset in the padded input from the window's first
  // one, in im2col row order (channel, then kernel position): depth of them.
  std::vector<int64_t> taps;
  // Consecutive positions read consecutive inputs (a 1x1 window, unit
  // strides, no pads): a panel is 16 contiguous values per window element.
  bool flat = false;
  // One input and one output channel per group: window sums straight from
  // the padded input, a row at a time, instead of an im2col.
  bool depthwise = false;
  // Panels per block (one im2col then product) and scratch slots for the
  // blocks being made at once, one per intra-op thread at load.
  int64_t block_panels = 1, slots = 1;
  // W less its zero point [out_channels, packed_depth], made once when both
  // are known at load and there are no byte weights; else each execution
  // that needs it makes it.
  std::shared_ptr<const std::vector<int16_t>> weights_prepared;
  // The same as int8 [out_channels, QuadDepth(depth)] for the byte product
  // (uint8 inputs), with each output channel's sum and the largest
  // magnitude of a pair of neighbours (ByteGemmFits); made at load when the
  // weights are constants and fit int8.
  struct ByteWeights {
    std::vector<int8_t> values;
    std::vector<int32_t> sums;
    int32_t pair_magnitude = 0;
  };
  std::shared_ptr<const ByteWeights> byte_weights;

  int64_t PaddedPlane() const { return padded[0] * padded[1] * padded[2]; }
  int64_t Panels() const {
    return (positions + kIntegerPanel - 1) / kIntegerPanel;
  }
  int64_t SlotElements() const {
    return block_panels * kIntegerPanel * packed_depth;
  }
  // The input copied with its pads (8-bit values), with slack on both
  // sides for whole-vector loads; flat windows read the input itself (their
  // partial last panel by single values).
  bool CopiesInput() const { return !flat || depthwise; }
  size_t PaddedBytes() const {
    return CopiesInput()
               ? static_cast<size_t>(g.batch * g.in_channels * PaddedPlane() +
                                     2 * kPackSlack)
               : 0;
  }
  // The padded input, the byte product's row offsets (int32), then the
  // weights and the slots as int16 (byte panels fit in them).
  size_t OffsetsBytes() const {
    return byte_weights == nullptr
               ? 0
               : (static_cast<size_t>(g.out_channels) * sizeof(int32_t) + 63) /
                     64 * 64;
  }
  size_t WorkspaceBytes() const {
    const size_t padded_bytes = (PaddedBytes() + 63) / 64 * 64;
    return padded_bytes + OffsetsBytes() +
           static_cast<size_t>(g.out_channels * packed_depth +
                               slots * SlotElements()) *
               sizeof(int16_t);
  }
};

// X at input 0 and W at input `w_slot`.
absl::StatusOr<IntegerConv> PlanIntegerConv(const OpContext& context,
                                            size_t w_slot) {
  const TensorInfo& x = context.inputs[0];
  const TensorInfo& w = context.inputs[w_slot];
  RETURN_IF_ERROR(RequireDType(x, kQuantizedTypes, "input x"));
  RETURN_IF_ERROR(RequireDType(w, kQuantizedTypes, "weights w"));
  if (x.shape.rank() < 3 || x.shape.rank() > 5 ||
      w.shape.rank() != x.shape.rank()) {
    return InvalidArgument(
        "x must be [N, C, spatial...] with 1 to 3 spatial dimensions and w "
        "of the same rank; got x ",
        x.shape.ToString(), ", w ", w.shape.ToString());
  }
  IntegerConv c;
  c.x_type = x.dtype;
  c.w_type = w.dtype;
  // InferConvChannels reads W from input 1: give it a context that has it
  // there.
  std::vector<TensorInfo> infos = {x, w};
  OpContext channels_context{context.op_type, context.attrs, infos, {}, 1};
  RETURN_IF_ERROR(InferConvChannels(channels_context, c.g));
  c.g.in_spatial.assign(x.shape.dims().begin() + 2, x.shape.dims().end());
  ASSIGN_OR_RETURN(ConvAttributes attrs, ReadConvAttributes(context, w));
  RETURN_IF_ERROR(InferConvSpatial(attrs, c.g));
  const size_t spatial = c.g.in_spatial.size();
  const size_t lead = 3 - spatial;
  for (size_t d = 0; d < spatial; ++d) {
    c.in[lead + d] = c.g.in_spatial[d];
    c.out[lead + d] = c.g.out_spatial[d];
    c.kernel[lead + d] = c.g.kernel[d];
    c.stride[lead + d] = c.g.strides[d];
    c.dilation[lead + d] = c.g.dilations[d];
    c.pad[lead + d] = c.g.pads_begin[d];
  }
  c.group_in = c.g.in_channels / c.g.group;
  c.group_out = c.g.out_channels / c.g.group;
  c.depth = c.group_in * c.g.KernelSize();
  c.packed_depth = PackedDepth(c.depth);
  c.positions = c.g.OutSpatialSize();
  for (size_t d = 0; d < 3; ++d) {
    c.padded[d] =
        std::max(c.in[d] + c.pad[d], (c.out[d] - 1) * c.stride[d] +
                                         (c.kernel[d] - 1) * c.dilation[d] + 1);
    if (c.pad[d] != 0 || c.padded[d] != c.in[d]) c.has_pad = true;
  }
  const int64_t plane = c.PaddedPlane();
  for (int64_t ch = 0; ch < c.group_in; ++ch)
    for (int64_t kd = 0; kd < c.kernel[0]; ++kd)
      for (int64_t kh = 0; kh < c.kernel[1]; ++kh)
        for (int64_t kw = 0; kw < c.kernel[2]; ++kw) {
          c.taps.push_back(
              ch * plane +
              (kd * c.dilation[0] * c.padded[1] + kh * c.dilation[1]) *
                  c.padded[2] +
              kw * c.dilation[2]);
        }
  c.flat = !c.has_pad && c.g.KernelSize() == 1 && c.stride[0] == 1 &&
           c.stride[1] == 1 && c.stride[2] == 1;
  c.depthwise = c.group_in == 1 && c.group_out == 1;
  // A block's panels stay in L2 between the im2col and the product; at
  // least two blocks per thread where the positions allow, so the threads
  // share the work.
  constexpr int64_t kBlockBytes = 128 * 1024;
  const int64_t panel_bytes =
      std::max<int64_t>(1, c.packed_depth * kIntegerPanel *
                               static_cast<int64_t>(sizeof(int16_t)));
  c.slots = std::max(1, CurrentIntraOpThreads());
  c.block_panels = std::clamp<int64_t>(
      std::min(kBlockBytes / panel_bytes,
               c.Panels() * c.g.batch * c.g.group / (2 * c.slots)),
      1, c.Panels());
  if (c.depthwise) {
    // A slot holds the window's weights and one output row at unit stride
    // (int32 each).
    const int64_t needed = 2 * (c.depth + c.padded[2]);
    c.block_panels =
        std::max<int64_t>(1, (needed + kIntegerPanel * c.packed_depth - 1) /
                                 (kIntegerPanel * c.packed_depth));
  }
  return c;
}

std::vector<int64_t> OutputDims(const IntegerConv& c) {
  std::vector<int64_t> dims = {c.g.batch, c.g.out_channels};
  dims.insert(dims.end(), c.g.out_spatial.begin(), c.g.out_spatial.end());
  return dims;
}

// out [out_channels, packed_depth] = w - its zero point per output channel
// (the pad column 0).
void WeightsLessZeroPoint(const IntegerConv& c, const TensorView& w,
                          const TensorView* w_zp, int16_t* out) {
  VisitQuantized(c.w_type, [&]<typename TW>() {
    const TW* ws = w.as<const TW>();
    for (int64_t o = 0; o < c.g.out_channels; ++o) {
      const int32_t z = ZeroPointAt(w_zp, o);
      int16_t* row = out + o * c.packed_depth;
      for (int64_t q = 0; q < c.depth; ++q)
        row[q] = static_cast<int16_t>(ws[o * c.depth + q] - z);
      if (c.packed_depth != c.depth) row[c.depth] = 0;
    }
  });
}

// Sets c.weights_prepared when W (input `w_slot`) and its zero point (input
// `zp_slot`, if present) are constants.
void PrepareConstantWeights(const OpContext& context, size_t w_slot,
                            size_t zp_slot, IntegerConv& c) {
  const TensorView* w = context.constant(w_slot);
  const bool has_zp = context.has_input(zp_slot);
  const TensorView* zp = has_zp ? context.constant(zp_slot) : nullptr;
  if (w == nullptr || (has_zp && zp == nullptr)) return;
  auto prepared = std::make_shared<std::vector<int16_t>>(
      static_cast<size_t>(c.g.out_channels * c.packed_depth));
  WeightsLessZeroPoint(c, *w, zp, prepared->data());
  c.weights_prepared = prepared;
  // The byte product multiplies uint8 inputs by int8 weights (a depthwise
  // convolution has its own rows).
  if (c.x_type != DType::kUInt8 || c.depthwise) return;
  const auto [low, high] =
      std::minmax_element(prepared->begin(), prepared->end());
  if (*low < -128 || *high > 127) return;
  auto bytes = std::make_shared<IntegerConv::ByteWeights>();
  const int64_t quad_depth = QuadDepth(c.depth);
  bytes->values.assign(static_cast<size_t>(c.g.out_channels * quad_depth), 0);
  bytes->sums.assign(static_cast<size_t>(c.g.out_channels), 0);
  for (int64_t o = 0; o < c.g.out_channels; ++o) {
    for (int64_t q = 0; q < c.depth; ++q) {
      const int16_t v = (*prepared)[o * c.packed_depth + q];
      bytes->values[o * quad_depth + q] = static_cast<int8_t>(v);
      bytes->sums[o] += v;
    }
  }
  bytes->pair_magnitude = LargestPairMagnitude(
      bytes->values.data(), c.g.out_channels, c.depth, quad_depth);
  c.byte_weights = std::move(bytes);
  // Runs whose inputs do not fit the byte product make the int16 weights in
  // their scratch: one copy of the weights is kept, as bytes.
  c.weights_prepared = nullptr;
}

// xp = X with its pads, each pad the zero point (so less it, exactly 0).
template <typename TX>
void PadInput(const IntegerConv& c, const TX* x, int32_t x_zero, TX* xp) {
  const int64_t planes = c.g.batch * c.g.in_channels;
  const int64_t in_plane = c.in[0] * c.in[1] * c.in[2];
  ParallelFor(static_cast<size_t>(planes), 4, [&](size_t begin, size_t end) {
    for (auto plane = static_cast<int64_t>(begin);
         plane < static_cast<int64_t>(end); ++plane) {
      TX* out = xp + plane * c.PaddedPlane();
      std::fill(out, out + c.PaddedPlane(), static_cast<TX>(x_zero));
      const TX* in = x + plane * in_plane;
      for (int64_t d = 0; d < c.in[0]; ++d)
        for (int64_t h = 0; h < c.in[1]; ++h) {
          std::copy(
              in + (d * c.in[1] + h) * c.in[2],
              in + (d * c.in[1] + h + 1) * c.in[2],
              out +
                  ((d + c.pad[0]) * c.padded[1] + h + c.pad[1]) * c.padded[2] +
                  c.pad[2]);
        }
    }
  });
}

// Where the window of output position `pos` starts in the padded input.
int64_t WindowOrigin(const IntegerConv& c, int64_t pos) {
  const int64_t ow = pos % c.out[2];
  const int64_t oh = pos / c.out[2] % c.out[1];
  const int64_t od = pos / (c.out[2] * c.out[1]);
  return (od * c.stride[0] * c.padded[1] + oh * c.stride[1]) * c.padded[2] +
         ow * c.stride[2];
}

// Panels [first, last) of one image and group's im2col, packed: xs is the
// group's first channel of the padded input. int16 panels hold X less its
// zero point; byte panels (uint8 X) hold X as it is.
template <typename TX, typename TPanel>
void PackWindows(const IntegerConv& c, const TX* xs, int32_t x_zero,
                 int64_t first, int64_t last, TPanel* out) {
  constexpr bool kBytes = std::is_same_v<TPanel, uint8_t>;
  const int64_t depth = kBytes ? QuadDepth(c.depth) : c.packed_depth;
  const int64_t panel_elements = depth * kIntegerPanel;
  for (int64_t panel = first; panel < last; ++panel) {
    TPanel* dst = out + (panel - first) * panel_elements;
    const int64_t p0 = panel * kIntegerPanel;
    const int64_t count = std::min(kIntegerPanel, c.positions - p0);
    const int64_t origin = WindowOrigin(c, p0);
    // 16 positions whose windows start at consecutive inputs: the whole
    // input run, or one output row at unit stride.
    if (count == kIntegerPanel &&
        (c.flat ||
         (c.stride[2] == 1 && p0 % c.out[2] + kIntegerPanel <= c.out[2]))) {
      if constexpr (kBytes) {
        PackBytePanelContiguous(xs + origin, c.taps.data(), c.depth, dst);
      } else {
        PackPanelContiguous(xs + origin, c.taps.data(), c.depth, x_zero, dst);
      }
      continue;
    }
    // Stride 1 or 2 along rows: the panel's runs of positions in one
    // output row, each a strided stretch of the copied input.
    // (Whole-vector loads past the panel's positions: only from the copy.)
    if (c.stride[2] <= 2 && c.CopiesInput()) {
      int64_t run_lanes[kIntegerPanel], run_origins[kIntegerPanel];
      int64_t runs = 0;
      for (int64_t j = 0; j < count; ++runs) {
        run_lanes[runs] = j;
        run_origins[runs] = WindowOrigin(c, p0 + j);
        j += std::min(count - j, c.out[2] - (p0 + j) % c.out[2]);
      }
      if constexpr (kBytes) {
        PackBytePanelRuns(xs, c.taps.data(), c.depth, run_lanes, run_origins,
                          runs, c.stride[2], count, dst);
      } else {
        PackPanelRuns(xs, c.taps.data(), c.depth, x_zero, run_lanes,
                      run_origins, runs, c.stride[2], count, dst);
      }
      continue;
    }
    int64_t origins[kIntegerPanel];
    for (int64_t j = 0; j < count; ++j) origins[j] = WindowOrigin(c, p0 + j);
    // Pad rows and columns past the last position: zero, so the product
    // reads no garbage.
    for (int64_t q = 0; q < depth; ++q) {
      const TX* x = q < c.depth ? xs + c.taps[q] : nullptr;
      for (int64_t j = 0; j < kIntegerPanel; ++j) {
        const int32_t value =
            x == nullptr || j >= count
                ? 0
                : int32_t{x[origins[j]]} - (kBytes ? 0 : x_zero);
        dst[kBytes ? PackedByteIndex(depth, q, j)
                   : PackedIntegerIndex(depth, q, j)] =
            static_cast<TPanel>(value);
      }
    }
  }
}

// Called on each finished block of sums: image n, output channels
// [o_begin, o_end), positions [p_begin, p_end).
using FinishBlock = absl::FunctionRef<void(
    int64_t n, int64_t o_begin, int64_t o_end, int64_t p_begin, int64_t p_end)>;

// A depthwise convolution's sums (one input channel per output channel),
// a channel of an image per work item, its output rows at unit stride (at
// a larger stride, the row at unit stride and every stride-th sum of it).
template <typename TX>
void RunDepthwise(const IntegerConv& c, const TX* xs, int32_t x_zero,
                  const int16_t* weights, int16_t* slots, int32_t* acc,
                  std::optional<FinishBlock> finish) {
  const int64_t units = c.g.batch * c.g.group;
  const int64_t chunks = std::min(c.slots, units);
  const int64_t plane = c.PaddedPlane();
  const int64_t wide = (c.out[2] - 1) * c.stride[2] + 1;
  ParallelFor(static_cast<size_t>(chunks), 1, [&](size_t begin, size_t end) {
    for (auto chunk = static_cast<int64_t>(begin);
         chunk < static_cast<int64_t>(end); ++chunk) {
      auto* window_weights =
          reinterpret_cast<int32_t*>(slots + chunk * c.SlotElements());
      int32_t* row_sums = window_weights + c.depth;
      for (int64_t u = chunk * units / chunks; u < (chunk + 1) * units / chunks;
           ++u) {
        const int64_t n = u / c.g.group, ch = u % c.g.group;
        for (int64_t t = 0; t < c.depth; ++t)
          window_weights[t] = weights[ch * c.packed_depth + t];
        const TX* x_plane = xs + (n * c.g.in_channels + ch) * plane;
        int32_t* y = acc + (n * c.g.out_channels + ch) * c.positions;
        for (int64_t od = 0; od < c.out[0]; ++od)
          for (int64_t oh = 0; oh < c.out[1]; ++oh) {
            const TX* row =
                x_plane + (od * c.stride[0] * c.padded[1] + oh * c.stride[1]) *
                              c.padded[2];
            int32_t* y_row = y + (od * c.out[1] + oh) * c.out[2];
            if (c.stride[2] == 1) {
              DepthwiseIntegerRow(row, c.taps.data(), window_weights, c.depth,
                                  x_zero, c.out[2], y_row);
              continue;
            }
            DepthwiseIntegerRow(row, c.taps.data(), window_weights, c.depth,
                                x_zero, wide, row_sums);
            for (int64_t ow = 0; ow < c.out[2]; ++ow)
              y_row[ow] = row_sums[ow * c.stride[2]];
          }
        if (finish.has_value()) (*finish)(n, ch, ch + 1, 0, c.positions);
      }
    }
  });
}

// acc [N, out_channels, positions] = conv(x - x_zp, w - w_zp); `finish`
// then runs on each block of acc (image n, output channels [o_begin,
// o_end), positions [p_begin, p_end)) while it is in cache, if given. Work
// items are blocks of panels of one image and group, split over c.slots
// chunks, each with its own scratch slot: any thread count gives the same
// sums.
void RunIntegerConv(const IntegerConv& c, const TensorView& x,
                    const TensorView* x_zp, const TensorView& w,
                    const TensorView* w_zp, int32_t* acc,
                    std::span<std::byte> workspace,
                    std::optional<FinishBlock> finish = std::nullopt) {
  std::byte* padded_input = workspace.data();
  auto* row_offsets = reinterpret_cast<int32_t*>(
      workspace.data() + (c.PaddedBytes() + 63) / 64 * 64);
  int16_t* scratch = reinterpret_cast<int16_t*>(
      workspace.data() + (c.PaddedBytes() + 63) / 64 * 64 + c.OffsetsBytes());
  const int16_t* weights = nullptr;
  auto int16_weights = [&] {
    if (c.weights_prepared != nullptr) return c.weights_prepared->data();
    WeightsLessZeroPoint(c, w, w_zp, scratch);
    return static_cast<const int16_t*>(scratch);
  };
  int16_t* slots = scratch + c.g.out_channels * c.packed_depth;
  const int32_t x_zero = ZeroPointAt(x_zp, 0);
  const int64_t panels = c.Panels();
  const int64_t blocks = (panels + c.block_panels - 1) / c.block_panels;
  const int64_t units = c.g.batch * c.g.group * blocks;
  const int64_t chunks = std::min(c.slots, units);
  VisitQuantized(c.x_type, [&]<typename TX>() {
    const TX* xs = x.as<const TX>();
    if (c.CopiesInput()) {
      TX* xp = reinterpret_cast<TX*>(padded_input) + kPackSlack;
      // The slack is only read into lanes that are dropped; defined anyway.
      std::fill(xp - kPackSlack, xp, TX{0});
      const int64_t size = c.g.batch * c.g.in_channels * c.PaddedPlane();
      std::fill(xp + size, xp + size + kPackSlack, TX{0});
      PadInput(c, xs, x_zero, xp);
      xs = xp;
    }
    if (c.depthwise) {
      RunDepthwise(c, xs, x_zero, int16_weights(), slots, acc, finish);
      return;
    }
    // The byte product when its pairs of products cannot saturate: for
    // inputs (pads included) at most 127, as PyTorch's x86 models mostly
    // keep them, any int8 weights; for larger inputs, weights whose
    // neighbours are small enough.
    const IntegerConv::ByteWeights* bytes = nullptr;
    if constexpr (std::is_same_v<TX, uint8_t>) {
      const auto* bw = c.byte_weights.get();
      if (bw != nullptr &&
          ByteGemmFits(bw->pair_magnitude,
                       std::max<int32_t>(x_zero, MaxByte(x.as<const uint8_t>(),
                                                         x.NumElements())))) {
        bytes = bw;
        for (int64_t o = 0; o < c.g.out_channels; ++o)
          row_offsets[o] = x_zero * bw->sums[o];
      }
    }
    if (bytes == nullptr) weights = int16_weights();
    const int64_t quad_depth = QuadDepth(c.depth);
    const int64_t plane = c.PaddedPlane();
    ParallelFor(static_cast<size_t>(chunks), 1, [&](size_t begin, size_t end) {
      for (auto chunk = static_cast<int64_t>(begin);
           chunk < static_cast<int64_t>(end); ++chunk) {
        int16_t* slot = slots + chunk * c.SlotElements();
        for (int64_t u = chunk * units / chunks;
             u < (chunk + 1) * units / chunks; ++u) {
          const int64_t n = u / (c.g.group * blocks);
          const int64_t gi = u / blocks % c.g.group;
          const int64_t first = u % blocks * c.block_panels;
          const int64_t last = std::min(panels, first + c.block_panels);
          const TX* x_group =
              xs + (n * c.g.in_channels + gi * c.group_in) * plane;
          int32_t* c_group =
              acc + (n * c.g.out_channels + gi * c.group_out) * c.positions;
          if constexpr (std::is_same_v<TX, uint8_t>) {
            if (bytes != nullptr) {
              auto* byte_slot = reinterpret_cast<uint8_t*>(slot);
              PackWindows(c, x_group, x_zero, first, last, byte_slot);
              ByteGemmPanels(
                  c.group_out, c.positions, c.depth,
                  bytes->values.data() + gi * c.group_out * quad_depth,
                  quad_depth, row_offsets + gi * c.group_out, byte_slot,
                  c_group, c.positions, first, last);
            }
          }
          if (bytes == nullptr) {
            PackWindows(c, x_group, x_zero, first, last, slot);
            IntegerGemmPanels(c.group_out, c.positions, c.depth,
                              weights + gi * c.group_out * c.packed_depth,
                              c.packed_depth, slot, c_group, c.positions, first,
                              last);
          }
          if (finish.has_value()) {
            (*finish)(n, gi * c.group_out, (gi + 1) * c.group_out,
                      first * kIntegerPanel,
                      std::min(c.positions, last * kIntegerPanel));
          }
        }
      }
    });
  });
}

absl::StatusOr<PreparedKernel> PrepareConvInteger(const OpContext& context) {
  ASSIGN_OR_RETURN(IntegerConv c, PlanIntegerConv(context, 1));
  RETURN_IF_ERROR(CheckZeroPoint(context, 2, c.x_type, "x_zero_point", 0));
  RETURN_IF_ERROR(
      CheckZeroPoint(context, 3, c.w_type, "w_zero_point", c.g.out_channels));
  PrepareConstantWeights(context, 1, 3, c);
  const bool has_x_zp = context.has_input(2), has_w_zp = context.has_input(3);
  const std::vector<int64_t> out_dims = OutputDims(c);
  const size_t workspace = c.WorkspaceBytes();
  auto run = [c = std::move(c), has_x_zp, has_w_zp](
                 std::span<const TensorView> in,
                 std::span<const TensorView> out,
                 std::span<std::byte> ws) -> absl::Status {
    RunIntegerConv(c, in[0], has_x_zp ? &in[2] : nullptr, in[1],
                   has_w_zp ? &in[3] : nullptr, out[0].as<int32_t>(), ws);
    return absl::OkStatus();
  };
  return Prepared({TensorInfo{DType::kInt32, Shape(out_dims)}},
                  MakeKernel(std::move(run), workspace));
}

// x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale, y_zero_point,
// B (int32, optional).
absl::StatusOr<PreparedKernel> PrepareQLinearConv(const OpContext& context) {
  ASSIGN_OR_RETURN(IntegerConv c, PlanIntegerConv(context, 3));
  const DType kFloat32Only[] = {DType::kFloat32};
  for (auto [slot, name] : {std::pair<size_t, const char*>{1, "x_scale"},
                            {4, "w_scale"},
                            {6, "y_scale"}}) {
    RETURN_IF_ERROR(RequireDType(context.inputs[slot], kFloat32Only, name));
  }
  RETURN_IF_ERROR(CheckQuantParam(context.inputs[1], "x_scale", 0));
  RETURN_IF_ERROR(
      CheckQuantParam(context.inputs[4], "w_scale", c.g.out_channels));
  RETURN_IF_ERROR(CheckQuantParam(context.inputs[6], "y_scale", 0));
  RETURN_IF_ERROR(CheckZeroPoint(context, 2, c.x_type, "x_zero_point", 0));
  RETURN_IF_ERROR(
      CheckZeroPoint(context, 5, c.w_type, "w_zero_point", c.g.out_channels));
  PrepareConstantWeights(context, 3, 5, c);
  const TensorInfo& y_zp = context.inputs[7];
  RETURN_IF_ERROR(RequireDType(y_zp, kQuantizedTypes, "y_zero_point"));
  RETURN_IF_ERROR(CheckQuantParam(y_zp, "y_zero_point", 0));
  const bool has_bias = context.has_input(8);
  if (has_bias) {
    const DType kInt32Only[] = {DType::kInt32};
    RETURN_IF_ERROR(RequireDType(context.inputs[8], kInt32Only, "bias B"));
    if (context.inputs[8].shape != Shape({c.g.out_channels})) {
      return InvalidArgument("bias B has shape ",
                             context.inputs[8].shape.ToString(), "; expected [",
                             c.g.out_channels, "]");
    }
  }
  const DType out_type = y_zp.dtype;
  const std::vector<int64_t> out_dims = OutputDims(c);
  const size_t acc_bytes =
      static_cast<size_t>(c.g.batch * c.g.out_channels * c.positions) *
      sizeof(int32_t);
  const size_t multipliers_bytes =
      (static_cast<size_t>(c.g.out_channels) * sizeof(float) + 63) / 64 * 64;
  const size_t workspace = acc_bytes + multipliers_bytes + c.WorkspaceBytes();
  auto run = [c = std::move(c), has_bias, out_type, acc_bytes,
              multipliers_bytes](std::span<const TensorView> in,
                                 std::span<const TensorView> out,
                                 std::span<std::byte> ws) -> absl::Status {
    int32_t* acc = reinterpret_cast<int32_t*>(ws.data());
    float* multipliers = reinterpret_cast<float*>(ws.data() + acc_bytes);
    const float x_scale = ParamAsFloat(in[1], 0);
    const float y_scale = ParamAsFloat(in[6], 0);
    for (int64_t o = 0; o < c.g.out_channels; ++o)
      multipliers[o] = x_scale * ParamAsFloat(in[4], o) / y_scale;
    const int32_t y_zero = ParamAsInt(in[7], 0);
    const int32_t* bias = has_bias ? in[8].as<const int32_t>() : nullptr;
    // Sums are at most 255 * 255 * depth in magnitude: with the bias, in
    // int32 unless both are extreme, when the sum is taken in int64.
    const int64_t sum_bound = int64_t{255} * 255 * c.depth;
    VisitQuantized(out_type, [&]<typename Q>() {
      Q* ys = out[0].as<Q>();
      auto requantize = [&](int64_t n, int64_t o_begin, int64_t o_end,
                            int64_t p_begin, int64_t p_end) {
        for (int64_t o = o_begin; o < o_end; ++o) {
          const int32_t b = bias == nullptr ? 0 : bias[o];
          const int64_t row = (n * c.g.out_channels + o) * c.positions;
          if (sum_bound + std::abs(int64_t{b}) <=
              std::numeric_limits<int32_t>::max()) {
            RequantizeInt32(acc + row + p_begin, p_end - p_begin, b,
                            multipliers[o], y_zero, ys + row + p_begin);
            continue;
          }
          for (int64_t p = row + p_begin; p < row + p_end; ++p) {
            ys[p] = QuantizeValue<Q>(
                static_cast<float>(int64_t{acc[p]} + b) * multipliers[o],
                y_zero);
          }
        }
      };
      RunIntegerConv(c, in[0], &in[2], in[3], &in[5], acc,
                     ws.subspan(acc_bytes + multipliers_bytes),
                     FinishBlock(requantize));
    });
    return absl::OkStatus();
  };
  return Prepared({TensorInfo{out_type, Shape(out_dims)}},
                  MakeKernel(std::move(run), workspace));
}

}  // namespace

absl::Status RegisterConvIntegerOps(OpRegistry& registry) {
  return registry.RegisterAll({
      {"ConvInteger", 2, 4, 1, 1, PrepareConvInteger},
      {"QLinearConv", 8, 9, 1, 1, PrepareQLinearConv},
  });
}

}  // namespace conv
}  // namespace acldump
