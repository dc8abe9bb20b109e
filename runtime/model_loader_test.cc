// The one load path: every failure tagged with the kind an API reports, a
// dynamic model compiled per gear wherever it is loaded, caller memory checked
// and pinned, and a listener whose failure unloads the model.
#include "runtime/model_loader.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "base/error_kind.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/converter.h"
#include "runtime/host/memory_registry.h"
#include "runtime/model_file.h"

namespace acldump {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kResnet[] = "testdata/resnet_tiny.onnx";
constexpr char kOcr[] = "testdata/ocr_tiny.onnx";

class ModelLoaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::path(::testing::TempDir()) /
           ("loader_" + std::to_string(getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string Write(const std::string& name, const std::string& bytes) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }
  std::string StaticModel() {
    absl::StatusOr<Graph> graph = ConvertOnnxFile(kResnet);
    EXPECT_TRUE(graph.ok()) << graph.status();
    return Write("resnet.v2.om", SerializeModel(*graph));
  }
  std::string DynamicModel() {
    ImportOptions shapes;
    shapes.input_shapes = *ParseInputShapes("x:-1,3,16,16");
    absl::StatusOr<Graph> graph =
        ConvertOnnxFile(kOcr, {}, shapes, {GearKind::kBatch, {{1}, {2}, {4}}});
    EXPECT_TRUE(graph.ok()) << graph.status();
    return Write("ocr_batch.om", SerializeModel(*graph));
  }

  std::filesystem::path dir_;
};

TEST_F(ModelLoaderTest, ReadFailuresAreTaggedAndNamed) {
  absl::Status missing =
      ReadModel(ModelSource::File((dir_ / "missing.om").string())).status();
  EXPECT_EQ(KindOf(missing), ErrorKind::kReadModelFailure);
  EXPECT_THAT(missing.message(), HasSubstr("missing.om"));
  EXPECT_EQ(KindOf(ReadModel(ModelSource::File(dir_.string())).status()),
            ErrorKind::kReadModelFailure);

  const std::string garbage = Write("garbage.om", "not a model at all");
  absl::Status corrupt = ReadModel(ModelSource::File(garbage)).status();
  EXPECT_EQ(KindOf(corrupt), ErrorKind::kParseModel);
  EXPECT_THAT(corrupt.message(), HasSubstr(garbage));
  EXPECT_THAT(corrupt.message(), HasSubstr("not an acldump model"));
  EXPECT_THAT(corrupt.message(), HasSubstr("acldump-convert model.onnx"));
  EXPECT_EQ(KindOf(ReadModel(ModelSource::Memory("ACLDMOM1\xff")).status()),
            ErrorKind::kParseModel);
  // A version-2 header declaring a message over the limit: a size error,
  // from memory and from disk alike.
  std::string oversized("ACLDMOM2");
  oversized += std::string("\0\0\0\x80\0\0\0\0", 8);  // 2 GiB
  oversized += std::string(48, '\0');
  for (const ModelSource& source :
       {ModelSource::Memory(oversized),
        ModelSource::File(Write("oversized.om", oversized))}) {
    absl::Status size = ReadModel(source).status();
    EXPECT_EQ(KindOf(size), ErrorKind::kModelSizeInvalid) << size;
    EXPECT_THAT(size.message(),
                HasSubstr("message is 2147483648 bytes, more than the limit"));
  }
  // One cut short inside its message: a parse error naming the truncation.
  std::string cut = oversized;
  cut[11] = 0;
  cut[8] = 100;  // a 100-byte message in a 64-byte file
  EXPECT_THAT(ReadModel(ModelSource::Memory(cut)).status().message(),
              HasSubstr("truncated"));
  // The SDK converter's .om: its 256-byte header starts with the magic
  // number 0x444F4D49.
  std::string device_header(256, '\0');
  device_header.replace(0, 4, "IMOD");
  absl::Status device = ReadModel(ModelSource::Memory(device_header)).status();
  EXPECT_EQ(KindOf(device), ErrorKind::kParseModel);
  EXPECT_THAT(device.message(), HasSubstr("a device model"));
  EXPECT_THAT(device.message(), HasSubstr("(atc)"));
}

TEST_F(ModelLoaderTest, FileAndMemoryLoadTheSameModel) {
  const std::string path = StaticModel();
  EXPECT_EQ(ModelSource::File(path).file_stem(), "resnet.v2");
  EXPECT_EQ(ModelSource::Memory("x").file_stem(), "");
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), {});
  auto from_file = LoadModel(ModelSource::File(path));
  auto from_memory = LoadModel(ModelSource::Memory(bytes));
  ASSERT_TRUE(from_file.ok()) << from_file.status();
  ASSERT_TRUE(from_memory.ok()) << from_memory.status();
  EXPECT_FALSE((*from_file)->dynamic());
  EXPECT_EQ((*from_file)->plan(0).steps().size(),
            (*from_memory)->plan(0).steps().size());
  EXPECT_EQ((*from_file)->work_bytes(), (*from_memory)->work_bytes());
}

