// `dump`: run models with dump, and inspect, convert, summarise and compare
// dumps. `bazel run //tools:dump` alone runs the bundled model with a
// built-in config and says what to try next. Each command lives in its own
// tools/cmd_*.cc; exit codes: 0 success (compare: within tolerance), 1 failure
// (compare: outside tolerance), 2 usage errors (compare: anything that
// prevented comparing).
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <new>
#include <string>
#include <string_view>

#include "acl/acl_version.h"
#include "base/strings.h"
#include "tools/cli/command.h"
#include "tools/cli/runfiles.h"
#include "tools/common/cli_util.h"

namespace {

using acldump::tools::Command;
using acldump::tools::ToolContext;

// The help's examples are written for the source tree (`bazel run
// //tools:dump -- ...`) and its hints for `dump`: they name the tool as it
// was started instead.
void SpeakAs(CLI::App& app, const std::string& invocation) {
  constexpr std::string_view kSourceTree = "bazel run //tools:dump --";
  if (invocation == kSourceTree) return;
  std::string footer = app.get_footer();
  for (size_t at = 0; (at = footer.find(kSourceTree, at)) != std::string::npos;
       at += invocation.size()) {
    footer.replace(at, kSourceTree.size(), invocation);
  }
  app.footer(acldump::tools::SpeakToolName(footer));
  app.description(acldump::tools::SpeakToolName(app.get_description()));
  for (CLI::Option* option : app.get_options()) {
    option->description(
        acldump::tools::SpeakToolName(option->get_description()));
  }
}

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
  if (std::getenv("BUILD_WORKING_DIRECTORY") == nullptr) {
    // Installed as `acldump`, errors say so.
    acldump::tools::SetToolName(
        std::filesystem::path(argv[0]).filename().string());
  }
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
  // Examples name the tool as it was started: `bazel run //tools:dump --` in
  // the source tree, `acldump` installed.
  SpeakAs(app, context.invocation);
  for (CLI::App* sub : subcommands) SpeakAs(*sub, context.invocation);
  std::string help_topic;
  CLI::App* help = app.add_subcommand(
      "help", "Print the help of a command (`help compare`), or this help.");
  help->add_option("COMMAND", help_topic, "the command");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    const std::string command = FailedCommand(app);
    return acldump::tools::Fail(
        command, e.what(),
        acldump::StrCat("see `", context.invocation, " help",
                        command.empty() ? "" : " ", command,
                        "` for usage and an example"),
        acldump::tools::kExitUsage);
  }
  if (*help) {
    if (help_topic.empty()) {
      // app.help() would describe `help` itself, the command parsed.
      std::fputs(
          app.get_formatter()
              ->make_help(&app, app.get_name(), CLI::AppFormatMode::Normal)
              .c_str(),
          stdout);
      return 0;
    }
    for (CLI::App* sub : subcommands) {
      if (sub->get_name() == help_topic) {
        std::fputs(sub->help().c_str(), stdout);
        return 0;
      }
    }
    std::vector<std::string> names;
    for (CLI::App* sub : subcommands) names.push_back(sub->get_name());
    return acldump::tools::Fail(
        "help", acldump::StrCat("no command '", help_topic, "'"),
        acldump::StrCat("the commands: ", acldump::StrJoin(names, ", ")),
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
