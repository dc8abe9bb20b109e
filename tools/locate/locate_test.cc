#include "tools/locate/locate.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "bench/zoo_graphs.h"
#include "kernels/ops.h"
#include "kernels/tensor.h"
#include "nlohmann/json.hpp"
#include "tools/run/run.h"

namespace acldump::tools {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

// The planted fault: a kernel that runs the real one, then scales its float32
// output by 1.25 and shifts it by 0.125 (a fault large enough to reach the
// model's output).
class FaultyKernel final : public Kernel {
 public:
  explicit FaultyKernel(std::unique_ptr<Kernel> inner)
      : inner_(std::move(inner)) {}
  size_t WorkspaceBytes() const override { return inner_->WorkspaceBytes(); }
  absl::Status Run(std::span<const TensorView> inputs,
                   std::span<const TensorView> outputs,
                   std::span<std::byte> workspace) const override {
    absl::Status status = inner_->Run(inputs, outputs, workspace);
    if (status.ok() && outputs[0].dtype == DType::kFloat32) {
      float* data = static_cast<float*>(outputs[0].data);
      for (int64_t i = 0; i < outputs[0].shape.NumElements(); ++i) {
        data[i] = data[i] * 1.25f + 0.125f;
      }
    }
    return status;
  }

 private:
  std::unique_ptr<Kernel> inner_;
};

const OpDef* g_real = nullptr;  // the op whose kernel the fault wraps

absl::StatusOr<PreparedKernel> PrepareFaulty(const OpContext& context) {
  absl::StatusOr<PreparedKernel> prepared = g_real->prepare(context);
  if (prepared.ok()) {
    prepared->kernel =
        std::make_unique<FaultyKernel>(std::move(prepared->kernel));
  }
  return prepared;
}

// The built-in kernels with `op_type` made faulty.
OpRegistry WithFault(const std::string& op_type) {
  OpRegistry registry = BuiltinOps();
  g_real = BuiltinOps().Find(op_type);
  OpDef faulty = *g_real;
  faulty.prepare = PrepareFaulty;
  EXPECT_TRUE(registry.Replace(faulty).ok());
  return registry;
}

std::string Work(const std::string& name) {
  const char* base = std::getenv("TEST_TMPDIR");
  const std::string dir = std::string(base ? base : "/tmp") + "/" + name;
  fs::remove_all(dir);
  return dir;
}

LocateOptions Options(const std::string& model, const std::string& work) {
  LocateOptions options;
  options.model = model;
  options.engine = "acldump-unfused";
  options.work_dir = work;
  return options;
}

size_t MaxSteps(size_t comparable) {
  return static_cast<size_t>(std::ceil(std::log2(comparable))) + 2;
}

struct Planted {
  std::string model;
  std::string op_type;
};

class LocatePlantedFaultTest : public ::testing::TestWithParam<Planted> {};

TEST_P(LocatePlantedFaultTest, FindsTheFirstFaultyOperator) {
  const Planted planted = GetParam();
  const OpRegistry registry = WithFault(planted.op_type);
  LocateOptions options =
      Options(planted.model, Work("locate_" + planted.op_type));
  options.registry = &registry;
  absl::StatusOr<LocateResult> result = Locate(options);
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_TRUE(result->first.has_value()) << FormatLocate(*result);
  EXPECT_EQ(result->first->op_type, planted.op_type) << FormatLocate(*result);
  EXPECT_FALSE(result->first->within);
  // No operator of that type runs before it.
  for (const LocateStep& step : result->steps) {
    if (step.position < result->first->position) {
      EXPECT_NE(step.op_type, planted.op_type);
    }
  }
  if (result->before) {
    EXPECT_TRUE(result->before->within);
    EXPECT_LT(result->before->position, result->first->position);
  }
  EXPECT_LE(result->steps.size(), MaxSteps(result->comparable))
      << FormatLocate(*result);
  EXPECT_GE(result->comparable, 5u);
  const std::string text = FormatLocate(*result);
  EXPECT_THAT(text, HasSubstr("result: first operator outside the tolerance: " +
                              result->first->op_name));
  const nlohmann::json json = nlohmann::json::parse(LocateJson(*result));
  EXPECT_EQ(json["schema"], "acldump.locate/1");
  EXPECT_EQ(json["first"]["op_name"], result->first->op_name);
  EXPECT_EQ(json["steps"].size(), result->steps.size());
}

INSTANTIATE_TEST_SUITE_P(
    Models, LocatePlantedFaultTest,
    ::testing::Values(Planted{"testdata/resnet_tiny.onnx", "Add"},
                      Planted{"testdata/resnet_tiny.onnx", "MaxPool"},
                      Planted{"testdata/mlp_block.onnx", "Softmax"}),
    [](const auto& info) {
      return fs::path(info.param.model).stem().string() + "_" +
             info.param.op_type;
    });

// A zoo model (MobileNetV2 as the benchmarks rebuild it, ~100 operators),
// its reference a dump of every output from the built-in kernels.
TEST(LocateTest, PlantedFaultInAZooModelAgainstADumpTree) {
  const std::string work = Work("locate_zoo");
  fs::create_directories(work + "/reference");
  const std::string om = work + "/mobilenet_v2.om";
  std::ofstream(om, std::ios::binary) << bench::MobileNetV2ModelBytes(64);
  std::ofstream(work + "/acl.json")
      << R"({"dump":{"dump_path":")" << work
      << R"(/reference","dump_list":[{"model_name":"mobilenet_v2"}]}})";
  RunOptions run;
  run.models = {om};
  run.config = work + "/acl.json";
  run.output_dir = work + "/outputs";
  ASSERT_TRUE(RunWithDump(run).ok());

  const OpRegistry registry = WithFault("Add");
  LocateOptions options = Options(om, work + "/steps");
  options.reference = work + "/reference";
  options.registry = &registry;
  absl::StatusOr<LocateResult> result = Locate(options);
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_TRUE(result->first.has_value()) << FormatLocate(*result);
  EXPECT_EQ(result->first->op_type, "Add") << FormatLocate(*result);
  EXPECT_GT(result->comparable, 50u);
  EXPECT_LE(result->steps.size(), MaxSteps(result->comparable))
      << FormatLocate(*result);
  ASSERT_TRUE(result->before.has_value());
  EXPECT_NE(result->before->op_type, "Add");
  // Without the fault, the run matches its own dump exactly.
  options.registry = nullptr;
  options.work_dir = work + "/steps_clean";
  result = Locate(options);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_FALSE(result->first.has_value()) << FormatLocate(*result);
}

TEST(LocateTest, NothingDepartsWithoutAFault) {
  absl::StatusOr<LocateResult> result =
      Locate(Options("testdata/resnet_tiny.onnx", Work("locate_clean")));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_FALSE(result->first.has_value());
  ASSERT_EQ(result->steps.size(), 1u);  // the last operator only
  EXPECT_TRUE(result->steps[0].within);
  EXPECT_THAT(FormatLocate(*result), HasSubstr("nothing departs"));
}

TEST(LocateTest, ReferenceFolderOrOnnxIsNeeded) {
  LocateOptions options = Options("testdata/resnet_tiny.om", Work("locate_om"));
  absl::StatusOr<LocateResult> result = Locate(options);
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(result.status().message(),
              HasSubstr("is not an ONNX model: the reference engines run ONNX "
                        "models"));
}

}  // namespace
}  // namespace acldump::tools
