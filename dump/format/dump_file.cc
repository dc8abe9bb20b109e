#include "dump/format/dump_file.h"

#include <climits>
#include <cstring>
#include <utility>

#include "base/file_reader.h"
#include "base/status_macros.h"
#include "base/strings.h"
#include "dump/format/data_type.h"
#include "dump/format/device_layout.h"
#include "dump/format/float8.h"
#include "dump/format/pack.h"
#include "kernels/dtype.h"

namespace acldump::dump {
namespace {

using toolkit::dumpdata::DumpData;
using toolkit::dumpdata::Shape;

constexpr size_t kLengthBytes = 8;
// A header read on its own (ReadDumpFileHeader) is at most this large.
constexpr uint64_t kMaxHeaderOnlyBytes = uint64_t{64} << 20;

template <typename... Args>
absl::Status Invalid(const Args&... args) {
  return absl::InvalidArgumentError(StrCat(args...));
}

uint64_t LoadLittleEndian64(const char* p) {
  uint64_t value = 0;
  for (int i = 7; i >= 0; --i) {
    value = (value << 8) | static_cast<unsigned char>(p[i]);
  }
  return value;
}

std::string ShapeString(const Shape& shape) {
  return StrCat("[", StrJoin(shape.dim(), ","), "]");
}

bool HasData(const DumpData& header) {
  for (const auto& t : header.input()) {
    if (!t.data().empty()) return true;
  }
  for (const auto& t : header.output()) {
    if (!t.data().empty()) return true;
  }
  for (const auto& t : header.buffer()) {
    if (!t.data().empty()) return true;
  }
  for (const auto& t : header.space()) {
    if (!t.data().empty()) return true;
  }
  return false;
}

void ClearData(DumpData& header) {
  for (auto& t : *header.mutable_input()) t.clear_data();
  for (auto& t : *header.mutable_output()) t.clear_data();
  for (auto& t : *header.mutable_buffer()) t.clear_data();
  for (auto& t : *header.mutable_space()) t.clear_data();
}

// Shape product × element size, checked for overflow; a zero dimension makes
// the product zero whatever the other dimensions are.
absl::Status CheckTensorSize(std::string_view what, int32_t data_type,
                             const Shape& shape, uint64_t size) {
  const std::optional<uint64_t> element_size = DumpDataTypeSize(data_type);
  if (!element_size) return absl::OkStatus();
  uint64_t needed = *element_size;
  bool overflow = false;
  for (uint64_t dim : shape.dim()) {
    if (dim == 0) {
      needed = 0;
      overflow = false;
      break;
    }
    if (__builtin_mul_overflow(needed, dim, &needed)) overflow = true;
  }
  const std::string described =
      StrCat(DumpDataTypeName(data_type), ShapeString(shape));
  if (overflow) {
    return Invalid(what, ": ", described, " has more bytes than 64 bits hold");
  }
  if (needed != size) {
    return Invalid(what, ": size ", size, " but ", described, " needs ",
                   needed);
  }
  return absl::OkStatus();
}

// The 2.0 layout: every size is checked (shapes, then the running sum against
// the bytes that follow the header) before any payload is copied.
absl::Status CheckLayout2(const DumpData& header, uint64_t payload_bytes,
                          uint64_t file_size, uint64_t header_len) {
  for (int i = 0; i < header.input_size(); ++i) {
    const auto& t = header.input(i);
    RETURN_IF_ERROR(CheckTensorSize(StrCat("input ", i), t.data_type(),
                                    t.shape(), t.size()));
  }
  for (int i = 0; i < header.output_size(); ++i) {
    const auto& t = header.output(i);
    RETURN_IF_ERROR(CheckTensorSize(StrCat("output ", i), t.data_type(),
                                    t.shape(), t.size()));
  }
  uint64_t total = 0;
  auto check = [&](std::string_view kind, const auto& entries) {
    for (int i = 0; i < entries.size(); ++i) {
      const auto& entry = entries.Get(i);
      if (!entry.data().empty()) {
        return Invalid(kind, " ", i, ": ", entry.data().size(),
                       " bytes of data inside a version 2.0 header (data "
                       "must follow the header)");
      }
      if (entry.size() > payload_bytes - total) {
        return Invalid(kind, " ", i, ": size ", entry.size(),
                       " runs past the end of the file (",
                       payload_bytes - total, " of ", payload_bytes,
                       " payload bytes left after header_len ", header_len,
                       " in a file of ", file_size, " bytes)");
      }
      total += entry.size();
    }
    return absl::OkStatus();
  };
  RETURN_IF_ERROR(check("input", header.input()));
  RETURN_IF_ERROR(check("output", header.output()));
  RETURN_IF_ERROR(check("buffer", header.buffer()));
  RETURN_IF_ERROR(check("space", header.space()));
  if (total != payload_bytes) {
    return Invalid("sizes do not add up: 8 + header_len ", header_len,
                   " + payload sizes ", total, " = ",
                   kLengthBytes + header_len + total, " but the file is ",
                   file_size, " bytes");
  }
  return absl::OkStatus();
}

absl::StatusOr<DumpFileContents> ParseLayout2(DumpData header,
                                              std::string_view payloads,
                                              uint64_t file_size,
                                              uint64_t header_len) {
  RETURN_IF_ERROR(CheckLayout2(header, payloads.size(), file_size, header_len));

  DumpFileContents contents;
  size_t offset = 0;
  auto take = [&](const auto& entries, std::vector<std::string>& out) {
    out.reserve(static_cast<size_t>(entries.size()));
    for (const auto& entry : entries) {
      out.emplace_back(payloads.substr(offset, entry.size()));
      offset += entry.size();
    }
  };
  take(header.input(), contents.inputs);
  take(header.output(), contents.outputs);
  take(header.buffer(), contents.buffers);
  take(header.space(), contents.spaces);
  contents.header = std::move(header);
  return contents;
}

// Moves one legacy entry's data out, after checking its size field.
template <typename Entry>
absl::Status TakeLegacy(std::string_view kind, int index, Entry& entry,
                        std::vector<std::string>& out) {
  const uint64_t data_size = entry.data().size();
  if (entry.size() != 0 && entry.size() != data_size) {
    return Invalid(kind, " ", index, ": size ", entry.size(),
                   " but its data holds ", data_size, " bytes");
  }
  entry.set_size(data_size);
  out.push_back(std::move(*entry.mutable_data()));
  entry.clear_data();
  return absl::OkStatus();
}

absl::StatusOr<DumpFileContents> ParseLegacy(DumpData header) {
  DumpFileContents contents;
  contents.legacy_format = true;
  for (int i = 0; i < header.input_size(); ++i) {
    auto& t = *header.mutable_input(i);
    RETURN_IF_ERROR(TakeLegacy("input", i, t, contents.inputs));
    RETURN_IF_ERROR(CheckTensorSize(StrCat("input ", i), t.data_type(),
                                    t.shape(), t.size()));
  }
  for (int i = 0; i < header.output_size(); ++i) {
    auto& t = *header.mutable_output(i);
    RETURN_IF_ERROR(TakeLegacy("output", i, t, contents.outputs));
    RETURN_IF_ERROR(CheckTensorSize(StrCat("output ", i), t.data_type(),
                                    t.shape(), t.size()));
  }
  for (int i = 0; i < header.buffer_size(); ++i) {
    RETURN_IF_ERROR(
        TakeLegacy("buffer", i, *header.mutable_buffer(i), contents.buffers));
  }
  for (int i = 0; i < header.space_size(); ++i) {
    RETURN_IF_ERROR(
        TakeLegacy("space", i, *header.mutable_space(i), contents.spaces));
  }
  contents.header = std::move(header);
  return contents;
}

bool IsLegacyVersion(const std::string& version) {
  if (version.empty() || version == kDumpFormatVersion) return false;
  for (char c : version) {
    if (!((c >= '0' && c <= '9') || c == '.')) return false;
  }
  return true;
}

// A whole file that is a bare legacy DumpData. Only tried when the prefix
// reading is impossible; the version and content rules keep a truncated
// file in the 2.0 layout (whose first bytes may parse as a tiny proto) from
// passing.
std::optional<DumpData> ParseBareLegacy(std::string_view bytes) {
  if (bytes.empty() || bytes.size() > static_cast<size_t>(INT_MAX)) {
    return std::nullopt;
  }
  DumpData header;
  if (!header.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return std::nullopt;
  }
  if (!IsLegacyVersion(header.version())) return std::nullopt;
  if (header.input_size() == 0 && header.output_size() == 0) {
    return std::nullopt;
  }
  return header;
}

}  // namespace

std::string EncodeDumpFilePrefix(const DumpData& header) {
  std::string serialized;
  if (HasData(header)) {
    DumpData copy = header;
    ClearData(copy);
    serialized = copy.SerializeAsString();
  } else {
    serialized = header.SerializeAsString();
  }
  std::string out(kLengthBytes, '\0');
  uint64_t length = serialized.size();
  for (size_t i = 0; i < kLengthBytes; ++i) {
    out[i] = static_cast<char>(length & 0xFF);
    length >>= 8;
  }
  out += serialized;
  return out;
}

absl::StatusOr<std::string> EncodeDumpFile(const DumpFileContents& contents) {
  const DumpData& in = contents.header;
  if (in.input_size() != static_cast<int>(contents.inputs.size()) ||
      in.output_size() != static_cast<int>(contents.outputs.size()) ||
      in.buffer_size() != static_cast<int>(contents.buffers.size()) ||
      in.space_size() != static_cast<int>(contents.spaces.size())) {
    return Invalid("the header has ", in.input_size(), " inputs, ",
                   in.output_size(), " outputs, ", in.buffer_size(),
                   " buffers and ", in.space_size(), " spaces but there are ",
                   contents.inputs.size(), ", ", contents.outputs.size(), ", ",
                   contents.buffers.size(), " and ", contents.spaces.size(),
                   " payloads");
  }
  DumpData header = in;
  ClearData(header);
  header.set_version(std::string(kDumpFormatVersion));
  size_t total = 0;
  for (int i = 0; i < header.input_size(); ++i) {
    header.mutable_input(i)->set_size(contents.inputs[i].size());
    total += contents.inputs[i].size();
  }
  for (int i = 0; i < header.output_size(); ++i) {
    header.mutable_output(i)->set_size(contents.outputs[i].size());
    total += contents.outputs[i].size();
  }
  for (int i = 0; i < header.buffer_size(); ++i) {
    header.mutable_buffer(i)->set_size(contents.buffers[i].size());
    total += contents.buffers[i].size();
  }
  for (int i = 0; i < header.space_size(); ++i) {
    header.mutable_space(i)->set_size(contents.spaces[i].size());
    total += contents.spaces[i].size();
  }
  std::string out = EncodeDumpFilePrefix(header);
  out.reserve(out.size() + total);
  for (const auto* list : {&contents.inputs, &contents.outputs,
                           &contents.buffers, &contents.spaces}) {
    for (const std::string& payload : *list) out += payload;
  }
  return out;
}

absl::StatusOr<DumpFileContents> ParseDumpFile(std::string_view bytes) {
  const uint64_t file_size = bytes.size();
  if (file_size < kLengthBytes) {
    if (std::optional<DumpData> bare = ParseBareLegacy(bytes)) {
      return ParseLegacy(*std::move(bare));
    }
    return Invalid("file is ", file_size,
                   " bytes, too short for the 8-byte header_len");
  }
  const uint64_t header_len = LoadLittleEndian64(bytes.data());
  if (header_len > file_size - kLengthBytes) {
    if (std::optional<DumpData> bare = ParseBareLegacy(bytes)) {
      return ParseLegacy(*std::move(bare));
    }
    return Invalid("header_len ", header_len, " exceeds the file (", file_size,
                   " bytes)");
  }
  if (header_len > static_cast<uint64_t>(INT_MAX)) {
    return Invalid("header_len ", header_len,
                   " exceeds the 2 GiB limit of a protobuf message");
  }
  DumpData header;
  if (!header.ParseFromArray(bytes.data() + kLengthBytes,
                             static_cast<int>(header_len))) {
    return Invalid("the header (", header_len,
                   " bytes at offset 8) does not parse as a DumpData message");
  }
  const std::string_view payloads = bytes.substr(kLengthBytes + header_len);
  if (header.version() == kDumpFormatVersion) {
    return ParseLayout2(std::move(header), payloads, file_size, header_len);
  }
  if (!payloads.empty()) {
    return Invalid("header version \"", header.version(), "\" is not \"",
                   kDumpFormatVersion,
                   "\" (a legacy file, data inside the header) but ",
                   payloads.size(), " bytes follow the header");
  }
  return ParseLegacy(std::move(header));
}

absl::StatusOr<DumpFileContents> ReadDumpFile(const std::string& path) {
  absl::StatusOr<std::string> bytes =
      ReadRegularFile(path, kMaxDumpFileBytes, "dump file");
  if (absl::IsNotFound(bytes.status())) {
    // A record of a packed folder, named as its file would be.
    ASSIGN_OR_RETURN(std::optional<std::string> packed,
                     ReadPackedFile(path, kMaxDumpFileBytes));
    if (packed) bytes = *std::move(packed);
  }
  if (!bytes.ok()) return bytes.status();
  absl::StatusOr<DumpFileContents> contents = ParseDumpFile(*bytes);
  if (!contents.ok()) return Annotate(contents.status(), path);
  return contents;
}

namespace {

// The header of a 2.0-layout dump of `size` bytes at `base` in `file`, read
// without its tensors; nullopt when the bytes are not in that layout.
std::optional<absl::StatusOr<DumpFileContents>> ReadHeaderOnly(
    RandomAccessFile& file, uint64_t base, uint64_t size,
    const std::string& path) {
  if (size < kLengthBytes || size > kMaxDumpFileBytes) return std::nullopt;
  absl::StatusOr<std::string> prefix = file.ReadAt(base, kLengthBytes);
  const uint64_t header_len =
      prefix.ok() ? LoadLittleEndian64(prefix->data()) : 0;
  if (!prefix.ok() || header_len > size - kLengthBytes ||
      header_len > kMaxHeaderOnlyBytes) {
    return std::nullopt;
  }
  absl::StatusOr<std::string> bytes =
      file.ReadAt(base + kLengthBytes, header_len);
  DumpData header;
  if (!bytes.ok() ||
      !header.ParseFromArray(bytes->data(), static_cast<int>(header_len)) ||
      header.version() != kDumpFormatVersion) {
    return std::nullopt;
  }
  absl::Status valid =
      CheckLayout2(header, size - kLengthBytes - header_len, size, header_len);
  if (!valid.ok()) return Annotate(valid, path);
  DumpFileContents contents;
  contents.header = std::move(header);
  return contents;
}

}  // namespace

absl::StatusOr<DumpFileContents> ReadDumpFileHeader(const std::string& path) {
  // The length prefix and the header only, when the file (or the packed
  // record) is in the 2.0 layout.
  absl::StatusOr<RandomAccessFile> file =
      RandomAccessFile::Open(path, "dump file");
  if (file.ok()) {
    if (auto header = ReadHeaderOnly(*file, 0, file->size(), path)) {
      return *std::move(header);
    }
  } else if (absl::IsNotFound(file.status())) {
    ASSIGN_OR_RETURN(std::optional<PackedFileLocation> packed,
                     LocatePackedFile(path));
    if (packed) {
      ASSIGN_OR_RETURN(RandomAccessFile pack,
                       RandomAccessFile::Open(packed->pack_path, "dump pack"));
      if (auto header = ReadHeaderOnly(pack, packed->record.data_offset,
                                       packed->record.data_bytes, path)) {
        return *std::move(header);
      }
    }
  }
  // Anything else (a packed record, another layout) is read whole.
  ASSIGN_OR_RETURN(DumpFileContents contents, ReadDumpFile(path));
  contents.inputs.clear();
  contents.outputs.clear();
  contents.buffers.clear();
  contents.spaces.clear();
  return contents;
}

std::optional<uint64_t> DumpDataTypeSize(int32_t data_type) {
  using namespace toolkit::dumpdata;  // NOLINT: the DT_ enumerators
  switch (data_type) {
    case DT_INT8:
    case DT_UINT8:
    case DT_BOOL:
    case DT_HIFLOAT8:
    case DT_FLOAT8_E5M2:
    case DT_FLOAT8_E4M3FN:
      return 1;
    case DT_FLOAT16:
    case DT_BF16:
    case DT_INT16:
    case DT_UINT16:
      return 2;
    case DT_FLOAT:
    case DT_INT32:
    case DT_UINT32:
      return 4;
    case DT_DOUBLE:
    case DT_INT64:
    case DT_UINT64:
    case DT_COMPLEX64:
      return 8;
    case DT_COMPLEX128:
      return 16;
    default:
      return std::nullopt;
  }
}

namespace {

// The tensor type that holds every value of a dump type acldump's tensors do
// not have, exactly: the 8-bit floats as float32.
std::optional<DType> WidenedType(int32_t data_type) {
  using namespace toolkit::dumpdata;  // NOLINT: the DT_ enumerators
  switch (data_type) {
    case DT_HIFLOAT8:
    case DT_FLOAT8_E5M2:
    case DT_FLOAT8_E4M3FN:
      return DType::kFloat32;
    default:
      return std::nullopt;
  }
}

template <typename From, typename To, typename Convert>
void Widen(std::string_view bytes, To* out, Convert convert) {
  const size_t count = bytes.size() / sizeof(From);
  for (size_t i = 0; i < count; ++i) {
    From value;
    std::memcpy(&value, bytes.data() + i * sizeof(From), sizeof(From));
    out[i] = convert(value);
  }
}

absl::Status WidenInto(int32_t data_type, std::string_view bytes,
                       Tensor& tensor) {
  using namespace toolkit::dumpdata;  // NOLINT: the DT_ enumerators
  switch (data_type) {
    case DT_HIFLOAT8:
      Widen<uint8_t>(bytes, tensor.as<float>(), DecodeHiFloat8);
      break;
    case DT_FLOAT8_E5M2:
      Widen<uint8_t>(bytes, tensor.as<float>(), DecodeFloat8E5M2);
      break;
    case DT_FLOAT8_E4M3FN:
      Widen<uint8_t>(bytes, tensor.as<float>(), DecodeFloat8E4M3Fn);
      break;
    default:
      return Invalid(DumpDataTypeName(data_type), " cannot be widened");
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Tensor> PayloadToTensor(int32_t data_type, const Shape& shape,
                                       std::string_view bytes) {
  std::optional<DType> dtype = FromDumpDataType(data_type);
  const std::optional<DType> widened = WidenedType(data_type);
  if (!dtype && widened) dtype = widened;
  if (!dtype) {
    return absl::UnimplementedError(StrCat(DumpDataTypeName(data_type),
                                           " (data type ", data_type,
                                           ") has no acldump tensor type"));
  }
  std::vector<int64_t> dims;
  dims.reserve(static_cast<size_t>(shape.dim_size()));
  for (uint64_t dim : shape.dim()) {
    if (dim > static_cast<uint64_t>(kMaxTensorElements)) {
      return Invalid("shape ", ShapeString(shape), " has a dimension above ",
                     kMaxTensorElements);
    }
    dims.push_back(static_cast<int64_t>(dim));
  }
  absl::StatusOr<int64_t> elements = CheckedNumElements(dims);
  if (!elements.ok()) {
    return Annotate(elements.status(), StrCat("shape ", ShapeString(shape)));
  }
  const uint64_t needed =
      static_cast<uint64_t>(*elements) *
      (widened ? *DumpDataTypeSize(data_type) : DTypeSize(*dtype));
  if (bytes.size() != needed) {
    return Invalid("payload is ", bytes.size(), " bytes but ",
                   DumpDataTypeName(data_type), ShapeString(shape), " needs ",
                   needed);
  }
  Tensor tensor(*dtype, acldump::Shape(std::move(dims)));
  if (widened) {
    RETURN_IF_ERROR(WidenInto(data_type, bytes, tensor));
  } else if (!bytes.empty()) {
    std::memcpy(tensor.data(), bytes.data(), bytes.size());
  }
  return tensor;
}

namespace {

absl::StatusOr<Tensor> Logical(int32_t data_type, const Shape& shape,
                               const DeviceTensorLayout& layout,
                               std::string_view bytes) {
  if (!NeedsLayoutTransform(layout)) {
    return PayloadToTensor(data_type, shape, bytes);
  }
  const std::optional<uint64_t> element_size = DumpDataTypeSize(data_type);
  if (!element_size) {
    return Invalid(DumpDataTypeName(data_type), " tensors in ",
                   FormatName(layout.format),
                   " cannot be read back: the type has no fixed size");
  }
  ASSIGN_OR_RETURN(LogicalTensorBytes logical,
                   DeviceToLogical(layout, *element_size, bytes));
  Shape logical_shape;
  for (int64_t d : logical.shape) {
    logical_shape.add_dim(static_cast<uint64_t>(d));
  }
  return PayloadToTensor(data_type, logical_shape, logical.bytes);
}

template <typename Proto>
DeviceTensorLayout LayoutOf(const Proto& t, int32_t original_format) {
  DeviceTensorLayout layout;
  layout.format = t.format();
  layout.shape.assign(t.shape().dim().begin(), t.shape().dim().end());
  layout.original_shape.assign(t.original_shape().dim().begin(),
                               t.original_shape().dim().end());
  layout.original_format = original_format;
  layout.sub_format = t.sub_format();
  return layout;
}

}  // namespace

absl::StatusOr<Tensor> LogicalTensorOf(const toolkit::dumpdata::OpOutput& t,
                                       std::string_view bytes,
                                       int32_t original_format) {
  if (t.has_original_op() && !t.original_op().name().empty()) {
    original_format = static_cast<int32_t>(t.original_op().format());
  }
  return Logical(t.data_type(), t.shape(), LayoutOf(t, original_format), bytes);
}

absl::StatusOr<Tensor> LogicalTensorOf(const toolkit::dumpdata::OpInput& t,
                                       std::string_view bytes,
                                       int32_t original_format) {
  return Logical(t.data_type(), t.shape(), LayoutOf(t, original_format), bytes);
}

std::string FormatName(int32_t output_format) {
  if (!toolkit::dumpdata::OutputFormat_IsValid(output_format)) {
    return StrCat("UNKNOWN(", output_format, ")");
  }
  std::string_view name = toolkit::dumpdata::OutputFormat_Name(
      static_cast<toolkit::dumpdata::OutputFormat>(output_format));
  constexpr std::string_view kPrefix = "FORMAT_";
  if (name.starts_with(kPrefix)) name.remove_prefix(kPrefix.size());
  return std::string(name);
}

std::optional<int32_t> FormatNumber(std::string_view name) {
  toolkit::dumpdata::OutputFormat format;
  const std::string full =
      name.starts_with("FORMAT_") ? std::string(name) : StrCat("FORMAT_", name);
  if (!toolkit::dumpdata::OutputFormat_Parse(full, &format)) {
    return std::nullopt;
  }
  return static_cast<int32_t>(format);
}

}  // namespace acldump::dump
