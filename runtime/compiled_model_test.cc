#include "runtime/compiled_model.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <cstdlib>
#include <cstring>

#include "base/error_kind.h"
#include "base/strings.h"
#include "kernels/npy.h"
#include "kernels/ops.h"
#include "runtime/converter.h"
#include "runtime/model_file.h"
#include "runtime/model_loader.h"

namespace acldump {
namespace {

using ::testing::HasSubstr;

struct ModelRun {
  std::vector<Tensor> inputs;
  std::vector<Tensor> outputs;
  absl::Status status;
};

ModelRun Execute(CompiledModel& model, const std::string& model_name) {
  ModelRun run;
  std::vector<HostBuffer> in;
  for (const auto& input : model.graph().inputs) {
    auto t =
        ReadNpyFile("testdata/" + model_name + ".input." + input.name + ".npy");
    EXPECT_TRUE(t.ok()) << t.status();
    run.inputs.push_back(std::move(*t));
  }
  for (const Tensor& t : run.inputs) in.push_back({t.data(), t.ByteSize()});
  std::vector<MutableHostBuffer> out;
  for (const auto& output : model.graph().outputs) {
    run.outputs.emplace_back(output.info.dtype, output.info.shape);
  }
  for (Tensor& t : run.outputs) out.push_back({t.data(), t.ByteSize()});
  run.status = model.Execute(in, out);
  return run;
}

void ExpectMatchesReference(const ModelRun& run, const Graph& graph,
                            const std::string& model_name) {
  ASSERT_TRUE(run.status.ok()) << run.status;
  for (size_t i = 0; i < graph.outputs.size(); ++i) {
    auto expected = ReadNpyFile("testdata/" + model_name + ".output." +
                                graph.outputs[i].name + ".npy");
    ASSERT_TRUE(expected.ok()) << expected.status();
    ASSERT_EQ(expected->info(), run.outputs[i].info());
    for (int64_t k = 0; k < expected->NumElements(); ++k) {
      const float e = expected->as<float>()[k];
      EXPECT_NEAR(run.outputs[i].as<float>()[k], e, 1e-4 * std::abs(e) + 1e-5)
          << model_name << " output " << graph.outputs[i].name << "[" << k
          << "]";
    }
  }
}

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir ? dir : "/tmp") + "/" + name;
}

class ReferenceTest : public ::testing::TestWithParam<const char*> {};

// PyTorch computed the references (testdata/generate_models.py): rtol 1e-4.
TEST_P(ReferenceTest, FromFileAndFromMemoryMatchPyTorch) {
  const std::string name = GetParam();
  auto graph = ConvertOnnxFile("testdata/" + name + ".onnx");
  ASSERT_TRUE(graph.ok()) << graph.status();
  const std::string path = TempPath(name + ".om");
  ASSERT_TRUE(WriteModelFile(*graph, path).ok());
  auto from_file = LoadStaticModel(ModelSource::File(path));
  ASSERT_TRUE(from_file.ok()) << from_file.status();
  ExpectMatchesReference(Execute(**from_file, name), (*from_file)->graph(),
                         name);
  auto from_memory =
      LoadStaticModel(ModelSource::Memory(SerializeModel(*graph)));
  ASSERT_TRUE(from_memory.ok()) << from_memory.status();
  const ModelRun first = Execute(**from_memory, name);
  ExpectMatchesReference(first, (*from_memory)->graph(), name);
  // A second execution reuses the arena and gives bit-identical results.
  const ModelRun second = Execute(**from_memory, name);
  for (size_t i = 0; i < first.outputs.size(); ++i) {
    EXPECT_EQ(std::memcmp(first.outputs[i].data(), second.outputs[i].data(),
                          first.outputs[i].ByteSize()),
              0);
  }
  EXPECT_EQ((*from_memory)->iteration(), 2u);
}

INSTANTIATE_TEST_SUITE_P(Models, ReferenceTest,
                         ::testing::Values("resnet_tiny", "mlp_block"));

