// The packed layout's readers (untrusted files): dump.pack with or without
// its index, and statistic.csv; and the tree scan over that folder. A record
// whose name could leave its folder (a model folder's records may name one
// iteration folder below it, "{iteration}/{name}") must never come out of
// either.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "dump/format/dump_names.h"
#include "dump/format/dump_tree.h"
#include "dump/format/merged_stats.h"
#include "dump/format/pack.h"
#include "fuzz/scratch.h"

namespace {

const std::string& Folder() { return acldump::fuzz::ScratchFolder("pack"); }
using acldump::fuzz::WriteFile;

}  // namespace

// Input: the pack's bytes, then (after the first "\n--index--\n", if any) the
// index's text. The same bytes are also read as a statistic.csv.
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace acldump::dump;  // NOLINT
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  (void)SplitMergedStats(input);
  constexpr std::string_view kSeparator = "\n--index--\n";
  const size_t split = input.find(kSeparator);
  const std::string pack = Folder() + "/" + std::string(kPackFileName);
  const std::string index = Folder() + "/" + std::string(kPackIndexFileName);
  WriteFile(pack, input.substr(0, split));
  if (split == std::string_view::npos) {
    std::remove(index.c_str());
  } else {
    WriteFile(index, input.substr(split + kSeparator.size()));
  }
  absl::StatusOr<PackContents> contents = ReadPackContents(pack);
  if (!contents.ok()) return 0;
  for (const PackRecord& record : contents->records) {
    if (!WhyNotAPackedRecordName(record.name).empty()) __builtin_trap();
    if (!WhyNotARelativePath(record.name).empty()) __builtin_trap();
    (void)ReadPackedFile(Folder() + "/" + record.name, 1 << 20);
  }
  absl::StatusOr<DumpTree> tree = ScanDumpTree(Folder());
  if (tree.ok()) {
    for (const DumpEntry& entry : tree->entries) {
      if (!WhyNotARelativePath(entry.relative).empty()) __builtin_trap();
    }
  }
  return 0;
}
