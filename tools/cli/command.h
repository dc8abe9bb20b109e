// The `dump` tool's commands: each is one file (tools/cmd_*.cc) with a Setup
// that declares its options and a Run that does the work; the table in
// command.cc lists them and main() only dispatches. Adding a command is one
// new file plus one line in the table.
#ifndef ACLDUMP_TOOLS_CLI_COMMAND_H_
#define ACLDUMP_TOOLS_CLI_COMMAND_H_

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/status/status.h"
#include "tools/tree/filter.h"

namespace acldump::tools {

// Exit codes of every command: 0 success, 1 failure, 2 usage errors; `run`
// (and the default demo): 3 when the config selected nothing to dump; on a
// cluster (--scheduler): 4 when some tasks failed for good (what the others
// found is still reported).
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitNothingDumped = 3;
inline constexpr int kExitIncomplete = 4;

struct ToolContext {
  // The runfiles folder with the bundled models, when found.
  std::optional<std::string> runfiles;
  // How the user invokes the tool ("bazel run //tools:dump --" or argv[0]),
  // for the commands suggested in messages.
  std::string invocation;
};

class Command {
 public:
  virtual ~Command() = default;
  // Adds the subcommand with its options and help to `app`.
  virtual CLI::App* Setup(CLI::App& app) = 0;
  // Runs once the command line is parsed; returns the exit code.
  virtual int Run(const ToolContext& context) = 0;
};

// Every command, in the order --help lists them.
std::vector<std::unique_ptr<Command>> AllCommands();

// No command given: runs the bundled model with a built-in config and
// suggests what to try next (cmd_run.cc).
int RunDefault(const ToolContext& context);

// One factory per command file.
std::unique_ptr<Command> MakeRunCommand();
std::unique_ptr<Command> MakeCheckConfigCommand();
std::unique_ptr<Command> MakeLsCommand();
std::unique_ptr<Command> MakeShowCommand();
std::unique_ptr<Command> MakeConvertCommand();
std::unique_ptr<Command> MakeCompareCommand();
std::unique_ptr<Command> MakeStatsCommand();
std::unique_ptr<Command> MakeReferenceCommand();
std::unique_ptr<Command> MakeReplayCommand();
std::unique_ptr<Command> MakeLocateCommand();
std::unique_ptr<Command> MakeCompareDeviceCommand();
std::unique_ptr<Command> MakeGraphCommand();

// --op-type, --match and --iterations, the filters compare, stats, ls and
// convert share.
void AddFilterOptions(CLI::App& command, FilterOptions& options);

// Prints a failed status as one line plus its attached hint (or `hint`) and
// returns `exit_code`.
int FailWith(std::string_view command, const absl::Status& status,
             std::string_view hint, int exit_code);

// `path` made absolute and normal.
std::string Absolute(const std::string& path);

}  // namespace acldump::tools

#endif  // ACLDUMP_TOOLS_CLI_COMMAND_H_
