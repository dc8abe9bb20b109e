#include "dump/format/record_file.h"

namespace acldump::dump {

std::string_view RecordFileName(RecordFile form) {
  return form == RecordFile::kStatsCsv ? "stats CSV" : "dump file";
}

RecordFile RecordFileOfName(std::string_view file_name,
                            std::string_view* stem) {
  constexpr std::string_view kCsv = ".csv";
  const bool csv = file_name.size() >= kCsv.size() &&
                   file_name.substr(file_name.size() - kCsv.size()) == kCsv;
  if (csv) file_name.remove_suffix(kCsv.size());
  if (stem != nullptr) *stem = file_name;
  return csv ? RecordFile::kStatsCsv : RecordFile::kDumpFile;
}

}  // namespace acldump::dump
