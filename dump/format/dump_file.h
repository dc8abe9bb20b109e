// The dump file format: an 8-byte little-endian header
// length, a DumpData header without data, then the raw payloads. The reader
// treats every file as untrusted: each length is checked before it is used.
#ifndef ACLDUMP_DUMP_FORMAT_DUMP_FILE_H_
#define ACLDUMP_DUMP_FORMAT_DUMP_FILE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "dump/format/dump_data.pb.h"
#include "kernels/tensor.h"

namespace acldump::dump {

// The `version` of files in the 2.0 layout.
inline constexpr std::string_view kDumpFormatVersion = "2.0";
// Largest file ReadDumpFile accepts: the whole file is held in memory.
inline constexpr uint64_t kMaxDumpFileBytes = uint64_t{16} << 30;

// Serialises `header` (whose data fields must be empty and whose size fields
// give the payload sizes) into the file prefix of the 2.0 layout: uint64
// little-endian header_len + header bytes. Data fields that are set anyway are
// left out, so the prefix is always the 2.0 layout.
std::string EncodeDumpFilePrefix(const toolkit::dumpdata::DumpData& header);

// A parsed dump file. Payloads in file order: inputs, outputs, buffers,
// spaces (workspaces).
struct DumpFileContents {
  toolkit::dumpdata::DumpData header;  // data fields cleared
  std::vector<std::string> inputs, outputs, buffers,
      spaces;  // raw bytes, each exactly its `size`
  // Data was inside the proto (older files, version != "2.0").
  bool legacy_format = false;
};

// A whole file in the 2.0 layout: `contents.header` with each size set from its
// payload and version "2.0". Error when the payload counts differ from the
// header's entry counts. For tests and tools; the writer streams instead.
absl::StatusOr<std::string> EncodeDumpFile(const DumpFileContents& contents);

// Parses and validates a dump file. The 2.0 layout: header_len fits
// the file, the header parses, no data field is set, 8 + header_len + Σsize ==
// file size, and each input/output whose dtype has a fixed element size has
// size == shape product × element size.
// Legacy layouts (version != "2.0"): the prefix and header with data inside
// and nothing after it; or the whole file is a bare DumpData (no prefix), which
// is only accepted when the prefix reading is impossible, the version is
// digits and dots (e.g. "1.0"), and the file holds at least one input or
// output. Size fields, when non-zero, must equal the data sizes; the returned
// header has sizes set and data cleared.
absl::StatusOr<DumpFileContents> ParseDumpFile(std::string_view bytes);
// ParseDumpFile on a file's bytes; errors name the path. Files larger than
// kMaxDumpFileBytes, directories and unreadable files are errors.
absl::StatusOr<DumpFileContents> ReadDumpFile(const std::string& path);
// The header of a dump file without its payloads (the payload vectors stay
// empty): for a file in the 2.0 layout only the length prefix and the header
// are read, and every size is checked against the file size as ReadDumpFile
// checks it; other files are read and validated whole.
absl::StatusOr<DumpFileContents> ReadDumpFileHeader(const std::string& path);

// Bytes per element of an OutputDataType; nullopt for types without a fixed
// byte size (strings, sub-byte and unknown types).
std::optional<uint64_t> DumpDataTypeSize(int32_t data_type);

// Converts one payload into a tensor when its data type is one acldump has
// (DType); error otherwise (naming the DT_ name), or when the bytes do not
// match the shape.
absl::StatusOr<Tensor> PayloadToTensor(int32_t data_type,
                                       const toolkit::dumpdata::Shape& shape,
                                       std::string_view bytes);

// A payload as the original model's tensor. Files written by a device hold
// tensors in its own layouts (NC1HWC0, FRACTAL_Z, ...) padded to its cube
// size: the layout is undone (device_layout.h) using the tensor's format,
// original_shape, sub_format and, for outputs, original_op.format; types
// without an acldump tensor type are widened as PayloadToTensor does. A
// tensor already in its original layout is PayloadToTensor's result.
// original_format: the layout to assume when the file records none (-1: none
// known).
absl::StatusOr<Tensor> LogicalTensorOf(const toolkit::dumpdata::OpOutput& t,
                                       std::string_view bytes,
                                       int32_t original_format = -1);
absl::StatusOr<Tensor> LogicalTensorOf(const toolkit::dumpdata::OpInput& t,
                                       std::string_view bytes,
                                       int32_t original_format = -1);

// "NCHW", "ND", ... (the OutputFormat name without FORMAT_); "UNKNOWN(n)" for
// numbers the format does not define. A std::string because of the latter.
std::string FormatName(int32_t output_format);

// The OutputFormat number of a format name as the converter's graph writes
// it ("NCHW", "FORMAT_NC1HWC0"); nullopt for names the format does not define.
std::optional<int32_t> FormatNumber(std::string_view name);

}  // namespace acldump::dump

#endif  // ACLDUMP_DUMP_FORMAT_DUMP_FILE_H_
