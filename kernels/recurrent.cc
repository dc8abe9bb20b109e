// LSTM, GRU and RNN (ONNX opsets 7-22): forward, reverse and bidirectional,
// the activation lists with their alpha/beta, clip, sequence_lens, initial
// states, LSTM peepholes and input_forget, GRU linear_before_reset, and both
// layouts (0: [seq, batch, ...], 1: [batch, seq, ...]).
//
// The input projection X * W^T of every time step is one GEMM per direction;
// each step adds H_{t-1} * R^T (a GEMM over the batch) and runs the gate
// arithmetic row by row. Weights known at load are packed once. Float32; the
// GEMM sums in a fixed order, so results do not depend on the thread count.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "kernels/gemm.h"
#include "kernels/kernel_util.h"
#include "kernels/op_families.h"
#include "kernels/vector_math.h"

namespace acldump {
namespace {

enum class CellKind { kRnn, kGru, kLstm };

// Gates per cell, in the ONNX weight order: RNN i; GRU z r h; LSTM i o f c.
int64_t GateCount(CellKind kind) {
  switch (kind) {
    case CellKind::kRnn:
      return 1;
    case CellKind::kGru:
      return 3;
    case CellKind::kLstm:
      return 4;
  }
  return 1;
}

// Activations per direction: RNN f; GRU f g; LSTM f g h.
int64_t ActivationCount(CellKind kind) {
  switch (kind) {
    case CellKind::kRnn:
      return 1;
    case CellKind::kGru:
      return 2;
    case CellKind::kLstm:
      return 3;
  }
  return 1;
}

struct Activation {
  enum class Kind {
    kRelu,
    kTanh,
    kSigmoid,
    kAffine,
    kLeakyRelu,
    kThresholdedRelu,
    kScaledTanh,
    kHardSigmoid,
    kElu,
    kSoftsign,
    kSoftplus,
  };
  Kind kind = Kind::kTanh;
  float alpha = 0;
  float beta = 0;
};

struct ActivationName {
  const char* name;
  Activation::Kind kind;
  // Defaults of the ONNX operator of that name; NaN = takes no such value.
  float alpha;
  float beta;
};

constexpr float kNone = std::numeric_limits<float>::quiet_NaN();

constexpr ActivationName kActivationNames[] = {
    {"relu", Activation::Kind::kRelu, kNone, kNone},
    {"tanh", Activation::Kind::kTanh, kNone, kNone},
    {"sigmoid", Activation::Kind::kSigmoid, kNone, kNone},
    {"affine", Activation::Kind::kAffine, 1.0f, 0.0f},
    {"leakyrelu", Activation::Kind::kLeakyRelu, 0.01f, kNone},
    {"thresholdedrelu", Activation::Kind::kThresholdedRelu, 1.0f, kNone},
    {"scaledtanh", Activation::Kind::kScaledTanh, 1.0f, 1.0f},
    {"hardsigmoid", Activation::Kind::kHardSigmoid, 0.2f, 0.5f},
    {"elu", Activation::Kind::kElu, 1.0f, kNone},
    {"softsign", Activation::Kind::kSoftsign, kNone, kNone},
    {"softplus", Activation::Kind::kSoftplus, kNone, kNone},
};

// The activations of every direction, `per_direction` each. alpha/beta values
// are consumed in list order by the activations that take them; missing ones
// take the ONNX operator's default.
absl::StatusOr<std::vector<Activation>> ParseActivations(
    const Attributes& attrs, CellKind kind, int64_t directions) {
  const int64_t per_direction = ActivationCount(kind);
  static const std::vector<std::string> kDefaults[] = {
      {"Tanh"}, {"Sigmoid", "Tanh"}, {"Sigmoid", "Tanh", "Tanh"}};
  ASSIGN_OR_RETURN(std::vector<std::string> names,
                   attrs.GetStrings("activations", {}));
  if (names.empty()) {
    names = kDefaults[per_direction - 1];
  }
  if (static_cast<int64_t>(names.size()) == per_direction && directions == 2) {
    const std::vector<std::string> forward = names;
    names.insert(names.end(), forward.begin(), forward.end());
  }
  if (static_cast<int64_t>(names.size()) != per_direction * directions) {
    return InvalidArgument("attribute 'activations' has ", names.size(),
                           " names; expected ", per_direction * directions,
                           " (", per_direction, " per direction)");
  }
  ASSIGN_OR_RETURN(std::vector<float> alphas,
                   attrs.GetFloats("activation_alpha", {}));
  ASSIGN_OR_RETURN(std::vector<float> betas,
                   attrs.GetFloats("activation_beta", {}));
  size_t next_alpha = 0, next_beta = 0;
  std::vector<Activation> activations;
  for (const std::string& name : names) {
    std::string lower = name;
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    const ActivationName* found = nullptr;
    for (const ActivationName& entry : kActivationNames) {
      if (lower == entry.name) found = &entry;
    }
    if (found == nullptr) {
      return Unimplemented(
          "activation '", name,
          "' is not supported (supported: Relu, Tanh, Sigmoid, Affine, "
          "LeakyRelu, ThresholdedRelu, ScaledTanh, HardSigmoid, Elu, "
          "Softsign, Softplus)");
    }
    Activation activation;
    activation.kind = found->kind;
    if (!std::isnan(found->alpha)) {
      activation.alpha =
          next_alpha < alphas.size() ? alphas[next_alpha++] : found->alpha;
    }
    if (!std::isnan(found->beta)) {
      activation.beta =
          next_beta < betas.size() ? betas[next_beta++] : found->beta;
    }
    activations.push_back(activation);
  }
  return activations;
}

// x[0..n) = f(x) in place.
void Activate(const Activation& f, float* x, size_t n) {
  const float a = f.alpha, b = f.beta;
  switch (f.kind) {
    case Activation::Kind::kSigmoid:
      SigmoidFloat32(x, x, n);
      return;
    case Activation::Kind::kTanh:
      TanhFloat32(x, x, n);
      return;
    case Activation::Kind::kRelu:
      for (size_t i = 0; i < n; ++i) x[i] = x[i] < 0 ? 0.0f : x[i];
      return;
    case Activation::Kind::kAffine:
      for (size_t i = 0; i < n; ++i) x[i] = a * x[i] + b;
      return;
    case Activation::Kind::kLeakyRelu:
      for (size_t i = 0; i < n; ++i) x[i] = x[i] < 0 ? a * x[i] : x[i];
      return;
    case Activation::Kind::kThresholdedRelu:
      for (size_t i = 0; i < n; ++i) x[i] = x[i] > a ? x[i] : 0.0f;
      return;
    case Activation::Kind::kScaledTanh:
      for (size_t i = 0; i < n; ++i) x[i] = a * std::tanh(b * x[i]);
      return;
    case Activation::Kind::kHardSigmoid:
      for (size_t i = 0; i < n; ++i) {
        const float v = a * x[i] + b;
        x[i] = v != v ? v : std::min(1.0f, std::max(0.0f, v));
      }
      return;
    case Activation::Kind::kElu:
      for (size_t i = 0; i < n; ++i) {
        x[i] = x[i] < 0 ? a * (std::exp(x[i]) - 1.0f) : x[i];
      }
      return;
    case Activation::Kind::kSoftsign:
      for (size_t i = 0; i < n; ++i) x[i] = x[i] / (1.0f + std::fabs(x[i]));
      return;
    case Activation::Kind::kSoftplus:
      for (size_t i = 0; i < n; ++i) {
        // log(1 + e^x) without overflow for large x.
        x[i] = x[i] > 0 ? x[i] + std::log1p(std::exp(-x[i]))
                        : std::log1p(std::exp(x[i]));
      }
      return;
  }
}

// x[i] += bias[i] (when not null), then clipped to [-clip, clip] (when
// clip > 0): a gate's input to its activation.
void AddBiasAndClip(float* x, const float* bias, size_t n, float clip) {
  if (bias != nullptr) {
    for (size_t i = 0; i < n; ++i) x[i] += bias[i];
  }
  if (clip > 0) {
    for (size_t i = 0; i < n; ++i) x[i] = std::min(clip, std::max(-clip, x[i]));
  }
}

struct RecurrentShape {
  CellKind kind = CellKind::kLstm;
  int64_t seq = 0, batch = 0, input = 0, hidden = 0, directions = 1;
  bool batch_first = false;  // layout 1
  bool reverse = false;      // direction "reverse" (one direction)
  float clip = 0;            // 0: no clipping
  bool input_forget = false;
  bool linear_before_reset = false;
  std::vector<Activation> activations;  // ActivationCount per direction

