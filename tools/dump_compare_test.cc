#include "tools/dump_compare.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "dump/format/testing/dump_test_util.h"
#include "kernels/npy.h"
#include "tools/compare_report.h"

namespace acldump::tools {
namespace {

using dump::testing::FakeOp;
using dump::testing::FakeTensor;
using dump::testing::ModelFolder;
using dump::testing::NewTempDir;
using dump::testing::WriteDumpFile;
using ::testing::HasSubstr;

// A three-op chain x -> a -> b -> c, each op's input the previous output.
struct Chain {
  std::vector<float> x = {1, 2, 3, 4}, a = {2, 3, 4, 5}, b = {4, 6, 8, 10},
                     c = {3, 5, 7, 9};
};

void WriteChain(const std::string& dir, const Chain& v, bool inputs) {
  auto op = [&](const char* type, const char* name, std::vector<float> in,
                std::vector<float> out) {
    FakeOp f{type, name, {}, {}, {{out}}};
    if (inputs) f.inputs = {{in}};
    return f;
  };
  WriteDumpFile(dir, op("Add", "a", v.x, v.a), 0, 1);
  WriteDumpFile(dir, op("Mul", "b", v.a, v.b), 1, 2);
  WriteDumpFile(dir, op("Sub", "c", v.b, v.c), 2, 3);
}

// Sides the results point into live as long as the test.
const CompareSide& Keep(CompareSide side) {
  static std::vector<std::unique_ptr<CompareSide>>* kept =
      new std::vector<std::unique_ptr<CompareSide>>;
  kept->push_back(std::make_unique<CompareSide>(std::move(side)));
  return *kept->back();
}

CompareSide Load(const std::string& path) {
  absl::StatusOr<CompareSide> side = LoadCompareSide(path, {});
  EXPECT_TRUE(side.ok()) << side.status();
  return side.ok() ? *std::move(side) : CompareSide{};
}

TEST(CompareTest, IdenticalDumpsMatch) {
  const std::string root = NewTempDir("identical");
  WriteChain(ModelFolder(root + "/a", 0), {}, true);
  WriteChain(ModelFolder(root + "/b", 0), {}, true);
  const CompareSide a = Load(root + "/a"), b = Load(root + "/b");
  ASSERT_EQ(a.ops.size(), 3u);
  const CompareResult r = CompareSides(a, b, {});
  EXPECT_TRUE(r.within());
  EXPECT_EQ(r.tensors_compared, 6u);
  EXPECT_FALSE(r.first_divergence.has_value());
  EXPECT_EQ(r.ops[1].match, MatchKind::kConvertedName);
  EXPECT_EQ(r.ops[1].inputs, Verdict::kMatch);
}

// Only b's output differs; c's input (a copy of b's output) was not touched:
// b is the first op whose inputs match and outputs do not.
TEST(CompareTest, PerturbedOutputNamesItsOperator) {
  const std::string root = NewTempDir("perturbed");
  WriteChain(ModelFolder(root + "/a", 0), {}, true);
  Chain perturbed;
  perturbed.b[2] = 80;
  auto op = [](const char* type, const char* name, std::vector<float> in,
               std::vector<float> out) {
    return FakeOp{type, name, {}, {{in}}, {{out}}};
  };
  const std::string dir = ModelFolder(root + "/b", 0);
  Chain v;
  WriteDumpFile(dir, op("Add", "a", v.x, v.a), 0, 1);
  WriteDumpFile(dir, op("Mul", "b", v.a, perturbed.b), 1, 2);
  WriteDumpFile(dir, op("Sub", "c", v.b, v.c), 2, 3);
  const CompareSide a = Load(root + "/a"), b = Load(root + "/b");
  const CompareResult r = CompareSides(a, b, {});
  EXPECT_FALSE(r.within());
  EXPECT_EQ(r.tensors_outside, 1u);
  ASSERT_TRUE(r.first_divergence.has_value());
  EXPECT_EQ(r.ops[*r.first_divergence].a->name, "b");
  EXPECT_THAT(r.divergence_note, HasSubstr("its inputs are within tolerance"));
  EXPECT_THAT(r.divergence_note, HasSubstr("max |a-b| 72"));
}

// Output-only dumps: a real divergence at b propagates to c; b is first.
TEST(CompareTest, OutputOnlyDumpsUseExecutionOrder) {
  const std::string root = NewTempDir("outputs_only");
  WriteChain(ModelFolder(root + "/a", 0), {}, false);
  Chain diverged;
  diverged.b = {4, 6, 9, 10};
  diverged.c = {3, 5, 8, 9};
  WriteChain(ModelFolder(root + "/b", 0), diverged, false);
  const CompareResult r =
      CompareSides(Keep(Load(root + "/a")), Load(root + "/b"), {});
  ASSERT_TRUE(r.first_divergence.has_value());
  EXPECT_EQ(r.ops[*r.first_divergence].a->name, "b");
  EXPECT_EQ(r.tensors_outside, 2u);
  EXPECT_THAT(r.divergence_note, HasSubstr("inputs were not compared"));
}

// An op whose inputs already differ cannot be the origin.
TEST(CompareTest, DifferingInputsPointUpstream) {
  const std::string root = NewTempDir("upstream");
  WriteChain(ModelFolder(root + "/a", 0), {}, true);
  Chain other;
  other.a = {9, 9, 9, 9};  // a's output and b's input differ alike
  other.b = {0, 0, 0, 0};
  other.c = {0, 0, 0, 0};
  other.x = {9, 9, 9, 9};
  WriteChain(ModelFolder(root + "/b", 0), other, true);
  const CompareResult r =
      CompareSides(Keep(Load(root + "/a")), Load(root + "/b"), {});
  EXPECT_FALSE(r.first_divergence.has_value());
  EXPECT_THAT(r.divergence_note, HasSubstr("starts upstream"));
}

// Input-only dumps: no output differs, but an input does.
TEST(CompareTest, InputOnlyDumpsPointAtTheProducer) {
  const std::string root = NewTempDir("inputs_only");
  auto write = [](const std::string& dir, std::vector<float> b_in) {
    WriteDumpFile(dir, FakeOp{"Add", "a", {}, {{{1, 2}}}, {}}, 0, 1);
    WriteDumpFile(dir, FakeOp{"Mul", "b", {}, {{b_in}}, {}}, 1, 2);
  };
  write(ModelFolder(root + "/a", 0), {3, 4});
  write(ModelFolder(root + "/b", 0), {3, 5});
  const CompareResult r =
      CompareSides(Keep(Load(root + "/a")), Load(root + "/b"), {});
  EXPECT_FALSE(r.first_divergence.has_value());
  EXPECT_FALSE(r.within());
  EXPECT_THAT(r.divergence_note, HasSubstr("is an input of b (task 1)"));
}

// A fused op (ab = a + b) against its unfused parts: matched through the
// original op that produced the output; the fused op's inputs are not paired.
TEST(CompareTest, FusedAgainstUnfusedByOriginalNames) {
  const std::string root = NewTempDir("fused");
  const Chain v;
  WriteDumpFile(ModelFolder(root + "/fused", 0),
                FakeOp{"Conv", "ab", {"a", "b"}, {{v.x}}, {{v.b, {}, 1, "b"}}},
                0, 1);
  WriteChain(ModelFolder(root + "/parts", 0), v, true);
  const CompareResult r =
      CompareSides(Keep(Load(root + "/fused")), Load(root + "/parts"), {});
  ASSERT_EQ(r.ops.size(), 1u);
  EXPECT_EQ(r.ops[0].match, MatchKind::kOriginalName);
  EXPECT_EQ(r.ops[0].b_name, "b");
  EXPECT_EQ(r.ops[0].inputs, Verdict::kNotCompared);
  EXPECT_TRUE(r.within());
  EXPECT_THAT(r.only_in_b, ::testing::ElementsAre("a", "c"));
}

TEST(CompareTest, NpyReferencesByOperatorName) {
  const std::string root = NewTempDir("npy");
  WriteChain(ModelFolder(root + "/dump", 0), {}, true);
  const std::string refs = root + "/refs";
  dump::testing::WriteText(refs + "/.keep", "");
  auto save = [&](const std::string& name, std::vector<float> values,
                  std::vector<int64_t> shape) {
    Tensor t(DType::kFloat32, Shape(shape));
    std::copy(values.begin(), values.end(), t.as<float>());
    ASSERT_TRUE(WriteNpyFile(refs + "/" + name + ".npy", t.view()).ok());
  };
  const Chain v;
  save("a", v.a, {4});
  save("b", {4, 6, 8.0005f, 10}, {4});
  save("c", v.c, {2, 2});  // a shape mismatch is a failure, not a crash
  const CompareSide b = Load(refs);
  EXPECT_EQ(b.kind, SideKind::kNpy);
  CompareResult r = CompareSides(Keep(Load(root + "/dump")), b, {1e-3, 0});
  EXPECT_EQ(r.tensors_compared, 3u);  // outputs only
  EXPECT_EQ(r.tensors_outside, 1u);
  EXPECT_THAT(r.ops[2].tensors[0].problem,
              HasSubstr("shapes differ: 4 vs 2x2"));
  ASSERT_TRUE(r.first_divergence.has_value());
  EXPECT_EQ(r.ops[*r.first_divergence].a->name, "c");
  r = CompareSides(Keep(Load(root + "/dump")), b, {1e-4, 0});
  EXPECT_EQ(r.ops[*r.first_divergence].a->name, "b");
}

TEST(CompareTest, NpyFilesOfConvertedDumps) {
  const std::string root = NewTempDir("converted");
  WriteChain(ModelFolder(root + "/dump", 0), {}, true);
  Tensor t(DType::kFloat32, Shape{4});
  const Chain v;
  std::copy(v.b.begin(), v.b.end(), t.as<float>());
  dump::testing::WriteText(root + "/npy/.keep", "");
  ASSERT_TRUE(
      WriteNpyFile(root + "/npy/Mul.b.1.0.0000000000000002.output.0.npy",
                   t.view())
          .ok());
  const CompareResult r =
      CompareSides(Keep(Load(root + "/dump")), Load(root + "/npy"), {});
  EXPECT_EQ(r.tensors_compared, 1u);
  EXPECT_EQ(r.ops[1].match, MatchKind::kConvertedName);
  EXPECT_TRUE(r.within());
}

TEST(CompareTest, PicksOneFolderAndSaysSo) {
  const std::string root = NewTempDir("pick");
  WriteChain(ModelFolder(root, 0), {}, true);
  WriteChain(ModelFolder(root, 1), {}, true);
  absl::StatusOr<CompareSide> side = LoadCompareSide(root, {});
  ASSERT_TRUE(side.ok());
  ASSERT_EQ(side->notes.size(), 1u);
  EXPECT_THAT(side->notes[0], HasSubstr("holds 2 dump folders"));
  EXPECT_THAT(side->description, HasSubstr("iteration 0"));
  side = LoadCompareSide(root, {1, ""});
  ASSERT_TRUE(side.ok());
  EXPECT_THAT(side->description, HasSubstr("iteration 1"));
  EXPECT_FALSE(LoadCompareSide(root, {7, ""}).ok());
  EXPECT_FALSE(LoadCompareSide(NewTempDir("empty"), {}).ok());
}

TEST(CompareReportTest, TextAndHtml) {
  const std::string root = NewTempDir("report");
  WriteChain(ModelFolder(root + "/a", 0), {}, true);
  Chain perturbed;
  perturbed.c = {3, 5, 7, 19};
  WriteChain(ModelFolder(root + "/b", 0), perturbed, true);
  const CompareSide a = Load(root + "/a"), b = Load(root + "/b");
  const CompareResult r = CompareSides(a, b, {});
  const ReportContext context{&a, &b, {}, {Metric::kCosine, Metric::kMaxAbs}};
  const std::string text = FormatCompareText(r, context);
  EXPECT_THAT(text, HasSubstr("first diverging operator: c (Sub, task 2)"));
  EXPECT_THAT(text, HasSubstr("<- first divergence"));
  EXPECT_THAT(text, HasSubstr("result: 6 tensors compared, 1 outside the "
                              "tolerance -> FAIL"));
  const std::string html = RenderCompareHtml(r, context);
  size_t rows = 0;
  for (size_t at = html.find("class=\"op-row"); at != std::string::npos;
       at = html.find("class=\"op-row", at + 1)) {
    ++rows;
  }
  EXPECT_EQ(rows, 6u);
  EXPECT_THAT(html, HasSubstr("<svg"));
  EXPECT_THAT(html, HasSubstr("class=\"bar first\""));
  EXPECT_THAT(html, HasSubstr("class=\"op-row first\" data-op=\"c\""));
  EXPECT_EQ(html.find("http://", html.find("<body")), std::string::npos)
      << "the page must not reference the network";
}

}  // namespace
}  // namespace acldump::tools
