#include "tools/cluster/tree_shard.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <limits>
#include <system_error>

#include "acl/acl_version.h"
#include "base/file_reader.h"
#include "base/file_writer.h"
#include "base/status_macros.h"
#include "base/strings.h"
#include "base/text.h"
#include "dump/format/dump_names.h"

namespace acldump::tools {
namespace {

namespace fs = std::filesystem;

// A shard of ten million entries is about 3 GB of JSON; more than that is
// not a shard file.
constexpr size_t kMaxShardBytes = size_t{4} << 30;
// Folders the plan cuts the tree into (at least), and per task (at least).
constexpr size_t kShardsWanted = 64;
constexpr size_t kFoldersPerTask = 64;
// {time}/{device}/{model}/{model id}/{iteration}: below that, files only.
constexpr size_t kMaxPlanDepth = 5;

constexpr dump::EntryKind kKinds[] = {
    dump::EntryKind::kTensor, dump::EntryKind::kStats,
    dump::EntryKind::kOverflowRecord, dump::EntryKind::kOther};

std::string_view LayoutName(dump::Layout layout) {
  switch (layout) {
    case dump::Layout::kModel:
      return "model";
    case dump::Layout::kSingleOp:
      return "single_op";
    case dump::Layout::kException:
      return "exception";
    case dump::Layout::kUnknown:
      return "unknown";
  }
  return "unknown";
}

template <typename T>
absl::StatusOr<T> Field(const nlohmann::json& j, const char* name) {
  auto it = j.find(name);
  if (it == j.end()) {
    return absl::DataLossError(StrCat("entry without '", name, "'"));
  }
  if constexpr (std::is_same_v<T, std::string>) {
    if (!it->is_string()) {
      return absl::DataLossError(StrCat("'", name, "' is not a string"));
    }
  } else if constexpr (std::is_same_v<T, bool>) {
    if (!it->is_boolean()) {
      return absl::DataLossError(StrCat("'", name, "' is not true/false"));
    }
  } else {
    if (!it->is_number_integer()) {
      return absl::DataLossError(StrCat("'", name, "' is not an integer"));
    }
    const bool fits =
        it->is_number_unsigned()
            ? it->template get<uint64_t>() <=
                  static_cast<uint64_t>(std::numeric_limits<T>::max())
            : it->template get<int64_t>() >=
                  static_cast<int64_t>(std::numeric_limits<T>::min());
    if (!fits) return absl::DataLossError(StrCat("'", name, "' out of range"));
  }
  return it->template get<T>();
}

absl::StatusOr<dump::DumpEntry> EntryFromJson(const nlohmann::json& j) {
  if (!j.is_object()) return absl::DataLossError("an entry is not an object");
  dump::DumpEntry e;
  ASSIGN_OR_RETURN(e.path, Field<std::string>(j, "path"));
  ASSIGN_OR_RETURN(e.relative, Field<std::string>(j, "relative"));
  ASSIGN_OR_RETURN(e.file_name, Field<std::string>(j, "file_name"));
  ASSIGN_OR_RETURN(e.bytes, Field<uint64_t>(j, "bytes"));
  ASSIGN_OR_RETURN(std::string kind, Field<std::string>(j, "kind"));
  auto k = std::find_if(
      std::begin(kKinds), std::end(kKinds),
      [&](dump::EntryKind c) { return dump::EntryKindName(c) == kind; });
  if (k == std::end(kKinds)) {
    return absl::DataLossError(StrCat("unknown kind '", kind, "'"));
  }
  e.kind = *k;
  ASSIGN_OR_RETURN(std::string layout, Field<std::string>(j, "layout"));
  e.layout = dump::Layout::kUnknown;
  for (dump::Layout l : {dump::Layout::kModel, dump::Layout::kSingleOp,
                         dump::Layout::kException}) {
    if (LayoutName(l) == layout) e.layout = l;
  }
  ASSIGN_OR_RETURN(e.time, Field<std::string>(j, "time"));
  ASSIGN_OR_RETURN(e.device, Field<int64_t>(j, "device"));
  ASSIGN_OR_RETURN(e.model, Field<std::string>(j, "model"));
  ASSIGN_OR_RETURN(e.model_id, Field<int64_t>(j, "model_id"));
  ASSIGN_OR_RETURN(e.iteration, Field<int64_t>(j, "iteration"));
  ASSIGN_OR_RETURN(e.packed, Field<bool>(j, "packed"));
  auto op_type = j.find("op_type");
  if (op_type != j.end() && !op_type->is_null()) {
    dump::DumpFileNameParts name;
    ASSIGN_OR_RETURN(name.op_type, Field<std::string>(j, "op_type"));
    ASSIGN_OR_RETURN(name.op_name, Field<std::string>(j, "op_name"));
    ASSIGN_OR_RETURN(name.task_id, Field<uint32_t>(j, "task_id"));
    ASSIGN_OR_RETURN(name.stream_id, Field<uint32_t>(j, "stream_id"));
    ASSIGN_OR_RETURN(name.timestamp_us, Field<uint64_t>(j, "timestamp_us"));
    e.name = std::move(name);
  }
  return e;
}

std::string JoinPath(const std::string& root, const std::string& relative) {
  return (fs::path(root) / relative).string();
}

// A worker's entry must be below one of its task's folders, named by file
// names only (a listing is untrusted: it must not point the client
// elsewhere), by the rule every reader of a tree applies.
bool InTaskFolders(const std::string& relative,
                   const std::vector<std::string>& folders) {
  if (!dump::WhyNotARelativePath(relative).empty()) return false;
  for (const std::string& folder : folders) {
    if (folder.empty() || relative == folder ||
        (relative.size() > folder.size() &&
         relative.compare(0, folder.size(), folder) == 0 &&
         relative[folder.size()] == '/')) {
      return true;
    }
  }
  return false;
}

}  // namespace

nlohmann::ordered_json TreeJson(const dump::DumpTree& tree) {
  using Json = nlohmann::ordered_json;
  Json entries = Json::array();
  for (const dump::DumpEntry& e : tree.entries) {
    Json j;
    j["path"] = e.path;
    j["relative"] = e.relative;
    j["file_name"] = e.file_name;
    j["bytes"] = e.bytes;
    j["kind"] = dump::EntryKindName(e.kind);
    j["layout"] = LayoutName(e.layout);
    j["time"] = e.time;
    j["device"] = e.device;
    j["model"] = e.model;
    j["model_id"] = e.model_id;
    j["iteration"] = e.iteration;
    j["op_type"] = e.name ? Json(e.name->op_type) : Json(nullptr);
    j["op_name"] = e.name ? Json(e.name->op_name) : Json(nullptr);
    j["task_id"] = e.name ? Json(e.name->task_id) : Json(nullptr);
    j["stream_id"] = e.name ? Json(e.name->stream_id) : Json(nullptr);
    j["timestamp_us"] = e.name ? Json(e.name->timestamp_us) : Json(nullptr);
    j["packed"] = e.packed;
    entries.push_back(std::move(j));
  }
  Json out;
  out["schema"] = "acldump.ls/1";
  out["version"] = ACLDUMP_VERSION_STRING;
  out["root"] = tree.root;
  out["problems"] = tree.problems;
  out["entries"] = std::move(entries);
  return out;
}

absl::Status EntriesFromJson(const nlohmann::json& json,
                             std::vector<dump::DumpEntry>& entries,
                             std::vector<std::string>& problems) {
  const auto schema = json.is_object() ? json.find("schema") : json.end();
  if (!json.is_object() || schema == json.end() || !schema->is_string() ||
      *schema != "acldump.ls/1") {
    return absl::DataLossError("not a dump listing (schema acldump.ls/1)");
  }
  const auto version = json.find("version");
  if (version == json.end() || *version != ACLDUMP_VERSION_STRING) {
    return absl::FailedPreconditionError(StrCat(
        "written by another acldump release than ", ACLDUMP_VERSION_STRING,
        ": install the same release on the client and every worker"));
  }
  const auto list = json.find("entries");
  const auto found = json.find("problems");
  if (list == json.end() || !list->is_array() || found == json.end() ||
      !found->is_array()) {
    return absl::DataLossError("a listing without entries or problems");
  }
  for (const auto& p : *found) {
    if (!p.is_string()) return absl::DataLossError("a problem is not text");
    problems.push_back(p.get<std::string>());
  }
  for (const auto& j : *list) {
    ASSIGN_OR_RETURN(dump::DumpEntry e, EntryFromJson(j));
    entries.push_back(std::move(e));
  }
  return absl::OkStatus();
}

absl::StatusOr<ScanPlan> PlanScan(const std::string& root, size_t want) {
  ScanPlan plan;
  std::error_code error;
  if (!fs::is_directory(root, error)) {
    plan.files = {""};  // one file: the client reads it
    return plan;
  }
  std::vector<std::string> level = {""};
  for (size_t depth = 0; depth < kMaxPlanDepth && level.size() < want;
       ++depth) {
    std::vector<std::string> next, leaves;
    for (const std::string& folder : level) {
      std::vector<std::string> subfolders;
      const fs::path directory = fs::path(root) / folder;
      fs::directory_iterator it(
          directory, fs::directory_options::skip_permission_denied, error);
      if (error) {
        return absl::PermissionDeniedError(StrCat(
            "cannot read '", directory.string(), "': ", error.message()));
      }
      std::vector<std::string> files;
      for (; it != fs::directory_iterator(); it.increment(error)) {
        if (error) {
          return absl::PermissionDeniedError(StrCat(
              "cannot read '", directory.string(), "': ", error.message()));
        }
        const std::string name = it->path().filename().string();
        const std::string relative =
            folder.empty() ? name : (fs::path(folder) / name).string();
        // As the scan: folders are not followed through symlinks, files
        // are (a symlinked folder is neither).
        if (it->is_directory(error) && !it->is_symlink(error)) {
          subfolders.push_back(relative);
        } else if (it->is_regular_file(error)) {
          files.push_back(relative);
        }
      }
      if (subfolders.empty()) {
        leaves.push_back(folder);
        continue;
      }
      plan.files.insert(plan.files.end(), files.begin(), files.end());
      next.insert(next.end(), subfolders.begin(), subfolders.end());
    }
    if (next.empty()) break;  // every folder is a leaf: keep this level
    level = std::move(leaves);
    level.insert(level.end(), next.begin(), next.end());
  }
  plan.folders = std::move(level);
  std::sort(plan.folders.begin(), plan.folders.end());
  std::sort(plan.files.begin(), plan.files.end());
  return plan;
}

absl::StatusOr<dump::DumpTree> ScanPart(const std::string& root,
                                        const std::string& sub) {
  if (sub.empty()) return dump::ScanDumpTree(root);
  const std::string path = JoinPath(root, sub);
  std::error_code error;
  // A file's records (a pack's) are named beside it, as in its folder.
  const std::string folder = fs::is_directory(path, error)
                                 ? sub
                                 : fs::path(sub).parent_path().string();
  ASSIGN_OR_RETURN(dump::DumpTree part, dump::ScanDumpTree(path));
  for (dump::DumpEntry& e : part.entries) {
    e.relative = e.relative.empty() ? sub : JoinPath(folder, e.relative);
  }
  part.root = root;
  return part;
}

void AddShardOptions(CLI::App& command, ShardOptions& options) {
  // A worker's task: not for users, so not in --help.
  command.add_option("--shard-list", options.list)->group("");
  command.add_option("--shard-out", options.output)->group("");
}

absl::StatusOr<dump::DumpTree> ScanTaskFolders(const std::string& root,
                                               const std::string& list) {
  ASSIGN_OR_RETURN(std::string text,
                   ReadRegularFile(list, kMaxShardBytes, "scan task"));
  const nlohmann::json folders = nlohmann::json::parse(text, nullptr, false);
  if (!folders.is_array()) {
    return absl::DataLossError(
        StrCat("scan task '", list, "' is not a JSON array of folders"));
  }
  std::vector<dump::DumpEntry> entries;
  std::vector<std::string> problems;
  for (const auto& folder : folders) {
    if (!folder.is_string()) {
      return absl::DataLossError(
          StrCat("scan task '", list, "' holds a folder that is not text"));
    }
    ASSIGN_OR_RETURN(dump::DumpTree part,
                     ScanPart(root, folder.get<std::string>()));
    for (dump::DumpEntry& e : part.entries) entries.push_back(std::move(e));
    problems.insert(problems.end(), part.problems.begin(), part.problems.end());
  }
  for (const dump::DumpEntry& e : entries) {
    if (!IsUtf8(e.relative) ||
        (e.name && !IsUtf8(e.name->op_name + e.name->op_type))) {
      return absl::FailedPreconditionError(
          StrCat("the file name ", Quote(e.relative),
                 " is not UTF-8, which a cluster's tasks cannot carry: run "
                 "without --scheduler, or rename it"));
    }
  }
  dump::DumpTree tree = dump::BuildDumpTree(root, std::move(entries));
  tree.problems = std::move(problems);
  return tree;
}

absl::Status WriteJsonFile(const std::string& path,
                           const nlohmann::ordered_json& json) {
  return WriteFileWhole(
      path,
      json.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

ClusterScan MergeScanTasks(
    const std::string& root, dump::DumpTree client_part,
    const std::vector<ScanTask>& tasks,
    const std::function<absl::Status(const nlohmann::json&)>& on_shard) {
  ClusterScan scan;
  std::vector<dump::DumpEntry> entries = std::move(client_part.entries);
  std::vector<std::string> problems = std::move(client_part.problems);
  for (const ScanTask& task : tasks) {
    std::vector<dump::DumpEntry> part;
    std::vector<std::string> part_problems;
    absl::Status read = [&]() -> absl::Status {
      std::string failure = TaskFailure(task.task);
      if (!failure.empty()) return absl::UnavailableError(failure);
      ASSIGN_OR_RETURN(std::string text,
                       ReadRegularFile(task.task.output, kMaxShardBytes,
                                       "a worker's listing"));
      const nlohmann::json json = nlohmann::json::parse(text, nullptr, false);
      if (json.is_discarded()) {
        return absl::DataLossError("a worker's listing is not JSON");
      }
      RETURN_IF_ERROR(EntriesFromJson(json, part, part_problems));
      for (const dump::DumpEntry& e : part) {
        if (!InTaskFolders(e.relative, task.folders)) {
          return absl::DataLossError(
              StrCat("the listing names ", Quote(e.relative),
                     ", outside the folders of its task"));
        }
      }
      return on_shard ? on_shard(json) : absl::OkStatus();
    }();
    if (!read.ok()) {
      for (const std::string& sub : task.folders) {
        const std::string where = JoinPath(root, sub);
        scan.failed.push_back(StrCat("'", where, "': ", read.message()));
        problems.push_back(
            StrCat("'", where, "' was not read: ", read.message()));
      }
      continue;
    }
    // Named as the client names the root (the worker may have had another
    // spelling of it).
    for (dump::DumpEntry& e : part) {
      e.path = JoinPath(root, e.relative);
      entries.push_back(std::move(e));
    }
    problems.insert(problems.end(), part_problems.begin(), part_problems.end());
  }
  scan.tree = dump::BuildDumpTree(root, std::move(entries));
  scan.tree.problems = std::move(problems);
  return scan;
}

absl::StatusOr<ClusterScan> ScanOnCluster(
    const std::string& command, const std::string& root,
    const ClusterOptions& options,
    const std::function<absl::Status(const nlohmann::json&)>& on_shard,
    const std::vector<std::string>& task_args) {
  ASSIGN_OR_RETURN(ScanPlan plan, PlanScan(root, kShardsWanted));
  for (const std::string& sub : plan.folders) {
    if (!IsUtf8(sub)) {
      return absl::FailedPreconditionError(
          StrCat("the folder ", Quote(JoinPath(root, sub)),
                 " is not UTF-8, which a cluster's tasks cannot carry: run "
                 "without --scheduler, or rename it"));
    }
  }
  ASSIGN_OR_RETURN(TaskFolder folder, TaskFolder::Create(options, command));
  // Consecutive folders per task: neighbours in the tree, one walk each.
  const size_t count = plan.folders.empty()
                           ? 0
                           : TaskCount(plan.folders.size(), kFoldersPerTask);
  std::vector<ScanTask> tasks(count);
  for (size_t i = 0; i < plan.folders.size(); ++i) {
    tasks[i * count / plan.folders.size()].folders.push_back(plan.folders[i]);
  }
  std::vector<ClusterTask> cluster_tasks;
  for (size_t k = 0; k < count; ++k) {
    const std::string list = StrCat(folder.path(), "/scan-", k, ".json");
    RETURN_IF_ERROR(WriteJsonFile(list, tasks[k].folders));
    const std::string output = StrCat(folder.path(), "/scan-", k, ".out.json");
    tasks[k].task = {{ToolPath(), command, root, "--shard-list", list,
                      "--shard-out", output},
                     output};
    tasks[k].task.argv.insert(tasks[k].task.argv.end(), task_args.begin(),
                              task_args.end());
    cluster_tasks.push_back(tasks[k].task);
  }
  RETURN_IF_ERROR(
      RunOnCluster(options, StrCat(command, " scan"), cluster_tasks, folder));
  // Above the workers' folders: few files, read here.
  std::vector<dump::DumpEntry> entries;
  std::vector<std::string> problems;
  for (const std::string& file : plan.files) {
    ASSIGN_OR_RETURN(dump::DumpTree part, ScanPart(root, file));
    for (dump::DumpEntry& e : part.entries) entries.push_back(std::move(e));
    problems.insert(problems.end(), part.problems.begin(), part.problems.end());
  }
  dump::DumpTree client_part;
  client_part.entries = std::move(entries);
  client_part.problems = std::move(problems);
  return MergeScanTasks(root, std::move(client_part), tasks, on_shard);
}

}  // namespace acldump::tools
