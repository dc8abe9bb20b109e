#include "tools/replay/replay.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "bench/zoo_graphs.h"
#include "dump/format/dump_file.h"
#include "dump/format/dump_tree.h"
#include "nlohmann/json.hpp"
#include "tools/run/run.h"

namespace acldump::tools {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

std::string Scratch(const std::string& name) {
  const char* base = std::getenv("TEST_TMPDIR");
  const std::string dir = std::string(base ? base : "/tmp") + "/" + name;
  fs::remove_all(dir);
  fs::create_directories(dir + "/dump");
  return dir;
}

// Dumps every operator of `model` (inputs and outputs); returns the dump
// files, in execution order.
std::vector<std::string> DumpAll(const std::string& dir,
                                 const std::string& model,
                                 const std::string& stem) {
  std::ofstream(dir + "/acl.json")
      << R"({"dump":{"dump_path":")" << dir
      << R"(/dump","dump_mode":"all","dump_list":[{"model_name":")" << stem
      << R"("}]}})";
  RunOptions options;
  options.models = {model};
  options.config = dir + "/acl.json";
  options.output_dir = dir + "/outputs";
  absl::StatusOr<RunSummary> run = RunWithDump(options);
  EXPECT_TRUE(run.ok()) << run.status();
  absl::StatusOr<dump::DumpTree> tree = dump::ScanDumpTree(dir + "/dump");
  EXPECT_TRUE(tree.ok()) << tree.status();
  std::vector<std::string> files;
  for (const dump::DumpRun& r : tree->runs) {
    for (const dump::DumpEntry* e : r.files) {
      if (e->kind == dump::EntryKind::kTensor && e->name->op_type != "Data") {
        files.push_back(e->path);
      }
    }
  }
  return files;
}

class ReplayEveryOperatorTest : public ::testing::TestWithParam<std::string> {};