TEST_F(ModelLoaderTest, ADynamicModelGetsAPlanPerGearOrAClearRefusal) {
  const std::string path = DynamicModel();
  auto geared = LoadModel(ModelSource::File(path));
  ASSERT_TRUE(geared.ok()) << geared.status();
  EXPECT_EQ((*geared)->num_plans(), 3u);
  EXPECT_THAT((*geared)->gears(),
              ElementsAre(ElementsAre(1), ElementsAre(2), ElementsAre(4)));
  absl::Status refused = LoadStaticModel(ModelSource::File(path)).status();
  EXPECT_EQ(KindOf(refused), ErrorKind::kParseModel);
  EXPECT_THAT(refused.message(), HasSubstr("is dynamic (3 batch gears)"));
  EXPECT_THAT(refused.message(), HasSubstr("--input-shape"));
}

// Control flow is no registered op, but what runs inside it must be.
TEST_F(ModelLoaderTest, AnUnknownOpInsideASubgraphIsNamedByItsPath) {
  auto branch = std::make_shared<Graph>();
  branch->name = "then";
  GraphNode inner;
  inner.name = "frob";
  inner.op_type = "Frobnicate";
  inner.inputs = {"x"};
  inner.outputs = {"t"};
  branch->nodes = {inner};
  branch->outputs = {{"t", {DType::kFloat32, Shape({2})}}};
  auto other = std::make_shared<Graph>();
  other->outputs = {{"x", {DType::kFloat32, Shape({2})}}};
  GraphNode node;
  node.name = "if";
  node.op_type = "If";
  node.inputs = {"cond"};
  node.outputs = {"y"};
  node.subgraphs = {{"then_branch", branch}, {"else_branch", other}};
  node.implicit_inputs = ImplicitInputsOf(node);
  Graph graph;
  graph.name = "branches";
  graph.inputs = {{"cond", {DType::kBool, Shape({})}},
                  {"x", {DType::kFloat32, Shape({2})}}};
  graph.outputs = {{"y", {DType::kFloat32, Shape({2})}}};
  graph.nodes = {node};
  const std::string bytes = SerializeModel(graph);
  ASSERT_TRUE(ReadModel(ModelSource::Memory(bytes)).ok());
  const absl::Status status = LoadModel(ModelSource::Memory(bytes)).status();
  EXPECT_EQ(KindOf(status), ErrorKind::kParseModel);
  EXPECT_THAT(status.message(),
              HasSubstr("node 'if/then_branch/frob' (Frobnicate): op type "
                        "'Frobnicate' is not supported"));
}

TEST_F(ModelLoaderTest, AModelOverTheMemoryLimitIsAnOutOfMemoryError) {
  CompileOptions tiny;
  tiny.max_memory_bytes = 1024;
  absl::Status over =
      LoadModel(ModelSource::File(StaticModel()), tiny).status();
  EXPECT_EQ(KindOf(over), ErrorKind::kOutOfMemory);
}

// Records what it was given; fails when told to.
class RecordingListener : public ModelLoadListener {
 public:
  absl::Status OnModelLoaded(const LoadedModel& model, int32_t device,
                             std::vector<std::string>* warnings) override {
    ids.push_back(model.id);
    stems.push_back(model.file_stem);
    devices.push_back(device);
    if (warnings != nullptr) warnings->push_back("noticed " + model.file_stem);
    return result;
  }
  std::vector<uint32_t> ids;
  std::vector<std::string> stems;
  std::vector<int32_t> devices;
  absl::Status result;
};

TEST_F(ModelLoaderTest, LoadAndRegisterHandsTheModelToTheListener) {
  ModelRegistry registry;
  RecordingListener listener;
  LoadRequest request;
  request.source = ModelSource::File(StaticModel());
  request.device = 5;
  std::vector<std::string> warnings;
  absl::StatusOr<uint32_t> id =
      LoadAndRegister(request, registry, &listener, &warnings);
  ASSERT_TRUE(id.ok()) << id.status();
  EXPECT_THAT(listener.ids, ElementsAre(*id));
  EXPECT_THAT(listener.stems, ElementsAre("resnet.v2"));
  EXPECT_THAT(listener.devices, ElementsAre(5));
  EXPECT_THAT(warnings, ElementsAre("noticed resnet.v2"));
  ASSERT_NE(registry.Find(*id), nullptr);
  EXPECT_EQ(registry.Find(*id)->file_stem, "resnet.v2");

  // Without a listener the model is only registered.
  absl::StatusOr<uint32_t> second =
      LoadAndRegister(request, registry, nullptr, nullptr);
  ASSERT_TRUE(second.ok());
  EXPECT_NE(*second, *id);
  EXPECT_EQ(registry.size(), 2u);
}

