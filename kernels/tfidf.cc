// TfIdfVectorizer (opset 9): counts the n-grams of a pool (pool_int64s) in
// each row of integer tokens, skipping up to max_skip_count tokens between an
// n-gram's items, then weighs the counts (TF, IDF, TFIDF) into float32
// [max(ngram_indexes) + 1] or [N, that].
//
// Where the spec's text is loose, this follows the ONNX reference
// implementation and ONNX Runtime (what converters such as skl2onnx target):
// counts add up per output coordinate and `weights` are read per output
// coordinate; unigrams are counted once, not once per skip distance; an
// n-gram listed twice in the pool counts for its last listing.
#include <algorithm>
#include <map>
#include <string>

#include "kernels/kernel_util.h"
#include "kernels/op_families.h"

namespace acldump {
namespace {

enum class Weighting { kTF, kIDF, kTFIDF };

// The pool's n-grams as a trie over token values. Node 0 is the root; a
// node's id is 1 + the index of the n-gram ending there (into ngram_indexes),
// 0 when none does (a prefix only, or an n-gram outside the gram lengths).
class NgramTrie {
 public:
  struct Node {
    int64_t id = 0;
    std::vector<std::pair<int64_t, int64_t>> children;  // sorted by token
  };

  const Node& root() const { return nodes_[0]; }
  const Node* Child(const Node& node, int64_t token) const {
    const auto it =
        std::lower_bound(node.children.begin(), node.children.end(), token,
                         [](const std::pair<int64_t, int64_t>& c, int64_t t) {
                           return c.first < t;
                         });
    if (it == node.children.end() || it->first != token) return nullptr;
    return &nodes_[it->second];
  }

  // The pool's n-grams of lengths in [min_gram, max_gram]; ids count every
  // n-gram in pool order, those of other lengths included.
  static NgramTrie Build(const std::vector<int64_t>& pool,
                         const std::vector<int64_t>& starts, int64_t min_gram,
                         int64_t max_gram) {
    // std::map while building: sorted-vector inserts would be quadratic in
    // vocabulary-sized pools.
    std::vector<std::map<int64_t, int64_t>> children(1);
    std::vector<int64_t> ids(1, 0);
    int64_t next_id = 1;
    for (size_t i = 0; i < starts.size(); ++i) {
      const int64_t size = static_cast<int64_t>(i) + 1;
      const int64_t begin = starts[i];
      const int64_t end = i + 1 < starts.size()
                              ? starts[i + 1]
                              : static_cast<int64_t>(pool.size());
      const int64_t count = (end - begin) / size;
      if (size < min_gram || size > max_gram) {
        next_id += count;
        continue;
      }
      for (int64_t k = 0; k < count; ++k) {
        int64_t node = 0;
        for (int64_t j = 0; j < size; ++j) {
          const int64_t token = pool[begin + k * size + j];
          auto [it, added] = children[node].emplace(
              token, static_cast<int64_t>(children.size()));
          if (added) {
            children.emplace_back();
            ids.push_back(0);
          }
          node = it->second;
        }
        ids[node] = next_id++;
      }
    }
    NgramTrie trie;
    trie.nodes_.resize(children.size());
    for (size_t n = 0; n < children.size(); ++n) {
      trie.nodes_[n].id = ids[n];
      trie.nodes_[n].children.assign(children[n].begin(), children[n].end());
    }
    return trie;
  }