// The fused kernel, alone on the dumped inputs, gives the dumped outputs bit
// for bit; the unfused float64 path runs and is close to both.
TEST_P(ReplayEveryOperatorTest, ReproducesBitForBit) {
  const std::string stem = GetParam();
  const std::string dir = Scratch("replay_" + stem);
  for (const std::string& model :
       {"testdata/" + stem + ".onnx", "testdata/" + stem + ".om"}) {
    SCOPED_TRACE(model);
    fs::remove_all(dir + "/dump");
    fs::create_directories(dir + "/dump");
    const std::vector<std::string> files = DumpAll(dir, model, stem);
    ASSERT_GT(files.size(), 3u);
    for (const std::string& file : files) {
      SCOPED_TRACE(file);
      absl::StatusOr<ReplayResult> result = Replay({file, model, ""});
      ASSERT_TRUE(result.ok()) << result.status();
      EXPECT_TRUE(result->reproduced) << FormatReplay(*result);
      ASSERT_FALSE(result->outputs.empty());
      for (const ReplayOutput& out : result->outputs) {
        EXPECT_EQ(out.fused_vs_dump.differing, 0u);
        EXPECT_EQ(out.fused_vs_dump.elements > 0, true);
        if (model.ends_with(".om")) {
          EXPECT_FALSE(out.dump_vs_float64.has_value());
          continue;
        }
        ASSERT_TRUE(out.dump_vs_float64.has_value()) << result->float64_note;
        // float32 kernels against float64 rounded once: a few ulp at most
        // relative to the largest values (sums of many terms may cancel).
        EXPECT_GT(out.dump_vs_float64->cosine, 0.99999)
            << FormatReplay(*result);
        EXPECT_EQ(out.dump_vs_float64->differing,
                  out.fused_vs_float64->differing);
      }
      if (model.ends_with(".onnx")) {
        EXPECT_FALSE(result->float64_operators.empty());
      } else {
        EXPECT_THAT(result->float64_note, HasSubstr("need the ONNX model"));
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(TestModels, ReplayEveryOperatorTest,
                         ::testing::Values("resnet_tiny", "mlp_block"));

// Two models of the real-model zoo as the benchmarks rebuild them (seeded
// weights): every operator's dump is reproduced by its replay.
TEST(ReplayZooTest, EveryOperatorOfMobileNetV2AndTheTransformerEncoder) {
  const std::string dir = Scratch("replay_zoo");
  const std::pair<std::string, std::string> models[] = {
      {"mobilenet_v2", bench::MobileNetV2ModelBytes(64)},
      {"transformer_encoder", bench::TransformerEncoderModelBytes()}};
  for (const auto& [name, bytes] : models) {
    SCOPED_TRACE(name);
    const std::string om = dir + "/" + name + ".om";
    std::ofstream(om, std::ios::binary) << bytes;
    fs::remove_all(dir + "/dump");
    fs::create_directories(dir + "/dump");
    const std::vector<std::string> files = DumpAll(dir, om, name);
    ASSERT_GT(files.size(), 30u);
    for (const std::string& file : files) {
      absl::StatusOr<ReplayResult> result = Replay({file, om, ""});
      ASSERT_TRUE(result.ok()) << file << ": " << result.status();
      EXPECT_TRUE(result->reproduced) << FormatReplay(*result);
    }
  }
}

TEST(ReplayTest, FusedOperatorRunsItsOriginalsInFloat64) {
  const std::string dir = Scratch("replay_fused");
  const std::vector<std::string> files =
      DumpAll(dir, "testdata/resnet_tiny.onnx", "resnet_tiny");
  std::string conv;
  for (const std::string& f : files) {
    if (fs::path(f).filename().string().starts_with("Conv.conv1bn1relu1.")) {
      conv = f;
    }
  }
  ASSERT_FALSE(conv.empty());
  absl::StatusOr<ReplayResult> result =
      Replay({conv, "testdata/resnet_tiny.onnx", ""});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->original_names,
            (std::vector<std::string>{"conv1", "bn1", "relu1"}));
  EXPECT_EQ(result->float64_operators,
            (std::vector<std::string>{"conv1", "bn1", "relu1"}));
  const std::string text = FormatReplay(*result);
  EXPECT_THAT(text, HasSubstr("replay of conv1bn1relu1 (Conv; from conv1, "
                              "bn1, relu1)"));
  EXPECT_THAT(text,
              HasSubstr("fused kernel vs dump     reproduced bit for bit"));
  EXPECT_THAT(text, HasSubstr("dump vs float64"));
  EXPECT_THAT(
      text, HasSubstr("result: the dumped outputs are reproduced bit for bit"));
  const nlohmann::json json = nlohmann::json::parse(ReplayJson(*result));
  EXPECT_EQ(json["schema"], "acldump.replay/1");
  EXPECT_EQ(json["reproduced"], true);
  EXPECT_EQ(json["outputs"][0]["fused_vs_dump"]["differing"], 0);
  // The folded batch norm rounds differently from conv, bn and relu apart.
  EXPECT_GT(json["outputs"][0]["dump_vs_float64"]["differing"].get<int>(), 0);
}

TEST(ReplayTest, ChangedOutputIsNotReproduced) {
  const std::string dir = Scratch("replay_changed");
  const std::vector<std::string> files =
      DumpAll(dir, "testdata/resnet_tiny.om", "resnet_tiny");
  const std::string file = files.back();
  absl::StatusOr<dump::DumpFileContents> contents = dump::ReadDumpFile(file);
  ASSERT_TRUE(contents.ok());
  contents->outputs[0][0] ^= 1;  // the lowest bit of the first element
  absl::StatusOr<std::string> bytes = dump::EncodeDumpFile(*contents);
  ASSERT_TRUE(bytes.ok());
  std::ofstream(file, std::ios::binary | std::ios::trunc) << *bytes;
  absl::StatusOr<ReplayResult> result =
      Replay({file, "testdata/resnet_tiny.om", ""});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_FALSE(result->reproduced);
  EXPECT_EQ(result->outputs[0].fused_vs_dump.differing, 1u);
  EXPECT_EQ(result->outputs[0].fused_vs_dump.max_ulps, 1u);
  EXPECT_THAT(FormatReplay(*result),
              HasSubstr("result: the replay does NOT reproduce"));
}

TEST(ReplayTest, WhatCannotBeReplayedIsSaid) {
  const std::string dir = Scratch("replay_errors");
  // Outputs only: no inputs to run on.
  std::ofstream(dir + "/acl.json")
      << R"({"dump":{"dump_path":")" << dir
      << R"(/dump","dump_list":[{"model_name":"resnet_tiny"}]}})";
  RunOptions options;
  options.models = {"testdata/resnet_tiny.om"};
  options.config = dir + "/acl.json";
  options.output_dir = dir + "/outputs";
  ASSERT_TRUE(RunWithDump(options).ok());
  absl::StatusOr<dump::DumpTree> tree = dump::ScanDumpTree(dir + "/dump");
  ASSERT_TRUE(tree.ok());
  const std::string outputs_only = tree->runs.at(0).files.back()->path;
  absl::StatusOr<ReplayResult> result =
      Replay({outputs_only, "testdata/resnet_tiny.om", ""});
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(result.status().message(),
              HasSubstr("replay needs a dump of \"dump_mode\": \"all\""));
  // Another model.
  const std::vector<std::string> files = DumpAll(
      Scratch("replay_errors_all"), "testdata/resnet_tiny.om", "resnet_tiny");
  result = Replay({files.front(), "testdata/mlp_block.om", ""});
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(result.status().message(),
              HasSubstr("has no operator named 'conv1bn1relu1': give the "
                        "model the dump was made from"));
  // Not a dump file.
  result = Replay({"testdata/resnet_tiny.om", "testdata/resnet_tiny.om", ""});
  EXPECT_FALSE(result.ok());
}

}  // namespace
}  // namespace acldump::tools
