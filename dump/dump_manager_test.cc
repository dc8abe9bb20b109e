// The dump engine end to end below the C ABI: configs, policy, observers,
// writer and the files they leave, rule by rule.
#include "dump/dump_manager.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>

#include "base/error_kind.h"
#include "dump/format/dump_file.h"
#include "dump/format/dump_names.h"
#include "dump/format/overflow_record.h"
#include "dump/format/stats_csv.h"
#include "dump/testing/model_runs.h"
#include "fmt/format.h"
#include "kernels/npy.h"
#include "kernels/ops.h"
#include "runtime/model_file.h"
#include "runtime/model_loader.h"
#include "runtime/single_op.h"

namespace acldump::dump {
namespace {

namespace fs = std::filesystem;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

constexpr char kResnet[] = "testdata/resnet_tiny.om";
constexpr char kMlp[] = "testdata/mlp_block.om";

class DumpManagerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = TempDir(
        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    dump_path_ = dir_ + "/out";
    fs::create_directories(dump_path_);
  }
  std::string Config(const std::string& dump_body) {
    return WriteConfig(dir_, R"({"dump":{"dump_path":")" + dump_path_ + "\"" +
                                 (dump_body.empty() ? "" : "," + dump_body) +
                                 "}}");
  }
  // The one time folder of this test's dump path.
  std::string TimeFolder() {
    std::vector<std::string> folders;
    for (const auto& e : fs::directory_iterator(dump_path_))
      folders.push_back(e.path().string());
    EXPECT_EQ(folders.size(), 1u);
    return folders.empty() ? "" : folders[0];
  }
  std::string dir_;
  std::string dump_path_;
  ModelRegistry registry_;
};

TEST_F(DumpManagerTest, LifecycleCodes) {
  DumpManager manager;
  const std::string config =
      Config(R"("dump_list":[{"model_name":"resnet_tiny"}])");
  EXPECT_EQ(KindOf(manager.SetDump(config)), ErrorKind::kDumpNotInitialized);
  EXPECT_EQ(KindOf(manager.FinalizeDump()), ErrorKind::kDumpNotInitialized);
  ASSERT_TRUE(manager.InitDump().ok());
  EXPECT_EQ(KindOf(manager.InitDump()), ErrorKind::kDumpAlreadyInitialized);
  EXPECT_EQ(KindOf(manager.SetDump(dir_ + "/missing.json")),
            ErrorKind::kInvalidFile);
  ASSERT_TRUE(manager.SetDump(config).ok());
  ASSERT_TRUE(manager.FinalizeDump().ok());
  EXPECT_EQ(KindOf(manager.FinalizeDump()), ErrorKind::kDumpNotInitialized);
  // InitDump after aclInit's config succeeds, as in the SDK; aclInit's config
  // stays in effect until SetDump sets another, and again after FinalizeDump.
  DumpManager with_init;
  ASSERT_TRUE(with_init.ConfigureFromAclInit(config).ok());
  const std::shared_ptr<DumpSession> from_init = with_init.current_session();
  ASSERT_NE(from_init, nullptr);
  ASSERT_TRUE(with_init.InitDump().ok());
  EXPECT_EQ(with_init.current_session(), from_init);
  ASSERT_TRUE(with_init.SetDump(config).ok());
  EXPECT_NE(with_init.current_session(), from_init);
  ASSERT_TRUE(with_init.FinalizeDump().ok());
  EXPECT_EQ(with_init.current_session(), from_init);
}

