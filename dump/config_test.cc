#include "dump/config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>

#include "base/error_kind.h"
#include "base/strings.h"
#include "dump/payload.h"

namespace acldump::dump {
namespace {

namespace fs = std::filesystem;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::Pair;
using ::testing::StartsWith;

constexpr char kConfigDir[] = "testdata/configs";

std::string Message(const absl::Status& status) {
  return std::string(ToStd(status.message()));
}

std::string KindName(const absl::Status& status) {
  const std::optional<ErrorKind> kind = KindOf(status);
  if (!kind) return "(none)";
  switch (*kind) {
    case ErrorKind::kInvalidFile:
      return "kInvalidFile";
    case ErrorKind::kParseFile:
      return "kParseFile";
    case ErrorKind::kInvalidDumpConfig:
      return "kInvalidDumpConfig";
    case ErrorKind::kInvalidJson:
      return "kInvalidJson";
    case ErrorKind::kFeatureUnsupported:
      return "kFeatureUnsupported";
    default:
      return StrCat("ErrorKind(", static_cast<int>(*kind), ")");
  }
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void WriteFile(const std::string& path, std::string_view text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(text.data(), text.size());
}

// A fresh directory under TEST_TMPDIR.
std::string TempDir(std::string_view name) {
  const char* base = std::getenv("TEST_TMPDIR");
  const fs::path dir =
      fs::path(base != nullptr ? base : "/tmp") / StrCat("config_test_", name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return fs::canonical(dir).native();
}

std::string Cwd() { return fs::current_path().native(); }

// The description of a config and its warnings, one per line.
std::string DescribeAndWarnings(const DumpConfig& config) {
  std::string out = DescribeDumpConfig(config);
  for (const std::string& warning : config.warnings) {
    StrAppend(out, "\n", warning);
  }
  return out;
}

// Parses `dump_object` (the text of the dump object) as an inline config.
absl::StatusOr<DumpConfig> ParseDump(std::string_view dump_object) {
  return ParseDumpConfig(StrCat("{\"dump\": ", dump_object, "}"), "acl.json");
}

class ScopedCwd {
 public:
  explicit ScopedCwd(const std::string& dir) : saved_(Cwd()) {
    fs::current_path(dir);
  }
  ~ScopedCwd() { fs::current_path(saved_); }

 private:
  std::string saved_;
};

class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) saved_ = old;
    setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (saved_) {
      setenv(name_, saved_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> saved_;
};

// ---------------------------------------------------------------------------
// The committed configs and their expected results
// (testdata/configs/cases.txt).

struct Case {
  std::string file;
  bool ok = false;
  std::string kind;
  std::string code;
  std::string fragment;
};

std::vector<Case> ReadCases() {
  std::vector<Case> cases;
  std::istringstream lines(ReadFile(StrCat(kConfigDir, "/cases.txt")));
  std::string line;
  while (std::getline(lines, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    Case c;
    std::string result;
    fields >> c.file >> result;
    c.ok = result == "OK";
    if (!c.ok) {
      c.kind = result;
      fields >> c.code;
    }
    std::getline(fields >> std::ws, c.fragment);
    cases.push_back(c);
  }
  return cases;
}

TEST(ConfigCasesTest, EveryCommittedConfigIsListedOnce) {
  std::set<std::string> listed;
  for (const Case& c : ReadCases()) {
    EXPECT_TRUE(listed.insert(c.file).second) << "listed twice: " << c.file;
    EXPECT_FALSE(c.fragment.empty()) << c.file;
    EXPECT_EQ(c.ok, c.file.rfind("good/", 0) == 0) << c.file;
  }
  std::set<std::string> present;
  for (const char* folder : {"good", "bad"}) {
    for (const auto& entry :
         fs::directory_iterator(StrCat(kConfigDir, "/", folder))) {
      present.insert(StrCat(folder, "/", entry.path().filename().native()));
    }
  }
  EXPECT_EQ(listed, present);
  EXPECT_GE(present.size(), 80u);
}

TEST(ConfigCasesTest, EachConfigGivesItsExpectedResult) {
  for (const Case& c : ReadCases()) {
    const std::string path = StrCat(kConfigDir, "/", c.file);
    SCOPED_TRACE(path);
    const absl::StatusOr<DumpConfig> config = LoadDumpConfigFile(path);
    if (c.ok) {
      ASSERT_TRUE(config.ok()) << config.status();
      EXPECT_EQ(config->source, path);
      EXPECT_THAT(DescribeAndWarnings(*config), HasSubstr(c.fragment));
      // The same text parses the same way without the file.
      const absl::StatusOr<DumpConfig> again =
          ParseDumpConfig(ReadFile(path), path);
      ASSERT_TRUE(again.ok()) << again.status();
      EXPECT_EQ(DescribeDumpConfig(*again), DescribeDumpConfig(*config));
    } else {
      ASSERT_FALSE(config.ok()) << DescribeDumpConfig(*config);
      const absl::Status& status = config.status();
      EXPECT_EQ(KindName(status), c.kind) << status;
      EXPECT_EQ(absl::StatusCodeToString(status.code()), c.code) << status;
      EXPECT_THAT(Message(status), StartsWith(StrCat(path, ": ")));
      EXPECT_THAT(Message(status), HasSubstr(c.fragment));
    }
  }
}

// ---------------------------------------------------------------------------
// The seed's own examples, verbatim, in a directory holding "output".

class SeedExamplesTest : public ::testing::Test {
 protected:
  SeedExamplesTest()
      : dir_(TempDir("seed")),
        cwd_((fs::create_directory(dir_ + "/output"), dir_)),
        home_("HOME", dir_) {}

  const std::string dir_;
  ScopedCwd cwd_;
  ScopedEnv home_;
};

TEST_F(SeedExamplesTest, ModelDump) {
  // "$HOME/output" is the seed's own dump_path.
  const absl::StatusOr<DumpConfig> config = ParseDumpConfig(R"({
	"dump":{
		"dump_list":[
			{	"model_name":"ResNet-101"
			},
			{
				"model_name":"ResNet-50",
				"layer":[
				      "conv1conv1_relu",
				      "res2a_branch2ares2a_branch2a_relu",
				      "res2a_branch1",
				      "pool1"
				]
			}
		],
		"dump_path":"$HOME/output",
                "dump_mode":"output",
		"dump_op_switch":"off",
                "dump_data":"tensor"
	}
})",
                                                            "acl.json");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_TRUE(config->enabled());
  EXPECT_EQ(config->source, "acl.json");
  EXPECT_EQ(config->dump_path, "$HOME/output");
  EXPECT_EQ(config->dump_path_resolved, dir_ + "/output");
  EXPECT_EQ(config->mode, DumpMode::kOutput);
  EXPECT_FALSE(config->op_switch);
  EXPECT_EQ(config->payload().name, "tensor");
  EXPECT_FALSE(config->steps.has_value());
  EXPECT_TRUE(config->stats.empty());
  EXPECT_NE(config->scene, DumpScene::kException);
  EXPECT_NE(config->scene, DumpScene::kOverflow);
  EXPECT_TRUE(config->model_dump());
  ASSERT_EQ(config->dump_list.size(), 2u);
  EXPECT_EQ(config->dump_list[0].model_name, "ResNet-101");
  EXPECT_FALSE(config->dump_list[0].layers.has_value());
  EXPECT_EQ(config->dump_list[1].model_name, "ResNet-50");
  EXPECT_THAT(
      *config->dump_list[1].layers,
      ElementsAre("conv1conv1_relu", "res2a_branch2ares2a_branch2a_relu",
                  "res2a_branch1", "pool1"));
  EXPECT_EQ(DescribeDumpConfig(*config),
            StrCat("model dump of 2 models, outputs, tensor, every step, into ",
                   dir_, "/output"));
}

TEST_F(SeedExamplesTest, SingleOperatorDump) {
  const absl::StatusOr<DumpConfig> config = ParseDumpConfig(
      R"({"dump":{"dump_path":"output","dump_list":[],"dump_op_switch":"on","dump_data":"tensor"}})",
      "acl.json");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_TRUE(config->op_switch);
  EXPECT_TRUE(config->dump_list.empty());
  EXPECT_FALSE(config->model_dump());
  EXPECT_EQ(config->dump_path, "output");
  EXPECT_EQ(config->dump_path_resolved,
            dir_ + "/output");  // relative to the cwd
}

TEST_F(SeedExamplesTest, ExceptionDump) {
  const absl::StatusOr<DumpConfig> config = ParseDumpConfig(
      R"({"dump":{"dump_scene":"lite_exception"}})", "acl.json");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_TRUE(config->enabled());
  EXPECT_EQ(config->scene, DumpScene::kException);
  EXPECT_TRUE(config->dump_path.empty());
  EXPECT_TRUE(config->dump_path_resolved.empty());
  EXPECT_FALSE(config->model_dump());
}

TEST_F(SeedExamplesTest, OverflowDump) {
  const absl::StatusOr<DumpConfig> config = ParseDumpConfig(
      R"({"dump":{"dump_path":"output","dump_debug":"on"}})", "acl.json");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->scene, DumpScene::kOverflow);
  EXPECT_FALSE(config->model_dump());
  EXPECT_EQ(config->dump_path_resolved, dir_ + "/output");
}

TEST_F(SeedExamplesTest, OutputMustExist) {
  fs::remove(dir_ + "/output");
  const absl::StatusOr<DumpConfig> config = ParseDumpConfig(
      R"({"dump":{"dump_path":"output","dump_debug":"on"}})", "acl.json");
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(KindOf(config.status()), ErrorKind::kInvalidDumpConfig);
  EXPECT_THAT(Message(config.status()),
              HasSubstr(StrCat("acl.json: dump.dump_path: directory 'output' "
                               "(resolved to '",
                               dir_,
                               "/output') does not exist; create it first "
                               "(mkdir -p '",
                               dir_, "/output')")));
}

// ---------------------------------------------------------------------------
// Parsed values.

TEST(ParseDumpConfigTest, NoDumpSectionOrEmptyDumpEnablesNothing) {
  for (const char* text : {R"({})", R"({"dump": {}})",
                           R"({"aclInit": {"x": [1, 2]}, "dump": {}})"}) {
    const absl::StatusOr<DumpConfig> config = ParseDumpConfig(text, "a.json");
    ASSERT_TRUE(config.ok()) << text << ": " << config.status();
    EXPECT_FALSE(config->enabled());
    EXPECT_FALSE(config->model_dump());
    EXPECT_EQ(config->source, "a.json");
    EXPECT_EQ(DescribeDumpConfig(*config),
              "dump disabled: a.json has no dump settings");
  }
  EXPECT_EQ(DescribeDumpConfig(DumpConfig{}),
            "dump disabled: the config has no dump settings");
}

TEST(ParseDumpConfigTest, ModesDataStepsAndStats) {
  const absl::StatusOr<DumpConfig> config = ParseDump(R"({
      "dump_path": "testdata/configs", "dump_mode": "all", "dump_data": "stats",
      "dump_stats": ["Positive Inf", "Max", "Positive Inf", "Avg"],
      "dump_step": "10|0|3-5", "dump_list": [{"layer": ["conv1"]}]})");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->mode, DumpMode::kAll);
  EXPECT_EQ(config->payload().name, "stats");
  // Config order, duplicates dropped.
  EXPECT_THAT(config->stats, ElementsAre(StatColumn::kPositiveInf,
                                         StatColumn::kMax, StatColumn::kAvg));
  ASSERT_TRUE(config->steps.has_value());
  EXPECT_EQ(config->steps->ToString(), "0|3-5|10");
  EXPECT_EQ(config->dump_path_resolved, Cwd() + "/testdata/configs");
  ASSERT_EQ(config->dump_list.size(), 1u);
  EXPECT_FALSE(config->dump_list[0].model_name.has_value());  // every model
  EXPECT_THAT(*config->dump_list[0].layers, ElementsAre("conv1"));
  EXPECT_EQ(DescribeDumpConfig(*config),
            StrCat("model dump of 1 layer list for every model, inputs and "
                   "outputs, stats (Positive Inf, Max, Avg), steps 0|3-5|10, "
                   "into ",
                   Cwd(), "/testdata/configs"));

