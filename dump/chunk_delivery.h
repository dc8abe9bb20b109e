// Dump files delivered to the application in chunks instead of written to
// disk (acldumpRegCallback). While a consumer is registered every file the
// writer would create reaches it as chunks of at most max_chunk_bytes, in file
// order, each naming the absolute path the file would have had and the offset
// of its bytes; the last chunk of a file says so. No file is written then
// (folders are still made, and stay empty).
//
// A file is routed when it is created: one that began while a consumer was
// registered and finds none when it is complete goes to disk instead. A chunk
// the consumer refuses fails its file, which the writer reports (the SDK only
// logs it). Deliveries run on the writer thread, so a slow consumer holds back
// the writer and, through its memory budget, the executions: nothing is
// dropped.
#ifndef ACLDUMP_DUMP_CHUNK_DELIVERY_H_
#define ACLDUMP_DUMP_CHUNK_DELIVERY_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "dump/file_system.h"

namespace acldump::dump {

struct DumpChunk {
  std::string_view file_name;  // absolute path
  int64_t offset = 0;          // of the first byte in the file
  // The chunk's bytes, in order (several views when a chunk spans the parts a
  // file was written from).
  std::span<const std::string_view> pieces;
  size_t size = 0;  // sum of the pieces' sizes
  bool last = false;
};

class ChunkConsumer {
 public:
  virtual ~ChunkConsumer() = default;
  // Called from writer threads, one chunk at a time per file; chunks of
  // different sessions' files may arrive concurrently. Non-OK: the chunk was
  // not taken (the message says why).
  virtual absl::Status Consume(const DumpChunk& chunk) = 0;
};

class ChunkRouter {
 public:
  // Chunks are at most this long by default (the SDK's chunk length is 32
  // bits; a smaller bound keeps the consumer's copy buffer small).
  static constexpr size_t kDefaultChunkBytes = size_t{4} << 20;
  // The SDK's chunk holds the name in 4096 bytes with its terminating NUL.
  static constexpr size_t kMaxFileName = 4095;

  explicit ChunkRouter(size_t max_chunk_bytes = kDefaultChunkBytes)
      : max_chunk_bytes_(max_chunk_bytes) {}

  // AlreadyExists when a consumer is registered (it stays registered).
  absl::Status Register(std::shared_ptr<ChunkConsumer> consumer);
  // Removes the consumer and waits until no chunk is being delivered to it
  // (from inside the consumer it cannot wait for itself, and does not).
  // Returns whether one was registered.
  bool Unregister();
  bool registered() const {
    return registered_.load(std::memory_order_acquire);
  }

  // Delivers `parts` (one file's bytes from `offset`) in chunks; the last
  // chunk carries `last` (a zero-byte file is one empty chunk). Unavailable
  // when no consumer is registered: nothing was delivered. Another error: the
  // consumer refused a chunk and the rest of the file was not sent.
  absl::Status Deliver(std::string_view file_name, int64_t offset,
                       std::span<const std::string_view> parts, bool last);

 private:
  const size_t max_chunk_bytes_;
  mutable std::mutex mutex_;
  std::condition_variable idle_;
  std::shared_ptr<ChunkConsumer> consumer_;
  std::atomic<bool> registered_{false};
  int in_flight_ = 0;
};

// The process's router: acldumpRegCallback registers with it, every dump
// session's files pass through it.
ChunkRouter& GlobalChunkRouter();

// A file system that sends files to a router's consumer while one is
// registered and passes everything else (folders, files made without a
// consumer) to `inner`.
class CallbackFileSystem : public ForwardingFileSystem {
 public:
  CallbackFileSystem(FileSystem& inner, ChunkRouter& router)
      : ForwardingFileSystem(inner), inner_(inner), router_(router) {}

  absl::StatusOr<int> CreateFileAt(int dir, int mode,
                                   const std::string& path) override;
  absl::Status LinkFileAt(int fd, int dir, std::string_view name,
                          const std::string& path) override;
  absl::StatusOr<int> OpenForAppendAt(int dir, std::string_view name,
                                      const std::string& path) override;
  absl::StatusOr<size_t> Write(int fd, std::span<const iovec> data,
                               const std::string& path) override;
  absl::Status Sync(int fd, const std::string& path) override;
  absl::StatusOr<uint64_t> FileSize(int fd, const std::string& path) override;
  absl::Status Truncate(int fd, uint64_t size,
                        const std::string& path) override;
  absl::Status Close(int fd, const std::string& path) override;

 private:
  // Descriptors of delivered files start here, far above real ones.
  static constexpr int kFirstVirtualFd = 1 << 30;
  static bool IsVirtual(int fd) { return fd >= kFirstVirtualFd; }

  struct VirtualFile {
    bool append = false;
    int dir = -1;
    int mode = 0;
    std::string path;   // append: the file's; whole: the one given at creation
    std::string bytes;  // whole files: everything written so far
    uint64_t size = 0;  // append files: bytes delivered (the next offset)
  };
  // Writes a whole file that found no consumer when complete to disk.
  absl::Status WriteToDisk(const VirtualFile& file, int dir,
                           std::string_view name, const std::string& path);

  FileSystem& inner_;
  ChunkRouter& router_;
  std::mutex mutex_;
  int next_fd_ = kFirstVirtualFd;
  std::map<int, VirtualFile> files_;
  // Bytes delivered per appended path: a reopened pack continues there.
  std::map<std::string, uint64_t, std::less<>> appended_sizes_;
};

}  // namespace acldump::dump

#endif  // ACLDUMP_DUMP_CHUNK_DELIVERY_H_
