// Reading a dump directory back: which files are dumps,
// where each sits in the layout (time / device / model / model id /
// iteration), the op it belongs to and the execution order. A scan may start
// at any level of the tree, or at one file.
#ifndef ACLDUMP_DUMP_FORMAT_DUMP_TREE_H_
#define ACLDUMP_DUMP_FORMAT_DUMP_TREE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace acldump::dump {

// "{op_type}.{op_name}.{task_id}.{stream_id}.{timestamp_us}"
// (docs/dump-files.md); op_type and op_name as escaped in the name.
struct DumpFileNameParts {
  std::string op_type;
  std::string op_name;
  uint32_t task_id = 0;
  uint32_t stream_id = 0;
  uint64_t timestamp_us = 0;
  // Device dumps only. The stream path's form
  // "{op_type}.{op_name}.{dump_number}.{task_id}.{stream_id}.{timestamp_us}":
  std::optional<uint64_t> dump_number;
  // An FFTS+ sub-task's file: the name above followed by
  // ".4.{context_id}.{thread_id}.{device_id}".
  struct FftsSubTask {
    uint32_t context_id = 0, thread_id = 0, device_id = 0;
  };
  std::optional<FftsSubTask> ffts;
};
// Without any ".csv" suffix. nullopt when `name` does not have that form.
std::optional<DumpFileNameParts> ParseDumpFileName(std::string_view name);
// The names of exception dump files (extra-info/data-dump/{device}/):
// "exception_info.{stream}.{task}.{time}" (op_type "exception_info", no
// op_name) or "{op_type}.{op_name}.{task}.{time}", the time as 17 digits
// YYYYmmddHHMMSSmmm (kept in timestamp_us, which orders them), or the model
// dump form ParseDumpFileName reads.
std::optional<DumpFileNameParts> ParseExceptionFileName(std::string_view name);

enum class EntryKind {
  kTensor,          // a dump file
  kStats,           // a stats CSV
  kOverflowRecord,  // Opdebug.Node_OpDebug.*
  kOther,           // anything else: mapping.csv, .npy, configs, partial .tmp
};
std::string_view EntryKindName(EntryKind kind);

// A time folder's name: "YYYYMMDDHHMMSS", or with "_N" appended when that
// second's folder was already taken by another run.
bool IsTimeFolderName(std::string_view name);
// Orders time folders by when they were created: by the 14 digits, then by
// the number after "_" (none first): 20250101120000 < ..._1 < ..._2 < ..._10.
bool TimeFolderBefore(std::string_view a, std::string_view b);

enum class Layout {
  kModel,      // {time}/{device}/{model}/{model_id}/{iteration}/file
  kSingleOp,   // {time}/{device}/file
  kException,  // extra-info/data-dump/{device}/file
  kUnknown,    // a dump file somewhere else
};

struct DumpEntry {
  std::string path;      // as found (the scan root joined with relative)
  std::string relative;  // to the scan root ("" when the root is this file)
  std::string file_name;
  uint64_t bytes = 0;
  EntryKind kind = EntryKind::kOther;
  // Where the file's folder sits in the layout; set for every file, dump
  // file or not (the .npy files of a converted tree keep the layout).
  Layout layout = Layout::kUnknown;
  std::string time;  // YYYYMMDDHHMMSS[_N], model and single-op layouts
  int64_t device = -1;
  std::string model;  // folder name (escaped model name)
  int64_t model_id = -1;
  int64_t iteration = -1;
  // From the file name, or from the folder's mapping.csv for hashed names.
  std::optional<DumpFileNameParts> name;
  // A record of a packed folder (in its dump.pack or statistic.csv): `path`
  // names it as the SDK layout's file would be named, and the readers of the
  // format read it there (ReadDumpFile, ReadDumpTreeFile).
  bool packed = false;
  // The dump.pack or statistic.csv holding a packed record: in its folder,
  // or in its model folder, which names it "{iteration}/{file_name}".
  std::string packed_in;
};

// Files of one folder of the layout: one iteration of one model (or the
// single-op / exception folder of a device), in execution order (task id,
// then timestamp).
struct DumpRun {
  Layout layout = Layout::kUnknown;
  std::string directory;
  std::string time;
  int64_t device = -1;
  std::string model;
  int64_t model_id = -1;
  int64_t iteration = -1;
  std::vector<const DumpEntry*> files;  // kTensor, kStats, kOverflowRecord
  uint64_t bytes = 0;

  // "resnet_tiny (id 1) iteration 0, device 0, 20251130061754".
  std::string Describe() const;
};

// Move-only: runs point into entries.
struct DumpTree {
  DumpTree() = default;
  DumpTree(DumpTree&&) = default;
  DumpTree& operator=(DumpTree&&) = default;
  DumpTree(const DumpTree&) = delete;
  DumpTree& operator=(const DumpTree&) = delete;

  std::string root;
  std::vector<DumpEntry> entries;  // sorted by relative path
  std::vector<DumpRun> runs;       // by time, device, model, id, iteration
  // Packed folders whose pack or statistic.csv could not be read whole (a
  // truncated last record, a corrupt file): what was skipped.
  std::vector<std::string> problems;

  size_t CountKind(EntryKind kind) const;
  uint64_t DumpBytes() const;  // bytes of every entry but kOther
};

// A file of the layout itself rather than a dump file or a stranger: a packed
// folder's dump.pack, dump.pack.index and statistic.csv (their records are
// entries of their own), and mapping.csv.
bool IsLayoutFile(const DumpEntry& entry);

// Walks `path` (a directory, recursively without following symlinked
// folders; or a single file). An iteration folder whose records are all in
// its model folder's pack and statistic.csv (the packed layout) is read there,
// though it does not exist on disk. Errors: the path does not exist or cannot
// be read. A tree with no dump file is not an error (see CountKind).
absl::StatusOr<DumpTree> ScanDumpTree(const std::string& path);

// A tree of `entries` (as ScanDumpTree classified and placed them): sorted by
// relative path and grouped into runs. For views of a scanned tree (a subset
// of its entries).
DumpTree BuildDumpTree(std::string root, std::vector<DumpEntry> entries);

}  // namespace acldump::dump

#endif  // ACLDUMP_DUMP_FORMAT_DUMP_TREE_H_
