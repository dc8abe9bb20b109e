#include "tools/cluster/cluster.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>

#include "base/file_reader.h"
#include "base/file_writer.h"
#include "base/strings.h"
#include "base/text.h"
#include "nlohmann/json.hpp"

extern char** environ;

namespace acldump::tools {
namespace {

namespace fs = std::filesystem;

// cluster_runner.py's exit codes (1 is Python's, for an uncaught error).
constexpr int kRunnerSomeFailed = 10;
constexpr int kRunnerNoDask = 12;

constexpr std::string_view kRunnerSource =
#include "tools/cluster/runner.inc"
    ;

// Pythons to try, in order, until one has dask.distributed: ACLDUMP_PYTHON
// alone when set; else the first python3 on PATH, then Debian's (a python3
// of one's own may lack dask).
std::vector<std::string> PythonCandidates() {
  if (const char* python = std::getenv("ACLDUMP_PYTHON");
      python != nullptr && python[0] != '\0') {
    return {python};
  }
  return {"python3", "/usr/bin/python3"};
}

// Runs `python runner --scheduler .. --tasks ..`; the exit status, or -1
// with `error` set when it could not be started.
int RunRunner(const std::string& python, const std::string& runner,
              const std::string& scheduler, const std::string& tasks,
              std::string& error) {
  std::vector<std::string> args = {python,    runner,    "--scheduler",
                                   scheduler, "--tasks", tasks};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::fflush(stdout);
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, python.c_str(), nullptr, nullptr,
                                   argv.data(), environ);
  if (spawned != 0) {
    error = StrCat("cannot start '", python, "': ", ErrnoText(spawned));
    return -1;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  error = StrCat(python, " died of signal ", WTERMSIG(status));
  return -1;
}

}  // namespace

void AddClusterOptions(CLI::App& command, ClusterOptions& options) {
  command
      .add_option("--scheduler", options.scheduler,
                  "run on this dask.distributed scheduler "
                  "(tcp://host:8786); the workers need acldump installed "
                  "and the dump folders at the same paths")
      // An empty address would silently mean "run here".
      ->check(CLI::Validator(
          [](std::string& address) {
            return address.empty() ? std::string(
                                         "needs the scheduler's "
                                         "address, e.g. "
                                         "tcp://host:8786")
                                   : std::string();
          },
          "ADDRESS"))
      ->group("Cluster");
  command
      .add_option("--scratch", options.scratch,
                  "with --scheduler: a folder the workers can write that the "
                  "client reads (a shared file system), for the tasks' "
                  "results; default $TMPDIR, enough for workers on this host")
      ->group("Cluster");
}

size_t TaskCount(size_t units, size_t per_task) {
  constexpr size_t kMinTasks = 64;  // small trees still spread over a cluster
  constexpr size_t kMaxTasks = 512;
  const size_t tasks = (units + per_task - 1) / std::max<size_t>(per_task, 1);
  return std::clamp<size_t>(std::max(tasks, std::min(units, kMinTasks)), 1,
                            kMaxTasks);
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
        "cannot create a task folder in '", parent, "': ", ErrnoText(errno),
        " (give --scratch a folder you can write)"));
  }
  // Left private (0700): another user able to write here could plant
  // results that pass every check and change the verdict.
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
                          const TaskFolder& folder) {
  // JSON carries UTF-8 only; a path of other bytes would arrive changed.
  std::error_code cwd_error;
  const std::string cwd = fs::current_path(cwd_error).string();
  for (const ClusterTask& task : tasks) {
    for (const std::string& arg : task.argv) {
      if (!IsUtf8(arg)) {
        return absl::FailedPreconditionError(
            StrCat("the path ", Quote(arg),
                   " is not UTF-8, which a cluster's tasks cannot carry: run "
                   "without --scheduler, or rename it"));
      }
    }
  }
  if (!IsUtf8(cwd)) {
    return absl::FailedPreconditionError(
        StrCat("the working directory ", Quote(cwd),
               " is not UTF-8, which a cluster's tasks cannot carry: run "
               "from another folder"));
  }
  nlohmann::json list = nlohmann::json::array();
  for (const ClusterTask& task : tasks) {
    list.push_back({{"argv", task.argv}, {"output", task.output}});
  }
  const std::string tasks_path = folder.path() + "/tasks.json";
  {
    std::ofstream file(tasks_path, std::ios::binary);
    // Tasks run where the client runs, so that relative paths (and the
    // messages that name them) are the client's.
    file << nlohmann::json{{"label", label}, {"cwd", cwd}, {"tasks", list}}
                .dump();
    if (!file.flush()) {
      return absl::ResourceExhaustedError(
          StrCat("cannot write '", tasks_path, "'"));
    }
  }
  const std::string runner = folder.path() + "/runner.py";
  {
    std::ofstream file(runner, std::ios::binary);
    file << kRunnerSource;
    if (!file.flush()) {
      return absl::ResourceExhaustedError(
          StrCat("cannot write '", runner, "'"));
    }
  }
  std::string tried;
  for (const std::string& python : PythonCandidates()) {
    std::string error;
    const int code =
        RunRunner(python, runner, options.scheduler, tasks_path, error);
    if (code == 0 || code == kRunnerSomeFailed) return absl::OkStatus();
    if (code == kRunnerNoDask || code == -1) {
      StrAppend(
          tried, tried.empty() ? "" : "; ",
          code == -1 ? error : StrCat(python, " has no dask.distributed"));
      continue;
    }
    return absl::UnavailableError(StrCat("the cluster run did not complete (",
                                         python, " exited with ", code,
                                         "; its message is above)"));
  }
  return absl::FailedPreconditionError(
      StrCat("no Python with dask.distributed to run the tasks (", tried,
             "): install python3-distributed, or set ACLDUMP_PYTHON"));
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
