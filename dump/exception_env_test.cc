#include "dump/exception_env.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace acldump::dump {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

namespace fs = std::filesystem;

class ExceptionEnvTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::path(::testing::TempDir()) /
            ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(root_);
    fs::create_directories(root_);
    root_ = fs::canonical(root_);
  }

  ExceptionEnvironment Read() {
    return ReadExceptionEnvironment([this](const char* name) -> const char* {
      auto it = vars_.find(name);
      return it == vars_.end() ? nullptr : it->second.c_str();
    });
  }

  std::string Dir(const std::string& name) { return (root_ / name).native(); }

  fs::path root_;
  std::map<std::string, std::string> vars_;
};

TEST_F(ExceptionEnvTest, NothingSetTurnsNothingOn) {
  ExceptionEnvironment env = Read();
  EXPECT_FALSE(env.level.has_value());
  EXPECT_THAT(env.warnings, IsEmpty());
  EXPECT_EQ(env.dump_path, "");
  EXPECT_EQ(env.work_path, "");
}

TEST_F(ExceptionEnvTest, BriefSceneGoesToTheWorkingDirectory) {
  vars_["ASCEND_DUMP_SCENE"] = "aic_err_brief_dump";
  ExceptionEnvironment env = Read();
  ASSERT_TRUE(env.level.has_value());
  EXPECT_EQ(*env.level, ExceptionLevel::kBrief);
  EXPECT_EQ(env.scene, "aic_err_brief_dump");
  EXPECT_EQ(env.source, "ASCEND_DUMP_SCENE=aic_err_brief_dump");
  EXPECT_EQ(env.root, fs::current_path().native());
  EXPECT_THAT(env.warnings, IsEmpty());
}

TEST_F(ExceptionEnvTest, DumpPathWinsOverWorkPathAndIsCreated) {
  vars_["ASCEND_DUMP_SCENE"] = "aic_err_norm_dump";
  vars_["ASCEND_DUMP_PATH"] = Dir("dump/nested");
  vars_["ASCEND_WORK_PATH"] = Dir("work");
  ExceptionEnvironment env = Read();
  ASSERT_TRUE(env.level.has_value());
  EXPECT_EQ(*env.level, ExceptionLevel::kNorm);
  EXPECT_EQ(env.root, Dir("dump/nested"));
  EXPECT_TRUE(fs::is_directory(Dir("dump/nested")));
  EXPECT_EQ(env.work_path, Dir("work"));
  EXPECT_THAT(env.warnings, IsEmpty());
}

TEST_F(ExceptionEnvTest, WorkPathWhenNoDumpPath) {
  vars_["ASCEND_DUMP_SCENE"] = "aic_err_brief_dump";
  vars_["ASCEND_WORK_PATH"] = Dir("work");
  EXPECT_EQ(Read().root, Dir("work"));
}

TEST_F(ExceptionEnvTest, SceneWinsOverCollectPath) {
  vars_["ASCEND_DUMP_SCENE"] = "aic_err_brief_dump";
  vars_["NPU_COLLECT_PATH"] = Dir("collect");
  ExceptionEnvironment env = Read();
  EXPECT_EQ(*env.level, ExceptionLevel::kBrief);
  EXPECT_EQ(env.root, fs::current_path().native());
}

TEST_F(ExceptionEnvTest, CollectPathAloneTurnsOnNormDumpIntoIt) {
  vars_["NPU_COLLECT_PATH"] = Dir("collect");
  vars_["ASCEND_DUMP_PATH"] = Dir("dump");
  ExceptionEnvironment env = Read();
  ASSERT_TRUE(env.level.has_value());
  EXPECT_EQ(*env.level, ExceptionLevel::kNorm);
  EXPECT_EQ(env.scene, "aic_err_norm_dump");
  EXPECT_EQ(env.root, Dir("collect"));
  EXPECT_EQ(env.source, "NPU_COLLECT_PATH=" + Dir("collect"));
}