  for (const auto& [text, mode] : std::vector<std::pair<std::string, DumpMode>>{
           {"input", DumpMode::kInput}, {"output", DumpMode::kOutput}}) {
    const absl::StatusOr<DumpConfig> c = ParseDump(
        StrCat(R"({"dump_path": "testdata", "dump_list": [], "dump_mode": ")",
               text, "\"}"));
    ASSERT_TRUE(c.ok()) << c.status();
    EXPECT_EQ(c->mode, mode);
  }
}

TEST(ParseDumpConfigTest, ExceptionSceneWinsOverModelDump) {
  const absl::StatusOr<DumpConfig> config = ParseDump(R"({
      "dump_list": [{"model_name": "a", "layer": ["x"]}], "dump_path": "nowhere",
      "dump_scene": "lite_exception", "dump_op_switch": "off", "dump_debug": "off"})");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->scene, DumpScene::kException);
  EXPECT_EQ(config->dump_list.size(), 1u);
  EXPECT_FALSE(config->model_dump());
  EXPECT_EQ(config->dump_path, "nowhere");  // kept, not checked
  // Resolved but not checked: exception files go below it unless the
  // environment names another folder.
  EXPECT_EQ(config->dump_path_resolved,
            (std::filesystem::current_path() / "nowhere").native());
  EXPECT_THAT(DescribeDumpConfig(*config),
              HasSubstr("dump_path (" + config->dump_path_resolved + ")"));
}

