#include "dump/format/pack.h"

#include <sys/stat.h>

#include <charconv>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>

#include "base/file_reader.h"
#include "base/status_macros.h"
#include "base/strings.h"
#include "base/text.h"
#include "dump/format/dump_names.h"

namespace acldump::dump {
namespace {

namespace fs = std::filesystem;

constexpr size_t kMaxPackIndexBytes = size_t{256} << 20;

template <typename... Args>
absl::Status Invalid(const Args&... args) {
  return absl::InvalidArgumentError(StrCat(args...));
}

void StoreLittleEndian(uint64_t value, size_t bytes, char* out) {
  for (size_t i = 0; i < bytes; ++i)
    out[i] = static_cast<char>(value >> (8 * i));
}

uint64_t LoadLittleEndian(const char* in, size_t bytes) {
  uint64_t value = 0;
  for (size_t i = 0; i < bytes; ++i)
    value |= uint64_t{static_cast<unsigned char>(in[i])} << (8 * i);
  return value;
}

bool ParseUint(std::string_view text, uint64_t& out) {
  const auto [end, error] =
      std::from_chars(text.data(), text.data() + text.size(), out);
  return !text.empty() && error == std::errc() &&
         end == text.data() + text.size();
}

// The records index lines list, when they describe the first `pack_size`
// bytes of the pack exactly: frames back to back from offset 0.
std::optional<std::vector<PackRecord>> RecordsFromIndexLines(
    std::string_view text, uint64_t pack_size) {
  std::vector<PackRecord> records;
  uint64_t expected = 0;
  std::string_view rest = text;
  while (!rest.empty()) {
    const size_t end = rest.find('\n');
    if (end == std::string_view::npos) return std::nullopt;  // torn line
    const std::string_view line = rest.substr(0, end);
    rest.remove_prefix(end + 1);
    const size_t first = line.find(',');
    const size_t second =
        first == std::string_view::npos ? first : line.find(',', first + 1);
    uint64_t offset = 0, size = 0;
    if (second == std::string_view::npos ||
        !ParseUint(line.substr(0, first), offset) ||
        !ParseUint(line.substr(first + 1, second - first - 1), size)) {
      return std::nullopt;
    }
    const std::string_view name = line.substr(second + 1);
    const uint64_t head = kPackFrameBytes + name.size();
    if (offset != expected || name.empty() || name.size() > kMaxPackNameBytes ||
        size < head || size > pack_size - offset) {
      return std::nullopt;
    }
    records.push_back({std::string(name), offset + head, size - head});
    expected = offset + size;
  }
  if (expected != pack_size) return std::nullopt;
  return records;
}

// From an earlier version's dump.pack.index beside the pack.
std::optional<std::vector<PackRecord>> RecordsFromIndexFile(
    const std::string& index_path, uint64_t pack_size) {
  absl::StatusOr<std::string> text =
      ReadRegularFile(index_path, kMaxPackIndexBytes, "pack index");
  if (!text.ok()) return std::nullopt;
  return RecordsFromIndexLines(*text, pack_size);
}

// From the index frame the pack ends with, when there is one.
std::optional<std::vector<PackRecord>> RecordsFromIndexFrame(
    const RandomAccessFile& file) {
  const uint64_t size = file.size();
  if (size < kPackFrameBytes + 8) return std::nullopt;
  absl::StatusOr<std::string> tail = file.ReadAt(size - 8, 8);
  if (!tail.ok()) return std::nullopt;
  const uint64_t at = LoadLittleEndian(tail->data(), 8);
  if (at > size - kPackFrameBytes - 8) return std::nullopt;
  absl::StatusOr<std::string> frame = file.ReadAt(at, kPackFrameBytes);
  if (!frame.ok() || std::string_view(*frame).substr(0, 4) != kPackIndexMagic ||
      LoadLittleEndian(frame->data() + 4, 4) != 0 ||
      LoadLittleEndian(frame->data() + 8, 8) != size - at - kPackFrameBytes ||
      size - at - kPackFrameBytes - 8 > kMaxPackIndexBytes) {
    return std::nullopt;
  }
  absl::StatusOr<std::string> lines =
      file.ReadAt(at + kPackFrameBytes, size - at - kPackFrameBytes - 8);
  if (!lines.ok()) return std::nullopt;
  return RecordsFromIndexLines(*lines, at);
}

// Reads frames from the start; stops at the first that is truncated or
// corrupt, saying so.
PackContents ScanFrames(const RandomAccessFile& file) {
  PackContents contents;
  const uint64_t pack_size = file.size();
  uint64_t offset = 0;
  while (offset < pack_size) {
    const uint64_t left = pack_size - offset;
    std::string_view reason;
    absl::StatusOr<std::string> frame =
        left < kPackFrameBytes ? absl::OutOfRangeError("")
                               : file.ReadAt(offset, kPackFrameBytes);
    if (!frame.ok()) {
      reason = "a truncated record frame";
    } else if (std::string_view(*frame).substr(0, 4) == kPackIndexMagic) {
      // An index: records before it are already scanned, later ones follow.
      const uint64_t data_bytes = LoadLittleEndian(frame->data() + 8, 8);
      if (LoadLittleEndian(frame->data() + 4, 4) == 0 &&
          data_bytes <= left - kPackFrameBytes) {
        offset += kPackFrameBytes + data_bytes;
        continue;
      }
      reason = "a truncated or corrupt index frame";
    } else if (std::string_view(*frame).substr(0, 4) != kPackMagic) {
      reason = "no record frame (\"ADPK\")";
    } else {
      const uint64_t name_bytes = LoadLittleEndian(frame->data() + 4, 4);
      const uint64_t data_bytes = LoadLittleEndian(frame->data() + 8, 8);
      absl::StatusOr<std::string> name;
      if (name_bytes == 0 || name_bytes > kMaxPackNameBytes) {
        reason = "a record name length out of range";
      } else if (name_bytes > left - kPackFrameBytes ||
                 data_bytes > left - kPackFrameBytes - name_bytes ||
                 !(name = file.ReadAt(offset + kPackFrameBytes, name_bytes))
                      .ok()) {
        reason = "a truncated record (a crash while it was written)";
      } else {
        const uint64_t data_offset = offset + kPackFrameBytes + name_bytes;
        contents.records.push_back({*std::move(name), data_offset, data_bytes});
        offset = data_offset + data_bytes;
        continue;
      }
    }
    contents.problem =
        StrCat(left, " bytes at offset ", offset, " ignored: ", reason);
    break;
  }
  return contents;
}

// Moves the records whose names could leave their folder to `refused`.
void RefuseUnsafeNames(PackContents& contents) {
  std::vector<PackRecord> kept;
  for (PackRecord& record : contents.records) {
    const std::string why = WhyNotAPackedRecordName(record.name);
    if (why.empty()) {
      kept.push_back(std::move(record));
      continue;
    }
    contents.refused.push_back(
        StrCat("the record at offset ",
               record.data_offset - kPackFrameBytes - record.name.size(),
               " named ", Quote(record.name),
               " is skipped: its name is not a file name (", why, ")"));
  }
  contents.records = std::move(kept);
}

struct CachedPack {
  uint64_t size = 0;
  int64_t mtime_ns = 0;
  std::map<std::string, PackRecord, std::less<>> by_name;
};

// Packs indexed so far, by path (records are looked up one at a time).
std::mutex cache_mutex;
std::map<std::string, std::shared_ptr<const CachedPack>>& PackCache() {
  static auto* cache =
      new std::map<std::string, std::shared_ptr<const CachedPack>>();
  return *cache;
}

absl::StatusOr<std::shared_ptr<const CachedPack>> IndexedPack(
    const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
    return std::shared_ptr<const CachedPack>();
  }
  const int64_t mtime_ns =
      int64_t{st.st_mtim.tv_sec} * 1000000000 + st.st_mtim.tv_nsec;
  {
    std::lock_guard<std::mutex> lock(cache_mutex);
    auto found = PackCache().find(path);
    if (found != PackCache().end() &&
        found->second->size == static_cast<uint64_t>(st.st_size) &&
        found->second->mtime_ns == mtime_ns) {
      return found->second;
    }
  }
  ASSIGN_OR_RETURN(PackContents contents, ReadPackContents(path));
  auto pack = std::make_shared<CachedPack>();
  pack->size = static_cast<uint64_t>(st.st_size);
  pack->mtime_ns = mtime_ns;
  for (PackRecord& record : contents.records) {
    std::string name = record.name;
    pack->by_name.emplace(std::move(name), std::move(record));
  }
  std::lock_guard<std::mutex> lock(cache_mutex);
  if (PackCache().size() > 64) PackCache().clear();
  PackCache()[path] = pack;
  return std::shared_ptr<const CachedPack>(pack);
}

}  // namespace

