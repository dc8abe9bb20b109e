// A file system whose file creation and appends wait at a gate until the test
// opens it: a writer that cannot keep up, made deterministic.
#ifndef ACLDUMP_DUMP_TESTING_GATED_FILE_SYSTEM_H_
#define ACLDUMP_DUMP_TESTING_GATED_FILE_SYSTEM_H_

#include <condition_variable>
#include <mutex>
#include <string>
#include <string_view>

#include "dump/file_system.h"

namespace acldump::dump {

class GatedFileSystem final : public ForwardingFileSystem {
 public:
  // Lets every waiting and later call through.
  void Open() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      open_ = true;
    }
    opened_.notify_all();
  }
  absl::StatusOr<int> CreateFileAt(int dir, int mode,
                                   const std::string& path) override {
    Wait();
    return ForwardingFileSystem::CreateFileAt(dir, mode, path);
  }
  absl::StatusOr<int> OpenForAppendAt(int dir, std::string_view name,
                                      const std::string& path) override {
    Wait();
    return ForwardingFileSystem::OpenForAppendAt(dir, name, path);
  }

 private:
  void Wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    opened_.wait(lock, [&] { return open_; });
  }
  std::mutex mutex_;
  std::condition_variable opened_;
  bool open_ = false;
};

}  // namespace acldump::dump

#endif  // ACLDUMP_DUMP_TESTING_GATED_FILE_SYSTEM_H_
