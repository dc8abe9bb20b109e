// For fuzz targets whose readers take files: a private folder made once per
// process, and the input written into a file of it.
#ifndef ACLDUMP_FUZZ_SCRATCH_H_
#define ACLDUMP_FUZZ_SCRATCH_H_

#include <stdlib.h>

#include <fstream>
#include <string>
#include <string_view>

namespace acldump::fuzz {

// "/tmp/acldump-<name>-fuzz.XXXXXX", made at the first call.
inline const std::string& ScratchFolder(const char* name) {
  static const std::string* folder = [name] {
    std::string pattern = std::string("/tmp/acldump-") + name + "-fuzz.XXXXXX";
    return new std::string(mkdtemp(pattern.data()) ? pattern : "/tmp");
  }();
  return *folder;
}

inline void WriteFile(const std::string& path, std::string_view bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

}  // namespace acldump::fuzz

#endif  // ACLDUMP_FUZZ_SCRATCH_H_
