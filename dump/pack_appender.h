// The packed layout's side of the dump writer (see dump/format/pack.h): a
// rendered file becomes a record appended to its folder's dump.pack, or, for a
// stats CSV, rows appended to its folder's statistic.csv. With
// ModelFolders::enabled, the records of iteration folders go to their model
// folder's pack and statistic.csv instead, named "{iteration}/{name}": no
// folder and no file to create per iteration (which costs more than a small
// model's whole execution on some file systems), until the model folder's
// file reaches its bound; then to the iteration folders. A pack's index is
// kept in memory and appended as the pack's index frame when the pack is
// closed: no second file per folder. An append that fails half-way is cut
// back, so every record stays complete or absent. Writer-thread only.
#ifndef ACLDUMP_DUMP_PACK_APPENDER_H_
#define ACLDUMP_DUMP_PACK_APPENDER_H_

#include <sys/uio.h>

#include <cstdint>
#include <list>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "dump/file_system.h"
#include "dump/folder_tree.h"
#include "dump/writer.h"

namespace acldump::dump {

class PackAppender {
 public:
  struct ModelFolders {
    bool enabled = false;
    // A model folder's dump.pack and statistic.csv take records while below
    // these sizes (readers take a statistic.csv of up to 64 MiB).
    uint64_t pack_bytes = 0;
    uint64_t stats_bytes = 0;
  };
  PackAppender(FileSystem& fs, FolderTree& tree, ModelFolders model_folders)
      : fs_(fs), tree_(tree), model_folders_(model_folders) {}
  ~PackAppender();
  PackAppender(const PackAppender&) = delete;
  PackAppender& operator=(const PackAppender&) = delete;

  // Appends each file whose result is OK, setting its result and, when that
  // fails, its path (the record named as its own file would be, for the
  // report). Consecutive records of one folder go out in one append; when
  // that fails, each is appended on its own, so every record still succeeds
  // or fails by itself. Index lines are kept for the pack's index frame.
  // Files of iteration folders may be moved to their model folder (their
  // directory and name rewritten).
  void AppendBatch(std::span<RenderedFile> files,
                   std::span<absl::Status> results,
                   std::span<std::string> paths);
  // Closes every open pack, appending its index (a flush: readers then find
  // each record through the index).
  void CloseAll();
  // Closes, without their index, the packs in folder `path` (the full path)
  // and below it: the folder is about to be removed.
  void Forget(std::string_view path);

 private:
  // An open dump.pack (with its index) or statistic.csv.
  struct Target {
    std::string key;  // folder path + file name
    std::string path;
    int fd = -1;
    uint64_t size = 0;
    // The index lines of every record, while they describe the whole pack
    // (it was new when opened, and the lines stayed below their bound).
    bool indexed = false;
    std::string index;
    // Ends in a partial record that could not be cut back: appending more
    // would put records where readers cannot reach them.
    bool broken = false;
  };
  // Descriptors kept open at once (least recently used closed first).
  static constexpr size_t kMaxOpen = 16;

  absl::StatusOr<Target*> OpenTarget(const FolderTree::Folder& folder,
                                     std::string_view file_name, bool indexed);
  void Close(Target& target);
  // Appends `files` (all bound for `folder`, all records or all stats) as
  // one write.
  absl::Status AppendRecords(const FolderTree::Folder& folder,
                             std::span<const RenderedFile> files);
  absl::Status AppendStatsRows(const FolderTree::Folder& folder,
                               std::span<const RenderedFile> files);
  // One run of AppendBatch: files[begin, end) share a folder and a kind.
  void AppendRun(std::span<const RenderedFile> files,
                 std::span<absl::Status> results, std::span<std::string> paths);
  // Writes `data` at the end of `target`, or cuts it back and fails.
  absl::Status AppendAll(Target& target, std::span<const iovec> data);
  // With model folders: `file` of an iteration folder becomes a record
  // of its model folder, unless that folder's file is full.
  void MoveToModelFolder(RenderedFile& file);

  FileSystem& fs_;
  FolderTree& tree_;
  const ModelFolders model_folders_;
  // Model folders' packs and statistic.csv files (relative paths) that
  // reached their bound: later records go to their iteration folders.
  std::set<std::string, std::less<>> full_;
  std::list<Target> open_;  // most recently used first
  // Keys of targets that ended in a partial record: they stay refused when
  // closed and opened again (a flush closes every target).
  std::set<std::string, std::less<>> broken_;
  std::vector<iovec> iovecs_;
  std::vector<std::string> names_;
  std::vector<std::string> frames_;
  std::string index_lines_;
  std::string moved_name_;
  std::string rows_;
};

}  // namespace acldump::dump

#endif  // ACLDUMP_DUMP_PACK_APPENDER_H_