// Golden: dump_mode all writes one file per executed node per iteration (plus
// the data op), at the documented paths, holding exactly the bytes the executor
// produced.
TEST_F(DumpManagerTest, ModeAllWritesEveryNodeWithBitIdenticalTensors) {
  DumpManager manager;
  ASSERT_TRUE(manager.InitDump().ok());
  ASSERT_TRUE(
      manager
          .SetDump(Config(
              R"("dump_mode":"all","dump_list":[{"model_name":"resnet_tiny"}])"))
          .ok());
  Loaded loaded = Load(manager, registry_, kResnet);
  EXPECT_TRUE(loaded.warnings.empty());
  const std::vector<Tensor> first = RunModel(*loaded.model);
  const std::vector<Tensor> second = RunModel(*loaded.model);
  ASSERT_TRUE(manager.FinalizeDump().ok());

  // Outputs are bit-identical to an undumped run of the same model.
  auto plain = LoadStaticModel(ModelSource::File(kResnet));
  ASSERT_TRUE(plain.ok());
  const std::vector<Tensor> reference = RunModel(**plain);
  for (size_t i = 0; i < reference.size(); ++i) {
    ASSERT_EQ(
        std::memcmp(reference[i].data(), first[i].data(), first[i].ByteSize()),
        0);
    ASSERT_EQ(
        std::memcmp(reference[i].data(), second[i].data(), first[i].ByteSize()),
        0);
  }

  const std::string time_folder = TimeFolder();
  EXPECT_TRUE(std::regex_match(fs::path(time_folder).filename().string(),
                               std::regex("[0-9]{14}")));
  const std::vector<std::string> files = FilesUnder(time_folder);
  const size_t steps = loaded.model->steps().size();
  ASSERT_EQ(files.size(), 2 * (steps + 1)) << ::testing::PrintToString(files);
  const std::regex name(
      "0/resnet_tiny/" + std::to_string(loaded.id) +
      "/([01])/([A-Za-z]+)\\.([A-Za-z0-9_]+)\\.([0-9]+)\\.0\\.([0-9]{16})");
  std::map<std::string, std::string> by_op;  // "{iteration}/{op}" -> path
  for (const std::string& file : files) {
    std::smatch m;
    ASSERT_TRUE(std::regex_match(file, m, name)) << file;
    by_op[m[1].str() + "/" + m[3].str()] = time_folder + "/" + file;
  }
  // The data op (conv1 reads the graph input) holds the input.
  auto data = ReadDumpFile(by_op.at("0/input"));
  ASSERT_TRUE(data.ok()) << data.status();
  auto input = ReadNpyFile("testdata/resnet_tiny.input.input.npy");
  ASSERT_EQ(data->outputs.size(), 1u);
  EXPECT_EQ(
      data->outputs[0],
      std::string(static_cast<const char*>(input->data()), input->ByteSize()));
  // The last node's outputs are the model outputs; its input is the previous
  // node's output.
  for (const char* iteration : {"0", "1"}) {
    auto prob = ReadDumpFile(by_op.at(std::string(iteration) + "/prob"));
    ASSERT_TRUE(prob.ok()) << prob.status();
    EXPECT_EQ(prob->header.op_name(), "prob");
    ASSERT_EQ(prob->outputs.size(), 1u);
    EXPECT_EQ(prob->outputs[0],
              std::string(static_cast<const char*>(first[1].data()),
                          first[1].ByteSize()));
    auto fc = ReadDumpFile(by_op.at(std::string(iteration) + "/fc"));
    ASSERT_TRUE(fc.ok());
    EXPECT_EQ(prob->inputs[0], fc->outputs[0]);
    EXPECT_EQ(fc->outputs[0],
              std::string(static_cast<const char*>(first[0].data()),
                          first[0].ByteSize()));
  }
  // Header metadata: dtypes, shapes, original names of a fused node.
  auto stem = ReadDumpFile(by_op.at("0/conv1bn1relu1"));
  ASSERT_TRUE(stem.ok());
  EXPECT_EQ(stem->header.version(), "2.0");
  ASSERT_EQ(stem->inputs.size(), 3u);  // X, folded W, folded B
  ASSERT_EQ(stem->header.output_size(), 1);
  const auto& out = stem->header.output(0);
  EXPECT_EQ(out.data_type(), toolkit::dumpdata::DT_FLOAT);
  EXPECT_EQ(out.format(), toolkit::dumpdata::FORMAT_NCHW);
  EXPECT_THAT(
      std::vector<uint64_t>(out.shape().dim().begin(), out.shape().dim().end()),
      ::testing::ElementsAre(1, 16, 32, 32));
  EXPECT_EQ(out.original_op().name(), "relu1");
  bool found = false;
  for (const auto& attr : stem->header.attr()) {
    if (attr.name() == "original_names") {
      EXPECT_EQ(attr.value(), "conv1,bn1,relu1");
      found = true;
    }
  }
  EXPECT_TRUE(found);
  // The dump's output tensor of conv1 (fused with relu) matches PyTorch's
  // relu1.
  auto relu1 = ReadNpyFile("testdata/reference/resnet_tiny/relu1.npy");
  auto dumped = PayloadToTensor(out.data_type(), out.shape(), stem->outputs[0]);
  ASSERT_TRUE(dumped.ok());
  for (int64_t i = 0; i < relu1->NumElements(); ++i) {
    ASSERT_NEAR(dumped->as<float>()[i], relu1->as<float>()[i], 1e-4);
  }
  // No temporary file is left behind.
  for (const std::string& file : files)
    EXPECT_THAT(file, ::testing::Not(HasSubstr(".tmp")));
}

TEST_F(DumpManagerTest, LayersByConvertedOrOriginalNameAndDataOpInclusion) {
  DumpManager manager;
  ASSERT_TRUE(manager.InitDump().ok());
  // relu1 is an original name of the fused conv1bn1relu1; fc is a converted
  // name; flatten is a no-task node; bogus matches nothing.
  ASSERT_TRUE(manager
                  .SetDump(Config(R"("dump_list":[{"model_name":"resnet_tiny",
      "layer":["relu1","fc","flatten","bogus"]}])"))
                  .ok());
  Loaded loaded = Load(manager, registry_, kResnet);
  ASSERT_EQ(loaded.warnings.size(), 2u);
  EXPECT_THAT(loaded.warnings[0], HasSubstr("layer 'flatten'"));
  EXPECT_THAT(loaded.warnings[0], HasSubstr("no-task"));
  EXPECT_THAT(loaded.warnings[1],
              HasSubstr("layer 'bogus' matches no operator of model "
                        "'resnet_tiny' (file 'resnet_tiny')"));
  RunModel(*loaded.model);
  ASSERT_TRUE(manager.FinalizeDump().ok());
  std::vector<std::string> ops;
  for (const std::string& file : FilesUnder(TimeFolder())) {
    ops.push_back(fs::path(file).filename().string().substr(
        0, file.find('.', 0) == std::string::npos ? 0 : std::string::npos));
  }
  std::vector<std::string> names;
  for (const std::string& file : FilesUnder(TimeFolder())) {
    const std::string base = fs::path(file).filename().string();
    names.push_back(base.substr(0, base.find('.', base.find('.') + 1)));
  }
  EXPECT_THAT(names, ::testing::UnorderedElementsAre("Conv.conv1bn1relu1",
                                                     "Gemm.fc", "Data.input"));
}

TEST_F(DumpManagerTest, ModelNameMatchingByFileStemGraphNameAndMemory) {
  // The file-stem entry wins over the graph-name entry; memory loads match
  // the graph name.
  fs::copy_file(kResnet, dir_ + "/renamed.om");
  DumpManager manager;
  ASSERT_TRUE(manager.InitDump().ok());
  ASSERT_TRUE(
      manager
          .SetDump(Config(
              R"("dump_list":[{"model_name":"resnet_tiny","layer":["prob"]},
      {"model_name":"renamed","layer":["fc"]}])"))
          .ok());
  Loaded by_stem = Load(manager, registry_, dir_ + "/renamed.om");
  Loaded by_graph_name =
      Load(manager, registry_, kResnet, /*from_memory=*/true);
  RunModel(*by_stem.model);
  RunModel(*by_graph_name.model);
  ASSERT_TRUE(manager.FinalizeDump().ok());
  std::vector<std::string> files = FilesUnder(TimeFolder());
  ASSERT_EQ(files.size(), 2u) << ::testing::PrintToString(files);  // fc, prob
  std::string stem_files, memory_files;
  for (const std::string& f : files) {
    if (f.find("/renamed/") != std::string::npos) stem_files += f + " ";
    if (f.find("/resnet_tiny/") != std::string::npos) memory_files += f + " ";
  }
  EXPECT_THAT(stem_files, HasSubstr("Gemm.fc."));
  EXPECT_THAT(memory_files, HasSubstr("Softmax.prob."));
  EXPECT_THAT(memory_files, ::testing::Not(HasSubstr("Gemm.fc.")));
}

