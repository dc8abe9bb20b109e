// Fault injection into every step of writing a dump file (mkdir, create, write,
// fsync, close, rename): ENOSPC, EIO, EACCES, a folder removed, short writes.
// For each: the model's results stay right, no partial file is left,
// FinalizeDump reports exactly the files that are missing, and the next dump
// session works again.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <mutex>

#include "base/error_kind.h"
#include "base/strings.h"
#include "dump/dump_manager.h"
#include "dump/format/dump_file.h"
#include "kernels/npy.h"
#include "runtime/model_loader.h"

namespace acldump::dump {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

enum class Step { kMkdir, kCreate, kWrite, kSync, kClose, kRename };

const char* StepName(Step step) {
  switch (step) {
    case Step::kMkdir:
      return "mkdir";
    case Step::kCreate:
      return "create";
    case Step::kWrite:
      return "write";
    case Step::kSync:
      return "fsync";
    case Step::kClose:
      return "close";
    case Step::kRename:
      return "rename";
  }
  return "?";
}

// The real file system, failing one step for files whose name contains `match`
// (or, for mkdir, directories), with a chosen error; short writes can be forced
// for every write.
class FaultyFileSystem final : public ForwardingFileSystem {
 public:
  Step step = Step::kWrite;
  absl::Status error =
      absl::ResourceExhaustedError("No space left on device (injected)");
  std::string match;          // only paths containing this fail
  bool short_writes = false;  // every write moves at most 7 bytes
  bool armed = true;
  std::atomic<int> injected{0};

  absl::Status MakeDirectoryAt(int dir, std::string_view name, int mode,
                               const std::string& path) override {
    if (Hit(Step::kMkdir, path)) return Inject();
    return ForwardingFileSystem::MakeDirectoryAt(dir, name, mode, path);
  }
  absl::StatusOr<int> CreateFileAt(int dir, int mode,
                                   const std::string& path) override {
    if (Hit(Step::kCreate, path)) return Inject();
    return ForwardingFileSystem::CreateFileAt(dir, mode, path);
  }
  absl::StatusOr<size_t> Write(int fd, std::span<const iovec> data,
                               const std::string& path) override {
    if (Hit(Step::kWrite, path)) return Inject();
    if (!short_writes) return ForwardingFileSystem::Write(fd, data, path);
    // At most 7 bytes of the first buffer.
    iovec first = data.front();
    first.iov_len = std::min<size_t>(first.iov_len, 7);
    return ForwardingFileSystem::Write(fd, {&first, 1}, path);
  }
  absl::Status Sync(int fd, const std::string& path) override {
    if (Hit(Step::kSync, path)) return Inject();
    return ForwardingFileSystem::Sync(fd, path);
  }
  absl::Status Close(int fd, const std::string& path) override {
    // The descriptor is released either way.
    absl::Status closed = ForwardingFileSystem::Close(fd, path);
    if (Hit(Step::kClose, path)) return Inject();
    return closed;
  }
  // The last step: naming the complete file.
  absl::Status LinkFileAt(int fd, int dir, std::string_view name,
                          const std::string& path) override {
    if (Hit(Step::kRename, path)) return Inject();
    return ForwardingFileSystem::LinkFileAt(fd, dir, name, path);
  }

 private:
  bool Hit(Step s, const std::string& path) const {
    return armed && s == step && path.find(match) != std::string::npos;
  }
  absl::Status Inject() {
    ++injected;
    return error;
  }
};

std::vector<std::string> FilesUnder(const std::string& root) {
  std::vector<std::string> files;
  if (!fs::exists(root)) return files;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (entry.is_regular_file()) files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

struct Outcome {
  absl::Status finalize;
  std::vector<std::string> files;
  bool outputs_match = true;
};

// Dumps every node of mlp_block for two iterations through `fs`, with `layer`
// appearing in the fault match. Compares outputs with an undumped run.
Outcome DumpRun(FaultyFileSystem& faulty, const std::string& dump_path,
                bool sync) {
  fs::remove_all(dump_path);
  fs::create_directories(dump_path);
  const std::string config = dump_path + ".json";
  std::ofstream(config)
      << R"({"dump":{"dump_path":")" << dump_path
      << R"(","dump_mode":"all","dump_list":[{"model_name":"mlp_block"}]}})";
  SessionOptions options;
  options.fs = &faulty;
  options.sync_files = sync;
  DumpManager manager(options);
  Outcome outcome;
  EXPECT_TRUE(manager.InitDump().ok());
  EXPECT_TRUE(manager.SetDump(config).ok());
  std::shared_ptr<CompiledModel> model =
      std::move(*LoadStaticModel(ModelSource::File("testdata/mlp_block.om")));
  std::shared_ptr<CompiledModel> plain =
      std::move(*LoadStaticModel(ModelSource::File("testdata/mlp_block.om")));
  Attachment attachment =
      manager.OnModelLoad(*model, ModelIdentity{1, "mlp_block", 0}, nullptr);
  EXPECT_TRUE(
      model->AttachObserver(attachment.observer, attachment.step_flags).ok());
  Tensor x = std::move(*ReadNpyFile("testdata/mlp_block.input.x.npy"));
  Tensor y(DType::kFloat32, Shape({2, 32})),
      y_plain(DType::kFloat32, Shape({2, 32}));
  HostBuffer in{x.data(), x.ByteSize()};
  for (int i = 0; i < 2; ++i) {
    MutableHostBuffer out{y.data(), y.ByteSize()};
    MutableHostBuffer out_plain{y_plain.data(), y_plain.ByteSize()};
    EXPECT_TRUE(model->Execute({&in, 1}, {&out, 1}).ok());
    EXPECT_TRUE(plain->Execute({&in, 1}, {&out_plain, 1}).ok());
    outcome.outputs_match &=
        std::memcmp(y.data(), y_plain.data(), y.ByteSize()) == 0;
  }
  outcome.finalize = manager.FinalizeDump();
  outcome.files = FilesUnder(dump_path);
  return outcome;
}