TEST(ParseDumpConfigTest, OverflowRejectsModelAndSingleOperatorDump) {
  const absl::StatusOr<DumpConfig> with_list = ParseDump(
      R"({"dump_path": "testdata", "dump_debug": "on", "dump_list": [{"model_name": "m"}]})");
  ASSERT_FALSE(with_list.ok());
  EXPECT_EQ(KindOf(with_list.status()), ErrorKind::kInvalidDumpConfig);
  EXPECT_EQ(with_list.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(with_list.status()),
              StartsWith("acl.json: dump.dump_list: overflow dump"));
  const absl::StatusOr<DumpConfig> with_op = ParseDump(
      R"({"dump_op_switch": "on", "dump_path": "testdata", "dump_debug": "on"})");
  ASSERT_FALSE(with_op.ok());
  EXPECT_THAT(Message(with_op.status()),
              StartsWith("acl.json: dump.dump_op_switch: 'on' cannot be "
                         "combined with dump_debug 'on'"));
  // An empty dump_list is no model dump.
  const absl::StatusOr<DumpConfig> empty = ParseDump(
      R"({"dump_path": "testdata", "dump_debug": "on", "dump_list": []})");
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ(empty->scene, DumpScene::kOverflow);
}

TEST(ParseDumpConfigTest, PackedLayoutForModelAndSingleOperatorDumpsOnly) {
  const absl::StatusOr<DumpConfig> sdk = ParseDump(
      R"({"dump_path": "testdata", "dump_list": [{"model_name": "m"}]})");
  ASSERT_TRUE(sdk.ok()) << sdk.status();
  EXPECT_EQ(sdk->layout, DumpLayout::kSdk);
  const absl::StatusOr<DumpConfig> packed = ParseDump(
      R"({"dump_path": "testdata", "dump_layout": "packed",
          "dump_op_switch": "on", "dump_list": [{"model_name": "m"}]})");
  ASSERT_TRUE(packed.ok()) << packed.status();
  EXPECT_EQ(packed->layout, DumpLayout::kPacked);
  EXPECT_THAT(DescribeDumpConfig(*packed), EndsWith(" (packed layout)"));
  const std::pair<const char*, const char*> rejected[] = {
      {R"({"dump_path": "testdata", "dump_layout": "one_file"})",
       "acl.json: dump.dump_layout: invalid dump_layout 'one_file'; expected "
       "one of 'sdk', 'packed'"},
      {R"({"dump_path": "testdata", "dump_layout": "packed", "dump_debug": "on"})",
       "acl.json: dump.dump_layout: 'packed' applies to model and "
       "single-operator dumps, not to overflow dump (dump_debug 'on'), which "
       "writes one file per event; remove dump_layout or set it to 'sdk'"},
      {R"({"dump_layout": "packed", "dump_scene": "lite_exception"})",
       "not to dump_scene 'lite_exception'"},
  };
  for (const auto& [text, message] : rejected) {
    const absl::StatusOr<DumpConfig> config = ParseDump(text);
    ASSERT_FALSE(config.ok()) << text;
    EXPECT_EQ(KindOf(config.status()), ErrorKind::kInvalidDumpConfig) << text;
    EXPECT_THAT(Message(config.status()), HasSubstr(message)) << text;
  }
}

TEST(ParseDumpConfigTest, DropPolicyAndByteBudget) {
  const absl::StatusOr<DumpConfig> wait = ParseDump(
      R"({"dump_path": "testdata", "dump_list": [{"model_name": "m"}]})");
  ASSERT_TRUE(wait.ok()) << wait.status();
  EXPECT_FALSE(wait->drop_when_behind);
  EXPECT_EQ(wait->max_bytes, 0u);
  const absl::StatusOr<DumpConfig> drop = ParseDump(
      R"({"dump_path": "testdata", "dump_backpressure": "drop",
          "dump_wait_budget_us": "1000", "dump_max_bytes": "1073741824",
          "dump_list": [{"model_name": "m"}]})");
  ASSERT_TRUE(drop.ok()) << drop.status();
  EXPECT_TRUE(drop->drop_when_behind);
  EXPECT_EQ(drop->wait_budget_us, 1000u);
  EXPECT_EQ(drop->max_bytes, uint64_t{1} << 30);
  EXPECT_THAT(DescribeDumpConfig(*drop),
              EndsWith("; records an execution cannot hand to the writer "
                       "within 1000 us are dropped and counted; at most "
                       "1073741824 bytes are dumped, the records beyond "
                       "dropped and counted"));
  const std::pair<const char*, const char*> rejected[] = {
      {R"({"dump_path": "testdata", "dump_backpressure": "later"})",
       "acl.json: dump.dump_backpressure: invalid dump_backpressure 'later'; "
       "expected one of 'wait', 'drop'"},
      {R"({"dump_path": "testdata", "dump_wait_budget_us": "10"})",
       "acl.json: dump.dump_wait_budget_us: applies to \"dump_backpressure\": "
       "\"drop\""},
      {R"({"dump_path": "testdata", "dump_backpressure": "drop",
           "dump_wait_budget_us": "1ms"})",
       "dump.dump_wait_budget_us: is '1ms'; expected how long, in "
       "microseconds, an execution may wait for the writer in all, a whole "
       "number from 0 to 60000000 (default 0: never wait)"},
      {R"({"dump_path": "testdata", "dump_backpressure": "drop",
           "dump_wait_budget_us": 10})",
       "dump.dump_wait_budget_us"},
      {R"({"dump_path": "testdata", "dump_max_bytes": "0"})",
       "dump.dump_max_bytes: is '0'; expected the most bytes of records this "
       "config may dump, a whole number from 1 to"},
      {R"({"dump_path": "testdata", "dump_max_bytes": "-5"})",
       "dump.dump_max_bytes: is '-5'"},
      {R"({"dump_backpressure": "drop", "dump_scene": "lite_exception"})",
       "'drop' applies to model and single-operator dumps; an exception dump "
       "(dump_scene 'lite_exception') writes each failing operator before "
       "the execution returns and never drops"},
  };
  for (const auto& [text, message] : rejected) {
    const absl::StatusOr<DumpConfig> config = ParseDump(text);
    ASSERT_FALSE(config.ok()) << text;
    EXPECT_EQ(KindOf(config.status()), ErrorKind::kInvalidDumpConfig) << text;
    EXPECT_THAT(Message(config.status()), HasSubstr(message)) << text;
  }
}