TEST_F(DumpManagerTest, LayerWithoutModelNameAppliesToEveryModel) {
  DumpManager manager;
  ASSERT_TRUE(manager.InitDump().ok());
  ASSERT_TRUE(
      manager.SetDump(Config(R"("dump_list":[{"layer":["prob","attn"]}])"))
          .ok());
  Loaded resnet = Load(manager, registry_, kResnet);
  Loaded mlp = Load(manager, registry_, kMlp);
  RunModel(*resnet.model);
  RunModel(*mlp.model);
  ASSERT_TRUE(manager.FinalizeDump().ok());
  const std::vector<std::string> files = FilesUnder(TimeFolder());
  ASSERT_EQ(files.size(), 2u);
  EXPECT_THAT(files[0] + files[1], HasSubstr("mlp_block/"));
  EXPECT_THAT(files[0] + files[1], HasSubstr("Softmax.attn."));
  EXPECT_THAT(files[0] + files[1], HasSubstr("Softmax.prob."));
  // Each model reports the layer it does not have.
  EXPECT_THAT(resnet.warnings,
              ::testing::ElementsAre(HasSubstr("layer 'attn'")));
  EXPECT_THAT(mlp.warnings, ::testing::ElementsAre(HasSubstr("layer 'prob'")));
}

TEST_F(DumpManagerTest, ConfigOnlyAffectsModelsLoadedAfterItAndLatestWins) {
  DumpManager manager;
  ASSERT_TRUE(manager.InitDump().ok());
  // Model 1 loaded before SetDump is not dumped.
  Loaded before = Load(manager, registry_, kMlp);
  const std::string other = dir_ + "/other";
  fs::create_directories(other);
  ASSERT_TRUE(
      manager
          .SetDump(WriteConfig(
              dir_, R"({"dump":{"dump_path":")" + other +
                        R"(","dump_list":[{"model_name":"mlp_block"}]}})"))
          .ok());
  // A second SetDump before the load overrides the first.
  ASSERT_TRUE(
      manager
          .SetDump(Config(
              R"("dump_list":[{"model_name":"mlp_block","layer":["attn"]}])"))
          .ok());
  Loaded after = Load(manager, registry_, kMlp);
  RunModel(*before.model);
  RunModel(*after.model);
  ASSERT_TRUE(manager.FinalizeDump().ok());
  EXPECT_TRUE(FilesUnder(other).empty());
  const std::vector<std::string> files = FilesUnder(TimeFolder());
  ASSERT_EQ(files.size(), 1u);
  EXPECT_THAT(files[0],
              HasSubstr("/" + std::to_string(after.id) + "/0/Softmax.attn."));
  // After FinalizeDump the dumped model runs on without dumping (sequence
  // B).
  RunModel(*after.model);
  EXPECT_EQ(FilesUnder(TimeFolder()).size(), 1u);
}

TEST_F(DumpManagerTest, DumpStepSelectsIterations) {
  DumpManager manager;
  ASSERT_TRUE(manager.InitDump().ok());
  ASSERT_TRUE(
      manager
          .SetDump(Config(
              R"("dump_step":"1|3-4","dump_list":[{"model_name":"mlp_block","layer":["pooled"]}])"))
          .ok());
  Loaded loaded = Load(manager, registry_, kMlp);
  for (int i = 0; i < 6; ++i) RunModel(*loaded.model);
  ASSERT_TRUE(manager.FinalizeDump().ok());
  std::set<std::string> iterations;
  for (const std::string& file : FilesUnder(TimeFolder())) {
    iterations.insert(fs::path(file).parent_path().filename().string());
  }
  EXPECT_THAT(iterations, ::testing::ElementsAre("1", "3", "4"));
}

TEST_F(DumpManagerTest, DumpModeInputAndOutput) {
  for (const char* mode : {"input", "output"}) {
    const std::string path = dump_path_ + "/" + mode;
    fs::create_directories(path);
    DumpManager manager;
    ASSERT_TRUE(manager.InitDump().ok());
    ASSERT_TRUE(
        manager
            .SetDump(WriteConfig(
                dir_,
                R"({"dump":{"dump_path":")" + path + R"(","dump_mode":")" +
                    mode +
                    R"(","dump_list":[{"model_name":"mlp_block","layer":["attn"]}]}})"))
            .ok());
    Loaded loaded = Load(manager, registry_, kMlp);
    RunModel(*loaded.model);
    ASSERT_TRUE(manager.FinalizeDump().ok());
    const std::vector<std::string> files = FilesUnder(path);
    ASSERT_EQ(files.size(), 1u);
    auto contents = ReadDumpFile(path + "/" + files[0]);
    ASSERT_TRUE(contents.ok()) << contents.status();
    EXPECT_EQ(contents->inputs.size(), std::string(mode) == "input" ? 1u : 0u);
    EXPECT_EQ(contents->outputs.size(),
              std::string(mode) == "output" ? 1u : 0u);
  }
}

