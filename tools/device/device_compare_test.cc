#include "tools/device/device_compare.h"

#include <fstream>

#include "dump/format/testing/dump_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kernels/npy.h"

namespace acldump::tools {
namespace {

using dump::testing::FakeOp;
using dump::testing::FakeTensor;

void WriteReference(const std::string& dir, const std::string& op,
                    std::vector<float> values) {
  Tensor t(DType::kFloat32, Shape{static_cast<int64_t>(values.size())});
  std::copy(values.begin(), values.end(), t.as<float>());
  std::ofstream(dir + "/" + op + ".output.0.npy", std::ios::binary)
      << *EncodeNpy(t.view());
}

const OpComparison* Find(const CompareResult& r, const std::string& name) {
  for (const OpComparison& op : r.ops) {
    if (op.a->name == name) return &op;
  }
  return nullptr;
}

// A device tree named after the real converter graph of tdnn (its operators,
// their original names and edges, and the converter's quirks: a TransData
// before a Conv carrying the Conv's name, a Conv whose output names no
// original), matched through that graph with a reference of the originals.
TEST(DeviceCompareTest, MatchesThroughTheTdnnConverterGraph) {
  const std::string root = dump::testing::NewTempDir("tdnn_device");
  const std::string dir = dump::testing::ModelFolder(root, 0, "tdnn");
  const FakeTensor a{{1, 2}}, padded{{0, 1, 2, 0}}, c{{5, 6}}, bn{{7, 8}};
  const std::vector<FakeOp> ops = {
      {"Cast", "trans_Cast_0", {}, {a}, {a}},
      {"Transpose",
       "PartitionedCall_Transpose_0_Transpose_1",
       {},
       {a, {{0, 1}}},
       {a}},
      {"PadV3", "Pad_49", {}, {a}, {padded}},
      {"TransData", "trans_TransData_4", {}, {padded}, {padded}},
      {"Conv2D",
       "PartitionedCall_Conv_52_Conv2D_12",
       {},
       {padded, {{1, 1}}},
       {c}},
      {"TransData", "trans_Cast_10trans_TransData_8", {}, {c}, {c}},
      {"Transpose",
       "trans_Cast_10PartitionedCall_Transpose_53_Transpose_15",
       {},
       {c},
       {c}},
      {"LeakyRelu", "LeakyRelu_54", {}, {c}, {c}},
      {"Transpose", "PartitionedCall_Transpose_55_Transpose_21", {}, {c}, {c}},
      {"BNInferenceD", "BatchNormalization_60_BNInferenceD", {}, {c}, {bn}},
  };
  for (size_t i = 0; i < ops.size(); ++i) {
    FakeOp op = ops[i];
    op.device = true;
    dump::testing::WriteDumpFile(dir, op, static_cast<uint32_t>(i + 1),
                                 100 + i);
  }
  const std::string ref = dump::testing::NewTempDir("tdnn_reference");
  WriteReference(ref, "feats", {1, 2});
  WriteReference(ref, "Transpose_0", {1, 2});
  WriteReference(ref, "Conv_52", {5, 6});
  WriteReference(ref, "Transpose_53", {5, 6});
  WriteReference(ref, "Transpose_55", {5, 6});
  WriteReference(ref, "BatchNormalization_60", {7, 8.5});

  absl::StatusOr<DeviceGraph> graph =
      LoadDeviceGraph("testdata/atc-json/tdnn.om.json");
  ASSERT_TRUE(graph.ok()) << graph.status();
  absl::StatusOr<CompareTree> device = LoadCompareTree(root, {});
  ASSERT_TRUE(device.ok()) << device.status();
  const GraphApplication applied = ApplyDeviceGraph(*graph, *device);
  EXPECT_EQ(applied.ops_found, ops.size());
  EXPECT_TRUE(applied.ops_missing.empty());
  MarkDeviceOnlyOperators(*device);

  const CompareSide& folder = device->folders.front();
  const std::vector<OpRelation> relations = ClassifyRelations(folder);
  std::map<std::string, Relation> relation_of;
  for (size_t i = 0; i < relations.size(); ++i) {
    relation_of[folder.ops[i].name] = relations[i].relation;
  }
  EXPECT_EQ(relation_of["trans_Cast_0"], Relation::kDeviceOnly);
  EXPECT_EQ(relation_of["Pad_49"], Relation::kDeviceOnly);
  EXPECT_EQ(relation_of["trans_TransData_4"], Relation::kDeviceOnly);
  EXPECT_EQ(relation_of["PartitionedCall_Conv_52_Conv2D_12"],
            Relation::kOneToOne);
  EXPECT_EQ(relation_of["PartitionedCall_Transpose_55_Transpose_21"],
            Relation::kOneToMany);  // BNInferenceD carries Transpose_55 too
  EXPECT_EQ(relation_of["BatchNormalization_60_BNInferenceD"],
            Relation::kManyToMany);

  absl::StatusOr<CompareTree> truth = LoadCompareTree(ref, {});
  ASSERT_TRUE(truth.ok()) << truth.status();
  CompareOptions options;
  options.original_names_only = true;
  const TreeCompareResult result = CompareTrees(*device, *truth, options);
  ASSERT_EQ(result.pairs.size(), 1u);
  const CompareResult& r = result.pairs[0].result;

  // The Transpose's input, through the device's Cast, is the graph input.
  const OpComparison* transpose =
      Find(r, "PartitionedCall_Transpose_0_Transpose_1");
  ASSERT_NE(transpose, nullptr);
  EXPECT_EQ(transpose->inputs, Verdict::kWithin);
  EXPECT_EQ(transpose->outputs, Verdict::kWithin);
  EXPECT_EQ(transpose->b_name, "Transpose_0");
  // The Conv's output names no original: its only original op stands in.
  // Its input comes through a TransData that carries the Conv's own name: it
  // is not compared with the Conv's output.
  const OpComparison* conv = Find(r, "PartitionedCall_Conv_52_Conv2D_12");
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(conv->b_name, "Conv_52");
  EXPECT_EQ(conv->outputs, Verdict::kWithin);
  EXPECT_EQ(conv->inputs, Verdict::kNotCompared);
  // Device-only operators are not compared.
  EXPECT_EQ(Find(r, "trans_TransData_4")->outputs, Verdict::kNotCompared);
  EXPECT_EQ(Find(r, "trans_Cast_0")->outputs, Verdict::kNotCompared);
  // The fused BatchNormalization departs, its input (Transpose_55) within.
  ASSERT_TRUE(r.first_divergence.has_value());
  EXPECT_EQ(r.ops[*r.first_divergence].a->name,
            "BatchNormalization_60_BNInferenceD");
  EXPECT_EQ(r.basis, DivergenceBasis::kInputsWithin);

  const std::string csv = SdkResultCsv(result);
  EXPECT_THAT(csv, ::testing::HasSubstr(
                       "BNInferenceD,BatchNormalization_60_BNInferenceD,"
                       "DT_FLOAT,NaN,BatchNormalization_60,DT_FLOAT,NaN,"
                       "BatchNormalization_60_BNInferenceD:output:0,[2],"));
  EXPECT_THAT(csv, ::testing::HasSubstr(
                       "TransData,trans_TransData_4,DT_FLOAT,NaN,*,NaN,NaN,"
                       "trans_TransData_4:output:0,[4],NaN"));
}

}  // namespace
}  // namespace acldump::tools
