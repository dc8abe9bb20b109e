#include "dump/pack_appender.h"

#include "base/status_macros.h"
#include "base/strings.h"
#include "dump/format/dump_names.h"
#include "dump/format/merged_stats.h"
#include "dump/format/pack.h"

namespace acldump::dump {

namespace {

// Index lines kept per open pack; beyond this the pack goes without an index
// frame (readers scan its frames) rather than holding memory without bound.
constexpr size_t kMaxIndexBytes = size_t{16} << 20;

// A record MoveToModelFolder moved: named "{iteration}/{name}".
bool InModelFolder(const RenderedFile& file) {
  return file.per_iteration && file.name.find('/') != std::string::npos;
}

}  // namespace

PackAppender::~PackAppender() { CloseAll(); }

void PackAppender::CloseAll() {
  for (Target& target : open_) Close(target);
  open_.clear();
}

void PackAppender::Forget(std::string_view path) {
  const std::string prefix = StrCat(path, "/");
  for (auto it = open_.begin(); it != open_.end();) {
    if (it->key.starts_with(prefix)) {
      fs_.Close(it->fd, it->path).IgnoreError();
      it = open_.erase(it);
    } else {
      ++it;
    }
  }
  for (auto it = broken_.begin(); it != broken_.end();) {
    it = it->starts_with(prefix) ? broken_.erase(it) : std::next(it);
  }
}

void PackAppender::Close(Target& target) {
  if (target.fd < 0) return;
  if (target.indexed && !target.index.empty()) {
    const std::string frame = PackIndexFrame(target.index, target.size);
    const iovec part = {const_cast<char*>(frame.data()), frame.size()};
    // Without its index frame a pack is still read whole, by scanning.
    AppendAll(target, std::span<const iovec>(&part, 1)).IgnoreError();
  }
  fs_.Close(target.fd, target.path).IgnoreError();
  target.fd = -1;
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
  target.broken = broken_.contains(key);
  ASSIGN_OR_RETURN(target.fd,
                   fs_.OpenForAppendAt(folder.fd, file_name, target.path));
  absl::StatusOr<uint64_t> size = fs_.FileSize(target.fd, target.path);
  if (!size.ok()) {
    Close(target);
    return size.status();
  }
  target.size = *size;
  // A pack that exists already (closed earlier, or another writer's) may
  // hold records this one does not know: no index frame for it.
  target.indexed = indexed && target.size == 0;
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
    broken_.insert(target.key);
    return absl::DataLossError(
        StrCat(written.message(),
               "; cutting back the partial record failed: ", cut.message()));
  }
  return written;
}

absl::Status PackAppender::AppendRecords(const FolderTree::Folder& folder,
                                         std::span<const RenderedFile> files) {
  // The strings keep their capacity from batch to batch: no allocation per
  // record in steady state.
  if (names_.size() < files.size()) names_.resize(files.size());
  frames_.clear();
  for (size_t i = 0; i < files.size(); ++i) {
    std::string& name = names_[i];
    name.assign(files[i].name);
    name.append(files[i].suffix());
    // Named as the SDK layout names files: a name too long for a file is its
    // path's hash, recorded in the folder's mapping.csv (before the record,
    // so no record is ever without its mapping).
    const PackedRecordName parts = SplitPackedRecordName(name);
    if (ExceedsNameMax(parts.file)) {
      std::string hashed = HashedName(StrCat(folder.path, "/", name));
      RETURN_IF_ERROR(tree_.RecordMapping(folder, hashed, parts.file));
      if (!parts.iteration.empty()) {
        hashed = StrCat(parts.iteration, "/", hashed);
      }
      name = std::move(hashed);
    }
  }
  ASSIGN_OR_RETURN(Target * target, OpenTarget(folder, kPackFileName, true));
  uint64_t offset = target->size;
  index_lines_.clear();
  for (size_t i = 0; i < files.size(); ++i) {
    uint64_t data_bytes = files[i].head.size();
    for (std::string_view payload : files[i].payloads) {
      data_bytes += payload.size();
    }
    frames_.push_back(PackFrame(names_[i].size(), data_bytes));
    index_lines_ += PackIndexLine(offset, names_[i], data_bytes);
    offset += frames_.back().size() + names_[i].size() + data_bytes;
  }
  iovecs_.clear();
  for (size_t i = 0; i < files.size(); ++i) {
    iovecs_.push_back({frames_[i].data(), frames_[i].size()});
    iovecs_.push_back({names_[i].data(), names_[i].size()});
    iovecs_.push_back(
        {const_cast<char*>(files[i].head.data()), files[i].head.size()});
    for (std::string_view payload : files[i].payloads) {
      iovecs_.push_back({const_cast<char*>(payload.data()), payload.size()});
    }
  }
  RETURN_IF_ERROR(AppendAll(*target, iovecs_));
  bool index_dropped = false;
  if (target->indexed) {
    if (target->index.size() + index_lines_.size() <= kMaxIndexBytes) {
      target->index += index_lines_;
    } else {
      target->indexed = false;
      index_dropped = true;
      std::string().swap(target->index);
    }
  }
  // A model folder's pack past its bound, or too long to keep an index for.
  if (InModelFolder(files[0]) &&
      (target->size >= model_folders_.pack_bytes || index_dropped)) {
    full_.insert(StrCat(files[0].directory, "/", kPackFileName));
  }
  return absl::OkStatus();
}

