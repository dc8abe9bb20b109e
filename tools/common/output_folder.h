// Files a command derives names for (convert's `{file}.output.0.npy`,
// reference's `{node}.output.0.npy`, run's `{model}.output.{name}.npy`, a
// mirrored tree) are written through an OutputFolder, by the rule the dump
// writer follows:
//  - a name is one or more file names (dump::WhyNotARelativePath): nothing
//    that could leave the folder, whatever the model or dump file said;
//  - every folder below the output folder is opened without following a
//    symlink (a planted one is refused), and created when missing;
//  - a file is written whole under a temporary name ("....tmp", which the
//    readers skip) and renamed over its name: complete or absent, never half;
//  - an existing symlink, FIFO, device or folder at a file's name is refused,
//    not followed and not replaced; an existing regular file is replaced, or
//    refused when the caller asks (IfExists::kRefuse);
//  - a name longer than the file system allows is written as its path's hash,
//    recorded in the folder's mapping.csv, as the dump writer names files.
// The output folder itself is the user's choice: it is created when missing
// and followed if it is a symlink, like any path a user names.
#ifndef ACLDUMP_TOOLS_COMMON_OUTPUT_FOLDER_H_
#define ACLDUMP_TOOLS_COMMON_OUTPUT_FOLDER_H_

#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace acldump::tools {

enum class IfExists { kReplace, kRefuse };

class OutputFolder {
 public:
  static absl::StatusOr<std::unique_ptr<OutputFolder>> Open(
      const std::string& path);
  ~OutputFolder();
  OutputFolder(const OutputFolder&) = delete;
  OutputFolder& operator=(const OutputFolder&) = delete;

  const std::string& path() const { return path_; }

  // Writes `bytes` as `relative` ("a/b/name.npy"); returns the path written
  // (hashed when the name is too long).
  absl::StatusOr<std::string> Write(std::string_view relative,
                                    std::string_view bytes,
                                    IfExists if_exists = IfExists::kReplace);
  // Copies the regular file at `source` as `relative`.
  absl::StatusOr<std::string> Copy(std::string_view relative,
                                   const std::string& source,
                                   IfExists if_exists = IfExists::kReplace);

 private:
  OutputFolder(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}

  // Writes the file `relative` with `fill` (given the temporary file's
  // descriptor and path).
  template <typename Fill>
  absl::StatusOr<std::string> Commit(std::string_view relative,
                                     IfExists if_exists, Fill&& fill);

  int fd_;
  std::string path_;
};

// Writes `bytes` to the file `path` names, by the rule above with the
// folder `path` is in as the output folder: for a file whose name a command
// derived (the default name beside an input), not one the user gave.
absl::StatusOr<std::string> WriteDerivedFile(const std::string& path,
                                             std::string_view bytes);

}  // namespace acldump::tools

#endif  // ACLDUMP_TOOLS_COMMON_OUTPUT_FOLDER_H_
