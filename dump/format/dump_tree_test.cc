#include "dump/format/dump_tree.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "dump/format/dump_names.h"
#include "dump/format/testing/dump_test_util.h"

namespace acldump::dump {
namespace {

using testing::FakeOp;
using ::testing::HasSubstr;
using testing::ModelFolder;
using testing::NewTempDir;
using testing::WriteDumpFile;
using testing::WriteText;

FakeOp Op(const std::string& type, const std::string& name) {
  return FakeOp{type, name, {}, {}, {{{1, 2}}}};
}

TEST(ParseDumpFileNameTest, FiveParts) {
  std::optional<dump::DumpFileNameParts> n =
      dump::ParseDumpFileName("Conv.conv1bn1relu1.3.0.0001735732800000000");
  ASSERT_TRUE(n.has_value());
  EXPECT_EQ(n->op_type, "Conv");
  EXPECT_EQ(n->op_name, "conv1bn1relu1");
  EXPECT_EQ(n->task_id, 3u);
  EXPECT_EQ(n->stream_id, 0u);
  EXPECT_EQ(n->timestamp_us, 1735732800000000u);
  EXPECT_FALSE(dump::ParseDumpFileName("Conv.a.b.3.0.1"));  // six parts
  EXPECT_FALSE(dump::ParseDumpFileName("Conv.a.x.0.1"));    // task not a number
  EXPECT_FALSE(dump::ParseDumpFileName("Conv..1.0.1"));
  EXPECT_FALSE(dump::ParseDumpFileName("acl.json"));
}

TEST(ScanDumpTreeTest, ClassifiesPlacesAndOrders) {
  const std::string root = NewTempDir("tree");
  const std::string it0 = ModelFolder(root, 0);
  const std::string it1 = ModelFolder(root, 1);
  // Written out of order: the scan orders by task id, then timestamp.
  WriteDumpFile(it0, Op("Relu", "relu"), 1, 30);
  WriteDumpFile(it0, Op("Conv", "conv"), 0, 20);
  WriteDumpFile(it0, Op("Data", "input"), 0, 10);
  WriteDumpFile(it1, Op("Conv", "conv"), 0, 40);
  WriteText(it1 + "/" + dump::DumpFileName("Relu", "relu", 1, 0, 50) + ".csv",
            "Input/Output,Index\nOutput,0\n");
  // A name too long for the file system: hashed, with mapping.csv.
  const std::string long_name =
      dump::DumpFileName("Add", std::string(300, 'x'), 2, 0, 60);
  const std::string hashed = dump::HashedName(it1 + "/" + long_name);
  WriteText(it1 + "/" + hashed, "not read by the scan");
  WriteText(it1 + "/mapping.csv", dump::MappingCsvLine(hashed, long_name));
  WriteText(it1 + "/Opdebug.Node_OpDebug.1.0.0000000000000055", "x");
  WriteText(it1 + "/Relu.relu.9.0.0000000000000099.tmp", "partial");
  WriteText(root + "/acl.json", "{}");
  // Single-op layout: {time}/{device}/file.
  WriteDumpFile(root + "/20250101120001/3", Op("Add", "add"), 0, 70);

  absl::StatusOr<DumpTree> tree = ScanDumpTree(root);
  ASSERT_TRUE(tree.ok()) << tree.status();
  EXPECT_EQ(tree->CountKind(EntryKind::kTensor), 6u);
  EXPECT_EQ(tree->CountKind(EntryKind::kStats), 1u);
  EXPECT_EQ(tree->CountKind(EntryKind::kOverflowRecord), 1u);
  EXPECT_EQ(tree->CountKind(EntryKind::kOther), 3u);  // mapping, .tmp, json
  ASSERT_EQ(tree->runs.size(), 3u);

  const DumpRun& first = tree->runs[0];
  EXPECT_EQ(first.layout, Layout::kModel);
  EXPECT_EQ(first.time, "20250101120000");
  EXPECT_EQ(first.device, 0);
  EXPECT_EQ(first.model, "net");
  EXPECT_EQ(first.model_id, 1);
  EXPECT_EQ(first.iteration, 0);
  ASSERT_EQ(first.files.size(), 3u);
  EXPECT_EQ(first.files[0]->name->op_name, "input");
  EXPECT_EQ(first.files[1]->name->op_name, "conv");
  EXPECT_EQ(first.files[2]->name->op_name, "relu");

  const DumpRun& second = tree->runs[1];
  EXPECT_EQ(second.iteration, 1);
  ASSERT_EQ(second.files.size(), 4u);
  EXPECT_EQ(second.files[1]->kind, EntryKind::kStats);
  EXPECT_EQ(second.files[2]->kind, EntryKind::kOverflowRecord);
  EXPECT_EQ(second.files[3]->kind, EntryKind::kTensor);
  EXPECT_EQ(second.files[3]->name->op_name, std::string(300, 'x'));

  EXPECT_EQ(tree->runs[2].layout, Layout::kSingleOp);
  EXPECT_EQ(tree->runs[2].device, 3);
}

TEST(ScanDumpTreeTest, StartsAtAnyLevelOrAFile) {
  const std::string root = NewTempDir("levels");
  const std::string it0 = ModelFolder(root, 0);
  const std::string file = WriteDumpFile(it0, Op("Conv", "conv"), 0, 1);
  for (const std::string& start : {it0, file}) {
    absl::StatusOr<DumpTree> tree = ScanDumpTree(start);
    ASSERT_TRUE(tree.ok());
    ASSERT_EQ(tree->runs.size(), 1u) << start;
    EXPECT_EQ(tree->runs[0].model, "net");
    EXPECT_EQ(tree->runs[0].iteration, 0);
  }
  EXPECT_FALSE(ScanDumpTree(root + "/missing").ok());
}

// A run that found its second's time folder taken writes to "{time}_N": that
// folder is in the layout like any other, and later than the one it follows.
TEST(ScanDumpTreeTest, TimeFoldersWithASuffixAreInTheLayout) {
  EXPECT_TRUE(IsTimeFolderName("20250101120000"));
  EXPECT_TRUE(IsTimeFolderName("20250101120000_1"));
  EXPECT_TRUE(IsTimeFolderName("20250101120000_12"));
  EXPECT_FALSE(IsTimeFolderName("20250101120000_"));
  EXPECT_FALSE(IsTimeFolderName("20250101120000_x"));
  EXPECT_FALSE(IsTimeFolderName("2025010112000"));
  EXPECT_FALSE(IsTimeFolderName("20250101120000x1"));
  EXPECT_TRUE(TimeFolderBefore("20250101120000", "20250101120000_1"));
  EXPECT_TRUE(TimeFolderBefore("20250101120000_2", "20250101120000_10"));
  EXPECT_FALSE(TimeFolderBefore("20250101120000_10", "20250101120000_2"));
  EXPECT_TRUE(TimeFolderBefore("20250101120000_9", "20250101120001"));

  const std::string root = NewTempDir("suffixed");
  WriteDumpFile(ModelFolder(root, 0, "net", "20250101120000_1"),
                Op("Conv", "conv"), 0, 1);
  absl::StatusOr<DumpTree> tree = ScanDumpTree(root);
  ASSERT_TRUE(tree.ok());
  ASSERT_EQ(tree->runs.size(), 1u);
  EXPECT_EQ(tree->runs[0].layout, Layout::kModel);
  EXPECT_EQ(tree->runs[0].time, "20250101120000_1");
  EXPECT_EQ(tree->runs[0].iteration, 0);
}

TEST(ParseExceptionFileNameTest, BriefNormAndModelForms) {
  std::optional<DumpFileNameParts> brief =
      ParseExceptionFileName("exception_info.0.7.20250101120000123");
  ASSERT_TRUE(brief.has_value());
  EXPECT_EQ(brief->op_type, "exception_info");
  EXPECT_EQ(brief->op_name, "");
  EXPECT_EQ(brief->stream_id, 0u);
  EXPECT_EQ(brief->task_id, 7u);
  EXPECT_EQ(brief->timestamp_us, 20250101120000123u);

  std::optional<DumpFileNameParts> norm =
      ParseExceptionFileName("Gather.gather1.3.20250101120000456");
  ASSERT_TRUE(norm.has_value());
  EXPECT_EQ(norm->op_type, "Gather");
  EXPECT_EQ(norm->op_name, "gather1");
  EXPECT_EQ(norm->task_id, 3u);
  EXPECT_EQ(norm->timestamp_us, 20250101120000456u);

  // The model dump form is read as ParseDumpFileName reads it.
  std::optional<DumpFileNameParts> model =
      ParseExceptionFileName("Conv.conv1.3.0.0001735732800000000");
  ASSERT_TRUE(model.has_value());
  EXPECT_EQ(model->op_name, "conv1");
  EXPECT_EQ(model->timestamp_us, 1735732800000000u);

  EXPECT_FALSE(ParseExceptionFileName("exception_info.x.7.20250101120000123"));
  EXPECT_FALSE(ParseExceptionFileName("Gather.gather1.3.2025010112000045"));
  EXPECT_FALSE(ParseExceptionFileName("Gather..3.20250101120000456"));
  EXPECT_FALSE(ParseExceptionFileName(".gather1.3.20250101120000456"));
  EXPECT_FALSE(ParseExceptionFileName("Gather.gather1.t.20250101120000456"));
  EXPECT_FALSE(ParseExceptionFileName("exception_info.0.7"));
}

// Exception files sit in extra-info/data-dump/{device}/ under their own
// names; outside that folder the same names are not dump files.
TEST(ScanDumpTreeTest, ReadsExceptionFolders) {
  const std::string root = NewTempDir("exception");
  const std::string folder = root + "/extra-info/data-dump/2";
  const std::string written = WriteDumpFile(folder, Op("Gather", "g"), 3, 1);
  const std::string norm = folder + "/Gather.g.3.20250101120000456";
  const std::string brief = folder + "/exception_info.0.4.20250101120000789";
  std::filesystem::copy_file(written, brief);
  std::filesystem::rename(written, norm);
  const std::string elsewhere = NewTempDir("exception_elsewhere");
  std::filesystem::copy_file(norm, elsewhere + "/Gather.g.3.20250101120000456");

  absl::StatusOr<DumpTree> tree = ScanDumpTree(root);
  ASSERT_TRUE(tree.ok()) << tree.status();
  EXPECT_EQ(tree->CountKind(EntryKind::kTensor), 2u);
  ASSERT_EQ(tree->runs.size(), 1u);
  const DumpRun& run = tree->runs[0];
  EXPECT_EQ(run.layout, Layout::kException);
  EXPECT_EQ(run.device, 2);
  EXPECT_EQ(run.Describe(), "exception dump, device 2");
  ASSERT_EQ(run.files.size(), 2u);
  EXPECT_EQ(run.files[0]->name->op_name, "g");
  EXPECT_EQ(run.files[0]->name->task_id, 3u);
  EXPECT_EQ(run.files[1]->name->op_type, "exception_info");
  EXPECT_EQ(run.files[1]->name->task_id, 4u);

  absl::StatusOr<DumpTree> other = ScanDumpTree(elsewhere);
  ASSERT_TRUE(other.ok()) << other.status();
  EXPECT_EQ(other->CountKind(EntryKind::kTensor), 0u);
}

}  // namespace
}  // namespace acldump::dump

