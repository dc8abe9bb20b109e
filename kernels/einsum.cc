// Einsum: any equation numpy.einsum accepts (explicit or implicit output,
// "..." broadcasting, repeated letters for diagonals, letters summed away),
// on any number of operands.
//
// The plan is made at prepare time. Each operand is first reduced to the
// letters still needed (a diagonal taken, a letter no one else uses summed);
// then the operands are contracted left to right, each pair as a batch of
// GEMMs over [batch, M, K] x [batch, K, N] (a permuting copy only when the
// operand is not already laid out so); the last result is permuted into the
// output. Intermediates are in the compute type (float for the 16-bit floats).
#include <algorithm>
#include <array>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "kernels/kernel_util.h"
#include "kernels/matmul_internal.h"
#include "kernels/op_families.h"

namespace acldump {
namespace {

constexpr int kLetters = 52;  // a-z, A-Z; "..." dims take ids from 52 on

int LetterId(char c) {
  if (c >= 'a' && c <= 'z') return c - 'a';
  if (c >= 'A' && c <= 'Z') return 26 + (c - 'A');
  return -1;
}

std::string LetterName(int id) {
  if (id < 26) return std::string(1, static_cast<char>('a' + id));
  if (id < kLetters) return std::string(1, static_cast<char>('A' + id - 26));
  return StrCat("...", id - kLetters);
}

struct ParsedTerm {
  std::vector<int> letters;  // before expanding "..."
  int ellipsis_at = -1;      // position of "..." among letters, -1 if none
};

absl::StatusOr<ParsedTerm> ParseTerm(std::string_view text,
                                     std::string_view what) {
  ParsedTerm term;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text.substr(i, 3) == "...") {
      if (term.ellipsis_at >= 0) {
        return InvalidArgument("equation: ", what, " '", text,
                               "' has '...' twice");
      }
      term.ellipsis_at = static_cast<int>(term.letters.size());
      i += 2;
      continue;
    }
    const int id = LetterId(text[i]);
    if (id < 0) {
      return InvalidArgument("equation: ", what, " '", text,
                             "' has the character '", text.substr(i, 1),
                             "'; subscripts are letters a-z, A-Z and '...'");
    }
    term.letters.push_back(id);
  }
  return term;
}

// The equation with every operand's axes given a letter id.
struct Equation {
  std::vector<std::vector<int>> operands;  // per input, per axis
  std::vector<int> output;
  std::vector<int64_t> sizes;  // per letter id: the broadcast size; -1 unused
};