  int64_t gates() const { return GateCount(kind); }
  int64_t gate_width() const { return gates() * hidden; }
  // Row of X (and of the projection) holding time step t of batch b.
  int64_t Row(int64_t t, int64_t b) const {
    return batch_first ? b * seq + t : t * batch + b;
  }
  // Offset of [t, d, b, :] in Y.
  int64_t YOffset(int64_t t, int64_t d, int64_t b) const {
    return (batch_first ? (b * seq + t) * directions + d
                        : (t * directions + d) * batch + b) *
           hidden;
  }
  // Offset of [d, b, :] in Y_h, Y_c, initial_h and initial_c.
  int64_t StateOffset(int64_t d, int64_t b) const {
    return (batch_first ? b * directions + d : d * batch + b) * hidden;
  }
};

// Input slots, the same in all three ops up to initial_h.
constexpr size_t kX = 0, kW = 1, kR = 2, kB = 3, kSequenceLens = 4,
                 kInitialH = 5, kInitialC = 6, kPeephole = 7;

// The per-direction weights, packed: W^T [input, gates*hidden], and R^T split
// where the cell needs part of it apart (GRU's h gate, applied to r * H).
struct PackedDirection {
  PackedMatrixB w;
  PackedMatrixB r_main;  // all gates; GRU: z and r
  PackedMatrixB r_h;     // GRU only: the h gate
};

PackedDirection PackDirection(const RecurrentShape& shape, const float* w,
                              const float* r) {
  PackedDirection packed;
  const int64_t h = shape.hidden;
  packed.w = PackedMatrixB::Pack(w, shape.input, shape.gate_width(),
                                 shape.input, /*transposed=*/true);
  if (shape.kind == CellKind::kGru) {
    packed.r_main = PackedMatrixB::Pack(r, h, 2 * h, h, /*transposed=*/true);
    packed.r_h =
        PackedMatrixB::Pack(r + 2 * h * h, h, h, h, /*transposed=*/true);
  } else {
    packed.r_main =
        PackedMatrixB::Pack(r, h, shape.gate_width(), h, /*transposed=*/true);
  }
  return packed;
}

// Scratch of one execution, carved from the workspace (floats).
struct Scratch {
  float* projection;  // [seq * batch, gates * hidden]
  float* step;        // [batch, gates * hidden]
  float* hidden;      // [batch, hidden]
  float* cell;        // [batch, hidden]
  float* gru_reset;   // [batch, hidden]: r * H_{t-1}, then its product
  float* bias;        // [gates * hidden] W and R biases summed
  float* gru_rbh;     // [hidden]: GRU's R bias of the h gate alone

