#include "dump/folder_tree.h"

#include <mutex>
#include <set>

#include "base/status_macros.h"
#include "base/strings.h"
#include "dump/format/dump_names.h"

namespace acldump::dump {
namespace {

constexpr int kFolderMode = 0750;
// Open folders kept besides the base: enough for the folders of a few models'
// current iterations.
constexpr size_t kMaxCachedFolders = 64;
// Time folders tried per second before giving up (each one exists already).
constexpr int kMaxTimeFolderSuffix = 100000;

// Time folders this process created: "{root}/{name}" -> name.
struct ClaimedTimeFolders {
  std::mutex mutex;
  std::map<std::string, std::string> by_base;
};

ClaimedTimeFolders& Claimed() {
  static ClaimedTimeFolders* const claimed = new ClaimedTimeFolders;
  return *claimed;
}

bool PlainName(std::string_view name) {
  return !name.empty() && name != "." && name != ".." &&
         name.find('/') == std::string_view::npos &&
         name.find('\0') == std::string_view::npos;
}

}  // namespace

FolderTree::FolderTree(FileSystem& fs, std::string root, std::string time_base)
    : fs_(fs), root_(std::move(root)), time_base_(std::move(time_base)) {}

FolderTree::~FolderTree() { Reset(); }

void FolderTree::Reset() {
  for (auto& [relative, folder] : lru_) {
    fs_.Close(folder.fd, folder.path).IgnoreError();
  }
  lru_.clear();
  cached_.clear();
  if (base_.fd >= 0 && base_.fd != root_fd_) {
    fs_.Close(base_.fd, base_.path).IgnoreError();
  }
  if (root_fd_ >= 0) fs_.Close(root_fd_, root_).IgnoreError();
  base_ = Folder();
  root_fd_ = -1;
}

absl::StatusOr<std::string> FolderTree::ClaimTimeFolder(int root_fd,
                                                        bool reclaim) {
  ClaimedTimeFolders& claimed = Claimed();
  std::lock_guard<std::mutex> lock(claimed.mutex);
  const std::string key = StrCat(root_, "/", time_base_);
  if (auto it = claimed.by_base.find(key); it != claimed.by_base.end()) {
    if (!reclaim) return it->second;
    // Our folder was removed: create it again if the name is still free.
    claimed.by_base.erase(it);
  }
  for (int suffix = 0; suffix < kMaxTimeFolderSuffix; ++suffix) {
    const std::string name =
        suffix == 0 ? time_base_ : StrCat(time_base_, "_", suffix);
    absl::Status made = fs_.MakeDirectoryAt(root_fd, name, kFolderMode,
                                            StrCat(root_, "/", name));
    if (made.ok()) {
      claimed.by_base[key] = name;
      return name;
    }
    if (!absl::IsAlreadyExists(made)) return made;
  }
  return absl::ResourceExhaustedError(StrCat(
      "cannot create a time folder in '", root_, "': ", time_base_, " and ",
      kMaxTimeFolderSuffix - 1, " numbered variants exist already"));
}

absl::StatusOr<FolderTree::Folder> FolderTree::OpenBase() {
  if (base_.fd >= 0) return base_;
  absl::StatusOr<int> root = fs_.OpenRoot(root_);
  if (!root.ok()) {
    // The root is the user's dump_path: if it disappeared, say so instead of
    // re-creating it.
    return absl::Status(
        root.status().code(),
        absl::IsNotFound(root.status())
            ? StrCat("dump_path '", root_, "' no longer exists")
            : StrCat("dump_path '", root_, "' cannot be opened (",
                     root.status().message(), ")"));
  }
  root_fd_ = *root;
  if (time_base_.empty()) {
    base_ = Folder{root_fd_, root_};
    return base_;
  }
  ASSIGN_OR_RETURN(time_folder_, ClaimTimeFolder(root_fd_, false));
  std::string path = StrCat(root_, "/", time_folder_);
  absl::StatusOr<int> fd = fs_.OpenDirectoryAt(root_fd_, time_folder_, path);
  if (absl::IsNotFound(fd.status())) {
    ASSIGN_OR_RETURN(time_folder_, ClaimTimeFolder(root_fd_, true));
    path = StrCat(root_, "/", time_folder_);
    fd = fs_.OpenDirectoryAt(root_fd_, time_folder_, path);
  }
  if (!fd.ok()) return fd.status();
  base_ = Folder{*fd, path};
  return base_;
}

absl::StatusOr<FolderTree::Folder> FolderTree::OpenChild(
    const Folder& parent, const std::string& relative, std::string_view name) {
  std::string on_disk(name);
  if (auto it = hashed_.find(relative); it != hashed_.end()) {
    on_disk = it->second;
  }
  std::string path = StrCat(parent.path, "/", on_disk);
  absl::Status made =
      fs_.MakeDirectoryAt(parent.fd, on_disk, kFolderMode, path);
  if (IsNameTooLong(made)) {
    on_disk = HashedName(path);
    path = StrCat(parent.path, "/", on_disk);
    made = fs_.MakeDirectoryAt(parent.fd, on_disk, kFolderMode, path);
    if (made.ok() || absl::IsAlreadyExists(made)) {
      RETURN_IF_ERROR(RecordMapping(parent, on_disk, name));
      hashed_[relative] = on_disk;
    }
  }
  if (!made.ok() && !absl::IsAlreadyExists(made)) return made;
  ASSIGN_OR_RETURN(int fd, fs_.OpenDirectoryAt(parent.fd, on_disk, path));
  return Folder{fd, std::move(path)};
}

void FolderTree::Forget(std::string_view relative) {
  auto below = [&](std::string_view path) {
    return path == relative ||
           (path.size() > relative.size() && path.starts_with(relative) &&
            path[relative.size()] == '/');
  };
  for (auto it = lru_.begin(); it != lru_.end();) {
    if (below(it->first)) {
      fs_.Close(it->second.fd, it->second.path).IgnoreError();
      cached_.erase(it->first);
      it = lru_.erase(it);
    } else {
      ++it;
    }
  }
  for (auto it = hashed_.begin(); it != hashed_.end();) {
    it = below(it->first) ? hashed_.erase(it) : std::next(it);
  }
}

void FolderTree::Cache(const std::string& relative, const Folder& folder) {
  if (lru_.size() >= kMaxCachedFolders) {
    auto& [old_relative, old] = lru_.front();
    fs_.Close(old.fd, old.path).IgnoreError();
    cached_.erase(old_relative);
    lru_.pop_front();
  }
  lru_.emplace_back(relative, folder);
  cached_[relative] = std::prev(lru_.end());
}

absl::StatusOr<FolderTree::Folder> FolderTree::Open(std::string_view relative) {
  ASSIGN_OR_RETURN(Folder folder, OpenBase());
  if (relative.empty()) return folder;
  if (auto it = cached_.find(relative); it != cached_.end()) {
    lru_.splice(lru_.end(), lru_, it->second);  // most recently used
    return it->second->second;
  }
  // Start from the deepest cached ancestor.
  size_t done = 0;
  size_t slash = relative.rfind('/');
  while (slash != std::string_view::npos && slash > 0) {
    if (auto it = cached_.find(relative.substr(0, slash));
        it != cached_.end()) {
      folder = it->second->second;
      done = slash + 1;
      break;
    }
    slash = relative.rfind('/', slash - 1);
  }
  while (done <= relative.size()) {
    const size_t end = std::min(relative.find('/', done), relative.size());
    const std::string_view name = relative.substr(done, end - done);
    if (!PlainName(name)) {
      return absl::InternalError(
          StrCat("folder '", relative, "' has an empty or special component"));
    }
    const std::string prefix(relative.substr(0, end));
    ASSIGN_OR_RETURN(folder, OpenChild(folder, prefix, name));
    Cache(prefix, folder);
    done = end + 1;
  }
  return folder;
}

absl::Status FolderTree::RecordMapping(const Folder& folder,
                                       std::string_view hashed,
                                       std::string_view original) {
  const std::string path = StrCat(folder.path, "/mapping.csv");
  ASSIGN_OR_RETURN(int fd, fs_.OpenForAppendAt(folder.fd, "mapping.csv", path));
  const std::string line = MappingCsvLine(hashed, original);
  const iovec data{const_cast<char*>(line.data()), line.size()};
  absl::Status wrote = WriteAll(fs_, fd, {&data, 1}, path);
  absl::Status closed = fs_.Close(fd, path);
  return wrote.ok() ? closed : wrote;
}

}  // namespace acldump::dump