namespace acldump::dump {
namespace {

// The device writes two more forms: with a dump number before the task id
// (its stream path) and with an FFTS+ sub-task appended.
TEST(DumpTreeTest, DeviceFileNameForms) {
  std::optional<DumpFileNameParts> stream =
      ParseDumpFileName("Conv2D.conv1.3.17.2.1700000000000001");
  ASSERT_TRUE(stream.has_value());
  EXPECT_EQ(stream->op_name, "conv1");
  EXPECT_EQ(stream->dump_number, 3u);
  EXPECT_EQ(stream->task_id, 17u);
  EXPECT_EQ(stream->stream_id, 2u);
  EXPECT_EQ(stream->timestamp_us, 1700000000000001u);
  EXPECT_FALSE(stream->ffts.has_value());

  std::optional<DumpFileNameParts> ffts =
      ParseDumpFileName("MatMul.fc_1.9.1.1700000000000002.4.5.1.0");
  ASSERT_TRUE(ffts.has_value());
  EXPECT_EQ(ffts->op_type, "MatMul");
  EXPECT_EQ(ffts->task_id, 9u);
  ASSERT_TRUE(ffts->ffts.has_value());
  EXPECT_EQ(ffts->ffts->context_id, 5u);
  EXPECT_EQ(ffts->ffts->thread_id, 1u);
  EXPECT_EQ(ffts->ffts->device_id, 0u);
  EXPECT_FALSE(ffts->dump_number.has_value());

  EXPECT_FALSE(ParseDumpFileName("MatMul.fc_1.9.1.17.3.5.1.0").has_value());
  EXPECT_FALSE(ParseDumpFileName("MatMul.fc_1.x.9.1.17").has_value());
  EXPECT_FALSE(ParseDumpFileName("MatMul.fc_1.9.1.17.4.5").has_value());
}

}  // namespace
}  // namespace acldump::dump
