#include "tools/cli/command.h"

#include <filesystem>

#include "base/strings.h"
#include "tools/common/cli_util.h"

namespace acldump::tools {

std::vector<std::unique_ptr<Command>> AllCommands() {
  std::vector<std::unique_ptr<Command>> commands;
  commands.push_back(MakeRunCommand());
  commands.push_back(MakeCheckConfigCommand());
  commands.push_back(MakeLsCommand());
  commands.push_back(MakeShowCommand());
  commands.push_back(MakeConvertCommand());
  commands.push_back(MakeCompareCommand());
  commands.push_back(MakeCompareDeviceCommand());
  commands.push_back(MakeGraphCommand());
  commands.push_back(MakeStatsCommand());
  commands.push_back(MakeReferenceCommand());
  commands.push_back(MakeReplayCommand());
  commands.push_back(MakeLocateCommand());
  return commands;
}

int FailWith(std::string_view command, const absl::Status& status,
             std::string_view hint, int exit_code) {
  const std::string attached = HintOf(status);
  return Fail(command, ToStd(status.message()),
              attached.empty() ? hint : std::string_view(attached), exit_code);
}

void AddFilterOptions(CLI::App& command, FilterOptions& options) {
  command
      .add_option("--op-type", options.op_types,
                  "only operators of these types (comma-separated or "
                  "repeated), e.g. Conv,Add")
      ->group("Filters");
  command
      .add_option("--match", options.match,
                  "only operators whose name (or an original name) contains "
                  "a match of this regular expression (ECMAScript)")
      ->group("Filters");
  command
      .add_option("--iterations", options.iterations,
                  "only these iterations: N, N-M, or a list such as 0,3-5")
      ->group("Filters");
}

std::string Absolute(const std::string& path) {
  std::error_code error;
  return std::filesystem::absolute(path, error).lexically_normal().string();
}

}  // namespace acldump::tools
