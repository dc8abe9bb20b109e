// `dump convert`: tensor dumps to NumPy files. Each input/output of a dump
// file F becomes `F.input.<i>.npy` / `F.output.<i>.npy` (i = position in the
// file); float16 stays float16, bfloat16 is widened to float32 (numpy has no
// bfloat16). Stats CSVs and mapping.csv are copied unchanged. A directory is
// mirrored folder by folder under the output directory.
#ifndef ACLDUMP_TOOLS_TREE_CONVERT_H_
#define ACLDUMP_TOOLS_TREE_CONVERT_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "dump/format/dump_tree.h"

namespace acldump::tools {

struct ConvertSummary {
  size_t dump_files = 0;  // tensor dumps converted
  size_t npy_files = 0;   // .npy written
  size_t copied = 0;      // stats CSVs and mapping.csv copied
  uint64_t bytes_written = 0;
  std::vector<std::string> skipped;  // "<file>: <reason>" (unsupported dtype)
};

// Converts the dump files of `tree` into `out_dir` (created when missing).
// A file that cannot be read fails the conversion (its name in the error);
// a tensor whose dtype numpy cannot hold is skipped and listed.
absl::StatusOr<ConvertSummary> ConvertDumpToNpy(const dump::DumpTree& tree,
                                                const std::string& out_dir);

// Expands the packed records of `tree` into the files the SDK layout would
// have written for them, below `out_dir` (created when missing) in the same
// folders, with the same names (hashed, with mapping.csv, where too long);
// every other file is copied as is (the packs themselves are not). Fails when
// `out_dir` holds a file it would write.
struct SdkSummary {
  size_t records = 0;  // packed records written as files
  size_t copied = 0;   // other files copied
  uint64_t bytes_written = 0;
};
absl::StatusOr<SdkSummary> ConvertDumpToSdk(const dump::DumpTree& tree,
                                            const std::string& out_dir);

// Golden files the SDK's compare tools take as the ground truth: each output
// of each tensor dump as `{name}.{output}.{timestamp}.npy`, flat in `out_dir`,
// where name and output are the original operator and output the tensor
// stands for (the header's original_op; else the dump's operator and the
// output's position), '/' and '.' in the name replaced by '_', and timestamp
// the dump file's (microseconds). Device tensors are written in the original
// layout. Overflow records and stats CSVs are not tensors: they are skipped.
struct GoldenSummary {
  size_t dump_files = 0;
  size_t npy_files = 0;
  uint64_t bytes_written = 0;
  std::vector<std::string> skipped;  // "<file> output <i>: <reason>"
};
// The name part of a golden file: '/' and '.' replaced by '_'.
std::string GoldenNamePart(std::string_view name);
absl::StatusOr<GoldenSummary> ConvertDumpToGolden(const dump::DumpTree& tree,
                                                  const std::string& out_dir);

}  // namespace acldump::tools

#endif  // ACLDUMP_TOOLS_TREE_CONVERT_H_
