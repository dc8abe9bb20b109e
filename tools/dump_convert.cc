#include "tools/dump_convert.h"

#include <filesystem>
#include <system_error>

#include "base/status_macros.h"
#include "base/strings.h"
#include "dump/format/dump_file.h"
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

absl::Status Copy(const dump::DumpEntry& entry, const fs::path& to,
                  ConvertSummary& summary) {
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

}  // namespace

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
