// The watcher scene end to end: a kernel registered for this test only writes
// into its input (another operator's output it does not own); the watcher
// dump of that output shows the operator after which it changed.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>

#include "dump/dump_manager.h"
#include "dump/format/dump_file.h"
#include "dump/format/dump_tree.h"
#include "kernels/ops.h"
#include "runtime/compiled_model.h"

namespace acldump::dump {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

// Copies its input to its output, then overwrites the input with 42s.
class ClobberKernel final : public Kernel {
 public:
  absl::Status Run(std::span<const TensorView> inputs,
                   std::span<const TensorView> outputs,
                   std::span<std::byte>) const override {
    std::memcpy(outputs[0].data, inputs[0].data, inputs[0].ByteSize());
    float* victim = inputs[0].as<float>();
    std::fill(victim, victim + inputs[0].NumElements(), 42.0f);
    return absl::OkStatus();
  }
};

absl::StatusOr<PreparedKernel> PrepareClobber(const OpContext& context) {
  PreparedKernel prepared;
  prepared.outputs = {context.inputs[0]};
  prepared.kernel = std::make_unique<ClobberKernel>();
  return prepared;
}

GraphNode Node(std::string name, std::string op,
               std::vector<std::string> inputs,
               std::vector<std::string> original_names = {}) {
  GraphNode n;
  n.original_names =
      original_names.empty() ? std::vector<std::string>{name} : original_names;
  n.name = std::move(name);
  n.op_type = std::move(op);
  n.inputs = std::move(inputs);
  n.outputs = {n.name + ".out"};
  return n;
}

// x -> a (Relu) -> w (Neg) -> clean (Abs) ; w -> clobber (TestClobber) ;
// clean + w -> after (Add): w's output stays live until `after`.
std::unique_ptr<CompiledModel> CompileClobberModel() {
  static const OpRegistry* registry = [] {
    auto* ops = new OpRegistry(BuiltinOps());
    EXPECT_TRUE(
        ops->Register({"TestClobber", 1, 1, 1, 1, PrepareClobber}).ok());
    return ops;
  }();
  Graph graph;
  graph.name = "clobber";
  graph.inputs.push_back({"x", {DType::kFloat32, Shape({1, 8})}});
  graph.outputs.push_back({"after.out", {DType::kFloat32, Shape({1, 8})}});
  graph.outputs.push_back({"clobber.out", {DType::kFloat32, Shape({1, 8})}});
  graph.nodes = {Node("a", "Relu", {"x"}),
                 Node("w", "Neg", {"a.out"}, {"w_before_fusion", "w"}),
                 Node("clean", "Abs", {"w.out"}),
                 Node("clobber", "TestClobber", {"w.out"}),
                 Node("after", "Add", {"clean.out", "w.out"})};
  absl::StatusOr<std::unique_ptr<CompiledModel>> model =
      CompiledModel::Compile(std::move(graph), *registry);
  EXPECT_TRUE(model.ok()) << model.status();
  return model.ok() ? *std::move(model) : nullptr;
}

std::string TempDir(const std::string& name) {
  const char* base = std::getenv("TEST_TMPDIR");
  fs::path dir = fs::path(base ? base : "/tmp") / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

// Op name -> outputs of every dump file under `root`.
std::map<std::string, std::vector<std::string>> DumpsByOpName(
    const std::string& root) {
  std::map<std::string, std::vector<std::string>> dumps;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (!entry.is_regular_file() || entry.path().extension() == ".json")
      continue;
    absl::StatusOr<DumpFileContents> file = ReadDumpFile(entry.path());
    EXPECT_TRUE(file.ok()) << entry.path() << ": " << file.status();
    if (!file.ok()) continue;
    std::optional<DumpFileNameParts> parts =
        ParseDumpFileName(entry.path().filename().string());
    EXPECT_TRUE(parts.has_value()) << entry.path();
    if (parts) {
      EXPECT_EQ(parts->op_name, file->header.op_name());
    }
    dumps[file->header.op_name()] = file->outputs;
  }
  return dumps;
}

struct WatcherRun {
  std::map<std::string, std::vector<std::string>> dumps;
  std::vector<std::string> warnings;
  std::vector<std::string> files;
};

WatcherRun RunWatcher(const std::string& name, const std::string& dump_list) {
  const std::string dir = TempDir(name);
  const std::string config = dir + "/acl.json";
  std::ofstream(config) << R"({"dump": {"dump_path": ")" << dir
                        << R"(", "dump_scene": "watcher", "dump_list": )"
                        << dump_list << "}}";
  DumpManager manager;
  EXPECT_TRUE(manager.InitDump().ok());
  absl::Status set = manager.SetDump(config);
  EXPECT_TRUE(set.ok()) << set;
  std::unique_ptr<CompiledModel> model = CompileClobberModel();
  WatcherRun run;
  Attachment attachment = manager.OnModelLoad(
      *model, ModelIdentity{7, "clobber", 0}, &run.warnings);
  if (attachment.observer) {
    EXPECT_TRUE(
        model->AttachObserver(attachment.observer, attachment.step_flags).ok());
  }
  const float x[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  float after[8], clobbered[8];
  const HostBuffer in[] = {{x, sizeof(x)}};
  const MutableHostBuffer out[] = {{after, sizeof(after)},
                                   {clobbered, sizeof(clobbered)}};
  EXPECT_TRUE(model->Execute(in, out).ok());
  EXPECT_TRUE(manager.FinalizeDump().ok());
  run.dumps = DumpsByOpName(dir);
  for (const auto& [op_name, outputs] : run.dumps) run.files.push_back(op_name);
  return run;
}

