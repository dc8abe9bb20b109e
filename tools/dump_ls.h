// `dump ls`: a dump tree as text.
#ifndef ACLDUMP_TOOLS_DUMP_LS_H_
#define ACLDUMP_TOOLS_DUMP_LS_H_

#include <string>

#include "dump/format/dump_tree.h"

namespace acldump::tools {

// The tree with file counts and sizes per folder and, unless `summary`, one
// line per file (task, op type, op name, kind, size).
std::string FormatDumpTree(const dump::DumpTree& tree, bool summary);

}  // namespace acldump::tools

#endif  // ACLDUMP_TOOLS_DUMP_LS_H_
