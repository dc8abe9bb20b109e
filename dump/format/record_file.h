// The forms a dump record's file takes on disk. A payload (what a record
// holds: tensors, statistics, checksums...) writes one of them, and the packed
// layout, the tree scan and the readers route by the form alone, so a new
// payload that writes an existing form needs nothing here.
#ifndef ACLDUMP_DUMP_FORMAT_RECORD_FILE_H_
#define ACLDUMP_DUMP_FORMAT_RECORD_FILE_H_

#include <string_view>

namespace acldump::dump {

enum class RecordFile : unsigned char {
  // "{name}": an 8-byte header length, a DumpData header, the raw tensors.
  // Packed: a record of the folder's dump.pack.
  kDumpFile,
  // "{name}.csv": the SDK's statistic CSV, its header and a row per tensor.
  // Packed: rows of the folder's statistic.csv.
  kStatsCsv,
};

// "" or ".csv": what the form appends to a record's name (inline: the writer
// asks it per record).
constexpr std::string_view RecordFileSuffix(RecordFile form) {
  return form == RecordFile::kStatsCsv ? ".csv" : "";
}
// "dump file", "stats CSV".
std::string_view RecordFileName(RecordFile form);
// The form a record's file name (hashed names resolved) says it has, and the
// name without the form's suffix.
RecordFile RecordFileOfName(std::string_view file_name, std::string_view* stem);

}  // namespace acldump::dump

#endif  // ACLDUMP_DUMP_FORMAT_RECORD_FILE_H_