TEST(ParseDumpConfigTest, KeepIterations) {
  const absl::StatusOr<DumpConfig> keep = ParseDump(
      R"({"dump_path": "testdata", "dump_keep_iterations": "3",
          "dump_list": [{"model_name": "m"}]})");
  ASSERT_TRUE(keep.ok()) << keep.status();
  EXPECT_EQ(keep->keep_iterations, 3u);
  EXPECT_THAT(DescribeDumpConfig(*keep),
              EndsWith("; only the newest 3 iteration folders of each model "
                       "are kept"));
  const std::pair<const char*, const char*> rejected[] = {
      {R"({"dump_path": "testdata", "dump_keep_iterations": "0"})",
       "dump.dump_keep_iterations: is '0'; expected how many of each model's "
       "newest iteration folders to keep, a whole number from 1 to "
       "1000000000"},
      {R"({"dump_path": "testdata", "dump_keep_iterations": "two"})",
       "dump.dump_keep_iterations: is 'two'"},
      {R"({"dump_path": "testdata", "dump_keep_iterations": 2})",
       "dump.dump_keep_iterations"},
      {R"({"dump_scene": "lite_exception", "dump_keep_iterations": "2"})",
       "dump.dump_keep_iterations: applies to model dumps"},
  };
  for (const auto& [text, message] : rejected) {
    const absl::StatusOr<DumpConfig> config = ParseDump(text);
    ASSERT_FALSE(config.ok()) << text;
    EXPECT_EQ(KindOf(config.status()), ErrorKind::kInvalidDumpConfig) << text;
    EXPECT_THAT(Message(config.status()), HasSubstr(message)) << text;
  }
}

TEST(ParseDumpConfigTest, ModelNamesMustBeUnique) {
  const absl::StatusOr<DumpConfig> config =
      ParseDump(R"({"dump_path": "testdata",
      "dump_list": [{"model_name": "a"}, {"layer": ["x"]}, {"layer": ["y"]},
                    {"model_name": "b"}, {"model_name": "a", "layer": ["z"]}]})");
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(Message(config.status()),
            "acl.json: dump.dump_list[4].model_name: duplicate model 'a', "
            "already named by dump.dump_list[0].model_name; each model_name "
            "must be unique: merge the entries");
  // Several layer-only entries are not duplicates.
  const absl::StatusOr<DumpConfig> layers =
      ParseDump(R"({"dump_path": "testdata",
      "dump_list": [{"layer": ["x"]}, {"layer": ["y"]}]})");
  EXPECT_TRUE(layers.ok()) << layers.status();
}

TEST(ParseDumpConfigTest, SourceNamesTheTextInMessages) {
  const absl::StatusOr<DumpConfig> named =
      ParseDumpConfig(R"({"dump": {"dump_mode": 1}})", "/etc/acl.json");
  EXPECT_THAT(Message(named.status()),
              StartsWith("/etc/acl.json: dump.dump_mode: "));
  const absl::StatusOr<DumpConfig> unnamed =
      ParseDumpConfig(R"({"dump": {"dump_mode": 1}})", "");
  EXPECT_THAT(Message(unnamed.status()),
              StartsWith("(unnamed config): dump.dump_mode: "));
}

// The SDK ignores unknown keys; each is a warning with the nearest known key.
// (These configs were rejected before this runtime followed the SDK here.)
TEST(ParseDumpConfigTest, UnknownKeysAreIgnoredWithASuggestion) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"("dump_pth": "x")",
       "dump.dump_pth: unknown key 'dump_pth' is ignored; did you mean "
       "'dump_path'?"},
      {R"("Dump_Mode": "x")",
       "dump.Dump_Mode: unknown key 'Dump_Mode' is ignored; did you mean "
       "'dump_mode'?"},
      {R"("dump_steps": "1")",
       "dump.dump_steps: unknown key 'dump_steps' is ignored; did you mean "
       "'dump_step'?"},
      {R"("op_switch": "on")",
       "dump.op_switch: unknown key 'op_switch' is ignored; did you mean "
       "'dump_op_switch'?"},
      {R"("dump_stat": ["Max"])",
       "dump.dump_stat: unknown key 'dump_stat' is ignored; did you mean "
       "'dump_stats'?"},
      {R"("scene": "lite_exception")",
       "dump.scene: unknown key 'scene' is ignored; did you mean "
       "'dump_scene'?"},
      {R"("dump_levl": 3)",
       "dump.dump_levl: unknown key 'dump_levl' is ignored; did you mean "
       "'dump_level'?"},
      {R"("dump_list": [{"layer": ["a"]}, {"modelname": "m"}])",
       "dump.dump_list[1].modelname: unknown key 'modelname' is ignored; did "
       "you mean 'model_name'?"},
      {R"("zzz": 1)",
       "dump.zzz: unknown key 'zzz' is ignored; a dump knows 'dump_path', "
       "'dump_mode', 'dump_op_switch', 'dump_level', 'dump_scene', "
       "'dump_data', 'dump_debug', 'dump_kernel_data', 'dump_step', "
       "'dump_layout', 'dump_baseline', 'dump_baseline_tensors', "
       "'dump_backpressure', 'dump_wait_budget_us', 'dump_max_bytes', "
       "'dump_keep_iterations', 'dump_stats', 'dump_list'"},
      {R"("dump_list": [{"zzz": 1}])",
       "dump.dump_list[0].zzz: unknown key 'zzz' is ignored; a dump_list "
       "entry knows 'model_name', 'layer', 'watcher_nodes', "
       "'optype_blacklist', 'opname_blacklist', 'opname_range'"},
      {R"("dump_level": "op", "dump_list": [{"model_name": "m",
          "optype_blacklist": [{"nmae": "Conv"}]}])",
       "dump.dump_list[0].optype_blacklist[0].nmae: unknown key 'nmae' is "
       "ignored; did you mean 'name'?"},
      {R"("dump_level": "op", "dump_list": [{"model_name": "m",
          "opname_range": [{"begin": "a", "end": "b", "ned": "c"}]}])",
       "dump.dump_list[0].opname_range[0].ned: unknown key 'ned' is "
       "ignored; did you mean 'end'?"},
      {R"("dump": {"dump_mode": "all"})",
       "dump.dump: unknown key 'dump' is ignored: the dump section is nested "
       "in itself; move its keys up one level"},
      {R"("layer": ["conv1"])",
       "dump.layer: unknown key 'layer' is ignored: it belongs inside a "
       "dump_list entry: \"dump_list\": [{\"layer\": ...}]"},
      {R"("dump_list": [{"model_name": "m", "dump_step": "1"}])",
       "dump.dump_list[0].dump_step: unknown key 'dump_step' is ignored: it "
       "belongs in the dump object itself"},
  };
  for (const auto& [members, expected] : cases) {
    const absl::StatusOr<DumpConfig> config =
        ParseDump(StrCat(R"({"dump_path": "testdata", )", members, "}"));
    ASSERT_TRUE(config.ok()) << members << ": " << config.status();
    EXPECT_THAT(config->warnings, Contains(StrCat("acl.json: ", expected)))
        << members;
  }
}

