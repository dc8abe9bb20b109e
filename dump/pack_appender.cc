#include "dump/pack_appender.h"

#include "base/status_macros.h"
#include "base/strings.h"
#include "dump/format/merged_stats.h"
#include "dump/format/pack.h"

namespace acldump::dump {

PackAppender::~PackAppender() {
  for (Target& target : open_) Close(target);
}

void PackAppender::Close(Target& target) {
  if (target.index_fd >= 0) {
    fs_.Close(target.index_fd, target.path).IgnoreError();
    target.index_fd = -1;
  }
  if (target.fd >= 0) {
    fs_.Close(target.fd, target.path).IgnoreError();
    target.fd = -1;
  }
}

absl::StatusOr<PackAppender::Target*> PackAppender::OpenTarget(
    const FolderTree::Folder& folder, std::string_view file_name,
    bool indexed) {
  const std::string key = StrCat(folder.path, "/", file_name);
  for (auto it = open_.begin(); it != open_.end(); ++it) {
    if (it->key == key) {
      open_.splice(open_.begin(), open_, it);
      return &open_.front();
    }
  }
  while (open_.size() >= kMaxOpen) {
    Close(open_.back());
    open_.pop_back();
  }
  Target target;
  target.key = key;
  target.path = key;
  ASSIGN_OR_RETURN(target.fd,
                   fs_.OpenForAppendAt(folder.fd, file_name, target.path));
  absl::StatusOr<uint64_t> size = fs_.FileSize(target.fd, target.path);
  if (!size.ok()) {
    Close(target);
    return size.status();
  }
  target.size = *size;
  if (indexed) {
    const std::string index_path = StrCat(folder.path, "/", kPackIndexFileName);
    // Without an index, readers scan the pack: nothing is lost.
    absl::StatusOr<int> index =
        fs_.OpenForAppendAt(folder.fd, kPackIndexFileName, index_path);
    if (index.ok()) target.index_fd = *index;
  }
  open_.push_front(std::move(target));
  return &open_.front();
}

absl::Status PackAppender::AppendAll(Target& target,
                                     std::span<const iovec> data) {
  if (target.broken) {
    return absl::DataLossError(
        StrCat("'", target.path,
               "' ends in a partial record that could not "
               "be cut back; nothing more is appended to it"));
  }
  uint64_t bytes = 0;
  for (const iovec& part : data) bytes += part.iov_len;
  absl::Status written = WriteAll(fs_, target.fd, data, target.path);
  if (written.ok()) {
    target.size += bytes;
    return written;
  }
  absl::Status cut = fs_.Truncate(target.fd, target.size, target.path);
  if (!cut.ok()) {
    target.broken = true;
    return absl::DataLossError(
        StrCat(written.message(),
               "; cutting back the partial record failed: ", cut.message()));
  }
  return written;
}

absl::Status PackAppender::AppendRecord(const FolderTree::Folder& folder,
                                        const RenderedFile& file) {
  const std::string name = StrCat(file.name, file.suffix);
  if (name.size() > kMaxPackNameBytes) {
    return absl::InvalidArgumentError(StrCat(
        "record name of ", name.size(), " bytes exceeds ", kMaxPackNameBytes));
  }
  uint64_t data_bytes = file.head.size();
  for (std::string_view payload : file.payloads) data_bytes += payload.size();
  ASSIGN_OR_RETURN(Target * target, OpenTarget(folder, kPackFileName, true));
  const uint64_t offset = target->size;
  const std::string frame = PackFrame(name.size(), data_bytes);
  iovecs_.clear();
  iovecs_.push_back({const_cast<char*>(frame.data()), frame.size()});
  iovecs_.push_back({const_cast<char*>(name.data()), name.size()});
  iovecs_.push_back({const_cast<char*>(file.head.data()), file.head.size()});
  for (std::string_view payload : file.payloads) {
    iovecs_.push_back({const_cast<char*>(payload.data()), payload.size()});
  }
  RETURN_IF_ERROR(AppendAll(*target, iovecs_));
  if (target->index_fd >= 0) {
    const std::string line = PackIndexLine(offset, name, data_bytes);
    const iovec part = {const_cast<char*>(line.data()), line.size()};
    if (!WriteAll(fs_, target->index_fd, std::span<const iovec>(&part, 1),
                  target->path)
             .ok()) {
      fs_.Close(target->index_fd, target->path).IgnoreError();
      target->index_fd = -1;
    }
  }
  return absl::OkStatus();
}

absl::Status PackAppender::AppendStatsRows(const FolderTree::Folder& folder,
                                           const RenderedFile& file) {
  std::string header;
  ASSIGN_OR_RETURN(std::string rows,
                   MergedStatsRows(file.name, file.head, &header));
  ASSIGN_OR_RETURN(Target * target,
                   OpenTarget(folder, kMergedStatsFileName, false));
  iovecs_.clear();
  if (target->size == 0) {
    iovecs_.push_back({const_cast<char*>(header.data()), header.size()});
  }
  iovecs_.push_back({const_cast<char*>(rows.data()), rows.size()});
  return AppendAll(*target, iovecs_);
}

absl::Status PackAppender::Append(const RenderedFile& file,
                                  std::string* final_path) {
  ASSIGN_OR_RETURN(FolderTree::Folder folder, tree_.Open(file.directory));
  *final_path = StrCat(folder.path, "/", file.name, file.suffix);
  // Stats records are CSVs (".csv"); everything else is a dump file.
  if (file.suffix == ".csv") return AppendStatsRows(folder, file);
  return AppendRecord(folder, file);
}

}  // namespace acldump::dump
