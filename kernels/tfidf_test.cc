// TfIdfVectorizer: hand-worked counts (skips, gram lengths, batches, the
// three weightings), NaN weights, the errors, and every ONNX backend node
// test of the operator.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "base/strings.h"
#include "kernels/testing/onnx_node_case.h"
#include "kernels/testing/op_tester.h"
#include "kernels/testing/test_values.h"

namespace acldump {
namespace {

using ::acldump::testing::Message;
using ::acldump::testing::OpTester;
using ::acldump::testing::Values;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using Ints = std::vector<int64_t>;

constexpr float kNan = std::numeric_limits<float>::quiet_NaN();

struct Config {
  std::string mode = "TF";
  int64_t min_gram = 1, max_gram = 1, max_skip = 0;
  Ints ngram_counts = {0};
  Ints ngram_indexes;
  Ints pool;
  std::vector<float> weights;
};

OpTester Vectorizer(const Config& c) {
  OpTester t("TfIdfVectorizer");
  t.Attr("mode", c.mode)
      .Attr("min_gram_length", c.min_gram)
      .Attr("max_gram_length", c.max_gram)
      .Attr("max_skip_count", c.max_skip)
      .Attr("ngram_counts", c.ngram_counts)
      .Attr("ngram_indexes", c.ngram_indexes)
      .Attr("pool_int64s", c.pool);
  if (!c.weights.empty()) t.Attr("weights", c.weights);
  return t;
}

// Runs and returns output 0, failing the test on an error.
Tensor RunOk(const OpTester& tester) {
  absl::StatusOr<std::vector<Tensor>> out = tester.Run();
  EXPECT_TRUE(out.ok()) << out.status();
  if (!out.ok() || out->size() != 1) return Tensor();
  return std::move((*out)[0]);
}

absl::Status RunError(const OpTester& tester) {
  absl::StatusOr<std::vector<Tensor>> out = tester.Run();
  EXPECT_FALSE(out.ok());
  return out.ok() ? absl::OkStatus() : out.status();
}

// ---------------------------------------------------------------------------------------------
// Counts

TEST(TfIdfVectorizerTest, TheSpecsBigramExample) {
  // pool [94, 17, 17, 36], ngram_indexes [1, 0], ngram_counts [0, 0]: Y[0]
  // counts [17, 36] and Y[1] counts [94, 17].
  Config c;
  c.min_gram = c.max_gram = 2;
  c.ngram_counts = {0, 0};
  c.ngram_indexes = {1, 0};
  c.pool = {94, 17, 17, 36};
  OpTester t = Vectorizer(c);
  t.Input<int64_t>({5}, {94, 17, 36, 12, 28});
  const Tensor y = RunOk(t);
  EXPECT_EQ(y.info(), (TensorInfo{DType::kFloat32, Shape{2}}));
  EXPECT_THAT(Values<float>(y), ElementsAre(1, 1));
}

TEST(TfIdfVectorizerTest, SkipsUpToMaxSkipCount) {
  // The spec's skip example: with 2 skips, [94, 12] and [17, 28].
  Config c;
  c.min_gram = c.max_gram = 2;
  c.ngram_counts = {0, 0};
  c.ngram_indexes = {0, 1};
  c.pool = {94, 12, 17, 28};
  for (const auto& [skip, count] :
       std::vector<std::pair<int64_t, float>>{{0, 0}, {1, 0}, {2, 1}, {3, 1}}) {
    c.max_skip = skip;
    OpTester t = Vectorizer(c);
    t.Input<int32_t>({5}, {94, 17, 36, 12, 28});
    EXPECT_THAT(Values<float>(RunOk(t)), ElementsAre(count, count))
        << "max_skip_count " << skip;
  }
}

TEST(TfIdfVectorizerTest, UnigramsCountOnceWhateverTheSkips) {
  // Unigrams 5, 6, 7 and the bigram [5, 6]. X = [5, 5, 6]: 5 twice, 6 once;
  // [5, 6] at distance 1 (positions 1, 2) and 2 (positions 0, 2).
  Config c;
  c.max_gram = 2;
  c.max_skip = 1;
  c.ngram_counts = {0, 3};
  c.ngram_indexes = {0, 1, 2, 3};
  c.pool = {5, 6, 7, 5, 6};
  OpTester t = Vectorizer(c);
  t.Input<int64_t>({3}, {5, 5, 6});
  EXPECT_THAT(Values<float>(RunOk(t)), ElementsAre(2, 1, 0, 2));
}

TEST(TfIdfVectorizerTest, GramLengthsOutsideTheRangeKeepTheirCoordinates) {
  // min_gram_length 2: the unigrams are not counted, and the bigram keeps
  // coordinate ngram_indexes[2].
  Config c;
  c.min_gram = 2;
  c.max_gram = 2;
  c.ngram_counts = {0, 2};
  c.ngram_indexes = {0, 1, 2};
  c.pool = {5, 6, 5, 6};
  OpTester t = Vectorizer(c);
  t.Input<int64_t>({3}, {5, 6, 5});
  EXPECT_THAT(Values<float>(RunOk(t)), ElementsAre(0, 0, 1));

  // max_gram_length 1: the bigram is not counted.
  c.min_gram = c.max_gram = 1;
  OpTester unigrams = Vectorizer(c);
  unigrams.Input<int64_t>({3}, {5, 6, 5});
  EXPECT_THAT(Values<float>(RunOk(unigrams)), ElementsAre(2, 1, 0));
}

TEST(TfIdfVectorizerTest, LongerNgramsWithoutTheirPrefixesInThePool) {
  // Only the trigram [1, 2, 3]; the walk passes through [1] and [1, 2].
  Config c;
  c.max_gram = 3;
  c.ngram_counts = {0, 0, 0};
  c.ngram_indexes = {0};
  c.pool = {1, 2, 3};
  OpTester t = Vectorizer(c);
  t.Input<int64_t>({6}, {1, 2, 3, 1, 2, 4});
  EXPECT_THAT(Values<float>(RunOk(t)), ElementsAre(1));
}

TEST(TfIdfVectorizerTest, SeveralNgramsOnOneCoordinateAddUp) {
  Config c;
  c.ngram_indexes = {0, 0};
  c.pool = {5, 6};
  OpTester t = Vectorizer(c);
  t.Input<int64_t>({4}, {5, 6, 6, 7});
  EXPECT_THAT(Values<float>(RunOk(t)), ElementsAre(3));
}

TEST(TfIdfVectorizerTest, AnNgramListedTwiceCountsForItsLastListing) {
  // As the reference implementation and ONNX Runtime.
  Config c;
  c.ngram_indexes = {0, 1};
  c.pool = {5, 5};
  OpTester t = Vectorizer(c);
  t.Input<int64_t>({2}, {5, 5});
  EXPECT_THAT(Values<float>(RunOk(t)), ElementsAre(0, 2));
}

TEST(TfIdfVectorizerTest, BatchRowsAreCountedApart) {
  Config c;
  c.max_gram = 2;
  c.ngram_counts = {0, 2};
  c.ngram_indexes = {0, 1, 2};
  c.pool = {-3, 9, -3, 9};  // negative token ids are ids like others
  OpTester t = Vectorizer(c);
  t.Input<int32_t>({3, 3}, {-3, 9, 0,  //
                            9, 9, 9,   //
                            1, 2, -3});
  const Tensor y = RunOk(t);
  EXPECT_EQ(y.info(), (TensorInfo{DType::kFloat32, Shape{3, 3}}));
  EXPECT_THAT(Values<float>(y), ElementsAre(1, 1, 1,  //
                                            0, 3, 0,  //
                                            1, 0, 0));
}

TEST(TfIdfVectorizerTest, Int32AndInt64GiveTheSameCounts) {
  Config c;
  c.max_gram = 2;
  c.max_skip = 2;
  c.ngram_counts = {0, 2};
  c.ngram_indexes = {3, 2, 1, 0};
  c.pool = {1, 2, 1, 2, 2, 1};
  const std::vector<int64_t> x = {1, 2, 2, 1, 3, 1, 2};
  OpTester wide = Vectorizer(c);
  wide.Input<int64_t>({7}, x);
  OpTester narrow = Vectorizer(c);
  narrow.Input<int32_t>({7}, std::vector<int32_t>(x.begin(), x.end()));
  const std::vector<float> expected = Values<float>(RunOk(wide));
  EXPECT_EQ(Values<float>(RunOk(narrow)), expected);
  // Unigrams: 1 at 0, 3, 5 and 2 at 1, 2, 6. [1, 2] at distance 1: (0,1),
  // (5,6); 2: (0,2); 3: (3,6). [2, 1] at 1: (2,3); 2: (1,3); 3: (2,5).
  EXPECT_THAT(expected, ElementsAre(3, 4, 3, 3));
}

TEST(TfIdfVectorizerTest, EmptyRowsGiveZeros) {
  Config c;
  c.ngram_indexes = {0, 2};
  c.pool = {1, 2};
  OpTester one = Vectorizer(c);
  one.Input<int64_t>({0}, {});
  Tensor y = RunOk(one);
  EXPECT_EQ(y.shape(), (Shape{3}));
  EXPECT_THAT(Values<float>(y), ElementsAre(0, 0, 0));

  OpTester batch = Vectorizer(c);
  batch.Input<int32_t>({2, 0}, {});
  y = RunOk(batch);
  EXPECT_EQ(y.shape(), (Shape{2, 3}));
  EXPECT_THAT(Values<float>(y), ElementsAre(0, 0, 0, 0, 0, 0));
}

TEST(TfIdfVectorizerTest, AHugeMaxSkipCountEndsAndSkipsAsFarAsTheRow) {
  Config c;
  c.min_gram = c.max_gram = 2;
  c.max_skip = std::numeric_limits<int64_t>::max();
  c.ngram_counts = {0, 0};
  c.ngram_indexes = {0};
  c.pool = {1, 2};
  OpTester t = Vectorizer(c);
  t.Input<int64_t>({6}, {1, 0, 0, 0, 0, 2});
  EXPECT_THAT(Values<float>(RunOk(t)), ElementsAre(1));
}

// ---------------------------------------------------------------------------------------------
// Weightings

// The pool of UnigramsCountOnceWhateverTheSkips: counts [2, 1, 0, 2].
Config Weighted(std::string mode, std::vector<float> weights) {
  Config c;
  c.mode = std::move(mode);
  c.max_gram = 2;
  c.max_skip = 1;
  c.ngram_counts = {0, 3};
  c.ngram_indexes = {0, 1, 2, 3};
  c.pool = {5, 6, 7, 5, 6};
  c.weights = std::move(weights);
  return c;
}

std::vector<float> RunWeighted(const Config& c) {
  OpTester t = Vectorizer(c);
  t.Input<int64_t>({3}, {5, 5, 6});
  return Values<float>(RunOk(t));
}

TEST(TfIdfVectorizerTest, IdfGivesTheWeightOfEveryNgramPresent) {
  EXPECT_THAT(RunWeighted(Weighted("IDF", {0.5f, 2, 3, 4})),
              ElementsAre(0.5f, 2, 0, 4));
  EXPECT_THAT(RunWeighted(Weighted("IDF", {})), ElementsAre(1, 1, 0, 1));
}

TEST(TfIdfVectorizerTest, TfIdfScalesTheCounts) {
  EXPECT_THAT(RunWeighted(Weighted("TFIDF", {0.5f, 2, 3, 4})),
              ElementsAre(1, 2, 0, 8));
  EXPECT_THAT(RunWeighted(Weighted("TFIDF", {})), ElementsAre(2, 1, 0, 2));
}

TEST(TfIdfVectorizerTest, TfIgnoresTheWeights) {
  EXPECT_THAT(RunWeighted(Weighted("TF", {0.5f, 2, 3, 4})),
              ElementsAre(2, 1, 0, 2));
  // Unused weights are not checked either (skl2onnx writes them in TF mode).
  EXPECT_THAT(RunWeighted(Weighted("TF", {1})), ElementsAre(2, 1, 0, 2));
}

TEST(TfIdfVectorizerTest, WeightsAreReadPerOutputCoordinate) {
  // As the reference implementation, ONNX Runtime and skl2onnx: unigram 5 is
  // on coordinate 1, so its count 2 is scaled by weights[1].
  Config c;
  c.mode = "TFIDF";
  c.ngram_indexes = {1, 0};
  c.pool = {5, 6};
  c.weights = {10, 20};
  OpTester t = Vectorizer(c);
  t.Input<int64_t>({3}, {5, 5, 6});
  EXPECT_THAT(Values<float>(RunOk(t)), ElementsAre(10, 40));
}

TEST(TfIdfVectorizerTest, NanAndInfiniteWeights) {
  // TFIDF multiplies every count, 0 included (NaN * 0 and inf * 0 are NaN, as
  // in the reference); IDF takes a weight only where its n-gram is present.
  std::vector<float> tfidf =
      RunWeighted(Weighted("TFIDF", {kNan, 2, kNan, INFINITY}));
  EXPECT_TRUE(std::isnan(tfidf[0]));
  EXPECT_EQ(tfidf[1], 2);
  EXPECT_TRUE(std::isnan(tfidf[2]));
  EXPECT_EQ(tfidf[3], INFINITY);

  std::vector<float> idf = RunWeighted(Weighted("IDF", {kNan, 2, kNan, 1}));
  EXPECT_TRUE(std::isnan(idf[0]));
  EXPECT_EQ(idf[1], 2);
  EXPECT_EQ(idf[2], 0);
  EXPECT_EQ(idf[3], 1);

  std::vector<float> zero_count =
      RunWeighted(Weighted("TFIDF", {1, 1, INFINITY, 1}));
  EXPECT_TRUE(std::isnan(zero_count[2]));
}

// ---------------------------------------------------------------------------------------------
// Errors

Config Valid() {
  Config c;
  c.max_gram = 2;
  c.ngram_counts = {0, 2};
  c.ngram_indexes = {0, 1, 2};
  c.pool = {5, 6, 5, 6};
  return c;
}

absl::Status ErrorOf(const Config& c) {
  OpTester t = Vectorizer(c);
  t.Input<int64_t>({3}, {5, 6, 5});
  return RunError(t);
}

TEST(TfIdfVectorizerTest, StringPoolsAreRefusedClearly) {
  OpTester t("TfIdfVectorizer");
  t.Attr("mode", std::string("TF"))
      .Attr("min_gram_length", int64_t{1})
      .Attr("max_gram_length", int64_t{1})
      .Attr("max_skip_count", int64_t{0})
      .Attr("ngram_counts", Ints{0})
      .Attr("ngram_indexes", Ints{0, 1})
      .Attr("pool_strings", std::vector<std::string>{"a", "b"});
  t.Input<int64_t>({2}, {0, 1});
  absl::Status status = RunError(t);
  EXPECT_EQ(status.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(Message(status),
              HasSubstr("TfIdfVectorizer: attribute 'pool_strings' needs "
                        "string input tensors, which acldump does not "
                        "support"));

  t.Attr("pool_int64s", Ints{1, 2});
  EXPECT_THAT(Message(RunError(t)),
              HasSubstr("'pool_strings' and 'pool_int64s' are both set"));
}

TEST(TfIdfVectorizerTest, InputTypeAndShapeErrors) {
  OpTester floats = Vectorizer(Valid());
  floats.Input<float>({3}, {5, 6, 5});
  EXPECT_THAT(Message(RunError(floats)),
              HasSubstr("input 'X' has unsupported type float32 (supported: "
                        "int32, int64)"));

  OpTester rank3 = Vectorizer(Valid());
  rank3.Input<int64_t>({1, 1, 3}, {5, 6, 5});
  EXPECT_THAT(Message(RunError(rank3)),
              HasSubstr("input 'X' has shape [1,1,3]; expected [C] or [N, C]"));

  OpTester scalar = Vectorizer(Valid());
  scalar.Input<int64_t>({}, {5});
  EXPECT_THAT(Message(RunError(scalar)),
              HasSubstr("input 'X' has shape []; expected [C] or [N, C]"));

  OpTester no_rows = Vectorizer(Valid());
  no_rows.Input<int64_t>({0, 3}, {});
  EXPECT_THAT(
      Message(RunError(no_rows)),
      HasSubstr("input 'X' has shape [0,3]; expected [N, C] with N > 0"));
}

TEST(TfIdfVectorizerTest, AttributeErrors) {
  struct Bad {
    std::function<void(Config&)> edit;
    std::string message;
  };
  const std::vector<Bad> cases = {
      {[](Config& c) { c.mode = "BM25"; },
       "attribute 'mode' is \"BM25\"; expected \"TF\", \"IDF\" or \"TFIDF\""},
      {[](Config& c) { c.min_gram = 0; },
       "attribute 'min_gram_length' is 0; expected at least 1"},
      {[](Config& c) { c.max_gram = 0; },
       "attribute 'max_gram_length' is 0; expected at least min_gram_length "
       "(1)"},
      {[](Config& c) { c.max_skip = -1; },
       "attribute 'max_skip_count' is -1; expected at least 0"},
      {[](Config& c) {
         c.ngram_counts = {2, 0};
       },
       "ngram_counts must not decrease; got [2,0]"},
      {[](Config& c) {
         c.ngram_counts = {0, 7};
       },
       "ngram_counts[1] is 7; expected a start in [0, 4] (pool_int64s holds 4 "
       "values)"},
      {[](Config& c) {
         c.ngram_counts = {0, 1};
       },
       "the 2-grams (pool_int64s[1:4]) are 3 values, not a multiple of 2"},
      {[](Config& c) { c.ngram_counts = {}; },
       "attribute 'ngram_counts' must not be empty"},
      {[](Config& c) {
         c.ngram_indexes = {0, 1};
       },
       "attribute 'ngram_indexes' has 2 values; expected one per n-gram of "
       "the pool (3)"},
      {[](Config& c) {
         c.ngram_indexes = {0, -1, 2};
       },
       "ngram_indexes[1] is -1; output coordinates are not negative"},
      {[](Config& c) {
         c.ngram_indexes = {0, 1, int64_t{1} << 50};
       },
       "max(ngram_indexes) is 1125899906842624, so output 'Y' would be too "
       "large"},
      {[](Config& c) {
         c.mode = "IDF";
         c.weights = {1, 2};
       },
       "attribute 'weights' has 2 values; expected one per n-gram (3)"},
      {[](Config& c) {
         c.mode = "TFIDF";
         c.ngram_indexes = {0, 1, 5};
         c.weights = {1, 2, 3};
       },
       "ngram_indexes reach coordinate 5 but weights are read per output "
       "coordinate (as the ONNX reference implementation and ONNX Runtime do) "
       "and there are 3"},
  };
  for (const Bad& bad : cases) {
    Config c = Valid();
    bad.edit(c);
    const absl::Status status = ErrorOf(c);
    EXPECT_THAT(Message(status), HasSubstr(bad.message));
    EXPECT_THAT(Message(status), HasSubstr("TfIdfVectorizer: "));
  }
}

TEST(TfIdfVectorizerTest, RequiredAttributes) {
  for (const char* name :
       {"mode", "min_gram_length", "max_gram_length", "max_skip_count",
        "ngram_counts", "ngram_indexes", "pool_int64s"}) {
    OpTester t("TfIdfVectorizer");
    const Config c = Valid();
    const std::vector<std::pair<std::string, AttrValue>> attrs = {
        {"mode", c.mode},
        {"min_gram_length", c.min_gram},
        {"max_gram_length", c.max_gram},
        {"max_skip_count", c.max_skip},
        {"ngram_counts", c.ngram_counts},
        {"ngram_indexes", c.ngram_indexes},
        {"pool_int64s", c.pool}};
    for (const auto& [attr, value] : attrs) {
      if (attr != name) t.Attr(attr, value);
    }
    t.Input<int64_t>({2}, {5, 6});
    EXPECT_THAT(Message(RunError(t)),
                HasSubstr(StrCat("attribute '", name, "' is required")));
  }
}

TEST(TfIdfVectorizerTest, RunRefusesBuffersOtherThanPrepared) {
  const Config c = Valid();
  Attributes attrs;
  attrs.Set("mode", c.mode);
  attrs.Set("min_gram_length", c.min_gram);
  attrs.Set("max_gram_length", c.max_gram);
  attrs.Set("max_skip_count", c.max_skip);
  attrs.Set("ngram_counts", c.ngram_counts);
  attrs.Set("ngram_indexes", c.ngram_indexes);
  attrs.Set("pool_int64s", c.pool);
  Tensor x = testing::MakeTensor<int64_t>({3}, {5, 6, 5});
  const std::vector<TensorInfo> infos = {x.info()};
  const std::vector<const TensorView*> constants = {nullptr};
  const OpContext context{"TfIdfVectorizer", attrs, infos, constants, 1};
  auto prepared = BuiltinOps().Prepare(context);
  ASSERT_TRUE(prepared.ok()) << prepared.status();
  Tensor small(DType::kFloat32, Shape{2});
  AlignedBuffer workspace(prepared->kernel->WorkspaceBytes());
  const std::vector<TensorView> in = {x.view()};
  const std::vector<TensorView> out = {small.view()};
  const absl::Status status = prepared->kernel->Run(
      in, out, std::span<std::byte>(workspace.data(), workspace.size()));
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(Message(status),
              HasSubstr("run with X [3] and Y [2] but prepared for 1 rows of 3 "
                        "tokens and 3 outputs each"));
}

// ---------------------------------------------------------------------------------------------
// The ONNX backend node tests (libonnx-testdata): counts, so bit-exact.

TEST(OnnxNodeTest, EveryTfIdfVectorizerBackendTestPasses) {
  namespace fs = std::filesystem;
  ASSERT_TRUE(fs::exists(testing::kOnnxNodeTestRoot))
      << testing::kOnnxNodeTestRoot << " is missing: install libonnx-testdata";
  int cases = 0;
  for (const fs::path& dir :
       testing::OnnxNodeTestDirs("test_tfidfvectorizer")) {
    SCOPED_TRACE(dir.filename().string());
    ++cases;
    auto node = testing::ReadOnnxNodeCase(dir / "model.onnx");
    ASSERT_TRUE(node.ok()) << node.status();
    EXPECT_EQ(node->op_type, "TfIdfVectorizer");
    EXPECT_EQ(node->domain, "");
    auto sets = testing::ReadOnnxNodeData(dir, *node);
    ASSERT_TRUE(sets.ok()) << sets.status();
    ASSERT_FALSE(sets->empty());
    for (testing::OnnxNodeData& set : *sets) {
      OpTester t(node->op_type, node->outputs.size());
      for (const auto& [name, value] : node->attrs.values())
        t.Attr(name, value);
      for (Tensor& input : set.inputs) t.AddInput(std::move(input));
      const auto out = t.Run();
      ASSERT_TRUE(out.ok()) << out.status();
      ASSERT_EQ(out->size(), 1u);
      const Tensor& expected = set.outputs[0];
      ASSERT_EQ((*out)[0].info(), expected.info());
      EXPECT_EQ(
          std::memcmp((*out)[0].data(), expected.data(), expected.ByteSize()),
          0)
          << ::testing::PrintToString(Values<float>((*out)[0])) << " vs "
          << ::testing::PrintToString(Values<float>(expected));
    }
  }
  // libonnx-testdata 1.12: 7 cases.
  EXPECT_GE(cases, 7);
}

}  // namespace
}  // namespace acldump