// A blacklist position takes one tensor out of a file; the others keep
// their own index.
TEST_F(DumpManagerTest, BlacklistPositionsLeaveTensorsOut) {
  DumpManager manager;
  ASSERT_TRUE(manager.InitDump().ok());
  ASSERT_TRUE(
      manager
          .SetDump(Config(
              R"("dump_mode":"all","dump_level":"op","dump_list":[{"model_name":"resnet_tiny","layer":["add1"],"opname_blacklist":[{"name":"add1","pos":["input0"]}]}])"))
          .ok());
  Loaded loaded = Load(manager, registry_, kResnet);
  RunModel(*loaded.model);
  ASSERT_TRUE(manager.FinalizeDump().ok());
  std::vector<std::string> files = FilesUnder(TimeFolder());
  std::erase_if(files, [](const std::string& f) {
    return f.find("/Add.add1.") == std::string::npos;
  });
  ASSERT_EQ(files.size(), 1u);
  auto contents = ReadDumpFile(TimeFolder() + "/" + files[0]);
  ASSERT_TRUE(contents.ok()) << contents.status();
  // add1 reads two tensors; input0 is blacklisted, input1 and the output stay.
  EXPECT_EQ(contents->inputs.size(), 1u);
  EXPECT_EQ(contents->outputs.size(), 1u);
}

TEST_F(DumpManagerTest, StatsModeWritesCsvWithExpectedValues) {
  DumpManager manager;
  ASSERT_TRUE(manager.InitDump().ok());
  ASSERT_TRUE(
      manager
          .SetDump(Config(
              R"("dump_data":"stats","dump_mode":"all","dump_list":[{"model_name":"resnet_tiny","layer":["prob"]}])"))
          .ok());
  Loaded loaded = Load(manager, registry_, kResnet);
  const std::vector<Tensor> outputs = RunModel(*loaded.model);
  ASSERT_TRUE(manager.FinalizeDump().ok());
  const std::vector<std::string> files = FilesUnder(TimeFolder());
  ASSERT_EQ(files.size(), 1u);
  EXPECT_THAT(files[0], ::testing::EndsWith(".csv"));
  std::ifstream in(TimeFolder() + "/" + files[0]);
  std::string text((std::istreambuf_iterator<char>(in)), {});
  auto table = ParseStatsCsv(text);
  ASSERT_TRUE(table.ok()) << table.status();
  EXPECT_EQ(table->header[0], "Input/Output");
  ASSERT_EQ(table->rows.size(), 2u);
  EXPECT_EQ(table->rows[0][0], "Input");
  EXPECT_EQ(table->rows[1][0], "Output");
  EXPECT_EQ(*table->Cell(1, "Shape"), "1x10");
  EXPECT_EQ(*table->Cell(1, "Data Type"), "DT_FLOAT");
  const float* prob = outputs[1].as<float>();
  const float max = *std::max_element(prob, prob + 10);
  // Six significant digits, as the SDK writes them.
  EXPECT_EQ(*table->Cell(1, "Max Value"), fmt::format("{:.6g}", max));
  EXPECT_NEAR(**table->Double(1, "Max Value"), max, 5e-6 * max);
  EXPECT_NEAR(**table->Double(1, "Avg Value"), 0.1,
              1e-6);  // a softmax sums to 1
  EXPECT_EQ(**table->Uint64(1, "Count"), 10u);
}

TEST_F(DumpManagerTest, SingleOpDump) {
  DumpManager manager;
  ASSERT_TRUE(manager.InitDump().ok());
  // The seed's single-op example.
  ASSERT_TRUE(
      manager
          .SetDump(Config(
              R"("dump_list":[],"dump_op_switch":"on","dump_data":"tensor")"))
          .ok());
  std::vector<float> a = {1, 2}, b = {10, 20}, c(2);
  TensorView in[] = {{DType::kFloat32, Shape({2}), a.data()},
                     {DType::kFloat32, Shape({2}), b.data()}};
  TensorView out[] = {{DType::kFloat32, Shape({2}), c.data()}};
  SingleOpCall call;
  call.op_type = "Add";
  call.inputs = in;
  call.outputs = out;
  for (int i = 0; i < 2; ++i) {
    auto observer = manager.SingleOpObserver(/*device_id=*/3);
    ASSERT_NE(observer, nullptr);
    ASSERT_TRUE(ExecuteSingleOp(BuiltinOps(), call, observer.get()).ok());
  }
  EXPECT_EQ(c[1], 22.0f);
  ASSERT_TRUE(manager.FinalizeDump().ok());
  const std::vector<std::string> files = FilesUnder(TimeFolder());
  ASSERT_EQ(files.size(), 2u);
  EXPECT_TRUE(
      std::regex_match(files[0], std::regex("3/Add\\.Add\\.0\\.0\\.[0-9]{16}")))
      << files[0];
  EXPECT_TRUE(
      std::regex_match(files[1], std::regex("3/Add\\.Add\\.1\\.0\\.[0-9]{16}")))
      << files[1];
  auto contents = ReadDumpFile(TimeFolder() + "/" + files[0]);
  ASSERT_TRUE(contents.ok());
  EXPECT_EQ(contents->outputs[0],
            std::string(reinterpret_cast<const char*>(c.data()), 8));
}

// A model whose Gather reads an index at run time: index 9 of 4 fails the
// kernel.
std::shared_ptr<CompiledModel> GatherModel() {
  Graph graph;
  graph.name = "gather";
  graph.inputs.push_back({"data", {DType::kFloat32, Shape({4})}});
  graph.inputs.push_back({"indices", {DType::kInt64, Shape({2})}});
  graph.outputs.push_back({"out", {DType::kFloat32, Shape({2})}});
  Attributes attrs;
  attrs.Set("axis", int64_t{0});
  graph.nodes = {
      {"lookup", "Gather", {"data", "indices"}, {"out"}, attrs, {"lookup"}}};
  return std::move(*CompiledModel::Compile(graph, BuiltinOps()));
}