TEST_F(ModelLoaderTest, AListenerFailureUnloadsTheModel) {
  ModelRegistry registry;
  RecordingListener listener;
  LoadRequest request;
  request.source = ModelSource::File(StaticModel());
  listener.result = absl::InvalidArgumentError("observer plan has 3 entries");
  absl::Status failed =
      LoadAndRegister(request, registry, &listener, nullptr).status();
  EXPECT_EQ(failed.code(), absl::StatusCode::kInternal);  // untagged
  EXPECT_THAT(failed.message(), HasSubstr("observer plan has 3 entries"));
  EXPECT_EQ(registry.size(), 0u);
  listener.result = KindError(ErrorKind::kWriteFile, "no room");
  failed = LoadAndRegister(request, registry, &listener, nullptr).status();
  EXPECT_EQ(KindOf(failed), ErrorKind::kWriteFile);  // kept as tagged
  EXPECT_EQ(registry.size(), 0u);
}

TEST_F(ModelLoaderTest, CallerMemoryIsCheckedAndPinned) {
  ModelRegistry registry;
  LoadRequest request;
  request.source = ModelSource::File(StaticModel());
  auto model = LoadModel(request.source);
  ASSERT_TRUE(model.ok());
  const ModelMemoryNeeds needs = MemoryNeeds(**model);
  ASSERT_GT(needs.work_bytes, 0u);
  ASSERT_GT(needs.weight_bytes, 0u);

  std::vector<char> foreign(needs.work_bytes);
  request.memory = {foreign.data(), foreign.size(), nullptr, 0};
  absl::Status outside =
      LoadAndRegister(request, registry, nullptr, nullptr).status();
  EXPECT_EQ(KindOf(outside), ErrorKind::kModelParamInvalid);
  EXPECT_THAT(outside.message(), HasSubstr("not inside one allocation"));

  host::MemoryRegistry& memory = host::Memory();
  void* work = memory.Allocate(needs.work_bytes, host::MemoryKind::kDevice);
  request.memory = {work, needs.work_bytes - 1, nullptr, 0};
  absl::Status small =
      LoadAndRegister(request, registry, nullptr, nullptr).status();
  EXPECT_EQ(KindOf(small), ErrorKind::kModelParamInvalid);
  EXPECT_THAT(small.message(), HasSubstr("is too small"));

  request.memory = {work, needs.work_bytes, nullptr, 0};
  absl::StatusOr<uint32_t> id =
      LoadAndRegister(request, registry, nullptr, nullptr);
  ASSERT_TRUE(id.ok()) << id.status();
  EXPECT_EQ(memory.Free(work, host::MemoryKind::kDevice),
            host::MemoryRegistry::FreeResult::kInUse);
  ASSERT_TRUE(registry.Remove(*id).ok());
  EXPECT_EQ(memory.Free(work, host::MemoryKind::kDevice),
            host::MemoryRegistry::FreeResult::kFreed);
}

TEST_F(ModelLoaderTest, ConvertOnnxToModelFileTagsEachFailure) {
  const std::string om = (dir_ / "out.om").string();
  ASSERT_TRUE(ConvertOnnxToModelFile(kResnet, om).ok());
  EXPECT_TRUE(LoadModel(ModelSource::File(om)).ok());

  absl::Status missing =
      ConvertOnnxToModelFile((dir_ / "none.onnx").string(), om);
  EXPECT_EQ(KindOf(missing), ErrorKind::kReadModelFailure);
  const std::string garbage = Write("garbage.onnx", "\x08\x01garbage");
  absl::Status corrupt = ConvertOnnxToModelFile(garbage, om);
  EXPECT_EQ(KindOf(corrupt), ErrorKind::kParseModel);
  EXPECT_THAT(corrupt.message(), HasSubstr(garbage));
  absl::Status unwritable = ConvertOnnxToModelFile(
      kResnet, (dir_ / "no_such_folder" / "out.om").string());
  EXPECT_EQ(KindOf(unwritable), ErrorKind::kWriteFile);
}

}  // namespace
}  // namespace acldump