std::string Floats(std::initializer_list<float> values) {
  return std::string(reinterpret_cast<const char*>(std::data(values)),
                     values.size() * sizeof(float));
}

TEST(WatcherTest, TheDumpShowsWhichOperatorOverwroteTheWatchedOutput) {
  WatcherRun run = RunWatcher("watcher_all", R"([{"watcher_nodes": ["w"]}])");
  EXPECT_TRUE(run.warnings.empty());
  // Every other operator is a layer; the watcher writes its own file too.
  EXPECT_THAT(run.files,
              ::testing::UnorderedElementsAre("a_To_w", "w", "clean_To_w",
                                              "clobber_To_w", "after_To_w"));
  const std::string w = Floats({-1, -2, -3, -4, -5, -6, -7, -8});
  ASSERT_EQ(run.dumps["w"].size(), 1u);
  EXPECT_EQ(run.dumps["w"][0], w);
  // Intact after `clean`, overwritten from `clobber` on.
  EXPECT_EQ(run.dumps["clean_To_w"][0], w);
  const std::string forty_two = Floats({42, 42, 42, 42, 42, 42, 42, 42});
  EXPECT_EQ(run.dumps["clobber_To_w"][0], forty_two);
  EXPECT_EQ(run.dumps["after_To_w"][0], forty_two);
}

TEST(WatcherTest, LayersLimitWhereTheWatcherLooks) {
  WatcherRun run = RunWatcher("watcher_layers",
                              R"([{"layer": ["clobber", "w", "nope"],
                            "watcher_nodes": ["w"]}])");
  // w is both: only its own file.
  EXPECT_THAT(run.files, ::testing::UnorderedElementsAre("w", "clobber_To_w"));
  ASSERT_EQ(run.warnings.size(), 1u);
  EXPECT_THAT(run.warnings[0], HasSubstr("layer 'nope' matches no operator"));
}

TEST(WatcherTest, NamesBeforeFusionAndUnknownNamesAreNotWatched) {
  WatcherRun run = RunWatcher(
      "watcher_names", R"([{"watcher_nodes": ["w_before_fusion", "ghost"]}])");
  EXPECT_TRUE(run.files.empty());
  ASSERT_EQ(run.warnings.size(), 2u);
  EXPECT_THAT(run.warnings[0], HasSubstr("watcher node 'ghost' matches no "
                                         "operator of model 'clobber'"));
  EXPECT_THAT(run.warnings[1],
              HasSubstr("watcher node 'w_before_fusion' of model 'clobber' "
                        "was fused into operator 'w'"));
  EXPECT_THAT(run.warnings[1], HasSubstr("write 'w'"));
}

}  // namespace
}  // namespace acldump::dump
