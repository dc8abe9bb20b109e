// The one place names read from dump trees become paths (WhyNotAFileName,
// FileInFolder) and the tools' output folder that writes by it: whatever the
// name, an accepted one stays a single component of its folder, and a file
// the output folder writes lies below it.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include "dump/format/dump_names.h"
#include "fuzz/scratch.h"
#include "tools/common/output_folder.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace acldump;  // NOLINT
  const std::string_view name(reinterpret_cast<const char*>(data), size);
  const bool plain = dump::WhyNotAFileName(name).empty();
  absl::StatusOr<std::string> path = dump::FileInFolder("/f", name, "name");
  if (path.ok() != plain) __builtin_trap();
  if (plain &&
      (name.find('/') != std::string_view::npos || name == ".." ||
       name == "." || name.empty() || *path != "/f/" + std::string(name))) {
    __builtin_trap();
  }
  // As a relative path below an output folder.
  const bool relative = dump::WhyNotARelativePath(name).empty();
  if (plain && !relative) __builtin_trap();
  // A packed record's name: a file name, or one iteration folder and a file
  // name below it.
  if (dump::WhyNotAPackedRecordName(name).empty()) {
    const dump::PackedRecordName parts = dump::SplitPackedRecordName(name);
    if (!relative || !dump::WhyNotAFileName(parts.file).empty() ||
        parts.iteration.find_first_not_of("0123456789") !=
            std::string_view::npos ||
        (parts.iteration.empty() && !plain)) {
      __builtin_trap();
    }
  }
  if (size > 300) return 0;  // long names only hash; keep the disk quiet
  static const std::string& root = fuzz::ScratchFolder("names");
  static std::unique_ptr<tools::OutputFolder> out =
      *tools::OutputFolder::Open(root);
  absl::StatusOr<std::string> written = out->Write(name, "x");
  if (written.ok() && !relative) __builtin_trap();
  if (written.ok()) {
    const std::filesystem::path normal =
        std::filesystem::path(*written).lexically_normal();
    if (normal.string().rfind(root + "/", 0) != 0) __builtin_trap();
    std::error_code error;
    std::filesystem::remove_all(
        std::filesystem::path(root) /
            std::filesystem::path(std::string(name)).begin()->string(),
        error);
  } else if (!relative &&
             written.status().code() != absl::StatusCode::kInvalidArgument) {
    __builtin_trap();
  }
  return 0;
}
