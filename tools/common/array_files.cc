#include "tools/common/array_files.h"

#include <zlib.h>

#include <charconv>
#include <cstring>
#include <memory>

#include "base/file_reader.h"
#include "base/status_macros.h"
#include "base/strings.h"
#include "kernels/dtype.h"
#include "kernels/npy.h"

namespace acldump::tools {
namespace {

bool AllDigits(std::string_view s) {
  return !s.empty() &&
         s.find_first_not_of("0123456789") == std::string_view::npos;
}

template <typename T>
std::optional<T> Digits(std::string_view s, size_t max_digits) {
  if (!AllDigits(s) || s.size() > max_digits) return std::nullopt;
  T value = 0;
  const auto [end, error] =
      std::from_chars(s.data(), s.data() + s.size(), value);
  if (error != std::errc()) return std::nullopt;
  return value;
}

// The text after `key` in a .npy header dict, up to the end of its value:
// a quoted string, a parenthesised tuple or a bare word.
std::optional<std::pair<size_t, size_t>> ValueSpan(std::string_view header,
                                                   std::string_view key) {
  const size_t at = header.find(StrCat("'", key, "'"));
  if (at == std::string_view::npos) return std::nullopt;
  size_t i = header.find(':', at);
  if (i == std::string_view::npos) return std::nullopt;
  ++i;
  while (i < header.size() && header[i] == ' ') ++i;
  if (i >= header.size()) return std::nullopt;
  size_t end;
  if (header[i] == '(') {
    end = header.find(')', i);
    if (end == std::string_view::npos) return std::nullopt;
    ++end;
  } else {
    end = header.find_first_of(",}", i);
    if (end == std::string_view::npos) return std::nullopt;
  }
  return std::make_pair(i, end);
}

absl::Status Bad(std::string_view what) {
  return absl::InvalidArgumentError(StrCat("not a valid .npy file: ", what));
}

// Reverses the order of the axes of a C-ordered tensor.
Tensor ReverseAxes(const Tensor& in) {
  const std::vector<int64_t>& dims = in.shape().dims();
  const size_t rank = dims.size();
  std::vector<int64_t> out_dims(dims.rbegin(), dims.rend());
  Tensor out(in.dtype(), Shape(out_dims));
  const size_t element = DTypeSize(in.dtype());
  const int64_t count = in.NumElements();
  if (count == 0 || rank < 2) {
    if (count > 0) std::memcpy(out.data(), in.data(), count * element);
    return out;
  }
  // Strides of the input, in elements; output index (o_0..o_{r-1}) reads
  // input index (o_{r-1}..o_0).
  std::vector<int64_t> in_stride(rank, 1);
  for (size_t d = rank - 1; d > 0; --d)
    in_stride[d - 1] = in_stride[d] * dims[d];
  std::vector<int64_t> index(rank, 0);
  const char* src = static_cast<const char*>(in.data());
  char* dst = static_cast<char*>(out.data());
  int64_t source = 0;
  for (int64_t i = 0; i < count; ++i) {
    std::memcpy(dst + i * element, src + source * element, element);
    // Next output index; output axis k is input axis rank-1-k.
    for (size_t k = rank; k-- > 0;) {
      const size_t axis = rank - 1 - k;
      ++index[k];
      source += in_stride[axis];
      if (index[k] < out_dims[k]) break;
      source -= in_stride[axis] * out_dims[k];
      index[k] = 0;
    }
  }
  return out;
}

uint64_t Le(std::string_view b, size_t at, size_t width) {
  uint64_t value = 0;
  for (size_t i = width; i-- > 0;) {
    value = (value << 8) | static_cast<unsigned char>(b[at + i]);
  }
  return value;
}

constexpr uint32_t kEndOfCentralDirectory = 0x06054b50;
constexpr uint32_t kZip64Locator = 0x07064b50;
constexpr uint32_t kZip64End = 0x06064b50;
constexpr uint32_t kCentralEntry = 0x02014b50;
constexpr uint32_t kLocalHeader = 0x04034b50;
constexpr uint64_t kMaxCentralDirectory = uint64_t{64} << 20;

}  // namespace

TensorFileName ParseTensorFileName(std::string_view stem) {
  TensorFileName name;
  name.op = std::string(stem);
  // Split off up to three trailing parts: kind, index, timestamp.
  std::vector<std::string_view> tail;
  std::string_view rest = stem;
  for (int i = 0; i < 3; ++i) {
    const size_t dot = rest.rfind('.');
    if (dot == std::string_view::npos || dot == 0) break;
    tail.insert(tail.begin(), rest.substr(dot + 1));
    rest = rest.substr(0, dot);
  }
  auto kind_at = [&](size_t i) {
    return i < tail.size() && (tail[i] == "output" || tail[i] == "input");
  };
  // tail = [.., kind, index] or [kind, index, timestamp].
  size_t kind = tail.size();
  if (tail.size() == 3 && kind_at(0) && AllDigits(tail[1]) &&
      AllDigits(tail[2])) {
    kind = 0;
  } else if (tail.size() >= 2 && kind_at(tail.size() - 2) &&
             AllDigits(tail.back())) {
    kind = tail.size() - 2;
  } else {
    return name;
  }
  const std::optional<uint32_t> position = Digits<uint32_t>(tail[kind + 1], 5);
  if (!position) return name;
  std::optional<uint64_t> timestamp;
  if (kind + 2 < tail.size()) {
    timestamp = Digits<uint64_t>(tail[kind + 2], 19);
    if (!timestamp) return name;
  }
  // The op is everything before the kind.
  size_t cut = stem.size();
  for (size_t i = kind; i < tail.size(); ++i) cut -= tail[i].size() + 1;
  name.op = std::string(stem.substr(0, cut));
  name.is_input = tail[kind] == "input";
  name.position = *position;
  name.timestamp = timestamp;
  name.explicit_tensor = true;
  return name;
}

absl::StatusOr<Tensor> DecodeArray(std::string_view bytes) {
  absl::StatusOr<Tensor> tensor = DecodeNpy(bytes);
  if (tensor.ok() || bytes.size() < 12) return tensor;
  // Fortran order: decode the same bytes as C order with the shape reversed,
  // then reverse the axes.
  const uint8_t major = static_cast<uint8_t>(bytes[6]);
  if (major < 1 || major > 3) return tensor;
  const size_t offset = major == 1 ? 10 : 12;
  const size_t header_len =
      static_cast<size_t>(Le(bytes, 8, major == 1 ? 2 : 4));
  if (header_len > bytes.size() - offset || header_len > 65536) return tensor;
  std::string header(bytes.substr(offset, header_len));
  const auto fortran = ValueSpan(header, "fortran_order");
  if (!fortran || header.substr(fortran->first,
                                fortran->second - fortran->first) != "True") {
    return tensor;
  }
  const auto shape = ValueSpan(header, "shape");
  if (!shape) return Bad("no shape");
  // Reverse the dims of "(a, b, c)".
  std::string_view tuple(header.data() + shape->first + 1,
                         shape->second - shape->first - 2);
  std::vector<std::string> dims;
  size_t start = 0;
  while (start <= tuple.size()) {
    size_t end = tuple.find(',', start);
    if (end == std::string_view::npos) end = tuple.size();
    std::string dim(tuple.substr(start, end - start));
    dim.erase(0, dim.find_first_not_of(' '));
    dim.erase(dim.find_last_not_of(' ') + 1);
    if (!dim.empty()) dims.push_back(dim);
    start = end + 1;
  }
  std::string reversed = "(";
  for (size_t i = dims.size(); i-- > 0;) {
    StrAppend(reversed, dims[i], dims.size() == 1 || i > 0 ? "," : "");
  }
  reversed += ")";
  header = StrCat(header.substr(0, shape->first), reversed,
                  header.substr(shape->second));
  const auto fortran_again = ValueSpan(header, "fortran_order");
  header = StrCat(header.substr(0, fortran_again->first), "False",
                  header.substr(fortran_again->second));
  std::string c_order("\x93NUMPY\x02\x00", 8);
  for (int i = 0; i < 4; ++i) {
    c_order += static_cast<char>((header.size() >> (8 * i)) & 0xFF);
  }
  c_order += header;
  c_order.append(bytes.substr(offset + header_len));
  ASSIGN_OR_RETURN(Tensor transposed, DecodeNpy(c_order));
  return ReverseAxes(transposed);
}

absl::StatusOr<Tensor> ReadArrayFile(const std::string& path) {
  ASSIGN_OR_RETURN(std::string bytes,
                   ReadRegularFile(path, kMaxNpyFileBytes, ".npy file"));
  absl::StatusOr<Tensor> tensor = DecodeArray(bytes);
  if (!tensor.ok()) {
    return absl::InvalidArgumentError(
        StrCat("'", path, "': ", ToStd(tensor.status().message())));
  }
  return tensor;
}

namespace {

absl::Status NotZip(const std::string& path, std::string_view what) {
  return absl::InvalidArgumentError(
      StrCat(".npz file '", path, "' is not a valid ZIP archive: ", what));
}

// Where the central directory is and how many entries it holds.
struct CentralDirectory {
  uint64_t entries;
  uint64_t size;
  uint64_t offset;
};

absl::StatusOr<CentralDirectory> FindCentralDirectory(
    const RandomAccessFile& file, const std::string& path) {
  // The end record is in the last 64 KiB + 22 bytes.
  const uint64_t tail_size = std::min<uint64_t>(file.size(), 65536 + 22);
  ASSIGN_OR_RETURN(std::string tail,
                   file.ReadAt(file.size() - tail_size, tail_size));
  size_t end = std::string::npos;
  for (size_t i = tail.size() >= 22 ? tail.size() - 22 + 1 : 0; i-- > 0;) {
    if (Le(tail, i, 4) == kEndOfCentralDirectory) {
      end = i;
      break;
    }
  }
  if (end == std::string::npos) {
    return NotZip(path, "no end of central directory");
  }
  CentralDirectory directory{Le(tail, end + 10, 2), Le(tail, end + 12, 4),
                             Le(tail, end + 16, 4)};
  if (directory.entries == 0xFFFF || directory.size == 0xFFFFFFFF ||
      directory.offset == 0xFFFFFFFF) {
    // ZIP64: a locator right before the end record points at the ZIP64 end.
    const uint64_t end_in_file = file.size() - tail_size + end;
    if (end_in_file < 20) return NotZip(path, "truncated ZIP64 locator");
    ASSIGN_OR_RETURN(std::string locator, file.ReadAt(end_in_file - 20, 20));
    if (Le(locator, 0, 4) != kZip64Locator) {
      return NotZip(path, "no ZIP64 locator");
    }
    ASSIGN_OR_RETURN(std::string record, file.ReadAt(Le(locator, 8, 8), 56));
    if (Le(record, 0, 4) != kZip64End) {
      return NotZip(path, "no ZIP64 end record");
    }
    directory = {Le(record, 32, 8), Le(record, 40, 8), Le(record, 48, 8)};
  }
  return directory;
}

// ZIP64 extra field: the 32-bit fields set to 0xFFFFFFFF follow in order.
void ApplyZip64Extra(std::string_view extra, NpzMember& member,
                     uint64_t& local_offset) {
  while (extra.size() >= 4) {
    const uint16_t id = static_cast<uint16_t>(Le(extra, 0, 2));
    const size_t len = Le(extra, 2, 2);
    if (len > extra.size() - 4) break;
    if (id == 0x0001) {
      std::string_view field = extra.substr(4, len);
      auto take = [&](uint64_t& value) {
        if (value != 0xFFFFFFFF || field.size() < 8) return;
        value = Le(field, 0, 8);
        field.remove_prefix(8);
      };
      take(member.size);
      take(member.compressed_size);
      take(local_offset);
    }
    extra.remove_prefix(4 + len);
  }
}

}  // namespace

absl::StatusOr<std::vector<NpzMember>> ListNpz(const std::string& path) {
  ASSIGN_OR_RETURN(RandomAccessFile file,
                   RandomAccessFile::Open(path, ".npz file"));
  auto bad = [&](std::string_view what) { return NotZip(path, what); };
  ASSIGN_OR_RETURN(CentralDirectory where, FindCentralDirectory(file, path));
  if (where.size > kMaxCentralDirectory) {
    return bad(StrCat("central directory of ", where.size, " bytes"));
  }
  ASSIGN_OR_RETURN(std::string directory,
                   file.ReadAt(where.offset, where.size));
  std::vector<NpzMember> members;
  size_t at = 0;
  for (uint64_t n = 0; n < where.entries; ++n) {
    if (directory.size() - at < 46 || Le(directory, at, 4) != kCentralEntry) {
      return bad("truncated central directory");
    }
    const uint16_t flags = static_cast<uint16_t>(Le(directory, at + 8, 2));
    NpzMember member;
    member.method = static_cast<uint16_t>(Le(directory, at + 10, 2));
    member.crc32 = static_cast<uint32_t>(Le(directory, at + 16, 4));
    member.compressed_size = Le(directory, at + 20, 4);
    member.size = Le(directory, at + 24, 4);
    const size_t name_len = Le(directory, at + 28, 2);
    const size_t extra_len = Le(directory, at + 30, 2);
    const size_t comment_len = Le(directory, at + 32, 2);
    uint64_t local_offset = Le(directory, at + 42, 4);
    if (directory.size() - at - 46 < name_len + extra_len + comment_len) {
      return bad("truncated central directory entry");
    }
    const std::string name = directory.substr(at + 46, name_len);
    ApplyZip64Extra(
        std::string_view(directory.data() + at + 46 + name_len, extra_len),
        member, local_offset);
    at += 46 + name_len + extra_len + comment_len;
    if (name.size() <= 4 || name.substr(name.size() - 4) != ".npy") continue;
    if (flags & 1) return bad(StrCat("member '", name, "' is encrypted"));
    if (member.method != 0 && member.method != 8) {
      return bad(StrCat("member '", name, "' uses compression method ",
                        member.method, " (only stored and deflate are read)"));
    }
    ASSIGN_OR_RETURN(std::string local, file.ReadAt(local_offset, 30));
    if (Le(local, 0, 4) != kLocalHeader) {
      return bad(StrCat("member '", name, "' has no local header"));
    }
    member.data_offset =
        local_offset + 30 + Le(local, 26, 2) + Le(local, 28, 2);
    member.name = name.substr(0, name.size() - 4);
    members.push_back(std::move(member));
  }
  return members;
}

absl::StatusOr<Tensor> ReadNpzMember(const std::string& path,
                                     const NpzMember& member) {
  auto bad = [&](std::string_view what) {
    return absl::InvalidArgumentError(
        StrCat(".npz file '", path, "', member '", member.name, "': ", what));
  };
  if (member.size > kMaxNpyFileBytes) {
    return bad(StrCat(member.size, " bytes, more than the limit of ",
                      kMaxNpyFileBytes));
  }
  ASSIGN_OR_RETURN(RandomAccessFile file,
                   RandomAccessFile::Open(path, ".npz file"));
  ASSIGN_OR_RETURN(std::string packed,
                   file.ReadAt(member.data_offset, member.compressed_size));
  std::string bytes;
  if (member.method == 0) {
    if (packed.size() != member.size) return bad("stored size mismatch");
    bytes = std::move(packed);
  } else {
    bytes.resize(member.size);
    z_stream stream{};
    if (inflateInit2(&stream, -MAX_WBITS) != Z_OK) return bad("zlib failed");
    stream.next_in = reinterpret_cast<Bytef*>(packed.data());
    stream.next_out = reinterpret_cast<Bytef*>(bytes.data());
    uint64_t in_left = packed.size(), out_left = bytes.size();
    int result = Z_OK;
    while (result == Z_OK) {
      const uInt in_chunk =
          static_cast<uInt>(std::min<uint64_t>(in_left, 1u << 30));
      const uInt out_chunk =
          static_cast<uInt>(std::min<uint64_t>(out_left, 1u << 30));
      stream.avail_in = in_chunk;
      stream.avail_out = out_chunk;
      result = inflate(&stream, Z_NO_FLUSH);
      in_left -= in_chunk - stream.avail_in;
      out_left -= out_chunk - stream.avail_out;
      if (result == Z_OK && in_chunk == stream.avail_in &&
          out_chunk == stream.avail_out) {
        break;  // no progress: truncated or larger than declared
      }
    }
    inflateEnd(&stream);
    if (result != Z_STREAM_END || out_left != 0) {
      return bad("the compressed data is corrupt or not of the declared size");
    }
  }
  const uint32_t crc = static_cast<uint32_t>(
      crc32_z(0, reinterpret_cast<const Bytef*>(bytes.data()), bytes.size()));
  if (crc != member.crc32) return bad("CRC-32 mismatch");
  absl::StatusOr<Tensor> tensor = DecodeArray(bytes);
  if (!tensor.ok()) return bad(ToStd(tensor.status().message()));
  return tensor;
}

}  // namespace acldump::tools