absl::Status PackAppender::AppendStatsRows(
    const FolderTree::Folder& folder, std::span<const RenderedFile> files) {
  std::string header;
  rows_.clear();
  for (const RenderedFile& file : files) {
    RETURN_IF_ERROR(AppendMergedStatsRows(file.name, file.head, rows_,
                                          header.empty() ? &header : nullptr));
  }
  ASSIGN_OR_RETURN(Target * target,
                   OpenTarget(folder, kMergedStatsFileName, false));
  iovecs_.clear();
  if (target->size == 0) {
    iovecs_.push_back({header.data(), header.size()});
  }
  iovecs_.push_back({rows_.data(), rows_.size()});
  RETURN_IF_ERROR(AppendAll(*target, iovecs_));
  if (InModelFolder(files[0]) && target->size >= model_folders_.stats_bytes) {
    full_.insert(StrCat(files[0].directory, "/", kMergedStatsFileName));
  }
  return absl::OkStatus();
}

void PackAppender::MoveToModelFolder(RenderedFile& file) {
  const size_t slash = file.directory.rfind('/');
  if (slash == std::string::npos) return;
  const std::string_view model_folder =
      std::string_view(file.directory).substr(0, slash);
  const std::string_view target_name =
      file.form == RecordFile::kStatsCsv ? kMergedStatsFileName : kPackFileName;
  if (!full_.empty() &&
      full_.contains(StrCat(model_folder, "/", target_name))) {
    return;
  }
  // "{iteration}/{name}", built in a string kept from record to record.
  moved_name_.assign(file.directory, slash + 1);
  moved_name_ += '/';
  moved_name_ += file.name;
  file.name.swap(moved_name_);
  file.directory.resize(slash);
}

void PackAppender::AppendRun(std::span<const RenderedFile> files,
                             std::span<absl::Status> results,
                             std::span<std::string> paths) {
  absl::StatusOr<FolderTree::Folder> folder = tree_.Open(files[0].directory);
  if (!folder.ok()) {
    for (absl::Status& result : results) result = folder.status();
    return;
  }
  // Stats CSVs go to the folder's statistic.csv, dump files to its pack.
  const bool stats = files[0].form == RecordFile::kStatsCsv;
  auto append = [&](std::span<const RenderedFile> part) {
    return stats ? AppendStatsRows(*folder, part)
                 : AppendRecords(*folder, part);
  };
  const absl::Status together = append(files);
  // A torn append that could not be cut back (data loss) takes nothing more;
  // any other failure left the target as it was, so each record gets its own
  // try (a full disk may still take some).
  if (together.ok() || files.size() == 1 || absl::IsDataLoss(together)) {
    for (absl::Status& result : results) result = together;
  } else {
    for (size_t i = 0; i < files.size(); ++i) {
      results[i] = append(files.subspan(i, 1));
    }
  }
  // Failures name the record as its own file would be named.
  for (size_t i = 0; i < files.size(); ++i) {
    if (!results[i].ok()) {
      paths[i] = StrCat(folder->path, "/", files[i].name, files[i].suffix());
    }
  }
}

void PackAppender::AppendBatch(std::span<RenderedFile> files,
                               std::span<absl::Status> results,
                               std::span<std::string> paths) {
  if (model_folders_.enabled) {
    for (size_t i = 0; i < files.size(); ++i) {
      if (results[i].ok() && files[i].per_iteration) {
        MoveToModelFolder(files[i]);
      }
    }
  }
  size_t begin = 0;
  while (begin < files.size()) {
    if (!results[begin].ok()) {
      ++begin;
      continue;
    }
    const RecordFile form = files[begin].form;
    size_t end = begin + 1;
    while (end < files.size() && results[end].ok() &&
           files[end].directory == files[begin].directory &&
           files[end].form == form) {
      ++end;
    }
    AppendRun(files.subspan(begin, end - begin),
              results.subspan(begin, end - begin),
              paths.subspan(begin, end - begin));
    begin = end;
  }
}

}  // namespace acldump::dump
