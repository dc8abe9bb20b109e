#include "tools/command.h"

#include <filesystem>

#include "base/strings.h"
#include "tools/cli_util.h"

namespace acldump::tools {

std::vector<std::unique_ptr<Command>> AllCommands() {
  std::vector<std::unique_ptr<Command>> commands;
  commands.push_back(MakeRunCommand());
  commands.push_back(MakeCheckConfigCommand());
  commands.push_back(MakeLsCommand());
  commands.push_back(MakeShowCommand());
  commands.push_back(MakeConvertCommand());
  commands.push_back(MakeCompareCommand());
  commands.push_back(MakeStatsCommand());
  return commands;
}

int FailWith(std::string_view command, const absl::Status& status,
             std::string_view hint, int exit_code) {
  const std::string attached = HintOf(status);
  return Fail(command, ToStd(status.message()),
              attached.empty() ? hint : std::string_view(attached), exit_code);
}

std::string Absolute(const std::string& path) {
  std::error_code error;
  return std::filesystem::absolute(path, error).lexically_normal().string();
}

}  // namespace acldump::tools
