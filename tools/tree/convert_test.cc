#include "tools/tree/convert.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "dump/format/testing/dump_test_util.h"
#include "kernels/half.h"
#include "kernels/npy.h"

namespace acldump::tools {
namespace {

using dump::testing::FakeOp;
using dump::testing::FakeTensor;
using dump::testing::ModelFolder;
using dump::testing::NewTempDir;
using dump::testing::WriteDumpFile;
using dump::testing::WriteText;

TEST(ConvertTest, TensorsToNpyMirroringTheTree) {
  const std::string root = NewTempDir("convert_in");
  const std::string dir = ModelFolder(root, 0);
  // float16 input, bfloat16 output with a 2x2 shape.
  const std::string file = WriteDumpFile(dir,
                                         FakeOp{"Cast",
                                                "cast",
                                                {},
                                                {{{1.5f, -2}, {}, 2}},
                                                {{{1, 2, 3, 4}, {2, 2}, 27}}},
                                         0, 7);
  WriteText(dir + "/Relu.relu.1.0.0000000000000008.csv", "Input/Output\n");
  WriteText(root + "/acl.json", "{}");
  absl::StatusOr<dump::DumpTree> tree = dump::ScanDumpTree(root);
  ASSERT_TRUE(tree.ok());
  const std::string out = NewTempDir("convert_out");
  absl::StatusOr<ConvertSummary> summary = ConvertDumpToNpy(*tree, out);
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_EQ(summary->dump_files, 1u);
  EXPECT_EQ(summary->npy_files, 2u);
  EXPECT_EQ(summary->copied, 1u);

  const std::string base =
      out + "/20250101120000/0/net/1/0/Cast.cast.0.0.0000000000000007";
  absl::StatusOr<Tensor> in = ReadNpyFile(base + ".input.0.npy");
  ASSERT_TRUE(in.ok()) << in.status();
  EXPECT_EQ(in->dtype(), DType::kFloat16);  // stays float16
  EXPECT_EQ(static_cast<float>(in->as<Float16>()[0]), 1.5f);
  absl::StatusOr<Tensor> output = ReadNpyFile(base + ".output.0.npy");
  ASSERT_TRUE(output.ok());
  EXPECT_EQ(output->dtype(), DType::kFloat32);  // bfloat16 widened
  EXPECT_EQ(output->shape(), (Shape{2, 2}));
  EXPECT_EQ(output->as<float>()[3], 4.0f);
  EXPECT_TRUE(std::filesystem::exists(
      out + "/20250101120000/0/net/1/0/Relu.relu.1.0.0000000000000008.csv"));
  EXPECT_FALSE(std::filesystem::exists(out + "/acl.json"));

  // One file: written straight into the output folder.
  tree = dump::ScanDumpTree(file);
  ASSERT_TRUE(tree.ok());
  const std::string single = NewTempDir("convert_single");
  ASSERT_TRUE(ConvertDumpToNpy(*tree, single).ok());
  EXPECT_TRUE(std::filesystem::exists(
      single + "/Cast.cast.0.0.0000000000000007.output.0.npy"));
}

TEST(ConvertTest, CorruptFileFails) {
  const std::string root = NewTempDir("convert_corrupt");
  WriteText(ModelFolder(root, 0) + "/Conv.conv.0.0.0000000000000001", "junk");
  absl::StatusOr<dump::DumpTree> tree = dump::ScanDumpTree(root);
  ASSERT_TRUE(tree.ok());
  absl::StatusOr<ConvertSummary> summary =
      ConvertDumpToNpy(*tree, NewTempDir("convert_corrupt_out"));
  ASSERT_FALSE(summary.ok());
  EXPECT_THAT(summary.status().message(), ::testing::HasSubstr("Conv.conv"));
}

}  // namespace
}  // namespace acldump::tools

namespace acldump::tools {
namespace {

// Golden files as the SDK's compare tools name them: by the original operator
// an output stands for, '/' and '.' replaced, with the dump's timestamp.
TEST(ConvertTest, GoldenFilesByOriginalOperator) {
  const std::string root = dump::testing::NewTempDir("golden_in");
  const std::string dir = dump::testing::ModelFolder(root, 0);
  dump::testing::WriteDumpFile(
      dir,
      dump::testing::FakeOp{
          "Conv", "blk/conv.1relu", {}, {}, {{{1, 2, 3}, {}, 1, "blk/relu.1"}}},
      0, 7);
  dump::testing::WriteDumpFile(
      dir, dump::testing::FakeOp{"Add", "add", {}, {}, {{{5}, {}, 1, ""}}}, 1,
      9);
  dump::testing::WriteText(dir + "/Relu.relu.2.0.0000000000000010.csv",
                           "Input/Output\n");
  absl::StatusOr<dump::DumpTree> tree = dump::ScanDumpTree(root);
  ASSERT_TRUE(tree.ok());
  const std::string out = dump::testing::NewTempDir("golden_out");
  absl::StatusOr<GoldenSummary> summary = ConvertDumpToGolden(*tree, out);
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_EQ(summary->dump_files, 2u);
  EXPECT_EQ(summary->npy_files, 2u);
  absl::StatusOr<Tensor> relu = ReadNpyFile(out + "/blk_relu_1.0.7.npy");
  ASSERT_TRUE(relu.ok()) << relu.status();
  EXPECT_EQ(relu->as<float>()[2], 3.0f);
  absl::StatusOr<Tensor> add = ReadNpyFile(out + "/add.0.9.npy");
  ASSERT_TRUE(add.ok()) << add.status();
  EXPECT_EQ(add->as<float>()[0], 5.0f);
  EXPECT_EQ(GoldenNamePart("a/b.c d"), "a_b_c d");
}

}  // namespace
}  // namespace acldump::tools
