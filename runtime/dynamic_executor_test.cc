// The dynamic part of a compiled model: nodes prepared while the model runs
// and If/Loop/Scan subgraphs, through CompiledModel as users reach them.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <mutex>

#include "base/error_kind.h"
#include "base/strings.h"
#include "kernels/ops.h"
#include "runtime/compiled_model.h"

namespace acldump {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

GraphNode Node(std::string name, std::string op,
               std::vector<std::string> inputs,
               std::vector<std::string> outputs) {
  GraphNode node;
  node.name = std::move(name);
  node.op_type = std::move(op);
  node.inputs = std::move(inputs);
  node.outputs = std::move(outputs);
  return node;
}

std::shared_ptr<const Tensor> Int64s(std::vector<int64_t> values,
                                     std::vector<int64_t> dims) {
  auto t = std::make_shared<Tensor>(DType::kInt64, Shape(dims));
  std::memcpy(t->data(), values.data(), values.size() * sizeof(int64_t));
  return t;
}

std::shared_ptr<const Tensor> Floats(std::vector<float> values,
                                     std::vector<int64_t> dims) {
  auto t = std::make_shared<Tensor>(DType::kFloat32, Shape(dims));
  std::memcpy(t->data(), values.data(), values.size() * sizeof(float));
  return t;
}

NamedTensorInfo Value(std::string name, DType dtype,
                      std::vector<int64_t> dims) {
  return NamedTensorInfo{std::move(name), TensorInfo{dtype, Shape(dims)}};
}

// Records what the observer sees, dynamic steps included.
class Recorder : public ExecutionObserver {
 public:
  bool BeginIteration(uint64_t) override { return true; }
  void AfterNode(const NodeEvent& e) override {
    std::vector<float> first;
    names.push_back(e.step.name);
    tasks.push_back(e.step.task_id);
    shapes.push_back(e.outputs.empty() ? "" : e.outputs[0].shape.ToString());
  }
  bool ObservesDynamicSteps() const override { return true; }
  std::vector<std::string> names;
  std::vector<uint32_t> tasks;
  std::vector<std::string> shapes;
};

absl::Status RunOnce(CompiledModel& model, const std::vector<float>& x,
                     std::vector<float>& y) {
  HostBuffer in{x.data(), x.size() * sizeof(float)};
  MutableHostBuffer out{y.data(), y.size() * sizeof(float)};
  return model.Execute({&in, 1}, {&out, 1});
}

// y = Reshape(Relu(x), shape) where shape = a + b is computed by a step: the
// Reshape is prepared at run time, the Relu stays static.
Graph ComputedShapeGraph() {
  Graph g;
  g.name = "computed_shape";
  g.inputs = {Value("x", DType::kFloat32, {2, 3})};
  g.outputs = {Value("y", DType::kFloat32, {-1, -1})};
  g.initializers["a"] = Int64s({1, 1}, {2});
  g.initializers["b"] = Int64s({2, 1}, {2});
  g.nodes = {Node("relu", "Relu", {"x"}, {"r"}),
             Node("add", "Add", {"a", "b"}, {"shape"}),
             Node("reshape", "Reshape", {"r", "shape"}, {"y"})};
  return g;
}

TEST(DynamicExecutorTest, ComputedShapeRunsAfterTheStaticSteps) {
  auto model = CompiledModel::Compile(ComputedShapeGraph(), BuiltinOps());
  ASSERT_TRUE(model.ok()) << model.status();
  ASSERT_EQ((*model)->steps().size(), 3u);
  EXPECT_FALSE((*model)->steps()[0].dynamic);  // relu
  EXPECT_FALSE((*model)->steps()[1].dynamic);  // add
  EXPECT_TRUE((*model)->steps()[2].dynamic);   // reshape
  EXPECT_EQ((*model)->steps()[2].task_id, 2u);
  EXPECT_TRUE((*model)->output_is_dynamic(0));
  std::vector<float> x = {-1, 2, -3, 4, 5, -6};
  std::vector<float> y(6, 99.f);
  {
    absl::Status s = RunOnce(**model, x, y);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
  EXPECT_THAT(y, ElementsAre(0, 2, 0, 4, 5, 0));
  EXPECT_EQ((*model)->CurrentOutputInfos()[0].ToString(), "float32[3,2]");
  // A buffer too small for this execution's result: a clear error.
  std::vector<float> small(5);
  absl::Status status = RunOnce(**model, x, small);
  EXPECT_EQ(KindOf(status), ErrorKind::kModelOutputNotMatch) << status;
  EXPECT_THAT(status.message(), HasSubstr("float32[3,2]"));
  EXPECT_THAT(status.message(), HasSubstr("needs 24 bytes"));
}

// out = If(sum(x) > 0) then x * scale (scale from the outer scope) else -x.
Graph IfGraph() {
  auto then_branch = std::make_shared<Graph>();
  then_branch->name = "then";
  then_branch->outputs = {Value("t_out", DType::kFloat32, {})};
  then_branch->nodes = {Node("mul", "Mul", {"x", "scale"}, {"t_out"})};
  auto else_branch = std::make_shared<Graph>();
  else_branch->name = "else";
  else_branch->outputs = {Value("e_out", DType::kFloat32, {})};
  else_branch->nodes = {Node("neg", "Neg", {"x"}, {"e_out"})};
  Graph g;
  g.name = "if_model";
  g.inputs = {Value("x", DType::kFloat32, {3})};
  g.outputs = {Value("out", DType::kFloat32, {3})};
  g.initializers["scale"] = Floats({10}, {});
  g.initializers["zero"] = Floats({0}, {});
  GraphNode sum = Node("sum", "ReduceSum", {"x"}, {"s"});
  sum.attrs.Set("keepdims", AttrValue(int64_t{0}));
  GraphNode branch = Node("choose", "If", {"positive"}, {"out"});
  branch.subgraphs = {{"then_branch", then_branch},
                      {"else_branch", else_branch}};
  branch.implicit_inputs = {"x", "scale"};
  g.nodes = {sum, Node("gt", "Greater", {"s", "zero"}, {"positive"}), branch};
  return g;
}

TEST(DynamicExecutorTest, IfRunsTheChosenBranchWithOuterScopeValues) {
  auto model = CompiledModel::Compile(IfGraph(), BuiltinOps());
  ASSERT_TRUE(model.ok()) << model.status();
  std::vector<std::string> names;
  for (const StepInfo& step : (*model)->steps()) names.push_back(step.name);
  EXPECT_THAT(names,
              ElementsAre("sum", "gt", "choose", "choose/then_branch/mul",
                          "choose/else_branch/neg"));
  auto recorder = std::make_shared<Recorder>();
  ASSERT_TRUE(
      (*model)
          ->AttachObserver(recorder, std::vector<uint8_t>(5, kObserveAfter))
          .ok());
  std::vector<float> y(3);
  ASSERT_TRUE(RunOnce(**model, {1, 2, 3}, y).ok());
  EXPECT_THAT(y, ElementsAre(10, 20, 30));
  ASSERT_TRUE(RunOnce(**model, {1, -2, -3}, y).ok());
  EXPECT_THAT(y, ElementsAre(-1, 2, 3));
  EXPECT_THAT(recorder->names,
              ElementsAre("sum", "gt", "choose/then_branch/mul", "choose",
                          "sum", "gt", "choose/else_branch/neg", "choose"));
  EXPECT_THAT(recorder->tasks, ElementsAre(0, 1, 3, 2, 0, 1, 4, 2));
}

// A Loop of M iterations: carried sum += x * i, a scan output of each sum,
// and an If inside the body that reads the loop's outer input.
Graph LoopGraph() {
  auto body = std::make_shared<Graph>();
  body->name = "body";
  body->inputs = {Value("i", DType::kInt64, {}), Value("c", DType::kBool, {}),
                  Value("acc", DType::kFloat32, {2})};
  body->inputs[2].infer_shape = true;
  body->outputs = {Value("c_out", DType::kBool, {}),
                   Value("acc_out", DType::kFloat32, {2}),
                   Value("scan", DType::kFloat32, {2})};
  GraphNode cast = Node("cast", "Cast", {"i"}, {"fi"});
  cast.attrs.Set("to", AttrValue(int64_t{1}));
  body->nodes = {cast, Node("mul", "Mul", {"x", "fi"}, {"xi"}),
                 Node("add", "Add", {"acc", "xi"}, {"acc_out"}),
                 Node("copy", "Identity", {"acc_out"}, {"scan"}),
                 Node("keep", "Identity", {"c"}, {"c_out"})};
  Graph g;
  g.name = "loop_model";
  g.inputs = {Value("x", DType::kFloat32, {2})};
  g.outputs = {Value("final", DType::kFloat32, {2}),
               Value("sums", DType::kFloat32, {-1, 2})};
  g.initializers["m"] = Int64s({4}, {});
  g.initializers["zeros"] = Floats({0, 0}, {2});
  auto cond = std::make_shared<Tensor>(DType::kBool, Shape({}));
  *cond->as<bool>() = true;
  g.initializers["cond"] = cond;
  GraphNode loop =
      Node("loop", "Loop", {"m", "cond", "zeros"}, {"final", "sums"});
  loop.subgraphs = {{"body", body}};
  loop.implicit_inputs = {"x"};
  g.nodes = {loop};
  return g;
}

TEST(DynamicExecutorTest, LoopCarriesValuesAndStacksScanOutputs) {
  auto model = CompiledModel::Compile(LoopGraph(), BuiltinOps());
  ASSERT_TRUE(model.ok()) << model.status();
  ASSERT_EQ((*model)->steps().size(), 6u);
  auto recorder = std::make_shared<Recorder>();
  ASSERT_TRUE(
      (*model)
          ->AttachObserver(recorder, std::vector<uint8_t>(6, kObserveAfter))
          .ok());
  std::vector<float> x = {1, 10};
  std::vector<float> final(2), sums(8);
  HostBuffer in{x.data(), 8};
  MutableHostBuffer out[] = {{final.data(), 8}, {sums.data(), 32}};
  ASSERT_TRUE((*model)->Execute({&in, 1}, out).ok());
  // acc after i = 0..3: 0, 1, 3, 6 times x.
  EXPECT_THAT(final, ElementsAre(6, 60));
  EXPECT_THAT(sums, ElementsAre(0, 0, 1, 10, 3, 30, 6, 60));
  EXPECT_EQ((*model)->CurrentOutputInfos()[1].ToString(), "float32[4,2]");
  // Each body node once per iteration, its iteration in its name, under one
  // task id.
  ASSERT_EQ(recorder->names.size(), 4u * 5 + 1);
  EXPECT_EQ(recorder->names[2], "loop/body/0/add");
  EXPECT_EQ(recorder->names[7], "loop/body/1/add");
  EXPECT_EQ(recorder->tasks[2], recorder->tasks[7]);
  EXPECT_EQ(recorder->names.back(), "loop");
  EXPECT_EQ(recorder->shapes.back(), "[2]");
}

TEST(DynamicExecutorTest, ScanSlicesInputsAndStacksOutputsInReverse) {
  // Running sum over rows of x[3,2], scanned backwards.
  auto body = std::make_shared<Graph>();
  body->inputs = {Value("s", DType::kFloat32, {2}),
                  Value("row", DType::kFloat32, {2})};
  body->outputs = {Value("s_out", DType::kFloat32, {2}),
                   Value("y", DType::kFloat32, {2})};
  body->nodes = {Node("add", "Add", {"s", "row"}, {"s_out"}),
                 Node("copy", "Identity", {"s_out"}, {"y"})};
  Graph g;
  g.inputs = {Value("x", DType::kFloat32, {3, 2})};
  g.outputs = {Value("total", DType::kFloat32, {2}),
               Value("partial", DType::kFloat32, {3, 2})};
  g.initializers["zeros"] = Floats({0, 0}, {2});
  GraphNode scan = Node("scan", "Scan", {"zeros", "x"}, {"total", "partial"});
  scan.attrs.Set("num_scan_inputs", AttrValue(int64_t{1}));
  scan.attrs.Set("scan_input_directions", AttrValue(std::vector<int64_t>{1}));
  scan.subgraphs = {{"body", body}};
  g.nodes = {scan};
  auto model = CompiledModel::Compile(g, BuiltinOps());
  ASSERT_TRUE(model.ok()) << model.status();
  std::vector<float> x = {1, 2, 3, 4, 5, 6};
  std::vector<float> total(2), partial(6);
  HostBuffer in{x.data(), 24};
  MutableHostBuffer out[] = {{total.data(), 8}, {partial.data(), 24}};
  ASSERT_TRUE((*model)->Execute({&in, 1}, out).ok());
  EXPECT_THAT(total, ElementsAre(9, 12));
  // Rows taken last first: 5,6 then 8,10 then 9,12.
  EXPECT_THAT(partial, ElementsAre(5, 6, 8, 10, 9, 12));
}

// Opset 8's Scan: a batch axis before the scan axis, an optional
// 'sequence_lens' first; each batch element is scanned on its own.
Graph Scan8Graph(bool with_lengths) {
  auto body = std::make_shared<Graph>();
  body->inputs = {Value("s", DType::kFloat32, {2}),
                  Value("row", DType::kFloat32, {2})};
  body->outputs = {Value("s_out", DType::kFloat32, {2}),
                   Value("y", DType::kFloat32, {2})};
  body->nodes = {Node("add", "Add", {"s", "row"}, {"s_out"}),
                 Node("copy", "Identity", {"s_out"}, {"y"})};
  Graph g;
  g.source_opset = 8;
  g.inputs = {Value("x", DType::kFloat32, {2, 3, 2})};  // batch 2, 3 steps
  g.outputs = {Value("total", DType::kFloat32, {2, 2}),
               Value("partial", DType::kFloat32, {2, 3, 2})};
  g.initializers["zeros"] = Floats({0, 0, 0, 0}, {2, 2});
  g.initializers["lengths"] = Int64s({3, 2}, {2});
  GraphNode scan =
      Node("scan", "Scan", {with_lengths ? "lengths" : "", "zeros", "x"},
           {"total", "partial"});
  scan.attrs.Set("num_scan_inputs", AttrValue(int64_t{1}));
  scan.subgraphs = {{"body", body}};
  g.nodes = {scan};
  return g;
}

TEST(DynamicExecutorTest, OpsetEightScanRunsEachBatchElement) {
  auto model = CompiledModel::Compile(Scan8Graph(false), BuiltinOps());
  ASSERT_TRUE(model.ok()) << model.status();
  std::vector<float> x = {1, 2, 3, 4, 5, 6, 10, 20, 30, 40, 50, 60};
  std::vector<float> total(4), partial(12);
  HostBuffer in{x.data(), 48};
  MutableHostBuffer out[] = {{total.data(), 16}, {partial.data(), 48}};
  ASSERT_TRUE((*model)->Execute({&in, 1}, out).ok());
  EXPECT_THAT(total, ElementsAre(9, 12, 90, 120));
  EXPECT_THAT(partial, ElementsAre(1, 2, 4, 6, 9, 12, 10, 20, 40, 60, 90, 120));
  // Lengths shorter than the scan axis are refused, naming what to do.
  model = CompiledModel::Compile(Scan8Graph(true), BuiltinOps());
  ASSERT_TRUE(model.ok()) << model.status();
  absl::Status status = (*model)->Execute({&in, 1}, out);
  EXPECT_EQ(status.code(), absl::StatusCode::kUnimplemented) << status;
  EXPECT_THAT(status.message(), HasSubstr("'sequence_lens' shorter than the "
                                          "scan axis (3) is not supported"));
}

TEST(DynamicExecutorTest, AScanWhoseInputsDoNotFitItsBodyIsRefused) {
  std::vector<float> x(12), total(4), partial(12);
  HostBuffer in{x.data(), 48};
  MutableHostBuffer out[] = {{total.data(), 16}, {partial.data(), 48}};
  for (bool opset8 : {false, true}) {
    Graph g = Scan8Graph(false);
    if (!opset8) {
      g.source_opset = 13;
      g.nodes[0].inputs.erase(g.nodes[0].inputs.begin());
    }
    g.nodes[0].attrs.Set("num_scan_inputs", AttrValue(int64_t{3}));
    auto model = CompiledModel::Compile(g, BuiltinOps());
    ASSERT_TRUE(model.ok()) << model.status();
    absl::Status status = (*model)->Execute({&in, 1}, out);
    EXPECT_THAT(
        status.message(),
        HasSubstr(StrCat("attribute 'num_scan_inputs' must be "
                         "between 1 and the 2 inputs",
                         opset8 ? " after 'sequence_lens'" : "", ", got 3")))
        << opset8;
    EXPECT_THAT(status.message(), HasSubstr("node 'scan' (Scan, task 0)"));
  }
}

TEST(DynamicExecutorTest, AFailingSubgraphNodeIsNamedByItsPath) {
  Graph g = IfGraph();
  // Make the then-branch multiply shapes that do not broadcast.
  g.initializers["scale"] = Floats({1, 2}, {2});
  auto model = CompiledModel::Compile(g, BuiltinOps());
  ASSERT_TRUE(model.ok()) << model.status();
  std::vector<float> y(3);
  absl::Status status = RunOnce(**model, {1, 2, 3}, y);
  EXPECT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("choose/then_branch/mul"));
  // The other branch still works: nothing was left half-done.
  ASSERT_TRUE(RunOnce(**model, {-1, -2, -3}, y).ok()) << status;
  EXPECT_THAT(y, ElementsAre(1, 2, 3));
}

// A Loop that would stack scan outputs for a billion iterations stops at the
// model's memory limit with a clear error instead of exhausting memory.
TEST(DynamicExecutorTest, ValuesComputedWhileRunningCountAgainstTheLimit) {
  Graph g = LoopGraph();
  g.initializers["m"] = Int64s({1000000000}, {});
  CompileOptions options;
  options.max_memory_bytes = 64 << 10;
  auto model = CompiledModel::Compile(g, BuiltinOps(), options);
  ASSERT_TRUE(model.ok()) << model.status();
  std::vector<float> x = {1, 10}, final(2), sums(8);
  HostBuffer in{x.data(), 8};
  MutableHostBuffer out[] = {{final.data(), 8}, {sums.data(), 32}};
  absl::Status status = (*model)->Execute({&in, 1}, out);
  EXPECT_EQ(KindOf(status), ErrorKind::kOutOfMemory) << status;
  EXPECT_THAT(status.message(), HasSubstr("memory limit"));
  EXPECT_THAT(status.message(), HasSubstr("loop/body/"));
  // Within the limit the same model runs (and what it held was given back).
  g.initializers["m"] = Int64s({4}, {});
  model = CompiledModel::Compile(g, BuiltinOps(), options);
  ASSERT_TRUE(model.ok());
  ASSERT_TRUE((*model)->Execute({&in, 1}, out).ok());
  EXPECT_THAT(sums, ElementsAre(0, 0, 1, 10, 3, 30, 6, 60));
}

TEST(DynamicExecutorTest, LoopWithoutTripCountOrConditionIsRefused) {
  Graph g = LoopGraph();
  g.nodes[0].inputs[0] = "";
  g.nodes[0].inputs[1] = "";
  auto model = CompiledModel::Compile(g, BuiltinOps());
  ASSERT_TRUE(model.ok()) << model.status();
  std::vector<float> x = {1, 10}, final(2), sums(8);
  HostBuffer in{x.data(), 8};
  MutableHostBuffer out[] = {{final.data(), 8}, {sums.data(), 32}};
  absl::Status status = (*model)->Execute({&in, 1}, out);
  EXPECT_THAT(status.message(), HasSubstr("runs forever"));
}

}  // namespace
}  // namespace acldump