TEST(ParseDumpConfigTest, UnknownKeyWarningsAreBounded) {
  std::string members = R"({"dump_path": "testdata")";
  for (int i = 0; i < 500; ++i) StrAppend(members, ", \"x", i, "\": 1");
  const absl::StatusOr<DumpConfig> config = ParseDump(members + "}");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->warnings.size(), 22u);  // 20, "480 more", selects nothing
  EXPECT_THAT(config->warnings,
              Contains("acl.json: dump: and 480 more unknown keys are "
                       "ignored"));
}

// A required key that is missing names the unknown key that was probably
// meant.
TEST(ParseDumpConfigTest, MissingRequiredKeysPointAtTypos) {
  const absl::StatusOr<DumpConfig> path = ParseDump(
      R"({"dump_pth": "testdata", "dump_list": [{"model_name": "m"}]})");
  ASSERT_FALSE(path.ok());
  EXPECT_EQ(KindOf(path.status()), ErrorKind::kInvalidDumpConfig);
  EXPECT_EQ(Message(path.status()),
            "acl.json: dump.dump_path: is required: set it to an existing "
            "writable directory (absolute, or relative to the working "
            "directory); the key 'dump_pth' is not known and is ignored: did "
            "you mean 'dump_path'?");
  const absl::StatusOr<DumpConfig> model = ParseDump(
      R"({"dump_path": "testdata", "dump_level": "op", "dump_list": [
          {"model": "m", "opname_range": [{"begin": "a", "end": "b"}]}]})");
  ASSERT_FALSE(model.ok());
  EXPECT_THAT(Message(model.status()),
              HasSubstr("dump.dump_list[0].model_name: is required with "
                        "opname_range: name the model whose operators the "
                        "ranges select; the key 'model' is not known and is "
                        "ignored: did you mean 'model_name'?"));
}

TEST(ParseDumpConfigTest, UntrustedTextIsEscapedAndCutInMessages) {
  const absl::StatusOr<DumpConfig> control =
      ParseDump(R"({"dump_path": "testdata", "dump\npath\u0001": "x"})");
  ASSERT_TRUE(control.ok()) << control.status();
  EXPECT_THAT(control->warnings,
              Contains(HasSubstr(R"(dump['dump\npath\x01']: unknown key )"
                                 R"('dump\npath\x01' is ignored)")));
  const std::string long_key(100000, 'k');
  const absl::StatusOr<DumpConfig> big =
      ParseDump(StrCat(R"({"dump_path": "testdata", ")", long_key, "\": 1}"));
  ASSERT_TRUE(big.ok()) << big.status();
  EXPECT_LT(big->warnings.front().size(), 600u);
  EXPECT_THAT(big->warnings.front(), HasSubstr("... (100000 bytes)"));
  const absl::StatusOr<DumpConfig> value = ParseDump(
      StrCat(R"({"dump_path": "testdata", "dump_mode": ")", long_key, "\"}"));
  ASSERT_FALSE(value.ok());
  EXPECT_LT(Message(value.status()).size(), 600u);
}

// ---------------------------------------------------------------------------
// Check order: the SDK's. All types, then all values, then the constraints
// dump_scene, dump_path, dump_debug, dump_step, dump_list, dump_stats; this
// runtime's own rules and its unsupported features after those.

TEST(ParseDumpConfigTest, ChecksComeInTheSdkOrder) {
  // Each line breaks several rules; the one the SDK checks first is reported.
  const std::vector<std::pair<std::string, std::string>> cases = {
      // types before values, even when the value comes first in the file
      {R"({"dump_mode": "bad", "dump_data": 7})", "dump.dump_data: must be"},
      // types in the SDK's key order: string keys, dump_stats, dump_list
      {R"({"dump_list": [{"layer": [1]}], "dump_stats": 1, "dump_step": 2})",
       "dump.dump_step: must be"},
      {R"({"dump_list": 1, "dump_stats": 1})", "dump.dump_stats: must be"},
      // values in the SDK's key order: mode, data, op_switch, level, debug,
      // scene, kernel_data, stats
      {R"({"dump_scene": "x", "dump_level": "x", "dump_mode": "x"})",
       "dump.dump_mode: invalid"},
      {R"({"dump_stats": ["x"], "dump_kernel_data": "x", "dump_debug": "x"})",
       "dump.dump_debug: invalid"},
      {R"({"dump_stats": ["x"], "dump_kernel_data": "x"})",
       "dump.dump_kernel_data: the value is 'x'"},
      // values before constraints
      {R"({"dump_step": "9-1", "dump_debug": "maybe"})",
       "dump.dump_debug: invalid dump_debug 'maybe'"},
      // constraints: scene, path, debug, step, list, stats
      {R"({"dump_op_switch": "on", "dump_scene": "lite_exception", "dump_debug": "on"})",
       "dump.dump_debug: 'on' cannot be combined with dump_scene"},
      {R"({"dump_stats": [], "dump_step": "9-1", "dump_mode": "all"})",
       "dump.dump_path: is required"},
      {R"({"dump_stats": ["Max"], "dump_path": "testdata/no_such_dir"})",
       "dump.dump_path: directory 'testdata/no_such_dir'"},
      {R"({"dump_list": [{"model_name": ""}], "dump_step": "9-1",
           "dump_path": "testdata", "dump_op_switch": "on", "dump_debug": "on"})",
       "dump.dump_op_switch: 'on' cannot be combined with dump_debug"},
      {R"({"dump_stats": [], "dump_list": [{"model_name": ""}],
           "dump_step": "9-1", "dump_path": "testdata"})",
       "dump.dump_step: invalid value '9-1'"},
      {R"({"dump_stats": [], "dump_list": [{"model_name": ""}],
           "dump_path": "testdata"})",
       "dump.dump_list[0].model_name: is empty"},
      {R"({"dump_stats": [], "dump_path": "testdata"})",
       "dump.dump_stats: is empty"},
      // within an item: names, watcher, blacklist sizes, blacklist levels,
      // ranges
      {R"({"dump_path": "testdata", "dump_list": [{"model_name": "a",
           "opname_range": [{}], "optype_blacklist": [{}]}]})",
       "dump.dump_list[0].optype_blacklist: needs"},
      // this runtime's rules after the SDK's, unsupported features last
      {R"({"dump_path": "testdata", "dump_kernel_data": "all",
           "dump_list": [{"model_name": "a"}, {"model_name": "a"}]})",
       "dump.dump_list[1].model_name: duplicate model 'a'"},
      {R"({"dump_scene": "watcher", "dump_kernel_data": "all"})",
       "dump.dump_path: is required"},
  };
  for (const auto& [dump, expected] : cases) {
    const absl::StatusOr<DumpConfig> config = ParseDump(dump);
    ASSERT_FALSE(config.ok()) << dump;
    EXPECT_EQ(KindOf(config.status()), ErrorKind::kInvalidDumpConfig) << dump;
    EXPECT_THAT(Message(config.status()),
                StartsWith(StrCat("acl.json: ", expected)))
        << dump;
  }
}

