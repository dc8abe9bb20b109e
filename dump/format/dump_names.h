// Names of dump folders and files (dump-format.md §3).
#ifndef ACLDUMP_DUMP_FORMAT_DUMP_NAMES_H_
#define ACLDUMP_DUMP_FORMAT_DUMP_NAMES_H_

#include <chrono>
#include <cstdint>
#include <ctime>
#include <string>
#include <string_view>

namespace acldump::dump {

// Longest file name written as is: NAME_MAX (255) less room for the ".csv" of
// a stats file and the ".tmp" of a file being written.
inline constexpr size_t kMaxPlainFileName = 255 - 8;

// Replaces each of space, '.', '/', '\\' with '_'.
std::string EscapeNamePart(std::string_view name);

// "{op_type}.{op_name}.{task_id}.{stream_id}.{timestamp_us}", op_type and
// op_name escaped by EscapeNamePart, the timestamp as 16 digits zero-padded.
std::string DumpFileName(std::string_view op_type, std::string_view op_name,
                         uint32_t task_id, uint32_t stream_id,
                         uint64_t timestamp_us);

// True when `file_name` is longer than kMaxPlainFileName bytes. Callers test
// and hash the tensor file's name; its stats file is then "{hash}.csv".
bool NeedsHashedName(std::string_view file_name);
// The decimal FNV-1a 64-bit hash of `file_name`: stable across runs and
// machines, so tools can recompute it.
std::string HashedFileName(std::string_view file_name);
// "hash,original_name\n" for the folder's mapping.csv; a field holding ',',
// '"', CR or LF is quoted per RFC 4180.
std::string MappingCsvLine(std::string_view hashed, std::string_view original);

// "YYYYMMDDHHMMSS" in local time.
std::string DumpTimeFolderName(std::time_t t);
// "YYYYmmddHHMMSSmmm" in local time (exception dump file names).
std::string ExceptionTimestamp(std::chrono::system_clock::time_point t);

}  // namespace acldump::dump

#endif  // ACLDUMP_DUMP_FORMAT_DUMP_NAMES_H_
