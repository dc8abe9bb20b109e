#include "kernels/npy.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "base/file_reader.h"
#include "base/status_macros.h"
#include "base/strings.h"
#include "kernels/half.h"

namespace acldump {
namespace {

constexpr std::string_view kMagic = "\x93NUMPY";
constexpr size_t kMaxHeaderBytes = 1 << 16;
constexpr size_t kMaxNpyBytes = size_t{16} << 30;

struct Descr {
  std::string_view text;
  DType dtype;
};
constexpr Descr kDescrs[] = {
    {"<f4", DType::kFloat32}, {"<f2", DType::kFloat16},
    {"<f8", DType::kFloat64}, {"|i1", DType::kInt8},
    {"<i2", DType::kInt16},   {"<i4", DType::kInt32},
    {"<i8", DType::kInt64},   {"|u1", DType::kUInt8},
    {"<u2", DType::kUInt16},  {"<u4", DType::kUInt32},
    {"<u8", DType::kUInt64},  {"|b1", DType::kBool},
};

absl::Status Bad(std::string_view reason) {
  return absl::InvalidArgumentError(StrCat("not a valid .npy file: ", reason));
}

// Value of `key` in the header dict, up to the next top-level ',' or '}'
// (tuples kept whole).
absl::StatusOr<std::string_view> DictValue(std::string_view header,
                                           std::string_view key) {
  const std::string quoted = StrCat("'", key, "'");
  size_t pos = header.find(quoted);
  if (pos == std::string_view::npos)
    return Bad(StrCat("header has no ", quoted));
  pos = header.find(':', pos + quoted.size());
  if (pos == std::string_view::npos)
    return Bad(StrCat("header entry ", quoted, " has no value"));
  ++pos;
  while (pos < header.size() && header[pos] == ' ') ++pos;
  size_t end = pos;
  int depth = 0;
  while (end < header.size()) {
    const char c = header[end];
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (depth == 0 && (c == ',' || c == '}')) break;
    ++end;
  }
  if (depth != 0) return Bad("unbalanced parentheses in the header");
  return header.substr(pos, end - pos);
}

}  // namespace

absl::StatusOr<std::string> EncodeNpy(const TensorView& view) {
  DType dtype = view.dtype;
  std::vector<float> widened;
  const void* data = view.data;
  if (dtype == DType::kBFloat16) {
    widened.resize(view.NumElements());
    for (size_t i = 0; i < widened.size(); ++i) {
      widened[i] = static_cast<float>(view.as<const BFloat16>()[i]);
    }
    data = widened.data();
    dtype = DType::kFloat32;
  }
  std::string_view descr;
  for (const Descr& d : kDescrs) {
    if (d.dtype == dtype) descr = d.text;
  }
  if (descr.empty())
    return absl::InvalidArgumentError(
        StrCat("no .npy type for ", DTypeName(dtype)));
  std::string shape = "(";
  for (size_t i = 0; i < view.shape.rank(); ++i) {
    StrAppend(shape, view.shape[i],
              view.shape.rank() == 1 || i + 1 < view.shape.rank() ? "," : "");
    if (i + 1 < view.shape.rank()) shape += " ";
  }
  shape += ")";
  std::string header =
      StrCat("{'descr': '", descr,
             "', 'fortran_order': False, 'shape': ", shape, ", }");
  // Pad with spaces so the data starts at a multiple of 64 bytes, ending in
  // '\n'.
  const size_t unpadded = kMagic.size() + 2 + 2 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';
  std::string out(kMagic);
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xFF);
  out += static_cast<char>((header.size() >> 8) & 0xFF);
  out += header;
  const size_t bytes =
      static_cast<size_t>(view.NumElements()) * DTypeSize(dtype);
  if (bytes > 0) out.append(static_cast<const char*>(data), bytes);
  return out;
}

