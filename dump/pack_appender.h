// The packed layout's side of the dump writer (see dump/format/pack.h): a
// rendered file becomes a record appended to its folder's dump.pack (plus an
// index line), or, for a stats CSV, rows appended to its folder's
// statistic.csv. An append that fails half-way is cut back, so every record
// stays complete or absent. Writer-thread only.
#ifndef ACLDUMP_DUMP_PACK_APPENDER_H_
#define ACLDUMP_DUMP_PACK_APPENDER_H_

#include <sys/uio.h>

#include <cstdint>
#include <list>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "dump/file_system.h"
#include "dump/folder_tree.h"
#include "dump/writer.h"

namespace acldump::dump {

class PackAppender {
 public:
  PackAppender(FileSystem& fs, FolderTree& tree) : fs_(fs), tree_(tree) {}
  ~PackAppender();
  PackAppender(const PackAppender&) = delete;
  PackAppender& operator=(const PackAppender&) = delete;

  // Appends `file`; `final_path` names the record as its own file would be
  // named (for failure reports).
  absl::Status Append(const RenderedFile& file, std::string* final_path);

 private:
  // An open dump.pack (with its index) or statistic.csv.
  struct Target {
    std::string key;  // folder path + file name
    std::string path;
    int fd = -1;
    int index_fd = -1;  // dump.pack.index; -1 once an index write failed
    uint64_t size = 0;
    // Ends in a partial record that could not be cut back: appending more
    // would put records where readers cannot reach them.
    bool broken = false;
  };
  // Descriptors kept open at once (least recently used closed first).
  static constexpr size_t kMaxOpen = 16;

  absl::StatusOr<Target*> OpenTarget(const FolderTree::Folder& folder,
                                     std::string_view file_name, bool indexed);
  void Close(Target& target);
  absl::Status AppendRecord(const FolderTree::Folder& folder,
                            const RenderedFile& file);
  absl::Status AppendStatsRows(const FolderTree::Folder& folder,
                               const RenderedFile& file);
  // Writes `data` at the end of `target`, or cuts it back and fails.
  absl::Status AppendAll(Target& target, std::span<const iovec> data);

  FileSystem& fs_;
  FolderTree& tree_;
  std::list<Target> open_;  // most recently used first
  std::vector<iovec> iovecs_;
};

}  // namespace acldump::dump

#endif  // ACLDUMP_DUMP_PACK_APPENDER_H_
