// LSTM, GRU and RNN against a double-precision reference written from the
// ONNX equations one element at a time (the ONNX node tests cover the default
// forms; these cover reverse, bidirectional, sequence_lens, layout 1,
// peepholes, clip, input_forget and linear_before_reset).
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kernels/testing/op_tester.h"

namespace acldump {
namespace {

using ::acldump::testing::OpTester;
using ::acldump::testing::Values;
using ::testing::HasSubstr;

double Sigmoid(double x) { return 1 / (1 + std::exp(-x)); }

struct Case {
  std::string op = "LSTM";
  int64_t seq = 4, batch = 3, input = 5, hidden = 6;
  std::string direction = "forward";
  int64_t layout = 0;
  std::vector<int32_t> lengths;  // empty: no sequence_lens input
  bool bias = true, initial = true, peephole = false;
  float clip = 0;
  bool input_forget = false, linear_before_reset = false;
  std::string rnn_activation = "Tanh";
  bool runtime_weights = false;  // W and R not known at load: packed per run

  int64_t gates() const { return op == "LSTM" ? 4 : op == "GRU" ? 3 : 1; }
  int64_t dirs() const { return direction == "bidirectional" ? 2 : 1; }
};

std::vector<float> Random(size_t n, std::mt19937& rng) {
  std::uniform_real_distribution<float> dist(-0.8f, 0.8f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

struct Data {
  std::vector<float> x, w, r, b, h0, c0, p;
};

// Outputs Y, Y_h, Y_c in the case's layout.
std::vector<std::vector<double>> Reference(const Case& c, const Data& d) {
  const int64_t S = c.seq, B = c.batch, I = c.input, H = c.hidden,
                G = c.gates(), D = c.dirs();
  auto xi = [&](int64_t t, int64_t b, int64_t k) {
    return d.x[(c.layout ? b * S + t : t * B + b) * I + k];
  };
  auto state_at = [&](int64_t dir, int64_t b) {
    return (c.layout ? b * D + dir : dir * B + b) * H;
  };
  std::vector<double> y(S * D * B * H, 0.0), yh(D * B * H), yc(D * B * H);
  for (int64_t dir = 0; dir < D; ++dir) {
    const bool reverse = c.direction == "reverse" || dir == 1;
    for (int64_t b = 0; b < B; ++b) {
      const int64_t len = c.lengths.empty() ? S : c.lengths[b];
      std::vector<double> h(H, 0.0), cell(H, 0.0);
      if (c.initial) {
        for (int64_t k = 0; k < H; ++k) {
          h[k] = d.h0[state_at(dir, b) + k];
          if (c.op == "LSTM") cell[k] = d.c0[state_at(dir, b) + k];
        }
      }
      for (int64_t step = 0; step < len; ++step) {
        const int64_t t = reverse ? len - 1 - step : step;
        // pre[g][k] = X W^T + Wb (+ H R^T + Rb except GRU's h gate).
        auto wx = [&](int64_t gate, int64_t k) {
          double sum = 0;
          const int64_t row = (dir * G + gate) * H + k;
          for (int64_t j = 0; j < I; ++j) sum += xi(t, b, j) * d.w[row * I + j];
          return sum + (c.bias ? d.b[dir * 2 * G * H + gate * H + k] : 0.0);
        };
        auto rh = [&](int64_t gate, int64_t k, const std::vector<double>& v) {
          double sum = 0;
          const int64_t row = (dir * G + gate) * H + k;
          for (int64_t j = 0; j < H; ++j) sum += v[j] * d.r[row * H + j];
          return sum +
                 (c.bias ? d.b[dir * 2 * G * H + G * H + gate * H + k] : 0.0);
        };
        auto clip = [&](double v) {
          return c.clip > 0 ? std::clamp<double>(v, -c.clip, c.clip) : v;
        };
        std::vector<double> next(H), next_cell(H);
        if (c.op == "RNN") {
          for (int64_t k = 0; k < H; ++k) {
            const double v = clip(wx(0, k) + rh(0, k, h));
            next[k] =
                c.rnn_activation == "Relu" ? std::max(0.0, v) : std::tanh(v);
          }
        } else if (c.op == "GRU") {
          std::vector<double> z(H), r(H), rh_prev(H);
          for (int64_t k = 0; k < H; ++k) {
            z[k] = Sigmoid(clip(wx(0, k) + rh(1 - 1, k, h)));
            r[k] = Sigmoid(clip(wx(1, k) + rh(1, k, h)));
            rh_prev[k] = r[k] * h[k];
          }
          for (int64_t k = 0; k < H; ++k) {
            const double pre = c.linear_before_reset
                                   ? wx(2, k) + r[k] * rh(2, k, h)
                                   : wx(2, k) + rh(2, k, rh_prev);
            const double candidate = std::tanh(clip(pre));
            next[k] = (1 - z[k]) * candidate + z[k] * h[k];
          }
        } else {
          auto peep = [&](int64_t which, int64_t k) {
            return c.peephole ? d.p[dir * 3 * H + which * H + k] : 0.0;
          };
          for (int64_t k = 0; k < H; ++k) {
            const double i =
                Sigmoid(clip(wx(0, k) + rh(0, k, h) + peep(0, k) * cell[k]));
            const double f = c.input_forget
                                 ? 1 - i
                                 : Sigmoid(clip(wx(2, k) + rh(2, k, h) +
                                                peep(2, k) * cell[k]));
            const double g = std::tanh(clip(wx(3, k) + rh(3, k, h)));
            next_cell[k] = f * cell[k] + i * g;
            const double o = Sigmoid(
                clip(wx(1, k) + rh(1, k, h) + peep(1, k) * next_cell[k]));
            next[k] = o * std::tanh(next_cell[k]);
          }
          cell = next_cell;
        }
        h = next;
        for (int64_t k = 0; k < H; ++k) {
          y[(c.layout ? (b * S + t) * D + dir : (t * D + dir) * B + b) * H +
            k] = h[k];
        }
      }
      for (int64_t k = 0; k < H; ++k) {
        yh[state_at(dir, b) + k] = h[k];
        yc[state_at(dir, b) + k] = cell[k];
      }
    }
  }
  return {y, yh, yc};
}

void Check(const Case& c) {
  SCOPED_TRACE(c.op + " " + c.direction + " layout " +
               std::to_string(c.layout));
  std::mt19937 rng(7);
  const int64_t S = c.seq, B = c.batch, I = c.input, H = c.hidden,
                G = c.gates(), D = c.dirs();
  Data d;
  d.x = Random(S * B * I, rng);
  d.w = Random(D * G * H * I, rng);
  d.r = Random(D * G * H * H, rng);
  d.b = Random(D * 2 * G * H, rng);
  d.h0 = Random(D * B * H, rng);
  d.c0 = Random(D * B * H, rng);
  d.p = Random(D * 3 * H, rng);
  const size_t num_outputs = c.op == "LSTM" ? 3 : 2;
  OpTester t(c.op, num_outputs);
  t.RuntimeInput<float>(c.layout ? Shape({B, S, I}) : Shape({S, B, I}), d.x);
  if (c.runtime_weights) {
    t.RuntimeInput<float>({D, G * H, I}, d.w)
        .RuntimeInput<float>({D, G * H, H}, d.r);
  } else {
    t.Input<float>({D, G * H, I}, d.w).Input<float>({D, G * H, H}, d.r);
  }
  if (c.bias) {
    t.Input<float>({D, 2 * G * H}, d.b);
  } else {
    t.AbsentInput();
  }
  if (c.lengths.empty()) {
    t.AbsentInput();
  } else {
    t.RuntimeInput<int32_t>({B}, c.lengths);
  }
  const Shape state = c.layout ? Shape({B, D, H}) : Shape({D, B, H});
  if (c.initial) {
    t.RuntimeInput<float>(state, d.h0);
    if (c.op == "LSTM") t.RuntimeInput<float>(state, d.c0);
  } else {
    t.AbsentInput();
    if (c.op == "LSTM") t.AbsentInput();
  }
  if (c.peephole) t.Input<float>({D, 3 * H}, d.p);
  t.Attr("hidden_size", H)
      .Attr("direction", c.direction)
      .Attr("layout", c.layout);
  if (c.clip > 0) t.Attr("clip", c.clip);
  if (c.input_forget) t.Attr("input_forget", int64_t{1});
  if (c.linear_before_reset) t.Attr("linear_before_reset", int64_t{1});
  if (c.op == "RNN") {
    t.Attr("activations", std::vector<std::string>(D, c.rnn_activation));
  }
  auto out = t.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  const auto expected = Reference(c, d);
  for (size_t o = 0; o < num_outputs; ++o) {
    const auto got = Values<float>((*out)[o]);
    ASSERT_EQ(got.size(), expected[o].size()) << "output " << o;
    for (size_t i = 0; i < got.size(); ++i) {
      ASSERT_NEAR(got[i], expected[o][i], 2e-5)
          << "output " << o << " at " << i;
    }
  }
}

TEST(RecurrentTest, LstmForwardWithBiasAndInitialStates) { Check({}); }

TEST(RecurrentTest, LstmReverseWithSequenceLengths) {
  Case c;
  c.direction = "reverse";
  c.lengths = {4, 2, 0};
  Check(c);
}

TEST(RecurrentTest, LstmBidirectionalBatchFirstWithPeepholesAndClip) {
  Case c;
  c.direction = "bidirectional";
  c.layout = 1;
  c.peephole = true;
  c.clip = 0.5f;
  c.lengths = {3, 4, 1};
  Check(c);
}

TEST(RecurrentTest, LstmInputForgetWithoutBiasOrInitialStates) {
  Case c;
  c.input_forget = true;
  c.bias = false;
  c.initial = false;
  Check(c);
}

TEST(RecurrentTest, GruBothResetForms) {
  for (bool linear : {false, true}) {
    Case c;
    c.op = "GRU";
    c.linear_before_reset = linear;
    c.direction = "bidirectional";
    c.lengths = {2, 4, 3};
    Check(c);
    c.layout = 1;
    c.bias = false;
    Check(c);
  }
}

TEST(RecurrentTest, WeightsGivenAtRunTime) {
  Case c;
  c.direction = "bidirectional";
  c.runtime_weights = true;
  Check(c);
  c.op = "GRU";
  Check(c);
}

TEST(RecurrentTest, RnnTanhAndRelu) {
  Case c;
  c.op = "RNN";
  Check(c);
  c.rnn_activation = "Relu";
  c.direction = "reverse";
  c.clip = 0.3f;
  Check(c);
}

// All weights zero: every sigmoid gate is 0.5 and the block gate tanh(0) = 0,
// so C_t = C_{t-1} / 2 and H_t = tanh(C_t) / 2.
TEST(RecurrentTest, LstmWithZeroWeightsHalvesTheCell) {
  OpTester t("LSTM", 3);
  t.Input<float>({2, 1, 1}, {3.0f, -3.0f})
      .Input<float>({1, 4, 1}, {0, 0, 0, 0})
      .Input<float>({1, 4, 1}, {0, 0, 0, 0})
      .AbsentInput()
      .AbsentInput()
      .AbsentInput()
      .Input<float>({1, 1, 1}, {1.0f});
  t.Attr("hidden_size", int64_t{1});
  auto out = t.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  const auto y = Values<float>((*out)[0]);
  EXPECT_NEAR(y[0], 0.5f * std::tanh(0.5f), 1e-6);
  EXPECT_NEAR(y[1], 0.5f * std::tanh(0.25f), 1e-6);
  EXPECT_FLOAT_EQ(Values<float>((*out)[2])[0], 0.25f);
}

TEST(RecurrentTest, NanInTheInputReachesEveryLaterStep) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  OpTester t("RNN", 2);
  t.Input<float>({3, 1, 1}, {1.0f, nan, 1.0f})
      .Input<float>({1, 1, 1}, {1.0f})
      .Input<float>({1, 1, 1}, {1.0f});
  t.Attr("hidden_size", int64_t{1});
  auto out = t.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  const auto y = Values<float>((*out)[0]);
  EXPECT_NEAR(y[0], std::tanh(1.0f), 1e-6);
  EXPECT_TRUE(std::isnan(y[1]));
  EXPECT_TRUE(std::isnan(y[2]));
  EXPECT_TRUE(std::isnan(Values<float>((*out)[1])[0]));
}

TEST(RecurrentTest, BadInputsAreNamed) {
  OpTester wrong_w("LSTM");
  wrong_w.Input<float>({2, 1, 3}, std::vector<float>(6))
      .Input<float>({1, 4, 3}, std::vector<float>(12))
      .Input<float>({1, 8, 2}, std::vector<float>(16));
  auto out = wrong_w.Run();
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("input 'W' has shape [1,4,3]; expected [1,8,3]"));

  OpTester lengths("GRU");
  lengths.Input<float>({2, 1, 1}, {1, 2})
      .Input<float>({1, 3, 1}, {0, 0, 0})
      .Input<float>({1, 3, 1}, {0, 0, 0})
      .AbsentInput()
      .RuntimeInput<int32_t>({1}, {5});
  out = lengths.Run();
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("sequence_lens[0] is 5; expected 0..2"));