// Attaches what `manager` gives the gather model on device 2, then runs it
// with a bad index (which fails) and a good one.
void RunGatherFailingOnce(DumpManager& manager, CompiledModel& model) {
  std::vector<std::string> warnings;
  Attachment attachment =
      manager.OnModelLoad(model, ModelIdentity{7, "", 2}, &warnings);
  ASSERT_NE(attachment.observer, nullptr);
  ASSERT_TRUE(
      model.AttachObserver(attachment.observer, attachment.step_flags).ok());
  std::vector<float> data = {1, 2, 3, 4};
  std::vector<int64_t> indices = {1, 9};
  std::vector<float> out(2);
  HostBuffer in[] = {{data.data(), 16}, {indices.data(), 16}};
  MutableHostBuffer o{out.data(), 8};
  EXPECT_FALSE(model.Execute(in, {&o, 1}).ok());
  indices[1] = 2;
  EXPECT_TRUE(model.Execute(in, {&o, 1}).ok());
  EXPECT_EQ(out[1], 3.0f);
}

std::vector<std::string> AttrNames(const toolkit::dumpdata::DumpData& header) {
  std::vector<std::string> names;
  for (const auto& attr : header.attr()) names.push_back(attr.name());
  return names;
}

// A model with a Loop: acc += x * i for i = 0..2, the sums stacked.
std::shared_ptr<CompiledModel> LoopModel() {
  auto body = std::make_shared<Graph>();
  body->inputs = {{"i", {DType::kInt64, Shape({})}},
                  {"c", {DType::kBool, Shape({})}},
                  {"acc", {DType::kFloat32, Shape({2})}}};
  body->outputs = {{"c_out", {DType::kBool, Shape({})}},
                   {"acc_out", {DType::kFloat32, Shape({2})}},
                   {"scan", {DType::kFloat32, Shape({2})}}};
  Attributes to_float;
  to_float.Set("to", int64_t{1});
  body->nodes = {{"cast", "Cast", {"i"}, {"fi"}, to_float, {"cast"}},
                 {"mul", "Mul", {"x", "fi"}, {"xi"}, {}, {"mul"}},
                 {"add", "Add", {"acc", "xi"}, {"acc_out"}, {}, {"add"}},
                 {"copy", "Identity", {"acc_out"}, {"scan"}, {}, {"copy"}},
                 {"keep", "Identity", {"c"}, {"c_out"}, {}, {"keep"}}};
  Graph graph;
  graph.name = "loop";
  graph.inputs = {{"x", {DType::kFloat32, Shape({2})}}};
  graph.outputs = {{"sums", {DType::kFloat32, Shape({-1, 2})}}};
  auto m = std::make_shared<Tensor>(DType::kInt64, Shape({}));
  *m->as<int64_t>() = 3;
  auto zeros = std::make_shared<Tensor>(DType::kFloat32, Shape({2}));
  graph.initializers = {{"m", m}, {"zeros", zeros}};
  GraphNode loop{"loop", "Loop",  {"m", "", "zeros"}, {"final", "sums"},
                 {},     {"loop"}};
  loop.subgraphs = {{"body", body}};
  loop.implicit_inputs = {"x"};
  graph.nodes = {loop};
  auto model = CompiledModel::Compile(graph, BuiltinOps());
  EXPECT_TRUE(model.ok()) << model.status();
  return std::move(*model);
}

TEST_F(DumpManagerTest, LoopBodyNodesDumpOncePerIterationWithRealShapes) {
  DumpManager manager;
  ASSERT_TRUE(manager.InitDump().ok());
  ASSERT_TRUE(
      manager
          .SetDump(Config(
              R"("dump_mode":"all","dump_list":[{"model_name":"loop"}])"))
          .ok());
  std::shared_ptr<CompiledModel> model = LoopModel();
  std::vector<std::string> warnings;
  Attachment attachment =
      manager.OnModelLoad(*model, ModelIdentity{5, "", 0}, &warnings);
  ASSERT_NE(attachment.observer, nullptr);
  ASSERT_TRUE(
      model->AttachObserver(attachment.observer, attachment.step_flags).ok());
  std::vector<float> x = {1, 10}, sums(6);
  HostBuffer in{x.data(), 8};
  MutableHostBuffer out{sums.data(), 24};
  ASSERT_TRUE(model->Execute({&in, 1}, {&out, 1}).ok());
  EXPECT_THAT(sums, ElementsAre(0, 0, 1, 10, 3, 30));
  ASSERT_TRUE(manager.FinalizeDump().ok());
  std::map<std::string, std::string> by_name;  // op name part -> path
  const std::string time_folder = TimeFolder();
  const std::regex name(
      "0/loop/5/0/([A-Za-z]+)\\.([A-Za-z0-9_]+)\\.([0-9]+)\\.0\\.[0-9]{16}");
  for (const std::string& file : FilesUnder(time_folder)) {
    std::smatch m;
    ASSERT_TRUE(std::regex_match(file, m, name)) << file;
    by_name[m[2].str()] = time_folder + "/" + file;
  }
  // 5 body nodes x 3 iterations, the Loop node itself, and the graph input.
  EXPECT_EQ(by_name.size(), 5u * 3 + 1 + 1)
      << ::testing::PrintToString(by_name);
  auto add = ReadDumpFile(by_name.at("loop_body_2_add"));
  ASSERT_TRUE(add.ok()) << add.status();
  // acc = [1, 10] before the third iteration, x * 2 added.
  std::vector<float> acc_out(2);
  ASSERT_EQ(add->outputs[0].size(), 8u);
  std::memcpy(acc_out.data(), add->outputs[0].data(), 8);
  EXPECT_THAT(acc_out, ElementsAre(3, 30));
  ASSERT_EQ(add->header.input_size(), 2);
  EXPECT_THAT(AttrNames(add->header), Contains("original_names"));
  auto loop = ReadDumpFile(by_name.at("loop"));
  ASSERT_TRUE(loop.ok()) << loop.status();
  ASSERT_EQ(loop->header.output_size(), 2);
  // The stacked output with the shape this execution gave it.
  EXPECT_THAT(loop->header.output(1).shape().dim(), ElementsAre(3, 2));
}

