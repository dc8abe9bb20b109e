#include "tools/compare/compare.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <iterator>
#include <memory>
#include <vector>

#include "base/strings.h"
#include "dump/format/data_type.h"
#include "dump/format/stats_csv.h"
#include "dump/format/testing/dump_test_util.h"
#include "dump/stats.h"
#include "kernels/npy.h"

namespace acldump::tools {
namespace {

using dump::testing::FakeOp;
using dump::testing::FakeTensor;
using dump::testing::ModelFolder;
using dump::testing::NewTempDir;
using dump::testing::WriteDumpFile;
using dump::testing::WriteText;
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

// Trees the results point into live as long as the test.
const CompareTree& KeepTree(CompareTree tree) {
  static std::vector<std::unique_ptr<CompareTree>>* kept =
      new std::vector<std::unique_ptr<CompareTree>>;
  kept->push_back(std::make_unique<CompareTree>(std::move(tree)));
  return *kept->back();
}

const CompareTree& LoadTree(const std::string& path,
                            const CompareLoadOptions& options = {}) {
  absl::StatusOr<CompareTree> tree = LoadCompareTree(path, options);
  EXPECT_TRUE(tree.ok()) << tree.status();
  return KeepTree(tree.ok() ? *std::move(tree) : CompareTree{});
}

// The one folder of a side.
const CompareSide& Load(const std::string& path) {
  const CompareTree& tree = LoadTree(path);
  static const CompareSide* empty = new CompareSide;
  EXPECT_EQ(tree.folders.size(), 1u) << path;
  return tree.folders.empty() ? *empty : tree.folders[0];
}

// Enough files that several threads read the headers: the operators still
// come in execution order, and a damaged file is named, the first in order.
TEST(CompareTest, ManyHeadersAreReadInOrder) {
  const std::string root = NewTempDir("many_headers");
  const std::string dir = ModelFolder(root + "/a", 0);
  std::vector<std::string> paths;
  for (int i = 0; i < 300; ++i) {
    paths.push_back(WriteDumpFile(
        dir, FakeOp{"Add", StrCat("op", i), {}, {}, {{{1.0f * i}}}}, i,
        1000 + i));
  }
  const CompareTree& tree = LoadTree(root + "/a");
  ASSERT_EQ(tree.folders.size(), 1u);
  ASSERT_EQ(tree.folders[0].ops.size(), 300u);
  for (int i = 0; i < 300; ++i) {
    EXPECT_EQ(tree.folders[0].ops[i].name, StrCat("op", i));
  }
  for (int i : {250, 170}) {
    std::FILE* f = std::fopen(paths[i].c_str(), "wb");
    ASSERT_NE(f, nullptr);
    std::fputs("not a dump file", f);
    std::fclose(f);
  }
  absl::StatusOr<CompareTree> damaged = LoadCompareTree(root + "/a", {});
  ASSERT_FALSE(damaged.ok());
  EXPECT_THAT(damaged.status().message(), HasSubstr(paths[170]));
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
  EXPECT_EQ(r.ops[1].inputs, Verdict::kWithin);
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
  const CompareSide &a = Load(root + "/a"), &b = Load(root + "/b");
  const CompareResult r = CompareSides(a, b, {});
  EXPECT_FALSE(r.within());
  EXPECT_EQ(r.tensors_outside, 1u);
  ASSERT_TRUE(r.first_divergence.has_value());
  EXPECT_EQ(r.ops[*r.first_divergence].a->name, "b");
  EXPECT_THAT(r.divergence_note,
              HasSubstr("its inputs are within the tolerance"));
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
      CompareSides((Load(root + "/a")), Load(root + "/b"), {});
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
      CompareSides((Load(root + "/a")), Load(root + "/b"), {});
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
      CompareSides((Load(root + "/a")), Load(root + "/b"), {});
  EXPECT_FALSE(r.first_divergence.has_value());
  EXPECT_FALSE(r.within());
  EXPECT_THAT(r.divergence_note, HasSubstr("is an input of b (Mul, task 1)"));
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
      CompareSides((Load(root + "/fused")), Load(root + "/parts"), {});
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
  const CompareSide& b = Load(refs);
  EXPECT_EQ(b.kind, SideKind::kReference);
  CompareResult r = CompareSides((Load(root + "/dump")), b, {1e-3, 0});
  EXPECT_EQ(r.tensors_compared, 3u);  // outputs only
  EXPECT_EQ(r.tensors_outside, 1u);
  EXPECT_THAT(r.ops[2].tensors[0].problem,
              HasSubstr("shapes differ: 4 vs 2x2"));
  ASSERT_TRUE(r.first_divergence.has_value());
  EXPECT_EQ(r.ops[*r.first_divergence].a->name, "c");
  r = CompareSides((Load(root + "/dump")), b, {1e-4, 0});
  EXPECT_EQ(r.ops[*r.first_divergence].a->name, "b");
}

TEST(CompareTest, QuantizedCodesAreNotComparedWithRealValues) {
  // A quantized model's fused Conv dumps its 8-bit output under the float
  // Conv's name: comparing codes with real values would mean nothing.
  const std::string root = NewTempDir("codes");
  WriteChain(ModelFolder(root + "/dump", 0), {}, true);
  const std::string refs = root + "/refs";
  dump::testing::WriteText(refs + "/.keep", "");
  Tensor codes(DType::kUInt8, Shape({4}));
  for (int i = 0; i < 4; ++i) codes.as<uint8_t>()[i] = static_cast<uint8_t>(i);
  ASSERT_TRUE(WriteNpyFile(refs + "/a.npy", codes.view()).ok());
  const CompareResult r =
      CompareSides((Load(root + "/dump")), Load(refs), {1e-3, 0});
  ASSERT_FALSE(r.ops.empty());
  ASSERT_EQ(r.ops[0].tensors.size(), 1u);
  EXPECT_THAT(r.ops[0].tensors[0].problem, HasSubstr("types differ: "));
  EXPECT_THAT(r.ops[0].tensors[0].problem, HasSubstr(" vs uint8"));
  EXPECT_THAT(r.ops[0].tensors[0].problem, HasSubstr("--no-qdq-fusion"));
  EXPECT_FALSE(r.within());
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
      CompareSides((Load(root + "/dump")), Load(root + "/npy"), {});
  EXPECT_EQ(r.tensors_compared, 1u);
  EXPECT_EQ(r.ops[1].match, MatchKind::kConvertedName);
  EXPECT_TRUE(r.within());
}

// Two run roots with two iterations each: every (model, iteration) folder is
// compared, and a difference planted in iteration 1 is found there.
TEST(CompareTreeTest, PairsEveryIterationAndNamesTheDivergingOne) {
  const std::string root = NewTempDir("tree");
  for (int it : {0, 1}) {
    WriteChain(ModelFolder(root + "/a", it, "net", "20250101120000"), {}, true);
  }
  WriteChain(ModelFolder(root + "/b", 0, "net", "20250202120000"), {}, true);
  const std::string b1 = ModelFolder(root + "/b", 1, "net", "20250202120000");
  Chain v, perturbed;
  perturbed.b[1] = 60;
  auto op = [](const char* type, const char* name, std::vector<float> in,
               std::vector<float> out) {
    return FakeOp{type, name, {}, {{in}}, {{out}}};
  };
  WriteDumpFile(b1, op("Add", "a", v.x, v.a), 0, 1);
  WriteDumpFile(b1, op("Mul", "b", v.a, perturbed.b), 1, 2);
  WriteDumpFile(b1, op("Sub", "c", v.b, v.c), 2, 3);
  const CompareTree &a = LoadTree(root + "/a"), &b = LoadTree(root + "/b");
  ASSERT_EQ(a.folders.size(), 2u);
  const TreeCompareResult r = CompareTrees(a, b, {});
  ASSERT_EQ(r.pairs.size(), 2u);
  EXPECT_EQ(r.pairs[0].a->iteration, 0);
  EXPECT_TRUE(r.pairs[0].result.within());
  EXPECT_FALSE(r.within());
  EXPECT_EQ(r.exit_code(), 1);
  ASSERT_TRUE(r.first_pair.has_value());
  EXPECT_EQ(*r.first_pair, 1u);
  EXPECT_THAT(
      TreeDivergenceNote(r),
      HasSubstr("in net (id 1) iteration 1, device 0: b (Mul, task 1)"));
  // The worst element with its index and both values.
  const TensorComparison& t = r.pairs[1].result.ops[1].tensors[1];
  ASSERT_FALSE(t.worst.empty());
  EXPECT_EQ(t.worst[0].index, std::vector<int64_t>{1});
  EXPECT_EQ(t.worst[0].a, 6);
  EXPECT_EQ(t.worst[0].b, 60);
}

TEST(CompareTreeTest, ListsFoldersPresentOnOneSide) {
  const std::string root = NewTempDir("one_sided");
  for (int it : {0, 1, 2}) WriteChain(ModelFolder(root + "/a", it), {}, true);
  for (int it : {0, 1}) WriteChain(ModelFolder(root + "/b", it), {}, true);
  WriteChain(ModelFolder(root + "/b", 0, "other"), {}, true);
  const TreeCompareResult r =
      CompareTrees(LoadTree(root + "/a"), LoadTree(root + "/b"), {});
  EXPECT_EQ(r.pairs.size(), 2u);
  ASSERT_EQ(r.only_in_a.size(), 1u);
  EXPECT_EQ(r.only_in_a[0]->iteration, 2);
  ASSERT_EQ(r.only_in_b.size(), 1u);
  EXPECT_EQ(r.only_in_b[0]->model, "other");
  EXPECT_TRUE(r.within());
}

// The same folder in two time folders: the latest is compared, with a note.
TEST(CompareTreeTest, UsesTheLatestTimeFolder) {
  const std::string root = NewTempDir("latest");
  WriteChain(ModelFolder(root, 0, "net", "20250101120000"), {}, true);
  WriteChain(ModelFolder(root, 0, "net", "20250101120005"), {}, true);
  const CompareTree& tree = LoadTree(root);
  ASSERT_EQ(tree.folders.size(), 1u);
  EXPECT_EQ(tree.folders[0].time, "20250101120005");
  ASSERT_EQ(tree.notes.size(), 1u);
  EXPECT_THAT(tree.notes[0], HasSubstr("not those in 20250101120000"));
}

TEST(CompareTreeTest, FiltersSelectIterationsAndOperators) {
  const std::string root = NewTempDir("filters");
  WriteChain(ModelFolder(root, 0), {}, true);
  WriteChain(ModelFolder(root, 1), {}, true);
  absl::StatusOr<DumpFilter> filter =
      DumpFilter::Create({{"Mul,Sub"}, "", "1"});
  ASSERT_TRUE(filter.ok());
  const CompareTree& tree = LoadTree(root, {*filter, ""});
  ASSERT_EQ(tree.folders.size(), 1u);
  EXPECT_EQ(tree.folders[0].iteration, 1);
  ASSERT_EQ(tree.folders[0].ops.size(), 2u);
  EXPECT_EQ(tree.folders[0].ops[0].name, "b");
  EXPECT_EQ(tree.ops_filtered_out, 1u);
  filter = DumpFilter::Create({{}, "", "7"});
  ASSERT_TRUE(filter.ok());
  absl::StatusOr<CompareTree> none = LoadCompareTree(root, {*filter, ""});
  ASSERT_FALSE(none.ok());
  EXPECT_THAT(none.status().message(),
              HasSubstr("no dump folder of iteration 7 (iterations present: "
                        "0,1)"));
  EXPECT_FALSE(LoadCompareTree(NewTempDir("empty"), {}).ok());
}

// A graph input without a counterpart is not compared; the first operator
// outside is named, with the caveat that the divergence may start there.
TEST(CompareTest, EarlierOperatorsNotComparedAreNamed) {
  const std::string root = NewTempDir("not_compared");
  const std::string dir = ModelFolder(root + "/dump", 0);
  WriteDumpFile(dir, FakeOp{"Data", "x", {}, {}, {{{1, 2}}}}, 0, 1);
  WriteDumpFile(dir, FakeOp{"Relu", "r", {}, {}, {{{1, 2}}}}, 1, 2);
  const std::string refs = root + "/refs";
  dump::testing::WriteText(refs + "/.keep", "");
  Tensor t(DType::kFloat32, Shape{2});
  t.as<float>()[0] = 5;
  t.as<float>()[1] = 2;
  ASSERT_TRUE(WriteNpyFile(refs + "/r.output.0.npy", t.view()).ok());
  const CompareResult r = CompareSides(Load(root + "/dump"), Load(refs), {});
  EXPECT_EQ(r.ops_not_compared, 1u);
  EXPECT_EQ(r.ops[0].outputs, Verdict::kNotCompared);
  ASSERT_TRUE(r.first_divergence.has_value());
  EXPECT_EQ(r.basis, DivergenceBasis::kEarlierNotCompared);
  EXPECT_THAT(r.divergence_note,
              HasSubstr("1 earlier operator was not compared (x (Data)), so "
                        "the divergence may start there"));
  EXPECT_THAT(r.divergence_note, HasSubstr("worst at [0]: a 1, b 5"));
  // With the input among the references, the input itself diverges.
  t.as<float>()[0] = 9;
  ASSERT_TRUE(WriteNpyFile(refs + "/x.output.0.npy", t.view()).ok());
  const CompareResult with_input =
      CompareSides(Load(root + "/dump"), Load(refs), {});
  ASSERT_TRUE(with_input.first_divergence.has_value());
  EXPECT_EQ(*with_input.first_divergence, 0u);
  EXPECT_THAT(with_input.divergence_note, HasSubstr("this is a graph input"));
}

// ---- stats dumps: compared by checksum or statistics ----

// The stats CSV a stats dump writes for `op` (float32 tensors), with
// `columns` (empty: the SDK's default columns).
void WriteStatsFile(const std::string& dir, const FakeOp& op, uint32_t task,
                    uint64_t timestamp, std::vector<dump::StatColumn> columns) {
  std::vector<dump::StatsRow> rows;
  auto add = [&](const FakeTensor& t, bool is_input, uint32_t index) {
    Tensor tensor(DType::kFloat32,
                  Shape{static_cast<int64_t>(t.values.size())});
    std::copy(t.values.begin(), t.values.end(), tensor.as<float>());
    dump::StatsRow row;
    row.is_input = is_input;
    row.index = index;
    row.data_type = ToDumpDataType(DType::kFloat32);
    row.data_size = t.values.size() * sizeof(float);
    row.shape = {static_cast<int64_t>(t.values.size())};
    row.stats = dump::ComputeStats(tensor.view(), /*checksum=*/true);
    rows.push_back(row);
  };
  for (uint32_t i = 0; i < op.inputs.size(); ++i) add(op.inputs[i], true, i);
  for (uint32_t i = 0; i < op.outputs.size(); ++i) {
    add(op.outputs[i], false, i);
  }
  WriteText(StrCat(dir, "/", op.type, ".", op.name, ".", task, ".0.", timestamp,
                   ".csv"),
            dump::FormatStatsCsv(rows, columns));
}

void WriteStatsChain(const std::string& dir, const Chain& v,
                     std::vector<dump::StatColumn> columns) {
  auto op = [&](const char* type, const char* name, std::vector<float> in,
                std::vector<float> out) {
    return FakeOp{type, name, {}, {{in}}, {{out}}};
  };
  WriteStatsFile(dir, op("Add", "a", v.x, v.a), 0, 1, columns);
  WriteStatsFile(dir, op("Mul", "b", v.a, v.b), 1, 2, columns);
  WriteStatsFile(dir, op("Sub", "c", v.b, v.c), 2, 3, columns);
}

const std::vector<dump::StatColumn> kChecksumColumns = {
    dump::StatColumn::kMax, dump::StatColumn::kMin, dump::StatColumn::kAvg,
    dump::StatColumn::kChecksum};

// One ulp in b's output (its consumer c reads an unchanged copy): the
// checksums name b exactly; statistics, within a tolerance, do not see it.
TEST(CompareStatsTest, AOneUlpChangeIsNamedByChecksum) {
  const std::string root = NewTempDir("stats_ulp");
  WriteStatsChain(ModelFolder(root + "/a", 0), {}, kChecksumColumns);
  Chain changed;
  changed.b[1] = std::nextafter(changed.b[1], 100.0f);
  const Chain v;
  const std::string dir = ModelFolder(root + "/b", 0);
  auto op = [](const char* type, const char* name, std::vector<float> in,
               std::vector<float> out) {
    return FakeOp{type, name, {}, {{in}}, {{out}}};
  };
  WriteStatsFile(dir, op("Add", "a", v.x, v.a), 0, 1, kChecksumColumns);
  WriteStatsFile(dir, op("Mul", "b", v.a, changed.b), 1, 2, kChecksumColumns);
  WriteStatsFile(dir, op("Sub", "c", v.b, v.c), 2, 3, kChecksumColumns);
  const CompareTree& ta = LoadTree(root + "/a");
  EXPECT_EQ(ta.kind, SideKind::kStats);
  const CompareSide &a = Load(root + "/a"), &b = Load(root + "/b");
  ASSERT_EQ(a.ops.size(), 3u);
  ASSERT_EQ(a.ops[1].output_stats.size(), 1u);
  EXPECT_TRUE(a.ops[1].output_stats[0].checksum.has_value());

  const CompareResult r = CompareSides(a, b, {});
  EXPECT_EQ(r.tensors_compared, 6u);
  EXPECT_EQ(r.tensors_outside, 1u);
  ASSERT_TRUE(r.first_divergence.has_value());
  EXPECT_EQ(r.ops[*r.first_divergence].a->name, "b");
  EXPECT_EQ(r.basis, DivergenceBasis::kInputsWithin);
  const TensorComparison& out = r.ops[1].tensors[1];
  EXPECT_EQ(out.by, CompareBy::kChecksum);
  EXPECT_FALSE(out.within());
  EXPECT_THAT(r.divergence_note, HasSubstr("output 0 is not (Checksum "));
  EXPECT_THAT(r.divergence_note,
              HasSubstr(", statistics within the tolerance)"));

  CompareOptions by_stats;
  by_stats.by = CompareBy::kStats;
  const CompareResult s = CompareSides(a, b, by_stats);
  EXPECT_TRUE(s.within()) << s.divergence_note;
  EXPECT_EQ(s.ops[1].tensors[1].by, CompareBy::kStats);
}

// Without checksums (the SDK's default columns), statistics decide; a
// tolerance per column lets a known difference pass.
TEST(CompareStatsTest, StatisticsNameAPlantedDifference) {
  const std::string root = NewTempDir("stats_planted");
  WriteStatsChain(ModelFolder(root + "/a", 0), {}, {});
  Chain planted;
  planted.c = {3, 5, 7, 9.5f};
  planted.b = {4, 6, 8, 10};
  const std::string dir = ModelFolder(root + "/b", 0);
  const Chain v;
  WriteStatsFile(dir, FakeOp{"Add", "a", {}, {{v.x}}, {{v.a}}}, 0, 1, {});
  WriteStatsFile(dir, FakeOp{"Mul", "b", {}, {{v.a}}, {{v.b}}}, 1, 2, {});
  WriteStatsFile(dir, FakeOp{"Sub", "c", {}, {{v.b}}, {{planted.c}}}, 2, 3, {});
  const CompareSide &a = Load(root + "/a"), &b = Load(root + "/b");
  const CompareResult r = CompareSides(a, b, {});
  ASSERT_TRUE(r.first_divergence.has_value());
  EXPECT_EQ(r.ops[*r.first_divergence].a->name, "c");
  const TensorComparison& out = r.ops[2].tensors[1];
  EXPECT_EQ(out.by, CompareBy::kStats);
  // Max 9 vs 9.5 and Avg 6 vs 6.125 are outside; Min is not.
  EXPECT_EQ(out.tolerance.violations, 2u);
  EXPECT_EQ(StatsDifferenceText(out), "Max 9 vs 9.5; Avg 6 vs 6.125");
  EXPECT_THAT(r.divergence_note, HasSubstr("output 0 is not (Max 9 vs 9.5"));

  CompareOptions tolerant;
  for (const char* text : {"Max=0.5", "Avg=0.2,0"}) {
    absl::StatusOr<StatTolerance> t = ParseStatTolerance(text, 1e-3);
    ASSERT_TRUE(t.ok()) << t.status();
    tolerant.stat_tolerances.push_back(*t);
  }
  EXPECT_TRUE(CompareSides(a, b, tolerant).within());
  CompareOptions by_checksum;
  by_checksum.by = CompareBy::kChecksum;
  const CompareResult none = CompareSides(a, b, by_checksum);
  EXPECT_EQ(none.tensors_outside, 6u);
  EXPECT_THAT(none.ops[0].tensors[0].problem, HasSubstr("has no checksum"));
}

// A tensor dump against a stats dump of the same values: the tensor's
// statistics are computed as the stats writer computes them.
TEST(CompareStatsTest, TensorDumpAgainstStatsDump) {
  const std::string root = NewTempDir("stats_vs_tensor");
  WriteChain(ModelFolder(root + "/tensors", 0), {}, true);
  WriteStatsChain(
      ModelFolder(root + "/stats", 0), {},
      {dump::StatColumn::kMax, dump::StatColumn::kMin, dump::StatColumn::kAvg,
       dump::StatColumn::kL2norm, dump::StatColumn::kChecksum});
  const CompareSide &t = Load(root + "/tensors"), &s = Load(root + "/stats");
  const CompareResult r = CompareSides(t, s, {});
  EXPECT_TRUE(r.within()) << r.divergence_note;
  EXPECT_EQ(r.tensors_compared, 6u);
  ASSERT_FALSE(r.ops[0].tensors.empty());
  const TensorComparison& pair = r.ops[0].tensors[0];
  EXPECT_EQ(pair.by, CompareBy::kChecksum);
  std::vector<std::string> columns;
  for (const StatDiff& d : pair.stats) {
    columns.push_back(d.column);
    EXPECT_TRUE(d.within) << d.column << " " << d.a << " vs " << d.b;
  }
  EXPECT_THAT(columns, ::testing::ElementsAre("Checksum", "Count", "Max", "Min",
                                              "Avg", "L2norm"));
  EXPECT_EQ(pair.dtype_a, "DT_FLOAT");
  // And the other way round, by statistics.
  CompareOptions by_stats;
  by_stats.by = CompareBy::kStats;
  EXPECT_TRUE(CompareSides(s, t, by_stats).within());
}

TEST(CompareStatsTest, MalformedStatsFilesAndTolerancesAreNamed) {
  const std::string root = NewTempDir("stats_bad");
  const std::string dir = ModelFolder(root + "/a", 0);
  const std::string path = dir + "/Add.a.0.0.1.csv";
  WriteText(path, StrCat(dump::kDefaultStatsCsvHeader,
                         "\nSideways,0,16,DT_FLOAT,ND,4,1,1,1,4,0,0,0\n"));
  absl::StatusOr<CompareTree> bad = LoadCompareTree(root + "/a", {});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr(path));
  EXPECT_THAT(bad.status().message(),
              HasSubstr("Input/Output is 'Sideways', not Input or Output"));
  WriteText(path, StrCat(dump::StatsCsvHeader(kChecksumColumns),
                         "\nOutput,0,16,DT_FLOAT,ND,4,4,4,1,2.5,zz\n"));
  bad = LoadCompareTree(root + "/a", {});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(),
              HasSubstr("Checksum 'zz' is not a 64-bit hexadecimal number"));

  EXPECT_THAT(ParseStatTolerance("Nan=1", 0).status().message(),
              HasSubstr("counts and checksums compare exactly"));
  EXPECT_THAT(ParseStatTolerance("Max", 0).status().message(),
              HasSubstr("is not COLUMN=ATOL[,RTOL]"));
  EXPECT_THAT(ParseStatTolerance("Max=-1", 0).status().message(),
              HasSubstr("atol '-1' is not a non-negative number"));
  absl::StatusOr<StatTolerance> ok = ParseStatTolerance("L2norm=1e-5,0.5", 0);
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->atol, 1e-5);
  EXPECT_EQ(ok->rtol, 0.5);
}

}  // namespace
}  // namespace acldump::tools
