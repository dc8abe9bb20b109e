// Small pieces shared by the `dump` commands: human-readable numbers, aligned
// text tables, a progress line for terminals, and names of aclError codes.
#ifndef ACLDUMP_TOOLS_COMMON_CLI_UTIL_H_
#define ACLDUMP_TOOLS_COMMON_CLI_UTIL_H_

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace acldump::tools {

// "512 B", "1.5 KiB", "12.0 MiB".
std::string HumanBytes(uint64_t bytes);
// Shortest of %.6g-style forms, "nan", "inf"; for metric columns.
std::string FormatNumber(double value);
// "3.21 ms", "1.20 s".
std::string HumanDuration(double seconds);

// `path` relative to the working directory when it lies below it (shorter
// to read and to paste into the next command); else unchanged.
std::string DisplayPath(const std::string& path);

// Rows of cells printed with every column padded to its widest cell.
class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header)
      : header_(std::move(header)) {}
  void AddRow(std::vector<std::string> cells) {
    rows_.push_back(std::move(cells));
  }
  size_t size() const { return rows_.size(); }
  // Each line starts with `indent`; columns are separated by two spaces and
  // numeric-looking cells are right-aligned. A column is as wide as its
  // widest cell up to kMaxColumnWidth; a longer cell is written whole and
  // pushes the rest of its row to the right.
  std::string Render(std::string_view indent = "") const;
  static constexpr size_t kMaxColumnWidth = 60;

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

// A single self-overwriting status line on stderr, only when stderr is a
// terminal (logs and pipes stay clean), and only once the work has taken
// longer than a delay (2 s; ACLDUMP_PROGRESS_DELAY_MS overrides it), so
// quick commands print nothing. Updates are rate-limited; the line is
// cleared when done.
class Progress {
 public:
  Progress(std::string label, size_t total);
  ~Progress();  // clears the line
  // "<label> <done>/<total> (<pct>%) <item>".
  void Update(size_t done, std::string_view item = "");
  // A line of the caller's own, drawn under the same rules.
  void Status(std::string_view text);
  void Finish();

 private:
  bool Due(bool last);
  void Draw(std::string_view text);

  std::string label_;
  size_t total_;
  bool enabled_;
  bool shown_ = false;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_;
  std::chrono::milliseconds delay_;
};

// "ACL_ERROR_INVALID_DUMP_CONFIG" for 100009; "aclError <n>" when unknown.
std::string AclErrorName(int32_t code);

// A hint for the user travels with a failed status (as a payload), so the
// command that prints the error can show it.
absl::Status WithHint(absl::Status status, std::string_view hint);
std::string HintOf(const absl::Status& status);

// OK when `path` is a regular file (symlinks followed); else an error naming
// `what` ("model file") and what the path is instead: missing (NotFound, with
// the hint that relative paths are the working directory's), a directory, or
// a device, FIFO or socket (InvalidArgument).
absl::Status RequireRegularFile(const std::string& path, std::string_view what);

// Prints "dump <command>: error: <message>" and, when given, "  hint: <hint>"
// to stderr. Returns `exit_code` so callers can `return Fail(...)`.
int Fail(std::string_view command, std::string_view message,
         std::string_view hint, int exit_code);

// The name errors start with: "dump" by default; a tool installed under
// another name (acldump) sets it once at start.
void SetToolName(std::string name);
const std::string& ToolName();
// `text` with its "`dump CMD ...`" hints naming the tool as ToolName() does.
std::string SpeakToolName(std::string_view text);

// Writes `text` to `path` whole or not at all, or to stdout for "-". Error:
// the file cannot be written (named, with the reason).
absl::Status WriteTextOutput(const std::string& path, std::string_view text);

// One --input argument resolved: the model input it fills and the file.
struct InputFile {
  size_t index = 0;
  std::string path;
};
// Resolves --input arguments against the model's input names: "file" fills
// the inputs in order, "name=file" (when no file of that whole name exists)
// the named one. Errors name the unknown input or the count that does not fit.
absl::StatusOr<std::vector<InputFile>> AssignInputFiles(
    const std::vector<std::string>& args,
    const std::vector<std::string>& input_names);

// A temporary folder ($TMPDIR or /tmp, named {prefix}-XXXXXX) removed with
// everything in it when destroyed.
class TempDir {
 public:
  static absl::StatusOr<std::unique_ptr<TempDir>> Create(
      std::string_view prefix);
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  explicit TempDir(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

}  // namespace acldump::tools

#endif  // ACLDUMP_TOOLS_COMMON_CLI_UTIL_H_
