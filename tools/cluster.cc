#include "tools/cluster.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>

#include "base/file_reader.h"
#include "base/strings.h"
#include "nlohmann/json.hpp"
#include "tools/runfiles.h"

extern char** environ;

namespace acldump::tools {
namespace {

namespace fs = std::filesystem;

// What the runner's exit code means (bindings/python/acldump/analysis.py).
constexpr int kRunnerSomeFailed = 1;

// Debian's interpreter has dask in the development tree (the first python3
// on PATH may be another); an installed release uses the one on PATH, where
// the wheel was installed. ACLDUMP_PYTHON overrides both.
std::string PythonFor(bool development_tree) {
  if (const char* python = std::getenv("ACLDUMP_PYTHON");
      python != nullptr && python[0] != '\0') {
    return python;
  }
  return development_tree ? "/usr/bin/python3" : "python3";
}

}  // namespace

void AddClusterOptions(CLI::App& command, ClusterOptions& options) {
  command
      .add_option("--scheduler", options.scheduler,
                  "run on this dask.distributed scheduler "
                  "(tcp://host:8786); the workers need acldump installed "
                  "and the dump folders at the same paths")
      ->group("Cluster");
  command
      .add_option("--scratch", options.scratch,
                  "with --scheduler: a folder the workers can write that the "
                  "client reads (a shared file system), for the tasks' "
                  "results; default $TMPDIR, enough for workers on this host")
      ->group("Cluster");
}

std::string ToolPath() {
  std::error_code error;
  const fs::path exe = fs::read_symlink("/proc/self/exe", error);
  return error ? "acldump" : exe.string();
}

absl::StatusOr<TaskFolder> TaskFolder::Create(const ClusterOptions& options,
                                              std::string_view command) {
  std::string parent = options.scratch;
  if (parent.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    parent = tmp != nullptr && tmp[0] != '\0' ? tmp : "/tmp";
  }
  std::string pattern =
      StrCat(fs::absolute(parent).string(), "/acldump-", command, "-XXXXXX");
  if (mkdtemp(pattern.data()) == nullptr) {
    return absl::PermissionDeniedError(StrCat(
        "cannot create a task folder in '", parent, "': ", std::strerror(errno),
        " (give --scratch a folder you can write)"));
  }
  // Workers may run as another user of a shared file system.
  fs::permissions(pattern, fs::perms::owner_all | fs::perms::group_all);
  return TaskFolder(pattern);
}

TaskFolder::TaskFolder(TaskFolder&& other) noexcept
    : path_(std::move(other.path_)) {
  other.path_.clear();
}

TaskFolder::~TaskFolder() {
  if (path_.empty()) return;
  std::error_code error;
  fs::remove_all(path_, error);
}

absl::Status RunOnCluster(const ClusterOptions& options, std::string_view label,
                          const std::vector<ClusterTask>& tasks,
                          const TaskFolder& folder,
                          const std::optional<std::string>& runfiles) {
  nlohmann::json list = nlohmann::json::array();
  for (const ClusterTask& task : tasks) {
    list.push_back({{"argv", task.argv}, {"output", task.output}});
  }
  const std::string tasks_path = folder.path() + "/tasks.json";
  {
    std::ofstream file(tasks_path, std::ios::binary);
    file << nlohmann::json{{"label", label}, {"tasks", list}}.dump();
    if (!file.flush()) {
      return absl::ResourceExhaustedError(
          StrCat("cannot write '", tasks_path, "'"));
    }
  }
  std::optional<std::string> package;
  if (runfiles) {
    package = Rlocation(*runfiles, "bindings/python/acldump");
  }
  if (package) {
    const std::string tree = fs::path(*package).parent_path().string();
    const char* old = std::getenv("PYTHONPATH");
    setenv("PYTHONPATH",
           old != nullptr && old[0] != '\0' ? StrCat(tree, ":", old).c_str()
                                            : tree.c_str(),
           1);
  }
  const std::string python = PythonFor(package.has_value());
  std::vector<std::string> args = {
      python,      "-m",          "acldump.analysis",
      "run-tasks", "--scheduler", options.scheduler,
      "--tasks",   tasks_path};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::fflush(stdout);
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, python.c_str(), nullptr, nullptr,
                                   argv.data(), environ);
  if (spawned != 0) {
    return absl::FailedPreconditionError(
        StrCat("cannot start '", python, "': ", std::strerror(spawned),
               " (set ACLDUMP_PYTHON to a Python with dask.distributed and "
               "the acldump wheel)"));
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) &&
      (WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == kRunnerSomeFailed)) {
    return absl::OkStatus();
  }
  return absl::UnavailableError(StrCat(
      "the cluster run did not complete (", python, " -m acldump.analysis ",
      WIFEXITED(status) ? StrCat("exited with ", WEXITSTATUS(status))
                        : StrCat("died of signal ", WTERMSIG(status)),
      "; its message is above)"));
}

std::string TaskFailure(const ClusterTask& task) {
  std::error_code error;
  if (fs::is_regular_file(task.output, error)) return "";
  absl::StatusOr<std::string> why =
      ReadRegularFile(task.output + ".error", 64 << 10, "task error");
  if (!why.ok() || why->empty()) return "no worker delivered the task";
  while (!why->empty() && (why->back() == '\n' || why->back() == ' ')) {
    why->pop_back();
  }
  return *why;
}

}  // namespace acldump::tools
