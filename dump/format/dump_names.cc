#include "dump/format/dump_names.h"

#include <time.h>

#include <algorithm>
#include <charconv>
#include <functional>

#include "base/strings.h"
#include "base/text.h"
#include "fmt/format.h"

namespace acldump::dump {
namespace {

// Local broken-down time; the Unix epoch if the conversion fails, so a name
// is always produced.
std::tm LocalTime(std::time_t t) {
  std::tm local{};
  if (localtime_r(&t, &local) == nullptr) {
    std::time_t zero = 0;
    gmtime_r(&zero, &local);
  }
  return local;
}

std::string FormatTm(const std::tm& tm) {
  return fmt::format("{:04d}{:02d}{:02d}{:02d}{:02d}{:02d}", tm.tm_year + 1900,
                     tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
                     tm.tm_sec);
}

}  // namespace

std::string_view WhyNotAFileName(std::string_view name) {
  if (name.empty()) return "it is empty";
  if (name == "." || name == "..") return "'.' and '..' name folders";
  if (name.size() > kMaxRecordNameBytes) return "it is longer than 4096 bytes";
  for (const char c : name) {
    if (c == '/') return "it holds '/'";
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) {
      return byte == 0 ? "it holds a NUL" : "it holds a control character";
    }
  }
  return {};
}

PackedRecordName SplitPackedRecordName(std::string_view name) {
  const size_t slash = name.find('/');
  if (slash == std::string_view::npos) return {{}, name};
  return {name.substr(0, slash), name.substr(slash + 1)};
}

std::string WhyNotAPackedRecordName(std::string_view name) {
  const PackedRecordName parts = SplitPackedRecordName(name);
  if (name.find('/') != std::string_view::npos) {
    const bool digits =
        !parts.iteration.empty() && parts.iteration.size() <= 20 &&
        std::all_of(parts.iteration.begin(), parts.iteration.end(),
                    [](char c) { return c >= '0' && c <= '9'; });
    if (!digits) {
      return "it holds '/' (only an iteration number may come before one)";
    }
  }
  return std::string(WhyNotAFileName(parts.file));
}

std::string WhyNotARelativePath(std::string_view relative) {
  if (relative.empty()) return "it is empty";
  if (relative.front() == '/') return "it is absolute";
  size_t start = 0;
  while (start <= relative.size()) {
    const size_t end = std::min(relative.find('/', start), relative.size());
    const std::string_view part = relative.substr(start, end - start);
    if (std::string_view why = WhyNotAFileName(part); !why.empty()) {
      return StrCat("its part ", Quote(part), " is not a file name (", why,
                    ")");
    }
    start = end + 1;
  }
  return {};
}

absl::StatusOr<std::string> FileInFolder(std::string_view folder,
                                         std::string_view name,
                                         std::string_view what) {
  if (std::string_view why = WhyNotAFileName(name); !why.empty()) {
    return absl::InvalidArgumentError(StrCat(
        what, " ", Quote(name), " is not a file name (", why, "): refused"));
  }
  return StrCat(folder, "/", name);
}

std::string CsvField(std::string_view field) {
  std::string out;
  AppendCsvField(out, field);
  return out;
}

void AppendCsvField(std::string& out, std::string_view field) {
  if (field.find_first_of(",\"\r\n") == std::string_view::npos) {
    out += field;
    return;
  }
  out += '"';
  for (char c : field) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
}

std::string EscapeNamePart(std::string_view name) {
  std::string out(name);
  for (char& c : out) {
    if (c == ' ' || c == '.' || c == '/' || c == '\\') c = '_';
  }
  return out;
}

std::string DumpFileName(std::string_view op_type, std::string_view op_name,
                         uint32_t task_id, uint32_t stream_id,
                         uint64_t timestamp_us) {
  std::string name;
  AppendDumpFileName(name, op_type, op_name, task_id, stream_id, timestamp_us);
  return name;
}

void AppendDumpFileName(std::string& out, std::string_view op_type,
                        std::string_view op_name, uint32_t task_id,
                        uint32_t stream_id, uint64_t timestamp_us) {
  auto escaped = [&out](std::string_view part) {
    const size_t start = out.size();
    out += part;
    for (size_t i = start; i < out.size(); ++i) {
      char& c = out[i];
      if (c == ' ' || c == '.' || c == '/' || c == '\\') c = '_';
    }
    out += '.';
  };
  escaped(op_type);
  escaped(op_name);
  StrAppend(out, task_id, ".", stream_id, ".");
  char digits[24];
  const char* end =
      std::to_chars(digits, digits + sizeof digits, timestamp_us).ptr;
  const size_t length = static_cast<size_t>(end - digits);
  if (length < 16) out.append(16 - length, '0');
  out.append(digits, length);
}

bool ExceedsNameMax(std::string_view name) {
  return name.size() > kMaxNameBytes;
}

std::string HashedName(std::string_view full_path) {
  return fmt::format("{}", std::hash<std::string_view>{}(full_path));
}

std::string MappingCsvLine(std::string_view hashed, std::string_view original) {
  return CsvField(hashed) + "," + CsvField(original) + "\n";
}

std::string DumpTimeFolderName(std::time_t t) { return FormatTm(LocalTime(t)); }

std::string ExceptionTimestamp(std::chrono::system_clock::time_point t) {
  using std::chrono::floor;
  using std::chrono::milliseconds;
  using std::chrono::seconds;
  const auto whole = floor<seconds>(t);
  const auto millis = floor<milliseconds>(t) - floor<milliseconds>(whole);
  const std::time_t time = std::chrono::system_clock::to_time_t(whole);
  return fmt::format("{}{:03d}", FormatTm(LocalTime(time)), millis.count());
}

}  // namespace acldump::dump