// Detection post-processing whose output sizes depend on the input (NMS,
// NonZero) with an If and a Loop; references from numpy
// (testdata/generate_postprocess.py). The quiet input picks nothing: empty
// outputs, the If's else branch and a Loop of no iteration.
TEST(DynamicModelTest, PostprocessMatchesNumpyThroughTheModelFile) {
  auto graph = ConvertOnnxFile("testdata/postprocess_tiny.onnx");
  ASSERT_TRUE(graph.ok()) << graph.status();
  EXPECT_EQ(graph->outputs[0].info.shape, Shape({-1, 4}));
  EXPECT_EQ(graph->outputs[3].info.shape, Shape({1, -1}));
  auto model = LoadStaticModel(ModelSource::Memory(SerializeModel(*graph)));
  ASSERT_TRUE(model.ok()) << model.status();
  const std::vector<std::string> names = {"boxes_out", "best", "cumsum",
                                          "above"};
  for (const char* run : {"postprocess_tiny", "postprocess_tiny_quiet"}) {
    SCOPED_TRACE(run);
    auto scores = ReadNpyFile(StrCat("testdata/", run, ".input.scores.npy"));
    auto boxes = ReadNpyFile("testdata/postprocess_tiny.input.boxes.npy");
    ASSERT_TRUE(scores.ok() && boxes.ok());
    HostBuffer in[] = {{scores->data(), scores->ByteSize()},
                       {boxes->data(), boxes->ByteSize()}};
    // Room for the largest result: six boxes.
    std::vector<std::vector<std::byte>> room(4, std::vector<std::byte>(96));
    std::vector<MutableHostBuffer> out;
    for (auto& r : room) out.push_back({r.data(), r.size()});
    ASSERT_TRUE((*model)->Execute(in, out).ok());
    const std::vector<TensorInfo> infos = (*model)->CurrentOutputInfos();
    for (size_t k = 0; k < names.size(); ++k) {
      auto expected =
          ReadNpyFile(StrCat("testdata/", run, ".output.", names[k], ".npy"));
      ASSERT_TRUE(expected.ok()) << expected.status();
      EXPECT_EQ(infos[k], expected->info()) << names[k];
      EXPECT_EQ(
          std::memcmp(room[k].data(), expected->data(), expected->ByteSize()),
          0)
          << names[k];
    }
  }
  // Too small a buffer for this input's boxes: the error says what it needs.
  auto scores = ReadNpyFile("testdata/postprocess_tiny.input.scores.npy");
  auto boxes = ReadNpyFile("testdata/postprocess_tiny.input.boxes.npy");
  HostBuffer in[] = {{scores->data(), scores->ByteSize()},
                     {boxes->data(), boxes->ByteSize()}};
  std::vector<std::vector<std::byte>> room(4, std::vector<std::byte>(96));
  std::vector<MutableHostBuffer> out;
  for (auto& r : room) out.push_back({r.data(), r.size()});
  out[0].size = 32;
  absl::Status status = (*model)->Execute(in, out);
  EXPECT_EQ(KindOf(status), ErrorKind::kModelOutputNotMatch);
  EXPECT_THAT(status.message(),
              HasSubstr("output 0 ('boxes_out') is float32[4,4] in this "
                        "execution: it needs 64 bytes"));
}

TEST(MemoryPlanTest, ReusesBuffersAndAliasesNoTaskNodes) {
  auto model = CompiledModel::Compile(
      *ConvertOnnxFile("testdata/resnet_tiny.onnx"), BuiltinOps());
  ASSERT_TRUE(model.ok()) << model.status();
  const MemoryPlanStats& plan = (*model)->memory_plan();
  EXPECT_GT(plan.naive_bytes, 0u);
  EXPECT_LT(plan.arena_bytes, plan.naive_bytes);
  // conv1 output 16x32x32 floats (64 KiB) and pool1 output (16 KiB) are alive
  // together; later values fit into freed space, so the arena stays below 64 +
  // 16 + 16 KiB + alignment.
  EXPECT_LE(plan.arena_bytes, (64 + 16 + 16 + 1) * 1024u);
  EXPECT_EQ(plan.num_aliases, 1u);      // flatten
  EXPECT_GT(plan.workspace_bytes, 0u);  // im2col
  // Flatten is not a step.
  for (const StepInfo& step : (*model)->steps())
    EXPECT_NE(step.name, "flatten");
  EXPECT_EQ((*model)->steps().size(), 14u);
}

