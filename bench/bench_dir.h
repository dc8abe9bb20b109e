// Where benchmarks write their dumps, and how they give the space back.
//
// Spent dumps are emptied, not deleted, until the process exits: on ext4
// without a journal (this project's benchmark VM) each new inode is allocated
// past every inode deleted in the last 1-6 minutes, so a benchmark that deletes
// its files as it goes measures its own deletions (file creation went from
// ~30 us to ~1 ms per file).
#ifndef ACLDUMP_BENCH_BENCH_DIR_H_
#define ACLDUMP_BENCH_BENCH_DIR_H_

#include <string>

namespace acldump::bench {

// {ACLDUMP_BENCH_DIR or the temp folder}/acldump_bench_{pid}, created on first
// use and removed at exit, unless ACLDUMP_BENCH_KEEP=1 (the caller, e.g. the
// gate, removes it after every suite has run).
const std::string& BenchRootPath();

// Truncates every regular file below `dir`: the space comes back, the inodes
// stay allocated.
void EmptyTree(const std::string& dir);

}  // namespace acldump::bench

#endif  // ACLDUMP_BENCH_BENCH_DIR_H_
