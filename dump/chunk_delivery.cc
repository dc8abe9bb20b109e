#include "dump/chunk_delivery.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "base/status_macros.h"
#include "base/strings.h"

namespace acldump::dump {

namespace {

// Set while this thread runs a consumer: Unregister from inside it must not
// wait for its own delivery.
thread_local int delivering_depth = 0;

}  // namespace

absl::Status ChunkRouter::Register(std::shared_ptr<ChunkConsumer> consumer) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (consumer_) {
    return absl::AlreadyExistsError(
        "a dump callback is registered already; it stays registered "
        "(unregister it first to register another)");
  }
  consumer_ = std::move(consumer);
  registered_.store(true, std::memory_order_release);
  return absl::OkStatus();
}

bool ChunkRouter::Unregister() {
  std::unique_lock<std::mutex> lock(mutex_);
  const bool had = consumer_ != nullptr;
  consumer_.reset();
  registered_.store(false, std::memory_order_release);
  const int own = delivering_depth;
  idle_.wait(lock, [&] { return in_flight_ <= own; });
  return had;
}

absl::Status ChunkRouter::Deliver(std::string_view file_name, int64_t offset,
                                  std::span<const std::string_view> parts,
                                  bool last) {
  std::shared_ptr<ChunkConsumer> consumer;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!consumer_) {
      return absl::UnavailableError("no dump callback is registered");
    }
    consumer = consumer_;
    ++in_flight_;
  }
  ++delivering_depth;
  absl::Status status;
  std::vector<std::string_view> pieces;
  size_t part = 0, within = 0;  // the next byte to send
  int64_t position = offset;
  do {
    pieces.clear();
    size_t size = 0;
    while (part < parts.size() && size < max_chunk_bytes_) {
      const std::string_view rest = parts[part].substr(within);
      const size_t take = std::min(rest.size(), max_chunk_bytes_ - size);
      if (take > 0) pieces.push_back(rest.substr(0, take));
      size += take;
      within += take;
      if (within == parts[part].size()) {
        ++part;
        within = 0;
      }
    }
    while (part < parts.size() && parts[part].empty()) ++part;
    DumpChunk chunk;
    chunk.file_name = file_name;
    chunk.offset = position;
    chunk.pieces = pieces;
    chunk.size = size;
    chunk.last = last && part == parts.size();
    status = consumer->Consume(chunk);
    if (!status.ok()) {
      status = absl::DataLossError(StrCat("the dump callback refused the ",
                                          size, "-byte chunk at offset ",
                                          position, ": ", status.message()));
    }
    position += static_cast<int64_t>(size);
  } while (status.ok() && part < parts.size());
  --delivering_depth;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    --in_flight_;
  }
  idle_.notify_all();
  return status;
}

ChunkRouter& GlobalChunkRouter() {
  static ChunkRouter* router = new ChunkRouter();  // never destroyed
  return *router;
}

absl::StatusOr<int> CallbackFileSystem::CreateFileAt(int dir, int mode,
                                                     const std::string& path) {
  if (!router_.registered()) return inner_.CreateFileAt(dir, mode, path);
  std::lock_guard<std::mutex> lock(mutex_);
  const int fd = next_fd_++;
  VirtualFile& file = files_[fd];
  file.dir = dir;
  file.mode = mode;
  file.path = path;
  return fd;
}

absl::Status CallbackFileSystem::WriteToDisk(const VirtualFile& file, int dir,
                                             std::string_view name,
                                             const std::string& path) {
  ASSIGN_OR_RETURN(int fd, inner_.CreateFileAt(dir, file.mode, path));
  const iovec data{const_cast<char*>(file.bytes.data()), file.bytes.size()};
  absl::Status status = WriteAll(inner_, fd, {&data, 1}, path);
  if (status.ok()) status = inner_.LinkFileAt(fd, dir, name, path);
  absl::Status closed = inner_.Close(fd, path);
  return status.ok() ? closed : status;
}

absl::Status CallbackFileSystem::LinkFileAt(int fd, int dir,
                                            std::string_view name,
                                            const std::string& path) {
  if (!IsVirtual(fd)) return inner_.LinkFileAt(fd, dir, name, path);
  std::unique_lock<std::mutex> lock(mutex_);
  auto it = files_.find(fd);
  if (it == files_.end() || it->second.append) {
    return absl::InvalidArgumentError(
        StrCat("'", path, "': not a file being written"));
  }
  if (path.size() > ChunkRouter::kMaxFileName) {
    // The writer retries under a hashed name, as for a long name on disk.
    return absl::OutOfRangeError(
        StrCat("'", path, "' is longer than the ", ChunkRouter::kMaxFileName,
               " characters a dump chunk's file name holds"));
  }
  // The entry stays (emptied) until Close.
  VirtualFile file;
  file.mode = it->second.mode;
  file.bytes = std::move(it->second.bytes);
  it->second.bytes.clear();
  lock.unlock();
  const std::string_view bytes = file.bytes;
  absl::Status delivered = router_.Deliver(path, 0, {&bytes, 1}, true);
  if (absl::IsUnavailable(delivered)) {
    // Unregistered while the file was being written: it goes to disk.
    return WriteToDisk(file, dir, name, path);
  }
  return delivered;
}