TEST(MemoryPlanTest, LivenessNeverOverlapsWhileBothAlive) {
  // A chain where every value is read twice later: a = x+x; b = a+a; c = b+a;
  // out = c+b.
  Graph graph;
  graph.name = "chain";
  graph.inputs.push_back({"x", {DType::kFloat32, Shape({256})}});
  graph.outputs.push_back({"out", {DType::kFloat32, Shape({256})}});
  graph.nodes = {{"n1", "Add", {"x", "x"}, {"a"}},
                 {"n2", "Add", {"a", "a"}, {"b"}},
                 {"n3", "Add", {"b", "a"}, {"c"}},
                 {"n4", "Add", {"c", "b"}, {"out"}}};
  auto model = CompiledModel::Compile(graph, BuiltinOps());
  ASSERT_TRUE(model.ok()) << model.status();
  // a, b, c are all alive at n3: the arena must hold three buffers.
  EXPECT_EQ((*model)->memory_plan().arena_bytes, 3 * 1024u);
  std::vector<float> x(256, 1.0f), out(256);
  HostBuffer in{x.data(), 1024};
  MutableHostBuffer o{out.data(), 1024};
  ASSERT_TRUE((*model)->Execute({&in, 1}, {&o, 1}).ok());
  // a=2, b=4, c=6, out=10
  EXPECT_EQ(out[0], 10.0f);
  EXPECT_EQ(out[255], 10.0f);
}

class RecordingObserver : public ExecutionObserver {
 public:
  bool observe = true;
  std::vector<std::string> events;
  bool BeginIteration(uint64_t iteration) override {
    events.push_back("begin " + std::to_string(iteration));
    return observe;
  }
  void BeforeNode(const NodeEvent& e) override {
    events.push_back("before " + e.step.name);
  }
  void AfterNode(const NodeEvent& e) override {
    events.push_back("after " + e.step.name + " " +
                     e.outputs[0].info().ToString());
  }
  void OnNodeFailure(const NodeEvent& e, const absl::Status& s) override {
    events.push_back("failed " + e.step.name +
                     " inputs=" + std::to_string(e.inputs.size()));
  }
  absl::Status EndIteration(uint64_t iteration) override {
    events.push_back("end " + std::to_string(iteration));
    return absl::OkStatus();
  }
};

TEST(ObserverTest, CalledOnlyWhereThePlanAsks) {
  auto model = CompiledModel::Compile(
      *ConvertOnnxFile("testdata/resnet_tiny.onnx"), BuiltinOps());
  ASSERT_TRUE(model.ok());
  auto observer = std::make_shared<RecordingObserver>();
  std::vector<uint8_t> flags((*model)->steps().size(), kObserveNothing);
  flags[0] = kObserveBefore | kObserveAfter;  // conv1bn1relu1
  flags[13] = kObserveAfter;                  // prob
  ASSERT_TRUE((*model)->AttachObserver(observer, flags).ok());
  ASSERT_TRUE(Execute(**model, "resnet_tiny").status.ok());
  EXPECT_THAT(observer->events,
              ::testing::ElementsAre("begin 0", "before conv1bn1relu1",
                                     "after conv1bn1relu1 float32[1,16,32,32]",
                                     "after prob float32[1,10]", "end 0"));
  observer->events.clear();
  observer->observe = false;  // e.g. a step dump_step does not select
  ASSERT_TRUE(Execute(**model, "resnet_tiny").status.ok());
  EXPECT_THAT(observer->events, ::testing::ElementsAre("begin 1", "end 1"));
  EXPECT_FALSE((*model)->AttachObserver(observer, {1, 2}).ok());
  ASSERT_TRUE((*model)->AttachObserver(nullptr, {}).ok());
  EXPECT_EQ((*model)->observer(), nullptr);
}

