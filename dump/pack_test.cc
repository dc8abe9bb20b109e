// The packed layout end to end at the writer: records appended to one
// dump.pack per folder with an index, stats rows to one statistic.csv, each
// record complete or absent when a write fails half-way or the process dies
// mid-record, and readers that see every record as the SDK layout's file.
#include "dump/format/pack.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <future>
#include <iterator>
#include <set>

#include "base/status_macros.h"
#include "base/strings.h"
#include "dump/file_system.h"
#include "dump/format/dump_names.h"
#include "dump/format/dump_tree.h"
#include "dump/format/merged_stats.h"
#include "dump/format/stats_csv.h"
#include "dump/writer.h"

namespace acldump::dump {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Record i: "Add.add{i}.{i}.0.{1000+i}" in folder "0/m/1/{iteration}", its
// bytes `Content(i)`; stats records are the same name with ".csv" and a
// two-row stats CSV.
std::string Content(uint64_t i) {
  return std::string(10 + i * 37, static_cast<char>('a' + i % 26));
}
std::string StatsCsv(uint64_t i) {
  return StrCat(kDefaultStatsCsvHeader, "\n", "Output,0,4,DT_FLOAT,ND,1,", i,
                ",", i, ",", i, ",1,0,0,0\n", "Output,1,4,DT_FLOAT,ND,1,", i,
                ",", i, ",", i, ",1,0,0,0\n");
}

std::string RecordName(uint64_t i) {
  return StrCat("Add.add", i, ".", i, ".0.", 1000 + i);
}

class RecordRenderer final : public JobRenderer {
 public:
  absl::Status Render(const WriteJob& job, RenderedFile& file) const override {
    const uint64_t i = job.sequence;
    file.directory = StrCat("0/m/1/", job.iteration);
    file.name = RecordName(i);
    if (job.timestamp_us == 1) {  // a stats record
      file.form = RecordFile::kStatsCsv;
      file.head = StatsCsv(i);
    } else {
      file.head = Content(i);
    }
    return absl::OkStatus();
  }
};

// The same records as a model dump renders them: of their iteration folder,
// which the packed layout may keep in the model folder's pack.
class IterationRecordRenderer final : public JobRenderer {
 public:
  absl::Status Render(const WriteJob& job, RenderedFile& file) const override {
    RETURN_IF_ERROR(plain_.Render(job, file));
    file.per_iteration = true;
    return absl::OkStatus();
  }

 private:
  RecordRenderer plain_;
};

// Fails the write of one chosen record after it wrote part of it.
class TornWriteFileSystem final : public ForwardingFileSystem {
 public:
  std::string fail_on;  // pack writes of a record whose name contains this
  bool fail_truncate = false;
  absl::Status Truncate(int fd, uint64_t size,
                        const std::string& path) override {
    if (fail_truncate) return absl::InternalError("I/O error (injected)");
    return ForwardingFileSystem::Truncate(fd, size, path);
  }
  absl::StatusOr<size_t> Write(int fd, std::span<const iovec> data,
                               const std::string& path) override {
    if (!fail_on.empty() && data.size() > 1 && Names(data, fail_on)) {
      // Part of the frame reaches the file before the disk fills up.
      iovec part = data[0];
      part.iov_len = 9;
      RETURN_IF_ERROR(
          ForwardingFileSystem::Write(fd, {&part, 1}, path).status());
      return absl::ResourceExhaustedError("No space left on device (injected)");
    }
    return ForwardingFileSystem::Write(fd, data, path);
  }

 private:
  static bool Names(std::span<const iovec> data, std::string_view name) {
    for (const iovec& part : data) {
      if (std::string_view(static_cast<const char*>(part.iov_base),
                           part.iov_len)
              .starts_with(name)) {
        return true;
      }
    }
    return false;
  }
};

// Blocks the writer thread in its first job until released, so that the jobs
// submitted meanwhile reach it as one batch.
class HeldRenderer final : public JobRenderer {
 public:
  absl::Status Render(const WriteJob&, RenderedFile& file) const override {
    entered_.set_value();
    released_.wait();
    file.directory = "0/m/1/9";
    file.name = "Held.held.0.0.1";
    file.head = "held";
    return absl::OkStatus();
  }
  void AwaitWriter() { entered_.get_future().wait(); }
  void Release() { release_.set_value(); }