absl::StatusOr<int> CallbackFileSystem::OpenForAppendAt(
    int dir, std::string_view name, const std::string& path) {
  if (!router_.registered()) return inner_.OpenForAppendAt(dir, name, path);
  if (path.size() > ChunkRouter::kMaxFileName) {
    return absl::InvalidArgumentError(
        StrCat("'", path, "' is longer than the ", ChunkRouter::kMaxFileName,
               " characters a dump chunk's file name holds; choose a shorter "
               "dump_path"));
  }
  std::lock_guard<std::mutex> lock(mutex_);
  const int fd = next_fd_++;
  VirtualFile& file = files_[fd];
  file.append = true;
  file.dir = dir;
  file.path = path;
  if (auto known = appended_sizes_.find(path); known != appended_sizes_.end())
    file.size = known->second;
  return fd;
}

absl::StatusOr<size_t> CallbackFileSystem::Write(int fd,
                                                 std::span<const iovec> data,
                                                 const std::string& path) {
  if (!IsVirtual(fd)) return inner_.Write(fd, data, path);
  std::unique_lock<std::mutex> lock(mutex_);
  auto it = files_.find(fd);
  if (it == files_.end()) {
    return absl::InvalidArgumentError(
        StrCat("'", path, "': not a file being written"));
  }
  VirtualFile& file = it->second;
  size_t bytes = 0;
  for (const iovec& part : data) bytes += part.iov_len;
  if (!file.append) {
    file.bytes.reserve(file.bytes.size() + bytes);
    for (const iovec& part : data) {
      file.bytes.append(static_cast<const char*>(part.iov_base), part.iov_len);
    }
    return bytes;
  }
  std::vector<std::string_view> parts;
  parts.reserve(data.size());
  for (const iovec& part : data) {
    parts.emplace_back(static_cast<const char*>(part.iov_base), part.iov_len);
  }
  const std::string file_path = file.path;
  const uint64_t offset = file.size;
  lock.unlock();
  absl::Status delivered =
      router_.Deliver(file_path, static_cast<int64_t>(offset), parts, false);
  if (absl::IsUnavailable(delivered)) {
    // Its earlier records went to a consumer that is gone: appending the rest
    // to a file on disk would leave a pack that starts mid-stream.
    delivered = absl::DataLossError(
        StrCat("the dump callback was unregistered while '", file_path,
               "' was being delivered; unregister after aclmdlFinalizeDump"));
  }
  RETURN_IF_ERROR(delivered);
  lock.lock();
  it = files_.find(fd);
  if (it != files_.end()) it->second.size = offset + bytes;
  appended_sizes_[file_path] = offset + bytes;
  return bytes;
}

absl::Status CallbackFileSystem::Sync(int fd, const std::string& path) {
  if (!IsVirtual(fd)) return inner_.Sync(fd, path);
  return absl::OkStatus();  // the consumer decides what durable means
}

absl::StatusOr<uint64_t> CallbackFileSystem::FileSize(int fd,
                                                      const std::string& path) {
  if (!IsVirtual(fd)) return inner_.FileSize(fd, path);
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = files_.find(fd);
  if (it == files_.end()) {
    return absl::InvalidArgumentError(StrCat("'", path, "': not open"));
  }
  return it->second.append ? it->second.size : it->second.bytes.size();
}

absl::Status CallbackFileSystem::Truncate(int fd, uint64_t size,
                                          const std::string& path) {
  if (!IsVirtual(fd)) return inner_.Truncate(fd, size, path);
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = files_.find(fd);
  if (it == files_.end() || !it->second.append || size > it->second.size) {
    return absl::InvalidArgumentError(
        StrCat("'", path, "': cannot cut back to ", size, " bytes"));
  }
  // Chunks carry offsets: the next record is delivered over the cut part.
  it->second.size = size;
  appended_sizes_[it->second.path] = size;
  return absl::OkStatus();
}

absl::Status CallbackFileSystem::Close(int fd, const std::string& path) {
  if (!IsVirtual(fd)) return inner_.Close(fd, path);
  std::unique_lock<std::mutex> lock(mutex_);
  auto it = files_.find(fd);
  if (it == files_.end()) {
    return absl::InvalidArgumentError(StrCat("'", path, "': not open"));
  }
  VirtualFile file = std::move(it->second);
  files_.erase(it);
  lock.unlock();
  // An unlinked whole file is abandoned; an appended one is complete.
  if (!file.append) return absl::OkStatus();
  absl::Status delivered = router_.Deliver(
      file.path, static_cast<int64_t>(file.size), {}, /*last=*/true);
  if (absl::IsUnavailable(delivered)) {
    delivered = absl::DataLossError(
        StrCat("the dump callback was unregistered before '", file.path,
               "' was complete; unregister after aclmdlFinalizeDump"));
  }
  return delivered;
}

}  // namespace acldump::dump