TEST(ParseDumpConfigTest, NotJsonIsInvalidJsonAndComesFirst) {
  // A config problem early in the text does not hide a JSON error later.
  const absl::StatusOr<DumpConfig> config =
      ParseDumpConfig(R"({"dump": {"dump_pth": 1}, "x": })", "acl.json");
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(KindOf(config.status()), ErrorKind::kInvalidJson);
  EXPECT_EQ(config.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(config.status()),
              StartsWith("acl.json: not valid JSON: parse error at line 1, "
                         "column 32"));
}

// The SDK counts '{' and '[' characters, inside strings too, before parsing:
// more than 10 levels of objects or of arrays is a parse error (100006), even
// for text that is not JSON.
TEST(ParseDumpConfigTest, NestingLimitIsTenObjectsAndTenArrays) {
  const auto arrays = [](int levels) {
    return StrCat(R"({"dump": {}, "x": )", std::string(levels, '['),
                  std::string(levels, ']'), "}");
  };
  EXPECT_TRUE(ParseDumpConfig(arrays(10), "a").ok());
  const absl::StatusOr<DumpConfig> deep = ParseDumpConfig(arrays(11), "a");
  ASSERT_FALSE(deep.ok());
  EXPECT_EQ(KindOf(deep.status()), ErrorKind::kParseFile);
  EXPECT_EQ(Message(deep.status()),
            "a: JSON nesting is deeper than 10 levels: the 11th nested '[' is "
            "at line 1, column 29 (every '{' and '[' in the file counts, also "
            "inside strings); a dump config needs at most 4 levels");
  // Ten of each together are fine: the counts are separate.
  std::string both = "{\"dump\": {}, \"x\": ";
  for (int i = 0; i < 9; ++i) both += "{\"k\": ";
  both += std::string(10, '[') + std::string(10, ']') + std::string(9, '}');
  EXPECT_TRUE(ParseDumpConfig(both + "}", "a").ok());
  // Brackets inside strings count, and are counted before any parsing.
  const absl::StatusOr<DumpConfig> in_string = ParseDumpConfig(
      R"({"dump": {"dump_path": "[[[[[[[[[[[", "dump_mode": 1}})", "a");
  EXPECT_EQ(KindOf(in_string.status()), ErrorKind::kParseFile);
  EXPECT_EQ(KindOf(ParseDumpConfig(std::string(11, '['), "a").status()),
            ErrorKind::kParseFile);
  EXPECT_EQ(KindOf(ParseDumpConfig(std::string(1 << 20, '['), "a").status()),
            ErrorKind::kParseFile);
  // Counting stops at a NUL, and so does the JSON parser (the SDK's too):
  // what follows is ignored.
  const absl::StatusOr<DumpConfig> nul = ParseDumpConfig(
      StrCat(R"({"dump": {}})", std::string(1, '\0'), std::string(11, '[')),
      "a");
  EXPECT_TRUE(nul.ok()) << nul.status();
  // Closing brackets inside strings hide depth from the count; the parser
  // still refuses structure deeper than the limit.
  std::string hidden = R"({"s": "}}}}}}}}}}", "dump": {}, "x": )";
  for (int i = 0; i < 10; ++i) hidden += "{\"k\": ";
  hidden += "1" + std::string(11, '}');
  const absl::StatusOr<DumpConfig> structure = ParseDumpConfig(hidden, "a");
  ASSERT_FALSE(structure.ok());
  EXPECT_EQ(KindOf(structure.status()), ErrorKind::kParseFile);
  EXPECT_THAT(Message(structure.status()),
              HasSubstr("JSON nesting is deeper than 10 objects at x.k"));
  // Inside dump, within the limit, deep values are type errors.
  const absl::StatusOr<DumpConfig> typed = ParseDump(
      R"({"dump_path": "testdata", "dump_list": [{"layer": [[["x"]]]}]})");
  ASSERT_FALSE(typed.ok());
  EXPECT_THAT(Message(typed.status()),
              HasSubstr("dump.dump_list[0].layer[0]: must be a JSON string, "
                        "found an array"));
}

TEST(ParseDumpConfigTest, RejectsIllFormedUtf8AsNotJson) {
  for (std::string_view bad :
       {"\xff", "\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xe2\x82"}) {
    const absl::StatusOr<DumpConfig> config = ParseDumpConfig(
        StrCat(R"({"dump": {"dump_path": "a)", bad, R"("}})"), "acl.json");
    ASSERT_FALSE(config.ok());
    EXPECT_EQ(KindOf(config.status()), ErrorKind::kInvalidJson);
    // The message itself stays printable UTF-8.
    for (char c : Message(config.status())) {
      EXPECT_LT(static_cast<unsigned char>(c), 0x80);
    }
  }
}

TEST(ParseDumpConfigTest, EmptyTextIsNoConfig) {
  const absl::StatusOr<DumpConfig> config = ParseDumpConfig("", "acl.json");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_FALSE(config->enabled());
  EXPECT_THAT(config->warnings,
              ElementsAre("acl.json: the file is empty: no dump is "
                          "configured"));
  // Whitespace is not empty: it is not JSON.
  EXPECT_EQ(KindOf(ParseDumpConfig(" \n", "acl.json").status()),
            ErrorKind::kInvalidJson);
}

TEST(ParseDumpConfigTest, OversizedTextIsRefused) {
  const absl::StatusOr<DumpConfig> config = ParseDumpConfig(
      StrCat("{}", std::string((10 << 20) - 1, ' ')), "acl.json");
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(KindOf(config.status()), ErrorKind::kInvalidFile);
}

// Hostile shapes that are quadratic in naive JSON DOMs must stay fast.
TEST(ParseDumpConfigTest, LargeInputsParseInLinearTime) {
  std::string many_objects = R"({"x": [)";
  std::string many_keys = R"({"x": {)";
  for (int i = 0; i < 300000; ++i) {
    many_objects += i ? ",{}" : "{}";
    StrAppend(many_keys, i ? "," : "", "\"k", i, "\":0");
  }
  many_objects += "], \"dump\": {}}";
  many_keys += "}, \"dump\": {}}";
  EXPECT_TRUE(ParseDumpConfig(many_objects, "a").ok());
  EXPECT_TRUE(ParseDumpConfig(many_keys, "a").ok());
  std::string layers = R"({"dump_path": "testdata", "dump_list": [{"layer": [)";
  for (int i = 0; i < 100000; ++i)
    StrAppend(layers, i ? "," : "", "\"op", i, "\"");
  layers += "]}]}";
  const absl::StatusOr<DumpConfig> config = ParseDump(layers);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->dump_list[0].layers->size(), 100000u);
  std::string models = R"({"dump_path": "testdata", "dump_list": [)";
  for (int i = 0; i < 100000; ++i) {
    StrAppend(models, i ? "," : "", R"({"model_name": "m)", i, "\"}");
  }
  const absl::StatusOr<DumpConfig> many =
      ParseDump(StrCat(models, R"(, {"model_name": "m5"}]})"));
  ASSERT_FALSE(many.ok());
  EXPECT_THAT(Message(many.status()),
              HasSubstr("dump.dump_list[100000].model_name: duplicate model "
                        "'m5', already named by dump.dump_list[5].model_name"));
}