 private:
  mutable std::promise<void> entered_;
  std::promise<void> release_;
  std::shared_future<void> released_ = release_.get_future().share();
};

// Counts the appends to packs (writes of several parts) and to their indexes
// or statistic.csv (writes of one part).
class CountingFileSystem final : public ForwardingFileSystem {
 public:
  std::atomic<int> multi_part_writes{0};
  std::atomic<int> single_part_writes{0};
  absl::StatusOr<size_t> Write(int fd, std::span<const iovec> data,
                               const std::string& path) override {
    ++(data.size() > 1 ? multi_part_writes : single_part_writes);
    return ForwardingFileSystem::Write(fd, data, path);
  }
};

// Refuses to make iteration 1's folder.
class NoFolderFileSystem final : public ForwardingFileSystem {
 public:
  absl::Status MakeDirectoryAt(int dir, std::string_view name, int mode,
                               const std::string& path) override {
    if (path.ends_with("/0/m/1/1")) {
      return absl::PermissionDeniedError("Permission denied (injected)");
    }
    return ForwardingFileSystem::MakeDirectoryAt(dir, name, mode, path);
  }
};

// Fails every write to the pack's index.
class NoIndexFileSystem final : public ForwardingFileSystem {
 public:
  absl::StatusOr<size_t> Write(int fd, std::span<const iovec> data,
                               const std::string& path) override {
    if (data.size() == 1 &&
        std::string_view(static_cast<const char*>(data[0].iov_base),
                         data[0].iov_len)
                .find(",Add.") != std::string_view::npos) {
      return absl::ResourceExhaustedError("No space left on device (injected)");
    }
    return ForwardingFileSystem::Write(fd, data, path);
  }
};

// The names in `folder`.
std::set<std::string> Listing(const fs::path& folder) {
  std::set<std::string> names;
  for (const auto& e : fs::directory_iterator(folder))
    names.insert(e.path().filename().string());
  return names;
}

class PackTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ =
        fs::path(::testing::TempDir()) /
        StrCat("pack_test_",
               ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  // `one_batch`: the records reach the writer thread together, after a held
  // record of folder 9.
  absl::Status Write(const std::vector<std::pair<uint64_t, bool>>& records,
                     FileSystem* file_system = nullptr, bool one_batch = false,
                     const std::vector<uint64_t>& after_flush = {}) {
    DumpWriter::Options options;
    options.root = root_.string();
    options.packed = true;
    options.fs = file_system;
    DumpWriter writer(options);
    auto renderer = std::make_shared<RecordRenderer>();
    auto held = std::make_shared<HeldRenderer>();
    if (one_batch) {
      WriteJob job;
      job.renderer = held;
      writer.Submit(std::move(job));
      writer.Kick();
      held->AwaitWriter();
    }
    for (const auto& [i, stats] : records) {
      WriteJob job;
      job.renderer = renderer;
      job.sequence = i;
      job.iteration = i % 2;
      job.timestamp_us = stats ? 1 : 0;
      writer.Submit(std::move(job));
    }
    if (one_batch) held->Release();
    if (after_flush.empty()) return writer.Flush();
    writer.Flush().IgnoreError();  // the final Flush reports every failure
    for (uint64_t i : after_flush) {
      WriteJob job;
      job.renderer = renderer;
      job.sequence = i;
      job.iteration = i % 2;
      writer.Submit(std::move(job));
    }
    return writer.Flush();
  }
  fs::path Folder(int iteration) const {
    return root_ / StrCat("0/m/1/", iteration);
  }
  absl::StatusOr<PackContents> Pack(int iteration) const {
    return ReadPackContents((Folder(iteration) / kPackFileName).string());
  }
  // Record i of folder 0 as readers see it: its SDK-layout file.
  absl::StatusOr<std::string> Record(uint64_t i) const {
    return ReadDumpTreeFile((Folder(0) / RecordName(i)).string(), 1 << 20,
                            "dump file");
  }
  fs::path root_;
};

TEST_F(PackTest, RecordsOfAFolderGoToOnePackWithAnIndex) {
  ASSERT_TRUE(Write({{0, false}, {1, false}, {2, false}, {4, false}}).ok());
  EXPECT_THAT(Listing(Folder(0)),
              ElementsAre("dump.pack"));  // the index is inside
  absl::StatusOr<PackContents> pack = Pack(0);
  ASSERT_TRUE(pack.ok()) << pack.status();
  EXPECT_TRUE(pack->from_index);
  EXPECT_TRUE(pack->problem.empty());
  ASSERT_EQ(pack->records.size(), 3u);
  EXPECT_EQ(pack->records[1].name, "Add.add2.2.0.1002");
  // Each record reads as its SDK-layout file.
  for (uint64_t i : {0, 2, 4}) {
    absl::StatusOr<std::string> bytes = Record(i);
    ASSERT_TRUE(bytes.ok()) << bytes.status();
    EXPECT_EQ(*bytes, Content(i));
  }
  EXPECT_TRUE(absl::IsNotFound(Record(9).status()));
  // The same from scanning the frames when the index frame is gone.
  const fs::path pack_path = Folder(0) / kPackFileName;
  const std::string whole = ReadFile(pack_path);
  const uint64_t records_end =
      pack->records[2].data_offset + pack->records[2].data_bytes;
  fs::resize_file(pack_path, records_end);
  pack = ReadPackContents(pack_path.string());
  ASSERT_TRUE(pack.ok());
  EXPECT_FALSE(pack->from_index);
  EXPECT_TRUE(pack->problem.empty());
  ASSERT_EQ(pack->records.size(), 3u);
  EXPECT_EQ(pack->records[2].data_bytes, Content(4).size());
  // Packs of earlier versions: the index lines in dump.pack.index.
  std::ofstream(Folder(0) / kPackIndexFileName, std::ios::binary)
      << whole.substr(records_end + kPackFrameBytes,
                      whole.size() - records_end - kPackFrameBytes - 8);
  pack = ReadPackContents(pack_path.string());
  ASSERT_TRUE(pack.ok());
  EXPECT_TRUE(pack->from_index);
  ASSERT_EQ(pack->records.size(), 3u);
  EXPECT_EQ(pack->records[1].name, "Add.add2.2.0.1002");
}

TEST_F(PackTest, AFlushCompletesEveryPackWithItsIndex) {
  DumpWriter::Options options;
  options.root = root_.string();
  options.packed = true;
  DumpWriter writer(options);
  auto renderer = std::make_shared<RecordRenderer>();
  for (uint64_t i : {0, 2}) {
    WriteJob job;
    job.renderer = renderer;
    job.sequence = i;
    writer.Submit(std::move(job));
  }
  ASSERT_TRUE(writer.Flush().ok());
  // The writer lives on: what a reader sees after aclmdlFinalizeDump.
  absl::StatusOr<PackContents> pack = Pack(0);
  ASSERT_TRUE(pack.ok()) << pack.status();
  EXPECT_TRUE(pack->from_index);
  ASSERT_EQ(pack->records.size(), 2u);
  // A record after the flush follows the index frame; the pack reads whole.
  WriteJob job;
  job.renderer = renderer;
  job.sequence = 4;
  writer.Submit(std::move(job));
  ASSERT_TRUE(writer.Flush().ok());
  pack = Pack(0);
  ASSERT_TRUE(pack.ok()) << pack.status();
  EXPECT_FALSE(pack->from_index);
  EXPECT_TRUE(pack->problem.empty());
  ASSERT_EQ(pack->records.size(), 3u);
  EXPECT_EQ(pack->records[2].name, "Add.add4.4.0.1004");
}

TEST_F(PackTest, APackWrittenAgainIsReadWhole) {
  // Two writers (two dump sessions) append to one folder: the first pack's
  // index frame ends up between records and no longer describes the pack.
  ASSERT_TRUE(Write({{0, false}, {2, false}}).ok());
  ASSERT_TRUE(Write({{4, false}}).ok());
  absl::StatusOr<PackContents> pack = Pack(0);
  ASSERT_TRUE(pack.ok()) << pack.status();
  EXPECT_FALSE(pack->from_index);
  EXPECT_TRUE(pack->problem.empty());
  ASSERT_EQ(pack->records.size(), 3u);
  EXPECT_EQ(pack->records[2].name, "Add.add4.4.0.1004");
  EXPECT_EQ(*Record(4), Content(4));
}

TEST_F(PackTest, ABatchOfRecordsIsOneAppendWithTheSameBytes) {
  CountingFileSystem counting;
  ASSERT_TRUE(Write({{0, false}, {2, false}, {4, false}, {1, false}}, &counting,
                    /*one_batch=*/true)
                  .ok());
  // Folder 9 (the held record), folder 0 (three records), folder 1: one
  // append of records and one of the index frame each.
  EXPECT_EQ(counting.multi_part_writes, 3);
  EXPECT_EQ(counting.single_part_writes, 3);
  // The records back to back, then the index frame pointing at itself.
  std::string expected;
  std::string lines;
  for (uint64_t i : {0, 2, 4}) {
    const std::string name = RecordName(i);
    lines += PackIndexLine(expected.size(), name, Content(i).size());
    expected += PackFrame(name.size(), Content(i).size()) + name + Content(i);
  }
  expected += PackIndexFrame(lines, expected.size());
  EXPECT_EQ(ReadFile(Folder(0) / kPackFileName), expected);
  EXPECT_FALSE(fs::exists(Folder(0) / kPackIndexFileName));
  // Stats rows of a batch: one append to statistic.csv.
  fs::remove_all(root_);
  fs::create_directories(root_);
  CountingFileSystem counting_stats;
  ASSERT_TRUE(
      Write({{0, true}, {2, true}, {4, true}}, &counting_stats, true).ok());
  // The held record and its index frame, then one append of the header and
  // the rows of three records.
  EXPECT_EQ(counting_stats.multi_part_writes, 2);
  EXPECT_EQ(counting_stats.single_part_writes, 1);
  absl::StatusOr<std::vector<MergedStatsRecord>> rows =
      SplitMergedStats(ReadFile(Folder(0) / kMergedStatsFileName));
  ASSERT_TRUE(rows.ok()) << rows.status();
  ASSERT_EQ(rows->size(), 3u);
  EXPECT_EQ((*rows)[2].name, "Add.add4.4.0.1004.csv");
  EXPECT_EQ((*rows)[2].csv, StatsCsv(4));
}

TEST_F(PackTest, ACrashMidRecordLosesThatRecordOnly) {
  ASSERT_TRUE(Write({{0, false}, {2, false}}).ok());
  const fs::path pack = Folder(0) / kPackFileName;
  const std::string whole = ReadFile(pack);
  // The process died while the third record was half written: its frame and
  // part of its data are there, its index line is not.
  std::ofstream(pack, std::ios::app | std::ios::binary)
      << PackFrame(17, 1000) << "Add.add4.4.0.1004"
      << "partial";
  absl::StatusOr<PackContents> contents = ReadPackContents(pack.string());
  ASSERT_TRUE(contents.ok());
  EXPECT_FALSE(contents->from_index);  // the index no longer covers the pack
  ASSERT_EQ(contents->records.size(), 2u);
  EXPECT_THAT(contents->problem,
              HasSubstr(StrCat("40 bytes at offset ", whole.size(),
                               " ignored: a truncated record")));
  // A corrupt frame stops the scan there too.
  std::ofstream(pack, std::ios::trunc | std::ios::binary)
      << whole << "XXXXXXXXXXXXXXXXXXXXXXXX";
  contents = ReadPackContents(pack.string());
  ASSERT_TRUE(contents.ok());
  EXPECT_EQ(contents->records.size(), 2u);
  EXPECT_THAT(contents->problem, HasSubstr("no record frame (\"ADPK\")"));
}

TEST_F(PackTest, AFailedWriteIsCutBackAndReported) {
  TornWriteFileSystem torn;
  torn.fail_on = "Add.add2.";
  // One append of the three records fails half-way; each is then appended on
  // its own and only the torn one is missing.
  absl::Status flushed = Write({{0, false}, {2, false}, {4, false}}, &torn,
                               /*one_batch=*/true);
  ASSERT_FALSE(flushed.ok());
  EXPECT_THAT(std::string(flushed.message()),
              HasSubstr("1 of 4 dump files could not be written"));
  EXPECT_THAT(std::string(flushed.message()), HasSubstr("Add.add2.2.0.1002"));
  absl::StatusOr<PackContents> contents = Pack(0);
  ASSERT_TRUE(contents.ok());
  EXPECT_TRUE(contents->from_index);
  EXPECT_TRUE(contents->problem.empty());
  ASSERT_EQ(contents->records.size(), 2u);
  EXPECT_EQ(contents->records[0].name, "Add.add0.0.0.1000");
  EXPECT_EQ(contents->records[1].name, "Add.add4.4.0.1004");
  EXPECT_EQ(*Record(4), Content(4));
}

TEST_F(PackTest, APartialRecordThatCannotBeCutBackStopsThePack) {
  TornWriteFileSystem torn;
  torn.fail_on = "Add.add2.";
  torn.fail_truncate = true;
  absl::Status flushed = Write({{0, false}, {2, false}, {4, false}}, &torn,
                               /*one_batch=*/true, /*after_flush=*/{6});
  ASSERT_FALSE(flushed.ok());
  // The append of the batch tore and stays torn: every record of it is
  // reported, and so is a later one, never written after the partial bytes
  // (out of readers' reach).
  EXPECT_THAT(std::string(flushed.message()),
              HasSubstr("4 of 5 dump files could not be written"));
  EXPECT_THAT(std::string(flushed.message()), HasSubstr("Add.add6.6.0.1006"));
  EXPECT_THAT(std::string(flushed.message()),
              HasSubstr("cutting back the partial record failed"));
  EXPECT_THAT(std::string(flushed.message()),
              HasSubstr("nothing more is appended to it"));
  absl::StatusOr<PackContents> contents = Pack(0);
  ASSERT_TRUE(contents.ok());
  EXPECT_TRUE(contents->records.empty());
  EXPECT_THAT(contents->problem, HasSubstr("a truncated record frame"));
}

TEST_F(PackTest, ARecordWhoseFolderCannotBeMadeIsReportedByItsPath) {
  NoFolderFileSystem no_folder;
  absl::Status flushed = Write({{0, false}, {1, false}, {3, true}}, &no_folder);
  EXPECT_THAT(std::string(flushed.message()),
              HasSubstr("2 of 3 dump files could not be written"));
  EXPECT_THAT(std::string(flushed.message()),
              HasSubstr("/0/m/1/1/Add.add1.1.0.1001: "));
  EXPECT_THAT(std::string(flushed.message()),
              HasSubstr("/0/m/1/1/Add.add3.3.0.1003.csv: "));
  EXPECT_THAT(std::string(flushed.message()), HasSubstr("(injected)"));
  absl::StatusOr<std::string> kept = Record(0);
  ASSERT_TRUE(kept.ok()) << kept.status();
  EXPECT_EQ(*kept, Content(0));
}

TEST_F(PackTest, RecordsSurviveALostIndex) {
  NoIndexFileSystem no_index;
  ASSERT_TRUE(Write({{0, false}, {2, false}, {4, false}}, &no_index).ok());
  absl::StatusOr<PackContents> contents = Pack(0);
  ASSERT_TRUE(contents.ok());
  EXPECT_FALSE(contents->from_index);  // rebuilt from the frames
  EXPECT_TRUE(contents->problem.empty());
  EXPECT_EQ(contents->records.size(), 3u);
}

TEST_F(PackTest, StatsRowsGoToOneCsvPerFolder) {
  ASSERT_TRUE(Write({{0, true}, {2, true}, {1, true}}).ok());
  const std::string merged = ReadFile(Folder(0) / kMergedStatsFileName);
  EXPECT_EQ(
      merged,
      StrCat(kMergedStatsColumns, ",", kDefaultStatsCsvHeader, "\n",
             "Add,add0,0,0,1000,Output,0,4,DT_FLOAT,ND,1,0,0,0,1,0,0,0\n",
             "Add,add0,0,0,1000,Output,1,4,DT_FLOAT,ND,1,0,0,0,1,0,0,0\n",
             "Add,add2,2,0,1002,Output,0,4,DT_FLOAT,ND,1,2,2,2,1,0,0,0\n",
             "Add,add2,2,0,1002,Output,1,4,DT_FLOAT,ND,1,2,2,2,1,0,0,0\n"));
  // Split back: exactly the SDK layout's stats files.
  absl::StatusOr<std::vector<MergedStatsRecord>> split =
      SplitMergedStats(merged);
  ASSERT_TRUE(split.ok()) << split.status();
  ASSERT_EQ(split->size(), 2u);
  EXPECT_EQ((*split)[1].name, "Add.add2.2.0.1002.csv");
  EXPECT_EQ((*split)[1].csv, StatsCsv(2));
  EXPECT_EQ(*ReadDumpTreeFile((Folder(1) / "Add.add1.1.0.1001.csv").string(),
                              1 << 20, "stats CSV"),
            StatsCsv(1));
  // A row the writer did not finish is ignored.
  split = SplitMergedStats(merged + "Add,add4,4,0,1004,Output,0,4,DT_F");
  ASSERT_TRUE(split.ok());
  EXPECT_EQ(split->size(), 2u);
  // Names with commas and quotes survive the CSV.
  std::string header;
  std::string rows = "kept\n";
  ASSERT_TRUE(
      AppendMergedStatsRows("My,Op.a\"b.3.0.7.csv", StatsCsv(3), rows, &header)
          .ok());
  ASSERT_TRUE(rows.starts_with("kept\n"));
  split = SplitMergedStats(header + rows.substr(5));
  ASSERT_TRUE(split.ok()) << split.status();
  EXPECT_EQ((*split)[0].name, "My,Op.a\"b.3.0.7.csv");
  EXPECT_EQ((*split)[0].csv, StatsCsv(3));
  EXPECT_THAT(SplitMergedStats("a,b\n1,2\n").status().message(),
              HasSubstr("does not start with the columns"));
  // A record not named like an SDK stats file, or without a header line,
  // adds nothing.
  for (std::string_view bad : {"Add.add1.1.0.csv", "Add.add1.1.0.7.8.csv"}) {
    const absl::Status status =
        AppendMergedStatsRows(bad, StatsCsv(1), rows, nullptr);
    EXPECT_THAT(status.message(), HasSubstr("is not named {op_type}"));
  }
  EXPECT_THAT(
      AppendMergedStatsRows("Add.add1.1.0.7.csv", "no header", rows, nullptr)
          .message(),
      HasSubstr("has no header line"));
  EXPECT_TRUE(rows.starts_with("kept\n"));
  EXPECT_EQ(SplitMergedStats(header + rows.substr(5))->size(), 1u);
}

// Records i = 0..n-1 of iteration i / 2 (two per iteration), tensors or
// stats, as a model dump writes them, below a time folder in `root`;
// `flush_per_iteration`: each iteration on disk before the next is submitted.
absl::Status WriteIterations(const fs::path& root, DumpWriter::Options options,
                             uint64_t n, bool stats,
                             bool flush_per_iteration = false) {
  fs::create_directories(root);
  options.root = root.string();
  options.packed = true;
  DumpWriter writer(options);
  auto renderer = std::make_shared<IterationRecordRenderer>();
  for (uint64_t i = 0; i < n; ++i) {
    WriteJob job;
    job.renderer = renderer;
    job.sequence = i;
    job.iteration = i / 2;
    job.timestamp_us = stats ? 1 : 0;
    writer.Submit(std::move(job));
    if (flush_per_iteration && i % 2 == 1) RETURN_IF_ERROR(writer.Flush());
  }
  return writer.Flush();
}

TEST_F(PackTest, EveryIterationGoesToTheModelFoldersPack) {
  root_ /= "20261208000000";  // a time folder, as a dump session makes
  ASSERT_TRUE(WriteIterations(root_, {}, 6, /*stats=*/false).ok());
  // No folder per iteration: one pack in the model folder, its index inside.
  const fs::path model = root_ / "0/m/1";
  EXPECT_THAT(Listing(model), ElementsAre("dump.pack"));
  absl::StatusOr<PackContents> pack =
      ReadPackContents((model / kPackFileName).string());
  ASSERT_TRUE(pack.ok()) << pack.status();
  EXPECT_TRUE(pack->from_index);
  ASSERT_EQ(pack->records.size(), 6u);
  EXPECT_EQ(pack->records[0].name, "0/Add.add0.0.0.1000");
  EXPECT_EQ(pack->records[5].name, "2/Add.add5.5.0.1005");
  // Each record reads as its file in its iteration folder, which is not on
  // disk.
  for (uint64_t i = 0; i < 6; ++i) {
    absl::StatusOr<std::string> bytes = ReadDumpTreeFile(
        (Folder(i / 2) / RecordName(i)).string(), 1 << 20, "dump file");
    ASSERT_TRUE(bytes.ok()) << bytes.status();
    EXPECT_EQ(*bytes, Content(i));
  }
  EXPECT_TRUE(absl::IsNotFound(
      ReadDumpTreeFile((Folder(0) / RecordName(2)).string(), 1 << 20, "")
          .status()));
  // The tree: every record placed in its iteration, one run per iteration.
  absl::StatusOr<DumpTree> tree = ScanDumpTree(root_.string());
  ASSERT_TRUE(tree.ok()) << tree.status();
  EXPECT_THAT(tree->problems, ::testing::IsEmpty());
  ASSERT_EQ(tree->runs.size(), 3u);
  for (int64_t iteration = 0; iteration < 3; ++iteration) {
    const DumpRun& run = tree->runs[iteration];
    EXPECT_EQ(run.iteration, iteration);
    EXPECT_EQ(run.model_id, 1);
    EXPECT_EQ(run.directory, Folder(iteration).string());
    ASSERT_EQ(run.files.size(), 2u);
    EXPECT_EQ(run.files[0]->kind, EntryKind::kTensor);
    EXPECT_EQ(run.files[0]->file_name, RecordName(2 * iteration));
    EXPECT_EQ(run.files[0]->relative,
              StrCat("0/m/1/", iteration, "/", RecordName(2 * iteration)));
  }
  // An iteration folder given by its path reads from the model folder.
  tree = ScanDumpTree(Folder(1).string() + "/");
  ASSERT_TRUE(tree.ok()) << tree.status();
  ASSERT_EQ(tree->runs.size(), 1u);
  ASSERT_EQ(tree->entries.size(), 2u);
  EXPECT_EQ(tree->entries[0].relative, RecordName(2));
  EXPECT_EQ(tree->entries[1].path, (Folder(1) / RecordName(3)).string());
  EXPECT_TRUE(absl::IsNotFound(ScanDumpTree(Folder(7).string()).status()));
}

TEST_F(PackTest, StatsOfEveryIterationGoToTheModelFoldersCsv) {
  root_ /= "20261208000000";
  ASSERT_TRUE(WriteIterations(root_, {}, 4, /*stats=*/true).ok());
  const fs::path model = root_ / "0/m/1";
  EXPECT_THAT(Listing(model), ElementsAre("statistic.csv"));
  const std::string merged = ReadFile(model / kMergedStatsFileName);
  EXPECT_TRUE(merged.starts_with(StrCat("Iteration,", kMergedStatsColumns, ",",
                                        kDefaultStatsCsvHeader, "\n")))
      << merged;
  EXPECT_THAT(merged, HasSubstr("\n1,Add,add3,3,0,1003,Output,1,"));
  absl::StatusOr<std::vector<MergedStatsRecord>> split =
      SplitMergedStats(merged);
  ASSERT_TRUE(split.ok()) << split.status();
  ASSERT_EQ(split->size(), 4u);
  EXPECT_EQ((*split)[3].name, "1/Add.add3.3.0.1003.csv");
  EXPECT_EQ((*split)[3].csv, StatsCsv(3));
  EXPECT_THAT(
      SplitMergedStats("Iteration,Op Type,b\n1,2,3\n").status().message(),
      HasSubstr("(or Iteration,Op Type,Op Name,Task ID,Stream ID,"
                "Timestamp)"));
  for (uint64_t i = 0; i < 4; ++i) {
    EXPECT_EQ(*ReadDumpTreeFile(
                  (Folder(i / 2) / StrCat(RecordName(i), ".csv")).string(),
                  1 << 20, "stats CSV"),
              StatsCsv(i));
  }
  absl::StatusOr<DumpTree> tree = ScanDumpTree(root_.string());
  ASSERT_TRUE(tree.ok()) << tree.status();
  ASSERT_EQ(tree->runs.size(), 2u);
  EXPECT_EQ(tree->CountKind(EntryKind::kStats), 4u);
  EXPECT_EQ(tree->runs[1].iteration, 1);
  EXPECT_EQ(tree->runs[1].files[1]->packed_in,
            (model / kMergedStatsFileName).string());
}

TEST_F(PackTest, AFullModelFolderPackLeavesLaterIterationsTheirFolders) {
  root_ /= "20261208000000";
  DumpWriter::Options options;
  // Full after its first records, and the statistic.csv after its first rows.
  options.model_folder_pack_bytes = 1;
  options.model_folder_stats_bytes = 1;
  ASSERT_TRUE(WriteIterations(root_, options, 6, /*stats=*/false,
                              /*flush_per_iteration=*/true)
                  .ok());
  ASSERT_TRUE(WriteIterations(root_, options, 4, /*stats=*/true,
                              /*flush_per_iteration=*/true)
                  .ok());
  const fs::path model = root_ / "0/m/1";
  absl::StatusOr<PackContents> pack =
      ReadPackContents((model / kPackFileName).string());
  ASSERT_TRUE(pack.ok()) << pack.status();
  // Iteration 0 filled it; 1 and 2 have folders of their own.
  ASSERT_EQ(pack->records.size(), 2u);
  EXPECT_EQ(pack->records[1].name, "0/Add.add1.1.0.1001");
  EXPECT_THAT(Listing(model),
              ElementsAre("1", "2", "dump.pack", "statistic.csv"));
  EXPECT_THAT(Listing(Folder(2)), ElementsAre("dump.pack"));
  EXPECT_THAT(Listing(Folder(1)), ElementsAre("dump.pack", "statistic.csv"));
  EXPECT_EQ(Pack(2)->records[0].name, RecordName(4));
  // Wherever each went, each reads back, once.
  absl::StatusOr<DumpTree> tree = ScanDumpTree(root_.string());
  ASSERT_TRUE(tree.ok()) << tree.status();
  EXPECT_EQ(tree->CountKind(EntryKind::kTensor), 6u);
  EXPECT_EQ(tree->CountKind(EntryKind::kStats), 4u);
  EXPECT_EQ(tree->runs.size(), 3u);
  for (uint64_t i = 0; i < 6; ++i) {
    EXPECT_EQ(*ReadDumpTreeFile((Folder(i / 2) / RecordName(i)).string(),
                                1 << 20, "dump file"),
              Content(i));
  }
}

TEST_F(PackTest, RetentionKeepsAFolderPerIteration) {
  DumpWriter::Options options;
  options.keep_iterations = 5;
  ASSERT_TRUE(WriteIterations(root_, options, 4, /*stats=*/false).ok());
  EXPECT_THAT(Listing(root_ / "0/m/1"), ElementsAre("0", "1"));
  absl::StatusOr<PackContents> pack = Pack(1);
  ASSERT_TRUE(pack.ok()) << pack.status();
  ASSERT_EQ(pack->records.size(), 2u);
  EXPECT_EQ(pack->records[0].name, RecordName(2));
}

TEST_F(PackTest, ARecordNameMayHoldAnIterationOnly) {
  for (std::string_view good :
       {"Add.a.0.0.1", "0/Add.a.0.0.1", "18446744073709551615/x"}) {
    EXPECT_EQ(WhyNotAPackedRecordName(good), "") << good;
  }
  for (std::string_view bad : {"../x", "/x", "a/x", "1/../x", "1/2/x", "1/",
                               "/", "1/..", "123456789012345678901/x"}) {
    EXPECT_NE(WhyNotAPackedRecordName(bad), "") << bad;
  }
}

}  // namespace
}  // namespace acldump::dump