absl::StatusOr<Tensor> DecodeNpy(std::string_view bytes) {
  if (bytes.size() < kMagic.size() + 4 ||
      bytes.substr(0, kMagic.size()) != kMagic) {
    return Bad("missing the \\x93NUMPY magic");
  }
  const uint8_t major = static_cast<uint8_t>(bytes[6]);
  size_t header_len;
  size_t offset;
  if (major == 1) {
    header_len =
        static_cast<uint8_t>(bytes[8]) | (static_cast<uint8_t>(bytes[9]) << 8);
    offset = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) return Bad("truncated header length");
    header_len = 0;
    for (int i = 0; i < 4; ++i)
      header_len |= static_cast<size_t>(static_cast<uint8_t>(bytes[8 + i]))
                    << (8 * i);
    offset = 12;
  } else {
    return Bad(StrCat("format version ", static_cast<int>(major),
                      " is not supported"));
  }
  if (header_len > kMaxHeaderBytes || header_len > bytes.size() - offset) {
    return Bad(StrCat("header length ", header_len, " exceeds the file"));
  }
  const std::string_view header = bytes.substr(offset, header_len);
  ASSIGN_OR_RETURN(std::string_view descr_value, DictValue(header, "descr"));
  if (descr_value.size() < 2) return Bad("bad descr");
  const std::string_view descr = descr_value.substr(1, descr_value.size() - 2);
  std::optional<DType> dtype;
  if (descr.size() == 3 &&
      (descr[0] == '<' || descr[0] == '|' || descr[0] == '=' ||
       (descr[0] == '>' && descr[2] == '1'))) {
    for (const Descr& d : kDescrs) {
      if (d.text.substr(1) == descr.substr(1)) dtype = d.dtype;
    }
  }
  if (!dtype) return Bad(StrCat("element type '", descr, "' is not supported"));
  ASSIGN_OR_RETURN(std::string_view fortran,
                   DictValue(header, "fortran_order"));
  if (fortran != "False")
    return Bad("Fortran-ordered arrays are not supported");
  ASSIGN_OR_RETURN(std::string_view shape_text, DictValue(header, "shape"));
  if (shape_text.size() < 2 || shape_text.front() != '(' ||
      shape_text.back() != ')') {
    return Bad(StrCat("shape '", shape_text, "' is not a tuple"));
  }
  std::vector<int64_t> dims;
  std::string_view rest = shape_text.substr(1, shape_text.size() - 2);
  while (!rest.empty()) {
    while (!rest.empty() && (rest.front() == ' ' || rest.front() == ','))
      rest.remove_prefix(1);
    if (rest.empty()) break;
    int64_t dim = 0;
    size_t digits = 0;
    while (digits < rest.size() && rest[digits] >= '0' && rest[digits] <= '9') {
      if (dim > (int64_t{1} << 50)) return Bad("dimension too large");
      dim = dim * 10 + (rest[digits] - '0');
      ++digits;
    }
    if (digits == 0 || dims.size() >= 32)
      return Bad(StrCat("shape '", shape_text, "' is malformed"));
    dims.push_back(dim);
    rest.remove_prefix(digits);
  }
  absl::StatusOr<int64_t> count = CheckedNumElements(
      dims, static_cast<int64_t>(kMaxNpyBytes / DTypeSize(*dtype)));
  if (!count.ok()) return Bad(ToStd(count.status().message()));
  const size_t data_bytes = static_cast<size_t>(*count) * DTypeSize(*dtype);
  const size_t data_offset = offset + header_len;
  if (bytes.size() - data_offset != data_bytes) {
    return Bad(StrCat("data is ", bytes.size() - data_offset, " bytes, ",
                      DTypeName(*dtype), Shape(dims).ToString(), " needs ",
                      data_bytes));
  }
  Tensor tensor(*dtype, Shape(std::move(dims)));
  if (data_bytes > 0)
    std::memcpy(tensor.data(), bytes.data() + data_offset, data_bytes);
  if (*dtype == DType::kBool) {
    for (int64_t i = 0; i < tensor.NumElements(); ++i) {
      uint8_t* raw = tensor.as<uint8_t>() + i;
      *raw = *raw != 0;  // normalise so bool reads stay defined
    }
  }
  return tensor;
}

absl::Status WriteNpyFile(const std::string& path, const TensorView& view) {
  ASSIGN_OR_RETURN(std::string bytes, EncodeNpy(view));
  errno = 0;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out.write(bytes.data(), static_cast<std::streamsize>(bytes.size())) ||
      !out.flush()) {
    return absl::PermissionDeniedError(
        StrCat("cannot write '", path,
               "': ", errno != 0 ? ErrnoText(errno) : "write failed"));
  }
  return absl::OkStatus();
}

absl::StatusOr<Tensor> ReadNpyFile(const std::string& path) {
  ASSIGN_OR_RETURN(std::string bytes,
                   ReadRegularFile(path, kMaxNpyFileBytes, ".npy file"));
  absl::StatusOr<Tensor> tensor = DecodeNpy(bytes);
  if (!tensor.ok()) return Annotate(tensor.status(), path);
  return tensor;
}

}  // namespace acldump