// 11 nodes (the converter fuses the spelled-out GELU into one) + the x data
// op, two iterations.
constexpr size_t kFilesPerRun = 2 * 12;

class WriterFaultTest : public ::testing::TestWithParam<std::tuple<Step, int>> {
};

TEST_P(WriterFaultTest, FailedFilesAreReportedAndAbsentOthersComplete) {
  const auto [step, error_index] = GetParam();
  const absl::Status errors[] = {
      absl::ResourceExhaustedError("No space left on device (injected ENOSPC)"),
      absl::InternalError("Input/output error (injected EIO)"),
      absl::PermissionDeniedError("Permission denied (injected EACCES)"),
  };
  const char* base = std::getenv("TEST_TMPDIR");
  const std::string dump_path =
      StrCat(base ? base : "/tmp", "/fault_", StepName(step), "_", error_index);
  FaultyFileSystem faulty;
  faulty.step = step;
  faulty.error = errors[error_index];
  // Fail the attention softmax's files (both iterations); for mkdir, iteration
  // 1's folder of model id 1.
  faulty.match = step == Step::kMkdir ? "mlp_block/1/1" : "Softmax.attn.";
  Outcome outcome = DumpRun(faulty, dump_path, /*sync=*/step == Step::kSync);
  EXPECT_TRUE(outcome.outputs_match);
  ASSERT_GT(faulty.injected.load(), 0);
  EXPECT_EQ(KindOf(outcome.finalize), ErrorKind::kWriteFile)
      << outcome.finalize;
  const size_t missing = step == Step::kMkdir ? kFilesPerRun / 2 : 2;
  EXPECT_THAT(outcome.finalize.message(),
              HasSubstr(StrCat(missing, " of ", kFilesPerRun,
                               " dump files could not be written")));
  EXPECT_THAT(outcome.finalize.message(), HasSubstr("injected"));
  if (step != Step::kMkdir) {
    EXPECT_THAT(outcome.finalize.message(), HasSubstr("Softmax.attn."));
  } else {
    // A file whose folder could not be made is named where it was meant to go.
    EXPECT_THAT(outcome.finalize.message(), HasSubstr("/mlp_block/1/1/"));
  }
  ASSERT_EQ(outcome.files.size(), kFilesPerRun - missing);
  for (const std::string& file : outcome.files) {
    EXPECT_THAT(file, ::testing::Not(::testing::EndsWith(".tmp")));
    EXPECT_THAT(file, ::testing::Not(HasSubstr(faulty.match)));
    EXPECT_TRUE(ReadDumpFile(file).ok())
        << file;  // every file present is complete
  }
  // The next session, without faults, writes everything.
  faulty.armed = false;
  Outcome again = DumpRun(faulty, dump_path, false);
  EXPECT_TRUE(again.finalize.ok()) << again.finalize;
  EXPECT_EQ(again.files.size(), kFilesPerRun);
}

INSTANTIATE_TEST_SUITE_P(
    EveryStepEveryError, WriterFaultTest,
    ::testing::Combine(::testing::Values(Step::kMkdir, Step::kCreate,
                                         Step::kWrite, Step::kSync,
                                         Step::kClose, Step::kRename),
                       ::testing::Values(0, 1, 2)),
    [](const auto& info) {
      return StrCat(StepName(std::get<0>(info.param)), "_",
                    std::array<const char*, 3>{
                        "ENOSPC", "EIO", "EACCES"}[std::get<1>(info.param)]);
    });

TEST(WriterFaultTest, ShortWritesStillProduceCompleteFiles) {
  FaultyFileSystem faulty;
  faulty.armed = false;
  faulty.short_writes = true;
  const char* base = std::getenv("TEST_TMPDIR");
  Outcome outcome =
      DumpRun(faulty, StrCat(base ? base : "/tmp", "/short_writes"), false);
  EXPECT_TRUE(outcome.finalize.ok()) << outcome.finalize;
  ASSERT_EQ(outcome.files.size(), kFilesPerRun);
  for (const std::string& file : outcome.files)
    EXPECT_TRUE(ReadDumpFile(file).ok()) << file;
}

}  // namespace
}  // namespace acldump::dump
