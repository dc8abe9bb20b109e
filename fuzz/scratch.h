// For fuzz targets whose readers take files: a private folder made once per
// process, and the input written into a file of it.
#ifndef ACLDUMP_FUZZ_SCRATCH_H_
#define ACLDUMP_FUZZ_SCRATCH_H_

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

namespace acldump::fuzz {

// "/tmp/acldump-<name>-fuzz.XXXXXX", made at the first call and removed when
// the process exits (every fuzz run would otherwise leave one behind).
inline const std::string& ScratchFolder(const char* name) {
  static const std::string* folder = [name] {
    std::string pattern = std::string("/tmp/acldump-") + name + "-fuzz.XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) return new std::string("/tmp");
    auto* made = new std::string(pattern);
    static const std::string* to_remove = made;
    atexit([] {
      std::error_code ignored;
      std::filesystem::remove_all(*to_remove, ignored);
    });
    return made;
  }();
  return *folder;
}

inline void WriteFile(const std::string& path, std::string_view bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

}  // namespace acldump::fuzz

#endif  // ACLDUMP_FUZZ_SCRATCH_H_