 private:
  std::vector<Node> nodes_;
};

struct TfIdfPlan {
  Weighting weighting = Weighting::kTF;
  int64_t min_gram = 1, max_gram = 1, max_skip = 0;
  std::vector<int64_t> ngram_indexes;
  std::vector<float> weights;  // per output coordinate; empty: all ones
  int64_t output_size = 0;
  int64_t rows = 1, row_length = 0;
  NgramTrie trie;
};

absl::StatusOr<int64_t> RequiredInt(const Attributes& attrs,
                                    std::string_view name) {
  if (!attrs.Has(name)) {
    return InvalidArgument("attribute '", name, "' is required");
  }
  return attrs.GetInt(name, 0);
}

absl::StatusOr<std::vector<int64_t>> RequiredInts(const Attributes& attrs,
                                                  std::string_view name) {
  if (!attrs.Has(name)) {
    return InvalidArgument("attribute '", name, "' is required");
  }
  ASSIGN_OR_RETURN(std::vector<int64_t> values, attrs.GetInts(name));
  if (values.empty()) {
    return InvalidArgument("attribute '", name, "' must not be empty");
  }
  return values;
}

absl::StatusOr<Weighting> ReadMode(const Attributes& attrs) {
  if (!attrs.Has("mode")) {
    return InvalidArgument(
        "attribute 'mode' is required (\"TF\", \"IDF\" or \"TFIDF\")");
  }
  ASSIGN_OR_RETURN(const std::string mode, attrs.GetString("mode", ""));
  if (mode == "TF") return Weighting::kTF;
  if (mode == "IDF") return Weighting::kIDF;
  if (mode == "TFIDF") return Weighting::kTFIDF;
  return InvalidArgument("attribute 'mode' is \"", mode,
                         "\"; expected \"TF\", \"IDF\" or \"TFIDF\"");
}

// The pool's layout: ngram_counts[i] is where the (i+1)-grams start.
// Returns the number of n-grams.
absl::StatusOr<int64_t> CheckPoolLayout(const std::vector<int64_t>& pool,
                                        const std::vector<int64_t>& starts) {
  const int64_t pool_size = static_cast<int64_t>(pool.size());
  int64_t ngrams = 0;
  for (size_t i = 0; i < starts.size(); ++i) {
    const int64_t begin = starts[i];
    const int64_t end = i + 1 < starts.size() ? starts[i + 1] : pool_size;
    if (begin < 0 || begin > pool_size) {
      return InvalidArgument("ngram_counts[", i, "] is ", begin,
                             "; expected a start in [0, ", pool_size,
                             "] (pool_int64s holds ", pool_size, " values)");
    }
    if (end < begin) {
      return InvalidArgument("ngram_counts must not decrease; got ",
                             StrCat("[", StrJoin(starts, ","), "]"));
    }
    const int64_t size = static_cast<int64_t>(i) + 1;
    if ((end - begin) % size != 0) {
      return InvalidArgument("the ", size, "-grams (pool_int64s[", begin, ":",
                             end, "]) are ", end - begin,
                             " values, not a multiple of ", size);
    }
    ngrams += (end - begin) / size;
  }
  return ngrams;
}

absl::StatusOr<TfIdfPlan> PlanTfIdf(const OpContext& context) {
  const TensorInfo& x = context.inputs[0];
  const Attributes& attrs = context.attrs;
  // Checked first: a string model fails on the missing feature, not on its
  // input's type.
  if (attrs.Has("pool_strings")) {
    if (attrs.Has("pool_int64s")) {
      return InvalidArgument(
          "attributes 'pool_strings' and 'pool_int64s' are both set; the spec "
          "allows one");
    }
    return Unimplemented(
        "attribute 'pool_strings' needs string input tensors, which acldump "
        "does not support; map the tokens to integer ids and use "
        "'pool_int64s'");
  }
  RETURN_IF_ERROR(RequireDType(x, kIndexTypes, "input 'X'"));
  TfIdfPlan plan;
  if (x.shape.rank() == 1) {
    plan.rows = 1;
    plan.row_length = x.shape[0];
  } else if (x.shape.rank() == 2) {
    plan.rows = x.shape[0];
    plan.row_length = x.shape[1];
    if (plan.rows < 1) {
      return InvalidArgument("input 'X' has shape ", x.shape.ToString(),
                             "; expected [N, C] with N > 0");
    }
  } else {
    return InvalidArgument("input 'X' has shape ", x.shape.ToString(),
                           "; expected [C] or [N, C]");
  }

  ASSIGN_OR_RETURN(plan.weighting, ReadMode(attrs));
  ASSIGN_OR_RETURN(plan.min_gram, RequiredInt(attrs, "min_gram_length"));
  ASSIGN_OR_RETURN(plan.max_gram, RequiredInt(attrs, "max_gram_length"));
  ASSIGN_OR_RETURN(plan.max_skip, RequiredInt(attrs, "max_skip_count"));
  if (plan.min_gram < 1) {
    return InvalidArgument("attribute 'min_gram_length' is ", plan.min_gram,
                           "; expected at least 1");
  }
  if (plan.max_gram < plan.min_gram) {
    return InvalidArgument("attribute 'max_gram_length' is ", plan.max_gram,
                           "; expected at least min_gram_length (",
                           plan.min_gram, ")");
  }
  if (plan.max_skip < 0) {
    return InvalidArgument("attribute 'max_skip_count' is ", plan.max_skip,
                           "; expected at least 0");
  }

  if (!attrs.Has("pool_int64s")) {
    return InvalidArgument(
        "attribute 'pool_int64s' is required (the n-grams to count)");
  }
  ASSIGN_OR_RETURN(const std::vector<int64_t> pool,
                   attrs.GetInts("pool_int64s"));
  ASSIGN_OR_RETURN(const std::vector<int64_t> starts,
                   RequiredInts(attrs, "ngram_counts"));
  ASSIGN_OR_RETURN(plan.ngram_indexes, RequiredInts(attrs, "ngram_indexes"));
  ASSIGN_OR_RETURN(const int64_t ngrams, CheckPoolLayout(pool, starts));
  if (static_cast<int64_t>(plan.ngram_indexes.size()) != ngrams) {
    return InvalidArgument(
        "attribute 'ngram_indexes' has ", plan.ngram_indexes.size(),
        " values; expected one per n-gram of the pool (", ngrams, ")");
  }
  int64_t max_index = 0;
  for (size_t i = 0; i < plan.ngram_indexes.size(); ++i) {
    const int64_t index = plan.ngram_indexes[i];
    if (index < 0) {
      return InvalidArgument("ngram_indexes[", i, "] is ", index,
                             "; output coordinates are not negative");
    }
    max_index = std::max(max_index, index);
  }
  plan.output_size = max_index + 1;
  const Shape out_shape = x.shape.rank() == 1
                              ? Shape{plan.output_size}
                              : Shape{plan.rows, plan.output_size};
  if (auto elements = CheckedNumElements(out_shape.dims()); !elements.ok()) {
    return InvalidArgument(
        "max(ngram_indexes) is ", max_index,
        ", so output 'Y' would be too large: ", elements.status().message());
  }

  ASSIGN_OR_RETURN(plan.weights, attrs.GetFloats("weights"));
  if (plan.weighting == Weighting::kTF) {
    plan.weights.clear();  // unused
  } else if (!plan.weights.empty()) {
    if (plan.weights.size() != plan.ngram_indexes.size()) {
      return InvalidArgument("attribute 'weights' has ", plan.weights.size(),
                             " values; expected one per n-gram (",
                             plan.ngram_indexes.size(), ")");
    }
    if (plan.output_size > static_cast<int64_t>(plan.weights.size())) {
      return InvalidArgument(
          "ngram_indexes reach coordinate ", max_index,
          " but weights are read per output coordinate (as the ONNX reference "
          "implementation and ONNX Runtime do) and there are ",
          plan.weights.size());
    }
  }
  plan.trie = NgramTrie::Build(pool, starts, plan.min_gram, plan.max_gram);
  return plan;
}

// Adds the row's n-gram counts into counts[output coordinate].
template <typename T>
void CountRow(const TfIdfPlan& plan, const T* row, int64_t* counts) {
  const int64_t length = plan.row_length;
  const NgramTrie& trie = plan.trie;
  int64_t start_size = plan.min_gram;
  // Skips past the row's length find nothing new: bounded, so a huge
  // max_skip_count does not loop for nothing.
  const int64_t last_distance =
      std::min(plan.max_skip, std::max<int64_t>(length, 1)) + 1;
  for (int64_t distance = 1; distance <= last_distance; ++distance) {
    for (int64_t start = 0; start < length; ++start) {
      // No n-gram of start_size fits from here on (start + distance *
      // (start_size - 1) >= length, without overflow).
      if (start_size - 1 >= (length - start + distance - 1) / distance) break;
      const NgramTrie::Node* node = &trie.root();
      int64_t item = start;
      for (int64_t size = 1;
           !node->children.empty() && size <= plan.max_gram && item < length;
           ++size, item += distance) {
        node = trie.Child(*node, static_cast<int64_t>(row[item]));
        if (node == nullptr) break;
        if (size >= start_size && node->id != 0) {
          ++counts[plan.ngram_indexes[node->id - 1]];
        }
      }
    }
    // Unigrams do not depend on the distance: counted on the first pass only.
    if (start_size == 1) {
      start_size = 2;
      if (start_size > plan.max_gram) break;
    }
  }
}

void WeighRow(const TfIdfPlan& plan, const int64_t* counts, float* out) {
  const bool weighted = !plan.weights.empty();
  for (int64_t j = 0; j < plan.output_size; ++j) {
    const double w = weighted ? plan.weights[j] : 1.0;
    const int64_t c = counts[j];
    switch (plan.weighting) {
      case Weighting::kTF:
        out[j] = static_cast<float>(c);
        break;
      case Weighting::kIDF:
        out[j] = c > 0 ? static_cast<float>(w) : 0.0f;
        break;
      case Weighting::kTFIDF:
        // w * 0 is NaN for a NaN or infinite weight, as in the reference.
        out[j] = static_cast<float>(w * static_cast<double>(c));
        break;
    }
  }
}

absl::StatusOr<PreparedKernel> PrepareTfIdfVectorizer(
    const OpContext& context) {
  ASSIGN_OR_RETURN(TfIdfPlan plan, PlanTfIdf(context));
  const TensorInfo& x = context.inputs[0];
  const Shape out_shape = x.shape.rank() == 1
                              ? Shape{plan.output_size}
                              : Shape{plan.rows, plan.output_size};
  const size_t workspace =
      static_cast<size_t>(plan.output_size) * sizeof(int64_t);
  std::vector<std::pair<std::string, std::string>> params = {
      {"rows", StrCat(plan.rows)},
      {"row_length", StrCat(plan.row_length)},
      {"output_size", StrCat(plan.output_size)}};
  auto run = [plan = std::move(plan), workspace](
                 std::span<const TensorView> in,
                 std::span<const TensorView> out,
                 std::span<std::byte> scratch) -> absl::Status {
    const int64_t expected_in = plan.rows * plan.row_length;
    const int64_t expected_out = plan.rows * plan.output_size;
    if (in[0].NumElements() != expected_in ||
        out[0].NumElements() != expected_out || scratch.size() < workspace) {
      return absl::FailedPreconditionError(StrCat(
          "TfIdfVectorizer: run with X ", in[0].shape.ToString(), " and Y ",
          out[0].shape.ToString(), " but prepared for ", plan.rows, " rows of ",
          plan.row_length, " tokens and ", plan.output_size, " outputs each"));
    }
    int64_t* counts = reinterpret_cast<int64_t*>(scratch.data());
    float* y = out[0].as<float>();
    for (int64_t r = 0; r < plan.rows; ++r) {
      std::fill_n(counts, plan.output_size, 0);
      if (in[0].dtype == DType::kInt32) {
        CountRow(plan, in[0].as<const int32_t>() + r * plan.row_length, counts);
      } else {
        CountRow(plan, in[0].as<const int64_t>() + r * plan.row_length, counts);
      }
      WeighRow(plan, counts, y + r * plan.output_size);
    }
    return absl::OkStatus();
  };
  return Prepared({TensorInfo{DType::kFloat32, out_shape}},
                  MakeKernel(std::move(run), workspace, std::move(params)));
}

}  // namespace

absl::Status RegisterTfIdfOps(OpRegistry& registry) {
  return registry.RegisterAll({
      {"TfIdfVectorizer", 1, 1, 1, 1, PrepareTfIdfVectorizer},
  });
}

}  // namespace acldump
