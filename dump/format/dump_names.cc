#include "dump/format/dump_names.h"

#include <time.h>

#include <functional>

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

std::string CsvField(std::string_view field) {
  if (field.find_first_of(",\"\r\n") == std::string_view::npos) {
    return std::string(field);
  }
  std::string out = "\"";
  for (char c : field) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
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
  return fmt::format("{}.{}.{}.{}.{:016d}", EscapeNamePart(op_type),
                     EscapeNamePart(op_name), task_id, stream_id, timestamp_us);
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