  OpTester activation("RNN");
  activation.Input<float>({1, 1, 1}, {1})
      .Input<float>({1, 1, 1}, {1})
      .Input<float>({1, 1, 1}, {1})
      .Attr("activations", std::vector<std::string>{"Gelu"});
  out = activation.Run();
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("activation 'Gelu' is not supported"));

  struct Bad {
    std::string attr;
    AttrValue value;
    std::string reason;
  };
  const Bad attributes[] = {
      {"direction", std::string("sideways"),
       "attribute 'direction' is 'sideways'; expected forward, reverse or "
       "bidirectional"},
      {"clip", 0.0f, "attribute 'clip' is 0; expected a positive threshold"},
      {"layout", int64_t{2}, "attribute 'layout' is 2; expected 0 or 1"},
      {"activations", std::vector<std::string>{"Tanh", "Tanh"},
       "attribute 'activations' has 2 names; expected 1 (1 per direction)"},
  };
  for (const Bad& bad : attributes) {
    OpTester t("RNN");
    t.Input<float>({1, 1, 1}, {1})
        .Input<float>({1, 1, 1}, {1})
        .Input<float>({1, 1, 1}, {1})
        .Attr(bad.attr, bad.value);
    out = t.Run();
    ASSERT_FALSE(out.ok()) << bad.attr;
    EXPECT_THAT(std::string(out.status().message()), HasSubstr(bad.reason));
  }

  OpTester half("RNN");
  half.Input<Float16>({1, 1, 1}, {Float16(1.0f)})
      .Input<Float16>({1, 1, 1}, {Float16(1.0f)})
      .Input<Float16>({1, 1, 1}, {Float16(1.0f)});
  out = half.Run();
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("runs on float32 (insert a Cast to float32)"));
}

}  // namespace
}  // namespace acldump
