// `dump ls`: a dump tree as text.
#ifndef ACLDUMP_TOOLS_TREE_LS_H_
#define ACLDUMP_TOOLS_TREE_LS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "dump/format/dump_tree.h"

namespace acldump::tools {

// The tree with file counts and sizes per folder and, unless `summary`, one
// line per file (task, op type, op name, kind, size). `summary` prints the
// iteration folders of a model id on one line, as ranges ("0-4,10").
std::string FormatDumpTree(const dump::DumpTree& tree, bool summary);

// "0-4,10,12-13" (sorted, duplicates dropped).
std::string IterationRanges(std::vector<int64_t> iterations);

}  // namespace acldump::tools

#endif  // ACLDUMP_TOOLS_TREE_LS_H_