  static size_t Floats(const RecurrentShape& s) {
    const int64_t g = s.gate_width();
    return static_cast<size_t>(s.seq * s.batch * g + s.batch * g +
                               3 * s.batch * s.hidden + g + s.hidden);
  }
  static Scratch Carve(const RecurrentShape& s, float* base) {
    Scratch scratch;
    const int64_t g = s.gate_width();
    scratch.projection = base;
    scratch.step = scratch.projection + s.seq * s.batch * g;
    scratch.hidden = scratch.step + s.batch * g;
    scratch.cell = scratch.hidden + s.batch * s.hidden;
    scratch.gru_reset = scratch.cell + s.batch * s.hidden;
    scratch.bias = scratch.gru_reset + s.batch * s.hidden;
    scratch.gru_rbh = scratch.bias + g;
    return scratch;
  }
};

struct RunInputs {
  const float* x;
  const float* w;
  const float* r;
  const float* b;                // may be null
  const float* initial_h;        // may be null
  const float* initial_c;        // may be null
  const float* peephole;         // may be null
  std::vector<int64_t> lengths;  // per batch entry
};

// One cell step for batch row `b`: `gates` holds X*W^T + H*R^T (GRU: the h
// gate's X*W^T only); updates hidden (and cell) in place.
void LstmRow(const RecurrentShape& s, const Activation* act, float* gates,
             const float* bias, const float* peephole, float* h, float* c) {
  const int64_t n = s.hidden;
  float* gi = gates;
  float* go = gates + n;
  float* gf = gates + 2 * n;
  float* gc = gates + 3 * n;
  if (peephole != nullptr) {
    for (int64_t k = 0; k < n; ++k) gi[k] += peephole[k] * c[k];
  }
  AddBiasAndClip(gi, bias, n, s.clip);
  Activate(act[0], gi, n);
  if (s.input_forget) {
    for (int64_t k = 0; k < n; ++k) gf[k] = 1.0f - gi[k];
  } else {
    if (peephole != nullptr) {
      for (int64_t k = 0; k < n; ++k) gf[k] += peephole[2 * n + k] * c[k];
    }
    AddBiasAndClip(gf, bias == nullptr ? nullptr : bias + 2 * n, n, s.clip);
    Activate(act[0], gf, n);
  }
  AddBiasAndClip(gc, bias == nullptr ? nullptr : bias + 3 * n, n, s.clip);
  Activate(act[1], gc, n);
  for (int64_t k = 0; k < n; ++k) c[k] = gf[k] * c[k] + gi[k] * gc[k];
  if (peephole != nullptr) {
    for (int64_t k = 0; k < n; ++k) go[k] += peephole[n + k] * c[k];
  }
  AddBiasAndClip(go, bias == nullptr ? nullptr : bias + n, n, s.clip);
  Activate(act[0], go, n);
  // The block gate is spent: it holds h(C).
  std::memcpy(gc, c, n * sizeof(float));
  Activate(act[2], gc, n);
  for (int64_t k = 0; k < n; ++k) h[k] = go[k] * gc[k];
}

// Runs one direction over every sequence; writes Y, Y_h, Y_c parts.
void RunDirection(const RecurrentShape& s, int64_t d,
                  const PackedDirection& packed, const RunInputs& in,
                  const Scratch& scratch, float* y, float* y_h, float* y_c) {
  const int64_t n = s.hidden;
  const int64_t g = s.gate_width();
  const int64_t batch = s.batch;
  const bool reverse = s.reverse || d == 1;
  const Activation* act = &s.activations[d * ActivationCount(s.kind)];
  // Biases: W's and R's summed (GRU keeps R's h-gate bias apart).
  const float* bias = nullptr;
  if (in.b != nullptr) {
    const float* wb = in.b + d * 2 * g;
    const float* rb = wb + g;
    for (int64_t k = 0; k < g; ++k) scratch.bias[k] = wb[k] + rb[k];
    if (s.kind == CellKind::kGru) {
      for (int64_t k = 0; k < n; ++k) {
        scratch.bias[2 * n + k] = wb[2 * n + k];
        scratch.gru_rbh[k] = rb[2 * n + k];
      }
    }
    bias = scratch.bias;
  }
  const float* peephole =
      in.peephole == nullptr ? nullptr : in.peephole + d * 3 * n;
  // Initial states.
  for (int64_t b = 0; b < batch; ++b) {
    float* h = scratch.hidden + b * n;
    float* c = scratch.cell + b * n;
    if (in.initial_h != nullptr) {
      std::memcpy(h, in.initial_h + s.StateOffset(d, b), n * sizeof(float));
    } else {
      std::fill(h, h + n, 0.0f);
    }
    if (in.initial_c != nullptr) {
      std::memcpy(c, in.initial_c + s.StateOffset(d, b), n * sizeof(float));
    } else {
      std::fill(c, c + n, 0.0f);
    }
  }
  GemmPackedB(s.seq * batch, in.x, s.input, packed.w, scratch.projection, g,
              1.0f, 0.0f);
  const int64_t steps = *std::max_element(in.lengths.begin(), in.lengths.end());
  const int64_t main_width = s.kind == CellKind::kGru ? 2 * n : g;
  for (int64_t step = 0; step < steps; ++step) {
    GemmPackedB(batch, scratch.hidden, n, packed.r_main, scratch.step, g, 1.0f,
                0.0f);
    if (s.kind == CellKind::kGru && s.linear_before_reset) {
      GemmPackedB(batch, scratch.hidden, n, packed.r_h, scratch.gru_reset, n,
                  1.0f, 0.0f);
    }
    for (int64_t b = 0; b < batch; ++b) {
      if (step >= in.lengths[b]) continue;
      const int64_t t = reverse ? in.lengths[b] - 1 - step : step;
      float* gates = scratch.step + b * g;
      const float* projected = scratch.projection + s.Row(t, b) * g;
      for (int64_t k = 0; k < main_width; ++k) gates[k] += projected[k];
      float* h = scratch.hidden + b * n;
      if (s.kind == CellKind::kLstm) {
        LstmRow(s, act, gates, bias, peephole, h, scratch.cell + b * n);
      } else if (s.kind == CellKind::kRnn) {
        AddBiasAndClip(gates, bias, n, s.clip);
        Activate(act[0], gates, n);
        std::memcpy(h, gates, n * sizeof(float));
      } else {
        float* z = gates;
        float* r = gates + n;
        AddBiasAndClip(z, bias, 2 * n, s.clip);
        Activate(act[0], z, 2 * n);
        float* h_gate = gates + 2 * n;
        std::memcpy(h_gate, projected + 2 * n, n * sizeof(float));
        if (s.linear_before_reset) {
          const float* hr = scratch.gru_reset + b * n;
          for (int64_t k = 0; k < n; ++k) {
            const float rbh = bias == nullptr ? 0.0f : scratch.gru_rbh[k];
            h_gate[k] += r[k] * (hr[k] + rbh);
          }
        } else {
          // (r * H) R_h^T needs every row's r first: done below.
          float* rh = scratch.gru_reset + b * n;
          for (int64_t k = 0; k < n; ++k) rh[k] = r[k] * h[k];
        }
      }
    }
    if (s.kind == CellKind::kGru) {
      if (!s.linear_before_reset) {
        // Every row's r is known now: add (r * H) R_h^T to the h gates.
        GemmPackedB(batch, scratch.gru_reset, n, packed.r_h,
                    scratch.step + 2 * n, g, 1.0f, 1.0f);
      }
      for (int64_t b = 0; b < batch; ++b) {
        if (step >= in.lengths[b]) continue;
        float* gates = scratch.step + b * g;
        float* z = gates;
        float* h_gate = gates + 2 * n;
        if (!s.linear_before_reset && bias != nullptr) {
          for (int64_t k = 0; k < n; ++k) h_gate[k] += scratch.gru_rbh[k];
        }
        AddBiasAndClip(h_gate, bias == nullptr ? nullptr : bias + 2 * n, n,
                       s.clip);
        Activate(act[1], h_gate, n);
        float* h = scratch.hidden + b * n;
        for (int64_t k = 0; k < n; ++k)
          h[k] = (1.0f - z[k]) * h_gate[k] + z[k] * h[k];
      }
    }
    if (y != nullptr) {
      for (int64_t b = 0; b < batch; ++b) {
        if (step >= in.lengths[b]) continue;
        const int64_t t = reverse ? in.lengths[b] - 1 - step : step;
        std::memcpy(y + s.YOffset(t, d, b), scratch.hidden + b * n,
                    n * sizeof(float));
      }
    }
  }
  for (int64_t b = 0; b < batch; ++b) {
    if (y_h != nullptr) {
      std::memcpy(y_h + s.StateOffset(d, b), scratch.hidden + b * n,
                  n * sizeof(float));
    }
    if (y_c != nullptr) {
      std::memcpy(y_c + s.StateOffset(d, b), scratch.cell + b * n,
                  n * sizeof(float));
    }
  }
}

absl::Status RequireShape(const TensorInfo& info, std::string_view what,
                          std::vector<int64_t> expected,
                          std::string_view meaning) {
  if (info.shape.dims() == expected) return absl::OkStatus();
  return InvalidArgument("input '", what, "' has shape ", info.shape.ToString(),
                         "; expected ", Shape(std::move(expected)).ToString(),
                         " ", meaning);
}

absl::StatusOr<RecurrentShape> ReadShape(const OpContext& context,
                                         CellKind kind) {
  RecurrentShape s;
  s.kind = kind;
  const Attributes& attrs = context.attrs;
  for (size_t i : {kX, kW, kR, kB, kInitialH, kInitialC, kPeephole}) {
    if (!context.has_input(i)) continue;
    static constexpr const char* kNames[] = {
        "X", "W", "R", "B", "sequence_lens", "initial_h", "initial_c", "P"};
    if (context.inputs[i].dtype != DType::kFloat32) {
      return Unimplemented(
          "input '", kNames[i], "' is ", DTypeName(context.inputs[i].dtype),
          "; ", context.op_type, " runs on float32 (insert a Cast to float32)");
    }
  }
  ASSIGN_OR_RETURN(int64_t layout, attrs.GetInt("layout", 0));
  if (layout != 0 && layout != 1) {
    return InvalidArgument("attribute 'layout' is ", layout,
                           "; expected 0 or 1");
  }
  s.batch_first = layout == 1;
  ASSIGN_OR_RETURN(std::string direction,
                   attrs.GetString("direction", "forward"));
  if (direction == "bidirectional") {
    s.directions = 2;
  } else if (direction == "reverse") {
    s.reverse = true;
  } else if (direction != "forward") {
    return InvalidArgument("attribute 'direction' is '", direction,
                           "'; expected forward, reverse or bidirectional");
  }
  const TensorInfo& x = context.inputs[kX];
  if (x.shape.rank() != 3) {
    return InvalidArgument("input 'X' has shape ", x.shape.ToString(),
                           "; expected rank 3 ",
                           s.batch_first ? "[batch, seq_length, input_size]"
                                         : "[seq_length, batch, input_size]");
  }
  s.seq = x.shape[s.batch_first ? 1 : 0];
  s.batch = x.shape[s.batch_first ? 0 : 1];
  s.input = x.shape[2];
  const TensorInfo& r = context.inputs[kR];
  if (r.shape.rank() != 3) {
    return InvalidArgument("input 'R' has shape ", r.shape.ToString(),
                           "; expected [num_directions, ", s.gates(),
                           "*hidden_size, hidden_size]");
  }
  ASSIGN_OR_RETURN(int64_t hidden_attr, attrs.GetInt("hidden_size", -1));
  s.hidden = hidden_attr >= 0 ? hidden_attr : r.shape[2];
  if (s.hidden <= 0) {
    return InvalidArgument("hidden_size is ", s.hidden, "; expected > 0");
  }
  const int64_t g = s.gate_width();
  const std::string gates_text = StrCat(s.gates(), "*hidden_size");
  RETURN_IF_ERROR(
      RequireShape(context.inputs[kW], "W", {s.directions, g, s.input},
                   StrCat("[num_directions, ", gates_text, ", input_size]")));
  RETURN_IF_ERROR(
      RequireShape(r, "R", {s.directions, g, s.hidden},
                   StrCat("[num_directions, ", gates_text, ", hidden_size]")));
  if (context.has_input(kB)) {
    RETURN_IF_ERROR(
        RequireShape(context.inputs[kB], "B", {s.directions, 2 * g},
                     StrCat("[num_directions, 2*", gates_text, "]")));
  }
  if (context.has_input(kSequenceLens)) {
    const TensorInfo& lens = context.inputs[kSequenceLens];
    if (lens.dtype != DType::kInt32 && lens.dtype != DType::kInt64) {
      return InvalidArgument("input 'sequence_lens' is ", DTypeName(lens.dtype),
                             "; expected int32");
    }
    RETURN_IF_ERROR(
        RequireShape(lens, "sequence_lens", {s.batch}, "[batch_size]"));
  }
  const std::vector<int64_t> state_shape =
      s.batch_first ? std::vector<int64_t>{s.batch, s.directions, s.hidden}
                    : std::vector<int64_t>{s.directions, s.batch, s.hidden};
  const char* state_text = s.batch_first
                               ? "[batch_size, num_directions, hidden_size]"
                               : "[num_directions, batch_size, hidden_size]";
  if (context.has_input(kInitialH)) {
    RETURN_IF_ERROR(RequireShape(context.inputs[kInitialH], "initial_h",
                                 state_shape, state_text));
  }
  if (kind == CellKind::kLstm) {
    if (context.has_input(kInitialC)) {
      RETURN_IF_ERROR(RequireShape(context.inputs[kInitialC], "initial_c",
                                   state_shape, state_text));
    }
    if (context.has_input(kPeephole)) {
      RETURN_IF_ERROR(RequireShape(context.inputs[kPeephole], "P",
                                   {s.directions, 3 * s.hidden},
                                   "[num_directions, 3*hidden_size]"));
    }
    ASSIGN_OR_RETURN(s.input_forget, attrs.GetFlag("input_forget", false));
  }
  if (kind == CellKind::kGru) {
    ASSIGN_OR_RETURN(s.linear_before_reset,
                     attrs.GetFlag("linear_before_reset", false));
  }
  if (attrs.Has("clip")) {
    ASSIGN_OR_RETURN(s.clip, attrs.GetFloat("clip", 0));
    if (!(s.clip > 0)) {
      return InvalidArgument("attribute 'clip' is ", s.clip,
                             "; expected a positive threshold");
    }
  }
  ASSIGN_OR_RETURN(s.activations, ParseActivations(attrs, kind, s.directions));
  return s;
}

std::vector<TensorInfo> OutputInfos(const RecurrentShape& s,
                                    size_t num_outputs) {
  const Shape y = s.batch_first
                      ? Shape({s.batch, s.seq, s.directions, s.hidden})
                      : Shape({s.seq, s.directions, s.batch, s.hidden});
  const Shape state = s.batch_first ? Shape({s.batch, s.directions, s.hidden})
                                    : Shape({s.directions, s.batch, s.hidden});
  std::vector<TensorInfo> outputs = {TensorInfo{DType::kFloat32, y}};
  for (size_t i = 1; i < num_outputs; ++i)
    outputs.push_back(TensorInfo{DType::kFloat32, state});
  return outputs;
}

absl::StatusOr<std::vector<int64_t>> SequenceLengths(const RecurrentShape& s,
                                                     const TensorView* lens) {
  std::vector<int64_t> lengths(static_cast<size_t>(s.batch), s.seq);
  if (lens == nullptr) return lengths;
  ASSIGN_OR_RETURN(lengths, ReadInts(*lens, "sequence_lens"));
  for (size_t b = 0; b < lengths.size(); ++b) {
    if (lengths[b] < 0 || lengths[b] > s.seq) {
      return InvalidArgument("sequence_lens[", b, "] is ", lengths[b],
                             "; expected 0..", s.seq, " (seq_length)");
    }
  }
  return lengths;
}

template <CellKind kKind>
absl::StatusOr<PreparedKernel> PrepareRecurrent(const OpContext& context) {
  ASSIGN_OR_RETURN(RecurrentShape shape, ReadShape(context, kKind));
  // Weights known at load are packed once; others at every execution.
  std::vector<PackedDirection> prepacked;
  const TensorView* w = context.constant(kW);
  const TensorView* r = context.constant(kR);
  if (w != nullptr && r != nullptr) {
    const int64_t g = shape.gate_width();
    for (int64_t d = 0; d < shape.directions; ++d) {
      prepacked.push_back(
          PackDirection(shape, w->as<const float>() + d * g * shape.input,
                        r->as<const float>() + d * g * shape.hidden));
    }
  }
  const size_t num_outputs = context.num_outputs;
  std::vector<std::pair<std::string, std::string>> params = {
      {"seq_length", StrCat(shape.seq)},
      {"batch", StrCat(shape.batch)},
      {"input_size", StrCat(shape.input)},
      {"hidden_size", StrCat(shape.hidden)},
      {"directions", StrCat(shape.directions)},
      {"weights_prepacked", StrCat(!prepacked.empty())}};
  const bool has[] = {context.has_input(kB), context.has_input(kSequenceLens),
                      context.has_input(kInitialH),
                      context.has_input(kInitialC),
                      context.has_input(kPeephole)};
  auto run = [shape, prepacked = std::move(prepacked), num_outputs, has](
                 std::span<const TensorView> in,
                 std::span<const TensorView> out,
                 std::span<std::byte> workspace) -> absl::Status {
    auto optional = [&](size_t slot, bool present) -> const float* {
      return present && slot < in.size() ? in[slot].as<const float>() : nullptr;
    };
    RunInputs inputs;
    inputs.x = in[kX].as<const float>();
    inputs.w = in[kW].as<const float>();
    inputs.r = in[kR].as<const float>();
    inputs.b = optional(kB, has[0]);
    inputs.initial_h = optional(kInitialH, has[2]);
    inputs.initial_c = optional(kInitialC, has[3]);
    inputs.peephole = optional(kPeephole, has[4]);
    ASSIGN_OR_RETURN(
        inputs.lengths,
        SequenceLengths(shape, has[1] ? &in[kSequenceLens] : nullptr));
    float* y = out[0].as<float>();
    float* y_h = num_outputs > 1 ? out[1].as<float>() : nullptr;
    float* y_c = num_outputs > 2 ? out[2].as<float>() : nullptr;
    // Steps past a sequence's length are zero in Y.
    std::fill(y, y + out[0].NumElements(), 0.0f);
    if (y_h != nullptr) std::fill(y_h, y_h + out[1].NumElements(), 0.0f);
    if (y_c != nullptr) std::fill(y_c, y_c + out[2].NumElements(), 0.0f);
    if (shape.seq == 0 || shape.batch == 0) return absl::OkStatus();
    const Scratch scratch =
        Scratch::Carve(shape, reinterpret_cast<float*>(workspace.data()));
    const int64_t g = shape.gate_width();
    for (int64_t d = 0; d < shape.directions; ++d) {
      std::optional<PackedDirection> packed_now;
      if (prepacked.empty()) {
        packed_now = PackDirection(shape, inputs.w + d * g * shape.input,
                                   inputs.r + d * g * shape.hidden);
      }
      const PackedDirection& packed =
          prepacked.empty() ? *packed_now : prepacked[d];
      RunDirection(shape, d, packed, inputs, scratch, y, y_h, y_c);
    }
    return absl::OkStatus();
  };
  const size_t workspace = Scratch::Floats(shape) * sizeof(float);
  return Prepared(OutputInfos(shape, num_outputs),
                  MakeKernel(std::move(run), workspace, std::move(params)));
}

}  // namespace

absl::Status RegisterRecurrentOps(OpRegistry& registry) {
  return registry.RegisterAll({
      {"RNN", 3, 6, 1, 2, PrepareRecurrent<CellKind::kRnn>},
      {"GRU", 3, 6, 1, 2, PrepareRecurrent<CellKind::kGru>},
      {"LSTM", 3, 8, 1, 3, PrepareRecurrent<CellKind::kLstm>},
  });
}

}  // namespace acldump
