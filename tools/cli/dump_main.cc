// `dump`: run models with dump, and inspect, convert, summarise and compare
// dumps. `bazel run //tools:dump` alone runs the bundled model with a
// built-in config and says what to try next. Each command lives in its own
// tools/cmd_*.cc; exit codes: 0 success (compare: within tolerance), 1 failure
// (compare: outside tolerance), 2 usage errors (compare: anything that
// prevented comparing).
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <new>

#include "acl/acl_version.h"
#include "base/strings.h"
#include "tools/cli/command.h"
#include "tools/cli/runfiles.h"
#include "tools/common/cli_util.h"

namespace {

using acldump::tools::Command;
using acldump::tools::ToolContext;

// Which subcommand was being parsed when CLI11 failed.
std::string FailedCommand(const CLI::App& app) {
  for (const CLI::App* sub : app.get_subcommands({})) {
    if (sub->parsed()) return sub->get_name();
  }
  return "";
}

int Main(int argc, char** argv) {
  ToolContext context;
  // Runfiles are found from where `bazel run` starts us; the user's paths are
  // relative to where they ran it.
  context.runfiles = acldump::tools::FindRunfilesDir(argv[0]);
  context.invocation = std::getenv("BUILD_WORKING_DIRECTORY") != nullptr
                           ? "bazel run //tools:dump --"
                           : argv[0];
  if (const char* wd = std::getenv("BUILD_WORKING_DIRECTORY")) {
    if (chdir(wd) != 0) {
      std::fprintf(stderr, "dump: cannot enter %s\n", wd);
      return acldump::tools::kExitFailure;
    }
  }
  CLI::App app{
      "acldump's dump tool: run models with a dump config, then inspect, "
      "convert, summarise and compare the dumps.\nWithout a command it runs "
      "the bundled model with a built-in config and suggests what to try."};
  app.require_subcommand(0, 1);
  app.set_version_flag("--version", "dump (acldump) " ACLDUMP_VERSION_STRING);
  app.footer(
      "Workflow: stats first (dump_data stats) -> find suspects (dump stats) "
      "-> tensor dump of those layers (layer list) -> compare.\n"
      "Example: bazel run //tools:dump -- compare run_a/.../0 run_b/.../0 "
      "--report cmp.html");
  std::vector<std::unique_ptr<Command>> commands =
      acldump::tools::AllCommands();
  std::vector<CLI::App*> subcommands;
  for (auto& command : commands) subcommands.push_back(command->Setup(app));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    const std::string command = FailedCommand(app);
    return acldump::tools::Fail(
        command, e.what(),
        acldump::StrCat("see `dump ", command, command.empty() ? "" : " ",
                        "--help` for usage and an example"),
        acldump::tools::kExitUsage);
  }
  for (size_t i = 0; i < commands.size(); ++i) {
    if (*subcommands[i]) return commands[i]->Run(context);
  }
  return acldump::tools::RunDefault(context);
}

}  // namespace

int main(int argc, char** argv) {
  // Any command may meet a model or dump larger than memory allows: say so
  // instead of aborting.
  try {
    return Main(argc, argv);
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr,
                 "dump: error: out of memory; the model or dump is too large "
                 "for this machine's memory (or ulimit -v)\n");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "dump: error: internal error: %s\n", e.what());
  }
  return acldump::tools::kExitFailure;
}
