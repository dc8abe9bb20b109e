// Names of dump folders and files.
#ifndef ACLDUMP_DUMP_FORMAT_DUMP_NAMES_H_
#define ACLDUMP_DUMP_FORMAT_DUMP_NAMES_H_

#include <chrono>
#include <cstdint>
#include <ctime>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace acldump::dump {

// The longest name of a file or folder Linux file systems accept (NAME_MAX).
inline constexpr size_t kMaxNameBytes = 255;

// Replaces each of space, '.', '/', '\\' with '_'.
std::string EscapeNamePart(std::string_view name);

// "{op_type}.{op_name}.{task_id}.{stream_id}.{timestamp_us}", op_type and
// op_name escaped by EscapeNamePart, the timestamp as 16 digits zero-padded.
std::string DumpFileName(std::string_view op_type, std::string_view op_name,
                         uint32_t task_id, uint32_t stream_id,
                         uint64_t timestamp_us);
// The same name appended to `out` (the writer reuses one string's capacity).
void AppendDumpFileName(std::string& out, std::string_view op_type,
                        std::string_view op_name, uint32_t task_id,
                        uint32_t stream_id, uint64_t timestamp_us);

// Brief exception dump files: "exception_info.{stream}.{task}.{time}", the
// time as ExceptionTimestamp writes it. Norm exception files are
// "{op_type}.{op_name}.{task}.{time}".
inline constexpr std::string_view kBriefExceptionFilePrefix = "exception_info";

// A packed record's name: a file name, or, in a model folder's pack or
// statistic.csv, "{iteration}/{file name}" (the record of that iteration
// folder). `iteration` is empty for a plain file name.
struct PackedRecordName {
  std::string_view iteration;
  std::string_view file;
};
// Splits `name` at its one '/', when there is one; nothing is checked.
PackedRecordName SplitPackedRecordName(std::string_view name);
// Why `name` cannot be a packed record's name (empty when it can): the file
// part must be a file name (WhyNotAFileName) and the iteration, when there is
// one, a decimal number of at most 20 digits.
std::string WhyNotAPackedRecordName(std::string_view name);

// True when a file or folder name is too long to be created as is: the
// writer then uses HashedName instead and records the pair in mapping.csv.
bool ExceedsNameMax(std::string_view name);
// The name a too-long file or folder gets, as the SDK's writer does it: the
// decimal std::hash of its full path.
std::string HashedName(std::string_view full_path);
// A CSV field: as is, or quoted per RFC 4180 when it holds ',', '"', CR or
// LF.
std::string CsvField(std::string_view field);
void AppendCsvField(std::string& out, std::string_view field);
// "hash,original_name\n" for the folder's mapping.csv; unquoted as the SDK
// writes it, except that a field holding ',', '"', CR or LF is quoted per RFC
// 4180 so the file stays readable.
std::string MappingCsvLine(std::string_view hashed, std::string_view original);

// Names read from dump trees (pack records, statistic.csv rows, mapping.csv,
// a cluster worker's listing) are untrusted: they become paths only through
// these, which accept a single file name and nothing that could leave its
// folder. A file name here is non-empty, not "." or "..", at most
// kMaxRecordNameBytes long, and holds no '/', NUL or other control character
// (a '\n' would break the index and CSV lines that list names).
inline constexpr size_t kMaxRecordNameBytes = 4096;
// Why `name` is not such a file name; empty when it is.
std::string_view WhyNotAFileName(std::string_view name);
// Why `relative` (components separated by '/') is not a relative path of such
// names; empty when it is.
std::string WhyNotARelativePath(std::string_view relative);
// "{folder}/{name}" when `name` is a file name; else an InvalidArgument error
// "{what} 'name' is not a file name ({reason}): refused".
absl::StatusOr<std::string> FileInFolder(std::string_view folder,
                                         std::string_view name,
                                         std::string_view what);

// "YYYYMMDDHHMMSS" in local time.
std::string DumpTimeFolderName(std::time_t t);
// "YYYYmmddHHMMSSmmm" in local time (exception dump file names).
std::string ExceptionTimestamp(std::chrono::system_clock::time_point t);

}  // namespace acldump::dump

#endif  // ACLDUMP_DUMP_FORMAT_DUMP_NAMES_H_
