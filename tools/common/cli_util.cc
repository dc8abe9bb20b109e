#include "tools/common/cli_util.h"

#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "absl/strings/cord.h"
#include "acl/acl_base.h"
#include "base/file_writer.h"
#include "base/strings.h"

namespace acldump::tools {

std::string HumanBytes(uint64_t bytes) {
  if (bytes < 1024) return StrCat(bytes, " B");
  static constexpr const char* kUnits[] = {"KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes) / 1024;
  size_t unit = 0;
  while (value >= 1024 && unit + 1 < std::size(kUnits)) {
    value /= 1024;
    ++unit;
  }
  return fmt::format("{:.1f} {}", value, kUnits[unit]);
}

std::string FormatNumber(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  if (value == 0) return "0";
  return fmt::format("{:.6g}", value);
}

std::string HumanDuration(double seconds) {
  if (seconds < 1e-3) return fmt::format("{:.1f} us", seconds * 1e6);
  if (seconds < 1) return fmt::format("{:.2f} ms", seconds * 1e3);
  return fmt::format("{:.2f} s", seconds);
}

std::string DisplayPath(const std::string& path) {
  char buffer[4096];
  if (getcwd(buffer, sizeof(buffer)) == nullptr) return path;
  std::string cwd(buffer);
  if (cwd != "/") cwd += "/";
  if (path.size() > cwd.size() && path.compare(0, cwd.size(), cwd) == 0) {
    return path.substr(cwd.size());
  }
  return path;
}

namespace {

bool LooksNumeric(const std::string& cell) {
  if (cell.empty()) return false;
  size_t digits = 0;
  for (char c : cell) {
    if (c >= '0' && c <= '9') {
      ++digits;
    } else if (c != '.' && c != '-' && c != '+' && c != 'e' && c != ' ' &&
               c != '%') {
      return cell == "nan" || cell == "inf" || cell == "-inf" || cell == "NA";
    }
  }
  return digits > 0;
}

}  // namespace

std::string TextTable::Render(std::string_view indent) const {
  std::vector<size_t> widths(header_.size(), 0);
  auto measure = [&](const std::vector<std::string>& cells) {
    for (size_t i = 0; i < cells.size() && i < widths.size(); ++i) {
      widths[i] = std::max(widths[i], cells[i].size());
    }
  };
  for (const auto& row : rows_) measure(row);
  // One very long cell (a device's 300-character operator name) would widen
  // its column for every row: past the cap it overflows its own row only.
  for (size_t& width : widths) width = std::min(width, kMaxColumnWidth);
  measure(header_);
  std::vector<bool> right(header_.size(), true);
  for (const auto& row : rows_) {
    for (size_t i = 0; i < row.size() && i < right.size(); ++i) {
      if (!row[i].empty() && !LooksNumeric(row[i])) right[i] = false;
    }
  }
  std::string out;
  auto line = [&](const std::vector<std::string>& cells) {
    std::string text(indent);
    for (size_t i = 0; i < widths.size(); ++i) {
      const std::string& cell = i < cells.size() ? cells[i] : "";
      const std::string pad(widths[i] - std::min(widths[i], cell.size()), ' ');
      if (i > 0) text += "  ";
      const bool last = i + 1 == widths.size();
      text += right[i] ? pad + cell : (last ? cell : cell + pad);
    }
    while (!text.empty() && text.back() == ' ') text.pop_back();
    out += text + "\n";
  };
  line(header_);
  for (const auto& row : rows_) line(row);
  return out;
}

namespace {

std::chrono::milliseconds ProgressDelay() {
  const char* text = std::getenv("ACLDUMP_PROGRESS_DELAY_MS");
  if (text != nullptr && *text != '\0') {
    char* end = nullptr;
    const long value = std::strtol(text, &end, 10);
    if (*end == '\0' && value >= 0) return std::chrono::milliseconds(value);
  }
  return std::chrono::milliseconds(2000);
}

}  // namespace

Progress::Progress(std::string label, size_t total)
    : label_(std::move(label)),
      total_(total),
      enabled_(isatty(STDERR_FILENO) == 1),
      start_(std::chrono::steady_clock::now()),
      delay_(ProgressDelay()) {}

Progress::~Progress() { Finish(); }

bool Progress::Due(bool last) {
  if (!enabled_) return false;
  const auto now = std::chrono::steady_clock::now();
  if (now - start_ < delay_) return false;
  if (shown_ && !last && now - last_ < std::chrono::milliseconds(100)) {
    return false;
  }
  last_ = now;
  return true;
}

void Progress::Update(size_t done, std::string_view item) {
  if (!Due(done >= total_)) return;
  std::string text = StrCat(label_, " ", done, "/", total_);
  if (total_ > 0) StrAppend(text, " (", done * 100 / total_, "%)");
  if (!item.empty()) StrAppend(text, " ", item);
  Draw(text);
}

void Progress::Status(std::string_view text) {
  if (Due(false)) Draw(text);
}

void Progress::Draw(std::string_view line) {
  std::string text(line);
  if (text.size() > 100) text = text.substr(0, 97) + "...";
  shown_ = true;
  std::fprintf(stderr, "\r\033[K%s", text.c_str());
  std::fflush(stderr);
}

void Progress::Finish() {
  if (!enabled_ || !shown_) return;
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
  shown_ = false;
}

std::string AclErrorName(int32_t code) {
  switch (code) {
#define ACLDUMP_NAME(name) \
  case name:               \
    return #name;
    ACLDUMP_NAME(ACL_SUCCESS)
    ACLDUMP_NAME(ACL_ERROR_INVALID_PARAM)
    ACLDUMP_NAME(ACL_ERROR_UNINITIALIZE)
    ACLDUMP_NAME(ACL_ERROR_REPEAT_INITIALIZE)
    ACLDUMP_NAME(ACL_ERROR_INVALID_FILE)
    ACLDUMP_NAME(ACL_ERROR_WRITE_FILE)
    ACLDUMP_NAME(ACL_ERROR_INVALID_FILE_SIZE)
    ACLDUMP_NAME(ACL_ERROR_PARSE_FILE)
    ACLDUMP_NAME(ACL_ERROR_FILE_MISSING_ATTR)
    ACLDUMP_NAME(ACL_ERROR_FILE_ATTR_INVALID)
    ACLDUMP_NAME(ACL_ERROR_INVALID_DUMP_CONFIG)
    ACLDUMP_NAME(ACL_ERROR_INVALID_PROFILING_CONFIG)
    ACLDUMP_NAME(ACL_ERROR_INVALID_MODEL_ID)
    ACLDUMP_NAME(ACL_ERROR_DESERIALIZE_MODEL)
    ACLDUMP_NAME(ACL_ERROR_PARSE_MODEL)
    ACLDUMP_NAME(ACL_ERROR_READ_MODEL_FAILURE)
    ACLDUMP_NAME(ACL_ERROR_MODEL_SIZE_INVALID)
    ACLDUMP_NAME(ACL_ERROR_MODEL_MISSING_ATTR)
    ACLDUMP_NAME(ACL_ERROR_MODEL_INPUT_NOT_MATCH)
    ACLDUMP_NAME(ACL_ERROR_MODEL_OUTPUT_NOT_MATCH)
    ACLDUMP_NAME(ACL_ERROR_MODEL_NOT_DYNAMIC)
    ACLDUMP_NAME(ACL_ERROR_OP_TYPE_NOT_MATCH)
    ACLDUMP_NAME(ACL_ERROR_OP_INPUT_NOT_MATCH)
    ACLDUMP_NAME(ACL_ERROR_OP_OUTPUT_NOT_MATCH)
    ACLDUMP_NAME(ACL_ERROR_OP_ATTR_NOT_MATCH)
    ACLDUMP_NAME(ACL_ERROR_OP_NOT_FOUND)
    ACLDUMP_NAME(ACL_ERROR_OP_LOAD_FAILED)
    ACLDUMP_NAME(ACL_ERROR_UNSUPPORTED_DATA_TYPE)
    ACLDUMP_NAME(ACL_ERROR_FORMAT_NOT_MATCH)
    ACLDUMP_NAME(ACL_ERROR_REPEAT_FINALIZE)
    ACLDUMP_NAME(ACL_ERROR_DUMP_ALREADY_RUN)
    ACLDUMP_NAME(ACL_ERROR_DUMP_NOT_RUN)
    ACLDUMP_NAME(ACL_ERROR_BAD_ALLOC)
    ACLDUMP_NAME(ACL_ERROR_API_NOT_SUPPORT)
    ACLDUMP_NAME(ACL_ERROR_INVALID_DEVICE)
    ACLDUMP_NAME(ACL_ERROR_MEMORY_ADDRESS_UNALIGNED)
    ACLDUMP_NAME(ACL_ERROR_RESOURCE_NOT_MATCH)
    ACLDUMP_NAME(ACL_ERROR_INVALID_RESOURCE_HANDLE)
    ACLDUMP_NAME(ACL_ERROR_FEATURE_UNSUPPORTED)
    ACLDUMP_NAME(ACL_ERROR_STORAGE_OVER_LIMIT)
    ACLDUMP_NAME(ACL_ERROR_INTERNAL_ERROR)
    ACLDUMP_NAME(ACL_ERROR_FAILURE)
#undef ACLDUMP_NAME
  }
  return StrCat("aclError ", code);
}

namespace {
constexpr std::string_view kHintPayload = "type.acldump/hint";
}  // namespace

absl::Status WithHint(absl::Status status, std::string_view hint) {
  status.SetPayload(absl::string_view(kHintPayload.data(), kHintPayload.size()),
                    absl::Cord(absl::string_view(hint.data(), hint.size())));
  return status;
}

std::string HintOf(const absl::Status& status) {
  auto payload = status.GetPayload(
      absl::string_view(kHintPayload.data(), kHintPayload.size()));
  return payload ? std::string(*payload) : std::string();
}

absl::Status RequireRegularFile(const std::string& path,
                                std::string_view what) {
  std::error_code error;
  const std::filesystem::file_status status =
      std::filesystem::status(path, error);
  if (!std::filesystem::exists(status)) {
    return WithHint(
        absl::NotFoundError(StrCat(what, " '", path, "' does not exist")),
        "relative paths are taken from the directory you ran the command in");
  }
  if (std::filesystem::is_regular_file(status)) return absl::OkStatus();
  return absl::InvalidArgumentError(
      StrCat(what, " '", path, "' is not a regular file (it is ",
             std::filesystem::is_directory(status) ? "a directory"
                                                   : "a device, FIFO or socket",
             ")"));
}

namespace {
std::string& ToolNameSlot() {
  static std::string name = "dump";
  return name;
}
}  // namespace

void SetToolName(std::string name) { ToolNameSlot() = std::move(name); }
const std::string& ToolName() { return ToolNameSlot(); }

std::string SpeakToolName(std::string_view text) {
  std::string out(text);
  if (ToolName() == "dump") return out;
  const std::string from = "`dump ", to = StrCat("`", ToolName(), " ");
  for (size_t at = 0; (at = out.find(from, at)) != std::string::npos;
       at += to.size()) {
    out.replace(at, from.size(), to);
  }
  return out;
}

int Fail(std::string_view command, std::string_view message,
         std::string_view hint, int exit_code) {
  std::fprintf(stderr, "%s%s%.*s: error: %s\n", ToolName().c_str(),
               command.empty() ? "" : " ", static_cast<int>(command.size()),
               command.data(), SpeakToolName(message).c_str());
  if (!hint.empty()) {
    std::fprintf(stderr, "  hint: %s\n", SpeakToolName(hint).c_str());
  }
  return exit_code;
}

absl::StatusOr<std::unique_ptr<TempDir>> TempDir::Create(
    std::string_view prefix) {
  const char* base = std::getenv("TMPDIR");
  std::string pattern =
      StrCat(base != nullptr && base[0] != '\0' ? base : "/tmp", "/", prefix,
             "-XXXXXX");
  if (mkdtemp(pattern.data()) == nullptr) {
    return absl::InternalError(StrCat("cannot create a temporary folder ",
                                      pattern, ": ", ErrnoText(errno)));
  }
  return std::unique_ptr<TempDir>(new TempDir(pattern));
}

TempDir::~TempDir() {
  std::error_code error;
  std::filesystem::remove_all(path_, error);
}

absl::StatusOr<std::vector<InputFile>> AssignInputFiles(
    const std::vector<std::string>& args,
    const std::vector<std::string>& input_names) {
  std::vector<InputFile> assigned;
  for (size_t k = 0; k < args.size(); ++k) {
    InputFile input{k, args[k]};
    const size_t eq = input.path.find('=');
    if (eq != std::string::npos && !std::filesystem::exists(input.path)) {
      const std::string name = input.path.substr(0, eq);
      input.path = input.path.substr(eq + 1);
      input.index = input_names.size();
      for (size_t i = 0; i < input_names.size(); ++i) {
        if (input_names[i] == name) input.index = i;
      }
      if (input.index == input_names.size()) {
        return WithHint(absl::InvalidArgumentError(StrCat(
                            "the model has no input named '", name, "'")),
                        StrCat("its inputs are: ", StrJoin(input_names, ", ")));
      }
    }
    if (input.index >= input_names.size()) {
      return WithHint(
          absl::InvalidArgumentError(StrCat(args.size(),
                                            " --input files for a model with ",
                                            input_names.size(), " inputs")),
          "give one .npy per model input, in order, or name=file.npy");
    }
    assigned.push_back(std::move(input));
  }
  return assigned;
}

absl::Status WriteTextOutput(const std::string& path, std::string_view text) {
  if (path == "-") {
    std::fwrite(text.data(), 1, text.size(), stdout);
    return absl::OkStatus();
  }
  return WriteFileWhole(path, text);
}

}  // namespace acldump::tools