TEST_F(ExceptionEnvTest, UnknownSceneIsIgnoredWithAWarning) {
  vars_["ASCEND_DUMP_SCENE"] = "lite_exception";
  ExceptionEnvironment env = Read();
  EXPECT_FALSE(env.level.has_value());
  EXPECT_THAT(env.warnings,
              ElementsAre("environment variable ASCEND_DUMP_SCENE="
                          "lite_exception is ignored: expected "
                          "aic_err_brief_dump or aic_err_norm_dump"));
}

TEST_F(ExceptionEnvTest, DetailSceneIsRefusedWithTheAlternative) {
  vars_["ASCEND_DUMP_SCENE"] = "aic_err_detail_dump";
  vars_["NPU_COLLECT_PATH"] = Dir("collect");
  ExceptionEnvironment env = Read();
  ASSERT_EQ(env.warnings.size(), 1u);
  EXPECT_THAT(env.warnings[0], HasSubstr("aic_err_detail_dump"));
  EXPECT_THAT(env.warnings[0], HasSubstr("use aic_err_norm_dump"));
  // As the SDK's converter: an unusable scene leaves NPU_COLLECT_PATH to
  // decide.
  ASSERT_TRUE(env.level.has_value());
  EXPECT_EQ(env.root, Dir("collect"));
}

TEST_F(ExceptionEnvTest, AFileIsNoFolder) {
  const std::string file = Dir("plain");
  {
    std::FILE* f = std::fopen(file.c_str(), "w");
    std::fclose(f);
  }
  vars_["ASCEND_DUMP_SCENE"] = "aic_err_brief_dump";
  vars_["ASCEND_DUMP_PATH"] = file;
  ExceptionEnvironment env = Read();
  EXPECT_EQ(env.dump_path, "");
  EXPECT_EQ(env.root, fs::current_path().native());
  ASSERT_EQ(env.warnings.size(), 1u);
  EXPECT_THAT(env.warnings[0], HasSubstr("ASCEND_DUMP_PATH=" + file));
  EXPECT_THAT(env.warnings[0], HasSubstr("it is ignored"));
}

TEST_F(ExceptionEnvTest, AFolderThatCannotBeCreatedIsIgnored) {
  const std::string file = Dir("plain");
  {
    std::FILE* f = std::fopen(file.c_str(), "w");
    std::fclose(f);
  }
  vars_["NPU_COLLECT_PATH"] = file + "/below";
  ExceptionEnvironment env = Read();
  EXPECT_FALSE(env.level.has_value());
  ASSERT_EQ(env.warnings.size(), 1u);
  EXPECT_THAT(env.warnings[0], HasSubstr("NPU_COLLECT_PATH"));
  EXPECT_THAT(env.warnings[0], HasSubstr("cannot be created"));
}

TEST_F(ExceptionEnvTest, RootForAConfigFollowsTheSdkOrder) {
  DumpConfig config;
  config.dump_path_resolved = Dir("from_config");
  ExceptionEnvironment env;
  EXPECT_EQ(ExceptionRoot(env, config), Dir("from_config"));
  env.work_path = Dir("work");
  EXPECT_EQ(ExceptionRoot(env, config), Dir("work"));
  env.dump_path = Dir("dump");
  EXPECT_EQ(ExceptionRoot(env, config), Dir("dump"));
  EXPECT_EQ(ExceptionRoot(ExceptionEnvironment{}, DumpConfig{}),
            fs::current_path().native());
}

TEST_F(ExceptionEnvTest, EnvironmentConfigIsAnExceptionScene) {
  vars_["ASCEND_DUMP_SCENE"] = "aic_err_norm_dump";
  DumpConfig config = EnvironmentExceptionConfig(Read());
  EXPECT_EQ(config.scene, DumpScene::kException);
  EXPECT_EQ(config.exception_level, ExceptionLevel::kNorm);
  EXPECT_EQ(config.exception_scene, "aic_err_norm_dump");
  EXPECT_EQ(config.source, "ASCEND_DUMP_SCENE=aic_err_norm_dump");
}

}  // namespace
}  // namespace acldump::dump