absl::StatusOr<Equation> ParseEquation(std::string equation,
                                       std::span<const TensorInfo> inputs) {
  std::erase(equation, ' ');
  const size_t arrow = equation.find("->");
  const std::string lhs = equation.substr(0, arrow);
  std::vector<std::string> texts;
  for (size_t start = 0;;) {
    const size_t comma = lhs.find(',', start);
    texts.push_back(lhs.substr(start, comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (texts.size() != inputs.size()) {
    return InvalidArgument("equation '", equation, "' has ", texts.size(),
                           " operand(s); the node has ", inputs.size(),
                           " input(s)");
  }
  Equation eq;
  std::vector<ParsedTerm> terms;
  int ellipsis_rank = 0;
  for (size_t i = 0; i < texts.size(); ++i) {
    ASSIGN_OR_RETURN(ParsedTerm term,
                     ParseTerm(texts[i], StrCat("operand ", i)));
    const int rank = static_cast<int>(inputs[i].shape.rank());
    const int named = static_cast<int>(term.letters.size());
    if (term.ellipsis_at < 0 ? rank != named : rank < named) {
      return InvalidArgument("equation: operand ", i, " '", texts[i],
                             "' names ", named, " axes; input ", i, " has ",
                             rank, " (", inputs[i].shape.ToString(), ")");
    }
    if (term.ellipsis_at >= 0)
      ellipsis_rank = std::max(ellipsis_rank, rank - named);
    terms.push_back(std::move(term));
  }
  eq.sizes.assign(kLetters + ellipsis_rank, -1);
  std::array<int, kLetters> uses{};
  for (size_t i = 0; i < terms.size(); ++i) {
    const ParsedTerm& term = terms[i];
    const int rank = static_cast<int>(inputs[i].shape.rank());
    const int broadcast = rank - static_cast<int>(term.letters.size());
    std::vector<int>& axes = eq.operands.emplace_back();
    for (int p = 0; p <= static_cast<int>(term.letters.size()); ++p) {
      if (p == term.ellipsis_at) {
        // Right-aligned, as numpy broadcasts.
        for (int e = 0; e < broadcast; ++e)
          axes.push_back(kLetters + ellipsis_rank - broadcast + e);
      }
      if (p < static_cast<int>(term.letters.size())) {
        axes.push_back(term.letters[p]);
        ++uses[term.letters[p]];
      }
    }
    for (size_t a = 0; a < axes.size(); ++a) {
      const int id = axes[a];
      const int64_t dim = inputs[i].shape[a];
      int64_t& size = eq.sizes[id];
      if (size < 0 || (id >= kLetters && size == 1)) {
        size = dim;
      } else if (dim != size && !(id >= kLetters && dim == 1)) {
        return InvalidArgument("equation: subscript '", LetterName(id), "' is ",
                               size, " in one place and ", dim, " at axis ", a,
                               " of input ", i);
      }
    }
  }
  if (arrow == std::string::npos) {
    for (int e = 0; e < ellipsis_rank; ++e) eq.output.push_back(kLetters + e);
    // Letters used once, in ASCII order (upper case first), as numpy does.
    std::vector<std::pair<char, int>> once;
    for (int id = 0; id < kLetters; ++id) {
      if (uses[id] == 1) once.emplace_back(LetterName(id)[0], id);
    }
    std::sort(once.begin(), once.end());
    for (const auto& entry : once) eq.output.push_back(entry.second);
  } else {
    ASSIGN_OR_RETURN(ParsedTerm out,
                     ParseTerm(equation.substr(arrow + 2), "the output"));
    for (int p = 0; p <= static_cast<int>(out.letters.size()); ++p) {
      if (p == out.ellipsis_at) {
        for (int e = 0; e < ellipsis_rank; ++e)
          eq.output.push_back(kLetters + e);
      }
      if (p < static_cast<int>(out.letters.size())) {
        const int id = out.letters[p];
        if (eq.sizes[id] < 0) {
          return InvalidArgument("equation: output subscript '", LetterName(id),
                                 "' appears in no operand");
        }
        if (std::count(out.letters.begin(), out.letters.end(), id) > 1) {
          return InvalidArgument("equation: output subscript '", LetterName(id),
                                 "' appears twice");
        }
        eq.output.push_back(id);
      }
    }
  }
  return eq;
}

// A copy over a space of letters: dst[dst_offset] (+)= src[src_offset] for
// every point; stride 0 in src broadcasts, stride 0 in dst sums.
struct StridedCopy {
  std::vector<int64_t> dims;
  std::vector<int64_t> src_strides;
  std::vector<int64_t> dst_strides;
  int64_t dst_elements = 0;
  bool sums = false;  // some dst stride is 0 with its dim > 1
};

template <typename S, typename D>
void RunCopy(const StridedCopy& copy, const S* src, D* dst) {
  using C = ComputeType<D>;
  if (copy.sums) std::fill(dst, dst + copy.dst_elements, Store<D>(C(0)));
  const size_t rank = copy.dims.size();
  int64_t total = 1;
  for (int64_t d : copy.dims) total *= d;
  if (total == 0) return;
  if (rank == 0) {
    dst[0] = Store<D>(static_cast<C>(Load(src[0])));
    return;
  }
  const int64_t inner = copy.dims[rank - 1];
  const int64_t s_inner = copy.src_strides[rank - 1];
  const int64_t d_inner = copy.dst_strides[rank - 1];
  std::vector<int64_t> counter(rank, 0);
  int64_t s_off = 0, d_off = 0;
  for (int64_t run = 0; run < total / inner; ++run) {
    if (copy.sums) {
      for (int64_t i = 0; i < inner; ++i) {
        D& out = dst[d_off + i * d_inner];
        out = Store<D>(Load(out) +
                       static_cast<C>(Load(src[s_off + i * s_inner])));
      }
    } else {
      for (int64_t i = 0; i < inner; ++i) {
        dst[d_off + i * d_inner] =
            Store<D>(static_cast<C>(Load(src[s_off + i * s_inner])));
      }
    }
    for (size_t axis = rank - 1; axis-- > 0;) {
      s_off += copy.src_strides[axis];
      d_off += copy.dst_strides[axis];
      if (++counter[axis] < copy.dims[axis]) break;
      s_off -= copy.src_strides[axis] * copy.dims[axis];
      d_off -= copy.dst_strides[axis] * copy.dims[axis];
      counter[axis] = 0;
    }
  }
}

// A tensor during the contraction: its letters, their sizes here (1 for a
// broadcast "..." dim), and where it lives.
struct Term {
  std::vector<int> letters;
  std::vector<int64_t> dims;
  int input = -1;      // >= 0: the node's input, unchanged
  int64_t offset = 0;  // else: in the workspace, in compute-type elements
  int64_t Elements() const {
    return std::accumulate(dims.begin(), dims.end(), int64_t{1},
                           std::multiplies<>());
  }
  int64_t StrideOf(int letter) const {
    int64_t stride = 0;
    int64_t step = 1;
    for (size_t a = letters.size(); a-- > 0;) {
      if (letters[a] == letter) stride += dims[a] == 1 ? 0 : step;
      step *= dims[a];
    }
    return stride;
  }
  int64_t SizeOf(int letter) const {
    for (size_t a = 0; a < letters.size(); ++a)
      if (letters[a] == letter) return dims[a];
    return 1;
  }
  bool Has(int letter) const {
    return std::find(letters.begin(), letters.end(), letter) != letters.end();
  }
};

// A copy from `src` into a new dense term with `letters` (sizes `dims`),
// summing the letters of `src` not among them.
StridedCopy CopyInto(const Term& src, const std::vector<int>& letters,
                     const std::vector<int64_t>& dims) {
  StridedCopy copy;
  std::vector<int64_t> dst_strides(letters.size());
  int64_t step = 1;
  for (size_t a = letters.size(); a-- > 0;) {
    dst_strides[a] = step;
    step *= dims[a];
  }
  copy.dst_elements = step;
  for (size_t a = 0; a < letters.size(); ++a) {
    copy.dims.push_back(dims[a]);
    copy.src_strides.push_back(src.StrideOf(letters[a]));
    copy.dst_strides.push_back(dst_strides[a]);
  }
  std::set<int> seen(letters.begin(), letters.end());
  for (size_t a = 0; a < src.letters.size(); ++a) {
    const int letter = src.letters[a];
    if (!seen.insert(letter).second) continue;
    copy.dims.push_back(src.dims[a]);
    copy.src_strides.push_back(src.StrideOf(letter));
    copy.dst_strides.push_back(0);
    copy.sums |= src.dims[a] > 1;
  }
  return copy;
}

// True when `src` is already dense in `letters` order with these sizes.
bool IsLaidOutAs(const Term& src, const std::vector<int>& letters,
                 const std::vector<int64_t>& dims) {
  return src.letters == letters && src.dims == dims;
}

struct Contraction {
  Term a, b;                                  // the operands as read
  std::optional<StridedCopy> copy_a, copy_b;  // when not laid out already
  int64_t a_offset = 0, b_offset = 0;         // the copies' workspace places
  int64_t batch = 1, m = 1, n = 1, k = 1;
  Term result;
};

struct EinsumPlan {
  std::vector<std::pair<int, std::optional<StridedCopy>>> inputs;  // per input
  std::vector<Term> input_terms;
  std::vector<Contraction> contractions;
  StridedCopy to_output;
  Term last;
  int64_t workspace_elements = 0;
};

int64_t Reserve(EinsumPlan& plan, int64_t elements) {
  const int64_t offset = plan.workspace_elements;
  // 64-byte steps for every compute type (at most 8 bytes per element).
  plan.workspace_elements += (elements + 7) / 8 * 8;
  return offset;
}

absl::StatusOr<EinsumPlan> MakePlan(const Equation& eq,
                                    std::span<const TensorInfo> inputs,
                                    bool same_type) {
  EinsumPlan plan;
  const size_t count = eq.operands.size();
  auto needed_after = [&](size_t first_term, const std::vector<Term>& terms) {
    std::set<int> needed(eq.output.begin(), eq.output.end());
    for (size_t t = first_term; t < terms.size(); ++t)
      needed.insert(terms[t].letters.begin(), terms[t].letters.end());
    return needed;
  };
  std::vector<Term> raw;
  for (size_t i = 0; i < count; ++i) {
    Term term;
    term.letters = eq.operands[i];
    term.dims = inputs[i].shape.dims();
    term.input = static_cast<int>(i);
    raw.push_back(std::move(term));
  }
  // Each operand reduced to the letters the output or another operand uses.
  std::vector<Term> terms;
  for (size_t i = 0; i < count; ++i) {
    std::set<int> needed(eq.output.begin(), eq.output.end());
    for (size_t j = 0; j < count; ++j) {
      if (j != i) needed.insert(raw[j].letters.begin(), raw[j].letters.end());
    }
    Term term;
    for (size_t a = 0; a < raw[i].letters.size(); ++a) {
      const int letter = raw[i].letters[a];
      if (needed.count(letter) && !term.Has(letter)) {
        term.letters.push_back(letter);
        term.dims.push_back(raw[i].dims[a]);
      }
    }
    if (same_type && IsLaidOutAs(raw[i], term.letters, term.dims)) {
      term.input = static_cast<int>(i);
      plan.inputs.emplace_back(static_cast<int>(i), std::nullopt);
    } else {
      term.offset = Reserve(plan, term.Elements());
      plan.inputs.emplace_back(static_cast<int>(i),
                               CopyInto(raw[i], term.letters, term.dims));
    }
    terms.push_back(std::move(term));
  }
  plan.input_terms = terms;
  while (terms.size() > 1) {
    Contraction c;
    c.a = terms[0];
    c.b = terms[1];
    const std::set<int> needed = needed_after(2, terms);
    std::vector<int> batch, m, n, k;
    for (int letter : c.a.letters) {
      if (c.b.Has(letter)) {
        (needed.count(letter) ? batch : k).push_back(letter);
      } else if (needed.count(letter)) {
        m.push_back(letter);
      }
    }
    for (int letter : c.b.letters) {
      if (!c.a.Has(letter) && needed.count(letter)) n.push_back(letter);
    }
    auto size = [&](int letter) {
      return std::max(c.a.SizeOf(letter), c.b.SizeOf(letter));
    };
    auto layout = [&](std::initializer_list<const std::vector<int>*> groups,
                      std::vector<int>& letters, std::vector<int64_t>& dims) {
      for (const std::vector<int>* group : groups) {
        for (int letter : *group) {
          letters.push_back(letter);
          dims.push_back(size(letter));
        }
      }
    };
    std::vector<int> a_letters, b_letters;
    std::vector<int64_t> a_dims, b_dims;
    layout({&batch, &m, &k}, a_letters, a_dims);
    layout({&batch, &k, &n}, b_letters, b_dims);
    auto product = [&](const std::vector<int>& group) {
      int64_t p = 1;
      for (int letter : group) p *= size(letter);
      return p;
    };
    c.batch = product(batch);
    c.m = product(m);
    c.n = product(n);
    c.k = product(k);
    if (!IsLaidOutAs(c.a, a_letters, a_dims)) {
      c.copy_a = CopyInto(c.a, a_letters, a_dims);
      c.a_offset = Reserve(plan, c.copy_a->dst_elements);
    }
    if (!IsLaidOutAs(c.b, b_letters, b_dims)) {
      c.copy_b = CopyInto(c.b, b_letters, b_dims);
      c.b_offset = Reserve(plan, c.copy_b->dst_elements);
    }
    layout({&batch, &m, &n}, c.result.letters, c.result.dims);
    c.result.offset = Reserve(plan, c.result.Elements());
    terms.erase(terms.begin(), terms.begin() + 2);
    terms.insert(terms.begin(), c.result);
    plan.contractions.push_back(std::move(c));
  }
  plan.last = terms[0];
  std::vector<int64_t> out_dims;
  for (int letter : eq.output) out_dims.push_back(eq.sizes[letter]);
  plan.to_output = CopyInto(plan.last, eq.output, out_dims);
  return plan;
}

absl::StatusOr<PreparedKernel> PrepareEinsum(const OpContext& context) {
  ASSIGN_OR_RETURN(std::string equation,
                   context.attrs.GetString("equation", ""));
  if (equation.empty()) {
    return InvalidArgument("attribute 'equation' is missing or empty");
  }
  const DType dtype = context.inputs[0].dtype;
  constexpr DType kEinsumTypes[] = {DType::kFloat32, DType::kFloat64,
                                    DType::kFloat16, DType::kBFloat16,
                                    DType::kInt32,   DType::kInt64};
  for (size_t i = 0; i < context.inputs.size(); ++i) {
    RETURN_IF_ERROR(
        RequireDType(context.inputs[i], kEinsumTypes, StrCat("input ", i)));
    if (context.inputs[i].dtype != dtype) {
      return InvalidArgument(
          "input ", i, " is ", DTypeName(context.inputs[i].dtype),
          "; input 0 is ", DTypeName(dtype), " (all inputs share one type)");
    }
  }
  ASSIGN_OR_RETURN(Equation eq, ParseEquation(equation, context.inputs));
  const bool half = dtype == DType::kFloat16 || dtype == DType::kBFloat16;
  ASSIGN_OR_RETURN(EinsumPlan plan, MakePlan(eq, context.inputs, !half));
  std::vector<int64_t> out_dims;
  for (int letter : eq.output) out_dims.push_back(eq.sizes[letter]);
  std::vector<std::pair<std::string, std::string>> params = {
      {"equation", equation},
      {"contractions", StrCat(plan.contractions.size())}};
  for (size_t i = 0; i < plan.contractions.size(); ++i) {
    const Contraction& c = plan.contractions[i];
    params.emplace_back(StrCat("gemm_", i), StrCat(c.batch, "x[", c.m, ",", c.k,
                                                   "]x[", c.k, ",", c.n, "]"));
  }
  const size_t element_bytes = half ? sizeof(float) : DTypeSize(dtype);
  const size_t workspace =
      static_cast<size_t>(plan.workspace_elements) * element_bytes;
  auto run = [plan = std::move(plan), dtype](
                 std::span<const TensorView> in,
                 std::span<const TensorView> out,
                 std::span<std::byte> ws) -> absl::Status {
    return VisitDType(dtype, [&]<typename T>() -> absl::Status {
      if constexpr (!kHasMatMulKernel<T>) {
        return Unimplemented("Einsum on ", DTypeName(dtype));
      } else {
        using C = ComputeType<T>;
        C* base = reinterpret_cast<C*>(ws.data());
        // Terms that are inputs are read as T, which is C unless T is half.
        auto data_of = [&](const Term& term) -> const C* {
          if constexpr (std::is_same_v<T, C>) {
            if (term.input >= 0) return in[term.input].as<const C>();
          }
          return base + term.offset;
        };
        for (const auto& [input, copy] : plan.inputs) {
          if (copy.has_value()) {
            RunCopy(*copy, in[input].template as<const T>(),
                    base + plan.input_terms[input].offset);
          }
        }
        for (const Contraction& c : plan.contractions) {
          const C* a = data_of(c.a);
          const C* b = data_of(c.b);
          if (c.copy_a.has_value()) {
            RunCopy(*c.copy_a, a, base + c.a_offset);
            a = base + c.a_offset;
          }
          if (c.copy_b.has_value()) {
            RunCopy(*c.copy_b, b, base + c.b_offset);
            b = base + c.b_offset;
          }
          const int64_t a_step = c.m * c.k, b_step = c.k * c.n;
          RETURN_IF_ERROR(BatchedGemm<C>(
              static_cast<size_t>(c.batch), c.m, c.n, c.k,
              [&](size_t i) { return a + i * a_step; },
              [&](size_t i) { return b + i * b_step; },
              base + c.result.offset));
        }
        RunCopy(plan.to_output, data_of(plan.last), out[0].as<T>());
        return absl::OkStatus();
      }
    });
  };
  return Prepared({TensorInfo{dtype, Shape(out_dims)}},
                  MakeKernel(std::move(run), workspace, std::move(params)));
}

}  // namespace

absl::Status RegisterEinsumOps(OpRegistry& registry) {
  return registry.RegisterAll({
      {"Einsum", 1, 64, 1, 1, PrepareEinsum},
  });
}

}  // namespace acldump