// A small deterministic fuzz: mutations of every committed config must give a
// result or a tagged error, never a crash or an exception.
TEST(ParseDumpConfigTest, MutatedConfigsNeverCrash) {
  std::mt19937 random(20240611);
  const std::string alphabet = "{}[]\":,|-0159 \\abdeilmnoprstu\xff\xc3";
  size_t parsed = 0;
  for (const Case& c : ReadCases()) {
    const std::string text = ReadFile(StrCat(kConfigDir, "/", c.file));
    for (size_t cut = 0; cut < text.size(); cut += 7) {
      (void)ParseDumpConfig(std::string_view(text).substr(0, cut), "m");
    }
    for (int round = 0; round < 40; ++round) {
      std::string mutated = text;
      const int edits = 1 + random() % 4;
      for (int e = 0; e < edits && !mutated.empty(); ++e) {
        const size_t at = random() % mutated.size();
        const char ch = alphabet[random() % alphabet.size()];
        switch (random() % 3) {
          case 0:
            mutated[at] = ch;
            break;
          case 1:
            mutated.insert(mutated.begin() + at, ch);
            break;
          default:
            mutated.erase(at, 1);
        }
      }
      const absl::StatusOr<DumpConfig> config = ParseDumpConfig(mutated, "m");
      if (config.ok()) {
        ++parsed;
        EXPECT_FALSE(DescribeDumpConfig(*config).empty());
      } else {
        EXPECT_TRUE(KindOf(config.status()).has_value()) << config.status();
        EXPECT_THAT(Message(config.status()), StartsWith("m: "));
      }
    }
  }
  EXPECT_GT(parsed, 0u);
}

// ---------------------------------------------------------------------------
// dump_path.

TEST(DumpPathTest, AbsoluteRelativeAndSymlinkedDirectories) {
  const std::string dir = TempDir("paths");
  fs::create_directories(dir + "/real/sub");
  fs::create_directory_symlink(dir + "/real", dir + "/link");
  fs::create_directories(dir + "/cost$");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {dir + "/real", dir + "/real"},
      {dir + "/real/", dir + "/real"},
      {dir + "//real/./sub/..", dir + "/real"},
      {dir + "/link/sub", dir + "/real/sub"},
      {dir + "/cost$", dir + "/cost$"},  // a '$' without a name stays
      {"testdata/configs/good", Cwd() + "/testdata/configs/good"},
      {"./testdata", Cwd() + "/testdata"},
  };
  for (const auto& [written, resolved] : cases) {
    const absl::StatusOr<DumpConfig> config = ParseDump(
        StrCat(R"({"dump_list": [], "dump_path": ")", written, "\"}"));
    ASSERT_TRUE(config.ok()) << written << ": " << config.status();
    EXPECT_EQ(config->dump_path, written);
    EXPECT_EQ(config->dump_path_resolved, resolved) << written;
  }
}

TEST(DumpPathTest, EnvironmentVariablesAreExpanded) {
  const std::string dir = TempDir("env");
  fs::create_directories(dir + "/out");
  ScopedEnv env("ACLDUMP_TEST_DIR", dir);
  for (const char* written :
       {"$ACLDUMP_TEST_DIR/out", "${ACLDUMP_TEST_DIR}/out"}) {
    const absl::StatusOr<DumpConfig> config = ParseDump(
        StrCat(R"({"dump_list": [], "dump_path": ")", written, "\"}"));
    ASSERT_TRUE(config.ok()) << config.status();
    EXPECT_EQ(config->dump_path, written);
    EXPECT_EQ(config->dump_path_resolved, dir + "/out");
  }
  ScopedEnv empty("ACLDUMP_TEST_EMPTY", "");
  const absl::StatusOr<DumpConfig> config = ParseDump(
      R"({"dump_list": [], "dump_path": "${ACLDUMP_TEST_EMPTY}/out"})");
  ASSERT_FALSE(config.ok());
  EXPECT_THAT(Message(config.status()),
              HasSubstr("dump.dump_path: refers to environment variable "
                        "ACLDUMP_TEST_EMPTY, which is not set (or empty)"));
}

