#include "tools/tree/convert.h"

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
#include "tools/common/cli_util.h"
#include "tools/common/output_folder.h"

namespace acldump::tools {
namespace {

namespace fs = std::filesystem;

// Where `entry` goes below the output folder (its folder mirrored).
std::string Destination(const dump::DumpEntry& entry) {
  return entry.relative.empty() ? entry.file_name : entry.relative;
}

template <typename Tensors>
absl::Status WriteTensors(const Tensors& protos,
                          const std::vector<std::string>& payloads,
                          std::string_view kind, const std::string& base,
                          OutputFolder& out, ConvertSummary& summary) {
  for (int i = 0; i < protos.size(); ++i) {
    absl::StatusOr<Tensor> tensor =
        dump::LogicalTensorOf(protos[i], payloads[i]);
    if (!tensor.ok()) {
      summary.skipped.push_back(StrCat(base, " ", kind, " ", i, ": ",
                                       ToStd(tensor.status().message())));
      continue;
    }
    ASSIGN_OR_RETURN(std::string bytes, EncodeNpy(tensor->view()));
    RETURN_IF_ERROR(
        out.Write(StrCat(base, ".", kind, ".", i, ".npy"), bytes).status());
    summary.bytes_written += bytes.size();
    ++summary.npy_files;
  }
  return absl::OkStatus();
}

// A stats CSV or mapping.csv, as it is (a packed record as the file it stands
// for).
absl::Status Copy(const dump::DumpEntry& entry, OutputFolder& out,
                  ConvertSummary& summary) {
  if (entry.packed) {
    ASSIGN_OR_RETURN(std::string bytes,
                     dump::ReadDumpTreeFile(entry.path, dump::kMaxDumpFileBytes,
                                            "dump record"));
    RETURN_IF_ERROR(out.Write(Destination(entry), bytes).status());
  } else {
    RETURN_IF_ERROR(out.Copy(Destination(entry), entry.path).status());
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

}  // namespace

absl::StatusOr<SdkSummary> ConvertDumpToSdk(const dump::DumpTree& tree,
                                            const std::string& out_dir) {
  const fs::path out(out_dir);
  ASSIGN_OR_RETURN(std::unique_ptr<OutputFolder> folder,
                   OutputFolder::Open(out_dir));
  SdkSummary summary;
  // Packed records go through the dump writer, which names them exactly as
  // a dump in the SDK layout does (hashed names and mapping.csv included).
  auto renderer = std::make_shared<RecordRenderer>();
  std::vector<const dump::DumpEntry*> records, copies;
  for (const dump::DumpEntry& entry : tree.entries) {
    // A pack's records are written as files; mapping.csv is copied (the
    // hashed names it maps are kept).
    if (dump::IsLayoutFile(entry) && entry.file_name != "mapping.csv") {
      continue;
    }
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
    RETURN_IF_ERROR(
        folder->Copy(Destination(*entry), entry->path, IfExists::kRefuse)
            .status());
    summary.bytes_written += entry->bytes;
    ++summary.copied;
  }
  progress.Finish();
  return summary;
}

absl::StatusOr<ConvertSummary> ConvertDumpToNpy(const dump::DumpTree& tree,
                                                const std::string& out_dir) {
  ConvertSummary summary;
  ASSIGN_OR_RETURN(std::unique_ptr<OutputFolder> out,
                   OutputFolder::Open(out_dir));
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
    if (entry->kind == dump::EntryKind::kStats ||
        entry->kind == dump::EntryKind::kOther) {
      RETURN_IF_ERROR(Copy(*entry, *out, summary));
      continue;
    }
    ASSIGN_OR_RETURN(dump::DumpFileContents contents,
                     dump::ReadDumpFile(entry->path));
    const std::string destination = Destination(*entry);
    RETURN_IF_ERROR(WriteTensors(contents.header.input(), contents.inputs,
                                 "input", destination, *out, summary));
    RETURN_IF_ERROR(WriteTensors(contents.header.output(), contents.outputs,
                                 "output", destination, *out, summary));
    ++summary.dump_files;
  }
  progress.Finish();
  return summary;
}

std::string GoldenNamePart(std::string_view name) {
  std::string out(name);
  for (char& c : out) {
    if (c == '/' || c == '.') c = '_';
  }
  return out;
}

absl::StatusOr<GoldenSummary> ConvertDumpToGolden(const dump::DumpTree& tree,
                                                  const std::string& out_dir) {
  GoldenSummary summary;
  ASSIGN_OR_RETURN(std::unique_ptr<OutputFolder> out,
                   OutputFolder::Open(out_dir));
  std::vector<const dump::DumpEntry*> work;
  for (const dump::DumpEntry& e : tree.entries) {
    if (e.kind == dump::EntryKind::kTensor && e.name) work.push_back(&e);
  }
  Progress progress("convert", work.size());
  size_t done = 0;
  for (const dump::DumpEntry* entry : work) {
    progress.Update(++done, entry->file_name);
    ASSIGN_OR_RETURN(dump::DumpFileContents contents,
                     dump::ReadDumpFile(entry->path));
    const auto& h = contents.header;
    const std::string op_name =
        h.op_name().empty() ? entry->name->op_name : h.op_name();
    for (int i = 0; i < h.output_size(); ++i) {
      const auto& t = h.output(i);
      const bool original =
          t.has_original_op() && !t.original_op().name().empty();
      const std::string name = original ? t.original_op().name() : op_name;
      const uint32_t index =
          original ? t.original_op().output_index() : static_cast<uint32_t>(i);
      absl::StatusOr<Tensor> tensor =
          dump::LogicalTensorOf(t, contents.outputs[i]);
      if (!tensor.ok()) {
        summary.skipped.push_back(StrCat(entry->relative, " output ", i, ": ",
                                         ToStd(tensor.status().message())));
        continue;
      }
      ASSIGN_OR_RETURN(std::string bytes, EncodeNpy(tensor->view()));
      RETURN_IF_ERROR(out->Write(StrCat(GoldenNamePart(name), ".", index, ".",
                                        entry->name->timestamp_us, ".npy"),
                                 bytes)
                          .status());
      summary.bytes_written += bytes.size();
      ++summary.npy_files;
    }
    ++summary.dump_files;
  }
  progress.Finish();
  return summary;
}

}  // namespace acldump::tools