TEST_F(DumpManagerTest, ScenesThatDoNotCoverDynamicStepsSaySo) {
  DumpManager manager;
  ASSERT_TRUE(manager.InitDump().ok());
  ASSERT_TRUE(manager.SetDump(Config(R"("dump_debug":"on")")).ok());
  std::shared_ptr<CompiledModel> model = LoopModel();
  std::vector<std::string> warnings;
  manager.OnModelLoad(*model, ModelIdentity{5, "", 0}, &warnings);
  ASSERT_EQ(warnings.size(), 1u) << ::testing::PrintToString(warnings);
  EXPECT_THAT(warnings[0], HasSubstr("model 'loop': 6 operators run where "
                                     "shapes are known only while the model "
                                     "runs"));
  EXPECT_THAT(warnings[0], HasSubstr("overflow detection does not cover them"));
  ASSERT_TRUE(manager.FinalizeDump().ok());
}

// Clears the variables that would move exception files, for one test.
class ScopedNoExceptionEnvironment {
 public:
  ScopedNoExceptionEnvironment() {
    for (const char* name : kNames) {
      if (const char* value = std::getenv(name)) saved_[name] = value;
      unsetenv(name);
    }
  }
  ~ScopedNoExceptionEnvironment() {
    for (const auto& [name, value] : saved_) {
      setenv(name.c_str(), value.c_str(), 1);
    }
  }

 private:
  static constexpr const char* kNames[] = {
      "ASCEND_DUMP_PATH", "ASCEND_WORK_PATH", "ASCEND_DUMP_SCENE",
      "NPU_COLLECT_PATH"};
  std::map<std::string, std::string> saved_;
};

