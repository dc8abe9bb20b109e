// The packed dump layout ("dump_layout": "packed"): instead of one file per
// operator execution, a folder of the layout holds
//  - dump.pack: the dump files' records back to back, each a 16-byte frame
//    ("ADPK", u32 name length, u64 data length, little-endian), the record's
//    file name as the SDK layout would have named it, then exactly that
//    file's bytes;
//    When the writer is done with a pack (at the latest when the dump is
//    finalized) it appends an index frame: "ADPI", a name length of 0, the
//    data length, then one "offset,size,name" line per record (offset of its
//    frame, size of frame + name + data) and the index frame's own offset
//    (u64), so the index is found from the pack's last 8 bytes. Scanners skip
//    index frames. (Packs of earlier versions kept the lines in a separate
//    dump.pack.index; readers still take it.)
//  - statistic.csv: every stats record's rows, each prefixed by the record's
//    Op Type, Op Name, Task ID, Stream ID and Timestamp.
// A model dump keeps every iteration's records in its model id folder: the
// pack names each "{iteration}/{file name}", and the statistic.csv has an
// Iteration column first (no folder and file to create per execution).
// Appending keeps every record complete or absent: a crash loses at most the
// record being written (a reader ignores a truncated tail and finds the
// records by scanning the frames when no index describes the pack exactly).
//
// Readers see packed records as if the SDK layout's files existed: the path
// "{folder}/{record name}" of a record reads through ReadPackedFile (and
// ReadDumpTreeFile in merged_stats.h, which also reads statistic.csv rows).
#ifndef ACLDUMP_DUMP_FORMAT_PACK_H_
#define ACLDUMP_DUMP_FORMAT_PACK_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace acldump::dump {

inline constexpr std::string_view kPackFileName = "dump.pack";
inline constexpr std::string_view kPackIndexFileName = "dump.pack.index";
inline constexpr std::string_view kMergedStatsFileName = "statistic.csv";
inline constexpr std::string_view kPackMagic = "ADPK";
inline constexpr std::string_view kPackIndexMagic = "ADPI";
inline constexpr size_t kPackFrameBytes = 16;
inline constexpr size_t kMaxPackNameBytes = 4096;
// The leading columns of statistic.csv, before a stats CSV's own.
inline constexpr std::string_view kMergedStatsColumns =
    "Op Type,Op Name,Task ID,Stream ID,Timestamp";
// The first column of a model folder's statistic.csv (records of every
// iteration), before kMergedStatsColumns.
inline constexpr std::string_view kMergedStatsIterationColumn = "Iteration";

// The frame before a record's name and data.
std::string PackFrame(size_t name_bytes, uint64_t data_bytes);
// The index line of a record whose frame starts at `offset`.
std::string PackIndexLine(uint64_t offset, std::string_view name,
                          uint64_t data_bytes);
// The index frame of a pack whose records take its first `pack_bytes` bytes,
// described by `lines` (PackIndexLine of each, in order).
std::string PackIndexFrame(std::string_view lines, uint64_t pack_bytes);

struct PackRecord {
  std::string name;
  uint64_t data_offset = 0;  // of the data, in the pack
  uint64_t data_bytes = 0;
};

struct PackContents {
  std::vector<PackRecord> records;
  // Set when the pack ends in a truncated or corrupt record (a crash while
  // it was written): what was ignored, and where.
  std::string problem;
  // An index (the pack's index frame, or an earlier version's
  // dump.pack.index) matched; else the frames were scanned.
  bool from_index = false;
  // Records left out of `records` because their names are not file names
  // (WhyNotAFileName: "/etc/passwd", "../x"), each said as a sentence.
  std::vector<std::string> refused;
};

// The records of the pack at `path` (untrusted): from its index when the index
// describes the pack exactly, else by scanning the frames. A record whose name
// could leave its folder is never returned (see PackContents::refused).
absl::StatusOr<PackContents> ReadPackContents(const std::string& path);

// Where the record named as "{folder}/{name}" is, when the folder is packed
// and holds a record of that name: nullopt when it does not. Packs are
// indexed once per process and size.
struct PackedFileLocation {
  std::string pack_path;
  PackRecord record;
};
absl::StatusOr<std::optional<PackedFileLocation>> LocatePackedFile(
    const std::string& path);

// The bytes of "{folder}/{name}" when the folder is packed and holds a record
// of that name: nullopt when it does not (the caller reads the path as a plain
// file).
absl::StatusOr<std::optional<std::string>> ReadPackedFile(
    const std::string& path, uint64_t limit);

}  // namespace acldump::dump

#endif  // ACLDUMP_DUMP_FORMAT_PACK_H_
