// The folders a dump writer creates below its root, opened once and kept open,
// each reached from its parent's descriptor without following symlinks.
//
// The time folder ({YYYYMMDDHHMMSS} of the session) is created exclusively
// when the first file needs it: a folder that already exists (another run's,
// or one planted by another user of a shared dump_path) is never reused; the
// next free "_1", "_2", ... is taken instead. Sessions of one process that
// share a second share the folder this process created.
//
// A folder name longer than the file system allows is created as the decimal
// hash of its full path, with a "hash,name" row in the parent's mapping.csv.
//
// Writer-thread only (not thread-safe), except for the process-wide record of
// claimed time folders.
#ifndef ACLDUMP_DUMP_FOLDER_TREE_H_
#define ACLDUMP_DUMP_FOLDER_TREE_H_

#include <list>
#include <map>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "dump/file_system.h"

namespace acldump::dump {

class FolderTree {
 public:
  // `root`: an existing absolute directory (never created here). `time_base`:
  // the time folder's name without suffix; empty = files go straight below
  // the root (exception dumps).
  FolderTree(FileSystem& fs, std::string root, std::string time_base);
  ~FolderTree();
  FolderTree(const FolderTree&) = delete;
  FolderTree& operator=(const FolderTree&) = delete;

  struct Folder {
    int fd = -1;       // owned by the tree
    std::string path;  // full path as created (hashed components included)
  };
  // The folder `relative` below the base ("0/resnet/1/3"; "" = the base
  // itself), created as needed. Components must be plain names (no "", ".",
  // ".." or '/').
  absl::StatusOr<Folder> Open(std::string_view relative);

  // Appends "hash,original" to mapping.csv in `folder`.
  absl::Status RecordMapping(const Folder& folder, std::string_view hashed,
                             std::string_view original);

  // The time folder's name once created; empty before (and without one).
  const std::string& time_folder() const { return time_folder_; }
  const std::string& root() const { return root_; }

  // Closes every cached descriptor (a folder removed behind our back).
  void Reset();
  // Forgets the folder `relative` and everything below it (about to be
  // removed): their cached descriptors are closed.
  void Forget(std::string_view relative);

 private:
  absl::StatusOr<Folder> OpenBase();
  // The time folder this process created for (root, time base), or a new
  // one; `reclaim`: the one recorded disappeared, create it again.
  absl::StatusOr<std::string> ClaimTimeFolder(int root_fd, bool reclaim);
  // Opens (creating when missing) `name` in `parent`.
  absl::StatusOr<Folder> OpenChild(const Folder& parent,
                                   const std::string& relative,
                                   std::string_view name);
  void Cache(const std::string& relative, const Folder& folder);

  FileSystem& fs_;
  const std::string root_;
  const std::string time_base_;
  std::string time_folder_;
  int root_fd_ = -1;
  Folder base_;
  // Cached descriptors by relative path, least recently used first.
  std::list<std::pair<std::string, Folder>> lru_;
  std::map<std::string, std::list<std::pair<std::string, Folder>>::iterator,
           std::less<>>
      cached_;
  // Folder components created under a hashed name: relative path -> name.
  std::map<std::string, std::string, std::less<>> hashed_;
};

}  // namespace acldump::dump

#endif  // ACLDUMP_DUMP_FOLDER_TREE_H_