TEST_F(DumpManagerTest,
       ExceptionDumpWritesFailingNodeReadOnlyAndWinsOverModelDump) {
  const std::string work = dir_ + "/work";
  fs::create_directories(work);
  SessionOptions options;
  options.exception_root = work;  // as if ASCEND_WORK_PATH=work
  DumpManager manager(options);
  ASSERT_TRUE(manager.InitDump().ok());
  // With a dump_list as well, only the exception dump takes effect.
  ASSERT_TRUE(
      manager
          .SetDump(Config(
              R"("dump_scene":"lite_exception","dump_list":[{"model_name":"gather"}])"))
          .ok());
  std::shared_ptr<CompiledModel> model = GatherModel();
  RunGatherFailingOnce(manager, *model);  // a good run dumps nothing
  ASSERT_TRUE(manager.FinalizeDump().ok());
  EXPECT_TRUE(FilesUnder(dump_path_).empty());
  const std::vector<std::string> files = FilesUnder(work);
  ASSERT_EQ(files.size(), 1u) << ::testing::PrintToString(files);
  // The brief scene's name: exception_info.{stream}.{task}.{time to the ms}.
  EXPECT_TRUE(std::regex_match(
      files[0], std::regex("extra-info/data-dump/2/exception_info\\.0\\.0\\."
                           "20[0-9]{2}[01][0-9][0-3][0-9][0-9]{9}")))
      << files[0];
  struct stat st;
  ASSERT_EQ(stat((work + "/" + files[0]).c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0400u);
  auto contents = ReadDumpFile(work + "/" + files[0]);
  ASSERT_TRUE(contents.ok()) << contents.status();
  EXPECT_THAT(contents->header.dfx_message(),
              HasSubstr("operator 'lookup' (Gather)"));
  EXPECT_THAT(contents->header.dfx_message(), HasSubstr("index 9"));
  EXPECT_THAT(contents->header.dfx_message(),
              Not(HasSubstr("[AIC_INFO] all_attrs")));
  // Brief: the operator's name and type, not its attributes.
  EXPECT_THAT(AttrNames(contents->header),
              ElementsAre("op_type", "original_names"));
  // data, indices, then the kernel's launch parameters as tiling data.
  ASSERT_EQ(contents->header.input_size(), 3);
  EXPECT_EQ(contents->header.input(0).input_type(), 2u);  // INPUT
  EXPECT_EQ(contents->header.input(1).input_type(), 2u);
  EXPECT_EQ(contents->header.input(2).input_type(), 7u);  // TILING_DATA
  EXPECT_EQ(contents->header.input(1).data_type(), 8);    // DT_INT64
  EXPECT_EQ(contents->header.input(1).format(), 0);       // not recorded
  EXPECT_EQ(contents->inputs[1],
            std::string("\x01\0\0\0\0\0\0\0\x09\0\0\0\0\0\0\0", 16));
}

TEST_F(DumpManagerTest,
       NormExceptionDumpAddsFormatsAndAttributesBelowDumpPath) {
  ScopedNoExceptionEnvironment no_environment;
  DumpManager manager;
  ASSERT_TRUE(manager.InitDump().ok());
  ASSERT_TRUE(
      manager.SetDump(Config(R"("dump_scene":"aic_err_norm_dump")")).ok());
  std::shared_ptr<CompiledModel> model = GatherModel();
  RunGatherFailingOnce(manager, *model);
  ASSERT_TRUE(manager.FinalizeDump().ok());
  // The SDK honours dump_path for exception scenes.
  const std::vector<std::string> files = FilesUnder(dump_path_);
  ASSERT_EQ(files.size(), 1u) << ::testing::PrintToString(files);
  EXPECT_TRUE(std::regex_match(
      files[0], std::regex("extra-info/data-dump/2/Gather\\.lookup\\.0\\."
                           "20[0-9]{2}[01][0-9][0-3][0-9][0-9]{9}")))
      << files[0];
  auto contents = ReadDumpFile(dump_path_ + "/" + files[0]);
  ASSERT_TRUE(contents.ok()) << contents.status();
  EXPECT_THAT(contents->header.dfx_message(), HasSubstr("index 9"));
  EXPECT_THAT(contents->header.dfx_message(),
              HasSubstr("\n[AIC_INFO] all_attrs:axis=0"));
  const std::vector<std::string> names = AttrNames(contents->header);
  EXPECT_THAT(names, Contains("axis"));
  EXPECT_THAT(names, Contains(StartsWith("launch.")));
  EXPECT_EQ(contents->header.input(1).format(), 2);  // FORMAT_ND
  EXPECT_EQ(contents->header.output(0).format(), 2);
  EXPECT_EQ(contents->header.output(0).data_type(), 1);  // DT_FLOAT
  ASSERT_EQ(contents->header.output(0).shape().dim_size(), 1);
  EXPECT_EQ(contents->header.output(0).shape().dim(0), 2u);
}

TEST_F(DumpManagerTest, ExceptionDumpFromTheEnvironmentRunsBesideModelDump) {
  const std::string collect = dir_ + "/collect";
  ExceptionEnvironment environment =
      ReadExceptionEnvironment([&](const char* name) -> const char* {
        return std::string_view(name) == "NPU_COLLECT_PATH" ? collect.c_str()
                                                            : nullptr;
      });
  ASSERT_TRUE(environment.level.has_value());
  DumpManager manager;
  auto warnings = manager.EnableExceptionDumpFromEnvironment(environment);
  ASSERT_TRUE(warnings.ok()) << warnings.status();
  EXPECT_TRUE(warnings->empty());
  ASSERT_NE(manager.environment_exception_session(), nullptr);
  ASSERT_TRUE(manager.InitDump().ok());
  ASSERT_TRUE(
      manager
          .SetDump(Config(
              R"("dump_mode":"input","dump_list":[{"model_name":"gather"}])"))
          .ok());
  const std::shared_ptr<DumpSession> model_dump = manager.current_session();
  // A config's exception scene gives way to the environment's, as in the
  // SDK: the call succeeds, with a warning, and the model dump stays.
  ::testing::internal::CaptureStderr();
  EXPECT_TRUE(
      manager.SetDump(Config(R"("dump_scene":"aic_err_brief_dump")")).ok());
  const std::string printed = ::testing::internal::GetCapturedStderr();
  EXPECT_THAT(printed, HasSubstr("dump_scene 'aic_err_brief_dump' is ignored"));
  EXPECT_THAT(printed, HasSubstr("NPU_COLLECT_PATH=" + collect));
  EXPECT_EQ(manager.current_session(), model_dump);

  std::shared_ptr<CompiledModel> model = GatherModel();
  RunGatherFailingOnce(manager, *model);
  ASSERT_TRUE(manager.FinalizeDump().ok());
  // Both runs dumped the model dump's inputs (two data ops and Gather)...
  EXPECT_EQ(FilesUnder(dump_path_).size(), 6u)
      << ::testing::PrintToString(FilesUnder(dump_path_));
  // ...and the failure went to the environment's norm dump, which stays on
  // after FinalizeDump until the library shuts down.
  std::vector<std::string> files = FilesUnder(collect);
  ASSERT_EQ(files.size(), 1u) << ::testing::PrintToString(files);
  EXPECT_THAT(files[0], StartsWith("extra-info/data-dump/2/Gather.lookup.0."));
  EXPECT_NE(manager.environment_exception_session(), nullptr);

  // Single operators are recorded too.
  std::shared_ptr<ExecutionObserver> single = manager.SingleOpObserver(0);
  ASSERT_NE(single, nullptr);
  ASSERT_TRUE(manager.Shutdown().ok());
  EXPECT_EQ(manager.environment_exception_session(), nullptr);
}

TEST_F(DumpManagerTest, OverflowDumpRecordsOpsProducingInfFromFiniteInputs) {
  // y = x * x overflows float32 for |x| > 1.8e19; z = y + 1 only propagates it.
  Graph graph;
  graph.name = "overflow";
  graph.inputs.push_back({"x", {DType::kFloat32, Shape({3})}});
  graph.outputs.push_back({"z", {DType::kFloat32, Shape({3})}});
  auto one = std::make_shared<Tensor>(DType::kFloat32, Shape({1}));
  one->as<float>()[0] = 1;
  graph.initializers["one"] = one;
  graph.nodes = {{"square", "Mul", {"x", "x"}, {"y"}, {}, {"square"}},
                 {"plus", "Add", {"y", "one"}, {"z"}, {}, {"plus"}}};
  std::shared_ptr<CompiledModel> model =
      std::move(*CompiledModel::Compile(graph, BuiltinOps()));
  DumpManager manager;
  ASSERT_TRUE(manager.InitDump().ok());
  ASSERT_TRUE(manager.SetDump(Config(R"("dump_debug":"on")")).ok());
  Attachment attachment =
      manager.OnModelLoad(*model, ModelIdentity{5, "", 0}, nullptr);
  ASSERT_TRUE(
      model->AttachObserver(attachment.observer, attachment.step_flags).ok());
  std::vector<float> x = {1, 2, 3e20f}, z(3);
  HostBuffer in{x.data(), 12};
  MutableHostBuffer out{z.data(), 12};
  ASSERT_TRUE(model->Execute({&in, 1}, {&out, 1}).ok());
  x[2] = 3;  // a clean iteration adds nothing
  ASSERT_TRUE(model->Execute({&in, 1}, {&out, 1}).ok());
  ASSERT_TRUE(manager.FinalizeDump().ok());
  const std::vector<std::string> files = FilesUnder(TimeFolder());
  ASSERT_EQ(files.size(), 2u) << ::testing::PrintToString(files);
  EXPECT_TRUE(std::regex_match(
      files[0], std::regex("0/overflow/5/0/Mul\\.square\\.0\\.0\\.[0-9]{16}")))
      << files[0];
  EXPECT_TRUE(std::regex_match(
      files[1],
      std::regex("0/overflow/5/0/Opdebug\\.Node_OpDebug\\.0\\.0\\.[0-9]{16}")))
      << files[1];
  auto record_file = ReadDumpFile(TimeFolder() + "/" + files[1]);
  ASSERT_TRUE(record_file.ok()) << record_file.status();
  ASSERT_EQ(record_file->outputs.size(), 1u);
  EXPECT_EQ(record_file->outputs[0].size(), 2048u);
  auto record = DecodeOverflowPayload(record_file->outputs[0]);
  ASSERT_TRUE(record.ok()) << record.status();
  EXPECT_EQ(record->model_id, 5u);
  EXPECT_EQ(record->task_id, 0u);
  auto op = ReadDumpFile(TimeFolder() + "/" + files[0]);
  ASSERT_TRUE(op.ok());
  EXPECT_EQ(op->inputs.size(), 2u);
  EXPECT_EQ(op->outputs.size(), 1u);
}

TEST_F(DumpManagerTest,
       DumpFolderRemovedMidRunIsReportedAndResultsStayCorrect) {
  DumpManager manager;
  ASSERT_TRUE(manager.InitDump().ok());
  ASSERT_TRUE(
      manager.SetDump(Config(R"("dump_list":[{"model_name":"mlp_block"}])"))
          .ok());
  Loaded loaded = Load(manager, registry_, kMlp);
  RunModel(*loaded.model);
  // Let the first iteration land, then pull the folder away.
  manager.current_session()->writer().Flush().IgnoreError();
  fs::remove_all(dump_path_);
  auto plain = LoadStaticModel(ModelSource::File(kMlp));
  const std::vector<Tensor> expected = RunModel(**plain);
  const std::vector<Tensor> got = RunModel(*loaded.model);
  EXPECT_EQ(std::memcmp(expected[0].data(), got[0].data(), got[0].ByteSize()),
            0);
  absl::Status finalized = manager.FinalizeDump();
  EXPECT_EQ(KindOf(finalized), ErrorKind::kWriteFile);
  EXPECT_THAT(finalized.message(),
              HasSubstr("dump files could not be written"));
  EXPECT_THAT(finalized.message(), HasSubstr("no longer exists"));
  EXPECT_FALSE(
      fs::exists(dump_path_));  // never re-created behind the user's back
  // The next session works again.
  fs::create_directories(dump_path_);
  ASSERT_TRUE(manager.InitDump().ok());
  ASSERT_TRUE(
      manager
          .SetDump(Config(
              R"("dump_list":[{"model_name":"mlp_block","layer":["attn"]}])"))
          .ok());
  Loaded again = Load(manager, registry_, kMlp);
  RunModel(*again.model);
  ASSERT_TRUE(manager.FinalizeDump().ok());
  EXPECT_EQ(FilesUnder(dump_path_).size(), 1u);
}

TEST_F(DumpManagerTest, TinyWriterBudgetAppliesBackPressureWithoutLosingFiles) {
  SessionOptions options;
  options.writer_memory_budget = 8 * 1024;  // smaller than one conv output
  DumpManager manager(options);
  ASSERT_TRUE(manager.InitDump().ok());
  ASSERT_TRUE(
      manager.SetDump(Config(R"("dump_list":[{"model_name":"resnet_tiny"}])"))
          .ok());
  Loaded loaded = Load(manager, registry_, kResnet);
  for (int i = 0; i < 3; ++i) RunModel(*loaded.model);
  auto session = manager.current_session();
  ASSERT_TRUE(manager.FinalizeDump().ok());
  EXPECT_EQ(FilesUnder(TimeFolder()).size(),
            3 * (loaded.model->steps().size() + 1));
  EXPECT_GT(session->writer().stats().back_pressure_waits, 0u);
  EXPECT_EQ(session->writer().stats().files_failed, 0u);
}

TEST_F(DumpManagerTest, TimeFolderOfAnotherRunIsNotShared) {
  // Another process already dumped into this second's folder (and the next two,
  // in case the clock ticks): this run must not mix its files into it.
  const std::time_t now = std::time(nullptr);
  for (int i = 0; i < 3; ++i)
    fs::create_directories(dump_path_ + "/" + DumpTimeFolderName(now + i));
  DumpManager manager;
  ASSERT_TRUE(manager.InitDump().ok());
  const std::string config =
      Config(R"("dump_list":[{"model_name":"mlp_block","layer":["attn"]}])");
  ASSERT_TRUE(manager.SetDump(config).ok());
  // The folder is created with the first file: SetDump leaves no trace.
  EXPECT_EQ(manager.current_session()->time_folder(), "");
  Loaded first = Load(manager, registry_, kMlp);
  RunModel(*first.model);
  manager.current_session()->writer().Flush().IgnoreError();
  const std::string folder = manager.current_session()->time_folder();
  EXPECT_TRUE(std::regex_match(folder, std::regex("[0-9]{14}_1"))) << folder;
  // A second session of the same process in the same second shares the folder
  // it claimed.
  ASSERT_TRUE(manager.SetDump(config).ok());
  Loaded second_model = Load(manager, registry_, kMlp);
  RunModel(*second_model.model);
  manager.current_session()->writer().Flush().IgnoreError();
  const std::string second = manager.current_session()->time_folder();
  if (second.substr(0, 14) == folder.substr(0, 14)) {
    EXPECT_EQ(second, folder);
  }
  ASSERT_TRUE(manager.FinalizeDump().ok());
}

TEST_F(DumpManagerTest, DeviceIdSeparatesDumps) {
  DumpManager manager;
  ASSERT_TRUE(manager.InitDump().ok());
  ASSERT_TRUE(
      manager
          .SetDump(Config(
              R"("dump_list":[{"model_name":"mlp_block","layer":["attn"]}])"))
          .ok());
  Loaded a = Load(manager, registry_, kMlp, false, /*device=*/0);
  Loaded b = Load(manager, registry_, kMlp, false, /*device=*/1);
  RunModel(*a.model);
  RunModel(*b.model);
  ASSERT_TRUE(manager.FinalizeDump().ok());
  const std::vector<std::string> files = FilesUnder(TimeFolder());
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].substr(0, 2), "0/");
  EXPECT_EQ(files[1].substr(0, 2), "1/");
}

}  // namespace
}  // namespace acldump::dump