TEST(ExecuteTest, KernelFailureNamesTheNodeAndReachesTheObserver) {
  Graph graph;
  graph.name = "gather";
  graph.inputs.push_back({"data", {DType::kFloat32, Shape({4})}});
  graph.inputs.push_back({"indices", {DType::kInt64, Shape({2})}});
  graph.outputs.push_back({"out", {DType::kFloat32, Shape({2})}});
  graph.nodes = {{"lookup", "Gather", {"data", "indices"}, {"out"}}};
  auto model = CompiledModel::Compile(graph, BuiltinOps());
  ASSERT_TRUE(model.ok()) << model.status();
  auto observer = std::make_shared<RecordingObserver>();
  ASSERT_TRUE((*model)->AttachObserver(observer, {kObserveNothing}).ok());
  std::vector<float> data = {1, 2, 3, 4};
  std::vector<int64_t> indices = {1, 9};
  std::vector<float> out(2);
  HostBuffer in[] = {{data.data(), 16}, {indices.data(), 16}};
  MutableHostBuffer o{out.data(), 8};
  absl::Status status = (*model)->Execute(in, {&o, 1});
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(status.message(),
              HasSubstr("node 'lookup' (Gather, task 0) failed"));
  EXPECT_THAT(status.message(), HasSubstr("index 9"));
  EXPECT_THAT(
      observer->events,
      ::testing::ElementsAre("begin 0", "failed lookup inputs=2", "end 0"));
  indices[1] = 3;
  ASSERT_TRUE((*model)->Execute(in, {&o, 1}).ok());
  EXPECT_EQ(out[1], 4.0f);
}

TEST(ExecuteTest, RejectsWrongBuffers) {
  auto model = CompiledModel::Compile(
      *ConvertOnnxFile("testdata/mlp_block.onnx"), BuiltinOps());
  ASSERT_TRUE(model.ok());
  std::vector<float> x(8 * 32), y(2 * 32);
  HostBuffer small{x.data(), 100};
  MutableHostBuffer out{y.data(), y.size() * 4};
  EXPECT_THAT(
      (*model)->Execute({&small, 1}, {&out, 1}).message(),
      HasSubstr(
          "input 0 ('x', float32[8,32]) needs 1024 bytes, the buffer has 100"));
  HostBuffer null_input{nullptr, 1024};
  EXPECT_THAT((*model)->Execute({&null_input, 1}, {&out, 1}).message(),
              HasSubstr("the buffer is NULL"));
  EXPECT_THAT((*model)->Execute({}, {&out, 1}).message(),
              HasSubstr("has 1 inputs, got 0"));
  EXPECT_EQ((*model)->iteration(), 0u);  // rejected calls are not iterations
}

TEST(CompileTest, DeclaredOutputsMustMatchInference) {
  Graph graph;
  graph.name = "bad";
  graph.inputs.push_back({"x", {DType::kFloat32, Shape({2})}});
  graph.outputs.push_back({"y", {DType::kFloat32, Shape({3})}});
  graph.nodes = {{"relu", "Relu", {"x"}, {"y"}}};
  EXPECT_THAT(
      CompiledModel::Compile(graph, BuiltinOps()).status().message(),
      HasSubstr(
          "output 'y' is declared as float32[3] but computes float32[2]"));
  graph.outputs[0].info.shape = Shape({2});
  graph.nodes[0].op_type = "Frobnicate";
  EXPECT_THAT(
      CompiledModel::Compile(graph, BuiltinOps()).status().message(),
      HasSubstr(
          "node 'relu' (Frobnicate): op type 'Frobnicate' is not supported"));
  graph.nodes[0].op_type = "Relu";
  graph.nodes[0].no_task = true;
  EXPECT_THAT(CompiledModel::Compile(graph, BuiltinOps()).status().message(),
              HasSubstr("marked no-task"));
}

TEST(CompileTest, GraphOutputThatIsAnInputOrInitializerIsCopied) {
  Graph graph;
  graph.name = "passthrough";
  graph.inputs.push_back({"x", {DType::kFloat32, Shape({2})}});
  auto w = std::make_shared<Tensor>(DType::kFloat32, Shape({2}));
  w->as<float>()[0] = 5;
  w->as<float>()[1] = 6;
  graph.initializers["w"] = w;
  graph.outputs.push_back({"x", {DType::kFloat32, Shape({2})}});
  graph.outputs.push_back({"w", {DType::kFloat32, Shape({2})}});
  graph.outputs.push_back({"y", {DType::kFloat32, Shape({2})}});
  graph.nodes = {
      {"id", "Identity", {"x"}, {"y"}, {}, {"id"}, /*no_task=*/true}};
  auto model = CompiledModel::Compile(graph, BuiltinOps());
  ASSERT_TRUE(model.ok()) << model.status();
  std::vector<float> x = {1, 2}, o1(2), o2(2), o3(2);
  HostBuffer in{x.data(), 8};
  MutableHostBuffer out[] = {{o1.data(), 8}, {o2.data(), 8}, {o3.data(), 8}};
  ASSERT_TRUE((*model)->Execute({&in, 1}, out).ok());
  EXPECT_EQ(o1, (std::vector<float>{1, 2}));
  EXPECT_EQ(o2, (std::vector<float>{5, 6}));
  EXPECT_EQ(o3,
            (std::vector<float>{
                1, 2}));  // no-task output that is a graph output still runs
}

}  // namespace
}  // namespace acldump