std::string PackFrame(size_t name_bytes, uint64_t data_bytes) {
  std::string frame(kPackFrameBytes, '\0');
  std::memcpy(frame.data(), kPackMagic.data(), 4);
  StoreLittleEndian(name_bytes, 4, frame.data() + 4);
  StoreLittleEndian(data_bytes, 8, frame.data() + 8);
  return frame;
}

std::string PackIndexLine(uint64_t offset, std::string_view name,
                          uint64_t data_bytes) {
  return StrCat(offset, ",", kPackFrameBytes + name.size() + data_bytes, ",",
                name, "\n");
}

std::string PackIndexFrame(std::string_view lines, uint64_t pack_bytes) {
  std::string frame = PackFrame(0, lines.size() + 8);
  std::memcpy(frame.data(), kPackIndexMagic.data(), 4);
  frame += lines;
  char offset[8];
  StoreLittleEndian(pack_bytes, 8, offset);
  frame.append(offset, 8);
  return frame;
}

absl::StatusOr<PackContents> ReadPackContents(const std::string& path) {
  ASSIGN_OR_RETURN(RandomAccessFile file,
                   RandomAccessFile::Open(path, "dump pack"));
  std::optional<std::vector<PackRecord>> records = RecordsFromIndexFrame(file);
  if (!records) {
    records = RecordsFromIndexFile(
        (fs::path(path).parent_path() / kPackIndexFileName).string(),
        file.size());
  }
  PackContents contents;
  if (records) {
    contents.records = *std::move(records);
    contents.from_index = true;
  } else {
    contents = ScanFrames(file);
  }
  RefuseUnsafeNames(contents);
  return contents;
}