TEST(DumpPathTest, MissingOrNotADirectory) {
  const std::string dir = TempDir("missing");
  WriteFile(dir + "/file", "x");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {dir + "/absent",
       StrCat("dump.dump_path: directory '", dir, "/absent' does not exist; ",
              "create it first (mkdir -p '", dir, "/absent')")},
      {dir + "/file",
       StrCat("dump.dump_path: directory '", dir, "/file' is not a directory")},
      {dir + "/file/x",
       "cannot be reached: a component of the path is not a "
       "directory"},
      {dir + "/" + std::string(300, 'x'),
       "cannot be checked: File name too long"},
      {R"(testdata\u0000x)", "dump.dump_path: contains a NUL character"},
      // At most 512 bytes, as the SDK counts (extra slashes pad the path).
      {dir + std::string(512 - dir.size(), '/'), ""},
      {dir + std::string(513 - dir.size(), '/'),
       "is 513 bytes long; at most 512"},
      // Bytes, not characters: two-byte characters count twice.
      {[&dir] {
         std::string s = dir + "/";
         while (s.size() <= 512) s += "\xc3\xa9";
         return s;
       }(),
       "bytes long; at most 512"},
  };
  for (const auto& [written, expected] : cases) {
    const absl::StatusOr<DumpConfig> config = ParseDump(
        StrCat(R"({"dump_list": [], "dump_path": ")", written, "\"}"));
    if (expected.empty()) {
      EXPECT_TRUE(config.ok()) << config.status();
      continue;
    }
    ASSERT_FALSE(config.ok()) << written;
    EXPECT_EQ(KindOf(config.status()), ErrorKind::kInvalidDumpConfig);
    EXPECT_THAT(Message(config.status()), HasSubstr(expected));
  }
}

TEST(DumpPathTest, UnwritableDirectoryIsRejected) {
  const std::string dir = TempDir("unwritable");
  fs::create_directories(dir + "/ro");
  ASSERT_EQ(chmod((dir + "/ro").c_str(), 0500), 0);
  const absl::StatusOr<DumpConfig> config =
      ParseDump(StrCat(R"({"dump_list": [], "dump_path": ")", dir, "/ro\"}"));
  chmod((dir + "/ro").c_str(), 0700);
  if (geteuid() == 0) {
    // access(2) grants root write access whatever the mode bits say.
    GTEST_SKIP() << "running as root: a 0500 directory is writable";
  }
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(KindOf(config.status()), ErrorKind::kInvalidDumpConfig);
  EXPECT_THAT(Message(config.status()),
              HasSubstr("is not readable and writable by the current user"));
}

// ---------------------------------------------------------------------------
// The file.

TEST(LoadDumpConfigFileTest, MissingDirectoryFifoAndEmptyPath) {
  const std::string dir = TempDir("files");
  const absl::StatusOr<DumpConfig> missing =
      LoadDumpConfigFile(dir + "/absent.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(KindOf(missing.status()), ErrorKind::kInvalidFile);
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(Message(missing.status()),
            StrCat("cannot open dump config file '", dir,
                   "/absent.json': it does not exist"));

  const absl::StatusOr<DumpConfig> directory = LoadDumpConfigFile(dir);
  ASSERT_FALSE(directory.ok());
  EXPECT_EQ(KindOf(directory.status()), ErrorKind::kInvalidFile);
  EXPECT_THAT(Message(directory.status()),
              HasSubstr("is not a regular file (it is a directory); name "
                        "the acl.json file itself"));

  ASSERT_EQ(mkfifo((dir + "/fifo").c_str(), 0600), 0);
  const absl::StatusOr<DumpConfig> fifo = LoadDumpConfigFile(dir + "/fifo");
  ASSERT_FALSE(fifo.ok());
  EXPECT_EQ(KindOf(fifo.status()), ErrorKind::kInvalidFile);
  EXPECT_THAT(Message(fifo.status()),
              HasSubstr("is not a regular file (it is a FIFO)"));

  const absl::StatusOr<DumpConfig> empty = LoadDumpConfigFile("");
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(KindOf(empty.status()), ErrorKind::kInvalidFile);
}

TEST(LoadDumpConfigFileTest, SizeLimitIsTenMebibytes) {
  const std::string dir = TempDir("size");
  const std::string body = R"({"dump": {}})";
  WriteFile(dir + "/limit.json",
            StrCat(body, std::string((10 << 20) - body.size(), ' ')));
  const absl::StatusOr<DumpConfig> limit =
      LoadDumpConfigFile(dir + "/limit.json");
  EXPECT_TRUE(limit.ok()) << limit.status();
  WriteFile(dir + "/over.json",
            StrCat(body, std::string((10 << 20) - body.size() + 1, ' ')));
  const absl::StatusOr<DumpConfig> over =
      LoadDumpConfigFile(dir + "/over.json");
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(KindOf(over.status()), ErrorKind::kInvalidFile);
  EXPECT_THAT(Message(over.status()),
              HasSubstr("is 10485761 bytes, more than the limit of 10485760 "
                        "bytes (a dump config file may be at most 10 MiB)"));
}

// An empty file is no config, as for the SDK: accepted, nothing enabled.
TEST(LoadDumpConfigFileTest, EmptyFileIsNoConfig) {
  const std::string dir = TempDir("empty");
  WriteFile(dir + "/acl.json", "");
  const absl::StatusOr<DumpConfig> config =
      LoadDumpConfigFile(dir + "/acl.json");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_FALSE(config->enabled());
  EXPECT_THAT(config->warnings,
              ElementsAre(StrCat(dir,
                                 "/acl.json: the file is empty: no dump "
                                 "is configured")));
}

TEST(LoadDumpConfigFileTest, UnreadableFile) {
  const std::string dir = TempDir("unreadable");
  WriteFile(dir + "/acl.json", "{}");
  ASSERT_EQ(chmod((dir + "/acl.json").c_str(), 0), 0);
  const absl::StatusOr<DumpConfig> config =
      LoadDumpConfigFile(dir + "/acl.json");
  if (geteuid() == 0) GTEST_SKIP() << "running as root: every file is readable";
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(KindOf(config.status()), ErrorKind::kInvalidFile);
  EXPECT_EQ(config.status().code(), absl::StatusCode::kPermissionDenied);
}

}  // namespace
}  // namespace acldump::dump
