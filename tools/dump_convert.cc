#include "tools/dump_convert.h"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <system_error>

#include "base/status_macros.h"
#include "base/strings.h"
#include "dump/format/dump_file.h"
#include "dump/format/merged_stats.h"
#include "dump/format/pack.h"
#include "dump/writer.h"
#include "kernels/npy.h"
#include "tools/cli_util.h"

namespace acldump::tools {
namespace {

namespace fs = std::filesystem;

absl::Status MakeDirectories(const fs::path& dir) {
  std::error_code error;
  fs::create_directories(dir, error);
  if (error) {
    return absl::PermissionDeniedError(StrCat(
        "cannot create directory '", dir.string(), "': ", error.message()));
  }
  return absl::OkStatus();
}

// Where `entry` goes under `out_dir` (its folder mirrored).
fs::path Destination(const fs::path& out_dir, const dump::DumpEntry& entry) {
  if (entry.relative.empty()) return out_dir / entry.file_name;
  return out_dir / entry.relative;
}

template <typename Tensors>
absl::Status WriteTensors(const Tensors& protos,
                          const std::vector<std::string>& payloads,
                          std::string_view kind, const fs::path& base,
                          ConvertSummary& summary) {
  for (int i = 0; i < protos.size(); ++i) {
    absl::StatusOr<Tensor> tensor = dump::PayloadToTensor(
        protos[i].data_type(), protos[i].shape(), payloads[i]);
    if (!tensor.ok()) {
      summary.skipped.push_back(StrCat(base.string(), " ", kind, " ", i, ": ",
                                       ToStd(tensor.status().message())));
      continue;
    }
    const std::string path = StrCat(base.string(), ".", kind, ".", i, ".npy");
    RETURN_IF_ERROR(WriteNpyFile(path, tensor->view()));
    std::error_code error;
    summary.bytes_written += fs::file_size(path, error);
    ++summary.npy_files;
  }
  return absl::OkStatus();
}

// A packed record, as the file it stands for.
absl::Status WritePackedRecord(const dump::DumpEntry& entry,
                               const fs::path& to) {
  ASSIGN_OR_RETURN(std::string bytes,
                   dump::ReadDumpTreeFile(entry.path, dump::kMaxDumpFileBytes,
                                          "dump record"));
  std::ofstream out(to, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out.flush()) {
    return absl::PermissionDeniedError(
        StrCat("cannot write '", to.string(), "'"));
  }
  return absl::OkStatus();
}

absl::Status Copy(const dump::DumpEntry& entry, const fs::path& to,
                  ConvertSummary& summary) {
  if (entry.packed) {
    RETURN_IF_ERROR(WritePackedRecord(entry, to));
    summary.bytes_written += entry.bytes;
    ++summary.copied;
    return absl::OkStatus();
  }
  std::error_code error;
  fs::copy_file(entry.path, to, fs::copy_options::overwrite_existing, error);
  if (error) {
    return absl::PermissionDeniedError(StrCat("cannot copy '", entry.path,
                                              "' to '", to.string(),
                                              "': ", error.message()));
  }
  summary.bytes_written += entry.bytes;
  ++summary.copied;
  return absl::OkStatus();
}

// Renders a packed record (the job's buffer holds its bytes) as the SDK
// layout's file of the same name.
class RecordRenderer final : public dump::JobRenderer {
 public:
  absl::Status Render(const dump::WriteJob& job,
                      dump::RenderedFile& file) const override {
    const auto& [directory, name] = places_[job.sequence];
    file.directory = directory;
    file.name = name;
    file.payloads.emplace_back(reinterpret_cast<const char*>(job.buffer.data()),
                               job.used);
    return absl::OkStatus();
  }
  // Folder (relative to the writer's root) and name, by job sequence.
  std::vector<std::pair<std::string, std::string>> places_;
};

bool IsPackContainer(const dump::DumpEntry& entry) {
  return entry.file_name == dump::kPackFileName ||
         entry.file_name == dump::kPackIndexFileName ||
         entry.file_name == dump::kMergedStatsFileName;
}

}  // namespace

absl::StatusOr<SdkSummary> ConvertDumpToSdk(const dump::DumpTree& tree,
                                            const std::string& out_dir) {
  const fs::path out(out_dir);
  RETURN_IF_ERROR(MakeDirectories(out));
  SdkSummary summary;
  // Packed records go through the dump writer, which names them exactly as
  // a dump in the SDK layout does (hashed names and mapping.csv included).
  auto renderer = std::make_shared<RecordRenderer>();
  std::vector<const dump::DumpEntry*> records, copies;
  for (const dump::DumpEntry& entry : tree.entries) {
    if (IsPackContainer(entry)) continue;
    (entry.packed ? records : copies).push_back(&entry);
    if (entry.packed) {
      renderer->places_.emplace_back(
          fs::path(entry.relative).parent_path().string(), entry.file_name);
    }
  }
  Progress progress("convert", records.size() + copies.size());
  size_t done = 0;
  {
    dump::DumpWriter::Options options;
    options.root = fs::absolute(out).lexically_normal().string();
    while (options.root.size() > 1 && options.root.back() == '/')
      options.root.pop_back();
    dump::DumpWriter writer(options);
    for (size_t i = 0; i < records.size(); ++i) {
      progress.Update(++done, records[i]->file_name);
      ASSIGN_OR_RETURN(
          std::string bytes,
          dump::ReadDumpTreeFile(records[i]->path, dump::kMaxDumpFileBytes,
                                 "dump record"));
      dump::WriteJob job;
      job.renderer = renderer;
      job.sequence = i;
      job.buffer = writer.AcquireBuffer(bytes.size());
      if (!bytes.empty())
        std::memcpy(job.buffer.data(), bytes.data(), bytes.size());
      job.used = bytes.size();
      writer.Submit(std::move(job));
      summary.bytes_written += bytes.size();
    }
    RETURN_IF_ERROR(writer.Flush());
    summary.records = records.size();
  }
  for (const dump::DumpEntry* entry : copies) {
    progress.Update(++done, entry->file_name);
    const fs::path destination = Destination(out, *entry);
    RETURN_IF_ERROR(MakeDirectories(destination.parent_path()));
    std::error_code error;
    fs::copy_file(entry->path, destination, fs::copy_options::none, error);
    if (error) {
      return absl::PermissionDeniedError(StrCat("cannot copy '", entry->path,
                                                "' to '", destination.string(),
                                                "': ", error.message()));
    }
    summary.bytes_written += entry->bytes;
    ++summary.copied;
  }
  progress.Finish();
  return summary;
}

absl::StatusOr<ConvertSummary> ConvertDumpToNpy(const dump::DumpTree& tree,
                                                const std::string& out_dir) {
  ConvertSummary summary;
  const fs::path out(out_dir);
  std::vector<const dump::DumpEntry*> work;
  for (const dump::DumpEntry& e : tree.entries) {
    if (e.kind != dump::EntryKind::kOther || e.file_name == "mapping.csv") {
      work.push_back(&e);
    }
  }
  Progress progress("convert", work.size());
  size_t done = 0;
  for (const dump::DumpEntry* entry : work) {
    progress.Update(++done, entry->file_name);
    const fs::path destination = Destination(out, *entry);
    RETURN_IF_ERROR(MakeDirectories(destination.parent_path()));
    if (entry->kind == dump::EntryKind::kStats ||
        entry->kind == dump::EntryKind::kOther) {
      RETURN_IF_ERROR(Copy(*entry, destination, summary));
      continue;
    }
    ASSIGN_OR_RETURN(dump::DumpFileContents contents,
                     dump::ReadDumpFile(entry->path));
    RETURN_IF_ERROR(WriteTensors(contents.header.input(), contents.inputs,
                                 "input", destination, summary));
    RETURN_IF_ERROR(WriteTensors(contents.header.output(), contents.outputs,
                                 "output", destination, summary));
    ++summary.dump_files;
  }
  progress.Finish();
  return summary;
}

}  // namespace acldump::tools