absl::StatusOr<std::optional<PackedFileLocation>> LocatePackedFile(
    const std::string& path) {
  const fs::path file(path);
  const fs::path folder = file.parent_path();
  // The folder's own pack, then, for an iteration folder, its model folder's
  // pack, which names the record "{iteration}/{file name}".
  const std::string iteration = folder.filename().string();
  const std::string names[2] = {
      file.filename().string(),
      StrCat(iteration, "/", file.filename().string())};
  const fs::path packs[2] = {folder, folder.parent_path()};
  for (int i = 0; i < 2; ++i) {
    if (i == 1 && !WhyNotAPackedRecordName(names[1]).empty()) break;
    const std::string pack_path = (packs[i] / kPackFileName).string();
    ASSIGN_OR_RETURN(std::shared_ptr<const CachedPack> pack,
                     IndexedPack(pack_path));
    if (!pack) continue;
    auto found = pack->by_name.find(names[i]);
    if (found != pack->by_name.end()) {
      return std::optional<PackedFileLocation>(
          PackedFileLocation{pack_path, found->second});
    }
  }
  return std::optional<PackedFileLocation>();
}

absl::StatusOr<std::optional<std::string>> ReadPackedFile(
    const std::string& path, uint64_t limit) {
  ASSIGN_OR_RETURN(std::optional<PackedFileLocation> location,
                   LocatePackedFile(path));
  if (!location) return std::optional<std::string>();
  const PackRecord& record = location->record;
  if (record.data_bytes > limit) {
    return absl::ResourceExhaustedError(
        StrCat("dump record '", path, "' is ", record.data_bytes,
               " bytes, more than the limit of ", limit));
  }
  ASSIGN_OR_RETURN(RandomAccessFile pack_file,
                   RandomAccessFile::Open(location->pack_path, "dump pack"));
  ASSIGN_OR_RETURN(std::string bytes,
                   pack_file.ReadAt(record.data_offset, record.data_bytes));
  return std::optional<std::string>(std::move(bytes));
}

}  // namespace acldump::dump