namespace acldump {
namespace {

// A tiny graph whose activations are huge: x -> Expand to [n] -> Relu chain.
Graph HugeActivations(int64_t elements, int chain) {
  Graph graph;
  graph.name = "bomb";
  graph.inputs.push_back({"x", {DType::kFloat32, Shape({1})}});
  auto shape = std::make_shared<Tensor>(DType::kInt64, Shape({1}));
  shape->as<int64_t>()[0] = elements;
  graph.initializers["shape"] = shape;
  graph.nodes.push_back({"expand", "Expand", {"x", "shape"}, {"v0"}});
  for (int i = 1; i <= chain; ++i) {
    graph.nodes.push_back(
        {StrCat("relu", i), "Relu", {StrCat("v", i - 1)}, {StrCat("v", i)}});
  }
  graph.outputs.push_back(
      {StrCat("v", chain), {DType::kFloat32, Shape({elements})}});
  return graph;
}

long MaxRssKiB() {
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

TEST(CompileTest, CompilingPlansMemoryWithoutTouchingIt) {
  // 2 GiB of activations: planned, not allocated, until the first execution.
  const long before = MaxRssKiB();
  CompileOptions options;
  options.max_memory_bytes = size_t{64} << 30;
  auto model = CompiledModel::Compile(HugeActivations(int64_t{1} << 28, 3),
                                      BuiltinOps(), options);
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_GE((*model)->memory_plan().arena_bytes, size_t{1} << 30);
  EXPECT_LT(MaxRssKiB() - before, 64 * 1024);  // < 64 MiB grew
}

TEST(CompileTest, AModelOverItsMemoryLimitIsRejectedBeforeAllocating) {
  CompileOptions options;
  options.max_memory_bytes = size_t{1} << 30;
  auto model = CompiledModel::Compile(HugeActivations(int64_t{1} << 28, 3),
                                      BuiltinOps(), options);
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(KindOf(model.status()), ErrorKind::kOutOfMemory);
  EXPECT_THAT(model.status().message(),
              HasSubstr("model 'bomb' needs 2147483712 bytes of memory "
                        "(activations 2147483648, kernel workspace 0, weights "
                        "64)"));
  EXPECT_THAT(model.status().message(),
              HasSubstr("more than its limit of 1073741824 bytes"));
}

TEST(BindMemoryTest, RunsInCallerWorkAndWeightMemory) {
  auto model = CompiledModel::Compile(
      *ConvertOnnxFile("testdata/resnet_tiny.onnx"), BuiltinOps());
  ASSERT_TRUE(model.ok());
  const MemoryPlanStats& plan = (*model)->memory_plan();
  ASSERT_GT(plan.work_bytes(), 0u);
  ASSERT_GT(plan.weight_bytes, 0u);
  AlignedBuffer work(plan.work_bytes()), weights(plan.weight_bytes);
  EXPECT_THAT((*model)
                  ->BindMemory(work.data(), plan.work_bytes() - 1, nullptr, 0)
                  .message(),
              HasSubstr("work memory of"));
  EXPECT_THAT(
      (*model)
          ->BindMemory(nullptr, 0, weights.data(), plan.weight_bytes - 1)
          .message(),
      HasSubstr("weight memory of"));
  ASSERT_TRUE(
      (*model)
          ->BindMemory(work.data(), work.size(), weights.data(), weights.size())
          .ok());
  // The caller's weight memory now holds the weights: the model reads them
  // from there (poisoning it changes the result).
  ModelRun run = Execute(**model, "resnet_tiny");
  ExpectMatchesReference(run, (*model)->graph(), "resnet_tiny");
  std::memset(weights.data(), 0, weights.size());
  ModelRun poisoned = Execute(**model, "resnet_tiny");
  ASSERT_TRUE(poisoned.status.ok());
  EXPECT_NE(std::memcmp(poisoned.outputs[0].data(), run.outputs[0].data(),
                        run.outputs[0].ByteSize()),
            0);
}

}  // namespace
}  // namespace acldump
