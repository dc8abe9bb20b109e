#include "bench/bench_dir.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string_view>
#include <system_error>

#include "base/strings.h"

namespace acldump::bench {
namespace {

namespace fs = std::filesystem;

class BenchRoot {
 public:
  BenchRoot() {
    const char* base = std::getenv("ACLDUMP_BENCH_DIR");
    path_ = StrCat(base ? base : fs::temp_directory_path().string(),
                   "/acldump_bench_", getpid());
    fs::create_directories(path_);
    const char* keep = std::getenv("ACLDUMP_BENCH_KEEP");
    remove_at_exit_ = keep == nullptr || std::string_view(keep) != "1";
  }
  ~BenchRoot() {
    std::error_code ignored;
    if (remove_at_exit_) fs::remove_all(path_, ignored);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  bool remove_at_exit_ = true;
};

}  // namespace

const std::string& BenchRootPath() {
  static BenchRoot root;
  return root.path();
}

void EmptyTree(const std::string& dir) {
  std::error_code error;
  for (fs::recursive_directory_iterator it(dir, error), end;
       !error && it != end; it.increment(error)) {
    if (it->is_regular_file(error)) fs::resize_file(it->path(), 0, error);
    error.clear();
  }
}

}  // namespace acldump::bench
